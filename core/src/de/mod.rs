//! Decoding, in one module: the one place that knows how the exchange really writes its values.
//!
//! * [`num`]: the one JSON-number scanner and the one exact decimal parser ([`parse_decimal`]);
//! * `reader` (private): the single-pass JSON reader of every answer, entered through
//!   `reader::decode_with_code` by [`crate::parse_body`]: it makes serde_json's visitor calls,
//!   so results are serde_json's, and names a failure's JSON path and position itself;
//! * this module: the tolerant field helpers every model uses, and the required/optional rule.
//!
//! Every model field goes through one of the helpers here (`#[serde(with = "crate::de::NAME")]`);
//! `rust_decimal` is built without its `serde` feature, so a `Decimal` field without one does not
//! compile.
//!
//! # What the venue sends (`docs/protocol.md`, "Drift every decoder must survive")
//!
//! * numbers as JSON numbers or strings (`1.5`, `"1.5"`, `1e-07`, `"4967.000000"`), decoded
//!   exactly from their text (the token is borrowed as a [`RawValue`], never read as `f64`);
//! * placeholders instead of a value: `null`, `""` (or blanks), dashes (`"-"`, `"--"`) and the
//!   words `null`, `none`, `nan`, `n/a` in any case;
//! * integer codes as numbers, numeric strings or words (`2`, `"2"`, `"filled"`), and words where
//!   integers are documented; values beyond the documented tables;
//! * acknowledgements without their `data` (see [`crate::parse_body`]);
//! * fields the documents do not list (ignored unless a model types them).
//!
//! # The rule: required and optional fields
//!
//! DESIGN: a field is **required** only when a caller cannot use the record without it:
//! 1. the identity of what the caller acts on: an order id, a trade id, a withdrawal id;
//! 2. the key of a row in a keyed listing: the pair of a ticker or symbol row, the currency of
//!    a balance row, the instrument of an instrument row;
//! 3. the leading columns of a positional row: a book level's price and size, a candle's time
//!    and prices;
//! 4. the value that is the whole answer (a server time, the id of a placed order).
//!
//! Every other field is **optional** (`Option<T>`, or an empty list): missing, a placeholder, or
//! unreadable, it is `None`. A required field that is missing, a placeholder or unreadable fails
//! the answer with [`crate::Error::Decode`] naming its JSON path. An *unreadable* optional value
//! (text where a number belongs, an object where a string belongs, a number out of range) is
//! taken as absent and does not fail the answer: one bad ticker row never hides the other 100.
//! It is reported instead: [`crate::parse_body`] logs a `tracing` warning (target
//! `digifinex_core::decode`) naming the JSON path, and [`crate::endpoint::parse_body_report`]
//! returns the list. A placeholder is not reported: it is how the venue says "no value".
//! Placeholders concern values with a type (numbers, timestamps, codes, flags, pairs, ids);
//! free text keeps `-` as written, and only empty text or `null` is absent.
//!
//! The helpers, by field kind:
//!
//! | field | required | optional |
//! |---|---|---|
//! | decimal | [`decimal`] | [`opt_decimal`] (alias of [`opt`]) |
//! | integer, timestamp, flag, open enum, [`crate::types::Pair`] | the type's own `Deserialize`, or [`req`] | [`opt`] ([`opt_int`], [`opt_flag`]) |
//! | id | [`id`] | [`opt_id`] |
//! | text | [`text`] | [`opt_string`] |
//! | list | | [`vec()`] (absent or a placeholder is empty) |
//! | list of ids / keys / scalars | elements: [`id_list`], [`text_list`] | elements: [`scalar_list`] (dropped when absent) |
//! | nested object | | [`opt_object`] |
//!
//! DESIGN: the helpers borrow the token text from the input, so models decode from byte slices
//! (`serde_json::from_slice`, which is what [`crate::parse`] uses), not from `serde_json::Value`
//! or readers.

use std::cell::Cell;

use rust_decimal::Decimal;
use serde::de::{Deserializer, Error as _};
use serde::ser::Serializer;
use serde::Deserialize;
use serde_json::value::RawValue;

pub mod num;
pub(crate) mod reader;

pub use num::parse_decimal;

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

/// Whether `text` (a JSON string's content) is one of the venue's "no value" placeholders:
/// blank, dashes only (`-`, `--`), or `null`, `none`, `nan`, `n/a` in any case.
pub fn is_placeholder(text: &str) -> bool {
    // Decided at once for the usual value, which starts with a digit or a letter other than n.
    if let Some(b) = text.as_bytes().first() {
        if b.is_ascii_alphanumeric() && !matches!(b, b'n' | b'N') {
            return false;
        }
    }
    let t = text.trim();
    // Decided by the first byte: a number's text is rejected at once.
    match t.as_bytes().first() {
        None => true,
        Some(b'-') => t.bytes().all(|b| b == b'-'),
        Some(b'n' | b'N') => ["null", "none", "nan", "n/a"]
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w)),
        Some(_) => false,
    }
}

fn decimal_from<E: serde::de::Error>(text: &str) -> Result<Decimal, E> {
    parse_decimal(text).map_err(|e| E::custom(format_args!("invalid decimal {text:?}: {e}")))
}

fn shown(text: &str) -> String {
    text.chars().take(40).collect()
}

fn unexpected<E: serde::de::Error>(what: &str, text: &str) -> E {
    E::custom(format_args!("expected {what}, found `{}`", shown(text)))
}

// ---------------------------------------------------------------------------------------------
// Unreadable optional values

/// An optional value that could not be read and was taken as absent (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unreadable {
    /// JSON path of the value in the body (`ticker[3].last`, `data.mark_price`).
    pub path: String,
    /// What was expected and found (`expected a decimal, found \`abc\``).
    pub problem: String,
}

