//! Public market data (no authentication).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::codes::{input_enum, str_enum};
use crate::endpoint::{Family, Meta, Method, Params};
use crate::error::Error;
use crate::request;
use crate::request::{non_empty, range, server_default};
use crate::spot::check_symbol;
use crate::types::{Pair, TimestampSecs};

const fn public(name: &'static str, path: &'static str) -> Meta {
    Meta::new(Family::Spot, Method::Get, name, path)
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/ping`: checks that the service answers.
    pub struct PingRequest => Pong;
    meta = public("spot.ping", "/ping");
    /// The ping.
    new;
    fields {}
}

/// Answer of [`PingRequest`]. An answer without `msg` (`{"code":0}`) decodes to `msg: None`: the
/// success code alone says that the service answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Pong {
    /// The service's message (`pong`); optional text.
    #[serde(default, with = "crate::de::opt_string")]
    pub msg: Option<String>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/order_book`: the order book of one pair.
    pub struct OrderBookRequest => OrderBook;
    meta = public("spot.order_book", "/order_book");
    /// The book of `symbol` (`btc_usdt`), default depth 10.
    new;
    fields {
        /// The pair (`btc_usdt`).
        req symbol: String [check_symbol],
        /// Levels per side, 1..=150.
        opt limit: u32 [range(1, 150), server_default(10)],
    }
}

/// One price level `[price, size]` (also the swap depth level, [`crate::swap::DepthLevel`]).
///
/// A level is a positional row: both columns are required (a level without its price or size
/// fails the answer, naming the level's JSON path); further columns are ignored. Both columns
/// read a JSON number or a numeric string, exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct Level {
    /// Price.
    pub price: Decimal,
    /// Size: base currency in a spot book, contracts in a swap depth.
    pub amount: Decimal,
}

impl Level {
    /// A level of `amount` at `price` (a book built by hand, in a test or a simulator).
    pub fn new(price: Decimal, amount: Decimal) -> Self {
        Level { price, amount }
    }

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
        crate::de::positional(d)
    }
}

impl crate::de::Row<'_> for Level {
    const WHAT: &'static str = "price level";
    fn read<E: serde::de::Error>(c: &mut crate::de::Columns<'_, E>) -> Result<Self, E> {
        Ok(Level {
            price: c.decimal().map_err(|e| crate::de::column(0, "price", e))?,
            amount: c.decimal().map_err(|e| crate::de::column(1, "amount", e))?,
        })
    }
}

impl Serialize for Level {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&crate::money::SerDecimal(&self.price))?;
        t.serialize_element(&crate::money::SerDecimal(&self.amount))?;
        t.end()
    }
}

/// Answer of [`OrderBookRequest`]. Both sides are kept in the order the venue sends them.
///
/// The order is not documented. Published answers list **bids highest price first** (best bid
/// first) and **asks highest price first too, so the best ask is the last ask** (docs/protocol.md;
/// the sample answer in ccxt/ccxt `js/digifinex.js`, `fetchOrderBook`, has asks `9627.22`,
/// `9627.12`, `9626.52`). Never rely on an order: [`OrderBook::best_bid`] and
/// [`OrderBook::best_ask`] find the best levels by price whatever the order.
///
/// A missing or `null` side is empty. An answer without payload (`{"code":0}`) decodes to an
/// empty book with `date: None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct OrderBook {
    /// Buy levels, as sent (published answers: highest price first).
    #[serde(default, deserialize_with = "crate::de::rows")]
    pub bids: Vec<Level>,
    /// Sell levels, as sent (published answers: highest price first, the best ask last).
    #[serde(default, deserialize_with = "crate::de::rows")]
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

request! {
    /// `GET /v3/time`: the server's clock (seconds), for clock-offset estimation.
    pub struct ServerTimeRequest => ServerTime;
    meta = public("spot.time", "/time");
    /// The request (it takes no parameters).
    new;
    fields {}
}

