//! Blocking DigiFinex client on `ureq`.
//!
//! This crate will move the bytes of requests built by [`digifinex_core`] (issue 5). Until then it
//! only re-exports the core so that dependants can already name it.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use digifinex_core as core;
