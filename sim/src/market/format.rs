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
//! member are written again as a finished member, the rest cut off).
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
    /// unfinished last member left by a crash (see the module docs), then starts a new member
    /// with `header`. Reads the whole file once to find its members.
    pub fn append(path: impl AsRef<Path>, header: &Header) -> io::Result<Writer<File>> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let end = repair(&mut file)?;
        file.seek(SeekFrom::Start(end))?;
        Writer::resume(file, header, end)
    }
}

/// Walks the gzip members of `file`; when one is unfinished or damaged, cuts the file where it
/// starts and writes its complete lines again as a finished member. Returns the file's end.
fn repair(file: &mut File) -> io::Result<u64> {
    file.seek(SeekFrom::Start(0))?;
    let len = file.metadata()?.len();
    let mut reader = BufReader::new(&mut *file);
    let mut start = 0u64;
    let broken = loop {
        if start >= len {
            break None;
        }
        let mut member = flate2::bufread::GzDecoder::new(&mut reader);
        match io::copy(&mut member, &mut io::sink()) {
            Ok(_) => {
                let next = reader.stream_position()?;
                if next <= start {
                    break Some(start);
                }
                start = next;
            }
            Err(_) => break Some(start),
        }
    };
    drop(reader);
    let Some(at) = broken else {
        return Ok(len);
    };
    // Salvage the complete lines of the broken member, streaming: one line at a time, lines
    // over the cap dropped, so memory stays bounded by the member's compressed size.
    file.seek(SeekFrom::Start(at))?;
    let mut salvaged = GzEncoder::new(Vec::new(), Compression::default());
    let mut any = false;
    {
        let mut member =
            BufReader::new(flate2::bufread::GzDecoder::new(BufReader::new(&mut *file)));
        let mut line = Vec::new();
        loop {
            line.clear();
            match read_line_capped(&mut member, &mut line, MAX_LINE) {
                Ok(Capped::Line) => {
                    salvaged.write_all(&line)?;
                    salvaged.write_all(b"\n")?;
                    any = true;
                }
                Ok(Capped::TooLong) => {}
                Ok(Capped::Cut | Capped::End) | Err(_) => break,
            }
        }
    }
    let salvaged = salvaged.finish()?;
    file.set_len(at)?;
    file.seek(SeekFrom::Start(at))?;
    if any {
        file.write_all(&salvaged)?;
    }
    file.flush()?;
    file.stream_position()
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
/// does not know are skipped ([`Reader::skipped`]). Reading stops without error at an
/// unfinished gzip member or a cut last line ([`Reader::truncated`]).
pub struct Reader {
    input: Box<dyn BufRead + Send>,
    header: Header,
    line_no: u64,
    buf: Vec<u8>,
    truncated: bool,
    done: bool,
    skipped: u64,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("header", &self.header)
            .field("line_no", &self.line_no)
            .field("truncated", &self.truncated)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Reader {
    /// Opens the recording at `path` and reads its header.
    pub fn open(path: impl AsRef<Path>) -> Result<Reader, ReadError> {
        Reader::new(File::open(path)?)
    }

    /// Reads a recording (gzip bytes) from `input` and reads its header.
    pub fn new(input: impl Read + Send + 'static) -> Result<Reader, ReadError> {
        let decoder = MultiGzDecoder::new(BufReader::new(input));
        let mut r = Reader {
            input: Box::new(BufReader::with_capacity(64 * 1024, decoder)),
            header: Header::default(),
            line_no: 0,
            buf: Vec::with_capacity(4096),
            truncated: false,
            done: false,
            skipped: 0,
        };
        let first = r
            .next_line()
            .ok_or_else(|| ReadError::NotARecording("no header line".to_owned()))?;
        let first = first.map_err(ReadError::Io)?;
        match parse_line(&first) {
            Ok(Line::Header(h)) => r.header = header(h)?,
            Ok(_) => {
                return Err(ReadError::NotARecording(
                    "the first line is not a header".to_owned(),
                ))
            }
            Err(m) => return Err(ReadError::NotARecording(m)),
        }
        Ok(r)
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

    /// The next complete line; `None` at the end (a cut or undecodable tail ends reading). A
    /// line over [`MAX_LINE`] is read past without being kept and answered as an error.
    fn next_line(&mut self) -> Option<io::Result<String>> {
        loop {
            if self.done {
                return None;
            }
            self.buf.clear();
            match read_line_capped(&mut *self.input, &mut self.buf, MAX_LINE) {
                Ok(Capped::End) => {
                    self.done = true;
                    return None;
                }
                Ok(Capped::Cut) => {
                    // A last line without its newline: cut by a crash.
                    self.truncated = true;
                    self.done = true;
                    return None;
                }
                Ok(Capped::TooLong) => {
                    self.line_no += 1;
                    return Some(Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "line {} is longer than {MAX_LINE} bytes (skipped)",
                            self.line_no
                        ),
                    )));
                }
                Ok(Capped::Line) => {
                    self.line_no += 1;
                    if self.buf.last() == Some(&b'\r') {
                        self.buf.pop();
                    }
                    if self.buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Some(match std::str::from_utf8(&self.buf) {
                        Ok(s) => Ok(s.to_owned()),
                        Err(_) => Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("line {} is not UTF-8", self.line_no),
                        )),
                    });
                }
                Err(e) => {
                    self.done = true;
                    // An unfinished member (a crash) or damaged bytes: what came before stands.
                    if matches!(
                        e.kind(),
                        io::ErrorKind::UnexpectedEof
                            | io::ErrorKind::InvalidData
                            | io::ErrorKind::InvalidInput
                    ) {
                        self.truncated = true;
                        return None;
                    }
                    return Some(Err(e));
                }
            }
        }
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
}

/// Reads one line into `buf` (without its `\n`), keeping at most `cap` bytes of it: a longer
/// line is consumed to its end and dropped, so memory stays bounded whatever the input.
fn read_line_capped(input: &mut dyn BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<Capped> {
    let mut over = false;
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if any { Capped::Cut } else { Capped::End });
        }
        any = true;
        let (part, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (chunk.get(..i).unwrap_or_default(), Some(i + 1)),
            None => (chunk, None),
        };
        if !over {
            if buf.len() + part.len() > cap {
                over = true;
                buf.clear();
            } else {
                buf.extend_from_slice(part);
            }
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            return Ok(if over { Capped::TooLong } else { Capped::Line });
        }
    }
}

impl Iterator for Reader {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let line = match self.next_line()? {
                Ok(l) => l,
                Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                    return Some(Err(ReadError::Line {
                        line: self.line_no,
                        message: e.to_string(),
                    }))
                }
                Err(e) => return Some(Err(ReadError::Io(e))),
            };
            match parse_line(&line) {
                Ok(Line::Record(r)) => return Some(Ok(r)),
                Ok(Line::Unknown) => self.skipped += 1,
                Ok(Line::Header(h)) => {
                    if let Err(e) = header(h) {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
                Err(message) => {
                    return Some(Err(ReadError::Line {
                        line: self.line_no,
                        message,
                    }))
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
}
