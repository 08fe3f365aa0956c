//! Recording HTTP exchanges with the venue, secret-free, and replaying them in tests.
//!
//! A [`Recorder`] appends every exchange a client makes to a line-oriented file (one JSON
//! object per line, format below); a [`Replayer`] answers requests from such a file, in order
//! ([`ReplayMode::Strict`]) or by request ([`ReplayMode::Matching`]). Both clients take either
//! (`ClientBuilder::recorder`, `ClientBuilder::responder`, also named `replayer`), and both
//! implement
//! [`Exchange`] for the closure driver.
//!
//! # Format (version 1)
//!
//! One JSON object per line:
//!
//! | field | meaning |
//! |---|---|
//! | `v` | format version, `1` |
//! | `at` | when the request was sent, Unix ms (local clock) |
//! | `method` | `GET`, `POST`, ... |
//! | `url` | the full URL with its query, credential-like parameters redacted |
//! | `request_body` | the request body as text (form or JSON), redacted |
//! | `status` | the answer's HTTP status (absent when the transport failed) |
//! | `headers` | the answer's headers that matter: `content-type`, `retry-after`, `location` and every rate-limit usage header (names with `weight` or `limit`) |
//! | `body` | the answer's body as text (lossy UTF-8) |
//! | `error` | the transport failure, when there was no answer |
//! | `elapsed_ms` | time from sending to the whole answer |
//!
//! DESIGN (secrets): request headers are never written (they carry the key and the
//! signature); parameters named like a credential (`key`, `apikey`, `api_key`, `access_key`,
//! `secret`, `sign`, `signature`, `password`, `passphrase`, `token`, any case) are written as
//! `REDACTED`; and every occurrence of the session's key and secret text anywhere in a line
//! (an answer that echoes the key, a parameter with an unexpected name) is replaced by
//! `REDACTED` before the line is written. A secret shorter than 4 bytes is not searched for
//! (it would redact ordinary text); real secrets are far longer.
//!
//! DESIGN (matching): a request matches a record when the method, the path and the parameters
//! (query, form body, or the JSON body's value) are equal, ignoring the parameters that change
//! on every run: `timestamp`, `nonce`, and the redacted credential-like ones.
//!
//! # Examples
//!
//! ```
//! use digifinex_core::exchange::send_with;
//! use digifinex_core::record::{Recorder, ReplayMode, Replayer};
//! use digifinex_core::session::Session;
//! use digifinex_core::spot::ServerTimeRequest;
//!
//! // Record one exchange (here the venue is a closure)...
//! let recorder = Recorder::new(Vec::new());
//! let session = Session::builder().build();
//! let venue = |_req: http::Request<Vec<u8>>| {
//!     http::Response::builder().status(200).body(br#"{"code":0,"server_time":1700000000}"#.to_vec())
//! };
//! send_with(&session, &ServerTimeRequest::new(), recorder.wrap(venue))?;
//! let file = recorder.into_inner();
//!
//! // ...and replay it without the venue.
//! let replayer = Replayer::from_reader(file.as_slice(), ReplayMode::Strict)?;
//! let time = send_with(&session, &ServerTimeRequest::new(), &replayer)?;
//! assert_eq!(time.value.server_time.as_secs(), 1_700_000_000);
//! replayer.finish()?;
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::clock::{Clock, SystemClock};
use crate::credentials::Credentials;
use crate::error::BoxError;
use crate::exchange::Exchange;

/// The version written in every line.
pub const FORMAT_VERSION: u32 = 1;

/// The text that replaces a credential.
pub const REDACTED: &str = "REDACTED";

/// One recorded exchange (a line of the file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Format version.
    pub v: u32,
    /// When the request was sent, Unix ms.
    pub at: i64,
    /// HTTP method.
    pub method: String,
    /// Full URL, redacted.
    pub url: String,
    /// Request body as text, redacted.
    #[serde(default)]
    pub request_body: String,
    /// The answer's status (none when the transport failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The answer's headers that matter.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The answer's body.
    #[serde(default)]
    pub body: String,
    /// The transport failure, when there was no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Time from sending to the whole answer, ms.
    #[serde(default)]
    pub elapsed_ms: u64,
}

