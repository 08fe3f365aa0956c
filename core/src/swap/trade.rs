//! Swap trading: placing and cancelling orders (single and batch), open, single and historical
//! orders, and fills (all signed).
//!
//! Orders are typed so that an inconsistent one cannot be written. An [`OrderSpec`] carries an
//! [`OrderPricing`]: a limit order or an IOC/FOK order at a custom price carries its [`Price`];
//! a market-style order ([`MarketStyle`]: opponent or optimal 5/10/20 levels, IOC, GTC or FOK)
//! carries none. Post-only exists only on limit orders (see [`OrderPricing::Limit`]). The size is
//! a [`Size`] (contracts), given before the price.
//!
//! Request bodies (JSON, members in the documented order): `instrument_id` (string), `type`
//! ([`OrderSide`] code), `order_type` ([`OrderType`] code), `size` (a JSON number written from
//! the exact decimal text), `price` (a JSON string, priced types only) and `post_only` (JSON
//! `true`, only when set). The batch endpoints send a JSON array of such objects ([`Batch`]).
//!
//! DESIGN: idempotency is declared per endpoint (`Meta::idempotent`): placing and cancelling
//! (the four POSTs) change state, so they are never retried automatically and a failure after
//! their bytes may have been sent is [`Error::OutcomeUnknown`]; the four GET queries only read
//! and are retried.
//!
//! Answers follow the required/optional rule of [decoding](crate#decoding): an order's `order_id`,
//! a fill's `trade_id` and the ids that are the whole answer of a placement or cancellation are
//! required; every other field is optional.

use rust_decimal::Decimal;
use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{
    check_instrument, check_order_id, private_read, private_write, window, MarginMode, MatchRole,
    OrderSide, OrderState, OrderType, TradeType,
};
use crate::endpoint::{Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;
use crate::money::{Price, Size};
use crate::params::{element_error, ParamMap};
use crate::request;
use crate::request::{
    described_codes, fields, known_code, positive, range, server_default, Body, Fields, IntoArg,
    ParamInfo,
};
use crate::types::TimestampMillis;

/// Most orders one `batch_order` or `batch_cancel_order` call takes (more is error 401014).
pub const MAX_BATCH_ORDERS: usize = 20;

// ---------------------------------------------------------------------------------------------
// Order typing

/// A market-style order type: executes against the book at the opponent's best price or across
/// the optimal 5/10/20 levels, with IOC, GTC or FOK semantics. Carries no price.
///
/// A closed enum of the codes of [`OrderType`] that take no price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarketStyle {
    /// 1: IOC at the opponent's best price.
    IocOpponent,
    /// 2: IOC across the optimal 5 levels.
    IocOptimal5,
    /// 3: IOC across the optimal 10 levels.
    IocOptimal10,
    /// 13: IOC across the optimal 20 levels.
    IocOptimal20,
    /// 6: GTC at the opponent's best price.
    GtcOpponent,
    /// 7: GTC across the optimal 5 levels.
    GtcOptimal5,
    /// 8: GTC across the optimal 10 levels.
    GtcOptimal10,
    /// 14: GTC across the optimal 20 levels.
    GtcOptimal20,
    /// 10: FOK at the opponent's best price.
    FokOpponent,
    /// 11: FOK across the optimal 5 levels.
    FokOptimal5,
    /// 12: FOK across the optimal 10 levels.
    FokOptimal10,
    /// 15: FOK across the optimal 20 levels.
    FokOptimal20,
}

impl MarketStyle {
    /// The `order_type` of this style.
    pub fn order_type(self) -> OrderType {
        match self {
            MarketStyle::IocOpponent => OrderType::IocOpponent,
            MarketStyle::IocOptimal5 => OrderType::IocOptimal5,
            MarketStyle::IocOptimal10 => OrderType::IocOptimal10,
            MarketStyle::IocOptimal20 => OrderType::IocOptimal20,
            MarketStyle::GtcOpponent => OrderType::GtcOpponent,
            MarketStyle::GtcOptimal5 => OrderType::GtcOptimal5,
            MarketStyle::GtcOptimal10 => OrderType::GtcOptimal10,
            MarketStyle::GtcOptimal20 => OrderType::GtcOptimal20,
            MarketStyle::FokOpponent => OrderType::FokOpponent,
            MarketStyle::FokOptimal5 => OrderType::FokOptimal5,
            MarketStyle::FokOptimal10 => OrderType::FokOptimal10,
            MarketStyle::FokOptimal20 => OrderType::FokOptimal20,
        }
    }

