//! Perpetual swap and copy trading, REST v2 (paths `/swap/v2/...` on the swap host,
//! default `https://openapi.digifinex.com`).
//!
//! One file per resource group:
//! * [`public`]: server time, route weights, instruments, depth, trades, tickers, candles,
//!   funding rates and their history;
//! * [`account`]: balances, transfers with spot, positions, margin mode, position margin,
//!   leverage, fee rates, bills, funding fees, transfer records;
//! * [`trade`]: placing and cancelling orders (single and batch), open, single and historical
//!   orders, fills;
//! * [`copy`]: copy trading (sponsor, close, cancel, copy positions, expert orders, TP/SL algos,
//!   plans, available balance, instruments).
//!
//! Protocol (see [`crate::build`]): GET parameters travel in the query string; POST parameters in
//! a JSON body (`application/json`), an object or, for the batch endpoints, an array, serialised
//! once and signed verbatim. Private requests are signed over
//! `timestamp_ms + METHOD + /swap/v2/path?query + body`. Responses are `{"code":0,"data":..}`;
//! each endpoint's output is the type of `data`.
//!
//! Numbers: the swap API sends most prices and sizes as strings, some as numbers; both decode
//! exactly, and an empty string is an absent value. Ids (orders, trades) are strings: they exceed
//! 2^53. Timestamps are milliseconds ([`TimestampMillis`]).
//!
//! Coded values are open enums: a value the library does not know decodes into the `Unknown` or
//! `Other` arm instead of failing. When such an enum is used in a request, an unknown value is
//! refused at build time with an error naming the field.

pub mod account;
pub mod copy;
pub mod public;
pub mod trade;

pub use account::*;
pub use copy::*;
pub use public::*;
pub use trade::*;

use crate::codes::int_enum;
use crate::codes::str_enum;
use crate::endpoint::{Family, Meta, Method};
use crate::error::Error;
use crate::types::TimestampMillis;

/// The description of a public (unsigned) swap GET endpoint.
pub(crate) const fn public_meta(name: &'static str, path: &'static str) -> Meta {
    Meta {
        name,
        family: Family::Swap,
        method: Method::Get,
        path,
        signed: false,
        idempotent: true,
        success_code: 0,
        weight: None,
    }
}

/// The description of a private (signed) swap endpoint that only reads: repeating it is harmless,
/// so the session retries it after a network or server failure, and a failure of it is an
/// ordinary error (never [`Error::OutcomeUnknown`]).
///
/// DESIGN: idempotency is declared per endpoint, never inferred from the method: the
/// copy-trading reads (`user_center_current`, `user_center_history`,
/// `expert_current_open_order`, `account_available`, `plan_task`, `instrument_list`) are POSTs
/// that change nothing (docs/protocol.md, "Copy-trading reads").
pub(crate) const fn private_read(name: &'static str, method: Method, path: &'static str) -> Meta {
    private(name, method, path, true)
}

/// The description of a private (signed) swap endpoint that changes state (places, cancels,
/// transfers, sets): never retried automatically; a failure after its bytes may have reached
/// the venue is [`Error::OutcomeUnknown`]. See [`private_read`].
pub(crate) const fn private_write(name: &'static str, method: Method, path: &'static str) -> Meta {
    private(name, method, path, false)
}

const fn private(name: &'static str, method: Method, path: &'static str, idempotent: bool) -> Meta {
    Meta {
        name,
        family: Family::Swap,
        method,
        path,
        signed: true,
        idempotent,
        success_code: 0,
        weight: None,
    }
}

// ---------------------------------------------------------------------------------------------
// Validation helpers

/// A check: a swap instrument id, upper-case letters and digits ending in `PERP` (see
/// [`instrument_form`]).
#[allow(non_upper_case_globals)]
pub(crate) const check_instrument: crate::request::Rule<str> = crate::request::Rule::new(
    instrument_form,
    "an instrument id: upper-case letters and digits ending in PERP",
)
.with_example("BTCUSDTPERP");