/// A parameter name that carries a credential.
fn credential_like(name: &str) -> bool {
    const NAMES: [&str; 10] = [
        "key",
        "apikey",
        "api_key",
        "access_key",
        "secret",
        "sign",
        "signature",
        "password",
        "passphrase",
        "token",
    ];
    let n = name.to_ascii_lowercase().replace('-', "_");
    NAMES.contains(&n.as_str())
}

/// A parameter that changes on every run (not compared when replaying).
fn volatile(name: &str) -> bool {
    matches!(name.to_ascii_lowercase().as_str(), "timestamp" | "nonce") || credential_like(name)
}

fn redact_form(text: &str) -> String {
    if text.is_empty() || !text.contains('=') {
        return text.to_owned();
    }
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(text.as_bytes()) {
        if credential_like(&k) {
            out.append_pair(&k, REDACTED);
        } else {
            out.append_pair(&k, &v);
        }
    }
    out.finish()
}

fn redact_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if credential_like(k) {
                    *v = serde_json::Value::String(REDACTED.to_owned());
                } else {
                    redact_json(v);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_json),
        _ => {}
    }
}

fn redact_body(text: &str) -> String {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(mut v) => {
                redact_json(&mut v);
                serde_json::to_string(&v).unwrap_or_default()
            }
            Err(_) => text.to_owned(),
        }
    } else {
        redact_form(text)
    }
}

fn redact_url(url: &str) -> String {
    match url.split_once('?') {
        Some((base, query)) => format!("{base}?{}", redact_form(query)),
        None => url.to_owned(),
    }
}

fn kept_header(name: &str) -> bool {
    matches!(name, "content-type" | "retry-after" | "location")
        || name.contains("weight")
        || name.contains("limit")
}

/// What [`Recorder::open_append`] found at the end of the file and mended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Appending {
    /// Bytes cut from the end: a last line without its newline that is not a whole record
    /// (cut by a crash while it was written). 0 when nothing was cut.
    pub cut_bytes: u64,
    /// Whether a newline was added after a last line that is a whole record but lacked it.
    pub newline_added: bool,
}

impl Appending {
    /// Whether the file's end needed mending.
    pub fn mended(&self) -> bool {
        self.cut_bytes > 0 || self.newline_added
    }
}

/// Appends exchanges to a writer (a file), secret-free.
///
/// Thread-safe: the clients share one recorder between requests. A write failure is reported
/// by [`Recorder::take_error`] and never fails the exchange itself.
pub struct Recorder<W: Write + Send> {
    out: Mutex<W>,
    /// Texts replaced anywhere in a line: the key and the secret.
    scrub: Vec<String>,
    error: Mutex<Option<std::io::Error>>,
    /// The time of each exchange through [`Recorder::wrap`] (the clients give their own).
    clock: Arc<dyn Clock>,
}

impl<W: Write + Send> std::fmt::Debug for Recorder<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("scrubbed_texts", &self.scrub.len())
            .finish()
    }
}

impl<W: Write + Send> Recorder<W> {
    /// A recorder writing to `out`.
    pub fn new(out: W) -> Self {
        Recorder {
            out: Mutex::new(out),
            scrub: Vec::new(),
            error: Mutex::new(None),
            clock: Arc::new(SystemClock),
        }
    }

    /// Times the exchanges through [`Recorder::wrap`] by `clock` (the system clock by
    /// default): the session's clock, so that a recording of a test with a manual clock is
    /// reproducible.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Also replaces the text of `credentials`' key and secret wherever it appears.
    pub fn redacting(mut self, credentials: &Credentials) -> Self {
        for text in [
            credentials.key().to_owned(),
            String::from_utf8_lossy(credentials.secret()).into_owned(),
        ] {
            if text.len() >= 4 {
                self.scrub.push(text);
            }
        }
        self
    }

