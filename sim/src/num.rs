//! Number grammars of request parameters, and decimal precision helpers (all money is
//! [`Decimal`], never `f64`).
//!
//! The grammars are the recording format's ([`digifinex_market::decimal`]): a decimal
//! `["-"] digits ["." digits] [exponent]` ([`parse_dec`]: prices, amounts, rates) and an integer
//! `["-"] digits` ([`parse_int`]: limits, times, types, ids). Callers answer a refusal with
//! their family's invalid-parameter code (spot 10004, swap 400002) unless an endpoint documents
//! another (the spot history windows' 20014, the withdrawal id's 20033).

pub use digifinex_market::decimal::{parse_dec, parse_int, MAX_NUMBER_LEN};
use rust_decimal::{Decimal, RoundingStrategy};

/// Number of decimal places actually used (`1.50` -> 1).
pub fn places(d: Decimal) -> u32 {
    d.normalize().scale()
}

/// Rounds towards zero to `dp` places.
pub fn floor_dp(d: Decimal, dp: u32) -> Decimal {
    d.round_dp_with_strategy(dp, RoundingStrategy::ToZero)
}

/// Rounds to `dp` places, half away from zero.
pub fn round_dp(d: Decimal, dp: u32) -> Decimal {
    d.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
}

/// `10^-dp`, the smallest step at `dp` places.
pub fn step(dp: u32) -> Decimal {
    Decimal::new(1, dp.min(28))
}

/// Parses decimal text that is known to be valid (configuration literals).
///
/// Falls back to zero instead of panicking.
pub fn d(s: &str) -> Decimal {
    parse_dec(s).unwrap_or(Decimal::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_helpers() {
        assert_eq!(places(d("1.500")), 1);
        assert_eq!(floor_dp(d("1.239"), 2), d("1.23"));
        assert_eq!(round_dp(d("1.235"), 2), d("1.24"));
        assert_eq!(step(3), d("0.001"));
        assert_eq!(d("not a number"), Decimal::ZERO);
    }
}
