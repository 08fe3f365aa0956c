//! Public swap market data (GET, no authentication).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{
    check_instrument, public_meta, window, ContractType, Granularity, InstrumentKind,
    InstrumentStatus, InstrumentType, OrderSide,
};
use crate::request;
use crate::request::{range, server_default};
use crate::types::TimestampMillis;

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/public/time`: the server's clock in milliseconds (for clock-offset
    /// estimation).
    ///
    /// The answer is the time itself (required). Weight 1 (docs/protocol.md, "Route weights").
    pub struct ServerTimeRequest => TimestampMillis;
    meta = public_meta("swap.time", "/swap/v2/public/time").weight(1);
    /// The request (it takes no parameters).
    new;
    fields {}
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/public/api_weight`: the weight of every route, for a weight budget
    /// (see [`crate::ratelimit::WeightTable`]). Its own weight is not published (no `weight` in its
    /// [`Meta`](crate::Meta)).
    pub struct ApiWeightRequest => Vec<RouteWeight>;
    meta = public_meta("swap.api_weight", "/swap/v2/public/api_weight");
    /// The request (it takes no parameters).
    new;
    fields {}
}

pub use crate::ratelimit::RouteWeight;

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/public/depth`: the order book of an instrument.
    ///
    /// Weight 2 (docs/protocol.md, "Route weights"). `limit` is sent only when set.
    pub struct DepthRequest => Depth;
    meta = public_meta("swap.depth", "/swap/v2/public/depth").weight(2);
    /// The book of `instrument_id` (`BTCUSDTPERP`); without [`DepthRequest::limit`] the server
    /// answers its default, 20 levels per side.
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// Levels per side, 1..=100.
        opt limit: u32 [range(1, 100), server_default(20)],
    }
}

/// One price level `[price, amount]`: the spot order book's level type. Both columns are
/// required. The documents show the price as a string and the amount as a number; the live REST
/// depth sends both as JSON numbers (docs/protocol.md); either form is accepted for both, exactly.
pub type DepthLevel = crate::spot::Level;

/// Answer of [`DepthRequest`]: the levels as the server orders them (find the best bid and ask
/// by price).
///
/// DESIGN: only the levels' price and amount are required; `instrument_id` echoes the request
/// and `timestamp` is informative, so both are optional. An answer without `data` decodes to an
/// empty book.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Depth {
    /// Instrument id (echo of the request).
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Snapshot time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampMillis>,
    /// Sell levels.
    #[serde(default, deserialize_with = "crate::de::rows")]
    pub asks: Vec<DepthLevel>,
    /// Buy levels.
    #[serde(default, deserialize_with = "crate::de::rows")]
    pub bids: Vec<DepthLevel>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/public/instruments`: every perpetual instrument (real ones by default).
    ///
    /// Weight 5 (docs/protocol.md, "Route weights"). `type` is sent only when set: `type=1`
    /// ([`InstrumentType::Simulate`]) lists the SIMULATE contracts, such as `BTCUSDT2PERP` settled
    /// in `USDT2` (docs/protocol.md).
    #[derive(Default)]
    pub struct InstrumentsRequest => Vec<Instrument>;
    meta = public_meta("swap.instruments", "/swap/v2/public/instruments").weight(5);
    /// All instruments of the default type (real).
    new;
    fields {
        /// Only simulated or only real instruments (`type` 1 or 2).
        opt instrument_type: InstrumentType as "type" [server_default(InstrumentType::Real)],
    }
}

request! {
    /// `GET /swap/v2/public/instrument`: one instrument.
    ///
    /// Weight 1 (docs/protocol.md, "Route weights").
    pub struct InstrumentRequest => Instrument;
    meta = public_meta("swap.instrument", "/swap/v2/public/instrument").weight(1);
    /// The description of `instrument_id` (`BTCUSDTPERP`).
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
    }
}