/// Answer of [`ServerTimeRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct ServerTime {
    /// Server time in seconds. Required: it is the whole answer, so an answer without a
    /// readable `server_time` is a decode error naming `server_time`.
    pub server_time: TimestampSecs,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/markets`: precision and minimums of every pair.
    pub struct MarketsRequest => Markets;
    meta = public("spot.markets", "/markets");
    /// The request (it takes no parameters).
    new;
    fields {}
}

/// Answer of [`MarketsRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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

request! {
    /// `GET /v3/ticker`: 24-hour tickers of one pair, or of all pairs.
    pub struct TickerRequest => Tickers;
    meta = public("spot.ticker", "/ticker");
    /// Tickers of all pairs; [`TickerRequest::symbol`] narrows to one.
    new;
    fields {
        /// Only the ticker of `symbol` (`btc_usdt`).
        opt symbol: String [check_symbol],
    }
}

/// Answer of [`TickerRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
    /// documentation; the live venue sends a percent (docs/protocol.md; the sample answers in
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

request! {
    /// `GET /v3/trades`: recent public trades of one pair.
    pub struct TradesRequest => Trades;
    meta = public("spot.trades", "/trades");
    /// Recent trades of `symbol` (`btc_usdt`), default 100.
    new;
    fields {
        /// The pair (`btc_usdt`).
        req symbol: String [check_symbol],
        /// Number of trades, 1..=500.
        opt limit: u32 [range(1, 500), server_default(100)],
    }
}

/// Answer of [`TradesRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
/// polls). Time, amount, side and price describe the trade but do not identify it, so by the rule
/// of [decoding](crate#decoding) each is optional: a placeholder or a garbled value is `None` for
/// that trade, and the other trades of the answer are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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

input_enum! {
    /// Candle period of [`KlineRequest`].
    pub enum KlinePeriod: word("word (minutes, 1D or 1W)") {
        /// 1 minute (`1`).
        M1 = "1",
        /// 5 minutes (`5`).
        M5 = "5",
        /// 15 minutes (`15`).
        M15 = "15",
        /// 30 minutes (`30`).
        M30 = "30",
        /// 1 hour (`60`).
        H1 = "60",
        /// 4 hours (`240`).
        H4 = "240",
        /// 12 hours (`720`).
        H12 = "720",
        /// 1 day (`1D`).
        D1 = "1D",
        /// 1 week (`1W`).
        W1 = "1W",
    }
}

impl KlinePeriod {
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
}

request! {
    /// `GET /v3/kline`: candles of one pair.
    ///
    /// DESIGN: the spec caps a call at 500 candles; a `start_time..end_time` range that spans more
    /// than 500 periods is refused before sending (field `start_time`) instead of being truncated by
    /// the server without notice.
    pub struct KlineRequest => Klines;
    meta = public("spot.kline", "/kline");
    /// Candles of `symbol` at `period`: by default the 200 before now.
    new;
    fields {
        /// The pair (`btc_usdt`).
        req symbol: String [check_symbol],
        /// Candle length.
        req period: KlinePeriod,
        /// First candle time.
        opt start_time: TimestampSecs,
        /// Last candle time; must exceed `start_time`.
        opt end_time: TimestampSecs,
    }
    validate = check_kline_range;
}

/// Most candles one kline call returns.
pub const MAX_CANDLES: i64 = 500;

/// `end_time` after `start_time`, and at most [`MAX_CANDLES`] periods between them.
fn check_kline_range(r: &KlineRequest, _: &Params) -> Result<(), Error> {
    if let (Some(TimestampSecs(s)), Some(TimestampSecs(e))) = (r.start_time, r.end_time) {
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
            .and_then(|span| span.checked_div(r.period.seconds()))
        else {
            return Err(Error::validation(
                "start_time",
                format!(
                    "the range from {s} to {e} spans more than {MAX_CANDLES} candles of {}; \
                         at most {MAX_CANDLES} per call",
                    r.period.as_str()
                ),
            ));
        };
        if candles > MAX_CANDLES {
            return Err(Error::validation(
                "start_time",
                format!(
                    "the range spans {candles} candles of {}; at most {MAX_CANDLES} per call",
                    r.period.as_str()
                ),
            ));
        }
    }
    Ok(())
}

