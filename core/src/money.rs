//! Money arguments that cannot be swapped: [`Price`], [`Amount`] and [`Size`].
//!
//! A request takes each money value as its own type, so a price given where an amount belongs
//! does not compile. Each is built from an exact [`Decimal`] with `new` or parsed from text with
//! [`str::parse`]; none converts from a bare `Decimal` implicitly (that would make the swap
//! compile again). Every request takes the quantity first and the price second, in both
//! families: `spot::LimitOrder::buy(amount, price)`, `swap::OrderSpec::limit(instrument, side,
//! size, price)`.
//!
//! ```compile_fail
//! use digifinex_core::{spot, Amount, Price};
//! use rust_decimal::Decimal;
//! let price = Price::new(Decimal::new(30000, 0));
//! let amount = Amount::new(Decimal::new(1, 2));
//! // Price and amount swapped: does not compile.
//! let _ = spot::LimitOrder::buy(price, amount);
//! ```
//!
//! ```compile_fail
//! use digifinex_core::{swap, Price, Size};
//! use rust_decimal::Decimal;
//! let price = Price::new(Decimal::new(30000, 0));
//! let size = Size::new(Decimal::ONE);
//! // Size and price swapped: does not compile.
//! let _ = swap::OrderSpec::limit("BTCUSDTPERP", swap::OrderSide::OpenLong, price, size);
//! ```
//!
//! ```compile_fail
//! use digifinex_core::spot;
//! use rust_decimal::Decimal;
//! // A bare decimal is not a price or an amount.
//! let _ = spot::LimitOrder::buy(Decimal::ONE, Decimal::ONE);
//! ```
//!
//! The right order compiles:
//!
//! ```
//! use digifinex_core::{spot, swap, Amount, Price, Size};
//! let buy = spot::LimitOrder::buy("0.01".parse::<Amount>()?, "30000".parse::<Price>()?);
//! assert_eq!(buy.price(), "30000".parse::<Price>()?);
//! let long = swap::OrderSpec::limit("BTCUSDTPERP", swap::OrderSide::OpenLong, Size::ONE, "30000".parse()?);
//! assert_eq!(long.size(), Size::ONE);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;

use crate::de::num::parse_decimal;

/// The newtype-struct name under which every decimal of a model is serialized (the answers the
/// catalog renders, websocket events, records).
///
/// A JSON serializer sees through a newtype struct, so the JSON text is the decimal's plain
/// notation as a string (`"0.10"`), as before. A serializer that builds another language's
/// values (the Python package builds `decimal.Decimal`) recognises this name in
/// `serialize_newtype_struct` and takes the inner string as an exact decimal, never as text.
pub const DECIMAL_NEWTYPE: &str = "$digifinex::Decimal";

/// Serializes `value` as its plain notation inside the [`DECIMAL_NEWTYPE`] newtype struct.
pub(crate) fn serialize_decimal<S: serde::Serializer>(
    value: &Decimal,
    s: S,
) -> Result<S::Ok, S::Error> {
    struct Text<'a>(&'a Decimal);
    impl serde::Serialize for Text<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(self.0)
        }
    }
    s.serialize_newtype_struct(DECIMAL_NEWTYPE, &Text(value))
}

/// A decimal serialized as [`serialize_decimal`] does (an element of a price level).
pub(crate) struct SerDecimal<'a>(pub(crate) &'a Decimal);

impl serde::Serialize for SerDecimal<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_decimal(self.0, s)
    }
}

macro_rules! money {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(Decimal);

        impl $name {
            /// Zero.
            pub const ZERO: $name = $name(Decimal::ZERO);
            /// One.
            pub const ONE: $name = $name(Decimal::ONE);

            #[doc = concat!("The ", $what, " `value`, exactly.")]
            pub const fn new(value: Decimal) -> Self {
                $name(value)
            }

            /// The exact decimal.
            pub const fn get(self) -> Decimal {
                self.0
            }

            /// Whether the value is strictly positive (what every request requires).
            pub fn is_positive(&self) -> bool {
                self.0.is_sign_positive() && !self.0.is_zero()
            }
        }

        /// Plain notation (`0.0001`, never `1e-4`), as sent.
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                crate::text::fmt_decimal(&self.0, f)
            }
        }

        /// Exact parsing of plain or scientific notation (`"0.01"`, `"1e-2"`), never through
        /// `f64`.
        impl FromStr for $name {
            type Err = crate::de::num::DecimalError;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                parse_decimal(text).map($name)
            }
        }

        impl From<$name> for Decimal {
            fn from(v: $name) -> Decimal {
                v.0
            }
        }

        impl PartialEq<Decimal> for $name {
            fn eq(&self, other: &Decimal) -> bool {
                self.0 == *other
            }
        }
    };
}

money! {
    /// A price, in the quote currency per unit of the base currency (spot) or per contract's
    /// underlying (swap).
    Price, "price"
}

money! {
    /// A spot amount: base currency for limit orders and market sells, quote currency for
    /// market buys; an amount of a currency for transfers and withdrawals.
    Amount, "amount"
}

money! {
    /// A swap order size, in contracts (also the number of contracts of a copy-trading order).
    Size, "size"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_display_and_positivity() {
        let p: Price = "30000.50".parse().unwrap();
        assert_eq!(p.get(), Decimal::new(3000050, 2));
        assert_eq!(p.to_string(), "30000.50");
        let a: Amount = "1e-4".parse().unwrap();
        assert_eq!(a.to_string(), "0.0001");
        assert!(a.is_positive());
        assert!(!Size::ZERO.is_positive());
        assert!(!Size::new(Decimal::NEGATIVE_ONE).is_positive());
        assert!("abc".parse::<Price>().is_err());
        assert_eq!(Decimal::from(Size::ONE), Decimal::ONE);
    }
}