/// Checks a swap instrument id: upper-case ASCII letters and digits ending in `PERP` after at
/// least one of them (`BTCUSDTPERP`, the coin-margined `BTCPERP`, the simulated
/// `BTCUSDT2PERP`). A refused id that looks like a common spelling of one (`btc_usdt`,
/// `BTCUSDT`, `BTC-USDT-PERP`, `btcusdtperp`, `BTC/USDT:USDT`) gets a hint: `did you mean
/// BTCUSDTPERP?`.
///
/// DESIGN: a lower-case id is refused with the hint, not upper-cased: a request sends (and signs)
/// exactly what the caller gave, and the venue's answer to a lower-case id is not known (the venue
/// lists upper-case ids only: docs/protocol.md). The swap ids are checked before sending, as the
/// spot pairs are, so a typo costs no request weight and no `400002`.
fn instrument_form(field: &'static str, id: &str) -> Result<(), Error> {
    if is_instrument_id(id) {
        return Ok(());
    }
    let shown: String = id.chars().take(40).collect();
    Err(Error::validation(
        field,
        match instrument_hint(id) {
            Some(hint) => format!(
                "{shown:?} is not a swap instrument id: did you mean {hint}? (ids are upper-case \
                 letters and digits ending in PERP)"
            ),
            None => format!(
                "{shown:?} is not a swap instrument id (upper-case letters and digits ending in \
                 PERP, e.g. BTCUSDTPERP)"
            ),
        },
    ))
}

