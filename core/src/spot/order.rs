//! Placing, batch placing, cancelling and querying orders, and own trades (private, signed).
//!
//! Every path carries the `{market}` segment ([`Market::Spot`] or [`Market::Margin`]), and every
//! request also sends it as its first parameter (`market=spot`, `market=margin`; see [`Market`]).
//!
//! Orders are typed so that an inconsistent one cannot be written: a [`LimitOrder`] has a price
//! and may be post-only, a [`MarketOrder`] has neither; both become an [`OrderSpec`].
//!
//! DESIGN: order POSTs (`order/new`, `order/batch_new`, `order/cancel`) are not idempotent, so
//! they are never retried automatically; the GET queries are.

use rust_decimal::Decimal;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::codes::int_enum;
use crate::codes::str_enum;
use crate::endpoint::{Family, Meta, Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;
use crate::money::{Amount, Price};
use crate::params::{element_error, ParamMap};
use crate::request;
use crate::request::{
    fields, positive, range, server_default, Fields, IntoArg, OneOrZero, Param, Sink,
};
use crate::spot::{check_symbol, check_window, Market};
use crate::types::{Pair, TimestampSecs};

/// Most order ids one query or cancel call takes.
pub const MAX_ORDER_IDS: usize = 20;
/// Most orders one batch placement takes.
pub const MAX_BATCH_ORDERS: usize = 10;
/// How far back order history and own trades may reach, in days.
pub const MAX_LOOKBACK_DAYS: i64 = 30;

/// A private spot endpoint: signed, idempotent when it is a `GET`.
const fn private(name: &'static str, method: Method, path: &'static str) -> Meta {
    Meta::new(Family::Spot, method, name, path).signed()
}

/// Checks one order id: not empty, no comma (ids travel comma-separated).
fn check_id(field: &'static str, id: &str) -> Result<(), Error> {
    if id.trim().is_empty() {
        return Err(Error::validation(field, "an order id must not be empty"));
    }
    if id.contains(',') {
        return Err(Error::validation(
            field,
            format!("{id:?} contains a comma (ids are sent comma-separated)"),
        ));
    }
    Ok(())
}

/// A check: 1..=20 order ids, none empty or with a comma.
#[allow(non_upper_case_globals)]
const check_ids: crate::request::Rule<OrderIds> =
    crate::request::Rule::new(ids_form, "1..=20 ids, none empty or with a comma");

/// Checks a list of order ids: 1..=20 ids, each valid.
fn ids_form(field: &'static str, ids: &OrderIds) -> Result<(), Error> {
    if !(1..=MAX_ORDER_IDS).contains(&ids.0.len()) {
        return Err(Error::validation(
            field,
            format!(
                "{} ids given; 1..={MAX_ORDER_IDS} ids per call",
                ids.0.len()
            ),
        ));
    }
    ids.0.iter().try_for_each(|id| check_id(field, id))
}

/// Order ids sent as one comma-separated parameter (`order_id=a1,b2`), so an id may not contain
/// a comma. Built from any list of texts (`["a1", "b2"]`, a `Vec<String>`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct OrderIds(Vec<String>);

impl OrderIds {
    /// The ids.
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

impl<I> IntoArg<OrderIds> for I
where
    I: IntoIterator,
    I::Item: Into<String>,
{
    fn into_arg(self) -> OrderIds {
        OrderIds(self.into_iter().map(Into::into).collect())
    }
}

/// One comma-separated text, in a query, a form or a JSON body; read back split at the commas
/// (checked when built).
impl Param for OrderIds {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push(key, &self.0.join(","));
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.str(key, &self.0.join(","));
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        Ok(p.take_opt_str(key)?
            .map(|text| OrderIds(text.split(',').map(|s| s.trim().to_owned()).collect())))
    }
    #[inline]
    fn describe(info: &mut crate::request::ParamInfo) {
        info.type_name("order ids, comma-separated");
    }
}

// ---------------------------------------------------------------------------------------------
// Order models

int_enum! {
    /// Order status (the states of the spot documents).
    ///
    /// DESIGN: the venue is documented and seen (ccxt, hummingbot) with integer codes only; no
    /// public answer shows it writing words, so no word aliases are declared. A word still
    /// reads by the variant's name in any case or separator style (`PARTIALLY_EXECUTED`,
    /// `partially-executed`); any other word is kept in [`OrderStatus::Other`].
    pub enum OrderStatus {
        /// 0: not executed.
        NotExecuted = 0,
        /// 1: partially executed.
        PartiallyExecuted = 1,
        /// 2: fully executed.
        FullyExecuted = 2,
        /// 3: cancelled with nothing executed.
        Cancelled = 3,
        /// 4: cancelled after partial execution.
        CancelledPartially = 4,
    }
}

impl OrderStatus {
    /// Whether the order may still execute (statuses 0 and 1). An unknown code or word is
    /// reported as not open.
    pub fn is_open(&self) -> bool {
        matches!(
            self,
            OrderStatus::NotExecuted | OrderStatus::PartiallyExecuted
        )
    }
}

str_enum! {
    /// Order type: side and limit or market.
    pub enum OrderType {
        /// Limit buy.
        Buy = "buy",
        /// Limit sell.
        Sell = "sell",
        /// Market buy (amount in quote currency).
        BuyMarket = "buy_market",
        /// Market sell (amount in base currency).
        SellMarket = "sell_market",
    }
}

str_enum! {
    /// Account an order belongs to.
    pub enum OrderKind {
        /// Spot account.
        Spot = "spot",
        /// Margin account.
        Margin = "margin",
    }
}

/// An order as the query endpoints return it.
///
/// DESIGN: `order_id` is the order's identity and required; every other field is optional (see
/// [decoding](crate#decoding)): a value the server leaves out or sends as `""`, `"-"` or `null` is
/// `None`, never a made-up zero. A value the server does send is kept, `0` included (a market
/// order's `price`, a limit order's `cash_amount`), except `finished_date`, whose `0` means "not
/// finished" and reads as `None`.
///
/// The wire field `type` is named `order_type` here (`type` is a Rust keyword); it serializes as
/// `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Order {
    /// Order id (hex string; an integer is accepted).
    #[serde(with = "crate::de::id")]
    pub order_id: String,
    /// Pair (`BTC_USDT` on the wire; compares with text in any case).
    #[serde(default, with = "crate::de::opt")]
    pub symbol: Option<Pair>,
    /// Creation time (seconds).
    #[serde(default, with = "crate::de::opt")]
    pub created_date: Option<TimestampSecs>,
    /// Finish time (seconds). DESIGN: the server sends `0` while the order is unfinished; that
    /// (and `null`, a placeholder or a missing field) is `None`.
    #[serde(default, with = "finished_date")]
    pub finished_date: Option<TimestampSecs>,
    /// Order price (the server sends 0 for market orders).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price: Option<Decimal>,
    /// Order amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
    /// Amount committed for a market order (the server sends 0 when none).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub cash_amount: Option<Decimal>,
    /// Executed amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub executed_amount: Option<Decimal>,
    /// Average execution price (the server sends 0 before any execution).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub avg_price: Option<Decimal>,
    /// Status.
    #[serde(default, with = "crate::de::opt")]
    pub status: Option<OrderStatus>,
    /// Type (wire name `type`).
    #[serde(default, rename = "type", with = "crate::de::opt")]
    pub order_type: Option<OrderType>,
    /// Spot or margin, when the server says.
    #[serde(default, with = "crate::de::opt")]
    pub kind: Option<OrderKind>,
    /// Executions; only [`OrderDetailRequest`] fills this, the list queries leave it empty.
    ///
    /// DESIGN: the spec describes `detail` as one object, other captures show an array; both
    /// (and `null`, a placeholder, or an empty object) are accepted and read as a list. Any
    /// other value is an empty list, reported as unreadable.
    #[serde(default, with = "fills")]
    pub detail: Vec<OrderFill>,
}