/// Counting of unreadable optional values during one decode, per thread.
///
/// DESIGN: the serde helpers have no context to report into, so they count in a thread-local
/// cell (a decode never leaves its thread). The hot path pays two thread-local accesses per
/// answer. Only when the count is not zero is the body decoded again, in *report* mode, where
/// the n-th unreadable value fails instead, so that a path-tracking decode names its JSON path.
pub(crate) mod unreadable {
    use super::*;

    #[derive(Clone, Copy)]
    struct State {
        count: u32,
        fail_at: Option<u32>,
    }

    thread_local! {
        static STATE: Cell<State> = const { Cell::new(State { count: 0, fail_at: None }) };
    }

    /// Starts counting (normal mode).
    pub(crate) fn reset() {
        STATE.with(|s| {
            s.set(State {
                count: 0,
                fail_at: None,
            })
        });
    }

    /// The values counted since [`reset`].
    pub(crate) fn count() -> u32 {
        STATE.with(|s| s.get().count)
    }

    /// Report mode: the `n`-th unreadable value (from 0) fails the decode; normal mode again
    /// when the guard drops.
    pub(crate) fn fail_at(n: u32) -> Guard {
        STATE.with(|s| {
            s.set(State {
                count: 0,
                fail_at: Some(n),
            })
        });
        Guard
    }

    pub(crate) struct Guard;

    impl Drop for Guard {
        fn drop(&mut self) {
            reset();
        }
    }

    /// Notes one unreadable optional value: `Ok` to take it as absent, or (report mode) the
    /// error that names it.
    pub(crate) fn note<E: serde::de::Error>(what: &str, text: &str) -> Result<(), E> {
        let fail = STATE.with(|s| {
            let mut st = s.get();
            let fail = st.fail_at == Some(st.count);
            st.count = st.count.saturating_add(1);
            s.set(st);
            fail
        });
        if fail {
            Err(unexpected(what, text))
        } else {
            Ok(())
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scalars: one token each

/// A token's content as a [`Scalar`] reads it (placeholders and `null` never reach it).
#[derive(Debug, Clone, Copy)]
pub enum Raw<'a> {
    /// A JSON number's text.
    Number(&'a str),
    /// A JSON string's (unescaped) content.
    Text(&'a str),
    /// A JSON boolean.
    Bool(bool),
}

impl<'a> Raw<'a> {
    /// The token's text (a number's digits, a string's content, `true`/`false`).
    pub fn text(&self) -> &'a str {
        match self {
            Raw::Number(t) | Raw::Text(t) => t,
            Raw::Bool(true) => "true",
            Raw::Bool(false) => "false",
        }
    }
}

/// A value the exchange writes as one JSON token: decimals, integers, timestamps, flags, open
/// enums, pairs. [`req`] and [`opt`] apply the required/optional rule to any of them.
pub trait Scalar: Sized {
    /// What the value is called in messages (`a decimal`).
    const EXPECTED: &'static str;
    /// Reads the token; `None` when it is not such a value.
    fn read(raw: Raw<'_>) -> Option<Self>;
    /// Writes the value for the CLI's JSON output.
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
}

impl Scalar for Decimal {
    const EXPECTED: &'static str = "a decimal";
    #[inline]
    fn read(raw: Raw<'_>) -> Option<Self> {
        match raw {
            Raw::Number(t) | Raw::Text(t) => parse_decimal(t).ok(),
            Raw::Bool(_) => None,
        }
    }
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::money::serialize_decimal(self, s)
    }
}

macro_rules! scalar_int {
    ($($t:ty),+) => {$(
        impl Scalar for $t {
            const EXPECTED: &'static str = "an integer";
            #[inline]
            fn read(raw: Raw<'_>) -> Option<Self> {
                match raw {
                    Raw::Number(t) | Raw::Text(t) => integer(t),
                    Raw::Bool(_) => None,
                }
            }
            fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(self, s)
            }
        }
    )+};
}
scalar_int!(u8, u16, u32, u64, i32, i64);

/// A flag: `true`/`false`, `1`/`0`, `"1"`/`"0"`, `"true"`/`"false"`.
impl Scalar for bool {
    const EXPECTED: &'static str = "a flag (0 or 1)";
    fn read(raw: Raw<'_>) -> Option<Self> {
        match raw {
            Raw::Bool(b) => Some(b),
            Raw::Number(t) | Raw::Text(t) => match t.trim_ascii() {
                "1" | "true" => Some(true),
                "0" | "false" => Some(false),
                _ => None,
            },
        }
    }
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(*self)
    }
}

/// The token of `d` as a [`Raw`], or `None` for `null` and placeholders.
fn present<'a>(token: &'a Token<'a>) -> Option<Raw<'a>> {
    match token {
        Token::Null => None,
        Token::Number(t) => Some(Raw::Number(t)),
        Token::Str(s) if is_placeholder(s) => None,
        Token::Str(s) => Some(Raw::Text(s)),
        Token::Bool(b) => Some(Raw::Bool(*b)),
        Token::Other(t) => Some(Raw::Text(t)),
    }
}

/// Reads a required scalar from a token.
pub(crate) fn required<T: Scalar, E: serde::de::Error>(token: Token<'_>) -> Result<T, E> {
    // Fast path first: a plain number or string that reads.
    let raw = match &token {
        Token::Number(t) => Raw::Number(t),
        Token::Str(s) => Raw::Text(s),
        Token::Bool(b) => Raw::Bool(*b),
        Token::Null => {
            return Err(E::custom(format_args!(
                "expected {}, found null",
                T::EXPECTED
            )))
        }
        Token::Other(t) => return Err(unexpected(T::EXPECTED, t)),
    };
    let placeholder = matches!(raw, Raw::Text(t) if is_placeholder(t));
    match T::read(raw) {
        Some(v) if !placeholder => Ok(v),
        _ if placeholder => Err(E::custom(format_args!(
            "expected {}, found the placeholder {:?}",
            T::EXPECTED,
            raw.text()
        ))),
        _ => Err(unexpected(T::EXPECTED, raw.text())),
    }
}

/// Reads an optional scalar from a token: `null` and placeholders are `None`; an unreadable
/// value is `None` and noted (see [`Unreadable`]).
pub(crate) fn optional<T: Scalar, E: serde::de::Error>(token: Token<'_>) -> Result<Option<T>, E> {
    if let Token::Number(t) = token {
        // Fast path: numbers are never placeholders.
        if let Some(v) = T::read(Raw::Number(t)) {
            return Ok(Some(v));
        }
        unreadable::note::<E>(T::EXPECTED, t)?;
        return Ok(None);
    }
    let Some(raw) = present(&token) else {
        return Ok(None);
    };
    if let (Token::Other(_), Raw::Text(t)) = (&token, raw) {
        // An object or array where a scalar belongs.
        unreadable::note::<E>(T::EXPECTED, t)?;
        return Ok(None);
    }
    match T::read(raw) {
        Some(v) => Ok(Some(v)),
        None => {
            unreadable::note::<E>(T::EXPECTED, raw.text())?;
            Ok(None)
        }
    }
}

/// Required scalar (a field the caller cannot do without; see the module docs).
pub mod req {
    use super::*;

