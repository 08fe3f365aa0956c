//! Swap account: balances, transfers with spot, positions, margin mode, position margin,
//! leverage, fee rates, bills, funding fees and transfer records (all signed).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::public::{known_instrument_type, known_text};
use super::{
    check_instrument, check_limit, check_positive, check_window, known_code, private_read,
    private_write, FinanceType, InstrumentType, MarginAdjustment, MarginMode, PositionSide,
    TransferRecordType, TransferType,
};
#[cfg(feature = "catalog")]
use crate::catalog::{entry, CatalogEntry};
use crate::endpoint::{Endpoint, Meta, Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;
use crate::params::{FromParams, ParamMap};
use crate::types::{str_enum, TimestampMillis};

/// Every swap account endpoint, in documentation order.
#[cfg(feature = "catalog")]
pub(crate) static ENTRIES: &[CatalogEntry] = &[
    entry::<BalanceRequest>(),
    entry::<TransferRequest>(),
    entry::<PositionsRequest>(),
    entry::<PositionModeRequest>(),
    entry::<PositionMarginRequest>(),
    entry::<LeverageRequest>(),
    entry::<TradingFeeRateRequest>(),
    entry::<FinanceRecordRequest>(),
    entry::<FundingFeeRequest>(),
    entry::<TransferRecordRequest>(),
];

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/account/transfer`: moves funds between the spot and swap accounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferRequest {
    transfer_type: TransferType,
    currency: String,
    amount: Decimal,
}

impl TransferRequest {
    /// Transfers `amount` of `currency` in direction `transfer_type`.
    pub fn new(transfer_type: TransferType, currency: impl Into<String>, amount: Decimal) -> Self {
        TransferRequest {
            transfer_type,
            currency: currency.into(),
            amount,
        }
    }
}

impl Endpoint for TransferRequest {
    type Output = TransferAck;
    const META: Meta = private_write("swap.transfer", Method::Post, "/swap/v2/account/transfer");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let kind = known_code("type", &self.transfer_type)?;
        if self.currency.is_empty() {
            return Err(Error::validation("currency", "is required"));
        }
        check_positive("transfer_amount", &self.amount)?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .int("type", kind)
            .str("currency", &self.currency)
            .decimal_string("transfer_amount", &self.amount)
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for TransferRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TransferRequest {
            transfer_type: TransferType::from_code(p.take_int("type")?),
            currency: p.take_str("currency")?,
            amount: p.take_decimal("transfer_amount")?,
        })
    }
}

/// Answer of [`TransferRequest`]: the echoed request.
///
/// DESIGN: every field is optional (the answer only echoes the request): a missing, placeholder
/// or unreadable value is `None`. An answer without `data` (`{"code":0}`) decodes to a
/// `TransferAck` whose fields are all `None`: the transfer was accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// Checks an optional currency filter: when given, not empty and without whitespace.
fn check_currency(currency: Option<&str>) -> Result<(), Error> {
    match currency {
        Some(c) if c.is_empty() || c.chars().any(char::is_whitespace) => Err(Error::validation(
            "currency",
            format!("{c:?} is not a currency (e.g. USDT)"),
        )),
        _ => Ok(()),
    }
}

/// Refuses the `Other` arm of a [`MarginMode`] (field `margin_mode`); returns the wire text.
fn known_margin_mode(m: &MarginMode) -> Result<&str, Error> {
    known_text("margin_mode", m.as_str(), matches!(m, MarginMode::Other(_)))
}

/// Refuses the `Other` arm of a [`PositionSide`] (field `side`): only long and short exist.
fn known_side(s: &PositionSide) -> Result<&str, Error> {
    known_text("side", s.as_str(), matches!(s, PositionSide::Other(_)))
}

// ---------------------------------------------------------------------------------------------

/// `GET /swap/v2/account/balance`: the swap account's balance per currency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BalanceRequest {
    instrument_type: Option<InstrumentType>,
    currency: Option<String>,
}

impl BalanceRequest {
    /// Balances of every currency of the default (real) account.
    pub fn new() -> Self {
        BalanceRequest::default()
    }
    /// The simulated or the real account (`type` 1 or 2).
    pub fn instrument_type(mut self, instrument_type: InstrumentType) -> Self {
        self.instrument_type = Some(instrument_type);
        self
    }
    /// Only `currency` (`USDT`); the server gives it priority over `type`.
    pub fn currency(mut self, currency: impl Into<String>) -> Self {
        self.currency = Some(currency.into());
        self
    }
}

impl Endpoint for BalanceRequest {
    type Output = Vec<Balance>;
    const META: Meta = private_read("swap.balance", Method::Get, "/swap/v2/account/balance");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let kind = known_instrument_type(self.instrument_type.as_ref())?;
        check_currency(self.currency.as_deref())?;
        p.push_opt_display("type", kind);
        p.push_opt("currency", self.currency.as_deref());
        Ok(())
    }
}

impl FromParams for BalanceRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(BalanceRequest {
            instrument_type: p.take_opt_int("type")?.map(InstrumentType::from_code),
            currency: p.take_opt_str("currency")?,
        })
    }
}

/// The balance of one currency (element of [`BalanceRequest`]'s answer).
///
/// DESIGN: only `currency` (the listing's key) is required. The amounts are `Option` (missing,
/// a placeholder or unreadable are `None`): isolated-mode values and the margin ratio are blank
/// for an account without positions, and a zero would claim a value the server did not send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `GET /swap/v2/account/positions`: open positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PositionsRequest {
    instrument_type: Option<InstrumentType>,
    instrument_id: Option<String>,
}

impl PositionsRequest {
    /// Every position of the default (real) account.
    pub fn new() -> Self {
        PositionsRequest::default()
    }
    /// Positions of the simulated or the real account (`type` 1 or 2).
    pub fn instrument_type(mut self, instrument_type: InstrumentType) -> Self {
        self.instrument_type = Some(instrument_type);
        self
    }
    /// Only positions in `instrument_id`; the server gives it priority over `type`.
    pub fn instrument_id(mut self, instrument_id: impl Into<String>) -> Self {
        self.instrument_id = Some(instrument_id.into());
        self
    }
}

impl Endpoint for PositionsRequest {
    type Output = Vec<Position>;
    const META: Meta = private_read("swap.positions", Method::Get, "/swap/v2/account/positions");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let kind = known_instrument_type(self.instrument_type.as_ref())?;
        if let Some(id) = &self.instrument_id {
            check_instrument("instrument_id", id)?;
        }
        p.push_opt_display("type", kind);
        p.push_opt("instrument_id", self.instrument_id.as_deref());
        Ok(())
    }
}

impl FromParams for PositionsRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(PositionsRequest {
            instrument_type: p.take_opt_int("type")?.map(InstrumentType::from_code),
            instrument_id: p.take_opt_str("instrument_id")?,
        })
    }
}

/// An open position (element of [`PositionsRequest`]'s answer).
///
/// DESIGN: only `instrument_id` (the listing's key) is required. Values are `Option` (missing,
/// a placeholder or unreadable are `None`): `posi_balance` exists in isolated mode only, and a
/// closing position may carry blanks. `side` and `margin_mode` are open enums (`cross`/`isolate`
/// are accepted for the margin modes; any other spelling is kept in the `Other` arm).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `POST /swap/v2/account/position_mode`: switches an instrument between crossed and isolated
/// margin. The server refuses while a position conflicts with the new mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionModeRequest {
    instrument_id: String,
    margin_mode: MarginMode,
}

impl PositionModeRequest {
    /// Sets `instrument_id` to `margin_mode` (crossed or isolated).
    pub fn new(instrument_id: impl Into<String>, margin_mode: MarginMode) -> Self {
        PositionModeRequest {
            instrument_id: instrument_id.into(),
            margin_mode,
        }
    }
}

impl Endpoint for PositionModeRequest {
    type Output = PositionModeAck;
    const META: Meta = private_write(
        "swap.position_mode",
        Method::Post,
        "/swap/v2/account/position_mode",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        let mode = known_margin_mode(&self.margin_mode)?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .str("instrument_id", &self.instrument_id)
            .str("margin_mode", mode)
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for PositionModeRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(PositionModeRequest {
            instrument_id: p.take_str("instrument_id")?,
            margin_mode: MarginMode::from_wire(&p.take_str("margin_mode")?),
        })
    }
}

/// Answer of [`PositionModeRequest`]: the echoed request.
///
/// DESIGN: every field is optional (the answer only echoes the request): a missing, placeholder
/// or unreadable value is `None`. An answer without `data` (`{"code":0}`) decodes to a
/// `PositionModeAck` whose fields are all `None`: the mode was set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionModeAck {
    /// Instrument id.
    #[serde(default, with = "crate::de::opt_string")]
    pub instrument_id: Option<String>,
    /// The mode now in force.
    #[serde(default, with = "crate::de::opt")]
    pub margin_mode: Option<MarginMode>,
}

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/account/position_margin`: adds margin to, or removes margin from, an isolated
/// position. The server refuses in crossed mode (error 401015).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionMarginRequest {
    instrument_id: String,
    side: PositionSide,
    adjustment: MarginAdjustment,
    amount: Decimal,
}

