//! Tolerant serde helpers: the one place that knows how the exchange really writes its values.
//!
//! * numbers as JSON numbers or strings (`1.5`, `"1.5"`, `1e-07`), decoded exactly from their text
//!   (the token is borrowed as a [`RawValue`], never read as `f64`);
//! * empty strings and `null` as "absent" for optional fields;
//! * ids and counts as int or string;
//! * positional arrays (order book levels, candles) via the types that use a private sequence cursor.
//!
//! Every helper is used as `#[serde(with = "crate::de::NAME")]`; `rust_decimal` is built without its
//! `serde` feature, so a `Decimal` field without one of these helpers does not compile.
//!
//! DESIGN: the helpers borrow the token text from the input, so models decode from byte slices
//! (`serde_json::from_slice`, which is what [`crate::parse`] uses), not from `serde_json::Value` or
//! readers.

use rust_decimal::Decimal;
use serde::de::{Deserializer, Error as _};
use serde::ser::Serializer;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::num::parse_decimal;

/// The text of one JSON token: a number's digits, or a string's unescaped content.
pub(crate) enum Token<'a> {
    Null,
    Number(&'a str),
    Str(std::borrow::Cow<'a, str>),
    Bool(bool),
    Other(&'a str),
}

pub(crate) fn token<'de, D: Deserializer<'de>>(d: D) -> Result<Token<'de>, D::Error> {
    let raw: &'de RawValue = <&RawValue>::deserialize(d)?;
    Ok(classify(raw.get()))
}

fn classify(text: &str) -> Token<'_> {
    match text.as_bytes().first() {
        Some(b'"') => {
            let inner = text
                .get(1..text.len().saturating_sub(1))
                .unwrap_or_default();
            if inner.contains('\\') {
                match serde_json::from_str::<String>(text) {
                    Ok(s) => Token::Str(s.into()),
                    Err(_) => Token::Other(text),
                }
            } else {
                Token::Str(inner.into())
            }
        }
        Some(b'n') => Token::Null,
        Some(b't') => Token::Bool(true),
        Some(b'f') => Token::Bool(false),
        Some(b'-' | b'0'..=b'9') => Token::Number(text),
        _ => Token::Other(text),
    }
}

fn decimal_from<E: serde::de::Error>(text: &str) -> Result<Decimal, E> {
    parse_decimal(text).map_err(|e| E::custom(format_args!("invalid decimal {text:?}: {e}")))
}

fn unexpected<E: serde::de::Error>(what: &str, text: &str) -> E {
    let shown: String = text.chars().take(40).collect();
    E::custom(format_args!("expected {what}, found `{shown}`"))
}

/// Required decimal: JSON number or string, exact.
pub mod decimal {
    use super::*;

    /// Deserialize a decimal from a number or a string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        match token(d)? {
            Token::Number(t) => decimal_from(t),
            Token::Str(s) => decimal_from(&s),
            Token::Null => Err(D::Error::custom("expected a decimal, found null")),
            Token::Bool(_) | Token::Other(_) => Err(D::Error::custom("expected a decimal")),
        }
    }

    /// Serialize a decimal as a JSON string in plain notation.
    pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }
}

/// Optional decimal: `null`, `""` or a missing field are `None` (use with `#[serde(default)]`).
pub mod opt_decimal {
    use super::*;

    /// Deserialize an optional decimal.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
        match token(d)? {
            Token::Null => Ok(None),
            Token::Number(t) => decimal_from(t).map(Some),
            Token::Str(s) if s.trim().is_empty() => Ok(None),
            Token::Str(s) => decimal_from(&s).map(Some),
            Token::Bool(_) | Token::Other(_) => Err(D::Error::custom("expected a decimal")),
        }
    }

    /// Serialize as a plain-notation string, or `null`.
    pub fn serialize<S: Serializer>(v: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.collect_str(v),
            None => s.serialize_none(),
        }
    }
}

/// A decimal that may be absent, `null` or `""`, read as zero (for balances the server omits).
pub mod decimal_or_zero {
    use super::*;