    /// Records one exchange: `request` as sent, then its answer or the transport failure.
    pub fn record(
        &self,
        request: &http::Request<Vec<u8>>,
        answer: Result<&http::Response<Vec<u8>>, &str>,
        at_ms: i64,
        elapsed: Duration,
    ) {
        let (status, headers, body, error) = match answer {
            Ok(r) => {
                let headers = r
                    .headers()
                    .iter()
                    .filter(|(n, _)| kept_header(n.as_str()))
                    .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
                    .collect();
                (
                    Some(r.status().as_u16()),
                    headers,
                    String::from_utf8_lossy(r.body()).into_owned(),
                    None,
                )
            }
            Err(e) => (None, BTreeMap::new(), String::new(), Some(e.to_owned())),
        };
        let record = Record {
            v: FORMAT_VERSION,
            at: at_ms,
            method: request.method().as_str().to_owned(),
            url: redact_url(&request.uri().to_string()),
            request_body: redact_body(&String::from_utf8_lossy(request.body())),
            status,
            headers,
            body,
            error,
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
        };
        let mut line = match serde_json::to_string(&record) {
            Ok(l) => l,
            Err(e) => return self.fail(std::io::Error::other(e)),
        };
        for s in &self.scrub {
            // Also the JSON-escaped form, in case the text holds quotes or backslashes.
            let escaped = serde_json::to_string(s).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            line = line
                .replace(escaped, REDACTED)
                .replace(s.as_str(), REDACTED);
        }
        line.push('\n');
        let mut out = match self.out.lock() {
            Ok(o) => o,
            Err(p) => p.into_inner(),
        };
        if let Err(e) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
            drop(out);
            self.fail(e);
        }
    }

    fn fail(&self, e: std::io::Error) {
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert(e);
        }
    }

    /// The first write failure, if any (and clears it).
    pub fn take_error(&self) -> Option<std::io::Error> {
        self.error.lock().ok().and_then(|mut e| e.take())
    }

    /// Wraps `exchange` so that every exchange through it is recorded.
    pub fn wrap<X: Exchange>(&self, exchange: X) -> Recording<'_, X, W> {
        Recording {
            recorder: self,
            inner: exchange,
        }
    }

    /// The writer back (for an in-memory recording).
    pub fn into_inner(self) -> W {
        match self.out.into_inner() {
            Ok(w) => w,
            Err(p) => p.into_inner(),
        }
    }
}

/// What a client calls after each exchange: implemented by [`Recorder`], so a client can hold
/// one without knowing its writer type.
pub trait Tap: Send + Sync + std::fmt::Debug {
    /// One exchange: the request, its answer or the transport failure, when it was sent (Unix
    /// ms) and how long it took.
    fn exchanged(
        &self,
        request: &http::Request<Vec<u8>>,
        answer: Result<&http::Response<Vec<u8>>, &str>,
        at_ms: i64,
        elapsed: Duration,
    );
}

impl<W: Write + Send> Tap for Recorder<W> {
    fn exchanged(
        &self,
        request: &http::Request<Vec<u8>>,
        answer: Result<&http::Response<Vec<u8>>, &str>,
        at_ms: i64,
        elapsed: Duration,
    ) {
        self.record(request, answer, at_ms, elapsed);
    }
}

/// An [`Exchange`] that records what goes through it (see [`Recorder::wrap`]).
#[derive(Debug)]
pub struct Recording<'a, X, W: Write + Send> {
    recorder: &'a Recorder<W>,
    inner: X,
}

impl<X: Exchange, W: Write + Send> Exchange for Recording<'_, X, W> {
    fn exchange(
        &mut self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, BoxError> {
        let clock = &self.recorder.clock;
        let at = clock.now().0;
        let copy = clone_request(&request);
        let answer = self.inner.exchange(request);
        let ms = clock.now().0.saturating_sub(at).max(0);
        let elapsed = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
        match &answer {
            Ok(r) => self.recorder.record(&copy, Ok(r), at, elapsed),
            Err(e) => self
                .recorder
                .record(&copy, Err(&e.to_string()), at, elapsed),
        }
        answer
    }

    fn wait(&mut self, duration: Duration) {
        self.inner.wait(duration);
    }
}

/// A copy of `request` (method, URI, body; headers dropped: they are never recorded).
#[doc(hidden)]
pub fn clone_request(request: &http::Request<Vec<u8>>) -> http::Request<Vec<u8>> {
    let mut copy = http::Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    copy
}

/// A transport failure: its kind and the error.
#[doc(hidden)]
pub type Failure = (crate::TransportErrorKind, BoxError);

/// The recording and replaying hooks a client holds (`ClientBuilder::recorder`,
/// `ClientBuilder::responder` in both clients): one implementation of the bookkeeping for both.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    /// Called after every exchange.
    pub tap: Option<std::sync::Arc<dyn Tap>>,
    /// Answers instead of the network.
    pub responder: Option<std::sync::Arc<dyn Responder>>,
}

