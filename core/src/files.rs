//! The core's file conveniences: the one module of the crate that opens files.
//!
//! The sans-IO core does no I/O: the recorder writes to any `Write` and the replayer reads any
//! `BufRead` the caller gives them ([`Recorder::new`], [`Replayer::from_reader`]). For the
//! usual case of a recording in a file, the constructors here open it; everything else in
//! the crate is kept off the file system by `core/clippy.toml`'s `disallowed-methods`, which
//! this module alone is allowed past.
//!
//! DESIGN (appending after a crash): a crash while a line is written leaves it cut, without
//! its newline. The replayer skips such a last line, but a line appended after it would join
//! it, and the joined line, no longer last, would refuse the whole recording. So opening a
//! recording for appending first mends its end: a last line without its newline is cut off
//! (back to the last newline), unless it is a whole record (the crash fell between the
//! record and its newline), which keeps it and adds the newline. Either way what a replayer
//! read before stays, and the appended lines read after it. The tail is read from the end in
//! bounded chunks: memory does not grow with the file.
#![allow(clippy::disallowed_methods)]

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::error::BoxError;
use crate::record::{Appending, Record, Recorder, ReplayMode, Replayer};

impl crate::roundtrip::RoundTripLog<File> {
    /// A round-trip log appending to the file at `path` (created when missing).
    pub fn append_to(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(crate::roundtrip::RoundTripLog::new(file))
    }
}

impl Recorder<BufWriter<File>> {
    /// A recorder appending to the file at `path` (created when missing). A last line cut by
    /// a crash is cut off first (see [`Recorder::open_append`], which also says what it did).
    pub fn append_to(path: impl AsRef<Path>) -> std::io::Result<Self> {
        Recorder::open_append(path).map(|(recorder, _)| recorder)
    }

    /// A recorder appending to the file at `path` (created when missing), after mending its
    /// end: a last line without its newline is cut back to the last newline, unless it is a
    /// whole record, which gets its newline. Answers what was done, so a caller can say it.
    pub fn open_append(path: impl AsRef<Path>) -> std::io::Result<(Self, Appending)> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let appending = mend_tail(&mut file)?;
        file.seek(SeekFrom::End(0))?;
        Ok((Recorder::new(BufWriter::new(file)), appending))
    }
}

/// Where the last line of `file` (of `len` bytes) starts: just after its last newline (0 when
/// it has none), read backwards in chunks.
fn last_line_start(file: &mut File, len: u64) -> std::io::Result<u64> {
    const CHUNK: u64 = 64 * 1024;
    let mut buf = vec![0u8; 64 * 1024];
    let mut end = len;
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        let n = usize::try_from(end.saturating_sub(start))
            .unwrap_or(buf.len())
            .min(buf.len());
        let chunk = buf.get_mut(..n).unwrap_or_default();
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|b| *b == b'\n') {
            return Ok(start
                .saturating_add(u64::try_from(i).unwrap_or(0))
                .saturating_add(1));
        }
        end = start;
    }
    Ok(0)
}

/// Mends the end of the recording in `file` (see the module docs).
fn mend_tail(file: &mut File) -> std::io::Result<Appending> {
    let len = file.metadata()?.len();
    let start = last_line_start(file, len)?;
    if start == len {
        return Ok(Appending::default());
    }
    // A whole record without its newline? Parsed streaming, so a long tail is not held.
    file.seek(SeekFrom::Start(start))?;
    let tail = BufReader::new((&mut *file).take(len.saturating_sub(start)));
    let whole = serde_json::from_reader::<_, Record>(tail).is_ok();
    if whole {
        file.seek(SeekFrom::End(0))?;
        file.write_all(b"\n")?;
        file.flush()?;
        return Ok(Appending {
            cut_bytes: 0,
            newline_added: true,
        });
    }
    file.set_len(start)?;
    file.flush()?;
    Ok(Appending {
        cut_bytes: len.saturating_sub(start),
        newline_added: false,
    })
}