    /// Deserialize; absent forms become zero.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        super::opt_decimal::deserialize(d).map(Option::unwrap_or_default)
    }

    /// Serialize as a plain-notation string.
    pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }
}

/// An id that arrives as a JSON integer or string; kept as a `String` (swap ids exceed 2^53).
pub mod id {
    use super::*;

    /// Deserialize an id from an integer or a string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        match token(d)? {
            Token::Number(t) if t.bytes().all(|b| b.is_ascii_digit() || b == b'-') => {
                Ok(t.to_owned())
            }
            Token::Str(s) => Ok(s.into_owned()),
            Token::Null => Err(D::Error::custom("expected an id, found null")),
            Token::Number(t) | Token::Other(t) => Err(unexpected("an id", t)),
            Token::Bool(_) => Err(D::Error::custom("expected an id, found a boolean")),
        }
    }

    /// Serialize as a string.
    pub fn serialize<S: Serializer>(v: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v)
    }
}

/// Optional id: `null`, `""` or missing are `None`.
pub mod opt_id {
    use super::*;

    /// Deserialize an optional id.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        match token(d)? {
            Token::Null => Ok(None),
            Token::Str(s) if s.is_empty() => Ok(None),
            Token::Str(s) => Ok(Some(s.into_owned())),
            Token::Number(t) if t.bytes().all(|b| b.is_ascii_digit() || b == b'-') => {
                Ok(Some(t.to_owned()))
            }
            Token::Number(t) | Token::Other(t) => Err(unexpected("an id", t)),
            Token::Bool(_) => Err(D::Error::custom("expected an id, found a boolean")),
        }
    }

    /// Serialize as a string or `null`.
    pub fn serialize<S: Serializer>(v: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.serialize_str(v),
            None => s.serialize_none(),
        }
    }
}

/// A list of ids, each an integer or a string; `null` is an empty list.
pub mod id_list {
    use super::*;
    use serde::de::{SeqAccess, Visitor};

    struct IdSeed;

    impl<'de> serde::de::DeserializeSeed<'de> for IdSeed {
        type Value = String;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
            super::id::deserialize(d)
        }
    }

    struct ListVisitor;

    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of ids")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
            while let Some(id) = seq.next_element_seed(IdSeed)? {
                out.push(id);
            }
            Ok(out)
        }
    }

    /// Deserialize a list of ids.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        d.deserialize_any(ListVisitor)
    }

    /// Serialize as a list of strings.
    pub fn serialize<S: Serializer>(v: &[String], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v)
    }
}

/// A list that may be `null` (read as empty). Use as
/// `#[serde(default, deserialize_with = "crate::de::vec")]`, so missing is empty too.
pub fn vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<Vec<T>>::deserialize(d).map(Option::unwrap_or_default)
}

/// Optional string: `null`, `""` or missing are `None`; numbers are kept as their text.
pub mod opt_string {
    use super::*;

    /// Deserialize an optional string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        match token(d)? {
            Token::Null => Ok(None),
            Token::Str(s) if s.is_empty() => Ok(None),
            Token::Str(s) => Ok(Some(s.into_owned())),
            Token::Number(t) => Ok(Some(t.to_owned())),
            Token::Bool(b) => Ok(Some(b.to_string())),
            Token::Other(t) => Err(unexpected("a string", t)),
        }
    }

    /// Serialize as a string or `null`.
    pub fn serialize<S: Serializer>(v: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.serialize_str(v),
            None => s.serialize_none(),
        }
    }
}

/// A string that may arrive as `null` or a number; `null` and missing are `""`.
pub mod string {
    use super::*;

    /// Deserialize a lenient string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        super::opt_string::deserialize(d).map(Option::unwrap_or_default)
    }

    /// Serialize as a string.
    pub fn serialize<S: Serializer>(v: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v)
    }
}

/// `-?[0-9]{1,18}` as an integer, without the general parser; anything else is `None`.
fn small_int(t: &[u8]) -> Option<i128> {
    let (negative, digits) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, t),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &b in digits {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        // At most 18 digits: below 10^18, so this cannot overflow.
        v = v * 10 + i64::from(digit);
    }
    Some(i128::from(if negative { -v } else { v }))
}

