//! Local DigiFinex exchange simulator (issue 4).
//!
//! Written independently of `digifinex-core` from the specification, so that it checks the client
//! instead of agreeing with it. It has no behaviour yet.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
