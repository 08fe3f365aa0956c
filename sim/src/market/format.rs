//! The recording format: public market data observed on the venue, one JSON record per line,
//! gzip-compressed. `digifinex record` writes it with [`Writer`]; the simulator replays it
//! ([`crate::market`]) after reading it with [`Reader`].
//!
//! # Format `digifinex-market`, versions 1 and 2
//!
//! **File.** A gzip file of one or more concatenated gzip members (RFC 1952 allows it; `zcat`
//! reads it whole). The decompressed text is UTF-8, one JSON object per line, each line ended by
//! `\n`. A member never ends inside a line. Appending to a recording adds members, so a file
//! grows by appending and two recordings concatenated (`cat a.gz b.gz`) are one recording.
//!
//! **Header.** The first line of the file is a header, an object with a `format` field; a member
//! may start with a header again (the writer writes one per session), which a reader checks like
//! the first and otherwise ignores:
//!
//! ```json
//! {"format":"digifinex-market","version":2,"created_ms":1706763540000,"source":"...",
//!  "spot":[{"symbol":"icp_usdt","price_precision":3,"amount_precision":2,
//!           "min_amount":"0.01","min_value":"2"}],
//!  "swap":[{"instrument_id":"ICPUSDTPERP","base":"ICP","quote":"USDT","contract_value":"1",
//!           "price_precision":3,"tick_size":"0.001","min_order_amount":"1",
//!           "funding_interval_hours":8}]}
//! ```
//!
//! `format` is `digifinex-market`; `version` is [`VERSION`] (a reader refuses a higher version:
//! a new version is written only when an old reader would misread a file; new optional fields
//! do not need one, readers skip what they do not know). `created_ms`
//! (when the session started) and `source` (free text: where the data came from) are optional.
//! `spot` and `swap` optionally describe the recorded pairs and instruments (as the venue's
//! `/v3/spot/symbols` and `/swap/v2/public/instrument` give them), so that a simulator that
//! does not know a pair can still list and trade it.
//!
//! **Versions.** Version 1 is what the REST poller writes: book snapshots, polled trades,
//! tickers, funding, mark. Version 2 adds what a websocket recording needs: depth frames as
//! received (snapshots *and deltas*), index pushes, tick fields of tickers, and markers where
//! the recorder's book was rebuilt (`resync`) or a socket was replaced (`reconnect`).
//! DESIGN: a version 1 reader would skip the delta kinds as unknown and replay a book frozen
//! at its last snapshot, a silent misreading, so these kinds need the new version. This
//! module writes version 2 headers (a [`Writer`] given a version 1 header refuses the version 2
//! kinds) and reads both.
//!
//! **Records.** Every other line is one observation:
//!
//! | field | meaning |
//! |---|---|
//! | `t` | receive time: when the recorder got the answer or frame, ms since the Unix epoch on the recorder's clock (integer) |
//! | `kind` | one of the kinds below |
//!
//! plus the fields of its kind. Prices, quantities and rates are **decimal strings** in the
//! grammar of [`crate::num::parse_dec`] (`"11.357"`, `"1e-07"`), never JSON numbers (which
//! readers would see through binary floating point). Book levels are `[price, quantity]` pairs;
//! in `spot_book` and `swap_book` **best first** on both sides. Trades carry the venue's trade
//! id (a string) and the trade time in ms (the spot venue reports seconds: the recorder writes
//! seconds × 1000); `side` is the taker's side, `buy` or `sell` (spot `type`; swap `direction`
//! 1 and 4 buy, 2 and 3 sell, the venue's code kept in the optional `direction`). Polled
//! recent-trade lists overlap, and a websocket sends the recent list again after each
//! subscription: a reader takes the lines as written and the replay drops a trade id it has
//! already seen. Several records may share a receive time: their order is the file's.
//!
//! | `kind` | since | fields |
//! |---|---|---|
//! | `spot_book` | 1 | `symbol` (`icp_usdt`), optional `depth` (levels asked for), `bids`, `asks` |
//! | `spot_trades` | 1 | `symbol`, `trades`: list of `{id, time, price, qty, side}` (qty in base) |
//! | `spot_ticker` | 1 | `symbol` and, each optional: `last`, `bid`, `ask`, `high`, `low`, `open`, `volume` (base, the venue's `vol`), `quote_volume` (the venue's `base_vol`), `change` (24 h, in percent as the venue writes it); since 2: `bid_size`, `ask_size`, `last_qty`, `ts` (the venue's time, ms) |
//! | `swap_book` | 1 | `instrument` (`BTCUSDTPERP`), optional `depth`, `bids`, `asks` (contracts) |
//! | `swap_trades` | 1 | `instrument`, `trades`: list of `{id, time, price, qty, side, direction?}` (qty in contracts) |
//! | `swap_ticker` | 1 | `instrument` and the optional ticker fields above (`volume` in contracts, `change` a fraction as the venue writes `price_change_percent`) |
//! | `funding` | 1 | `instrument`, `rate` (settled at `next_time`), `next_time` (ms), optional `next_rate` (forecast for the settlement after) and `last_rate` (last settled) |
//! | `mark` | 1 | `instrument`, `mark` (mark price), optional `index` (index price) |
//! | `spot_depth` | 2 | `symbol`, `snapshot` (`true`: the whole book, replacing it; `false`: a delta), `bids`, `asks` (levels as the frame sent them, in its order; in a delta a quantity `"0"` deletes the level, any other quantity is the level's new size), optional `ts` (the venue's time of the frame, ms) |
//! | `swap_depth` | 2 | `instrument` and the fields of `spot_depth` (quantities in contracts) |
//! | `index` | 2 | `instrument`, `index` (index price), optional `ts` |
//! | `resync` | 2 | `symbol` or `instrument` (exactly one), `reason` (`delta_before_snapshot`, `crossed`, `stale`, `reconnect`, `refused`, or other text): the recorder's book of that market was invalid here; its deltas up to its next `*_depth` snapshot must not be applied |
//! | `reconnect` | 2 | `family` (`spot` or `swap`), optional `socket` (the recorder's number of the socket when markets are sharded over several), `lost` (local ms when the loss was noticed), `reason` (text), `markets` (the symbols or instruments the socket carried; absent: every market of the family): data between `lost` and `t` may be missing, and every book on the socket waits for its next snapshot |
//!
//! A websocket recorder writes each depth frame, trade push, ticker, index, mark and funding
//! push as one record with the frame's receive time: ticker pushes as `*_ticker` (the 24-hour
//! fields mapped as above), mark pushes as `mark` without `index`, funding pushes as `funding`
//! (`funding_rate` → `rate`, `funding_time` → `next_time`, `next_funding_rate` →
//! `next_rate`), trade pushes as `*_trades` with the trades of the frame.
//!
//! Example lines:
//!
//! ```json
//! {"t":1706763541000,"kind":"spot_book","symbol":"icp_usdt","depth":5,"bids":[["11.356","120.5"]],"asks":[["11.358","80"]]}
//! {"t":1706763541020,"kind":"spot_trades","symbol":"icp_usdt","trades":[{"id":"9001","time":1706763540000,"price":"11.357","qty":"0.5","side":"buy"}]}
//! {"t":1706763541050,"kind":"funding","instrument":"ICPUSDTPERP","rate":"0.0001","next_time":1706774400000}
//! {"t":1706763542000,"kind":"spot_depth","symbol":"btc_usdt","snapshot":true,"bids":[["100.5","2"],["100.4","1"]],"asks":[["100.6","3"]]}
//! {"t":1706763542001,"kind":"spot_depth","symbol":"btc_usdt","snapshot":false,"bids":[["100.4","0"]],"asks":[]}
//! {"t":1706763542002,"kind":"swap_depth","instrument":"BTCUSDTPERP","snapshot":false,"bids":[],"asks":[["100.7","12"]],"ts":1706763542000}
//! {"t":1706763542003,"kind":"index","instrument":"BTCUSDTPERP","index":"100.55","ts":1706763542001}
//! {"t":1706763542004,"kind":"swap_ticker","instrument":"BTCUSDTPERP","bid":"100.5","bid_size":"7","last_qty":"1","ts":1706763542003}
//! {"t":1706763542005,"kind":"resync","symbol":"btc_usdt","reason":"crossed"}
//! {"t":1706763542006,"kind":"reconnect","family":"swap","socket":1,"lost":1706763541990,"reason":"connection lost: reset","markets":["BTCUSDTPERP"]}
//! ```
//!
//! [`Writer::write`] writes any record; [`Writer::write_depth`], [`Writer::write_index`],
//! [`Writer::write_resync`] and [`Writer::write_reconnect`] write the version 2 kinds.
//!
//! **Crashes.** The writer flushes the compressor after every record (a sync flush), so a
//! record is on disk once [`Writer::write`] returns. A crash can leave the last member
//! unfinished (no gzip trailer) and its last line cut: [`Reader`] reads every complete line
//! before that point and stops there without error ([`Reader::truncated`] says so);
//! [`Writer::append`] repairs such a file before appending (the complete lines of the unfinished
//! member are written again as a finished member, the rest cut off; [`Writer::repair`] says
//! what was done), in one pass that inflates each member once. So a recording cut at any
//! byte and appended to reads up to the cut and then the new records. A file that is not gzip,
//! or whose first line is not a header, is refused and left as it is.
//!
//! **Hostile or damaged files.** Reading is held to [`Limits`]: decompressed bytes (64 GiB),
//! lines that give no record (blank, bad, overlong, unknown kinds, repeated headers: a million
//! beyond the records read, and 256 MiB of them beyond the records' bytes) and records per
//! receive time (10,000; the lines after them with that time are skipped without being
//! parsed). Past a cap, reading stops with [`ReadError::Limit`] naming it; the repair of
//! [`Writer::append`] holds to the same caps. The first line's error says what a file that is
//! not a recording is: empty, not gzip (plain JSON lines, text, other bytes), gzip damaged at
//! byte N or cut before its header line ended, or gzip of something else.
//! DESIGN: the caps bound the work a small file can cause (a few MB of gzip inflate to GBs) to
//! about a second of reading in a debug build, and stop a file that is mostly not records,
//! while a real recording (records with at most a few per instant) never meets them before
//! 64 GiB.
//!
//! **Order.** Lines are in the order they were written, which is receive-time order for one
//! recorder; the replay orders events by time itself (see [`crate::market`]).

use crate::book::Side;
use crate::json::{fmt_dec, J};
use crate::num::parse_dec;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use rust_decimal::Decimal;
use serde::Deserialize;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The `format` name of the header line.
pub const FORMAT: &str = "digifinex-market";

/// The format version this module writes and the highest it reads (it reads every version
/// from 1 up).
pub const VERSION: u32 = 2;

/// The version that introduced the websocket kinds (`spot_depth`, `swap_depth`, `index`,
/// `resync`, `reconnect`): a writer whose header names an older version refuses them.
pub const WS_VERSION: u32 = 2;

/// Longest line a reader takes (1 MiB): a longer one is skipped, whole, with a
/// [`ReadError::Line`] naming it, without being held in memory. The longest lines the
/// recorder writes (a 150-level book, 500 trades) are about 50 KB.
pub const MAX_LINE: usize = 1 << 20;

/// Records per gzip member before the writer starts a new member (so a crash can only cost
/// the repair of one member's worth of lines; see the module docs).
pub const MEMBER_RECORDS: usize = 1000;

/// Default [`Limits::inflated_bytes`]: 64 GiB of decompressed text.
pub const MAX_INFLATED: u64 = 64 << 30;

/// Default [`Limits::skipped_lines`]: 1,000,000 lines.
pub const MAX_SKIPPED_LINES: u64 = 1_000_000;

/// Default [`Limits::skipped_bytes`]: 256 MiB.
pub const MAX_SKIPPED_BYTES: u64 = 256 << 20;

/// Default [`Limits::per_instant`]: 10,000 records (the replay's batch cap,
/// `crate::market::MAX_BATCH`).
pub const MAX_PER_INSTANT: u64 = 10_000;

