//! Public market data (no authentication).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[cfg(feature = "catalog")]
use crate::catalog::{entry, CatalogEntry};
use crate::endpoint::{Endpoint, Family, Meta, Method, Params};
use crate::error::Error;
use crate::params::{FromParams, ParamMap};
use crate::spot::{check_range, check_symbol};
use crate::types::str_enum;
use crate::types::{Pair, TimestampSecs};

#[cfg(feature = "catalog")]
pub(crate) const ENTRIES: &[CatalogEntry] = &[
    entry::<Ping>(),
    entry::<ServerTimeRequest>(),
    entry::<MarketsRequest>(),
    entry::<TickerRequest>(),
    entry::<OrderBookRequest>(),
    entry::<TradesRequest>(),
    entry::<KlineRequest>(),
    entry::<SpotSymbolsRequest>(),
    entry::<MarginCurrenciesRequest>(),
    entry::<MarginSymbolsRequest>(),
    entry::<TradesSymbolsRequest>(),
    entry::<CurrenciesRequest>(),
];

const fn public(name: &'static str, path: &'static str) -> Meta {
    Meta {
        name,
        family: Family::Spot,
        method: Method::Get,
        path,
        signed: false,
        idempotent: true,
        success_code: 0,
        weight: None,
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/ping`: checks that the service answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ping;

/// Answer of [`Ping`]. An answer without `msg` (`{"code":0}`) decodes to `msg: None`: the
/// success code alone says that the service answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pong {
    /// The service's message (`pong`); optional text.
    #[serde(default, with = "crate::de::opt_string")]
    pub msg: Option<String>,
}

impl Endpoint for Ping {
    type Output = Pong;
    const META: Meta = public("spot.ping", "/ping");
    fn encode(&self, _: &mut Params) -> Result<(), Error> {
        Ok(())
    }
}

impl FromParams for Ping {
    fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
        Ok(Ping)
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/order_book`: the order book of one pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderBookRequest {
    symbol: String,
    limit: Option<u32>,
}

impl OrderBookRequest {
    /// The book of `symbol` (`btc_usdt`), default depth 10.
    pub fn new(symbol: impl Into<String>) -> Self {
        OrderBookRequest {
            symbol: symbol.into(),
            limit: None,
        }
    }
    /// Levels per side, 1..=150.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for OrderBookRequest {
    type Output = OrderBook;
    const META: Meta = public("spot.order_book", "/order_book");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_symbol("symbol", &self.symbol)?;
        if let Some(l) = self.limit {
            check_range("limit", l, 1, 150)?;
        }
        p.push("symbol", &self.symbol);
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for OrderBookRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(OrderBookRequest {
            symbol: p.take_str("symbol")?,
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// One price level `[price, size]` (also the swap depth level, [`crate::swap::DepthLevel`]).
///
/// A level is a positional row: both columns are required (a level without its price or size
/// fails the answer, naming the level's JSON path); further columns are ignored. Both columns
/// read a JSON number or a numeric string, exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Level {
    /// Price.
    pub price: Decimal,
    /// Size: base currency in a spot book, contracts in a swap depth.
    pub amount: Decimal,
}

impl Level {
    /// The level with the highest price in `levels` (the best bid of a bid side), whatever
    /// order the levels are in; `None` when `levels` is empty. Of equal prices, the last.
    pub fn highest(levels: &[Level]) -> Option<&Level> {
        levels.iter().max_by_key(|l| l.price)
    }

    /// The level with the lowest price in `levels` (the best ask of an ask side), whatever
    /// order the levels are in; `None` when `levels` is empty. Of equal prices, the first.
    pub fn lowest(levels: &[Level]) -> Option<&Level> {
        levels.iter().min_by_key(|l| l.price)
    }
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::positional(d, "price level", |c| {
            Ok(Level {
                price: c.decimal().map_err(|e| crate::de::column(0, "price", e))?,
                amount: c.decimal().map_err(|e| crate::de::column(1, "amount", e))?,
            })
        })
    }
}

impl Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&self.price.to_string())?;
        t.serialize_element(&self.amount.to_string())?;
        t.end()
    }
}

