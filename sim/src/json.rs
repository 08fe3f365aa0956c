//! The JSON writer of every answer: the recording format's ([`digifinex_market::json`]).

pub use digifinex_market::json::{fmt_dec, from_value, J};
