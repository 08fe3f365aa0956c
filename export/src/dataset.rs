//! A partitioned Parquet dataset (`digifinex market export FILE... --dataset DIR`): recordings
//! added one after another to one directory that DuckDB, polars, pandas and Spark read as a
//! whole, exactly.
//!
//! # Layout
//!
//! Hive-style partitions, one directory level per key:
//! `DIR/table=TABLE/family=FAMILY/market=MARKET/date=YYYY-MM-DD/part-HASH-NNNN.parquet`.
//! `TABLE` is one of the tables of the plain export (`book`, `trades`, `tickers`, `funding`,
//! `mark_index`, `markers`; books as levels, see [`crate`]), `FAMILY` `spot` or `swap`,
//! `MARKET` the market as recorded (`btc_usdt`, `BTCUSDTPERP`; `_all` for a `reconnect`
//! marker, which concerns a whole socket), `date` the UTC day of the receive time. `HASH` is the
//! first 16 hex digits of the recording's SHA-256 and `NNNN` counts the recording's files in
//! that partition. The partition keys are in the path only, not in the files (as Hive and Spark
//! write them): read with hive partitioning on to get them as columns. The columns of each
//! table are the plain export's without `family` and `market`; every decimal column of every
//! file is `DECIMAL(38, 18)` ([`crate::PRECISION`], [`crate::SCALE`]), every time column
//! `TIMESTAMP(MICROS, UTC)` (microseconds since the epoch, UTC), so a glob over any number of
//! files has one schema per table and sums exactly. `seq` is the record's number in its
//! recording (it orders records of one recording within a millisecond).
//!
//! A file holds one partition's rows of one recording and is closed at about
//! [`Options::file_bytes`] ([`FILE_BYTES`], 128 MiB, by default: at the first batch of rows
//! after it reached the size, a batch being at most [`BATCH_ROWS`] rows); only the last file of
//! a partition is smaller.
//!
//! # Manifest
//!
//! `DIR/_manifest.json` ([`MANIFEST`]) describes the dataset: `format`
//! (`digifinex-dataset`), `version` ([`VERSION`]), the writer, the time and decimal types, the
//! partition keys, each table's columns and types, every recording exported (`name`,
//! `sha256`, `bytes`, `records`, `files`, `rows`) and every data file (`path`, `input` (the
//! recording's SHA-256), `table`, `family`, `market`, `date`, `rows`, `bytes`, `min_time`,
//! `max_time` (ISO 8601 UTC, the first and last row's `time`)). Files are listed in the order
//! they were written.
//!
//! DESIGN (adding, never rewriting): each file is written under a temporary name
//! (`.NAME.tmp`) and renamed when complete; the manifest is replaced the same way after each
//! recording, once all its files are in place. A recording whose SHA-256 is already in the
//! manifest is not exported again: exporting the same recording twice changes nothing, not even
//! the manifest. A new recording only adds files (under its own hash) and entries. A directory
//! whose manifest has a newer `version`, another format or other column types, or a directory
//! that is not empty and has no manifest, is refused with an error naming it, and nothing in it
//! is changed. While an export writes, `DIR/_lock` ([`LOCK`]) exists; a second export into the
//! same directory is refused until it is gone (a crashed export leaves it: remove it by hand).
//! A crash after some files of a recording were renamed but before the manifest listed them
//! leaves files the manifest does not list; exporting that recording again writes the same
//! names over them.
//!
//! The writer talks to a [`Storage`] only ([`crate::store`]): a local directory
//! ([`LocalDir`]) or, with the `s3` feature, a bucket and prefix of S3 or an S3-compatible
//! store (`crate::s3::S3`: the same objects, each visible only once complete).

use crate::store::{LocalDir, Storage, Upload};
use crate::{
    batch, iso_micros, properties, read, schema, Cell, Error, Kind, Row, Summary, TableId,
    TableSummary, BATCH_ROWS, PRECISION, SCALE,
};
use arrow_schema::Schema;
use parquet::arrow::ArrowWriter;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The manifest's `format`.
pub const FORMAT: &str = "digifinex-dataset";