/// A perpetual instrument (answer of [`InstrumentRequest`], element of [`InstrumentsRequest`]).
///
/// DESIGN: only `instrument_id` (the listing's key) is required; every other field may be
/// missing, a placeholder or unreadable and is then `None` (or an empty list), so that one odd
/// instrument cannot fail the decoding of the whole listing. Simulated instruments
/// ([`InstrumentKind::Simulate`], listed with `type=1`) are named like `BTCUSDT2PERP` and settle
/// in `USDT2` (docs/protocol.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Instrument {
    /// Instrument id (`BTCUSDTPERP`; `BTCUSDT2PERP` for a simulated one).
    #[serde(with = "crate::de::text")]
    pub instrument_id: String,
    /// SIMULATE or REAL (wire name `type`).
    #[serde(rename = "type", default, with = "crate::de::opt")]
    pub kind: Option<InstrumentKind>,
    /// PERPETUAL.
    #[serde(default, with = "crate::de::opt")]
    pub contract_type: Option<ContractType>,
    /// Base currency (`BTC`).
    #[serde(default, with = "crate::de::opt_string")]
    pub base_currency: Option<String>,
    /// Quote currency (`USDT`).
    #[serde(default, with = "crate::de::opt_string")]
    pub quote_currency: Option<String>,
    /// Settlement currency (`USDT`; `USDT2` for simulated instruments).
    #[serde(default, with = "crate::de::opt_string")]
    pub clear_currency: Option<String>,
    /// Contract value per size unit.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub contract_value: Option<Decimal>,
    /// Currency of `contract_value`.
    #[serde(default, with = "crate::de::opt_string")]
    pub contract_value_currency: Option<String>,
    /// Inverse contract (boolean, or `0`/`1`).
    #[serde(default, with = "crate::de::opt_flag")]
    pub is_inverse: Option<bool>,
    /// Trading enabled (separate from `status`).
    #[serde(default, with = "crate::de::opt_flag")]
    pub is_trading: Option<bool>,
    /// ONLINE, OFFLINE or DELIVERY.
    #[serde(default, with = "crate::de::opt")]
    pub status: Option<InstrumentStatus>,
    /// Price precision (decimal places).
    #[serde(default, with = "crate::de::opt_int")]
    pub price_precision: Option<u32>,
    /// Minimum price step.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub tick_size: Option<Decimal>,
    /// Minimum order amount (documented as a number; a string is accepted).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_order_amount: Option<Decimal>,
    /// Position value caps by leverage.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub open_max_limits: Vec<OpenMaxLimit>,
}

/// One entry of [`Instrument::open_max_limits`]: for positions at a leverage above `leverage`,
/// the position value may not exceed `max_limit` (error 401002).
///
/// DESIGN: `leverage` is the key of the entry (required); `max_limit` is optional like every
/// other value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct OpenMaxLimit {
    /// Leverage threshold.
    #[serde(with = "crate::de::decimal")]
    pub leverage: Decimal,
    /// Maximum position value.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub max_limit: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/public/trades`: recent public trades of an instrument.
    ///
    /// Weight 1 (docs/protocol.md, "Route weights"). `limit` is sent only when set.
    pub struct TradesRequest => Vec<PublicTrade>;
    meta = public_meta("swap.trades", "/swap/v2/public/trades").weight(1);
    /// Recent trades of `instrument_id`; without [`TradesRequest::limit`] the server answers its
    /// default, 20.
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// Number of trades, 1..=100.
        opt limit: u32 [range(1, 100), server_default(20)],
    }
}

/// A public trade (element of [`TradesRequest`]'s answer).
///
/// DESIGN: only `trade_id` (the trade's identity) is required; every other field may be missing,
/// a placeholder or unreadable and is then `None`, so one odd trade cannot hide the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct PublicTrade {
    /// Instrument id.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Trade id (a long numeric string, or a number).
    #[serde(with = "crate::de::id")]
    pub trade_id: String,
    /// Open/close long/short (sent as a string `"1"`..`"4"`; a number or a word is accepted).
    #[serde(default, with = "crate::de::opt")]
    pub direction: Option<OrderSide>,
    /// Size (contracts).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub volume: Option<Decimal>,
    /// Price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price: Option<Decimal>,
    /// Trade time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub trade_time: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/public/ticker`: the ticker of one instrument (with `open_interest`).
    ///
    /// Weight 1 (docs/protocol.md, "Route weights").
    pub struct TickerRequest => Ticker;
    meta = public_meta("swap.ticker", "/swap/v2/public/ticker").weight(1);
    /// The ticker of `instrument_id`.
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
    }
}

request! {
    /// `GET /swap/v2/public/tickers`: the tickers of every instrument.
    ///
    /// Weight 1 (docs/protocol.md, "Route weights"). `type` is sent only when set.
    #[derive(Default)]
    pub struct TickersRequest => Vec<Ticker>;
    meta = public_meta("swap.tickers", "/swap/v2/public/tickers").weight(1);
    /// Tickers of every instrument of the default type (real).
    new;
    fields {
        /// Only simulated or only real instruments (`type` 1 or 2).
        opt instrument_type: InstrumentType as "type" [server_default(InstrumentType::Real)],
    }
}