    /// Deserialize a required scalar: `null`, a placeholder or an unreadable value is an error.
    pub fn deserialize<'de, D: Deserializer<'de>, T: Scalar>(d: D) -> Result<T, D::Error> {
        required(token(d)?)
    }

    /// Serialize the scalar.
    pub fn serialize<S: Serializer, T: Scalar>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.write(s)
    }
}

/// Optional scalar: missing (with `#[serde(default)]`), `null` or a placeholder are `None`; an
/// unreadable value is `None` and reported (see the module docs).
pub mod opt {
    use super::*;

    /// Deserialize an optional scalar.
    pub fn deserialize<'de, D: Deserializer<'de>, T: Scalar>(d: D) -> Result<Option<T>, D::Error> {
        optional(token(d)?)
    }

    /// Serialize the scalar, or `null`.
    pub fn serialize<S: Serializer, T: Scalar>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => v.write(s),
            None => s.serialize_none(),
        }
    }
}

/// Required decimal: JSON number or string, exact.
pub mod decimal {
    use super::*;

    /// Deserialize a decimal from a number or a string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        match token(d)? {
            // Fast path: the usual number.
            Token::Number(t) => decimal_from(t),
            other => required(other),
        }
    }

    /// Serialize a decimal as a JSON string in plain notation.
    pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        crate::money::serialize_decimal(v, s)
    }
}

/// Optional decimal (the optional rule, [`opt`], for decimals).
pub mod opt_decimal {
    pub use super::opt::{deserialize, serialize};
}

/// Optional integer (the optional rule, [`opt`], for integers).
pub mod opt_int {
    pub use super::opt::{deserialize, serialize};
}

/// Optional flag (the optional rule, [`opt`], for `1`/`0`/`true`/`false`).
pub mod opt_flag {
    pub use super::opt::{deserialize, serialize};
}

/// Whether an id token is usable: an integer's digits or a non-placeholder string.
fn id_text<'a>(token: &'a Token<'a>) -> Result<Option<&'a str>, &'a str> {
    match token {
        Token::Number(t) if t.bytes().all(|b| b.is_ascii_digit() || b == b'-') => Ok(Some(t)),
        Token::Str(s) if is_placeholder(s) => Ok(None),
        Token::Str(s) => Ok(Some(s)),
        Token::Null => Ok(None),
        Token::Number(t) | Token::Other(t) => Err(t),
        Token::Bool(true) => Err("true"),
        Token::Bool(false) => Err("false"),
    }
}

/// An id that arrives as a JSON integer or string; kept as a `String` (swap ids exceed 2^53).
/// Required: `null`, a placeholder or anything else is an error.
pub mod id {
    use super::*;

    /// Deserialize an id from an integer or a string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        let t = token(d)?;
        match id_text(&t) {
            Ok(Some(s)) => Ok(s.to_owned()),
            Ok(None) => Err(D::Error::custom(match &t {
                Token::Null => "expected an id, found null".to_owned(),
                _ => "expected an id, found a placeholder".to_owned(),
            })),
            Err(other) => Err(unexpected("an id", other)),
        }
    }

    /// Serialize as a string.
    pub fn serialize<S: Serializer>(v: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v)
    }
}

/// Optional id: missing, `null` or a placeholder are `None`; anything unreadable is `None` and
/// reported.
pub mod opt_id {
    use super::*;

    /// Deserialize an optional id.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        let t = token(d)?;
        match id_text(&t) {
            Ok(v) => Ok(v.map(str::to_owned)),
            Err(other) => unreadable::note::<D::Error>("an id", other).map(|()| None),
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

/// An element of a list decoded by one of the helpers (see [`id_list`], [`text_list`],
/// [`scalar_list`]).
struct Element<T>(T);

/// An id element of [`id_list`].
impl<'de> Deserialize<'de> for Element<String> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        id::deserialize(d).map(Element)
    }
}

/// Text elements use [`text`] (a newtype keeps them apart from ids).
struct TextElement(String);

impl<'de> Deserialize<'de> for TextElement {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        text::deserialize(d).map(TextElement)
    }
}

/// An optional scalar element of [`scalar_list`].
impl<'de, T: Scalar> Deserialize<'de> for Element<Option<T>> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        optional(token(d)?).map(Element)
    }
}

/// A list of ids (a [`vec()`]: missing, `null` or a placeholder are empty); each element is a
/// required [`id`], so an element that is not an id fails the answer naming its index.
pub mod id_list {
    use super::*;

    /// Deserialize a list of ids.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        let list: Vec<Element<String>> = vec(d)?;
        Ok(list.into_iter().map(|e| e.0).collect())
    }

    /// Serialize as a list of strings.
    pub fn serialize<S: Serializer>(v: &[String], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v)
    }
}