/// Caps on the work a recording can cause, for [`Reader`] ([`Reader::with_limits`]) and for
/// the repair of [`Writer::append`]: past one, reading stops with [`ReadError::Limit`] (the
/// repair with an `InvalidData` error) naming it.
///
/// A line *skipped* is one that gives no record: blank, not valid, longer than [`MAX_LINE`],
/// of an unknown kind, a repeated header, or a record past the per-instant cap. Skipped lines
/// and their bytes are counted against an allowance *beyond* the records read: a recording
/// mostly of records may skip as much as it reads, a file that is mostly something else
/// stops after the allowance. DESIGN: a fixed cap alone would refuse a long recording of a
/// newer version (its new kinds are skipped, not errors); an allowance alone would let a file
/// of nothing but blank lines run for as long as it inflates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Decompressed bytes read at most ([`MAX_INFLATED`]).
    pub inflated_bytes: u64,
    /// Lines skipped at most beyond the records read ([`MAX_SKIPPED_LINES`]).
    pub skipped_lines: u64,
    /// Bytes of skipped lines at most beyond the bytes of the records read
    /// ([`MAX_SKIPPED_BYTES`]); an overlong line stops being read when it passes this.
    pub skipped_bytes: u64,
    /// Records with the same receive time read at most ([`MAX_PER_INSTANT`]): the lines that
    /// follow with that time are skipped unparsed ([`Reader::over_instant`]), counted as
    /// skipped lines.
    pub per_instant: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            inflated_bytes: MAX_INFLATED,
            skipped_lines: MAX_SKIPPED_LINES,
            skipped_bytes: MAX_SKIPPED_BYTES,
            per_instant: MAX_PER_INSTANT,
        }
    }
}

/// Which cap of [`Limits`] stopped reading, with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// [`Limits::inflated_bytes`].
    InflatedBytes(u64),
    /// [`Limits::skipped_lines`].
    SkippedLines(u64),
    /// [`Limits::skipped_bytes`].
    SkippedBytes(u64),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::InflatedBytes(n) => write!(
                f,
                "the cap on inflated bytes ({n} bytes of text, Limits::inflated_bytes)"
            ),
            Limit::SkippedLines(n) => write!(
                f,
                "the cap on skipped lines ({n} lines that are not records beyond the records \
                 read, Limits::skipped_lines)"
            ),
            Limit::SkippedBytes(n) => write!(
                f,
                "the cap on skipped bytes ({n} bytes of lines that are not records beyond the \
                 records' bytes, Limits::skipped_bytes)"
            ),
        }
    }
}

/// A spot pair as the header describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SpotPairInfo {
    /// Pair, lower case (`icp_usdt`).
    pub symbol: String,
    /// Decimal places of prices.
    pub price_precision: u32,
    /// Decimal places of base amounts.
    pub amount_precision: u32,
    /// Minimum base amount of an order.
    pub min_amount: Decimal,
    /// Minimum order value in the quote currency.
    pub min_value: Decimal,
}

/// A swap instrument as the header describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SwapInstrumentInfo {
    /// Id (`ICPUSDTPERP`).
    pub instrument_id: String,
    /// Base currency.
    pub base: String,
    /// Quote and settlement currency.
    pub quote: String,
    /// Base amount of one contract.
    pub contract_value: Decimal,
    /// Decimal places of prices.
    pub price_precision: u32,
    /// Price step.
    pub tick_size: Decimal,
    /// Minimum order size in contracts.
    pub min_order_amount: Decimal,
    /// Hours between funding settlements.
    pub funding_interval_hours: u32,
}

/// The header line.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Format version ([`VERSION`] when written by this module).
    pub version: u32,
    /// When the recording session started (ms).
    pub created_ms: Option<i64>,
    /// Where the data came from (free text).
    pub source: Option<String>,
    /// The recorded spot pairs, when described.
    pub spot: Vec<SpotPairInfo>,
    /// The recorded swap instruments, when described.
    pub swap: Vec<SwapInstrumentInfo>,
}

impl Default for Header {
    fn default() -> Self {
        Header {
            version: VERSION,
            created_ms: None,
            source: None,
            spot: Vec::new(),
            swap: Vec::new(),
        }
    }
}

/// One price level: price and quantity.
pub type Level = (Decimal, Decimal);

/// One public trade.
#[derive(Debug, Clone, PartialEq)]
pub struct Trade {
    /// The venue's trade id.
    pub id: String,
    /// Trade time (ms).
    pub time_ms: i64,
    /// Price.
    pub price: Decimal,
    /// Quantity (spot: base; swap: contracts).
    pub qty: Decimal,
    /// Taker side.
    pub side: Side,
    /// Swap `direction` code (1-4) as the venue reported it.
    pub direction: Option<i64>,
}

/// A ticker's figures, each optional (see the module docs for units).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ticker {
    /// Last trade price.
    pub last: Option<Decimal>,
    /// Best bid.
    pub bid: Option<Decimal>,
    /// Best ask.
    pub ask: Option<Decimal>,
    /// 24-hour high.
    pub high: Option<Decimal>,
    /// 24-hour low.
    pub low: Option<Decimal>,
    /// 24-hour open.
    pub open: Option<Decimal>,
    /// 24-hour volume (spot base; swap contracts).
    pub volume: Option<Decimal>,
    /// 24-hour quote turnover.
    pub quote_volume: Option<Decimal>,
    /// 24-hour change (spot percent; swap fraction).
    pub change: Option<Decimal>,
    /// Size at the best bid (version 2; websocket tickers).
    pub bid_size: Option<Decimal>,
    /// Size at the best ask (version 2).
    pub ask_size: Option<Decimal>,
    /// Size of the last trade (version 2).
    pub last_qty: Option<Decimal>,
    /// The venue's time of the ticker, ms (version 2; when the venue sends one).
    pub ts: Option<i64>,
}

/// A market by name: a spot pair or a swap instrument.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MarketId {
    /// A spot pair (`btc_usdt`).
    Spot(String),
    /// A swap instrument (`BTCUSDTPERP`).
    Swap(String),
}

/// Which websocket: spot (`/ws/v1/`) or swap (`/swap_ws/v2/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// The spot socket.
    Spot,
    /// The swap socket.
    Swap,
}

impl Family {
    /// `spot` or `swap`.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Spot => "spot",
            Family::Swap => "swap",
        }
    }
}

/// What a record observed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Data {
    /// A spot order book snapshot.
    SpotBook {
        /// Pair (`icp_usdt`).
        symbol: String,
        /// Levels asked for.
        depth: Option<u32>,
        /// Bids, best (highest) first.
        bids: Vec<Level>,
        /// Asks, best (lowest) first.
        asks: Vec<Level>,
    },
    /// Recent spot trades.
    SpotTrades {
        /// Pair.
        symbol: String,
        /// Trades as polled (may overlap earlier polls).
        trades: Vec<Trade>,
    },
    /// A spot ticker.
    SpotTicker {
        /// Pair.
        symbol: String,
        /// Figures.
        ticker: Ticker,
    },
    /// A swap order book snapshot.
    SwapBook {
        /// Instrument (`BTCUSDTPERP`).
        instrument: String,
        /// Levels asked for.
        depth: Option<u32>,
        /// Bids, best first.
        bids: Vec<Level>,
        /// Asks, best first.
        asks: Vec<Level>,
    },
    /// Recent swap trades.
    SwapTrades {
        /// Instrument.
        instrument: String,
        /// Trades as polled.
        trades: Vec<Trade>,
    },
    /// A swap ticker.
    SwapTicker {
        /// Instrument.
        instrument: String,
        /// Figures.
        ticker: Ticker,
    },
    /// Funding of a swap instrument.
    Funding {
        /// Instrument.
        instrument: String,
        /// Rate settled at `next_time`.
        rate: Decimal,
        /// Next settlement (ms).
        next_time: i64,
        /// Forecast for the settlement after.
        next_rate: Option<Decimal>,
        /// Last settled rate.
        last_rate: Option<Decimal>,
    },
    /// Mark and index price of a swap instrument.
    Mark {
        /// Instrument.
        instrument: String,
        /// Mark price.
        mark: Decimal,
        /// Index price.
        index: Option<Decimal>,
    },
    /// A spot depth frame as received from the websocket (version 2).
    SpotDepth {
        /// Pair (`icp_usdt`, lower case).
        symbol: String,
        /// A snapshot (the whole book, replacing it) or a delta (changed levels).
        snapshot: bool,
        /// Bid levels as sent (in a delta a size of 0 deletes the level).
        bids: Vec<Level>,
        /// Ask levels as sent.
        asks: Vec<Level>,
        /// The venue's time of the frame (ms), when it sends one.
        ts: Option<i64>,
    },
    /// A swap depth frame as received from the websocket (version 2; sizes in contracts).
    SwapDepth {
        /// Instrument (`BTCUSDTPERP`).
        instrument: String,
        /// A snapshot or a delta.
        snapshot: bool,
        /// Bid levels as sent.
        bids: Vec<Level>,
        /// Ask levels as sent.
        asks: Vec<Level>,
        /// The venue's time of the frame (ms).
        ts: Option<i64>,
    },
    /// An index price push of a swap instrument (version 2).
    Index {
        /// Instrument.
        instrument: String,
        /// Index price.
        index: Decimal,
        /// The venue's time (ms).
        ts: Option<i64>,
    },
    /// The recorder's book of a market was found invalid here (version 2): depth deltas that
    /// follow, up to the market's next depth snapshot, must not be applied.
    Resync {
        /// The market.
        market: MarketId,
        /// Why (`delta_before_snapshot`, `crossed`, `stale`, `reconnect`, `refused`, or other
        /// text).
        reason: String,
    },
    /// A websocket was lost and opened again (version 2): data between `lost` and `t` may be
    /// missing, and every book on that socket waits for its next snapshot.
    Reconnect {
        /// Which socket family.
        family: Family,
        /// The recorder's number of the socket (when it shards markets over several).
        socket: Option<u32>,
        /// When the loss was noticed (local ms).
        lost: Option<i64>,
        /// Why the socket ended (free text).
        reason: Option<String>,
        /// The markets on that socket (symbols or instruments); empty: every market of the
        /// family.
        markets: Vec<String>,
    },
}

impl Data {
    /// The record kind as written in the `kind` field.
    pub fn kind(&self) -> &'static str {
        match self {
            Data::SpotBook { .. } => "spot_book",
            Data::SpotTrades { .. } => "spot_trades",
            Data::SpotTicker { .. } => "spot_ticker",
            Data::SwapBook { .. } => "swap_book",
            Data::SwapTrades { .. } => "swap_trades",
            Data::SwapTicker { .. } => "swap_ticker",
            Data::Funding { .. } => "funding",
            Data::Mark { .. } => "mark",
            Data::SpotDepth { .. } => "spot_depth",
            Data::SwapDepth { .. } => "swap_depth",
            Data::Index { .. } => "index",
            Data::Resync { .. } => "resync",
            Data::Reconnect { .. } => "reconnect",
        }
    }

    /// The version of the format that introduced this kind.
    pub fn since_version(&self) -> u32 {
        match self {
            Data::SpotDepth { .. }
            | Data::SwapDepth { .. }
            | Data::Index { .. }
            | Data::Resync { .. }
            | Data::Reconnect { .. } => WS_VERSION,
            _ => 1,
        }
    }
}

/// One observation with its receive time.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Receive time (ms).
    pub t: i64,
    /// What was observed.
    pub data: Data,
}

/// A recording that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Reading the file failed.
    #[error("reading the recording: {0}")]
    Io(#[from] io::Error),
    /// The file does not start with a `digifinex-market` header.
    #[error("not a digifinex-market recording: {0}")]
    NotARecording(String),
    /// The header's version is newer than this reader.
    #[error("recording version {found} is newer than this reader (version {VERSION})")]
    Version {
        /// Version found.
        found: u32,
    },
    /// A line is not a valid record (the reader goes on with the next line).
    #[error("line {line}: {message}")]
    Line {
        /// Line number (1 = the first line of the file).
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The file is gzip, but its data is damaged before the header line ends.
    #[error("not a readable recording: damaged gzip at byte {at}: {message}")]
    Damaged {
        /// Offset in the file (compressed bytes) where decompressing failed.
        at: u64,
        /// The decompressor's words.
        message: String,
    },
    /// A cap of [`Limits`] was reached: reading stopped there (no further records).
    #[error(
        "line {line}: reading stopped at {limit}: the file is damaged or not a \
         digifinex-market recording"
    )]
    Limit {
        /// The line being read when the cap was reached.
        line: u64,
        /// Which cap.
        limit: Limit,
    },
}