impl Order {
    /// Whether the order may still execute; `None` when the server sent no readable status.
    pub fn is_open(&self) -> Option<bool> {
        self.status.as_ref().map(OrderStatus::is_open)
    }
}

/// One execution of an order (the `detail` of [`OrderDetail`]).
///
/// DESIGN: the trade id `tid` is the execution's identity and required; the rest is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct OrderFill {
    /// Trade id (int or string on the wire).
    #[serde(with = "crate::de::id")]
    pub tid: String,
    /// Execution time (seconds).
    #[serde(default, with = "crate::de::opt")]
    pub date: Option<TimestampSecs>,
    /// Executed amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub executed_amount: Option<Decimal>,
    /// Execution price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub executed_price: Option<Decimal>,
}

/// A fill given as one object, whose fields may all be missing (an empty `detail` object means
/// no fill).
#[derive(Deserialize)]
struct MaybeFill {
    #[serde(default, with = "tid_or_none")]
    tid: Option<String>,
    #[serde(default, with = "crate::de::opt")]
    date: Option<TimestampSecs>,
    #[serde(default, with = "crate::de::opt_decimal")]
    executed_amount: Option<Decimal>,
    #[serde(default, with = "crate::de::opt_decimal")]
    executed_price: Option<Decimal>,
}