impl Hooks {
    /// Whether neither hook is set (the client then skips all bookkeeping).
    pub fn is_empty(&self) -> bool {
        self.tap.is_none() && self.responder.is_none()
    }

    /// A copy of `request` for the tap, taken before the request is sent (`None` without a
    /// tap).
    pub fn before(&self, request: &http::Request<Vec<u8>>) -> Option<http::Request<Vec<u8>>> {
        self.tap.as_ref().map(|_| clone_request(request))
    }

    /// The responder's answer, when there is one: an [`Unanswered`] failure keeps its kind; a
    /// mismatch with the recording is
    /// [`TransportErrorKind::InvalidRequest`](crate::TransportErrorKind) (nothing was sent, so
    /// neither retried nor an unknown outcome); a recorded transport failure is
    /// [`TransportErrorKind::Other`](crate::TransportErrorKind), as it was live.
    pub fn replay(
        &self,
        request: &http::Request<Vec<u8>>,
    ) -> Option<Result<http::Response<Vec<u8>>, Failure>> {
        let responder = self.responder.as_ref()?;
        Some(responder.respond(request).map_err(|e| {
            let kind = if let Some(u) = e.downcast_ref::<Unanswered>() {
                u.kind
            } else if e.downcast_ref::<ReplayMismatch>().is_some() {
                crate::TransportErrorKind::InvalidRequest
            } else {
                crate::TransportErrorKind::Other
            };
            (kind, e)
        }))
    }

    /// Hands a wait to the responder ([`Responder::wait`]): `true` when it waited, `false`
    /// when the client is to sleep (no responder, or one that keeps the wall clock).
    pub fn wait(&self, duration: Duration) -> bool {
        self.responder.as_ref().is_some_and(|r| r.wait(duration))
    }

    /// How long an exchange took: on the client's clock (`at_ms` to `now_ms`) when the
    /// responder keeps its own time ([`Responder::keeps_time`]), else `wall`.
    pub fn elapsed(&self, at_ms: i64, now_ms: i64, wall: Duration) -> Duration {
        if self.responder.as_ref().is_some_and(|r| r.keeps_time()) {
            Duration::from_millis(u64::try_from(now_ms.saturating_sub(at_ms)).unwrap_or(0))
        } else {
            wall
        }
    }

    /// Hands one finished exchange to the tap (`copy` from [`Hooks::before`]).
    pub fn after<B: AsRef<[u8]>, K>(
        &self,
        copy: Option<http::Request<Vec<u8>>>,
        result: &Result<http::Response<B>, (K, BoxError)>,
        at_ms: i64,
        elapsed: Duration,
    ) {
        if let (Some(tap), Some(copy)) = (&self.tap, copy) {
            match result {
                Ok(r) => tap.exchanged(&copy, Ok(&copy_response(r)), at_ms, elapsed),
                Err((_, e)) => tap.exchanged(&copy, Err(&e.to_string()), at_ms, elapsed),
            }
        }
    }
}

/// A copy of `response` (status, headers, body).
fn copy_response<B: AsRef<[u8]>>(response: &http::Response<B>) -> http::Response<Vec<u8>> {
    let mut copy = http::Response::new(response.body().as_ref().to_vec());
    *copy.status_mut() = response.status();
    *copy.headers_mut() = response.headers().clone();
    copy
}

// ---------------------------------------------------------------------------------------------
// Replaying

/// How a [`Replayer`] picks the answer to a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayMode {
    /// The records in order: each request must equal the next record (method, path,
    /// parameters), else the replay fails naming the first difference.
    Strict,
    /// The first unused record with the same method, path and parameters, in any order.
    Matching,
}

/// A request that does not match the recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayMismatch {
    /// Index (0-based) of the record compared with, when there was one.
    pub record: Option<usize>,
    /// The first difference, in words.
    pub message: String,
}

impl std::fmt::Display for ReplayMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.record {
            Some(i) => write!(f, "replay mismatch at record #{i}: {}", self.message),
            None => write!(f, "replay mismatch: {}", self.message),
        }
    }
}

impl std::error::Error for ReplayMismatch {}

