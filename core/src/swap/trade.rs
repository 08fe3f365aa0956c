//! Swap trading: placing and cancelling orders (single and batch), open, single and historical
//! orders, and fills (all signed).
//!
//! Orders are typed so that an inconsistent one cannot be written. An [`OrderSpec`] carries an
//! [`OrderPricing`]: a limit order or an IOC/FOK order at a custom price carries its price; a
//! market-style order ([`MarketStyle`]: opponent or optimal 5/10/20 levels, IOC, GTC or FOK)
//! carries none. Post-only exists only on limit orders (see [`OrderPricing::Limit`]).
//!
//! Request bodies (JSON, members in the documented order): `instrument_id` (string), `type`
//! ([`OrderSide`] code), `order_type` ([`OrderType`] code), `size` (a JSON number written from
//! the exact decimal text), `price` (a JSON string, priced types only) and `post_only` (JSON
//! `true`, only when set). The batch endpoints send a JSON array of such objects.
//!
//! DESIGN: idempotency is declared per endpoint (`Meta::idempotent`): placing and cancelling
//! (the four POSTs) change state, so they are never retried automatically and a failure after
//! their bytes may have been sent is [`Error::OutcomeUnknown`]; the four GET queries only read
//! and are retried.
//!
//! Answers follow the required/optional rule of [`crate::de`]: an order's `order_id`, a fill's
//! `trade_id` and the ids that are the whole answer of a placement or cancellation are
//! required; every other field is optional.

use rust_decimal::Decimal;
use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{
    check_instrument, check_limit, check_order_id, check_positive, check_window, known_code,
    private_read, private_write, MarginMode, MatchRole, OrderSide, OrderState, OrderType,
    TradeType,
};
#[cfg(feature = "catalog")]
use crate::catalog::{entry, CatalogEntry};
use crate::endpoint::{Endpoint, Meta, Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;
use crate::params::{element_error, FromParams, ParamMap};
use crate::types::TimestampMillis;

/// Every swap trade endpoint, in documentation order.
#[cfg(feature = "catalog")]
pub(crate) static ENTRIES: &[CatalogEntry] = &[
    entry::<PlaceOrder>(),
    entry::<CancelOrder>(),
    entry::<BatchPlaceOrders>(),
    entry::<BatchCancelOrders>(),
    entry::<OpenOrdersRequest>(),
    entry::<OrderInfoRequest>(),
    entry::<HistoryOrdersRequest>(),
    entry::<HistoryTradesRequest>(),
];

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
        price: Decimal,
        /// Maker-only: the order is cancelled rather than taking liquidity. Sent as
        /// `"post_only":true` only when set.
        post_only: bool,
    },
    /// `order_type` 4: immediate-or-cancel at a custom price.
    IocCustomPrice(Decimal),
    /// `order_type` 9: fill-or-kill at a custom price.
    FokCustomPrice(Decimal),
    /// A market-style type: no price.
    Market(MarketStyle),
}

impl OrderPricing {
    /// A limit order at `price`.
    pub fn limit(price: Decimal) -> Self {
        OrderPricing::Limit {
            price,
            post_only: false,
        }
    }

