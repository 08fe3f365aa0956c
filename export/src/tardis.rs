//! Tardis.dev's downloadable CSV layout (`digifinex market export FILE --format tardis --out
//! DIR`), so that tools which load Tardis files (hftbacktest's `tardis.convert`, Tardis-style
//! loaders) read a DigiFinex recording without an adapter.
//!
//! One gzip CSV per exchange, data type, UTC day and symbol:
//! `DIR/{exchange}_{data_type}_{YYYY-MM-DD}_{SYMBOL}.csv.gz`, exchange [`EXCHANGE_SPOT`]
//! (`digifinex`) for spot pairs and [`EXCHANGE_SWAP`] (`digifinex-swap`) for perpetual swaps,
//! the symbol as the venue writes it, in upper case (`BTC_USDT`, `BTCUSDTPERP`). The day is the
//! UTC day of the recorder's receive time. Columns, with a header row, comma-separated, `\n`
//! line ends:
//!
//! | data type | columns |
//! |---|---|
//! | `trades` | `exchange,symbol,timestamp,local_timestamp,id,side,price,amount` |
//! | `incremental_book_L2` | `exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount` |
//! | `book_snapshot_25`, `book_snapshot_5` | `exchange,symbol,timestamp,local_timestamp,asks[0].price,asks[0].amount,bids[0].price,bids[0].amount,asks[1].price,...` |
//! | `quotes` | `exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount` |
//! | `derivative_ticker` (swaps) | `exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price` |
//!
//! Times are microseconds since the Unix epoch (UTC): `timestamp` is the venue's time where
//! the record carries one (a trade's time; a depth frame's, index push's or ticker's `ts`),
//! otherwise the receive time, as Tardis falls back; `local_timestamp` is the recorder's
//! receive time. Decimals are their exact text (`0.0000001`, never an exponent or a float's
//! rounding). `side` is `bid`/`ask` in books and the taker's `buy`/`sell` in trades;
//! `is_snapshot` is `true`/`false`; an empty field is a value the venue did not give.
//!
//! [`Options::data_types`] (the CLI's `--data-types trades,incremental_book_L2`) writes only
//! the chosen data types; the others are not built at all, so an export for hftbacktest (which
//! reads `trades` and `incremental_book_L2`) skips the work of the top-of-book snapshots. The
//! files written hold the same text as in a full export.
//!
//! # Books
//!
//! DESIGN (one snapshot per file): each `incremental_book_L2` file starts with one snapshot of
//! its market's book, all of whose rows carry `is_snapshot` `true`: the first recorded
//! snapshot of the day or, when the book was already valid at midnight, the book after the
//! day's first depth record (Tardis starts every day with a snapshot too). Every later
//! snapshot of that day — the venue's periodic ones, a version 1 REST poll, the snapshot after a
//! `resync` or `reconnect` marker — is written as its difference from the book the file's rows
//! have built so far: each changed level with its new amount, each vanished level with amount
//! `0`, `is_snapshot` `false`. A loader that follows Tardis's rules (reset the book at a
//! snapshot, apply the rest, `0` deletes) ends every record at exactly the recorded book.
//! Why not a snapshot each time: Tardis merges snapshot rows that follow each other into one
//! snapshot, and hftbacktest 2.4.4's `tardis.convert` keeps a later snapshot only up to the size
//! of the file's first one (it reuses that snapshot's buffer slice), so later snapshots as
//! snapshots would lose levels there. Depth deltas before a market's first snapshot, and
//! between a `resync` or `reconnect` marker and its next snapshot, must not be applied: they
//! are not written ([`Summary::dropped_deltas`]). So a gap is not marked in these files (the
//! plain export's `markers` table has it); the book simply stays as it was until the next
//! snapshot's difference.
//!
//! `quotes`, `book_snapshot_25` and `book_snapshot_5` are built from the same book: a row after
//! each depth record that changed the best level (quotes) or the top 25 or 5 levels, and the
//! first such row of each day; none while the book is not valid. Snapshot levels are written
//! best first on each side, bids before asks; deltas in the order the frame sent them.
//!
//! # What DigiFinex data cannot fill
//!
//! - No sequence numbers: the venue's depth frames carry none, so a loader cannot detect a
//!   lost frame from the files; the recorder detects what it can (crossed or stale books, a
//!   lost socket) and the difference rows above repair the book at the next snapshot.
//! - Spot trade times have a resolution of one second (the spot venue reports seconds), so
//!   spot `trades.timestamp` is a whole second and many trades share it; swap trade times are
//!   milliseconds. Depth frames of the spot socket carry no time: their `timestamp` is the
//!   receive time.
//! - `derivative_ticker.open_interest` is always empty (not in the recorded streams); the other
//!   fields carry the last value recorded (`funding_rate` the rate of the next settlement at
//!   `funding_timestamp`, `predicted_funding_rate` the venue's forecast for the one after),
//!   empty until first recorded.
//! - Swap `amount`s are in contracts, as the venue sends them (the recording's header gives
//!   each instrument's `contract_value`); spot amounts are in the base currency.
//! - Trade ids are the venue's; a trade id repeated by overlapping polls or the recent list a
//!   websocket sends after subscribing is written once.
//!
//! # Files and memory
//!
//! Rows are buffered in memory per file up to [`Options::buffer_bytes`] in all; when the
//! buffers are full the largest are compressed and appended to their files, each as one more
//! gzip member (RFC 1952 allows several; gzip, Python's `gzip`, pandas and polars read them
//! as one stream). A small export writes each file as a single member. Files are written
//! under a temporary name (`.NAME.part`) and renamed when the export completes; a file of the
//! same name from an earlier export is replaced.

