//! Exports a `digifinex-market` recording (the format of `digifinex record`, documented in
//! `digifinex_sim::market::format`) to tables that pandas, polars and DuckDB read without
//! custom code: one Parquet or CSV file per record kind.
//!
//! This crate holds the arrow/parquet dependency so that neither the protocol core nor the
//! clients depend on it; the CLI uses it behind its `export` feature
//! (`digifinex market export`).
//!
//! ```no_run
//! use digifinex_export::{export, Format, Options};
//!
//! let opts = Options { format: Format::Parquet, float: false, top: None };
//! let summary = export("m.jsonl.gz".as_ref(), "out".as_ref(), &opts)?;
//! for t in &summary.tables {
//!     println!("{} {} rows", t.name, t.rows);
//! }
//! # Ok::<(), digifinex_export::Error>(())
//! ```
//!
//! # Tables
//!
//! Every table starts with `time` (the recorder's receive time: Parquet
//! `TIMESTAMP(MICROS, UTC)`, CSV ISO 8601 `2024-02-01T05:00:01.020000Z`), `seq` (the record's
//! number in the file, from 0: it orders records of the same millisecond), `family` (`spot` or
//! `swap`) and `market` (`btc_usdt`, `BTCUSDTPERP`) where it applies. Prices, quantities and
//! rates are exact: Parquet `DECIMAL(38, s)` with the scale `s` of the column's most precise
//! value (a column whose values need more than 38 digits at one scale is written as strings),
//! CSV the decimal's plain text; `--float` ([`Options::float`]) writes Parquet `DOUBLE` instead.
//! Missing values are null (CSV: empty).
//!
//! | table | one row per | columns after `time, seq` |
//! |---|---|---|
//! | `book` | book level of a snapshot or delta | `family, market, update` (`snapshot`/`delta`), `side` (`bid`/`ask`), `level` (1 = first listed; best in snapshots), `price, qty` (a delta's `0` deletes) |
//! | `book_top` (with `--top N`, instead of `book`) | book after each snapshot or applied delta | `family, market, update, bid_price_1, bid_qty_1, … bid_price_N, bid_qty_N, ask_price_1, ask_qty_1, …` |
//! | `trades` | trade (a repeated trade id of the same market is written once) | `family, market, id, trade_time, price, qty, side` (taker: `buy`/`sell`), `direction` (swap code) |
//! | `tickers` | ticker | `family, market, last, bid, ask, bid_size, ask_size, last_qty, high, low, open, volume, quote_volume, change, ts` (venue time) |
//! | `funding` | funding record | `market, rate, next_time, next_rate, last_rate` |
//! | `mark_index` | mark or index record | `market, mark, index, ts` |
//! | `markers` | resync or reconnect marker | `kind` (`resync`/`reconnect`), `family, market, socket, lost, reason, markets` (comma-separated) |
//!
//! Only tables with rows are written. `book_top` rebuilds each book from its snapshots and
//! deltas; after a `resync` or `reconnect` marker a book has no rows until its next snapshot.
//!
//! # Damaged recordings
//!
//! DESIGN: what is intact is exported and what is not is counted in the [`Summary`]: a line
//! that is not a valid record is skipped ([`Summary::bad_lines`], with the first messages),
//! a kind this version does not know is skipped ([`Summary::unknown_kinds`]), and a file cut
//! by a crash (a cut last line, an unfinished or damaged gzip member) is exported up to the
//! cut ([`Summary::truncated`]). A file that is not a recording at all is an [`Error`].

