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

use crate::{bad_name, micros, plain, read_records, Error, Seen, Summary, TableSummary};
use digifinex_market::time::date_text as date;
use digifinex_market::{Data, Family, Level, MarketId, Reader, Side, Trade};
use flate2::write::GzEncoder;
use flate2::Compression;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            buffer_bytes: BUFFER_BYTES,
        }
    }
}

/// A Tardis data type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Trades,
    Book,
    Snapshot25,
    Snapshot5,
    Quotes,
    Derivative,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Trades => "trades",
            Kind::Book => "incremental_book_L2",
            Kind::Snapshot25 => "book_snapshot_25",
            Kind::Snapshot5 => "book_snapshot_5",
            Kind::Quotes => "quotes",
            Kind::Derivative => "derivative_ticker",
        }
    }

    fn header(self) -> String {
        let mut h = String::from("exchange,symbol,timestamp,local_timestamp");
        match self {
            Kind::Trades => h.push_str(",id,side,price,amount"),
            Kind::Book => h.push_str(",is_snapshot,side,price,amount"),
            Kind::Snapshot25 | Kind::Snapshot5 => {
                for i in 0..depth(self) {
                    let _ = write!(
                        h,
                        ",asks[{i}].price,asks[{i}].amount,bids[{i}].price,bids[{i}].amount"
                    );
                }
            }
            Kind::Quotes => h.push_str(",ask_amount,ask_price,bid_price,bid_amount"),
            Kind::Derivative => h.push_str(
                ",funding_timestamp,funding_rate,predicted_funding_rate,open_interest,\
                 last_price,index_price,mark_price",
            ),
        }
        h.push('\n');
        h
    }
}

fn depth(kind: Kind) -> usize {
    match kind {
        Kind::Snapshot25 => 25,
        Kind::Snapshot5 => 5,
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
        out.push_str(&plain(d));
    }
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
    fn cells(&self) -> String {
        let mut s = String::new();
        s.push(',');
        if let Some(t) = self.funding_timestamp {
            let _ = write!(s, "{t}");
        }
        s.push(',');
        dec(&mut s, self.funding_rate);
        s.push(',');
        dec(&mut s, self.predicted_funding_rate);
        // open_interest: not recorded.
        s.push_str(",,");
        dec(&mut s, self.last_price);
        s.push(',');
        dec(&mut s, self.index_price);
        s.push(',');
        dec(&mut s, self.mark_price);
        s
    }
}

/// One market's state.
#[derive(Debug)]
struct Market {
    exchange: &'static str,
    symbol: String,
    bids: BTreeMap<Decimal, Decimal>,
    asks: BTreeMap<Decimal, Decimal>,
    /// Whether the book is valid (a snapshot since the start or the last marker).
    valid: bool,
    /// The day whose `incremental_book_L2` file has its snapshot.
    snapshot_day: Option<i64>,
    /// The last row of each derived data type: its day and cells.
    last: HashMap<Kind, (i64, String)>,
    seen: Seen,
    derivative: Derivative,
}

impl Market {
    fn new(family: Family, name: &str) -> Market {
        Market {
            exchange: match family {
                Family::Spot => EXCHANGE_SPOT,
                Family::Swap => EXCHANGE_SWAP,
            },
            symbol: name.to_ascii_uppercase(),
            bids: BTreeMap::new(),
            asks: BTreeMap::new(),
            valid: false,
            snapshot_day: None,
            last: HashMap::new(),
            seen: Seen::default(),
            derivative: Derivative::default(),
        }
    }

    fn file(&self, kind: Kind, day: i64) -> String {
        format!(
            "{}_{}_{}_{}.csv.gz",
            self.exchange,
            kind.name(),
            date(day),
            self.symbol
        )
    }

    fn head(&self, timestamp: i64, local: i64) -> String {
        format!("{},{},{timestamp},{local}", self.exchange, self.symbol)
    }

