//! Fuzz targets over `digifinex-core` (its parsers, its decimal path and its request builders)
//! and over `digifinex-market`'s recording reader.
//!
//! Every target is a plain `pub fn name(data: &[u8])` that panics when a property breaks, so the
//! same functions run under libFuzzer (`fuzz_targets/*.rs`, feature `libfuzzer`) and as ordinary
//! tests replaying the committed corpora (`tests/replay.rs`).
//!
//! | target           | input                                          | property |
//! |------------------|------------------------------------------------|----------|
//! | `catalog_decode` | entry, status, headers, body                   | `decode` returns `Ok`/`Err`, never panics; `Ok` only for 2xx JSON objects; `decode_report` agrees |
//! | `spot_decode`    | hot spot type, status, body                    | typed parse == catalog decode; re-decoding the rendered model gives it back |
//! | `swap_decode`    | hot swap type, status, body                    | same, for swap |
//! | `catalog_build`  | entry, flags, `k=v` lines, `\0`, JSON body     | a validation error, or a request whose signature verifies independently |
//! | `decimal`        | number/string text                             | exact: value, scale, round trip, JSON number == JSON string; optional values: placeholder or unreadable is absent, unreadable is reported |
//! | `reader`         | hot type, body                                 | when the single-pass reader decodes a body, serde_json decodes the same value and `code` |
//! | `ws_frame`       | flags, websocket frame payload                 | the frame decoder and the protocol machine never panic; zlib-wrapped == plain text |
//! | `recording`      | a recording's lines after its header           | `digifinex-market`'s reader never panics; each record read, written again, reads back the same |
//!
//! The input layouts are documented on each function; [`encode`] writes them (seed corpora).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use digifinex_core as core;

mod build;
mod decimal;
mod decode;
pub mod encode;
mod feed;
mod reader;
mod recording;
pub mod verify;
mod ws;

pub use build::{catalog_build, expand_extremes, EXTREMES, EXTREME_MARK};
pub use decimal::decimal;
pub use decode::{catalog_decode, spot_decode, swap_decode, SPOT_HOT, SWAP_HOT};
pub use feed::feed;
pub use reader::{reader, READER_TYPES};
pub use recording::recording;
pub use ws::ws_frame;

/// A fuzz target: panics when a property breaks.
pub type Target = fn(&[u8]);

/// Every target by name, for the replay test and tools.
pub const TARGETS: &[(&str, Target)] = &[
    ("catalog_decode", catalog_decode),
    ("spot_decode", spot_decode),
    ("swap_decode", swap_decode),
    ("catalog_build", catalog_build),
    ("decimal", decimal),
    ("reader", reader),
    ("ws_frame", ws_frame),
    ("recording", recording),
    ("feed", feed),
];

/// The catalog as a slice (indexable by the selector bytes of the inputs).
pub fn entries() -> &'static [&'static digifinex_core::catalog::CatalogEntry] {
    static ENTRIES: std::sync::OnceLock<Vec<&'static digifinex_core::catalog::CatalogEntry>> =
        std::sync::OnceLock::new();
    ENTRIES.get_or_init(|| digifinex_core::catalog::all().collect())
}

/// HTTP statuses a selector byte maps to: selectors below 128 are 200 (most bodies are
/// successes), the rest index this table.
pub const STATUSES: &[u16] = &[
    200, 201, 204, 299, 300, 400, 401, 403, 404, 418, 429, 500, 502, 503, 504, 0, 99, 999, 65535,
];

/// The status for a selector byte.
pub fn status_of(sel: u8) -> u16 {
    if sel < 128 {
        200
    } else {
        STATUSES[usize::from(sel - 128) % STATUSES.len()]
    }
}

/// `retry-after` values a selector byte maps to (`0` is no header).
pub const RETRY_AFTER: &[&str] = &[
    "",
    "3",
    "0",
    "1.5",
    " 2 ",
    "-1",
    "1e3",
    "1e30",
    "18446744073709551616",
    "99999999999999999999999999",
    "0.0001",
    "abc",
    "Wed, 21 Oct 2015 07:28:00 GMT",
];

/// The response headers for a selector byte.
pub fn headers_of(sel: u8) -> http::HeaderMap {
    let mut h = http::HeaderMap::new();
    let v = RETRY_AFTER[usize::from(sel) % RETRY_AFTER.len()];
    if !v.is_empty() {
        if let Ok(v) = http::HeaderValue::from_str(v) {
            h.insert(http::header::RETRY_AFTER, v);
        }
    }
    h
}
