//! Sans-IO protocol core for the DigiFinex REST APIs.
//!
//! Typed requests become signed [`http::Request`] values and [`http::Response`] values become typed
//! results. There are no sockets, threads or async runtime here, and the wall clock is read only
//! through [`Clock`]: any transport (the `digifinex-ureq` and `digifinex-hyper` crates, or your own)
//! moves the bytes.
//!
//! ```
//! // `http` and `Decimal` are re-exported: `digifinex-core` is the only dependency needed.
//! use digifinex_core::{build, http, parse, spot, Amount, Config, Credentials, Decimal, Price, TimestampMillis};
//!
//! // A signed limit buy of 0.01 at 30000, built at a fixed time.
//! let order = spot::PlaceOrderRequest::new(
//!     spot::Market::Spot,
//!     "btc_usdt",
//!     spot::LimitOrder::buy(Amount::new(Decimal::new(1, 2)), Price::new(Decimal::new(30000, 0))),
//! );
//! let creds = Credentials::new("my-key", "my-secret");
//! let req = build(&order, &Config::default(), Some(&creds), TimestampMillis(1_700_000_000_000))?;
//! assert_eq!(req.uri(), "https://openapi.digifinex.com/v3/spot/order/new");
//! assert_eq!(req.body(), b"market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy");
//! assert_eq!(req.headers()["access-timestamp"], "1700000000");
//!
//! // Whatever transport sent it hands back the response; parsing is pure too.
//! let body: &[u8] = br#"{"code":0,"order_id":"198361cecdc65f9c8c9bb2fa68faec40"}"#;
//! let resp = http::Response::builder().status(200).body(body)?;
//! let placed = parse::<spot::PlaceOrderRequest>(&resp)?;
//! assert_eq!(placed.order_id, "198361cecdc65f9c8c9bb2fa68faec40");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! For the whole request cycle (time sync, retries of reads, weight budgets, unknown outcomes)
//! over your own transport, drive a [`session::Session`]'s call: the [`session`] module shows the
//! loop, and [`exchange::send_with`] runs it with any closure.
//!
//! # Decoding
//!
//! The venue's answers drift from its documents (the protocol reference, `docs/protocol.md`,
//! lists what it sends): numbers as JSON numbers or strings (`1.5`, `"1.5"`, `1e-07`,
//! `"4967.000000"`), decoded exactly from their text, never through `f64`; placeholders instead
//! of a value (`null`, `""`, `"-"`, `"--"`, `"N/A"`); integer codes as numbers, numeric strings
//! or words, and values beyond the documented tables (kept, never an error);
//! acknowledgements without their `data`; fields the documents do not list.
//!
//! DESIGN: a field of an answer is **required** only when a caller cannot use the record without
//! it: the identity of what the caller acts on (an order, trade or withdrawal id); the key of a
//! row in a keyed listing (a ticker's pair, a balance's currency, an instrument's id); the
//! leading columns of a positional row (a book level's price and size, a candle's time and
//! prices); the value that is the whole answer (a server time, the id of a placed order). Every
//! other field is optional (`Option<T>`, or an empty list): missing, a placeholder or unreadable,
//! it is `None`. A required field that is missing or unreadable fails the answer with
//! [`Error::Decode`] naming its JSON path. An *unreadable* optional value (text where a number
//! belongs) is taken as absent and does not fail the answer, so one bad ticker row never hides
//! the other 100; [`parse_body`] logs it as a `tracing` warning (target
//! `digifinex_core::decode`) naming the JSON path and [`parse_body_report`] returns the list.
//!
//! Answers are `#[non_exhaustive]`, so that a field the venue adds can be typed in a minor
//! release. To build one by hand (a test, a mock transport), decode it from JSON as the venue
//! would send it, or start from `Default` (every field absent, empty or zero) and set the
//! fields you need; the small positional and id answers have constructors
//! ([`spot::Level::new`], [`spot::PlacedOrder::new`]):
//!
//! ```
//! use digifinex_core::{spot, Decimal};
//!
//! let mut ticker = spot::Ticker::default();
//! ticker.last = Some(Decimal::new(30_000, 0));
//! let level = spot::Level::new(Decimal::new(29_999, 0), Decimal::ONE);
//! assert!(level.price < ticker.last.unwrap());
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// Arithmetic on values a caller or a server supplies is checked (`checked_*`, `saturating_*`,
// a typed validation error when a caller's value overflows); plain operators are allowed only
// on the smallest item whose bound is proven, with the bound in a comment there.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )
)]