    /// The style of a market-style `order_type`; `None` for priced and unknown types.
    pub fn from_order_type(t: &OrderType) -> Option<Self> {
        Some(match t {
            OrderType::IocOpponent => MarketStyle::IocOpponent,
            OrderType::IocOptimal5 => MarketStyle::IocOptimal5,
            OrderType::IocOptimal10 => MarketStyle::IocOptimal10,
            OrderType::IocOptimal20 => MarketStyle::IocOptimal20,
            OrderType::GtcOpponent => MarketStyle::GtcOpponent,
            OrderType::GtcOptimal5 => MarketStyle::GtcOptimal5,
            OrderType::GtcOptimal10 => MarketStyle::GtcOptimal10,
            OrderType::GtcOptimal20 => MarketStyle::GtcOptimal20,
            OrderType::FokOpponent => MarketStyle::FokOpponent,
            OrderType::FokOptimal5 => MarketStyle::FokOptimal5,
            OrderType::FokOptimal10 => MarketStyle::FokOptimal10,
            OrderType::FokOptimal20 => MarketStyle::FokOptimal20,
            _ => return None,
        })
    }
}

/// How an order is priced: the `order_type` together with the price it needs (or not).
///
/// DESIGN: `post_only` is allowed only on [`OrderPricing::Limit`]. A post-only order must rest
/// on the book as a maker; IOC and FOK orders never rest, and market-style orders take
/// liquidity, so post-only on them is contradictory and cannot be written (the catalog refuses
/// `post_only: true` with those types, naming `post_only`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderPricing {
    /// `order_type` 0: a limit order at `price`.
    Limit {
        /// The limit price.
        price: Price,
        /// Maker-only: the order is cancelled rather than taking liquidity. Sent as
        /// `"post_only":true` only when set.
        post_only: bool,
    },
    /// `order_type` 4: immediate-or-cancel at a custom price.
    IocCustomPrice(Price),
    /// `order_type` 9: fill-or-kill at a custom price.
    FokCustomPrice(Price),
    /// A market-style type: no price.
    Market(MarketStyle),
}

impl OrderPricing {
    /// A limit order at `price`.
    pub fn limit(price: Price) -> Self {
        OrderPricing::Limit {
            price,
            post_only: false,
        }
    }

    /// A post-only limit order at `price`.
    pub fn post_only(price: Price) -> Self {
        OrderPricing::Limit {
            price,
            post_only: true,
        }
    }

    /// The wire `order_type`.
    pub fn order_type(&self) -> OrderType {
        match self {
            OrderPricing::Limit { .. } => OrderType::Limit,
            OrderPricing::IocCustomPrice(_) => OrderType::IocCustomPrice,
            OrderPricing::FokCustomPrice(_) => OrderType::FokCustomPrice,
            OrderPricing::Market(m) => m.order_type(),
        }
    }

    /// The price (`None` for market-style types).
    pub fn price(&self) -> Option<Price> {
        match *self {
            OrderPricing::Limit { price, .. }
            | OrderPricing::IocCustomPrice(price)
            | OrderPricing::FokCustomPrice(price) => Some(price),
            OrderPricing::Market(_) => None,
        }
    }

    /// Whether the order is post-only (limit orders only).
    pub fn is_post_only(&self) -> bool {
        matches!(
            self,
            OrderPricing::Limit {
                post_only: true,
                ..
            }
        )
    }

    /// Builds the pricing from wire parts, refusing a price on a market-style type, a missing
    /// price on a priced type, post-only outside limit orders and unknown codes.
    fn from_wire(
        order_type: OrderType,
        price: Option<Price>,
        post_only: bool,
    ) -> Result<Self, Error> {
        let need_price = |price: Option<Price>| {
            price
                .ok_or_else(|| Error::missing_when("price", format!("for order_type {order_type}")))
        };
        if post_only && order_type != OrderType::Limit {
            return Err(Error::validation(
                "post_only",
                format!(
                    "only a limit order (order_type 0) can be post-only, not order_type {}",
                    order_type
                ),
            ));
        }
        match order_type {
            OrderType::Limit => Ok(OrderPricing::Limit {
                price: need_price(price)?,
                post_only,
            }),
            OrderType::IocCustomPrice => Ok(OrderPricing::IocCustomPrice(need_price(price)?)),
            OrderType::FokCustomPrice => Ok(OrderPricing::FokCustomPrice(need_price(price)?)),
            other => match MarketStyle::from_order_type(&other) {
                Some(style) if price.is_none() => Ok(OrderPricing::Market(style)),
                Some(_) => Err(Error::validation(
                    "price",
                    format!(
                        "must not be given for the market-style order_type {}",
                        other
                    ),
                )),
                None => Err(Error::validation(
                    "order_type",
                    format!("{} is not a documented order type", other),
                )),
            },
        }
    }
}