    /// Bids best first, then asks best first.
    fn levels(&self) -> impl Iterator<Item = (&'static str, Decimal, Decimal)> + '_ {
        let bids = self.bids.iter().rev().map(|(p, q)| ("bid", *p, *q));
        let asks = self.asks.iter().map(|(p, q)| ("ask", *p, *q));
        bids.chain(asks)
    }

    /// The cells of a derived data type after `exchange,symbol,timestamp,local_timestamp`.
    fn derived(&self, kind: Kind) -> String {
        let mut s = String::new();
        let mut bids = self.bids.iter().rev();
        let mut asks = self.asks.iter();
        if kind == Kind::Quotes {
            let ask = asks.next();
            let bid = bids.next();
            s.push(',');
            dec(&mut s, ask.map(|l| *l.1));
            s.push(',');
            dec(&mut s, ask.map(|l| *l.0));
            s.push(',');
            dec(&mut s, bid.map(|l| *l.0));
            s.push(',');
            dec(&mut s, bid.map(|l| *l.1));
            return s;
        }
        for _ in 0..depth(kind) {
            for level in [asks.next(), bids.next()] {
                s.push(',');
                dec(&mut s, level.map(|l| *l.0));
                s.push(',');
                dec(&mut s, level.map(|l| *l.1));
            }
        }
        s
    }
}

/// Files being written: rows buffered in memory, compressed into gzip members when the
/// buffers are full and at the end.
struct Spool {
    dir: PathBuf,
    budget: usize,
    buffered: usize,
    files: BTreeMap<String, Spooled>,
}

#[derive(Default)]
struct Spooled {
    buf: Vec<u8>,
    /// Whether the temporary file exists (members are appended to it).
    started: bool,
    rows: u64,
}

fn temporary(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.part"))
}

impl Spool {
    fn line(
        &mut self,
        name: String,
        header: impl FnOnce() -> String,
        line: &str,
    ) -> Result<(), Error> {
        let f = self.files.entry(name).or_default();
        if f.rows == 0 && !f.started {
            let h = header();
            f.buf.extend_from_slice(h.as_bytes());
            self.buffered += h.len();
        }
        f.buf.extend_from_slice(line.as_bytes());
        f.buf.push(b'\n');
        f.rows += 1;
        self.buffered += line.len() + 1;
        if self.buffered > self.budget {
            // The largest buffers first, until half the budget is free.
            let mut sizes: Vec<(usize, String)> = self
                .files
                .iter()
                .filter(|(_, f)| !f.buf.is_empty())
                .map(|(n, f)| (f.buf.len(), n.clone()))
                .collect();
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            for (_, name) in sizes {
                if self.buffered <= self.budget / 2 {
                    break;
                }
                self.flush(&name)?;
            }
        }
        Ok(())
    }

    /// Compresses `name`'s buffer as one gzip member appended to its temporary file.
    fn flush(&mut self, name: &str) -> Result<(), Error> {
        let Some(f) = self.files.get_mut(name) else {
            return Ok(());
        };
        if f.buf.is_empty() {
            return Ok(());
        }
        let path = temporary(&self.dir, name);
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
        gz.write_all(&f.buf).map_err(io_error)?;
        gz.finish().and_then(|mut w| w.flush()).map_err(io_error)?;
        f.started = true;
        self.buffered = self.buffered.saturating_sub(f.buf.len());
        f.buf = Vec::new();
        Ok(())
    }

    /// Writes every buffer and renames each file to its name.
    fn finish(mut self) -> Result<Vec<TableSummary>, Error> {
        let names: Vec<String> = self.files.keys().cloned().collect();
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            self.flush(&name)?;
            let path = self.dir.join(&name);
            std::fs::rename(temporary(&self.dir, &name), &path).map_err(|source| Error::Write {
                path: path.clone(),
                source,
            })?;
            let rows = self.files.get(&name).map_or(0, |f| f.rows);
            out.push(TableSummary { name, rows, path });
        }
        self.files.clear();
        Ok(out)
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        // An export that failed: no temporary file stays behind.
        for (name, f) in &self.files {
            if f.started {
                let _ = std::fs::remove_file(temporary(&self.dir, name));
            }
        }
    }
}