impl MaybeFill {
    fn into_fill<E: serde::de::Error>(self) -> Result<Option<OrderFill>, E> {
        match self {
            MaybeFill {
                tid: None,
                date: None,
                executed_amount: None,
                executed_price: None,
            } => Ok(None),
            MaybeFill {
                tid,
                date,
                executed_amount,
                executed_price,
            } => Ok(Some(OrderFill {
                tid: tid.ok_or_else(|| E::missing_field("tid"))?,
                date,
                executed_amount,
                executed_price,
            })),
        }
    }
}

/// The `tid` of a single-object `detail`: absent, `null` or a placeholder are `None` (the object
/// may be empty); any other value must be an id (an integer or a string), or the answer fails.
mod tid_or_none {
    use super::*;
    use crate::de::Token;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        use serde::de::Error as _;
        match crate::de::token(d)? {
            Token::Null => Ok(None),
            Token::Str(s) if crate::de::is_placeholder(&s) => Ok(None),
            Token::Str(s) => Ok(Some(s.into_owned())),
            Token::Number(t) if t.bytes().all(|b| b.is_ascii_digit() || b == b'-') => {
                Ok(Some(t.to_owned()))
            }
            Token::Number(t) | Token::Other(t) => Err(D::Error::custom(format_args!(
                "expected an id, found `{}`",
                t.chars().take(40).collect::<String>()
            ))),
            Token::Bool(_) => Err(D::Error::custom("expected an id, found a boolean")),
        }
    }
}

/// `detail`: one object, an array of objects, `null` or a placeholder, read as a list.
mod fills {
    use super::*;

    struct FillsVisitor;

    impl FillsVisitor {
        fn unreadable<E: serde::de::Error>(text: &str) -> Result<Vec<OrderFill>, E> {
            crate::de::unreadable::note::<E>("a fill or a list of fills", text).map(|()| Vec::new())
        }
    }

    impl<'de> Visitor<'de> for FillsVisitor {
        type Value = Vec<OrderFill>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a fill object, a list of fills or null")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if crate::de::is_placeholder(v) {
                Ok(Vec::new())
            } else {
                Self::unreadable(v)
            }
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Self::unreadable(if v { "true" } else { "false" })
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
            while let Some(f) = seq.next_element::<OrderFill>()? {
                out.push(f);
            }
            Ok(out)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            let maybe = MaybeFill::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
            Ok(maybe.into_fill()?.into_iter().collect())
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<OrderFill>, D::Error> {
        d.deserialize_any(FillsVisitor)
    }

    pub(super) fn serialize<S: serde::Serializer>(
        v: &[OrderFill],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(v)
    }
}

/// `finished_date`: the optional rule ([`crate::de::opt`]), with `0` (unfinished) read as `None`
/// too.
mod finished_date {
    use super::*;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<TimestampSecs>, D::Error> {
        let t: Option<TimestampSecs> = crate::de::opt::deserialize(d)?;
        Ok(t.filter(|t| t.0 != 0))
    }

    pub(super) fn serialize<S: serde::Serializer>(
        v: &Option<TimestampSecs>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        crate::de::opt::serialize(v, s)
    }
}

/// A list of ids that is the whole answer ([`PlacedOrders`]): required, and each id required.
mod required_ids {
    use super::*;

    struct IdSeed;

    impl<'de> serde::de::DeserializeSeed<'de> for IdSeed {
        type Value = String;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
            crate::de::id::deserialize(d)
        }
    }

    struct IdsVisitor;

    impl<'de> Visitor<'de> for IdsVisitor {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of ids")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
            while let Some(id) = seq.next_element_seed(IdSeed)? {
                out.push(id);
            }
            Ok(out)
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        d.deserialize_seq(IdsVisitor)
    }

    pub(super) fn serialize<S: serde::Serializer>(v: &[String], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v)
    }
}

/// Answer of [`OrdersRequest`], [`CurrentOrdersRequest`] and [`OrderHistoryRequest`].
///
/// An answer without `data` (`{"code":0}`), or with `null` or a placeholder there, decodes to an
/// empty list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Orders {
    /// The orders.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<Order>,
}

