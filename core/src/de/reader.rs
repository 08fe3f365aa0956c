//! Single-pass decoding of a response body into `T` while capturing the envelope's top-level
//! `code`.
//!
//! The exchange puts `code` beside the payload fields (`{"bids":[..],"asks":[..],"code":0}`), and
//! often last. Reading the envelope first would scan the body twice; `#[serde(flatten)]` would
//! buffer it. Instead the single-pass reader ([`fast`]) notes the value of every top-level
//! `code` member while `T`'s visitor reads (and ignores) it. A body whose decode failed has its
//! code read by a second, non-generic pass ([`top_code`]) (the code may come after the
//! failure), so no wrapper is instantiated per answer type.

use std::cell::Cell;
use std::fmt;

use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

/// Decodes `T` from `body`, returning the result and the top-level `code` if one was seen.
///
/// Also returns how many unreadable optional values were taken as absent (see
/// [`crate::de::Unreadable`]); only the attempt that produced the result counts.
///
/// DESIGN (compile time): each answer type's decoder is instantiated once, for the single-pass
/// reader ([`fast`]), which reads all of JSON and tracks the JSON path of a failure itself
/// (no second decoder with path tracking: that was 2.6 times the reader's code and most of a
/// release build). What it reports on a failure follows serde_json: a body that is not JSON
/// gets serde_json's own syntax message (from a non-generic check, [`failure`]), a value of the
/// wrong type the visitor's message with the line and column.
///
/// DESIGN (tolerance): a body that is not UTF-8 is read with each invalid sequence replaced by
/// U+FFFD: a mangled byte in a name must not fail a whole answer, and one in a number still
/// fails that number.
pub(crate) fn decode_with_code<T: DeserializeOwned>(
    body: &[u8],
) -> (Result<T, Failure>, Option<i64>, u32) {
    crate::de::unreadable::reset();
    let text = utf8(body);
    let mut reader = fast::Reader::new(&text);
    match T::deserialize(&mut reader).and_then(|v| reader.end().map(|()| v)) {
        Ok(v) => (Ok(v), reader.code(), crate::de::unreadable::count()),
        // The code of a body whose decode failed may come after the failure: read on its own.
        Err(fail) => (
            Err(failure(&text, fail)),
            top_code(text.as_bytes()),
            crate::de::unreadable::count(),
        ),
    }
}

/// `T` from JSON text by the single-pass reader (see [`fast`]), with serde_json's errors: its
/// own for a text that is not JSON, the visitor's message with the line and column otherwise
/// (the websocket decoders).
#[cfg(feature = "ws")]
pub(crate) fn from_str<'de, T: serde::Deserialize<'de>>(
    text: &'de str,
) -> Result<T, serde_json::Error> {
    let mut reader = fast::Reader::new(text);
    T::deserialize(&mut reader)
        .and_then(|v| reader.end().map(|()| v))
        .map_err(|fail| json_error(text, &fail))
}

/// Why a body did not decode: the message (serde_json's words, with the line and column) and
/// the JSON path where it happened (`.` for the whole body).
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) path: String,
    pub(crate) message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The failure of the reader on `text`, with its path (see [`json_error`] for the message).
#[cold]
fn failure(text: &str, fail: fast::Fail) -> Failure {
    Failure {
        path: fail.path(),
        message: json_error(text, &fail).to_string(),
    }
}

/// The error serde_json gives for the reader's failure on `text`: a text that is not JSON is
/// reported as serde_json reports it (its first syntax error, line and column), even when a
/// value before the fault had the wrong type; otherwise the reader's message at its position.
/// Not generic: compiled once.
#[cold]
fn json_error(text: &str, fail: &fast::Fail) -> serde_json::Error {
    use serde::de::Error as _;
    if let Err(e) = serde_json::from_str::<IgnoredAny>(text) {
        if e.is_syntax() || e.is_eof() {
            return e;
        }
    }
    let message = fail.message();
    match fail.position() {
        Some(at) => {
            let (line, column) = line_column(text, at);
            serde_json::Error::custom(format_args!("{message} at line {line} column {column}"))
        }
        None => serde_json::Error::custom(message),
    }
}

/// serde_json's line and column of byte offset `at`: the line counted from 1, the column the
/// number of bytes of the line before `at`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = text.as_bytes().get(..at).unwrap_or(text.as_bytes());
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i.saturating_add(1));
    let line = before
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        .saturating_add(1);
    (line, before.len().saturating_sub(start))
}

/// The body as text: borrowed when it is UTF-8 (checked by the standard library's fast
/// validation), else with each invalid sequence replaced by U+FFFD.
fn utf8(body: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(body) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(body),
    }
}

/// Decodes `T` from `body` (see [`decode_with_code`]), for the reporting of unreadable values.
pub(crate) fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, Failure> {
    let text = utf8(body);
    let mut reader = fast::Reader::new(&text);
    T::deserialize(&mut reader)
        .and_then(|v| reader.end().map(|()| v))
        .map_err(|fail| failure(&text, fail))
}

/// The value of the body's top-level `code` member as serde_json reads it: an integer, or a
/// string holding one (`"200"`); a later `code` member replaces an earlier one (a string that
/// is not an integer clears it), a value of any other kind leaves it. As much of the body as
/// is JSON is read: the code before a syntax error counts.
fn top_code(body: &[u8]) -> Option<i64> {
    struct Top<'a>(&'a Cell<Option<i64>>);
    impl<'de> DeserializeSeed<'de> for Top<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Top<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "code" {
                    if let Some(code) = map.next_value::<CodeValue>()?.0 {
                        self.0.set(code);
                    }
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }
    /// What one `code` value makes of the code: `Some(new)`, or `None` to leave it.
    struct CodeValue(Option<Option<i64>>);
    impl<'de> serde::Deserialize<'de> for CodeValue {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = CodeValue;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a JSON value")
                }
                fn visit_u64<E>(self, n: u64) -> Result<CodeValue, E> {
                    Ok(CodeValue(Some(i64::try_from(n).ok())))
                }
                fn visit_i64<E>(self, n: i64) -> Result<CodeValue, E> {
                    Ok(CodeValue(Some(Some(n))))
                }
                fn visit_str<E>(self, s: &str) -> Result<CodeValue, E> {
                    Ok(CodeValue(Some(s.trim().parse().ok())))
                }
                fn visit_f64<E>(self, _: f64) -> Result<CodeValue, E> {
                    Ok(CodeValue(None))
                }
                fn visit_bool<E>(self, _: bool) -> Result<CodeValue, E> {
                    Ok(CodeValue(None))
                }
                fn visit_unit<E>(self) -> Result<CodeValue, E> {
                    Ok(CodeValue(None))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CodeValue, A::Error> {
                    while seq.next_element::<IgnoredAny>()?.is_some() {}
                    Ok(CodeValue(None))
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CodeValue, A::Error> {
                    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                    Ok(CodeValue(None))
                }
            }
            d.deserialize_any(V)
        }
    }
    let code = Cell::new(None);
    let mut de = serde_json::Deserializer::from_slice(body);
    // A syntax error ends the reading; the code seen so far stands.
    let _ = Top(&code).deserialize(&mut de);
    code.get()
}

/// Differential check of the single-pass reader (see [`fast`]) against serde_json on `body`, as
/// [`crate::parse_body`] decodes it (`swap`: inside the `{"code","data"}` envelope):
/// `Ok(true)` when both decode the same value with the same top-level `code`; `Ok(false)` when
/// both refuse the body (or it is not UTF-8, which the reader reads lossily); `Err` with both
/// results when they disagree. For the fuzz target `reader` and tests; not a stable API.
#[cfg(any(test, feature = "hooks"))]
#[doc(hidden)]
pub fn check_reader<T>(body: &[u8], swap: bool) -> Result<bool, String>
where
    T: DeserializeOwned + PartialEq + fmt::Debug,
{
    fn check<W: DeserializeOwned, T: PartialEq + fmt::Debug>(
        text: &str,
        inner: impl Fn(W) -> T,
    ) -> Result<bool, String> {
        let mut reader = fast::Reader::new(text);
        let fast = W::deserialize(&mut reader).and_then(|v| reader.end().map(|()| v));
        let fast_code = reader.code();
        let reference = serde_json::from_str::<W>(text).map(&inner);
        let code = top_code(text.as_bytes());
        match (fast.map(inner), reference) {
            (Ok(fast), Ok(v)) if v == fast && code == fast_code => Ok(true),
            (Err(_), Err(_)) => Ok(false),
            (fast, other) => Err(format!(
                "the reader decoded {:?} (code {fast_code:?}), serde_json {other:?} (code \
                 {code:?})",
                fast.map_err(|f| f.message().to_owned())
            )),
        }
    }
    // A body that is not UTF-8 is read lossily by the reader, strictly by serde_json.
    let Ok(text) = std::str::from_utf8(body) else {
        return Ok(false);
    };
    if swap {
        check::<Data<T>, T>(text, |d| d.0)
    } else {
        check::<T, T>(text, |v| v)
    }
}