/// Answer of [`KlineRequest`]: oldest first; the last candle is still forming.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Klines {
    /// The candles.
    #[serde(default, deserialize_with = "crate::de::rows")]
    pub data: Vec<Candle>,
}

/// One candle, from the positional array `[time, volume, close, high, low, open]`.
///
/// A candle is a positional row: all six leading columns are required (a candle without one of
/// them fails the answer, naming the candle's JSON path); further columns are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
#[non_exhaustive]
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
        crate::de::positional(d)
    }
}

impl crate::de::Row<'_> for Candle {
    const WHAT: &'static str = "candle";
    fn read<E: serde::de::Error>(c: &mut crate::de::Columns<'_, E>) -> Result<Self, E> {
        Ok(Candle {
            time: TimestampSecs(c.int().map_err(|e| crate::de::column(0, "time", e))?),
            volume: c.decimal().map_err(|e| crate::de::column(1, "volume", e))?,
            close: c.decimal().map_err(|e| crate::de::column(2, "close", e))?,
            high: c.decimal().map_err(|e| crate::de::column(3, "high", e))?,
            low: c.decimal().map_err(|e| crate::de::column(4, "low", e))?,
            open: c.decimal().map_err(|e| crate::de::column(5, "open", e))?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/spot/symbols`: trading rules of the spot pairs.
    pub struct SpotSymbolsRequest => SymbolList;
    meta = public("spot.spot_symbols", "/spot/symbols");
    /// The request (it takes no parameters).
    new;
    fields {}
}

request! {
    /// `GET /v3/margin/symbols`: trading rules of the margin pairs (with `liquidation_rate`).
    pub struct MarginSymbolsRequest => SymbolList;
    meta = public("spot.margin_symbols", "/margin/symbols");
    /// The request (it takes no parameters).
    new;
    fields {}
}

request! {
    /// `GET /v3/trades/symbols`: pairs with their API-trading permission (`is_allow`).
    pub struct TradesSymbolsRequest => SymbolList;
    meta = public("spot.trades_symbols", "/trades/symbols");
    /// The request (it takes no parameters).
    new;
    fields {}
}

/// Answer of the symbol-list endpoints. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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

request! {
    /// `GET /v3/margin/currencies`: currencies usable in margin trading and their loan fees.
    pub struct MarginCurrenciesRequest => MarginCurrencies;
    meta = public("spot.margin_currencies", "/margin/currencies");
    /// The request (it takes no parameters).
    new;
    fields {}
}

/// Answer of [`MarginCurrenciesRequest`]. Missing or `null` lists are empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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

request! {
    /// `GET /v3/currencies`: deposit and withdrawal settings per currency and chain.
    ///
    /// DESIGN: the spec does not say whether this endpoint is signed; the live API answers it
    /// unsigned, so it is public. Its success code is 200.
    pub struct CurrenciesRequest => Currencies;
    meta = public("spot.currencies", "/currencies").success_code(200);
    /// Settings of every currency; [`CurrenciesRequest::currency`] narrows to one.
    new;
    fields {
        /// Only `currency` (`usdt`).
        opt currency: String [non_empty],
    }
}

/// Answer of [`CurrenciesRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Currencies {
    /// One entry per currency and chain.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<CurrencyInfo>,
}

/// Deposit and withdrawal settings of one currency on one chain. `currency` is the row's key
/// (required); everything else is optional (`chain` too: it is empty for most currencies).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
    /// rate-based fee is below it (the spot documents). `None` when the server gave neither.
    pub fn withdraw_fee(&self, amount: Decimal) -> Option<Decimal> {
        let by_rate = self.withdraw_fee_rate.and_then(|r| r.checked_mul(amount));
        match (by_rate, self.min_withdraw_fee) {
            (Some(r), Some(m)) => Some(r.max(m)),
            (Some(r), None) => Some(r),
            (None, m) => m,
        }
    }
}