/// A list of required text (a [`vec()`] whose elements are each [`text`], a key of its own, such
/// as a currency): a placeholder element fails the answer naming its index. Use with
/// `deserialize_with`.
pub fn text_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let list: Vec<TextElement> = vec(d)?;
    Ok(list.into_iter().map(|e| e.0).collect())
}

/// A list of optional scalars (a [`vec()`] of [`opt`] elements): a placeholder element is
/// dropped, an unreadable one is dropped and reported; the others keep their order. Use with
/// `deserialize_with`.
pub fn scalar_list<'de, D: Deserializer<'de>, T: Scalar>(d: D) -> Result<Vec<T>, D::Error> {
    let list: Vec<Element<Option<T>>> = vec(d)?;
    Ok(list.into_iter().filter_map(|e| e.0).collect())
}

/// An optional nested object (such as a listing's `page`): missing (with `#[serde(default)]`),
/// `null` or a placeholder are `None`; any other non-object value is `None` and reported (see
/// [`Unreadable`]). The object's members decode by their own rules, with their JSON paths. Use
/// with `deserialize_with`.
pub fn opt_object<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};

    struct ObjectVisitor<T>(std::marker::PhantomData<T>);

    impl<T> ObjectVisitor<T> {
        fn unreadable<E: serde::de::Error>(text: &str) -> Result<Option<T>, E> {
            unreadable::note::<E>("an object", text).map(|()| None)
        }
    }

    impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Some)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Option<T>, E> {
            if is_placeholder(v) {
                Ok(None)
            } else {
                Self::unreadable(v)
            }
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Option<T>, E> {
            Self::unreadable(if v { "true" } else { "false" })
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Option<T>, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Option<T>, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Option<T>, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Self::unreadable("[...]")
        }
    }

    d.deserialize_any(ObjectVisitor(std::marker::PhantomData))
}

/// The error of a positional row's required column, naming the column (`column 1 (amount):
/// ...`): the JSON path of a decode error stops at the row (`bids[3]`), so the message says
/// which column failed. Only on the error path.
#[cold]
#[inline(never)]
pub(crate) fn column<E: serde::de::Error>(index: usize, name: &str, e: E) -> E {
    E::custom(format_args!("column {index} ({name}): {e}"))
}

/// A list: missing (with `#[serde(default)]`), `null` or a placeholder string are empty; any
/// other non-list value is empty and reported (see [`Unreadable`]). Each element decodes by its
/// own rules. Use as `#[serde(default, deserialize_with = "crate::de::vec")]`.
pub fn vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};

    struct ListVisitor<T>(std::marker::PhantomData<T>);

    impl<'de, T: Deserialize<'de>> ListVisitor<T> {
        fn unreadable<E: serde::de::Error>(text: &str) -> Result<Vec<T>, E> {
            unreadable::note::<E>("a list", text).map(|()| Vec::new())
        }
    }

    impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(v) = seq.next_element()? {
                out.push(v);
            }
            Ok(out)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Vec<T>, E> {
            if is_placeholder(v) {
                Ok(Vec::new())
            } else {
                Self::unreadable(v)
            }
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Vec<T>, E> {
            Self::unreadable(if v { "true" } else { "false" })
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Vec<T>, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Vec<T>, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Vec<T>, E> {
            Self::unreadable(&v.to_string())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<T>, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Self::unreadable("{...}")
        }
    }

    d.deserialize_any(ListVisitor(std::marker::PhantomData))
}

/// Optional string: missing, `null` or `""` are `None`; numbers and booleans are kept as their
/// text; an object or array is `None` and reported.
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
            Token::Other(t) => unreadable::note::<D::Error>("a string", t).map(|()| None),
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

/// Required text (a listing's key, such as a currency): a string, or a number kept as its text;
/// `null`, a placeholder, a boolean or a container is an error.
pub mod text {
    use super::*;

    /// Deserialize required text.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        match token(d)? {
            Token::Str(s) if !is_placeholder(&s) => Ok(s.into_owned()),
            Token::Number(t) => Ok(t.to_owned()),
            Token::Str(s) => Err(D::Error::custom(format_args!(
                "expected text, found the placeholder {:?}",
                &*s
            ))),
            Token::Null => Err(D::Error::custom("expected text, found null")),
            Token::Bool(_) => Err(D::Error::custom("expected text, found a boolean")),
            Token::Other(t) => Err(unexpected("text", t)),
        }
    }

    /// Serialize as a string.
    pub fn serialize<S: Serializer>(v: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v)
    }
}

/// `-?[0-9]{1,18}` as an integer, without the general parser; anything else is `None`.
// Bound: at most 18 digits, so `v` stays below 10^18 < i64::MAX and `-v` is in range.
#[allow(clippy::arithmetic_side_effects)]
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
// Bound: at most 18 digits, so `v` stays below 10^18 < i64::MAX, `-v` is in range, and
// `n + 1 <= 19`.
#[allow(clippy::arithmetic_side_effects)]
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

/// Parses integer text (a number or a string's content) into `T`; a number with a zero
/// fraction (`8.0`, `"4967.000000"`) is accepted, any other fraction or a value out of `T`'s
/// range is `None`.
pub(crate) fn integer<T: TryFrom<i128>>(text: &str) -> Option<T> {
    // ASCII whitespace only, as `parse_decimal` trims: `"3\u000b"` is not an integer.
    let t = text.trim_ascii();
    let value: i128 = match small_int(t.as_bytes()) {
        Some(v) => v,
        None => match t.parse::<i128>() {
            Ok(v) => v,
            Err(_) => {
                let d = parse_decimal(t).ok()?;
                if !d.fract().is_zero() {
                    return None;
                }
                i128::try_from(d.trunc()).ok()?
            }
        },
    };
    T::try_from(value).ok()
}