/// The swap envelope `{"code":0,"data":T}`: decodes `T` from `data` in the same single pass
/// (other members are skipped; the reader still notes the top-level `code`).
/// A missing or `null` `data` decodes `T` from an empty list, then from "nothing", then from an
/// empty object, so list outputs become empty, `Option` outputs `None` and acknowledgements
/// whose fields are all optional carry no fields; other types report the missing value.
pub(crate) struct Data<T>(pub(crate) T);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Data<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(DataVisitor(std::marker::PhantomData))
    }
}

struct DataVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: serde::Deserialize<'de>> Visitor<'de> for DataVisitor<T> {
    type Value = Data<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a response object with `code` and `data`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Data<T>, A::Error> {
        let mut data = None;
        while let Some(key) = map.next_key::<DataKey>()? {
            match key {
                DataKey::Data if data.is_none() => {
                    data = Some(map.next_value_seed(NullTolerant(std::marker::PhantomData))?)
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match data {
            Some(v) => Ok(Data(v)),
            None => absent::<T, A::Error>().map(Data),
        }
    }
}

/// `T` for a missing or `null` value: an empty list, else the unit value (`Option` is `None`),
/// else an empty object (an acknowledgement whose fields are all optional). A `T` with a
/// required field (an order id) reports `data` as missing.
fn absent<'de, T: serde::Deserialize<'de>, E: serde::de::Error>() -> Result<T, E> {
    absent_value::<T>().ok_or_else(|| E::missing_field("data"))
}

/// [`absent`] with one error type whatever the caller's (its error is replaced anyway), so
/// that it is compiled once per `T`.
fn absent_value<'de, T: serde::Deserialize<'de>>() -> Option<T> {
    use serde::de::value::{Error, MapDeserializer, SeqDeserializer, UnitDeserializer};
    T::deserialize(SeqDeserializer::<_, Error>::new(std::iter::empty::<()>()))
        .or_else(|_| T::deserialize(UnitDeserializer::<Error>::new()))
        .or_else(|_| {
            T::deserialize(MapDeserializer::<_, Error>::new(
                std::iter::empty::<((), ())>(),
            ))
        })
        .ok()
}

enum DataKey {
    Data,
    Other,
}

impl<'de> serde::Deserialize<'de> for DataKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = DataKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<DataKey, E> {
                Ok(if s == "data" {
                    DataKey::Data
                } else {
                    DataKey::Other
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

/// Decodes `T`, treating `null` as absent (see [`absent`]).
struct NullTolerant<T>(std::marker::PhantomData<T>);

impl<'de, T: serde::Deserialize<'de>> DeserializeSeed<'de> for NullTolerant<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the `data` value")
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<T, E> {
                absent::<T, E>()
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<T, E> {
                absent::<T, E>()
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
                T::deserialize(d)
            }
        }
        d.deserialize_option(V(std::marker::PhantomData))
    }
}

/// The JSON reader of every answer: one pass over the body, strings borrowed (copied only when
/// they hold escapes), and the exact text of a number handed to
/// [`serde_json::value::RawValue`] readers (the tolerant helpers and positional arrays) without
/// a second scan by serde_json.
///
/// DESIGN: it reads what serde_json reads and makes the same visitor calls (an integer is
/// `u64` when non-negative, `i64` when negative, any other number `f64` as serde_json parses
/// it; an escaped string is `visit_str`, an unescaped one `visit_borrowed_str`), so a model
/// decodes to the same value either way: `check_reader`, the `reader` fuzz target and
/// `core/tests/proptest_reader.rs` compare the two. On a failure it records where (the byte
/// offset, stamped once, where serde_json stamps it) and the JSON path (each array element and
/// object member adds its index or name as the failure passes back through it, the format of
/// serde_path_to_error: `bids[0]`, `data.list[3].price`).
pub(crate) mod fast {
    use std::fmt;

    use serde::de::Error as _;
    use serde::de::{self, DeserializeSeed, Expected, Unexpected, Visitor};

    /// serde_json's private name for `RawValue` (its `Deserialize` asks for a newtype struct of
    /// this name and reads the text from a one-entry map). Were it ever to change, `RawValue`
    /// readers would get a newtype and fail, which the tests would show.
    const RAW_TOKEN: &str = "$serde_json::private::RawValue";
    /// Nesting limit: serde_json's.
    pub(crate) const MAX_DEPTH: u32 = 128;

    /// Why the reader stopped: a value of the wrong type (the visitor's message) or a text
    /// that is not JSON, where, and the JSON path.
    pub(crate) struct Fail(Box<Inner>);

    struct Inner {
        message: String,
        /// Byte offset, stamped once, where serde_json would stamp it.
        at: Option<usize>,
        /// Innermost first.
        path: Vec<Seg>,
    }

    enum Seg {
        Index(usize),
        Key(Box<str>),
    }

    impl Fail {
        /// The text is not JSON at `at` (serde_json's own message replaces `what`, see
        /// [`super::json_error`]).
        #[cold]
        fn syntax(what: &str, at: usize) -> Fail {
            Fail(Box::new(Inner {
                message: what.to_owned(),
                at: Some(at),
                path: Vec::new(),
            }))
        }

        /// Stamps the position, unless it already has one.
        #[cold]
        fn at(mut self, at: usize) -> Fail {
            self.0.at.get_or_insert(at);
            self
        }

        #[cold]
        pub(super) fn index(mut self, index: usize) -> Fail {
            self.0.path.push(Seg::Index(index));
            self
        }

        #[cold]
        fn key(mut self, key: &str) -> Fail {
            self.0.path.push(Seg::Key(key.into()));
            self
        }

        /// The message, without the position.
        pub(crate) fn message(&self) -> &str {
            &self.0.message
        }

        /// The byte offset of the failure.
        pub(crate) fn position(&self) -> Option<usize> {
            self.0.at
        }

        /// The JSON path: `.` for the whole body, `bids[0]`, `data.list[3].price`.
        pub(crate) fn path(&self) -> String {
            if self.0.path.is_empty() {
                return ".".to_owned();
            }
            let mut out = String::new();
            for seg in self.0.path.iter().rev() {
                match seg {
                    Seg::Index(i) => {
                        out.push('[');
                        out.push_str(&i.to_string());
                        out.push(']');
                    }
                    Seg::Key(k) => {
                        if !out.is_empty() {
                            out.push('.');
                        }
                        out.push_str(k);
                    }
                }
            }
            out
        }
    }

    impl fmt::Debug for Fail {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("Fail")
                .field("message", &self.0.message)
                .field("at", &self.0.at)
                .field("path", &self.path())
                .finish()
        }
    }

    impl fmt::Display for Fail {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.0.message)
        }
    }

    impl std::error::Error for Fail {}

    impl de::Error for Fail {
        #[cold]
        fn custom<T: fmt::Display>(msg: T) -> Self {
            Fail(Box::new(Inner {
                message: msg.to_string(),
                at: None,
                path: Vec::new(),
            }))
        }
    }

    /// A string value: borrowed from the body, or unescaped into a copy.
    enum Text<'de> {
        Borrowed(&'de str),
        Owned(String),
    }

    impl<'de> Text<'de> {
        fn visit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self {
                Text::Borrowed(s) => v.visit_borrowed_str(s),
                Text::Owned(s) => v.visit_str(&s),
            }
        }

        fn as_str(&self) -> &str {
            match self {
                Text::Borrowed(s) => s,
                Text::Owned(s) => s,
            }
        }
    }