/// The dataset format version this module writes and the highest it accepts.
pub const VERSION: u32 = 1;

/// The manifest's path in the dataset.
pub const MANIFEST: &str = "_manifest.json";

/// The lock's path in the dataset (present while an export writes).
pub const LOCK: &str = "_lock";

/// Bytes at which a data file is closed by default (128 MiB).
pub const FILE_BYTES: u64 = 128 << 20;

/// Bytes of encoded rows held in memory across all open files by default (256 MiB).
pub const MEMORY_BYTES: usize = 256 << 20;

/// Rows buffered across all partitions before they are encoded.
pub const BUFFER_ROWS: usize = 256 * 1024;

/// The partition keys, outermost first.
pub const PARTITIONS: [&str; 4] = ["table", "family", "market", "date"];

/// The market partition of a `reconnect` marker (a whole socket).
pub const ALL_MARKETS: &str = "_all";

/// How to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Bytes at which a data file is closed (about; at least 1). [`FILE_BYTES`] by default.
    pub file_bytes: u64,
    /// Bytes of encoded rows held in memory across all open files before the largest are
    /// written out as row groups. [`MEMORY_BYTES`] by default.
    pub memory_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            file_bytes: FILE_BYTES,
            memory_bytes: MEMORY_BYTES,
        }
    }
}

/// What exporting one recording into a dataset did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The recording.
    pub input: PathBuf,
    /// Its SHA-256 (hex).
    pub sha256: String,
    /// Whether the dataset held it already (then nothing was written).
    pub already: bool,
    /// What was read and skipped; [`Summary::tables`] lists the files added (`name` is the
    /// path in the dataset).
    pub summary: Summary,
}

