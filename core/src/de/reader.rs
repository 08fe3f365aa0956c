//! Single-pass decoding of a response body into `T` while capturing the envelope's top-level
//! `code`.
//!
//! The exchange puts `code` beside the payload fields (`{"bids":[..],"asks":[..],"code":0}`), and
//! often last. Reading the envelope first would scan the body twice; `#[serde(flatten)]` would
//! buffer it. Instead the top-level map is wrapped: every key is checked against `code`, and that
//! one value is observed on its way to `T`'s visitor (which ignores it). All other values go
//! straight to serde_json, untouched.

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
    let code = Cell::new(None);
    crate::de::unreadable::reset();
    // A UTF-8 body (the norm) is read by the single-pass reader (see [`fast`]); anything it
    // leaves, and any other body, is decoded again by serde_json.
    let fast = std::str::from_utf8(body).ok().and_then(|text| {
        let mut reader = fast::Reader::new(text);
        T::deserialize(Top {
            de: &mut reader,
            code: &code,
        })
        .and_then(|v| reader.end().map(|()| v))
        .ok()
    });
    let result = match fast {
        Some(v) => Ok(v),
        None => {
            code.set(None);
            crate::de::unreadable::reset();
            tracked(body, &code)
        }
    };
    (result, code.get(), crate::de::unreadable::count())
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

/// serde_json decoding `T` from `body` with path tracking, observing the top-level `code`.
pub(crate) fn tracked<T: DeserializeOwned>(
    body: &[u8],
    code: &Cell<Option<i64>>,
) -> Result<T, Failure> {
    let mut de = serde_json::Deserializer::from_slice(body);
    match serde_path_to_error::deserialize(Top { de: &mut de, code }) {
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
        let code = Cell::new(None);
        let mut reader = fast::Reader::new(text);
        let fast = W::deserialize(Top {
            de: &mut reader,
            code: &code,
        })
        .and_then(|v| reader.end().map(|()| v));
        let Ok(fast) = fast else {
            return Ok(false);
        };
        let (fast, fast_code) = (inner(fast), code.get());
        code.set(None);
        let reference = decode::<_, W>(serde_json::Deserializer::from_str(text), &code).map(inner);
        match reference {
            Ok(v) if v == fast && code.get() == fast_code => Ok(true),
            other => Err(format!(
                "the reader decoded {fast:?} (code {fast_code:?}), serde_json {other:?} (code {:?})",
                code.get()
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

fn decode<'de, R: serde_json::de::Read<'de>, T: DeserializeOwned>(
    mut de: serde_json::Deserializer<R>,
    code: &Cell<Option<i64>>,
) -> Result<T, serde_json::Error> {
    T::deserialize(Top { de: &mut de, code }).and_then(|v| de.end().map(|()| v))
}

/// The swap envelope `{"code":0,"data":T}`: decodes `T` from `data` in the same single pass
/// (other members are skipped; `code` is still observed by the wrapper around the top level).
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
    use serde::de::value::{MapDeserializer, SeqDeserializer, UnitDeserializer};
    T::deserialize(SeqDeserializer::<_, E>::new(std::iter::empty::<()>()))
        .or_else(|_: E| T::deserialize(UnitDeserializer::<E>::new()))
        .or_else(|_: E| {
            T::deserialize(MapDeserializer::<_, E>::new(std::iter::empty::<((), ())>()))
        })
        .map_err(|_: E| E::missing_field("data"))
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

struct Top<'a, D> {
    de: D,
    code: &'a Cell<Option<i64>>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Top<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_any(TopVisitor {
            inner: visitor,
            code: self.code,
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_map(TopVisitor {
            inner: visitor,
            code: self.code,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_struct(
            name,
            fields,
            TopVisitor {
                inner: visitor,
                code: self.code,
            },
        )
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct enum identifier ignored_any
    }
}

struct TopVisitor<'a, V> {
    inner: V,
    code: &'a Cell<Option<i64>>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TopVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(TopMap {
            map,
            code: self.code,
            pending: false,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }
}

struct TopMap<'a, A> {
    map: A,
    code: &'a Cell<Option<i64>>,
    pending: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for TopMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.pending = false;
        self.map.next_key_seed(KeySeed {
            inner: seed,
            is_code: &mut self.pending,
        })
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        if std::mem::take(&mut self.pending) {
            self.map.next_value_seed(CodeSeed {
                inner: seed,
                code: self.code,
            })
        } else {
            self.map.next_value_seed(seed)
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// Observes the key text on its way to the payload's field visitor.
struct KeySeed<'b, K> {
    inner: K,
    is_code: &'b mut bool,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, K> {
    type Value = K::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<K::Value, D::Error> {
        self.inner.deserialize(KeyDe {
            de: d,
            is_code: self.is_code,
        })
    }
}

struct KeyDe<'b, D> {
    de: D,
    is_code: &'b mut bool,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDe<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_any(KeyVisitor {
            inner: v,
            is_code: self.is_code,
        })
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_identifier(KeyVisitor {
            inner: v,
            is_code: self.is_code,
        })
    }
    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_str(KeyVisitor {
            inner: v,
            is_code: self.is_code,
        })
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_string(KeyVisitor {
            inner: v,
            is_code: self.is_code,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum ignored_any
    }
}

