//! Swap account: balances, transfers with spot, positions, margin mode, position margin,
//! leverage, fee rates, bills, funding fees and transfer records (all signed).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{
    check_instrument, private_read, private_write, window, FinanceType, InstrumentType,
    MarginAdjustment, MarginMode, PositionSide, TransferRecordType, TransferType,
};
use crate::codes::str_enum;
use crate::endpoint::{Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;
use crate::money::Amount;
use crate::params::ParamMap;
use crate::request;
use crate::request::{example, positive, range, server_default, IntoArg, Param};
use crate::types::TimestampMillis;

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/account/transfer`: moves funds between the spot and swap accounts.
    pub struct TransferRequest => TransferAck;
    meta = private_write("swap.transfer", Method::Post, "/swap/v2/account/transfer");
    /// Transfers `amount` of `currency` in direction `transfer_type`.
    new;
    fields {
        /// Direction: spot to swap or swap to spot (wire name `type`, its code).
        req transfer_type: TransferType as "type",
        /// Currency (`USDT`).
        req currency: String [check_required],
        /// Amount to move, positive (wire name `transfer_amount`, a JSON string).
        req amount: Amount as "transfer_amount" [positive],
    }
}

/// Answer of [`TransferRequest`]: the echoed request.
///
/// DESIGN: every field is optional (the answer only echoes the request): a missing, placeholder
/// or unreadable value is `None`. An answer without `data` (`{"code":0}`) decodes to a
/// `TransferAck` whose fields are all `None`: the transfer was accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct TransferAck {
    /// Direction (wire name `type`; a code, or a word such as `spot_to_swap`).
    #[serde(rename = "type", default, with = "crate::de::opt")]
    pub transfer_type: Option<TransferType>,
    /// Currency.
    #[serde(default, with = "crate::de::opt_string")]
    pub currency: Option<String>,
    /// Amount transferred.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub transfer_amount: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

/// A check: a required text must not be empty (refused as missing, as when it is absent).
fn check_required(field: &'static str, value: &str) -> Result<(), Error> {
    if value.is_empty() {
        Err(Error::missing(field))
    } else {
        Ok(())
    }
}

/// A check: a currency filter is not empty and has no whitespace.
fn check_currency(field: &'static str, currency: &str) -> Result<(), Error> {
    if currency.is_empty() || currency.chars().any(char::is_whitespace) {
        Err(Error::validation(
            field,
            format!("{currency:?} is not a currency (e.g. USDT)"),
        ))
    } else {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/account/balance`: the swap account's balance per currency.
    pub struct BalanceRequest => Vec<Balance>;
    meta = private_read("swap.balance", Method::Get, "/swap/v2/account/balance");
    /// Balances of every currency of the default (real) account.
    new;
    fields {
        /// The simulated or the real account (`type` 1 or 2).
        opt instrument_type: InstrumentType as "type" [server_default(InstrumentType::Real)],
        /// Only `currency` (`USDT`); the server gives it priority over `type`.
        opt currency: String [check_currency],
    }
}