/// The comparable form of a request: method, path, and the parameters without the volatile
/// ones.
#[derive(Debug, Clone, PartialEq)]
struct Key {
    method: String,
    path: String,
    query: Vec<(String, String)>,
    body: Body,
}

#[derive(Debug, Clone, PartialEq)]
enum Body {
    Form(Vec<(String, String)>),
    Json(serde_json::Value),
}

fn form_pairs(text: &str) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = form_urlencoded::parse(text.as_bytes())
        .filter(|(k, _)| !volatile(k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    pairs.sort();
    pairs
}

fn strip_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.retain(|k, _| !volatile(k));
            map.values_mut().for_each(strip_json);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_json),
        _ => {}
    }
}

impl Key {
    fn new(method: &str, url: &str, body: &str) -> Key {
        let (before, query) = url.split_once('?').unwrap_or((url, ""));
        // The path without scheme and host: recordings replay against any base URL.
        let path = match before.split_once("://") {
            Some((_, rest)) => rest.find('/').map_or("/", |i| rest.get(i..).unwrap_or("/")),
            None => before,
        };
        let trimmed = body.trim_start();
        let body = if trimmed.starts_with('{') || trimmed.starts_with('[') {
            match serde_json::from_str::<serde_json::Value>(body) {
                Ok(mut v) => {
                    strip_json(&mut v);
                    Body::Json(v)
                }
                Err(_) => Body::Form(form_pairs(body)),
            }
        } else {
            Body::Form(form_pairs(body))
        };
        Key {
            method: method.to_owned(),
            path: path.to_owned(),
            query: form_pairs(query),
            body,
        }
    }

    /// The first difference from `other` (the recorded key), in words.
    fn difference(&self, recorded: &Key) -> Option<String> {
        if self.method != recorded.method || self.path != recorded.path {
            return Some(format!(
                "expected {} {}, got {} {}",
                recorded.method, recorded.path, self.method, self.path
            ));
        }
        if self.query != recorded.query {
            return Some(format!(
                "{} {}: query parameters differ: recorded {:?}, got {:?}",
                self.method, self.path, recorded.query, self.query
            ));
        }
        if self.body != recorded.body {
            return Some(format!(
                "{} {}: body differs: recorded {}, got {}",
                self.method,
                self.path,
                recorded.body.describe(),
                self.body.describe()
            ));
        }
        None
    }
}

impl Body {
    fn describe(&self) -> String {
        match self {
            Body::Form(pairs) => format!("{pairs:?}"),
            Body::Json(v) => v.to_string(),
        }
    }
}

/// Answers requests from a recording: a transport for tests ([`Exchange`] for the closure
/// driver; `ClientBuilder::responder`, or `replayer`, for both clients).
#[derive(Debug)]
pub struct Replayer {
    records: Vec<(Key, Record)>,
    mode: ReplayMode,
    state: Mutex<Vec<bool>>,
    cut: Option<usize>,
}

impl Replayer {
    /// Reads a recording (JSON lines; blank lines skipped). A line that is not a record fails
    /// naming its line number, except a last line without its newline that does not parse: a
    /// crash cut it while it was written, so the records before it are read and the cut is
    /// reported by [`Replayer::cut`].
    pub fn from_reader(mut reader: impl BufRead, mode: ReplayMode) -> Result<Replayer, BoxError> {
        let mut records = Vec::new();
        let mut cut = None;
        let mut buf = Vec::new();
        let mut n = 0usize;
        loop {
            buf.clear();
            if reader.read_until(b'\n', &mut buf)? == 0 {
                break;
            }
            n = n.saturating_add(1);
            let ended = buf.last() == Some(&b'\n');
            let line = String::from_utf8_lossy(&buf);
            if line.trim().is_empty() {
                continue;
            }
            let record: Record = match serde_json::from_str(line.trim_end()) {
                Ok(r) => r,
                Err(_) if !ended => {
                    cut = Some(n);
                    break;
                }
                Err(e) => return Err(format!("recording line {n}: {e}").into()),
            };
            if record.v != FORMAT_VERSION {
                return Err(format!(
                    "recording line {n}: format version {} (this library reads {FORMAT_VERSION})",
                    record.v
                )
                .into());
            }
            records.push((
                Key::new(&record.method, &record.url, &record.request_body),
                record,
            ));
        }
        let used = vec![false; records.len()];
        Ok(Replayer {
            records,
            mode,
            state: Mutex::new(used),
            cut,
        })
    }

