//! The record macro of the stream models: typed fields read with the `crate::de` helpers, and
//! every field the model does not name kept in [`Extra`] as its JSON text. A record serializes
//! with its Rust field names (`side` for the wire's `type`), and reads them back as well as the
//! wire's names (the wire's win when both are present), so its JSON text round-trips.
//!
//! DESIGN: serde's `flatten` cannot hold the borrowed tokens the exact-decimal helpers read
//! (it buffers values, and a `RawValue` cannot be read from a buffer), so the macro writes the
//! map visitor itself. Each field lists its wire name and aliases (`"avail_balance" |
//! "available"`): correcting an unverified mapping is editing that one line.

use std::borrow::Cow;

use serde::de::{Deserializer, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;

/// The fields of a pushed record that its model does not name, in arrival order, each as its
/// JSON text.
#[derive(Debug, Clone, Default)]
pub struct Extra(Vec<(String, Box<RawValue>)>);

impl Extra {
    /// Keeps one field.
    pub(crate) fn push(&mut self, key: String, value: Box<RawValue>) {
        self.0.push((key, value));
    }

    /// Whether every field was modelled.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The JSON text of field `name`, if it arrived unmodelled.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.get())
    }

    /// The unmodelled fields: name and JSON text.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.get()))
    }

    /// Writes the fields into a map being serialized (after the modelled ones).
    pub(crate) fn write<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        Ok(())
    }
}

impl PartialEq for Extra {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&other.0)
                .all(|((a, x), (b, y))| a == b && x.get() == y.get())
    }
}

/// A map key, borrowed when the input allows.
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// Serializes a map of `(name, value)` entries then the extras (used by the macro).
pub(crate) fn end_map<M: SerializeMap>(mut m: M, extra: &Extra) -> Result<M::Ok, M::Error> {
    extra.write(&mut m)?;
    m.end()
}

/// Starts a map (used by the macro, so that it needs no imports at its call site).
pub(crate) fn start_map<S: Serializer>(s: S) -> Result<S::SerializeMap, S::Error> {
    s.serialize_map(None)
}

/// Declares a stream record (see the module docs). Field kinds: `required` (missing or
/// unreadable is an error naming the field), `optional` (missing is the type's default: `None`,
/// an empty list). (Not `req`/`opt`: those words mark `request!` fields, which
/// `core/tests/extremes.rs` reads from the sources.)
macro_rules! ws_record {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $kind:ident $field:ident : $ty:ty = $wire:literal $(| $alias:literal)* => $($with:ident)::+,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
            /// Fields this model does not name, kept as their JSON text.
            pub extra: $crate::ws::record::Extra,
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct RecordVisitor;
                impl<'de> serde::de::Visitor<'de> for RecordVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " object"))
                    }
                    #[allow(unused_mut)]
                    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        use serde::de::Error as _;
                        $( let mut $field: Option<$ty> = None; )*
                        let mut extra = $crate::ws::record::Extra::default();
                        while let Some(key) = map.next_key::<$crate::ws::record::Key<'de>>()? {
                            match key.0.as_ref() {
                                $( $wire $(| $alias)* => {
                                    let raw: &'de serde_json::value::RawValue = map.next_value()?;
                                    $field = Some($($with)::+::deserialize(raw).map_err(|e| {
                                        A::Error::custom(format_args!("{}: {}", key.0, e))
                                    })?);
                                } )*
                                _ => {
                                    // This model's own field names read back too (its
                                    // serialized form, as a feed carries it), after the wire's.
                                    let k = key.0.as_ref();
                                    $( if k == stringify!($field) && $field.is_none() {
                                        let raw: &'de serde_json::value::RawValue = map.next_value()?;
                                        $field = Some($($with)::+::deserialize(raw).map_err(|e| {
                                            A::Error::custom(format_args!("{}: {}", key.0, e))
                                        })?);
                                        continue;
                                    } )*
                                    let raw: Box<serde_json::value::RawValue> = map.next_value()?;
                                    extra.push(key.0.into_owned(), raw);
                                }
                            }
                        }
                        Ok($name {
                            $( $field: ws_record!(@finish $kind $field $wire A), )*
                            extra,
                        })
                    }
                }
                d.deserialize_map(RecordVisitor)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap as _;
                let mut m = $crate::ws::record::start_map(s)?;
                $( {
                    struct Field<'a>(&'a $ty);
                    impl serde::Serialize for Field<'_> {
                        fn serialize<S2: serde::Serializer>(&self, s: S2) -> Result<S2::Ok, S2::Error> {
                            $($with)::+::serialize(self.0, s)
                        }
                    }
                    m.serialize_entry(stringify!($field), &Field(&self.$field))?;
                } )*
                $crate::ws::record::end_map(m, &self.extra)
            }
        }
    };
    (@finish required $field:ident $wire:literal $a:ident) => {
        match $field {
            Some(v) => v,
            None => return Err(<$a::Error as serde::de::Error>::missing_field($wire)),
        }
    };
    (@finish optional $field:ident $wire:literal $a:ident) => {
        $field.unwrap_or_default()
    };
}

pub(crate) use ws_record;
