//! The core's file conveniences: the one module of the crate that opens files.
//!
//! The sans-IO core does no I/O: the recorder writes to any `Write` and the replayer reads any
//! `BufRead` the caller gives them ([`Recorder::new`], [`Replayer::from_reader`]). For the
//! usual case of a recording in a file, the two constructors here open it; everything else in
//! the crate is kept off the file system by `core/clippy.toml`'s `disallowed-methods`, which
//! this module alone is allowed past.
#![allow(clippy::disallowed_methods)]

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter};
use std::path::Path;

use crate::error::BoxError;
use crate::record::{Recorder, ReplayMode, Replayer};

impl Recorder<BufWriter<File>> {
    /// A recorder appending to the file at `path` (created when missing).
    pub fn append_to(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Recorder::new(BufWriter::new(file)))
    }
}

impl Replayer {
    /// Reads the recording at `path`.
    pub fn open(path: impl AsRef<Path>, mode: ReplayMode) -> Result<Replayer, BoxError> {
        let file = File::open(path)?;
        Replayer::from_reader(BufReader::new(file), mode)
    }
}
