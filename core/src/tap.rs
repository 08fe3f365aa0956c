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
pub(crate) fn decode_with_code<T: DeserializeOwned>(
    body: &[u8],
) -> (Result<T, serde_json::Error>, Option<i64>) {
    let code = Cell::new(None);
    // A UTF-8 body (the norm) is checked once here and then read as `str`, so serde_json does
    // not check every borrowed token (each exact number is one) again; any other body keeps the
    // byte reader and its errors.
    let result = match std::str::from_utf8(body) {
        Ok(text) => decode(serde_json::Deserializer::from_str(text), &code),
        Err(_) => decode(serde_json::Deserializer::from_slice(body), &code),
    };
    (result, code.get())
}

fn decode<'de, R: serde_json::de::Read<'de>, T: DeserializeOwned>(
    mut de: serde_json::Deserializer<R>,
    code: &Cell<Option<i64>>,
) -> Result<T, serde_json::Error> {
    T::deserialize(Top { de: &mut de, code }).and_then(|v| de.end().map(|()| v))
}

/// The swap envelope `{"code":0,"data":T}`: decodes `T` from `data` in the same single pass
/// (other members are skipped; `code` is still observed by the wrapper around the top level).
/// A missing or `null` `data` decodes `T` from an empty list, then from "nothing", so list
/// outputs become empty and `Option` outputs `None`; other types report the missing value.
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

/// `T` for a missing or `null` value: an empty list, else the unit value (`Option` is `None`).
fn absent<'de, T: serde::Deserialize<'de>, E: serde::de::Error>() -> Result<T, E> {
    use serde::de::value::{SeqDeserializer, UnitDeserializer};
    T::deserialize(SeqDeserializer::<_, E>::new(std::iter::empty::<()>()))
        .or_else(|_: E| T::deserialize(UnitDeserializer::<E>::new()))
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

// Keep IgnoredAny in scope for the doc link above.
const _: Option<IgnoredAny> = None;

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
    fn swap_data_envelope_in_one_pass() {
        let (r, c) = decode_with_code::<Data<Payload>>(
            br#"{"code":0,"data":{"a":1,"b":[2],"code":9},"extra":[1,{"data":3}]}"#,
        );
        assert_eq!(r.unwrap().0, Payload { a: 1, b: vec![2] });
        assert_eq!(c, Some(0));
        // Missing or null `data`: an empty list, `None`, or an error for a struct.
        for body in [&br#"{"code":0}"#[..], br#"{"data":null,"code":0}"#] {
            let (r, c) = decode_with_code::<Data<Vec<u32>>>(body);
            assert_eq!(r.unwrap().0, Vec::<u32>::new());
            assert_eq!(c, Some(0));
            let (r, _) = decode_with_code::<Data<Option<u32>>>(body);
            assert_eq!(r.unwrap().0, None);
            let (r, _) = decode_with_code::<Data<Payload>>(body);
            assert!(r.is_err());
        }
        // An error envelope without `data` still reports its code.
        let (r, c) = decode_with_code::<Data<Payload>>(br#"{"code":401003,"msg":"x"}"#);
        assert!(r.is_err());
        assert_eq!(c, Some(401003));
        let (r, c) = decode_with_code::<Data<u64>>(br#"{"code":0,"data":1657522488402}"#);
        assert_eq!(r.unwrap().0, 1657522488402);
        assert_eq!(c, Some(0));
    }

    #[test]
    fn captures_code_anywhere_at_top_level() {
        let (r, c) = decode_with_code::<Payload>(br#"{"a":1,"b":[2],"code":0}"#);
        assert_eq!(r.unwrap(), Payload { a: 1, b: vec![2] });
        assert_eq!(c, Some(0));
        let (r, c) = decode_with_code::<Payload>(br#"{"code":"200","a":1}"#);
        assert!(r.is_ok());
        assert_eq!(c, Some(200));
        let (r, c) = decode_with_code::<Payload>(br#"{"code":-7,"a":1}"#);
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
        let (r, c) = decode_with_code::<Outer>(br#"{"inner":{"code":5}}"#);
        assert!(r.is_ok());
        assert_eq!(c, None);
    }

    #[test]
    fn error_bodies_still_report_the_code() {
        let (r, c) = decode_with_code::<Payload>(br#"{"code":20013,"msg":"not found"}"#);
        assert!(r.is_err());
        assert_eq!(c, Some(20013));
        let (r, c) = decode_with_code::<Payload>(b"<html>");
        assert!(r.is_err());
        assert_eq!(c, None);
        let (r, _) = decode_with_code::<Payload>(br#"{"a":1,"code":0} trailing"#);
        assert!(r.is_err());
    }
}
