//! Resilience policies as pure functions of their inputs and `now`: what to do after a failure
//! (retry, give up, or report an unknown outcome) and how long to wait. Nothing here sleeps; the
//! transports apply the decisions (a blocking sleep or a tokio sleep).
//!
//! Rules:
//! * Only idempotent requests (reads) are retried automatically ([`crate::Meta::idempotent`]).
//! * Retried: network failures, HTTP 5xx, server error codes, rate limits (after `retry-after`
//!   when the server sent one, else after the backoff). Never retried: validation, auth, balance,
//!   not-found, bans, decode failures, and clock errors (those are handled by one time sync and
//!   resend in the session, [`crate::session`]).
//! * A state-changing request (order, cancel, transfer, withdrawal) that fails after its bytes may
//!   have reached the server becomes [`Error::OutcomeUnknown`] ([`settle`]), which no policy
//!   retries.
//! * Backoff is exponential (`base * 2^retry`, capped) with jitter drawn deterministically from
//!   the injected clock, so tests with a fixed clock are repeatable.

use std::time::Duration;

use crate::endpoint::Meta;
use crate::error::{Error, ErrorKind};
use crate::types::TimestampMillis;

/// When and how often reads are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retries).
    pub max_retries: u32,
    /// Backoff before the first retry; doubled for each further retry.
    pub base_delay: Duration,
    /// Upper bound of one backoff.
    pub max_delay: Duration,
    /// A `retry-after` longer than this is not waited for: the error is returned instead.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    /// 3 retries, 200 ms doubling to at most 5 s, `retry-after` honoured up to 60 s.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// The decision after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    /// Send the same request again after this delay (re-signed by the caller: the timestamp
    /// moves on).
    RetryAfter(Duration),
    /// Return the error.
    Stop,
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn never() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// Decides what to do after attempt number `retries_done + 1` of a request described by
    /// `meta` failed with `error` at time `now`.
    pub fn decide(
        &self,
        meta: &Meta,
        retries_done: u32,
        error: &Error,
        now: TimestampMillis,
    ) -> RetryDecision {
        if !meta.idempotent || retries_done >= self.max_retries {
            return RetryDecision::Stop;
        }
        match error.kind() {
            ErrorKind::RateLimit => match error.retry_after() {
                Some(d) if d > self.max_retry_after => RetryDecision::Stop,
                Some(d) => RetryDecision::RetryAfter(d),
                None => RetryDecision::RetryAfter(self.backoff(retries_done, now)),
            },
            ErrorKind::Server | ErrorKind::Network => {
                RetryDecision::RetryAfter(self.backoff(retries_done, now))
            }
            _ => RetryDecision::Stop,
        }
    }

    /// The backoff before retry number `retries_done + 1`: `base * 2^retries_done` capped at
    /// `max_delay`, then jittered into `[d/2, d]` from `now`.
    // Bound: `half = full_ms / 2 <= full_ms`, so `span = full_ms - half` cannot underflow and
    // `span <= 2^63`, so `span + 1` cannot overflow; `jitter <= span`, so
    // `half + jitter <= full_ms`.
    #[allow(clippy::arithmetic_side_effects)]
    pub fn backoff(&self, retries_done: u32, now: TimestampMillis) -> Duration {
        let factor = 1u32.checked_shl(retries_done.min(31)).unwrap_or(u32::MAX);
        let full = self
            .base_delay
            .checked_mul(factor)
            .unwrap_or(self.max_delay)
            .min(self.max_delay);
        let full_ms = u64::try_from(full.as_millis()).unwrap_or(u64::MAX);
        let half = full_ms / 2;
        let span = full_ms - half;
        let jitter = if span == 0 {
            0
        } else {
            splitmix64(now.0.unsigned_abs() ^ u64::from(retries_done)) % (span + 1)
        };
        Duration::from_millis(half + jitter)
    }
}

