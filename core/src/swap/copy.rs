//! Copy trading (all `POST /swap/v2/follow/...`, signed, JSON object bodies): an expert
//! sponsors orders that followers copy, closes and cancels them, sets and cancels take-profit
//! and stop-loss orders, and lists current and historical copy positions, open expert orders,
//! plan commissions, the available balance and the copy-trading instruments.
//!
//! Endpoints without parameters (`account_available`, `instrument_list`) send `{}`. Listing
//! endpoints take `page` (from 1, default 1) and `size` (from 1, default 10); both are omitted
//! from the body when not set, so the server's defaults apply.
//!
//! DESIGN: `size` has no upper bound here. The spec sets none for the copy-trading lists (its
//! 1..=100 `limit` rule concerns the trade and account lists, which use `limit`), and refusing a
//! value the server may accept would be worse than letting the server answer 400002. The only
//! documented bound, `plan_task` `page` at most 50, is enforced.
//!
//! DESIGN: the spec does not state the unit of the copy-trading times (`open_time`,
//! `close_time`, `order_time`). They are read as milliseconds, the unit of every other swap
//! timestamp; a value below 10^11 (which as milliseconds would be March 1973, and as seconds
//! is year 5138) is read as seconds and converted, so either unit decodes to the right instant.
//! `0`, `null` and placeholders are absent.
//!
//! DESIGN: idempotency is declared per endpoint (`Meta::idempotent`). The six reads,
//! `user_center_current`, `user_center_history`, `expert_current_open_order`,
//! `account_available`, `plan_task` and `instrument_list`, are POSTs that change nothing
//! (venue-notes.md, "copy-trading reads"): they are idempotent, so the session retries them like
//! any read and a timeout on them is an ordinary error. `sponsor_order`, `close_order`,
//! `cancel_order`, `add_algo` and `cancel_algo` change state: never retried, and a failure after
//! their bytes may have been sent is [`Error::OutcomeUnknown`].
//!
//! Answers follow the required/optional rule of [`crate::de`]: a record's identity (`order_id`
//! of a copy position, an expert order or a plan; `instrument_id` of a copy instrument) and the
//! available balance (the whole answer of `account_available`) are required; every other field
//! is optional. Each answer type says what an answer without `data` (`{"code":0}`) decodes to.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{
    check_instrument, check_order_id, check_positive, known_code, private_read, private_write,
    CopyCloseReason, CopyMarginMode, CopyOrderPriceType, CopyResult, ExpertOrderStatus, OrderSide,
    PlanComType, PlanStatus, TriggerCondition, TriggerPriceType,
};
#[cfg(feature = "catalog")]
use crate::catalog::{entry, CatalogEntry};
use crate::endpoint::{Endpoint, Meta, Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;
use crate::params::{FromParams, ParamMap};
use crate::types::TimestampMillis;

/// Every swap copy endpoint, in documentation order.
#[cfg(feature = "catalog")]
pub(crate) static ENTRIES: &[CatalogEntry] = &[
    entry::<SponsorOrderRequest>(),
    entry::<CloseCopyOrderRequest>(),
    entry::<CancelCopyOrderRequest>(),
    entry::<CopyCurrentRequest>(),
    entry::<CopyHistoryRequest>(),
    entry::<ExpertOpenOrdersRequest>(),
    entry::<AddAlgoRequest>(),
    entry::<CancelAlgoRequest>(),
    entry::<CopyAvailableRequest>(),
    entry::<PlanTaskRequest>(),
    entry::<CopyInstrumentsRequest>(),
];

/// Highest `page` of `plan_task` (spec §4, §8.5).
pub const MAX_PLAN_TASK_PAGE: u32 = 50;

// ---------------------------------------------------------------------------------------------
// Helpers

/// A copy-trading time: milliseconds, or seconds converted (see the module docs); `0`, `null`,
/// `""` and missing are `None`.
mod copy_time {
    use super::*;

    /// Below this a value is taken as seconds (10^11 ms is 1973-03-03; 10^11 s is year 5138).
    const SECONDS_BELOW: i64 = 100_000_000_000;

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Option<TimestampMillis>, D::Error> {
        let t: Option<i64> = crate::de::opt_int::deserialize(d)?;
        Ok(t.filter(|&t| t != 0).map(|t| {
            // `unsigned_abs`: the server's `i64::MIN` has no `i64` magnitude (`abs` overflows).
            if t.unsigned_abs() < SECONDS_BELOW.unsigned_abs() {
                TimestampMillis(t.saturating_mul(1000))
            } else {
                TimestampMillis(t)
            }
        }))
    }

    pub(super) fn serialize<S: serde::Serializer>(
        v: &Option<TimestampMillis>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
}

/// Checks an optional `page` (from 1, at most `max` when given) and `size` (from 1).
fn check_paging(page: Option<u32>, size: Option<u32>, max_page: Option<u32>) -> Result<(), Error> {
    if let Some(p) = page {
        if p == 0 {
            return Err(Error::validation(
                "page",
                "0 is not a page (pages start at 1)",
            ));
        }
        if let Some(max) = max_page.filter(|&m| p > m) {
            return Err(Error::validation(
                "page",
                format!("{p} is above the highest page {max}"),
            ));
        }
    }
    if size == Some(0) {
        return Err(Error::validation("size", "must be at least 1"));
    }
    Ok(())
}

/// Refuses the `Unknown` arm of a trigger price type.
fn trigger_code(field: &'static str, t: Option<&TriggerPriceType>) -> Result<Option<i64>, Error> {
    t.map(|t| known_code(field, t)).transpose()
}

/// Checks an optional price is positive.
fn check_opt_positive(field: &'static str, v: Option<&Decimal>) -> Result<(), Error> {
    v.map_or(Ok(()), |v| check_positive(field, v))
}

/// Reads an optional trigger price type code.
fn take_trigger(p: &mut ParamMap, key: &'static str) -> Result<Option<TriggerPriceType>, Error> {
    Ok(p.take_opt_int(key)?.map(TriggerPriceType::from_code))
}

/// Writes the listing members `page`, `size` and `instrument_id` (each when set).
fn write_listing(
    w: &mut JsonWriter,
    page: Option<u32>,
    size: Option<u32>,
    instrument_id: Option<&str>,
) {
    w.opt_int("page", page.map(i64::from))
        .opt_int("size", size.map(i64::from))
        .opt_str("instrument_id", instrument_id);
}

// ---------------------------------------------------------------------------------------------
// Answers

/// A page of a listing: `page_size`, `cur_page`, `total_page`, `count`.
///
/// Every field is optional (`None` when missing, a placeholder or unreadable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CopyPage {
    /// Entries per page.
    #[serde(default, with = "crate::de::opt")]
    pub page_size: Option<u64>,
    /// This page's number (from 1).
    #[serde(default, with = "crate::de::opt")]
    pub cur_page: Option<u64>,
    /// Number of pages.
    #[serde(default, with = "crate::de::opt")]
    pub total_page: Option<u64>,
    /// Number of entries in all pages.
    #[serde(default, with = "crate::de::opt")]
    pub count: Option<u64>,
}

/// The outcome of `sponsor_order`, `close_order` and `cancel_order`: `res`, 1 success or
/// 2 fail.
///
/// `res` is optional: missing, a placeholder or unreadable, it is `None`. An answer without
/// `data` (`{"code":0}`) decodes to `CopyAck { res: None }`.
///
/// DESIGN: `data` is read as `{"res":1}` (also spelled `result`), or as the bare code `1`.
/// A `res` of 2 is the venue saying the action failed although the envelope's `code` is 0: it
/// is kept, and [`CopyAck::is_success`] is false and [`CopyAck::is_failure`] true for it, so a
/// caller that checks either never takes it for a success. Without a `res` the envelope's
/// `code` 0, the venue's documented success signal (spec §1, rule 1), is the only answer and
/// [`CopyAck::is_success`] takes it as success; an unknown `res` is neither.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize)]
pub struct CopyAck {
    /// Success or failure, when sent.
    #[serde(with = "crate::de::opt")]
    pub res: Option<CopyResult>,
}

impl CopyAck {
    /// Whether the venue reports success: `res` 1, or no `res` at all (code 0 alone). False
    /// for `res` 2 and for an unknown `res`.
    pub fn is_success(&self) -> bool {
        matches!(self.res, None | Some(CopyResult::Success))
    }

    /// Whether the venue reports failure (`res` 2).
    pub fn is_failure(&self) -> bool {
        self.res == Some(CopyResult::Fail)
    }
}

/// Reads `res` / `result` with the optional rule.
struct OptResult;

impl<'de> serde::de::DeserializeSeed<'de> for OptResult {
    type Value = Option<CopyResult>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        crate::de::opt::deserialize(d)
    }
}

