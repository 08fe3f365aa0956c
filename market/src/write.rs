//! Writing a recording: [`Writer`], and the repair of a file a crash left unfinished.

use crate::read::{
    is_zstd, not_gzip, parse_line, quick_time, read_line_capped, read_prefix, Capped, Consumed,
    Decompress, Line, Tally,
};
use crate::{
    Data, Family, Header, Level, Limit, Limits, MarketId, ReadError, Record, FORMAT, MAX_LINE,
    MEMBER_RECORDS,
};
use flate2::write::GzEncoder;
use flate2::Compression;
use rust_decimal::Decimal;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Seek, SeekFrom, Write};
use std::path::Path;

/// Counts the bytes written through it.
#[derive(Debug)]
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes = self
            .bytes
            .saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// How a recording is compressed. Readers tell the two apart by the file's first bytes.
///
/// DESIGN: gzip stays the default (every tool opens it: `zcat`, pandas, DuckDB); zstd (level
/// [`ZSTD_LEVEL`], with a checksum per frame) writes a busy feed with a fraction of gzip's CPU
/// and reads faster. A file is one or the other throughout: appending to an existing
/// recording keeps its compression, whatever is asked for a new file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Codec {
    /// gzip members (`.jsonl.gz`).
    #[default]
    Gzip,
    /// zstd frames (`.jsonl.zst`).
    Zstd,
}

impl Codec {
    /// The compression of a recording whose file name ends in `.zst`, else gzip.
    pub fn for_path(path: impl AsRef<Path>) -> Codec {
        match path.as_ref().extension() {
            Some(e) if e == "zst" || e == "zstd" => Codec::Zstd,
            _ => Codec::Gzip,
        }
    }
}

/// The zstd level of [`Codec::Zstd`] recordings (zstd's default).
pub const ZSTD_LEVEL: i32 = 3;

/// A compressor of either [`Codec`].
enum Compress<W: Write> {
    Gzip(GzEncoder<W>),
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> std::fmt::Debug for Compress<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Compress({:?})", self.codec())
    }
}

impl<W: Write> Compress<W> {
    fn new(out: W, codec: Codec) -> io::Result<Compress<W>> {
        Ok(match codec {
            Codec::Gzip => Compress::Gzip(GzEncoder::new(out, Compression::default())),
            Codec::Zstd => {
                let mut e = zstd::stream::write::Encoder::new(out, ZSTD_LEVEL)?;
                e.include_checksum(true)?;
                Compress::Zstd(e)
            }
        })
    }

    fn codec(&self) -> Codec {
        match self {
            Compress::Gzip(_) => Codec::Gzip,
            Compress::Zstd(_) => Codec::Zstd,
        }
    }

    fn get_ref(&self) -> &W {
        match self {
            Compress::Gzip(e) => e.get_ref(),
            Compress::Zstd(e) => e.get_ref(),
        }
    }

    /// Ends the member or frame and returns the writer.
    fn finish(self) -> io::Result<W> {
        match self {
            Compress::Gzip(e) => e.finish(),
            Compress::Zstd(e) => e.finish(),
        }
    }
}

impl<W: Write> Write for Compress<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Compress::Gzip(e) => e.write(buf),
            Compress::Zstd(e) => e.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Compress::Gzip(e) => e.write_all(buf),
            Compress::Zstd(e) => e.write_all(buf),
        }
    }

    /// A sync flush (gzip) or a block flush (zstd): everything written so far can be
    /// decompressed from the output.
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Compress::Gzip(e) => e.flush(),
            Compress::Zstd(e) => e.flush(),
        }
    }
}

/// Appends records to a recording: one line per record, the compressor flushed after each by
/// default (see the module docs; [`Writer::flush_every`] for fewer flushes), a new gzip member
/// every [`MEMBER_RECORDS`] records.
#[derive(Debug)]
pub struct Writer<W: Write> {
    enc: Option<Compress<Counting<W>>>,
    /// The version the header names.
    version: u32,
    in_member: usize,
    records: u64,
    line: Vec<u8>,
    /// What [`Writer::append`] mended before appending.
    repair: Option<Repair>,
    /// Bytes of lines after which the compressor is flushed (0: after every line).
    flush_every: usize,
    /// Bytes of lines written since the last flush.
    unflushed: usize,
}