/// SplitMix64: a fixed, well-distributed mix of the clock reading (jitter only, not security).
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Turns a failure of a *state-changing* request into [`Error::OutcomeUnknown`] when the request
/// may have been applied: a transport failure after the bytes may have been sent, any HTTP 5xx
/// (with or without an exchange envelope), an exchange *server* error code (spot 50000, swap
/// 500001/500002: the server failed while handling it), an unreadable success answer, or a
/// redirect. Definite answers (a business error code such as insufficient balance, a 429 or 403,
/// a validation error, a connect failure) are returned unchanged, as is every failure of an
/// idempotent request.
///
/// DESIGN: the rule for an answer that is not a valid exchange envelope, for a write: a 2xx
/// (unreadable success), a 3xx (a redirect: after a POST, 302/303 are how a server says "done,
/// see elsewhere"; 307/308 may come from a front that did not forward it, which the client
/// cannot tell apart), a 408 or a 5xx leave the outcome unknown; any other 4xx (429, 403, a
/// plain-text 404 for an unknown path, a proxy's 407) is a refusal, definite.
pub fn settle(meta: &Meta, request: &http::Request<Vec<u8>>, error: Error) -> Error {
    if meta.idempotent {
        return error;
    }
    let unknown = match &error {
        Error::Transport { kind, .. } => kind.may_have_been_sent(),
        Error::HttpStatus { status, .. } => *status >= 500 || *status == 408,
        Error::Decode { status, .. } => (200..300).contains(status),
        Error::Redirect { .. } => true,
        Error::Api(a) => a.status >= 500 || a.code.kind() == ErrorKind::Server,
        _ => false,
    };
    if !unknown {
        return error;
    }
    Error::OutcomeUnknown {
        method: request.method().to_string(),
        url: request.uri().to_string(),
        body: String::from_utf8_lossy(request.body()).into_owned(),
        endpoint: meta.name,
        built_at: built_at(meta, request),
        cause: Box::new(error),
        prior: None,
        request: None,
    }
}