use crate::{bad_name, micros, read_records, Error, Seen, Summary, TableSummary};
use digifinex_market::json::push_dec;
use digifinex_market::time::date_text as date;
use digifinex_market::{Data, Family, Level, MarketId, Reader, Side, Trade};
use flate2::write::GzEncoder;
use flate2::Compression;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap};
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The exchange name of spot pairs.
pub const EXCHANGE_SPOT: &str = "digifinex";

/// The exchange name of perpetual swaps.
pub const EXCHANGE_SWAP: &str = "digifinex-swap";

/// Bytes of CSV text buffered in memory across all files by default (64 MiB).
pub const BUFFER_BYTES: usize = 64 << 20;

/// What to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Bytes of CSV text buffered across all files before the largest buffers are compressed
    /// and appended to their files (at least 1; [`BUFFER_BYTES`] by default).
    pub buffer_bytes: usize,
    /// The data types written ([`DataTypes::ALL`] by default; Tardis's `dataTypes`).
    pub data_types: DataTypes,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            buffer_bytes: BUFFER_BYTES,
            data_types: DataTypes::ALL,
        }
    }
}

/// A Tardis data type (the `{data_type}` of a file name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    /// `trades`: one row per trade.
    Trades,
    /// `incremental_book_L2`: one row per changed book level.
    IncrementalBookL2,
    /// `book_snapshot_25`: the top 25 levels of each side after each change of them.
    BookSnapshot25,
    /// `book_snapshot_5`: the top 5 levels of each side after each change of them.
    BookSnapshot5,
    /// `quotes`: the best bid and ask after each change of them.
    Quotes,
    /// `derivative_ticker` (swaps): funding, index, mark and last price after each change.
    DerivativeTicker,
}

impl DataType {
    /// Every data type, in the order above.
    pub const ALL: [DataType; 6] = [
        DataType::Trades,
        DataType::IncrementalBookL2,
        DataType::BookSnapshot25,
        DataType::BookSnapshot5,
        DataType::Quotes,
        DataType::DerivativeTicker,
    ];

