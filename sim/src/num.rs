//! Decimal parsing and precision helpers (all money is [`Decimal`], never `f64`).

use rust_decimal::{Decimal, RoundingStrategy};
use std::str::FromStr;

/// Parses plain (`0.001`) or exponent (`1e-07`) decimal text; `None` when it is not a number.
pub fn parse_dec(s: &str) -> Option<Decimal> {
    let s = s.trim();
    if s.is_empty() || s.len() > 64 {
        return None;
    }
    if s.contains(['e', 'E']) {
        Decimal::from_scientific(s).ok()
    } else {
        Decimal::from_str(s).ok()
    }
}

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
    fn parses_forms() {
        assert_eq!(parse_dec("1e-07").unwrap().to_string(), "0.0000001");
        assert_eq!(parse_dec("0.10").unwrap(), d("0.1"));
        assert!(parse_dec("abc").is_none());
        assert!(parse_dec("").is_none());
        assert_eq!(places(d("1.500")), 1);
        assert_eq!(floor_dp(d("1.239"), 2), d("1.23"));
    }
}
