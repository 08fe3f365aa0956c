//! Public swap market data (GET, no authentication).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{
    check_instrument, check_limit, check_window, known_code, public_meta, ContractType,
    Granularity, InstrumentKind, InstrumentStatus, InstrumentType, OrderSide,
};
#[cfg(feature = "catalog")]
use crate::catalog::{entry, CatalogEntry};
use crate::endpoint::{Endpoint, Meta, Params};
use crate::error::Error;
use crate::params::{FromParams, ParamMap};
use crate::types::TimestampMillis;

/// Every public swap endpoint, in documentation order.
#[cfg(feature = "catalog")]
pub(crate) static ENTRIES: &[CatalogEntry] = &[
    entry::<ServerTimeRequest>(),
    entry::<ApiWeightRequest>(),
    entry::<InstrumentsRequest>(),
    entry::<InstrumentRequest>(),
    entry::<DepthRequest>(),
    entry::<TradesRequest>(),
    entry::<TickerRequest>(),
    entry::<TickersRequest>(),
    entry::<CandlesRequest>(),
    entry::<FundingRateRequest>(),
    entry::<CandlesHistoryRequest>(),
    entry::<FundingRateHistoryRequest>(),
];

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/time`: the server's clock in milliseconds (for clock-offset estimation).
///
/// The answer is the time itself (required). Weight 1 (venue-notes.md, "route weights").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerTimeRequest;

impl Endpoint for ServerTimeRequest {
    type Output = TimestampMillis;
    const META: Meta = Meta {
        weight: Some(1),
        ..public_meta("swap.time", "/swap/v2/public/time")
    };
    fn encode(&self, _: &mut Params) -> Result<(), Error> {
        Ok(())
    }
}

impl FromParams for ServerTimeRequest {
    fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
        Ok(ServerTimeRequest)
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/api_weight`: the weight of every route, for a weight budget
/// (see [`crate::ratelimit::WeightTable`]). Its own weight is not published (no `weight` in its
/// [`Meta`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApiWeightRequest;

impl Endpoint for ApiWeightRequest {
    type Output = Vec<RouteWeight>;
    const META: Meta = public_meta("swap.api_weight", "/swap/v2/public/api_weight");
    fn encode(&self, _: &mut Params) -> Result<(), Error> {
        Ok(())
    }
}

impl FromParams for ApiWeightRequest {
    fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
        Ok(ApiWeightRequest)
    }
}

/// One route and its weight (element of [`ApiWeightRequest`]'s answer, keyed by `path`).
///
/// DESIGN: both fields are required: `path` is the row's key, and `weight` is the row's only
/// value (a route listed without its weight tells a budget nothing, like a candle without its
/// prices).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteWeight {
    /// Request path (`/swap/v2/trade/order_place`).
    #[serde(with = "crate::de::text")]
    pub path: String,
    /// Weight counted per request.
    #[serde(with = "crate::de::req")]
    pub weight: u32,
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/depth`: the order book of an instrument.
///
/// Weight 2 (venue-notes.md, "route weights"). `limit` is sent only when set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepthRequest {
    instrument_id: String,
    limit: Option<u32>,
}

impl DepthRequest {
    /// The book of `instrument_id` (`BTCUSDTPERP`); without [`DepthRequest::limit`] the server
    /// answers its default, 20 levels per side.
    pub fn new(instrument_id: impl Into<String>) -> Self {
        DepthRequest {
            instrument_id: instrument_id.into(),
            limit: None,
        }
    }
    /// Levels per side, 1..=100.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for DepthRequest {
    type Output = Depth;
    const META: Meta = Meta {
        weight: Some(2),
        ..public_meta("swap.depth", "/swap/v2/public/depth")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        check_limit(self.limit)?;
        p.push("instrument_id", &self.instrument_id);
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for DepthRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(DepthRequest {
            instrument_id: p.take_str("instrument_id")?,
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// One price level `[price, amount]`: the spot order book's level type. Both columns are
/// required. The documents show the price as a string and the amount as a number; the live REST
/// depth sends both as JSON numbers (venue-notes.md); either form is accepted for both, exactly.
pub type DepthLevel = crate::spot::Level;

/// Answer of [`DepthRequest`]: the levels as the server orders them (find the best bid and ask
/// by price).
///
/// DESIGN: only the levels' price and amount are required; `instrument_id` echoes the request
/// and `timestamp` is informative, so both are optional. An answer without `data` decodes to an
/// empty book.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Depth {
    /// Instrument id (echo of the request).
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Snapshot time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampMillis>,
    /// Sell levels.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub asks: Vec<DepthLevel>,
    /// Buy levels.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub bids: Vec<DepthLevel>,
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/instruments`: every perpetual instrument (real ones by default).
///
/// Weight 5 (venue-notes.md, "route weights"). `type` is sent only when set: `type=1`
/// ([`InstrumentType::Simulate`]) lists the SIMULATE contracts, such as `BTCUSDT2PERP` settled in
/// `USDT2` (venue-notes.md).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstrumentsRequest {
    instrument_type: Option<InstrumentType>,
}