    /// A post-only limit order at `price`.
    pub fn post_only(price: Decimal) -> Self {
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
    pub fn price(&self) -> Option<Decimal> {
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
        price: Option<Decimal>,
        post_only: bool,
    ) -> Result<Self, Error> {
        let need_price = |price: Option<Decimal>| {
            price.ok_or_else(|| {
                Error::validation("price", format!("is required for order_type {order_type}"))
            })
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

/// One order to place: instrument, side, size and pricing. Used by [`PlaceOrder`] and, as an
/// array element, by [`BatchPlaceOrders`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OrderSpec {
    instrument_id: String,
    side: OrderSide,
    size: Decimal,
    pricing: OrderPricing,
}

impl OrderSpec {
    /// An order of `size` contracts on `instrument_id` (`BTCUSDTPERP`), opening or closing per
    /// `side`, priced per `pricing`.
    pub fn new(
        instrument_id: impl Into<String>,
        side: OrderSide,
        size: Decimal,
        pricing: OrderPricing,
    ) -> Self {
        OrderSpec {
            instrument_id: instrument_id.into(),
            side,
            size,
            pricing,
        }
    }

    /// A limit order (`order_type` 0) at `price`.
    pub fn limit(
        instrument_id: impl Into<String>,
        side: OrderSide,
        size: Decimal,
        price: Decimal,
    ) -> Self {
        Self::new(instrument_id, side, size, OrderPricing::limit(price))
    }

    /// A market-style order.
    pub fn market(
        instrument_id: impl Into<String>,
        side: OrderSide,
        size: Decimal,
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
    pub fn size(&self) -> Decimal {
        self.size
    }
    /// Order type and price.
    pub fn pricing(&self) -> &OrderPricing {
        &self.pricing
    }

    /// Validates the order and writes it as one JSON object.
    fn write(&self, w: &mut JsonWriter) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        let side = known_code("type", &self.side)?;
        check_positive("size", &self.size)?;
        let price = self.pricing.price();
        if let Some(p) = &price {
            check_positive("price", p)?;
        }
        w.begin_object()
            .str("instrument_id", &self.instrument_id)
            .int("type", side)
            .int(
                "order_type",
                known_code("order_type", &self.pricing.order_type())?,
            )
            .decimal_number("size", &self.size)
            .opt_decimal_string("price", price.as_ref());
        if self.pricing.is_post_only() {
            w.bool("post_only", true);
        }
        w.end_object();
        Ok(())
    }

    /// Reads an order from wire parameters (a JSON object or one batch element).
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        let instrument_id = p.take_str("instrument_id")?;
        let side = OrderSide::from_code(p.take_int("type")?);
        let order_type = OrderType::from_code(p.take_int("order_type")?);
        let size = p.take_decimal("size")?;
        let price = p.take_opt_decimal("price")?;
        let post_only = p.take_opt_flag("post_only")?.unwrap_or(false);
        let pricing = OrderPricing::from_wire(order_type, price, post_only)?;
        Ok(OrderSpec {
            instrument_id,
            side,
            size,
            pricing,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Answers

/// The id of a placed or cancelled order: the whole answer of `order_place` and `cancel_order`
/// (`data` is the id).
///
/// Required (the value that is the whole answer): an answer without `data`, or with `null`, a
/// placeholder or anything but an id, is an [`Error::Decode`] (after a write, the session
/// reports it as [`Error::OutcomeUnknown`]: the order may or may not be placed).
///
/// DESIGN: swap ids exceed 2^53; a JSON number is kept as its digits (never read through `f64`
/// or a fixed-width integer), a string is kept as is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OrderId(pub String);

impl OrderId {
    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for OrderId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for OrderId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::id::deserialize(d).map(OrderId)
    }
}

impl Serialize for OrderId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
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

/// An order as `open_orders`, `order_info` and `history_orders` return it (spec §2 "Order").
///
/// Required: `order_id` (the identity of the order). Every other field is optional: missing, a
/// placeholder or unreadable, it is `None` (an unreadable value is reported, see
/// [`crate::de`]). Prices and sizes decode exactly from strings or numbers.
///
/// DESIGN: the wire field `type` is named `side` here (`type` is a Rust keyword); it serializes
/// as `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// One own fill, as `history_trades` returns it (spec §2 "Fill").
///
/// Required: `trade_id` (the identity of the fill). Every other field is optional: missing, a
/// placeholder or unreadable, it is `None`.
///
/// DESIGN: `order_id` is optional. A fill is identified by its `trade_id`; the order id links it
/// to its order, but a fill without it still counts for positions, fees and profit, so it must
/// not fail the listing (and hide the other fills). The wire field `type` is named `side` here;
/// it serializes as `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `POST /swap/v2/trade/order_place`: places one order; the answer is the new order's id.
///
/// Body: `{"instrument_id":..,"type":1,"order_type":0,"size":1,"price":"30000.5"}`, plus
/// `"post_only":true` for a post-only limit order (see [`OrderSpec`] and [`OrderPricing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaceOrder {
    order: OrderSpec,
}

impl PlaceOrder {
    /// Places `order`.
    pub fn new(order: OrderSpec) -> Self {
        PlaceOrder { order }
    }
    /// The order.
    pub fn order(&self) -> &OrderSpec {
        &self.order
    }
}

impl Endpoint for PlaceOrder {
    type Output = OrderId;
    const META: Meta = private_write(
        "swap.order_place",
        Method::Post,
        "/swap/v2/trade/order_place",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let mut w = JsonWriter::new();
        self.order.write(&mut w)?;
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for PlaceOrder {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        OrderSpec::from_params(p).map(PlaceOrder::new)
    }
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/trade/cancel_order`: cancels one order; the answer is its id.
///
/// Body: `{"instrument_id":..,"order_id":".."}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CancelOrder {
    target: OrderRef,
}

impl CancelOrder {
    /// Cancels order `order_id` on `instrument_id`.
    pub fn new(instrument_id: impl Into<String>, order_id: impl Into<String>) -> Self {
        CancelOrder {
            target: OrderRef::new(instrument_id, order_id),
        }
    }
}

impl Endpoint for CancelOrder {
    type Output = OrderId;
    const META: Meta = private_write(
        "swap.cancel_order",
        Method::Post,
        "/swap/v2/trade/cancel_order",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let mut w = JsonWriter::new();
        self.target.write(&mut w)?;
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for CancelOrder {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(CancelOrder {
            target: OrderRef::from_params(p)?,
        })
    }
}

/// An order to cancel: its instrument and id (a [`BatchCancelOrders`] element).
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

    fn write(&self, w: &mut JsonWriter) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        check_order_id("order_id", &self.order_id)?;
        w.begin_object()
            .str("instrument_id", &self.instrument_id)
            .str("order_id", &self.order_id)
            .end_object();
        Ok(())
    }

    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(OrderRef {
            instrument_id: p.take_str("instrument_id")?,
            order_id: p.take_str("order_id")?,
        })
    }
}

impl<A: Into<String>, B: Into<String>> From<(A, B)> for OrderRef {
    fn from((instrument_id, order_id): (A, B)) -> Self {
        OrderRef::new(instrument_id, order_id)
    }
}

// ---------------------------------------------------------------------------------------------

/// Checks a batch size: 1..=[`MAX_BATCH_ORDERS`] elements. The body has no member name, so the
/// error names `body`.
fn check_batch_len(len: usize) -> Result<(), Error> {
    if (1..=MAX_BATCH_ORDERS).contains(&len) {
        Ok(())
    } else {
        Err(Error::validation(
            "body",
            format!("{len} elements given; 1..={MAX_BATCH_ORDERS} per batch"),
        ))
    }
}

/// Reads each element of an array body with `read`, naming a failing element (`[3].price`).
fn read_array<T>(
    p: &mut ParamMap,
    read: fn(&mut ParamMap) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    p.take_array_body()?
        .into_iter()
        .enumerate()
        .map(|(i, mut m)| {
            let item = read(&mut m).map_err(|e| element_error(i, e))?;
            m.finish().map_err(|e| element_error(i, e))?;
            Ok(item)
        })
        .collect()
}

/// `POST /swap/v2/trade/batch_order`: places 1..=20 orders; the answer lists their ids in
/// request order.
///
/// Body: a JSON array of the [`PlaceOrder`] objects, e.g.
/// `[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"30000"},..]`.
/// Validation errors name the element (`[3].price`); a batch of 0 or more than 20 is refused
/// on `body` (the server's error 401014).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchPlaceOrders {
    orders: Vec<OrderSpec>,
}

impl BatchPlaceOrders {
    /// Places `orders` (1..=20).
    pub fn new(orders: impl IntoIterator<Item = OrderSpec>) -> Self {
        BatchPlaceOrders {
            orders: orders.into_iter().collect(),
        }
    }
    /// The orders.
    pub fn orders(&self) -> &[OrderSpec] {
        &self.orders
    }
}

impl Endpoint for BatchPlaceOrders {
    type Output = OrderIds;
    const META: Meta = private_write(
        "swap.batch_order",
        Method::Post,
        "/swap/v2/trade/batch_order",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_batch_len(self.orders.len())?;
        let mut w = JsonWriter::new();
        w.begin_array();
        for (i, order) in self.orders.iter().enumerate() {
            w.element();
            order.write(&mut w).map_err(|e| element_error(i, e))?;
        }
        w.end_array();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for BatchPlaceOrders {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(BatchPlaceOrders {
            orders: read_array(p, OrderSpec::from_params)?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/trade/batch_cancel_order`: cancels 1..=20 orders; the answer lists the ids.
///
/// Body: `[{"instrument_id":"BTCUSDTPERP","order_id":".."},..]`. Validation errors name the
/// element (`[3].order_id`); a batch of 0 or more than 20 is refused on `body`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchCancelOrders {
    orders: Vec<OrderRef>,
}

impl BatchCancelOrders {
    /// Cancels `orders` (1..=20): [`OrderRef`]s or `(instrument_id, order_id)` pairs.
    pub fn new<I>(orders: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<OrderRef>,
    {
        BatchCancelOrders {
            orders: orders.into_iter().map(Into::into).collect(),
        }
    }
    /// The orders.
    pub fn orders(&self) -> &[OrderRef] {
        &self.orders
    }
}

impl Endpoint for BatchCancelOrders {
    type Output = OrderIds;
    const META: Meta = private_write(
        "swap.batch_cancel_order",
        Method::Post,
        "/swap/v2/trade/batch_cancel_order",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_batch_len(self.orders.len())?;
        let mut w = JsonWriter::new();
        w.begin_array();
        for (i, order) in self.orders.iter().enumerate() {
            w.element();
            order.write(&mut w).map_err(|e| element_error(i, e))?;
        }
        w.end_array();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for BatchCancelOrders {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(BatchCancelOrders {
            orders: read_array(p, OrderRef::from_params)?,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Queries

/// Validates and writes the optional `instrument_id`, `type` and `order_type` filters.
fn push_common_filters(
    p: &mut Params,
    instrument_id: Option<&str>,
    side: Option<&OrderSide>,
    order_type: Option<&OrderType>,
) -> Result<(), Error> {
    if let Some(i) = instrument_id {
        check_instrument("instrument_id", i)?;
    }
    let side = side.map(|s| known_code("type", s)).transpose()?;
    let order_type = order_type
        .map(|t| known_code("order_type", t))
        .transpose()?;
    p.push_opt("instrument_id", instrument_id);
    p.push_opt_display("type", side);
    p.push_opt_display("order_type", order_type);
    Ok(())
}

/// Declares `open_orders` / `history_orders`: the same filters, different allowed states.
macro_rules! order_query {
    (
        $(#[$doc:meta])*
        $name:ident, $meta_name:literal, $path:literal,
        allowed = [$($state:ident),+], allowed_text = $allowed_text:literal
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Default)]
        pub struct $name {
            instrument_id: Option<String>,
            side: Option<OrderSide>,
            order_type: Option<OrderType>,
            order_status: Option<OrderState>,
            start_timestamp: Option<TimestampMillis>,
            end_timestamp: Option<TimestampMillis>,
            limit: Option<u32>,
        }

        impl $name {
            /// No filter: every instrument, the server's default limit (20).
            pub fn new() -> Self {
                Self::default()
            }
            /// Only orders of `instrument_id`.
            pub fn instrument_id(mut self, instrument_id: impl Into<String>) -> Self {
                self.instrument_id = Some(instrument_id.into());
                self
            }
            /// Only orders of this side/kind (wire `type`).
            pub fn side(mut self, side: OrderSide) -> Self {
                self.side = Some(side);
                self
            }
            /// Only orders of this order type.
            pub fn order_type(mut self, order_type: OrderType) -> Self {
                self.order_type = Some(order_type);
                self
            }
            #[doc = concat!("Only orders in this state: ", $allowed_text, ".")]
            pub fn order_status(mut self, state: OrderState) -> Self {
                self.order_status = Some(state);
                self
            }
            /// Window start (ms).
            pub fn start_timestamp(mut self, t: TimestampMillis) -> Self {
                self.start_timestamp = Some(t);
                self
            }
            /// Window end (ms), after `start_timestamp`.
            pub fn end_timestamp(mut self, t: TimestampMillis) -> Self {
                self.end_timestamp = Some(t);
                self
            }
            /// Number of orders, 1..=100.
            pub fn limit(mut self, limit: u32) -> Self {
                self.limit = Some(limit);
                self
            }
        }

        impl Endpoint for $name {
            type Output = Vec<Order>;
            const META: Meta = private_read($meta_name, Method::Get, $path);
            fn encode(&self, p: &mut Params) -> Result<(), Error> {
                let status = match &self.order_status {
                    None => None,
                    Some(s @ ($(OrderState::$state)|+)) => s.code(),
                    Some(other) => {
                        return Err(Error::validation(
                            "order_status",
                            format!(
                                concat!("{} is not allowed here (", $allowed_text, ")"),
                                other
                            ),
                        ))
                    }
                };
                check_window(self.start_timestamp, self.end_timestamp)?;
                check_limit(self.limit)?;
                push_common_filters(
                    p,
                    self.instrument_id.as_deref(),
                    self.side.as_ref(),
                    self.order_type.as_ref(),
                )?;
                p.push_opt_display("order_status", status);
                p.push_opt_display("start_timestamp", self.start_timestamp.map(|t| t.0));
                p.push_opt_display("end_timestamp", self.end_timestamp.map(|t| t.0));
                p.push_opt_display("limit", self.limit);
                Ok(())
            }
        }

        impl FromParams for $name {
            fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
                Ok($name {
                    instrument_id: p.take_opt_str("instrument_id")?,
                    side: p.take_opt_int("type")?.map(OrderSide::from_code),
                    order_type: p.take_opt_int("order_type")?.map(OrderType::from_code),
                    order_status: p.take_opt_int("order_status")?.map(OrderState::from_code),
                    start_timestamp: p.take_opt_int("start_timestamp")?.map(TimestampMillis),
                    end_timestamp: p.take_opt_int("end_timestamp")?.map(TimestampMillis),
                    limit: p.take_opt_int("limit")?,
                })
            }
        }
    };
}

order_query! {
    /// `GET /swap/v2/trade/open_orders`: unfinished orders (open or partly filled).
    ///
    /// Query parameters, all optional, in this order: `instrument_id`, `type`, `order_type`,
    /// `order_status` (0 open or 1 part filled only), `start_timestamp`, `end_timestamp` (ms,
    /// end after start), `limit` (1..=100, default 20).
    OpenOrdersRequest, "swap.open_orders", "/swap/v2/trade/open_orders",
    allowed = [Open, PartFilled], allowed_text = "0 (open) or 1 (part filled)"
}

order_query! {
    /// `GET /swap/v2/trade/history_orders`: finished orders (filled or canceled).
    ///
    /// Query parameters, all optional, in this order: `instrument_id`, `type`, `order_type`,
    /// `order_status` (-1 canceled or 2 filled only), `start_timestamp`, `end_timestamp` (ms,
    /// end after start), `limit` (1..=100, default 20).
    HistoryOrdersRequest, "swap.history_orders", "/swap/v2/trade/history_orders",
    allowed = [Canceled, Filled], allowed_text = "-1 (canceled) or 2 (filled)"
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/trade/order_info`: one order by id, in any state.
///
/// Query: `order_id` (required), then `instrument_id` (optional).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderInfoRequest {
    order_id: String,
    instrument_id: Option<String>,
}

impl OrderInfoRequest {
    /// The order `order_id`.
    pub fn new(order_id: impl Into<String>) -> Self {
        OrderInfoRequest {
            order_id: order_id.into(),
            instrument_id: None,
        }
    }
    /// Also name the instrument.
    pub fn instrument_id(mut self, instrument_id: impl Into<String>) -> Self {
        self.instrument_id = Some(instrument_id.into());
        self
    }
}

impl Endpoint for OrderInfoRequest {
    type Output = Order;
    const META: Meta = private_read("swap.order_info", Method::Get, "/swap/v2/trade/order_info");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_order_id("order_id", &self.order_id)?;
        if let Some(i) = &self.instrument_id {
            check_instrument("instrument_id", i)?;
        }
        p.push("order_id", &self.order_id);
        p.push_opt("instrument_id", self.instrument_id.as_deref());
        Ok(())
    }
}

impl FromParams for OrderInfoRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(OrderInfoRequest {
            order_id: p.take_str("order_id")?,
            instrument_id: p.take_opt_str("instrument_id")?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/trade/history_trades`: own fills.
///
/// Query parameters, all optional, in this order: `instrument_id`, `type`, `order_type`,
/// `order_id`, `start_timestamp`, `end_timestamp` (ms, end after start), `limit` (1..=100,
/// default 20).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HistoryTradesRequest {
    instrument_id: Option<String>,
    side: Option<OrderSide>,
    order_type: Option<OrderType>,
    order_id: Option<String>,
    start_timestamp: Option<TimestampMillis>,
    end_timestamp: Option<TimestampMillis>,
    limit: Option<u32>,
}

impl HistoryTradesRequest {
    /// No filter: every instrument, the server's default limit (20).
    pub fn new() -> Self {
        Self::default()
    }
    /// Only fills of `instrument_id`.
    pub fn instrument_id(mut self, instrument_id: impl Into<String>) -> Self {
        self.instrument_id = Some(instrument_id.into());
        self
    }
    /// Only fills of orders of this side/kind (wire `type`).
    pub fn side(mut self, side: OrderSide) -> Self {
        self.side = Some(side);
        self
    }
    /// Only fills of orders of this order type.
    pub fn order_type(mut self, order_type: OrderType) -> Self {
        self.order_type = Some(order_type);
        self
    }
    /// Only fills of this order.
    pub fn order_id(mut self, order_id: impl Into<String>) -> Self {
        self.order_id = Some(order_id.into());
        self
    }
    /// Window start (ms).
    pub fn start_timestamp(mut self, t: TimestampMillis) -> Self {
        self.start_timestamp = Some(t);
        self
    }
    /// Window end (ms), after `start_timestamp`.
    pub fn end_timestamp(mut self, t: TimestampMillis) -> Self {
        self.end_timestamp = Some(t);
        self
    }
    /// Number of fills, 1..=100.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for HistoryTradesRequest {
    type Output = Vec<Fill>;
    const META: Meta = private_read(
        "swap.history_trades",
        Method::Get,
        "/swap/v2/trade/history_trades",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        if let Some(id) = &self.order_id {
            check_order_id("order_id", id)?;
        }
        check_window(self.start_timestamp, self.end_timestamp)?;
        check_limit(self.limit)?;
        push_common_filters(
            p,
            self.instrument_id.as_deref(),
            self.side.as_ref(),
            self.order_type.as_ref(),
        )?;
        p.push_opt("order_id", self.order_id.as_deref());
        p.push_opt_display("start_timestamp", self.start_timestamp.map(|t| t.0));
        p.push_opt_display("end_timestamp", self.end_timestamp.map(|t| t.0));
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for HistoryTradesRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(HistoryTradesRequest {
            instrument_id: p.take_opt_str("instrument_id")?,
            side: p.take_opt_int("type")?.map(OrderSide::from_code),
            order_type: p.take_opt_int("order_type")?.map(OrderType::from_code),
            order_id: p.take_opt_str("order_id")?,
            start_timestamp: p.take_opt_int("start_timestamp")?.map(TimestampMillis),
            end_timestamp: p.take_opt_int("end_timestamp")?.map(TimestampMillis),
            limit: p.take_opt_int("limit")?,
        })
    }
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
        let p = Some(Decimal::ONE);
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