/// One order to place: instrument, side, size and pricing. The whole body of
/// [`PlaceOrderRequest`] and, as an array element, of [`BatchPlaceOrdersRequest`].
///
/// As [`request::Fields`] it is checked (`instrument_id`, `type`, `size` and `price`, each error
/// naming its member) and written as the members `instrument_id`, `type`, `order_type`, `size`,
/// `price` (priced types only) and `post_only` (only when set).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OrderSpec {
    instrument_id: String,
    side: OrderSide,
    size: Size,
    pricing: OrderPricing,
}

impl OrderSpec {
    /// An order of `size` contracts on `instrument_id` (`BTCUSDTPERP`), opening or closing per
    /// `side`, priced per `pricing`.
    pub fn new(
        instrument_id: impl Into<String>,
        side: OrderSide,
        size: Size,
        pricing: OrderPricing,
    ) -> Self {
        OrderSpec {
            instrument_id: instrument_id.into(),
            side,
            size,
            pricing,
        }
    }

    /// A limit order (`order_type` 0) of `size` contracts at `price`.
    pub fn limit(
        instrument_id: impl Into<String>,
        side: OrderSide,
        size: Size,
        price: Price,
    ) -> Self {
        Self::new(instrument_id, side, size, OrderPricing::limit(price))
    }

    /// A market-style order of `size` contracts.
    pub fn market(
        instrument_id: impl Into<String>,
        side: OrderSide,
        size: Size,
        style: MarketStyle,
    ) -> Self {
        Self::new(instrument_id, side, size, OrderPricing::Market(style))
    }

    /// The instrument.
    pub fn instrument_id(&self) -> &str {
        &self.instrument_id
    }
    /// Open or close, long or short (wire `type`).
    pub fn side(&self) -> &OrderSide {
        &self.side
    }
    /// Size in contracts.
    pub fn size(&self) -> Size {
        self.size
    }
    /// The price (`None` for market-style types).
    pub fn price(&self) -> Option<Price> {
        self.pricing.price()
    }
    /// Order type and price.
    pub fn pricing(&self) -> &OrderPricing {
        &self.pricing
    }
}

fields! {
    /// An order's members: `type` and `order_type` as integer codes, `size` and `price` as
    /// exact decimals, `post_only` as a flag; an inconsistent order is refused when read (see
    /// [`OrderPricing`]).
    impl Fields for OrderSpec {
        |o| {
            /// The instrument.
            req instrument_id: String [check_instrument] = o.instrument_id;
            /// Open or close, long or short.
            req side as "type": OrderSide [known_code] = o.side;
            /// How the order is priced and how long it rests.
            req order_type: OrderType [known_code] = o.pricing.order_type();
            /// The number of contracts.
            req size: Size [positive] = o.size;
            /// The price (priced order types only).
            opt price: Price [positive] = o.pricing.price() => |info| {
                info.rule("refused for the other order types");
                let priced = described_codes::<OrderType>(|code| {
                    OrderType::from_code(code).takes_price()
                });
                info.required_when(format!("order_type {priced}"));
            };
            /// Maker only (order_type 0 only).
            opt post_only: bool = o.pricing.is_post_only().then_some(true) => |info| {
                info.default = Some("false".into());
                info.rule("order_type 0 only");
            };
        }
        read => Ok(OrderSpec {
            instrument_id,
            side,
            size,
            pricing: OrderPricing::from_wire(order_type, price, post_only.unwrap_or(false))?,
        });
    }
}

/// An order to cancel: its instrument and id (a [`BatchCancelOrdersRequest`] element).
///
/// As [`request::Fields`] it is checked (`instrument_id`, `order_id`) and written as the members
/// `instrument_id` and `order_id` (a JSON string).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OrderRef {
    instrument_id: String,
    order_id: String,
}

impl OrderRef {
    /// Order `order_id` on `instrument_id`.
    pub fn new(instrument_id: impl Into<String>, order_id: impl Into<String>) -> Self {
        OrderRef {
            instrument_id: instrument_id.into(),
            order_id: order_id.into(),
        }
    }
    /// The instrument.
    pub fn instrument_id(&self) -> &str {
        &self.instrument_id
    }
    /// The order id.
    pub fn order_id(&self) -> &str {
        &self.order_id
    }
}

impl<A: Into<String>, B: Into<String>> From<(A, B)> for OrderRef {
    fn from((instrument_id, order_id): (A, B)) -> Self {
        OrderRef::new(instrument_id, order_id)
    }
}

fields! {
    /// The members `instrument_id` and `order_id` (a JSON string).
    impl Fields for OrderRef {
        |o| {
            /// The instrument.
            req instrument_id: String [check_instrument] = o.instrument_id;
            /// The order id.
            req order_id: String [check_order_id] = o.order_id;
        }
        read => Ok(OrderRef { instrument_id, order_id });
    }
}