impl<'de> Deserialize<'de> for CopyAck {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};

        struct AckVisitor;

        fn unreadable<E: serde::de::Error>(text: &str) -> Result<CopyAck, E> {
            crate::de::unreadable::note::<E>("a result code", text).map(|()| CopyAck::default())
        }

        impl<'de> Visitor<'de> for AckVisitor {
            type Value = CopyAck;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`{\"res\":1}` or a result code")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CopyAck, A::Error> {
                let mut res = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if (key == "res" || key == "result") && res.is_none() {
                        res = map.next_value_seed(OptResult)?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(CopyAck { res })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<CopyAck, E> {
                match i64::try_from(v) {
                    Ok(c) => Ok(CopyAck {
                        res: Some(CopyResult::from_code(c)),
                    }),
                    Err(_) => unreadable(&v.to_string()),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<CopyAck, E> {
                Ok(CopyAck {
                    res: Some(CopyResult::from_code(v)),
                })
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<CopyAck, E> {
                unreadable(&v.to_string())
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<CopyAck, E> {
                if crate::de::is_placeholder(v) {
                    Ok(CopyAck::default())
                } else {
                    Ok(CopyAck {
                        res: Some(CopyResult::from_word(v.trim())),
                    })
                }
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<CopyAck, E> {
                unreadable(if v { "true" } else { "false" })
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<CopyAck, E> {
                Ok(CopyAck::default())
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<CopyAck, E> {
                Ok(CopyAck::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CopyAck, A::Error> {
                // The envelope decodes a missing `data` from an empty list: no `res`.
                let mut any = false;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    any = true;
                }
                if any {
                    unreadable("[...]")
                } else {
                    Ok(CopyAck::default())
                }
            }
        }

        d.deserialize_any(AckVisitor)
    }
}

/// One current copy position (`user_center_current`).
///
/// Required: `order_id` (the identity of the position: the `open_order_id` of
/// [`CloseCopyOrderRequest`] and the `order_id` of [`AddAlgoRequest`]). Every other field is
/// optional: missing, a placeholder or unreadable, it is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyPosition {
    /// Instrument name.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_name: Option<String>,
    /// Leverage.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage: Option<Decimal>,
    /// 1 open long or 2 open short.
    #[serde(default, with = "crate::de::opt")]
    pub direction: Option<OrderSide>,
    /// Opening price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_price: Option<Decimal>,
    /// Opening time.
    #[serde(default, with = "copy_time")]
    pub open_time: Option<TimestampMillis>,
    /// Opening fee.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_fee: Option<Decimal>,
    /// The expert's name.
    #[serde(default, with = "crate::de::opt_string")]
    pub expert_name: Option<String>,
    /// Unrealized profit.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_profit: Option<Decimal>,
    /// Unrealized profit rate (a fraction, not multiplied by 100).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_profit_rate: Option<Decimal>,
    /// Order id of the position. Required.
    #[serde(with = "crate::de::id")]
    pub order_id: String,
    /// Original total volume.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub volume_total_original: Option<Decimal>,
    /// Liquidation price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub liquidate_price: Option<Decimal>,
    /// Market price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub market_price: Option<Decimal>,
    /// Whether the position is being closed (boolean; `0`/`1` accepted).
    #[serde(default, with = "crate::de::opt_flag")]
    pub is_closing: Option<bool>,
    /// Take-profit trigger price type.
    #[serde(default, with = "crate::de::opt")]
    pub stop_earn_trigger_price_type: Option<TriggerPriceType>,
    /// Take-profit trigger price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub stop_earn_trigger_price: Option<Decimal>,
    /// Stop-loss trigger price type.
    #[serde(default, with = "crate::de::opt")]
    pub stop_loss_trigger_price_type: Option<TriggerPriceType>,
    /// Stop-loss trigger price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub stop_loss_trigger_price: Option<Decimal>,
    /// 1 crossed or 2 isolated.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<CopyMarginMode>,
    /// Margin ratio.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub margin_ratio: Option<Decimal>,
    /// Position margin.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub posi_margin: Option<Decimal>,
    /// Margin used.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub use_margin: Option<Decimal>,
}

/// Answer of [`CopyCurrentRequest`]. Every field is optional; an answer without `data`
/// decodes to no `res`, an empty `list` and no `page`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyPositions {
    /// Success or failure, when sent.
    #[serde(default, with = "crate::de::opt")]
    pub res: Option<CopyResult>,
    /// The positions (missing, `null` or a placeholder is empty).
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub list: Vec<CopyPosition>,
    /// Paging, when sent.
    #[serde(default, deserialize_with = "crate::de::opt_object")]
    pub page: Option<CopyPage>,
}

/// One historical copy position (`user_center_history`).
///
/// Required: `order_id` (the identity of the position). Every other field is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyHistoryPosition {
    /// Instrument name.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_name: Option<String>,
    /// Leverage.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage: Option<Decimal>,
    /// 1 open long or 2 open short.
    #[serde(default, with = "crate::de::opt")]
    pub direction: Option<OrderSide>,
    /// Opening price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_price: Option<Decimal>,
    /// Opening time.
    #[serde(default, with = "copy_time")]
    pub open_time: Option<TimestampMillis>,
    /// Opening fee.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_fee: Option<Decimal>,
    /// The expert's name.
    #[serde(default, with = "crate::de::opt_string")]
    pub expert_name: Option<String>,
    /// Closing time.
    #[serde(default, with = "copy_time")]
    pub close_time: Option<TimestampMillis>,
    /// Closing price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub close_price: Option<Decimal>,
    /// Closing profit and loss.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub close_pnl: Option<Decimal>,
    /// Why the position was closed.
    #[serde(default, with = "crate::de::opt")]
    pub status: Option<CopyCloseReason>,
    /// Closing fee.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub close_fee: Option<Decimal>,
    /// Profit.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub profit: Option<Decimal>,
    /// Order id of the position. Required.
    #[serde(with = "crate::de::id")]
    pub order_id: String,
    /// Closed volume.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub close_volume_traded: Option<Decimal>,
    /// 1 crossed or 2 isolated.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<CopyMarginMode>,
}

/// Answer of [`CopyHistoryRequest`]. Every field is optional; an answer without `data`
/// decodes to no `res`, an empty `list` and no `page`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyHistory {
    /// Success or failure, when sent.
    #[serde(default, with = "crate::de::opt")]
    pub res: Option<CopyResult>,
    /// The positions (missing, `null` or a placeholder is empty).
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub list: Vec<CopyHistoryPosition>,
    /// Paging, when sent.
    #[serde(default, deserialize_with = "crate::de::opt_object")]
    pub page: Option<CopyPage>,
}

/// One open order of the expert (`expert_current_open_order`).
///
/// Required: `order_id` (the identity of the order: the `order_id` of
/// [`CancelCopyOrderRequest`]). Every other field is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpertOpenOrder {
    /// Instrument name.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_name: Option<String>,
    /// Leverage.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage: Option<Decimal>,
    /// 1 open long or 2 open short.
    #[serde(default, with = "crate::de::opt")]
    pub direction: Option<OrderSide>,
    /// Order price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub order_price: Option<Decimal>,
    /// Commissioned amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub commission_amount: Option<Decimal>,
    /// Profit rate.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub profit_rate: Option<Decimal>,
    /// Total order amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub total_order: Option<Decimal>,
    /// -1 canceled, 0 open, 1 part filled, 2 filled.
    #[serde(default, with = "crate::de::opt")]
    pub status: Option<ExpertOrderStatus>,
    /// Order price type (copy-trading numbering).
    #[serde(default, with = "crate::de::opt")]
    pub order_price_type: Option<CopyOrderPriceType>,
    /// Order time.
    #[serde(default, with = "copy_time")]
    pub order_time: Option<TimestampMillis>,
    /// Order id. Required.
    #[serde(with = "crate::de::id")]
    pub order_id: String,
    /// Take-profit trigger price type.
    #[serde(default, with = "crate::de::opt")]
    pub stop_earn_trigger_price_type: Option<TriggerPriceType>,
    /// Take-profit trigger price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub stop_earn_trigger_price: Option<Decimal>,
    /// Stop-loss trigger price type.
    #[serde(default, with = "crate::de::opt")]
    pub stop_loss_trigger_price_type: Option<TriggerPriceType>,
    /// Stop-loss trigger price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub stop_loss_trigger_price: Option<Decimal>,
    /// 1 crossed or 2 isolated.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<CopyMarginMode>,
}

/// Answer of [`ExpertOpenOrdersRequest`]. Every field is optional; an answer without `data`
/// decodes to an empty `list` and no `page`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpertOpenOrders {
    /// The orders (missing, `null` or a placeholder is empty).
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub list: Vec<ExpertOpenOrder>,
    /// Paging, when sent.
    #[serde(default, deserialize_with = "crate::de::opt_object")]
    pub page: Option<CopyPage>,
}

/// Answer of [`AddAlgoRequest`].
///
/// `result` is optional; `algos` is a list whose elements are required ids (a `null` or
/// placeholder element fails the answer, naming it). An answer without `data` decodes to
/// `AlgoAdded { result: None, algos: [] }`. A `result` of 2 (fail) is kept: see
/// [`AlgoAdded::is_success`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AlgoAdded {
    /// Success or failure (`result`; `res` accepted), when sent.
    #[serde(default, alias = "res", with = "crate::de::opt")]
    pub result: Option<CopyResult>,
    /// Ids of the created take-profit/stop-loss orders (strings; numbers kept as digits).
    #[serde(default, with = "crate::de::id_list")]
    pub algos: Vec<String>,
}

