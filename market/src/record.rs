//! The record kinds and the header, and how each is written as one JSON line.

use crate::json::{fmt_dec, J};
use crate::{FORMAT, VERSION, WS_VERSION};
use rust_decimal::Decimal;

/// Buy or sell: a trade's taker side, or the side of a book (bids are the buy side).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// Buy (bids).
    Buy,
    /// Sell (asks).
    Sell,
}

impl Side {
    /// The other side.
    pub fn opposite(self) -> Side {
        match self {
            Side::Buy => Side::Sell,
            Side::Sell => Side::Buy,
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