/// The elements of a batch body (`batch_order`: [`OrderSpec`]s, `batch_cancel_order`:
/// [`OrderRef`]s), sent as a JSON array of objects in the given order.
///
/// As [`request::Body`] it refuses a batch of 0 or more than [`MAX_BATCH_ORDERS`] elements on
/// `body` (the server's error 401014) and names a failing element's member with its index
/// (`[3].price`). A request's constructor takes any list of elements (for cancels, also
/// `(instrument_id, order_id)` pairs); a `Batch` is also collected from an iterator.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Batch<T>(Vec<T>);

impl<T> Batch<T> {
    /// The elements, in order.
    pub fn items(&self) -> &[T] {
        &self.0
    }
}

impl<T> FromIterator<T> for Batch<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Batch(iter.into_iter().collect())
    }
}

/// Any list of orders: an array, a `Vec`, an iterator.
impl<I: IntoIterator<Item = OrderSpec>> IntoArg<Batch<OrderSpec>> for I {
    fn into_arg(self) -> Batch<OrderSpec> {
        self.into_iter().collect()
    }
}

/// Any list of [`OrderRef`]s or `(instrument_id, order_id)` pairs.
impl<I> IntoArg<Batch<OrderRef>> for I
where
    I: IntoIterator,
    I::Item: Into<OrderRef>,
{
    fn into_arg(self) -> Batch<OrderRef> {
        self.into_iter().map(Into::into).collect()
    }
}

impl<T: Fields> Body for Batch<T> {
    fn write_body(&self, p: &mut Params) -> Result<(), Error> {
        let len = self.0.len();
        if !(1..=MAX_BATCH_ORDERS).contains(&len) {
            // The body has no member name, so the error names `body`.
            return Err(Error::validation(
                "body",
                format!("{len} elements given; 1..={MAX_BATCH_ORDERS} per batch"),
            ));
        }
        let mut w = JsonWriter::new();
        w.begin_array();
        for (i, item) in self.0.iter().enumerate() {
            w.element();
            write_element(item, &mut w).map_err(|e| element_error(i, e))?;
        }
        w.end_array();
        p.set_json_body(w);
        Ok(())
    }

    /// The array itself (`[]`: 1..=20 elements), then each element's members (`[].price`).
    #[inline]
    fn describe(out: &mut Vec<ParamInfo>) {
        let mut array = ParamInfo::new(
            "[]",
            true,
            &["The whole body: a JSON array of objects (`--json '[{..},{..}]'`)."],
        );
        array.type_name("JSON array of objects");
        array.rule(format!("1..={MAX_BATCH_ORDERS} elements"));
        out.push(array);
        let mut members = Vec::new();
        T::describe(&mut members);
        out.extend(members.into_iter().map(|m| m.prefixed("[].")));
    }

    /// Reads each element of the array body, naming a failing element (`[3].price`).
    fn take_body(p: &mut ParamMap) -> Result<Self, Error> {
        p.take_array_body()?
            .into_iter()
            .enumerate()
            .map(|(i, mut m)| {
                let item = T::take_all(&mut m).map_err(|e| element_error(i, e))?;
                m.finish().map_err(|e| element_error(i, e))?;
                Ok(item)
            })
            .collect()
    }
}

/// Checks one batch element and writes it as a JSON object.
fn write_element<T: Fields>(item: &T, w: &mut JsonWriter) -> Result<(), Error> {
    item.check()?;
    w.begin_object();
    item.put_json_all(w)?;
    w.end_object();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Answers

/// Answer of [`PlaceOrderRequest`]: the id of the new order, which `data` is (`"data":"1590.."`).
///
/// Required (the value that is the whole answer): an answer without `data`, or with `null`, a
/// placeholder or anything but an id, is an [`Error::Decode`] (after a write, the session
/// reports it as [`Error::OutcomeUnknown`]: the order may or may not be placed). Serialized as
/// `{"order_id":".."}`.
///
/// DESIGN: swap ids exceed 2^53; a JSON number is kept as its digits (never read through `f64`
/// or a fixed-width integer), a string is kept as is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
#[non_exhaustive]
pub struct PlacedOrder {
    /// Id of the new order.
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

impl<'de> Deserialize<'de> for PlacedOrder {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::id::deserialize(d).map(|order_id| PlacedOrder { order_id })
    }
}

/// Answer of [`CancelOrderRequest`]: the id of the cancelled order, which `data` is.
///
/// Required, decoded and serialized as [`PlacedOrder`]: an answer without a usable id is an
/// [`Error::Decode`] (after a write, [`Error::OutcomeUnknown`]); a JSON number keeps its digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
#[non_exhaustive]
pub struct CancelledOrder {
    /// Id of the cancelled order.
    pub order_id: String,
}

impl CancelledOrder {
    /// The answer naming `order_id` (a cancellation answered by hand, in a test or a mock).
    pub fn new(order_id: impl Into<String>) -> Self {
        CancelledOrder {
            order_id: order_id.into(),
        }
    }
}

impl<'de> Deserialize<'de> for CancelledOrder {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::id::deserialize(d).map(|order_id| CancelledOrder { order_id })
    }
}