impl InstrumentsRequest {
    /// All instruments of the default type (real).
    pub fn new() -> Self {
        InstrumentsRequest::default()
    }
    /// Only simulated or only real instruments (`type` 1 or 2).
    pub fn instrument_type(mut self, instrument_type: InstrumentType) -> Self {
        self.instrument_type = Some(instrument_type);
        self
    }
}

impl Endpoint for InstrumentsRequest {
    type Output = Vec<Instrument>;
    const META: Meta = Meta {
        weight: Some(5),
        ..public_meta("swap.instruments", "/swap/v2/public/instruments")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let kind = known_instrument_type(self.instrument_type.as_ref())?;
        p.push_opt_display("type", kind);
        Ok(())
    }
}

impl FromParams for InstrumentsRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(InstrumentsRequest {
            instrument_type: p.take_opt_int("type")?.map(InstrumentType::from_code),
        })
    }
}

/// `GET /swap/v2/public/instrument`: one instrument.
///
/// Weight 1 (venue-notes.md, "route weights").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstrumentRequest {
    instrument_id: String,
}

impl InstrumentRequest {
    /// The description of `instrument_id` (`BTCUSDTPERP`).
    pub fn new(instrument_id: impl Into<String>) -> Self {
        InstrumentRequest {
            instrument_id: instrument_id.into(),
        }
    }
}

impl Endpoint for InstrumentRequest {
    type Output = Instrument;
    const META: Meta = Meta {
        weight: Some(1),
        ..public_meta("swap.instrument", "/swap/v2/public/instrument")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        p.push("instrument_id", &self.instrument_id);
        Ok(())
    }
}

impl FromParams for InstrumentRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(InstrumentRequest {
            instrument_id: p.take_str("instrument_id")?,
        })
    }
}

/// A perpetual instrument (answer of [`InstrumentRequest`], element of [`InstrumentsRequest`]).
///
/// DESIGN: only `instrument_id` (the listing's key) is required; every other field may be
/// missing, a placeholder or unreadable and is then `None` (or an empty list), so that one odd
/// instrument cannot fail the decoding of the whole listing. Simulated instruments
/// ([`InstrumentKind::Simulate`], listed with `type=1`) are named like `BTCUSDT2PERP` and settle
/// in `USDT2` (venue-notes.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenMaxLimit {
    /// Leverage threshold.
    #[serde(with = "crate::de::decimal")]
    pub leverage: Decimal,
    /// Maximum position value.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub max_limit: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/trades`: recent public trades of an instrument.
///
/// Weight 1 (venue-notes.md, "route weights"). `limit` is sent only when set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradesRequest {
    instrument_id: String,
    limit: Option<u32>,
}

