//! Cross-crate integration and conformance tests for the DigiFinex workspace; the suites live in
//! `tests/tests/` and the fixtures in `tests/fixtures/`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// The README's code examples, compiled and run as doctests so that they cannot rot.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The Rust examples of `docs/guide.md` (the simulator bot, streams, rules, recordings),
/// compiled and run as doctests.
#[doc = include_str!("../../docs/guide.md")]
#[cfg(doctest)]
pub struct GuideDoctests;

/// The Rust examples of `docs/benchmarks.md`, compiled as doctests should one be added.
#[doc = include_str!("../../docs/benchmarks.md")]
#[cfg(doctest)]
pub struct BenchmarksDoctests;

/// The Rust examples of `docs/safety.md`, compiled as doctests.
#[doc = include_str!("../../docs/safety.md")]
#[cfg(doctest)]
pub struct SafetyDoctests;

/// The Rust examples of `docs/protocol.md` (none today: its examples are checked by
/// `tests/tests/docs.rs`), compiled as doctests should one be added.
#[doc = include_str!("../../docs/protocol.md")]
#[cfg(doctest)]
pub struct ProtocolDoctests;

/// The Rust examples of `docs/simulator.md` (the exchange in process), compiled and run as
/// doctests.
#[doc = include_str!("../../docs/simulator.md")]
#[cfg(doctest)]
pub struct SimulatorDoctests;

/// The Rust examples of `docs/cli.md`, compiled as doctests should one be added.
#[doc = include_str!("../../docs/cli.md")]
#[cfg(doctest)]
pub struct CliDoctests;

/// The Rust examples of `docs/backtest.md` (a bot of your own, blocking and async; the round
/// trip log), compiled as doctests.
#[doc = include_str!("../../docs/backtest.md")]
#[cfg(doctest)]
pub struct BacktestDoctests;
