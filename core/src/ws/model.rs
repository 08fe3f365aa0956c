//! The records the streams push, with exact decimals, one per channel (`docs/protocol.md`,
//! "Subscribing"). Identities are required (an order id, a symbol, an instrument); every other
//! field is optional and read tolerantly (number or string, placeholders as `None`), and fields a
//! model does not name are kept in its `extra`.
//!
//! DESIGN: the swap private records (`account`, `position`, `order`) are not verified against the
//! venue (no public source shows them live); their fields follow the later of the third-party
//! copies of the documents and accept the earlier spellings as aliases (`available`, `size`,
//! `order_status`, `average_open_price`). Each alias is one `|` on the field's line below.

use rust_decimal::Decimal;
use serde::de::{Deserializer, Error as _, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::Deserialize;

use crate::spot::{OrderStatus as SpotOrderStatus, TradeSide};
use crate::swap::{MarginMode, OrderSide, OrderState, PositionSide};
use crate::types::TimestampMillis;
use crate::ws::record::ws_record;

// ---------------------------------------------------------------------------------------------
// Spot

ws_record! {
    /// A spot trade (`trades.update`).
    pub struct SpotTrade {
        /// Trade id (a JSON number on the wire, kept as text).
        required id: String = "id" => crate::de::id,
        /// Trade time in **seconds** with a microsecond fraction (`1523339279.761838`), exact.
        required time: Decimal = "time" => crate::de::decimal,
        /// Price.
        optional price: Option<Decimal> = "price" => crate::de::opt_decimal,
        /// Amount (base currency).
        optional amount: Option<Decimal> = "amount" => crate::de::opt_decimal,
        /// Taker side (`type`).
        optional side: Option<TradeSide> = "type" => crate::de::opt,
    }
}

impl SpotTrade {
    /// The trade time in whole milliseconds (the fraction below a millisecond truncated).
    pub fn time_millis(&self) -> Option<TimestampMillis> {
        use rust_decimal::prelude::ToPrimitive;
        self.time
            .checked_mul(Decimal::ONE_THOUSAND)
            .and_then(|ms| ms.trunc().to_i64())
            .map(TimestampMillis)
    }
}

ws_record! {
    /// A spot ticker (`ticker.update` and `all_ticker.update`).
    pub struct SpotTicker {
        /// Pair as sent (`BTC_USDT`).
        required symbol: String = "symbol" => crate::de::text,
        /// Price 24 h ago.
        optional open_24h: Option<Decimal> = "open_24h" => crate::de::opt_decimal,
        /// 24 h high (not in the documents; sent by the venue per live clients).
        optional high_24h: Option<Decimal> = "high_24h" => crate::de::opt_decimal,
        /// 24 h low.
        optional low_24h: Option<Decimal> = "low_24h" => crate::de::opt_decimal,
        /// 24 h volume in the base currency.
        optional base_volume_24h: Option<Decimal> = "base_volume_24h" => crate::de::opt_decimal,
        /// 24 h turnover in the quote currency.
        optional quote_volume_24h: Option<Decimal> = "quote_volume_24h" => crate::de::opt_decimal,
        /// Last price.
        optional last: Option<Decimal> = "last" => crate::de::opt_decimal,
        /// Last trade amount.
        optional last_qty: Option<Decimal> = "last_qty" => crate::de::opt_decimal,
        /// Best bid price.
        optional best_bid: Option<Decimal> = "best_bid" => crate::de::opt_decimal,
        /// Best bid amount.
        optional best_bid_size: Option<Decimal> = "best_bid_size" => crate::de::opt_decimal,
        /// Best ask price.
        optional best_ask: Option<Decimal> = "best_ask" => crate::de::opt_decimal,
        /// Best ask amount.
        optional best_ask_size: Option<Decimal> = "best_ask_size" => crate::de::opt_decimal,
        /// Time in milliseconds.
        optional timestamp: Option<TimestampMillis> = "timestamp" => crate::de::opt,
    }
}

ws_record! {
    /// A spot order update (`order.update`). No trade id, fee or per-fill data: fills
    /// are the differences of the cumulative `filled`.
    pub struct SpotOrder {
        /// Order id (32 hex characters, the REST `order_id`).
        required id: String = "id" => crate::de::id,
        /// Pair (`BTC_USDT`).
        optional symbol: Option<String> = "symbol" => crate::de::opt_string,
        /// `buy` or `sell`.
        optional side: Option<TradeSide> = "side" => crate::de::opt,
        /// `limit` or `market`.
        optional order_type: Option<String> = "type" => crate::de::opt_string,
        /// 1 spot, 2 margin.
        optional mode: Option<i64> = "mode" => crate::de::opt,
        /// Order amount (base; `0` for a market buy).
        optional amount: Option<Decimal> = "amount" => crate::de::opt_decimal,
        /// Order price (`0` for a market order).
        optional price: Option<Decimal> = "price" => crate::de::opt_decimal,
        /// Cumulative filled amount (base).
        optional filled: Option<Decimal> = "filled" => crate::de::opt_decimal,
        /// Average fill price (empty or zero before any fill).
        optional price_avg: Option<Decimal> = "price_avg" => crate::de::opt_decimal,
        /// Notional (quote).
        optional notional: Option<Decimal> = "notional" => crate::de::opt_decimal,
        /// Status: 0 unfilled, 1 partly filled, 2 filled, 3 cancelled, 4 cancelled partly
        /// filled.
        optional status: Option<SpotOrderStatus> = "status" => crate::de::opt,
        /// Time in **milliseconds** (REST order times are seconds).
        optional timestamp: Option<TimestampMillis> = "timestamp" => crate::de::opt,
    }
}

ws_record! {
    /// A spot algo (trigger) order update (`order_algo.update`; documented only).
    pub struct SpotAlgoOrder {
        /// Algo order id.
        required id: String = "id" => crate::de::id,
        /// Pair.
        optional symbol: Option<String> = "symbol" => crate::de::opt_string,
        /// `buy` or `sell`.
        optional side: Option<TradeSide> = "side" => crate::de::opt,
        /// 1 spot, 2 margin.
        optional mode: Option<i64> = "mode" => crate::de::opt,
        /// Amount.
        optional amount: Option<Decimal> = "amount" => crate::de::opt_decimal,
        /// Order price.
        optional algo_price: Option<Decimal> = "algo_price" => crate::de::opt_decimal,
        /// Trigger price.
        optional trigger_price: Option<Decimal> = "trigger_price" => crate::de::opt_decimal,
        /// −2 fail, −1 cancelled, 0 ready, 1 effecting, 2 success.
        optional status: Option<i64> = "status" => crate::de::opt,
        /// Time in milliseconds.
        optional timestamp: Option<TimestampMillis> = "timestamp" => crate::de::opt,
    }
}

ws_record! {
    /// A spot balance (`balance.update`).
    pub struct SpotBalance {
        /// Currency (`USDT`).
        required currency: String = "currency" => crate::de::text,
        /// Available.
        optional free: Option<Decimal> = "free" => crate::de::opt_decimal,
        /// Frozen.
        optional used: Option<Decimal> = "used" => crate::de::opt_decimal,
        /// Total.
        optional total: Option<Decimal> = "total" => crate::de::opt_decimal,
    }
}

// ---------------------------------------------------------------------------------------------
// Swap public

ws_record! {
    /// A swap ticker (`ticker.update` and `all_ticker` rows). Sizes are contracts.
    pub struct SwapTicker {
        /// Instrument (`BTCUSDTPERP`).
        required instrument_id: String = "instrument_id" => crate::de::text,
        /// Best bid price.
        optional best_bid: Option<Decimal> = "best_bid" => crate::de::opt_decimal,
        /// Best bid size (contracts).
        optional best_bid_size: Option<Decimal> = "best_bid_size" => crate::de::opt_decimal,
        /// Best ask price.
        optional best_ask: Option<Decimal> = "best_ask" => crate::de::opt_decimal,
        /// Best ask size (contracts).
        optional best_ask_size: Option<Decimal> = "best_ask_size" => crate::de::opt_decimal,
        /// 24 h high.
        optional high_24h: Option<Decimal> = "high_24h" => crate::de::opt_decimal,
        /// Price 24 h ago.
        optional open_24h: Option<Decimal> = "open_24h" => crate::de::opt_decimal,
        /// 24 h low.
        optional low_24h: Option<Decimal> = "low_24h" => crate::de::opt_decimal,
        /// Last price.
        optional last: Option<Decimal> = "last" => crate::de::opt_decimal,
        /// Last trade size (contracts).
        optional last_qty: Option<Decimal> = "last_qty" => crate::de::opt_decimal,
        /// 24 h volume (contracts).
        optional volume_24h: Option<Decimal> = "volume_24h" => crate::de::opt_decimal,
        /// 24 h volume (coins).
        optional volume_token_24h: Option<Decimal> = "volume_token_24h" => crate::de::opt_decimal,
        /// Open interest ("ignore" per the documents; `"-"` on the wire, so usually `None`).
        optional open_interest: Option<Decimal> = "open_interest" => crate::de::opt_decimal,
        /// Time in milliseconds.
        optional timestamp: Option<TimestampMillis> = "timestamp" => crate::de::opt,
    }
}

ws_record! {
    /// A swap trade (`trades.update`).
    pub struct SwapTrade {
        /// Trade id (19 digits, kept as text).
        required trade_id: String = "trade_id" => crate::de::id,
        /// Instrument.
        optional instrument_id: Option<String> = "instrument_id" => crate::de::opt_string,
        /// `direction`: 1 open long, 2 open short, 3 close long, 4 close short (a string on
        /// the wire). 1 or 4 is a buy, 2 or 3 a sell (inferred: `docs/protocol.md`, "Subscribing").
        optional direction: Option<OrderSide> = "direction" => crate::de::opt,
        /// Contracts.
        optional volume: Option<Decimal> = "volume" => crate::de::opt_decimal,
        /// Price.
        optional price: Option<Decimal> = "price" => crate::de::opt_decimal,
        /// Time in milliseconds.
        optional trade_time: Option<TimestampMillis> = "trade_time" => crate::de::opt,
    }
}

ws_record! {
    /// A swap candle (`cur_candle.update`, and `mark_candle.update`).
    pub struct SwapCandle {
        /// Instrument.
        required instrument_id: String = "instrument_id" => crate::de::text,
        /// Granularity (`1m`).
        optional granularity: Option<String> = "granularity" => crate::de::opt_string,
        /// The candle (`candle`, or `mark_candle` for mark-price candles).
        optional candle: Option<Candle> = "candle" | "mark_candle" => candle,
    }
}

ws_record! {
    /// A swap index price (`index_price.update`).
    pub struct SwapIndexPrice {
        /// Instrument.
        required instrument_id: String = "instrument_id" => crate::de::text,
        /// Index price.
        optional index_price: Option<Decimal> = "index_price" => crate::de::opt_decimal,
        /// Time in milliseconds.
        optional timestamp: Option<TimestampMillis> = "timestamp" => crate::de::opt,
    }
}

ws_record! {
    /// A swap mark price (`mark_price.update`; the documents' table says
    /// `index_price`, the example and the wire `mark_price`).
    pub struct SwapMarkPrice {
        /// Instrument.
        required instrument_id: String = "instrument_id" => crate::de::text,
        /// Mark price.
        optional mark_price: Option<Decimal> = "mark_price" => crate::de::opt_decimal,
        /// Time in milliseconds.
        optional timestamp: Option<TimestampMillis> = "timestamp" => crate::de::opt,
    }
}

ws_record! {
    /// A swap price band (`price_range.update`; documented only).
    pub struct SwapPriceRange {
        /// Instrument.
        required instrument_id: String = "instrument_id" => crate::de::text,
        /// Highest buy price.
        optional highest: Option<Decimal> = "highest" => crate::de::opt_decimal,
        /// Lowest sell price.
        optional lowest: Option<Decimal> = "lowest" => crate::de::opt_decimal,
        /// Time in milliseconds.
        optional timestamp: Option<TimestampMillis> = "timestamp" => crate::de::opt,
    }
}

ws_record! {
    /// A swap funding rate (`fund_rate.update`).
    pub struct SwapFundingRate {
        /// Instrument.
        required instrument_id: String = "instrument_id" => crate::de::text,
        /// Rate for the upcoming settlement (a live estimate).
        optional funding_rate: Option<Decimal> = "funding_rate" => crate::de::opt_decimal,
        /// The upcoming settlement, ms.
        optional funding_time: Option<TimestampMillis> = "funding_time" => crate::de::opt,
        /// Forecast for the period after (may use exponent form, `"-3e-05"`).
        optional next_funding_rate: Option<Decimal> = "next_funding_rate" => crate::de::opt_decimal,
        /// The settlement after, ms.
        optional next_funding_time: Option<TimestampMillis> = "next_funding_time" => crate::de::opt,
    }
}

ws_record! {
    /// A dated contract's estimated settlement price (`estimated_settle_price.update`;
    /// documented only).
    pub struct SwapSettlePrice {
        /// Instrument.
        required instrument_id: String = "instrument_id" => crate::de::text,
        /// Estimated settlement price.
        optional estimated_settle_price: Option<Decimal> = "estimated_settle_price" => crate::de::opt_decimal,
        /// Time in milliseconds.
        optional timestamp: Option<TimestampMillis> = "timestamp" => crate::de::opt,
    }
}

// ---------------------------------------------------------------------------------------------
// Swap private (unverified, see the module docs)

ws_record! {
    /// A swap account balance per currency (`account.update`; unverified).
    pub struct SwapAccount {
        /// Settlement currency (`USDT`).
        required currency: String = "currency" => crate::de::text,
        /// Equity including unrealized pnl.
        optional equity: Option<Decimal> = "equity" => crate::de::opt_decimal,
        /// Available balance.
        optional avail_balance: Option<Decimal> = "avail_balance" | "available" => crate::de::opt_decimal,
        /// Margin used by positions.
        optional margin: Option<Decimal> = "margin" => crate::de::opt_decimal,
        /// Margin held by open orders.
        optional frozen_margin: Option<Decimal> = "frozen_margin" => crate::de::opt_decimal,
        /// Realized pnl.
        optional realized_pnl: Option<Decimal> = "realized_pnl" => crate::de::opt_decimal,
        /// Unrealized pnl.
        optional unrealized_pnl: Option<Decimal> = "unrealized_pnl" => crate::de::opt_decimal,
        /// Time in milliseconds (`time_stamp`, as in REST).
        optional time_stamp: Option<TimestampMillis> = "time_stamp" | "timestamp" => crate::de::opt,
    }
}

ws_record! {
    /// A swap position (`position.update`; unverified).
    pub struct SwapPosition {
        /// Instrument.
        required instrument_id: String = "instrument_id" => crate::de::text,
        /// `crossed` or `isolated`.
        optional margin_mode: Option<MarginMode> = "margin_mode" => crate::de::opt,
        /// `long` or `short`.
        optional side: Option<PositionSide> = "side" => crate::de::opt,
        /// Contracts.
        optional position: Option<Decimal> = "position" | "size" => crate::de::opt_decimal,
        /// Closable contracts.
        optional avail_position: Option<Decimal> = "avail_position" => crate::de::opt_decimal,
        /// Average entry price.
        optional avg_cost: Option<Decimal> = "avg_cost" | "average_open_price" => crate::de::opt_decimal,
        /// Leverage.
        optional leverage: Option<Decimal> = "leverage" => crate::de::opt_decimal,
        /// Liquidation price (REST field; may appear).
        optional liquidation_price: Option<Decimal> = "liquidation_price" => crate::de::opt_decimal,
        /// Unrealized pnl (REST field; may appear).
        optional unrealized_pnl: Option<Decimal> = "unrealized_pnl" => crate::de::opt_decimal,
        /// Time in milliseconds.
        optional timestamp: Option<TimestampMillis> = "timestamp" | "time_stamp" => crate::de::opt,
    }
}

ws_record! {
    /// A swap order update (`order.update`; unverified). Fills are the differences of
    /// the cumulative `filled_qty` for one `order_id` (swap orders have no client id).
    pub struct SwapOrder {
        /// Order id (a long numeric string).
        required order_id: String = "order_id" => crate::de::id,
        /// Instrument.
        optional instrument_id: Option<String> = "instrument_id" => crate::de::opt_string,
        /// Order kind 1-4 (REST `type`; may appear).
        optional side: Option<OrderSide> = "type" => crate::de::opt,
        /// Order price.
        optional price: Option<Decimal> = "price" => crate::de::opt_decimal,
        /// Contracts.
        optional size: Option<Decimal> = "size" => crate::de::opt_decimal,
        /// Cumulative filled contracts.
        optional filled_qty: Option<Decimal> = "filled_qty" => crate::de::opt_decimal,
        /// Average fill price.
        optional price_avg: Option<Decimal> = "price_avg" | "average_price" => crate::de::opt_decimal,
        /// State: 0 open, 1 partly filled, 2 filled, −1 cancelled (the REST enum).
        optional state: Option<OrderState> = "state" | "order_status" => crate::de::opt,
        /// Fee (REST field; may appear).
        optional fee: Option<Decimal> = "fee" => crate::de::opt_decimal,
        /// Last update, ms.
        optional time_stamp: Option<TimestampMillis> = "time_stamp" | "timestamp" => crate::de::opt,
    }
}

// ---------------------------------------------------------------------------------------------
// Positional values

/// A candle: `[start ms, open, high, low, close, volume (contracts), volume (coins)]`; the
/// mark-price candle has only the first five (docs/protocol.md, "Subscribing": accept 5 or more).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Candle {
    /// Start time, ms.
    pub start: TimestampMillis,
    /// Open.
    #[serde(with = "crate::de::decimal")]
    pub open: Decimal,
    /// High.
    #[serde(with = "crate::de::decimal")]
    pub high: Decimal,
    /// Low.
    #[serde(with = "crate::de::decimal")]
    pub low: Decimal,
    /// Close.
    #[serde(with = "crate::de::decimal")]
    pub close: Decimal,
    /// Volume in contracts (absent on mark-price candles).
    #[serde(with = "crate::de::opt_decimal")]
    pub volume: Option<Decimal>,
    /// Volume in coins (absent on mark-price candles).
    #[serde(with = "crate::de::opt_decimal")]
    pub volume_coin: Option<Decimal>,
}