/// A 24-hour ticker (answer of [`TickerRequest`], element of [`TickersRequest`]).
///
/// DESIGN: only `instrument_id` (the listing's key) is required. Every value may be missing, a
/// placeholder or unreadable (an instrument without trades or without a book has no last price
/// or best quotes; `open_interest` is `"-"` in published answers) and is then `None`, so one odd
/// row never fails the listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Ticker {
    /// Instrument id.
    #[serde(with = "crate::de::text")]
    pub instrument_id: String,
    /// Index price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub index_price: Option<Decimal>,
    /// Mark price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub mark_price: Option<Decimal>,
    /// Highest price a buy order may carry.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub max_buy_price: Option<Decimal>,
    /// Lowest price a sell order may carry.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_sell_price: Option<Decimal>,
    /// Best bid price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub best_bid: Option<Decimal>,
    /// Size at the best bid.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub best_bid_size: Option<Decimal>,
    /// Best ask price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub best_ask: Option<Decimal>,
    /// Size at the best ask.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub best_ask_size: Option<Decimal>,
    /// 24h high.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub high_24h: Option<Decimal>,
    /// Price 24h ago.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_24h: Option<Decimal>,
    /// 24h low.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub low_24h: Option<Decimal>,
    /// Last trade price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub last: Option<Decimal>,
    /// Last trade size.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub last_qty: Option<Decimal>,
    /// 24h volume.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub volume_24h: Option<Decimal>,
    /// 24h price change as a **fraction**, not a percent despite the name: `-0.0366` is
    /// -3.66 % (docs/protocol.md; the spot ticker's `change` is a percent).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price_change_percent: Option<Decimal>,
    /// Open interest. In the all-tickers listing the spec says to ignore it and it is not always
    /// a number (docs/protocol.md): a placeholder or unreadable value is `None` there and does not
    /// fail the listing.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_interest: Option<Decimal>,
    /// Time of the answer (ms). In the all-tickers listing it is one value shared by all rows,
    /// 0.5-60 s stale, and not the time of the index or mark price (docs/protocol.md): do not read
    /// it as the age of a row's prices.
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

/// The server's default number of candles when `limit` is not sent (documented: 20).
pub const DEFAULT_CANDLE_LIMIT: u32 = 20;

request! {
    /// `GET /swap/v2/public/candles`: the latest candles of an instrument.
    ///
    /// Weight 1 (docs/protocol.md, "Route weights").
    ///
    /// DESIGN: the spec lists `limit` as required with a default of 20, but live clients omit it
    /// and get answers (docs/protocol.md: send only the parameters the caller set). So `limit` is
    /// sent only when [`CandlesRequest::limit`] sets it; otherwise the server answers its default
    /// ([`DEFAULT_CANDLE_LIMIT`]).
    pub struct CandlesRequest => Candles;
    meta = public_meta("swap.candles", "/swap/v2/public/candles").weight(1);
    /// The latest candles of `instrument_id` at `granularity` (the server's default number, 20).
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// Candle length (a documented value; `Other` is refused).
        req granularity: Granularity,
        /// Number of candles, 1..=100; sent only when set.
        opt limit: u32 [range(1, 100), server_default(20)],
    }
}

request! {
    /// `GET /swap/v2/public/candles_history`: candles of an instrument in a time window.
    ///
    /// Weight 10 (docs/protocol.md, "Route weights"). The window and `limit` are sent only when
    /// set.
    pub struct CandlesHistoryRequest => Candles;
    meta = public_meta("swap.candles_history", "/swap/v2/public/candles_history").weight(10);
    /// Candles of `instrument_id` at `granularity` (default: the server's latest 20).
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// Candle length (a documented value; `Other` is refused).
        req granularity: Granularity,
        /// Window start (ms).
        opt start_timestamp: TimestampMillis,
        /// Window end (ms); must be after the start.
        opt end_timestamp: TimestampMillis,
        /// Number of candles, 1..=100 (the server's default is 20); sent only when set.
        opt limit: u32 [range(1, 100), server_default(20)],
    }
    window = window(start_timestamp, end_timestamp);
}

/// Answer of [`CandlesRequest`] and [`CandlesHistoryRequest`].
///
/// DESIGN: `instrument_id` and `granularity` echo the request and are optional; each candle's
/// leading columns are required (see [`Candle`]). An answer without `data` decodes to no
/// candles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Candles {
    /// Instrument id (echo of the request).
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Granularity of the candles (echo of the request).
    #[serde(default, with = "crate::de::opt")]
    pub granularity: Option<Granularity>,
    /// The candles, in the server's order.
    #[serde(default, deserialize_with = "crate::de::rows")]
    pub candles: Vec<Candle>,
}