impl<W: Write> Writer<W> {
    /// A writer onto `out` that starts with the header line (`out` positioned where the new
    /// member goes: the start of an empty file or the end of a finished recording).
    pub fn new(out: W, header: &Header) -> io::Result<Writer<W>> {
        Writer::resume(out, header, 0, Codec::Gzip)
    }

    /// [`Writer::new`] compressing with `codec`.
    pub fn with_codec(out: W, header: &Header, codec: Codec) -> io::Result<Writer<W>> {
        Writer::resume(out, header, 0, codec)
    }

    fn resume(out: W, header: &Header, bytes: u64, codec: Codec) -> io::Result<Writer<W>> {
        let mut w = Writer {
            enc: Some(Compress::new(Counting { inner: out, bytes }, codec)?),
            version: header.version,
            in_member: 0,
            records: 0,
            line: Vec::with_capacity(1024),
            repair: None,
            flush_every: 0,
            unflushed: 0,
        };
        w.write_line(&header.to_line())?;
        Ok(w)
    }

    /// Flushes the compressor once `bytes` of lines have been written since the last flush
    /// (and at each new member, [`Writer::flush`] and [`Writer::finish`]) instead of after every
    /// record: a sync flush ends a deflate block, so one per record of a busy feed costs a large
    /// part of the writer's CPU, makes the file about three times larger and makes its reader
    /// build a block's tables for every line. What is not flushed yet is lost in a crash (a reader,
    /// or [`Writer::append`], mends the file up to the last flush). 0, the default: after every
    /// record.
    pub fn flush_every(mut self, bytes: usize) -> Self {
        self.flush_every = bytes;
        self
    }

    /// Flushes what was written since the last flush (a sync flush: everything written so far
    /// can be decompressed from the file).
    pub fn flush(&mut self) -> io::Result<()> {
        if self.unflushed == 0 {
            return Ok(());
        }
        let enc = self
            .enc
            .as_mut()
            .ok_or_else(|| io::Error::other("writer already finished"))?;
        enc.flush()?;
        self.unflushed = 0;
        Ok(())
    }

    fn write_line(&mut self, text: &str) -> io::Result<()> {
        let enc = self
            .enc
            .as_mut()
            .ok_or_else(|| io::Error::other("writer already finished"))?;
        self.line.clear();
        self.line.extend_from_slice(text.as_bytes());
        self.line.push(b'\n');
        enc.write_all(&self.line)?;
        self.unflushed = self.unflushed.saturating_add(self.line.len());
        if self.unflushed > self.flush_every {
            // A sync flush: everything written so far can be decompressed from the file.
            enc.flush()?;
            self.unflushed = 0;
        }
        Ok(())
    }