/// The JSON integer `-?[0-9]{1,18}` at the start of `bytes` and its length, when a delimiter
/// (not a fraction or exponent) follows it.
#[inline]
fn int_prefix(bytes: &[u8]) -> Option<(i128, usize)> {
    let negative = bytes.first() == Some(&b'-');
    let digits = bytes.get(usize::from(negative)..)?;
    let mut v: i64 = 0;
    let mut n = 0usize;
    for &b in digits.iter().take(18) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        // At most 18 digits: below 10^18, so this cannot overflow.
        v = v * 10 + i64::from(digit);
        n += 1;
    }
    match digits.get(n) {
        _ if n == 0 => None,
        Some(b'0'..=b'9' | b'.' | b'e' | b'E') => None,
        _ => Some((
            i128::from(if negative { -v } else { v }),
            n + usize::from(negative),
        )),
    }
}

/// Parses an integer token (number or string) into `T`; a number with a zero fraction (`8.0`) is
/// accepted, any other fraction is an error.
fn integer_from<T: TryFrom<i128>, E: serde::de::Error>(text: &str) -> Result<T, E> {
    // ASCII whitespace only, as `parse_decimal` trims: `"3\u000b"` is not an integer.
    let t = text.trim_ascii();
    let value: i128 = match small_int(t.as_bytes()) {
        Some(v) => v,
        None => match t.parse::<i128>() {
            Ok(v) => v,
            Err(_) => {
                let d = parse_decimal(t).map_err(|_| unexpected::<E>("an integer", t))?;
                if !d.fract().is_zero() {
                    return Err(unexpected("an integer", t));
                }
                i128::try_from(d.trunc()).map_err(|_| unexpected::<E>("an integer", t))?
            }
        },
    };
    T::try_from(value).map_err(|_| {
        E::custom(format_args!(
            "integer {t} out of range for {}",
            std::any::type_name::<T>()
        ))
    })
}

/// Required integer: JSON number or string.
pub mod int {
    use super::*;

    /// Deserialize an integer from a number or a string.
    pub fn deserialize<'de, D, T>(d: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: TryFrom<i128>,
    {
        match token(d)? {
            Token::Number(t) => integer_from(t),
            Token::Str(s) => integer_from(&s),
            Token::Null => Err(D::Error::custom("expected an integer, found null")),
            Token::Bool(_) | Token::Other(_) => Err(D::Error::custom("expected an integer")),
        }
    }

    /// Serialize as a JSON number.
    pub fn serialize<S: Serializer, T: serde::Serialize>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
}

/// Optional integer: `null`, `""` or missing are `None`.
pub mod opt_int {
    use super::*;

    /// Deserialize an optional integer.
    pub fn deserialize<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: TryFrom<i128>,
    {
        match token(d)? {
            Token::Null => Ok(None),
            Token::Str(s) if s.trim().is_empty() => Ok(None),
            Token::Str(s) => integer_from(&s).map(Some),
            Token::Number(t) => integer_from(t).map(Some),
            Token::Bool(_) | Token::Other(_) => Err(D::Error::custom("expected an integer")),
        }
    }

    /// Serialize as a JSON number or `null`.
    pub fn serialize<S: Serializer, T: serde::Serialize>(
        v: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(v, s)
    }
}

/// A flag sent as `1`/`0`, `"1"`/`"0"` or `true`/`false`; `null` or missing are `None`.
pub mod opt_flag {
    use super::*;

    /// Deserialize an optional flag.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        match token(d)? {
            Token::Null => Ok(None),
            Token::Bool(b) => Ok(Some(b)),
            Token::Str(s) if s.is_empty() => Ok(None),
            Token::Str(s) => flag(&s).map(Some),
            Token::Number(t) => flag(t).map(Some),
            Token::Other(t) => Err(unexpected("a flag", t)),
        }
    }

    fn flag<E: serde::de::Error>(t: &str) -> Result<bool, E> {
        match t.trim() {
            "1" | "true" => Ok(true),
            "0" | "false" => Ok(false),
            other => Err(unexpected("a flag (0 or 1)", other)),
        }
    }

    /// Serialize as a JSON boolean or `null`.
    pub fn serialize<S: Serializer>(v: &Option<bool>, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }

    use serde::Serialize;
}