// ---- the manifest ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Manifest {
    format: String,
    version: u32,
    writer: String,
    time: String,
    decimal: String,
    partitions: Vec<String>,
    tables: BTreeMap<String, Vec<(String, String)>>,
    inputs: Vec<InputEntry>,
    files: Vec<FileEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct InputEntry {
    name: String,
    sha256: String,
    bytes: u64,
    records: u64,
    files: u64,
    rows: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FileEntry {
    path: String,
    input: String,
    table: String,
    family: String,
    market: String,
    date: String,
    rows: u64,
    bytes: u64,
    min_time: String,
    max_time: String,
}

const TIME_TYPE: &str = "TIMESTAMP(MICROS, UTC)";

fn decimal_type() -> String {
    format!("DECIMAL({PRECISION}, {SCALE})")
}

fn type_name(kind: Kind) -> String {
    match kind {
        Kind::Time => TIME_TYPE.to_owned(),
        Kind::Int => "INT64".to_owned(),
        Kind::Text => "STRING".to_owned(),
        Kind::Dec => decimal_type(),
    }
}

/// The tables a dataset holds.
const DATASET_TABLES: [TableId; 6] = [
    TableId::Book,
    TableId::Trades,
    TableId::Tickers,
    TableId::Funding,
    TableId::MarkIndex,
    TableId::Markers,
];

/// A table's columns in the dataset, and where the partition columns are in its rows.
struct Shape {
    columns: Vec<(String, Kind)>,
    kinds: Vec<Kind>,
    schema: Arc<Schema>,
    family: Option<usize>,
    market: Option<usize>,
}

impl Shape {
    fn of(id: TableId) -> Shape {
        let all = id.columns(0);
        let family = all.iter().position(|(n, _)| n == "family");
        let market = all.iter().position(|(n, _)| n == "market");
        let columns: Vec<(String, Kind)> = all
            .into_iter()
            .filter(|(n, _)| n != "family" && n != "market")
            .collect();
        Shape {
            kinds: columns.iter().map(|(_, k)| *k).collect(),
            schema: schema(&columns, false),
            columns,
            family,
            market,
        }
    }

    /// The row's family and market, and the row without them.
    fn split(&self, row: Row) -> (String, String, Row) {
        let mut family = "swap".to_owned();
        let mut market = ALL_MARKETS.to_owned();
        let mut rest = Vec::with_capacity(row.len());
        for (i, cell) in row.into_iter().enumerate() {
            if Some(i) == self.family {
                if let Cell::Text(s) = cell {
                    family = s.into_owned();
                }
            } else if Some(i) == self.market {
                if let Cell::Text(s) = cell {
                    market = s.into_owned();
                }
            } else {
                rest.push(cell);
            }
        }
        (family, market, rest)
    }
}

fn new_manifest() -> Manifest {
    Manifest {
        format: FORMAT.to_owned(),
        version: VERSION,
        writer: format!("digifinex-export {}", env!("CARGO_PKG_VERSION")),
        time: TIME_TYPE.to_owned(),
        decimal: decimal_type(),
        partitions: PARTITIONS.iter().map(|p| (*p).to_owned()).collect(),
        tables: DATASET_TABLES
            .iter()
            .map(|t| {
                (
                    t.name().to_owned(),
                    Shape::of(*t)
                        .columns
                        .iter()
                        .map(|(n, k)| (n.clone(), type_name(*k)))
                        .collect(),
                )
            })
            .collect(),
        inputs: Vec::new(),
        files: Vec::new(),
    }
}

fn refuse(store: &dyn Storage, reason: impl Into<String>) -> Error {
    Error::Dataset {
        location: store.location(),
        reason: reason.into(),
    }
}

fn storage_error(store: &dyn Storage, what: &str, source: io::Error) -> Error {
    Error::Storage {
        location: format!("{}: {what}", store.location()),
        source,
    }
}

/// The dataset's manifest, a new one for an empty place, or why it cannot be written to.
fn load(store: &dyn Storage) -> Result<Manifest, Error> {
    let Some(bytes) = store
        .read(MANIFEST)
        .map_err(|e| storage_error(store, MANIFEST, e))?
    else {
        let there = store
            .list("")
            .map_err(|e| storage_error(store, "listing", e))?;
        if let Some(first) = there.iter().find(|p| p.as_str() != LOCK) {
            return Err(refuse(
                store,
                format!(
                    "not a dataset: it holds {first} (and {} more) but no {MANIFEST}; give an \
                     empty or new directory",
                    there.len().saturating_sub(1)
                ),
            ));
        }
        return Ok(new_manifest());
    };
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| refuse(store, format!("{MANIFEST} is not JSON: {e}")))?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(refuse(
            store,
            format!("{MANIFEST} is not a {FORMAT} manifest"),
        ));
    }
    let version = value.get("version").and_then(|v| v.as_u64());
    match version {
        Some(v) if v > u64::from(VERSION) => {
            return Err(refuse(
                store,
                format!(
                    "written by a newer version (dataset format version {v}; this version \
                     writes version {VERSION}): refusing to change it"
                ),
            ))
        }
        Some(_) => {}
        None => return Err(refuse(store, format!("{MANIFEST} has no version"))),
    }
    let manifest: Manifest = serde_json::from_value(value)
        .map_err(|e| refuse(store, format!("{MANIFEST} is damaged: {e}")))?;
    let ours = new_manifest();
    if manifest.time != ours.time
        || manifest.decimal != ours.decimal
        || manifest.partitions != ours.partitions
    {
        return Err(refuse(
            store,
            format!(
                "its types ({}, {}, partitions {:?}) are not this version's ({}, {})",
                manifest.time, manifest.decimal, manifest.partitions, ours.time, ours.decimal
            ),
        ));
    }
    for (table, columns) in &manifest.tables {
        if ours.tables.get(table).is_some_and(|c| c != columns) {
            return Err(refuse(
                store,
                format!("its table {table} has other columns than this version writes"),
            ));
        }
    }
    Ok(manifest)
}