// ---- writing ----

fn dec(d: Decimal) -> J {
    J::Str(fmt_dec(d))
}

fn levels_json(levels: &[Level]) -> J {
    J::Arr(
        levels
            .iter()
            .map(|(p, q)| J::Arr(vec![dec(*p), dec(*q)]))
            .collect(),
    )
}

fn side_text(side: Side) -> &'static str {
    match side {
        Side::Buy => "buy",
        Side::Sell => "sell",
    }
}

fn trades_json(trades: &[Trade]) -> J {
    J::Arr(
        trades
            .iter()
            .map(|t| {
                let j = J::obj()
                    .with("id", t.id.as_str())
                    .with("time", t.time_ms)
                    .with("price", dec(t.price))
                    .with("qty", dec(t.qty))
                    .with("side", side_text(t.side));
                match t.direction {
                    Some(d) => j.with("direction", d),
                    None => j,
                }
            })
            .collect(),
    )
}

fn ticker_json(mut j: J, t: &Ticker) -> J {
    for (name, v) in [
        ("last", t.last),
        ("bid", t.bid),
        ("ask", t.ask),
        ("high", t.high),
        ("low", t.low),
        ("open", t.open),
        ("volume", t.volume),
        ("quote_volume", t.quote_volume),
        ("change", t.change),
        ("bid_size", t.bid_size),
        ("ask_size", t.ask_size),
        ("last_qty", t.last_qty),
    ] {
        if let Some(v) = v {
            j = j.with(name, dec(v));
        }
    }
    match t.ts {
        Some(ts) => j.with("ts", ts),
        None => j,
    }
}

fn opt_i64(j: J, name: &'static str, v: Option<i64>) -> J {
    match v {
        Some(v) => j.with(name, v),
        None => j,
    }
}

fn opt_dec(j: J, name: &'static str, v: Option<Decimal>) -> J {
    match v {
        Some(v) => j.with(name, dec(v)),
        None => j,
    }
}

impl Header {
    /// The header line (without the newline).
    pub fn to_line(&self) -> String {
        let mut j = J::obj()
            .with("format", FORMAT)
            .with("version", self.version);
        if let Some(c) = self.created_ms {
            j = j.with("created_ms", c);
        }
        if let Some(s) = &self.source {
            j = j.with("source", s.as_str());
        }
        if !self.spot.is_empty() {
            let list = self
                .spot
                .iter()
                .map(|p| {
                    J::obj()
                        .with("symbol", p.symbol.as_str())
                        .with("price_precision", p.price_precision)
                        .with("amount_precision", p.amount_precision)
                        .with("min_amount", dec(p.min_amount))
                        .with("min_value", dec(p.min_value))
                })
                .collect::<Vec<_>>();
            j = j.with("spot", list);
        }
        if !self.swap.is_empty() {
            let list = self
                .swap
                .iter()
                .map(|s| {
                    J::obj()
                        .with("instrument_id", s.instrument_id.as_str())
                        .with("base", s.base.as_str())
                        .with("quote", s.quote.as_str())
                        .with("contract_value", dec(s.contract_value))
                        .with("price_precision", s.price_precision)
                        .with("tick_size", dec(s.tick_size))
                        .with("min_order_amount", dec(s.min_order_amount))
                        .with("funding_interval_hours", s.funding_interval_hours)
                })
                .collect::<Vec<_>>();
            j = j.with("swap", list);
        }
        j.to_json()
    }
}

impl Record {
    /// The record's line (without the newline).
    pub fn to_line(&self) -> String {
        let j = J::obj().with("t", self.t);
        let j = match &self.data {
            Data::SpotBook {
                symbol,
                depth,
                bids,
                asks,
            } => {
                let j = j.with("kind", "spot_book").with("symbol", symbol.as_str());
                let j = match depth {
                    Some(d) => j.with("depth", *d),
                    None => j,
                };
                j.with("bids", levels_json(bids))
                    .with("asks", levels_json(asks))
            }
            Data::SpotTrades { symbol, trades } => j
                .with("kind", "spot_trades")
                .with("symbol", symbol.as_str())
                .with("trades", trades_json(trades)),
            Data::SpotTicker { symbol, ticker } => ticker_json(
                j.with("kind", "spot_ticker")
                    .with("symbol", symbol.as_str()),
                ticker,
            ),
            Data::SwapBook {
                instrument,
                depth,
                bids,
                asks,
            } => {
                let j = j
                    .with("kind", "swap_book")
                    .with("instrument", instrument.as_str());
                let j = match depth {
                    Some(d) => j.with("depth", *d),
                    None => j,
                };
                j.with("bids", levels_json(bids))
                    .with("asks", levels_json(asks))
            }
            Data::SwapTrades { instrument, trades } => j
                .with("kind", "swap_trades")
                .with("instrument", instrument.as_str())
                .with("trades", trades_json(trades)),
            Data::SwapTicker { instrument, ticker } => ticker_json(
                j.with("kind", "swap_ticker")
                    .with("instrument", instrument.as_str()),
                ticker,
            ),
            Data::Funding {
                instrument,
                rate,
                next_time,
                next_rate,
                last_rate,
            } => {
                let j = j
                    .with("kind", "funding")
                    .with("instrument", instrument.as_str())
                    .with("rate", dec(*rate))
                    .with("next_time", *next_time);
                let j = opt_dec(j, "next_rate", *next_rate);
                opt_dec(j, "last_rate", *last_rate)
            }
            Data::Mark {
                instrument,
                mark,
                index,
            } => opt_dec(
                j.with("kind", "mark")
                    .with("instrument", instrument.as_str())
                    .with("mark", dec(*mark)),
                "index",
                *index,
            ),
            Data::SpotDepth {
                symbol,
                snapshot,
                bids,
                asks,
                ts,
            } => opt_i64(
                j.with("kind", "spot_depth")
                    .with("symbol", symbol.as_str())
                    .with("snapshot", *snapshot)
                    .with("bids", levels_json(bids))
                    .with("asks", levels_json(asks)),
                "ts",
                *ts,
            ),
            Data::SwapDepth {
                instrument,
                snapshot,
                bids,
                asks,
                ts,
            } => opt_i64(
                j.with("kind", "swap_depth")
                    .with("instrument", instrument.as_str())
                    .with("snapshot", *snapshot)
                    .with("bids", levels_json(bids))
                    .with("asks", levels_json(asks)),
                "ts",
                *ts,
            ),
            Data::Index {
                instrument,
                index,
                ts,
            } => opt_i64(
                j.with("kind", "index")
                    .with("instrument", instrument.as_str())
                    .with("index", dec(*index)),
                "ts",
                *ts,
            ),
            Data::Resync { market, reason } => {
                let j = j.with("kind", "resync");
                let j = match market {
                    MarketId::Spot(s) => j.with("symbol", s.as_str()),
                    MarketId::Swap(i) => j.with("instrument", i.as_str()),
                };
                j.with("reason", reason.as_str())
            }
            Data::Reconnect {
                family,
                socket,
                lost,
                reason,
                markets,
            } => {
                let j = j.with("kind", "reconnect").with("family", family.as_str());
                let j = match socket {
                    Some(s) => j.with("socket", *s),
                    None => j,
                };
                let j = opt_i64(j, "lost", *lost);
                let j = match reason {
                    Some(r) => j.with("reason", r.as_str()),
                    None => j,
                };
                if markets.is_empty() {
                    j
                } else {
                    j.with(
                        "markets",
                        J::Arr(markets.iter().map(|m| J::from(m.as_str())).collect()),
                    )
                }
            }
        };
        j.to_json()
    }
}

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

/// Appends records to a recording: one line per record, the compressor flushed after each (see
/// the module docs), a new gzip member every [`MEMBER_RECORDS`] records.
#[derive(Debug)]
pub struct Writer<W: Write> {
    enc: Option<GzEncoder<Counting<W>>>,
    /// The version the header names.
    version: u32,
    in_member: usize,
    records: u64,
    line: Vec<u8>,
    /// What [`Writer::append`] mended before appending.
    repair: Option<Repair>,
}

impl<W: Write> Writer<W> {
    /// A writer onto `out` that starts with the header line (`out` positioned where the new
    /// member goes: the start of an empty file or the end of a finished recording).
    pub fn new(out: W, header: &Header) -> io::Result<Writer<W>> {
        Writer::resume(out, header, 0)
    }

    fn resume(out: W, header: &Header, bytes: u64) -> io::Result<Writer<W>> {
        let mut w = Writer {
            enc: Some(GzEncoder::new(
                Counting { inner: out, bytes },
                Compression::default(),
            )),
            version: header.version,
            in_member: 0,
            records: 0,
            line: Vec::with_capacity(1024),
            repair: None,
        };
        w.write_line(&header.to_line())?;
        Ok(w)
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
        // A sync flush: everything written so far can be decompressed from the file.
        enc.flush()
    }

    /// Appends one record and flushes it to the underlying writer. A kind newer than the
    /// header's version is refused (`InvalidInput`): an older reader would misread the file.
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
        let mut out = enc.finish()?;
        out.flush()?;
        self.enc = Some(GzEncoder::new(out, Compression::default()));
        self.in_member = 0;
        Ok(())
    }

    /// What [`Writer::append`] mended at the end of the file before appending (an
    /// unfinished or damaged last gzip member); `None` when the file ended cleanly.
    pub fn repair(&self) -> Option<Repair> {
        self.repair
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
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let (end, repaired) = repair(&mut file, limits)?;
        file.seek(SeekFrom::Start(end))?;
        let mut w = Writer::resume(file, header, end)?;
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
fn repair(file: &mut File, limits: Limits) -> io::Result<(u64, Option<Repair>)> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok((0, None));
    }
    file.seek(SeekFrom::Start(0))?;
    let mut start = [0u8; 64];
    let n = read_prefix(&mut *file, &mut start)?;
    match start.get(..n).unwrap_or_default() {
        [0x1f] | [0x1f, 0x8b, ..] => {}
        other => return Err(refused(format!("it is {}", not_gzip(other)))),
    }
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
                inner: flate2::bufread::GzDecoder::new(&mut raw),
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
        return Ok((len, None));
    };
    if overflow {
        return Err(refused(format!(
            "its gzip member at byte {at} is unfinished or damaged and holds more than \
             {REPAIR_MAX} bytes of complete lines, more than a repair writes again (copy what \
             reads with `zcat FILE > FILE.jsonl`, or record to a new file)"
        )));
    }
    let mut again = GzEncoder::new(Vec::new(), Compression::default());
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
    ))
}

// ---- reading ----

#[derive(Deserialize)]
struct WireHeader {
    format: String,
    version: u32,
    #[serde(default)]
    created_ms: Option<i64>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    spot: Vec<WireSpotPair>,
    #[serde(default)]
    swap: Vec<WireSwapInstrument>,
}

#[derive(Deserialize)]
struct WireSpotPair {
    symbol: String,
    price_precision: u32,
    amount_precision: u32,
    min_amount: String,
    min_value: String,
}

#[derive(Deserialize)]
struct WireSwapInstrument {
    instrument_id: String,
    base: String,
    quote: String,
    contract_value: String,
    price_precision: u32,
    tick_size: String,
    min_order_amount: String,
    #[serde(default = "eight")]
    funding_interval_hours: u32,
}

fn eight() -> u32 {
    8
}

#[derive(Deserialize)]
struct WireTrade {
    id: String,
    time: i64,
    price: String,
    qty: String,
    side: String,
    #[serde(default)]
    direction: Option<i64>,
}