/// Reads a positional JSON array (`[price, amount]`, candles) whole: the array is taken as one
/// [`RawValue`] (serde_json has then checked its syntax) and its elements are read straight from
/// that text, instead of one serde round trip per element. `read` takes the leading elements it
/// needs; any further elements are ignored (servers may append columns).
pub(crate) fn positional<'de, D, T>(
    d: D,
    what: &'static str,
    read: impl FnOnce(&mut Columns<'de, D::Error>) -> Result<T, D::Error>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let raw: &'de RawValue = <&RawValue>::deserialize(d)?;
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'[') => {
            let mut columns = Columns {
                text,
                pos: 1,
                index: 0,
                what,
                error: std::marker::PhantomData,
            };
            let value = read(&mut columns)?;
            columns.finish()?;
            Ok(value)
        }
        _ => Err(D::Error::custom(format_args!(
            "expected a {what} array, found `{}`",
            text.chars().take(40).collect::<String>()
        ))),
    }
}

/// Whether the first `read` bytes of `bytes`, a plain number (`-?[0-9]*(\.[0-9]*)?`), are a JSON
/// number followed by a separator: no leading zero, digits on both sides of the dot.
#[inline]
fn plain_json(bytes: &[u8], read: usize) -> bool {
    let unsigned = bytes
        .get(usize::from(bytes.first() == Some(&b'-'))..)
        .unwrap_or_default();
    !matches!(unsigned, [b'.', ..] | [b'0', b'0'..=b'9', ..])
        && read.checked_sub(1).and_then(|last| bytes.get(last)) != Some(&b'.')
        && matches!(
            bytes.get(read),
            Some(b',' | b']' | b' ' | b'\t' | b'\n' | b'\r')
        )
}

/// Whether `t` is exactly one JSON number.
fn is_json_number(t: &[u8]) -> bool {
    let digits = |mut i: usize| {
        while t.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = usize::from(t.first() == Some(&b'-'));
    match t.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i + 1),
        _ => return false,
    }
    if t.get(i) == Some(&b'.') {
        let end = digits(i + 1);
        if end == i + 1 {
            return false;
        }
        i = end;
    }
    if let Some(b'e' | b'E') = t.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = t.get(i) {
            i += 1;
        }
        let end = digits(i);
        if end == i {
            return false;
        }
        i = end;
    }
    i == t.len()
}

/// The elements of a positional array's raw text, read left to right (see [`positional`]).
pub(crate) struct Columns<'a, E> {
    /// The whole array text, starting with `[`: syntactically valid JSON, or (from the
    /// single-pass reader, see [`crate::tap`]) a flat array whose syntax has not been checked.
    ///
    /// DESIGN: a flat array (no string, array or object inside) is checked here, in the same
    /// pass that reads it: every token read must be a JSON number or literal, separators are
    /// strict, and [`Self::finish`] checks the elements left unread. Any other array has been
    /// checked by whoever handed it over (serde_json's `RawValue`, or the single-pass reader).
    text: &'a str,
    /// Byte offset of the next unread character.
    pos: usize,
    /// Index of the next element.
    index: usize,
    what: &'static str,
    error: std::marker::PhantomData<fn() -> E>,
}

impl<'a, E: serde::de::Error> Columns<'a, E> {
    /// Moves to the start of the next element (past whitespace and the separator), or reports
    /// that there is none.
    fn advance(&mut self) -> Result<(), E> {
        let index = self.index;
        match self.step() {
            Some(true) => Ok(()),
            Some(false) => Err(E::custom(format_args!(
                "{} has no element {index}",
                self.what
            ))),
            None => Err(self.not_json()),
        }
    }