/// Whether `id` has the form of a swap instrument id (see [`instrument_form`]).
fn is_instrument_id(id: &str) -> bool {
    id.strip_suffix("PERP").is_some_and(|head| !head.is_empty())
        && id
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// The instrument id a mistyped `id` most likely means: the part before a `:` (ccxt's
/// `BTC/USDT:USDT`), its letters and digits upper-cased, a `SWAP` or `PERPETUAL` suffix read
/// as `PERP`, and `PERP` added when missing; `None` when that is not an id either.
fn instrument_hint(id: &str) -> Option<String> {
    let head = id.split(':').next().unwrap_or(id);
    let mut s: String = head
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    for suffix in ["PERPETUAL", "SWAP"] {
        if let Some(stem) = s.strip_suffix(suffix) {
            s = format!("{stem}PERP");
            break;
        }
    }
    if !s.ends_with("PERP") {
        s.push_str("PERP");
    }
    (is_instrument_id(&s) && s != id).then_some(s)
}

/// Checks an order id: not empty, no whitespace.
pub(crate) fn check_order_id(field: &'static str, id: &str) -> Result<(), Error> {
    if !id.is_empty() && !id.chars().any(char::is_whitespace) {
        Ok(())
    } else {
        Err(Error::validation(
            field,
            format!("{id:?} is not an order id"),
        ))
    }
}

/// The window rule of the swap listings, for `request!`'s `window =`: [`check_window`].
pub(crate) fn window(
    start: Option<TimestampMillis>,
    end: Option<TimestampMillis>,
    _: &crate::endpoint::Params,
) -> Result<(), Error> {
    check_window(start, end)
}

/// Checks a `start_timestamp`/`end_timestamp` pair: the end must be after the start.
pub(crate) fn check_window(
    start: Option<TimestampMillis>,
    end: Option<TimestampMillis>,
) -> Result<(), Error> {
    match (start, end) {
        (Some(s), Some(e)) if e <= s => Err(Error::validation(
            "end_timestamp",
            format!("{} must be after start_timestamp {}", e.0, s.0),
        )),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Coded values (the swap documents, "Enumerations")

int_enum! {
    /// Instrument type filter (`type` parameter of listings): 1 simulate, 2 real.
    pub enum InstrumentType {
        /// 1: simulated trading.
        Simulate = 1,
        /// 2: real trading (the default).
        Real = 2,
    }
}

str_enum! {
    /// Instrument `type` field: SIMULATE or REAL.
    pub enum InstrumentKind {
        /// Simulated trading.
        Simulate = "SIMULATE",
        /// Real trading.
        Real = "REAL",
    }
}

str_enum! {
    /// `contract_type`: PERPETUAL.
    pub enum ContractType {
        /// Perpetual contract.
        Perpetual = "PERPETUAL",
    }
}

str_enum! {
    /// Instrument `status`.
    pub enum InstrumentStatus {
        /// Listed and online.
        Online = "ONLINE",
        /// Offline.
        Offline = "OFFLINE",
        /// In delivery.
        Delivery = "DELIVERY",
    }
}

int_enum! {
    /// Order side/kind (`type` 1-4; also the trade `direction`, sent as a string).
    pub enum OrderSide {
        /// 1: open long.
        OpenLong = 1 | "open_long",
        /// 2: open short.
        OpenShort = 2 | "open_short",
        /// 3: close long.
        CloseLong = 3 | "close_long",
        /// 4: close short.
        CloseShort = 4 | "close_short",
    }
}

str_enum! {
    /// Margin mode as a string (`crossed` or `isolated`).
    ///
    /// Also read: `cross`, `isolate` (the plan-commission wording) and the copy-trading numbers
    /// `1` (crossed) and `2` (isolated), as a string or a JSON number.
    pub enum MarginMode {
        /// Cross margin.
        Crossed = "crossed" | "cross" | "1",
        /// Isolated margin.
        Isolated = "isolated" | "isolate" | "2",
    }
}

int_enum! {
    /// Margin mode as a number (copy trading): 1 crossed, 2 isolated.
    pub enum CopyMarginMode {
        /// 1: cross margin (`crossed`, `cross`).
        Crossed = 1 | "crossed" | "cross",
        /// 2: isolated margin (`isolated`, `isolate`).
        Isolated = 2 | "isolated" | "isolate",
    }
}

str_enum! {
    /// Position side: long or short.
    pub enum PositionSide {
        /// Long.
        Long = "long",
        /// Short.
        Short = "short",
    }
}

str_enum! {
    /// Candle granularity.
    pub enum Granularity {
        /// 1 minute.
        M1 = "1m",
        /// 5 minutes.
        M5 = "5m",
        /// 15 minutes.
        M15 = "15m",
        /// 30 minutes.
        M30 = "30m",
        /// 1 hour.
        H1 = "1h",
        /// 4 hours.
        H4 = "4h",
        /// 12 hours.
        H12 = "12h",
        /// 1 day.
        D1 = "1d",
        /// 1 week.
        W1 = "1w",
    }
}

int_enum! {
    /// `trade_type` of a fill.
    pub enum TradeType {
        /// 0: normal trade.
        Normal = 0,
        /// 1: forced close (liquidation).
        ForceClose = 1 | "force_close",
        /// 3: auto-deleveraging.
        Adl = 3 | "ADL",
    }
}

int_enum! {
    /// `match_role` of a fill.
    pub enum MatchRole {
        /// 0: not distinguished.
        NotDistinguished = 0 | "not_distinguished",
        /// 1: taker.
        Taker = 1,
        /// 2: maker.
        Maker = 2,
    }
}

int_enum! {
    /// `finance_type` of a bill.
    pub enum FinanceType {
        /// 1: transfer in.
        TransferIn = 1,
        /// 2: transfer out.
        TransferOut = 2,
        /// 3: open long.
        OpenLong = 3,
        /// 4: open short.
        OpenShort = 4,
        /// 5: close long.
        CloseLong = 5,
        /// 6: close short.
        CloseShort = 6,
        /// 9: ADL close short.
        AdlCloseShort = 9,
        /// 10: ADL close long.
        AdlCloseLong = 10,
        /// 15: funding fee.
        FundingFee = 15,
        /// 16: experience token.
        ExperienceToken = 16,
    }
}

int_enum! {
    /// Direction of `POST /swap/v2/account/transfer`.
    pub enum TransferType {
        /// 1: spot to swap.
        SpotToSwap = 1,
        /// 2: swap to spot.
        SwapToSpot = 2,
    }
}

int_enum! {
    /// `type` of a transfer record.
    pub enum TransferRecordType {
        /// 1: transfer in.
        TransferIn = 1,
        /// 2: transfer out.
        TransferOut = 2,
    }
}

int_enum! {
    /// Position margin adjustment `type`.
    pub enum MarginAdjustment {
        /// 1: add margin.
        Add = 1,
        /// 2: reduce margin.
        Reduce = 2,
    }
}

int_enum! {
    /// `order_type` code of the trade endpoints (swap spec code table); the table's names
    /// (`limit_price`, `IOC_opponent`, `IOC_Optimal_5`, ...) are read as words.
    pub enum OrderType {
        /// 0: limit price (`limit_price`).
        Limit = 0 | "limit_price",
        /// 1: IOC at the opponent's best price (`IOC_opponent`).
        IocOpponent = 1 | "IOC_opponent",
        /// 2: IOC at the optimal 5 levels (`IOC_Optimal_5`).
        IocOptimal5 = 2 | "IOC_Optimal_5",
        /// 3: IOC at the optimal 10 levels (`IOC_Optimal_10`).
        IocOptimal10 = 3 | "IOC_Optimal_10",
        /// 13: IOC at the optimal 20 levels (`IOC_Optimal_20`).
        IocOptimal20 = 13 | "IOC_Optimal_20",
        /// 4: IOC at a custom price (`IOC_custom_price`).
        IocCustomPrice = 4 | "IOC_custom_price",
        /// 6: GTC at the opponent's best price (`GTC_opponent`).
        GtcOpponent = 6 | "GTC_opponent",
        /// 7: GTC at the optimal 5 levels (`GTC_Optimal_5`).
        GtcOptimal5 = 7 | "GTC_Optimal_5",
        /// 8: GTC at the optimal 10 levels (`GTC_Optimal_10`).
        GtcOptimal10 = 8 | "GTC_Optimal_10",
        /// 14: GTC at the optimal 20 levels (`GTC_Optimal_20`).
        GtcOptimal20 = 14 | "GTC_Optimal_20",
        /// 10: FOK at the opponent's best price (`FOK_opponent`).
        FokOpponent = 10 | "FOK_opponent",
        /// 11: FOK at the optimal 5 levels (`FOK_Optimal_5`).
        FokOptimal5 = 11 | "FOK_Optimal_5",
        /// 12: FOK at the optimal 10 levels (`FOK_Optimal_10`).
        FokOptimal10 = 12 | "FOK_Optimal_10",
        /// 15: FOK at the optimal 20 levels (`FOK_Optimal_20`).
        FokOptimal20 = 15 | "FOK_Optimal_20",
        /// 9: FOK at a custom price (`FOK_custom_price`).
        FokCustomPrice = 9 | "FOK_custom_price",
    }
}

impl OrderType {
    /// Whether orders of this type carry a price (limit and custom-price types); the others are
    /// market-style and carry none.
    pub fn takes_price(self) -> bool {
        matches!(
            self,
            OrderType::Limit | OrderType::IocCustomPrice | OrderType::FokCustomPrice
        )
    }
}

int_enum! {
    /// Copy-trading `order_price_type`: a numbering different from [`OrderType`]; the spec's
    /// names (`opponent_ioc`, `optimal_5_ioc`, ...) are read as words.
    pub enum CopyOrderPriceType {
        /// 0: limit (`limit`).
        Limit = 0 | "limit",
        /// 1: opponent, IOC (`opponent_ioc`).
        OpponentIoc = 1 | "opponent_ioc",
        /// 2: optimal 5, IOC (`optimal_5_ioc`).
        Optimal5Ioc = 2 | "optimal_5_ioc",
        /// 3: optimal 10, IOC (`optimal_10_ioc`).
        Optimal10Ioc = 3 | "optimal_10_ioc",
        /// 4: IOC (`ioc`).
        Ioc = 4 | "ioc",
        /// 5: GTC (`gtc`).
        Gtc = 5 | "gtc",
        /// 6: opponent, GTC (`opponent_gtc`).
        OpponentGtc = 6 | "opponent_gtc",
        /// 7: optimal 5, GTC (`optimal_5_gtc`).
        Optimal5Gtc = 7 | "optimal_5_gtc",
        /// 8: optimal 10, GTC (`optimal_10_gtc`).
        Optimal10Gtc = 8 | "optimal_10_gtc",
        /// 9: FOK (`fok`).
        Fok = 9 | "fok",
        /// 10: opponent, FOK (`opponent_fok`).
        OpponentFok = 10 | "opponent_fok",
        /// 11: optimal 5, FOK (`optimal_5_fok`).
        Optimal5Fok = 11 | "optimal_5_fok",
        /// 12: optimal 10, FOK (`optimal_10_fok`).
        Optimal10Fok = 12 | "optimal_10_fok",
    }
}

int_enum! {
    /// Copy-trading trigger price type.
    pub enum TriggerPriceType {
        /// 1: index price (`index_price`).
        Index = 1 | "index_price",
        /// 2: mark price (`mark_price`).
        Mark = 2 | "mark_price",
        /// 3: market (last) price (`market_price`).
        Market = 3 | "market_price",
    }
}

int_enum! {
    /// Order `state`.
    pub enum OrderState {
        /// 0: open.
        Open = 0,
        /// 1: partly filled (`part_filled`).
        PartFilled = 1 | "part_filled",
        /// 2: filled.
        Filled = 2,
        /// -1: canceled.
        Canceled = -1,
    }
}

int_enum! {
    /// Close reason (`status`) of a historical copy position.
    pub enum CopyCloseReason {
        /// 1: auto close (`auto_close`).
        Auto = 1 | "auto_close",
        /// 2: manual close (`manual_close`).
        Manual = 2 | "manual_close",
        /// 3: forced close (`forced_close`).
        Forced = 3 | "forced_close",
        /// 4: stop-out close (`stop_out_close`).
        StopOut = 4 | "stop_out_close",
        /// 5: stop-loss close (`stop_loss_close`).
        StopLoss = 5 | "stop_loss_close",
    }
}

int_enum! {
    /// Status of an expert's open copy order.
    pub enum ExpertOrderStatus {
        /// -1: canceled.
        Canceled = -1,
        /// 0: open.
        Open = 0,
        /// 1: partly filled.
        PartFilled = 1,
        /// 2: filled.
        Filled = 2,
    }
}

int_enum! {
    /// Plan commission `status`.
    pub enum PlanStatus {
        /// 1: to be validated (`to_be_validated`).
        Pending = 1 | "to_be_validated",
        /// 2: validated.
        Validated = 2,
        /// 3: canceled.
        Canceled = 3,
        /// 4: failed (`fail`).
        Failed = 4 | "fail",
        /// 5: error.
        Error = 5,
    }
}

int_enum! {
    /// Plan commission `com_type`.
    pub enum PlanComType {
        /// 2: stop profit.
        StopProfit = 2,
        /// 3: stop loss.
        StopLoss = 3,
    }
}

int_enum! {
    /// Plan commission `trigger_cond`.
    pub enum TriggerCondition {
        /// 1: price rises to the trigger (`price-up`).
        PriceUp = 1 | "price_up",
        /// 2: price falls to the trigger (`price-down`).
        PriceDown = 2 | "price_down",
    }
}

int_enum! {
    /// Copy-trading `res` / `result`: 1 success, 2 fail.
    pub enum CopyResult {
        /// 1: success.
        Success = 1 | "success",
        /// 2: failure (`fail`).
        Fail = 2 | "fail",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_types_know_which_take_a_price() {
        assert!(OrderType::Limit.takes_price());
        assert!(OrderType::IocCustomPrice.takes_price());
        assert!(OrderType::FokCustomPrice.takes_price());
        assert!(!OrderType::IocOpponent.takes_price());
        assert!(!OrderType::GtcOptimal20.takes_price());
        assert_eq!(OrderType::from_code(13), OrderType::IocOptimal20);
        assert_eq!(OrderType::from_code(5), OrderType::Unknown(5));
        // The copy-trading numbering is a different type with different meanings.
        assert_eq!(CopyOrderPriceType::from_code(4), CopyOrderPriceType::Ioc);
        assert_eq!(OrderType::from_code(4), OrderType::IocCustomPrice);
    }

    #[test]
    fn string_enums_accept_variants() {
        assert_eq!(MarginMode::from_wire("crossed"), MarginMode::Crossed);
        assert_eq!(MarginMode::from_wire("ISOLATED"), MarginMode::Isolated);
        assert_eq!(
            MarginMode::from_wire("portfolio"),
            MarginMode::Other("portfolio".into())
        );
        assert_eq!(Granularity::from_wire("4h"), Granularity::H4);
        // Copy-trading numbering and the plan-commission wording.
        assert_eq!(MarginMode::from_wire("1"), MarginMode::Crossed);
        assert_eq!(MarginMode::from_wire("2"), MarginMode::Isolated);
        assert_eq!(MarginMode::from_wire("isolate"), MarginMode::Isolated);
        assert_eq!(MarginMode::from_wire("3"), MarginMode::Other("3".into()));
        let m: MarginMode = serde_json::from_str("1").unwrap();
        assert_eq!(m, MarginMode::Crossed);
    }

    #[test]
    fn int_enums_read_the_documented_names() {
        assert_eq!(OrderType::from_word("limit_price"), OrderType::Limit);
        assert_eq!(
            OrderType::from_word("IOC_Optimal_5"),
            OrderType::IocOptimal5
        );
        assert_eq!(
            OrderType::from_word("FOK_custom_price"),
            OrderType::FokCustomPrice
        );
        assert_eq!(
            CopyOrderPriceType::from_word("optimal_10_fok"),
            CopyOrderPriceType::Optimal10Fok
        );
        assert_eq!(
            TriggerPriceType::from_word("mark_price"),
            TriggerPriceType::Mark
        );
        assert_eq!(
            TriggerPriceType::from_word("Market Price"),
            TriggerPriceType::Market
        );
        assert_eq!(
            CopyMarginMode::from_word("isolate"),
            CopyMarginMode::Isolated
        );
        assert_eq!(
            CopyCloseReason::from_word("stop-out close"),
            CopyCloseReason::StopOut
        );
        assert_eq!(
            PlanStatus::from_word("to be validated"),
            PlanStatus::Pending
        );
        assert_eq!(TradeType::from_word("force close"), TradeType::ForceClose);
        assert_eq!(CopyResult::from_word("fail"), CopyResult::Fail);
        // Words stay open.
        assert_eq!(
            OrderType::from_word("trailing"),
            OrderType::Other("trailing".into())
        );
        // A word is never a code in a request.
        assert!(crate::request::known_code("order_type", &OrderType::Other("x".into())).is_err());
    }

    #[test]
    fn validation_helpers_name_the_field() {
        for ok in ["BTCUSDTPERP", "BTCPERP", "BTCUSDT2PERP", "1000SHIBUSDTPERP"] {
            assert!(check_instrument("instrument_id", ok).is_ok(), "{ok}");
        }
        assert!(check_instrument("instrument_id", "BTC USDT").is_err());
        assert!(check_instrument("instrument_id", "").is_err());
        assert!(check_window(Some(TimestampMillis(2)), Some(TimestampMillis(2))).is_err());
        assert!(check_window(Some(TimestampMillis(1)), Some(TimestampMillis(2))).is_ok());
        match crate::request::known_code("order_type", &OrderType::Unknown(5)) {
            Err(Error::Validation { field, .. }) => assert_eq!(field, "order_type"),
            other => panic!("{other:?}"),
        }
    }

    /// The exact message, naming the field, for each common typo of a swap instrument id.
    #[test]
    fn instrument_typos_are_refused_with_a_hint() {
        let message = |id: &str| match check_instrument("instrument_id", id) {
            Err(e @ Error::Validation { .. }) => e.to_string(),
            other => panic!("{id}: {other:?}"),
        };
        for (typo, hint) in [
            ("btc_usdt", "BTCUSDTPERP"),
            ("BTCUSDT", "BTCUSDTPERP"),
            ("BTC-USDT-PERP", "BTCUSDTPERP"),
            ("btcusdtperp", "BTCUSDTPERP"),
            ("BTC_USDT", "BTCUSDTPERP"),
            ("BTC-USDT-SWAP", "BTCUSDTPERP"),
            ("BTC/USDT:USDT", "BTCUSDTPERP"),
            ("btcusdt2perp", "BTCUSDT2PERP"),
            ("eth", "ETHPERP"),
        ] {
            assert_eq!(
                message(typo),
                format!(
                    "invalid `instrument_id`: {typo:?} is not a swap instrument id: did you mean \
                     {hint}? (ids are upper-case letters and digits ending in PERP)"
                )
            );
        }
        for hopeless in ["", "PERP", "-", "é"] {
            assert_eq!(
                message(hopeless),
                format!(
                    "invalid `instrument_id`: {hopeless:?} is not a swap instrument id \
                     (upper-case letters and digits ending in PERP, e.g. BTCUSDTPERP)"
                )
            );
        }
    }

    /// Every request field holding an instrument id refuses a typo before anything is built.
    #[test]
    fn requests_refuse_instrument_typos_on_the_field() {
        let now = TimestampMillis(1_700_000_000_000);
        let config = crate::Config::default();
        let e = crate::build(&DepthRequest::new("btc_usdt"), &config, None, now).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid `instrument_id`: \"btc_usdt\" is not a swap instrument id: did you mean \
             BTCUSDTPERP? (ids are upper-case letters and digits ending in PERP)"
        );
        let spec = OrderSpec::limit(
            "BTCUSDT",
            OrderSide::OpenLong,
            crate::Size::ONE,
            "1".parse::<crate::Price>().unwrap(),
        );
        let creds = crate::Credentials::new("k", "s");
        match crate::build(&PlaceOrderRequest::new(spec), &config, Some(&creds), now) {
            Err(Error::Validation { field, reason, .. }) => {
                assert_eq!(field, "instrument_id");
                assert!(reason.contains("did you mean BTCUSDTPERP?"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
}
