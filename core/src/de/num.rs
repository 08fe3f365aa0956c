//! Exact decimal text parsing.
//!
//! The exchange sends prices and amounts as JSON numbers (`0.01`, `1e-07`, `25.999999999999996`)
//! or as strings of the same forms. [`parse_decimal`] turns that text into a
//! [`Decimal`] without ever passing through a binary float: digits are accumulated into an integer
//! mantissa and a decimal scale. Plain notation keeps its scale (`"1.50"` has scale 2), exponent
//! notation is folded into the scale (`1e-07` is `0.0000001`).

use rust_decimal::Decimal;

/// Largest scale a [`Decimal`] can carry.
const MAX_SCALE: u32 = 28;
/// Largest mantissa a [`Decimal`] can carry (2^96 - 1).
const MAX_MANTISSA: u128 = (1u128 << 96) - 1;

/// Why a text is not an exact decimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalError {
    /// The text is empty.
    Empty,
    /// The text is not a decimal number (`abc`, `1.2.3`, `1e`, `NaN`).
    Invalid,
    /// The number has more significant digits, or a larger or smaller magnitude, than a `Decimal`
    /// (96-bit mantissa, scale 0..=28) holds exactly.
    OutOfRange,
}

impl core::fmt::Display for DecimalError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            DecimalError::Empty => "empty decimal text",
            DecimalError::Invalid => "not a decimal number",
            DecimalError::OutOfRange => "decimal out of exact range (96-bit mantissa, scale <= 28)",
        })
    }
}

impl std::error::Error for DecimalError {}

/// Parses decimal text (`-12.340`, `1e-07`, `2.5E+3`, `.5`) into an exact [`Decimal`].
///
/// Leading `+`, surrounding ASCII whitespace and leading zeros are accepted. Trailing fractional
/// zeros that would push the scale past 28 are dropped (they do not change the value); any other
/// loss of precision is [`DecimalError::OutOfRange`], never a rounding.
pub fn parse_decimal(text: &str) -> Result<Decimal, DecimalError> {
    let bytes = text.trim_ascii().as_bytes();
    if bytes.is_empty() {
        return Err(DecimalError::Empty);
    }
    let (negative, rest) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, bytes),
    };

    match plain(rest) {
        Some((mantissa, scale, read)) if read == rest.len() => {
            Ok(from_u64(mantissa, negative, scale))
        }
        _ => parse_slow(rest, negative),
    }
}

/// Scans the JSON number (RFC 8259 grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`)
/// starting at `start`: its end and whether it is an integer (no fraction, no exponent); `None`
/// when there is no number there. The one number scanner of the decoders: the single-pass reader
/// and the tolerant helpers both use it.
// Bound: `i` moves one past a byte `bytes.get` found, so it never exceeds `bytes.len()`.
#[allow(clippy::arithmetic_side_effects)]
#[inline]
pub(crate) fn scan_json_number(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    let digits = |mut i: usize| {
        while let Some(b'0'..=b'9') = bytes.get(i) {
            i += 1;
        }
        i
    };
    let mut i = start + usize::from(bytes.get(start) == Some(&b'-'));
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i + 1),
        _ => return None,
    }
    let mut integer = true;
    if bytes.get(i) == Some(&b'.') {
        integer = false;
        let end = digits(i + 1);
        if end == i + 1 {
            return None;
        }
        i = end;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        integer = false;
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        let end = digits(i);
        if end == i {
            return None;
        }
        i = end;
    }
    Some((i, integer))
}

/// Parses the plain JSON number (`-?[0-9]*(\.[0-9]*)?`, at most 19 digits) at the start of
/// `bytes`, returning it and the number of bytes read; `None` when the text needs the general
/// parser (no digits, more digits, an exponent) or is not a number.
#[inline]
pub(crate) fn parse_plain_prefix(bytes: &[u8]) -> Option<(Decimal, usize)> {
    let (negative, rest) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    let (mantissa, scale, read) = plain(rest)?;
    if let Some(b'e' | b'E' | b'.') = rest.get(read) {
        return None;
    }
    Some((
        from_u64(mantissa, negative, scale),
        read.saturating_add(usize::from(negative)),
    ))
}