    /// [`Self::advance`] as a flag: whether there is a next element (`None`: the separator is
    /// missing, which is not JSON).
    fn step(&mut self) -> Option<bool> {
        let bytes = self.text.as_bytes();
        let mut pos = self.pos;
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
            pos += 1;
        }
        if self.index > 0 && bytes.get(pos) == Some(&b',') {
            pos += 1;
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
                pos += 1;
            }
            if bytes.get(pos) == Some(&b']') {
                // A trailing comma: not JSON.
                return None;
            }
        } else if self.index > 0 && bytes.get(pos) != Some(&b']') {
            // Two elements without a separator: not JSON.
            return None;
        }
        self.index += 1;
        self.pos = pos;
        Some(!matches!(bytes.get(pos), None | Some(b']')))
    }

    /// The token at the current position (after [`Self::advance`]).
    fn token(&mut self) -> Token<'a> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        if bytes.get(start) == Some(&b'"') {
            // The text is valid JSON, so the string has a closing quote; an escape skips the
            // character after the backslash.
            let mut end = start + 1;
            let mut escaped = false;
            loop {
                match bytes.get(end) {
                    Some(b'"') | None => break,
                    Some(b'\\') => {
                        escaped = true;
                        end += 2;
                    }
                    Some(_) => end += 1,
                }
            }
            self.pos = end + 1;
            if escaped {
                classify(self.text.get(start..=end).unwrap_or_default())
            } else {
                Token::Str(self.text.get(start + 1..end).unwrap_or_default().into())
            }
        } else {
            let mut end = start;
            while let Some(&b) = bytes.get(end) {
                if matches!(b, b',' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                end += 1;
            }
            self.pos = end;
            let text = self.text.get(start..end).unwrap_or_default();
            // The array may be unchecked (see `text`): only an exact JSON number or literal is
            // one.
            let valid = match text.as_bytes().first() {
                Some(b'-' | b'0'..=b'9') => is_json_number(text.as_bytes()),
                _ => matches!(text, "null" | "true" | "false"),
            };
            if valid {
                classify(text)
            } else {
                Token::Other(text)
            }
        }
    }

    /// Checks the elements left unread and the end of the array (see `text`).
    fn finish(&mut self) -> Result<(), E> {
        loop {
            let index = self.index;
            match self.step() {
                Some(true) => {}
                Some(false) => break,
                None => return Err(self.not_json()),
            }
            match self.text.as_bytes().get(self.pos) {
                // Strings and containers only occur in checked arrays.
                Some(b'"' | b'[' | b'{') => return Ok(()),
                _ => {
                    if let Token::Other(_) = self.token() {
                        return Err(E::custom(format_args!(
                            "{} element {index} is not JSON",
                            self.what
                        )));
                    }
                }
            }
        }
        if self.pos + 1 == self.text.len() {
            Ok(())
        } else {
            Err(self.not_json())
        }
    }

    fn not_json(&self) -> E {
        E::custom(format_args!("{} is not a JSON array", self.what))
    }

    fn not_a(&self, kind: &str) -> E {
        E::custom(format_args!(
            "{} element {} is {kind}",
            self.what,
            self.index.saturating_sub(1)
        ))
    }

    /// The next element as an exact decimal.
    #[inline]
    pub(crate) fn decimal(&mut self) -> Result<Decimal, E> {
        // Fast path: no whitespace, a plain number.
        let bytes = self.text.as_bytes();
        let mut pos = self.pos;
        if self.index > 0 {
            if bytes.get(pos) != Some(&b',') {
                return self.decimal_slow();
            }
            pos += 1;
        }
        if bytes.get(pos) == Some(&b'"') {
            return self.decimal_quoted(pos + 1);
        }
        let rest = bytes.get(pos..).unwrap_or_default();
        match crate::num::parse_plain_prefix(rest) {
            Some((d, read)) if plain_json(rest, read) => {
                self.pos = pos + read;
                self.index += 1;
                Ok(d)
            }
            _ => self.decimal_slow(),
        }
    }

    /// [`Self::decimal`] for a string starting at `start`: fast when it holds only a plain
    /// number (swap prices).
    #[inline]
    fn decimal_quoted(&mut self, start: usize) -> Result<Decimal, E> {
        let bytes = self.text.as_bytes();
        match crate::num::parse_plain_prefix(bytes.get(start..).unwrap_or_default()) {
            Some((d, read)) if bytes.get(start + read) == Some(&b'"') => {
                self.pos = start + read + 1;
                self.index += 1;
                Ok(d)
            }
            _ => self.decimal_slow(),
        }
    }

    /// The next element as an optional decimal: missing, `null` or `""` are `None`.
    pub(crate) fn opt_decimal(&mut self) -> Result<Option<Decimal>, E> {
        match self.step() {
            Some(true) => {}
            Some(false) => return Ok(None),
            None => return Err(self.not_json()),
        }
        match self.token() {
            Token::Null => Ok(None),
            Token::Str(s) if s.is_empty() => Ok(None),
            Token::Str(s) => decimal_from(&s).map(Some),
            Token::Number(t) => decimal_from(t).map(Some),
            _ => Err(self.not_a("not a decimal")),
        }
    }

    /// [`Self::decimal`] for any layout and token.
    #[inline(never)]
    fn decimal_slow(&mut self) -> Result<Decimal, E> {
        self.advance()?;
        match self.token() {
            Token::Number(t) => decimal_from(t),
            Token::Str(s) => decimal_from(&s),
            _ => Err(self.not_a("not a decimal")),
        }
    }

    /// The next element as an integer.
    #[inline]
    pub(crate) fn int<T: TryFrom<i128>>(&mut self) -> Result<T, E> {
        // Fast path: no whitespace, a plain integer that fits the target.
        let bytes = self.text.as_bytes();
        let mut pos = self.pos;
        if self.index == 0 || bytes.get(pos) == Some(&b',') {
            pos += usize::from(self.index > 0);
            let rest = bytes.get(pos..).unwrap_or_default();
            if let Some((v, end)) = int_prefix(rest).filter(|&(_, end)| plain_json(rest, end)) {
                if let Ok(v) = T::try_from(v) {
                    self.pos = pos + end;
                    self.index += 1;
                    return Ok(v);
                }
            }
        }
        self.int_slow()
    }

    /// [`Self::int`] for any layout and token.
    #[inline(never)]
    fn int_slow<T: TryFrom<i128>>(&mut self) -> Result<T, E> {
        self.advance()?;
        match self.token() {
            Token::Number(t) => integer_from(t),
            Token::Str(s) => integer_from(&s),
            _ => Err(self.not_a("not an integer")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::str::FromStr;

    #[derive(Deserialize)]
    struct D {
        #[serde(with = "decimal")]
        v: Decimal,
    }

    #[derive(Deserialize)]
    struct O {
        #[serde(default, with = "opt_decimal")]
        v: Option<Decimal>,
    }

    #[derive(Deserialize)]
    struct I {
        #[serde(with = "id")]
        v: String,
    }

    #[derive(Deserialize)]
    struct N {
        #[serde(with = "int")]
        v: u32,
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn decimal_from_number_and_string() {
        for (json, want) in [
            (r#"{"v":0.01}"#, "0.01"),
            (r#"{"v":"0.01"}"#, "0.01"),
            (r#"{"v":1e-07}"#, "0.0000001"),
            (r#"{"v":"1e-07"}"#, "0.0000001"),
            (r#"{"v":25.999999999999996}"#, "25.999999999999996"),
            (r#"{"v":12}"#, "12"),
            (r#"{"v":-3.5}"#, "-3.5"),
        ] {
            let got: D = serde_json::from_str(json).unwrap();
            assert_eq!(got.v, dec(want), "{json}");
            assert_eq!(got.v.to_string(), want, "{json}");
        }
        for bad in [
            r#"{"v":null}"#,
            r#"{"v":""}"#,
            r#"{"v":"x"}"#,
            r#"{"v":true}"#,
            r#"{"v":[]}"#,
        ] {
            assert!(serde_json::from_str::<D>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn optional_decimal_absent_forms() {
        for json in [r#"{}"#, r#"{"v":null}"#, r#"{"v":""}"#, r#"{"v":"  "}"#] {
            assert_eq!(serde_json::from_str::<O>(json).unwrap().v, None, "{json}");
        }
        assert_eq!(
            serde_json::from_str::<O>(r#"{"v":"2.50"}"#).unwrap().v,
            Some(dec("2.50"))
        );
    }

    #[test]
    fn ids_from_int_or_string() {
        let big = r#"{"v":1234567890123456789012}"#;
        assert_eq!(
            serde_json::from_str::<I>(big).unwrap().v,
            "1234567890123456789012"
        );
        assert_eq!(
            serde_json::from_str::<I>(r#"{"v":"a1b2"}"#).unwrap().v,
            "a1b2"
        );
        assert!(serde_json::from_str::<I>(r#"{"v":1.5}"#).is_err());
    }

    #[test]
    fn ints_from_number_string_or_whole_float() {
        assert_eq!(serde_json::from_str::<N>(r#"{"v":8}"#).unwrap().v, 8);
        assert_eq!(serde_json::from_str::<N>(r#"{"v":"8"}"#).unwrap().v, 8);
        assert_eq!(serde_json::from_str::<N>(r#"{"v":8.0}"#).unwrap().v, 8);
        assert!(serde_json::from_str::<N>(r#"{"v":8.5}"#).is_err());
        assert!(serde_json::from_str::<N>(r#"{"v":-1}"#).is_err());
        assert!(serde_json::from_str::<N>(r#"{"v":99999999999}"#).is_err());
    }

    #[test]
    fn positional_arrays_in_any_layout() {
        struct P(Decimal, i64, Decimal);
        impl<'de> Deserialize<'de> for P {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                positional(d, "row", |c| Ok(P(c.decimal()?, c.int()?, c.decimal()?)))
            }
        }
        for json in [
            r#"[1.50,2,"0.0000001"]"#,
            r#"[ 1.50 , 2 , 1e-07 , {"x":[1]}, "y" ]"#,
            "[\n\t1.50,\"2\",\"1E-7\"]",
            r#"["\u0031.50",2.0,"0.0000001"]"#,
        ] {
            let P(a, b, c) = serde_json::from_str(json).unwrap();
            assert_eq!(
                (a.to_string(), b, c),
                ("1.50".into(), 2, dec("0.0000001")),
                "{json}"
            );
        }
        for bad in [
            "[1.5,2]",
            "[]",
            r#"[1.5,2.5,3]"#,
            r#"[1.5,2,null]"#,
            r#"[true,2,3]"#,
            "{}",
            "null",
        ] {
            assert!(serde_json::from_str::<P>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn positional_quoted_numbers_and_optional_tail() {
        struct Q(Decimal, Option<Decimal>);
        impl<'de> Deserialize<'de> for Q {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                positional(d, "row", |c| Ok(Q(c.decimal()?, c.opt_decimal()?)))
            }
        }
        for (json, a, b) in [
            (r#"["1.50"]"#, "1.50", None),
            (r#"["1.5\u0030",null]"#, "1.50", None),
            (r#"[" 1.5 ",""]"#, "1.5", None),
            (r#"["+1.5" , "2"]"#, "1.5", Some("2")),
            (r#"["-0.5",2e1,"x"]"#, "-0.5", Some("20")),
            (r#"[".5",-3]"#, "0.5", Some("-3")),
        ] {
            let Q(x, y) = serde_json::from_str(json).unwrap();
            assert_eq!(x.to_string(), a, "{json}");
            assert_eq!(y.map(|y| y.to_string()).as_deref(), b, "{json}");
        }
        for bad in [
            r#"["1.5x"]"#,
            r#"["1e"]"#,
            r#"[""]"#,
            r#"[1,"  "]"#,
            r#"[1,true]"#,
            r#"[1,[2]]"#,
            r#"[1,"y"]"#,
        ] {
            assert!(serde_json::from_str::<Q>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn escaped_strings_are_unescaped() {
        #[derive(Deserialize)]
        struct S {
            #[serde(with = "opt_string")]
            v: Option<String>,
        }
        let s: S = serde_json::from_str(r#"{"v":"a\"b\u00e9"}"#).unwrap();
        assert_eq!(s.v.as_deref(), Some("a\"bé"));
    }
}
