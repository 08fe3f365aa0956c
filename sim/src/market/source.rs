//! Where a recorded market comes from ([`MarketConfig`], [`MarketSource`]).

use super::format::{ReadError, Reader};
use rust_decimal::Decimal;
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Where a recording comes from.
#[derive(Clone)]
pub enum MarketSource {
    /// A recording file.
    File(PathBuf),
    /// Recording bytes (gzip) from a reader, taken when the simulator starts (so one source
    /// starts one simulator).
    Reader(Arc<Mutex<Option<Box<dyn Read + Send>>>>),
}

impl MarketSource {
    /// A reader of recording bytes (gzip), such as a `Cursor` over a [`super::format::Writer`]'s output.
    pub fn reader(r: impl Read + Send + 'static) -> MarketSource {
        MarketSource::Reader(Arc::new(Mutex::new(Some(Box::new(r)))))
    }

    /// Opens the recording.
    pub fn open(&self) -> Result<Reader, ReadError> {
        match self {
            MarketSource::File(p) => Reader::open(p),
            MarketSource::Reader(r) => {
                let taken = match r.lock() {
                    Ok(mut g) => g.take(),
                    Err(p) => p.into_inner().take(),
                };
                let input = taken.ok_or_else(|| {
                    ReadError::Io(std::io::Error::other(
                        "the recording reader was already used by another simulator",
                    ))
                })?;
                Reader::new(input)
            }
        }
    }
}

impl std::fmt::Debug for MarketSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MarketSource::File(p) => f.debug_tuple("File").field(p).finish(),
            MarketSource::Reader(_) => f.write_str("Reader(..)"),
        }
    }
}

impl PartialEq for MarketSource {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (MarketSource::File(a), MarketSource::File(b)) => a == b,
            (MarketSource::Reader(a), MarketSource::Reader(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// A recorded market to replay ([`crate::SimConfig::market`]).
#[derive(Debug, Clone, PartialEq)]
pub struct MarketConfig {
    /// The recording.
    pub source: MarketSource,
    /// Simulator milliseconds per wall millisecond while the clock runs (1: real time).
    pub speed: Decimal,
}

impl MarketConfig {
    /// The recording at `path`, replayed in real time.
    pub fn file(path: impl Into<PathBuf>) -> MarketConfig {
        MarketConfig {
            source: MarketSource::File(path.into()),
            speed: Decimal::ONE,
        }
    }

    /// A recording read from `r` (gzip bytes), replayed in real time.
    pub fn reader(r: impl Read + Send + 'static) -> MarketConfig {
        MarketConfig {
            source: MarketSource::reader(r),
            speed: Decimal::ONE,
        }
    }

    /// The same at `speed` times real time.
    pub fn with_speed(mut self, speed: Decimal) -> MarketConfig {
        self.speed = speed;
        self
    }
}