/// Answer of [`OrderBookRequest`]. Both sides are kept in the order the venue sends them.
///
/// The order is not documented. Published answers list **bids highest price first** (best bid
/// first) and **asks highest price first too, so the best ask is the last ask** (venue-notes.md;
/// the sample answer in ccxt/ccxt `js/digifinex.js`, `fetchOrderBook`, has asks `9627.22`,
/// `9627.12`, `9626.52`). Never rely on an order: [`OrderBook::best_bid`] and
/// [`OrderBook::best_ask`] find the best levels by price whatever the order.
///
/// A missing or `null` side is empty. An answer without payload (`{"code":0}`) decodes to an
/// empty book with `date: None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderBook {
    /// Buy levels, as sent (published answers: highest price first).
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub bids: Vec<Level>,
    /// Sell levels, as sent (published answers: highest price first, the best ask last).
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub asks: Vec<Level>,
    /// Server time of the snapshot (seconds).
    #[serde(default, with = "crate::de::opt")]
    pub date: Option<TimestampSecs>,
}

impl OrderBook {
    /// The best bid: the bid with the highest price, wherever it is in [`Self::bids`].
    pub fn best_bid(&self) -> Option<&Level> {
        Level::highest(&self.bids)
    }

    /// The best ask: the ask with the lowest price, wherever it is in [`Self::asks`] (in the
    /// venue's published order, the last one).
    pub fn best_ask(&self) -> Option<&Level> {
        Level::lowest(&self.asks)
    }

    /// Best ask price minus best bid price; `None` when a side is empty. Negative when the
    /// book is crossed (never hidden).
    pub fn spread(&self) -> Option<Decimal> {
        let (bid, ask) = (self.best_bid()?, self.best_ask()?);
        ask.price.checked_sub(bid.price)
    }

    /// The mid price, `(best bid + best ask) / 2`; `None` when a side is empty.
    pub fn mid(&self) -> Option<Decimal> {
        let (bid, ask) = (self.best_bid()?, self.best_ask()?);
        bid.price.checked_add(ask.price)?.checked_div(Decimal::TWO)
    }
}

// ---------------------------------------------------------------------------------------------

/// Declares a parameterless public request: unit struct, `Endpoint` and `FromParams`.
macro_rules! no_param_request {
    ($(#[$doc:meta])* $name:ident => $output:ty, $meta:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl Endpoint for $name {
            type Output = $output;
            const META: Meta = $meta;
            fn encode(&self, _: &mut Params) -> Result<(), Error> {
                Ok(())
            }
        }

        impl FromParams for $name {
            fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
                Ok($name)
            }
        }
    };
}

no_param_request! {
    /// `GET /v3/time`: the server's clock (seconds), for clock-offset estimation.
    ServerTimeRequest => ServerTime, public("spot.time", "/time")
}

/// Answer of [`ServerTimeRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerTime {
    /// Server time in seconds. Required: it is the whole answer, so an answer without a
    /// readable `server_time` is a decode error naming `server_time`.
    pub server_time: TimestampSecs,
}

// ---------------------------------------------------------------------------------------------

no_param_request! {
    /// `GET /v3/markets`: precision and minimums of every pair.
    MarketsRequest => Markets, public("spot.markets", "/markets")
}

/// Answer of [`MarketsRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Markets {
    /// One entry per pair.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<MarketInfo>,
    /// Server time (seconds).
    #[serde(default, with = "crate::de::opt")]
    pub date: Option<TimestampSecs>,
}

/// A market description. `market` is the row's key (required); everything else is optional.
///
/// DESIGN: the spec's "minimum trading amount" and "minimum trading volume" are read as the
/// published answers show them: `min_amount` is the minimum order *value* in the quote currency
/// (`2` for `btc_usdt`) and `min_volume` the minimum order *amount* in the base currency
/// (`0.0001`); so read ccxt/ccxt `js/digifinex.js` (`fetchMarketsV1`: cost minimum `min_amount`,
/// amount minimum `min_volume`) and nils2525/Digifinex.Net
/// `Digifinex.Net/Objects/Models/DigifinexMarket.cs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarketInfo {
    /// Pair (`btc_usdt`; lower case on the wire, compared without case).
    pub market: Pair,
    /// Decimal places allowed in amounts (base currency).
    #[serde(default, with = "crate::de::opt_int")]
    pub volume_precision: Option<u32>,
    /// Decimal places allowed in prices.
    #[serde(default, with = "crate::de::opt_int")]
    pub price_precision: Option<u32>,
    /// Minimum order value (quote currency; see the type's DESIGN note).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_amount: Option<Decimal>,
    /// Minimum order amount (base currency; see the type's DESIGN note).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_volume: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/ticker`: 24-hour tickers of one pair, or of all pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickerRequest {
    symbol: Option<String>,
}