impl<'de> Deserialize<'de> for Candle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Candle;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a candle array of at least 5 elements")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Candle, A::Error> {
                let missing = |i: usize| A::Error::invalid_length(i, &"at least 5 elements");
                let start: TimestampMillis = seq.next_element()?.ok_or_else(|| missing(0))?;
                let mut prices = [Decimal::ZERO; 4];
                for (i, p) in prices.iter_mut().enumerate() {
                    *p = seq
                        .next_element::<Dec>()?
                        .ok_or_else(|| missing(i.saturating_add(1)))?
                        .0;
                }
                let volume = seq.next_element::<OptDec>()?.and_then(|d| d.0);
                let volume_coin = seq.next_element::<OptDec>()?.and_then(|d| d.0);
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                let [open, high, low, close] = prices;
                Ok(Candle {
                    start,
                    open,
                    high,
                    low,
                    close,
                    volume,
                    volume_coin,
                })
            }
        }
        d.deserialize_seq(V)
    }
}

/// The `candle` field helper: an optional [`Candle`].
mod candle {
    use super::*;

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Candle>, D::Error> {
        let raw = <&serde_json::value::RawValue>::deserialize(d)?;
        match raw.get().trim() {
            "null" | "\"\"" => Ok(None),
            text => serde_json::from_str(text)
                .map(Some)
                .map_err(D::Error::custom),
        }
    }

