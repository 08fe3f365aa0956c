//! Exports a `digifinex-market` recording (the format of `digifinex record`, documented in
//! the `digifinex-market` crate, [`digifinex_market`]) to tables that pandas, polars and DuckDB read without
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
//! rates are exact: Parquet `DECIMAL(38, 18)` ([`PRECISION`], [`SCALE`]) for every decimal
//! column of every file, CSV the decimal's plain text; `--float` ([`Options::float`]) writes
//! Parquet `DOUBLE` instead. Missing values are null (CSV: empty).
//!
//! DESIGN (one decimal type): a column's Parquet type never depends on the values of one file,
//! so any two exports read as one glob are exact (DuckDB reading a glob keeps the first file's
//! type and rounds the others to it without an error; polars refuses mixed types).
//! `DECIMAL(38, 18)` holds 20 digits before the point and 18 after: every price, quantity and
//! rate the venue lists fits. A record with a value that does not fit (more than 18 decimal
//! places, or 10^20 and more) is not rounded: the whole record is skipped and counted
//! ([`Summary::unfit_records`], with the first messages), like a bad line.
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

pub mod dataset;
#[cfg(feature = "s3")]
pub mod s3;
pub mod store;
pub mod tardis;

use arrow_array::builder::{
    Decimal128Builder, Float64Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use digifinex_market::json::fmt_dec as plain;
use digifinex_market::{Data, Family, Level, MarketId, ReadError, Reader, Record, SeenIds, Ticker};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use rust_decimal::Decimal;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
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

/// Digits after the point of every Parquet decimal column (`DECIMAL(38, 18)`).
pub const SCALE: i8 = 18;

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
    /// Records skipped because a value does not fit the Parquet decimal type
    /// (`DECIMAL(38, 18)`: more than 18 decimal places, or 10^20 and more); their first
    /// messages are in [`Summary::messages`].
    pub unfit_records: u64,
    /// Records skipped because their market's name cannot be a file or partition name (Tardis
    /// layout and datasets: letters, digits, `_`, `-` and `.`, starting with a letter or digit,
    /// at most [`MAX_NAME`] bytes).
    pub bad_names: u64,
}

impl Summary {
    /// Whether anything was skipped.
    pub fn damaged(&self) -> bool {
        self.bad_lines > 0
            || self.truncated
            || self.bad_times > 0
            || self.unfit_records > 0
            || self.bad_names > 0
    }

    /// Keeps `message` among the first [`KEPT_MESSAGES`].
    pub(crate) fn note(&mut self, message: String) {
        if self.messages.len() < KEPT_MESSAGES {
            self.messages.push(message);
        }
    }
}

/// Longest market name taken into a file or partition name (bytes).
pub const MAX_NAME: usize = 64;

/// Whether `name` can be part of a file or partition name: 1 to [`MAX_NAME`] ASCII letters,
/// digits, `_`, `-` and `.`, starting with a letter or digit (so never `..` or a path).
pub(crate) fn safe_name(name: &str) -> bool {
    name.len() <= MAX_NAME
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
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
    /// The dataset at `location` cannot be written to (not a dataset, written by a newer
    /// version, other column types, locked by another export): nothing in it was changed.
    #[error("dataset {location}: {reason}")]
    Dataset {
        /// Where the dataset is.
        location: String,
        /// Why.
        reason: String,
    },
    /// Reading or writing the dataset's storage failed.
    #[error("dataset {location}: {source}")]
    Storage {
        /// Where, and which object.
        location: String,
        /// What failed.
        source: io::Error,
    },
}

// ---- cells and tables ----

/// A column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Microseconds since the epoch, UTC.
    Time,
    Int,
    Text,
    Dec,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    Null,
    Time(i64),
    Int(i64),
    /// Text: borrowed for the fixed words (`spot`, `bid`, `snapshot`), owned for names.
    Text(Cow<'static, str>),
    Dec(Decimal),
}

impl From<Option<Decimal>> for Cell {
    fn from(d: Option<Decimal>) -> Cell {
        d.map_or(Cell::Null, Cell::Dec)
    }
}