fn save(store: &dyn Storage, manifest: &Manifest) -> Result<(), Error> {
    let mut text = serde_json::to_string_pretty(manifest).map_err(|e| Error::Dataset {
        location: store.location(),
        reason: format!("encoding {MANIFEST}: {e}"),
    })?;
    text.push('\n');
    let mut up = store
        .create(MANIFEST)
        .map_err(|e| storage_error(store, MANIFEST, e))?;
    io::Write::write_all(&mut up, text.as_bytes())
        .map_err(|e| storage_error(store, MANIFEST, e))?;
    up.commit().map_err(|e| storage_error(store, MANIFEST, e))?;
    Ok(())
}

/// The SHA-256 (hex) and length of the file at `path`.
fn sha256(path: &Path) -> Result<(String, u64), Error> {
    let err = |source| Error::Read(digifinex_market::ReadError::Io(source));
    let mut f = std::fs::File::open(path).map_err(err)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 64 << 10];
    let mut n = 0u64;
    loop {
        let k = match f.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(err(e)),
        };
        h.update(buf.get(..k).unwrap_or_default());
        n = n.saturating_add(u64::try_from(k).unwrap_or(u64::MAX));
    }
    let hex = h
        .finalize()
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            use std::fmt::Write as _;
            let _ = write!(s, "{b:02x}");
            s
        });
    Ok((hex, n))
}

// ---- writing ----

/// Partition: table, family, market, day.
type Key = (TableId, String, String, i64);

struct Open {
    path: String,
    writer: ArrowWriter<Box<dyn Upload>>,
    rows: u64,
    min: i64,
    max: i64,
    in_progress: usize,
}

#[derive(Default)]
struct Part {
    next: u32,
    open: Option<Open>,
    buf: Vec<Row>,
}

struct Writer<'a> {
    store: &'a dyn Storage,
    opts: Options,
    hash: String,
    shapes: HashMap<TableId, Shape>,
    parts: BTreeMap<Key, Part>,
    buffered: usize,
    in_progress: usize,
    added: Vec<FileEntry>,
    /// Rows of a partition encoded at once: [`BATCH_ROWS`], fewer for a small file size (at
    /// least one batch per 64 bytes of target), so a file's size is checked often enough.
    batch_rows: usize,
}

fn partition_dir(key: &Key) -> String {
    let (table, family, market, day) = key;
    let (y, m, d) = digifinex_market::time::civil_from_days(*day);
    format!(
        "table={}/family={family}/market={market}/date={y:04}-{m:02}-{d:02}",
        table.name()
    )
}