/// The balance of one currency (element of [`BalanceRequest`]'s answer).
///
/// DESIGN: only `currency` (the listing's key) is required. The amounts are `Option` (missing,
/// a placeholder or unreadable are `None`): isolated-mode values and the margin ratio are blank
/// for an account without positions, and a zero would claim a value the server did not send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Balance {
    /// Currency.
    #[serde(with = "crate::de::text")]
    pub currency: String,
    /// Equity, including unrealized profit and loss.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub equity: Option<Decimal>,
    /// Margin occupied by positions.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub margin: Option<Decimal>,
    /// Crossed-mode margin.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub cross_margin: Option<Decimal>,
    /// Isolated-mode margin.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub isolate_margin: Option<Decimal>,
    /// Isolated balance.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub isolate_balance: Option<Decimal>,
    /// Margin held by open orders.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub frozen_margin: Option<Decimal>,
    /// Fee held by open orders.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub frozen_money: Option<Decimal>,
    /// Margin ratio.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub margin_ratio: Option<Decimal>,
    /// Realized profit and loss.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub realized_pnl: Option<Decimal>,
    /// Available balance.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub avail_balance: Option<Decimal>,
    /// Unrealized profit and loss (crossed plus isolated).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_pnl: Option<Decimal>,
    /// Isolated unrealized profit and loss.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub isolate_unrealized_pnl: Option<Decimal>,
    /// Time of the figures (ms).
    #[serde(default, with = "crate::de::opt")]
    pub time_stamp: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/account/positions`: open positions.
    pub struct PositionsRequest => Vec<Position>;
    meta = private_read("swap.positions", Method::Get, "/swap/v2/account/positions");
    /// Every position of the default (real) account.
    new;
    fields {
        /// Positions of the simulated or the real account (`type` 1 or 2).
        opt instrument_type: InstrumentType as "type" [server_default(InstrumentType::Real)],
        /// Only positions in `instrument_id`; the server gives it priority over `type`.
        opt instrument_id: String [check_instrument],
    }
}

/// An open position (element of [`PositionsRequest`]'s answer).
///
/// DESIGN: only `instrument_id` (the listing's key) is required. Values are `Option` (missing,
/// a placeholder or unreadable are `None`): `posi_balance` exists in isolated mode only, and a
/// closing position may carry blanks. `side` and `margin_mode` are open enums (`cross`/`isolate`
/// are accepted for the margin modes; any other spelling is kept in the `Other` arm).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Position {
    /// Instrument id.
    #[serde(with = "crate::de::text")]
    pub instrument_id: String,
    /// Crossed or isolated.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<MarginMode>,
    /// Isolated position balance (isolated mode only).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub posi_balance: Option<Decimal>,
    /// Closable size.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub avail_position: Option<Decimal>,
    /// Average entry price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub avg_cost: Option<Decimal>,
    /// Last price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub last: Option<Decimal>,
    /// Mark price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub mark_price: Option<Decimal>,
    /// Leverage.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage: Option<Decimal>,
    /// Estimated liquidation price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub liquidation_price: Option<Decimal>,
    /// Maintenance margin ratio.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub maint_margin_ratio: Option<Decimal>,
    /// Margin.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub margin: Option<Decimal>,
    /// Position size.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub position: Option<Decimal>,
    /// Realized profit and loss.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub realized_pnl: Option<Decimal>,
    /// Unrealized profit and loss.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_pnl: Option<Decimal>,
    /// Unrealized profit and loss rate.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_pnl_rate: Option<Decimal>,
    /// Long or short.
    #[serde(default, with = "crate::de::opt")]
    pub side: Option<PositionSide>,
    /// Size of unfinished close orders.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub open_outstanding: Option<Decimal>,
    /// Auto-deleveraging risk, 0 to 1.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub risk_score: Option<Decimal>,
    /// Margin ratio.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub margin_ratio: Option<Decimal>,
    /// Time of the figures (ms).
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/account/position_mode`: switches an instrument between crossed and isolated
    /// margin. The server refuses while a position conflicts with the new mode.
    pub struct PositionModeRequest => PositionModeAck;
    meta = private_write(
        "swap.position_mode",
        Method::Post,
        "/swap/v2/account/position_mode",
    );
    /// Sets `instrument_id` to `margin_mode` (crossed or isolated).
    new;
    fields {
        /// Instrument id (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// The new mode: crossed or isolated.
        req margin_mode: MarginMode,
    }
}

/// Answer of [`PositionModeRequest`]: the echoed request.
///
/// DESIGN: every field is optional (the answer only echoes the request): a missing, placeholder
/// or unreadable value is `None`. An answer without `data` (`{"code":0}`) decodes to a
/// `PositionModeAck` whose fields are all `None`: the mode was set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct PositionModeAck {
    /// Instrument id.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// The mode now in force.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<MarginMode>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/account/position_margin`: adds margin to, or removes margin from, an isolated
    /// position. The server refuses in crossed mode (error 401015).
    pub struct PositionMarginRequest => PositionMarginAck;
    meta = private_write(
        "swap.position_margin",
        Method::Post,
        "/swap/v2/account/position_margin",
    );
    /// Adds (`MarginAdjustment::Add`) or removes (`Reduce`) `amount` of margin on the `side`
    /// (long or short) position in `instrument_id`.
    new;
    fields {
        /// Instrument id (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// The position: long or short.
        req side: PositionSide,
        /// Add or reduce (wire name `type`, its code).
        req adjustment: AdjustmentCode as "type",
        /// Margin to move, positive (a JSON string).
        req amount: Amount [positive],
    }
}

/// The `type` of a [`PositionMarginRequest`]: a [`MarginAdjustment`] sent as its code (`1` add,
/// `2` reduce). [`PositionMarginRequest::new`] takes the [`MarginAdjustment`] itself.
///
/// DESIGN: read from wire parameters (the catalog, the CLI) as a code only, so a word such as
/// `add` is refused on `type`, as this endpoint always did; the shared reading of coded values
/// would accept the word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdjustmentCode(pub MarginAdjustment);

impl IntoArg<AdjustmentCode> for MarginAdjustment {
    fn into_arg(self) -> AdjustmentCode {
        AdjustmentCode(self)
    }
}