    /// Scans the JSON string at `start` (which holds `"`): the offset past its closing quote,
    /// and, when `out` is given and the string holds escapes, its unescaped text appended to
    /// `out`. `Err` holds the offset of the fault.
    // Bound: `i` moves past bytes `get` found, so it is at most `bytes.len()`.
    #[allow(clippy::arithmetic_side_effects)]
    pub(crate) fn scan_string(
        bytes: &[u8],
        start: usize,
        mut out: Option<&mut String>,
    ) -> Result<usize, usize> {
        let mut i = start + 1;
        let mut copied = i;
        loop {
            match bytes.get(i) {
                Some(b'"') => {
                    if let Some(out) = out.as_deref_mut() {
                        push_bytes(out, bytes.get(copied..i).unwrap_or_default());
                    }
                    return Ok(i + 1);
                }
                Some(b'\\') => {
                    if let Some(out) = out.as_deref_mut() {
                        push_bytes(out, bytes.get(copied..i).unwrap_or_default());
                    }
                    let unescaped = match bytes.get(i + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let (c, len) = unicode_escape(bytes, i, out.is_some())?;
                            if let Some(out) = out.as_deref_mut() {
                                out.push(c);
                            }
                            i += len;
                            copied = i;
                            continue;
                        }
                        _ => return Err(i + 1),
                    };
                    if let Some(out) = out.as_deref_mut() {
                        out.push(unescaped);
                    }
                    i += 2;
                    copied = i;
                }
                Some(&b) if b < 0x20 => return Err(i),
                Some(_) => i += 1,
                None => return Err(i),
            }
        }
    }

    /// Appends bytes of the body that lie between escapes (whole UTF-8 characters: the body
    /// is text and escapes are ASCII).
    fn push_bytes(out: &mut String, bytes: &[u8]) {
        out.push_str(std::str::from_utf8(bytes).unwrap_or_default());
    }

    /// The `\uXXXX` escape at `i` (a surrogate pair counts as one when `strict`; a string being
    /// skipped only needs four hex digits per escape, as for serde_json): the character and the
    /// length read.
    // Bound: `i` is an offset into `bytes` (a slice: at most `isize::MAX`), so `i + 12` cannot
    // overflow; a code point is at most 0x10FFFF.
    #[allow(clippy::arithmetic_side_effects)]
    fn unicode_escape(bytes: &[u8], i: usize, strict: bool) -> Result<(char, usize), usize> {
        let hex = |at: usize| -> Result<u32, usize> {
            let digits = bytes.get(at..at + 4).ok_or(at)?;
            let text = std::str::from_utf8(digits).map_err(|_| at)?;
            if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(at);
            }
            u32::from_str_radix(text, 16).map_err(|_| at)
        };
        let first = hex(i + 2)?;
        if !strict {
            return Ok(('\u{fffd}', 6));
        }
        match first {
            0xD800..=0xDBFF => {
                if bytes.get(i + 6..i + 8) != Some(b"\\u") {
                    return Err(i + 6);
                }
                let second = hex(i + 8)?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(i + 8);
                }
                let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                char::from_u32(c).map(|c| (c, 12)).ok_or(i)
            }
            0xDC00..=0xDFFF => Err(i + 2),
            _ => char::from_u32(first).map(|c| (c, 6)).ok_or(i),
        }
    }

    /// Skips the JSON value at `pos` (after whitespace), checking its syntax: the offset past
    /// it, or `Err` with the offset of the fault (nesting deeper than `limit` is one).
    // Bound: positions move past bytes `get` found; `depth` is at most `MAX_DEPTH + 1`.
    #[allow(clippy::arithmetic_side_effects)]
    pub(crate) fn skip_json(bytes: &[u8], pos: usize, limit: u32) -> Result<usize, usize> {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let ws = |mut p: usize| {
            while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(p) {
                p += 1;
            }
            p
        };
        // Each open container: whether it is an object.
        let mut open: Vec<bool> = Vec::new();
        let mut p = ws(pos);
        loop {
            // A value at `p`.
            match bytes.get(p) {
                Some(b'"') => p = scan_string(bytes, p, None)?,
                Some(b'-' | b'0'..=b'9') => {
                    p = crate::de::num::scan_json_number(bytes, p).ok_or(p)?.0;
                }
                Some(b'n') => p = word(bytes, p, b"null")?,
                Some(b't') => p = word(bytes, p, b"true")?,
                Some(b'f') => p = word(bytes, p, b"false")?,
                Some(&c @ (b'[' | b'{')) => {
                    if open.len() >= limit {
                        return Err(p);
                    }
                    let object = c == b'{';
                    p = ws(p + 1);
                    match (object, bytes.get(p)) {
                        (false, Some(b']')) | (true, Some(b'}')) => p += 1,
                        (true, _) => {
                            open.push(true);
                            p = member_name(bytes, p)?;
                            continue;
                        }
                        (false, _) => {
                            open.push(false);
                            continue;
                        }
                    }
                }
                _ => return Err(p),
            }
            // After a value: close containers or move to the next element.
            loop {
                let Some(&object) = open.last() else {
                    return Ok(p);
                };
                p = ws(p);
                match bytes.get(p) {
                    Some(b',') => {
                        p = ws(p + 1);
                        if object {
                            p = member_name(bytes, p)?;
                        }
                        break;
                    }
                    Some(b']') if !object => {
                        open.pop();
                        p += 1;
                    }
                    Some(b'}') if object => {
                        open.pop();
                        p += 1;
                    }
                    _ => return Err(p),
                }
            }
            p = ws(p);
        }
    }

    /// The member name and colon at `p`: the offset of the value after them.
    // Bound: `p` moves past bytes `get` found, so it is at most `bytes.len()`.
    #[allow(clippy::arithmetic_side_effects)]
    fn member_name(bytes: &[u8], p: usize) -> Result<usize, usize> {
        if bytes.get(p) != Some(&b'"') {
            return Err(p);
        }
        let mut p = scan_string(bytes, p, None)?;
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(p) {
            p += 1;
        }
        if bytes.get(p) != Some(&b':') {
            return Err(p);
        }
        p += 1;
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(p) {
            p += 1;
        }
        Ok(p)
    }

    fn word(bytes: &[u8], p: usize, word: &[u8]) -> Result<usize, usize> {
        let end = p.checked_add(word.len()).ok_or(p)?;
        if bytes.get(p..end) == Some(word) {
            Ok(end)
        } else {
            Err(p)
        }
    }

    pub(crate) struct Reader<'de> {
        text: &'de str,
        /// Byte offset of the next unread character. It only moves one past a byte `get` found
        /// (or to the end of a slice `get` returned), so it is at most `text.len()`, and
        /// `pos + 1` cannot overflow a `usize` (`text.len() <= isize::MAX`).
        pos: usize,
        /// Open arrays and objects: at most `MAX_DEPTH + 1` (the reader stops beyond
        /// `MAX_DEPTH`), and only decremented after `enter` incremented it.
        depth: u32,
        /// The top-level `code` so far (see [`super::top_code`], whose rules it follows).
        code: Option<i64>,
        /// The member being read is the top-level `code`.
        code_next: bool,
    }

    impl<'de> Reader<'de> {
        pub(crate) fn new(text: &'de str) -> Self {
            Reader {
                text,
                pos: 0,
                depth: 0,
                code: None,
                code_next: false,
            }
        }

        /// The value of the top-level `code` member, by the rules of [`super::top_code`].
        pub(crate) fn code(&self) -> Option<i64> {
            self.code
        }

        /// Notes the value at `pos` (not consumed) as the top-level `code`: an integer, or a
        /// string holding one, replaces the code (a string that is not one clears it); a
        /// fraction, a number beyond 64 bits, `-0` (all read as `f64` by serde_json) or a value
        /// of another kind leaves it.
        fn note_code(&mut self) {
            let bytes = self.text.as_bytes();
            match self.skip_ws() {
                Some(b'"') => {
                    let start = self.pos;
                    if let Ok(text) = self.string() {
                        self.code = text.as_str().trim().parse().ok();
                    }
                    self.pos = start;
                }
                Some(b'-' | b'0'..=b'9') => {
                    let Some((end, true)) = crate::de::num::scan_json_number(bytes, self.pos)
                    else {
                        return;
                    };
                    let Some(text) = self.text.get(self.pos..end) else {
                        return;
                    };
                    match text.strip_prefix('-') {
                        Some(digits) => {
                            if let Ok(magnitude @ 1..) = digits.parse::<u64>() {
                                if let Some(v) = 0i64.checked_sub_unsigned(magnitude) {
                                    self.code = Some(v);
                                }
                            }
                        }
                        None => {
                            if let Ok(n) = text.parse::<u64>() {
                                self.code = i64::try_from(n).ok();
                            }
                        }
                    }
                }
                _ => {}
            }
        }

        /// Only whitespace may follow the value.
        pub(crate) fn end(&mut self) -> Result<(), Fail> {
            match self.skip_ws() {
                None => Ok(()),
                Some(_) => Err(Fail::syntax("trailing characters", self.pos)),
            }
        }

        // Bound: see `Reader::pos`.
        #[allow(clippy::arithmetic_side_effects)]
        fn skip_ws(&mut self) -> Option<u8> {
            let bytes = self.text.as_bytes();
            loop {
                match bytes.get(self.pos) {
                    Some(b' ' | b'\n' | b'\t' | b'\r') => self.pos += 1,
                    other => return other.copied(),
                }
            }
        }

        /// The end of the text or a character that starts no value.
        #[cold]
        fn expected_value(&self) -> Fail {
            if self.pos >= self.text.len() {
                Fail::syntax("EOF while parsing a value", self.pos)
            } else {
                Fail::syntax("expected value", self.pos)
            }
        }

        fn literal(&mut self, word: &[u8]) -> Result<(), Fail> {
            match self::word(self.text.as_bytes(), self.pos, word) {
                Ok(end) => {
                    self.pos = end;
                    Ok(())
                }
                Err(at) => Err(Fail::syntax("expected ident", at)),
            }
        }

        /// The string at `pos` (which holds `"`), unescaped.
        // Bound: see `Reader::pos`.
        #[allow(clippy::arithmetic_side_effects)]
        #[inline]
        fn string(&mut self) -> Result<Text<'de>, Fail> {
            let bytes = self.text.as_bytes();
            let start = self.pos + 1;
            let mut i = start;
            loop {
                match bytes.get(i) {
                    Some(b'"') => break,
                    Some(&b) if b == b'\\' || b < 0x20 => return self.escaped_string(),
                    Some(_) => i += 1,
                    None => return Err(Fail::syntax("EOF while parsing a string", i)),
                }
            }
            let s = self
                .text
                .get(start..i)
                .ok_or_else(|| Fail::syntax("invalid string", start))?;
            self.pos = i + 1;
            Ok(Text::Borrowed(s))
        }

        /// [`Self::string`] for a string with escapes (or a fault).
        #[cold]
        fn escaped_string(&mut self) -> Result<Text<'de>, Fail> {
            let mut out = String::new();
            match scan_string(self.text.as_bytes(), self.pos, Some(&mut out)) {
                Ok(end) => {
                    self.pos = end;
                    Ok(Text::Owned(out))
                }
                Err(at) => Err(self.string_fault(at)),
            }
        }

        /// The fault of the string at `pos` found at `at`, in serde_json's words (whose check of
        /// a whole body skips strings without reading their escapes).
        #[cold]
        #[inline(never)]
        fn string_fault(&self, at: usize) -> Fail {
            use serde::Deserialize as _;
            let rest = self.text.get(self.pos..).unwrap_or_default();
            let mut de = serde_json::Deserializer::from_str(rest);
            match String::deserialize(&mut de) {
                Err(e) if e.line() == 1 => {
                    let words = e.to_string();
                    let words = words.split(" at line ").next().unwrap_or("invalid string");
                    Fail::syntax(words, self.pos.saturating_add(e.column()))
                }
                _ => Fail::syntax("invalid string", at),
            }
        }

        /// The number at `pos` (JSON grammar), and whether it is an integer.
        fn number(&mut self) -> Result<(&'de str, bool), Fail> {
            let start = self.pos;
            let (end, integer) = crate::de::num::scan_json_number(self.text.as_bytes(), start)
                .ok_or_else(|| Fail::syntax("invalid number", start))?;
            let text = self
                .text
                .get(start..end)
                .ok_or_else(|| Fail::syntax("invalid number", start))?;
            self.pos = end;
            Ok((text, integer))
        }

        /// Visits the number at `pos` as serde_json does.
        fn visit_number<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Fail> {
            let (text, integer) = self.number()?;
            let at = self.pos;
            match number(text, integer) {
                Ok(Number::U(n)) => v.visit_u64(n),
                Ok(Number::I(n)) => v.visit_i64(n),
                Ok(Number::F(n)) => v.visit_f64(n),
                Err(()) => return Err(Fail::syntax("number out of range", at)),
            }
            .map_err(|e: Fail| e.at(at))
        }

        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn enter(&mut self) -> Result<(), Fail> {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(Fail::syntax("recursion limit exceeded", self.pos));
            }
            self.pos += 1;
            Ok(())
        }

        /// Skips one value, checking its syntax (noting the top-level `code` on the way).
        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn skip_value(&mut self) -> Result<(), Fail> {
            match self.skip_ws() {
                Some(b'"') => self.string().map(drop),
                Some(b'-' | b'0'..=b'9') => self.number().map(drop),
                Some(b'n') => self.literal(b"null"),
                Some(b't') => self.literal(b"true"),
                Some(b'f') => self.literal(b"false"),
                Some(b'[') if self.depth > 0 => self.skip_nested(),
                Some(b'[') => {
                    self.enter()?;
                    if self.skip_ws() != Some(b']') {
                        loop {
                            self.skip_value()?;
                            match self.skip_ws() {
                                Some(b',') => self.pos += 1,
                                Some(b']') => break,
                                _ => return Err(self.list_fault()),
                            }
                        }
                    }
                    self.pos += 1;
                    self.depth -= 1;
                    Ok(())
                }
                // Below the top level there is no `code` to note: one scan, without recursion.
                Some(b'{') if self.depth > 0 => self.skip_nested(),
                Some(b'{') => {
                    self.enter()?;
                    if self.skip_ws() != Some(b'}') {
                        loop {
                            if self.skip_ws() != Some(b'"') {
                                return Err(self.key_fault());
                            }
                            let key = self.string()?;
                            if self.skip_ws() != Some(b':') {
                                return Err(self.colon_fault());
                            }
                            self.pos += 1;
                            if key.as_str() == "code" {
                                self.note_code();
                            }
                            self.skip_value()?;
                            match self.skip_ws() {
                                Some(b',') => self.pos += 1,
                                Some(b'}') => break,
                                _ => return Err(self.object_fault()),
                            }
                        }
                    }
                    self.pos += 1;
                    self.depth -= 1;
                    Ok(())
                }
                _ => Err(self.expected_value()),
            }
        }

        /// Skips the array or object at `pos` below the top level.
        fn skip_nested(&mut self) -> Result<(), Fail> {
            let room = MAX_DEPTH.saturating_sub(self.depth);
            match skip_json(self.text.as_bytes(), self.pos, room) {
                Ok(end) => {
                    self.pos = end;
                    Ok(())
                }
                Err(at) => Err(Fail::syntax("invalid JSON", at)),
            }
        }

        #[cold]
        fn list_fault(&self) -> Fail {
            Fail::syntax("expected `,` or `]`", self.pos)
        }

        #[cold]
        fn object_fault(&self) -> Fail {
            Fail::syntax("expected `,` or `}`", self.pos)
        }

        #[cold]
        fn key_fault(&self) -> Fail {
            Fail::syntax("key must be a string", self.pos)
        }

        #[cold]
        fn colon_fault(&self) -> Fail {
            Fail::syntax("expected `:`", self.pos)
        }

        /// The visitor's error for the value at `pos`, which is not of the kind it asked for
        /// (serde_json's `peek_invalid_type`: a string or scalar is read, an array or object
        /// only seen).
        #[cold]
        fn invalid_type(&mut self, exp: &dyn Expected) -> Fail {
            let at = self.pos;
            let e = match self.skip_ws() {
                Some(b'"') => match self.string() {
                    Ok(s) => Fail::invalid_type(Unexpected::Str(s.as_str()), exp),
                    Err(e) => return e,
                },
                Some(b'-' | b'0'..=b'9') => match self.number() {
                    Ok((text, integer)) => match number(text, integer) {
                        Ok(Number::U(n)) => Fail::invalid_type(Unexpected::Unsigned(n), exp),
                        Ok(Number::I(n)) => Fail::invalid_type(Unexpected::Signed(n), exp),
                        Ok(Number::F(n)) => Fail::invalid_type(Unexpected::Float(n), exp),
                        Err(()) => return Fail::syntax("number out of range", self.pos),
                    },
                    Err(e) => return e,
                },
                Some(b'n') => match self.literal(b"null") {
                    Ok(()) => Fail::invalid_type(Unexpected::Unit, exp),
                    Err(e) => return e,
                },
                Some(b't') => match self.literal(b"true") {
                    Ok(()) => Fail::invalid_type(Unexpected::Bool(true), exp),
                    Err(e) => return e,
                },
                Some(b'f') => match self.literal(b"false") {
                    Ok(()) => Fail::invalid_type(Unexpected::Bool(false), exp),
                    Err(e) => return e,
                },
                Some(b'[') => Fail::invalid_type(Unexpected::Seq, exp),
                Some(b'{') => Fail::invalid_type(Unexpected::Map, exp),
                _ => {
                    self.pos = at;
                    return self.expected_value();
                }
            };
            e.at(self.pos)
        }

        /// Stamps a visitor's failure at the current position.
        #[cold]
        fn stamp(&self, e: Fail) -> Fail {
            e.at(self.pos)
        }

        /// Stamps a failure of a container's visitor where serde_json does: past the closing
        /// bracket when it comes next.
        // Bound: see `Reader::pos`.
        #[allow(clippy::arithmetic_side_effects)]
        #[cold]
        fn stamp_close(&mut self, e: Fail, close: u8) -> Fail {
            if e.position().is_none() && self.skip_ws() == Some(close) {
                self.pos += 1;
            }
            e.at(self.pos)
        }

        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn seq<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Fail> {
            self.enter()?;
            let value = match v.visit_seq(Seq { r: self, index: 0 }) {
                Ok(value) => value,
                Err(e) => return Err(self.stamp_close(e, b']')),
            };
            match self.skip_ws() {
                Some(b']') => {}
                Some(b',') => return Err(Fail::syntax("trailing characters", self.pos)),
                _ => return Err(self.list_fault()),
            }
            self.pos += 1;
            self.depth -= 1;
            Ok(value)
        }

        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn map<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Fail> {
            self.enter()?;
            let value = match v.visit_map(Map {
                r: self,
                first: true,
                key: (0, 0),
            }) {
                Ok(value) => value,
                Err(e) => return Err(self.stamp_close(e, b'}')),
            };
            match self.skip_ws() {
                Some(b'}') => {}
                _ => return Err(self.object_fault()),
            }
            self.pos += 1;
            self.depth -= 1;
            Ok(value)
        }

        /// A list of positional rows or one row (see [`crate::de::ROW_TOKEN`]): the visitor
        /// reads the rest of the body from the `[` and says how far it went.
        fn rows<V: Visitor<'de>>(&mut self, list: bool, v: V) -> Result<V::Value, Fail> {
            let start = self.pos;
            let rest = self
                .text
                .get(start..)
                .ok_or_else(|| Fail::syntax("invalid row", start))?;
            crate::de::ROW_END.with(|e| e.set(None));
            crate::de::ROW_FAILED.with(|e| e.set(None));
            let value = match v.visit_borrowed_str::<Fail>(rest) {
                Ok(value) => value,
                Err(e) => {
                    // The row that failed, and where: the list's row index, and the offset of
                    // the fault in the row's text when the reader of rows knows it.
                    let failed = crate::de::ROW_FAILED.with(|e| e.take());
                    let e = match failed {
                        Some((index, offset)) => {
                            let e = e.at(start.saturating_add(offset));
                            if list {
                                e.index(index)
                            } else {
                                e
                            }
                        }
                        None => e.at(start),
                    };
                    return Err(e);
                }
            };
            let len = crate::de::ROW_END
                .with(|e| e.take())
                .filter(|&len| len <= rest.len())
                .ok_or_else(|| Fail::syntax("invalid row", start))?;
            // `pos + len` is at most `text.len()`: `rest` is `text[pos..]`.
            self.pos = start.saturating_add(len);
            Ok(value)
        }
    }

    /// A number as serde_json reads it.
    enum Number {
        U(u64),
        I(i64),
        F(f64),
    }

    /// serde_json's reading of a number's text: a non-negative integer that fits is `u64`, a
    /// negative one `i64` (`-0` is the float `-0.0`), anything else `f64` by serde_json's own
    /// parser (so a value is the same bit for bit); `Err` for a number out of `f64`'s range.
    fn number(text: &str, integer: bool) -> Result<Number, ()> {
        if integer {
            match text.strip_prefix('-') {
                Some(digits) => {
                    if let Ok(magnitude @ 1..) = digits.parse::<u64>() {
                        if let Some(value) = 0i64.checked_sub_unsigned(magnitude) {
                            return Ok(Number::I(value));
                        }
                    }
                }
                None => {
                    if let Ok(n) = text.parse::<u64>() {
                        return Ok(Number::U(n));
                    }
                }
            }
        }
        float(text).map(Number::F)
    }

    #[cold]
    fn float(text: &str) -> Result<f64, ()> {
        serde_json::from_str::<f64>(text).map_err(|_| ())
    }

    macro_rules! numbers {
        ($($method:ident)*) => {
            $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
                match self.skip_ws() {
                    Some(b'-' | b'0'..=b'9') => self.visit_number(v),
                    _ => Err(self.invalid_type(&v)),
                }
            })*
        };
    }

    macro_rules! wide {
        ($($method:ident $ty:ty, $visit:ident;)*) => {
            $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
                match self.skip_ws() {
                    Some(b'-' | b'0'..=b'9') => {
                        // An integer that fits; any other number as serde_json reads it.
                        let start = self.pos;
                        if let (text, true) = self.number()? {
                            if let Ok(n) = text.parse::<$ty>() {
                                return v.$visit(n).map_err(|e| self.stamp(e));
                            }
                        }
                        self.pos = start;
                        self.visit_number(v)
                    }
                    _ => Err(self.invalid_type(&v)),
                }
            })*
        };
    }

    impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
        type Error = Fail;

        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'n') => {
                    self.literal(b"null")?;
                    v.visit_unit().map_err(|e| self.stamp(e))
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    v.visit_bool(true).map_err(|e| self.stamp(e))
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    v.visit_bool(false).map_err(|e| self.stamp(e))
                }
                Some(b'"') => {
                    let s = self.string()?;
                    s.visit(v).map_err(|e| self.stamp(e))
                }
                Some(b'-' | b'0'..=b'9') => self.visit_number(v),
                Some(b'[') => self.seq(v),
                Some(b'{') => self.map(v),
                _ => Err(self.expected_value()),
            }
        }

        fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b't') => {
                    self.literal(b"true")?;
                    v.visit_bool(true).map_err(|e| self.stamp(e))
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    v.visit_bool(false).map_err(|e| self.stamp(e))
                }
                _ => Err(self.invalid_type(&v)),
            }
        }

        numbers! {
            deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
            deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
            deserialize_f32 deserialize_f64
        }

        wide! {
            deserialize_i128 i128, visit_i128;
            deserialize_u128 u128, visit_u128;
        }

        fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            self.deserialize_str(v)
        }

        fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'"') => {
                    let s = self.string()?;
                    s.visit(v).map_err(|e| self.stamp(e))
                }
                _ => Err(self.invalid_type(&v)),
            }
        }

        fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            self.deserialize_str(v)
        }

        fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'"') => match self.string()? {
                    Text::Borrowed(s) => v.visit_borrowed_bytes(s.as_bytes()),
                    Text::Owned(s) => v.visit_bytes(s.as_bytes()),
                }
                .map_err(|e| self.stamp(e)),
                Some(b'[') => self.seq(v),
                _ => Err(self.invalid_type(&v)),
            }
        }

        fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            self.deserialize_bytes(v)
        }

        fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            self.deserialize_str(v)
        }

        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'n') => {
                    self.literal(b"null")?;
                    v.visit_none().map_err(|e| self.stamp(e))
                }
                _ => v.visit_some(self),
            }
        }

        fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'n') => {
                    self.literal(b"null")?;
                    v.visit_unit().map_err(|e| self.stamp(e))
                }
                _ => Err(self.invalid_type(&v)),
            }
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            v: V,
        ) -> Result<V::Value, Fail> {
            self.deserialize_unit(v)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            v: V,
        ) -> Result<V::Value, Fail> {
            if name == RAW_TOKEN {
                self.skip_ws();
                let start = self.pos;
                self.skip_value()?;
                let raw = self
                    .text
                    .get(start..self.pos)
                    .ok_or_else(|| Fail::syntax("invalid value", start))?;
                return v
                    .visit_map(RawMap { raw: Some(raw) })
                    .map_err(|e| self.stamp(e));
            }
            if name == crate::de::ROW_TOKEN || name == crate::de::ROWS_TOKEN {
                // A positional row, or a list of them, reads itself from the rest of the body,
                // checking its syntax, and says how far it went (see `de::positional`,
                // `de::rows`); anything but an array is read by the visitor as a plain newtype
                // (a row as a `RawValue`, a list by `de::vec`'s rules).
                if self.skip_ws() == Some(b'[') {
                    return self.rows(name == crate::de::ROWS_TOKEN, v);
                }
            }
            v.visit_newtype_struct(self)
        }

        fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'[') => self.seq(v),
                _ => Err(self.invalid_type(&v)),
            }
        }

        fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, Fail> {
            self.deserialize_seq(v)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: usize,
            v: V,
        ) -> Result<V::Value, Fail> {
            self.deserialize_seq(v)
        }

        fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'{') => self.map(v),
                _ => Err(self.invalid_type(&v)),
            }
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'[') => self.seq(v),
                Some(b'{') => self.map(v),
                _ => Err(self.invalid_type(&v)),
            }
        }

        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Fail> {
            match self.skip_ws() {
                Some(b'"') => {
                    let s = self.string()?;
                    v.visit_enum(UnitName(s.as_str()))
                        .map_err(|e| self.stamp(e))
                }
                // `{"Variant": value}`.
                Some(b'{') => {
                    self.enter()?;
                    if self.skip_ws() != Some(b'"') {
                        return Err(self.key_fault());
                    }
                    let value = v.visit_enum(MapVariant {
                        r: &mut *self,
                        name: None,
                    })?;
                    if self.skip_ws() != Some(b'}') {
                        return Err(self.object_fault());
                    }
                    self.pos += 1;
                    self.depth -= 1;
                    Ok(value)
                }
                _ => Err(self.invalid_type(&v)),
            }
        }

        fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            self.skip_value()?;
            v.visit_unit()
        }
    }

    struct Seq<'a, 'de> {
        r: &'a mut Reader<'de>,
        /// Index of the next element.
        index: usize,
    }

    impl<'de> de::SeqAccess<'de> for Seq<'_, 'de> {
        type Error = Fail;

        // Bound: see `Reader::pos`; `index` counts elements, at most one per byte.
        #[allow(clippy::arithmetic_side_effects)]
        fn next_element_seed<T: DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>, Fail> {
            match self.r.skip_ws() {
                Some(b']') => return Ok(None),
                Some(b',') if self.index > 0 => {
                    self.r.pos += 1;
                    if self.r.skip_ws() == Some(b']') {
                        return Err(Fail::syntax("trailing comma", self.r.pos));
                    }
                }
                Some(_) if self.index == 0 => {}
                None => return Err(Fail::syntax("EOF while parsing a list", self.r.pos)),
                Some(_) => return Err(self.r.list_fault()),
            }
            let index = self.index;
            self.index += 1;
            match seed.deserialize(&mut *self.r) {
                Ok(value) => Ok(Some(value)),
                Err(e) => Err(e.index(index)),
            }
        }
    }

    struct Map<'a, 'de> {
        r: &'a mut Reader<'de>,
        first: bool,
        /// Where the name of the member being read is (from its opening quote to past its
        /// closing one), for the path of a failure: read again only then.
        key: (usize, usize),
    }

    impl Map<'_, '_> {
        /// Adds the member's name to the path of a failure of its value.
        #[cold]
        #[inline(never)]
        fn member_failed(&self, e: Fail) -> Fail {
            let (start, end) = self.key;
            if end == 0 {
                return e;
            }
            let mut name = String::new();
            let bytes = self.r.text.as_bytes();
            match scan_string(bytes.get(..end).unwrap_or_default(), start, Some(&mut name)) {
                Ok(_) => e.key(&name),
                Err(_) => e,
            }
        }
    }

    impl<'de> de::MapAccess<'de> for Map<'_, 'de> {
        type Error = Fail;

        // Bound: see `Reader::pos`.
        #[allow(clippy::arithmetic_side_effects)]
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Fail> {
            let mut next = self.r.skip_ws();
            if next == Some(b'}') {
                return Ok(None);
            }
            if !self.first {
                if next != Some(b',') {
                    return Err(match next {
                        None => Fail::syntax("EOF while parsing an object", self.r.pos),
                        Some(_) => self.r.object_fault(),
                    });
                }
                self.r.pos += 1;
                next = self.r.skip_ws();
            }
            if next != Some(b'"') {
                return Err(match next {
                    None => Fail::syntax("EOF while parsing an object", self.r.pos),
                    Some(b'}') => Fail::syntax("trailing comma", self.r.pos),
                    Some(_) => self.r.key_fault(),
                });
            }
            self.first = false;
            let start = self.r.pos;
            let key = self.r.string()?;
            self.key = (start, self.r.pos);
            if self.r.skip_ws() != Some(b':') {
                return Err(self.r.colon_fault());
            }
            self.r.pos += 1;
            let name = key.as_str();
            self.r.code_next = self.r.depth == 1 && name == "code";
            match seed.deserialize(Key(name)) {
                Ok(value) => Ok(Some(value)),
                Err(e) => Err(self.r.stamp(e)),
            }
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Fail> {
            if std::mem::take(&mut self.r.code_next) {
                self.r.note_code();
            }
            match seed.deserialize(&mut *self.r) {
                Ok(value) => Ok(value),
                Err(e) => Err(self.member_failed(e)),
            }
        }
    }

    /// A member name (serde_json's `MapKey`): a string, or a number or boolean written as one.
    ///
    /// DESIGN (code size): a name is always visited with `visit_str`, borrowed or not, so a
    /// struct's field matching is compiled once per struct, not once per way of visiting. Every
    /// answer type is `DeserializeOwned`, for which the two are the same.
    struct Key<'a>(&'a str);

    impl<'a> Key<'a> {
        fn visit<'de, V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            v.visit_str(self.0)
        }

        /// A number written as a member name.
        fn number<'de, V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            let text = self.0;
            let scanned = crate::de::num::scan_json_number(text.as_bytes(), 0)
                .filter(|&(end, _)| end == text.len());
            match scanned.map(|(_, integer)| number(text, integer)) {
                Some(Ok(Number::U(n))) => v.visit_u64(n),
                Some(Ok(Number::I(n))) => v.visit_i64(n),
                Some(Ok(Number::F(n))) => v.visit_f64(n),
                _ => Err(Fail::invalid_type(Unexpected::Str(text), &v)),
            }
        }
    }

    macro_rules! key_numbers {
        ($($method:ident)*) => {
            $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
                self.number(v)
            })*
        };
    }

    macro_rules! key_as_str {
        ($($method:ident)*) => {
            $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
                self.visit(v)
            })*
        };
    }

    impl<'de> de::Deserializer<'de> for Key<'_> {
        type Error = Fail;

        key_as_str! {
            deserialize_any deserialize_str deserialize_string deserialize_identifier
            deserialize_char deserialize_unit deserialize_seq deserialize_map
        }

        key_numbers! {
            deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
            deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
            deserialize_f32 deserialize_f64
        }

        fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            match self.0 {
                "true" => v.visit_bool(true),
                "false" => v.visit_bool(false),
                other => Err(Fail::invalid_type(Unexpected::Str(other), &v)),
            }
        }

        fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            v.visit_bytes(self.0.as_bytes())
        }

        fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            self.deserialize_bytes(v)
        }

        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            v.visit_some(self)
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            v: V,
        ) -> Result<V::Value, Fail> {
            self.visit(v)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            v: V,
        ) -> Result<V::Value, Fail> {
            v.visit_newtype_struct(self)
        }

        fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, Fail> {
            self.visit(v)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: usize,
            v: V,
        ) -> Result<V::Value, Fail> {
            self.visit(v)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Fail> {
            self.visit(v)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Fail> {
            v.visit_enum(UnitName(self.0))
        }

        fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Fail> {
            v.visit_unit()
        }
    }

    /// A string enum value: a unit variant named by the string.
    struct UnitName<'a>(&'a str);

    /// The variant of a [`UnitName`], once named.
    struct UnitVariant;

    impl<'de> de::EnumAccess<'de> for UnitName<'_> {
        type Error = Fail;
        type Variant = UnitVariant;

        fn variant_seed<S: DeserializeSeed<'de>>(
            self,
            seed: S,
        ) -> Result<(S::Value, UnitVariant), Fail> {
            Ok((seed.deserialize(Key(self.0))?, UnitVariant))
        }
    }

    impl<'de> de::VariantAccess<'de> for UnitVariant {
        type Error = Fail;

        fn unit_variant(self) -> Result<(), Fail> {
            Ok(())
        }

        fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> Result<S::Value, Fail> {
            Err(Fail::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            ))
        }

        fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Fail> {
            Err(Fail::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            ))
        }

        fn struct_variant<V: Visitor<'de>>(
            self,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Fail> {
            Err(Fail::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            ))
        }
    }

    /// An enum value written as `{"Variant": value}` (the reader is inside the object, at the
    /// name).
    struct MapVariant<'a, 'de> {
        r: &'a mut Reader<'de>,
        /// The variant's name, once read (for the path of a failure of its value).
        name: Option<String>,
    }

    impl MapVariant<'_, '_> {
        /// Adds the variant's name to the path of a failure of its value.
        #[cold]
        fn failed(&self, e: Fail) -> Fail {
            match &self.name {
                Some(name) => e.key(name),
                None => e,
            }
        }
    }

    impl<'de> de::EnumAccess<'de> for MapVariant<'_, 'de> {
        type Error = Fail;
        type Variant = Self;

        // Bound: see `Reader::pos`.
        #[allow(clippy::arithmetic_side_effects)]
        fn variant_seed<S: DeserializeSeed<'de>>(
            mut self,
            seed: S,
        ) -> Result<(S::Value, Self), Fail> {
            let key = self.r.string()?;
            if self.r.skip_ws() != Some(b':') {
                return Err(self.r.colon_fault());
            }
            self.r.pos += 1;
            let value = seed
                .deserialize(Key(key.as_str()))
                .map_err(|e| self.r.stamp(e))?;
            self.name = Some(key.as_str().to_owned());
            Ok((value, self))
        }
    }

    impl<'de> de::VariantAccess<'de> for MapVariant<'_, 'de> {
        type Error = Fail;

        fn unit_variant(self) -> Result<(), Fail> {
            de::Deserialize::deserialize(&mut *self.r).map_err(|e| self.failed(e))
        }

        fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Fail> {
            seed.deserialize(&mut *self.r).map_err(|e| self.failed(e))
        }

        fn tuple_variant<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, Fail> {
            de::Deserializer::deserialize_seq(&mut *self.r, v).map_err(|e| self.failed(e))
        }

        fn struct_variant<V: Visitor<'de>>(
            self,
            _: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Fail> {
            de::Deserializer::deserialize_struct(&mut *self.r, "", &[], v)
                .map_err(|e| self.failed(e))
        }
    }

    /// serde_json's `RawValue` hand-over: one entry, the token name then the raw text.
    struct RawMap<'de> {
        raw: Option<&'de str>,
    }

    impl<'de> de::MapAccess<'de> for RawMap<'de> {
        type Error = Fail;

        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Fail> {
            match self.raw {
                Some(_) => seed.deserialize(Borrowed::new(RAW_TOKEN)).map(Some),
                None => Ok(None),
            }
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Fail> {
            let raw = self
                .raw
                .take()
                .ok_or_else(|| Fail::custom("a raw value read twice"))?;
            seed.deserialize(Borrowed::new(raw))
        }
    }

    /// A borrowed string, visited as one whatever is asked (the `RawValue` hand-over).
    type Borrowed<'de> = de::value::BorrowedStrDeserializer<'de, Fail>;
}