use arrow_array::{
    ArrayRef, Decimal128Array, Float64Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use digifinex_sim::market::format::{Data, Family, Level, MarketId, ReadError, Reader, Ticker};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows buffered per table before a Parquet record batch is written.
pub const BATCH_ROWS: usize = 8192;

/// Rows per Parquet row group at most (the writer holds one row group per table in memory).
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// Estimated encoded bytes of a Parquet row group at most (64 MiB; wide `--top` tables).
pub const ROW_GROUP_BYTES: usize = 64 << 20;

/// Trade ids remembered per market to drop repeated trades (overlapping polls, the recent list
/// a websocket sends after each subscription).
pub const SEEN_TRADES: usize = 16_384;

/// Deepest `--top` accepted.
pub const MAX_TOP: usize = 1000;

/// Bad-line messages kept for the report.
pub const KEPT_MESSAGES: usize = 5;

/// Decimal digits of a Parquet `DECIMAL128` column.
pub const PRECISION: u8 = 38;

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet, snappy-compressed (`TABLE.parquet`).
    Parquet,
    /// Comma-separated values with a header row (`TABLE.csv`).
    Csv,
}

impl Format {
    fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
        }
    }
}

/// What to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Parquet or CSV.
    pub format: Format,
    /// Parquet: decimals as `DOUBLE` (binary floating point, inexact) instead of `DECIMAL`.
    /// CSV writes decimal text either way.
    pub float: bool,
    /// Books as the best N levels per side in columns (`book_top`) instead of levels as rows.
    pub top: Option<usize>,
}

/// One table written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSummary {
    /// Table name (`trades`).
    pub name: String,
    /// Rows written.
    pub rows: u64,
    /// The file.
    pub path: PathBuf,
}

/// What an export did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Records read and exported.
    pub records: u64,
    /// The tables written (those with rows), in the order of the module docs.
    pub tables: Vec<TableSummary>,
    /// Lines that were not valid records (skipped).
    pub bad_lines: u64,
    /// The first [`KEPT_MESSAGES`] bad-line messages (`line 5: ...`).
    pub messages: Vec<String>,
    /// Records of kinds this version does not know (skipped).
    pub unknown_kinds: u64,
    /// Whether the file ended in a cut (a crash while recording): everything before is exported.
    pub truncated: bool,
    /// Trades dropped as repeats of a trade id already written.
    pub repeated_trades: u64,
    /// Depth deltas not in `book_top` because their book was not valid (before its first
    /// snapshot, or after a resync or reconnect marker until the next).
    pub dropped_deltas: u64,
    /// Records whose receive time is out of the timestamp range (skipped).
    pub bad_times: u64,
}

impl Summary {
    /// Whether anything was skipped.
    pub fn damaged(&self) -> bool {
        self.bad_lines > 0 || self.truncated || self.bad_times > 0
    }
}

/// An export that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not a readable recording.
    #[error("{0}")]
    Read(#[from] ReadError),
    /// Creating or writing an output file failed.
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// The Parquet or CSV encoder failed.
    #[error("writing {path}: {message}")]
    Encode {
        /// The file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// `--top` out of range.
    #[error("--top {0} is out of range (1 to {MAX_TOP})")]
    Top(usize),
}

// ---- cells and tables ----

/// A column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Microseconds since the epoch, UTC.
    Time,
    Int,
    Text,
    Dec,
}

#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Null,
    Time(i64),
    Int(i64),
    Text(String),
    Dec(Decimal),
}

impl From<Option<Decimal>> for Cell {
    fn from(d: Option<Decimal>) -> Cell {
        d.map_or(Cell::Null, Cell::Dec)
    }
}

type Row = Vec<Cell>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum TableId {
    Book,
    BookTop,
    Trades,
    Tickers,
    Funding,
    MarkIndex,
    Markers,
}

const TABLES: [TableId; 7] = [
    TableId::Book,
    TableId::BookTop,
    TableId::Trades,
    TableId::Tickers,
    TableId::Funding,
    TableId::MarkIndex,
    TableId::Markers,
];