    pub(crate) fn serialize<S: Serializer>(v: &Option<Candle>, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(v, s)
    }
}

/// A required decimal element (number or string).
pub(crate) struct Dec(pub(crate) Decimal);

impl<'de> Deserialize<'de> for Dec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::decimal::deserialize(d).map(Dec)
    }
}

/// An optional decimal element.
struct OptDec(Option<Decimal>);

impl<'de> Deserialize<'de> for OptDec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::opt_decimal::deserialize(d).map(OptDec)
    }
}

/// One book level: price and size (spot: amount in base; swap: contracts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Level {
    /// Price.
    pub price: Decimal,
    /// Size; zero deletes the level in a delta.
    pub size: Decimal,
}

impl Level {
    /// A level.
    pub fn new(price: Decimal, size: Decimal) -> Self {
        Level { price, size }
    }
}

/// Levels decode from `[price, size]` (each a number or a string; further elements ignored)
/// and serialize the same way, as strings.
impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::positional(d)
    }
}

impl crate::de::Row<'_> for Level {
    const WHAT: &'static str = "level";
    fn read<E: serde::de::Error>(c: &mut crate::de::Columns<'_, E>) -> Result<Self, E> {
        Ok(Level {
            price: c.decimal().map_err(|e| crate::de::column(0, "price", e))?,
            size: c.decimal().map_err(|e| crate::de::column(1, "size", e))?,
        })
    }
}