impl AlgoAdded {
    /// Whether the venue reports success: `result` 1, or none (code 0 alone); false for 2 and
    /// for an unknown value (see [`CopyAck`]).
    pub fn is_success(&self) -> bool {
        matches!(self.result, None | Some(CopyResult::Success))
    }

    /// Whether the venue reports failure (`result` 2).
    pub fn is_failure(&self) -> bool {
        self.result == Some(CopyResult::Fail)
    }
}

/// Answer of [`CancelAlgoRequest`].
///
/// `result` is optional; an answer without `data` decodes to
/// `AlgoCancelled { result: None }`. A `result` of 2 (fail) is kept: see
/// [`AlgoCancelled::is_success`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AlgoCancelled {
    /// Success or failure (`result`; `res` accepted), when sent.
    #[serde(default, alias = "res", with = "crate::de::opt")]
    pub result: Option<CopyResult>,
}

impl AlgoCancelled {
    /// Whether the venue reports success: `result` 1, or none (code 0 alone); false for 2 and
    /// for an unknown value (see [`CopyAck`]).
    pub fn is_success(&self) -> bool {
        matches!(self.result, None | Some(CopyResult::Success))
    }

    /// Whether the venue reports failure (`result` 2).
    pub fn is_failure(&self) -> bool {
        self.result == Some(CopyResult::Fail)
    }
}

