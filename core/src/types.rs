//! Small shared types: timestamps in their unit and the open-enum machinery.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A timestamp in whole seconds since the Unix epoch, as the spot v3 API sends them
/// (`date`, `created_date`, trade `timestamp`, candle time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TimestampSecs(pub i64);

/// A timestamp in milliseconds since the Unix epoch, as the swap v2 API sends them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TimestampMillis(pub i64);

impl TimestampSecs {
    /// Seconds since the epoch.
    pub fn as_secs(self) -> i64 {
        self.0
    }
    /// Milliseconds since the epoch (saturating).
    pub fn as_millis(self) -> i64 {
        self.0.saturating_mul(1000)
    }
    /// The same instant in milliseconds.
    pub fn to_millis(self) -> TimestampMillis {
        TimestampMillis(self.as_millis())
    }
}

impl TimestampMillis {
    /// Milliseconds since the epoch.
    pub fn as_millis(self) -> i64 {
        self.0
    }
    /// Whole seconds since the epoch (rounded towards negative infinity).
    pub fn as_secs(self) -> i64 {
        self.0.div_euclid(1000)
    }
    /// The same instant in whole seconds.
    pub fn to_secs(self) -> TimestampSecs {
        TimestampSecs(self.as_secs())
    }
}

macro_rules! timestamp_serde {
    ($t:ty) => {
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::de::int::deserialize::<D, i64>(d).map(Self)
            }
        }
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_i64(self.0)
            }
        }
    };
}
timestamp_serde!(TimestampSecs);
timestamp_serde!(TimestampMillis);

/// Declares an open enum over integer codes: known values get a variant, anything else is kept in
/// `Unknown(code)`. Deserializes from a number or a numeric string; serializes as the number.
macro_rules! int_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $code:expr ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this library does not know yet.
            Unknown(i64),
        }

        impl $name {
            /// The wire code.
            pub fn code(self) -> i64 {
                match self {
                    $( $name::$variant => $code, )+
                    $name::Unknown(c) => c,
                }
            }
            /// The variant for a wire code.
            pub fn from_code(code: i64) -> Self {
                match code {
                    $( c if c == $code => $name::$variant, )+
                    c => $name::Unknown(c),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::de::int::deserialize::<D, i64>(d).map($name::from_code)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_i64(self.code())
            }
        }
    };
}

/// Declares an open enum over string values: known values get a variant (matched exactly, then
/// case-insensitively), anything else is kept in `Other(text)`.
macro_rules! str_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)* ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this library does not know yet.
            Other(String),
        }

        impl $name {
            /// The wire text (the documented spelling for known values).
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )+
                    $name::Other(s) => s.as_str(),
                }
            }
            /// The variant for a wire text; aliases and case differences are accepted.
            pub fn from_wire(text: &str) -> Self {
                $( if text == $text $(|| text == $alias)* { return $name::$variant; } )+
                $( if text.eq_ignore_ascii_case($text) $(|| text.eq_ignore_ascii_case($alias))* { return $name::$variant; } )+
                $name::Other(text.to_owned())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::de::string::deserialize(d).map(|s| $name::from_wire(&s))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

pub(crate) use {int_enum, str_enum};

#[cfg(test)]
mod tests {
    use super::*;

    int_enum! {
        /// test
        pub enum Colour { Red = 1, Blue = 2 }
    }
    str_enum! {
        /// test
        pub enum Side { Long = "long" | "go_long", Short = "short" }
    }

    #[test]
    fn open_enums() {
        assert_eq!(serde_json::from_str::<Colour>("2").unwrap(), Colour::Blue);
        assert_eq!(
            serde_json::from_str::<Colour>("\"1\"").unwrap(),
            Colour::Red
        );
        assert_eq!(
            serde_json::from_str::<Colour>("7").unwrap(),
            Colour::Unknown(7)
        );
        assert_eq!(serde_json::to_string(&Colour::Unknown(7)).unwrap(), "7");
        assert_eq!(
            serde_json::from_str::<Side>("\"go_long\"").unwrap(),
            Side::Long
        );
        assert_eq!(
            serde_json::from_str::<Side>("\"SHORT\"").unwrap(),
            Side::Short
        );
        assert_eq!(
            serde_json::from_str::<Side>("\"both\"").unwrap(),
            Side::Other("both".into())
        );
        assert_eq!(serde_json::to_string(&Side::Long).unwrap(), "\"long\"");
    }

    #[test]
    fn timestamps() {
        let t: TimestampSecs = serde_json::from_str("\"1589872188\"").unwrap();
        assert_eq!(t.as_millis(), 1_589_872_188_000);
        assert_eq!(TimestampMillis(-1).as_secs(), -1);
        assert_eq!(TimestampMillis(1999).to_secs(), TimestampSecs(1));
    }
}