/// Sent as the adjustment's code (an unknown value refused); read as a code only.
impl Param for AdjustmentCode {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        self.0.put(key, p)
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        self.0.put_json(key, w)
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        Ok(p.take_opt_int(key)?
            .map(|code| AdjustmentCode(MarginAdjustment::from_code(code))))
    }
    #[inline]
    fn describe(info: &mut crate::request::ParamInfo) {
        MarginAdjustment::describe(info);
    }
}

str_enum! {
    /// The `side` of a [`PositionMarginAck`]: the spec describes it as the position mode
    /// (crossed or isolated) although the request sends the position side (long or short), and a
    /// published answer echoes the side (`"long"`, ccxt/ccxt `ts/src/digifinex.ts`,
    /// `modifyMarginHelper`). Both readings are accepted; any other text is kept in `Other`.
    pub enum PositionMarginSide {
        /// The long position (the side sent).
        Long = "long",
        /// The short position (the side sent).
        Short = "short",
        /// Cross margin (the spec's reading).
        Crossed = "crossed" | "cross",
        /// Isolated margin (the spec's reading).
        Isolated = "isolated" | "isolate",
    }
}

/// Answer of [`PositionMarginRequest`].
///
/// DESIGN: every field is optional (the answer only echoes the request): a missing, placeholder
/// or unreadable value is `None`. An answer without `data` (`{"code":0}`) decodes to a
/// `PositionMarginAck` whose fields are all `None`: the margin was moved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct PositionMarginAck {
    /// Instrument id.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// The position side or the margin mode, whichever the server echoes (see
    /// [`PositionMarginSide`]).
    #[serde(default, with = "crate::de::opt")]
    pub side: Option<PositionMarginSide>,
    /// Add or reduce (wire name `type`; a code, or a word such as `add`).
    #[serde(rename = "type", default, with = "crate::de::opt")]
    pub adjustment: Option<MarginAdjustment>,
    /// Margin amount moved.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /swap/v2/account/leverage`: sets the leverage of an instrument.
    ///
    /// DESIGN: `side` (long or short) is only meaningful in isolated mode; a request that sets
    /// `margin_mode` to crossed and a `side` is refused (field `side`). Without a `margin_mode` the
    /// side is sent as given: the server knows the instrument's current mode. `leverage` is a JSON
    /// number, written from its exact decimal text.
    pub struct LeverageRequest => LeverageAck;
    meta = private_write("swap.leverage", Method::Post, "/swap/v2/account/leverage");
    /// Sets the leverage of `instrument_id` to `leverage` (positive).
    new;
    fields {
        /// Instrument id (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
        /// The leverage, positive (a JSON number).
        req leverage: Decimal [positive],
        /// The margin mode the leverage applies to.
        opt margin_mode: MarginMode [example(MarginMode::Isolated)],
        /// The position side (long or short) the leverage applies to; isolated mode only.
        opt side: PositionSide,
    }
    validate = check_leverage_side;
}

/// A `side` only with isolated margin: refused (field `side`) when `margin_mode` is crossed.
fn check_leverage_side(r: &LeverageRequest, _: &Params) -> Result<(), Error> {
    if r.side.is_some() && r.margin_mode == Some(MarginMode::Crossed) {
        Err(Error::validation(
            "side",
            "is only allowed with margin_mode isolated",
        ))
    } else {
        Ok(())
    }
}

/// Answer of [`LeverageRequest`].
///
/// DESIGN: every field is optional (the answer only echoes the request): a missing, placeholder
/// or unreadable value is `None`. An answer without `data` (`{"code":0}`) decodes to a
/// `LeverageAck` whose fields are all `None`: the leverage was set. `side` is an open enum: the
/// server answers `"both"` in crossed mode (docs/protocol.md; published answer in ccxt/ccxt
/// `ts/src/digifinex.ts`, `setLeverage`), kept as `PositionSide::Other("both")`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct LeverageAck {
    /// Instrument id.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Leverage now in force (a JSON number in published answers; a string is accepted).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage: Option<Decimal>,
    /// Margin mode it applies to.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<MarginMode>,
    /// Position side it applies to: long, short, or `Other("both")` in crossed mode.
    #[serde(default, with = "crate::de::opt")]
    pub side: Option<PositionSide>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/account/trading_fee_rate`: the account's fee rates for an instrument.
    pub struct TradingFeeRateRequest => TradingFee;
    meta = private_read(
        "swap.trading_fee_rate",
        Method::Get,
        "/swap/v2/account/trading_fee_rate",
    );
    /// Fee rates for `instrument_id`.
    new;
    fields {
        /// Instrument id (`BTCUSDTPERP`).
        req instrument_id: String [check_instrument],
    }
}

/// Answer of [`TradingFeeRateRequest`].
///
/// DESIGN: every field is optional (an object of several values, none of them an identity): a
/// missing, placeholder or unreadable value is `None`. An answer without `data` decodes to a
/// `TradingFee` whose fields are all `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct TradingFee {
    /// Instrument id (echo of the request).
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Taker fee rate (fraction: `0.0005` is 0.05 %).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub taker_fee_rate: Option<Decimal>,
    /// Maker fee rate (fraction; may be negative: a rebate).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub maker_fee_rate: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/account/finance_record`: the account's bills (transfers, trades, funding fees).
    pub struct FinanceRecordRequest => Vec<Bill>;
    meta = private_read(
        "swap.finance_record",
        Method::Get,
        "/swap/v2/account/finance_record",
    );
    /// The latest bills (default 20), all currencies and kinds.
    new;
    fields {
        /// Only bills in `currency`.
        opt currency: String [check_currency],
        /// Only bills of one kind.
        opt finance_type: FinanceType,
        /// Window start (ms).
        opt start_timestamp: TimestampMillis,
        /// Window end (ms); must be after the start.
        opt end_timestamp: TimestampMillis,
        /// Number of bills, 1..=100 (default 20).
        opt limit: u32 [range(1, 100), server_default(20)],
    }
    window = window(start_timestamp, end_timestamp);
}