/// One element of a batch answer ([`OrderIds`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BatchItem {
    /// The id of an order placed (`batch_order`) or cancelled (`batch_cancel_order`): a string,
    /// or a JSON number kept as its digits. Serialized as a string.
    Id(String),
    /// An element that carries no usable order id: `null`, a placeholder (`""`, `"-"`), a
    /// number that is not an integer, or an object without an `order_id`. The order at this
    /// place was not placed or cancelled, or the venue did not say which id it got: check the
    /// open orders before acting on it. `code` and `message` are kept when an object element
    /// carries them (`code`, `msg` or `message`). Serialized as `null`, or as
    /// `{"code":..,"msg":..}` when either is known.
    Failed {
        /// The element's `code`, when it has one.
        code: Option<i64>,
        /// The element's `msg` (or `message`), when it has one.
        message: Option<String>,
    },
}

impl BatchItem {
    /// The order id, for an [`BatchItem::Id`].
    pub fn id(&self) -> Option<&str> {
        match self {
            BatchItem::Id(id) => Some(id),
            BatchItem::Failed { .. } => None,
        }
    }

    /// Reads one element of a batch answer from its JSON text (never fails: see the variants).
    fn from_json(text: &str) -> Self {
        let none = BatchItem::Failed {
            code: None,
            message: None,
        };
        match text.as_bytes().first() {
            Some(b'"') => match serde_json::from_str::<String>(text) {
                Ok(s) if !crate::de::is_placeholder(&s) => BatchItem::Id(s),
                _ => none,
            },
            Some(b'-' | b'0'..=b'9') => {
                let digits = text.strip_prefix('-').unwrap_or(text);
                if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    BatchItem::Id(text.to_owned())
                } else {
                    none
                }
            }
            Some(b'{') => {
                let Ok(members) =
                    serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(text)
                else {
                    return none;
                };
                if let Some(BatchItem::Id(id)) = members
                    .get("order_id")
                    .map(|raw| BatchItem::from_json(raw.get()))
                {
                    return BatchItem::Id(id);
                }
                let code = members.get("code").and_then(|raw| {
                    let t = raw.get();
                    crate::de::integer::<i64>(t.trim_matches('"'))
                });
                let message = members
                    .get("msg")
                    .or_else(|| members.get("message"))
                    .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
                    .filter(|m| !crate::de::is_placeholder(m));
                BatchItem::Failed { code, message }
            }
            _ => none,
        }
    }
}

impl Serialize for BatchItem {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            BatchItem::Id(id) => s.serialize_str(id),
            BatchItem::Failed {
                code: None,
                message: None,
            } => s.serialize_none(),
            BatchItem::Failed { code, message } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("code", code)?;
                m.serialize_entry("msg", message)?;
                m.end()
            }
        }
    }
}

/// The answer of the batch endpoints: one [`BatchItem`] per element of `data`, in the venue's
/// order (for `batch_order`, the order of the request).
///
/// Required (the value that is the whole answer): an answer without `data`, or whose `data` is
/// `null`, a placeholder or not a list, is an [`Error::Decode`] (after a write, the session
/// reports it as [`Error::OutcomeUnknown`]). `"data":[]` is an empty answer.
///
/// DESIGN: one element without a usable id does not fail the answer: the other orders' ids are
/// what the caller needs to act on them, so such an element is kept as [`BatchItem::Failed`] in
/// its place. The spec documents `data` as a list of order id strings and public captures show
/// only that (ccxt `ts/src/digifinex.ts`, `createOrders`: swap `data` is
/// `["1720297963537829888","1720297963537829889"]`, matched to the request by position); a
/// cancelled batch may also list only the orders it cancelled, so compare the ids with the
/// request rather than relying on positions there.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OrderIds(pub Vec<BatchItem>);

impl OrderIds {
    /// The order ids, skipping failed elements.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(BatchItem::id)
    }

    /// Whether any element carries no order id.
    pub fn has_failures(&self) -> bool {
        self.0.iter().any(|i| i.id().is_none())
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the answer has no element.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'de> Deserialize<'de> for OrderIds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Taken whole as raw text, so that a missing `data` (which the envelope decodes from
        // "nothing") is an error and not an empty list.
        let raw: &'de RawValue = <&RawValue>::deserialize(d)?;
        let text = raw.get();
        let elements = serde_json::from_str::<Vec<&RawValue>>(text).map_err(|_| {
            D::Error::custom(format_args!(
                "expected a list of order ids, found `{}`",
                text.chars().take(40).collect::<String>()
            ))
        })?;
        Ok(OrderIds(
            elements
                .into_iter()
                .map(|e| BatchItem::from_json(e.get()))
                .collect(),
        ))
    }
}