impl TickerRequest {
    /// Tickers of all pairs.
    pub fn all() -> Self {
        TickerRequest { symbol: None }
    }
    /// The ticker of `symbol`.
    pub fn symbol(symbol: impl Into<String>) -> Self {
        TickerRequest {
            symbol: Some(symbol.into()),
        }
    }
}

impl Endpoint for TickerRequest {
    type Output = Tickers;
    const META: Meta = public("spot.ticker", "/ticker");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        if let Some(s) = &self.symbol {
            check_symbol("symbol", s)?;
        }
        p.push_opt("symbol", self.symbol.as_deref());
        Ok(())
    }
}

impl FromParams for TickerRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TickerRequest {
            symbol: p.take_opt_str("symbol")?,
        })
    }
}

/// Answer of [`TickerRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tickers {
    /// One entry per pair.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub ticker: Vec<Ticker>,
    /// Server time (seconds).
    #[serde(default, with = "crate::de::opt")]
    pub date: Option<TimestampSecs>,
}

/// A 24-hour ticker. `symbol` is the row's key (required); every other field the server leaves
/// out, sends as a placeholder (`""`, `"-"`, `null`) or garbles is `None`.
///
/// DESIGN: despite the names, `vol` is the base-currency volume and `base_vol` the quote-currency
/// turnover (documented and observed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticker {
    /// Pair (`btc_usdt`; lower case on the wire, compared without case).
    pub symbol: Pair,
    /// 24h volume in base currency.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub vol: Option<Decimal>,
    /// 24h turnover in quote currency.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub base_vol: Option<Decimal>,
    /// 24h price change **in percent** (wire name `change`): `-1.91` is -1.91 %, not -191 %.
    ///
    /// DESIGN: the spec calls it a fraction (`0.0108` for +1.08 %), wording from the retired v2
    /// documentation; the live venue sends a percent (venue-notes.md; the sample answers in
    /// ccxt/ccxt `js/digifinex.js`, which maps it to ccxt's `percentage`, and
    /// nils2525/Digifinex.Net `Digifinex.Net/Objects/Models/DigifinexTicker.cs`, "already
    /// expressed in percent"). The field is named for its unit so it cannot be misread; the
    /// swap ticker's `price_change_percent` is, despite its name, a fraction.
    /// [`Ticker::change_fraction`] gives the fraction.
    #[serde(rename = "change", default, with = "crate::de::opt_decimal")]
    pub change_percent: Option<Decimal>,
    /// Last trade price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub last: Option<Decimal>,
    /// Best ask.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub sell: Option<Decimal>,
    /// Best bid.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub buy: Option<Decimal>,
    /// 24h high (number or string).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub high: Option<Decimal>,
    /// 24h low (number or string).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub low: Option<Decimal>,
}

