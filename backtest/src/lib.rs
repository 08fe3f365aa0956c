//! Bots against a DigiFinex exchange in the same process, in virtual time.
//!
//! The simulator ([`digifinex_sim`]) is a sans-IO exchange: it takes requests and websocket
//! frames and gives answers and pushes, with time as an argument. [`InProcess`] puts one
//! behind the clients' own seams, so the bot code written against
//! [`digifinex_ureq::Client`](https://docs.rs/digifinex-ureq) or `digifinex_hyper::Client` and
//! their streams runs unchanged against it, with no socket and no sleep: a REST call takes its
//! modelled latency of virtual time, and when the bot waits on its stream the exchange jumps
//! to its next event.
//!
//! ```
//! # #[cfg(feature = "ureq")] {
//! use digifinex_backtest::InProcess;
//! use digifinex_ureq::core::spot::market::TickerRequest;
//!
//! let exchange = InProcess::new(digifinex_sim::SimConfig::default())?;
//! let client = exchange.ureq_client().build()?;
//! let answer = client.send(&TickerRequest::new().symbol("btc_usdt"))?;
//! assert_eq!(answer.ticker[0].symbol.as_str(), "btc_usdt");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "ureq")]
pub mod html;
mod inprocess;
pub mod latency;
#[cfg(feature = "ureq")]
mod run;
#[cfg(feature = "ureq")]
pub mod strategy;

pub use inprocess::{InProcess, BASE_URL};
pub use latency::RestLatency;
#[cfg(all(feature = "ureq", feature = "hyper"))]
pub use run::AsyncBot;
#[cfg(feature = "ureq")]
pub use run::{
    fee_rates, fill_model, Backtest, BacktestConfig, BacktestError, Bot, Report, SWAP_MAKER_FEE,
    SWAP_TAKER_FEE,
};
