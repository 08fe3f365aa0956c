//! Small shared types: timestamps in their unit and the open-enum machinery.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which API an endpoint belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Family {
    /// Spot and margin, REST v3 (`{base_url}` ends with `/v3`).
    Spot,
    /// Perpetual swap and copy trading, REST v2 (paths start with `/swap/v2`, appended to the
    /// swap host).
    Swap,
}

impl Family {
    /// The path prefix shown before an endpoint's path in the catalog (`/v3` for spot; swap
    /// paths already start with `/swap/v2`).
    pub fn display_prefix(self) -> &'static str {
        match self {
            Family::Spot => "/v3",
            Family::Swap => "",
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Family::Spot => "spot",
            Family::Swap => "swap",
        })
    }
}

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
        impl crate::de::Scalar for $t {
            const EXPECTED: &'static str = "a timestamp";
            #[inline]
            fn read(raw: crate::de::Raw<'_>) -> Option<Self> {
                match raw {
                    crate::de::Raw::Number(t) | crate::de::Raw::Text(t) => {
                        crate::de::integer(t).map(Self)
                    }
                    crate::de::Raw::Bool(_) => None,
                }
            }
            fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_i64(self.0)
            }
        }
        /// Required: `null`, a placeholder or an unreadable value is an error (optional
        /// timestamps use `crate::de::opt`).
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::de::req::deserialize(d)
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

// ---------------------------------------------------------------------------------------------
// Pairs

/// A spot pair (`btc_usdt`: base, `_`, quote), one value whatever case it is written in.
///
/// DESIGN: the venue writes pairs upper case in some answers (`/spot/symbols`, orders, own
/// trades, margin positions: `BTC_USDT`) and lower case in others (`/ticker`, `/markets`), and
/// accepts either in requests (docs/protocol.md). A `Pair` keeps the lower-case form, the one
/// requests are documented with, so two pairs are equal exactly when they name the same market;
/// comparing with text (`order.symbol == "BTC_USDT"`) ignores ASCII case too. Requests take any
/// `Into<String>` (a `Pair` included) and send it as given.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pair(String);

impl Pair {
    /// The pair named by `text`, in lower case.
    pub fn new(text: impl Into<String>) -> Self {
        let mut s: String = text.into();
        s.make_ascii_lowercase();
        Pair(s)
    }

    /// The pair text, lower case (`btc_usdt`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The base currency (`btc`), when the text has the `base_quote` form.
    pub fn base(&self) -> Option<&str> {
        self.0.split_once('_').map(|(b, _)| b)
    }

    /// The quote currency (`usdt`), when the text has the `base_quote` form.
    pub fn quote(&self) -> Option<&str> {
        self.0.split_once('_').map(|(_, q)| q)
    }
}

impl std::fmt::Display for Pair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Pair {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Pair {
    fn from(s: &str) -> Self {
        Pair::new(s)
    }
}

impl From<String> for Pair {
    fn from(s: String) -> Self {
        Pair::new(s)
    }
}

impl From<Pair> for String {
    fn from(p: Pair) -> Self {
        p.0
    }
}

impl From<&Pair> for String {
    fn from(p: &Pair) -> Self {
        p.0.clone()
    }
}

impl PartialEq<str> for Pair {
    fn eq(&self, other: &str) -> bool {
        self.0.eq_ignore_ascii_case(other)
    }
}

impl PartialEq<&str> for Pair {
    fn eq(&self, other: &&str) -> bool {
        self.0.eq_ignore_ascii_case(other)
    }
}

impl PartialEq<String> for Pair {
    fn eq(&self, other: &String) -> bool {
        self.0.eq_ignore_ascii_case(other)
    }
}

impl PartialEq<Pair> for str {
    fn eq(&self, other: &Pair) -> bool {
        other == self
    }
}

impl PartialEq<Pair> for &str {
    fn eq(&self, other: &Pair) -> bool {
        other == *self
    }
}

impl PartialEq<Pair> for String {
    fn eq(&self, other: &Pair) -> bool {
        other == self
    }
}

impl crate::de::Scalar for Pair {
    const EXPECTED: &'static str = "a pair";
    fn read(raw: crate::de::Raw<'_>) -> Option<Self> {
        match raw {
            crate::de::Raw::Text(t) if !t.trim_ascii().is_empty() => Some(Pair::new(t)),
            _ => None,
        }
    }
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// Required (a listing's key): `null`, a placeholder or a non-string is an error.
impl<'de> Deserialize<'de> for Pair {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::req::deserialize(d)
    }
}

impl Serialize for Pair {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

// ---------------------------------------------------------------------------------------------
// Open enums

/// An integer-coded value of the API (order states, sides, types): what a request needs of it.
pub trait Coded {
    /// The wire code; `None` for a word this library does not know.
    fn code(&self) -> Option<i64>;
    /// Whether this is a documented value (not an `Unknown` code or an `Other` word).
    fn is_known(&self) -> bool;
}

/// Whether two words are the same name: ASCII letters and digits compared without case, other
/// characters ignored (`PART_FILLED`, `part-filled` and `PartFilled` are one word).
pub(crate) fn same_word(a: &str, b: &str) -> bool {
    let norm = |s: &'_ str| {
        s.bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| b.to_ascii_lowercase())
            .collect::<Vec<u8>>()
    };
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && a == b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::{int_enum, str_enum};