impl PositionMarginRequest {
    /// Adds (`MarginAdjustment::Add`) or removes (`Reduce`) `amount` of margin on the `side`
    /// (long or short) position in `instrument_id`.
    pub fn new(
        instrument_id: impl Into<String>,
        side: PositionSide,
        adjustment: MarginAdjustment,
        amount: Decimal,
    ) -> Self {
        PositionMarginRequest {
            instrument_id: instrument_id.into(),
            side,
            adjustment,
            amount,
        }
    }
}

impl Endpoint for PositionMarginRequest {
    type Output = PositionMarginAck;
    const META: Meta = private_write(
        "swap.position_margin",
        Method::Post,
        "/swap/v2/account/position_margin",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        let side = known_side(&self.side)?;
        let kind = known_code("type", &self.adjustment)?;
        check_positive("amount", &self.amount)?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .str("instrument_id", &self.instrument_id)
            .str("side", side)
            .int("type", kind)
            .decimal_string("amount", &self.amount)
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for PositionMarginRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(PositionMarginRequest {
            instrument_id: p.take_str("instrument_id")?,
            side: PositionSide::from_wire(&p.take_str("side")?),
            adjustment: MarginAdjustment::from_code(p.take_int("type")?),
            amount: p.take_decimal("amount")?,
        })
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `POST /swap/v2/account/leverage`: sets the leverage of an instrument.
///
/// DESIGN: `side` (long or short) is only meaningful in isolated mode; a request that sets
/// `margin_mode` to crossed and a `side` is refused (field `side`). Without a `margin_mode` the
/// side is sent as given: the server knows the instrument's current mode. `leverage` is a JSON
/// number, written from its exact decimal text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeverageRequest {
    instrument_id: String,
    leverage: Decimal,
    margin_mode: Option<MarginMode>,
    side: Option<PositionSide>,
}

impl LeverageRequest {
    /// Sets the leverage of `instrument_id` to `leverage` (positive).
    pub fn new(instrument_id: impl Into<String>, leverage: Decimal) -> Self {
        LeverageRequest {
            instrument_id: instrument_id.into(),
            leverage,
            margin_mode: None,
            side: None,
        }
    }
    /// The margin mode the leverage applies to.
    pub fn margin_mode(mut self, margin_mode: MarginMode) -> Self {
        self.margin_mode = Some(margin_mode);
        self
    }
    /// The position side (long or short) the leverage applies to; isolated mode only.
    pub fn side(mut self, side: PositionSide) -> Self {
        self.side = Some(side);
        self
    }
}

impl Endpoint for LeverageRequest {
    type Output = LeverageAck;
    const META: Meta = private_write("swap.leverage", Method::Post, "/swap/v2/account/leverage");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        check_positive("leverage", &self.leverage)?;
        let mode = self
            .margin_mode
            .as_ref()
            .map(known_margin_mode)
            .transpose()?;
        let side = self.side.as_ref().map(known_side).transpose()?;
        if side.is_some() && self.margin_mode == Some(MarginMode::Crossed) {
            return Err(Error::validation(
                "side",
                "is only allowed with margin_mode isolated",
            ));
        }
        let mut w = JsonWriter::new();
        w.begin_object()
            .str("instrument_id", &self.instrument_id)
            .decimal_number("leverage", &self.leverage)
            .opt_str("margin_mode", mode)
            .opt_str("side", side)
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for LeverageRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(LeverageRequest {
            instrument_id: p.take_str("instrument_id")?,
            leverage: p.take_decimal("leverage")?,
            margin_mode: p
                .take_opt_str("margin_mode")?
                .map(|m| MarginMode::from_wire(&m)),
            side: p.take_opt_str("side")?.map(|s| PositionSide::from_wire(&s)),
        })
    }
}