    /// The number of the last line when a crash cut it (it was left out); `None` when every
    /// line was whole.
    pub fn cut(&self) -> Option<usize> {
        self.cut
    }

    /// The records.
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().map(|(_, r)| r)
    }

    /// The recorded answer to `request`, or the first mismatch.
    pub fn answer(
        &self,
        request: &http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, BoxError> {
        let key = Key::new(
            request.method().as_str(),
            &request.uri().to_string(),
            &String::from_utf8_lossy(request.body()),
        );
        let mut used = match self.state.lock() {
            Ok(u) => u,
            Err(p) => p.into_inner(),
        };
        let index = match self.mode {
            ReplayMode::Strict => {
                let Some(next) = used.iter().position(|u| !u) else {
                    return Err(Box::new(ReplayMismatch {
                        record: None,
                        message: format!(
                            "the recording is exhausted; got {} {}",
                            key.method, key.path
                        ),
                    }));
                };
                let recorded = self.records.get(next).map(|(k, _)| k);
                if let Some(diff) = recorded.and_then(|k| key.difference(k)) {
                    return Err(Box::new(ReplayMismatch {
                        record: Some(next),
                        message: diff,
                    }));
                }
                next
            }
            ReplayMode::Matching => {
                let found = self
                    .records
                    .iter()
                    .enumerate()
                    .position(|(i, (k, _))| !used.get(i).copied().unwrap_or(true) && *k == key);
                match found {
                    Some(i) => i,
                    None => {
                        let near = self
                            .records
                            .iter()
                            .position(|(k, _)| k.method == key.method && k.path == key.path);
                        let message = match near
                            .and_then(|i| self.records.get(i).and_then(|(k, _)| key.difference(k)))
                        {
                            Some(diff) => format!("no unused record matches; nearest: {diff}"),
                            None => format!(
                                "no unused record for {} {} with these parameters",
                                key.method, key.path
                            ),
                        };
                        return Err(Box::new(ReplayMismatch {
                            record: near,
                            message,
                        }));
                    }
                }
            }
        };
        if let Some(u) = used.get_mut(index) {
            *u = true;
        }
        let record = self
            .records
            .get(index)
            .map(|(_, r)| r)
            .ok_or("record index out of range")?;
        respond(record)
    }

    /// Ok when every record was used; else names the first unused one (a strict replay that
    /// ended early).
    pub fn finish(&self) -> Result<(), ReplayMismatch> {
        let used = match self.state.lock() {
            Ok(u) => u,
            Err(p) => p.into_inner(),
        };
        match used.iter().position(|u| !u) {
            None => Ok(()),
            Some(i) => Err(ReplayMismatch {
                record: Some(i),
                message: self.records.get(i).map_or_else(String::new, |(k, _)| {
                    format!("{} {} was recorded but never requested", k.method, k.path)
                }),
            }),
        }
    }
}

/// The answer of a record: its status, headers and body, or its transport failure.
fn respond(record: &Record) -> Result<http::Response<Vec<u8>>, BoxError> {
    let Some(status) = record.status else {
        return Err(record
            .error
            .clone()
            .unwrap_or_else(|| "recorded transport failure".to_owned())
            .into());
    };
    let mut b = http::Response::builder().status(status);
    for (k, v) in &record.headers {
        b = b.header(k.as_str(), v.as_str());
    }
    Ok(b.body(record.body.clone().into_bytes())?)
}

