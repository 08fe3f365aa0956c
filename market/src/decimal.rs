//! The number grammars: decimals as the recordings write them and as the venue's clients send
//! them (all money is [`Decimal`], never `f64`).
//!
//! Two written grammars, nothing else (ASCII only), checked on the decoded value (after
//! percent-decoding and, in a form, `+` read as a space):
//!
//! ```text
//! decimal  = ["-"] digits ["." digits] [exponent]      ; parse_dec: prices, amounts, rates
//! exponent = ("e" | "E") ["+" | "-"] digits
//! integer  = ["-"] digits                              ; parse_int: limits, times, types, ids
//! digits   = 1*("0".."9")
//! ```
//!
//! An integer has no plus sign, no spaces, no separators, no fraction and no exponent; leading
//! zeros are allowed (`007` is 7) and the value must fit an `i64`. Callers answer a refusal with
//! their family's invalid-parameter code (spot 10004, swap 400002) unless an endpoint documents
//! another (the spot history windows' 20014, the withdrawal id's 20033).

use rust_decimal::Decimal;
use std::str::FromStr;

/// Longest accepted number text (keeps parsing cheap and far from `Decimal`'s limits).
pub const MAX_NUMBER_LEN: usize = 64;

/// Parses decimal text in the grammar the documents and real clients write; `None` otherwise.
///
/// The grammar, nothing else (ASCII only):
///
/// ```text
/// number   = ["-"] digits ["." digits] [exponent]
/// exponent = ("e" | "E") ["+" | "-"] digits
/// digits   = 1*("0".."9")
/// ```
///
/// Accepted: `5`, `-5`, `0.001`, `0.10`, `007`, `1e-07`, `1E5`, `1.5E+3`, `-2.5e-3`.
/// Refused: `+5` (leading plus), `.5` and `5.` (a dot needs digits on both sides), `1_000`
/// (separators), ` 5` / `5 ` (surrounding or inner spaces), `1e` / `e5` / `1e+` (incomplete
/// exponents), `0x10`, `inf`, `NaN`, the empty text, text longer than [`MAX_NUMBER_LEN`], and
/// values outside `Decimal`'s range or precision (`1e40`, `1e-40`). Callers answer a refusal with their
/// invalid-parameter code (spot 10004, swap 400002). Signs are part of the grammar; whether a
/// negative value is allowed is the caller's business.
///
/// DESIGN: the venue's own documents and the clients that trade live (ccxt, hummingbot,
/// Digifinex.Net) write plain decimals and, from float formatting, exponents (`1e-07`); nothing
/// they send needs the looser forms `rust_decimal` would take (`_` separators, `+5`, `.5`, `5.`,
/// padding), so the simulator refuses those instead of guessing what a live server does.
pub fn parse_dec(s: &str) -> Option<Decimal> {
    if s.is_empty() || s.len() > MAX_NUMBER_LEN || !well_formed(s.as_bytes()) {
        return None;
    }
    if s.contains(['e', 'E']) {
        Decimal::from_scientific(s).ok()
    } else {
        Decimal::from_str(s).ok()
    }
}

/// Parses integer text in the grammar `-?[0-9]+` (see the module doc); `None` otherwise.
///
/// Accepted: `5`, `-5`, `0`, `007`, `-0`, `9223372036854775807`.
/// Refused: `+5`, ` 5` / `5 ` (spaces), `1_000`, `5.0`, `1e3`, `0x10`, `-`, the empty text,
/// non-ASCII digits, and values outside `i64`.
pub fn parse_int(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let sign = usize::from(b.first() == Some(&b'-'));
    let rest = b.get(sign..).unwrap_or_default();
    if rest.is_empty() || digits(rest) != rest.len() {
        return None;
    }
    s.parse().ok()
}

/// Number of leading ASCII digits of `b`.
fn digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// Whether `b` matches the [`parse_dec`] grammar.
fn well_formed(b: &[u8]) -> bool {
    let mut i = usize::from(b.first() == Some(&b'-'));
    let int = digits(&b[i..]);
    if int == 0 {
        return false;
    }
    i += int;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let frac = digits(&b[i..]);
        if frac == 0 {
            return false;
        }
        i += frac;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = digits(&b[i..]);
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        parse_dec(s).unwrap()
    }

    #[test]
    fn parses_forms() {
        assert_eq!(parse_dec("1e-07").unwrap().to_string(), "0.0000001");
        assert_eq!(parse_dec("0.10").unwrap(), d("0.1"));
        assert!(parse_dec("abc").is_none());
        assert!(parse_dec("").is_none());
    }

    fn ok(s: &str, want: &str) {
        assert_eq!(
            parse_dec(s),
            Some(Decimal::from_str(want).unwrap()),
            "{s:?}"
        );
    }

    fn refused(s: &str) {
        assert_eq!(parse_dec(s), None, "{s:?} must be refused");
    }

    #[test]
    fn grammar_integers() {
        ok("5", "5");
        ok("0", "0");
        ok("-5", "-5");
        ok("007", "7");
        ok("1000000000000", "1000000000000");
    }

    #[test]
    fn grammar_fractions() {
        ok("0.001", "0.001");
        ok("0.10", "0.10");
        ok("-2.5", "-2.5");
        ok("25.999999999999996", "25.999999999999996");
        ok("4967.000000", "4967");
    }

    #[test]
    fn grammar_exponents() {
        ok("1e-07", "0.0000001");
        ok("1e-2", "0.01");
        ok("1E5", "100000");
        ok("1e+2", "100");
        ok("1.5E+3", "1500");
        ok("-2.5e-3", "-0.0025");
        ok("5e0", "5");
    }

    #[test]
    fn grammar_refusals() {
        for s in [
            "+5", ".5", "5.", "-.5", "1_000", "1_000.5", " 5", "5 ", " 5 ", "\t5", "5\n", "1 000",
            "-", "--5", "+-5", "1e", "e5", "1e+", "1e-", "1.e5", ".1e5", "1e5.5", "1ee5", "0x10",
            "inf", "NaN", "1,5", "5%", "\u{0665}", "\u{ff15}", "1.2.3", "5-",
        ] {
            refused(s);
        }
        refused(&"1".repeat(MAX_NUMBER_LEN + 1));
        ok(&"1".repeat(20), &"1".repeat(20));
    }

    #[test]
    fn integer_grammar() {
        for (s, want) in [
            ("5", 5),
            ("-5", -5),
            ("0", 0),
            ("-0", 0),
            ("007", 7),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
        ] {
            assert_eq!(parse_int(s), Some(want), "{s:?}");
        }
        for s in [
            "+5",
            " 5",
            "5 ",
            " 5 ",
            "\t5",
            "5\n",
            "1_000",
            "1 000",
            "5.0",
            "5.",
            ".5",
            "1e3",
            "1E3",
            "0x10",
            "-",
            "--5",
            "+-5",
            "-+5",
            "",
            "5-",
            "\u{0665}",
            "\u{ff15}",
            "NaN",
            "9223372036854775808",
            "-9223372036854775809",
        ] {
            assert_eq!(parse_int(s), None, "{s:?} must be refused");
        }
    }

    #[test]
    fn grammar_out_of_range_is_refused_not_a_panic() {
        refused("1e40");
        refused("1e999999999999999999999");
        refused("99999999999999999999999999999999");
        refused("1e-40");
        ok("1e-28", "0.0000000000000000000000000001");
    }
}