pub(crate) type Row = Vec<Cell>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum TableId {
    Book,
    BookTop,
    Trades,
    Tickers,
    Funding,
    MarkIndex,
    Markers,
}

pub(crate) const TABLES: [TableId; 7] = [
    TableId::Book,
    TableId::BookTop,
    TableId::Trades,
    TableId::Tickers,
    TableId::Funding,
    TableId::MarkIndex,
    TableId::Markers,
];

impl TableId {
    pub(crate) fn name(self) -> &'static str {
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

    pub(crate) fn columns(self, top: usize) -> Vec<(String, Kind)> {
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

/// Trade ids seen recently (the last [`SEEN_TRADES`] of a market).
#[derive(Debug)]
pub(crate) struct Seen(SeenIds);

impl Default for Seen {
    fn default() -> Seen {
        Seen(SeenIds::new(SEEN_TRADES))
    }
}

impl Seen {
    pub(crate) fn fresh(&mut self, id: &str) -> bool {
        self.0.fresh(id)
    }
}

/// Turns records into rows (the same way in both passes).
pub(crate) struct Rows {
    top: Option<usize>,
    books: HashMap<(Family, String), LocalBook>,
    seen: HashMap<(Family, String), Seen>,
    pub(crate) repeated_trades: u64,
    pub(crate) dropped_deltas: u64,
}

fn family_text(f: Family) -> Cell {
    Cell::Text(Cow::Borrowed(f.as_str()))
}

/// A fixed word: no allocation.
fn word(s: &'static str) -> Cell {
    Cell::Text(Cow::Borrowed(s))
}

fn text(s: &str) -> Cell {
    Cell::Text(Cow::Owned(s.to_owned()))
}

pub(crate) fn micros(ms: i64) -> Option<i64> {
    ms.checked_mul(1000)
}

fn time_cell(ms: Option<i64>) -> Cell {
    ms.and_then(micros).map_or(Cell::Null, Cell::Time)
}

impl Rows {
    pub(crate) fn new(top: Option<usize>) -> Rows {
        Rows {
            top,
            books: HashMap::new(),
            seen: HashMap::new(),
            repeated_trades: 0,
            dropped_deltas: 0,
        }
    }

    /// The rows of one record (`time` in µs).
    pub(crate) fn of(
        &mut self,
        time: i64,
        seq: u64,
        data: &Data,
        out: &mut dyn FnMut(TableId, Row),
    ) {
        let seq = i64::try_from(seq).unwrap_or(i64::MAX);
        // One allocation a row: the two leading cells, then the rest moved in.
        let head = |extra: Vec<Cell>| -> Row {
            let mut r = Vec::with_capacity(extra.len() + 2);
            r.push(Cell::Time(time));
            r.push(Cell::Int(seq));
            r.extend(extra);
            r
        };
        match data {
            Data::SpotBook {
                symbol, bids, asks, ..
            } => self.book(Family::Spot, symbol, true, bids, asks, (time, seq), out),
            Data::SwapBook {
                instrument,
                bids,
                asks,
                ..
            } => self.book(Family::Swap, instrument, true, bids, asks, (time, seq), out),
            Data::SpotDepth {
                symbol,
                snapshot,
                bids,
                asks,
                ..
            } => self.book(
                Family::Spot,
                symbol,
                *snapshot,
                bids,
                asks,
                (time, seq),
                out,
            ),
            Data::SwapDepth {
                instrument,
                snapshot,
                bids,
                asks,
                ..
            } => self.book(
                Family::Swap,
                instrument,
                *snapshot,
                bids,
                asks,
                (time, seq),
                out,
            ),
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
                            word(match t.side {
                                digifinex_market::Side::Buy => "buy",
                                digifinex_market::Side::Sell => "sell",
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
                        word("resync"),
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
                        word("reconnect"),
                        family_text(*family),
                        Cell::Null,
                        socket.map_or(Cell::Null, |s| Cell::Int(i64::from(s))),
                        time_cell(*lost),
                        reason.as_deref().map_or(Cell::Null, text),
                        if markets.is_empty() {
                            Cell::Null
                        } else {
                            Cell::Text(Cow::Owned(markets.join(",")))
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
        (time, seq): (i64, i64),
        out: &mut dyn FnMut(TableId, Row),
    ) {
        let update = if snapshot { "snapshot" } else { "delta" };
        let Some(n) = self.top else {
            for (side, levels) in [("bid", bids), ("ask", asks)] {
                for (i, (p, q)) in levels.iter().enumerate() {
                    out(
                        TableId::Book,
                        vec![
                            Cell::Time(time),
                            Cell::Int(seq),
                            family_text(family),
                            text(market),
                            word(update),
                            word(side),
                            Cell::Int(i64::try_from(i).unwrap_or(i64::MAX).saturating_add(1)),
                            Cell::Dec(*p),
                            Cell::Dec(*q),
                        ],
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
        let mut cells = Vec::with_capacity(5 + 4 * n);
        cells.extend([
            Cell::Time(time),
            Cell::Int(seq),
            family_text(family),
            text(market),
            word(update),
        ]);
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
        out(TableId::BookTop, cells);
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

/// Reads every record of the recording at `input`, handing each one (receive time in µs, its
/// number in the file from 0) to `each`; bad lines, times out of range, a cut end and unknown
/// kinds are counted in `summary`.
pub(crate) fn read_records(
    input: &Path,
    summary: &mut Summary,
    each: &mut dyn FnMut(i64, u64, &Record, &mut Summary),
) -> Result<(), Error> {
    let mut reader = Reader::open(input)?;
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
                each(time, this, &r, summary);
            }
            Err(ReadError::Line { line, message }) => {
                summary.bad_lines += 1;
                summary.note(format!("line {line}: {message}"));
            }
            Err(e) => return Err(e.into()),
        }
    }
    summary.truncated = reader.truncated();
    summary.unknown_kinds = reader.skipped();
    Ok(())
}

/// The market a record is about, when it names one.
pub(crate) fn market_of(data: &Data) -> Option<&str> {
    match data {
        Data::SpotBook { symbol, .. }
        | Data::SpotTrades { symbol, .. }
        | Data::SpotTicker { symbol, .. }
        | Data::SpotDepth { symbol, .. } => Some(symbol),
        Data::SwapBook { instrument, .. }
        | Data::SwapTrades { instrument, .. }
        | Data::SwapTicker { instrument, .. }
        | Data::SwapDepth { instrument, .. }
        | Data::Funding { instrument, .. }
        | Data::Mark { instrument, .. }
        | Data::Index { instrument, .. } => Some(instrument),
        Data::Resync { market, .. } => Some(match market {
            MarketId::Spot(s) | MarketId::Swap(s) => s,
        }),
        _ => None,
    }
}

/// Skips a record whose market name cannot be a file name ([`Summary::bad_names`]); `true`
/// when it is skipped.
pub(crate) fn bad_name(seq: u64, data: &Data, summary: &mut Summary) -> bool {
    match market_of(data) {
        Some(name) if !safe_name(name) => {
            summary.bad_names += 1;
            summary.note(format!(
                "record {seq} ({}): market name {name:?} cannot be a file name (skipped)",
                data.kind()
            ));
            true
        }
        _ => false,
    }
}

/// Reads every record of the recording at `input`, handing each one's rows to `out`. With
/// `exact`, a record with a decimal that does not fit `DECIMAL(38, 18)` is skipped whole and
/// counted ([`Summary::unfit_records`]); with `names`, a record whose market name cannot be a
/// file name ([`Summary::bad_names`]).
pub(crate) fn read(
    input: &Path,
    top: Option<usize>,
    exact: bool,
    names: bool,
    summary: &mut Summary,
    out: &mut dyn FnMut(TableId, Row),
) -> Result<(), Error> {
    let mut rows = Rows::new(top);
    let mut pending: Vec<(TableId, Row)> = Vec::new();
    let n = top.unwrap_or(0);
    read_records(input, summary, &mut |time, seq, r, summary| {
        if names && bad_name(seq, &r.data, summary) {
            return;
        }
        pending.clear();
        rows.of(time, seq, &r.data, &mut |id, row| pending.push((id, row)));
        if exact {
            if let Some(m) = unfit(&pending, n) {
                summary.unfit_records += 1;
                summary.note(format!(
                    "record {seq} ({} at {}): {m}",
                    r.data.kind(),
                    iso_micros(time)
                ));
                return;
            }
        }
        summary.records += 1;
        for (id, row) in pending.drain(..) {
            out(id, row);
        }
    })?;
    summary.repeated_trades = rows.repeated_trades;
    summary.dropped_deltas = rows.dropped_deltas;
    Ok(())
}

/// The first decimal of `rows` that does not fit `DECIMAL(38, 18)`, as a message naming its
/// column.
pub(crate) fn unfit(rows: &[(TableId, Row)], top: usize) -> Option<String> {
    for (id, row) in rows {
        for (c, cell) in row.iter().enumerate() {
            if let Cell::Dec(d) = cell {
                if scaled(*d).is_none() {
                    let name = id
                        .columns(top)
                        .get(c)
                        .map(|(n, _)| n.clone())
                        .unwrap_or_default();
                    return Some(format!(
                        "{name} {} does not fit DECIMAL({PRECISION}, {SCALE}) (skipped)",
                        plain(*d)
                    ));
                }
            }
        }
    }
    None
}

/// The value of `d` as the integer of `DECIMAL(38, 18)` (`None` if it does not fit: more than
/// 18 decimal places, or 38 digits or more in all).
pub(crate) fn scaled(d: Decimal) -> Option<i128> {
    // Without `normalize` (a division per trailing zero): a scale up to 18 is multiplied up,
    // a larger one must end in zeros down to 18 places.
    let scale = usize::try_from(d.scale()).ok()?;
    let target = usize::try_from(SCALE).ok()?;
    let m = d.mantissa();
    let v = if scale <= target {
        m.checked_mul(*POW10.get(target - scale)?)?
    } else {
        let p = *POW10.get(scale - target)?;
        if m.checked_rem(p)? != 0 {
            return None;
        }
        m.checked_div(p)?
    };
    (v.unsigned_abs() < LIMIT).then_some(v)
}

/// 10^0 ..= 10^28 (a `Decimal`'s scale is at most 28).
const POW10: [i128; 29] = {
    let mut t = [1i128; 29];
    let mut i = 1;
    while i < 29 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// 10^PRECISION: the first magnitude that does not fit.
const LIMIT: u128 = 10u128.pow(PRECISION as u32);

// ---- Parquet ----

/// The Arrow type of a column kind (`float`: decimals as `DOUBLE`).
pub(crate) fn arrow_type(kind: Kind, float: bool) -> DataType {
    match kind {
        Kind::Time => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        Kind::Int => DataType::Int64,
        Kind::Text => DataType::Utf8,
        Kind::Dec if float => DataType::Float64,
        Kind::Dec => DataType::Decimal128(PRECISION, SCALE),
    }
}

/// The schema of a table's columns (`time` and `seq` are never null).
pub(crate) fn schema(columns: &[(String, Kind)], float: bool) -> Arc<Schema> {
    Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, kind)| {
                Field::new(
                    name,
                    arrow_type(*kind, float),
                    !matches!(name.as_str(), "time" | "seq"),
                )
            })
            .collect::<Vec<_>>(),
    ))
}

/// The writer properties of every Parquet file: snappy, row groups bounded; no dictionary
/// for `time` and `seq`, whose values hardly repeat (a dictionary of them costs a hash table
/// insert per value only to be dropped when it outgrows its page).
pub(crate) fn properties() -> WriterProperties {
    WriterProperties::builder()
        .set_column_dictionary_enabled(ColumnPath::from("time"), false)
        .set_column_dictionary_enabled(ColumnPath::from("seq"), false)
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
        .build()
}

/// The record batch of `rows` (cells in the order of `kinds`).
pub(crate) fn batch(
    schema: &Arc<Schema>,
    kinds: &[Kind],
    rows: &[Row],
    float: bool,
    path: &Path,
) -> Result<RecordBatch, Error> {
    let mut cols = Columns::new(kinds, float, rows.len());
    for r in rows {
        cols.push(r).map_err(|e| encode_error(path, e))?;
    }
    cols.finish(schema).map_err(|e| encode_error(path, e))
}

/// Arrow column builders for a table's rows: each row's cells are appended as it comes, and
/// [`Columns::finish`] hands the record batch over and starts again.
pub(crate) struct Columns {
    cols: Vec<Column>,
    rows: usize,
}

enum Column {
    Time(TimestampMicrosecondBuilder),
    Int(Int64Builder),
    Text(StringBuilder),
    Dec(Decimal128Builder),
    Float(Float64Builder),
}

impl Columns {
    /// Builders for columns of `kinds` (`float`: decimals as `DOUBLE`), room for `rows`.
    pub(crate) fn new(kinds: &[Kind], float: bool, rows: usize) -> Columns {
        let cols = kinds
            .iter()
            .map(|k| match k {
                Kind::Time => Column::Time(
                    TimestampMicrosecondBuilder::with_capacity(rows).with_timezone("UTC"),
                ),
                Kind::Int => Column::Int(Int64Builder::with_capacity(rows)),
                Kind::Text => Column::Text(StringBuilder::with_capacity(rows, rows * 8)),
                Kind::Dec if float => Column::Float(Float64Builder::with_capacity(rows)),
                Kind::Dec => Column::Dec(Decimal128Builder::with_capacity(rows)),
            })
            .collect();
        Columns { cols, rows: 0 }
    }

    /// Rows appended since the last batch.
    pub(crate) fn len(&self) -> usize {
        self.rows
    }

    /// Appends one row (a cell of another kind, or a missing one, is null). A decimal that
    /// does not fit `DECIMAL(38, 18)` is appended as null and makes this an error (records
    /// with one are skipped before: this is a guard, and the caller stops at the error).
    pub(crate) fn push(&mut self, row: &[Cell]) -> Result<(), String> {
        let mut unfit = None;
        let cells = row.iter().chain(std::iter::repeat(&Cell::Null));
        for (col, cell) in self.cols.iter_mut().zip(cells) {
            match (col, cell) {
                (Column::Time(b), Cell::Time(t)) => b.append_value(*t),
                (Column::Time(b), _) => b.append_null(),
                (Column::Int(b), Cell::Int(i)) => b.append_value(*i),
                (Column::Int(b), _) => b.append_null(),
                (Column::Text(b), Cell::Text(t)) => b.append_value(t),
                (Column::Text(b), _) => b.append_null(),
                (Column::Dec(b), Cell::Dec(d)) => {
                    let v = scaled(*d);
                    if v.is_none() && unfit.is_none() {
                        unfit = Some(*d);
                    }
                    b.append_option(v)
                }
                (Column::Dec(b), _) => b.append_null(),
                // The decimal's shortest text, read as the nearest double.
                (Column::Float(b), Cell::Dec(d)) => b.append_option(plain(*d).parse::<f64>().ok()),
                (Column::Float(b), _) => b.append_null(),
            }
        }
        self.rows += 1;
        match unfit {
            Some(d) => Err(format!("{d} does not fit DECIMAL({PRECISION}, {SCALE})")),
            None => Ok(()),
        }
    }

    /// The record batch of the rows appended (the builders start again, empty).
    pub(crate) fn finish(&mut self, schema: &Arc<Schema>) -> Result<RecordBatch, String> {
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.cols.len());
        for col in &mut self.cols {
            arrays.push(match col {
                Column::Time(b) => Arc::new(b.finish()),
                Column::Int(b) => Arc::new(b.finish()),
                Column::Text(b) => Arc::new(b.finish()),
                Column::Dec(b) => Arc::new(
                    b.finish()
                        .with_precision_and_scale(PRECISION, SCALE)
                        .map_err(|e| e.to_string())?,
                ),
                Column::Float(b) => Arc::new(b.finish()),
            });
        }
        self.rows = 0;
        RecordBatch::try_new(schema.clone(), arrays).map_err(|e| e.to_string())
    }
}

// ---- sinks ----

/// One output table.
enum Sink {
    Parquet {
        writer: ArrowWriter<BufWriter<File>>,
        schema: Arc<Schema>,
        /// The rows since the last batch, in Arrow builders.
        cols: Columns,
    },
    Csv(csv::Writer<BufWriter<File>>),
}

struct Out {
    path: PathBuf,
    sink: Sink,
    rows: u64,
}

pub(crate) fn encode_error(path: &Path, e: impl std::fmt::Display) -> Error {
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
                let schema = schema(columns, opts.float);
                let writer = ArrowWriter::try_new(file, schema.clone(), Some(properties()))
                    .map_err(|e| encode_error(&path, e))?;
                let kinds: Vec<Kind> = columns.iter().map(|(_, k)| *k).collect();
                Sink::Parquet {
                    writer,
                    schema,
                    cols: Columns::new(&kinds, opts.float, BATCH_ROWS),
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
            Sink::Parquet { cols, .. } => {
                cols.push(&row).map_err(|e| encode_error(&self.path, e))?;
                if cols.len() >= BATCH_ROWS {
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
            cols,
        } = &mut self.sink
        else {
            return Ok(());
        };
        if cols.len() == 0 {
            return Ok(());
        }
        let batch = cols
            .finish(schema)
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

/// `2024-02-01T05:00:01.020000Z` for a time in µs.
pub use digifinex_market::time::iso_micros;

fn csv_text(c: &Cell) -> String {
    match c {
        Cell::Null => String::new(),
        Cell::Time(t) => iso_micros(*t),
        Cell::Int(i) => i.to_string(),
        Cell::Text(s) => s.to_string(),
        Cell::Dec(d) => plain(*d),
    }
}

/// Exports the recording at `input` into `out_dir` (created if missing): one file per table
/// with rows (see the module docs). Reads the recording once; memory stays bounded by
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
    // Check that the file is a recording before creating anything.
    drop(Reader::open(input)?);
    std::fs::create_dir_all(out_dir).map_err(|source| Error::Write {
        path: out_dir.to_owned(),
        source,
    })?;
    let mut outs: BTreeMap<TableId, Out> = BTreeMap::new();
    let mut summary = Summary::default();
    let mut failure: Option<Error> = None;
    let exact = opts.format == Format::Parquet && !opts.float;
    read(input, top, exact, false, &mut summary, &mut |id, row| {
        if failure.is_some() {
            return;
        }
        let out = match outs.get_mut(&id) {
            Some(o) => o,
            None => {
                let cols = columns.get(&id).cloned().unwrap_or_default();
                match Out::open(out_dir, id, &cols, opts) {
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
    fn one_decimal_type_and_what_does_not_fit() {
        let d = |s: &str| digifinex_market::decimal::parse_dec(s).unwrap();
        assert_eq!(scaled(d("11.357")), Some(11_357_000_000_000_000_000));
        assert_eq!(scaled(d("1e-18")), Some(1));
        assert_eq!(scaled(d("-3000")), Some(-3_000_000_000_000_000_000_000));
        // 18 places after trailing zeros are dropped.
        assert_eq!(
            scaled(d("0.1000000000000000000000")),
            Some(100_000_000_000_000_000)
        );
        assert_eq!(scaled(d("1e-19")), None);
        assert_eq!(
            scaled(d("99999999999999999999.99999999")),
            Some(99_999_999_999_999_999_999_999_999_990_000_000_000)
        );
        assert_eq!(scaled(d("100000000000000000000")), None);
        assert_eq!(scaled(Decimal::MAX), None);
        assert_eq!(scaled(Decimal::MIN), None);
        assert_eq!(scaled(Decimal::ZERO), Some(0));
        assert_eq!(scaled(Decimal::new(0, 28)), Some(0));
        assert_eq!(scaled(Decimal::new(-5, 28)), None);
        assert_eq!(scaled(Decimal::new(-50_000_000_000, 28)), Some(-5));
    }

    #[test]
    fn columns_build_the_batch_and_refuse_an_unfit_decimal() {
        let d = |s: &str| digifinex_market::decimal::parse_dec(s).unwrap();
        let cols: Vec<(String, Kind)> = [
            ("time", Kind::Time),
            ("seq", Kind::Int),
            ("market", Kind::Text),
            ("price", Kind::Dec),
        ]
        .iter()
        .map(|(n, k)| ((*n).to_owned(), *k))
        .collect();
        let kinds: Vec<Kind> = cols.iter().map(|(_, k)| *k).collect();
        let schema = schema(&cols, false);
        let mut c = Columns::new(&kinds, false, 4);
        c.push(&[
            Cell::Time(5),
            Cell::Int(1),
            word("btc_usdt"),
            Cell::Dec(d("1.25")),
        ])
        .unwrap();
        // A short row: the missing cells are null.
        c.push(&[Cell::Time(6), Cell::Int(2)]).unwrap();
        let e = c
            .push(&[
                Cell::Time(7),
                Cell::Int(3),
                word("x"),
                Cell::Dec(d("1e-19")),
            ])
            .unwrap_err();
        assert_eq!(e, "0.0000000000000000001 does not fit DECIMAL(38, 18)");
        assert_eq!(c.len(), 3);
        let b = c.finish(&schema).unwrap();
        assert_eq!(b.num_rows(), 3);
        let price = b
            .column(3)
            .as_any()
            .downcast_ref::<arrow_array::Decimal128Array>()
            .unwrap();
        assert_eq!(price.value(0), 1_250_000_000_000_000_000);
        use arrow_array::Array as _;
        assert!(price.is_null(1) && price.is_null(2));
        assert_eq!(c.len(), 0);
    }

    /// The fast `scaled` against its definition: normalize, then multiply up to 18 places.
    #[test]
    fn scaled_is_the_normalized_value_at_18_places() {
        fn reference(d: Decimal) -> Option<i128> {
            let n = d.normalize();
            let up = u32::try_from(SCALE).ok()?.checked_sub(n.scale())?;
            let v = n.mantissa().checked_mul(10i128.checked_pow(up)?)?;
            (v.unsigned_abs() < 10u128.pow(u32::from(PRECISION))).then_some(v)
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..50_000 {
            let hi = u32::try_from(next() % 4).unwrap_or(0);
            let mid = u32::try_from(next() >> 32).unwrap_or(0);
            let lo = u32::try_from(next() >> 32).unwrap_or(0);
            let scale = u32::try_from(next() % 29).unwrap_or(0);
            let negative = next() % 2 == 0;
            // Small mantissas with trailing zeros as often as wide ones.
            let d = if next() % 2 == 0 {
                let zeros = u32::try_from(next() % 20).unwrap_or(0);
                let m = i64::try_from(next() % 1_000_000).unwrap_or(0) * 10i64.pow(zeros.min(12));
                Decimal::new(if negative { -m } else { m }, scale)
            } else {
                Decimal::from_parts(lo, mid, hi, negative, scale)
            };
            assert_eq!(scaled(d), reference(d), "{d:?}");
        }
    }

    #[test]
    fn names_that_can_be_paths() {
        for ok in ["btc_usdt", "BTCUSDTPERP", "1000SATS_USDT", "a.b-c"] {
            assert!(safe_name(ok), "{ok}");
        }
        for bad in [
            "",
            "..",
            ".x",
            "a/b",
            "a\\b",
            "x y",
            "é",
            "_x",
            &"a".repeat(65),
        ] {
            assert!(!safe_name(bad), "{bad}");
        }
    }
}