impl Serialize for OrderIds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(&self.0)
    }
}

/// An order as `open_orders`, `order_info` and `history_orders` return it (the swap documents,
/// "Order").
///
/// Required: `order_id` (the identity of the order). Every other field is optional: missing, a
/// placeholder or unreadable, it is `None` (an unreadable value is reported, see
/// [decoding](crate#decoding)). Prices and sizes decode exactly from strings or numbers.
///
/// DESIGN: the wire field `type` is named `side` here (`type` is a Rust keyword); it serializes
/// as `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Order {
    /// Order id (a string; a JSON number is kept as its digits). Required.
    #[serde(with = "crate::de::id")]
    pub order_id: String,
    /// Instrument (`BTCUSDTPERP`).
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// `crossed` or `isolated`.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<MarginMode>,
    /// Contract value per size unit.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub contract_val: Option<Decimal>,
    /// Open or close, long or short (wire `type`, 1-4).
    #[serde(rename = "type", default, with = "crate::de::opt")]
    pub side: Option<OrderSide>,
    /// Order type code.
    #[serde(default, with = "crate::de::opt")]
    pub order_type: Option<OrderType>,
    /// Order price (`None` when empty, e.g. for market-style orders).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price: Option<Decimal>,
    /// Order size in contracts.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub size: Option<Decimal>,
    /// Filled quantity.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub filled_qty: Option<Decimal>,
    /// Average fill price (the venue writes `"0"` before any fill).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price_avg: Option<Decimal>,
    /// Fee.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub fee: Option<Decimal>,
    /// State: open, partly filled, filled or canceled.
    #[serde(default, with = "crate::de::opt")]
    pub state: Option<OrderState>,
    /// Leverage.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage: Option<Decimal>,
    /// Filled value.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub turnover: Option<Decimal>,
    /// Profit of a closing order.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub close_profit: Option<Decimal>,
    /// Whether a take-profit/stop-loss is attached (`has_stop` 0 or 1).
    #[serde(default, with = "crate::de::opt_flag")]
    pub has_stop: Option<bool>,
    /// Creation time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub insert_time: Option<TimestampMillis>,
    /// Last update time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub time_stamp: Option<TimestampMillis>,
}

/// One own fill, as `history_trades` returns it (the swap documents, "Fill").
///
/// Required: `trade_id` (the identity of the fill). Every other field is optional: missing, a
/// placeholder or unreadable, it is `None`.
///
/// DESIGN: `order_id` is optional. A fill is identified by its `trade_id`; the order id links it
/// to its order, but a fill without it still counts for positions, fees and profit, so it must
/// not fail the listing (and hide the other fills). The wire field `type` is named `side` here;
/// it serializes as `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Fill {
    /// Trade id (a string; a JSON number is kept as its digits). Required.
    #[serde(with = "crate::de::id")]
    pub trade_id: String,
    /// Instrument.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// `crossed` or `isolated`.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<MarginMode>,
    /// Id of the order that filled.
    #[serde(default, with = "crate::de::opt_id")]
    pub order_id: Option<String>,
    /// Fill price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub price: Option<Decimal>,
    /// Fill size in contracts.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub size: Option<Decimal>,
    /// Fee.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub fee: Option<Decimal>,
    /// Profit of a closing fill.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub close_profit: Option<Decimal>,
    /// Leverage.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage: Option<Decimal>,
    /// Open or close, long or short (wire `type`, 1-4).
    #[serde(rename = "type", default, with = "crate::de::opt")]
    pub side: Option<OrderSide>,
    /// Order type code of the order.
    #[serde(default, with = "crate::de::opt")]
    pub order_type: Option<OrderType>,
    /// Normal, forced close or ADL.
    #[serde(default, with = "crate::de::opt")]
    pub trade_type: Option<TradeType>,
    /// Taker or maker.
    #[serde(default, with = "crate::de::opt")]
    pub match_role: Option<MatchRole>,
    /// Fill time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub trade_time: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/trade/order_place`: places one order; the answer is the new order's id.
    ///
    /// Body: `{"instrument_id":..,"type":1,"order_type":0,"size":1,"price":"30000.5"}`, plus
    /// `"post_only":true` for a post-only limit order (see [`OrderSpec`] and [`OrderPricing`]).
    pub struct PlaceOrderRequest => PlacedOrder;
    meta = private_write("swap.order_place", Method::Post, "/swap/v2/trade/order_place");
    /// Places `order`.
    new;
    fields {
        /// The order: its members are the whole body.
        flat order: OrderSpec,
    }
}