impl serde::Serialize for Level {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(2))?;
        seq.serialize_element(&crate::money::SerDecimal(&self.price))?;
        seq.serialize_element(&crate::money::SerDecimal(&self.size))?;
        seq.end()
    }
}

/// The book sides of a depth push (`{"asks":[...],"bids":[...]}`); other members ignored.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Sides {
    #[serde(default, deserialize_with = "crate::de::rows")]
    pub(crate) asks: Vec<Level>,
    #[serde(default, deserialize_with = "crate::de::rows")]
    pub(crate) bids: Vec<Level>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn spot_ticker_exact_with_extra_fields_kept() {
        let t: SpotTicker = serde_json::from_str(
            r#"{"symbol":"BTC_USDT","open_24h":"6758.09","low_24h":"6681.76","base_volume_24h":"6532.4","quote_volume_24h":"43929883.5","last":"6795.07","last_qty":"0.003","best_bid":"6795.07","best_bid_size":"0.001","best_ask":"6795.71","best_ask_size":"0.006","timestamp":1523338956129,"new_field":{"x":1}}"#,
        )
        .unwrap();
        assert_eq!(t.symbol, "BTC_USDT");
        assert_eq!(t.last, Some(d("6795.07")));
        assert_eq!(t.base_volume_24h, Some(d("6532.4")));
        assert_eq!(t.high_24h, None);
        assert_eq!(t.timestamp, Some(TimestampMillis(1523338956129)));
        assert_eq!(t.extra.get("new_field"), Some(r#"{"x":1}"#));
        let shown = serde_json::to_string(&t).unwrap();
        assert!(
            shown.starts_with(r#"{"symbol":"BTC_USDT","open_24h":"6758.09""#),
            "{shown}"
        );
        assert!(
            shown.ends_with(r#""timestamp":1523338956129,"new_field":{"x":1}}"#),
            "{shown}"
        );
    }

    #[test]
    fn missing_identity_is_an_error_and_placeholders_are_none() {
        let e = serde_json::from_str::<SwapTicker>(r#"{"last":"1"}"#).unwrap_err();
        assert!(e.to_string().contains("instrument_id"), "{e}");
        let t: SwapTicker = serde_json::from_str(
            r#"{"instrument_id":"BTCUSDTPERP","open_interest":"-","best_bid_size":"124.000000"}"#,
        )
        .unwrap();
        assert_eq!(t.open_interest, None);
        assert_eq!(t.best_bid_size.unwrap().to_string(), "124.000000");
    }

    #[test]
    fn aliases_of_unverified_swap_fields() {
        let a: SwapAccount = serde_json::from_str(
            r#"{"currency":"USDT","available":"10.5","time_stamp":1662346006093,"isolate_margin":"0"}"#,
        )
        .unwrap();
        assert_eq!(a.avail_balance, Some(d("10.5")));
        assert_eq!(a.time_stamp, Some(TimestampMillis(1662346006093)));
        assert_eq!(a.extra.get("isolate_margin"), Some(r#""0""#));
        let o: SwapOrder = serde_json::from_str(
            r#"{"order_id":"1234567890123456789012","order_status":-1,"filled_qty":"3"}"#,
        )
        .unwrap();
        assert_eq!(o.state, Some(OrderState::Canceled));
        assert_eq!(o.order_id, "1234567890123456789012");
    }

    #[test]
    fn candles_and_levels() {
        let c: SwapCandle = serde_json::from_str(
            r#"{"instrument_id":"BTCUSDTPERP","granularity":"1m","mark_candle":[1662109500000,"1","2","0.5","1.5"]}"#,
        )
        .unwrap();
        let k = c.candle.unwrap();
        assert_eq!(k.start, TimestampMillis(1662109500000));
        assert_eq!((k.open, k.close, k.volume), (d("1"), d("1.5"), None));
        let l: Level = serde_json::from_str(r#"["86658.1",2284]"#).unwrap();
        assert_eq!(l, Level::new(d("86658.1"), d("2284")));
        assert_eq!(serde_json::to_string(&l).unwrap(), r#"["86658.1","2284"]"#);
        assert!(serde_json::from_str::<Level>(r#"["1"]"#).is_err());
    }

    #[test]
    fn spot_trade_seconds_with_fraction() {
        let t: SpotTrade = serde_json::from_str(
            r#"{"id":7172173,"time":1523339279.761838,"price":"398.59","amount":"0.027","type":"buy"}"#,
        )
        .unwrap();
        assert_eq!(t.id, "7172173");
        assert_eq!(t.time, d("1523339279.761838"));
        assert_eq!(t.time_millis(), Some(TimestampMillis(1523339279761)));
        assert_eq!(t.side, Some(TradeSide::Buy));
    }
}