    /// Appends one record (flushed to the underlying writer unless [`Writer::flush_every`]
    /// holds it back). A kind newer than the header's version is refused (`InvalidInput`): an
    /// older reader would misread the file.
    pub fn write(&mut self, record: &Record) -> io::Result<()> {
        if record.data.since_version() > self.version {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "record kind {} needs format version {}; the header says {}",
                    record.data.kind(),
                    record.data.since_version(),
                    self.version
                ),
            ));
        }
        if self.in_member >= MEMBER_RECORDS {
            self.roll()?;
        }
        self.write_line(&record.to_line())?;
        self.in_member += 1;
        self.records += 1;
        Ok(())
    }

    /// Appends a websocket depth frame as received (`spot_depth` or `swap_depth`): a
    /// `snapshot` replaces the book, a delta changes the levels it lists (size 0 deletes).
    pub fn write_depth(
        &mut self,
        t: i64,
        market: &MarketId,
        snapshot: bool,
        bids: &[Level],
        asks: &[Level],
        ts: Option<i64>,
    ) -> io::Result<()> {
        let (bids, asks) = (bids.to_vec(), asks.to_vec());
        let data = match market {
            MarketId::Spot(symbol) => Data::SpotDepth {
                symbol: symbol.clone(),
                snapshot,
                bids,
                asks,
                ts,
            },
            MarketId::Swap(instrument) => Data::SwapDepth {
                instrument: instrument.clone(),
                snapshot,
                bids,
                asks,
                ts,
            },
        };
        self.write(&Record { t, data })
    }

    /// Appends an index price push (`index`).
    pub fn write_index(
        &mut self,
        t: i64,
        instrument: &str,
        index: Decimal,
        ts: Option<i64>,
    ) -> io::Result<()> {
        self.write(&Record {
            t,
            data: Data::Index {
                instrument: instrument.to_owned(),
                index,
                ts,
            },
        })
    }

    /// Appends a resync marker (`resync`): the market's deltas up to its next depth snapshot
    /// are not to be applied.
    pub fn write_resync(&mut self, t: i64, market: &MarketId, reason: &str) -> io::Result<()> {
        self.write(&Record {
            t,
            data: Data::Resync {
                market: market.clone(),
                reason: reason.to_owned(),
            },
        })
    }

    /// Appends a reconnect marker (`reconnect`) for socket `socket` of `family`, lost at
    /// `lost`, carrying `markets` (empty: every market of the family).
    pub fn write_reconnect(
        &mut self,
        t: i64,
        family: Family,
        socket: Option<u32>,
        lost: Option<i64>,
        reason: Option<&str>,
        markets: &[String],
    ) -> io::Result<()> {
        self.write(&Record {
            t,
            data: Data::Reconnect {
                family,
                socket,
                lost,
                reason: reason.map(str::to_owned),
                markets: markets.to_vec(),
            },
        })
    }

    /// Finishes the current member and starts a new one.
    fn roll(&mut self) -> io::Result<()> {
        let enc = self
            .enc
            .take()
            .ok_or_else(|| io::Error::other("writer already finished"))?;
        let codec = enc.codec();
        let mut out = enc.finish()?;
        out.flush()?;
        self.enc = Some(Compress::new(out, codec)?);
        self.in_member = 0;
        self.unflushed = 0;
        Ok(())
    }

    /// What [`Writer::append`] mended at the end of the file before appending (an
    /// unfinished or damaged last gzip member); `None` when the file ended cleanly.
    pub fn repair(&self) -> Option<Repair> {
        self.repair
    }

    /// The compression of the recording (for [`Writer::append_with_codec`], the file's own
    /// when it was not empty).
    pub fn codec(&self) -> Codec {
        self.enc.as_ref().map_or(Codec::Gzip, Compress::codec)
    }

    /// Records written by this writer.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Compressed bytes of the recording so far (for a file: its size, earlier sessions
    /// included).
    pub fn bytes(&self) -> u64 {
        self.enc.as_ref().map_or(0, |e| e.get_ref().bytes)
    }

    /// The bytes written so far without the last member's trailer (as a crash after the last
    /// flush leaves them), for tests.
    #[cfg(test)]
    pub(crate) fn crash(mut self) -> Option<W>
    where
        W: Clone,
    {
        self.enc.take().map(|e| e.get_ref().inner.clone())
    }

    /// Finishes the last member (writes the gzip trailer) and returns the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        let enc = self
            .enc
            .take()
            .ok_or_else(|| io::Error::other("writer already finished"))?;
        let mut out = enc.finish()?;
        out.flush()?;
        Ok(out.inner)
    }
}

impl Writer<File> {
    /// Creates (or empties) the file at `path` and starts it with `header`.
    pub fn create(path: impl AsRef<Path>, header: &Header) -> io::Result<Writer<File>> {
        Writer::new(File::create(path)?, header)
    }