/// Answer of [`CopyAvailableRequest`].
///
/// Required: `available` (the value that is the whole answer); an answer without `data` is an
/// [`Error::Decode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyAvailable {
    /// Balance available for copy trading.
    #[serde(with = "crate::de::decimal")]
    pub available: Decimal,
}

/// One plan commission (`plan_task`).
///
/// Required: `order_id` (the identity of the plan row). Every other field is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCommission {
    /// Order id. Required.
    #[serde(with = "crate::de::id")]
    pub order_id: String,
    /// Instrument name.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_name: Option<String>,
    /// Leverage.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage: Option<Decimal>,
    /// 1 open long, 2 open short, 3 close long, 4 close short.
    #[serde(default, with = "crate::de::opt")]
    pub direction: Option<OrderSide>,
    /// Order time.
    #[serde(default, with = "copy_time")]
    pub order_time: Option<TimestampMillis>,
    /// 1 price rises to the trigger, 2 price falls to it.
    #[serde(default, with = "crate::de::opt")]
    pub trigger_cond: Option<TriggerCondition>,
    /// Trigger price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub trigger_price: Option<Decimal>,
    /// 2 stop profit or 3 stop loss.
    #[serde(default, with = "crate::de::opt")]
    pub com_type: Option<PlanComType>,
    /// Order price; the spec says the value 1 means "optimal 10" (see
    /// [`PlanCommission::is_optimal10`]).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub order_price: Option<Decimal>,
    /// Commissioned amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub com_num: Option<Decimal>,
    /// Plan state.
    #[serde(default, with = "crate::de::opt")]
    pub status: Option<PlanStatus>,
    /// 1 crossed or 2 isolated.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<CopyMarginMode>,
}

impl PlanCommission {
    /// Whether `order_price` is the marker 1, which the spec documents as "optimal 10".
    pub fn is_optimal10(&self) -> bool {
        self.order_price == Some(Decimal::ONE)
    }
}

/// Answer of [`PlanTaskRequest`]. Every field is optional; an answer without `data` decodes to
/// an empty `list` and no `page`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanTasks {
    /// The plan commissions (missing, `null` or a placeholder is empty).
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub list: Vec<PlanCommission>,
    /// Paging, when sent.
    #[serde(default, deserialize_with = "crate::de::opt_object")]
    pub page: Option<CopyPage>,
}

/// One copy-trading instrument (`instrument_list`).
///
/// Required: `instrument_id` (the key of an instrument row). Every other field is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyInstrument {
    /// Instrument id (`BTCUSDTPERP`). Required.
    #[serde(with = "crate::de::text")]
    pub instrument_id: String,
    /// Instrument name.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_name: Option<String>,
    /// Contract multiplier.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub volume_multiple: Option<Decimal>,
    /// Price precision (decimal places).
    #[serde(default, with = "crate::de::opt_int")]
    pub price_precision: Option<u32>,
    /// Settlement currency.
    #[serde(default, with = "crate::de::opt_string")]
    pub clear_currency: Option<String>,
    /// Taker fee rate.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub taker_fee: Option<Decimal>,
    /// Margin ratio of long positions.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub long_margin_ratio: Option<Decimal>,
    /// Margin ratio of short positions.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub short_margin_ratio: Option<Decimal>,
    /// Minimum order amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub min_order_amount: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------
// sponsor_order

/// Opening direction of a sponsored order: copy trading only opens (wire `type` 1 or 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SponsorSide {
    /// 1: open long.
    OpenLong,
    /// 2: open short.
    OpenShort,
}

impl SponsorSide {
    /// The wire code.
    pub fn code(self) -> i64 {
        match self {
            SponsorSide::OpenLong => 1,
            SponsorSide::OpenShort => 2,
        }
    }
    /// The same direction as an [`OrderSide`].
    pub fn order_side(self) -> OrderSide {
        match self {
            SponsorSide::OpenLong => OrderSide::OpenLong,
            SponsorSide::OpenShort => OrderSide::OpenShort,
        }
    }
    fn from_code(code: i64) -> Option<Self> {
        match code {
            1 => Some(SponsorSide::OpenLong),
            2 => Some(SponsorSide::OpenShort),
            _ => None,
        }
    }
}

/// A market-style copy-trading order type (no price), in the copy-trading numbering
/// ([`CopyOrderPriceType`] 1-3, 6-8, 10-12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyMarketStyle {
    /// 1: opponent's best price, IOC.
    OpponentIoc,
    /// 2: optimal 5 levels, IOC.
    Optimal5Ioc,
    /// 3: optimal 10 levels, IOC.
    Optimal10Ioc,
    /// 6: opponent's best price, GTC.
    OpponentGtc,
    /// 7: optimal 5 levels, GTC.
    Optimal5Gtc,
    /// 8: optimal 10 levels, GTC.
    Optimal10Gtc,
    /// 10: opponent's best price, FOK.
    OpponentFok,
    /// 11: optimal 5 levels, FOK.
    Optimal5Fok,
    /// 12: optimal 10 levels, FOK.
    Optimal10Fok,
}

impl CopyMarketStyle {
    /// The copy-trading order price type of this style.
    pub fn price_type(self) -> CopyOrderPriceType {
        match self {
            CopyMarketStyle::OpponentIoc => CopyOrderPriceType::OpponentIoc,
            CopyMarketStyle::Optimal5Ioc => CopyOrderPriceType::Optimal5Ioc,
            CopyMarketStyle::Optimal10Ioc => CopyOrderPriceType::Optimal10Ioc,
            CopyMarketStyle::OpponentGtc => CopyOrderPriceType::OpponentGtc,
            CopyMarketStyle::Optimal5Gtc => CopyOrderPriceType::Optimal5Gtc,
            CopyMarketStyle::Optimal10Gtc => CopyOrderPriceType::Optimal10Gtc,
            CopyMarketStyle::OpponentFok => CopyOrderPriceType::OpponentFok,
            CopyMarketStyle::Optimal5Fok => CopyOrderPriceType::Optimal5Fok,
            CopyMarketStyle::Optimal10Fok => CopyOrderPriceType::Optimal10Fok,
        }
    }