/// [`integer`] with an error naming the text.
fn integer_from<T: TryFrom<i128>, E: serde::de::Error>(text: &str) -> Result<T, E> {
    integer(text).ok_or_else(|| {
        E::custom(format_args!(
            "expected an integer ({}), found `{}`",
            std::any::type_name::<T>(),
            shown(text.trim_ascii())
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
            Token::Str(s) if is_placeholder(&s) => Err(D::Error::custom(format_args!(
                "expected an integer, found the placeholder {:?}",
                &*s
            ))),
            Token::Str(s) => integer_from(&s),
            Token::Null => Err(D::Error::custom("expected an integer, found null")),
            Token::Bool(_) => Err(D::Error::custom("expected an integer, found a boolean")),
            Token::Other(t) => Err(unexpected("an integer", t)),
        }
    }

    /// Serialize as a JSON number.
    // For a `with = "...::int"` field that is also serialized: none of the crate's models
    // today, the fuzz hooks' types (feature `hooks`) do.
    #[cfg_attr(not(feature = "hooks"), allow(dead_code))]
    pub fn serialize<S: Serializer, T: serde::Serialize>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
}

/// A positional JSON array (`[price, amount]`, a candle) read by [`positional`]: its leading
/// elements, left to right, from [`Columns`]; any further elements are ignored (servers may
/// append columns).
pub(crate) trait Row<'de>: Sized {
    /// What the array is called in messages (`price level`).
    const WHAT: &'static str;
    /// Reads the elements it needs.
    fn read<E: serde::de::Error>(columns: &mut Columns<'de, E>) -> Result<Self, E>;
}

/// The name under which [`positional`] asks for a row: the single-pass reader answers it with
/// the rest of the body from the row's `[` ([`Positional::visit_borrowed_str`]) and learns how
/// much of it the row took from [`ROW_END`]; any other deserializer takes it for a plain
/// newtype ([`Positional::visit_newtype_struct`]).
pub(crate) const ROW_TOKEN: &str = "$digifinex_core::de::Row";

thread_local! {
    /// The length of the row just read from an open text (see [`ROW_TOKEN`]).
    pub(crate) static ROW_END: Cell<Option<usize>> = const { Cell::new(None) };
    /// The row whose reading from an open text failed: its index in the list and the offset
    /// of the fault in the text (the reader adds both to the failure's path and position).
    pub(crate) static ROW_FAILED: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Reads a positional JSON array whole, its elements straight from its text instead of one
/// serde round trip per element: from the single-pass reader, in the same pass that checks its
/// syntax (no second scan for its end); from any other deserializer, as one [`RawValue`] whose
/// syntax serde_json has checked.
pub(crate) fn positional<'de, D: Deserializer<'de>, T: Row<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_newtype_struct(ROW_TOKEN, Positional(std::marker::PhantomData))
}

/// The name under which [`rows`] asks for a list of rows (see [`ROW_TOKEN`]).
pub(crate) const ROWS_TOKEN: &str = "$digifinex_core::de::Rows";

/// A list of positional rows (book levels, candles), by the rules of [`vec`]; from the
/// single-pass reader, the whole list is read in one pass over its text (no serde round trip
/// per row). Use as `#[serde(default, deserialize_with = "crate::de::rows")]`.
pub(crate) fn rows<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Row<'de> + Deserialize<'de>,
{
    d.deserialize_newtype_struct(ROWS_TOKEN, Rows(std::marker::PhantomData))
}

struct Rows<T>(std::marker::PhantomData<T>);

impl<'de, T: Row<'de> + Deserialize<'de>> serde::de::Visitor<'de> for Rows<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a list of {} arrays", T::WHAT)
    }

    /// The single-pass reader: `text` is the rest of the body from the list's `[`, open and
    /// unchecked (see [`Columns::text`]); the rows, their separators and the closing `]` are
    /// checked here.
    // Bound: `pos` moves past bytes `get` found or past a row's text inside `text`, so it is at
    // most `text.len()`.
    #[allow(clippy::arithmetic_side_effects)]
    fn visit_borrowed_str<E: serde::de::Error>(self, text: &'de str) -> Result<Vec<T>, E> {
        let bytes = text.as_bytes();
        let ws = |mut pos: usize| {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
                pos += 1;
            }
            pos
        };
        let mut out = Vec::new();
        // A failure names the row and where in the text it happened (see `ROW_FAILED`).
        let failed = |row: usize, at: usize, e: E| {
            ROW_FAILED.with(|f| f.set(Some((row, at))));
            e
        };
        let not_json = || E::custom(format_args!("a list of {} arrays is not JSON", T::WHAT));
        let mut pos = ws(1);
        if bytes.get(pos) != Some(&b']') {
            loop {
                let row = text.get(pos..).unwrap_or_default();
                if row.as_bytes().first() != Some(&b'[') {
                    // An element that is not an array: what `positional` says of it.
                    let e = match reader::fast::skip_json(bytes, pos, reader::fast::MAX_DEPTH) {
                        Ok(end) => not_an_array::<E>(T::WHAT, text.get(pos..end).unwrap_or(row)),
                        Err(_) => not_json(),
                    };
                    return Err(failed(out.len(), pos, e));
                }
                let mut columns = Columns {
                    text: row,
                    pos: 1,
                    index: 0,
                    what: T::WHAT,
                    open: true,
                    error: std::marker::PhantomData,
                };
                let read = T::read(&mut columns).and_then(|v| Ok((v, columns.finish()?)));
                let (value, len) = match read {
                    Ok(read) => read,
                    Err(e) => return Err(failed(out.len(), pos + columns.pos, e)),
                };
                out.push(value);
                pos = ws(pos + len);
                match bytes.get(pos) {
                    Some(b',') => pos = ws(pos + 1),
                    Some(b']') => break,
                    _ => return Err(failed(out.len(), pos, not_json())),
                }
            }
        }
        ROW_END.with(|e| e.set(Some(pos + 1)));
        Ok(out)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        vec(d)
    }
}

struct Positional<T>(std::marker::PhantomData<T>);