    /// [`Writer::append`] starting a new (or empty) file with `codec`; an existing recording
    /// keeps its own compression ([`Writer::codec`] says which).
    pub fn append_with_codec(
        path: impl AsRef<Path>,
        header: &Header,
        codec: Codec,
    ) -> io::Result<Writer<File>> {
        Writer::append_inner(path.as_ref(), header, Limits::default(), codec)
    }

    /// Opens the recording at `path` for appending (creating it when missing): repairs an
    /// unfinished or damaged last member left by a crash (see the module docs; what was done
    /// is in [`Writer::repair`]), then starts a new member with `header`. Reads the whole file
    /// once, inflating each member once, held to the default [`Limits`].
    ///
    /// Refused (`InvalidData`, the file left as it is): a file that is not gzip, whose first
    /// line is not a `digifinex-market` header, that passes a cap of [`Limits`], or whose
    /// damaged member holds more than [`REPAIR_MAX`] bytes of complete lines.
    pub fn append(path: impl AsRef<Path>, header: &Header) -> io::Result<Writer<File>> {
        Writer::append_with_limits(path, header, Limits::default())
    }

    /// [`Writer::append`] held to `limits`.
    pub fn append_with_limits(
        path: impl AsRef<Path>,
        header: &Header,
        limits: Limits,
    ) -> io::Result<Writer<File>> {
        Writer::append_inner(path.as_ref(), header, limits, Codec::Gzip)
    }

    fn append_inner(
        path: &Path,
        header: &Header,
        limits: Limits,
        codec: Codec,
    ) -> io::Result<Writer<File>> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let (end, repaired, found) = repair(&mut file, limits)?;
        file.seek(SeekFrom::Start(end))?;
        let mut w = Writer::resume(file, header, end, found.unwrap_or(codec))?;
        w.repair = repaired;
        Ok(w)
    }
}

/// Most decompressed text of complete lines in a damaged member that [`Writer::append`]
/// writes again (64 MiB; a member of [`Writer`] holds [`MEMBER_RECORDS`] records, far less):
/// a larger damaged member is refused rather than cut.
pub const REPAIR_MAX: usize = 64 << 20;

/// What [`Writer::append`] mended: the last gzip member of the file was unfinished (a crash)
/// or damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Repair {
    /// Where that member started (bytes into the file): the file was cut there.
    pub at: u64,
    /// The file's length before (`len - at` bytes were cut: the member and anything after).
    pub len: u64,
    /// Complete lines of the member written again at `at`, as a finished member.
    pub lines_kept: u64,
    /// Decompressed bytes of the member dropped: its cut last line and any line longer than
    /// [`MAX_LINE`].
    pub bytes_dropped: u64,
}

fn refused(message: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("not appending to it: {message}"),
    )
}