impl Writer<'_> {
    fn push(&mut self, id: TableId, row: Row) -> Result<(), Error> {
        let Some(shape) = self.shapes.get(&id) else {
            return Ok(());
        };
        let (family, market, row) = shape.split(row);
        let time = match row.first() {
            Some(Cell::Time(t)) => *t,
            _ => 0,
        };
        let key = (id, family, market, time.div_euclid(86_400_000_000));
        let part = self.parts.entry(key.clone()).or_default();
        part.buf.push(row);
        self.buffered += 1;
        if part.buf.len() >= self.batch_rows {
            self.encode(&key)?;
        }
        if self.buffered >= BUFFER_ROWS {
            let keys: Vec<Key> = self
                .parts
                .iter()
                .filter(|(_, p)| !p.buf.is_empty())
                .map(|(k, _)| k.clone())
                .collect();
            for k in keys {
                self.encode(&k)?;
            }
        }
        if self.in_progress > self.opts.memory_bytes {
            self.relieve()?;
        }
        Ok(())
    }

    /// Writes the largest row groups in progress until half the memory budget is free.
    fn relieve(&mut self) -> Result<(), Error> {
        let mut sizes: Vec<(usize, Key)> = self
            .parts
            .iter()
            .filter_map(|(k, p)| p.open.as_ref().map(|o| (o.in_progress, k.clone())))
            .collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        for (_, key) in sizes {
            if self.in_progress <= self.opts.memory_bytes / 2 {
                break;
            }
            let Some(open) = self.parts.get_mut(&key).and_then(|p| p.open.as_mut()) else {
                continue;
            };
            open.writer
                .flush()
                .map_err(|e| encode_error(self.store, &open.path, e))?;
            self.in_progress = self.in_progress.saturating_sub(open.in_progress);
            open.in_progress = 0;
        }
        Ok(())
    }

    /// Encodes the partition's buffered rows into its open file (opening one when needed),
    /// and closes the file when it has reached its size.
    fn encode(&mut self, key: &Key) -> Result<(), Error> {
        let Some(shape) = self.shapes.get(&key.0) else {
            return Ok(());
        };
        let Some(part) = self.parts.get_mut(key) else {
            return Ok(());
        };
        if part.buf.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut part.buf);
        self.buffered = self.buffered.saturating_sub(rows.len());
        if part.open.is_none() {
            let path = format!(
                "{}/part-{}-{:04}.parquet",
                partition_dir(key),
                self.hash.get(..16).unwrap_or(&self.hash),
                part.next
            );
            part.next += 1;
            let upload = self
                .store
                .create(&path)
                .map_err(|e| storage_error(self.store, &path, e))?;
            let writer = ArrowWriter::try_new(upload, shape.schema.clone(), Some(properties()))
                .map_err(|e| encode_error(self.store, &path, e))?;
            part.open = Some(Open {
                path,
                writer,
                rows: 0,
                min: i64::MAX,
                max: i64::MIN,
                in_progress: 0,
            });
        }
        let Some(open) = part.open.as_mut() else {
            return Ok(());
        };
        let b = batch(
            &shape.schema,
            &shape.kinds,
            &rows,
            false,
            Path::new(&open.path),
        )?;
        open.writer
            .write(&b)
            .map_err(|e| encode_error(self.store, &open.path, e))?;
        for r in &rows {
            if let Some(Cell::Time(t)) = r.first() {
                open.min = open.min.min(*t);
                open.max = open.max.max(*t);
            }
        }
        open.rows += u64::try_from(rows.len()).unwrap_or(u64::MAX);
        let now = open.writer.in_progress_size();
        self.in_progress = self
            .in_progress
            .saturating_sub(open.in_progress)
            .saturating_add(now);
        open.in_progress = now;
        let size =
            u64::try_from(open.writer.bytes_written().saturating_add(now)).unwrap_or(u64::MAX);
        if size >= self.opts.file_bytes {
            self.close(key)?;
        }
        Ok(())
    }

    /// Finishes the partition's open file and makes it visible.
    fn close(&mut self, key: &Key) -> Result<(), Error> {
        let Some(open) = self.parts.get_mut(key).and_then(|p| p.open.take()) else {
            return Ok(());
        };
        self.in_progress = self.in_progress.saturating_sub(open.in_progress);
        let upload = open
            .writer
            .into_inner()
            .map_err(|e| encode_error(self.store, &open.path, e))?;
        let bytes = upload
            .commit()
            .map_err(|e| storage_error(self.store, &open.path, e))?;
        let (table, family, market, day) = key;
        let (y, m, d) = digifinex_market::time::civil_from_days(*day);
        self.added.push(FileEntry {
            path: open.path,
            input: self.hash.clone(),
            table: table.name().to_owned(),
            family: family.clone(),
            market: market.clone(),
            date: format!("{y:04}-{m:02}-{d:02}"),
            rows: open.rows,
            bytes,
            min_time: iso_micros(open.min),
            max_time: iso_micros(open.max),
        });
        Ok(())
    }

    /// Encodes and closes everything, in partition order.
    fn finish(&mut self) -> Result<(), Error> {
        let keys: Vec<Key> = self.parts.keys().cloned().collect();
        for k in keys {
            self.encode(&k)?;
            self.close(&k)?;
        }
        Ok(())
    }
}

fn encode_error(store: &dyn Storage, path: &str, e: impl std::fmt::Display) -> Error {
    Error::Encode {
        path: PathBuf::from(format!("{}/{path}", store.location())),
        message: e.to_string(),
    }
}