impl TradesRequest {
    /// Recent trades of `instrument_id`; without [`TradesRequest::limit`] the server answers its
    /// default, 20.
    pub fn new(instrument_id: impl Into<String>) -> Self {
        TradesRequest {
            instrument_id: instrument_id.into(),
            limit: None,
        }
    }
    /// Number of trades, 1..=100.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for TradesRequest {
    type Output = Vec<PublicTrade>;
    const META: Meta = Meta {
        weight: Some(1),
        ..public_meta("swap.trades", "/swap/v2/public/trades")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        check_limit(self.limit)?;
        p.push("instrument_id", &self.instrument_id);
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for TradesRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TradesRequest {
            instrument_id: p.take_str("instrument_id")?,
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// A public trade (element of [`TradesRequest`]'s answer).
///
/// DESIGN: only `trade_id` (the trade's identity) is required; every other field may be missing,
/// a placeholder or unreadable and is then `None`, so one odd trade cannot hide the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `GET /swap/v2/public/ticker`: the ticker of one instrument (with `open_interest`).
///
/// Weight 1 (venue-notes.md, "route weights").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TickerRequest {
    instrument_id: String,
}

impl TickerRequest {
    /// The ticker of `instrument_id`.
    pub fn new(instrument_id: impl Into<String>) -> Self {
        TickerRequest {
            instrument_id: instrument_id.into(),
        }
    }
}

impl Endpoint for TickerRequest {
    type Output = Ticker;
    const META: Meta = Meta {
        weight: Some(1),
        ..public_meta("swap.ticker", "/swap/v2/public/ticker")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        p.push("instrument_id", &self.instrument_id);
        Ok(())
    }
}

impl FromParams for TickerRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TickerRequest {
            instrument_id: p.take_str("instrument_id")?,
        })
    }
}

/// `GET /swap/v2/public/tickers`: the tickers of every instrument.
///
/// Weight 1 (venue-notes.md, "route weights"). `type` is sent only when set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickersRequest {
    instrument_type: Option<InstrumentType>,
}

impl TickersRequest {
    /// Tickers of every instrument of the default type (real).
    pub fn new() -> Self {
        TickersRequest::default()
    }
    /// Only simulated or only real instruments (`type` 1 or 2).
    pub fn instrument_type(mut self, instrument_type: InstrumentType) -> Self {
        self.instrument_type = Some(instrument_type);
        self
    }
}

impl Endpoint for TickersRequest {
    type Output = Vec<Ticker>;
    const META: Meta = Meta {
        weight: Some(1),
        ..public_meta("swap.tickers", "/swap/v2/public/tickers")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let kind = known_instrument_type(self.instrument_type.as_ref())?;
        p.push_opt_display("type", kind);
        Ok(())
    }
}

impl FromParams for TickersRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TickersRequest {
            instrument_type: p.take_opt_int("type")?.map(InstrumentType::from_code),
        })
    }
}

/// A 24-hour ticker (answer of [`TickerRequest`], element of [`TickersRequest`]).
///
/// DESIGN: only `instrument_id` (the listing's key) is required. Every value may be missing, a
/// placeholder or unreadable (an instrument without trades or without a book has no last price
/// or best quotes; `open_interest` is `"-"` in published answers) and is then `None`, so one odd
/// row never fails the listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// -3.66 % (venue-notes.md; the spot ticker's `change` is a percent).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price_change_percent: Option<Decimal>,
    /// Open interest. In the all-tickers listing the spec says to ignore it and it is not always
    /// a number (venue-notes.md): a placeholder or unreadable value is `None` there and does not
    /// fail the listing.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_interest: Option<Decimal>,
    /// Time of the answer (ms). In the all-tickers listing it is one value shared by all rows,
    /// 0.5-60 s stale, and not the time of the index or mark price (venue-notes.md): do not read
    /// it as the age of a row's prices.
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

/// The server's default number of candles when `limit` is not sent (documented: 20).
pub const DEFAULT_CANDLE_LIMIT: u32 = 20;

/// `GET /swap/v2/public/candles`: the latest candles of an instrument.
///
/// Weight 1 (venue-notes.md, "route weights").
///
/// DESIGN: the spec lists `limit` as required with a default of 20, but live clients omit it and
/// get answers (venue-notes.md: send only the parameters the caller set). So `limit` is sent only
/// when [`CandlesRequest::limit`] sets it; otherwise the server answers its default
/// ([`DEFAULT_CANDLE_LIMIT`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandlesRequest {
    instrument_id: String,
    granularity: Granularity,
    limit: Option<u32>,
}