/// Walks the gzip members of `file` once, inflating each once and keeping the complete lines
/// of the member being read (at most [`REPAIR_MAX`] bytes); when one is unfinished or
/// damaged, cuts the file where it starts and writes those lines again as a finished member.
/// Held to `limits` as a [`Reader`] is (cheaper: a line written as the writer writes it is
/// not parsed). Returns the file's end and what was mended.
fn repair(file: &mut File, limits: Limits) -> io::Result<(u64, Option<Repair>, Option<Codec>)> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok((0, None, None));
    }
    file.seek(SeekFrom::Start(0))?;
    let mut start = [0u8; 64];
    let n = read_prefix(&mut *file, &mut start)?;
    let codec = match start.get(..n).unwrap_or_default() {
        [0x1f] | [0x1f, 0x8b, ..] => Codec::Gzip,
        other if is_zstd(other) => Codec::Zstd,
        other => return Err(refused(format!("it is {}", not_gzip(other)))),
    };
    file.seek(SeekFrom::Start(0))?;
    let mut raw = Consumed {
        inner: BufReader::with_capacity(64 * 1024, &mut *file),
        consumed: 0,
    };
    let mut tally = Tally::new(limits);
    let mut line_no = 0u64;
    let mut seen_first = false;
    let mut kept: Vec<u8> = Vec::new();
    let mut line = Vec::new();
    let cap_error = |line: u64, limit: Limit| refused(ReadError::Limit { line, limit }.to_string());
    let broken = loop {
        let at = raw.consumed;
        if at >= len {
            break None;
        }
        kept.clear();
        let mut overflow = false;
        let mut lines = 0u64;
        let mut member = BufReader::with_capacity(
            64 * 1024,
            Consumed {
                inner: Decompress::one(&mut raw, codec == Codec::Zstd)?,
                consumed: 0,
            },
        );
        let failed = loop {
            line.clear();
            let budget = tally.budget();
            let (ended, n) = match read_line_capped(&mut member, &mut line, MAX_LINE, budget) {
                Ok(x) => x,
                Err(_) => break true,
            };
            tally.read(n);
            match ended {
                Capped::End | Capped::Cut => break false,
                Capped::OverBudget => return Err(cap_error(line_no + 1, tally.over_budget())),
                Capped::TooLong => {
                    line_no += 1;
                    tally.skip(n).map_err(|l| cap_error(line_no, l))?;
                    continue;
                }
                Capped::Line => line_no += 1,
            }
            let text = line.strip_suffix(b"\r").unwrap_or(&line);
            let blank = text.iter().all(u8::is_ascii_whitespace);
            if !seen_first && !blank {
                seen_first = true;
                let is_header = std::str::from_utf8(text).is_ok_and(
                    |t| matches!(parse_line(t), Ok(Line::Header(h)) if h.format == FORMAT),
                );
                if !is_header {
                    return Err(refused(
                        "its first line is not a digifinex-market header".to_owned(),
                    ));
                }
            } else {
                // Classified as the reader would, to hold the same caps.
                let time = if blank {
                    None
                } else if let Some(t) = quick_time(text) {
                    Some(t)
                } else {
                    match std::str::from_utf8(text).map(parse_line) {
                        Ok(Ok(Line::Record(r))) => Some(r.t),
                        _ => None,
                    }
                };
                match time {
                    Some(t) if !tally.instant_full(t) => tally.record(t, n),
                    Some(_) => {
                        tally.over_instant = tally.over_instant.saturating_add(1);
                        tally.skip(n).map_err(|l| cap_error(line_no, l))?;
                    }
                    None => tally.skip(n).map_err(|l| cap_error(line_no, l))?,
                }
            }
            if !overflow {
                if kept.len().saturating_add(line.len()) < REPAIR_MAX {
                    kept.extend_from_slice(&line);
                    kept.push(b'\n');
                    lines += 1;
                } else {
                    overflow = true;
                    kept = Vec::new();
                }
            }
        };
        let produced = member.get_ref().consumed;
        drop(member);
        if failed || raw.consumed <= at {
            break Some((at, overflow, lines, produced));
        }
    };
    drop(raw);
    let Some((at, overflow, lines, produced)) = broken else {
        return Ok((len, None, Some(codec)));
    };
    if overflow {
        return Err(refused(format!(
            "its gzip member at byte {at} is unfinished or damaged and holds more than \
             {REPAIR_MAX} bytes of complete lines, more than a repair writes again (copy what \
             reads with `zcat FILE > FILE.jsonl`, or record to a new file)"
        )));
    }
    let mut again = Compress::new(Vec::new(), codec)?;
    again.write_all(&kept)?;
    let again = again.finish()?;
    file.set_len(at)?;
    file.seek(SeekFrom::Start(at))?;
    if lines > 0 {
        file.write_all(&again)?;
    }
    file.flush()?;
    let end = file.stream_position()?;
    let kept_bytes = u64::try_from(kept.len()).unwrap_or(u64::MAX);
    Ok((
        end,
        Some(Repair {
            at,
            len,
            lines_kept: lines,
            bytes_dropped: produced.saturating_sub(kept_bytes),
        }),
        Some(codec),
    ))
}