/// The build time of a signed request, read back from its `ACCESS-TIMESTAMP` header: seconds
/// for spot (as milliseconds), milliseconds for swap; `None` without the header (unsigned) or
/// with an unreadable one.
fn built_at(meta: &Meta, request: &http::Request<Vec<u8>>) -> Option<TimestampMillis> {
    let text = request.headers().get("access-timestamp")?.to_str().ok()?;
    let n: i64 = text.trim().parse().ok()?;
    match meta.family {
        crate::types::Family::Spot => n.checked_mul(1000).map(TimestampMillis),
        crate::types::Family::Swap => Some(TimestampMillis(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::{Family, Method};
    use crate::error::TransportErrorKind;

    const READ: Meta = Meta {
        name: "t.read",
        family: Family::Spot,
        method: Method::Get,
        path: "/x",
        signed: false,
        idempotent: true,
        success_code: 0,
        weight: None,
    };
    const WRITE: Meta = Meta {
        name: "t.write",
        method: Method::Post,
        idempotent: false,
        ..READ
    };

    fn net() -> Error {
        Error::Transport {
            source: None,
            kind: TransportErrorKind::ConnectionLost,
            message: "reset".into(),
        }
    }

    #[test]
    fn reads_retry_on_network_server_and_rate_limit() {
        let p = RetryPolicy::default();
        let now = TimestampMillis(1_700_000_000_000);
        assert!(matches!(
            p.decide(&READ, 0, &net(), now),
            RetryDecision::RetryAfter(_)
        ));
        let e5 = Error::HttpStatus {
            status: 502,
            snippet: String::new(),
        };
        assert!(matches!(
            p.decide(&READ, 2, &e5, now),
            RetryDecision::RetryAfter(_)
        ));
        assert_eq!(p.decide(&READ, 3, &e5, now), RetryDecision::Stop);
        let rl = Error::RateLimited {
            status: 429,
            retry_after: Some(Duration::from_secs(2)),
            snippet: String::new(),
        };
        assert_eq!(
            p.decide(&READ, 0, &rl, now),
            RetryDecision::RetryAfter(Duration::from_secs(2))
        );
        let long = Error::RateLimited {
            status: 429,
            retry_after: Some(Duration::from_secs(600)),
            snippet: String::new(),
        };
        assert_eq!(p.decide(&READ, 0, &long, now), RetryDecision::Stop);
        assert_eq!(
            RetryPolicy::never().decide(&READ, 0, &net(), now),
            RetryDecision::Stop
        );
    }

    #[test]
    fn writes_and_definite_errors_never_retry() {
        let p = RetryPolicy::default();
        let now = TimestampMillis(0);
        assert_eq!(p.decide(&WRITE, 0, &net(), now), RetryDecision::Stop);
        for e in [
            Error::validation("x", "y"),
            Error::Banned {
                status: 403,
                snippet: String::new(),
            },
            Error::Decode {
                path: ".".into(),
                type_name: "T",
                message: String::new(),
                status: 200,
                snippet: String::new(),
            },
        ] {
            assert_eq!(p.decide(&READ, 0, &e, now), RetryDecision::Stop, "{e}");
        }
    }

    #[test]
    fn backoff_doubles_caps_and_jitters_within_bounds() {
        let p = RetryPolicy::default();
        for (retry, full) in [(0u32, 200u64), (1, 400), (2, 800), (5, 5000), (40, 5000)] {
            for t in 0..50 {
                let d = p.backoff(retry, TimestampMillis(t * 7919)).as_millis();
                let d = u64::try_from(d).unwrap();
                assert!(
                    d >= full / 2 && d <= full,
                    "retry {retry}: {d} not in [{}, {full}]",
                    full / 2
                );
            }
        }
        // Deterministic for a given clock reading.
        assert_eq!(
            p.backoff(1, TimestampMillis(42)),
            p.backoff(1, TimestampMillis(42))
        );
    }

    #[test]
    fn settle_reports_unknown_outcomes_of_writes_only() {
        let req = http::Request::builder()
            .method("POST")
            .uri("https://h/v3/spot/order/new")
            .body(b"symbol=btc_usdt".to_vec())
            .unwrap();
        match settle(&WRITE, &req, net()) {
            Error::OutcomeUnknown {
                method,
                url,
                body,
                endpoint,
                built_at,
                ..
            } => {
                assert_eq!(method, "POST");
                assert_eq!(url, "https://h/v3/spot/order/new");
                assert_eq!(body, "symbol=btc_usdt");
                assert_eq!(endpoint, "t.write");
                // Unsigned: no build time.
                assert_eq!(built_at, None);
            }
            other => panic!("{other:?}"),
        }
        // Signed: the header's seconds (spot) or milliseconds (swap).
        let mut signed = http::Request::builder()
            .method("POST")
            .uri("https://h/v3/spot/order/new")
            .header("access-timestamp", "1700000000")
            .body(b"symbol=btc_usdt".to_vec())
            .unwrap();
        match settle(&WRITE, &signed, net()) {
            Error::OutcomeUnknown { built_at, .. } => {
                assert_eq!(built_at, Some(TimestampMillis(1_700_000_000_000)));
            }
            other => panic!("{other:?}"),
        }
        let swap_write = Meta {
            family: Family::Swap,
            ..WRITE
        };
        signed.headers_mut().insert(
            "access-timestamp",
            http::HeaderValue::from_static("1700000000123"),
        );
        match settle(&swap_write, &signed, net()) {
            Error::OutcomeUnknown { built_at, .. } => {
                assert_eq!(built_at, Some(TimestampMillis(1_700_000_000_123)));
            }
            other => panic!("{other:?}"),
        }
        let five = Error::HttpStatus {
            status: 503,
            snippet: String::new(),
        };
        assert_eq!(settle(&WRITE, &req, five).kind(), ErrorKind::OutcomeUnknown);
        // An exchange envelope on a 5xx, or a server error code on a 200, is no better.
        let api = |code: i64, status: u16| {
            Error::Api(crate::error::ApiError {
                family: Family::Spot,
                code: crate::error::ApiCode::from_family(Family::Spot, code),
                message: None,
                status,
                retry_after: None,
            })
        };
        assert_eq!(
            settle(&WRITE, &req, api(50000, 503)).kind(),
            ErrorKind::OutcomeUnknown
        );
        assert_eq!(
            settle(&WRITE, &req, api(50000, 200)).kind(),
            ErrorKind::OutcomeUnknown
        );
        // A business rejection is definite, whatever the status.
        assert_eq!(
            settle(&WRITE, &req, api(20011, 200)).kind(),
            ErrorKind::InsufficientFunds
        );
        assert_eq!(
            settle(&READ, &req, api(50000, 503)).kind(),
            ErrorKind::Server
        );
        let connect = Error::Transport {
            source: None,
            kind: TransportErrorKind::Connect,
            message: "refused".into(),
        };
        assert_eq!(settle(&WRITE, &req, connect).kind(), ErrorKind::Network);
        assert_eq!(settle(&READ, &req, net()).kind(), ErrorKind::Network);
        let rl = Error::RateLimited {
            status: 429,
            retry_after: None,
            snippet: String::new(),
        };
        assert_eq!(settle(&WRITE, &req, rl).kind(), ErrorKind::RateLimit);
    }
}