    /// The style of a market-style price type; `None` for priced and unknown types.
    pub fn from_price_type(t: &CopyOrderPriceType) -> Option<Self> {
        Some(match t {
            CopyOrderPriceType::OpponentIoc => CopyMarketStyle::OpponentIoc,
            CopyOrderPriceType::Optimal5Ioc => CopyMarketStyle::Optimal5Ioc,
            CopyOrderPriceType::Optimal10Ioc => CopyMarketStyle::Optimal10Ioc,
            CopyOrderPriceType::OpponentGtc => CopyMarketStyle::OpponentGtc,
            CopyOrderPriceType::Optimal5Gtc => CopyMarketStyle::Optimal5Gtc,
            CopyOrderPriceType::Optimal10Gtc => CopyMarketStyle::Optimal10Gtc,
            CopyOrderPriceType::OpponentFok => CopyMarketStyle::OpponentFok,
            CopyOrderPriceType::Optimal5Fok => CopyMarketStyle::Optimal5Fok,
            CopyOrderPriceType::Optimal10Fok => CopyMarketStyle::Optimal10Fok,
            _ => return None,
        })
    }
}

/// How a sponsored order is priced, in the copy-trading numbering ([`CopyOrderPriceType`]):
/// the priced types carry `limit_price`, the market-style ones none.
///
/// DESIGN: the priced types are 0 limit and the unqualified 4 ioc, 5 gtc and 9 fok (at the
/// given price); the opponent/optimal types are market-style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyPricing {
    /// 0: limit at the price.
    Limit(Decimal),
    /// 4: immediate-or-cancel at the price.
    Ioc(Decimal),
    /// 5: good-till-cancelled at the price.
    Gtc(Decimal),
    /// 9: fill-or-kill at the price.
    Fok(Decimal),
    /// A market-style type: no price.
    Market(CopyMarketStyle),
}

impl CopyPricing {
    /// The wire `order_type` (copy-trading numbering).
    pub fn price_type(&self) -> CopyOrderPriceType {
        match self {
            CopyPricing::Limit(_) => CopyOrderPriceType::Limit,
            CopyPricing::Ioc(_) => CopyOrderPriceType::Ioc,
            CopyPricing::Gtc(_) => CopyOrderPriceType::Gtc,
            CopyPricing::Fok(_) => CopyOrderPriceType::Fok,
            CopyPricing::Market(m) => m.price_type(),
        }
    }

    /// The `limit_price` (`None` for market-style types).
    pub fn price(&self) -> Option<Decimal> {
        match *self {
            CopyPricing::Limit(p)
            | CopyPricing::Ioc(p)
            | CopyPricing::Gtc(p)
            | CopyPricing::Fok(p) => Some(p),
            CopyPricing::Market(_) => None,
        }
    }

    fn from_wire(t: CopyOrderPriceType, price: Option<Decimal>) -> Result<Self, Error> {
        let need = |price: Option<Decimal>| {
            price.ok_or_else(|| {
                Error::validation("limit_price", format!("is required for order_type {t}"))
            })
        };
        match t {
            CopyOrderPriceType::Limit => Ok(CopyPricing::Limit(need(price)?)),
            CopyOrderPriceType::Ioc => Ok(CopyPricing::Ioc(need(price)?)),
            CopyOrderPriceType::Gtc => Ok(CopyPricing::Gtc(need(price)?)),
            CopyOrderPriceType::Fok => Ok(CopyPricing::Fok(need(price)?)),
            other => match CopyMarketStyle::from_price_type(&other) {
                Some(style) if price.is_none() => Ok(CopyPricing::Market(style)),
                Some(_) => Err(Error::validation(
                    "limit_price",
                    format!(
                        "must not be given for the market-style order_type {}",
                        other
                    ),
                )),
                None => Err(Error::validation(
                    "order_type",
                    format!("{} is not a documented copy-trading order type", other),
                )),
            },
        }
    }
}

/// `POST /swap/v2/follow/sponsor_order`: the expert opens a position that followers copy.
///
/// Body members, in this order: `instrument_id`, `margin_mode` (1 crossed, 2 isolated),
/// `type` (1 open long, 2 open short), `leverage` (positive JSON number), `order_type`,
/// `limit_price` (string, priced types only), `order_num` (positive JSON number), then the
/// optional `order_earn_trigger_price_type`, `order_loss_trigger_price_type` (1 index, 2 mark,
/// 3 market price), `stop_earn_trigger_price`, `stop_loss_trigger_price` (strings).
///
/// DESIGN: `order_type` uses the copy-trading numbering ([`CopyOrderPriceType`]: 0 limit,
/// 1 opponent_ioc, .., 4 ioc, 5 gtc, .., 12 optimal_10_fok), not the trade table
/// ([`super::OrderType`]). The spec says copy-trading open orders use that numbering, and the
/// expert's open orders report the type of the order sponsored here as `order_price_type` in
/// it; sending trade codes would make 4 mean "IOC at a custom price" here and "ioc" there, and
/// 13-15 do not exist in copy trading. The request takes a [`CopyPricing`], so a trade-table
/// [`super::OrderType`] cannot be passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SponsorOrderRequest {
    instrument_id: String,
    margin_mode: CopyMarginMode,
    side: SponsorSide,
    leverage: Decimal,
    pricing: CopyPricing,
    order_num: Decimal,
    take_profit_trigger: Option<TriggerPriceType>,
    stop_loss_trigger: Option<TriggerPriceType>,
    take_profit_price: Option<Decimal>,
    stop_loss_price: Option<Decimal>,
}

