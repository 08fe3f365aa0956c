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
//! (docs/protocol.md, "Copy-trading reads"): they are idempotent, so the session retries them like
//! any read and a timeout on them is an ordinary error. `sponsor_order`, `close_order`,
//! `cancel_order`, `add_algo` and `cancel_algo` change state: never retried, and a failure after
//! their bytes may have been sent is [`Error::OutcomeUnknown`].
//!
//! Answers follow the required/optional rule of [decoding](crate#decoding): a record's identity
//! (`order_id` of a copy position, an expert order or a plan; `instrument_id` of a copy instrument)
//! and the available balance (the whole answer of `account_available`) are required; every other
//! field is optional. Each answer type says what an answer without `data` (`{"code":0}`) decodes
//! to.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{
    check_instrument, check_order_id, private_read, private_write, CopyCloseReason, CopyMarginMode,
    CopyOrderPriceType, CopyResult, ExpertOrderStatus, OrderSide, PlanComType, PlanStatus,
    TriggerCondition, TriggerPriceType,
};
use crate::codes::input_enum;
use crate::endpoint::{Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;
use crate::money::{Price, Size};
use crate::params::ParamMap;
use crate::request;
use crate::request::{
    described_codes, fields, known_code, positive, server_default, IntoArg, OneOrZero, Param,
};
use crate::types::TimestampMillis;

/// Highest `page` of `plan_task` (the copy-trading documents and their limits).
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

/// A check: a page number starts at 1.
#[allow(non_upper_case_globals)]
const first_page: crate::request::Rule<u32> =
    crate::request::Rule::new(page_from_one, ">= 1").with_example("1");

fn page_from_one(field: &'static str, page: &u32) -> Result<(), Error> {
    if *page == 0 {
        Err(Error::validation(
            field,
            "0 is not a page (pages start at 1)",
        ))
    } else {
        Ok(())
    }
}

/// A check: a `plan_task` page is 1..=[`MAX_PLAN_TASK_PAGE`].
#[allow(non_upper_case_globals)]
const plan_page: crate::request::Rule<u32> =
    crate::request::Rule::new(plan_page_form, "1..=50").with_example("1");

fn plan_page_form(field: &'static str, page: &u32) -> Result<(), Error> {
    page_from_one(field, page)?;
    if *page > MAX_PLAN_TASK_PAGE {
        return Err(Error::validation(
            field,
            format!("{page} is above the highest page {MAX_PLAN_TASK_PAGE}"),
        ));
    }
    Ok(())
}

/// A check: a page size is at least 1 (no upper bound: see the module docs).
#[allow(non_upper_case_globals)]
const page_size: crate::request::Rule<u32> =
    crate::request::Rule::new(size_from_one, ">= 1").with_example("10");

fn size_from_one(field: &'static str, size: &u32) -> Result<(), Error> {
    if *size == 0 {
        Err(Error::validation(field, "must be at least 1"))
    } else {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Answers

/// A page of a listing: `page_size`, `cur_page`, `total_page`, `count`.
///
/// Every field is optional (`None` when missing, a placeholder or unreadable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
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

/// Reads `res` / `result` with the optional rule.
struct OptResult;

impl<'de> serde::de::DeserializeSeed<'de> for OptResult {
    type Value = Option<CopyResult>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        crate::de::opt::deserialize(d)
    }
}

/// Reads the `res` of a copy-trading acknowledgement: `{"res":1}` (also spelled `result`) or
/// the bare code `1`; no `data`, a placeholder or an empty list is `None`, anything else
/// unreadable is `None` and reported.
fn read_res<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<CopyResult>, D::Error> {
    use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};

    struct ResVisitor;

    fn unreadable<E: serde::de::Error>(text: &str) -> Result<Option<CopyResult>, E> {
        crate::de::unreadable::note::<E>("a result code", text).map(|()| None)
    }

    impl<'de> Visitor<'de> for ResVisitor {
        type Value = Option<CopyResult>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("`{\"res\":1}` or a result code")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut res = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if (key == "res" || key == "result") && res.is_none() {
                    res = map.next_value_seed(OptResult)?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(res)
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            match i64::try_from(v) {
                Ok(c) => Ok(Some(CopyResult::from_code(c))),
                Err(_) => unreadable(&v.to_string()),
            }
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(CopyResult::from_code(v)))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            unreadable(&v.to_string())
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if crate::de::is_placeholder(v) {
                Ok(None)
            } else {
                Ok(Some(CopyResult::from_word(v.trim())))
            }
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
            unreadable(if v { "true" } else { "false" })
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            // The envelope decodes a missing `data` from an empty list: no `res`.
            let mut any = false;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                any = true;
            }
            if any {
                unreadable("[...]")
            } else {
                Ok(None)
            }
        }
    }

    d.deserialize_any(ResVisitor)
}

