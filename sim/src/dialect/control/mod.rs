//! The control API: what tests, the CLI and users call to set the simulator up and inspect it:
//! the operations ([`desk`]), their values, and the same operations over HTTP under `/__sim/`
//! ([`http`]), a prefix the real API never uses. The Rust handle is [`crate::Control`].

pub(crate) mod desk;
pub mod http;

use crate::engine::accounts::{AccountId, AccountType, Balance, Permissions};
use crate::engine::spot::engine::Order;
use rust_decimal::Decimal;
use std::net::IpAddr;

/// Options of a new API key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyOptions {
    /// Permissions (read and trade by default).
    pub permissions: Permissions,
    /// Allowed caller IPs; empty allows any.
    pub ip_whitelist: Vec<IpAddr>,
    /// Expiry time (simulator clock, ms); `None` never expires.
    pub expires_at_ms: Option<i64>,
}

impl KeyOptions {
    /// Read, trade and withdraw permissions, no IP restriction, no expiry.
    pub fn all() -> KeyOptions {
        KeyOptions {
            permissions: Permissions {
                read: true,
                trade: true,
                withdraw: true,
            },
            ..KeyOptions::default()
        }
    }
}

/// A created key pair.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKeyPair {
    /// Access key (`ACCESS-KEY`).
    pub key: String,
    /// Secret key (HMAC key).
    pub secret: String,
}

impl std::fmt::Debug for ApiKeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKeyPair")
            .field("key", &self.key)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// A funded account with a key holding every permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoAccount {
    /// Account id.
    pub account: AccountId,
    /// Its key pair.
    pub keys: ApiKeyPair,
}

/// One balance row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceView {
    /// Account type.
    pub account_type: AccountType,
    /// Currency.
    pub currency: String,
    /// Free and frozen amounts.
    pub balance: Balance,
}

/// An order as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderView {
    /// Order id.
    pub order_id: String,
    /// Pair.
    pub symbol: String,
    /// `spot` or `margin`.
    pub kind: &'static str,
    /// `buy`, `sell`, `buy_market`, `sell_market`.
    pub order_type: &'static str,
    /// Limit price (0 for market).
    pub price: Decimal,
    /// Base amount.
    pub amount: Decimal,
    /// Quote amount of a market buy.
    pub cash_amount: Decimal,
    /// Executed base amount.
    pub executed_amount: Decimal,
    /// Status code (0-4).
    pub status: u8,
    /// Creation time (ms).
    pub created_ms: i64,
}

impl OrderView {
    pub(crate) fn of(o: &Order) -> OrderView {
        OrderView {
            order_id: o.id.clone(),
            symbol: o.symbol.clone(),
            kind: o.kind.name(),
            order_type: o.type_text(),
            price: o.price,
            amount: o.amount,
            cash_amount: o.cash_amount,
            executed_amount: o.executed,
            status: o.status,
            created_ms: o.created_ms,
        }
    }
}

/// One funding settlement of an account's swap position ([`crate::Control::funding_fees`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FundingView {
    /// Instrument id (`BTCUSDTPERP`).
    pub instrument_id: String,
    /// The amount credited to the swap wallet (negative: paid), in the instrument's quote
    /// currency.
    pub amount: Decimal,
    /// The settlement time (ms).
    pub time_ms: i64,
}

/// One fill of an account's order, spot or swap, as the control API reports it
/// ([`crate::Control::fills`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillView {
    /// `spot`, `margin` or `swap`.
    pub kind: &'static str,
    /// Pair (`btc_usdt`) or instrument (`BTCUSDTPERP`).
    pub market: String,
    /// Trade id (increasing within a kind).
    pub trade_id: u64,
    /// Order id.
    pub order_id: String,
    /// Time (ms).
    pub time_ms: i64,
    /// Whether the account bought (spot), or opened long / closed short (swap).
    pub buy: bool,
    /// Swap only: whether the fill opened (else closed) a position.
    pub open: bool,
    /// Price.
    pub price: Decimal,
    /// Base amount (spot) or contracts (swap).
    pub amount: Decimal,
    /// Fee charged (negative: a rebate).
    pub fee: Decimal,
    /// The fee's currency.
    pub fee_currency: String,
    /// Whether the order was the maker.
    pub maker: bool,
    /// Swap only: the profit the fill realized when it closed a position (0 otherwise).
    pub realized: Decimal,
}