impl<'de, T: Row<'de>> serde::de::Visitor<'de> for Positional<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a {} array", T::WHAT)
    }

    /// The single-pass reader: `text` is the rest of the body from the row's `[`.
    fn visit_borrowed_str<E: serde::de::Error>(self, text: &'de str) -> Result<T, E> {
        let mut columns = Columns {
            text,
            pos: 1,
            index: 0,
            what: T::WHAT,
            open: true,
            error: std::marker::PhantomData,
        };
        let read = T::read(&mut columns).and_then(|v| Ok((v, columns.finish()?)));
        match read {
            Ok((value, end)) => {
                ROW_END.with(|e| e.set(Some(end)));
                Ok(value)
            }
            Err(e) => {
                ROW_FAILED.with(|f| f.set(Some((0, columns.pos))));
                Err(e)
            }
        }
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        let raw: &'de RawValue = <&RawValue>::deserialize(d)?;
        let text = raw.get();
        match text.as_bytes().first() {
            Some(b'[') => {
                let mut columns = Columns {
                    text,
                    pos: 1,
                    index: 0,
                    what: T::WHAT,
                    open: false,
                    error: std::marker::PhantomData,
                };
                let value = T::read(&mut columns)?;
                columns.finish()?;
                Ok(value)
            }
            _ => Err(not_an_array(T::WHAT, text)),
        }
    }
}

/// The error for a positional row that is not an array (`text`: the value found).
#[cold]
fn not_an_array<E: serde::de::Error>(what: &str, text: &str) -> E {
    E::custom(format_args!(
        "expected a {what} array, found `{}`",
        text.chars().take(40).collect::<String>()
    ))
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
    num::scan_json_number(t, 0).is_some_and(|(end, _)| end == t.len())
}