/// Answer of [`LeverageRequest`].
///
/// DESIGN: every field is optional (the answer only echoes the request): a missing, placeholder
/// or unreadable value is `None`. An answer without `data` (`{"code":0}`) decodes to a
/// `LeverageAck` whose fields are all `None`: the leverage was set. `side` is an open enum: the
/// server answers `"both"` in crossed mode (venue-notes.md; published answer in ccxt/ccxt
/// `ts/src/digifinex.ts`, `setLeverage`), kept as `PositionSide::Other("both")`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `GET /swap/v2/account/trading_fee_rate`: the account's fee rates for an instrument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradingFeeRateRequest {
    instrument_id: String,
}

impl TradingFeeRateRequest {
    /// Fee rates for `instrument_id`.
    pub fn new(instrument_id: impl Into<String>) -> Self {
        TradingFeeRateRequest {
            instrument_id: instrument_id.into(),
        }
    }
}

impl Endpoint for TradingFeeRateRequest {
    type Output = TradingFee;
    const META: Meta = private_read(
        "swap.trading_fee_rate",
        Method::Get,
        "/swap/v2/account/trading_fee_rate",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_instrument("instrument_id", &self.instrument_id)?;
        p.push("instrument_id", &self.instrument_id);
        Ok(())
    }
}

