//! The exact number path: `parse_decimal` and the tolerant serde helpers built on it.

use digifinex_core::__fuzz::parse_decimal;
use digifinex_core::Decimal;
use serde::Deserialize;

#[derive(Deserialize)]
struct Dec {
    #[serde(with = "digifinex_core::__fuzz::decimal")]
    v: Decimal,
}

#[derive(Deserialize)]
struct OptDec {
    #[serde(default, with = "digifinex_core::__fuzz::opt_decimal")]
    v: Option<Decimal>,
}

#[derive(Deserialize)]
struct Int {
    #[serde(with = "digifinex_core::__fuzz::int")]
    v: i64,
}

/// A value as `(negative, significant digits without leading or trailing zeros, exponent)`;
/// zero is `(false, "", 0)`.
type Canonical = (bool, String, i128);

/// Reads the decimal grammar `parse_decimal` documents (surrounding ASCII whitespace, optional
/// sign, digits with at most one `.` and at least one digit, optional `e`/`E` exponent with
/// optional sign and at least one digit), independently of the core. Returns the canonical value,
/// the count of digits from the first non-zero one, the number of fraction digits, and whether
/// an exponent was present.
fn grammar(text: &str) -> Option<(Canonical, usize, usize, bool)> {
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) || int.len() + frac.len() == 0 {
        return None;
    }
    let mut exp: i128 = 0;
    if let Some(e) = exponent {
        let (neg, digits) = match e.as_bytes().first() {
            Some(b'-') => (true, &e[1..]),
            Some(b'+') => (false, &e[1..]),
            _ => (false, e),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        for b in digits.bytes() {
            exp = (exp * 10 + i128::from(b - b'0')).min(1 << 100);
        }
        if neg {
            exp = -exp;
        }
    }
    let all: String = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    let digit_count = significant.len();
    let stripped = significant.trim_end_matches('0');
    let canonical = if stripped.is_empty() {
        (false, String::new(), 0)
    } else {
        let trailing = (significant.len() - stripped.len()) as i128;
        (
            negative,
            stripped.to_owned(),
            exp - frac.len() as i128 + trailing,
        )
    };
    Some((canonical, digit_count, frac.len(), exponent.is_some()))
}

/// Whether a canonical value fits a `Decimal` exactly (96-bit mantissa, scale 0..=28).
fn representable((_, digits, exp): &Canonical) -> bool {
    if digits.is_empty() {
        return true;
    }
    let scale = (-*exp).max(0);
    if scale > 28 || digits.len() > 38 {
        return false;
    }
    let Ok(mut m) = digits.parse::<u128>() else {
        return false;
    };
    let mut up = *exp + scale;
    while up > 0 {
        match m.checked_mul(10) {
            Some(v) => m = v,
            None => return false,
        }
        up -= 1;
    }
    m < (1u128 << 96)
}

/// Whether `text` is a JSON number token.
fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == b.len()
}

fn same(a: &Decimal, b: &Decimal) -> bool {
    a == b && a.scale() == b.scale() && a.to_string() == b.to_string()
}

fn assert_same_result<E: std::fmt::Debug>(
    what: &str,
    text: &str,
    want: &Result<Decimal, impl std::fmt::Debug>,
    got: Result<Decimal, E>,
) {
    match (want, &got) {
        (Ok(a), Ok(b)) => assert!(same(a, b), "{what} {text:?}: {a} vs {b}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{what} {text:?}: parse_decimal {want:?}, helper {got:?}"),
    }
}

/// Decimal text.
///
/// Input: the text (lossy UTF-8). Properties:
/// * `parse_decimal` never panics; it accepts exactly the documented grammar (an independent
///   reader here), and every text of that grammar whose value fits a `Decimal` (at most 38
///   digits from the first non-zero one) is accepted;
/// * an accepted value equals the text's value exactly, keeps the text's scale in plain
///   notation, and its plain text parses back to the identical `Decimal`;
/// * a JSON number token and a JSON string of the same text decode (through the tolerant
///   helpers `decimal`, `opt_decimal`, `int` and the positional book-level cursor) to what
///   `parse_decimal` gives;
/// * the optional rule: `opt_decimal` never fails; a placeholder (`""`, `-`, `null`, ...) is
///   absent, and a value `parse_decimal` refuses is unreadable, taken as absent and reported
///   with its JSON path by `parse_body_report` (a placeholder is not reported).
pub fn decimal(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = &*text;
    let parsed = parse_decimal(text);
    let g = grammar(text);
    match (&parsed, &g) {
        (Ok(d), Some((canonical, _, frac_len, has_exp))) => {
            let plain = d.to_string();
            let (back, _, _, _) = grammar(&plain).expect("Display is decimal text");
            assert_eq!(&back, canonical, "{text:?} parsed as {plain}");
            if !has_exp && *frac_len <= 28 {
                assert!(
                    d.scale() as usize <= *frac_len,
                    "{text:?}: scale {}",
                    d.scale()
                );
            }
            let again = parse_decimal(&plain).expect("Display output parses");
            assert!(same(d, &again), "{text:?}: {plain} parses as {again}");
        }
        (Ok(d), None) => panic!("{text:?} is not decimal text but parsed as {d}"),
        (Err(e), Some((canonical, digits, _, _))) => {
            assert!(
                *digits > 38 || !representable(canonical),
                "{text:?} is exact decimal text but was refused: {e:?}"
            );
        }
        (Err(_), None) => {}
    }
    // Plain notation keeps the text's scale when the full digit string fits.
    if let (Ok(d), Some((_, digits, frac_len, false))) = (&parsed, &g) {
        if *frac_len <= 28 && *digits <= 28 {
            assert_eq!(d.scale() as usize, *frac_len, "{text:?}: scale");
        }
    }

    // The same text as a JSON string.
    let quoted = serde_json::to_string(text).expect("strings serialise");
    let json = format!(r#"{{"v":{quoted}}}"#);
    let got = serde_json::from_str::<Dec>(&json).map(|d| d.v);
    assert_same_result("string", text, &parsed, got);
    let opt = serde_json::from_str::<OptDec>(&json)
        .map(|d| d.v)
        .map_err(|e| e.to_string());
    check_opt("string", text, &parsed, placeholder(text), &opt);
    check_report(text, &quoted, &parsed, placeholder(text));
    check_int(text, &json, &parsed);
    check_level(text, &quoted, &parsed);

    // As a JSON number token.
    if is_json_number(text) {
        let json = format!(r#"{{"v":{text}}}"#);
        let got = serde_json::from_str::<Dec>(&json).map(|d| d.v);
        assert_same_result("number", text, &parsed, got);
        let opt = serde_json::from_str::<OptDec>(&json)
            .map(|d| d.v)
            .map_err(|e| e.to_string());
        check_opt("number", text, &parsed, false, &opt);
        check_report(text, text, &parsed, false);
        check_int(text, &json, &parsed);
        check_level(text, text, &parsed);
    }
}

/// Whether `text` (a JSON string's content) is one of the documented "no value" placeholders,
/// read independently of the core: blank, dashes only (`-`, `--`), or `null`, `none`, `nan`,
/// `n/a` in any case.
fn placeholder(text: &str) -> bool {
    let t = text.trim();
    t.is_empty()
        || t.bytes().all(|b| b == b'-')
        || ["null", "none", "nan", "n/a"]
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w))
}