/// Answer of [`OrderDetailRequest`].
///
/// DESIGN: the order is the whole answer, so an answer without `data` (`{"code":0}`) is a
/// decode error naming `data`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct OrderDetail {
    /// The order with its executions in [`Order::detail`].
    pub data: Order,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/{market}/order`: up to 20 orders by id.
    ///
    /// Parameters: `market` (the path's value), then `order_id`: the ids as one comma-separated
    /// parameter, so an id may not contain a comma.
    pub struct OrdersRequest => Orders;
    meta = private("spot.order", Method::Get, "/{market}/order");
    /// The orders with these ids (1..=20) in `market`.
    new;
    fields {
        /// Spot or margin: the path segment, also sent first as `market`.
        path market: Market,
        /// The ids, 1..=20, none empty or with a comma.
        req order_ids: OrderIds as "order_id" [check_ids],
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/{market}/order/detail`: one order with its executions.
    ///
    /// Parameters: `market` (the path's value), then `order_id`.
    pub struct OrderDetailRequest => OrderDetail;
    meta = private("spot.order_detail", Method::Get, "/{market}/order/detail");
    /// The order `order_id` in `market`.
    new;
    fields {
        /// Spot or margin: the path segment, also sent first as `market`.
        path market: Market,
        /// The order id (not empty, no comma).
        req order_id: String [check_id],
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/{market}/order/current`: open orders, of one pair or of all.
    ///
    /// Parameters: `market` (the path's value), then `symbol` when set.
    pub struct CurrentOrdersRequest => Orders;
    meta = private("spot.order_current", Method::Get, "/{market}/order/current");
    /// Open orders of every pair in `market`.
    new;
    fields {
        /// Spot or margin: the path segment, also sent first as `market`.
        path market: Market,
        /// Only orders of `symbol` (`btc_usdt`).
        opt symbol: String [check_symbol],
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/{market}/order/history`: finished and open orders in a time window.
    ///
    /// Parameters: `market` (the path's value), then `symbol`, `limit`, `start_time`, `end_time`
    /// (seconds), each only when set.
    ///
    /// The window reaches back at most 30 days (checked against the build time) and `end_time`
    /// may not precede `start_time`; the server's default window is the 3 days before `end_time`.
    pub struct OrderHistoryRequest => Orders;
    meta = private("spot.order_history", Method::Get, "/{market}/order/history");
    /// All pairs in `market`, the server's default window (3 days) and limit (10).
    new;
    fields {
        /// Spot or margin: the path segment, also sent first as `market`.
        path market: Market,
        /// Only `symbol` (`btc_usdt`).
        opt symbol: String [check_symbol],
        /// Number of records, 1..=100.
        opt limit: u32 [range(1, 100), server_default(10)],
        /// Window start; at most 30 days before now.
        opt start_time: TimestampSecs,
        /// Window end; not before `start_time`.
        opt end_time: TimestampSecs,
    }
    window = check_lookback(start_time, end_time);
}

request! {
    /// `GET /v3/{market}/mytrades`: own executions in a time window.
    ///
    /// Parameters: `market` (the path's value), then `symbol`, `limit`, `start_time`, `end_time`
    /// (seconds), each only when set.
    ///
    /// Same time rules as [`OrderHistoryRequest`]: at most 30 days back, `end_time` not before
    /// `start_time`.
    pub struct MyTradesRequest => MyTrades;
    meta = private("spot.mytrades", Method::Get, "/{market}/mytrades");
    /// All pairs in `market`, the server's default window (3 days) and limit (50).
    new;
    fields {
        /// Spot or margin: the path segment, also sent first as `market`.
        path market: Market,
        /// Only `symbol` (`btc_usdt`).
        opt symbol: String [check_symbol],
        /// Number of records, 1..=500.
        opt limit: u32 [range(1, 500), server_default(50)],
        /// Window start; at most 30 days before now.
        opt start_time: TimestampSecs,
        /// Window end; not before `start_time`.
        opt end_time: TimestampSecs,
    }
    window = check_lookback(start_time, end_time);
}

/// `end_time` not before `start_time`, neither more than [`MAX_LOOKBACK_DAYS`] before the build
/// time.
fn check_lookback(
    start: Option<TimestampSecs>,
    end: Option<TimestampSecs>,
    p: &Params,
) -> Result<(), Error> {
    check_window(
        start.map(|t| t.0),
        end.map(|t| t.0),
        p.now(),
        Some(MAX_LOOKBACK_DAYS),
    )
}

/// Answer of [`MyTradesRequest`].
///
/// An answer without `list` (`{"code":0}`), or with `null` or a placeholder there, decodes to an
/// empty list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct MyTrades {
    /// The trades.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub list: Vec<OwnTrade>,
}

/// One own execution.
///
/// DESIGN: the trade id `id` is the record's identity and required. `order_id` is optional: it
/// refers to another record (the order the fill belongs to) rather than identifying this one,
/// and a fill without it still says what was traded, at what price and for what fee. Every
/// other field is optional too (see [decoding](crate#decoding)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct OwnTrade {
    /// Pair (`BTC_USDT` on the wire; compares with text in any case).
    #[serde(default, with = "crate::de::opt")]
    pub symbol: Option<Pair>,
    /// Id of the order that executed (hex string; an integer is accepted).
    #[serde(default, with = "crate::de::opt_id")]
    pub order_id: Option<String>,
    /// Trade id (int or string on the wire).
    #[serde(with = "crate::de::id")]
    pub id: String,
    /// Execution price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price: Option<Decimal>,
    /// Executed amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
    /// Fee paid.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub fee: Option<Decimal>,
    /// Currency of the fee.
    #[serde(default, with = "crate::de::opt_string")]
    pub fee_currency: Option<String>,
    /// Execution time (seconds).
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampSecs>,
    /// Order type of the executing order.
    #[serde(default, with = "crate::de::opt")]
    pub side: Option<OrderType>,
    /// Whether the order was the maker: `true`/`false`, `1`/`0` and their string forms.
    #[serde(default, with = "crate::de::opt_flag")]
    pub is_maker: Option<bool>,
}