    /// Tardis's name (`incremental_book_L2`).
    pub fn name(self) -> &'static str {
        match self {
            DataType::Trades => "trades",
            DataType::IncrementalBookL2 => "incremental_book_L2",
            DataType::BookSnapshot25 => "book_snapshot_25",
            DataType::BookSnapshot5 => "book_snapshot_5",
            DataType::Quotes => "quotes",
            DataType::DerivativeTicker => "derivative_ticker",
        }
    }

    fn index(self) -> usize {
        match self {
            DataType::Trades => 0,
            DataType::IncrementalBookL2 => 1,
            DataType::BookSnapshot25 => 2,
            DataType::BookSnapshot5 => 3,
            DataType::Quotes => 4,
            DataType::DerivativeTicker => 5,
        }
    }

    fn header(self) -> String {
        use std::fmt::Write as _;
        let mut h = String::from("exchange,symbol,timestamp,local_timestamp");
        match self {
            DataType::Trades => h.push_str(",id,side,price,amount"),
            DataType::IncrementalBookL2 => h.push_str(",is_snapshot,side,price,amount"),
            DataType::BookSnapshot25 | DataType::BookSnapshot5 => {
                for i in 0..depth(self) {
                    let _ = write!(
                        h,
                        ",asks[{i}].price,asks[{i}].amount,bids[{i}].price,bids[{i}].amount"
                    );
                }
            }
            DataType::Quotes => h.push_str(",ask_amount,ask_price,bid_price,bid_amount"),
            DataType::DerivativeTicker => h.push_str(
                ",funding_timestamp,funding_rate,predicted_funding_rate,open_interest,\
                 last_price,index_price,mark_price",
            ),
        }
        h.push('\n');
        h
    }
}

impl FromStr for DataType {
    type Err = String;

    fn from_str(s: &str) -> Result<DataType, String> {
        DataType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = DataType::ALL.iter().map(|t| t.name()).collect();
                format!("{s:?} is not a data type ({})", names.join(", "))
            })
    }
}

/// A set of [`DataType`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataTypes(u8);

impl DataTypes {
    /// Every data type.
    pub const ALL: DataTypes = DataTypes(0b11_1111);

    /// Exactly `types`.
    pub fn only(types: &[DataType]) -> DataTypes {
        DataTypes(types.iter().fold(0, |set, t| set | 1 << t.index()))
    }

