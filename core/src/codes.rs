//! Open enums over the exchange's codes and words: `int_enum!` (integer codes that also accept
//! words) and `str_enum!` (text values). Decoding never fails on an unknown value (it is kept);
//! a request refuses to send one (each enum is a [`crate::request::Param`]). Closed enums that
//! only requests send (`input_enum!`: a transfer's account, a listing's direction) know every
//! value, so reading anything else is refused.

/// Declares an open enum over integer codes (states, sides, types). A value decodes from the
/// code as a number or a numeric string (`2`, `"2"`, `"2.0"`), or from a word: a documented name
/// given after the code (`Filled = 2 | "filled"`) or the variant's own name, compared without
/// case and separators (`PART_FILLED` is `PartFilled`). An unknown code is kept in
/// `Unknown(code)`, an unknown word in `Other(word)`: decoding never fails on a value. Serializes
/// as the code (an `Other` word as its text).
macro_rules! int_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $code:literal $(| $word:literal)* ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A code this library does not know yet.
            Unknown(i64),
            /// A word this library does not know yet (text where a code is documented).
            Other(String),
        }

        impl $name {
            /// The wire code; `None` for an `Other` word.
            pub fn code(&self) -> Option<i64> {
                match self {
                    $( $name::$variant => Some($code), )+
                    $name::Unknown(c) => Some(*c),
                    $name::Other(_) => None,
                }
            }
            /// The variant for a wire code.
            pub fn from_code(code: i64) -> Self {
                match code {
                    $( c if c == $code => $name::$variant, )+
                    c => $name::Unknown(c),
                }
            }
            /// The variant for a word: a documented name or the variant's name, compared
            /// without case and separators; a numeric word is read as a code.
            pub fn from_word(word: &str) -> Self {
                if let Some(code) = crate::de::integer::<i64>(word) {
                    return $name::from_code(code);
                }
                $( if crate::types::same_word(word, stringify!($variant))
                    $(|| crate::types::same_word(word, $word))* {
                    return $name::$variant;
                } )+
                $name::Other(word.to_owned())
            }
            /// Whether this is a documented value.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Unknown(_) | $name::Other(_))
            }
        }

        /// The code, or the unknown word.
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $name::Other(w) => f.write_str(w),
                    other => write!(f, "{}", other.code().unwrap_or_default()),
                }
            }
        }

        /// Sent as its code; a value this library does not know is refused.
        impl crate::request::Param for $name {
            fn put(&self, key: &'static str, p: &mut crate::endpoint::Params) -> Result<(), crate::error::Error> {
                p.push_i64(key, crate::request::known_code(key, self)?);
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut crate::json::JsonWriter) -> Result<(), crate::error::Error> {
                w.int(key, crate::request::known_code(key, self)?);
                Ok(())
            }
            fn take(p: &mut crate::params::ParamMap, key: &'static str) -> Result<Option<Self>, crate::error::Error> {
                Ok(p.take_opt_str(key)?.map(|t| $name::from_word(t.trim())))
            }
            /// A code, one of the documented ones, each with its first documented name (or
            /// the variant's name in snake case).
            #[inline]
            fn describe(info: &mut crate::request::ParamInfo) {
                info.type_name("code");
                $( info.value(crate::request::Choice::named(
                    { let code: i64 = $code; code.to_string() },
                    crate::codes::word_of(stringify!($variant), &[$($word),*]),
                )); )+
            }
        }

        impl crate::types::Coded for $name {
            fn code(&self) -> Option<i64> {
                $name::code(self)
            }
            fn is_known(&self) -> bool {
                $name::is_known(self)
            }
        }

        impl crate::de::Scalar for $name {
            const EXPECTED: &'static str = "a code";
            #[inline]
            fn read(raw: crate::de::Raw<'_>) -> Option<Self> {
                match raw {
                    crate::de::Raw::Number(t) => crate::de::integer::<i64>(t).map($name::from_code),
                    crate::de::Raw::Text(t) => Some($name::from_word(t.trim_ascii())),
                    crate::de::Raw::Bool(_) => None,
                }
            }
            fn write<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(self, s)
            }
        }

        /// Required: `null` or a placeholder is an error (optional fields use `crate::de::opt`).
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::de::req::deserialize(d)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $name::Other(w) => s.serialize_str(w),
                    other => s.serialize_i64(other.code().unwrap_or_default()),
                }
            }
        }
    };
}