impl Ticker {
    /// The 24h change as a fraction ([`Self::change_percent`] / 100: `-0.0191` for -1.91 %).
    pub fn change_fraction(&self) -> Option<Decimal> {
        self.change_percent?.checked_div(Decimal::ONE_HUNDRED)
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/trades`: recent public trades of one pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradesRequest {
    symbol: String,
    limit: Option<u32>,
}

impl TradesRequest {
    /// Recent trades of `symbol`, default 100.
    pub fn new(symbol: impl Into<String>) -> Self {
        TradesRequest {
            symbol: symbol.into(),
            limit: None,
        }
    }
    /// Number of trades, 1..=500.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for TradesRequest {
    type Output = Trades;
    const META: Meta = public("spot.trades", "/trades");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_symbol("symbol", &self.symbol)?;
        if let Some(l) = self.limit {
            check_range("limit", l, 1, 500)?;
        }
        p.push("symbol", &self.symbol);
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for TradesRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TradesRequest {
            symbol: p.take_str("symbol")?,
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// Answer of [`TradesRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trades {
    /// Trades, newest first as the server sends them.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<PublicTrade>,
    /// Server time (seconds).
    #[serde(default, with = "crate::de::opt")]
    pub date: Option<TimestampSecs>,
}

str_enum! {
    /// Taker side of a public trade.
    pub enum TradeSide {
        /// The taker bought.
        Buy = "buy",
        /// The taker sold.
        Sell = "sell",
    }
}

/// A public trade.
///
/// DESIGN: only `id` is required: it is the trade's identity (what deduplicates trades across
/// polls). Time, amount, side and price describe the trade but do not identify it, so by the
/// rule of [`crate::de`] each is optional: a placeholder or a garbled value is `None` for that
/// trade, and the other trades of the answer are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicTrade {
    /// Trade id (int or string on the wire). Required.
    #[serde(with = "crate::de::id")]
    pub id: String,
    /// Trade time (seconds).
    #[serde(default, with = "crate::de::opt")]
    pub date: Option<TimestampSecs>,
    /// Volume (base currency).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
    /// Taker side (wire name `type`); a word beyond `buy`/`sell` is kept in
    /// [`TradeSide::Other`].
    #[serde(rename = "type", default, with = "crate::de::opt")]
    pub side: Option<TradeSide>,
    /// Price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

/// Candle period of [`KlineRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KlinePeriod {
    /// 1 minute (`1`).
    M1,
    /// 5 minutes (`5`).
    M5,
    /// 15 minutes (`15`).
    M15,
    /// 30 minutes (`30`).
    M30,
    /// 1 hour (`60`).
    H1,
    /// 4 hours (`240`).
    H4,
    /// 12 hours (`720`).
    H12,
    /// 1 day (`1D`).
    D1,
    /// 1 week (`1W`).
    W1,
}

impl KlinePeriod {
    /// Every period, in increasing length.
    pub const ALL: [KlinePeriod; 9] = [
        KlinePeriod::M1,
        KlinePeriod::M5,
        KlinePeriod::M15,
        KlinePeriod::M30,
        KlinePeriod::H1,
        KlinePeriod::H4,
        KlinePeriod::H12,
        KlinePeriod::D1,
        KlinePeriod::W1,
    ];

    /// The wire value (`1`, `5`, ..., `1D`, `1W`).
    pub fn as_str(self) -> &'static str {
        match self {
            KlinePeriod::M1 => "1",
            KlinePeriod::M5 => "5",
            KlinePeriod::M15 => "15",
            KlinePeriod::M30 => "30",
            KlinePeriod::H1 => "60",
            KlinePeriod::H4 => "240",
            KlinePeriod::H12 => "720",
            KlinePeriod::D1 => "1D",
            KlinePeriod::W1 => "1W",
        }
    }

    /// The period's length in seconds.
    pub fn seconds(self) -> i64 {
        match self {
            KlinePeriod::M1 => 60,
            KlinePeriod::M5 => 300,
            KlinePeriod::M15 => 900,
            KlinePeriod::M30 => 1_800,
            KlinePeriod::H1 => 3_600,
            KlinePeriod::H4 => 14_400,
            KlinePeriod::H12 => 43_200,
            KlinePeriod::D1 => 86_400,
            KlinePeriod::W1 => 604_800,
        }
    }

    /// Parses a wire value; anything outside the documented set is a validation error on
    /// `period`.
    pub fn parse(text: &str) -> Result<Self, Error> {
        KlinePeriod::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| {
                Error::validation(
                    "period",
                    format!("{text:?} is not one of 1, 5, 15, 30, 60, 240, 720, 1D, 1W"),
                )
            })
    }
}

/// `GET /v3/kline`: candles of one pair.
///
/// DESIGN: the spec caps a call at 500 candles; a `start_time..end_time` range that spans more
/// than 500 periods is refused before sending (field `start_time`) instead of being truncated by
/// the server without notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KlineRequest {
    symbol: String,
    period: KlinePeriod,
    start_time: Option<i64>,
    end_time: Option<i64>,
}