struct KeyVisitor<'b, V> {
    inner: V,
    is_code: &'b mut bool,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<V::Value, E> {
        *self.is_code = s == "code";
        self.inner.visit_str(s)
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        *self.is_code = s == "code";
        self.inner.visit_borrowed_str(s)
    }
    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<V::Value, E> {
        *self.is_code = s == "code";
        self.inner.visit_string(s)
    }
    fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<V::Value, E> {
        *self.is_code = b == b"code";
        self.inner.visit_bytes(b)
    }
    fn visit_borrowed_bytes<E: serde::de::Error>(self, b: &'de [u8]) -> Result<V::Value, E> {
        *self.is_code = b == b"code";
        self.inner.visit_borrowed_bytes(b)
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<V::Value, E> {
        self.inner.visit_u64(n)
    }
}

/// Observes the `code` value on its way to the payload's visitor (normally [`IgnoredAny`]).
struct CodeSeed<'a, S> {
    inner: S,
    code: &'a Cell<Option<i64>>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for CodeSeed<'_, S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(CodeDe {
            de: d,
            code: self.code,
        })
    }
}

struct CodeDe<'a, D> {
    de: D,
    code: &'a Cell<Option<i64>>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for CodeDe<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_any(CodeVisitor {
            inner: v,
            code: self.code,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

struct CodeVisitor<'a, V> {
    inner: V,
    code: &'a Cell<Option<i64>>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for CodeVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<V::Value, E> {
        self.code.set(i64::try_from(n).ok());
        self.inner.visit_u64(n)
    }
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<V::Value, E> {
        self.code.set(Some(n));
        self.inner.visit_i64(n)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<V::Value, E> {
        self.code.set(s.trim().parse().ok());
        self.inner.visit_str(s)
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        self.code.set(s.trim().parse().ok());
        self.inner.visit_borrowed_str(s)
    }
    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<V::Value, E> {
        self.code.set(s.trim().parse().ok());
        self.inner.visit_string(s)
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<V::Value, E> {
        // A code is an integer; a fractional or huge value is left unrecognised.
        self.inner.visit_f64(n)
    }
    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<V::Value, E> {
        self.inner.visit_bool(b)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }
    fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        self.inner.visit_some(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(map)
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
    }

    impl<'de> Reader<'de> {
        pub(crate) fn new(text: &'de str) -> Self {
            Reader {
                text,
                pos: 0,
                depth: 0,
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
                            self.string()?;
                            if self.skip_ws() != Some(b':') {
                                return Err(Bail);
                            }
                            self.pos += 1;
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

        /// The flat array at `pos` (no string, array or object inside: a positional row of
        /// numbers), found by its end only, without checking its syntax.
        ///
        /// DESIGN: its one reader, `de::positional`, checks the syntax while it parses the
        /// numbers (one pass instead of two) and errs on anything that is not JSON, so this
        /// body is then decoded again by serde_json, as after any other error here. The other
        /// `RawValue` readers either err on an array or parse its text with serde_json.
        // Bound: `start + 1 + len` is the offset of a byte `position` found (see `Reader::pos`).
        #[allow(clippy::arithmetic_side_effects)]
        fn flat_array(&mut self) -> Option<&'de str> {
            let bytes = self.text.as_bytes();
            let start = self.pos;
            if bytes.get(start) != Some(&b'[') {
                return None;
            }
            let inner = bytes.get(start + 1..)?;
            let len = inner
                .iter()
                .position(|&b| matches!(b, b']' | b'"' | b'[' | b'{'))?;
            if inner.get(len) != Some(&b']') {
                return None;
            }
            let end = start + len + 2;
            let raw = self.text.get(start..end)?;
            self.pos = end;
            Some(raw)
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
                if self.text.as_bytes().get(start) == Some(&b'[') {
                    if let Some(raw) = self.flat_array() {
                        return v.visit_map(RawMap { raw: Some(raw) });
                    }
                }
                self.skip_value()?;
                let raw = self.text.get(start..self.pos).ok_or(Bail)?;
                return v.visit_map(RawMap { raw: Some(raw) });
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
            seed.deserialize(Key(key)).map(Some)
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Bail> {
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