/// One candle, from the positional array
/// `[start ms, open, high, low, close, volume, token volume]` (values as strings or numbers).
///
/// The start time, the four prices and the volume are the row's leading columns: required (a
/// missing, placeholder or unreadable one fails the answer). The token volume is optional: it may
/// be missing, a placeholder or unreadable (`None`); further elements are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
#[non_exhaustive]
pub struct Candle {
    /// Start time (ms).
    pub time: TimestampMillis,
    /// Open price.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub open: Decimal,
    /// Highest price.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub high: Decimal,
    /// Lowest price.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub low: Decimal,
    /// Close price.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub close: Decimal,
    /// Trade volume (contracts).
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub volume: Decimal,
    /// Trade volume in tokens (base currency).
    #[serde(serialize_with = "crate::de::opt_decimal::serialize")]
    pub token_volume: Option<Decimal>,
}

impl<'de> Deserialize<'de> for Candle {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::positional(d)
    }
}

impl crate::de::Row<'_> for Candle {
    const WHAT: &'static str = "candle";
    fn read<E: serde::de::Error>(c: &mut crate::de::Columns<'_, E>) -> Result<Self, E> {
        Ok(Candle {
            time: TimestampMillis(c.int()?),
            open: c.decimal()?,
            high: c.decimal()?,
            low: c.decimal()?,
            close: c.decimal()?,
            volume: c.decimal()?,
            token_volume: c.opt_decimal()?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/public/funding_rate`: the last settled and the forecast funding rate.
    ///
    /// Weight 1 (docs/protocol.md, "Route weights").
    pub struct FundingRateRequest => FundingRate;
    meta = public_meta("swap.funding_rate", "/swap/v2/public/funding_rate").weight(1);
    /// The funding rate of `instrument_id`.
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
    }
}

/// Answer of [`FundingRateRequest`].
///
/// The live venue reports in `funding_rate` the **last settled** rate, labelled with the
/// **next** funding time (`funding_time`), not the rate of the coming settlement that the
/// documents describe (docs/protocol.md). Most contracts fund every 8 hours, some every 4 hours:
/// do not assume 8. The answer has no interval field; ccxt derives the interval as
/// `next_funding_time - funding_time` (ccxt/ccxt `ts/src/digifinex.ts`, `parseFundingRate`).
///
/// DESIGN: every field is optional (the answer is an object of several values, none of them an
/// identity): a missing, placeholder or unreadable value is `None`, and an answer without `data`
/// decodes to a `FundingRate` whose fields are all `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct FundingRate {
    /// Instrument id (echo of the request).
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// The last settled funding rate, a fraction per funding interval (`0.0001` is 0.01 %).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub funding_rate: Option<Decimal>,
    /// The next funding time (ms), with which the venue labels the last settled `funding_rate`.
    #[serde(default, with = "crate::de::opt")]
    pub funding_time: Option<TimestampMillis>,
    /// Forecast funding rate (fraction); may be `""` when not yet known.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub next_funding_rate: Option<Decimal>,
    /// Documented as the settlement time of `next_funding_rate` (ms).
    #[serde(default, with = "crate::de::opt")]
    pub next_funding_time: Option<TimestampMillis>,
}

request! {
    /// `GET /swap/v2/public/funding_rate_history`: past funding rates of an instrument.
    ///
    /// Weight 10 (docs/protocol.md, "Route weights"). The window and `limit` are sent only when
    /// set.
    pub struct FundingRateHistoryRequest => FundingRateHistory;
    meta = public_meta(
        "swap.funding_rate_history",
        "/swap/v2/public/funding_rate_history",
    )
    .weight(10);
    /// Past funding rates of `instrument_id` (default: the latest 20).
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// Window start (ms).
        opt start_timestamp: TimestampMillis,
        /// Window end (ms); must be after the start.
        opt end_timestamp: TimestampMillis,
        /// Number of entries, 1..=100 (the server's default is 20); sent only when set.
        opt limit: u32 [range(1, 100), server_default(20)],
    }
    window = window(start_timestamp, end_timestamp);
}

/// Answer of [`FundingRateHistoryRequest`]. An answer without `data` decodes to no entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct FundingRateHistory {
    /// Instrument id (echo of the request).
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Past settlements, in the server's order.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub funding_rates: Vec<FundingRateEntry>,
}

/// One past funding settlement.
///
/// DESIGN: `time` is the key of the entry (one settlement per time), so it is required; `rate` is
/// optional like every other value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct FundingRateEntry {
    /// Rate applied (a fraction per funding interval).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub rate: Option<Decimal>,
    /// Settlement time (ms).
    pub time: TimestampMillis,
}

// ---------------------------------------------------------------------------------------------
// Private helpers shared with [`super::account`]