impl Replayer {
    /// Reads the recording at `path`.
    pub fn open(path: impl AsRef<Path>, mode: ReplayMode) -> Result<Replayer, BoxError> {
        let file = File::open(path)?;
        Replayer::from_reader(BufReader::new(file), mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn exchange(recorder: &Recorder<impl Write + Send>, n: u32) {
        let request = http::Request::builder()
            .method("GET")
            .uri(format!(
                "https://openapi.digifinex.com/v3/ticker?symbol=btc_usdt&n={n}"
            ))
            .body(Vec::new())
            .unwrap();
        // A body with multi-byte characters, so that some cuts fall inside one.
        let body = format!(r#"{{"code":0,"ticker":[{{"last":{n}.5,"note":"€ ü {n}"}}]}}"#);
        let response = http::Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(body.into_bytes())
            .unwrap();
        recorder.record(
            &request,
            Ok(&response),
            1_700_000_000_000 + i64::from(n),
            Duration::from_millis(3),
        );
    }

    fn urls(replayer: &Replayer) -> Vec<String> {
        replayer.records().map(|r| r.url.clone()).collect()
    }

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("dfx-core-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The issue's crash: a recording cut inside its last line, then one more call recorded.
    /// Before, the new line joined the cut one and the whole file was refused
    /// (`recording line 3: expected ',' or '}'`).
    #[test]
    fn appending_after_a_cut_line_cuts_it_off_first() {
        let recorder = Recorder::new(Vec::new());
        for n in 0..3 {
            exchange(&recorder, n);
        }
        let bytes = recorder.into_inner();
        let dir = temp("cut");
        let path = dir.join("session.jsonl");
        std::fs::write(&path, &bytes[..bytes.len() - 20]).unwrap();
        let (recorder, appending) = Recorder::open_append(&path).unwrap();
        let last_line = bytes[..bytes.len() - 1]
            .iter()
            .rposition(|b| *b == b'\n')
            .unwrap()
            + 1;
        assert_eq!(
            appending,
            Appending {
                cut_bytes: (bytes.len() - 20 - last_line) as u64,
                newline_added: false
            }
        );
        assert!(appending.mended());
        exchange(&recorder, 3);
        drop(recorder);
        let replayer = Replayer::open(&path, ReplayMode::Strict).unwrap();
        assert_eq!(replayer.records().count(), 3);
        assert_eq!(replayer.cut(), None);
        // A whole file: nothing to mend.
        let (_, appending) = Recorder::open_append(&path).unwrap();
        assert_eq!(appending, Appending::default());
        assert!(!appending.mended());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A recording cut at every byte and appended to: what a replayer read from the cut file
    /// stays, the appended record follows, and nothing is cut any more.
    #[test]
    fn a_recording_cut_at_any_byte_and_appended_to_reads_up_to_the_cut_and_after() {
        let recorder = Recorder::new(Vec::new());
        for n in 0..3 {
            exchange(&recorder, n);
        }
        let bytes = recorder.into_inner();
        let dir = temp("every");
        let path = dir.join("session.jsonl");
        let mut newlines_added = 0;
        for cut in 0..=bytes.len() {
            let before = Replayer::from_reader(&bytes[..cut], ReplayMode::Strict).unwrap();
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let (recorder, appending) = Recorder::open_append(&path).unwrap();
            newlines_added += usize::from(appending.newline_added);
            exchange(&recorder, 9);
            assert!(recorder.take_error().is_none());
            drop(recorder);
            let after = Replayer::open(&path, ReplayMode::Strict)
                .unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            let mut want = urls(&before);
            want.push("https://openapi.digifinex.com/v3/ticker?symbol=btc_usdt&n=9".to_owned());
            assert_eq!(urls(&after), want, "cut at {cut}");
            assert_eq!(after.cut(), None, "cut at {cut}");
        }
        // The three cuts just before a newline kept their whole record.
        assert_eq!(newlines_added, 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