// ---------------------------------------------------------------------------------------------
// Order placement

/// Buy or sell, for placing orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderSide {
    /// Buy.
    Buy,
    /// Sell.
    Sell,
}

/// A limit order: price and base-currency amount, optionally post-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LimitOrder {
    side: OrderSide,
    amount: Amount,
    price: Price,
    post_only: bool,
}

impl LimitOrder {
    /// Buy `amount` (base currency) at `price` or better.
    pub fn buy(amount: Amount, price: Price) -> Self {
        Self::new(OrderSide::Buy, amount, price)
    }
    /// Sell `amount` (base currency) at `price` or better.
    pub fn sell(amount: Amount, price: Price) -> Self {
        Self::new(OrderSide::Sell, amount, price)
    }
    /// A limit order of `amount` (base currency) at `price` on `side`.
    pub fn new(side: OrderSide, amount: Amount, price: Price) -> Self {
        LimitOrder {
            side,
            amount,
            price,
            post_only: false,
        }
    }
    /// Makes the order post-only: it always pays the maker fee and is cancelled when it cannot
    /// rest on the book. Sent as `post_only=1`.
    pub fn post_only(mut self) -> Self {
        self.post_only = true;
        self
    }
    /// The side.
    pub fn side(&self) -> OrderSide {
        self.side
    }
    /// The limit price.
    pub fn price(&self) -> Price {
        self.price
    }
    /// The amount (base currency).
    pub fn amount(&self) -> Amount {
        self.amount
    }
    /// Whether the order is post-only.
    pub fn is_post_only(&self) -> bool {
        self.post_only
    }
}

/// A market order.
///
/// A market buy spends an amount of the QUOTE currency (a market buy of 10 on `btc_usdt`
/// spends 10 USDT); a market sell sells an amount of the BASE currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MarketOrder {
    side: OrderSide,
    amount: Amount,
}

impl MarketOrder {
    /// Buy for `quote_amount` of the quote currency.
    pub fn buy(quote_amount: Amount) -> Self {
        MarketOrder {
            side: OrderSide::Buy,
            amount: quote_amount,
        }
    }
    /// Sell `base_amount` of the base currency.
    pub fn sell(base_amount: Amount) -> Self {
        MarketOrder {
            side: OrderSide::Sell,
            amount: base_amount,
        }
    }
    /// The side.
    pub fn side(&self) -> OrderSide {
        self.side
    }
    /// The amount: quote currency for a buy, base currency for a sell.
    pub fn amount(&self) -> Amount {
        self.amount
    }
}

/// An order to place: limit or market.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderSpec {
    /// A limit order.
    Limit(LimitOrder),
    /// A market order.
    Market(MarketOrder),
}

impl From<LimitOrder> for OrderSpec {
    fn from(o: LimitOrder) -> Self {
        OrderSpec::Limit(o)
    }
}

impl From<MarketOrder> for OrderSpec {
    fn from(o: MarketOrder) -> Self {
        OrderSpec::Market(o)
    }
}

impl IntoArg<OrderSpec> for LimitOrder {
    fn into_arg(self) -> OrderSpec {
        OrderSpec::Limit(self)
    }
}

impl IntoArg<OrderSpec> for MarketOrder {
    fn into_arg(self) -> OrderSpec {
        OrderSpec::Market(self)
    }
}