/// Removes the lock when dropped.
struct Lock<'a>(&'a dyn Storage);

impl Drop for Lock<'_> {
    fn drop(&mut self) {
        let _ = self.0.remove(LOCK);
    }
}

/// Exports each recording of `inputs` into the dataset at `store` (see the module docs), in
/// order; returns what each did. A recording already in the dataset is skipped
/// ([`Exported::already`]). A recording that is not readable at all stops the export with an
/// error (the recordings before it stay exported).
pub fn export(
    inputs: &[PathBuf],
    store: &dyn Storage,
    opts: &Options,
) -> Result<Vec<Exported>, Error> {
    let mut manifest = load(store)?;
    // Every recording already there: nothing to write, not even the lock.
    let mut hashes = Vec::with_capacity(inputs.len());
    for input in inputs {
        hashes.push(sha256(input)?);
    }
    if hashes
        .iter()
        .all(|(h, _)| manifest.inputs.iter().any(|i| &i.sha256 == h))
    {
        return Ok(inputs
            .iter()
            .zip(hashes)
            .map(|(input, (sha256, _))| Exported {
                input: input.clone(),
                sha256,
                already: true,
                summary: Summary::default(),
            })
            .collect());
    }
    let lock_text = format!("digifinex market export, process {}\n", std::process::id());
    if !store
        .create_new(LOCK, lock_text.as_bytes())
        .map_err(|e| storage_error(store, LOCK, e))?
    {
        return Err(refuse(
            store,
            format!(
                "{LOCK} exists: another export is writing into it (or one crashed: then remove \
                 {LOCK})"
            ),
        ));
    }
    let _lock = Lock(store);
    // Read again under the lock: another export may have finished in between.
    manifest = load(store)?;
    let mut out = Vec::with_capacity(inputs.len());
    for (input, (hash, bytes)) in inputs.iter().zip(hashes) {
        if manifest.inputs.iter().any(|i| i.sha256 == hash) {
            out.push(Exported {
                input: input.clone(),
                sha256: hash,
                already: true,
                summary: Summary::default(),
            });
            continue;
        }
        let mut writer = Writer {
            store,
            opts: Options {
                file_bytes: opts.file_bytes.max(1),
                memory_bytes: opts.memory_bytes,
            },
            hash: hash.clone(),
            shapes: DATASET_TABLES.iter().map(|t| (*t, Shape::of(*t))).collect(),
            parts: BTreeMap::new(),
            buffered: 0,
            in_progress: 0,
            added: Vec::new(),
            batch_rows: usize::try_from(opts.file_bytes / 64)
                .unwrap_or(BATCH_ROWS)
                .clamp(16, BATCH_ROWS),
        };
        let mut summary = Summary::default();
        let mut failure: Option<Error> = None;
        read(input, None, true, true, &mut summary, &mut |id, row| {
            if failure.is_none() {
                if let Err(e) = writer.push(id, row) {
                    failure = Some(e);
                }
            }
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        writer.finish()?;
        let rows = writer.added.iter().map(|f| f.rows).sum();
        summary.tables = writer
            .added
            .iter()
            .map(|f| TableSummary {
                name: f.path.clone(),
                rows: f.rows,
                path: PathBuf::from(format!("{}/{}", store.location(), f.path)),
            })
            .collect();
        manifest.inputs.push(InputEntry {
            name: input
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            sha256: hash.clone(),
            bytes,
            records: summary.records,
            files: u64::try_from(writer.added.len()).unwrap_or(u64::MAX),
            rows,
        });
        manifest.files.append(&mut writer.added);
        save(store, &manifest)?;
        out.push(Exported {
            input: input.clone(),
            sha256: hash,
            already: false,
            summary,
        });
    }
    Ok(out)
}

/// [`export`] into the local directory `dir` (created when missing).
pub fn export_dir(inputs: &[PathBuf], dir: &Path, opts: &Options) -> Result<Vec<Exported>, Error> {
    export(inputs, &LocalDir::new(dir), opts)
}