/// Unsigned plain notation at the start of `rest` (`[0-9]*(\.[0-9]*)?`): mantissa, scale and
/// bytes read, when there are 1..=19 digits (a u64 holds them without overflow; wrapping
/// arithmetic only matters for longer inputs, which are refused here).
// Bound: `digits` counts bytes of `rest`, so at most `rest.len() <= isize::MAX`; `digits + 1` is
// taken only once `digits <= 19`.
#[allow(clippy::arithmetic_side_effects)]
#[inline]
fn plain(rest: &[u8]) -> Option<(u64, u32, usize)> {
    let mut mantissa: u64 = 0;
    let mut digits = 0usize;
    // Digits before the dot, once one is seen.
    let mut dot = usize::MAX;
    for &b in rest {
        let digit = b.wrapping_sub(b'0');
        if digit <= 9 {
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(digit));
            digits += 1;
        } else if b == b'.' && dot == usize::MAX {
            dot = digits;
        } else {
            break;
        }
    }
    if digits == 0 || digits > 19 {
        return None;
    }
    let (scale, read) = match digits.checked_sub(dot) {
        Some(frac) => (frac, digits + 1),
        None => (0, digits),
    };
    Some((mantissa, u32::try_from(scale).ok()?, read))
}

/// `mantissa * 10^-scale` for a scale <= 19 (so within a `Decimal`'s 28).
#[inline]
fn from_u64(mantissa: u64, negative: bool, scale: u32) -> Decimal {
    // A u64 fits the low two of the three mantissa words.
    let lo = (mantissa & 0xFFFF_FFFF) as u32;
    let mid = (mantissa >> 32) as u32;
    Decimal::from_parts(lo, mid, 0, negative, scale)
}

