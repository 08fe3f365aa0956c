//! Public market data (no authentication).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::catalog::{entry, CatalogEntry, FromParams, ParamMap};
use crate::endpoint::{Endpoint, Family, Meta, Method, Params};
use crate::error::Error;
use crate::spot::{check_range, check_symbol};
use crate::types::str_enum;
use crate::types::TimestampSecs;

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

/// Answer of [`Ping`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pong {
    /// The service's message (`pong`).
    #[serde(default, with = "crate::de::string")]
    pub msg: String,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Level {
    /// Price.
    pub price: Decimal,
    /// Size: base currency in a spot book, contracts in a swap depth.
    pub amount: Decimal,
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::positional(d, "price level", |c| {
            Ok(Level {
                price: c.decimal()?,
                amount: c.decimal()?,
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

/// Answer of [`OrderBookRequest`]: bids best (highest) first, asks as the server orders them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderBook {
    /// Buy levels.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub bids: Vec<Level>,
    /// Sell levels.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub asks: Vec<Level>,
    /// Server time of the snapshot (seconds).
    #[serde(default)]
    pub date: Option<TimestampSecs>,
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
    /// Server time in seconds.
    pub server_time: TimestampSecs,
}

// ---------------------------------------------------------------------------------------------

no_param_request! {
    /// `GET /v3/markets`: precision and minimums of every pair.
    MarketsRequest => Markets, public("spot.markets", "/markets")
}

/// Answer of [`MarketsRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Markets {
    /// One entry per pair.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<MarketInfo>,
    /// Server time (seconds).
    #[serde(default)]
    pub date: Option<TimestampSecs>,
}

/// A market description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarketInfo {
    /// Pair name (`btc_usdt`).
    #[serde(with = "crate::de::string")]
    pub market: String,
    /// Decimal places allowed in amounts.
    #[serde(default, with = "crate::de::opt_int")]
    pub volume_precision: Option<u32>,
    /// Decimal places allowed in prices.
    #[serde(default, with = "crate::de::opt_int")]
    pub price_precision: Option<u32>,
    /// Minimum order amount (base currency).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_amount: Option<Decimal>,
    /// Minimum order value (quote currency).
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

/// Answer of [`TickerRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tickers {
    /// One entry per pair.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub ticker: Vec<Ticker>,
    /// Server time (seconds).
    #[serde(default)]
    pub date: Option<TimestampSecs>,
}

/// A 24-hour ticker. Fields the server leaves out (or sends as `""`) are `None`.
///
/// DESIGN: despite the names, `vol` is the base-currency volume and `base_vol` the quote-currency
/// turnover (documented and observed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticker {
    /// Pair.
    #[serde(with = "crate::de::string")]
    pub symbol: String,
    /// 24h volume in base currency.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub vol: Option<Decimal>,
    /// 24h turnover in quote currency.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub base_vol: Option<Decimal>,
    /// 24h change as a fraction (`0.0108` is +1.08 %).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub change: Option<Decimal>,
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

/// Answer of [`TradesRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trades {
    /// Trades, newest first as the server sends them.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<PublicTrade>,
    /// Server time (seconds).
    #[serde(default)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicTrade {
    /// Trade id (int or string on the wire).
    #[serde(with = "crate::de::id")]
    pub id: String,
    /// Trade time (seconds).
    pub date: TimestampSecs,
    /// Volume (base currency).
    #[serde(with = "crate::de::decimal")]
    pub amount: Decimal,
    /// Taker side (wire name `type`).
    #[serde(rename = "type")]
    pub side: TradeSide,
    /// Price.
    #[serde(with = "crate::de::decimal")]
    pub price: Decimal,
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
            let candles = (e - s) / self.period.seconds();
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
                time: TimestampSecs(c.int()?),
                volume: c.decimal()?,
                close: c.decimal()?,
                high: c.decimal()?,
                low: c.decimal()?,
                open: c.decimal()?,
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

/// Answer of the symbol-list endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolList {
    /// One entry per pair.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub symbol_list: Vec<SymbolInfo>,
}

str_enum! {
    /// Status of a symbol; only `TRADING` is documented.
    pub enum SymbolStatus {
        /// Open for trading.
        Trading = "TRADING",
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

/// Trading rules of one pair. Everything but `symbol` may be missing (captures differ by
/// endpoint and era).
///
/// DESIGN: `minimum_value` is documented as int but arrives as a float for some pairs (`1.2`), so
/// it is a decimal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolInfo {
    /// Pair (`BTC_USDT`).
    #[serde(with = "crate::de::string")]
    pub symbol: String,
    /// Status.
    #[serde(default)]
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
    /// Supported order types.
    #[serde(default, deserialize_with = "crate::de::vec")]
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

/// Answer of [`MarginCurrenciesRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarginCurrencies {
    /// Currencies that support margin trading (wire name `currencys`).
    #[serde(default, rename = "currencys", deserialize_with = "crate::de::vec")]
    pub currencies: Vec<String>,
    /// Funding time text.
    #[serde(default, with = "crate::de::opt_string")]
    pub funding_time: Option<String>,
    /// Loan fee levels.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub margin_fees: Vec<MarginFee>,
}

/// A loan fee level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarginFee {
    /// Currency.
    #[serde(with = "crate::de::string")]
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

/// Answer of [`CurrenciesRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Currencies {
    /// One entry per currency and chain.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<CurrencyInfo>,
}

/// Deposit and withdrawal settings of one currency on one chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrencyInfo {
    /// Currency.
    #[serde(with = "crate::de::string")]
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