mod api;
pub mod budget;
#[cfg(feature = "catalog")]
pub mod catalog;
mod clock;
mod codes;
mod config;
mod credentials;
mod de;
pub mod endpoint;
mod endpoints;
pub mod error;
pub mod exchange;
#[cfg(feature = "ws")]
pub mod feed;
mod files;
mod json;
mod money;
pub mod paging;
// Wire parameters by name: `catalog::ParamMap` is the documented way in; `FromParams` is
// implemented by `request!` and reached through `__private`.
#[doc(hidden)]
pub mod params;
pub mod policy;
pub mod ratelimit;
mod reads;
pub mod reconcile;
pub mod record;
pub mod roundtrip;
// The refusal of a checked order (`rules::{Rule, RuleError}`): a leaf that `Error::Rule` carries,
// below both the errors and the rules.
mod refusal;
pub mod request;
pub mod rules;
pub mod session;
pub mod sign;
pub mod spot;
pub mod swap;
#[cfg(feature = "ws")]
pub mod track;
#[cfg(feature = "ws")]
pub mod ws;

mod text;
mod types;

/// What the [`request!`] macro's expansion names: not a stable API (its paths may change in any
/// release). The parts a declaration's author uses are documented where they live: the checks
/// and field traits in [`mod@request`], [`Params`] for a hand-written [`Endpoint`].
#[doc(hidden)]
pub mod __private {
    pub use crate::endpoint::Params;
    pub use crate::json::JsonWriter;
    pub use crate::params::{FromParams, ParamMap};
    pub use crate::request::{
        required, wire_text, Body, Check, Describe, Fields, IntoArg, Param, ParamInfo, PathParam,
    };
}

/// Hooks for the fuzz targets, the benches and the crate's own tests (feature `hooks`, off by
/// default): the decoding helpers, the single-pass reader checked against serde_json, and a
/// websocket frame's decode alone. Not a stable API.
#[cfg(feature = "hooks")]
#[doc(hidden)]
pub mod __fuzz {
    pub use crate::de::num::{parse_decimal, DecimalError};
    pub use crate::de::reader::check_reader;
    pub use crate::de::{decimal, int, opt, opt_decimal};
    #[cfg(feature = "ws")]
    pub use crate::ws::__decode_only as decode_only;
}

pub use clock::{estimate_offset, Clock, FixedClock, ManualClock, OffsetClock, SystemClock};
pub use config::{Config, DEFAULT_SPOT_BASE_URL, DEFAULT_SWAP_BASE_URL};
pub use credentials::Credentials;
pub use de::Unreadable;
pub use endpoint::{
    build, parse, parse_body, parse_body_report, Endpoint, Family, Meta, Method, Params,
};
pub use error::{
    ApiCode, ApiError, BoxError, Error, ErrorKind, SpotCode, SwapCode, TransportErrorKind,
    TypedRequest, ValidationKind,
};
pub use money::{Amount, Price, Size, DECIMAL_NEWTYPE};
pub use rust_decimal::Decimal;

/// The [`http`](https://docs.rs/http/1) crate (version 1) that [`build`] and [`parse`] speak:
/// [`http::Request`], [`http::Response`], [`http::StatusCode`], header types.
///
/// Re-exported so that a program driving the core needs no `http` line of its own in
/// `Cargo.toml`, and cannot end up with a second, incompatible `http` version:
///
/// ```
/// use digifinex_core::http;
///
/// let body: &[u8] = br#"{"code":0}"#;
/// let response = http::Response::builder().status(http::StatusCode::OK).body(body)?;
/// digifinex_core::parse::<digifinex_core::spot::PingRequest>(&response)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use http;
pub use types::{Coded, Pair, TimestampMillis, TimestampSecs};