impl OrderSpec {
    /// The wire `type`: `buy`, `sell`, `buy_market` or `sell_market`.
    pub fn wire_type(&self) -> &'static str {
        match self {
            OrderSpec::Limit(o) => match o.side {
                OrderSide::Buy => "buy",
                OrderSide::Sell => "sell",
            },
            OrderSpec::Market(o) => match o.side {
                OrderSide::Buy => "buy_market",
                OrderSide::Sell => "sell_market",
            },
        }
    }
    /// The typed order type.
    pub fn order_type(&self) -> OrderType {
        OrderType::from_wire(self.wire_type())
    }
    /// The side.
    pub fn side(&self) -> OrderSide {
        match self {
            OrderSpec::Limit(o) => o.side,
            OrderSpec::Market(o) => o.side,
        }
    }
    /// The limit price (`None` for market orders).
    pub fn price(&self) -> Option<Price> {
        match self {
            OrderSpec::Limit(o) => Some(o.price),
            OrderSpec::Market(_) => None,
        }
    }
    /// The amount (quote currency for a market buy, base currency otherwise).
    pub fn amount(&self) -> Amount {
        match self {
            OrderSpec::Limit(o) => o.amount,
            OrderSpec::Market(o) => o.amount,
        }
    }
    /// Whether the order is post-only (limit orders only).
    pub fn is_post_only(&self) -> bool {
        matches!(self, OrderSpec::Limit(o) if o.post_only)
    }

    /// Builds an order from its wire members, refusing inconsistent combinations (a market
    /// order with a price or post-only, a limit order without a price, an unknown type).
    fn from_wire(
        order_type: OrderType,
        price: Option<Price>,
        amount: Amount,
        post_only: Option<OneOrZero>,
    ) -> Result<Self, Error> {
        let post_only = post_only.is_some_and(|f| f.0);
        let (side, limit) = match order_type {
            OrderType::Buy => (OrderSide::Buy, true),
            OrderType::Sell => (OrderSide::Sell, true),
            OrderType::BuyMarket => (OrderSide::Buy, false),
            OrderType::SellMarket => (OrderSide::Sell, false),
            OrderType::Other(other) => {
                return Err(Error::validation(
                    "type",
                    format!("{other:?} is not one of buy, sell, buy_market, sell_market"),
                ))
            }
        };
        if limit {
            let price = price.ok_or_else(|| Error::missing_when("price", "for a limit order"))?;
            let order = LimitOrder::new(side, amount, price);
            Ok(OrderSpec::Limit(if post_only {
                order.post_only()
            } else {
                order
            }))
        } else {
            if price.is_some() {
                return Err(Error::validation(
                    "price",
                    "must not be given for a market order",
                ));
            }
            if post_only {
                return Err(Error::validation(
                    "post_only",
                    "a market order cannot be post-only",
                ));
            }
            Ok(OrderSpec::Market(MarketOrder { side, amount }))
        }
    }

    /// Appends this order as a JSON object of the batch `list`: its members as
    /// [`Fields::write`] writes them (the one declaration of the order's wire shape), through
    /// the batch element's sink, [`Element`], which puts `type` first.
    fn write_json(&self, out: &mut String) -> Result<(), Error> {
        let mut element = Element::default();
        self.write(&mut element)?;
        let head = element.head.into_bytes();
        let rest = element.rest.into_bytes();
        out.push('{');
        out.push_str(&String::from_utf8_lossy(&head));
        if !head.is_empty() && !rest.is_empty() {
            out.push(',');
        }
        out.push_str(&String::from_utf8_lossy(&rest));
        out.push('}');
        Ok(())
    }
}

/// The sink of a batch element: the members of an order as JSON, `type` first.
///
/// DESIGN: a batch element keeps the documented element's member order (`type` first, as in
/// the spec's example and the clients that ran against the live venue), while a single order's
/// form follows the official signing example (`price`, `amount`, `type`). The signature covers
/// the bytes sent either way; the order is kept so that a request matches the documented one
/// byte for byte. The sink moves the member; what is written, and how, stays
/// [`Fields::write`]'s.
#[derive(Default)]
struct Element {
    /// `"type":"buy"`.
    head: JsonWriter,
    /// The other members, in wire order.
    rest: JsonWriter,
}

impl Sink for Element {
    fn field<P: Param>(&mut self, key: &'static str, value: &P) -> Result<(), Error> {
        let to = if key == "type" {
            &mut self.head
        } else {
            &mut self.rest
        };
        to.field(key, value)
    }
}

/// The error of the `index`th order of the batch parameter `key`, its field named in it
/// (`list[3].price`).
fn in_list(key: &'static str, index: usize, e: Error) -> Error {
    let e = element_error(index, e);
    match e.field().map(|f| format!("{key}{f}")) {
        Some(field) => e.with_field(field),
        None => e,
    }
}

fields! {
    /// An order as form parameters, in wire order: `price` (limit orders only), `amount`,
    /// `type` and `post_only=1` when set; read back refusing inconsistent combinations (a
    /// market order with a price or post-only, a limit order without a price). `post_only` is
    /// `1` in a form and in JSON alike (the documented form), not a JSON boolean.
    impl Fields for OrderSpec {
        |o| {
            /// The limit price (buy and sell orders only).
            opt price: Price [positive] = o.price() => |info| {
                info.rule("refused for buy_market and sell_market");
                info.required_when("type buy or sell");
            };
            /// The amount: quote currency for buy_market, base currency otherwise.
            req amount: Amount [positive] = o.amount();
            /// The order type.
            req order_type as "type": OrderType = o.order_type();
            /// Maker only (buy and sell orders only).
            opt post_only: OneOrZero = o.is_post_only().then_some(OneOrZero(true)) => |info| {
                info.default = Some("0".into());
                info.rule("refused for buy_market and sell_market");
            };
        }
        read => OrderSpec::from_wire(order_type, price, amount, post_only);
    }
}