/// Declares the acknowledgement of one copy-trading write (`sponsor_order`, `close_order`,
/// `cancel_order`): the same shape, documentation and decoding for each.
macro_rules! copy_ack {
    ($name:ident, $request:ident, $endpoint:literal) => {
        #[doc = concat!("Answer of [`", stringify!($request), "`] (`", $endpoint, "`): `res`, 1 success or 2 fail.")]
        ///
        /// `res` is optional: missing, a placeholder or unreadable, it is `None`. An answer without
        #[doc = concat!("`data` (`{\"code\":0}`) decodes to `", stringify!($name), " { res: None }`.")]
        ///
        /// DESIGN: `data` is read as `{"res":1}` (also spelled `result`), or as the bare code `1`.
        /// A `res` of 2 is the venue saying the action failed although the envelope's `code` is 0:
        #[doc = concat!("it is kept, and [`", stringify!($name), "::is_success`] is false and [`", stringify!($name), "::is_failure`]")]
        /// true for it, so a caller that checks either never takes it for a success. Without a
        /// `res` the envelope's `code` 0, the venue's documented success signal (the copy-trading
        /// documents),
        #[doc = concat!("is the only answer and [`", stringify!($name), "::is_success`] takes it as success; an unknown `res`")]
        /// is neither.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize)]
        pub struct $name {
            /// Success or failure, when sent.
            #[serde(with = "crate::de::opt")]
            pub res: Option<CopyResult>,
        }

        impl $name {
            /// Whether the venue reports success: `res` 1, or no `res` at all (code 0 alone).
            /// False for `res` 2 and for an unknown `res`.
            pub fn is_success(&self) -> bool {
                matches!(self.res, None | Some(CopyResult::Success))
            }

            /// Whether the venue reports failure (`res` 2).
            pub fn is_failure(&self) -> bool {
                self.res == Some(CopyResult::Fail)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                read_res(d).map(|res| $name { res })
            }
        }
    };
}

copy_ack!(SponsorOrderAck, SponsorOrderRequest, "sponsor_order");
copy_ack!(CloseCopyOrderAck, CloseCopyOrderRequest, "close_order");
copy_ack!(CancelCopyOrderAck, CancelCopyOrderRequest, "cancel_order");

/// optional: missing, a placeholder or unreadable, it is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[non_exhaustive]
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
    /// for an unknown value (see [`SponsorOrderAck`]).
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
#[non_exhaustive]
pub struct AlgoCancelled {
    /// Success or failure (`result`; `res` accepted), when sent.
    #[serde(default, alias = "res", with = "crate::de::opt")]
    pub result: Option<CopyResult>,
}

