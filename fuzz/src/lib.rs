//! Fuzz targets over `digifinex-core` (issue 7). The targets live in `fuzz_targets/` once added.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use digifinex_core as core;