impl FromParams for TradingFeeRateRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TradingFeeRateRequest {
            instrument_id: p.take_str("instrument_id")?,
        })
    }
}

/// Answer of [`TradingFeeRateRequest`].
///
/// DESIGN: every field is optional (an object of several values, none of them an identity): a
/// missing, placeholder or unreadable value is `None`. An answer without `data` decodes to a
/// `TradingFee` whose fields are all `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `GET /swap/v2/account/finance_record`: the account's bills (transfers, trades, funding fees).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FinanceRecordRequest {
    currency: Option<String>,
    finance_type: Option<FinanceType>,
    start_timestamp: Option<TimestampMillis>,
    end_timestamp: Option<TimestampMillis>,
    limit: Option<u32>,
}

impl FinanceRecordRequest {
    /// The latest bills (default 20), all currencies and kinds.
    pub fn new() -> Self {
        FinanceRecordRequest::default()
    }
    /// Only bills in `currency`.
    pub fn currency(mut self, currency: impl Into<String>) -> Self {
        self.currency = Some(currency.into());
        self
    }
    /// Only bills of one kind.
    pub fn finance_type(mut self, finance_type: FinanceType) -> Self {
        self.finance_type = Some(finance_type);
        self
    }
    /// Window start (ms).
    pub fn start_timestamp(mut self, start: TimestampMillis) -> Self {
        self.start_timestamp = Some(start);
        self
    }
    /// Window end (ms); must be after the start.
    pub fn end_timestamp(mut self, end: TimestampMillis) -> Self {
        self.end_timestamp = Some(end);
        self
    }
    /// Number of bills, 1..=100 (default 20).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for FinanceRecordRequest {
    type Output = Vec<Bill>;
    const META: Meta = private_read(
        "swap.finance_record",
        Method::Get,
        "/swap/v2/account/finance_record",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_currency(self.currency.as_deref())?;
        let kind = self
            .finance_type
            .as_ref()
            .map(|t| known_code("finance_type", t))
            .transpose()?;
        check_window(self.start_timestamp, self.end_timestamp)?;
        check_limit(self.limit)?;
        p.push_opt("currency", self.currency.as_deref());
        p.push_opt_display("finance_type", kind);
        p.push_opt_display("start_timestamp", self.start_timestamp.map(|t| t.0));
        p.push_opt_display("end_timestamp", self.end_timestamp.map(|t| t.0));
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for FinanceRecordRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(FinanceRecordRequest {
            currency: p.take_opt_str("currency")?,
            finance_type: p.take_opt_int("finance_type")?.map(FinanceType::from_code),
            start_timestamp: p.take_opt_int("start_timestamp")?.map(TimestampMillis),
            end_timestamp: p.take_opt_int("end_timestamp")?.map(TimestampMillis),
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// One bill (element of [`FinanceRecordRequest`]'s answer).
///
/// DESIGN: a bill has no id and the listing has no key (one currency has many bills), so every
/// field is optional: a missing, placeholder or unreadable value is `None`, and one odd bill
/// never hides the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `GET /swap/v2/account/funding_fee`: funding fees paid or received.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FundingFeeRequest {
    instrument_id: Option<String>,
    start_timestamp: Option<TimestampMillis>,
    end_timestamp: Option<TimestampMillis>,
    limit: Option<u32>,
}

impl FundingFeeRequest {
    /// The latest funding fees (default 20), all instruments.
    pub fn new() -> Self {
        FundingFeeRequest::default()
    }
    /// Only fees of `instrument_id`.
    pub fn instrument_id(mut self, instrument_id: impl Into<String>) -> Self {
        self.instrument_id = Some(instrument_id.into());
        self
    }
    /// Window start (ms).
    pub fn start_timestamp(mut self, start: TimestampMillis) -> Self {
        self.start_timestamp = Some(start);
        self
    }
    /// Window end (ms); must be after the start.
    pub fn end_timestamp(mut self, end: TimestampMillis) -> Self {
        self.end_timestamp = Some(end);
        self
    }
    /// Number of records, 1..=100 (default 20).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for FundingFeeRequest {
    type Output = Vec<FundingFee>;
    const META: Meta = private_read(
        "swap.funding_fee",
        Method::Get,
        "/swap/v2/account/funding_fee",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        if let Some(id) = &self.instrument_id {
            check_instrument("instrument_id", id)?;
        }
        check_window(self.start_timestamp, self.end_timestamp)?;
        check_limit(self.limit)?;
        p.push_opt("instrument_id", self.instrument_id.as_deref());
        p.push_opt_display("start_timestamp", self.start_timestamp.map(|t| t.0));
        p.push_opt_display("end_timestamp", self.end_timestamp.map(|t| t.0));
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for FundingFeeRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(FundingFeeRequest {
            instrument_id: p.take_opt_str("instrument_id")?,
            start_timestamp: p.take_opt_int("start_timestamp")?.map(TimestampMillis),
            end_timestamp: p.take_opt_int("end_timestamp")?.map(TimestampMillis),
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// One funding fee record (element of [`FundingFeeRequest`]'s answer).
///
/// DESIGN: a funding fee has no id and the listing has no key (one instrument has a fee per
/// settlement), so every field is optional: a missing, placeholder or unreadable value is
/// `None`, and one odd record never hides the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `GET /swap/v2/account/transfer_record`: transfers between the spot and swap accounts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransferRecordRequest {
    currency: Option<String>,
    start_timestamp: Option<TimestampMillis>,
    end_timestamp: Option<TimestampMillis>,
    limit: Option<u32>,
}

impl TransferRecordRequest {
    /// The latest transfers (default 20), all currencies.
    pub fn new() -> Self {
        TransferRecordRequest::default()
    }
    /// Only transfers of `currency`.
    pub fn currency(mut self, currency: impl Into<String>) -> Self {
        self.currency = Some(currency.into());
        self
    }
    /// Window start (ms).
    pub fn start_timestamp(mut self, start: TimestampMillis) -> Self {
        self.start_timestamp = Some(start);
        self
    }
    /// Window end (ms); must be after the start.
    pub fn end_timestamp(mut self, end: TimestampMillis) -> Self {
        self.end_timestamp = Some(end);
        self
    }
    /// Number of records, 1..=100 (default 20).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Endpoint for TransferRecordRequest {
    type Output = Vec<TransferRecord>;
    const META: Meta = private_read(
        "swap.transfer_record",
        Method::Get,
        "/swap/v2/account/transfer_record",
    );
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_currency(self.currency.as_deref())?;
        check_window(self.start_timestamp, self.end_timestamp)?;
        check_limit(self.limit)?;
        p.push_opt("currency", self.currency.as_deref());
        p.push_opt_display("start_timestamp", self.start_timestamp.map(|t| t.0));
        p.push_opt_display("end_timestamp", self.end_timestamp.map(|t| t.0));
        p.push_opt_display("limit", self.limit);
        Ok(())
    }
}

impl FromParams for TransferRecordRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TransferRecordRequest {
            currency: p.take_opt_str("currency")?,
            start_timestamp: p.take_opt_int("start_timestamp")?.map(TimestampMillis),
            end_timestamp: p.take_opt_int("end_timestamp")?.map(TimestampMillis),
            limit: p.take_opt_int("limit")?,
        })
    }
}

/// One transfer record (element of [`TransferRecordRequest`]'s answer).
///
/// DESIGN: only `transfer_id` (the transfer's identity) is required; every other field may be
/// missing, a placeholder or unreadable and is then `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