#[derive(Deserialize, Default)]
struct WireTicker {
    #[serde(default)]
    last: Option<String>,
    #[serde(default)]
    bid: Option<String>,
    #[serde(default)]
    ask: Option<String>,
    #[serde(default)]
    high: Option<String>,
    #[serde(default)]
    low: Option<String>,
    #[serde(default)]
    open: Option<String>,
    #[serde(default)]
    volume: Option<String>,
    #[serde(default)]
    quote_volume: Option<String>,
    #[serde(default)]
    change: Option<String>,
    #[serde(default)]
    bid_size: Option<String>,
    #[serde(default)]
    ask_size: Option<String>,
    #[serde(default)]
    last_qty: Option<String>,
    #[serde(default)]
    ts: Option<i64>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum WireData {
    SpotBook {
        symbol: String,
        #[serde(default)]
        depth: Option<u32>,
        bids: Vec<[String; 2]>,
        asks: Vec<[String; 2]>,
    },
    SpotTrades {
        symbol: String,
        trades: Vec<WireTrade>,
    },
    SpotTicker {
        symbol: String,
        #[serde(flatten)]
        ticker: WireTicker,
    },
    SwapBook {
        instrument: String,
        #[serde(default)]
        depth: Option<u32>,
        bids: Vec<[String; 2]>,
        asks: Vec<[String; 2]>,
    },
    SwapTrades {
        instrument: String,
        trades: Vec<WireTrade>,
    },
    SwapTicker {
        instrument: String,
        #[serde(flatten)]
        ticker: WireTicker,
    },
    Funding {
        instrument: String,
        rate: String,
        next_time: i64,
        #[serde(default)]
        next_rate: Option<String>,
        #[serde(default)]
        last_rate: Option<String>,
    },
    Mark {
        instrument: String,
        mark: String,
        #[serde(default)]
        index: Option<String>,
    },
    SpotDepth {
        symbol: String,
        snapshot: bool,
        bids: Vec<[String; 2]>,
        asks: Vec<[String; 2]>,
        #[serde(default)]
        ts: Option<i64>,
    },
    SwapDepth {
        instrument: String,
        snapshot: bool,
        bids: Vec<[String; 2]>,
        asks: Vec<[String; 2]>,
        #[serde(default)]
        ts: Option<i64>,
    },
    Index {
        instrument: String,
        index: String,
        #[serde(default)]
        ts: Option<i64>,
    },
    Resync {
        #[serde(default)]
        symbol: Option<String>,
        #[serde(default)]
        instrument: Option<String>,
        #[serde(default)]
        reason: String,
    },
    Reconnect {
        family: String,
        #[serde(default)]
        socket: Option<u32>,
        #[serde(default)]
        lost: Option<i64>,
        #[serde(default)]
        reason: Option<String>,
        #[serde(default)]
        markets: Vec<String>,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Deserialize)]
struct WireRecord {
    t: i64,
    #[serde(flatten)]
    data: WireData,
}

fn num(field: &str, s: &str) -> Result<Decimal, String> {
    parse_dec(s).ok_or_else(|| format!("{field} {s:?} is not a decimal"))
}

fn opt_num(field: &str, s: Option<&String>) -> Result<Option<Decimal>, String> {
    s.map(|s| num(field, s)).transpose()
}

fn levels(field: &str, list: &[[String; 2]]) -> Result<Vec<Level>, String> {
    list.iter()
        .map(|[p, q]| Ok((num(field, p)?, num(field, q)?)))
        .collect()
}

fn trades(list: &[WireTrade]) -> Result<Vec<Trade>, String> {
    list.iter()
        .map(|t| {
            let side = match t.side.as_str() {
                "buy" => Side::Buy,
                "sell" => Side::Sell,
                other => return Err(format!("trade side {other:?} is not buy or sell")),
            };
            Ok(Trade {
                id: t.id.clone(),
                time_ms: t.time,
                price: num("trade price", &t.price)?,
                qty: num("trade qty", &t.qty)?,
                side,
                direction: t.direction,
            })
        })
        .collect()
}

fn ticker(t: &WireTicker) -> Result<Ticker, String> {
    Ok(Ticker {
        last: opt_num("last", t.last.as_ref())?,
        bid: opt_num("bid", t.bid.as_ref())?,
        ask: opt_num("ask", t.ask.as_ref())?,
        high: opt_num("high", t.high.as_ref())?,
        low: opt_num("low", t.low.as_ref())?,
        open: opt_num("open", t.open.as_ref())?,
        volume: opt_num("volume", t.volume.as_ref())?,
        quote_volume: opt_num("quote_volume", t.quote_volume.as_ref())?,
        change: opt_num("change", t.change.as_ref())?,
        bid_size: opt_num("bid_size", t.bid_size.as_ref())?,
        ask_size: opt_num("ask_size", t.ask_size.as_ref())?,
        last_qty: opt_num("last_qty", t.last_qty.as_ref())?,
        ts: t.ts,
    })
}

fn data(w: WireData) -> Result<Option<Data>, String> {
    Ok(Some(match w {
        WireData::SpotBook {
            symbol,
            depth,
            bids,
            asks,
        } => Data::SpotBook {
            symbol,
            depth,
            bids: levels("bid", &bids)?,
            asks: levels("ask", &asks)?,
        },
        WireData::SpotTrades { symbol, trades: t } => Data::SpotTrades {
            symbol,
            trades: trades(&t)?,
        },
        WireData::SpotTicker { symbol, ticker: t } => Data::SpotTicker {
            symbol,
            ticker: ticker(&t)?,
        },
        WireData::SwapBook {
            instrument,
            depth,
            bids,
            asks,
        } => Data::SwapBook {
            instrument,
            depth,
            bids: levels("bid", &bids)?,
            asks: levels("ask", &asks)?,
        },
        WireData::SwapTrades {
            instrument,
            trades: t,
        } => Data::SwapTrades {
            instrument,
            trades: trades(&t)?,
        },
        WireData::SwapTicker {
            instrument,
            ticker: t,
        } => Data::SwapTicker {
            instrument,
            ticker: ticker(&t)?,
        },
        WireData::Funding {
            instrument,
            rate,
            next_time,
            next_rate,
            last_rate,
        } => Data::Funding {
            instrument,
            rate: num("rate", &rate)?,
            next_time,
            next_rate: opt_num("next_rate", next_rate.as_ref())?,
            last_rate: opt_num("last_rate", last_rate.as_ref())?,
        },
        WireData::Mark {
            instrument,
            mark,
            index,
        } => Data::Mark {
            instrument,
            mark: num("mark", &mark)?,
            index: opt_num("index", index.as_ref())?,
        },
        WireData::SpotDepth {
            symbol,
            snapshot,
            bids,
            asks,
            ts,
        } => Data::SpotDepth {
            symbol: symbol.to_ascii_lowercase(),
            snapshot,
            bids: levels("bid", &bids)?,
            asks: levels("ask", &asks)?,
            ts,
        },
        WireData::SwapDepth {
            instrument,
            snapshot,
            bids,
            asks,
            ts,
        } => Data::SwapDepth {
            instrument,
            snapshot,
            bids: levels("bid", &bids)?,
            asks: levels("ask", &asks)?,
            ts,
        },
        WireData::Index {
            instrument,
            index,
            ts,
        } => Data::Index {
            instrument,
            index: num("index", &index)?,
            ts,
        },
        WireData::Resync {
            symbol,
            instrument,
            reason,
        } => Data::Resync {
            market: match (symbol, instrument) {
                (Some(s), None) => MarketId::Spot(s.to_ascii_lowercase()),
                (None, Some(i)) => MarketId::Swap(i),
                _ => return Err("resync names neither or both of symbol and instrument".into()),
            },
            reason,
        },
        WireData::Reconnect {
            family,
            socket,
            lost,
            reason,
            markets,
        } => Data::Reconnect {
            family: match family.as_str() {
                "spot" => Family::Spot,
                "swap" => Family::Swap,
                other => return Err(format!("reconnect family {other:?} is not spot or swap")),
            },
            socket,
            lost,
            reason,
            markets,
        },
        WireData::Unknown => return Ok(None),
    }))
}

fn header(w: WireHeader) -> Result<Header, ReadError> {
    if w.format != FORMAT {
        return Err(ReadError::NotARecording(format!(
            "format {:?} is not {FORMAT:?}",
            w.format
        )));
    }
    if w.version > VERSION {
        return Err(ReadError::Version { found: w.version });
    }
    let bad = |m: String| ReadError::NotARecording(format!("header: {m}"));
    let spot = w
        .spot
        .iter()
        .map(|p| {
            Ok(SpotPairInfo {
                symbol: p.symbol.to_ascii_lowercase(),
                price_precision: p.price_precision,
                amount_precision: p.amount_precision,
                min_amount: num("min_amount", &p.min_amount).map_err(bad)?,
                min_value: num("min_value", &p.min_value).map_err(bad)?,
            })
        })
        .collect::<Result<Vec<_>, ReadError>>()?;
    let swap = w
        .swap
        .iter()
        .map(|s| {
            Ok(SwapInstrumentInfo {
                instrument_id: s.instrument_id.clone(),
                base: s.base.to_ascii_uppercase(),
                quote: s.quote.to_ascii_uppercase(),
                contract_value: num("contract_value", &s.contract_value).map_err(bad)?,
                price_precision: s.price_precision,
                tick_size: num("tick_size", &s.tick_size).map_err(bad)?,
                min_order_amount: num("min_order_amount", &s.min_order_amount).map_err(bad)?,
                funding_interval_hours: s.funding_interval_hours,
            })
        })
        .collect::<Result<Vec<_>, ReadError>>()?;
    Ok(Header {
        version: w.version,
        created_ms: w.created_ms,
        source: w.source,
        spot,
        swap,
    })
}

/// One parsed line.
enum Line {
    Header(WireHeader),
    Record(Record),
    Unknown,
}

fn parse_line(text: &str) -> Result<Line, String> {
    // A header is the only line with a `format` field; look before decoding as a record.
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if value.get("format").is_some() {
        return WireHeader::deserialize(&value)
            .map(Line::Header)
            .map_err(|e| format!("header: {e}"));
    }
    let w = WireRecord::deserialize(&value).map_err(|e| e.to_string())?;
    Ok(match data(w.data)? {
        Some(data) => Line::Record(Record { t: w.t, data }),
        None => Line::Unknown,
    })
}

/// Reads a recording line by line (streaming: memory does not grow with the file).
///
/// An iterator of records: a line that is not a valid record yields an
/// [`ReadError::Line`] and reading goes on with the next line; records of kinds this reader
/// does not know are skipped ([`Reader::skipped`]), and so are records past the per-instant
/// cap, unparsed ([`Reader::over_instant`]). Reading stops without error at an unfinished
/// gzip member or a cut last line ([`Reader::truncated`]), and with [`ReadError::Limit`] at a
/// cap of [`Limits`].
pub struct Reader {
    input: Inflated,
    header: Header,
    line_no: u64,
    buf: Vec<u8>,
    truncated: bool,
    done: bool,
    skipped: u64,
    tally: Tally,
}

/// The compressed input: what the decompressor consumed is counted (error positions).
type Raw = Consumed<BufReader<io::Chain<io::Cursor<Vec<u8>>, Box<dyn Read + Send>>>>;

/// The decompressed text.
type Inflated = BufReader<MultiGzDecoder<Raw>>;

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("header", &self.header)
            .field("line_no", &self.line_no)
            .field("truncated", &self.truncated)
            .field("done", &self.done)
            .field("limits", &self.tally.limits)
            .finish_non_exhaustive()
    }
}

/// A `BufRead` that counts the bytes consumed from it.
#[derive(Debug)]
struct Consumed<R> {
    inner: R,
    consumed: u64,
}

impl<R: Read> Read for Consumed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed = self
            .consumed
            .saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Consumed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.consumed = self
            .consumed
            .saturating_add(u64::try_from(amt).unwrap_or(u64::MAX));
        self.inner.consume(amt);
    }
}

/// What a walk through the lines has counted against its [`Limits`] (the reader's and the
/// repair's).
#[derive(Debug, Clone)]
struct Tally {
    limits: Limits,
    inflated: u64,
    skipped_lines: u64,
    skipped_bytes: u64,
    record_lines: u64,
    record_bytes: u64,
    /// The receive time of the last record and how many records had it.
    instant: Option<(i64, u64)>,
    over_instant: u64,
}

impl Tally {
    fn new(limits: Limits) -> Tally {
        Tally {
            limits,
            inflated: 0,
            skipped_lines: 0,
            skipped_bytes: 0,
            record_lines: 0,
            record_bytes: 0,
            instant: None,
            over_instant: 0,
        }
    }