    int_enum! {
        /// test
        pub enum Colour { Red = 1, Blue = 2 | "azure", NavyBlue = -1 }
    }
    str_enum! {
        /// test
        pub enum Side { Long = "long" | "go_long" | "1", Short = "short" }
    }

    fn colour(json: &str) -> Colour {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn int_enums_read_codes_numeric_strings_and_words() {
        assert_eq!(colour("2"), Colour::Blue);
        assert_eq!(colour("\"1\""), Colour::Red);
        assert_eq!(colour("\" 1 \""), Colour::Red);
        assert_eq!(colour("2.0"), Colour::Blue);
        assert_eq!(colour("\"2.000\""), Colour::Blue);
        assert_eq!(colour("-1"), Colour::NavyBlue);
        assert_eq!(colour("\"red\""), Colour::Red);
        assert_eq!(colour("\"RED\""), Colour::Red);
        assert_eq!(colour("\"AZURE\""), Colour::Blue);
        assert_eq!(colour("\"navy_blue\""), Colour::NavyBlue);
        assert_eq!(colour("\"NAVY-BLUE\""), Colour::NavyBlue);
        assert_eq!(colour("\"NavyBlue\""), Colour::NavyBlue);
        assert_eq!(colour("7"), Colour::Unknown(7));
        assert_eq!(colour("\"purple\""), Colour::Other("purple".into()));
        assert_eq!(serde_json::to_string(&Colour::Unknown(7)).unwrap(), "7");
        assert_eq!(serde_json::to_string(&Colour::NavyBlue).unwrap(), "-1");
        assert_eq!(
            serde_json::to_string(&Colour::Other("purple".into())).unwrap(),
            "\"purple\""
        );
        assert_eq!(Colour::Blue.code(), Some(2));
        assert_eq!(Colour::Other("x".into()).code(), None);
        assert!(Colour::Red.is_known());
        assert!(!Colour::Unknown(7).is_known());
        assert!(!Colour::Other("x".into()).is_known());
        // Bare (required) enums refuse null, placeholders, fractions and containers.
        for bad in ["null", "\"\"", "\"-\"", "1.5", "true", "{}", "[1]"] {
            assert!(serde_json::from_str::<Colour>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn str_enums_read_words_numbers_and_keep_unknowns() {
        let side = |json: &str| serde_json::from_str::<Side>(json).unwrap();
        assert_eq!(side("\"go_long\""), Side::Long);
        assert_eq!(side("\"SHORT\""), Side::Short);
        assert_eq!(side("1"), Side::Long);
        assert_eq!(side("\"both\""), Side::Other("both".into()));
        assert_eq!(side("2"), Side::Other("2".into()));
        assert_eq!(serde_json::to_string(&Side::Long).unwrap(), "\"long\"");
        for bad in ["null", "\"\"", "\"-\"", "true", "{}"] {
            assert!(serde_json::from_str::<Side>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn words_compare_without_case_or_separators() {
        assert!(same_word("PART_FILLED", "PartFilled"));
        assert!(same_word("part-filled", "partfilled"));
        assert!(!same_word("filled", "PartFilled"));
        assert!(!same_word("", ""));
        assert!(!same_word("__", "-"));
    }

    #[test]
    fn timestamps() {
        let t: TimestampSecs = serde_json::from_str("\"1589872188\"").unwrap();
        assert_eq!(t.as_millis(), 1_589_872_188_000);
        assert_eq!(TimestampMillis(-1).as_secs(), -1);
        assert_eq!(TimestampMillis(1999).to_secs(), TimestampSecs(1));
        for bad in ["null", "\"\"", "\"-\"", "1.5", "\"x\""] {
            assert!(
                serde_json::from_str::<TimestampMillis>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn pairs_are_one_value_in_any_case() {
        let upper: Pair = serde_json::from_str("\"BTC_USDT\"").unwrap();
        let lower: Pair = serde_json::from_str("\"btc_usdt\"").unwrap();
        assert_eq!(upper, lower);
        assert_eq!(upper.as_str(), "btc_usdt");
        assert_eq!(upper, "BTC_USDT");
        assert_eq!(upper, "btc_usdt");
        assert_eq!("Btc_Usdt", upper);
        assert_eq!(String::from("BTC_usdt"), upper);
        assert_ne!(upper, "eth_usdt");
        assert_eq!(upper.base(), Some("btc"));
        assert_eq!(upper.quote(), Some("usdt"));
        assert_eq!(serde_json::to_string(&upper).unwrap(), "\"btc_usdt\"");
        let mut set = std::collections::HashSet::new();
        set.insert(upper);
        assert!(set.contains(&Pair::new("BTC_USDT")));
        for bad in ["null", "\"\"", "\" \"", "1", "{}"] {
            assert!(serde_json::from_str::<Pair>(bad).is_err(), "{bad}");
        }
    }
}