/// A swap order as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapOrderView {
    /// Order id.
    pub order_id: String,
    /// Instrument id.
    pub instrument_id: String,
    /// 1 open long, 2 open short, 3 close long, 4 close short.
    pub kind: i64,
    /// `order_type` code.
    pub order_type: i64,
    /// Price (market-style types: the worst price they could reach).
    pub price: Decimal,
    /// Size in contracts.
    pub size: Decimal,
    /// Filled contracts.
    pub filled: Decimal,
    /// State: 0 open, 1 part filled, 2 filled, -1 cancelled.
    pub state: i64,
    /// `crossed` or `isolated`.
    pub margin_mode: &'static str,
    /// Placed through copy trading.
    pub copy: bool,
    /// Creation time (ms).
    pub created_ms: i64,
}

/// A swap position as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapPositionView {
    /// Instrument id.
    pub instrument_id: String,
    /// `long` or `short`.
    pub side: &'static str,
    /// `crossed` or `isolated`.
    pub margin_mode: &'static str,
    /// Contracts.
    pub size: Decimal,
    /// Average entry price.
    pub avg_cost: Decimal,
    /// Margin locked.
    pub margin: Decimal,
    /// Leverage.
    pub leverage: Decimal,
}

/// A withdrawal as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithdrawalView {
    /// Id.
    pub id: u64,
    /// Currency.
    pub currency: String,
    /// Chain.
    pub chain: String,
    /// Amount (fee included).
    pub amount: Decimal,
    /// Fee.
    pub fee: Decimal,
    /// Address.
    pub address: String,
    /// State 1-4.
    pub state: u8,
}

/// Control API errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ControlError {
    /// No such account.
    #[error("unknown account {0}")]
    UnknownAccount(AccountId),
    /// No such deposit, withdrawal or other record.
    #[error("{0} {1} not found")]
    NotFound(&'static str, u64),
    /// The state change is not allowed from the record's current state.
    #[error("state transition not allowed")]
    InvalidTransition,
    /// The account is under an API trading ban (no new keys).
    #[error("API trading banned: no new API keys until the ban ends")]
    ApiTradingBanned,
    /// A parameter is invalid.
    #[error("invalid parameter: {0}")]
    Invalid(String),
}

/// Largest amount the control API puts into a balance or a deposit (10^15): far above any
/// real balance, and small enough that the engines' products (amount times price, price up to
/// 10^12) stay within `Decimal`'s range.
///
/// DESIGN: the notes leave control input open; a value past this is refused with a message
/// naming the field instead of overflowing later in a handler.
pub const MAX_CONTROL_AMOUNT: Decimal = Decimal::from_parts(2_764_472_320, 232_830, 0, false, 0);

/// Largest mark or index price the control API sets (10^12).
pub const MAX_SWAP_PRICE: Decimal = Decimal::from_parts(3_567_587_328, 232, 0, false, 0);

pub(crate) fn clock_err(e: crate::clock::OutOfRange) -> ControlError {
    ControlError::Invalid(e.to_string())
}

/// A free balance the control API may set: `0..=MAX_CONTROL_AMOUNT`, free plus frozen within it.
pub(crate) fn check_balance(free: Decimal, frozen: Decimal) -> Result<(), ControlError> {
    if free < Decimal::ZERO {
        return Err(ControlError::Invalid(
            "the free balance would become negative".to_owned(),
        ));
    }
    match free.checked_add(frozen) {
        Some(total) if total <= MAX_CONTROL_AMOUNT => Ok(()),
        _ => Err(ControlError::Invalid(format!(
            "the balance (free plus frozen) would exceed {MAX_CONTROL_AMOUNT}"
        ))),
    }
}

/// A book as [`crate::Control::book`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookView {
    /// Bids, best (highest) first: (price, quantity).
    pub bids: Vec<(Decimal, Decimal)>,
    /// Asks, best (lowest) first.
    pub asks: Vec<(Decimal, Decimal)>,
}

/// A public trade as [`crate::Control::trades`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradeView {
    /// Trade id (REST's and the websockets').
    pub id: u64,
    /// Time (ms).
    pub time_ms: i64,
    /// Price.
    pub price: Decimal,
    /// Quantity (spot base, swap contracts).
    pub qty: Decimal,
    /// Whether the taker bought.
    pub buy: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_powers_of_ten() {
        assert_eq!(MAX_CONTROL_AMOUNT, Decimal::from(1_000_000_000_000_000i64));
        assert_eq!(MAX_SWAP_PRICE, Decimal::from(1_000_000_000_000i64));
    }

    #[test]
    fn balance_checks() {
        assert!(check_balance(MAX_CONTROL_AMOUNT, Decimal::ZERO).is_ok());
        assert!(check_balance(MAX_CONTROL_AMOUNT, Decimal::ONE).is_err());
        assert!(check_balance(-Decimal::ONE, Decimal::ZERO).is_err());
        assert!(check_balance(Decimal::MAX, Decimal::MAX).is_err());
    }
}