    /// Bytes the next line may take: what is left of the inflated cap, and of a line longer
    /// than [`MAX_LINE`] (which will be skipped) no more than the skipped bytes allowed.
    fn budget(&self) -> u64 {
        let inflated = self.limits.inflated_bytes.saturating_sub(self.inflated);
        let skippable = self
            .limits
            .skipped_bytes
            .saturating_add(self.record_bytes)
            .saturating_sub(self.skipped_bytes);
        let line = u64::try_from(MAX_LINE)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        inflated.min(line.saturating_add(skippable))
    }

    /// Which cap a line that ran out of [`Tally::budget`] reached.
    fn over_budget(&self) -> Limit {
        if self.inflated >= self.limits.inflated_bytes {
            Limit::InflatedBytes(self.limits.inflated_bytes)
        } else {
            Limit::SkippedBytes(self.limits.skipped_bytes)
        }
    }

    fn read(&mut self, bytes: u64) {
        self.inflated = self.inflated.saturating_add(bytes);
    }

    /// Counts a skipped line of `bytes` bytes (its newline included).
    fn skip(&mut self, bytes: u64) -> Result<(), Limit> {
        self.skipped_lines = self.skipped_lines.saturating_add(1);
        self.skipped_bytes = self.skipped_bytes.saturating_add(bytes);
        if self.skipped_lines > self.limits.skipped_lines.saturating_add(self.record_lines) {
            return Err(Limit::SkippedLines(self.limits.skipped_lines));
        }
        if self.skipped_bytes > self.limits.skipped_bytes.saturating_add(self.record_bytes) {
            return Err(Limit::SkippedBytes(self.limits.skipped_bytes));
        }
        Ok(())
    }

    /// Whether a line with receive time `t` is past the per-instant cap.
    fn instant_full(&self, t: i64) -> bool {
        matches!(self.instant, Some((at, n)) if at == t && n >= self.limits.per_instant)
    }

    /// Counts a record of `bytes` bytes received at `t`.
    fn record(&mut self, t: i64, bytes: u64) {
        self.record_lines = self.record_lines.saturating_add(1);
        self.record_bytes = self.record_bytes.saturating_add(bytes);
        self.instant = match self.instant {
            Some((at, n)) if at == t => Some((t, n.saturating_add(1))),
            _ => Some((t, 1)),
        };
    }
}

/// The receive time of a line written the way [`Writer`] writes it (`{"t":123,...`), without
/// parsing the rest; `None` for any other line.
fn quick_time(line: &[u8]) -> Option<i64> {
    let rest = line.strip_prefix(b"{\"t\":")?;
    let (negative, digits) = match rest.strip_prefix(b"-") {
        Some(d) => (true, d),
        None => (false, rest),
    };
    let mut value: i64 = 0;
    let mut n = 0usize;
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                value = value.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
                n += 1;
            }
            b',' | b'}' if n > 0 => return Some(if negative { -value } else { value }),
            _ => return None,
        }
    }
    None
}

/// Reads the first bytes of `input` into `prefix` (up to its length); the count read.
fn read_prefix(input: &mut dyn Read, prefix: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < prefix.len() {
        match input.read(prefix.get_mut(n..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// What a file that does not start like gzip is, from its first bytes.
fn not_gzip(start: &[u8]) -> String {
    let text = start
        .iter()
        .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace());
    let first = start.iter().find(|b| !b.is_ascii_whitespace());
    if text && first == Some(&b'{') {
        if start.windows(FORMAT.len()).any(|w| w == FORMAT.as_bytes()) {
            "not gzip: the file is plain JSON lines, an uncompressed recording (a recording is \
             gzip-compressed: compress it with `gzip`)"
                .to_owned()
        } else {
            "not gzip: the file is plain JSON text (a recording is gzip-compressed JSON lines)"
                .to_owned()
        }
    } else if text {
        "not gzip: the file is plain text (a recording is gzip-compressed JSON lines)".to_owned()
    } else {
        let hex: Vec<String> = start.iter().take(4).map(|b| format!("{b:02x}")).collect();
        format!(
            "not gzip: the file starts with the bytes {} (gzip starts with 1f 8b)",
            hex.join(" ")
        )
    }
}

impl Reader {
    /// Opens the recording at `path` and reads its header.
    pub fn open(path: impl AsRef<Path>) -> Result<Reader, ReadError> {
        Reader::new(File::open(path)?)
    }

    /// Reads a recording (gzip bytes) from `input` and reads its header, with the default
    /// [`Limits`].
    ///
    /// A file that is not a recording is refused with what it is: empty, not gzip (plain
    /// JSON lines, other text, other bytes), gzip damaged or cut before the header line
    /// ended ([`ReadError::Damaged`]), or gzip whose first line is not a header.
    pub fn new(input: impl Read + Send + 'static) -> Result<Reader, ReadError> {
        let mut input: Box<dyn Read + Send> = Box::new(input);
        let mut start = [0u8; 64];
        let n = read_prefix(&mut *input, &mut start)?;
        let start = start.get(..n).unwrap_or_default().to_vec();
        match start.as_slice() {
            [] => return Err(ReadError::NotARecording("the file is empty".to_owned())),
            [0x1f] | [0x1f, 0x8b, ..] => {}
            other => return Err(ReadError::NotARecording(not_gzip(other))),
        }
        let raw = Consumed {
            inner: BufReader::with_capacity(64 * 1024, io::Cursor::new(start).chain(input)),
            consumed: 0,
        };
        let mut r = Reader {
            input: BufReader::with_capacity(64 * 1024, MultiGzDecoder::new(raw)),
            header: Header::default(),
            line_no: 0,
            buf: Vec::with_capacity(4096),
            truncated: false,
            done: false,
            skipped: 0,
            tally: Tally::new(Limits::default()),
        };
        let line_cap = u64::try_from(MAX_LINE).unwrap_or(u64::MAX);
        let not = |m: String| Err(ReadError::NotARecording(m));
        let first = loop {
            r.buf.clear();
            let read = read_line_capped(&mut r.input, &mut r.buf, MAX_LINE, line_cap + 1);
            let at = r.input.get_ref().get_ref().consumed;
            match read {
                Ok((Capped::Line, n)) => {
                    r.tally.read(n);
                    r.line_no += 1;
                    if r.buf.last() == Some(&b'\r') {
                        r.buf.pop();
                    }
                    if !r.buf.iter().all(u8::is_ascii_whitespace) {
                        break std::mem::take(&mut r.buf);
                    }
                }
                Ok((Capped::End, _)) => {
                    return not("no header line: the gzip data holds no text".to_owned())
                }
                Ok((Capped::Cut, _)) => {
                    return not("no header line: the text ends inside its first line".to_owned())
                }
                Ok((Capped::TooLong | Capped::OverBudget, _)) => {
                    return not(format!(
                        "no header line: the first line is longer than {MAX_LINE} bytes"
                    ))
                }
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    return not(format!(
                        "the gzip data ends at byte {at}, before the header line ended (a file \
                         cut short)"
                    ))
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
                    ) =>
                {
                    return Err(ReadError::Damaged {
                        at,
                        message: e.to_string(),
                    })
                }
                Err(e) => return Err(ReadError::Io(e)),
            }
        };
        let Ok(first) = std::str::from_utf8(&first) else {
            return not("the first line is not UTF-8 text".to_owned());
        };
        match parse_line(first) {
            Ok(Line::Header(h)) => r.header = header(h)?,
            Ok(_) => return not("the first line is not a header".to_owned()),
            Err(m) => return not(format!("the first line is not a header: {m}")),
        }
        Ok(r)
    }

    /// The same reader held to `limits` instead of the defaults.
    pub fn with_limits(mut self, limits: Limits) -> Reader {
        self.tally.limits = limits;
        self
    }

    /// The caps this reader holds to.
    pub fn limits(&self) -> Limits {
        self.tally.limits
    }

    /// The header (the first line of the file).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Whether reading stopped at an unfinished member or a cut line (a crash while writing).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Records of unknown kinds skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Lines skipped unparsed so far because their receive time already had
    /// [`Limits::per_instant`] records.
    pub fn over_instant(&self) -> u64 {
        self.tally.over_instant
    }

    /// Decompressed bytes read so far.
    pub fn inflated(&self) -> u64 {
        self.tally.inflated
    }

    /// Stops reading with a cap's error.
    fn limit(&mut self, limit: Limit) -> Option<Result<Record, ReadError>> {
        self.done = true;
        Some(Err(ReadError::Limit {
            line: self.line_no,
            limit,
        }))
    }
}

/// How [`read_line_capped`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Capped {
    /// A whole line (its newline dropped) is in the buffer.
    Line,
    /// A line longer than the cap was read past (the buffer holds nothing of it).
    TooLong,
    /// The input ended inside a line.
    Cut,
    /// The input ended at a line boundary.
    End,
    /// The budget of bytes ran out inside a line (the buffer holds nothing of it).
    OverBudget,
}

/// Reads one line into `buf` (without its `\n`), keeping at most `cap` bytes of it and
/// consuming at most `budget` bytes: a longer line is consumed to its end (or the budget's)
/// and dropped, so memory stays bounded whatever the input. Also answers the bytes consumed.
fn read_line_capped(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
    budget: u64,
) -> io::Result<(Capped, u64)> {
    let mut over = false;
    let mut used = 0u64;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            let end = if used > 0 { Capped::Cut } else { Capped::End };
            return Ok((end, used));
        }
        let room = usize::try_from(budget.saturating_sub(used)).unwrap_or(usize::MAX);
        if room == 0 {
            buf.clear();
            return Ok((Capped::OverBudget, used));
        }
        let mut part = chunk.get(..room).unwrap_or(chunk);
        // `read_until` on a slice: the newline is found by the standard library's optimised
        // search (a byte loop here would be compiled without optimisation in debug builds).
        let taken = io::BufRead::read_until(&mut part, b'\n', buf)?;
        let done = taken > 0 && buf.last() == Some(&b'\n');
        if done {
            buf.pop();
        }
        if over || buf.len() > cap {
            over = true;
            buf.clear();
        }
        input.consume(taken);
        used = used.saturating_add(u64::try_from(taken).unwrap_or(u64::MAX));
        if done {
            return Ok((if over { Capped::TooLong } else { Capped::Line }, used));
        }
    }
}

