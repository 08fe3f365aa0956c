//! Cross-crate integration and conformance tests for the DigiFinex workspace; the suites live in
//! `tests/tests/` and the fixtures in `tests/fixtures/`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