impl KlineRequest {
    /// Candles of `symbol` at `period`: by default the 200 before now.
    pub fn new(symbol: impl Into<String>, period: KlinePeriod) -> Self {
        KlineRequest {
            symbol: symbol.into(),
            period,
            start_time: None,
            end_time: None,
        }
    }
    /// First candle time (seconds).
    pub fn start_time(mut self, secs: i64) -> Self {
        self.start_time = Some(secs);
        self
    }
    /// Last candle time (seconds); must exceed `start_time`.
    pub fn end_time(mut self, secs: i64) -> Self {
        self.end_time = Some(secs);
        self
    }
}

/// Most candles one kline call returns.
pub const MAX_CANDLES: i64 = 500;

impl Endpoint for KlineRequest {
    type Output = Klines;
    const META: Meta = public("spot.kline", "/kline");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_symbol("symbol", &self.symbol)?;
        if let (Some(s), Some(e)) = (self.start_time, self.end_time) {
            if e <= s {
                return Err(Error::validation(
                    "end_time",
                    format!("{e} must exceed start_time {s}"),
                ));
            }
            // `e - s` overflows `i64` for extreme times (`start_time=-1`, `end_time=i64::MAX`):
            // such a range is far longer than any call may span, so it is the same error.
            let Some(candles) = e
                .checked_sub(s)
                .and_then(|span| span.checked_div(self.period.seconds()))
            else {
                return Err(Error::validation(
                    "start_time",
                    format!(
                        "the range from {s} to {e} spans more than {MAX_CANDLES} candles of {}; \
                         at most {MAX_CANDLES} per call",
                        self.period.as_str()
                    ),
                ));
            };
            if candles > MAX_CANDLES {
                return Err(Error::validation(
                    "start_time",
                    format!(
                        "the range spans {candles} candles of {}; at most {MAX_CANDLES} per call",
                        self.period.as_str()
                    ),
                ));
            }
        }
        p.push("symbol", &self.symbol);
        p.push("period", self.period.as_str());
        p.push_opt_display("start_time", self.start_time);
        p.push_opt_display("end_time", self.end_time);
        Ok(())
    }
}

impl FromParams for KlineRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        let symbol = p.take_str("symbol")?;
        let period = KlinePeriod::parse(&p.take_str("period")?)?;
        Ok(KlineRequest {
            symbol,
            period,
            start_time: p.take_opt_int("start_time")?,
            end_time: p.take_opt_int("end_time")?,
        })
    }
}

/// Answer of [`KlineRequest`]: oldest first; the last candle is still forming.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Klines {
    /// The candles.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<Candle>,
}

/// One candle, from the positional array `[time, volume, close, high, low, open]`.
///
/// A candle is a positional row: all six leading columns are required (a candle without one of
/// them fails the answer, naming the candle's JSON path); further columns are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Candle {
    /// Open time (seconds).
    pub time: TimestampSecs,
    /// Volume.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub volume: Decimal,
    /// Close price.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub close: Decimal,
    /// High price.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub high: Decimal,
    /// Low price.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub low: Decimal,
    /// Open price.
    #[serde(serialize_with = "crate::de::decimal::serialize")]
    pub open: Decimal,
}

impl<'de> Deserialize<'de> for Candle {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::positional(d, "candle", |c| {
            Ok(Candle {
                time: TimestampSecs(c.int().map_err(|e| crate::de::column(0, "time", e))?),
                volume: c.decimal().map_err(|e| crate::de::column(1, "volume", e))?,
                close: c.decimal().map_err(|e| crate::de::column(2, "close", e))?,
                high: c.decimal().map_err(|e| crate::de::column(3, "high", e))?,
                low: c.decimal().map_err(|e| crate::de::column(4, "low", e))?,
                open: c.decimal().map_err(|e| crate::de::column(5, "open", e))?,
            })
        })
    }
}

// ---------------------------------------------------------------------------------------------

no_param_request! {
    /// `GET /v3/spot/symbols`: trading rules of the spot pairs.
    SpotSymbolsRequest => SymbolList, public("spot.spot_symbols", "/spot/symbols")
}