impl PlaceOrderRequest {
    /// The order.
    pub fn order(&self) -> &OrderSpec {
        &self.order
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/trade/cancel_order`: cancels one order; the answer is its id.
    ///
    /// Body: `{"instrument_id":..,"order_id":".."}`.
    #[derive(Hash)]
    pub struct CancelOrderRequest => CancelledOrder;
    meta = private_write("swap.cancel_order", Method::Post, "/swap/v2/trade/cancel_order");
    /// Cancels order `order_id` on `instrument_id`.
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// The order id (a JSON string).
        req order_id: String [check_order_id],
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/trade/batch_order`: places 1..=20 orders; the answer lists their ids
    /// in request order.
    ///
    /// Body: a JSON array of the [`PlaceOrderRequest`] objects, e.g.
    /// `[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"1"},..]`.
    /// Validation errors name the element (`[3].price`); a batch of 0 or more than 20 is
    /// refused on `body` (the server's error 401014).
    pub struct BatchPlaceOrdersRequest => OrderIds;
    meta = private_write("swap.batch_order", Method::Post, "/swap/v2/trade/batch_order");
    /// Places `orders` (1..=20): an array, a `Vec` or an iterator of [`OrderSpec`]s.
    new;
    fields {
        /// The orders, 1..=20: the whole body.
        body orders: Batch<OrderSpec>,
    }
}

// -----------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/trade/batch_cancel_order`: cancels 1..=20 orders; the answer lists the
    /// ids.
    ///
    /// Body: `[{"instrument_id":"BTCUSDTPERP","order_id":".."},..]`. Validation errors name
    /// the element (`[3].order_id`); a batch of 0 or more than 20 is refused on `body`.
    pub struct BatchCancelOrdersRequest => OrderIds;
    meta = private_write(
        "swap.batch_cancel_order",
        Method::Post,
        "/swap/v2/trade/batch_cancel_order"
    );
    /// Cancels `orders` (1..=20): [`OrderRef`]s or `(instrument_id, order_id)` pairs.
    new;
    fields {
        /// The orders, 1..=20: the whole body.
        body orders: Batch<OrderRef>,
    }
}

// ---------------------------------------------------------------------------------------------
// Queries

/// The `order_status` check of [`OpenOrdersRequest`]: 0 (open) or 1 (part filled).
#[allow(non_upper_case_globals)]
const check_open_status: crate::request::Rule<OrderState> =
    crate::request::Rule::new(open_status, "0 (open) or 1 (part_filled) only").only(&["0", "1"]);

fn open_status(field: &'static str, state: &OrderState) -> Result<(), Error> {
    match state {
        OrderState::Open | OrderState::PartFilled => Ok(()),
        other => Err(Error::validation(
            field,
            format!("{other} is not allowed here (0 (open) or 1 (part filled))"),
        )),
    }
}

/// The `order_status` check of [`HistoryOrdersRequest`]: -1 (canceled) or 2 (filled).
#[allow(non_upper_case_globals)]
const check_finished_status: crate::request::Rule<OrderState> =
    crate::request::Rule::new(finished_status, "-1 (canceled) or 2 (filled) only")
        .only(&["-1", "2"]);

fn finished_status(field: &'static str, state: &OrderState) -> Result<(), Error> {
    match state {
        OrderState::Canceled | OrderState::Filled => Ok(()),
        other => Err(Error::validation(
            field,
            format!("{other} is not allowed here (-1 (canceled) or 2 (filled))"),
        )),
    }
}

request! {
    /// `GET /swap/v2/trade/open_orders`: unfinished orders (open or partly filled).
    ///
    /// Query parameters, all optional, in this order: `instrument_id`, `type`, `order_type`,
    /// `order_status` (0 open or 1 part filled only), `start_timestamp`, `end_timestamp` (ms,
    /// end after start), `limit` (1..=100, default 20).
    #[derive(Default)]
    pub struct OpenOrdersRequest => Vec<Order>;
    meta = private_read("swap.open_orders", Method::Get, "/swap/v2/trade/open_orders");
    /// No filter: every instrument, the server's default limit (20).
    new;
    fields {
        /// Only orders of `instrument_id`.
        opt instrument_id: String [check_instrument],
        /// Only orders of this side/kind (wire `type`).
        opt side: OrderSide as "type" [known_code],
        /// Only orders of this order type.
        opt order_type: OrderType [known_code],
        /// Only orders in this state: 0 (open) or 1 (part filled).
        opt order_status: OrderState [check_open_status],
        /// Window start (ms).
        opt start_timestamp: TimestampMillis,
        /// Window end (ms), after `start_timestamp`.
        opt end_timestamp: TimestampMillis,
        /// Number of orders, 1..=100.
        opt limit: u32 [range(1, 100), server_default(20)],
    }
    window = window(start_timestamp, end_timestamp);
}