    /// Whether `t` is in the set.
    pub fn contains(self, t: DataType) -> bool {
        self.0 & 1 << t.index() != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl Default for DataTypes {
    fn default() -> Self {
        DataTypes::ALL
    }
}

/// `trades,incremental_book_L2`: Tardis's names, comma-separated, at least one.
impl FromStr for DataTypes {
    type Err = String;

    fn from_str(s: &str) -> Result<DataTypes, String> {
        let types = s
            .split(',')
            .map(|t| t.trim().parse())
            .collect::<Result<Vec<DataType>, String>>()?;
        Ok(DataTypes::only(&types))
    }
}

fn depth(kind: DataType) -> usize {
    match kind {
        DataType::BookSnapshot25 => 25,
        DataType::BookSnapshot5 => 5,
        _ => 1,
    }
}

fn day_of(us: i64) -> i64 {
    us.div_euclid(86_400_000_000)
}

/// A CSV field: quoted when it holds a comma, a quote or a line end.
fn field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

fn dec(out: &mut String, d: Option<Decimal>) {
    if let Some(d) = d {
        push_dec(out, d);
    }
}

fn int(out: &mut String, i: i64) {
    out.push_str(itoa::Buffer::new().format(i));
}

/// `,price,amount` of a level, or `,,` without one.
fn level_cells(out: &mut String, level: Option<&Level>) {
    out.push(',');
    dec(out, level.map(|l| l.0));
    out.push(',');
    dec(out, level.map(|l| l.1));
}

/// The derivative ticker's last known values.
#[derive(Debug, Clone, Default, PartialEq)]
struct Derivative {
    funding_timestamp: Option<i64>,
    funding_rate: Option<Decimal>,
    predicted_funding_rate: Option<Decimal>,
    last_price: Option<Decimal>,
    index_price: Option<Decimal>,
    mark_price: Option<Decimal>,
}

impl Derivative {
    fn cells(&self, s: &mut String) {
        s.push(',');
        if let Some(t) = self.funding_timestamp {
            int(s, t);
        }
        s.push(',');
        dec(s, self.funding_rate);
        s.push(',');
        dec(s, self.predicted_funding_rate);
        // open_interest: not recorded.
        s.push_str(",,");
        dec(s, self.last_price);
        s.push(',');
        dec(s, self.index_price);
        s.push(',');
        dec(s, self.mark_price);
    }
}

/// The top levels last written to a derived data type's file, and that row's day.
#[derive(Debug, Default)]
struct Emitted {
    day: Option<i64>,
    bids: Vec<Level>,
    asks: Vec<Level>,
}

/// One market's state.
#[derive(Debug)]
struct Market {
    exchange: &'static str,
    symbol: String,
    /// `exchange,SYMBOL,`: the start of every row.
    prefix: String,
    bids: BTreeMap<Decimal, Decimal>,
    asks: BTreeMap<Decimal, Decimal>,
    /// Whether the book is valid (a snapshot since the start or the last marker).
    valid: bool,
    /// The day whose `incremental_book_L2` file has its snapshot.
    snapshot_day: Option<i64>,
    /// Each data type's current file: its day and spool id.
    files: [Option<(i64, usize)>; 6],
    /// What `book_snapshot_25`, `book_snapshot_5` and `quotes` last wrote.
    emitted: [Emitted; 3],
    /// What `derivative_ticker` last wrote, and its day.
    derivative_last: Option<(i64, Derivative)>,
    seen: Seen,
    derivative: Derivative,
}

impl Market {
    fn new(family: Family, name: &str) -> Market {
        let exchange = match family {
            Family::Spot => EXCHANGE_SPOT,
            Family::Swap => EXCHANGE_SWAP,
        };
        let symbol = name.to_ascii_uppercase();
        Market {
            exchange,
            prefix: format!("{exchange},{symbol},"),
            symbol,
            bids: BTreeMap::new(),
            asks: BTreeMap::new(),
            valid: false,
            snapshot_day: None,
            files: [None; 6],
            emitted: Default::default(),
            derivative_last: None,
            seen: Seen::default(),
            derivative: Derivative::default(),
        }
    }

    /// The spool id of `kind`'s file of `day`, opened on first use.
    fn file(&mut self, spool: &mut Spool, kind: DataType, day: i64) -> usize {
        match self.files[kind.index()] {
            Some((d, id)) if d == day => id,
            _ => {
                let name = format!(
                    "{}_{}_{}_{}.csv.gz",
                    self.exchange,
                    kind.name(),
                    date(day),
                    self.symbol
                );
                let id = spool.open(name, kind);
                self.files[kind.index()] = Some((day, id));
                id
            }
        }
    }
}

/// `exchange,symbol,timestamp,local_timestamp`.
fn head(out: &mut String, prefix: &str, timestamp: i64, local: i64) {
    out.push_str(prefix);
    int(out, timestamp);
    out.push(',');
    int(out, local);
}

/// An `incremental_book_L2` row.
fn l2_row(
    out: &mut String,
    prefix: &str,
    (timestamp, local): (i64, i64),
    snapshot: bool,
    side: &str,
    (price, amount): Level,
) {
    head(out, prefix, timestamp, local);
    out.push_str(if snapshot { ",true," } else { ",false," });
    out.push_str(side);
    out.push(',');
    push_dec(out, price);
    out.push(',');
    push_dec(out, amount);
}

/// Files being written: rows buffered in memory, compressed into gzip members when the
/// buffers are full and at the end.
struct Spool {
    dir: PathBuf,
    budget: usize,
    buffered: usize,
    files: Vec<Spooled>,
    /// File name to id.
    ids: HashMap<String, usize>,
}

struct Spooled {
    name: String,
    buf: String,
    /// Whether the temporary file exists (members are appended to it).
    started: bool,
    rows: u64,
}

fn temporary(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.part"))
}

impl Spool {
    /// The id of the file `name`, created (its header buffered) on first use.
    fn open(&mut self, name: String, kind: DataType) -> usize {
        if let Some(id) = self.ids.get(&name) {
            return *id;
        }
        let id = self.files.len();
        let buf = kind.header();
        self.buffered += buf.len();
        self.ids.insert(name.clone(), id);
        self.files.push(Spooled {
            name,
            buf,
            started: false,
            rows: 0,
        });
        id
    }

    /// Appends one row (written by `write`, without its line end) to file `id`.
    fn row(&mut self, id: usize, write: impl FnOnce(&mut String)) -> Result<(), Error> {
        let Some(f) = self.files.get_mut(id) else {
            return Ok(());
        };
        let before = f.buf.len();
        write(&mut f.buf);
        f.buf.push('\n');
        f.rows += 1;
        self.buffered += f.buf.len().saturating_sub(before);
        if self.buffered > self.budget {
            // The largest buffers first, until half the budget is free.
            let mut sizes: Vec<(usize, usize)> = self
                .files
                .iter()
                .enumerate()
                .filter(|(_, f)| !f.buf.is_empty())
                .map(|(id, f)| (f.buf.len(), id))
                .collect();
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            for (_, id) in sizes {
                if self.buffered <= self.budget / 2 {
                    break;
                }
                self.flush(id)?;
            }
        }
        Ok(())
    }

    /// Compresses file `id`'s buffer as one gzip member appended to its temporary file.
    fn flush(&mut self, id: usize) -> Result<(), Error> {
        let Some(f) = self.files.get_mut(id) else {
            return Ok(());
        };
        if f.buf.is_empty() {
            return Ok(());
        }
        let path = temporary(&self.dir, &f.name);
        let io_error = |source| Error::Write {
            path: path.clone(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .append(f.started)
            .truncate(!f.started)
            .open(&path)
            .map_err(io_error)?;
        // The fastest level: the snapshot files are large and their compression was most of
        // the export's time; every gzip reader reads any level.
        let mut gz = GzEncoder::new(io::BufWriter::new(file), Compression::fast());
        gz.write_all(f.buf.as_bytes()).map_err(io_error)?;
        gz.finish().and_then(|mut w| w.flush()).map_err(io_error)?;
        f.started = true;
        self.buffered = self.buffered.saturating_sub(f.buf.len());
        f.buf = String::new();
        Ok(())
    }

    /// Writes every buffer and renames each file to its name; the files sorted by name.
    fn finish(mut self) -> Result<Vec<TableSummary>, Error> {
        let mut out = Vec::with_capacity(self.files.len());
        for id in 0..self.files.len() {
            self.flush(id)?;
        }
        for f in &self.files {
            let path = self.dir.join(&f.name);
            std::fs::rename(temporary(&self.dir, &f.name), &path).map_err(|source| {
                Error::Write {
                    path: path.clone(),
                    source,
                }
            })?;
            out.push(TableSummary {
                name: f.name.clone(),
                rows: f.rows,
                path,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        self.files.clear();
        Ok(out)
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        // An export that failed: no temporary file stays behind (renamed ones are gone
        // from the list once `finish` succeeded).
        for f in &self.files {
            if f.started {
                let _ = std::fs::remove_file(temporary(&self.dir, &f.name));
            }
        }
    }
}

/// The export's state.
struct Tardis {
    markets: Markets,
    spool: Spool,
    types: DataTypes,
    /// The top levels of the book being written (reused).
    top_bids: Vec<Level>,
    top_asks: Vec<Level>,
}

fn venue_time(ms: Option<i64>, local: i64) -> i64 {
    ms.and_then(micros).unwrap_or(local)
}

fn side_text(side: Side) -> &'static str {
    match side {
        Side::Buy => "buy",
        Side::Sell => "sell",
    }
}

/// The derived data types built from the book, with the index of their [`Market::emitted`].
const DERIVED: [(DataType, usize); 3] = [
    (DataType::BookSnapshot25, 0),
    (DataType::BookSnapshot5, 1),
    (DataType::Quotes, 2),
];

/// The markets by family and name.
#[derive(Default)]
struct Markets {
    spot: HashMap<String, Market>,
    swap: HashMap<String, Market>,
}

impl Markets {
    fn map(&mut self, family: Family) -> &mut HashMap<String, Market> {
        match family {
            Family::Spot => &mut self.spot,
            Family::Swap => &mut self.swap,
        }
    }

    /// The market, created on first use (the name is allocated once per market).
    fn get(&mut self, family: Family, name: &str) -> Option<&mut Market> {
        let map = self.map(family);
        if !map.contains_key(name) {
            map.insert(name.to_owned(), Market::new(family, name));
        }
        map.get_mut(name)
    }
}

impl Tardis {
    fn record(&mut self, local: i64, data: &Data, summary: &mut Summary) -> Result<(), Error> {
        match data {
            Data::SpotBook {
                symbol, bids, asks, ..
            } => self.book(Family::Spot, symbol, true, bids, asks, None, local, summary),
            Data::SwapBook {
                instrument,
                bids,
                asks,
                ..
            } => self.book(
                Family::Swap,
                instrument,
                true,
                bids,
                asks,
                None,
                local,
                summary,
            ),
            Data::SpotDepth {
                symbol,
                snapshot,
                bids,
                asks,
                ts,
            } => self.book(
                Family::Spot,
                symbol,
                *snapshot,
                bids,
                asks,
                *ts,
                local,
                summary,
            ),
            Data::SwapDepth {
                instrument,
                snapshot,
                bids,
                asks,
                ts,
            } => self.book(
                Family::Swap,
                instrument,
                *snapshot,
                bids,
                asks,
                *ts,
                local,
                summary,
            ),
            Data::SpotTrades { symbol, trades } => {
                self.trades(Family::Spot, symbol, trades, local, summary)
            }
            Data::SwapTrades { instrument, trades } => {
                self.trades(Family::Swap, instrument, trades, local, summary)
            }
            Data::SwapTicker { instrument, ticker } => {
                self.derivative(instrument, ticker.ts, local, |d| {
                    if ticker.last.is_some() {
                        d.last_price = ticker.last;
                    }
                })
            }
            Data::Funding {
                instrument,
                rate,
                next_time,
                next_rate,
                ..
            } => self.derivative(instrument, None, local, |d| {
                d.funding_rate = Some(*rate);
                d.funding_timestamp = micros(*next_time);
                if next_rate.is_some() {
                    d.predicted_funding_rate = *next_rate;
                }
            }),
            Data::Mark {
                instrument,
                mark,
                index,
            } => self.derivative(instrument, None, local, |d| {
                d.mark_price = Some(*mark);
                if index.is_some() {
                    d.index_price = *index;
                }
            }),
            Data::Index {
                instrument,
                index,
                ts,
            } => self.derivative(instrument, *ts, local, |d| d.index_price = Some(*index)),
            Data::Resync { market, .. } => {
                let m = match market {
                    MarketId::Spot(s) => self.markets.spot.get_mut(s),
                    MarketId::Swap(i) => self.markets.swap.get_mut(i),
                };
                if let Some(m) = m {
                    m.valid = false;
                }
                Ok(())
            }
            Data::Reconnect {
                family, markets, ..
            } => {
                for (name, m) in self.markets.map(*family) {
                    if markets.is_empty() || markets.contains(name) {
                        m.valid = false;
                    }
                }
                Ok(())
            }
            // Spot tickers: quotes come from the books. Kinds added later: skipped.
            _ => Ok(()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn book(
        &mut self,
        family: Family,
        name: &str,
        snapshot: bool,
        bids: &[Level],
        asks: &[Level],
        ts: Option<i64>,
        local: i64,
        summary: &mut Summary,
    ) -> Result<(), Error> {
        let Tardis {
            markets,
            spool,
            types,
            top_bids,
            top_asks,
        } = self;
        let day = day_of(local);
        let times = (venue_time(ts, local), local);
        let Some(m) = markets.get(family, name) else {
            return Ok(());
        };
        if !snapshot && !m.valid {
            summary.dropped_deltas += 1;
            return Ok(());
        }
        let l2 = types
            .contains(DataType::IncrementalBookL2)
            .then(|| m.file(spool, DataType::IncrementalBookL2, day));
        let has_snapshot = m.snapshot_day == Some(day);
        if snapshot {
            let new_bids: BTreeMap<Decimal, Decimal> =
                bids.iter().filter(|l| !l.1.is_zero()).copied().collect();
            let new_asks: BTreeMap<Decimal, Decimal> =
                asks.iter().filter(|l| !l.1.is_zero()).copied().collect();
            if let (Some(id), true) = (l2, has_snapshot) {
                // The difference from the book the file has built.
                for (side, old, new, best_first) in [
                    ("bid", &m.bids, &new_bids, true),
                    ("ask", &m.asks, &new_asks, false),
                ] {
                    for level in diff(old, new, best_first) {
                        spool.row(id, |out| l2_row(out, &m.prefix, times, false, side, level))?;
                    }
                }
            }
            m.bids = new_bids;
            m.asks = new_asks;
            m.valid = true;
        } else {
            for (side, levels) in [("bid", bids), ("ask", asks)] {
                let book = if side == "bid" {
                    &mut m.bids
                } else {
                    &mut m.asks
                };
                for &(p, q) in levels {
                    if q.is_zero() {
                        book.remove(&p);
                    } else {
                        book.insert(p, q);
                    }
                }
                if let (Some(id), true) = (l2, has_snapshot) {
                    for &level in levels {
                        spool.row(id, |out| l2_row(out, &m.prefix, times, false, side, level))?;
                    }
                }
            }
        }
        if let (Some(id), false) = (l2, has_snapshot) {
            // The file's snapshot: the whole book.
            let levels = m.bids.iter().rev().map(|(p, q)| ("bid", (*p, *q)));
            let levels = levels.chain(m.asks.iter().map(|(p, q)| ("ask", (*p, *q))));
            for (side, level) in levels {
                spool.row(id, |out| l2_row(out, &m.prefix, times, true, side, level))?;
            }
            if !m.bids.is_empty() || !m.asks.is_empty() {
                m.snapshot_day = Some(day);
            }
        }
        // The derived data types: a row when their top levels changed (or a new day).
        let Some(deepest) = DERIVED
            .iter()
            .filter(|(kind, _)| types.contains(*kind))
            .map(|(kind, _)| depth(*kind))
            .max()
        else {
            return Ok(());
        };
        top_bids.clear();
        top_bids.extend(m.bids.iter().rev().take(deepest).map(|(p, q)| (*p, *q)));
        top_asks.clear();
        top_asks.extend(m.asks.iter().take(deepest).map(|(p, q)| (*p, *q)));
        for (kind, slot) in DERIVED {
            if !types.contains(kind) {
                continue;
            }
            let n = depth(kind);
            let bids_now = top_bids.get(..n).unwrap_or(top_bids);
            let asks_now = top_asks.get(..n).unwrap_or(top_asks);
            let Some(last) = m.emitted.get(slot) else {
                continue;
            };
            if last.day == Some(day) && last.bids == bids_now && last.asks == asks_now {
                continue;
            }
            let id = m.file(spool, kind, day);
            spool.row(id, |out| {
                head(out, &m.prefix, times.0, times.1);
                if kind == DataType::Quotes {
                    let (ask, bid) = (asks_now.first(), bids_now.first());
                    out.push(',');
                    dec(out, ask.map(|l| l.1));
                    out.push(',');
                    dec(out, ask.map(|l| l.0));
                    out.push(',');
                    dec(out, bid.map(|l| l.0));
                    out.push(',');
                    dec(out, bid.map(|l| l.1));
                } else {
                    for i in 0..n {
                        level_cells(out, asks_now.get(i));
                        level_cells(out, bids_now.get(i));
                    }
                }
            })?;
            if let Some(last) = m.emitted.get_mut(slot) {
                last.day = Some(day);
                last.bids.clear();
                last.bids.extend_from_slice(bids_now);
                last.asks.clear();
                last.asks.extend_from_slice(asks_now);
            }
        }
        Ok(())
    }

    fn trades(
        &mut self,
        family: Family,
        name: &str,
        trades: &[Trade],
        local: i64,
        summary: &mut Summary,
    ) -> Result<(), Error> {
        if !self.types.contains(DataType::Trades) {
            return Ok(());
        }
        let day = day_of(local);
        let Some(m) = self.markets.get(family, name) else {
            return Ok(());
        };
        let id = m.file(&mut self.spool, DataType::Trades, day);
        // Oldest first (a polled list is newest first); the list's order among equal times.
        let mut sorted: Vec<&Trade>;
        let order: &mut dyn Iterator<Item = &Trade> =
            if trades.windows(2).all(|w| w[0].time_ms <= w[1].time_ms) {
                &mut trades.iter()
            } else {
                sorted = trades.iter().collect();
                sorted.sort_by_key(|t| t.time_ms);
                &mut sorted.into_iter()
            };
        for t in order {
            if !m.seen.fresh(&t.id) {
                summary.repeated_trades += 1;
                continue;
            }
            self.spool.row(id, |out| {
                head(out, &m.prefix, venue_time(Some(t.time_ms), local), local);
                out.push(',');
                field(out, &t.id);
                out.push(',');
                out.push_str(side_text(t.side));
                out.push(',');
                push_dec(out, t.price);
                out.push(',');
                push_dec(out, t.qty);
            })?;
        }
        Ok(())
    }

    fn derivative(
        &mut self,
        name: &str,
        ts: Option<i64>,
        local: i64,
        change: impl FnOnce(&mut Derivative),
    ) -> Result<(), Error> {
        if !self.types.contains(DataType::DerivativeTicker) {
            return Ok(());
        }
        let day = day_of(local);
        let Some(m) = self.markets.get(Family::Swap, name) else {
            return Ok(());
        };
        change(&mut m.derivative);
        if matches!(&m.derivative_last, Some((d, last)) if *d == day && *last == m.derivative) {
            return Ok(());
        }
        let id = m.file(&mut self.spool, DataType::DerivativeTicker, day);
        self.spool.row(id, |out| {
            head(out, &m.prefix, venue_time(ts, local), local);
            m.derivative.cells(out);
        })?;
        m.derivative_last = Some((day, m.derivative.clone()));
        Ok(())
    }
}

/// The levels that turn the side `old` into `new`: vanished levels with amount 0, new or
/// changed levels with their amount; best first.
fn diff(
    old: &BTreeMap<Decimal, Decimal>,
    new: &BTreeMap<Decimal, Decimal>,
    bids: bool,
) -> Vec<Level> {
    let mut changes: Vec<Level> = old
        .keys()
        .filter(|p| !new.contains_key(*p))
        .map(|p| (*p, Decimal::ZERO))
        .chain(
            new.iter()
                .filter(|(p, q)| old.get(*p) != Some(*q))
                .map(|(p, q)| (*p, *q)),
        )
        .collect();
    changes.sort_by(|a, b| if bids { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) });
    changes
}

/// Exports the recording at `input` into `out_dir` (created if missing) in Tardis.dev's CSV
/// layout (see the module docs), the data types of [`Options::data_types`].
/// [`Summary::tables`] lists the files written (name, rows without the header, path), sorted
/// by name; what was skipped is counted as in [`crate::export`], and records whose market
/// name cannot be a file name are skipped ([`Summary::bad_names`]).
pub fn export(input: &Path, out_dir: &Path, opts: &Options) -> Result<Summary, Error> {
    // Check that the file is a recording before creating anything.
    drop(Reader::open(input)?);
    std::fs::create_dir_all(out_dir).map_err(|source| Error::Write {
        path: out_dir.to_owned(),
        source,
    })?;
    let mut state = Tardis {
        markets: Markets::default(),
        spool: Spool {
            dir: out_dir.to_owned(),
            budget: opts.buffer_bytes.max(1),
            buffered: 0,
            files: Vec::new(),
            ids: HashMap::new(),
        },
        types: opts.data_types,
        top_bids: Vec::new(),
        top_asks: Vec::new(),
    };
    let mut summary = Summary::default();
    let mut failure: Option<Error> = None;
    read_records(input, &mut summary, &mut |local, seq, r, summary| {
        if failure.is_some() {
            return;
        }
        if bad_name(seq, &r.data, summary) {
            return;
        }
        summary.records += 1;
        if let Err(e) = state.record(local, &r.data, summary) {
            failure = Some(e);
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    summary.tables = state.spool.finish()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_tardis_columns() {
        assert_eq!(
            DataType::Quotes.header(),
            "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
        );
        let h = DataType::BookSnapshot5.header();
        assert!(h.starts_with(
            "exchange,symbol,timestamp,local_timestamp,asks[0].price,asks[0].amount,\
             bids[0].price,bids[0].amount,asks[1].price,"
        ));
        assert!(h.ends_with(",bids[4].price,bids[4].amount\n"));
        assert_eq!(h.split(',').count(), 4 + 5 * 4);
        assert_eq!(
            DataType::BookSnapshot25.header().split(',').count(),
            4 + 25 * 4
        );
    }

    #[test]
    fn fields_with_commas_are_quoted() {
        let mut s = String::new();
        field(&mut s, "a,\"b\"");
        assert_eq!(s, "\"a,\"\"b\"\"\"");
        let mut s = String::new();
        field(&mut s, "123");
        assert_eq!(s, "123");
        assert_eq!(date(19_754), "2024-02-01");
        assert_eq!(day_of(-1), -1);
    }
}