/// The elements of a positional array's text, read left to right (see [`positional`]).
pub(crate) struct Columns<'a, E> {
    /// The array text, starting with `[`: syntactically valid JSON (a [`RawValue`]), or, when
    /// `open`, the rest of a body from the single-pass reader, whose syntax has not been
    /// checked.
    ///
    /// DESIGN: an open text is checked here, in the same pass that reads it: every token read
    /// must be a JSON number, literal or string without control characters, separators are
    /// strict, [`Self::finish`] checks the elements left unread (a nested array or object is
    /// skipped, its syntax checked) and finds the closing `]`; a nested array or object where
    /// a value is read is an error of that element.
    text: &'a str,
    /// Byte offset of the next unread character: at most `text.len() + 2` (a position moves
    /// at most two bytes past one `get` found), so position arithmetic cannot overflow a
    /// `usize` (`text.len() <= isize::MAX`).
    pos: usize,
    /// Index of the next element.
    index: usize,
    what: &'static str,
    /// `text` runs past the array and is unchecked (see `text`).
    open: bool,
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
    // Bound: `pos` moves one past a byte `get` found (see `pos`); `index` counts elements, at
    // most one per byte.
    #[allow(clippy::arithmetic_side_effects)]
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
    // Bound: `end` moves at most two past a byte `get` found (see `pos`).
    #[allow(clippy::arithmetic_side_effects)]
    fn token(&mut self) -> Token<'a> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        if bytes.get(start) == Some(&b'"') {
            // An escape skips the character after the backslash. A checked text is valid JSON,
            // so the string has a closing quote; in an open text, a string without one leaves
            // the position past the end, where `finish` finds no `]`.
            let mut end = start + 1;
            let mut escaped = false;
            let mut control = false;
            loop {
                match bytes.get(end) {
                    Some(b'"') | None => break,
                    Some(b'\\') => {
                        escaped = true;
                        end += 2;
                    }
                    Some(&b) => {
                        control |= b < 0x20;
                        end += 1;
                    }
                }
            }
            self.pos = end + 1;
            if control {
                // Not JSON (a checked text has none).
                Token::Other(self.text.get(start..end).unwrap_or_default())
            } else if escaped {
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

    /// Checks the elements left unread and the end of the array (see `text`); returns the
    /// length of the array's text (through its `]`).
    fn finish(&mut self) -> Result<usize, E> {
        loop {
            let index = self.index;
            match self.step() {
                Some(true) => {}
                Some(false) => break,
                None => return Err(self.not_json()),
            }
            let token = match self.text.as_bytes().get(self.pos) {
                // Strings and containers of a checked text are JSON.
                Some(b'"' | b'[' | b'{') if !self.open => return Ok(self.text.len()),
                // A container of an open text is skipped, its syntax checked.
                Some(b'[' | b'{') => {
                    match reader::fast::skip_json(
                        self.text.as_bytes(),
                        self.pos,
                        reader::fast::MAX_DEPTH,
                    ) {
                        Ok(end) => {
                            self.pos = end;
                            continue;
                        }
                        Err(_) => Token::Other(""),
                    }
                }
                _ => self.token(),
            };
            if let Token::Other(_) = token {
                return Err(E::custom(format_args!(
                    "{} element {index} is not JSON",
                    self.what
                )));
            }
        }
        let end = self.pos.checked_add(1);
        match (self.open, self.text.as_bytes().get(self.pos)) {
            (true, Some(b']')) => end.ok_or_else(|| self.not_json()),
            (false, _) if end == Some(self.text.len()) => Ok(self.text.len()),
            _ => Err(self.not_json()),
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
        match self.plain_decimal() {
            Some(d) => Ok(d),
            None => self.decimal_slow(),
        }
    }

    /// Fast path of [`Self::decimal`] and [`Self::opt_decimal`]: the separator without
    /// whitespace, then a plain number, bare (spot) or quoted (swap prices). `None` leaves the
    /// position unchanged for the slow path.
    // Bound: positions move past bytes `get` found or `parse_plain_prefix` read (see `pos`);
    // `index` counts elements, at most one per byte.
    #[allow(clippy::arithmetic_side_effects)]
    #[inline(always)]
    fn plain_decimal(&mut self) -> Option<Decimal> {
        let bytes = self.text.as_bytes();
        let mut pos = self.pos;
        if self.index > 0 {
            if bytes.get(pos) != Some(&b',') {
                return None;
            }
            pos += 1;
        }
        let (d, end) = if bytes.get(pos) == Some(&b'"') {
            let start = pos + 1;
            let (d, read) = num::parse_plain_prefix(bytes.get(start..)?)?;
            if bytes.get(start + read) != Some(&b'"') {
                return None;
            }
            (d, start + read + 1)
        } else {
            let rest = bytes.get(pos..)?;
            let (d, read) = num::parse_plain_prefix(rest)?;
            if !plain_json(rest, read) {
                return None;
            }
            (d, pos + read)
        };
        self.pos = end;
        self.index += 1;
        Some(d)
    }

    /// The next element as an optional decimal: missing, `null` or a placeholder are `None`; an
    /// unreadable string or boolean is `None` and reported (see [`Unreadable`]).
    pub(crate) fn opt_decimal(&mut self) -> Result<Option<Decimal>, E> {
        if let Some(d) = self.plain_decimal() {
            return Ok(Some(d));
        }
        match self.step() {
            Some(true) => {}
            Some(false) => return Ok(None),
            None => return Err(self.not_json()),
        }
        match self.token() {
            // Not JSON (an unchecked flat array, see `text`), or a container: an error.
            Token::Other(_) => Err(self.not_a("not a decimal")),
            token => optional(token),
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
    // Bound: positions move past bytes `get` found or `int_prefix` read (see `pos`); `index`
    // counts elements, at most one per byte.
    #[allow(clippy::arithmetic_side_effects)]
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
        for json in [
            r#"{}"#,
            r#"{"v":null}"#,
            r#"{"v":""}"#,
            r#"{"v":"  "}"#,
            r#"{"v":"-"}"#,
            r#"{"v":"--"}"#,
            r#"{"v":"NaN"}"#,
            r#"{"v":"null"}"#,
            r#"{"v":"n/a"}"#,
        ] {
            unreadable::reset();
            assert_eq!(serde_json::from_str::<O>(json).unwrap().v, None, "{json}");
            assert_eq!(
                unreadable::count(),
                0,
                "a placeholder is not unreadable: {json}"
            );
        }
        assert_eq!(
            serde_json::from_str::<O>(r#"{"v":"2.50"}"#).unwrap().v,
            Some(dec("2.50"))
        );
    }

    #[test]
    fn unreadable_optional_values_are_absent_and_counted() {
        for json in [
            r#"{"v":"abc"}"#,
            r#"{"v":true}"#,
            r#"{"v":{}}"#,
            r#"{"v":[1]}"#,
            r#"{"v":1e40}"#,
            r#"{"v":"1.2.3"}"#,
        ] {
            unreadable::reset();
            assert_eq!(serde_json::from_str::<O>(json).unwrap().v, None, "{json}");
            assert_eq!(unreadable::count(), 1, "{json}");
        }
        // Report mode: the n-th unreadable value fails instead, naming what it found.
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Two {
            #[serde(default, with = "opt_decimal")]
            a: Option<Decimal>,
            #[serde(default, with = "opt_decimal")]
            b: Option<Decimal>,
        }
        let body = r#"{"a":"x","b":"y"}"#;
        {
            let _mode = unreadable::fail_at(1);
            let e = serde_json::from_str::<Two>(body).unwrap_err().to_string();
            assert!(e.contains("expected a decimal, found `y`"), "{e}");
        }
        unreadable::reset();
        assert!(serde_json::from_str::<Two>(body).is_ok());
        assert_eq!(unreadable::count(), 2);
    }

    #[test]
    fn required_values_refuse_placeholders_and_junk() {
        for bad in [
            r#"{"v":"-"}"#,
            r#"{"v":" "}"#,
            r#"{"v":null}"#,
            r#"{"v":"abc"}"#,
            r#"{"v":{}}"#,
        ] {
            let e = serde_json::from_str::<D>(bad).err().map(|e| e.to_string());
            assert!(e.is_some(), "{bad}");
        }
        let e = serde_json::from_str::<D>(r#"{"v":"-"}"#)
            .err()
            .map(|e| e.to_string());
        assert!(
            e.as_deref().is_some_and(|e| e.contains("placeholder")),
            "{e:?}"
        );
        for bad in [
            r#"{"v":"-"}"#,
            r#"{"v":""}"#,
            r#"{"v":null}"#,
            r#"{"v":true}"#,
        ] {
            assert!(serde_json::from_str::<I>(bad).is_err(), "{bad}");
            assert!(serde_json::from_str::<N>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lists_tolerate_placeholders_and_report_junk() {
        #[derive(Deserialize)]
        struct L {
            #[serde(default, deserialize_with = "vec")]
            v: Vec<u32>,
        }
        for (json, unreadable_count) in [
            (r#"{}"#, 0),
            (r#"{"v":null}"#, 0),
            (r#"{"v":""}"#, 0),
            (r#"{"v":"-"}"#, 0),
            (r#"{"v":"x"}"#, 1),
            (r#"{"v":7}"#, 1),
            (r#"{"v":{"a":[1]}}"#, 1),
        ] {
            unreadable::reset();
            assert!(
                serde_json::from_str::<L>(json).unwrap().v.is_empty(),
                "{json}"
            );
            assert_eq!(unreadable::count(), unreadable_count, "{json}");
        }
        assert_eq!(
            serde_json::from_str::<L>(r#"{"v":[1,2]}"#).unwrap().v,
            vec![1, 2]
        );
    }

    #[test]
    fn placeholders() {
        for p in [
            "", " ", "-", "--", "---", "null", "NULL", "None", "nan", "NaN", "n/a", "N/A",
        ] {
            assert!(is_placeholder(p), "{p:?}");
        }
        for p in ["0", "-1", "-0.5", "1e-07", "abc", "nul", "n", "-x", "null1"] {
            assert!(!is_placeholder(p), "{p:?}");
        }
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
        #[derive(Debug, PartialEq)]
        struct P(Decimal, i64, Decimal);
        impl<'de> Deserialize<'de> for P {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                positional(d)
            }
        }
        impl Row<'_> for P {
            const WHAT: &'static str = "row";
            fn read<E: serde::de::Error>(c: &mut Columns<'_, E>) -> Result<Self, E> {
                Ok(P(c.decimal()?, c.int()?, c.decimal()?))
            }
        }
        for json in [
            r#"[1.50,2,"0.0000001"]"#,
            r#"[ 1.50 , 2 , 1e-07 , {"x":[1]}, "y" ]"#,
            "[\n\t1.50,\"2\",\"1E-7\"]",
            r#"["\u0031.50",2.0,"0.0000001"]"#,
        ] {
            let P(a, b, c) = both::<P>(json).unwrap();
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
            "[1.5,2,3",
            "[1.5,2,3]]",
            "[1.5,2,3,\"x",
            "[1.5,2,\"3\u{1}\"]",
            "[1.5,2,3,\"a\u{1}\"]",
            "[1.5,2,3,[1]",
        ] {
            assert!(both::<P>(bad).is_err(), "{bad}");
        }
        // Containers among the ignored columns: serde_json reads them (the reader leaves them).
        for json in ["[1.5,2,3,[1]]", r#"[1.5,2,3,{"a":[]}]"#] {
            assert!(both::<P>(json).is_ok(), "{json}");
        }
        // The usual rows stay on the single-pass reader.
        for json in [r#"[1.50,2,"0.0000001"]"#, r#"[1, 2 ,3 , "x", null, true]"#] {
            assert_eq!(
                reader::check_reader::<P>(json.as_bytes(), false),
                Ok(true),
                "{json}"
            );
        }
    }

    /// Decodes `json` twice, by the single-pass reader (whose rows read an open text) and by
    /// serde_json (whose rows read a checked one), and checks that both agree.
    fn both<T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
        json: &str,
    ) -> Result<T, String> {
        reader::agree::<T>(json)
    }

    #[test]
    fn lists_of_rows_in_one_pass() {
        #[derive(Debug, PartialEq, Deserialize)]
        struct L {
            #[serde(default, deserialize_with = "rows")]
            v: Vec<R>,
            #[serde(default)]
            n: u32,
        }
        #[derive(Debug, PartialEq)]
        struct R(Decimal, Decimal);
        impl<'de> Deserialize<'de> for R {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                positional(d)
            }
        }
        impl Row<'_> for R {
            const WHAT: &'static str = "level";
            fn read<E: serde::de::Error>(c: &mut Columns<'_, E>) -> Result<Self, E> {
                Ok(R(c.decimal()?, c.decimal()?))
            }
        }
        let r = |a: &str, b: &str| R(dec(a), dec(b));
        for (json, want) in [
            (
                r#"{"v":[[1,2],[3,"4"]],"n":1}"#,
                vec![r("1", "2"), r("3", "4")],
            ),
            (
                "{\"v\" : [ [1,2] ,\n [3, 4, \"x\"] ] , \"n\":1}",
                vec![r("1", "2"), r("3", "4")],
            ),
            (r#"{"v":[],"n":1}"#, vec![]),
            (r#"{"v":[ ],"n":1}"#, vec![]),
            (r#"{"v":null,"n":1}"#, vec![]),
            (r#"{"v":"-","n":1}"#, vec![]),
            (r#"{"n":1}"#, vec![]),
        ] {
            assert_eq!(both::<L>(json).unwrap().v, want, "{json}");
            assert_eq!(
                reader::check_reader::<L>(json.as_bytes(), false),
                Ok(true),
                "{json}"
            );
        }
        for bad in [
            r#"{"v":[[1,2],],"n":1}"#,
            r#"{"v":[[1,2] [3,4]],"n":1}"#,
            r#"{"v":[[1,2],3],"n":1}"#,
            r#"{"v":[[1]],"n":1}"#,
            r#"{"v":[[1,2]"#,
            r#"{"v":[[1,2],[3,4]]]}"#,
        ] {
            assert!(both::<L>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn positional_quoted_numbers_and_optional_tail() {
        #[derive(Debug, PartialEq)]
        struct Q(Decimal, Option<Decimal>);
        impl<'de> Deserialize<'de> for Q {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                positional(d)
            }
        }
        impl Row<'_> for Q {
            const WHAT: &'static str = "row";
            fn read<E: serde::de::Error>(c: &mut Columns<'_, E>) -> Result<Self, E> {
                Ok(Q(c.decimal()?, c.opt_decimal()?))
            }
        }
        for (json, a, b) in [
            (r#"["1.50"]"#, "1.50", None),
            (r#"["1.5\u0030",null]"#, "1.50", None),
            (r#"[" 1.5 ",""]"#, "1.5", None),
            (r#"["+1.5" , "2"]"#, "1.5", Some("2")),
            (r#"["-0.5",2e1,"x"]"#, "-0.5", Some("20")),
            (r#"[".5",-3]"#, "0.5", Some("-3")),
            // Placeholders, and unreadable values of an optional column, are absent.
            (r#"[1,"  "]"#, "1", None),
            (r#"[1,"-"]"#, "1", None),
            (r#"[1,"N/A"]"#, "1", None),
            (r#"[1,true]"#, "1", None),
            (r#"[1,"y"]"#, "1", None),
        ] {
            let Q(x, y) = both::<Q>(json).unwrap();
            assert_eq!(x.to_string(), a, "{json}");
            assert_eq!(y.map(|y| y.to_string()).as_deref(), b, "{json}");
        }
        for bad in [
            r#"["1.5x"]"#,
            r#"["1e"]"#,
            r#"[""]"#,
            r#"["-"]"#,
            r#"[null]"#,
            r#"[1,[2]]"#,
            "[1,x]",
            "[1,2,]",
        ] {
            assert!(both::<Q>(bad).is_err(), "{bad}");
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