/// The export's state.
struct Tardis {
    markets: HashMap<(Family, String), Market>,
    spool: Spool,
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

impl Tardis {
    fn market<'a>(
        markets: &'a mut HashMap<(Family, String), Market>,
        family: Family,
        name: &str,
    ) -> &'a mut Market {
        markets
            .entry((family, name.to_owned()))
            .or_insert_with(|| Market::new(family, name))
    }

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
                let key = match market {
                    MarketId::Spot(s) => (Family::Spot, s.clone()),
                    MarketId::Swap(i) => (Family::Swap, i.clone()),
                };
                if let Some(m) = self.markets.get_mut(&key) {
                    m.valid = false;
                }
                Ok(())
            }
            Data::Reconnect {
                family, markets, ..
            } => {
                for ((f, name), m) in &mut self.markets {
                    if f == family && (markets.is_empty() || markets.contains(name)) {
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
        let day = day_of(local);
        let timestamp = venue_time(ts, local);
        let m = Self::market(&mut self.markets, family, name);
        let head = m.head(timestamp, local);
        let file = m.file(Kind::Book, day);
        let mut rows: Vec<String> = Vec::new();
        let has_snapshot = m.snapshot_day == Some(day);
        if snapshot {
            let new_bids: BTreeMap<Decimal, Decimal> =
                bids.iter().filter(|l| !l.1.is_zero()).copied().collect();
            let new_asks: BTreeMap<Decimal, Decimal> =
                asks.iter().filter(|l| !l.1.is_zero()).copied().collect();
            if has_snapshot {
                // The difference from the book the file has built.
                diff(&head, "bid", &m.bids, &new_bids, true, &mut rows);
                diff(&head, "ask", &m.asks, &new_asks, false, &mut rows);
            }
            m.bids = new_bids;
            m.asks = new_asks;
            m.valid = true;
        } else {
            if !m.valid {
                summary.dropped_deltas += 1;
                return Ok(());
            }
            for (side, book, levels) in [("bid", &mut m.bids, bids), ("ask", &mut m.asks, asks)] {
                for (p, q) in levels {
                    if q.is_zero() {
                        book.remove(p);
                    } else {
                        book.insert(*p, *q);
                    }
                    if has_snapshot {
                        rows.push(format!("{head},false,{side},{},{}", plain(*p), plain(*q)));
                    }
                }
            }
        }
        if !has_snapshot {
            // The file's snapshot: the whole book.
            for (side, p, q) in m.levels() {
                rows.push(format!("{head},true,{side},{},{}", plain(p), plain(q)));
            }
            if !rows.is_empty() {
                m.snapshot_day = Some(day);
            }
        }
        let mut derived = Vec::new();
        for kind in [Kind::Snapshot25, Kind::Snapshot5, Kind::Quotes] {
            let cells = m.derived(kind);
            if m.last.get(&kind) != Some(&(day, cells.clone())) {
                derived.push((m.file(kind, day), kind, format!("{head}{cells}")));
                m.last.insert(kind, (day, cells));
            }
        }
        for row in rows {
            self.spool
                .line(file.clone(), || Kind::Book.header(), &row)?;
        }
        for (file, kind, row) in derived {
            self.spool.line(file, || kind.header(), &row)?;
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
        let day = day_of(local);
        let m = Self::market(&mut self.markets, family, name);
        let file = m.file(Kind::Trades, day);
        // Oldest first (a polled list is newest first); the list's order among equal times.
        let mut order: Vec<&Trade> = trades.iter().collect();
        order.sort_by_key(|t| t.time_ms);
        let mut rows = Vec::new();
        for t in order {
            if !m.seen.fresh(&t.id) {
                summary.repeated_trades += 1;
                continue;
            }
            let mut row = m.head(venue_time(Some(t.time_ms), local), local);
            row.push(',');
            field(&mut row, &t.id);
            let _ = write!(
                row,
                ",{},{},{}",
                side_text(t.side),
                plain(t.price),
                plain(t.qty)
            );
            rows.push(row);
        }
        for row in rows {
            self.spool
                .line(file.clone(), || Kind::Trades.header(), &row)?;
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
        let day = day_of(local);
        let m = Self::market(&mut self.markets, Family::Swap, name);
        change(&mut m.derivative);
        let cells = m.derivative.cells();
        if m.last.get(&Kind::Derivative) == Some(&(day, cells.clone())) {
            return Ok(());
        }
        let row = format!("{}{cells}", m.head(venue_time(ts, local), local));
        let file = m.file(Kind::Derivative, day);
        m.last.insert(Kind::Derivative, (day, cells));
        self.spool.line(file, || Kind::Derivative.header(), &row)
    }
}

/// The rows that turn the side `old` into `new`: vanished levels with amount 0, new or
/// changed levels with their amount; best first.
fn diff(
    head: &str,
    side: &str,
    old: &BTreeMap<Decimal, Decimal>,
    new: &BTreeMap<Decimal, Decimal>,
    bids: bool,
    rows: &mut Vec<String>,
) {
    let mut changes: Vec<(Decimal, Decimal)> = old
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
    for (p, q) in changes {
        rows.push(format!("{head},false,{side},{},{}", plain(p), plain(q)));
    }
}

/// Exports the recording at `input` into `out_dir` (created if missing) in Tardis.dev's CSV
/// layout (see the module docs). [`Summary::tables`] lists the files written (name, rows
/// without the header, path), sorted by name; what was skipped is counted as in
/// [`crate::export`], and records whose market name cannot be a file name are skipped
/// ([`Summary::bad_names`]).
pub fn export(input: &Path, out_dir: &Path, opts: &Options) -> Result<Summary, Error> {
    // Check that the file is a recording before creating anything.
    drop(Reader::open(input)?);
    std::fs::create_dir_all(out_dir).map_err(|source| Error::Write {
        path: out_dir.to_owned(),
        source,
    })?;
    let mut state = Tardis {
        markets: HashMap::new(),
        spool: Spool {
            dir: out_dir.to_owned(),
            budget: opts.buffer_bytes.max(1),
            buffered: 0,
            files: BTreeMap::new(),
        },
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
            Kind::Quotes.header(),
            "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
        );
        let h = Kind::Snapshot5.header();
        assert!(h.starts_with(
            "exchange,symbol,timestamp,local_timestamp,asks[0].price,asks[0].amount,\
             bids[0].price,bids[0].amount,asks[1].price,"
        ));
        assert!(h.ends_with(",bids[4].price,bids[4].amount\n"));
        assert_eq!(h.split(',').count(), 4 + 5 * 4);
        assert_eq!(Kind::Snapshot25.header().split(',').count(), 4 + 25 * 4);
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