request! {
    /// `POST /v3/{market}/order/new`: places one order.
    ///
    /// Form parameters, in this order: `market` (the path's value), `symbol`, `price` (limit orders
    /// only), `amount`, `type` (`buy`, `sell`, `buy_market`, `sell_market`) and `post_only=1` when
    /// set. Decimals are written in plain notation, exactly as given.
    ///
    /// DESIGN: `post_only` is sent as `1` only when set; when not set it is omitted (the documented
    /// default is 0).
    pub struct PlaceOrderRequest => PlacedOrder;
    meta = private("spot.order_new", Method::Post, "/{market}/order/new");
    /// Places `order` (a [`LimitOrder`], a [`MarketOrder`] or an [`OrderSpec`]) on `symbol`
    /// (`btc_usdt`) in `market`.
    new;
    fields {
        /// Spot or margin: the path segment, also sent first as `market`.
        path market: Market,
        /// The pair (`btc_usdt`).
        req symbol: String [check_symbol],
        /// The order: `price`, `amount`, `type`, `post_only`.
        flat order: OrderSpec,
    }
}

impl PlaceOrderRequest {
    /// The order.
    pub fn order(&self) -> &OrderSpec {
        &self.order
    }

    /// The pair.
    pub fn symbol(&self) -> &str {
        &self.symbol
    }

    /// Spot or margin.
    pub fn market(&self) -> Market {
        self.market
    }
}

/// Answer of [`PlaceOrderRequest`].
///
/// The id of the new order is the whole answer: an answer without `order_id` (`{"code":0}`) is a
/// decode error naming it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct PlacedOrder {
    /// Id of the new order.
    #[serde(with = "crate::de::id")]
    pub order_id: String,
}