/// One bill (element of [`FinanceRecordRequest`]'s answer).
///
/// DESIGN: a bill has no id and the listing has no key (one currency has many bills), so every
/// field is optional: a missing, placeholder or unreadable value is `None`, and one odd bill
/// never hides the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Bill {
    /// Currency.
    #[serde(default, with = "crate::de::opt_string")]
    pub currency: Option<String>,
    /// Kind of movement (open: a new code such as 17 is `Unknown(17)`, a word is read by name,
    /// such as `funding_fee`).
    #[serde(default, with = "crate::de::opt")]
    pub finance_type: Option<FinanceType>,
    /// Signed balance change.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub change: Option<Decimal>,
    /// Time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/account/funding_fee`: funding fees paid or received.
    pub struct FundingFeeRequest => Vec<FundingFee>;
    meta = private_read(
        "swap.funding_fee",
        Method::Get,
        "/swap/v2/account/funding_fee",
    );
    /// The latest funding fees (default 20), all instruments.
    new;
    fields {
        /// Only fees of `instrument_id`.
        opt instrument_id: String [check_instrument],
        /// Window start (ms).
        opt start_timestamp: TimestampMillis,
        /// Window end (ms); must be after the start.
        opt end_timestamp: TimestampMillis,
        /// Number of records, 1..=100 (default 20).
        opt limit: u32 [range(1, 100), server_default(20)],
    }
    window = window(start_timestamp, end_timestamp);
}

/// One funding fee record (element of [`FundingFeeRequest`]'s answer).
///
/// DESIGN: a funding fee has no id and the listing has no key (one instrument has a fee per
/// settlement), so every field is optional: a missing, placeholder or unreadable value is
/// `None`, and one odd record never hides the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct FundingFee {
    /// Instrument id.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// Currency.
    #[serde(default, with = "crate::de::opt_string")]
    pub currency: Option<String>,
    /// Signed amount (negative when paid).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
    /// Settlement time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampMillis>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /swap/v2/account/transfer_record`: transfers between the spot and swap accounts.
    pub struct TransferRecordRequest => Vec<TransferRecord>;
    meta = private_read(
        "swap.transfer_record",
        Method::Get,
        "/swap/v2/account/transfer_record",
    );
    /// The latest transfers (default 20), all currencies.
    new;
    fields {
        /// Only transfers of `currency`.
        opt currency: String [check_currency],
        /// Window start (ms).
        opt start_timestamp: TimestampMillis,
        /// Window end (ms); must be after the start.
        opt end_timestamp: TimestampMillis,
        /// Number of records, 1..=100 (default 20).
        opt limit: u32 [range(1, 100), server_default(20)],
    }
    window = window(start_timestamp, end_timestamp);
}

/// One transfer record (element of [`TransferRecordRequest`]'s answer).
///
/// DESIGN: only `transfer_id` (the transfer's identity) is required; every other field may be
/// missing, a placeholder or unreadable and is then `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct TransferRecord {
    /// Transfer id (a number on the wire; kept as text).
    #[serde(with = "crate::de::id")]
    pub transfer_id: String,
    /// In or out of the swap account (wire name `type`; a code, or a word such as
    /// `transfer_in`).
    #[serde(rename = "type", default, with = "crate::de::opt")]
    pub transfer_type: Option<TransferRecordType>,
    /// Currency.
    #[serde(default, with = "crate::de::opt_string")]
    pub currency: Option<String>,
    /// Amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
    /// Time (ms).
    #[serde(default, with = "crate::de::opt")]
    pub timestamp: Option<TimestampMillis>,
}