impl Iterator for Reader {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            self.buf.clear();
            let budget = self.tally.budget();
            let (ended, bytes) =
                match read_line_capped(&mut self.input, &mut self.buf, MAX_LINE, budget) {
                    Ok(x) => x,
                    Err(e) => {
                        self.done = true;
                        // An unfinished member (a crash) or damaged bytes: what came before
                        // stands.
                        if matches!(
                            e.kind(),
                            io::ErrorKind::UnexpectedEof
                                | io::ErrorKind::InvalidData
                                | io::ErrorKind::InvalidInput
                        ) {
                            self.truncated = true;
                            return None;
                        }
                        return Some(Err(ReadError::Io(e)));
                    }
                };
            self.tally.read(bytes);
            match ended {
                Capped::End => {
                    self.done = true;
                    return None;
                }
                Capped::Cut => {
                    // A last line without its newline: cut by a crash.
                    self.truncated = true;
                    self.done = true;
                    return None;
                }
                Capped::OverBudget => {
                    self.line_no += 1;
                    let l = self.tally.over_budget();
                    return self.limit(l);
                }
                Capped::TooLong => {
                    self.line_no += 1;
                    if let Err(l) = self.tally.skip(bytes) {
                        return self.limit(l);
                    }
                    return Some(Err(ReadError::Line {
                        line: self.line_no,
                        message: format!(
                            "line {} is longer than {MAX_LINE} bytes (skipped)",
                            self.line_no
                        ),
                    }));
                }
                Capped::Line => {}
            }
            self.line_no += 1;
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                if let Err(l) = self.tally.skip(bytes) {
                    return self.limit(l);
                }
                continue;
            }
            if quick_time(&self.buf).is_some_and(|t| self.tally.instant_full(t)) {
                // Past the per-instant cap: skipped without parsing the rest of the line.
                self.tally.over_instant = self.tally.over_instant.saturating_add(1);
                if let Err(l) = self.tally.skip(bytes) {
                    return self.limit(l);
                }
                continue;
            }
            let parsed = match std::str::from_utf8(&self.buf) {
                Ok(text) => parse_line(text),
                Err(_) => Err(format!("line {} is not UTF-8", self.line_no)),
            };
            match parsed {
                Ok(Line::Record(r)) => {
                    if self.tally.instant_full(r.t) {
                        self.tally.over_instant = self.tally.over_instant.saturating_add(1);
                        if let Err(l) = self.tally.skip(bytes) {
                            return self.limit(l);
                        }
                        continue;
                    }
                    self.tally.record(r.t, bytes);
                    return Some(Ok(r));
                }
                Ok(Line::Unknown) => {
                    self.skipped += 1;
                    if let Err(l) = self.tally.skip(bytes) {
                        return self.limit(l);
                    }
                }
                Ok(Line::Header(h)) => {
                    if let Err(e) = header(h) {
                        self.done = true;
                        return Some(Err(e));
                    }
                    if let Err(l) = self.tally.skip(bytes) {
                        return self.limit(l);
                    }
                }
                Err(message) => {
                    if let Err(l) = self.tally.skip(bytes) {
                        return self.limit(l);
                    }
                    return Some(Err(ReadError::Line {
                        line: self.line_no,
                        message,
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::d;

    fn sample() -> Vec<Record> {
        vec![
            Record {
                t: 1000,
                data: Data::SpotBook {
                    symbol: "icp_usdt".into(),
                    depth: Some(5),
                    bids: vec![(d("11.356"), d("120.5")), (d("11.355"), d("3"))],
                    asks: vec![(d("11.358"), d("80"))],
                },
            },
            Record {
                t: 1010,
                data: Data::SpotTrades {
                    symbol: "icp_usdt".into(),
                    trades: vec![Trade {
                        id: "9001".into(),
                        time_ms: 1000,
                        price: d("11.357"),
                        qty: d("0.5"),
                        side: Side::Buy,
                        direction: None,
                    }],
                },
            },
            Record {
                t: 1020,
                data: Data::SpotTicker {
                    symbol: "icp_usdt".into(),
                    ticker: Ticker {
                        last: Some(d("11.357")),
                        change: Some(d("-1.91")),
                        ..Ticker::default()
                    },
                },
            },
            Record {
                t: 1030,
                data: Data::SwapBook {
                    instrument: "ICPUSDTPERP".into(),
                    depth: None,
                    bids: vec![(d("11.35"), d("10"))],
                    asks: vec![],
                },
            },
            Record {
                t: 1040,
                data: Data::SwapTrades {
                    instrument: "ICPUSDTPERP".into(),
                    trades: vec![Trade {
                        id: "123456789012345678".into(),
                        time_ms: 1039,
                        price: d("11.35"),
                        qty: d("2"),
                        side: Side::Sell,
                        direction: Some(2),
                    }],
                },
            },
            Record {
                t: 1050,
                data: Data::SwapTicker {
                    instrument: "ICPUSDTPERP".into(),
                    ticker: Ticker {
                        volume: Some(d("1e-07")),
                        ..Ticker::default()
                    },
                },
            },
            Record {
                t: 1060,
                data: Data::Funding {
                    instrument: "ICPUSDTPERP".into(),
                    rate: d("0.0001"),
                    next_time: 28_800_000,
                    next_rate: Some(d("-0.00005")),
                    last_rate: None,
                },
            },
            Record {
                t: 1070,
                data: Data::Mark {
                    instrument: "ICPUSDTPERP".into(),
                    mark: d("11.36"),
                    index: Some(d("11.357")),
                },
            },
        ]
    }

    fn header() -> Header {
        Header {
            created_ms: Some(999),
            source: Some("test".into()),
            spot: vec![SpotPairInfo {
                symbol: "icp_usdt".into(),
                price_precision: 3,
                amount_precision: 2,
                min_amount: d("0.01"),
                min_value: d("2"),
            }],
            ..Header::default()
        }
    }

    fn write_all(records: &[Record]) -> Vec<u8> {
        let mut w = Writer::new(Vec::new(), &header()).unwrap();
        for r in records {
            w.write(r).unwrap();
        }
        assert_eq!(w.records(), records.len() as u64);
        w.finish().unwrap()
    }

    #[test]
    fn every_kind_round_trips() {
        let bytes = write_all(&sample());
        let r = Reader::new(std::io::Cursor::new(bytes)).unwrap();
        assert_eq!(r.header(), &header());
        let got: Vec<Record> = r.map(|x| x.unwrap()).collect();
        assert_eq!(got, sample());
    }

    #[test]
    fn lines_are_as_documented() {
        let r = &sample()[0];
        assert_eq!(
            r.to_line(),
            r#"{"t":1000,"kind":"spot_book","symbol":"icp_usdt","depth":5,"bids":[["11.356","120.5"],["11.355","3"]],"asks":[["11.358","80"]]}"#
        );
        assert_eq!(
            sample()[6].to_line(),
            r#"{"t":1060,"kind":"funding","instrument":"ICPUSDTPERP","rate":"0.0001","next_time":28800000,"next_rate":"-0.00005"}"#
        );
    }

    #[test]
    fn concatenated_members_and_repeated_headers_read_as_one() {
        let all = sample();
        let mut bytes = write_all(&all[..3]);
        bytes.extend(write_all(&all[3..]));
        let got: Vec<Record> = Reader::new(std::io::Cursor::new(bytes))
            .unwrap()
            .map(|x| x.unwrap())
            .collect();
        assert_eq!(got, all);
    }

    #[test]
    fn a_cut_file_reads_up_to_the_cut() {
        let all = sample();
        let mut w = Writer::new(Vec::new(), &header()).unwrap();
        let mut before_last = 0;
        for r in &all {
            before_last = w.bytes();
            w.write(r).unwrap();
        }
        // No trailer (a crash after the last flush).
        let bytes = w.enc.take().unwrap().get_ref().inner.clone();
        let full: Vec<Record> = Reader::new(std::io::Cursor::new(bytes.clone()))
            .unwrap()
            .map(|x| x.unwrap())
            .collect();
        assert_eq!(full, all);
        // Cut inside the last record's bytes.
        let cut_at = usize::try_from(before_last).unwrap() + 5;
        let mut r = Reader::new(std::io::Cursor::new(bytes[..cut_at].to_vec())).unwrap();
        let cut: Vec<Record> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(cut, all[..all.len() - 1].to_vec());
        assert!(r.truncated());
    }

    #[test]
    fn bad_lines_and_unknown_kinds() {
        let mut text = header().to_line();
        text.push('\n');
        text.push_str(&sample()[0].to_line());
        text.push_str("\n{\"t\":5,\"kind\":\"spot_book\",\"symbol\":\"x\",\"bids\":[[\"1\",\"+2\"]],\"asks\":[]}\n");
        text.push_str("{\"t\":6,\"kind\":\"liquidations\",\"instrument\":\"X\"}\n");
        text.push_str(&sample()[7].to_line());
        text.push('\n');
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(text.as_bytes()).unwrap();
        let mut r = Reader::new(std::io::Cursor::new(enc.finish().unwrap())).unwrap();
        assert_eq!(r.next().unwrap().unwrap(), sample()[0]);
        match r.next().unwrap() {
            Err(ReadError::Line { line: 3, message }) => {
                assert_eq!(message, "bid \"+2\" is not a decimal")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.next().unwrap().unwrap(), sample()[7]);
        assert!(r.next().is_none());
        assert_eq!(r.skipped(), 1);
        assert!(!r.truncated());
    }

    #[test]
    fn refuses_other_files() {
        let gz = |s: &str| {
            let mut enc = GzEncoder::new(Vec::new(), Compression::default());
            enc.write_all(s.as_bytes()).unwrap();
            std::io::Cursor::new(enc.finish().unwrap())
        };
        assert!(matches!(
            Reader::new(gz("{\"format\":\"digifinex-market\",\"version\":3}\n")),
            Err(ReadError::Version { found: 3 })
        ));
        assert!(matches!(
            Reader::new(gz("{\"t\":1,\"kind\":\"mark\"}\n")),
            Err(ReadError::NotARecording(_))
        ));
        assert!(matches!(
            Reader::new(gz("")),
            Err(ReadError::NotARecording(_))
        ));
    }

    fn ws_sample() -> Vec<Record> {
        vec![
            Record {
                t: 2000,
                data: Data::SpotDepth {
                    symbol: "btc_usdt".into(),
                    snapshot: true,
                    bids: vec![(d("100.5"), d("2")), (d("100.4"), d("1"))],
                    asks: vec![(d("100.6"), d("3"))],
                    ts: None,
                },
            },
            Record {
                t: 2001,
                data: Data::SpotDepth {
                    symbol: "btc_usdt".into(),
                    snapshot: false,
                    bids: vec![(d("100.4"), d("0"))],
                    asks: vec![],
                    ts: None,
                },
            },
            Record {
                t: 2002,
                data: Data::SwapDepth {
                    instrument: "BTCUSDTPERP".into(),
                    snapshot: false,
                    bids: vec![],
                    asks: vec![(d("100.7"), d("12"))],
                    ts: Some(2000),
                },
            },
            Record {
                t: 2003,
                data: Data::Index {
                    instrument: "BTCUSDTPERP".into(),
                    index: d("100.55"),
                    ts: Some(2001),
                },
            },
            Record {
                t: 2004,
                data: Data::SwapTicker {
                    instrument: "BTCUSDTPERP".into(),
                    ticker: Ticker {
                        bid: Some(d("100.5")),
                        bid_size: Some(d("7")),
                        last_qty: Some(d("1")),
                        ts: Some(2003),
                        ..Ticker::default()
                    },
                },
            },
            Record {
                t: 2005,
                data: Data::Resync {
                    market: MarketId::Spot("btc_usdt".into()),
                    reason: "crossed".into(),
                },
            },
            Record {
                t: 2006,
                data: Data::Reconnect {
                    family: Family::Swap,
                    socket: Some(1),
                    lost: Some(1990),
                    reason: Some("connection lost: reset".into()),
                    markets: vec!["BTCUSDTPERP".into()],
                },
            },
            Record {
                t: 2007,
                data: Data::Reconnect {
                    family: Family::Spot,
                    socket: None,
                    lost: None,
                    reason: None,
                    markets: vec![],
                },
            },
        ]
    }

    #[test]
    fn websocket_kinds_round_trip_as_documented() {
        let all = ws_sample();
        let bytes = write_all(&all);
        let got: Vec<Record> = Reader::new(std::io::Cursor::new(bytes))
            .unwrap()
            .map(|x| x.unwrap())
            .collect();
        assert_eq!(got, all);
        let lines: Vec<String> = all.iter().map(Record::to_line).collect();
        assert_eq!(
            lines,
            [
                r#"{"t":2000,"kind":"spot_depth","symbol":"btc_usdt","snapshot":true,"bids":[["100.5","2"],["100.4","1"]],"asks":[["100.6","3"]]}"#,
                r#"{"t":2001,"kind":"spot_depth","symbol":"btc_usdt","snapshot":false,"bids":[["100.4","0"]],"asks":[]}"#,
                r#"{"t":2002,"kind":"swap_depth","instrument":"BTCUSDTPERP","snapshot":false,"bids":[],"asks":[["100.7","12"]],"ts":2000}"#,
                r#"{"t":2003,"kind":"index","instrument":"BTCUSDTPERP","index":"100.55","ts":2001}"#,
                r#"{"t":2004,"kind":"swap_ticker","instrument":"BTCUSDTPERP","bid":"100.5","bid_size":"7","last_qty":"1","ts":2003}"#,
                r#"{"t":2005,"kind":"resync","symbol":"btc_usdt","reason":"crossed"}"#,
                r#"{"t":2006,"kind":"reconnect","family":"swap","socket":1,"lost":1990,"reason":"connection lost: reset","markets":["BTCUSDTPERP"]}"#,
                r#"{"t":2007,"kind":"reconnect","family":"spot"}"#,
            ]
        );
        assert!(header().to_line().contains(r#""version":2"#));
    }

    #[test]
    fn writer_methods_write_the_websocket_kinds() {
        let all = ws_sample();
        let mut w = Writer::new(Vec::new(), &header()).unwrap();
        let spot = MarketId::Spot("btc_usdt".into());
        w.write_depth(
            2000,
            &spot,
            true,
            &[(d("100.5"), d("2")), (d("100.4"), d("1"))],
            &[(d("100.6"), d("3"))],
            None,
        )
        .unwrap();
        w.write_depth(2001, &spot, false, &[(d("100.4"), d("0"))], &[], None)
            .unwrap();
        let swap = MarketId::Swap("BTCUSDTPERP".into());
        w.write_depth(
            2002,
            &swap,
            false,
            &[],
            &[(d("100.7"), d("12"))],
            Some(2000),
        )
        .unwrap();
        w.write_index(2003, "BTCUSDTPERP", d("100.55"), Some(2001))
            .unwrap();
        w.write(&all[4]).unwrap();
        w.write_resync(2005, &spot, "crossed").unwrap();
        w.write_reconnect(
            2006,
            Family::Swap,
            Some(1),
            Some(1990),
            Some("connection lost: reset"),
            &["BTCUSDTPERP".to_owned()],
        )
        .unwrap();
        w.write_reconnect(2007, Family::Spot, None, None, None, &[])
            .unwrap();
        let bytes = w.finish().unwrap();
        let got: Vec<Record> = Reader::new(std::io::Cursor::new(bytes))
            .unwrap()
            .map(|x| x.unwrap())
            .collect();
        assert_eq!(got, all);
    }

    #[test]
    fn a_version_1_header_refuses_websocket_kinds_and_still_reads() {
        let v1 = Header {
            version: 1,
            ..header()
        };
        let mut w = Writer::new(Vec::new(), &v1).unwrap();
        let e = w.write(&ws_sample()[0]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            e.to_string(),
            "record kind spot_depth needs format version 2; the header says 1"
        );
        w.write(&sample()[0]).unwrap();
        let r = Reader::new(std::io::Cursor::new(w.finish().unwrap())).unwrap();
        assert_eq!(r.header().version, 1);
        assert_eq!(
            r.map(|x| x.unwrap()).collect::<Vec<_>>(),
            vec![sample()[0].clone()]
        );
    }

    #[test]
    fn a_version_1_file_as_written_before_version_2_reads() {
        // The bytes of a version 1 recording as the version 1 writer wrote them.
        let text = concat!(
            r#"{"format":"digifinex-market","version":1,"created_ms":999,"source":"test"}"#,
            "\n",
            r#"{"t":1000,"kind":"spot_book","symbol":"icp_usdt","depth":5,"bids":[["11.356","120.5"],["11.355","3"]],"asks":[["11.358","80"]]}"#,
            "\n",
            r#"{"t":1060,"kind":"funding","instrument":"ICPUSDTPERP","rate":"0.0001","next_time":28800000,"next_rate":"-0.00005"}"#,
            "\n",
        );
        let r = Reader::new(std::io::Cursor::new(gz(text.as_bytes()))).unwrap();
        assert_eq!(r.header().version, 1);
        let got: Vec<Record> = r.map(|x| x.unwrap()).collect();
        assert_eq!(got, vec![sample()[0].clone(), sample()[6].clone()]);
    }

    #[test]
    fn a_resync_must_name_one_market() {
        let mut text = header().to_line();
        text.push_str("\n{\"t\":1,\"kind\":\"resync\",\"reason\":\"x\"}\n");
        text.push_str("{\"t\":2,\"kind\":\"reconnect\",\"family\":\"margin\"}\n");
        let mut r = Reader::new(std::io::Cursor::new(gz(text.as_bytes()))).unwrap();
        match r.next() {
            Some(Err(ReadError::Line { line: 2, message })) => assert_eq!(
                message,
                "resync names neither or both of symbol and instrument"
            ),
            other => panic!("{other:?}"),
        }
        match r.next() {
            Some(Err(ReadError::Line { line: 3, message })) => {
                assert_eq!(message, "reconnect family \"margin\" is not spot or swap")
            }
            other => panic!("{other:?}"),
        }
        assert!(r.next().is_none());
    }

    #[test]
    fn append_repairs_a_crashed_file() {
        let dir = std::env::temp_dir().join(format!("dfx-rec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("crash.jsonl.gz");
        let all = sample();
        let mut w = Writer::create(&path, &header()).unwrap();
        let mut before_last = 0;
        for r in &all[..4] {
            before_last = w.bytes();
            w.write(r).unwrap();
        }
        // A crash: no trailer, and the last record torn.
        std::mem::forget(w);
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(before_last + 5).unwrap();
        drop(f);
        let mut w = Writer::append(&path, &header()).unwrap();
        for r in &all[4..] {
            w.write(r).unwrap();
        }
        w.finish().unwrap();
        let mut r = Reader::open(&path).unwrap();
        let got: Vec<Record> = r.by_ref().map(|x| x.unwrap()).collect();
        // The torn last record of the first session is lost, everything else kept.
        let mut want = all[..3].to_vec();
        want.extend_from_slice(&all[4..]);
        assert_eq!(got, want);
        assert!(!r.truncated());
        // Appending to a finished file only adds.
        let w = Writer::append(&path, &header()).unwrap();
        w.finish().unwrap();
        assert_eq!(Reader::open(&path).unwrap().count(), want.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A gzip member of `text`.
    fn gz(text: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_with_an_error() {
        let all = sample();
        let mut text = header().to_line().into_bytes();
        text.push(b'\n');
        // A 3 MiB line of garbage (6 KB compressed), then a valid record.
        text.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        text.push(b'\n');
        text.extend(all[0].to_line().into_bytes());
        text.push(b'\n');
        let bytes = gz(&text);
        assert!(bytes.len() < 64 * 1024);
        let mut r = Reader::new(std::io::Cursor::new(bytes)).unwrap();
        match r.next() {
            Some(Err(ReadError::Line { line: 2, message })) => {
                assert!(message.contains("longer than"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.next().unwrap().unwrap(), all[0]);
        assert!(r.next().is_none());
        assert!(!r.truncated());
    }

    #[test]
    fn repair_drops_an_overlong_line_of_a_crashed_member() {
        let dir = std::env::temp_dir().join(format!("dfx-rec-long-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("long.jsonl.gz");
        let all = sample();
        // A finished first member, then an unfinished one holding a huge line between two
        // records and a cut tail.
        let first = write_all(&all[..2]);
        let mut text = all[2].to_line().into_bytes();
        text.push(b'\n');
        text.extend(std::iter::repeat_n(b'y', 2 * MAX_LINE));
        text.push(b'\n');
        text.extend(all[3].to_line().into_bytes());
        text.extend(b"\n{\"t\":12");
        let mut member = gz(&text);
        member.truncate(member.len() - 8); // no trailer: a crash
        let mut file = first.clone();
        file.extend(member);
        std::fs::write(&path, &file).unwrap();
        let w = Writer::append(&path, &header()).unwrap();
        w.finish().unwrap();
        let got: Vec<Record> = Reader::open(&path).unwrap().map(|x| x.unwrap()).collect();
        assert_eq!(got, all[..4].to_vec());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // ---- hostile and damaged files (issue 36): each bounded by a cap, each generated here ----

    /// A gzip member (no trailer: it never ends, a reader stops at a cap first) of `head`
    /// then `unit` repeated `times` times, built without compressing the repeats: `unit` is
    /// compressed once with a full flush (no reference to earlier text) and its bytes
    /// repeated. A few MB inflate to GBs, like a hand-made bomb.
    fn bomb(head: &[u8], unit: &[u8], times: u64) -> Vec<u8> {
        fn deflate_full(c: &mut flate2::Compress, data: &[u8]) -> Vec<u8> {
            let mut out = Vec::with_capacity(data.len() + 1024);
            let before = c.total_in();
            c.compress_vec(data, &mut out, flate2::FlushCompress::Full)
                .unwrap();
            assert_eq!(
                c.total_in() - before,
                data.len() as u64,
                "all of it compressed"
            );
            out
        }
        let mut c = flate2::Compress::new(Compression::fast(), false);
        let mut file = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        file.extend(deflate_full(&mut c, head));
        // Whole units in chunks of about 64 KiB, then the rest.
        let per = (64 * 1024 / unit.len()).max(1) as u64;
        let chunk = deflate_full(&mut c, &unit.repeat(per as usize));
        for _ in 0..times / per {
            file.extend_from_slice(&chunk);
        }
        file.extend(deflate_full(&mut c, &unit.repeat((times % per) as usize)));
        file
    }

    fn head_line() -> Vec<u8> {
        let mut h = header().to_line().into_bytes();
        h.push(b'\n');
        h
    }

    /// The issue's 1.6 G short lines (3.2 GB of text in a few MB): stopped at the cap on
    /// skipped lines after a million, not read to the end.
    #[test]
    fn a_bomb_of_short_bad_lines_stops_at_the_skipped_lines_cap() {
        let file = bomb(&head_line(), b"x\n", 1_600_000_000);
        assert!(file.len() < 16 << 20, "{}", file.len());
        let mut r = Reader::new(std::io::Cursor::new(file)).unwrap();
        let mut bad = 0u64;
        let stop = loop {
            match r.next() {
                Some(Err(ReadError::Line { .. })) => bad += 1,
                Some(Err(e @ ReadError::Limit { .. })) => break e,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(bad, MAX_SKIPPED_LINES);
        assert!(matches!(
            stop,
            ReadError::Limit {
                line,
                limit: Limit::SkippedLines(MAX_SKIPPED_LINES)
            } if line == MAX_SKIPPED_LINES + 2
        ));
        assert_eq!(
            stop.to_string(),
            "line 1000002: reading stopped at the cap on skipped lines (1000000 lines that are \
             not records beyond the records read, Limits::skipped_lines): the file is damaged \
             or not a digifinex-market recording"
        );
        assert!(r.next().is_none());
        assert!(!r.truncated());
    }

    /// Blank lines and unknown kinds are skipped lines too.
    #[test]
    fn blank_lines_and_unknown_kinds_count_toward_the_skipped_lines_cap() {
        for unit in [
            &b"\n"[..],
            b"  \r\n",
            b"{\"t\":1,\"kind\":\"liquidation\"}\n",
        ] {
            let file = bomb(&head_line(), unit, 3_000_000);
            let mut r = Reader::new(std::io::Cursor::new(file)).unwrap();
            match r.next() {
                Some(Err(ReadError::Limit {
                    line,
                    limit: Limit::SkippedLines(MAX_SKIPPED_LINES),
                })) => assert_eq!(line, MAX_SKIPPED_LINES + 2),
                other => panic!("{other:?}"),
            }
            assert!(r.next().is_none());
        }
    }

    /// Records read raise the allowance: a file that skips as many lines as it reads (a newer
    /// version's kinds between known ones) is read whole.
    #[test]
    fn the_skipped_lines_allowance_grows_with_the_records_read() {
        let limits = Limits {
            skipped_lines: 10,
            ..Limits::default()
        };
        let rec = sample()[0].to_line();
        let mut text = head_line();
        for _ in 0..100 {
            text.extend(rec.as_bytes());
            text.extend(b"\n{\"t\":1,\"kind\":\"liquidation\"}\n");
        }
        let r = Reader::new(std::io::Cursor::new(gz(&text)))
            .unwrap()
            .with_limits(limits);
        assert_eq!(r.map(|x| x.unwrap()).collect::<Vec<_>>().len(), 100);
        // Twelve unknown lines in a row after one record: the eleventh over the allowance.
        let mut text = head_line();
        text.extend(rec.as_bytes());
        text.push(b'\n');
        for _ in 0..12 {
            text.extend(b"{\"t\":1,\"kind\":\"liquidation\"}\n");
        }
        let mut r = Reader::new(std::io::Cursor::new(gz(&text)))
            .unwrap()
            .with_limits(limits);
        assert_eq!(r.next().unwrap().unwrap(), sample()[0]);
        assert!(matches!(
            r.next(),
            Some(Err(ReadError::Limit {
                line: 14,
                limit: Limit::SkippedLines(10)
            }))
        ));
        assert_eq!(r.skipped(), 12);
    }

    /// One endless line: read no further than the cap on skipped bytes.
    #[test]
    fn an_endless_line_stops_at_the_skipped_bytes_cap() {
        let file = bomb(&head_line(), &[b'y'; 4096], 1 << 20); // 4 GiB, no newline
        let mut r = Reader::new(std::io::Cursor::new(file)).unwrap();
        match r.next() {
            Some(Err(ReadError::Limit {
                line: 2,
                limit: Limit::SkippedBytes(MAX_SKIPPED_BYTES),
            })) => {}
            other => panic!("{other:?}"),
        }
        assert!(r.next().is_none());
        let head = head_line().len() as u64;
        assert_eq!(r.inflated(), head + MAX_SKIPPED_BYTES + MAX_LINE as u64 + 1);
    }

    /// The cap on inflated bytes, whatever the lines.
    #[test]
    fn the_inflated_bytes_cap_stops_reading_records() {
        let rec = sample()[0].to_line();
        let mut text = head_line();
        for _ in 0..1000 {
            text.extend(rec.as_bytes());
            text.push(b'\n');
        }
        let limits = Limits {
            inflated_bytes: 10_000,
            ..Limits::default()
        };
        let mut r = Reader::new(std::io::Cursor::new(gz(&text)))
            .unwrap()
            .with_limits(limits);
        let whole = (10_000 - head_line().len()) / (rec.len() + 1);
        for _ in 0..whole {
            assert_eq!(r.next().unwrap().unwrap(), sample()[0]);
        }
        match r.next() {
            Some(Err(ReadError::Limit {
                line,
                limit: Limit::InflatedBytes(10_000),
            })) => assert_eq!(line, whole as u64 + 2),
            other => panic!("{other:?}"),
        }
        assert!(r.next().is_none());
        assert_eq!(r.inflated(), 10_000);
    }

    /// The issue's 3.4 M records at one instant: the first 10,000 read, the rest skipped
    /// without being parsed, until the allowance of skipped lines ends reading.
    #[test]
    fn records_past_the_per_instant_cap_are_skipped_unparsed() {
        let mut unit = sample()[0].to_line().into_bytes();
        unit.push(b'\n');
        let file = bomb(&head_line(), &unit, 3_400_000);
        let mut r = Reader::new(std::io::Cursor::new(file)).unwrap();
        for _ in 0..MAX_PER_INSTANT {
            assert_eq!(r.next().unwrap().unwrap(), sample()[0]);
        }
        match r.next() {
            Some(Err(ReadError::Limit {
                limit: Limit::SkippedLines(MAX_SKIPPED_LINES),
                ..
            })) => {}
            other => panic!("{other:?}"),
        }
        assert_eq!(r.over_instant(), MAX_SKIPPED_LINES + MAX_PER_INSTANT + 1);
        // Unparsed: lines at the full instant that are not even JSON are not errors.
        let mut text = head_line();
        for _ in 0..3 {
            text.extend(sample()[0].to_line().into_bytes());
            text.push(b'\n');
        }
        text.extend(b"{\"t\":1000,\"kind\":\"spot_book\" this is not JSON\n");
        text.extend(b"{\"t\":1000}\n");
        text.extend(sample()[1].to_line().into_bytes());
        text.push(b'\n');
        let limits = Limits {
            per_instant: 3,
            ..Limits::default()
        };
        let r = Reader::new(std::io::Cursor::new(gz(&text)))
            .unwrap()
            .with_limits(limits);
        let mut r = r;
        let got: Vec<Record> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(
            got,
            vec![sample()[0].clone(); 3]
                .into_iter()
                .chain([sample()[1].clone()])
                .collect::<Vec<_>>()
        );
        assert_eq!(r.over_instant(), 2);
    }

    fn not_a_recording(bytes: Vec<u8>) -> String {
        match Reader::new(std::io::Cursor::new(bytes)) {
            Err(e) => e.to_string(),
            Ok(r) => panic!("read as a recording: {r:?}"),
        }
    }

    /// The first line's error says what the file is.
    #[test]
    fn the_first_error_says_what_the_file_is() {
        let plain = head_line();
        assert_eq!(
            not_a_recording(plain.clone()),
            "not a digifinex-market recording: not gzip: the file is plain JSON lines, an \
             uncompressed recording (a recording is gzip-compressed: compress it with `gzip`)"
        );
        assert_eq!(
            not_a_recording(b"{\"code\":0}\n".to_vec()),
            "not a digifinex-market recording: not gzip: the file is plain JSON text (a \
             recording is gzip-compressed JSON lines)"
        );
        assert_eq!(
            not_a_recording(b"hello\n".to_vec()),
            "not a digifinex-market recording: not gzip: the file is plain text (a recording \
             is gzip-compressed JSON lines)"
        );
        assert_eq!(
            not_a_recording(vec![0x50, 0x4b, 3, 4, 0xff, 0]),
            "not a digifinex-market recording: not gzip: the file starts with the bytes 50 4b \
             03 04 (gzip starts with 1f 8b)"
        );
        assert_eq!(
            not_a_recording(Vec::new()),
            "not a digifinex-market recording: the file is empty"
        );
        // Damaged: a byte of the deflate data changed (the header line is in the first block).
        let good = gz(&plain);
        let mut bad = good.clone();
        bad[12] ^= 0xff;
        match Reader::new(std::io::Cursor::new(bad)) {
            Err(ReadError::Damaged { at, message }) => {
                assert!(at > 10 && at <= good.len() as u64, "{at}");
                assert_eq!(message, "corrupt deflate stream");
            }
            other => panic!("{other:?}"),
        }
        let mut bad_header = good.clone();
        bad_header[2] = 7; // compression method 7
        assert!(not_a_recording(bad_header)
            .starts_with("not a readable recording: damaged gzip at byte "),);
        // Cut short inside the header line.
        assert_eq!(
            not_a_recording(good[..good.len() / 2].to_vec()),
            format!(
                "not a digifinex-market recording: the gzip data ends at byte {}, before the \
                 header line ended (a file cut short)",
                good.len() / 2
            )
        );
        assert_eq!(
            not_a_recording(vec![0x1f]),
            "not a digifinex-market recording: the gzip data ends at byte 1, before the \
             header line ended (a file cut short)"
        );
        // Gzip of other text.
        assert_eq!(
            not_a_recording(gz(b"hello\n")),
            "not a digifinex-market recording: the first line is not a header: expected \
             value at line 1 column 1"
        );
        assert_eq!(
            not_a_recording(gz(b"")),
            "not a digifinex-market recording: no header line: the gzip data holds no text"
        );
        let mut long = vec![b'{'; MAX_LINE + 10];
        long.push(b'\n');
        assert_eq!(
            not_a_recording(gz(&long)),
            format!(
                "not a digifinex-market recording: no header line: the first line is longer \
                 than {MAX_LINE} bytes"
            )
        );
    }

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("dfx-rec-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Everything a reader gives from `bytes`: the records, or `None` when it refuses them.
    fn read_back(bytes: &[u8]) -> Option<(Vec<Record>, bool)> {
        let mut r = Reader::new(std::io::Cursor::new(bytes.to_vec())).ok()?;
        let got = r.by_ref().map(|x| x.unwrap()).collect();
        Some((got, r.truncated()))
    }

    /// A recording of three sessions (the last one crashed: no trailer) cut at every byte,
    /// then appended to: what was readable up to the cut stays, the new records follow, and
    /// the file reads to its end.
    #[test]
    fn a_recording_cut_at_any_byte_and_appended_to_reads_up_to_the_cut_and_after() {
        let all = sample();
        let mut file = write_all(&all[..3]);
        file.extend(write_all(&all[3..5]));
        let mut w = Writer::new(Vec::new(), &header()).unwrap();
        for r in &all[5..7] {
            w.write(r).unwrap();
        }
        file.extend(w.enc.take().unwrap().get_ref().inner.clone());
        let dir = temp_dir("cuts");
        let path = dir.join("cut.jsonl.gz");
        let mut repaired = 0;
        for cut in 0..=file.len() {
            let before = read_back(&file[..cut]);
            std::fs::write(&path, &file[..cut]).unwrap();
            let mut w = Writer::append(&path, &header()).unwrap();
            repaired += usize::from(w.repair().is_some());
            w.write(&all[7]).unwrap();
            w.finish().unwrap();
            let after = std::fs::read(&path).unwrap();
            let (got, truncated) = read_back(&after).unwrap_or_else(|| panic!("cut {cut}"));
            let mut want = before.map(|b| b.0).unwrap_or_default();
            want.push(all[7].clone());
            assert_eq!(got, want, "cut at {cut} of {}", file.len());
            assert!(!truncated, "cut at {cut}");
        }
        // Every cut but those at the ends of whole members needed mending.
        assert!(repaired >= file.len() - 3, "{repaired} of {}", file.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// What the repair did is reported.
    #[test]
    fn append_reports_the_repair() {
        let dir = temp_dir("report");
        let path = dir.join("r.jsonl.gz");
        let all = sample();
        let first = write_all(&all[..2]);
        let mut w = Writer::new(Vec::new(), &header()).unwrap();
        w.write(&all[2]).unwrap();
        w.write(&all[3]).unwrap();
        let mut crashed = first.clone();
        crashed.extend(w.enc.take().unwrap().get_ref().inner.clone());
        std::fs::write(&path, &crashed).unwrap();
        let w = Writer::append(&path, &header()).unwrap();
        assert_eq!(
            w.repair(),
            Some(Repair {
                at: first.len() as u64,
                len: crashed.len() as u64,
                lines_kept: 3,
                bytes_dropped: 0,
            })
        );
        w.finish().unwrap();
        // A cut last line: dropped, its bytes counted.
        let mut text = all[0].to_line().into_bytes();
        text.extend(b"\n{\"t\":12");
        let mut member = gz(&text);
        member.truncate(member.len() - 8);
        let mut cut = first.clone();
        cut.extend(&member);
        std::fs::write(&path, &cut).unwrap();
        let w = Writer::append(&path, &header()).unwrap();
        let rep = w.repair().unwrap();
        assert_eq!((rep.lines_kept, rep.bytes_dropped), (1, 7));
        drop(w);
        // A finished file: nothing to mend.
        let w = Writer::append(&path, &header()).unwrap();
        assert_eq!(w.repair(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file that is not a recording is not cut (before, a repair emptied it).
    #[test]
    fn append_refuses_other_files_and_leaves_them_alone() {
        let dir = temp_dir("other");
        let path = dir.join("notes.jsonl");
        for (bytes, says) in [
            (
                head_line(),
                "not appending to it: it is not gzip: the file is plain JSON lines",
            ),
            (
                b"my notes\n".to_vec(),
                "not appending to it: it is not gzip: the file is plain text",
            ),
            (
                gz(b"{\"a\":1}\n"),
                "not appending to it: its first line is not a digifinex-market header",
            ),
        ] {
            std::fs::write(&path, &bytes).unwrap();
            let e = Writer::append(&path, &header()).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
            assert!(e.to_string().starts_with(says), "{e}");
            assert_eq!(std::fs::read(&path).unwrap(), bytes);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The issue's repair of a damaged member that inflates to gigabytes of short lines: the
    /// one pass stops at the cap on skipped lines, the file untouched.
    #[test]
    fn append_to_a_damaged_bomb_stops_at_a_cap() {
        let dir = temp_dir("bomb");
        let path = dir.join("bomb.jsonl.gz");
        let mut file = write_all(&sample()[..2]);
        file.extend(bomb(b"", b"x\n", 1_600_000_000));
        std::fs::write(&path, &file).unwrap();
        let e = Writer::append(&path, &header()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(
            e.to_string().starts_with(
                "not appending to it: line 1000006: reading stopped at the cap on skipped lines"
            ),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), file);
        // Records at one instant past the cap: skipped lines as well.
        let mut unit = sample()[0].to_line().into_bytes();
        unit.push(b'\n');
        let mut file = write_all(&sample()[..2]);
        file.extend(bomb(b"", &unit, 3_400_000));
        std::fs::write(&path, &file).unwrap();
        let e = Writer::append(&path, &header()).unwrap_err();
        assert!(e.to_string().contains("the cap on skipped lines"), "{e}");
        // A damaged member with more complete lines than a repair writes again.
        let mut unit = sample()[1].to_line().into_bytes();
        unit.push(b'\n');
        let mut file = write_all(&sample()[..2]);
        let damaged_at = file.len();
        let limits = Limits {
            per_instant: u64::MAX,
            ..Limits::default()
        };
        let times = (REPAIR_MAX / unit.len() + 10) as u64;
        file.extend(bomb(b"", &unit, times));
        std::fs::write(&path, &file).unwrap();
        let e = Writer::append_with_limits(&path, &header(), limits).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "not appending to it: its gzip member at byte {damaged_at} is unfinished or \
                 damaged and holds more than {REPAIR_MAX} bytes"
            )),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), file);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
