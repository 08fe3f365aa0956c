//! Plain-notation text of numbers without the formatting machinery: the hot path of request
//! encoding (form parameters, JSON bodies, header values) writes decimals and integers through
//! these instead of `Display`, which costs several times more.

use rust_decimal::Decimal;

/// Room for any decimal with a 64-bit mantissa: a sign, 20 digits, a dot and the zeros of a
/// scale up to 28 (`-0.` and 28 digits at most).
pub(crate) type DecimalBuf = [u8; 40];

/// `d` in plain notation, exactly as `Decimal`'s `Display` writes it without options (`0.01`,
/// `-1.50`, `30000`, `0.000`, `-0` for a negative zero), written to the end of `buf`; `None`
/// when the mantissa needs more than 64 bits (the caller then uses `Display`).
#[inline]
pub(crate) fn decimal<'b>(d: &Decimal, buf: &'b mut DecimalBuf) -> Option<&'b str> {
    std::str::from_utf8(decimal_ascii(d, buf)?).ok()
}

/// [`decimal`] as the ASCII bytes it is, for writers of bytes (no UTF-8 check).
#[inline]
pub(crate) fn decimal_ascii<'b>(d: &Decimal, buf: &'b mut DecimalBuf) -> Option<&'b [u8]> {
    let mut v = u64::try_from(d.mantissa().unsigned_abs()).ok()?;
    let scale = usize::try_from(d.scale()).ok()?;
    // Digits right to left; the zeros a scale needs are the buffer's fill.
    buf.fill(b'0');
    let mut start = buf.len();
    while v > 0 {
        start = start.checked_sub(1)?;
        let digit = u8::try_from(v % 10).ok()?;
        *buf.get_mut(start)? = b'0'.checked_add(digit)?;
        v /= 10;
    }
    // The digits after the dot (zero-padded), and at least one before it.
    let frac_start = buf.len().checked_sub(scale)?.checked_sub(1)?;
    start = start.min(frac_start);
    let int_end = buf.len().checked_sub(scale)?;
    // Shift the fraction one place left to open the dot: `[int][frac]` -> `[int].[frac]`.
    if scale > 0 {
        buf.copy_within(start..int_end, start.checked_sub(1)?);
        start = start.checked_sub(1)?;
        *buf.get_mut(int_end.checked_sub(1)?)? = b'.';
    }
    if d.is_sign_negative() {
        start = start.checked_sub(1)?;
        *buf.get_mut(start)? = b'-';
    }
    buf.get(start..)
}

/// Appends `d` in plain notation (see [`decimal`]).
#[inline]
pub(crate) fn push_decimal(out: &mut Vec<u8>, d: &Decimal) {
    let mut buf = [0; 40];
    match decimal_ascii(d, &mut buf) {
        Some(text) => out.extend_from_slice(text),
        None => {
            use std::io::Write;
            // Writing to a Vec cannot fail.
            let _ = write!(out, "{d}");
        }
    }
}

/// `Display` of a decimal newtype: the fast text when no formatting option is set, else
/// `Decimal`'s own `Display` (precision, width, sign).
#[inline]
pub(crate) fn fmt_decimal(d: &Decimal, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    let plain = f.precision().is_none()
        && f.width().is_none()
        && !f.sign_plus()
        && !f.sign_minus()
        && !f.alternate()
        && !f.sign_aware_zero_pad();
    let mut buf = [0; 40];
    match decimal(d, &mut buf).filter(|_| plain) {
        Some(text) => f.write_str(text),
        None => std::fmt::Display::fmt(d, f),
    }
}

/// The decimal digits of `v` (ASCII), written to the end of `buf`.
#[inline]
pub(crate) fn uint(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut start = buf.len();
    while let Some(i) = start.checked_sub(1) {
        start = i;
        let digit = u8::try_from(v % 10).unwrap_or(0);
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0'.saturating_add(digit);
        }
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.get(start..).unwrap_or_default()
}

/// The name in `known` closest to `key` when it is a likely typo: at most 2 edits away (1 for
/// names of up to 4 letters), compared without case.
pub(crate) fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let key = key.to_ascii_lowercase();
    let limit = if key.chars().count() <= 4 { 1 } else { 2 };
    known
        .iter()
        .map(|k| (edit_distance(&key, &k.to_ascii_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance between two short texts, by characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i.saturating_add(1);
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j.saturating_add(1)).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let substitute = diagonal.saturating_add(usize::from(ca != *cb));
            let best = substitute
                .min(above.saturating_add(1))
                .min(left.saturating_add(1));
            diagonal = above;
            if let Some(cell) = row.get_mut(j.saturating_add(1)) {
                *cell = best;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn text(d: &Decimal) -> String {
        let mut buf = [0; 40];
        decimal(d, &mut buf).map(str::to_owned).unwrap_or_default()
    }

    #[test]
    fn decimal_text_is_display() {
        for s in [
            "0",
            "0.00",
            "-0",
            "-0.000",
            "1",
            "-1",
            "0.01",
            "1.50",
            "-12.340",
            "30000",
            "30000.10",
            "0.0000001",
            "123456789.123456789",
            "18446744073709551615",
            "-18446744073709551615",
            "0.0000000000000000000000000001",
            "1844674407370955161.5",
            "1.8446744073709551615",
        ] {
            let d = Decimal::from_str(s).unwrap();
            assert_eq!(text(&d), d.to_string(), "{s}");
        }
        // Negative zero keeps its sign, as `Display` does.
        let nz = Decimal::from_parts(0, 0, 0, true, 2);
        assert_eq!(text(&nz), nz.to_string());
        // Beyond 64 bits: the caller's fallback.
        let big = Decimal::from_str("18446744073709551616").unwrap();
        assert_eq!(decimal(&big, &mut [0; 40]), None);
        let mut out = Vec::new();
        push_decimal(&mut out, &big);
        assert_eq!(out, b"18446744073709551616");
        let mut out = Vec::new();
        push_decimal(&mut out, &Decimal::from_str("-0.5").unwrap());
        assert_eq!(out, b"-0.5");
    }

    #[test]
    fn every_scale_and_sign() {
        for lo in [0u32, 1, 7, 10, 99, 12345, u32::MAX] {
            for mid in [0u32, 1, u32::MAX] {
                for scale in 0..=28 {
                    for negative in [false, true] {
                        let d = Decimal::from_parts(lo, mid, 0, negative, scale);
                        assert_eq!(text(&d), d.to_string(), "{lo} {mid} {scale} {negative}");
                    }
                }
            }
        }
    }

    #[test]
    fn integers() {
        for v in [0u64, 1, 9, 10, 1_589_872_188, u64::MAX] {
            assert_eq!(uint(v, &mut [0; 20]), v.to_string().as_bytes());
        }
    }

    struct Shown(Decimal);
    impl std::fmt::Display for Shown {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            fmt_decimal(&self.0, f)
        }
    }

    #[test]
    fn display_options_fall_back() {
        let d = Decimal::from_str("-1.5").unwrap();
        for (got, want) in [
            (format!("{}", Shown(d)), format!("{d}")),
            (format!("{:.3}", Shown(d)), format!("{d:.3}")),
            (format!("{:>8}", Shown(d)), format!("{d:>8}")),
            (format!("{:+}", Shown(d.abs())), format!("{:+}", d.abs())),
            (format!("{:08}", Shown(d)), format!("{d:08}")),
        ] {
            assert_eq!(got, want);
        }
    }
}
