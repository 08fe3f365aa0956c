//! Round trips of a bot's orders, logged as it trades, to model latency in a backtest.
//!
//! [`RoundTripLog`] is a [`Tap`](crate::record::Tap) (give it to a client's `recorder`): for
//! every order write (a `POST` whose path names an order: placements, cancels, batches) it
//! appends one JSON line, secret-free:
//!
//! ```text
//! {"sent_ms":1706763600000,"venue_ms":1706763600021,"received_ms":1706763600045,"method":"POST","path":"/v3/spot/order/new","status":200}
//! ```
//!
//! `sent_ms` is the local clock when the request left, `received_ms` when the answer was read
//! (`sent_ms` plus the measured elapsed time), `venue_ms` the venue's own time of the answer
//! when the answer carries one in milliseconds (a top-level `timestamp` of 13 digits; `null`
//! otherwise: spot order answers carry none). [`read_rows`] reads such a file back; a backtest
//! takes it as its latency model (`digifinex-backtest`: each leg interpolated over time).
//!
//! DESIGN (the venue's time): without a venue timestamp, the two legs cannot be told apart; a
//! reader splits the round trip in halves. A local clock that is off from the venue's shifts
//! the split (not the total): measure the offset (the clients' clock sync) before trusting
//! `venue_ms`.

use std::io::{BufRead, Write};
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Longest line [`read_rows`] accepts.
const MAX_LINE: usize = 4_096;

/// Most rows [`read_rows`] keeps.
pub const MAX_ROWS: usize = 1_000_000;

/// One logged round trip (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundTrip {
    /// Local time the request left (ms since the Unix epoch).
    pub sent_ms: i64,
    /// The venue's time of the answer, when it carries one (ms).
    pub venue_ms: Option<i64>,
    /// Local time the answer was read (ms).
    pub received_ms: i64,
    /// HTTP method.
    pub method: String,
    /// Path, without the query.
    pub path: String,
    /// HTTP status of the answer (`None`: no answer, a transport failure).
    pub status: Option<u16>,
}

impl RoundTrip {
    /// The two legs, request to venue and venue to answer (ms, at least 0): from the venue's
    /// time when it lies within the round trip, else the round trip split in halves.
    pub fn legs(&self) -> (i64, i64) {
        let total = self.received_ms.saturating_sub(self.sent_ms).max(0);
        match self.venue_ms {
            Some(v) if v >= self.sent_ms && v <= self.received_ms => (
                v.saturating_sub(self.sent_ms),
                self.received_ms.saturating_sub(v),
            ),
            _ => {
                let half = total.div_euclid(2);
                (half, total.saturating_sub(half))
            }
        }
    }
}

/// Whether `method path` is an order write (logged by [`RoundTripLog`]).
pub fn is_order_write(method: &http::Method, path: &str) -> bool {
    method == http::Method::POST && path.contains("order")
}

/// Appends [`RoundTrip`] lines to a writer (a file); thread-safe. A write failure is kept
/// ([`RoundTripLog::take_error`]) and never fails the exchange.
pub struct RoundTripLog<W: Write + Send> {
    out: Mutex<(W, Option<std::io::Error>)>,
}

impl<W: Write + Send> std::fmt::Debug for RoundTripLog<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoundTripLog").finish_non_exhaustive()
    }
}

impl<W: Write + Send> RoundTripLog<W> {
    /// Appends to `out`.
    pub fn new(out: W) -> Self {
        RoundTripLog {
            out: Mutex::new((out, None)),
        }
    }

    /// The first write error since the last call, if any.
    pub fn take_error(&self) -> Option<std::io::Error> {
        self.out.lock().unwrap_or_else(|p| p.into_inner()).1.take()
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out.into_inner().unwrap_or_else(|p| p.into_inner()).0
    }

    fn write(&self, row: &RoundTrip) {
        let Ok(mut line) = serde_json::to_vec(row) else {
            return;
        };
        line.push(b'\n');
        let mut g = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let result = g.0.write_all(&line).and_then(|()| g.0.flush());
        if let (Err(e), None) = (result, &g.1) {
            g.1 = Some(e);
        }
    }
}

/// The venue's time of an answer: a top-level `timestamp` of 13 digits (ms).
fn venue_ms(body: &[u8]) -> Option<i64> {
    #[derive(Deserialize)]
    struct Stamp {
        timestamp: Option<serde_json::Value>,
    }
    let s: Stamp = serde_json::from_slice(body).ok()?;
    let t = match s.timestamp? {
        serde_json::Value::Number(n) => n.as_i64()?,
        serde_json::Value::String(t) => t.parse().ok()?,
        _ => return None,
    };
    (1_000_000_000_000..10_000_000_000_000)
        .contains(&t)
        .then_some(t)
}

impl<W: Write + Send> crate::record::Tap for RoundTripLog<W> {
    fn exchanged(
        &self,
        request: &http::Request<Vec<u8>>,
        answer: Result<&http::Response<Vec<u8>>, &str>,
        at_ms: i64,
        elapsed: Duration,
    ) {
        let path = request.uri().path();
        if !is_order_write(request.method(), path) {
            return;
        }
        let ms = i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX);
        self.write(&RoundTrip {
            sent_ms: at_ms,
            venue_ms: answer.ok().and_then(|r| venue_ms(r.body())),
            received_ms: at_ms.saturating_add(ms),
            method: request.method().as_str().to_owned(),
            path: path.to_owned(),
            status: answer.ok().map(|r| r.status().as_u16()),
        });
    }
}

