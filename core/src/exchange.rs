//! Driving a whole request cycle with any function that exchanges a request for an answer, and
//! the tracing spans both clients record (one place for both).
//!
//! [`Exchange`] is implemented by every closure
//! `FnMut(http::Request<Vec<u8>>) -> Result<http::Response<Vec<u8>>, E>`, so a bot can be
//! unit-tested without a server: the session signs, budgets, retries reads, syncs the clock and
//! decodes exactly as it does in production, and the closure plays the venue.
//!
//! ```
//! use digifinex_core::exchange::send_with;
//! use digifinex_core::http;
//! use digifinex_core::session::Session;
//! use digifinex_core::spot::OrderBookRequest;
//!
//! let session = Session::builder().build();
//! let mut seen = Vec::new();
//! let book = send_with(&session, &OrderBookRequest::new("btc_usdt").limit(1), |req: http::Request<Vec<u8>>| {
//!     seen.push(req.uri().to_string());
//!     http::Response::builder()
//!         .status(200)
//!         .body(br#"{"bids":[["30000","0.5"]],"asks":[],"code":0}"#.to_vec())
//! })?;
//! assert_eq!(book.value.best_bid().map(|l| l.price.to_string()).as_deref(), Some("30000"));
//! assert_eq!(seen, ["https://openapi.digifinex.com/v3/order_book?symbol=btc_usdt&limit=1"]);
//! # Ok::<(), digifinex_core::Error>(())
//! ```

use std::time::Duration;

use tracing::field::Empty;

use crate::endpoint::{Endpoint, Meta};
use crate::error::{BoxError, Error, TransportErrorKind};
use crate::session::{Action, Drive, Response, Session};
use crate::types::Family;

/// Exchanges one request for one answer: a closure in tests, a client in production.
pub trait Exchange {
    /// Sends `request` and returns the answer. An `Err` is a transport failure: the session
    /// treats it as [`TransportErrorKind::Other`] (the request may have been sent, so a write
    /// ends as [`Error::OutcomeUnknown`]).
    fn exchange(
        &mut self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, BoxError>;

    /// Waits `duration` before the session continues (a weight budget or a retry's backoff).
    /// The default sleeps the thread; a test with a manual clock advances the clock instead.
    // The blocking helper's one wait: `send_with` runs on the caller's thread, as a transport
    // would (see `core/clippy.toml`).
    #[allow(clippy::disallowed_methods)]
    fn wait(&mut self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

impl<F, E> Exchange for F
where
    F: FnMut(http::Request<Vec<u8>>) -> Result<http::Response<Vec<u8>>, E>,
    E: Into<BoxError>,
{
    fn exchange(
        &mut self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, BoxError> {
        self(request).map_err(Into::into)
    }
}

/// Drives `call` to its end through `exchange`.
pub fn drive_with<D: Drive + ?Sized>(
    call: &mut D,
    mut exchange: impl Exchange,
) -> Result<Response<D::Output>, Error> {
    loop {
        match call.next() {
            Action::Send(request) => match exchange.exchange(request) {
                Ok(answer) => {
                    let (parts, body) = answer.into_parts();
                    call.on_owned_response(http::Response::from_parts(parts, body.as_slice()));
                }
                Err(e) => call.on_transport_error(TransportErrorKind::Other, e),
            },
            Action::Wait(d) => exchange.wait(d),
            Action::Done(result) => return result,
        }
    }
}

/// Sends `endpoint` through `session` and `exchange`: the whole cycle (budget, signing, clock
/// sync, retries of reads, decoding), with the request span both clients record.
pub fn send_with<E: Endpoint>(
    session: &Session,
    endpoint: &E,
    exchange: impl Exchange,
) -> Result<Response<E::Output>, Error> {
    let span = request_span(&E::META);
    let _entered = span.enter();
    let result = drive_with(&mut session.call(endpoint), exchange);
    record(&span, &result);
    result
}

/// The span of one request (`digifinex.request`, debug level): endpoint, method, path, then
/// the outcome's status, latency, attempts, exchange code and error kind ([`record`]). It never
/// holds the key, the secret or a signature.
pub fn request_span(meta: &Meta) -> tracing::Span {
    tracing::debug_span!(
        "digifinex.request",
        endpoint = meta.name,
        method = meta.method.as_str(),
        path = meta.path,
        status = Empty,
        latency_ms = Empty,
        attempts = Empty,
        code = Empty,
        error = Empty,
    )
}

/// The span of a clock sync for `family` (same fields as [`request_span`]).
pub fn sync_span(family: Family) -> tracing::Span {
    tracing::debug_span!(
        "digifinex.request",
        endpoint = "time_sync",
        method = "GET",
        path = match family {
            Family::Swap => "/swap/v2/public/time",
            Family::Spot => "/time",
        },
        status = Empty,
        latency_ms = Empty,
        attempts = Empty,
        code = Empty,
        error = Empty,
    )
}

/// Records the outcome of a request in its span; a failure is also logged at debug level.
pub fn record<T>(span: &tracing::Span, result: &Result<Response<T>, Error>) {
    match result {
        Ok(r) => {
            span.record("status", r.status);
            span.record(
                "latency_ms",
                u64::try_from(r.latency.as_millis()).unwrap_or(u64::MAX),
            );
            span.record("attempts", r.attempts);
        }
        Err(e) => {
            if let Error::Api(a) = e {
                span.record("code", a.code.code());
                span.record("status", a.status);
            }
            span.record("error", tracing::field::debug(e.kind()));
            span.in_scope(|| tracing::debug!(error = %e, "request failed"));
        }
    }
}
