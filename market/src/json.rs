//! A tiny JSON value with exact decimals and fields in insertion order: how a recording's lines
//! are written (and the simulator's answers), so that decimals are exact number text.
//!
//! `serde_json::Value` cannot hold an exact decimal without the `arbitrary_precision` feature (which
//! would change serde_json for every crate in the program), so lines are built with [`J`] and
//! serialised by [`J::write`]: a [`Decimal`] becomes its plain text as a JSON number token.

use rust_decimal::Decimal;
use std::borrow::Cow;

/// A JSON value with exact decimal numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer number.
    Int(i64),
    /// An exact decimal number, written in plain notation.
    Dec(Decimal),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<J>),
    /// An object with keys in insertion order.
    Obj(Vec<(Cow<'static, str>, J)>),
}

impl J {
    /// An empty object.
    pub fn obj() -> J {
        J::Obj(Vec::new())
    }

    /// Adds (or appends) a field to an object; no effect on other values.
    pub fn with(mut self, key: impl Into<Cow<'static, str>>, value: impl Into<J>) -> J {
        if let J::Obj(fields) = &mut self {
            fields.push((key.into(), value.into()));
        }
        self
    }

    /// A decimal written as a JSON string (swap style) instead of a number.
    pub fn dec_str(d: Decimal) -> J {
        J::Str(fmt_dec(d))
    }

    /// Serialises to compact JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(128);
        self.write(&mut out);
        out
    }

    /// Appends the compact JSON text of `self` to `out`.
    pub fn write(&self, out: &mut String) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Int(i) => out.push_str(itoa::Buffer::new().format(*i)),
            J::Dec(d) => push_dec(out, *d),
            J::Str(s) => write_str(out, s),
            J::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            J::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Plain text of a decimal without superfluous trailing zeros (`1.50` -> `1.5`, `-0` -> `0`).
pub fn fmt_dec(d: Decimal) -> String {
    let mut s = String::with_capacity(24);
    push_dec(&mut s, d);
    s
}

/// Appends the text of [`fmt_dec`] to `out` without allocating: the same characters as
/// `d.normalize().to_string()` (`0` for any zero), digits written by `itoa`.
pub fn push_dec(out: &mut String, d: Decimal) {
    let m = d.mantissa();
    let mut scale = d.scale();
    let mut u = m.unsigned_abs();
    if u == 0 {
        out.push('0');
        return;
    }
    let mut buf = itoa::Buffer::new();
    let digits = if let Ok(mut small) = u64::try_from(u) {
        while scale > 0 && small % 10 == 0 {
            small /= 10;
            scale -= 1;
        }
        buf.format(small)
    } else {
        while scale > 0 && u.is_multiple_of(10) {
            u /= 10;
            scale -= 1;
        }
        buf.format(u)
    };
    if m < 0 {
        out.push('-');
    }
    let point = usize::try_from(scale).unwrap_or(0);
    match digits.len().checked_sub(point) {
        Some(0) | None => {
            out.push_str("0.");
            for _ in digits.len()..point {
                out.push('0');
            }
            out.push_str(digits);
        }
        Some(whole) => {
            let (int, frac) = digits.split_at(whole);
            out.push_str(int);
            if !frac.is_empty() {
                out.push('.');
                out.push_str(frac);
            }
        }
    }
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl From<bool> for J {
    fn from(v: bool) -> J {
        J::Bool(v)
    }
}
impl From<i64> for J {
    fn from(v: i64) -> J {
        J::Int(v)
    }
}
impl From<i32> for J {
    fn from(v: i32) -> J {
        J::Int(i64::from(v))
    }
}
impl From<u32> for J {
    fn from(v: u32) -> J {
        J::Int(i64::from(v))
    }
}
impl From<u64> for J {
    fn from(v: u64) -> J {
        J::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}
impl From<usize> for J {
    fn from(v: usize) -> J {
        J::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}
impl From<Decimal> for J {
    fn from(v: Decimal) -> J {
        J::Dec(v)
    }
}
impl From<&str> for J {
    fn from(v: &str) -> J {
        J::Str(v.to_owned())
    }
}
impl From<String> for J {
    fn from(v: String) -> J {
        J::Str(v)
    }
}
impl From<&String> for J {
    fn from(v: &String) -> J {
        J::Str(v.clone())
    }
}
impl<T: Into<J>> From<Vec<T>> for J {
    fn from(v: Vec<T>) -> J {
        J::Arr(v.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<J>> From<Option<T>> for J {
    fn from(v: Option<T>) -> J {
        v.map_or(J::Null, Into::into)
    }
}

/// Converts a `serde_json::Value` into a [`J`].
///
/// Numbers go through their text, so integers stay exact; floats are as exact as serde_json kept
/// them (exact decimals should come as strings).
pub fn from_value(v: &serde_json::Value) -> J {
    match v {
        serde_json::Value::Null => J::Null,
        serde_json::Value::Bool(b) => J::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => J::Int(i),
            None => crate::decimal::parse_dec(&n.to_string()).map_or(J::Null, J::Dec),
        },
        serde_json::Value::String(s) => J::Str(s.clone()),
        serde_json::Value::Array(a) => J::Arr(a.iter().map(from_value).collect()),
        serde_json::Value::Object(o) => J::Obj(
            o.iter()
                .map(|(k, v)| (Cow::Owned(k.clone()), from_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn exact_numbers_and_escapes() {
        let d = Decimal::from_str("25.999999999999996").unwrap();
        let j = J::obj()
            .with("a", d)
            .with("b", "x\"y\n")
            .with("c", vec![J::Int(1), J::Null])
            .with("z", Decimal::from_str("1.500").unwrap());
        assert_eq!(
            j.to_json(),
            r#"{"a":25.999999999999996,"b":"x\"y\n","c":[1,null],"z":1.5}"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&j.to_json()).unwrap();
        assert_eq!(parsed["b"], "x\"y\n");
    }
}