/// `opt_decimal` never fails: a placeholder is absent, a value `parse_decimal` accepts is that
/// value, and anything else is unreadable and taken as absent.
fn check_opt(
    what: &str,
    text: &str,
    parsed: &Result<Decimal, digifinex_core::__fuzz::DecimalError>,
    placeholder: bool,
    opt: &Result<Option<Decimal>, String>,
) {
    match (parsed, opt) {
        (_, Ok(None)) if placeholder => {}
        (Ok(a), Ok(Some(b))) if !placeholder => assert!(same(a, b), "opt {what} {text:?}"),
        (Err(_), Ok(None)) => {}
        _ => panic!("opt {what} {text:?} (placeholder {placeholder}): {parsed:?} vs {opt:?}"),
    }
}

/// The same token as an optional field of a whole answer (a spot ticker row's `last`): the
/// answer decodes, the value is what `parse_decimal` gives (absent for a placeholder or an
/// unreadable value), and exactly the unreadable value is reported, with its JSON path.
fn check_report(
    text: &str,
    token: &str,
    parsed: &Result<Decimal, digifinex_core::__fuzz::DecimalError>,
    placeholder: bool,
) {
    use digifinex_core::spot::TickerRequest;
    use digifinex_core::Endpoint;
    let body = format!(r#"{{"code":0,"ticker":[{{"symbol":"btc_usdt","last":{token}}}]}}"#);
    let (tickers, unreadable) =
        digifinex_core::parse_body_report::<<TickerRequest as Endpoint>::Output>(
            &TickerRequest::META,
            200,
            &http::HeaderMap::new(),
            body.as_bytes(),
        )
        .unwrap_or_else(|e| panic!("report {text:?}: an optional value failed the answer: {e}"));
    let last = tickers.ticker.first().expect("one row").last;
    let want = if placeholder {
        None
    } else {
        parsed.as_ref().ok()
    };
    match (want, &last) {
        (Some(a), Some(b)) => assert!(same(a, b), "report {text:?}: {a} vs {b}"),
        (None, None) => {}
        _ => panic!("report {text:?}: parse_decimal {parsed:?}, ticker last {last:?}"),
    }
    let paths: Vec<&str> = unreadable.iter().map(|u| u.path.as_str()).collect();
    if placeholder || parsed.is_ok() {
        assert!(paths.is_empty(), "report {text:?}: {unreadable:?}");
    } else {
        assert_eq!(paths, ["ticker[0].last"], "report {text:?}: {unreadable:?}");
    }
}

/// `int` accepts exactly the integral values in range, equal to `parse_decimal`'s.
fn check_int(
    text: &str,
    json: &str,
    parsed: &Result<Decimal, digifinex_core::__fuzz::DecimalError>,
) {
    let got = serde_json::from_str::<Int>(json).map(|i| i.v);
    let want = parsed
        .as_ref()
        .ok()
        .filter(|d| d.fract().is_zero())
        .and_then(|d| i64::try_from(d.trunc()).ok());
    match (want, &got) {
        (Some(a), Ok(b)) => assert_eq!(a, *b, "int {text:?}"),
        (None, Err(_)) => {}
        // Integers beyond the decimal range (more than 28 digits) are not decimals but still
        // fail as i64: covered by the arm above. Anything else is a disagreement.
        _ => panic!("int {json}: parse_decimal {parsed:?}, int helper {got:?}"),
    }
}

/// The positional cursor (spot book levels) reads the same value as `parse_decimal`.
fn check_level(
    text: &str,
    token: &str,
    parsed: &Result<Decimal, digifinex_core::__fuzz::DecimalError>,
) {
    use digifinex_core::spot::OrderBookRequest;
    use digifinex_core::Endpoint;
    let body = format!(r#"{{"bids":[[{token},"1"]],"asks":[],"date":1,"code":0}}"#);
    let got = digifinex_core::parse_body::<<OrderBookRequest as Endpoint>::Output>(
        &OrderBookRequest::META,
        200,
        &http::HeaderMap::new(),
        body.as_bytes(),
    )
    .map(|b| b.bids.first().expect("one level").price);
    assert_same_result("level", text, parsed, got);
}
