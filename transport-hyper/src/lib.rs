//! Async DigiFinex client on hyper 1, hyper-util and tokio, with rustls.
//!
//! This crate only moves bytes: every request is built and signed, and every answer parsed, by
//! the sans-IO [`digifinex_core`] ([`Session`] and its [`Call`](digifinex_core::session::Call)
//! state machine). The client drives that machine: it sends each request the core hands out,
//! reads the whole answer (at most [`ClientBuilder::max_body_size`] bytes) and hands it back,
//! sleeps with `tokio::time::sleep` when the core asks it to (retry backoff, `retry-after`,
//! weight budget), and returns the result. Retries of reads, the one automatic time sync after
//! a spot 10008, and the "outcome unknown" rule for orders all live in the core and behave the
//! same in the blocking `digifinex-ureq` client.
//!
//! # Tour
//!
//! * [`Client::builder`] -> [`ClientBuilder`]: base URLs, credentials, clock, recv window,
//!   connect/read/total timeouts (finite defaults: 5 s / 10 s / 15 s), retry policy, weight
//!   budget (on by default; [`ClientBuilder::without_weight_budget`] turns it off), automatic
//!   time sync, or your own hyper client
//!   ([`ClientBuilder::hyper_client`]: proxy connector, custom TLS, pool settings).
//! * [`Client::send`] returns the typed output; [`Client::send_full`] also returns status,
//!   headers, rate-limit usage, latency and attempts ([`Response`]).
//! * [`Client::sync_time`] measures the server clock offset on demand.
//! * [`Client::pages`] walks a [`Pager`](digifinex_core::paging::Pager) with
//!   [`Pages::next_page`], or as a `futures` stream ([`Pages::into_stream`],
//!   [`Pages::into_item_stream`]).
//! * The client is `Clone + Send + Sync` and its futures are `Send`: share it across tasks.
//! * Every request runs in a `tracing` span named `digifinex.request` with the endpoint name,
//!   method, path template, status, latency, attempts and the exchange code of an error. The
//!   secret and the signature header are never recorded.
//!
//! ```no_run
//! use digifinex_hyper::Client;
//! use digifinex_hyper::core::spot::OrderBookRequest;
//!
//! # async fn run() -> Result<(), digifinex_hyper::core::Error> {
//! let client = Client::builder().build()?;
//! let book = client.send(&OrderBookRequest::new("btc_usdt").limit(5)).await?;
//! // Best levels by price: the venue lists asks highest price first, so never take `asks[0]`.
//! if let (Some(bid), Some(ask)) = (book.best_bid(), book.best_ask()) {
//!     println!("best bid {} / best ask {}", bid.price, ask.price);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! * `ring` (default): rustls with the ring provider.
//! * `aws-lc-rs`: rustls with the aws-lc-rs provider (used when `ring` is off).
//! * `native-roots`: trust the operating system's roots instead of the webpki (Mozilla) roots.
//! * `ws` (off by default): the websocket client, the `ws` module (and `digifinex_core::ws`).
//!   A REST-only program leaves it off and does not compile tokio-tungstenite, the frame
//!   inflater and the websocket protocol machine; for streams, turn it on:
//!   `digifinex-hyper = { version = "0.1", features = ["ws"] }`.
//! * `feed` (off by default; implies `ws`): public market data from a feed (`digifinex feed`
//!   over NATS JetStream) instead of the venue's sockets, the `feed` module.
//! * `log-max-debug` (off by default): every `log` record above DEBUG compiled out of the
//!   whole program, its own included (see [Logs](#logs)).
//!
//! Every TLS combination is tested in CI against a local TLS server (`tests/client.rs`): with
//! [`ClientBuilder::trust_only_roots`] given the server's CA the requests succeed; with the
//! default roots the handshake is refused, which is a connect error (never an unknown outcome:
//! nothing was sent). Without `ring` or `aws-lc-rs` there is no TLS.
//!
//! # Logs
//!
//! The crate installs no logger and caps no level: a program's own `log::trace!` records (and
//! those of its other dependencies) reach the logger it installs. hyper logs nothing (its
//! `tracing` is an unstable, unused option); hyper-util logs its connection pool through
//! `tracing` (hosts and ports); tungstenite logs every websocket frame it reads or writes at
//! TRACE through `log`, rustls its handshake. The key, the secret and the signatures never
//! reach those records: the secret never leaves the process, the `ACCESS-KEY` and
//! `ACCESS-SIGN` headers go through hyper (marked sensitive), and the websocket client masks
//! and writes its text frames itself (the `server.auth` frame carries the key and a
//! signature), so tungstenite logs only the frames it receives and its pongs: every websocket
//! message received (balances, orders, trades) is in a TRACE log. The opt-in feature
//! `log-max-debug` compiles every `log` record above DEBUG out of the program (`log`'s
//! `max_level_debug` and `release_max_level_debug`), the program's own `log::trace!`
//! included: features unify, so it is for a program that wants no frame dump in any log and
//! gives up TRACE for it.
//!
//! # Failures
//!
//! Redirects are never followed: a 3xx answer is [`Error::Redirect`] (for an order, an unknown
//! outcome: [`Error::OutcomeUnknown`] with the redirect as its cause), and nothing is sent to
//! its `Location`. A transport failure is classified by the phase it happened in, decided from
//! where the transport was, not from the error's text: before any request byte could be
//! written (resolving, connecting, the TLS handshake, a proxy's refusal, or a limit running
//! out meanwhile) it is [`TransportErrorKind::Connect`](digifinex_core::TransportErrorKind),
//! definite even for an order; after (writing, waiting, reading) it is `Timeout` or
//! `ConnectionLost`, and an order's outcome is unknown. The transport's own error is kept as
//! the `source()` of [`Error::Transport`].
//!
//! Plain `http://` base URLs are refused unless [`ClientBuilder::allow_http`] is set (for the
//! simulator and tests).
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

// Only for its compile-time cap of every TRACE record (the opt-in `log-max-debug` feature).
#[cfg(feature = "log-max-debug")]
use log as _;

mod client;
#[cfg(feature = "feed")]
pub mod feed;
mod pages;
mod rules;
mod tls;
#[cfg(feature = "ws")]
pub mod track;
#[cfg(feature = "ws")]
pub mod ws;

pub use client::{Client, ClientBuilder, DefaultConnector, HyperClient, DEFAULT_MAX_BODY};
pub use digifinex_core as core;
pub use digifinex_core::session::{Response, Session};
pub use digifinex_core::{Error, ErrorKind};
pub use pages::Pages;
pub use {hyper, hyper_rustls, hyper_util};