no_param_request! {
    /// `GET /v3/margin/symbols`: trading rules of the margin pairs (with `liquidation_rate`).
    MarginSymbolsRequest => SymbolList, public("spot.margin_symbols", "/margin/symbols")
}

no_param_request! {
    /// `GET /v3/trades/symbols`: pairs with their API-trading permission (`is_allow`).
    TradesSymbolsRequest => SymbolList, public("spot.trades_symbols", "/trades/symbols")
}

/// Answer of the symbol-list endpoints. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolList {
    /// One entry per pair.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub symbol_list: Vec<SymbolInfo>,
}

str_enum! {
    /// Status of a symbol. The spec shows only `TRADING`; `HALT` and `BREAK` come from the
    /// venue's own reference as quoted in ccxt/ccxt `js/digifinex.js` (`fetchMarketsV2`:
    /// "TRADING, HALT (delisted), BREAK (trading paused)"; ccxt also notes that live answers
    /// have shown `HALT` for pairs that trade, so do not treat it as authoritative) and
    /// nils2525/Digifinex.Net `Digifinex.Net/Enums/SymbolStatus.cs` (`HALT`, `HALTED`, `BREAK`).
    /// Any other word is kept in `Other`.
    pub enum SymbolStatus {
        /// Open for trading.
        Trading = "TRADING",
        /// Halted (delisted); also spelled `HALTED`.
        Halt = "HALT" | "HALTED",
        /// Trading paused.
        Break = "BREAK",
    }
}

str_enum! {
    /// Order type supported by a symbol.
    pub enum SymbolOrderType {
        /// Limit orders.
        Limit = "LIMIT",
        /// Market orders.
        Market = "MARKET",
    }
}

/// Trading rules of one pair. `symbol` is the row's key (required); everything else is
/// optional (captures differ by endpoint and era).
///
/// DESIGN: `minimum_value` is documented as int but arrives as a float for some pairs (`1.2`), so
/// it is a decimal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolInfo {
    /// Pair (`BTC_USDT`: upper case on the wire, kept lower case, compared without case).
    pub symbol: Pair,
    /// Status.
    #[serde(default, with = "crate::de::opt")]
    pub status: Option<SymbolStatus>,
    /// Base currency.
    #[serde(default, with = "crate::de::opt_string")]
    pub base_asset: Option<String>,
    /// Quote currency.
    #[serde(default, with = "crate::de::opt_string")]
    pub quote_asset: Option<String>,
    /// Decimal places allowed in amounts.
    #[serde(default, with = "crate::de::opt_int")]
    pub amount_precision: Option<u32>,
    /// Decimal places allowed in prices.
    #[serde(default, with = "crate::de::opt_int")]
    pub price_precision: Option<u32>,
    /// Minimum amount (base currency).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub minimum_amount: Option<Decimal>,
    /// Minimum order value (quote currency).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub minimum_value: Option<Decimal>,
    /// Zone (board).
    #[serde(default, with = "crate::de::opt_string")]
    pub zone: Option<String>,
    /// Supported order types, in the order sent.
    ///
    /// DESIGN: an element that is a placeholder is dropped, an unreadable one dropped and
    /// reported, instead of failing the answer; an unknown word is kept in
    /// [`SymbolOrderType::Other`].
    #[serde(default, deserialize_with = "crate::de::scalar_list")]
    pub order_types: Vec<SymbolOrderType>,
    /// Liquidation rate (margin symbols only).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub liquidation_rate: Option<Decimal>,
    /// API trading allowed (`/trades/symbols` only; wire `1`/`0`).
    #[serde(default, with = "crate::de::opt_flag")]
    pub is_allow: Option<bool>,
}

// ---------------------------------------------------------------------------------------------

no_param_request! {
    /// `GET /v3/margin/currencies`: currencies usable in margin trading and their loan fees.
    MarginCurrenciesRequest => MarginCurrencies, public("spot.margin_currencies", "/margin/currencies")
}