impl TableId {
    fn name(self) -> &'static str {
        match self {
            TableId::Book => "book",
            TableId::BookTop => "book_top",
            TableId::Trades => "trades",
            TableId::Tickers => "tickers",
            TableId::Funding => "funding",
            TableId::MarkIndex => "mark_index",
            TableId::Markers => "markers",
        }
    }

    fn columns(self, top: usize) -> Vec<(String, Kind)> {
        use Kind::*;
        let mut c: Vec<(String, Kind)> = vec![("time".into(), Time), ("seq".into(), Int)];
        let more: &[(&str, Kind)] = match self {
            TableId::Book => &[
                ("family", Text),
                ("market", Text),
                ("update", Text),
                ("side", Text),
                ("level", Int),
                ("price", Dec),
                ("qty", Dec),
            ],
            TableId::BookTop => &[("family", Text), ("market", Text), ("update", Text)],
            TableId::Trades => &[
                ("family", Text),
                ("market", Text),
                ("id", Text),
                ("trade_time", Time),
                ("price", Dec),
                ("qty", Dec),
                ("side", Text),
                ("direction", Int),
            ],
            TableId::Tickers => &[
                ("family", Text),
                ("market", Text),
                ("last", Dec),
                ("bid", Dec),
                ("ask", Dec),
                ("bid_size", Dec),
                ("ask_size", Dec),
                ("last_qty", Dec),
                ("high", Dec),
                ("low", Dec),
                ("open", Dec),
                ("volume", Dec),
                ("quote_volume", Dec),
                ("change", Dec),
                ("ts", Time),
            ],
            TableId::Funding => &[
                ("market", Text),
                ("rate", Dec),
                ("next_time", Time),
                ("next_rate", Dec),
                ("last_rate", Dec),
            ],
            TableId::MarkIndex => &[
                ("market", Text),
                ("mark", Dec),
                ("index", Dec),
                ("ts", Time),
            ],
            TableId::Markers => &[
                ("kind", Text),
                ("family", Text),
                ("market", Text),
                ("socket", Int),
                ("lost", Time),
                ("reason", Text),
                ("markets", Text),
            ],
        };
        c.extend(more.iter().map(|(n, k)| ((*n).to_owned(), *k)));
        if self == TableId::BookTop {
            for side in ["bid", "ask"] {
                for l in 1..=top {
                    c.push((format!("{side}_price_{l}"), Dec));
                    c.push((format!("{side}_qty_{l}"), Dec));
                }
            }
        }
        c
    }
}

// ---- records to rows ----

/// A book rebuilt for `book_top`.
#[derive(Debug, Default)]
struct LocalBook {
    bids: BTreeMap<Decimal, Decimal>,
    asks: BTreeMap<Decimal, Decimal>,
    valid: bool,
}

impl LocalBook {
    fn replace(&mut self, bids: &[Level], asks: &[Level]) {
        self.bids = bids.iter().filter(|l| !l.1.is_zero()).copied().collect();
        self.asks = asks.iter().filter(|l| !l.1.is_zero()).copied().collect();
        self.valid = true;
    }

    fn apply(&mut self, bids: &[Level], asks: &[Level]) {
        for (side, levels) in [(&mut self.bids, bids), (&mut self.asks, asks)] {
            for (p, q) in levels {
                if q.is_zero() {
                    side.remove(p);
                } else {
                    side.insert(*p, *q);
                }
            }
        }
    }
}

/// Trade ids seen recently (bounded).
#[derive(Debug, Default)]
struct Seen {
    set: HashSet<String>,
    order: VecDeque<String>,
}

impl Seen {
    fn fresh(&mut self, id: &str) -> bool {
        if self.set.contains(id) {
            return false;
        }
        self.set.insert(id.to_owned());
        self.order.push_back(id.to_owned());
        if self.order.len() > SEEN_TRADES {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
        true
    }
}

/// Turns records into rows (the same way in both passes).
struct Rows {
    top: Option<usize>,
    books: HashMap<(Family, String), LocalBook>,
    seen: HashMap<(Family, String), Seen>,
    repeated_trades: u64,
    dropped_deltas: u64,
}

fn family_text(f: Family) -> Cell {
    Cell::Text(f.as_str().to_owned())
}

fn text(s: &str) -> Cell {
    Cell::Text(s.to_owned())
}

fn micros(ms: i64) -> Option<i64> {
    ms.checked_mul(1000)
}

fn time_cell(ms: Option<i64>) -> Cell {
    ms.and_then(micros).map_or(Cell::Null, Cell::Time)
}

impl Rows {
    fn new(top: Option<usize>) -> Rows {
        Rows {
            top,
            books: HashMap::new(),
            seen: HashMap::new(),
            repeated_trades: 0,
            dropped_deltas: 0,
        }
    }