impl SponsorOrderRequest {
    /// Opens `order_num` on `instrument_id` at `leverage`, in `margin_mode`, priced per
    /// `pricing`.
    pub fn new(
        instrument_id: impl Into<String>,
        margin_mode: CopyMarginMode,
        side: SponsorSide,
        leverage: Decimal,
        pricing: CopyPricing,
        order_num: Decimal,
    ) -> Self {
        SponsorOrderRequest {
            instrument_id: instrument_id.into(),
            margin_mode,
            side,
            leverage,
            pricing,
            order_num,
            take_profit_trigger: None,
            stop_loss_trigger: None,
            take_profit_price: None,
            stop_loss_price: None,
        }
    }
    /// Which price triggers the take-profit (`order_earn_trigger_price_type`).
    pub fn take_profit_trigger(mut self, t: TriggerPriceType) -> Self {
        self.take_profit_trigger = Some(t);
        self
    }
    /// Take-profit trigger price (`stop_earn_trigger_price`).
    pub fn take_profit_price(mut self, price: Decimal) -> Self {
        self.take_profit_price = Some(price);
        self
    }
    /// Which price triggers the stop-loss (`order_loss_trigger_price_type`).
    pub fn stop_loss_trigger(mut self, t: TriggerPriceType) -> Self {
        self.stop_loss_trigger = Some(t);
        self
    }
    /// Stop-loss trigger price (`stop_loss_trigger_price`).
    pub fn stop_loss_price(mut self, price: Decimal) -> Self {
        self.stop_loss_price = Some(price);
        self
    }
    /// The pricing.
    pub fn pricing(&self) -> &CopyPricing {
        &self.pricing
    }
}