/// Answer of [`MarginCurrenciesRequest`]. Missing or `null` lists are empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarginCurrencies {
    /// Currencies that support margin trading (wire name `currencys`).
    ///
    /// DESIGN: each element is a row of a keyed listing and its own key, so each is required
    /// text (a number is kept as its text): a placeholder element fails the answer naming its
    /// path (`currencys[3]`), as a ticker row without its pair does.
    #[serde(
        default,
        rename = "currencys",
        deserialize_with = "crate::de::text_list"
    )]
    pub currencies: Vec<String>,
    /// Funding time text.
    #[serde(default, with = "crate::de::opt_string")]
    pub funding_time: Option<String>,
    /// Loan fee levels.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub margin_fees: Vec<MarginFee>,
}

/// A loan fee level. `currency_mark` is the row's key (required); everything else is optional.
///
/// DESIGN: `level` is not required although a currency may have several levels: a row without
/// it still names its currency, range and fee.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarginFee {
    /// Currency.
    #[serde(with = "crate::de::text")]
    pub currency_mark: String,
    /// Level.
    #[serde(default, with = "crate::de::opt_int")]
    pub level: Option<u32>,
    /// Range text.
    #[serde(default, with = "crate::de::opt_string")]
    pub range: Option<String>,
    /// Loan fee.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub loan_fees: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/currencies`: deposit and withdrawal settings per currency and chain.
///
/// DESIGN: the spec does not say whether this endpoint is signed; the live API answers it
/// unsigned, so it is public. Its success code is 200.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CurrenciesRequest {
    currency: Option<String>,
}

impl CurrenciesRequest {
    /// Settings of every currency.
    pub fn all() -> Self {
        CurrenciesRequest { currency: None }
    }
    /// Settings of one currency (`usdt`).
    pub fn currency(currency: impl Into<String>) -> Self {
        CurrenciesRequest {
            currency: Some(currency.into()),
        }
    }
}

impl Endpoint for CurrenciesRequest {
    type Output = Currencies;
    const META: Meta = Meta {
        success_code: 200,
        ..public("spot.currencies", "/currencies")
    };
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        if let Some(c) = &self.currency {
            crate::spot::check_non_empty("currency", c)?;
        }
        p.push_opt("currency", self.currency.as_deref());
        Ok(())
    }
}

impl FromParams for CurrenciesRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(CurrenciesRequest {
            currency: p.take_opt_str("currency")?,
        })
    }
}

/// Answer of [`CurrenciesRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Currencies {
    /// One entry per currency and chain.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<CurrencyInfo>,
}

/// Deposit and withdrawal settings of one currency on one chain. `currency` is the row's key
/// (required); everything else is optional (`chain` too: it is empty for most currencies).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrencyInfo {
    /// Currency.
    #[serde(with = "crate::de::text")]
    pub currency: String,
    /// Chain (`None` when empty, the default; USDT has ERC20 and OMNI).
    #[serde(default, with = "crate::de::opt_string")]
    pub chain: Option<String>,
    /// Minimum deposit.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_deposit_amount: Option<Decimal>,
    /// Minimum withdrawal.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_withdraw_amount: Option<Decimal>,
    /// Deposits enabled (wire `1`/`0`).
    #[serde(default, with = "crate::de::opt_flag")]
    pub deposit_status: Option<bool>,
    /// Withdrawals enabled (wire `1`/`0`).
    #[serde(default, with = "crate::de::opt_flag")]
    pub withdraw_status: Option<bool>,
    /// Currency the withdrawal fee is paid in.
    #[serde(default, with = "crate::de::opt_string")]
    pub withdraw_fee_currency: Option<String>,
    /// Minimum withdrawal fee.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_withdraw_fee: Option<Decimal>,
    /// Withdrawal fee rate.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub withdraw_fee_rate: Option<Decimal>,
}

impl CurrencyInfo {
    /// The fee for withdrawing `amount`: the rate-based fee, or the minimum fee when the
    /// rate-based fee is below it (spec §2). `None` when the server gave neither.
    pub fn withdraw_fee(&self, amount: Decimal) -> Option<Decimal> {
        let by_rate = self.withdraw_fee_rate.and_then(|r| r.checked_mul(amount));
        match (by_rate, self.min_withdraw_fee) {
            (Some(r), Some(m)) => Some(r.max(m)),
            (Some(r), None) => Some(r),
            (None, m) => m,
        }
    }
}