impl PlacedOrder {
    /// The answer naming `order_id` (a placement answered by hand, in a test or a mock).
    pub fn new(order_id: impl Into<String>) -> Self {
        PlacedOrder {
            order_id: order_id.into(),
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// The orders of a batch (1..=10), sent as the JSON text of an array (the `list` parameter):
/// `[{"type":"buy","price":"0.01","amount":"1","post_only":1}]`, `price` only for limit orders,
/// `post_only` only when set. Built from any list of [`LimitOrder`], [`MarketOrder`] or
/// [`OrderSpec`].
///
/// DESIGN: decimals inside the text are JSON strings in plain notation: exact (no float
/// formatting), and what ccxt sends to the live API. Validation errors name the element
/// (`list[3].price`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct OrderList(Vec<OrderSpec>);

impl OrderList {
    /// The orders.
    pub fn as_slice(&self) -> &[OrderSpec] {
        &self.0
    }

    /// The JSON text of the array.
    fn to_json_text(&self) -> Result<String, Error> {
        let mut list = String::with_capacity(self.0.len().saturating_mul(72).saturating_add(2));
        list.push('[');
        for (i, order) in self.0.iter().enumerate() {
            if i > 0 {
                list.push(',');
            }
            order.write_json(&mut list)?;
        }
        list.push(']');
        Ok(list)
    }
}

impl<I> IntoArg<OrderList> for I
where
    I: IntoIterator,
    I::Item: Into<OrderSpec>,
{
    fn into_arg(self) -> OrderList {
        OrderList(self.into_iter().map(Into::into).collect())
    }
}

/// A check: 1..=10 orders, each with a positive price and amount.
#[allow(non_upper_case_globals)]
const check_batch: crate::request::Rule<OrderList> = crate::request::Rule::new(
    batch_form,
    "1..=10 orders, each {\"type\":buy|sell|buy_market|sell_market,\"price\" (limit orders),\"amount\",\"post_only\":1 (optional)}",
)
.with_example(r#"[{"type":"buy","price":"1","amount":"1"}]"#);

/// Checks a batch: 1..=10 orders, each with a positive price and amount (the error names the
/// element: `list[3].price`).
fn batch_form(field: &'static str, list: &OrderList) -> Result<(), Error> {
    if !(1..=MAX_BATCH_ORDERS).contains(&list.0.len()) {
        return Err(Error::validation(
            field,
            format!(
                "{} orders given; 1..={MAX_BATCH_ORDERS} orders per batch",
                list.0.len()
            ),
        ));
    }
    list.0
        .iter()
        .enumerate()
        .try_for_each(|(i, order)| Fields::check(order).map_err(|e| in_list(field, i, e)))
}

/// The array's JSON text, in a form or a JSON body (a JSON string). Read from that text, from a
/// JSON array given directly (`--json`), or from a JSON string holding the array's text.
impl Param for OrderList {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push(key, &self.to_json_text()?);
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.str(key, &self.to_json_text()?);
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        let Some(raw) = p.take_opt_raw(key) else {
            return Ok(None);
        };
        // A JSON string holding the array's text (`"list":"[...]"`) is unwrapped first.
        let text = if raw.trim_start().starts_with('"') {
            serde_json::from_str::<String>(&raw)
                .map_err(|e| Error::validation(key, format!("not a JSON string: {e}")))?
        } else {
            raw
        };
        let items: Vec<Box<RawValue>> = serde_json::from_str(&text)
            .map_err(|e| Error::validation(key, format!("not a JSON array of orders: {e}")))?;
        // Each element is read by the order's one declaration (`Fields::take_all`); a member
        // it does not read is refused, naming the element (`list[1].prise`).
        items
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                let mut members = ParamMap::new();
                members.insert_json_object(raw.get()).map_err(|_| {
                    Error::validation(format!("{key}[{i}]"), "must be a JSON object (an order)")
                })?;
                let order = OrderSpec::take_all(&mut members).map_err(|e| in_list(key, i, e))?;
                members.finish().map_err(|e| in_list(key, i, e))?;
                Ok(order)
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|orders| Some(OrderList(orders)))
    }
    #[inline]
    fn describe(info: &mut crate::request::ParamInfo) {
        info.type_name("JSON array of orders");
    }
}

request! {
    /// `POST /v3/{market}/order/batch_new`: places 1..=10 orders on one pair, all or nothing.
    ///
    /// Form parameters: `market` (the path's value), `symbol`, then `list`, the JSON text of the
    /// order array ([`OrderList`]), e.g.
    /// `[{"type":"buy","price":"0.01","amount":"1","post_only":1}]`: `price` only for limit
    /// orders, `post_only` only when set.
    ///
    /// DESIGN: decimals inside `list` are JSON strings in plain notation: exact (no float
    /// formatting), and what ccxt sends to the live API. Validation errors name the element
    /// (`list[3].price`).
    pub struct BatchPlaceOrdersRequest => PlacedOrders;
    meta = private("spot.order_batch_new", Method::Post, "/{market}/order/batch_new");
    /// Places `orders` (1..=10 of [`LimitOrder`], [`MarketOrder`] or [`OrderSpec`]) on `symbol`
    /// in `market`.
    new;
    fields {
        /// Spot or margin: the path segment, also sent first as `market`.
        path market: Market,
        /// The pair (`btc_usdt`).
        req symbol: String [check_symbol],
        /// The orders, 1..=10.
        req orders: OrderList as "list" [check_batch],
    }
}

impl BatchPlaceOrdersRequest {
    /// The orders.
    pub fn orders(&self) -> &[OrderSpec] {
        self.orders.as_slice()
    }
}

/// Answer of [`BatchPlaceOrdersRequest`].
///
/// The ids of the new orders are the whole answer: an answer without `order_ids` (`{"code":0}`),
/// or with `null` or anything but a list there, is a decode error naming it, and so is an
/// element that is not an id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct PlacedOrders {
    /// Ids of the new orders, in request order.
    #[serde(with = "required_ids")]
    pub order_ids: Vec<String>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /v3/{market}/order/cancel`: cancels up to 20 orders by id.
    ///
    /// Form parameters: `market` (the path's value), then the ids as one comma-separated
    /// `order_id`. The answer lists which ids were cancelled and which failed; a failure of some
    /// ids is not an error of the call.
    pub struct CancelOrdersRequest => CancelResult;
    meta = private("spot.order_cancel", Method::Post, "/{market}/order/cancel");
    /// Cancels the orders with these ids (1..=20) in `market`.
    new;
    fields {
        /// Spot or margin: the path segment, also sent first as `market`.
        path market: Market,
        /// The ids, 1..=20, none empty or with a comma.
        req order_ids: OrderIds as "order_id" [check_ids],
    }
}

/// Answer of [`CancelOrdersRequest`]. Ids may arrive as ints or strings.
///
/// DESIGN: each listed id is the identity of an order acted on, so an element that is not an id
/// (`null`, a placeholder) fails the answer naming it. An answer without `success` or `error`
/// (`{"code":0}`), or with `null` there, decodes to empty lists, and `date` to `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct CancelResult {
    /// Ids that were cancelled.
    #[serde(default, with = "crate::de::id_list")]
    pub success: Vec<String>,
    /// Ids that could not be cancelled.
    #[serde(default, with = "crate::de::id_list")]
    pub error: Vec<String>,
    /// Server time (seconds), carried by some responses.
    #[serde(default, with = "crate::de::opt")]
    pub date: Option<TimestampSecs>,
}
