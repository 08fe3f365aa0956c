//! The refusal of an order the venue would refuse: which rule it broke, on which field and
//! market, and the venue's code for it. A leaf of the protocol layer: [`crate::error::Error::Rule`]
//! carries it and [`crate::rules`] re-exports it (`rules::{Rule, RuleError}`), so that the
//! errors import nothing from the rules.

use std::fmt;

use rust_decimal::Decimal;

/// The rule an order broke.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// API trading is not allowed on the pair (spot 20042).
    NotApiTradable,
    /// The pair or instrument does not trade now (spot 20002, swap 401004).
    NotTrading,
    /// The pair does not offer this order type (spot 20012).
    OrderType {
        /// The types it offers.
        offered: Vec<String>,
    },
    /// The price is not on the grid (spot 20007, swap 401007).
    Price {
        /// The price step (a tick or `10^-precision`).
        step: Decimal,
    },
    /// The amount is not on the grid (spot 20008), or a swap size is not whole contracts
    /// (400002).
    Amount {
        /// The amount step.
        step: Decimal,
    },
    /// The amount in the base currency is below the pair's minimum base amount (spot 20009;
    /// [`crate::rules::SpotRules::min_base_amount`]).
    MinBaseAmount {
        /// The minimum, in the base currency.
        min: Decimal,
    },
    /// The size is below the instrument's minimum number of contracts (swap 401006;
    /// [`crate::rules::SwapRules::min_size`]).
    MinSize {
        /// The minimum, in contracts.
        min: Decimal,
    },
    /// The order value in the quote currency (price times amount, or a market buy's quote
    /// amount) is below the pair's minimum (spot 20010;
    /// [`crate::rules::SpotRules::min_quote_value`]).
    MinQuoteValue {
        /// The minimum value in the quote currency.
        min: Decimal,
        /// The order's value.
        value: Decimal,
    },
    /// The position's open value would exceed the cap of `open_max_limits` at the leverage
    /// (swap 401002).
    OpenValue {
        /// The leverage the cap applies at.
        leverage: Decimal,
        /// The cap.
        max: Decimal,
        /// The open value with this order.
        value: Decimal,
    },
}

/// An order the venue would refuse, found before sending.
///
/// `field` is the request field (`price`, `amount`, `size`, `symbol`, `instrument_id`);
/// `nearest` holds the two valid values around the offending one, where there are such
/// (precision and minimum rules).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RuleError {
    /// The request field.
    pub field: &'static str,
    /// The market (`btc_usdt`, `BTCUSDTPERP`).
    pub market: String,
    /// The rule.
    pub rule: Rule,
    /// The offending value, when the rule is about a value.
    pub value: Option<Decimal>,
    /// The valid values below and above the offending value (`(below, above)`; `below` is
    /// `None` when no valid value lies below, as under a minimum).
    pub nearest: Option<(Option<Decimal>, Decimal)>,
    code: i64,
}

impl RuleError {
    pub(super) fn new(field: &'static str, market: &str, rule: Rule, code: i64) -> RuleError {
        RuleError {
            field,
            market: market.to_owned(),
            rule,
            value: None,
            nearest: None,
            code,
        }
    }

    pub(super) fn value(mut self, value: Decimal) -> RuleError {
        self.value = Some(value);
        self
    }

    pub(super) fn nearest(mut self, below: Option<Decimal>, above: Decimal) -> RuleError {
        self.nearest = Some((below, above));
        self
    }

    /// The error code the venue answers for the same order.
    pub fn code(&self) -> Option<i64> {
        Some(self.code)
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.market;
        let field = self.field;
        match &self.rule {
            Rule::NotApiTradable => write!(f, "{m} does not allow API trading")?,
            Rule::NotTrading => write!(f, "{m} is not trading now")?,
            Rule::OrderType { offered } => {
                write!(f, "{m} offers only these order types: {}", offered.join(", "))?
            }
            Rule::Price { step } => write!(f, "`{field}` must be a multiple of {step} on {m}")?,
            Rule::Amount { step } => write!(f, "`{field}` must be a multiple of {step} on {m}")?,
            Rule::MinBaseAmount { min } => write!(
                f,
                "`{field}` is below {m}'s minimum base amount {min}"
            )?,
            Rule::MinSize { min } => write!(
                f,
                "`{field}` is below {m}'s minimum size {min} contracts"
            )?,
            Rule::MinQuoteValue { min, value } => write!(
                f,
                "order value {value} is below {m}'s minimum quote value {min} (raise `{field}`)"
            )?,
            Rule::OpenValue {
                leverage,
                max,
                value,
            } => write!(
                f,
                "open value {value} would exceed {m}'s cap {max} at leverage {leverage} (lower `{field}` or the leverage)"
            )?,
        }
        if let Some(v) = self.value {
            if !matches!(
                self.rule,
                Rule::MinQuoteValue { .. } | Rule::OpenValue { .. }
            ) {
                write!(f, " (got {v})")?;
            }
        }
        match self.nearest {
            Some((Some(below), above)) if below != above => {
                write!(f, "; nearest valid: {below} or {above}")?
            }
            Some((_, above)) => write!(f, "; smallest valid: {above}")?,
            None => {}
        }
        write!(f, " [venue code {}]", self.code)
    }
}

impl std::error::Error for RuleError {}
