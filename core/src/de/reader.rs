//! Single-pass decoding of a response body into `T` while capturing the envelope's top-level
//! `code`.
//!
//! The exchange puts `code` beside the payload fields (`{"bids":[..],"asks":[..],"code":0}`), and
//! often last. Reading the envelope first would scan the body twice; `#[serde(flatten)]` would
//! buffer it. Instead the single-pass reader ([`fast`]) notes the value of every top-level
//! `code` member while `T`'s visitor reads (and ignores) it. A body the reader leaves to
//! serde_json has its code read by a second, non-generic pass ([`top_code`]), so no wrapper is
//! instantiated per answer type.

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
/// DESIGN (compile time): each answer type's decoder is instantiated twice, not four times:
/// the single-pass reader (the hot path), and serde_json with path tracking ([`tracked`]),
/// which is at once the fallback for whatever the reader leaves, the decoder of a body that is
/// not UTF-8, the source of a failure's JSON path (no second decode) and the reporter of
/// unreadable values. The fallback pays for the path tracking; no fixture of the drift suite
/// (one full answer per endpoint) takes it.
pub(crate) fn decode_with_code<T: DeserializeOwned>(
    body: &[u8],
) -> (Result<T, Failure>, Option<i64>, u32) {
    crate::de::unreadable::reset();
    // A UTF-8 body (the norm) is read by the single-pass reader (see [`fast`]); anything it
    // leaves, and any other body, is decoded again by serde_json.
    if let Ok(text) = std::str::from_utf8(body) {
        let mut reader = fast::Reader::new(text);
        if let Ok(v) = T::deserialize(&mut reader).and_then(|v| reader.end().map(|()| v)) {
            return (Ok(v), reader.code(), crate::de::unreadable::count());
        }
        crate::de::unreadable::reset();
    }
    let result = tracked(body);
    (result, top_code(body), crate::de::unreadable::count())
}

/// `T` from JSON text: the single-pass reader (see [`fast`]), or serde_json for whatever it
/// leaves, so results and errors are serde_json's (the websocket decoders).
#[cfg(feature = "ws")]
pub(crate) fn from_str<'de, T: serde::Deserialize<'de>>(
    text: &'de str,
) -> Result<T, serde_json::Error> {
    let mut reader = fast::Reader::new(text);
    match T::deserialize(&mut reader).and_then(|v| reader.end().map(|()| v)) {
        Ok(v) => Ok(v),
        Err(fast::Bail) => serde_json::from_str(text),
    }
}

/// Why a body did not decode: serde_json's error and the JSON path where it happened (`.` for
/// the whole body).
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) path: String,
    pub(crate) error: serde_json::Error,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

/// serde_json decoding `T` from `body` with path tracking.
pub(crate) fn tracked<T: DeserializeOwned>(body: &[u8]) -> Result<T, Failure> {
    let mut de = serde_json::Deserializer::from_slice(body);
    match serde_path_to_error::deserialize(&mut de) {
        Ok(v) => de.end().map(|()| v).map_err(|error| Failure {
            path: ".".to_owned(),
            error,
        }),
        Err(e) => Err(Failure {
            path: e.path().to_string(),
            error: e.into_inner(),
        }),
    }
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
/// `Ok(true)` when the reader decoded the body and serde_json decodes the same value with the
/// same top-level `code`; `Ok(false)` when the reader handed the body to serde_json (so serde_json
/// alone decides); `Err` with both results when they disagree. For the fuzz target `reader` and
/// tests; not a stable API.
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
        let Ok(fast) = fast else {
            return Ok(false);
        };
        let (fast, fast_code) = (inner(fast), reader.code());
        let reference = serde_json::from_str::<W>(text).map(inner);
        let code = top_code(text.as_bytes());
        match reference {
            Ok(v) if v == fast && code == fast_code => Ok(true),
            other => Err(format!(
                "the reader decoded {fast:?} (code {fast_code:?}), serde_json {other:?} (code \
                 {code:?})"
            )),
        }
    }
    // A body that is not UTF-8 never reaches the reader.
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