/// Declares an open enum over string values: known values get a variant (matched exactly, then
/// case-insensitively), anything else is kept in `Other(text)`. A number is read as its text
/// (`1` matches an alias `"1"`). Required when used bare (`null` or a placeholder is an error);
/// optional fields use `crate::de::opt`.
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

        /// Sent as its documented text; a value this library does not know is refused.
        impl crate::request::Param for $name {
            fn put(&self, key: &'static str, p: &mut crate::endpoint::Params) -> Result<(), crate::error::Error> {
                p.push(key, self.known(key)?);
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut crate::json::JsonWriter) -> Result<(), crate::error::Error> {
                w.str(key, self.known(key)?);
                Ok(())
            }
            fn take(p: &mut crate::params::ParamMap, key: &'static str) -> Result<Option<Self>, crate::error::Error> {
                Ok(p.take_opt_str(key)?.map(|t| $name::from_wire(t.trim())))
            }
            /// A word, one of the documented ones.
            #[inline]
            fn describe(info: &mut crate::request::ParamInfo) {
                info.type_name("word");
                $( info.value(crate::request::Choice::word($text)); )+
            }
        }

        impl $name {
            /// The wire text of a documented value; an `Other` value is refused on `field`.
            fn known(&self, field: &'static str) -> Result<&str, crate::error::Error> {
                match self {
                    $name::Other(t) => Err(crate::error::Error::validation(
                        field,
                        format!("{t:?} is not a documented value"),
                    )),
                    known => Ok(known.as_str()),
                }
            }
        }

        impl crate::de::Scalar for $name {
            const EXPECTED: &'static str = "a word";
            fn read(raw: crate::de::Raw<'_>) -> Option<Self> {
                match raw {
                    crate::de::Raw::Number(t) | crate::de::Raw::Text(t) => {
                        Some($name::from_wire(t.trim_ascii()))
                    }
                    crate::de::Raw::Bool(_) => None,
                }
            }
            fn write<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::de::req::deserialize(d)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

/// Declares a closed enum that requests send, from one list: each variant with its wire value
/// (a code and its name, or a word). From it come the enum, `ALL`, `code()` or `as_str()`,
/// `parse(field, text)` (the code, the name or the word, trimmed and compared without case;
/// anything else refused on `field`), `Display` (the wire value) and the
/// [`crate::request::Param`] implementation (the code as a number in a JSON body, a word as a
/// string; `describe` lists the values).
macro_rules! input_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident: code $int:ty {
            $( $(#[$vmeta:meta])* $variant:ident = $code:literal $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in the order of their codes.
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];

            /// The wire code.
            pub fn code(self) -> $int {
                match self {
                    $( $name::$variant => $code, )+
                }
            }

            /// Parses a wire code or its name; anything else is a validation error on `field`.
            pub fn parse(field: &'static str, text: &str) -> Result<Self, crate::error::Error> {
                let text = text.trim();
                $( if text == stringify!($code) || text.eq_ignore_ascii_case($word) {
                    return Ok($name::$variant);
                } )+
                Err(crate::error::Error::validation(
                    field,
                    format!(
                        concat!("{:?} is not one of ", $crate::codes::input_enum!(@list $($code ($word)),+)),
                        text
                    ),
                ))
            }
        }

        /// The wire code.
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.code())
            }
        }

        /// Sent as its code (a JSON number in a body); read from the code or its name,
        /// anything else refused on the field.
        impl crate::request::Param for $name {
            fn put(&self, key: &'static str, p: &mut crate::endpoint::Params) -> Result<(), crate::error::Error> {
                p.push_i64(key, i64::from(self.code()));
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut crate::json::JsonWriter) -> Result<(), crate::error::Error> {
                w.int(key, i64::from(self.code()));
                Ok(())
            }
            fn take(p: &mut crate::params::ParamMap, key: &'static str) -> Result<Option<Self>, crate::error::Error> {
                p.take_opt_str(key)?.map(|t| $name::parse(key, &t)).transpose()
            }
            #[inline]
            fn describe(info: &mut crate::request::ParamInfo) {
                info.type_name("code");
                $( info.value(crate::request::Choice::named(stringify!($code), $word)); )+
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub enum $name:ident: word $(($type_name:literal))? {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];

            /// The wire value.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// Parses a wire value (trimmed, without case); anything else is a validation error
            /// on `field`.
            pub fn parse(field: &'static str, text: &str) -> Result<Self, crate::error::Error> {
                let text = text.trim();
                $( if text.eq_ignore_ascii_case($text) {
                    return Ok($name::$variant);
                } )+
                Err(crate::error::Error::validation(
                    field,
                    format!(
                        concat!("{:?} is not one of ", $crate::codes::input_enum!(@list $($text),+)),
                        text
                    ),
                ))
            }
        }

        /// The wire value.
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        /// Sent as its wire value (a JSON string in a body); read without case, anything else
        /// refused on the field.
        impl crate::request::Param for $name {
            fn put(&self, key: &'static str, p: &mut crate::endpoint::Params) -> Result<(), crate::error::Error> {
                p.push(key, self.as_str());
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut crate::json::JsonWriter) -> Result<(), crate::error::Error> {
                w.str(key, self.as_str());
                Ok(())
            }
            fn take(p: &mut crate::params::ParamMap, key: &'static str) -> Result<Option<Self>, crate::error::Error> {
                p.take_opt_str(key)?.map(|t| $name::parse(key, &t)).transpose()
            }
            #[inline]
            fn describe(info: &mut crate::request::ParamInfo) {
                info.type_name($crate::codes::input_enum!(@type_name $($type_name)?));
                $( info.value(crate::request::Choice::word($text)); )+
            }
        }
    };
    (@type_name) => { "word" };
    (@type_name $type_name:literal) => { $type_name };
    (@list $first:literal $(($firstname:literal))? $(, $item:literal $(($name:literal))?)*) => {
        concat!($first $(, " (", $firstname, ")")? $(, ", ", $item $(, " (", $name, ")")?)*)
    };
}

pub(crate) use {input_enum, int_enum, str_enum};

/// The name of an `int_enum!` value for `digifinex describe`: its first documented word
/// (`open_long`), else its variant's name in snake case (`PartFilled` reads `part_filled`).
pub(crate) fn word_of(variant: &str, words: &[&str]) -> String {
    if let Some(w) = words.first() {
        return (*w).to_owned();
    }
    let mut out = String::with_capacity(variant.len().saturating_add(4));
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_of_variants() {
        assert_eq!(super::word_of("PartFilled", &[]), "part_filled");
        assert_eq!(super::word_of("OpenLong", &["open_long"]), "open_long");
        assert_eq!(super::word_of("M1", &[]), "m1");
    }
}