/// General path: long mantissas and exponent notation.
// Bound: `i` and `frac_digits` count bytes of `rest` (at most `rest.len() <= isize::MAX`);
// `significant <= 38` before `mantissa * 10 + digit`, so the mantissa stays below 10^38 (a `u128`
// holds 3.4 * 10^38); `b - b'0'` only for an ASCII digit; `exponent` is in `0..=i64::MAX` before
// its negation.
#[allow(clippy::arithmetic_side_effects)]
fn parse_slow(rest: &[u8], negative: bool) -> Result<Decimal, DecimalError> {
    let mut mantissa: u128 = 0;
    // Whether a digit was seen (a count could overflow on a body of 2^32 leading zeros).
    let mut any_digit = false;
    let mut significant = 0u32;
    let mut frac_digits: i64 = 0;
    let mut seen_dot = false;
    let mut i = 0usize;
    while let Some(&b) = rest.get(i) {
        match b {
            b'0'..=b'9' => {
                any_digit = true;
                if mantissa != 0 || b != b'0' {
                    significant += 1;
                }
                if significant > 38 {
                    return Err(DecimalError::OutOfRange);
                }
                mantissa = mantissa * 10 + u128::from(b - b'0');
                if seen_dot {
                    frac_digits += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if !any_digit {
        return Err(DecimalError::Invalid);
    }
    let mut exponent: i64 = 0;
    if let Some(&b) = rest.get(i) {
        if b != b'e' && b != b'E' {
            return Err(DecimalError::Invalid);
        }
        i += 1;
        let exp_negative = match rest.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let mut exp_digit = false;
        while let Some(&b) = rest.get(i) {
            if !b.is_ascii_digit() {
                return Err(DecimalError::Invalid);
            }
            exponent = exponent
                .saturating_mul(10)
                .saturating_add(i64::from(b - b'0'));
            exp_digit = true;
            i += 1;
        }
        if !exp_digit {
            return Err(DecimalError::Invalid);
        }
        if exp_negative {
            exponent = -exponent;
        }
    }
    finish(mantissa, frac_digits.saturating_sub(exponent), negative)
}

/// Builds the decimal `mantissa * 10^-scale`, normalising a scale outside 0..=28 exactly.
// Bound: `scale` moves by one towards `0..=28` only while it is outside that range.
#[allow(clippy::arithmetic_side_effects)]
fn finish(mut mantissa: u128, mut scale: i64, negative: bool) -> Result<Decimal, DecimalError> {
    if mantissa == 0 {
        // Zero: any scale is the same value; keep what fits.
        let scale = u32::try_from(scale.clamp(0, i64::from(MAX_SCALE))).unwrap_or(0);
        return Ok(Decimal::from_parts(0, 0, 0, negative, scale));
    }
    while scale < 0 {
        mantissa = mantissa.checked_mul(10).ok_or(DecimalError::OutOfRange)?;
        scale += 1;
    }
    while scale > i64::from(MAX_SCALE) || mantissa > MAX_MANTISSA {
        // Only trailing zeros may be dropped; anything else would round.
        if scale == 0 || !mantissa.is_multiple_of(10) {
            return Err(DecimalError::OutOfRange);
        }
        mantissa /= 10;
        scale -= 1;
    }
    let scale = u32::try_from(scale).map_err(|_| DecimalError::OutOfRange)?;
    // The loop above guarantees mantissa <= 2^96 - 1, so the three words hold it exactly.
    let lo = (mantissa & 0xFFFF_FFFF) as u32;
    let mid = ((mantissa >> 32) & 0xFFFF_FFFF) as u32;
    let hi = ((mantissa >> 64) & 0xFFFF_FFFF) as u32;
    Ok(Decimal::from_parts(lo, mid, hi, negative, scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn plain_numbers_keep_their_scale() {
        assert_eq!(parse_decimal("0.01").unwrap().to_string(), "0.01");
        assert_eq!(parse_decimal("1.50").unwrap().to_string(), "1.50");
        assert_eq!(parse_decimal("-12.340").unwrap().to_string(), "-12.340");
        assert_eq!(parse_decimal("+7").unwrap(), d("7"));
        assert_eq!(parse_decimal(".5").unwrap(), d("0.5"));
        assert_eq!(parse_decimal("5.").unwrap(), d("5"));
        assert_eq!(parse_decimal(" 42 ").unwrap(), d("42"));
    }

    #[test]
    fn exponent_notation_is_exact() {
        assert_eq!(parse_decimal("1e-07").unwrap().to_string(), "0.0000001");
        assert_eq!(parse_decimal("2.5E+3").unwrap().to_string(), "2500");
        assert_eq!(parse_decimal("1.23e2").unwrap().to_string(), "123");
        assert_eq!(parse_decimal("-4E0").unwrap(), d("-4"));
    }

    #[test]
    fn long_values_are_exact() {
        assert_eq!(
            parse_decimal("25.999999999999996").unwrap().to_string(),
            "25.999999999999996"
        );
        let max = "79228162514264337593543950335";
        assert_eq!(parse_decimal(max).unwrap().to_string(), max);
        assert_eq!(
            parse_decimal("0.1234567890123456789012345678")
                .unwrap()
                .to_string(),
            "0.1234567890123456789012345678"
        );
        // Trailing zeros past scale 28 are dropped without changing the value.
        assert_eq!(
            parse_decimal("1.000000000000000000000000000000").unwrap(),
            d("1")
        );
    }

    #[test]
    fn rejects_what_is_not_exact_or_not_a_number() {
        assert_eq!(parse_decimal(""), Err(DecimalError::Empty));
        assert_eq!(parse_decimal("  "), Err(DecimalError::Empty));
        for bad in [
            "abc", "1.2.3", "1e", "1e+", "-", ".", "NaN", "inf", "1,5", "0x10", "1e5x",
        ] {
            assert_eq!(parse_decimal(bad), Err(DecimalError::Invalid), "{bad}");
        }
        assert_eq!(
            parse_decimal("79228162514264337593543950336"),
            Err(DecimalError::OutOfRange)
        );
        assert_eq!(parse_decimal("1e-29"), Err(DecimalError::OutOfRange));
        assert_eq!(parse_decimal("1e29"), Err(DecimalError::OutOfRange));
        assert_eq!(
            parse_decimal("1e999999999999999999999"),
            Err(DecimalError::OutOfRange)
        );
    }

    #[test]
    fn fast_path_agrees_with_the_general_parser() {
        let texts = [
            "0",
            "-0",
            "7",
            "12.5",
            "-9559.99",
            "0.0000",
            "1234567.1234567",
            "12345678",
            "1.12345678",
            "123456789012345678.9",
            "5.",
            ".5",
            "1e5",
            "1.5E3",
            "-",
            ".",
            "-.",
            "00012.50",
        ];
        for text in texts {
            let general = parse_decimal(text);
            for suffix in ["", ",", "]", ",1.5]", "\"", "        "] {
                for lead in ["", "[", "[1.5,"] {
                    let s = format!("{lead}{text}{suffix}");
                    if let Some((d, read)) =
                        parse_plain_prefix(s.as_bytes().get(lead.len()..).unwrap())
                    {
                        assert_eq!(read, text.len(), "{s}");
                        assert_eq!(d.to_string(), general.unwrap().to_string(), "{s}");
                    }
                }
            }
        }
    }

    #[test]
    fn zero_forms() {
        assert_eq!(parse_decimal("0").unwrap(), Decimal::ZERO);
        assert_eq!(parse_decimal("0.000").unwrap().to_string(), "0.000");
        assert_eq!(parse_decimal("0e-50").unwrap(), Decimal::ZERO);
        assert_eq!(parse_decimal("-0").unwrap(), Decimal::ZERO);
    }
}
