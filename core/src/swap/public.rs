//! Public swap market data (GET, no authentication).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{
    check_instrument, check_limit, check_window, known_code, public_meta, ContractType,
    Granularity, InstrumentKind, InstrumentStatus, InstrumentType, OrderSide,
};
use crate::catalog::{entry, CatalogEntry, FromParams, ParamMap};
use crate::endpoint::{Endpoint, Meta, Params};
use crate::error::Error;
use crate::types::TimestampMillis;

/// Every public swap endpoint, in documentation order.
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerTimeRequest;

impl Endpoint for ServerTimeRequest {
    type Output = TimestampMillis;
    const META: Meta = public_meta("swap.time", "/swap/v2/public/time");
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
/// (see [`crate::ratelimit::WeightTable`]).
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

/// One route and its weight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteWeight {
    /// Request path (`/swap/v2/trade/order_place`).
    #[serde(default, with = "crate::de::string")]
    pub path: String,
    /// Weight counted per request.
    #[serde(with = "crate::de::int")]
    pub weight: u32,
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/depth`: the order book of an instrument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepthRequest {
    instrument_id: String,
    limit: Option<u32>,
}

impl DepthRequest {
    /// The book of `instrument_id` (`BTCUSDTPERP`), default 20 levels per side.
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
    const META: Meta = public_meta("swap.depth", "/swap/v2/public/depth");
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

/// One price level `[price, amount]`: the spot order book's level type (the swap API sends the
/// price as a string and the amount as a number; either form is accepted for both, exactly).
pub type DepthLevel = crate::spot::Level;

/// Answer of [`DepthRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Depth {
    /// Instrument id.
    #[serde(default, with = "crate::de::string")]
    pub instrument_id: String,
    /// Snapshot time (ms).
    #[serde(default)]
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
    const META: Meta = public_meta("swap.instruments", "/swap/v2/public/instruments");
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
    const META: Meta = public_meta("swap.instrument", "/swap/v2/public/instrument");
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
/// DESIGN: only `instrument_id` identifies the record; every other field may be missing or `""`
/// (decoded as `None`, or as an empty text or list) so that one odd instrument cannot fail the
/// decoding of the whole listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instrument {
    /// Instrument id (`BTCUSDTPERP`).
    #[serde(default, with = "crate::de::string")]
    pub instrument_id: String,
    /// SIMULATE or REAL (wire name `type`).
    #[serde(rename = "type", default, deserialize_with = "opt_instrument_kind")]
    pub kind: Option<InstrumentKind>,
    /// PERPETUAL.
    #[serde(default, deserialize_with = "opt_contract_type")]
    pub contract_type: Option<ContractType>,
    /// Base currency.
    #[serde(default, with = "crate::de::string")]
    pub base_currency: String,
    /// Quote currency.
    #[serde(default, with = "crate::de::string")]
    pub quote_currency: String,
    /// Settlement currency.
    #[serde(default, with = "crate::de::string")]
    pub clear_currency: String,
    /// Contract value per size unit.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub contract_value: Option<Decimal>,
    /// Currency of `contract_value`.
    #[serde(default, with = "crate::de::string")]
    pub contract_value_currency: String,
    /// Inverse contract (boolean, or `0`/`1`).
    #[serde(default, with = "crate::de::opt_flag")]
    pub is_inverse: Option<bool>,
    /// Trading enabled (separate from `status`).
    #[serde(default, with = "crate::de::opt_flag")]
    pub is_trading: Option<bool>,
    /// ONLINE, OFFLINE or DELIVERY.
    #[serde(default, deserialize_with = "opt_instrument_status")]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenMaxLimit {
    /// Leverage threshold.
    #[serde(with = "crate::de::decimal")]
    pub leverage: Decimal,
    /// Maximum position value.
    #[serde(with = "crate::de::decimal")]
    pub max_limit: Decimal,
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/trades`: recent public trades of an instrument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradesRequest {
    instrument_id: String,
    limit: Option<u32>,
}

impl TradesRequest {
    /// Recent trades of `instrument_id`, default 20.
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
    const META: Meta = public_meta("swap.trades", "/swap/v2/public/trades");
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicTrade {
    /// Instrument id.
    #[serde(default, with = "crate::de::string")]
    pub instrument_id: String,
    /// Trade id (a long numeric string, or a number).
    #[serde(with = "crate::de::id")]
    pub trade_id: String,
    /// Open/close long/short (sent as a string `"1"`..`"4"`; a number is accepted).
    pub direction: OrderSide,
    /// Size.
    #[serde(with = "crate::de::decimal")]
    pub volume: Decimal,
    /// Price.
    #[serde(with = "crate::de::decimal")]
    pub price: Decimal,
    /// Trade time (ms).
    pub trade_time: TimestampMillis,
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/public/ticker`: the ticker of one instrument (with `open_interest`).
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
    const META: Meta = public_meta("swap.ticker", "/swap/v2/public/ticker");
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
    const META: Meta = public_meta("swap.tickers", "/swap/v2/public/tickers");
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
/// DESIGN: every value may be missing or `""` (an instrument without trades or without a book
/// has no last price or best quotes), so all are `Option`. `open_interest` is only meaningful
/// in the single-instrument answer: the spec says to ignore it in the all-tickers listing, so it
/// is kept as sent there, without meaning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticker {
    /// Instrument id.
    #[serde(default, with = "crate::de::string")]
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
    /// 24h price change, as the server writes it.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price_change_percent: Option<Decimal>,
    /// Open interest (single-instrument ticker only; absent or meaningless in the listing).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_interest: Option<Decimal>,
    /// Ticker time (ms).
    #[serde(default)]
    pub timestamp: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

/// Default and documented `limit` of the candle endpoints.
pub const DEFAULT_CANDLE_LIMIT: u32 = 20;

/// `GET /swap/v2/public/candles`: the latest candles of an instrument.
///
/// DESIGN: the spec lists `limit` as required yet with a default of 20; this request always
/// sends it, 20 unless [`CandlesRequest::limit`] says otherwise (so a server that really
/// requires it is satisfied, and the default stays the documented one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandlesRequest {
    instrument_id: String,
    granularity: Granularity,
    limit: u32,
}

impl CandlesRequest {
    /// The last 20 candles of `instrument_id` at `granularity`.
    pub fn new(instrument_id: impl Into<String>, granularity: Granularity) -> Self {
        CandlesRequest {
            instrument_id: instrument_id.into(),
            granularity,
            limit: DEFAULT_CANDLE_LIMIT,
        }
    }
    /// Number of candles, 1..=100 (default 20).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = limit;
        self
    }
}

