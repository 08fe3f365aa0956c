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
pub mod de;
pub mod endpoint;
pub mod error;
pub mod exchange;
mod json;
mod money;
pub mod paging;
pub mod params;
pub mod policy;
pub mod ratelimit;
pub mod reconcile;
pub mod record;
pub mod request;
pub mod rules;
pub mod session;
pub mod sign;
pub mod spot;
pub mod swap;
pub mod ws;

/// The single-pass reader checked against serde_json (fuzzing and tests only, not a stable API).
#[doc(hidden)]
pub use de::reader::check_reader as __check_reader;
mod types;

pub use clock::{estimate_offset, Clock, FixedClock, ManualClock, OffsetClock, SystemClock};
pub use config::{Config, DEFAULT_SPOT_BASE_URL, DEFAULT_SWAP_BASE_URL};
pub use credentials::Credentials;
pub use de::Unreadable;
pub use endpoint::{
    build, parse, parse_body, parse_body_report, Endpoint, Family, Meta, Method, Params,
};
pub use error::{
    ApiCode, ApiError, BoxError, Error, ErrorKind, SpotCode, SwapCode, TransportErrorKind,
};
pub use money::{Amount, Price, Size};
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