/// Why [`read_rows`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum RoundTripError {
    /// Reading failed.
    Io(std::io::Error),
    /// A line is not a round trip.
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// No row at all.
    Empty,
}

impl std::fmt::Display for RoundTripError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RoundTripError::Io(e) => write!(f, "reading round trips: {e}"),
            RoundTripError::Line { line, reason } => {
                write!(f, "round trips, line {line}: {reason}")
            }
            RoundTripError::Empty => f.write_str("no round trip in the file"),
        }
    }
}

impl std::error::Error for RoundTripError {}

impl From<std::io::Error> for RoundTripError {
    fn from(e: std::io::Error) -> Self {
        RoundTripError::Io(e)
    }
}

/// Reads a [`RoundTripLog`] file: every row, sorted by `sent_ms` (blank lines skipped; a line
/// longer than 4 KiB, a malformed line, or more than [`MAX_ROWS`] rows is an error naming it).
pub fn read_rows(r: impl BufRead) -> Result<Vec<RoundTrip>, RoundTripError> {
    let mut rows = Vec::new();
    for (i, line) in r.lines().enumerate() {
        let line = line?;
        let n = i.saturating_add(1);
        if line.trim().is_empty() {
            continue;
        }
        if line.len() > MAX_LINE {
            return Err(RoundTripError::Line {
                line: n,
                reason: format!("longer than {MAX_LINE} bytes"),
            });
        }
        if rows.len() >= MAX_ROWS {
            return Err(RoundTripError::Line {
                line: n,
                reason: format!("more than {MAX_ROWS} rows"),
            });
        }
        let row: RoundTrip = serde_json::from_str(&line).map_err(|e| RoundTripError::Line {
            line: n,
            reason: e.to_string(),
        })?;
        if row.received_ms < row.sent_ms {
            return Err(RoundTripError::Line {
                line: n,
                reason: "received_ms before sent_ms".to_owned(),
            });
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(RoundTripError::Empty);
    }
    rows.sort_by_key(|r| r.sent_ms);
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Tap;

    fn req(method: &str, path: &str) -> http::Request<Vec<u8>> {
        http::Request::builder()
            .method(method)
            .uri(format!("https://openapi.digifinex.com{path}?x=1"))
            .body(Vec::new())
            .unwrap()
    }

    #[test]
    fn order_writes_are_logged_with_the_venues_time() {
        let log = RoundTripLog::new(Vec::new());
        let answer = http::Response::builder()
            .status(200)
            .body(br#"{"code":0,"data":{"order_id":"1"},"timestamp":1706763600021}"#.to_vec())
            .unwrap();
        let plain = http::Response::builder()
            .status(200)
            .body(br#"{"code":0,"order_id":"2"}"#.to_vec())
            .unwrap();
        let at = 1_706_763_600_000;
        log.exchanged(
            &req("POST", "/swap/v2/trade/order_place"),
            Ok(&answer),
            at,
            Duration::from_millis(45),
        );
        log.exchanged(
            &req("GET", "/v3/order_book"),
            Ok(&plain),
            at,
            Duration::ZERO,
        );
        log.exchanged(
            &req("POST", "/v3/spot/order/new"),
            Ok(&plain),
            at,
            Duration::from_millis(31),
        );
        log.exchanged(
            &req("POST", "/v3/spot/order/cancel"),
            Err("connection lost"),
            at,
            Duration::from_millis(9),
        );
        let text = String::from_utf8(log.into_inner()).unwrap();
        assert_eq!(
            text,
            "{\"sent_ms\":1706763600000,\"venue_ms\":1706763600021,\"received_ms\":1706763600045,\"method\":\"POST\",\"path\":\"/swap/v2/trade/order_place\",\"status\":200}\n\
             {\"sent_ms\":1706763600000,\"venue_ms\":null,\"received_ms\":1706763600031,\"method\":\"POST\",\"path\":\"/v3/spot/order/new\",\"status\":200}\n\
             {\"sent_ms\":1706763600000,\"venue_ms\":null,\"received_ms\":1706763600009,\"method\":\"POST\",\"path\":\"/v3/spot/order/cancel\",\"status\":null}\n"
        );
        let rows = read_rows(text.as_bytes()).unwrap();
        assert_eq!(rows[0].legs(), (21, 24));
        assert_eq!(rows[1].legs(), (15, 16));
        assert_eq!(rows[2].legs(), (4, 5));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = read_rows(&b"\n{\"sent_ms\":1}\n"[..]).unwrap_err();
        assert!(matches!(e, RoundTripError::Line { line: 2, .. }), "{e}");
        let e = read_rows(&b"{\"sent_ms\":5,\"venue_ms\":null,\"received_ms\":4,\"method\":\"POST\",\"path\":\"/o\",\"status\":200}"[..]).unwrap_err();
        assert!(e.to_string().contains("before sent_ms"), "{e}");
        assert!(matches!(read_rows(&b"\n"[..]), Err(RoundTripError::Empty)));
        let long = format!("{{\"path\":\"{}\"}}", "x".repeat(5000));
        assert!(matches!(
            read_rows(long.as_bytes()),
            Err(RoundTripError::Line { line: 1, .. })
        ));
        // A venue time outside the round trip: halves.
        let r = RoundTrip {
            sent_ms: 10,
            venue_ms: Some(100),
            received_ms: 20,
            method: "POST".into(),
            path: "/o".into(),
            status: Some(200),
        };
        assert_eq!(r.legs(), (5, 5));
    }
}