/// A strict JSON reader for the success path: one pass over the body, strings borrowed, and the
/// exact text of a number handed to [`serde_json::value::RawValue`] readers (the tolerant helpers
/// and positional arrays) without a second scan by serde_json.
///
/// DESIGN: it accepts a subset of what serde_json accepts and, on that subset, makes the same
/// visitor calls; anything else (escaped strings, fractional numbers or integers beyond 64 bits
/// read through `deserialize_any`, unusual nesting, any error at all) is [`Bail`], and the caller
/// decodes the body again with serde_json, so results and error messages are serde_json's.
mod fast {
    use std::fmt;

    use serde::de::{self, DeserializeSeed, Visitor};

    /// serde_json's private name for `RawValue` (its `Deserialize` asks for a newtype struct of
    /// this name and reads the text from a one-entry map). Were it ever to change, `RawValue`
    /// readers would fail here and the caller would fall back to serde_json.
    const RAW_TOKEN: &str = "$serde_json::private::RawValue";
    /// Nesting deeper than this is left to serde_json (whose limit is 128).
    const MAX_DEPTH: u32 = 100;

    /// "Not on the fast path": decode again with serde_json.
    #[derive(Debug)]
    pub(crate) struct Bail;

    impl fmt::Display for Bail {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("left to serde_json")
        }
    }

    impl std::error::Error for Bail {}

    impl de::Error for Bail {
        fn custom<T: fmt::Display>(_: T) -> Self {
            Bail
        }
    }

    pub(crate) struct Reader<'de> {
        text: &'de str,
        /// Byte offset of the next unread character. It only moves one past a byte `get` found
        /// (or to the end of a slice `get` returned), so it is at most `text.len()`, and
        /// `pos + 1` cannot overflow a `usize` (`text.len() <= isize::MAX`).
        pos: usize,
        /// Open arrays and objects: at most `MAX_DEPTH + 1` (the reader bails beyond
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
        /// of another kind leaves it. An escaped string is left too: the reader bails on it.
        fn note_code(&mut self) {
            let bytes = self.text.as_bytes();
            match self.skip_ws() {
                Some(b'"') => {
                    let start = self.pos.saturating_add(1);
                    let rest = bytes.get(start..).unwrap_or_default();
                    let Some(len) = rest.iter().position(|&b| b == b'"' || b == b'\\') else {
                        return;
                    };
                    if rest.get(len) == Some(&b'"') {
                        let text = self.text.get(start..start.saturating_add(len));
                        self.code = text.and_then(|t| t.trim().parse().ok());
                    }
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
        pub(crate) fn end(&mut self) -> Result<(), Bail> {
            match self.skip_ws() {
                None => Ok(()),
                Some(_) => Err(Bail),
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

        fn literal(&mut self, word: &[u8]) -> Result<(), Bail> {
            let end = self.pos.checked_add(word.len()).ok_or(Bail)?;
            if self.text.as_bytes().get(self.pos..end) == Some(word) {
                self.pos = end;
                Ok(())
            } else {
                Err(Bail)
            }
        }

        /// The string at `pos` (which holds `"`), without escapes or control characters.
        // Bound: see `Reader::pos`.
        #[allow(clippy::arithmetic_side_effects)]
        fn string(&mut self) -> Result<&'de str, Bail> {
            let bytes = self.text.as_bytes();
            let start = self.pos + 1;
            let mut i = start;
            loop {
                match bytes.get(i) {
                    Some(b'"') => break,
                    Some(&b) if b == b'\\' || b < 0x20 => return Err(Bail),
                    Some(_) => i += 1,
                    None => return Err(Bail),
                }
            }
            let s = self.text.get(start..i).ok_or(Bail)?;
            self.pos = i + 1;
            Ok(s)
        }

        /// The number at `pos` (JSON grammar), and whether it is an integer.
        fn number(&mut self) -> Result<(&'de str, bool), Bail> {
            let start = self.pos;
            let (end, integer) =
                crate::de::num::scan_json_number(self.text.as_bytes(), start).ok_or(Bail)?;
            let text = self.text.get(start..end).ok_or(Bail)?;
            self.pos = end;
            Ok((text, integer))
        }

        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn enter(&mut self) -> Result<(), Bail> {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(Bail);
            }
            self.pos += 1;
            Ok(())
        }

        /// Skips one value, checking its syntax.
        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn skip_value(&mut self) -> Result<(), Bail> {
            match self.skip_ws() {
                Some(b'"') => self.string().map(drop),
                Some(b'-' | b'0'..=b'9') => self.number().map(drop),
                Some(b'n') => self.literal(b"null"),
                Some(b't') => self.literal(b"true"),
                Some(b'f') => self.literal(b"false"),
                Some(b'[') => {
                    self.enter()?;
                    if self.skip_ws() != Some(b']') {
                        loop {
                            self.skip_value()?;
                            match self.skip_ws() {
                                Some(b',') => self.pos += 1,
                                Some(b']') => break,
                                _ => return Err(Bail),
                            }
                        }
                    }
                    self.pos += 1;
                    self.depth -= 1;
                    Ok(())
                }
                Some(b'{') => {
                    self.enter()?;
                    if self.skip_ws() != Some(b'}') {
                        loop {
                            if self.skip_ws() != Some(b'"') {
                                return Err(Bail);
                            }
                            let key = self.string()?;
                            if self.skip_ws() != Some(b':') {
                                return Err(Bail);
                            }
                            self.pos += 1;
                            if self.depth == 1 && key == "code" {
                                self.note_code();
                            }
                            self.skip_value()?;
                            match self.skip_ws() {
                                Some(b',') => self.pos += 1,
                                Some(b'}') => break,
                                _ => return Err(Bail),
                            }
                        }
                    }
                    self.pos += 1;
                    self.depth -= 1;
                    Ok(())
                }
                _ => Err(Bail),
            }
        }

        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn seq<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Bail> {
            self.enter()?;
            let value = v.visit_seq(Seq {
                r: self,
                first: true,
            })?;
            if self.skip_ws() != Some(b']') {
                return Err(Bail);
            }
            self.pos += 1;
            self.depth -= 1;
            Ok(value)
        }

        // Bound: see `Reader::pos` and `Reader::depth`.
        #[allow(clippy::arithmetic_side_effects)]
        fn map<V: Visitor<'de>>(&mut self, v: V) -> Result<V::Value, Bail> {
            self.enter()?;
            let value = v.visit_map(Map {
                r: self,
                first: true,
            })?;
            if self.skip_ws() != Some(b'}') {
                return Err(Bail);
            }
            self.pos += 1;
            self.depth -= 1;
            Ok(value)
        }
    }

    /// serde_json's choice for an integer: `u64` when non-negative, `i64` when negative (`-0`
    /// and anything wider are left to it: it reads them as `f64`).
    fn integer<'de, V: Visitor<'de>>(text: &str, v: V) -> Result<V::Value, Bail> {
        match text.strip_prefix('-') {
            Some(digits) => {
                let magnitude: u64 = digits.parse().map_err(|_| Bail)?;
                if magnitude == 0 {
                    return Err(Bail);
                }
                let value = 0i64.checked_sub_unsigned(magnitude).ok_or(Bail)?;
                v.visit_i64(value)
            }
            None => v.visit_u64(text.parse().map_err(|_| Bail)?),
        }
    }

    macro_rules! bail {
        ($($method:ident)*) => {
            $(fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Bail> {
                Err(Bail)
            })*
        };
    }

    macro_rules! numbers {
        ($($method:ident)*) => {
            $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
                match self.skip_ws() {
                    Some(b'-' | b'0'..=b'9') => match self.number()? {
                        (text, true) => integer(text, v),
                        (_, false) => Err(Bail),
                    },
                    _ => Err(Bail),
                }
            })*
        };
    }

    impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
        type Error = Bail;

        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b'n') => {
                    self.literal(b"null")?;
                    v.visit_unit()
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    v.visit_bool(true)
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    v.visit_bool(false)
                }
                Some(b'"') => v.visit_borrowed_str(self.string()?),
                Some(b'-' | b'0'..=b'9') => match self.number()? {
                    (text, true) => integer(text, v),
                    (_, false) => Err(Bail),
                },
                Some(b'[') => self.seq(v),
                Some(b'{') => self.map(v),
                _ => Err(Bail),
            }
        }

        fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b't') => {
                    self.literal(b"true")?;
                    v.visit_bool(true)
                }
                Some(b'f') => {
                    self.literal(b"false")?;
                    v.visit_bool(false)
                }
                _ => Err(Bail),
            }
        }

        numbers! {
            deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
            deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
            deserialize_f32 deserialize_f64
        }

        bail! {
            deserialize_i128 deserialize_u128 deserialize_char deserialize_bytes
            deserialize_byte_buf
        }

        fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b'"') => v.visit_borrowed_str(self.string()?),
                _ => Err(Bail),
            }
        }

        fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            self.deserialize_str(v)
        }

        fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            self.deserialize_str(v)
        }

        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b'n') => {
                    self.literal(b"null")?;
                    v.visit_none()
                }
                _ => v.visit_some(self),
            }
        }

        fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b'n') => {
                    self.literal(b"null")?;
                    v.visit_unit()
                }
                _ => Err(Bail),
            }
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            v: V,
        ) -> Result<V::Value, Bail> {
            self.deserialize_unit(v)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            v: V,
        ) -> Result<V::Value, Bail> {
            if name == RAW_TOKEN {
                self.skip_ws();
                let start = self.pos;
                self.skip_value()?;
                let raw = self.text.get(start..self.pos).ok_or(Bail)?;
                return v.visit_map(RawMap { raw: Some(raw) });
            }
            if name == crate::de::ROW_TOKEN || name == crate::de::ROWS_TOKEN {
                // A positional row, or a list of them, reads itself from the rest of the body,
                // checking its syntax, and says how far it went (see `de::positional`,
                // `de::rows`); a list that is not an array is read by `de::vec`'s rules.
                match self.skip_ws() {
                    Some(b'[') => {}
                    _ if name == crate::de::ROWS_TOKEN => return v.visit_newtype_struct(self),
                    _ => return Err(Bail),
                }
                let rest = self.text.get(self.pos..).ok_or(Bail)?;
                crate::de::ROW_END.with(|e| e.set(None));
                let value = v.visit_borrowed_str(rest)?;
                let len = crate::de::ROW_END.with(|e| e.take()).ok_or(Bail)?;
                if len > rest.len() {
                    return Err(Bail);
                }
                // `pos + len` is at most `text.len()`: `rest` is `text[pos..]`.
                self.pos = self.pos.checked_add(len).ok_or(Bail)?;
                return Ok(value);
            }
            v.visit_newtype_struct(self)
        }

        fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b'[') => self.seq(v),
                _ => Err(Bail),
            }
        }

        fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, Bail> {
            self.deserialize_seq(v)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: usize,
            v: V,
        ) -> Result<V::Value, Bail> {
            self.deserialize_seq(v)
        }

        fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b'{') => self.map(v),
                _ => Err(Bail),
            }
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b'[') => self.seq(v),
                Some(b'{') => self.map(v),
                _ => Err(Bail),
            }
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Bail> {
            match self.skip_ws() {
                Some(b'"') => v.visit_enum(UnitVariant(self.string()?)),
                _ => Err(Bail),
            }
        }

        fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            self.skip_value()?;
            v.visit_unit()
        }
    }

    struct Seq<'a, 'de> {
        r: &'a mut Reader<'de>,
        first: bool,
    }

    impl<'de> de::SeqAccess<'de> for Seq<'_, 'de> {
        type Error = Bail;

        // Bound: see `Reader::pos`.
        #[allow(clippy::arithmetic_side_effects)]
        fn next_element_seed<T: DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>, Bail> {
            match self.r.skip_ws() {
                Some(b']') => return Ok(None),
                Some(b',') if !self.first => {
                    self.r.pos += 1;
                    if self.r.skip_ws() == Some(b']') {
                        return Err(Bail);
                    }
                }
                Some(_) if self.first => {}
                _ => return Err(Bail),
            }
            self.first = false;
            seed.deserialize(&mut *self.r).map(Some)
        }
    }

    struct Map<'a, 'de> {
        r: &'a mut Reader<'de>,
        first: bool,
    }

    impl<'de> de::MapAccess<'de> for Map<'_, 'de> {
        type Error = Bail;

        // Bound: see `Reader::pos`.
        #[allow(clippy::arithmetic_side_effects)]
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Bail> {
            let mut next = self.r.skip_ws();
            if next == Some(b'}') {
                return Ok(None);
            }
            if !self.first {
                if next != Some(b',') {
                    return Err(Bail);
                }
                self.r.pos += 1;
                next = self.r.skip_ws();
            }
            if next != Some(b'"') {
                return Err(Bail);
            }
            self.first = false;
            let key = self.r.string()?;
            if self.r.skip_ws() != Some(b':') {
                return Err(Bail);
            }
            self.r.pos += 1;
            self.r.code_next = self.r.depth == 1 && key == "code";
            seed.deserialize(Key(key)).map(Some)
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Bail> {
            if std::mem::take(&mut self.r.code_next) {
                self.r.note_code();
            }
            seed.deserialize(&mut *self.r)
        }
    }

    /// A member name: read as a string; any other request is left to serde_json.
    struct Key<'de>(&'de str);

    impl<'de> de::Deserializer<'de> for Key<'de> {
        type Error = Bail;

        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            v.visit_borrowed_str(self.0)
        }

        fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            v.visit_borrowed_str(self.0)
        }

        fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            v.visit_borrowed_str(self.0)
        }

        fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            v.visit_borrowed_str(self.0)
        }

        fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Bail> {
            v.visit_unit()
        }

        bail! {
            deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
            deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
            deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes
            deserialize_byte_buf deserialize_option deserialize_unit deserialize_seq
            deserialize_map
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: V,
        ) -> Result<V::Value, Bail> {
            Err(Bail)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: V,
        ) -> Result<V::Value, Bail> {
            Err(Bail)
        }

        fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Bail> {
            Err(Bail)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: usize,
            _: V,
        ) -> Result<V::Value, Bail> {
            Err(Bail)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Bail> {
            Err(Bail)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Bail> {
            Err(Bail)
        }
    }

    /// A string enum value: a unit variant named by the string.
    struct UnitVariant<'de>(&'de str);

    impl<'de> de::EnumAccess<'de> for UnitVariant<'de> {
        type Error = Bail;
        type Variant = Self;

        fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Bail> {
            Ok((seed.deserialize(Key(self.0))?, self))
        }
    }

    impl<'de> de::VariantAccess<'de> for UnitVariant<'de> {
        type Error = Bail;

        fn unit_variant(self) -> Result<(), Bail> {
            Ok(())
        }

        fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> Result<S::Value, Bail> {
            Err(Bail)
        }

        fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Bail> {
            Err(Bail)
        }

        fn struct_variant<V: Visitor<'de>>(
            self,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Bail> {
            Err(Bail)
        }
    }

    /// serde_json's `RawValue` hand-over: one entry, the token name then the raw text.
    struct RawMap<'de> {
        raw: Option<&'de str>,
    }

    impl<'de> de::MapAccess<'de> for RawMap<'de> {
        type Error = Bail;

        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Bail> {
            match self.raw {
                Some(_) => seed.deserialize(Key(RAW_TOKEN)).map(Some),
                None => Ok(None),
            }
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Bail> {
            let raw = self.raw.take().ok_or(Bail)?;
            seed.deserialize(Key(raw))
        }
    }
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
            let slow = serde_json::from_str::<OrderBook>(body);
            if fast.is_ok() {
                assert_eq!(code, code_json, "{body}");
            }
            assert_eq!(fast.as_ref().ok(), slow.as_ref().ok(), "{body}");
            assert_eq!(
                fast.map_err(|e| e.to_string()).err(),
                slow.map_err(|e| e.to_string()).err(),
                "{body}"
            );
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
            let (fast, _, _) = decode_with_code::<Klines>(body.as_bytes());
            let slow = serde_json::from_str::<Klines>(body);
            assert_eq!(fast.as_ref().ok(), slow.as_ref().ok(), "{body}");
            assert_eq!(
                fast.map_err(|e| e.to_string()).err(),
                slow.map_err(|e| e.to_string()).err(),
                "{body}"
            );
        }
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