request! {
    /// `GET /swap/v2/trade/history_orders`: finished orders (filled or canceled).
    ///
    /// Query parameters, all optional, in this order: `instrument_id`, `type`, `order_type`,
    /// `order_status` (-1 canceled or 2 filled only), `start_timestamp`, `end_timestamp` (ms,
    /// end after start), `limit` (1..=100, default 20).
    #[derive(Default)]
    pub struct HistoryOrdersRequest => Vec<Order>;
    meta = private_read("swap.history_orders", Method::Get, "/swap/v2/trade/history_orders");
    /// No filter: every instrument, the server's default limit (20).
    new;
    fields {
        /// Only orders of `instrument_id`.
        opt instrument_id: String [check_instrument],
        /// Only orders of this side/kind (wire `type`).
        opt side: OrderSide as "type" [known_code],
        /// Only orders of this order type.
        opt order_type: OrderType [known_code],
        /// Only orders in this state: -1 (canceled) or 2 (filled).
        opt order_status: OrderState [check_finished_status],
        /// Window start (ms).
        opt start_timestamp: TimestampMillis,
        /// Window end (ms), after `start_timestamp`.
        opt end_timestamp: TimestampMillis,
        /// Number of orders, 1..=100.
        opt limit: u32 [range(1, 100), server_default(20)],
    }
    window = window(start_timestamp, end_timestamp);
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/trade/order_info`: one order by id, in any state.
    ///
    /// Query: `order_id` (required), then `instrument_id` (optional).
    pub struct OrderInfoRequest => Order;
    meta = private_read("swap.order_info", Method::Get, "/swap/v2/trade/order_info");
    /// The order `order_id`.
    new;
    fields {
        /// The order id.
        req order_id: String [check_order_id],
        /// Also name the instrument.
        opt instrument_id: String [check_instrument],
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/trade/history_trades`: own fills.
    ///
    /// Query parameters, all optional, in this order: `instrument_id`, `type`, `order_type`,
    /// `order_id`, `start_timestamp`, `end_timestamp` (ms, end after start), `limit` (1..=100,
    /// default 20).
    #[derive(Default)]
    pub struct HistoryTradesRequest => Vec<Fill>;
    meta = private_read("swap.history_trades", Method::Get, "/swap/v2/trade/history_trades");
    /// No filter: every instrument, the server's default limit (20).
    new;
    fields {
        /// Only fills of `instrument_id`.
        opt instrument_id: String [check_instrument],
        /// Only fills of orders of this side/kind (wire `type`).
        opt side: OrderSide as "type" [known_code],
        /// Only fills of orders of this order type.
        opt order_type: OrderType [known_code],
        /// Only fills of this order.
        opt order_id: String [check_order_id],
        /// Window start (ms).
        opt start_timestamp: TimestampMillis,
        /// Window end (ms), after `start_timestamp`.
        opt end_timestamp: TimestampMillis,
        /// Number of fills, 1..=100.
        opt limit: u32 [range(1, 100), server_default(20)],
    }
    window = window(start_timestamp, end_timestamp);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn field_of(e: &Error) -> Cow<'static, str> {
        match e {
            Error::Validation { field, .. } => field.clone(),
            other => Cow::Owned(format!("{other:?}")),
        }
    }

    #[test]
    fn pricing_from_wire_refuses_inconsistent_orders() {
        let p = Some(Price::ONE);
        assert!(OrderPricing::from_wire(OrderType::Limit, p, true).is_ok());
        assert_eq!(
            field_of(&OrderPricing::from_wire(OrderType::Limit, None, false).unwrap_err()),
            "price"
        );
        assert_eq!(
            field_of(&OrderPricing::from_wire(OrderType::IocOpponent, p, false).unwrap_err()),
            "price"
        );
        assert_eq!(
            field_of(&OrderPricing::from_wire(OrderType::FokCustomPrice, p, true).unwrap_err()),
            "post_only"
        );
        assert_eq!(
            field_of(&OrderPricing::from_wire(OrderType::Unknown(5), None, false).unwrap_err()),
            "order_type"
        );
        for code in [1, 2, 3, 13, 6, 7, 8, 14, 10, 11, 12, 15] {
            let t = OrderType::from_code(code);
            let style = MarketStyle::from_order_type(&t).unwrap();
            assert_eq!(style.order_type(), t);
            assert!(!t.takes_price());
        }
        for t in [
            OrderType::Limit,
            OrderType::IocCustomPrice,
            OrderType::FokCustomPrice,
        ] {
            assert!(MarketStyle::from_order_type(&t).is_none());
            assert!(t.takes_price());
        }
    }
}