/// What a client asks instead of the network (`ClientBuilder::responder` in both clients):
/// implemented by [`Replayer`] (a recording) and by an exchange in the same process (the
/// `digifinex-backtest` crate's `InProcess`).
///
/// The client does everything else as it does over the network: budgets, signing, retries of
/// reads, clock syncs, decoding, the recorder.
pub trait Responder: Send + Sync + std::fmt::Debug {
    /// The answer to `request`, or a transport failure: an [`Unanswered`] names its kind (the
    /// phase it stands for); a [`ReplayMismatch`] is
    /// [`TransportErrorKind::InvalidRequest`](crate::TransportErrorKind); any other error is
    /// [`TransportErrorKind::Other`](crate::TransportErrorKind).
    fn respond(
        &self,
        request: &http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, BoxError>;

    /// Waits `duration` in the responder's own time (a retry's backoff, a weight budget's
    /// wait, a `retry-after`) and returns `true`; an exchange in virtual time moves its clock
    /// instead of sleeping. The default returns `false`: the client then sleeps on the wall
    /// clock, as it does without a responder.
    fn wait(&self, duration: Duration) -> bool {
        let _ = duration;
        false
    }

    /// Whether the responder keeps a time of its own that the client's clock reads (an
    /// exchange in virtual time): the client then times each exchange on its clock (what a
    /// [`Tap`] is told), not on the wall clock. `false` by default.
    fn keeps_time(&self) -> bool {
        false
    }
}

/// A request a [`Responder`] left unanswered, with the kind of transport failure it stands
/// for: [`TransportErrorKind::Connect`](crate::TransportErrorKind) when nothing reached the
/// venue, [`TransportErrorKind::ConnectionLost`](crate::TransportErrorKind) or
/// [`TransportErrorKind::Timeout`](crate::TransportErrorKind) when it may have (a write then
/// ends as an unknown outcome), exactly as the network's failures are classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unanswered {
    /// The kind of failure.
    pub kind: crate::TransportErrorKind,
    /// What happened, in words.
    pub message: String,
}