/// Decodes `json` by the reader and by serde_json with path tracking, and checks that they
/// agree: the same value; or both refuse it, with, for a value of the wrong type, the same
/// message (the line and column aside: each stamps where its reading was) and the same JSON
/// path, and for a text that is not JSON, serde_json's words. Returns serde_json's result.
#[cfg(test)]
pub(crate) fn agree<T>(json: &str) -> Result<T, String>
where
    T: DeserializeOwned + PartialEq + fmt::Debug,
{
    fn words(message: &str) -> &str {
        message.split(" at line ").next().unwrap_or(message)
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let reference = serde_path_to_error::deserialize::<_, T>(&mut de)
        .map_err(|e| (e.path().to_string(), e.into_inner()))
        .and_then(|v| de.end().map(|()| v).map_err(|e| (".".to_owned(), e)));
    let got = decode::<T>(json.as_bytes());
    match (&got, &reference) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{json}"),
        (Err(f), Err((path, e))) if e.is_syntax() || e.is_eof() => {
            // serde_json's words: of its check of the whole body, or of its decode.
            let check = serde_json::from_str::<IgnoredAny>(json).err();
            assert!(
                check.is_some_and(|c| c.to_string() == f.message) || f.message == e.to_string(),
                "{json}: the reader: {}, serde_json: {e} at {path}",
                f.message
            );
        }
        (Err(f), Err((path, e))) => {
            assert_eq!(words(&f.message), words(&e.to_string()), "{json}");
            assert_eq!(&f.path, path, "{json}: {}", e);
        }
        _ => panic!("{json}: the reader: {got:?}, serde_json: {reference:?}"),
    }
    reference.map_err(|(_, e)| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Payload {
        a: u32,
        #[serde(default)]
        b: Vec<u32>,
    }

    #[test]
    fn fast_reader_agrees_with_serde_json() {
        use crate::spot::{Klines, OrderBook};
        let books = [
            r#"{"bids":[[9559.43,0.0005],["9559.42","1e-07"]],"asks":[[1,2,3]],"date":1,"code":0}"#,
            r#" { "bids" : [ [ 0.5 , -0 ] , [ 12345678.123456789 , 1E+2 ] ] , "asks" : [ ] , "code" : 0 } "#,
            r#"{"bids":[[01,2]],"asks":[],"code":0}"#,
            r#"{"bids":[[1.,2]],"asks":[],"code":0}"#,
            r#"{"bids":[[.5,2]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2,]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,"a"b"]],"asks":[],"code":0}"#,
            r#"{"bids":[[1]],"asks":[],"code":0}"#,
            r#"{"bids":[["1",2,{"x":[null,true]}]],"asks":null,"code":"0"}"#,
            r#"{"bids":[[1,2]],"asks":[],"code":0} x"#,
            r#"{"bids":[[1,2]],"asks":[],"code":0.0}"#,
            // Flat rows are checked by their reader, in the same pass as the numbers.
            r#"{"bids":[[1 2]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,,2]],"asks":[],"code":0}"#,
            r#"{"bids":[[,1,2]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2 3]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2,3x]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2,nul]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2,null,true,false,-0.5e-3]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2,tru]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,-]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2,1e]],"asks":[],"code":0}"#,
            r#"{"bids":[[-01,2]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,02]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2.]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,-.5]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2,.5]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2,+5]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2e5x]],"asks":[],"code":0}"#,
            r#"{"bids":[[1,2],[3,4]],"asks":[[5, 6 ,7 ]],"code":0}"#,
            "{\"bids\":[[1,2\u{b}]],\"asks\":[],\"code\":0}",
            "{\"bids\":[[1,2,\u{e9}]],\"asks\":[],\"code\":0}",
            "{\"bids\":[[1,2,\u{1}]],\"asks\":[],\"code\":0}",
            "{\"bids\":[[1\n,\t2\r]],\"asks\":[],\"code\":0}",
        ];
        for body in books {
            let (fast, code, _) = decode_with_code::<OrderBook>(body.as_bytes());
            let code_json = serde_json::from_str::<serde_json::Value>(body)
                .ok()
                .and_then(|v| {
                    v["code"]
                        .as_i64()
                        .or_else(|| v["code"].as_str()?.parse().ok())
                });
            if fast.is_ok() {
                assert_eq!(code, code_json, "{body}");
            }
            agree::<OrderBook>(body).ok();
        }
        let (k, _, _) = decode_with_code::<Klines>(
            br#"{"data":[[1706763600,0.5,"11.364",1e1,11,-0.001],[1,2,3,4,5,6]],"code":0}"#,
        );
        assert_eq!(k.unwrap().data.len(), 2);
        for body in [
            r#"{"data":[[1,2,3,4,5,6,7]],"code":0}"#,
            r#"{"data":[[01,2,3,4,5,6]],"code":0}"#,
            r#"{"data":[[1 ,2,3,4,5,6 ]],"code":0}"#,
            r#"{"data":[[1.0,2,3,4,5,6]],"code":0}"#,
            r#"{"data":[[-1,2,3,4,5,6]],"code":0}"#,
            r#"{"data":[[1x,2,3,4,5,6]],"code":0}"#,
            r#"{"data":[[1,2,3,4,5,6,]],"code":0}"#,
            r#"{"data":[[1,2,3,4,5,6 7]],"code":0}"#,
            r#"{"data":[[1,2,3,4,5]],"code":0}"#,
        ] {
            agree::<Klines>(body).ok();
        }
    }

    /// What serde_json reads besides the hot shapes, read by the reader alone (no second
    /// decoder): escapes, enums written as strings or objects, wide integers, member names
    /// that are numbers, fractions and wide integers where any value is asked for, deep
    /// nesting; each value and each failure's message and path as serde_json gives them.
    #[test]
    fn the_reader_reads_all_of_json() {
        #[derive(Deserialize, Debug, PartialEq)]
        enum Kind {
            Plain,
            Sized(u32),
            Pair(u8, u8),
            Named { a: i8 },
        }
        #[derive(Deserialize, Debug, PartialEq)]
        struct All {
            s: String,
            kinds: Vec<Kind>,
            wide: i128,
            big: u128,
            by_number: std::collections::BTreeMap<u32, bool>,
            any: Vec<serde_json::Value>,
            c: char,
            unit: (),
            opt: Option<Box<All>>,
        }
        let good = r#"{"s":"a\"b\u00e9\ud83d\ude00\n","kinds":["Plain",{"Sized":7},{"Pair":[1,2]},{"Named":{"a":-3}}],"wide":-170141183460469231731687303715884105728,"big":340282366920938463463374607431768211455,"by_number":{"1":true,"22":false},"any":[1.5,-0,18446744073709551616,1e-7,"x\/y",[{}],null],"c":"\u0041","unit":null,"opt":null}"#;
        let all = agree::<All>(good).unwrap();
        assert_eq!(all.s, "a\"b\u{e9}\u{1f600}\n");
        assert_eq!(all.kinds.len(), 4);
        assert_eq!(all.wide, i128::MIN);
        assert_eq!(all.by_number.get(&22), Some(&false));
        assert_eq!(all.c, 'A');
        for bad in [
            // Wrong types, deep inside: the message and the path as serde_json's.
            r#"{"s":"x","kinds":["Plain",{"Sized":-1}],"wide":0,"big":0,"by_number":{},"any":[],"c":"c","unit":null,"opt":null}"#,
            r#"{"s":"x","kinds":["Nope"],"wide":0,"big":0,"by_number":{},"any":[],"c":"c","unit":null,"opt":null}"#,
            r#"{"s":"x","kinds":[],"wide":0,"big":0,"by_number":{},"any":[],"c":"cd","unit":null,"opt":null}"#,
            r#"{"s":"x","kinds":[],"wide":0,"big":0,"by_number":{},"any":[],"c":"c","unit":null,"opt":{"s":5}}"#,
            r#"{"s":"x","kinds":[],"wide":0,"big":0,"by_number":{},"any":[],"c":"c"}"#,
            // Not JSON: serde_json's words.
            r#"{"s":"\x","kinds":[]}"#,
            r#"{"s":"\ud83d","kinds":[]}"#,
            "{\"s\":\"a\u{1}\"}",
            r#"{"s":"x","kinds":[1,]}"#,
            r#"{"s":"x","any":[1e400]}"#,
            r#"{"s":"x""#,
        ] {
            assert!(agree::<All>(bad).is_err(), "{bad}");
        }
        // A fraction for an `i128`: refused by both (serde_json stops at the `.` with a syntax
        // error, the reader names the type).
        let fraction = r#"{"s":"x","kinds":[],"wide":1.5,"big":0,"by_number":{},"any":[],"c":"c","unit":null,"opt":null}"#;
        assert!(serde_json::from_str::<All>(fraction).is_err());
        let e = decode::<All>(fraction.as_bytes()).unwrap_err();
        assert_eq!(e.path, "wide");
        assert!(e
            .message
            .starts_with("invalid type: floating point `1.5`, expected i128"));
        // A member name that is no number where one is asked for: refused by both (serde_json
        // calls it a syntax error).
        let name = r#"{"s":"x","kinds":[],"wide":0,"big":0,"by_number":{"x":true},"any":[],"c":"c","unit":null,"opt":null}"#;
        assert!(serde_json::from_str::<All>(name).is_err());
        let e = decode::<All>(name.as_bytes()).unwrap_err();
        assert!(e
            .message
            .starts_with("invalid type: string \"x\", expected u32"));
        // Nesting: serde_json's limit of 128.
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(agree::<serde_json::Value>(&deep(127)).is_ok());
        assert!(agree::<serde_json::Value>(&deep(129)).is_err());
        assert!(decode::<IgnoredAny>(deep(129).as_bytes()).is_err());
    }

    /// A body that is not UTF-8 is read with U+FFFD in place of each invalid sequence: a
    /// mangled name decodes, a mangled number fails (naming it).
    #[test]
    fn a_body_that_is_not_utf8_is_read_lossily() {
        #[derive(Deserialize, Debug, PartialEq)]
        struct Asset {
            currency: String,
            #[serde(with = "crate::de::decimal")]
            free: rust_decimal::Decimal,
        }
        let (r, code, _) =
            decode_with_code::<Asset>(b"{\"currency\":\"us\xffdt\",\"free\":\"1.5\",\"code\":0}");
        let asset = r.unwrap();
        assert_eq!(asset.currency, "us\u{fffd}dt");
        assert_eq!(asset.free.to_string(), "1.5");
        assert_eq!(code, Some(0));
        let (r, code, _) =
            decode_with_code::<Asset>(b"{\"currency\":\"usdt\",\"free\":\"1.\xff5\",\"code\":0}");
        assert_eq!(r.unwrap_err().path, "free");
        assert_eq!(code, Some(0));
    }

    #[test]
    fn swap_data_envelope_in_one_pass() {
        let (r, c, _) = decode_with_code::<Data<Payload>>(
            br#"{"code":0,"data":{"a":1,"b":[2],"code":9},"extra":[1,{"data":3}]}"#,
        );
        assert_eq!(r.unwrap().0, Payload { a: 1, b: vec![2] });
        assert_eq!(c, Some(0));
        // Missing or null `data`: an empty list, `None`, or an error for a struct.
        for body in [&br#"{"code":0}"#[..], br#"{"data":null,"code":0}"#] {
            let (r, c, _) = decode_with_code::<Data<Vec<u32>>>(body);
            assert_eq!(r.unwrap().0, Vec::<u32>::new());
            assert_eq!(c, Some(0));
            let (r, _, _) = decode_with_code::<Data<Option<u32>>>(body);
            assert_eq!(r.unwrap().0, None);
            let (r, _, _) = decode_with_code::<Data<Payload>>(body);
            assert!(r.is_err());
        }
        // An error envelope without `data` still reports its code.
        let (r, c, _) = decode_with_code::<Data<Payload>>(br#"{"code":401003,"msg":"x"}"#);
        assert!(r.is_err());
        assert_eq!(c, Some(401003));
        let (r, c, _) = decode_with_code::<Data<u64>>(br#"{"code":0,"data":1657522488402}"#);
        assert_eq!(r.unwrap().0, 1657522488402);
        assert_eq!(c, Some(0));
    }

    #[test]
    fn captures_code_anywhere_at_top_level() {
        let (r, c, _) = decode_with_code::<Payload>(br#"{"a":1,"b":[2],"code":0}"#);
        assert_eq!(r.unwrap(), Payload { a: 1, b: vec![2] });
        assert_eq!(c, Some(0));
        let (r, c, _) = decode_with_code::<Payload>(br#"{"code":"200","a":1}"#);
        assert!(r.is_ok());
        assert_eq!(c, Some(200));
        let (r, c, _) = decode_with_code::<Payload>(br#"{"code":-7,"a":1}"#);
        assert!(r.is_ok());
        assert_eq!(c, Some(-7));
    }

    /// The reader notes the top-level code by the rules of `top_code` (serde_json's reading):
    /// each body decodes on the fast path, and both agree with the expected code.
    #[test]
    fn reader_and_top_code_agree_on_the_code() {
        for (body, want) in [
            (r#"{"code":0,"a":1}"#, Some(0)),
            (r#"{"a":1,"b":[2],"code":"200"}"#, Some(200)),
            (r#"{"code":" 7 ","a":1}"#, Some(7)),
            (r#"{"code":"x","a":1}"#, None),
            (r#"{"code":1,"a":1,"code":2}"#, Some(2)),
            (r#"{"code":5,"a":1,"code":"x"}"#, None),
            (r#"{"code":5,"a":1,"code":1.5}"#, Some(5)),
            (r#"{"code":5,"a":1,"code":null}"#, Some(5)),
            (r#"{"code":5,"a":1,"code":{"code":6}}"#, Some(5)),
            (r#"{"code":5,"a":1,"code":[6]}"#, Some(5)),
            (r#"{"code":-3,"a":1}"#, Some(-3)),
            (r#"{"code":-0,"a":1}"#, None),
            (r#"{"code":9223372036854775807,"a":1}"#, Some(i64::MAX)),
            (r#"{"code":-9223372036854775808,"a":1}"#, Some(i64::MIN)),
            (r#"{"code":18446744073709551615,"a":1}"#, None),
            (r#"{"code":18446744073709551616,"a":1}"#, None),
            (r#"{"a":1,"x":{"code":3}}"#, None),
        ] {
            assert_eq!(
                check_reader::<Payload>(body.as_bytes(), false),
                Ok(true),
                "{body}"
            );
            let (r, code, _) = decode_with_code::<Payload>(body.as_bytes());
            assert!(r.is_ok(), "{body}");
            assert_eq!(code, want, "{body}");
            assert_eq!(top_code(body.as_bytes()), want, "{body}");
        }
        // A body the reader skips whole still has its code noted.
        let (r, code, _) = decode_with_code::<IgnoredAny>(br#"{"x":[1],"code":"3"}"#);
        assert!(r.is_ok());
        assert_eq!(code, Some(3));
        // The code before a syntax error counts; after the top level, nothing does.
        assert_eq!(top_code(br#"{"code":4,"a":[1,"#), Some(4));
        assert_eq!(top_code(br#"[{"code":4}]"#), None);
        assert_eq!(top_code(b"<html>"), None);
    }

    #[test]
    fn nested_code_is_not_the_envelope_code() {
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct Outer {
            inner: serde_json::Value,
        }
        let (r, c, _) = decode_with_code::<Outer>(br#"{"inner":{"code":5}}"#);
        assert!(r.is_ok());
        assert_eq!(c, None);
    }

    #[test]
    fn error_bodies_still_report_the_code() {
        let (r, c, _) = decode_with_code::<Payload>(br#"{"code":20013,"msg":"not found"}"#);
        assert!(r.is_err());
        assert_eq!(c, Some(20013));
        let (r, c, _) = decode_with_code::<Payload>(b"<html>");
        assert!(r.is_err());
        assert_eq!(c, None);
        let (r, _, _) = decode_with_code::<Payload>(br#"{"a":1,"code":0} trailing"#);
        assert!(r.is_err());
    }
}