impl AlgoCancelled {
    /// Whether the venue reports success: `result` 1, or none (code 0 alone); false for 2 and
    /// for an unknown value (see [`SponsorOrderAck`]).
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct CopyAvailable {
    /// Balance available for copy trading.
    #[serde(with = "crate::de::decimal")]
    pub available: Decimal,
}

/// One plan commission (`plan_task`).
///
/// Required: `order_id` (the identity of the plan row). Every other field is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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

input_enum! {
    /// Opening direction of a sponsored order: copy trading only opens (wire `type` 1 or 2).
    pub enum SponsorSide: code i64 {
        /// 1: open long.
        OpenLong = 1 "open_long",
        /// 2: open short.
        OpenShort = 2 "open_short",
    }
}

impl SponsorSide {
    /// The same direction as an [`OrderSide`].
    pub fn order_side(self) -> OrderSide {
        match self {
            SponsorSide::OpenLong => OrderSide::OpenLong,
            SponsorSide::OpenShort => OrderSide::OpenShort,
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
    Limit(Price),
    /// 4: immediate-or-cancel at the price.
    Ioc(Price),
    /// 5: good-till-cancelled at the price.
    Gtc(Price),
    /// 9: fill-or-kill at the price.
    Fok(Price),
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
    pub fn price(&self) -> Option<Price> {
        match *self {
            CopyPricing::Limit(p)
            | CopyPricing::Ioc(p)
            | CopyPricing::Gtc(p)
            | CopyPricing::Fok(p) => Some(p),
            CopyPricing::Market(_) => None,
        }
    }

    fn from_wire(t: CopyOrderPriceType, price: Option<Price>) -> Result<Self, Error> {
        let need = |price: Option<Price>| {
            price.ok_or_else(|| Error::missing_when("limit_price", format!("for order_type {t}")))
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

fields! {
    /// The members `order_type` and `limit_price` (priced types only), in this order.
    impl Fields for CopyPricing {
        |c| {
            /// How the order is priced and how long it rests (copy-trading numbering).
            req order_type: CopyOrderPriceType [known_code] = c.price_type();
            /// The price (priced order types only).
            opt limit_price: Price [positive] = c.price() => |info| {
                info.rule("refused for the other order types");
                // The priced types are those `CopyPricing::from_wire` refuses without a price.
                let priced = described_codes::<CopyOrderPriceType>(|code| {
                    CopyPricing::from_wire(CopyOrderPriceType::from_code(code), None).is_err()
                });
                info.required_when(format!("order_type {priced}"));
            };
        }
        read => CopyPricing::from_wire(order_type, limit_price);
    }
}

request! {
    /// `POST /swap/v2/follow/sponsor_order`: the expert opens a position that followers copy.
    ///
    /// Body members, in this order: `instrument_id`, `margin_mode` (1 crossed, 2 isolated),
    /// `type` (1 open long, 2 open short), `leverage` (positive JSON number), `order_num`
    /// (positive JSON number), `order_type`, `limit_price` (string, priced types only), then the
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
    ///
    /// DESIGN: the quantity comes before the price, as in every request: `order_num` is written
    /// before `order_type`/`limit_price` (the spec's table lists it after them; JSON members
    /// have no order, and the exact bytes sent are the ones signed), so `new` takes the number
    /// of contracts before the pricing.
    pub struct SponsorOrderRequest => SponsorOrderAck;
    meta = private_write(
        "swap.follow.sponsor_order",
        Method::Post,
        "/swap/v2/follow/sponsor_order",
    );
    /// Opens `order_num` contracts on `instrument_id` at `leverage`, in `margin_mode`, priced
    /// per `pricing` (quantity before price).
    new;
    fields {
        /// The instrument (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// 1 crossed or 2 isolated.
        req margin_mode: CopyMarginMode [known_code],
        /// 1 open long or 2 open short (wire `type`).
        req side: SponsorSide as "type",
        /// Leverage, positive (a JSON number).
        req leverage: Decimal [positive],
        /// Number of contracts, positive (a JSON number).
        req order_num: Size [positive],
        /// `order_type` (copy-trading numbering) and, for the priced types, `limit_price`.
        flat pricing: CopyPricing,
        /// Which price triggers the take-profit (`order_earn_trigger_price_type`).
        opt take_profit_trigger: TriggerPriceType as "order_earn_trigger_price_type" [known_code],
        /// Which price triggers the stop-loss (`order_loss_trigger_price_type`).
        opt stop_loss_trigger: TriggerPriceType as "order_loss_trigger_price_type" [known_code],
        /// Take-profit trigger price (`stop_earn_trigger_price`).
        opt take_profit_price: Price as "stop_earn_trigger_price" [positive],
        /// Stop-loss trigger price (`stop_loss_trigger_price`).
        opt stop_loss_price: Price as "stop_loss_trigger_price" [positive],
    }
}

impl SponsorOrderRequest {
    /// The pricing.
    pub fn pricing(&self) -> &CopyPricing {
        &self.pricing
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/follow/close_order`: closes a copy position opened by a sponsored order.
    ///
    /// Body: `{"open_order_id":".."}`.
    #[derive(Hash)]
    pub struct CloseCopyOrderRequest => CloseCopyOrderAck;
    meta = private_write(
        "swap.follow.close_order",
        Method::Post,
        "/swap/v2/follow/close_order",
    );
    /// Closes the position of order `open_order_id`.
    new;
    fields {
        /// The order that opened the position.
        req open_order_id: String [check_order_id],
    }
}

// ---------------------------------------------------------------------------------------------

/// The order id of [`CancelCopyOrderRequest`]: sent as `order_id`; read from `order_id` or from
/// the spec's spelling `order_i` (see the request's DESIGN note).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SponsoredOrderId(String);

impl SponsoredOrderId {
    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl IntoArg<SponsoredOrderId> for String {
    fn into_arg(self) -> SponsoredOrderId {
        SponsoredOrderId(self)
    }
}

impl IntoArg<SponsoredOrderId> for &str {
    fn into_arg(self) -> SponsoredOrderId {
        SponsoredOrderId(self.to_owned())
    }
}

impl IntoArg<SponsoredOrderId> for &String {
    fn into_arg(self) -> SponsoredOrderId {
        SponsoredOrderId(self.clone())
    }
}

/// Sent as text under its key; read from the key or its alias `order_i`, refusing both with
/// different values.
impl Param for SponsoredOrderId {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push(key, &self.0);
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.str(key, &self.0);
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        let id = p.take_opt_str(key)?;
        let alias = p.take_opt_str("order_i")?;
        match (id, alias) {
            (Some(a), Some(b)) if a != b => Err(Error::validation(
                "order_i",
                format!("{b:?} differs from {key} {a:?} (order_i is an alias of {key})"),
            )),
            (Some(a), _) | (None, Some(a)) => Ok(Some(SponsoredOrderId(a))),
            (None, None) => Ok(None),
        }
    }
    #[inline]
    fn describe(info: &mut crate::request::ParamInfo) {
        info.type_name("order id (also read as `order_i`)");
    }
}

/// A check: a sponsored order id is an order id.
fn check_sponsored_id(field: &'static str, id: &SponsoredOrderId) -> Result<(), Error> {
    check_order_id(field, &id.0)
}

request! {
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
    #[derive(Hash)]
    pub struct CancelCopyOrderRequest => CancelCopyOrderAck;
    meta = private_write(
        "swap.follow.cancel_order",
        Method::Post,
        "/swap/v2/follow/cancel_order",
    );
    /// Cancels sponsored order `order_id`.
    new;
    fields {
        /// The sponsored order (also read as `order_i`).
        req order_id: SponsoredOrderId [check_sponsored_id],
    }
}

// ---------------------------------------------------------------------------------------------

input_enum! {
    /// The `type` of `user_center_current`: one entry per copy order, or one per instrument.
    pub enum CopyCurrentView: code i64 {
        /// 1: detailed.
        Detailed = 1 "detailed",
        /// 2: summary.
        Summary = 2 "summary",
    }
}

request! {
    /// `POST /swap/v2/follow/user_center_current`: current copy positions.
    ///
    /// Body members, in this order, each when set: `page` (from 1, default 1), `size` (from 1,
    /// default 10), `instrument_id`; then `type` (1 detailed, 2 summary; required).
    pub struct CopyCurrentRequest => CopyPositions;
    meta = private_read(
        "swap.follow.user_center_current",
        Method::Post,
        "/swap/v2/follow/user_center_current",
    );
    /// The first page (10 entries) of every instrument, in `view`.
    new;
    fields {
        /// Page number, from 1.
        opt page: u32 [first_page, server_default(1)],
        /// Entries per page, from 1.
        opt size: u32 [page_size, server_default(10)],
        /// Only `instrument_id`.
        opt instrument_id: String [check_instrument],
        /// 1 detailed or 2 summary (wire `type`).
        req view: CopyCurrentView as "type",
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/follow/user_center_history`: closed copy positions.
    ///
    /// Body members, in this order, each when set: `page` (from 1, default 1), `size` (from 1,
    /// default 10), `instrument_id`; `{}` when none is set.
    pub struct CopyHistoryRequest => CopyHistory;
    meta = private_read(
        "swap.follow.user_center_history",
        Method::Post,
        "/swap/v2/follow/user_center_history",
    );
    /// The first page (10 entries) of every instrument.
    new;
    fields {
        /// Page number, from 1.
        opt page: u32 [first_page, server_default(1)],
        /// Entries per page, from 1.
        opt size: u32 [page_size, server_default(10)],
        /// Only `instrument_id`.
        opt instrument_id: String [check_instrument],
    }
}

request! {
    /// `POST /swap/v2/follow/expert_current_open_order`: the expert's open sponsored orders.
    ///
    /// Body members, in this order, each when set: `page` (from 1, default 1), `size` (from 1,
    /// default 10), `instrument_id`; `{}` when none is set.
    pub struct ExpertOpenOrdersRequest => ExpertOpenOrders;
    meta = private_read(
        "swap.follow.expert_current_open_order",
        Method::Post,
        "/swap/v2/follow/expert_current_open_order",
    );
    /// The first page (10 entries) of every instrument.
    new;
    fields {
        /// Page number, from 1.
        opt page: u32 [first_page, server_default(1)],
        /// Entries per page, from 1.
        opt size: u32 [page_size, server_default(10)],
        /// Only `instrument_id`.
        opt instrument_id: String [check_instrument],
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/follow/add_algo`: attaches take-profit and/or stop-loss orders to a copy
    /// order.
    ///
    /// Body members, in this order, each when set (the spec makes all optional): `order_id`,
    /// `profit_trigger_type` (1 index, 2 mark, 3 market price), `profit_trigger_price` (string),
    /// `stop_trigger_type`, `stop_trigger_price`.
    pub struct AddAlgoRequest => AlgoAdded;
    meta = private_write(
        "swap.follow.add_algo",
        Method::Post,
        "/swap/v2/follow/add_algo",
    );
    /// No member set.
    new;
    fields {
        /// The copy order.
        opt order_id: String [check_order_id],
        /// Which price triggers the take-profit.
        opt profit_trigger_type: TriggerPriceType [known_code],
        /// Take-profit trigger price.
        opt profit_trigger_price: Price [positive],
        /// Which price triggers the stop-loss.
        opt stop_trigger_type: TriggerPriceType [known_code],
        /// Stop-loss trigger price.
        opt stop_trigger_price: Price [positive],
    }
}

// ---------------------------------------------------------------------------------------------

/// A yes/no sent as the JSON number `1` or `0` (the `stop_profit` and `stop_loss` of
/// [`CancelAlgoRequest`]); read from `1`, `0`, `true` or `false`. A `bool` converts into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CancelAlgoFlag(pub bool);

impl IntoArg<CancelAlgoFlag> for bool {
    fn into_arg(self) -> CancelAlgoFlag {
        CancelAlgoFlag(self)
    }
}

/// `1`/`0` in a form or a JSON body (a number, not `true`/`false`).
impl Param for CancelAlgoFlag {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        OneOrZero(self.0).put(key, p)
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        OneOrZero(self.0).put_json(key, w)
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        Ok(OneOrZero::take(p, key)?.map(|f| CancelAlgoFlag(f.0)))
    }
    #[inline]
    fn describe(info: &mut crate::request::ParamInfo) {
        info.type_name("flag (1 or 0)");
        info.example("1");
    }
}

request! {
    /// `POST /swap/v2/follow/cancel_algo`: cancels the take-profit and/or stop-loss of a copy
    /// order.
    ///
    /// Body members, in this order, each when set: `order_id`, `stop_profit` (1 cancel the
    /// take-profit, 0 keep it), `stop_loss` (1 cancel the stop-loss, 0 keep it), as JSON numbers.
    pub struct CancelAlgoRequest => AlgoCancelled;
    meta = private_write(
        "swap.follow.cancel_algo",
        Method::Post,
        "/swap/v2/follow/cancel_algo",
    );
    /// No member set.
    new;
    fields {
        /// The copy order.
        opt order_id: String [check_order_id],
        /// Whether to cancel the take-profit (`stop_profit` 1) or keep it (0).
        opt cancel_take_profit: CancelAlgoFlag as "stop_profit",
        /// Whether to cancel the stop-loss (`stop_loss` 1) or keep it (0).
        opt cancel_stop_loss: CancelAlgoFlag as "stop_loss",
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/follow/account_available`: the balance available for copy trading.
    ///
    /// No parameters; the body is `{}`.
    pub struct CopyAvailableRequest => CopyAvailable;
    meta = private_read(
        "swap.follow.account_available",
        Method::Post,
        "/swap/v2/follow/account_available",
    );
    /// The request (it takes no parameters).
    new;
    fields {}
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/follow/plan_task`: plan commissions (take-profit and stop-loss plans).
    ///
    /// Body: `{"page":1,"size":10}`; both required, `page` 1..=50, `size` from 1.
    #[derive(Copy)]
    pub struct PlanTaskRequest => PlanTasks;
    meta = private_read(
        "swap.follow.plan_task",
        Method::Post,
        "/swap/v2/follow/plan_task",
    );
    /// Page `page` (1..=50) of `size` entries.
    new;
    fields {
        /// Page number, 1..=[`MAX_PLAN_TASK_PAGE`].
        req page: u32 [plan_page],
        /// Entries per page, from 1.
        req size: u32 [page_size],
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/follow/instrument_list`: the instruments available for copy trading.
    ///
    /// No parameters; the body is `{}`.
    pub struct CopyInstrumentsRequest => Vec<CopyInstrument>;
    meta = private_read(
        "swap.follow.instrument_list",
        Method::Post,
        "/swap/v2/follow/instrument_list",
    );
    /// The request (it takes no parameters).
    new;
    fields {}
}