impl Endpoint for SponsorOrderRequest {
    type Output = CopyAck;
    const META: Meta = private_write(
        "swap.follow.sponsor_order",
        Method::Post,
        "/swap/v2/follow/sponsor_order",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        let margin_mode = known_code("margin_mode", &self.margin_mode)?;
        check_positive("leverage", &self.leverage)?;
        let price = self.pricing.price();
        check_opt_positive("limit_price", price.as_ref())?;
        check_positive("order_num", &self.order_num)?;
        let earn = trigger_code(
            "order_earn_trigger_price_type",
            self.take_profit_trigger.as_ref(),
        )?;
        let loss = trigger_code(
            "order_loss_trigger_price_type",
            self.stop_loss_trigger.as_ref(),
        )?;
        check_opt_positive("stop_earn_trigger_price", self.take_profit_price.as_ref())?;
        check_opt_positive("stop_loss_trigger_price", self.stop_loss_price.as_ref())?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .str("instrument_id", &self.instrument_id)
            .int("margin_mode", margin_mode)
            .int("type", self.side.code())
            .decimal_number("leverage", &self.leverage)
            .int(
                "order_type",
                known_code("order_type", &self.pricing.price_type())?,
            )
            .opt_decimal_string("limit_price", price.as_ref())
            .decimal_number("order_num", &self.order_num)
            .opt_int("order_earn_trigger_price_type", earn)
            .opt_int("order_loss_trigger_price_type", loss)
            .opt_decimal_string("stop_earn_trigger_price", self.take_profit_price.as_ref())
            .opt_decimal_string("stop_loss_trigger_price", self.stop_loss_price.as_ref())
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for SponsorOrderRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        let instrument_id = p.take_str("instrument_id")?;
        let margin_mode = CopyMarginMode::from_code(p.take_int("margin_mode")?);
        let side_code: i64 = p.take_int("type")?;
        let side = SponsorSide::from_code(side_code).ok_or_else(|| {
            Error::validation(
                "type",
                format!("{side_code} is not an opening direction (1 open long, 2 open short)"),
            )
        })?;
        let leverage = p.take_decimal("leverage")?;
        let price_type = CopyOrderPriceType::from_code(p.take_int("order_type")?);
        let price = p.take_opt_decimal("limit_price")?;
        let pricing = CopyPricing::from_wire(price_type, price)?;
        let order_num = p.take_decimal("order_num")?;
        Ok(SponsorOrderRequest {
            instrument_id,
            margin_mode,
            side,
            leverage,
            pricing,
            order_num,
            take_profit_trigger: take_trigger(p, "order_earn_trigger_price_type")?,
            stop_loss_trigger: take_trigger(p, "order_loss_trigger_price_type")?,
            take_profit_price: p.take_opt_decimal("stop_earn_trigger_price")?,
            stop_loss_price: p.take_opt_decimal("stop_loss_trigger_price")?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/follow/close_order`: closes a copy position opened by a sponsored order.
///
/// Body: `{"open_order_id":".."}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CloseCopyOrderRequest {
    open_order_id: String,
}

impl CloseCopyOrderRequest {
    /// Closes the position of order `open_order_id`.
    pub fn new(open_order_id: impl Into<String>) -> Self {
        CloseCopyOrderRequest {
            open_order_id: open_order_id.into(),
        }
    }
}

impl Endpoint for CloseCopyOrderRequest {
    type Output = CopyAck;
    const META: Meta = private_write(
        "swap.follow.close_order",
        Method::Post,
        "/swap/v2/follow/close_order",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_order_id("open_order_id", &self.open_order_id)?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .str("open_order_id", &self.open_order_id)
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for CloseCopyOrderRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(CloseCopyOrderRequest {
            open_order_id: p.take_str("open_order_id")?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/follow/cancel_order`: cancels an unfilled sponsored order.
///
/// Body: `{"order_id":".."}`.
///
/// DESIGN: the spec writes this parameter as `order_i`. That is read as a truncated
/// `order_id`: every other copy-trading endpoint (`add_algo`, `cancel_algo`) and every
/// copy-trading record names the order `order_id`, as does the trade `cancel_order`, and no
/// other parameter anywhere is abbreviated that way. So `order_id` is sent. The catalog (CLI,
/// `--json`) also accepts `order_i` as an alias for someone copying the spec; it is still sent
/// as `order_id`, and giving both with different values is refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CancelCopyOrderRequest {
    order_id: String,
}

impl CancelCopyOrderRequest {
    /// Cancels sponsored order `order_id`.
    pub fn new(order_id: impl Into<String>) -> Self {
        CancelCopyOrderRequest {
            order_id: order_id.into(),
        }
    }
}

impl Endpoint for CancelCopyOrderRequest {
    type Output = CopyAck;
    const META: Meta = private_write(
        "swap.follow.cancel_order",
        Method::Post,
        "/swap/v2/follow/cancel_order",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_order_id("order_id", &self.order_id)?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .str("order_id", &self.order_id)
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for CancelCopyOrderRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        let id = p.take_opt_str("order_id")?;
        let alias = p.take_opt_str("order_i")?;
        let order_id = match (id, alias) {
            (Some(a), Some(b)) if a != b => {
                return Err(Error::validation(
                    "order_i",
                    format!("{b:?} differs from order_id {a:?} (order_i is an alias of order_id)"),
                ))
            }
            (Some(a), _) | (None, Some(a)) => a,
            (None, None) => return Err(Error::validation("order_id", "is required")),
        };
        Ok(CancelCopyOrderRequest { order_id })
    }
}

// ---------------------------------------------------------------------------------------------

/// The `type` of `user_center_current`: one entry per copy order, or one per instrument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyCurrentView {
    /// 1: detailed.
    Detailed,
    /// 2: summary.
    Summary,
}

impl CopyCurrentView {
    /// The wire code.
    pub fn code(self) -> i64 {
        match self {
            CopyCurrentView::Detailed => 1,
            CopyCurrentView::Summary => 2,
        }
    }
    fn from_code(code: i64) -> Option<Self> {
        match code {
            1 => Some(CopyCurrentView::Detailed),
            2 => Some(CopyCurrentView::Summary),
            _ => None,
        }
    }
}

/// `POST /swap/v2/follow/user_center_current`: current copy positions.
///
/// Body members, in this order, each when set: `page` (from 1, default 1), `size` (from 1,
/// default 10), `instrument_id`; then `type` (1 detailed, 2 summary; required).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyCurrentRequest {
    view: CopyCurrentView,
    page: Option<u32>,
    size: Option<u32>,
    instrument_id: Option<String>,
}

impl CopyCurrentRequest {
    /// The first page (10 entries) of every instrument, in `view`.
    pub fn new(view: CopyCurrentView) -> Self {
        CopyCurrentRequest {
            view,
            page: None,
            size: None,
            instrument_id: None,
        }
    }
    /// Page number, from 1.
    pub fn page(mut self, page: u32) -> Self {
        self.page = Some(page);
        self
    }
    /// Entries per page, from 1.
    pub fn size(mut self, size: u32) -> Self {
        self.size = Some(size);
        self
    }
    /// Only `instrument_id`.
    pub fn instrument_id(mut self, instrument_id: impl Into<String>) -> Self {
        self.instrument_id = Some(instrument_id.into());
        self
    }
}

impl Endpoint for CopyCurrentRequest {
    type Output = CopyPositions;
    const META: Meta = private_read(
        "swap.follow.user_center_current",
        Method::Post,
        "/swap/v2/follow/user_center_current",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_paging(self.page, self.size, None)?;
        if let Some(i) = &self.instrument_id {
            check_instrument("instrument_id", i)?;
        }
        let mut w = JsonWriter::new();
        w.begin_object();
        write_listing(&mut w, self.page, self.size, self.instrument_id.as_deref());
        w.int("type", self.view.code()).end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for CopyCurrentRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        let page = p.take_opt_int("page")?;
        let size = p.take_opt_int("size")?;
        let instrument_id = p.take_opt_str("instrument_id")?;
        let code: i64 = p.take_int("type")?;
        let view = CopyCurrentView::from_code(code).ok_or_else(|| {
            Error::validation("type", format!("{code} is not 1 (detailed) or 2 (summary)"))
        })?;
        Ok(CopyCurrentRequest {
            view,
            page,
            size,
            instrument_id,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// Declares a paged copy-trading listing with optional `page`, `size` and `instrument_id`.
macro_rules! listing_request {
    (
        $(#[$doc:meta])*
        $name:ident => $output:ty, $meta_name:literal, $path:literal
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Default)]
        pub struct $name {
            page: Option<u32>,
            size: Option<u32>,
            instrument_id: Option<String>,
        }

        impl $name {
            /// The first page (10 entries) of every instrument.
            pub fn new() -> Self {
                Self::default()
            }
            /// Page number, from 1.
            pub fn page(mut self, page: u32) -> Self {
                self.page = Some(page);
                self
            }
            /// Entries per page, from 1.
            pub fn size(mut self, size: u32) -> Self {
                self.size = Some(size);
                self
            }
            /// Only `instrument_id`.
            pub fn instrument_id(mut self, instrument_id: impl Into<String>) -> Self {
                self.instrument_id = Some(instrument_id.into());
                self
            }
        }

        impl Endpoint for $name {
            type Output = $output;
            const META: Meta = private_read($meta_name, Method::Post, $path);
            fn encode(&self, p: &mut Params) -> Result<(), Error> {
                check_paging(self.page, self.size, None)?;
                if let Some(i) = &self.instrument_id {
                    check_instrument("instrument_id", i)?;
                }
                let mut w = JsonWriter::new();
                w.begin_object();
                write_listing(&mut w, self.page, self.size, self.instrument_id.as_deref());
                w.end_object();
                p.set_json_body(w);
                Ok(())
            }
        }

        impl FromParams for $name {
            fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
                Ok($name {
                    page: p.take_opt_int("page")?,
                    size: p.take_opt_int("size")?,
                    instrument_id: p.take_opt_str("instrument_id")?,
                })
            }
        }
    };
}

listing_request! {
    /// `POST /swap/v2/follow/user_center_history`: closed copy positions.
    ///
    /// Body members, in this order, each when set: `page` (from 1, default 1), `size` (from 1,
    /// default 10), `instrument_id`; `{}` when none is set.
    CopyHistoryRequest => CopyHistory, "swap.follow.user_center_history",
    "/swap/v2/follow/user_center_history"
}

listing_request! {
    /// `POST /swap/v2/follow/expert_current_open_order`: the expert's open sponsored orders.
    ///
    /// Body members, in this order, each when set: `page` (from 1, default 1), `size` (from 1,
    /// default 10), `instrument_id`; `{}` when none is set.
    ExpertOpenOrdersRequest => ExpertOpenOrders, "swap.follow.expert_current_open_order",
    "/swap/v2/follow/expert_current_open_order"
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/follow/add_algo`: attaches take-profit and/or stop-loss orders to a copy
/// order.
///
/// Body members, in this order, each when set (the spec makes all optional): `order_id`,
/// `profit_trigger_type` (1 index, 2 mark, 3 market price), `profit_trigger_price` (string),
/// `stop_trigger_type`, `stop_trigger_price`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AddAlgoRequest {
    order_id: Option<String>,
    profit_trigger_type: Option<TriggerPriceType>,
    profit_trigger_price: Option<Decimal>,
    stop_trigger_type: Option<TriggerPriceType>,
    stop_trigger_price: Option<Decimal>,
}

impl AddAlgoRequest {
    /// No member set.
    pub fn new() -> Self {
        Self::default()
    }
    /// The copy order.
    pub fn order_id(mut self, order_id: impl Into<String>) -> Self {
        self.order_id = Some(order_id.into());
        self
    }
    /// Which price triggers the take-profit.
    pub fn profit_trigger_type(mut self, t: TriggerPriceType) -> Self {
        self.profit_trigger_type = Some(t);
        self
    }
    /// Take-profit trigger price.
    pub fn profit_trigger_price(mut self, price: Decimal) -> Self {
        self.profit_trigger_price = Some(price);
        self
    }
    /// Which price triggers the stop-loss.
    pub fn stop_trigger_type(mut self, t: TriggerPriceType) -> Self {
        self.stop_trigger_type = Some(t);
        self
    }
    /// Stop-loss trigger price.
    pub fn stop_trigger_price(mut self, price: Decimal) -> Self {
        self.stop_trigger_price = Some(price);
        self
    }
}

impl Endpoint for AddAlgoRequest {
    type Output = AlgoAdded;
    const META: Meta = private_write(
        "swap.follow.add_algo",
        Method::Post,
        "/swap/v2/follow/add_algo",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        if let Some(id) = &self.order_id {
            check_order_id("order_id", id)?;
        }
        let profit = trigger_code("profit_trigger_type", self.profit_trigger_type.as_ref())?;
        check_opt_positive("profit_trigger_price", self.profit_trigger_price.as_ref())?;
        let stop = trigger_code("stop_trigger_type", self.stop_trigger_type.as_ref())?;
        check_opt_positive("stop_trigger_price", self.stop_trigger_price.as_ref())?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .opt_str("order_id", self.order_id.as_deref())
            .opt_int("profit_trigger_type", profit)
            .opt_decimal_string("profit_trigger_price", self.profit_trigger_price.as_ref())
            .opt_int("stop_trigger_type", stop)
            .opt_decimal_string("stop_trigger_price", self.stop_trigger_price.as_ref())
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for AddAlgoRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(AddAlgoRequest {
            order_id: p.take_opt_str("order_id")?,
            profit_trigger_type: take_trigger(p, "profit_trigger_type")?,
            profit_trigger_price: p.take_opt_decimal("profit_trigger_price")?,
            stop_trigger_type: take_trigger(p, "stop_trigger_type")?,
            stop_trigger_price: p.take_opt_decimal("stop_trigger_price")?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/follow/cancel_algo`: cancels the take-profit and/or stop-loss of a copy
/// order.
///
/// Body members, in this order, each when set: `order_id`, `stop_profit` (1 cancel the
/// take-profit, 0 keep it), `stop_loss` (1 cancel the stop-loss, 0 keep it), as JSON numbers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CancelAlgoRequest {
    order_id: Option<String>,
    stop_profit: Option<bool>,
    stop_loss: Option<bool>,
}

impl CancelAlgoRequest {
    /// No member set.
    pub fn new() -> Self {
        Self::default()
    }
    /// The copy order.
    pub fn order_id(mut self, order_id: impl Into<String>) -> Self {
        self.order_id = Some(order_id.into());
        self
    }
    /// Whether to cancel the take-profit (`stop_profit` 1) or keep it (0).
    pub fn cancel_take_profit(mut self, cancel: bool) -> Self {
        self.stop_profit = Some(cancel);
        self
    }
    /// Whether to cancel the stop-loss (`stop_loss` 1) or keep it (0).
    pub fn cancel_stop_loss(mut self, cancel: bool) -> Self {
        self.stop_loss = Some(cancel);
        self
    }
}

impl Endpoint for CancelAlgoRequest {
    type Output = AlgoCancelled;
    const META: Meta = private_write(
        "swap.follow.cancel_algo",
        Method::Post,
        "/swap/v2/follow/cancel_algo",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        if let Some(id) = &self.order_id {
            check_order_id("order_id", id)?;
        }
        let mut w = JsonWriter::new();
        w.begin_object()
            .opt_str("order_id", self.order_id.as_deref())
            .opt_int("stop_profit", self.stop_profit.map(i64::from))
            .opt_int("stop_loss", self.stop_loss.map(i64::from))
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for CancelAlgoRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(CancelAlgoRequest {
            order_id: p.take_opt_str("order_id")?,
            stop_profit: p.take_opt_flag("stop_profit")?,
            stop_loss: p.take_opt_flag("stop_loss")?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/follow/account_available`: the balance available for copy trading.
///
/// No parameters; the body is `{}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CopyAvailableRequest;

impl Endpoint for CopyAvailableRequest {
    type Output = CopyAvailable;
    const META: Meta = private_read(
        "swap.follow.account_available",
        Method::Post,
        "/swap/v2/follow/account_available",
    );
    fn encode(&self, _: &mut Params) -> Result<(), Error> {
        Ok(())
    }
}

impl FromParams for CopyAvailableRequest {
    fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
        Ok(CopyAvailableRequest)
    }
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/follow/plan_task`: plan commissions (take-profit and stop-loss plans).
///
/// Body: `{"page":1,"size":10}`; both required, `page` 1..=50, `size` from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanTaskRequest {
    page: u32,
    size: u32,
}

impl PlanTaskRequest {
    /// Page `page` (1..=50) of `size` entries.
    pub fn new(page: u32, size: u32) -> Self {
        PlanTaskRequest { page, size }
    }
}

impl Endpoint for PlanTaskRequest {
    type Output = PlanTasks;
    const META: Meta = private_read(
        "swap.follow.plan_task",
        Method::Post,
        "/swap/v2/follow/plan_task",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_paging(Some(self.page), Some(self.size), Some(MAX_PLAN_TASK_PAGE))?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .int("page", i64::from(self.page))
            .int("size", i64::from(self.size))
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for PlanTaskRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(PlanTaskRequest {
            page: p.take_int("page")?,
            size: p.take_int("size")?,
        })
    }
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/follow/instrument_list`: the instruments available for copy trading.
///
/// No parameters; the body is `{}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CopyInstrumentsRequest;

impl Endpoint for CopyInstrumentsRequest {
    type Output = Vec<CopyInstrument>;
    const META: Meta = private_read(
        "swap.follow.instrument_list",
        Method::Post,
        "/swap/v2/follow/instrument_list",
    );
    fn encode(&self, _: &mut Params) -> Result<(), Error> {
        Ok(())
    }
}

impl FromParams for CopyInstrumentsRequest {
    fn from_params(_: &mut ParamMap) -> Result<Self, Error> {
        Ok(CopyInstrumentsRequest)
    }
}