impl CandlesRequest {
    /// The latest candles of `instrument_id` at `granularity` (the server's default number, 20).
    pub fn new(instrument_id: impl Into<String>, granularity: Granularity) -> Self {
        CandlesRequest {
            instrument_id: instrument_id.into(),
            granularity,
            limit: None,
        }
    }
    /// Number of candles, 1..=100; sent only when set.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for CandlesRequest {
    type Output = Candles;
    const META: Meta = Meta {
        weight: Some(1),
        ..public_meta("swap.candles", "/swap/v2/public/candles")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        let granularity = known_granularity(&self.granularity)?;
        check_limit(self.limit)?;
        p.push("instrument_id", &self.instrument_id);
        p.push("granularity", granularity);
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for CandlesRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(CandlesRequest {
            instrument_id: p.take_str("instrument_id")?,
            granularity: Granularity::from_wire(&p.take_str("granularity")?),
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// `GET /swap/v2/public/candles_history`: candles of an instrument in a time window.
///
/// Weight 10 (venue-notes.md, "route weights"). The window and `limit` are sent only when set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandlesHistoryRequest {
    instrument_id: String,
    granularity: Granularity,
    start_timestamp: Option<TimestampMillis>,
    end_timestamp: Option<TimestampMillis>,
    limit: Option<u32>,
}

impl CandlesHistoryRequest {
    /// Candles of `instrument_id` at `granularity` (default: the server's latest 20).
    pub fn new(instrument_id: impl Into<String>, granularity: Granularity) -> Self {
        CandlesHistoryRequest {
            instrument_id: instrument_id.into(),
            granularity,
            start_timestamp: None,
            end_timestamp: None,
            limit: None,
        }
    }
    /// Window start (ms).
    pub fn start_timestamp(mut self, start: TimestampMillis) -> Self {
        self.start_timestamp = Some(start);
        self
    }
    /// Window end (ms); must be after the start.
    pub fn end_timestamp(mut self, end: TimestampMillis) -> Self {
        self.end_timestamp = Some(end);
        self
    }
    /// Number of candles, 1..=100 (the server's default is 20); sent only when set.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for CandlesHistoryRequest {
    type Output = Candles;
    const META: Meta = Meta {
        weight: Some(10),
        ..public_meta("swap.candles_history", "/swap/v2/public/candles_history")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        let granularity = known_granularity(&self.granularity)?;
        check_window(self.start_timestamp, self.end_timestamp)?;
        check_limit(self.limit)?;
        p.push("instrument_id", &self.instrument_id);
        p.push("granularity", granularity);
        p.push_opt_display("start_timestamp", self.start_timestamp.map(|t| t.0));
        p.push_opt_display("end_timestamp", self.end_timestamp.map(|t| t.0));
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for CandlesHistoryRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(CandlesHistoryRequest {
            instrument_id: p.take_str("instrument_id")?,
            granularity: Granularity::from_wire(&p.take_str("granularity")?),
            start_timestamp: p.take_opt_int("start_timestamp")?.map(TimestampMillis),
            end_timestamp: p.take_opt_int("end_timestamp")?.map(TimestampMillis),
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// Answer of [`CandlesRequest`] and [`CandlesHistoryRequest`].
///
/// DESIGN: `instrument_id` and `granularity` echo the request and are optional; each candle's
/// leading columns are required (see [`Candle`]). An answer without `data` decodes to no
/// candles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candles {
    /// Instrument id (echo of the request).
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Granularity of the candles (echo of the request).
    #[serde(default, with = "crate::de::opt")]
    pub granularity: Option<Granularity>,
    /// The candles, in the server's order.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub candles: Vec<Candle>,
}

/// One candle, from the positional array
/// `[start ms, open, high, low, close, volume, token volume]` (values as strings or numbers).
///
/// The start time, the four prices and the volume are the row's leading columns: required (a
/// missing, placeholder or unreadable one fails the answer). The token volume is optional: it may
/// be missing, a placeholder or unreadable (`None`); further elements are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
        crate::de::positional(d, "candle", |c| {
            Ok(Candle {
                time: TimestampMillis(c.int()?),
                open: c.decimal()?,
                high: c.decimal()?,
                low: c.decimal()?,
                close: c.decimal()?,
                volume: c.decimal()?,
                token_volume: c.opt_decimal()?,
            })
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/funding_rate`: the last settled and the forecast funding rate.
///
/// Weight 1 (venue-notes.md, "route weights").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FundingRateRequest {
    instrument_id: String,
}

impl FundingRateRequest {
    /// The funding rate of `instrument_id`.
    pub fn new(instrument_id: impl Into<String>) -> Self {
        FundingRateRequest {
            instrument_id: instrument_id.into(),
        }
    }
}

impl Endpoint for FundingRateRequest {
    type Output = FundingRate;
    const META: Meta = Meta {
        weight: Some(1),
        ..public_meta("swap.funding_rate", "/swap/v2/public/funding_rate")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        p.push("instrument_id", &self.instrument_id);
        Ok(())
    }
}

impl FromParams for FundingRateRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(FundingRateRequest {
            instrument_id: p.take_str("instrument_id")?,
        })
    }
}

/// Answer of [`FundingRateRequest`].
///
/// The live venue reports in `funding_rate` the **last settled** rate, labelled with the
/// **next** funding time (`funding_time`), not the rate of the coming settlement that the
/// documents describe (venue-notes.md). Most contracts fund every 8 hours, some every 4 hours:
/// do not assume 8. The answer has no interval field; ccxt derives the interval as
/// `next_funding_time - funding_time` (ccxt/ccxt `ts/src/digifinex.ts`, `parseFundingRate`).
///
/// DESIGN: every field is optional (the answer is an object of several values, none of them an
/// identity): a missing, placeholder or unreadable value is `None`, and an answer without `data`
/// decodes to a `FundingRate` whose fields are all `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `GET /swap/v2/public/funding_rate_history`: past funding rates of an instrument.
///
/// Weight 10 (venue-notes.md, "route weights"). The window and `limit` are sent only when set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FundingRateHistoryRequest {
    instrument_id: String,
    start_timestamp: Option<TimestampMillis>,
    end_timestamp: Option<TimestampMillis>,
    limit: Option<u32>,
}

impl FundingRateHistoryRequest {
    /// Past funding rates of `instrument_id` (default: the latest 20).
    pub fn new(instrument_id: impl Into<String>) -> Self {
        FundingRateHistoryRequest {
            instrument_id: instrument_id.into(),
            start_timestamp: None,
            end_timestamp: None,
            limit: None,
        }
    }
    /// Window start (ms).
    pub fn start_timestamp(mut self, start: TimestampMillis) -> Self {
        self.start_timestamp = Some(start);
        self
    }
    /// Window end (ms); must be after the start.
    pub fn end_timestamp(mut self, end: TimestampMillis) -> Self {
        self.end_timestamp = Some(end);
        self
    }
    /// Number of entries, 1..=100 (the server's default is 20); sent only when set.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for FundingRateHistoryRequest {
    type Output = FundingRateHistory;
    const META: Meta = Meta {
        weight: Some(10),
        ..public_meta(
            "swap.funding_rate_history",
            "/swap/v2/public/funding_rate_history",
        )
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        check_window(self.start_timestamp, self.end_timestamp)?;
        check_limit(self.limit)?;
        p.push("instrument_id", &self.instrument_id);
        p.push_opt_display("start_timestamp", self.start_timestamp.map(|t| t.0));
        p.push_opt_display("end_timestamp", self.end_timestamp.map(|t| t.0));
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for FundingRateHistoryRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(FundingRateHistoryRequest {
            instrument_id: p.take_str("instrument_id")?,
            start_timestamp: p.take_opt_int("start_timestamp")?.map(TimestampMillis),
            end_timestamp: p.take_opt_int("end_timestamp")?.map(TimestampMillis),
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// Answer of [`FundingRateHistoryRequest`]. An answer without `data` decodes to no entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FundingRateEntry {
    /// Rate applied (a fraction per funding interval).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub rate: Option<Decimal>,
    /// Settlement time (ms).
    pub time: TimestampMillis,
}

/// Refuses the `Other` arm of a [`Granularity`] (field `granularity`); returns the wire text.
fn known_granularity(g: &Granularity) -> Result<&str, Error> {
    known_text(
        "granularity",
        g.as_str(),
        matches!(g, Granularity::Other(_)),
    )
}

// ---------------------------------------------------------------------------------------------
// Private helpers shared with [`super::account`]

/// Refuses the `Other` arm of a string enum in a request, naming the field; returns the wire text.
pub(super) fn known_text<'a>(
    field: &'static str,
    text: &'a str,
    is_other: bool,
) -> Result<&'a str, Error> {
    if is_other {
        Err(Error::validation(
            field,
            format!("{text:?} is not a documented value"),
        ))
    } else {
        Ok(text)
    }
}

/// Refuses the `Unknown` arm of an optional instrument `type` filter (field `type`).
pub(super) fn known_instrument_type(t: Option<&InstrumentType>) -> Result<Option<i64>, Error> {
    t.map(|t| known_code("type", t)).transpose()
}