impl Unanswered {
    /// A failure of `kind`.
    pub fn new(kind: crate::TransportErrorKind, message: impl Into<String>) -> Self {
        Unanswered {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Unanswered {}

impl Responder for Replayer {
    fn respond(
        &self,
        request: &http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, BoxError> {
        self.answer(request)
    }
}

impl Exchange for &Replayer {
    fn exchange(
        &mut self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, BoxError> {
        self.answer(&request)
    }

    fn wait(&mut self, _duration: Duration) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(method: &str, url: &str, body: &str) -> http::Request<Vec<u8>> {
        http::Request::builder()
            .method(method)
            .uri(url)
            .header("access-key", "KEY-abcdef")
            .header("access-sign", "deadbeef")
            .body(body.as_bytes().to_vec())
            .expect("request")
    }

    fn ok(body: &str) -> http::Response<Vec<u8>> {
        http::Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .header("set-cookie", "session=1")
            .header("ip-weight-minute-use", "5")
            .body(body.as_bytes().to_vec())
            .expect("response")
    }

    #[test]
    fn a_wrapped_exchange_is_timed_by_the_recorders_clock() {
        let clock = Arc::new(crate::clock::ManualClock::new(crate::TimestampMillis(
            1_700_000_000_000,
        )));
        let rec = Recorder::new(Vec::new()).clock(clock.clone());
        let venue = |_: http::Request<Vec<u8>>| {
            clock.advance(42);
            Ok::<_, BoxError>(ok(r#"{"code":0}"#))
        };
        rec.wrap(venue)
            .exchange(req("GET", "https://h/v3/ping", ""))
            .expect("answer");
        let text = String::from_utf8(rec.into_inner()).expect("utf-8");
        let line: Record = serde_json::from_str(text.trim_end()).expect("record");
        assert_eq!(line.at, 1_700_000_000_000);
        assert_eq!(line.elapsed_ms, 42);
    }

    #[test]
    fn records_without_secrets_and_replays_in_both_modes() {
        let creds = Credentials::new("KEY-abcdef", "SECRET-123456");
        let rec = Recorder::new(Vec::new()).redacting(&creds);
        rec.record(
            &req(
                "GET",
                "https://h/v3/order/current?symbol=btc_usdt&sign=x&timestamp=1",
                "",
            ),
            Ok(&ok(r#"{"code":0,"echo":"KEY-abcdef","data":[]}"#)),
            5,
            Duration::from_millis(7),
        );
        rec.record(
            &req(
                "POST",
                "https://h/swap/v2/trade/order_place",
                r#"{"instrument_id":"BTCUSDTPERP","size":1,"secret":"SECRET-123456"}"#,
            ),
            Err("connection reset"),
            6,
            Duration::from_millis(1),
        );
        let text = String::from_utf8(rec.into_inner()).expect("utf-8");
        assert!(
            !text.contains("KEY-abcdef") && !text.contains("SECRET-123456"),
            "{text}"
        );
        assert!(
            !text.contains("deadbeef") && !text.contains("set-cookie"),
            "{text}"
        );
        let lines: Vec<Record> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("record"))
            .collect();
        assert_eq!(
            lines[0].url,
            "https://h/v3/order/current?symbol=btc_usdt&sign=REDACTED&timestamp=1"
        );
        assert_eq!(lines[0].body, r#"{"code":0,"echo":"REDACTED","data":[]}"#);
        assert_eq!(lines[0].status, Some(200));
        assert_eq!(lines[0].elapsed_ms, 7);
        assert_eq!(
            lines[0].headers.keys().collect::<Vec<_>>(),
            ["content-type", "ip-weight-minute-use"]
        );
        assert_eq!(
            lines[1].request_body,
            r#"{"instrument_id":"BTCUSDTPERP","secret":"REDACTED","size":1}"#
        );
        assert_eq!(lines[1].error.as_deref(), Some("connection reset"));

        // Strict: in order; another host, another timestamp and signature still match.
        let strict = Replayer::from_reader(text.as_bytes(), ReplayMode::Strict).expect("read");
        let a = strict
            .answer(&req(
                "GET",
                "http://127.0.0.1:9/v3/order/current?timestamp=2&symbol=btc_usdt&sign=y",
                "",
            ))
            .expect("answer");
        assert_eq!(a.status(), 200);
        assert_eq!(a.headers()["ip-weight-minute-use"], "5");
        let e = strict
            .answer(&req(
                "POST",
                "https://h/swap/v2/trade/order_place",
                r#"{"instrument_id":"BTCUSDTPERP","size":2}"#,
            ))
            .expect_err("size differs");
        assert_eq!(
            e.to_string(),
            r#"replay mismatch at record #1: POST /swap/v2/trade/order_place: body differs: recorded {"instrument_id":"BTCUSDTPERP","size":1}, got {"instrument_id":"BTCUSDTPERP","size":2}"#
        );
        let e = strict
            .answer(&req(
                "POST",
                "https://h/swap/v2/trade/order_place",
                r#"{"size":1,"instrument_id":"BTCUSDTPERP"}"#,
            ))
            .expect_err("recorded failure");
        assert_eq!(e.to_string(), "connection reset");
        assert_eq!(strict.finish(), Ok(()));
        let e = strict
            .answer(&req("GET", "https://h/v3/ticker", ""))
            .expect_err("exhausted");
        assert_eq!(
            e.to_string(),
            "replay mismatch: the recording is exhausted; got GET /v3/ticker"
        );

        // Matching: any order; a wrong first request names the nearest record.
        let m = Replayer::from_reader(text.as_bytes(), ReplayMode::Matching).expect("read");
        let e = m
            .answer(&req(
                "GET",
                "https://h/v3/order/current?symbol=eth_usdt",
                "",
            ))
            .expect_err("no match");
        assert!(e.to_string().contains("query parameters differ"), "{e}");
        assert!(m
            .answer(&req(
                "POST",
                "https://h/swap/v2/trade/order_place",
                r#"{"instrument_id":"BTCUSDTPERP","size":1}"#
            ))
            .is_err());
        assert!(m
            .answer(&req(
                "GET",
                "https://h/v3/order/current?symbol=btc_usdt",
                ""
            ))
            .is_ok());
        assert_eq!(m.finish(), Ok(()));
        let partial = Replayer::from_reader(text.as_bytes(), ReplayMode::Matching).expect("read");
        assert_eq!(
            partial.finish().map_err(|e| e.to_string()),
            Err("replay mismatch at record #0: GET /v3/order/current was recorded but never requested".to_owned())
        );
    }

    #[test]
    fn unreadable_recordings_name_the_line() {
        let e = Replayer::from_reader("\n{\"v\":1}\n".as_bytes(), ReplayMode::Strict)
            .expect_err("missing fields");
        assert!(e.to_string().starts_with("recording line 2:"), "{e}");
        let e = Replayer::from_reader(
            r#"{"v":9,"at":0,"method":"GET","url":"/"}"#.as_bytes(),
            ReplayMode::Strict,
        )
        .expect_err("version");
        assert!(e.to_string().contains("format version 9"), "{e}");
    }
}
