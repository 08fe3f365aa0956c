//! Cross-crate integration and conformance tests for the DigiFinex workspace; the suites live in
//! `tests/tests/` and the fixtures in `tests/fixtures/`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// The README's code examples, compiled and run as doctests so that they cannot rot.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