impl Endpoint for CandlesRequest {
    type Output = Candles;
    const META: Meta = public_meta("swap.candles", "/swap/v2/public/candles");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        let granularity = known_granularity(&self.granularity)?;
        check_limit(Some(self.limit))?;
        p.push("instrument_id", &self.instrument_id);
        p.push("granularity", granularity);
        p.push_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for CandlesRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(CandlesRequest {
            instrument_id: p.take_str("instrument_id")?,
            granularity: Granularity::from_wire(&p.take_str("granularity")?),
            limit: p.take_opt_int("limit")?.unwrap_or(DEFAULT_CANDLE_LIMIT),
        })
    }
}

/// `GET /swap/v2/public/candles_history`: candles of an instrument in a time window.
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
    /// Number of candles, 1..=100 (default 20).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for CandlesHistoryRequest {
    type Output = Candles;
    const META: Meta = public_meta("swap.candles_history", "/swap/v2/public/candles_history");
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candles {
    /// Instrument id.
    #[serde(default, with = "crate::de::string")]
    pub instrument_id: String,
    /// Granularity of the candles (echo of the request).
    #[serde(default, deserialize_with = "opt_granularity")]
    pub granularity: Option<Granularity>,
    /// The candles, in the server's order.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub candles: Vec<Candle>,
}

/// One candle, from the positional array
/// `[start ms, open, high, low, close, volume, token volume]` (values as strings or numbers).
/// The token volume may be missing, `null` or `""`; further elements are ignored.
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

/// `GET /swap/v2/public/funding_rate`: the current and the forecast funding rate.
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
    const META: Meta = public_meta("swap.funding_rate", "/swap/v2/public/funding_rate");
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FundingRate {
    /// Instrument id.
    #[serde(default, with = "crate::de::string")]
    pub instrument_id: String,
    /// Rate of the coming settlement.
    #[serde(with = "crate::de::decimal")]
    pub funding_rate: Decimal,
    /// Settlement time of `funding_rate` (ms).
    #[serde(default)]
    pub funding_time: Option<TimestampMillis>,
    /// Forecast rate of the settlement after (may be `""` when not yet known).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub next_funding_rate: Option<Decimal>,
    /// Settlement time of `next_funding_rate` (ms).
    #[serde(default)]
    pub next_funding_time: Option<TimestampMillis>,
}

/// `GET /swap/v2/public/funding_rate_history`: past funding rates of an instrument.
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
    /// Number of entries, 1..=100 (default 20).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for FundingRateHistoryRequest {
    type Output = FundingRateHistory;
    const META: Meta = public_meta(
        "swap.funding_rate_history",
        "/swap/v2/public/funding_rate_history",
    );
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

/// Answer of [`FundingRateHistoryRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FundingRateHistory {
    /// Instrument id.
    #[serde(default, with = "crate::de::string")]
    pub instrument_id: String,
    /// Past settlements, in the server's order.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub funding_rates: Vec<FundingRateEntry>,
}

/// One past funding settlement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FundingRateEntry {
    /// Rate applied.
    #[serde(with = "crate::de::decimal")]
    pub rate: Decimal,
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

/// Optional string-enum fields: missing, `null` and `""` are `None`, any other text is the enum's
/// variant (an unknown text is its `Other` arm).
macro_rules! opt_str_enum_de {
    ($($fn_name:ident => $t:ty),+ $(,)?) => {$(
        pub(super) fn $fn_name<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> Result<Option<$t>, D::Error> {
            Ok(crate::de::opt_string::deserialize(d)?.map(|s| <$t>::from_wire(&s)))
        }
    )+};
}
pub(super) use opt_str_enum_de;

opt_str_enum_de! {
    opt_instrument_kind => InstrumentKind,
    opt_contract_type => ContractType,
    opt_instrument_status => InstrumentStatus,
    opt_granularity => Granularity,
}