    /// The rows of one record (`time` in µs).
    fn of(&mut self, time: i64, seq: u64, data: &Data, out: &mut dyn FnMut(TableId, Row)) {
        let head = |extra: Vec<Cell>| -> Row {
            let seq = i64::try_from(seq).unwrap_or(i64::MAX);
            let mut r = vec![Cell::Time(time), Cell::Int(seq)];
            r.extend(extra);
            r
        };
        match data {
            Data::SpotBook {
                symbol, bids, asks, ..
            } => self.book(Family::Spot, symbol, true, bids, asks, &head, out),
            Data::SwapBook {
                instrument,
                bids,
                asks,
                ..
            } => self.book(Family::Swap, instrument, true, bids, asks, &head, out),
            Data::SpotDepth {
                symbol,
                snapshot,
                bids,
                asks,
                ..
            } => self.book(Family::Spot, symbol, *snapshot, bids, asks, &head, out),
            Data::SwapDepth {
                instrument,
                snapshot,
                bids,
                asks,
                ..
            } => self.book(Family::Swap, instrument, *snapshot, bids, asks, &head, out),
            Data::SpotTrades { symbol, trades }
            | Data::SwapTrades {
                instrument: symbol,
                trades,
            } => {
                let family = if matches!(data, Data::SpotTrades { .. }) {
                    Family::Spot
                } else {
                    Family::Swap
                };
                let seen = self.seen.entry((family, symbol.clone())).or_default();
                for t in trades {
                    if !seen.fresh(&t.id) {
                        self.repeated_trades += 1;
                        continue;
                    }
                    out(
                        TableId::Trades,
                        head(vec![
                            family_text(family),
                            text(symbol),
                            text(&t.id),
                            time_cell(Some(t.time_ms)),
                            Cell::Dec(t.price),
                            Cell::Dec(t.qty),
                            text(match t.side {
                                digifinex_sim::book::Side::Buy => "buy",
                                digifinex_sim::book::Side::Sell => "sell",
                            }),
                            t.direction.map_or(Cell::Null, Cell::Int),
                        ]),
                    );
                }
            }
            Data::SpotTicker { symbol, ticker } => out(
                TableId::Tickers,
                head(ticker_cells(Family::Spot, symbol, ticker)),
            ),
            Data::SwapTicker { instrument, ticker } => out(
                TableId::Tickers,
                head(ticker_cells(Family::Swap, instrument, ticker)),
            ),
            Data::Funding {
                instrument,
                rate,
                next_time,
                next_rate,
                last_rate,
            } => out(
                TableId::Funding,
                head(vec![
                    text(instrument),
                    Cell::Dec(*rate),
                    time_cell(Some(*next_time)),
                    (*next_rate).into(),
                    (*last_rate).into(),
                ]),
            ),
            Data::Mark {
                instrument,
                mark,
                index,
            } => out(
                TableId::MarkIndex,
                head(vec![
                    text(instrument),
                    Cell::Dec(*mark),
                    (*index).into(),
                    Cell::Null,
                ]),
            ),
            Data::Index {
                instrument,
                index,
                ts,
            } => out(
                TableId::MarkIndex,
                head(vec![
                    text(instrument),
                    Cell::Null,
                    Cell::Dec(*index),
                    time_cell(*ts),
                ]),
            ),
            Data::Resync { market, reason } => {
                let (family, name) = match market {
                    MarketId::Spot(s) => (Family::Spot, s),
                    MarketId::Swap(i) => (Family::Swap, i),
                };
                if let Some(b) = self.books.get_mut(&(family, name.clone())) {
                    b.valid = false;
                }
                out(
                    TableId::Markers,
                    head(vec![
                        text("resync"),
                        family_text(family),
                        text(name),
                        Cell::Null,
                        Cell::Null,
                        text(reason),
                        Cell::Null,
                    ]),
                );
            }
            Data::Reconnect {
                family,
                socket,
                lost,
                reason,
                markets,
            } => {
                for ((f, name), b) in &mut self.books {
                    if f == family && (markets.is_empty() || markets.contains(name)) {
                        b.valid = false;
                    }
                }
                out(
                    TableId::Markers,
                    head(vec![
                        text("reconnect"),
                        family_text(*family),
                        Cell::Null,
                        socket.map_or(Cell::Null, |s| Cell::Int(i64::from(s))),
                        time_cell(*lost),
                        reason.as_deref().map_or(Cell::Null, text),
                        if markets.is_empty() {
                            Cell::Null
                        } else {
                            Cell::Text(markets.join(","))
                        },
                    ]),
                );
            }
            // Kinds added after this version: counted by the caller.
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn book(
        &mut self,
        family: Family,
        market: &str,
        snapshot: bool,
        bids: &[Level],
        asks: &[Level],
        head: &dyn Fn(Vec<Cell>) -> Row,
        out: &mut dyn FnMut(TableId, Row),
    ) {
        let update = if snapshot { "snapshot" } else { "delta" };
        let Some(n) = self.top else {
            for (side, levels) in [("bid", bids), ("ask", asks)] {
                for (i, (p, q)) in levels.iter().enumerate() {
                    out(
                        TableId::Book,
                        head(vec![
                            family_text(family),
                            text(market),
                            text(update),
                            text(side),
                            Cell::Int(i64::try_from(i).unwrap_or(i64::MAX).saturating_add(1)),
                            Cell::Dec(*p),
                            Cell::Dec(*q),
                        ]),
                    );
                }
            }
            return;
        };
        let book = self.books.entry((family, market.to_owned())).or_default();
        if snapshot {
            book.replace(bids, asks);
        } else if book.valid {
            book.apply(bids, asks);
        } else {
            self.dropped_deltas += 1;
            return;
        }
        let mut cells = vec![family_text(family), text(market), text(update)];
        let best_bids = book.bids.iter().rev().map(|(p, q)| (*p, *q));
        let best_asks = book.asks.iter().map(|(p, q)| (*p, *q));
        for side in [best_bids.collect::<Vec<_>>(), best_asks.collect::<Vec<_>>()] {
            for l in 0..n {
                match side.get(l) {
                    Some((p, q)) => cells.extend([Cell::Dec(*p), Cell::Dec(*q)]),
                    None => cells.extend([Cell::Null, Cell::Null]),
                }
            }
        }
        out(TableId::BookTop, head(cells));
    }
}

fn ticker_cells(family: Family, market: &str, t: &Ticker) -> Vec<Cell> {
    vec![
        family_text(family),
        text(market),
        t.last.into(),
        t.bid.into(),
        t.ask.into(),
        t.bid_size.into(),
        t.ask_size.into(),
        t.last_qty.into(),
        t.high.into(),
        t.low.into(),
        t.open.into(),
        t.volume.into(),
        t.quote_volume.into(),
        t.change.into(),
        time_cell(t.ts),
    ]
}

/// Reads every record of the recording at `input`, handing each one's rows to `out`.
fn read(
    input: &Path,
    top: Option<usize>,
    summary: &mut Summary,
    out: &mut dyn FnMut(TableId, Row),
) -> Result<(), Error> {
    let mut reader = Reader::open(input)?;
    let mut rows = Rows::new(top);
    let mut seq = 0u64;
    for r in reader.by_ref() {
        match r {
            Ok(r) => {
                let this = seq;
                seq += 1;
                let Some(time) = micros(r.t) else {
                    summary.bad_times += 1;
                    continue;
                };
                summary.records += 1;
                rows.of(time, this, &r.data, out);
            }
            Err(ReadError::Line { line, message }) => {
                summary.bad_lines += 1;
                if summary.messages.len() < KEPT_MESSAGES {
                    summary.messages.push(format!("line {line}: {message}"));
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    summary.truncated = reader.truncated();
    summary.unknown_kinds = reader.skipped();
    summary.repeated_trades = rows.repeated_trades;
    summary.dropped_deltas = rows.dropped_deltas;
    Ok(())
}

// ---- column statistics (the first pass) ----

/// What the first pass learns of a decimal column: the largest scale and integer digits.
#[derive(Debug, Clone, Copy, Default)]
struct DecStats {
    scale: u32,
    int_digits: u32,
}

impl DecStats {
    fn add(&mut self, d: Decimal) {
        let n = d.normalize();
        self.scale = self.scale.max(n.scale());
        let int = n.trunc().abs().mantissa().unsigned_abs();
        let digits = if int == 0 { 0 } else { int.ilog10() + 1 };
        self.int_digits = self.int_digits.max(digits);
    }

    /// The Parquet scale, or `None` when the column needs more than [`PRECISION`] digits.
    fn scale(self) -> Option<i8> {
        if self.int_digits + self.scale > u32::from(PRECISION) {
            return None;
        }
        i8::try_from(self.scale).ok()
    }
}

/// The value of `d` at `scale` as an integer (`None` if it does not fit).
fn at_scale(d: Decimal, scale: u32) -> Option<i128> {
    let n = d.normalize();
    let up = scale.checked_sub(n.scale())?;
    n.mantissa().checked_mul(10i128.checked_pow(up)?)
}

// ---- sinks ----

/// One output table.
enum Sink {
    Parquet {
        writer: ArrowWriter<BufWriter<File>>,
        schema: Arc<Schema>,
        /// Per column: the decimal scale (`None`: strings) where the column is decimal.
        scales: Vec<Option<i8>>,
        kinds: Vec<Kind>,
        buf: Vec<Row>,
        float: bool,
    },
    Csv(csv::Writer<BufWriter<File>>),
}

struct Out {
    path: PathBuf,
    sink: Sink,
    rows: u64,
}

fn encode_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Encode {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

fn create(path: &Path) -> Result<BufWriter<File>, Error> {
    File::create(path)
        .map(BufWriter::new)
        .map_err(|source| Error::Write {
            path: path.to_owned(),
            source,
        })
}

impl Out {
    fn open(
        dir: &Path,
        id: TableId,
        columns: &[(String, Kind)],
        stats: &[DecStats],
        opts: &Options,
    ) -> Result<Out, Error> {
        let path = dir.join(format!("{}.{}", id.name(), opts.format.extension()));
        let file = create(&path)?;
        let sink = match opts.format {
            Format::Csv => {
                let mut w = csv::Writer::from_writer(file);
                w.write_record(columns.iter().map(|(n, _)| n.as_str()))
                    .map_err(|e| encode_error(&path, e))?;
                Sink::Csv(w)
            }
            Format::Parquet => {
                let scales: Vec<Option<i8>> = columns
                    .iter()
                    .zip(stats)
                    .map(|((_, k), s)| if *k == Kind::Dec { s.scale() } else { None })
                    .collect();
                let fields: Vec<Field> = columns
                    .iter()
                    .zip(&scales)
                    .map(|((name, kind), scale)| {
                        let t = match kind {
                            Kind::Time => {
                                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
                            }
                            Kind::Int => DataType::Int64,
                            Kind::Text => DataType::Utf8,
                            Kind::Dec if opts.float => DataType::Float64,
                            Kind::Dec => match scale {
                                Some(s) => DataType::Decimal128(PRECISION, *s),
                                None => DataType::Utf8,
                            },
                        };
                        // `time` and `seq` are never null.
                        Field::new(name, t, !matches!(name.as_str(), "time" | "seq"))
                    })
                    .collect();
                let schema = Arc::new(Schema::new(fields));
                let props = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
                    .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
                    .build();
                let writer = ArrowWriter::try_new(file, schema.clone(), Some(props))
                    .map_err(|e| encode_error(&path, e))?;
                Sink::Parquet {
                    writer,
                    schema,
                    scales,
                    kinds: columns.iter().map(|(_, k)| *k).collect(),
                    buf: Vec::with_capacity(BATCH_ROWS),
                    float: opts.float,
                }
            }
        };
        Ok(Out {
            path,
            sink,
            rows: 0,
        })
    }

    fn push(&mut self, row: Row) -> Result<(), Error> {
        self.rows += 1;
        match &mut self.sink {
            Sink::Csv(w) => {
                let fields: Vec<String> = row.iter().map(csv_text).collect();
                w.write_record(&fields)
                    .map_err(|e| encode_error(&self.path, e))
            }
            Sink::Parquet { buf, .. } => {
                buf.push(row);
                if buf.len() >= BATCH_ROWS {
                    self.flush()?;
                }
                Ok(())
            }
        }
    }

    fn flush(&mut self) -> Result<(), Error> {
        let Sink::Parquet {
            writer,
            schema,
            scales,
            kinds,
            buf,
            float,
        } = &mut self.sink
        else {
            return Ok(());
        };
        if buf.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(buf);
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(kinds.len());
        for (c, kind) in kinds.iter().enumerate() {
            let cells = rows.iter().map(|r| r.get(c).unwrap_or(&Cell::Null));
            let array: ArrayRef = match kind {
                Kind::Time => Arc::new(
                    TimestampMicrosecondArray::from(
                        cells
                            .map(|x| match x {
                                Cell::Time(t) => Some(*t),
                                _ => None,
                            })
                            .collect::<Vec<_>>(),
                    )
                    .with_timezone("UTC"),
                ),
                Kind::Int => Arc::new(Int64Array::from(
                    cells
                        .map(|x| match x {
                            Cell::Int(i) => Some(*i),
                            _ => None,
                        })
                        .collect::<Vec<_>>(),
                )),
                Kind::Text => Arc::new(StringArray::from(
                    cells
                        .map(|x| match x {
                            Cell::Text(s) => Some(s.as_str()),
                            _ => None,
                        })
                        .collect::<Vec<_>>(),
                )),
                Kind::Dec if *float => Arc::new(Float64Array::from(
                    cells
                        .map(|x| match x {
                            // The decimal's shortest text, read as the nearest double.
                            Cell::Dec(d) => d.normalize().to_string().parse::<f64>().ok(),
                            _ => None,
                        })
                        .collect::<Vec<_>>(),
                )),
                Kind::Dec => match scales.get(c).copied().flatten() {
                    Some(s) => {
                        let scale = u32::try_from(s).unwrap_or(0);
                        let mut values = Vec::with_capacity(rows.len());
                        for x in cells {
                            values.push(match x {
                                Cell::Dec(d) => Some(at_scale(*d, scale).ok_or_else(|| {
                                    encode_error(
                                        &self.path,
                                        format!("{d} does not fit DECIMAL({PRECISION}, {s})"),
                                    )
                                })?),
                                _ => None,
                            });
                        }
                        Arc::new(
                            Decimal128Array::from(values)
                                .with_precision_and_scale(PRECISION, s)
                                .map_err(|e| encode_error(&self.path, e))?,
                        )
                    }
                    None => Arc::new(StringArray::from(
                        cells
                            .map(|x| match x {
                                Cell::Dec(d) => Some(plain(*d)),
                                _ => None,
                            })
                            .collect::<Vec<_>>(),
                    )),
                },
            };
            arrays.push(array);
        }
        let batch = RecordBatch::try_new(schema.clone(), arrays)
            .map_err(|e| encode_error(&self.path, e))?;
        writer
            .write(&batch)
            .map_err(|e| encode_error(&self.path, e))
    }

    fn finish(mut self) -> Result<TableSummary, Error> {
        self.flush()?;
        match self.sink {
            Sink::Csv(mut w) => w.flush().map_err(|source| Error::Write {
                path: self.path.clone(),
                source,
            })?,
            Sink::Parquet { writer, .. } => {
                writer.close().map_err(|e| encode_error(&self.path, e))?;
            }
        }
        Ok(TableSummary {
            name: self
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            rows: self.rows,
            path: self.path,
        })
    }
}

/// A decimal's plain text without superfluous zeros (`1.50` → `1.5`).
fn plain(d: Decimal) -> String {
    let n = d.normalize();
    if n.is_zero() {
        "0".to_owned()
    } else {
        n.to_string()
    }
}

/// `2024-02-01T05:00:01.020000Z` for a time in µs.
pub fn iso_micros(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let frac = us.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:06}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn csv_text(c: &Cell) -> String {
    match c {
        Cell::Null => String::new(),
        Cell::Time(t) => iso_micros(*t),
        Cell::Int(i) => i.to_string(),
        Cell::Text(s) => s.clone(),
        Cell::Dec(d) => plain(*d),
    }
}

/// Exports the recording at `input` into `out_dir` (created if missing): one file per table
/// with rows (see the module docs). Reads the recording twice for Parquet (the first pass
/// chooses each decimal column's scale), once for CSV; memory stays bounded by
/// [`BATCH_ROWS`] buffered and [`ROW_GROUP_ROWS`] encoded rows per table and the books of
/// `--top`.
pub fn export(input: &Path, out_dir: &Path, opts: &Options) -> Result<Summary, Error> {
    let top = match opts.top {
        Some(n) if n == 0 || n > MAX_TOP => return Err(Error::Top(n)),
        other => other,
    };
    let n = top.unwrap_or(0);
    let columns: BTreeMap<TableId, Vec<(String, Kind)>> =
        TABLES.iter().map(|t| (*t, t.columns(n))).collect();
    // First pass: which tables have rows, and each decimal column's scale.
    let mut stats: BTreeMap<TableId, Vec<DecStats>> = BTreeMap::new();
    if opts.format == Format::Parquet {
        let mut first = Summary::default();
        read(input, top, &mut first, &mut |id, row| {
            let s = stats
                .entry(id)
                .or_insert_with(|| vec![DecStats::default(); row.len()]);
            for (c, cell) in row.iter().enumerate() {
                if let (Cell::Dec(d), Some(st)) = (cell, s.get_mut(c)) {
                    st.add(*d);
                }
            }
        })?;
    }
    std::fs::create_dir_all(out_dir).map_err(|source| Error::Write {
        path: out_dir.to_owned(),
        source,
    })?;
    let mut outs: BTreeMap<TableId, Out> = BTreeMap::new();
    let mut summary = Summary::default();
    let mut failure: Option<Error> = None;
    read(input, top, &mut summary, &mut |id, row| {
        if failure.is_some() {
            return;
        }
        let out = match outs.get_mut(&id) {
            Some(o) => o,
            None => {
                let cols = columns.get(&id).cloned().unwrap_or_default();
                let st = stats
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| vec![DecStats::default(); cols.len()]);
                match Out::open(out_dir, id, &cols, &st, opts) {
                    Ok(o) => outs.entry(id).or_insert(o),
                    Err(e) => {
                        failure = Some(e);
                        return;
                    }
                }
            }
        };
        if let Err(e) = out.push(row) {
            failure = Some(e);
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    for (_, out) in outs {
        summary.tables.push(out.finish()?);
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_iso_8601() {
        assert_eq!(iso_micros(0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(
            iso_micros(1_706_763_601_020_000),
            "2024-02-01T05:00:01.020000Z"
        );
        assert_eq!(iso_micros(-1), "1969-12-31T23:59:59.999999Z");
    }

    #[test]
    fn scales_and_digits() {
        let mut s = DecStats::default();
        for x in ["11.357", "120.50", "1e-07", "-3000"] {
            s.add(digifinex_sim::num::parse_dec(x).unwrap());
        }
        assert_eq!((s.scale, s.int_digits), (7, 4));
        assert_eq!(s.scale(), Some(7));
        assert_eq!(
            at_scale(digifinex_sim::num::parse_dec("11.357").unwrap(), 7),
            Some(113_570_000)
        );
        let mut wide = DecStats::default();
        wide.add(Decimal::MAX);
        wide.add(Decimal::new(1, 28));
        assert_eq!(wide.scale(), None);
    }
}
