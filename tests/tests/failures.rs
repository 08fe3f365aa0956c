//! Failure conformance: every way a request can fail on the wire, through both clients
//! (blocking `digifinex-ureq`, async `digifinex-hyper`), for a read (`GET /v3/order_book`,
//! retried) and for an order (`POST /v3/spot/order/new`, never retried).
//!
//! One table: each row is a failure mode (a scripted loopback server, or no server at all) and
//! what both clients must report for the read and for the order: the error's kind (and the
//! cause of an unknown outcome, and the transport kind by the phase it failed in), whether it
//! is retryable, how many attempts the client made, and how many requests (and connections)
//! reached the server. Both clients must give the same answer on every row.
//!
//! The phase rule (`TransportErrorKind` docs): a failure before any request byte could have
//! been written (DNS, refused, TLS rejected, TLS handshake stalled) is `Connect`: nothing was
//! sent, so even an order fails definitely. After (closed, reset, truncated, stalled, no
//! answer) it is `ConnectionLost` or `Timeout`, and an order has an unknown outcome. A redirect
//! is never followed: the read is `Error::Redirect`, the order an unknown outcome, and the
//! redirect target (a second server) sees nothing, so no signed header leaves for another
//! host.
//!
//! Determinism: no row depends on who wins a race. A server that closes "before reading"
//! first waits until the request's bytes have arrived (`peek`), so the client has certainly
//! written them (closing before they arrive would race the client's write: hyper might then
//! hand the request back unsent, a definite failure, or write it, an unknown outcome). Every
//! timeout row leaves only one limit able to run out within the test (the others are seconds
//! away), or, for the handshake that stalls past the read limit, two limits that give the same
//! kind whichever runs out first (both run while connecting); the stalled server holds its side
//! open until the client gives up. A refused connection uses a port whose listener was just
//! closed (another program taking it in between is the one thing not under the test's control).
//!
//! `cargo test -p digifinex-tests --test failures -- --nocapture` prints the observed table.

use std::cell::Cell;
use std::error::Error as StdError;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use digifinex_core::policy::RetryPolicy;
use digifinex_core::session::{Action, Drive, Session};
use digifinex_core::spot::{LimitOrder, Market, OrderBookRequest, PlaceOrderRequest};
use digifinex_core::{
    BoxError, Credentials, Decimal, Endpoint, Error, ErrorKind, TransportErrorKind,
};

const KEY: &str = "failure-key";
const SECRET: &str = "failure-secret";
const BOOK: &str = r#"{"bids":[[30000.5,"0.25"]],"asks":[[30001,1]],"date":1700000000,"code":0}"#;

// ---------------------------------------------------------------------------------------------
// The scripted server
// ---------------------------------------------------------------------------------------------

/// What the server does with each connection.
#[derive(Clone)]
enum Mode {
    /// Reads each request and answers `status` with these headers and body (keep-alive).
    /// `{target}` in a header value is replaced by the request's path and query.
    Answer {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: &'static str,
    },
    /// Waits until the request's first bytes arrive, then closes without reading them (the
    /// unread bytes make the close a reset).
    CloseBeforeReading,
    /// Reads the request, then closes without a byte of answer.
    CloseAfterReading,
    /// Reads the request, sends the head and half the body, then resets the connection.
    ResetMidAnswer,
    /// Reads the request, sends the head and half the body, then closes.
    TruncatedBody,
    /// Reads the request, sends the head and half the body, then sends nothing more until the
    /// client closes.
    StalledBody,
    /// Reads the request, then sends nothing until the client closes.
    NoAnswer,
    /// TLS with a certificate the client does not trust (signed by the test CA only).
    UntrustedTls,
    /// Accepts the TCP connection, then never answers the TLS handshake.
    StalledTls,
}

impl Mode {
    fn tls(&self) -> bool {
        matches!(self, Mode::UntrustedTls | Mode::StalledTls)
    }
}

/// A running server; stops accepting when dropped (held connections end when the client
/// closes them, or after 5 s).
struct Server {
    addr: SocketAddr,
    tls: bool,
    connections: Arc<AtomicUsize>,
    /// Requests that reached the server: their header names, lower case.
    requests: Arc<Mutex<Vec<Vec<String>>>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    fn start(mode: Mode) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = Server {
            addr,
            tls: mode.tls(),
            connections: Arc::default(),
            requests: Arc::default(),
            stop: Arc::default(),
        };
        let (connections, requests, stop) = (
            server.connections.clone(),
            server.requests.clone(),
            server.stop.clone(),
        );
        thread::spawn(move || {
            for conn in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                connections.fetch_add(1, Ordering::SeqCst);
                let (mode, requests) = (mode.clone(), requests.clone());
                thread::spawn(move || serve(conn, &mode, &requests));
            }
        });
        server
    }

    fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }
    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
    fn requests(&self) -> Vec<Vec<String>> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr); // wakes the accept loop
    }
}

fn serve(conn: TcpStream, mode: &Mode, requests: &Mutex<Vec<Vec<String>>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    match mode {
        Mode::StalledTls => hold(conn),
        Mode::UntrustedTls => {
            // The client refuses the certificate: the handshake fails, no request arrives.
            let session = rustls::ServerConnection::new(tls_config()).unwrap();
            let mut tls = rustls::StreamOwned::new(session, conn);
            if read_request(&mut BufReader::new(&mut tls)).is_some() {
                requests.lock().unwrap().push(Vec::new());
            }
        }
        Mode::CloseBeforeReading => {
            // `peek` returns once request bytes are in the socket: the client has written.
            if conn.peek(&mut [0; 1]).unwrap_or(0) > 0 {
                requests.lock().unwrap().push(Vec::new());
            }
            drop(conn);
        }
        _ => {
            let mut reader = BufReader::new(conn);
            while let Some((target, headers)) = read_request(&mut reader) {
                requests.lock().unwrap().push(headers);
                let conn = reader.get_mut();
                match mode {
                    Mode::Answer {
                        status,
                        headers,
                        body,
                    } => {
                        let mut head =
                            format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len());
                        for (k, v) in headers {
                            head.push_str(&format!("{k}: {}\r\n", v.replace("{target}", &target)));
                        }
                        head.push_str("\r\n");
                        if conn.write_all(head.as_bytes()).is_err()
                            || conn.write_all(body.as_bytes()).is_err()
                        {
                            return;
                        }
                        continue;
                    }
                    Mode::CloseAfterReading => {}
                    Mode::ResetMidAnswer => {
                        half_answer(conn);
                        // SO_LINGER 0: the close sends a reset instead of a FIN.
                        let _ = socket2::SockRef::from(&*conn).set_linger(Some(Duration::ZERO));
                    }
                    Mode::TruncatedBody => half_answer(conn),
                    Mode::StalledBody => {
                        half_answer(conn);
                        hold_reader(&mut reader);
                    }
                    Mode::NoAnswer => hold_reader(&mut reader),
                    _ => unreachable!(),
                }
                return;
            }
        }
    }
}

/// A head promising the whole book, and half of it.
fn half_answer(conn: &mut TcpStream) {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        BOOK.len()
    );
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(&BOOK.as_bytes()[..BOOK.len() / 2]);
    let _ = conn.flush();
}

/// Keeps the connection open until the client closes it (or 5 s pass).
fn hold(mut conn: TcpStream) {
    let mut buf = [0; 1024];
    while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
}

fn hold_reader(reader: &mut BufReader<TcpStream>) {
    let mut buf = [0; 1024];
    while matches!(reader.read(&mut buf), Ok(n) if n > 0) {}
}

/// One request: its target and header names (lower case); the body is read and dropped.
fn read_request<R: Read>(r: &mut BufReader<R>) -> Option<(String, Vec<String>)> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let target = line.split_whitespace().nth(1)?.to_owned();
    let mut names = Vec::new();
    let mut len = 0;
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        let k = k.trim().to_ascii_lowercase();
        if k == "content-length" {
            len = v.trim().parse().ok()?;
        }
        names.push(k);
    }
    r.read_exact(&mut vec![0; len]).ok()?;
    Some((target, names))
}

/// The test certificate of `127.0.0.1`, signed by the test CA (which no client here trusts).
fn tls_config() -> Arc<rustls::ServerConfig> {
    use rustls::pki_types::{pem::PemObject, CertificateDer, PrivateKeyDer};
    let chain = vec![CertificateDer::from_pem_slice(include_bytes!(
        "../../transport-ureq/tests/data/localhost.pem"
    ))
    .unwrap()];
    let key = PrivateKeyDer::from_pem_slice(include_bytes!(
        "../../transport-ureq/tests/data/localhost.key"
    ))
    .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .unwrap();
    Arc::new(config)
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

/// Where the client is pointed.
enum Place {
    /// A `.invalid` host (RFC 6761: never resolves).
    Unresolvable,
    /// A loopback port whose listener was just closed.
    Closed,
    /// A server in this mode.
    Server(Mode),
    /// A server answering this 3xx with a `Location` on a second server.
    Redirect(u16),
}

/// The client's limits for a row.
#[derive(Clone, Copy)]
struct Limits {
    connect: Duration,
    read: Duration,
    total: Duration,
}

const RELAXED: Limits = Limits {
    connect: Duration::from_secs(3),
    read: Duration::from_secs(3),
    total: Duration::from_secs(5),
};
/// Only the connect limit can run out (the TLS handshake stalls).
const SHORT_CONNECT: Limits = Limits {
    connect: Duration::from_millis(200),
    ..RELAXED
};
/// The read limit runs out first while the TLS handshake stalls (ureq counts it per read,
/// hyper from the start of the attempt); the connect limit is the backstop.
const SHORTER_READ_THAN_CONNECT: Limits = Limits {
    connect: Duration::from_secs(1),
    read: Duration::from_millis(250),
    total: Duration::from_secs(5),
};
/// Only the read limit can run out (connecting on loopback is immediate).
const SHORT_READ: Limits = Limits {
    read: Duration::from_millis(250),
    ..RELAXED
};

/// What one call must report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Outcome {
    /// `Error::kind()`.
    kind: ErrorKind,
    /// The kind of the cause of an unknown outcome.
    cause: Option<ErrorKind>,
    /// The transport kind (of the error, or of the cause of an unknown outcome).
    transport: Option<TransportErrorKind>,
    /// `Error::is_retryable()`.
    retryable: bool,
    /// Requests the client sent (1 = not retried).
    attempts: u32,
    /// Requests that reached the server.
    requests: usize,
}

/// A failure before any request byte was written: nothing reached the server, a read is
/// retried, an order fails definitely (not an unknown outcome) on its one attempt.
fn definite(attempts: u32) -> Outcome {
    Outcome {
        kind: ErrorKind::Network,
        cause: None,
        transport: Some(TransportErrorKind::Connect),
        retryable: true,
        attempts,
        requests: 0,
    }
}

/// A failure after the request was written: a read is retried (every attempt reached the
/// server).
fn lost_read(t: TransportErrorKind) -> Outcome {
    Outcome {
        kind: ErrorKind::Network,
        cause: None,
        transport: Some(t),
        retryable: true,
        attempts: 3,
        requests: 3,
    }
}

/// An order that failed once the request may have been applied: an unknown outcome, sent
/// once, never retried.
fn unknown(cause: ErrorKind, transport: Option<TransportErrorKind>) -> Outcome {
    Outcome {
        kind: ErrorKind::OutcomeUnknown,
        cause: Some(cause),
        transport,
        retryable: false,
        attempts: 1,
        requests: 1,
    }
}

/// A definite answer to a read, not retried.
fn answered(kind: ErrorKind, retryable: bool, attempts: u32) -> Outcome {
    Outcome {
        kind,
        cause: None,
        transport: None,
        retryable,
        attempts,
        requests: attempts as usize,
    }
}

struct Row {
    name: String,
    place: Place,
    limits: Limits,
    read: Outcome,
    order: Outcome,
    /// Each attempt had its own connection (the server closes every one), so the server's
    /// connection count equals the client's attempts.
    fresh_connections: bool,
}

fn table() -> Vec<Row> {
    use ErrorKind as K;
    use TransportErrorKind as T;
    let row = |name: &str, place, limits, read, order, fresh| Row {
        name: name.to_owned(),
        place,
        limits,
        read,
        order,
        fresh_connections: fresh,
    };
    let mut rows = vec![
        row(
            "dns failure",
            Place::Unresolvable,
            RELAXED,
            definite(3),
            definite(1),
            false,
        ),
        row(
            "connection refused",
            Place::Closed,
            RELAXED,
            definite(3),
            definite(1),
            false,
        ),
        row(
            "tls rejected",
            Place::Server(Mode::UntrustedTls),
            RELAXED,
            definite(3),
            definite(1),
            true,
        ),
        row(
            "tls handshake stalls (connect phase)",
            Place::Server(Mode::StalledTls),
            SHORT_CONNECT,
            definite(3),
            definite(1),
            true,
        ),
        row(
            "tls handshake stalls past the read limit (connect phase)",
            Place::Server(Mode::StalledTls),
            SHORTER_READ_THAN_CONNECT,
            definite(3),
            definite(1),
            true,
        ),
        row(
            "closed before reading",
            Place::Server(Mode::CloseBeforeReading),
            RELAXED,
            lost_read(T::ConnectionLost),
            unknown(K::Network, Some(T::ConnectionLost)),
            true,
        ),
        row(
            "closed after reading",
            Place::Server(Mode::CloseAfterReading),
            RELAXED,
            lost_read(T::ConnectionLost),
            unknown(K::Network, Some(T::ConnectionLost)),
            true,
        ),
        row(
            "reset mid-answer",
            Place::Server(Mode::ResetMidAnswer),
            RELAXED,
            lost_read(T::ConnectionLost),
            unknown(K::Network, Some(T::ConnectionLost)),
            true,
        ),
        row(
            "truncated body",
            Place::Server(Mode::TruncatedBody),
            RELAXED,
            lost_read(T::ConnectionLost),
            unknown(K::Network, Some(T::ConnectionLost)),
            true,
        ),
        row(
            "no answer (wait phase)",
            Place::Server(Mode::NoAnswer),
            SHORT_READ,
            lost_read(T::Timeout),
            unknown(K::Network, Some(T::Timeout)),
            true,
        ),
        row(
            "stalled body (read phase)",
            Place::Server(Mode::StalledBody),
            SHORT_READ,
            lost_read(T::Timeout),
            unknown(K::Network, Some(T::Timeout)),
            true,
        ),
    ];
    for status in [301, 302, 303, 307, 308] {
        rows.push(row(
            &format!("{status} redirect"),
            Place::Redirect(status),
            RELAXED,
            answered(K::Redirect, false, 1),
            unknown(K::Redirect, None),
            false,
        ));
    }
    rows.push(row(
        "503 html",
        Place::Server(Mode::Answer {
            status: 503,
            headers: vec![("content-type", "text/html".into())],
            body: "<html><body>503 Service Unavailable</body></html>",
        }),
        RELAXED,
        answered(K::Server, true, 3),
        unknown(K::Server, None),
        false,
    ));
    rows.push(row(
        "200 html",
        Place::Server(Mode::Answer {
            status: 200,
            headers: vec![("content-type", "text/html".into())],
            body: "<html><body>maintenance</body></html>",
        }),
        RELAXED,
        answered(K::Decode, false, 1),
        unknown(K::Decode, None),
        false,
    ));
    rows
}

// ---------------------------------------------------------------------------------------------
// The clients
// ---------------------------------------------------------------------------------------------

/// A [`Drive`] that counts the requests its call hands to the transport.
struct Counted<'c, D> {
    inner: D,
    sends: &'c Cell<u32>,
}

impl<D: Drive> Drive for Counted<'_, D> {
    type Output = D::Output;
    fn next(&mut self) -> Action<D::Output> {
        let action = self.inner.next();
        if matches!(action, Action::Send(_)) {
            self.sends.set(self.sends.get() + 1);
        }
        action
    }
    fn on_response(&mut self, response: &http::Response<&[u8]>) {
        self.inner.on_response(response)
    }
    fn on_owned_response(&mut self, response: http::Response<&[u8]>) {
        self.inner.on_owned_response(response)
    }
    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError) {
        self.inner.on_transport_error(kind, error)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    Ureq,
    Hyper,
}

/// Sends `endpoint` through one client at `base` (scheme and authority) and returns the error
/// and the number of attempts (a success is itself a failure of the test).
fn call<E>(which: Which, base: &str, limits: Limits, endpoint: &E) -> Result<(Error, u32), String>
where
    E: Endpoint + Sync,
    E::Output: Send + std::fmt::Debug,
{
    let retry = RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        max_retry_after: Duration::from_secs(1),
    };
    let sends = Cell::new(0);
    let result = match which {
        Which::Ureq => {
            let c = digifinex_ureq::Client::builder()
                .spot_base_url(format!("{base}/v3"))
                .swap_base_url(base)
                .allow_http(true)
                .credentials(Credentials::new(KEY, SECRET))
                .retry_policy(retry)
                .without_weight_budget()
                .connect_timeout(limits.connect)
                .read_timeout(limits.read)
                .timeout(limits.total)
                .build()
                .unwrap();
            let session: &Session = c.session();
            c.drive(Counted {
                inner: session.call(endpoint),
                sends: &sends,
            })
        }
        Which::Hyper => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let c = digifinex_hyper::Client::builder()
                    .spot_base_url(format!("{base}/v3"))
                    .swap_base_url(base)
                    .allow_http(true)
                    .credentials(Credentials::new(KEY, SECRET))
                    .retry_policy(retry)
                    .without_weight_budget()
                    .connect_timeout(limits.connect)
                    .read_timeout(limits.read)
                    .timeout(limits.total)
                    .build()
                    .unwrap();
                c.drive(Counted {
                    inner: c.session().call(endpoint),
                    sends: &sends,
                })
                .await
            })
        }
    };
    match result {
        Ok(r) => Err(format!("success reported: {:?}", r.value)),
        Err(e) => Ok((e, sends.get())),
    }
}

/// What the error says, in the table's terms.
fn observe(e: &Error, attempts: u32, requests: usize) -> Outcome {
    let inner = match e {
        Error::OutcomeUnknown { cause, .. } => cause.as_ref(),
        other => other,
    };
    Outcome {
        kind: e.kind(),
        cause: matches!(e, Error::OutcomeUnknown { .. }).then(|| inner.kind()),
        transport: match inner {
            Error::Transport { kind, .. } => Some(*kind),
            _ => None,
        },
        retryable: e.is_retryable(),
        attempts,
        requests,
    }
}

/// The cause of an unknown outcome is its `source()`, and the error of a transport failure
/// keeps the transport's own error in its `source()` chain.
fn check_source(which: Which, e: &Error) -> Result<(), String> {
    let inner = match e {
        Error::OutcomeUnknown { cause, .. } => {
            let source = StdError::source(e).and_then(|s| s.downcast_ref::<Error>());
            if !source.is_some_and(|s| std::ptr::eq(s, cause.as_ref())) {
                return Err("the cause is not the source".into());
            }
            cause.as_ref()
        }
        other => other,
    };
    if !matches!(inner, Error::Transport { .. }) {
        return Ok(());
    }
    let mut chain = Vec::new();
    let mut next = StdError::source(inner);
    while let Some(s) = next {
        chain.push(s);
        next = s.source();
    }
    let found = chain.iter().any(|s| match which {
        Which::Ureq => s.is::<digifinex_ureq::ureq::Error>(),
        Which::Hyper => {
            s.is::<digifinex_hyper::hyper_util::client::legacy::Error>()
                || s.is::<digifinex_hyper::hyper::Error>()
                || s.is::<std::io::Error>()
        }
    });
    if found {
        Ok(())
    } else {
        Err(format!("no transport error in the source chain of {e:?}"))
    }
}

/// The redirect was reported with its status and target, and nothing reached the target: no
/// request, so no ACCESS-KEY, ACCESS-SIGN or ACCESS-TIMESTAMP left for another host.
fn check_redirect(e: &Error, status: u16, to: &Server) -> Result<(), String> {
    let redirect = match e {
        Error::OutcomeUnknown { cause, .. } => cause.as_ref(),
        other => other,
    };
    match redirect {
        Error::Redirect {
            status: s,
            location: Some(l),
        } if *s == status && l.starts_with(&to.url()) => {}
        other => return Err(format!("not the redirect: {other:?}")),
    }
    if to
        .requests()
        .iter()
        .flatten()
        .any(|n| n.starts_with("access-"))
    {
        return Err("a signed header reached the second host".into());
    }
    if to.connections() != 0 {
        return Err("the redirect target was contacted".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------

fn order() -> PlaceOrderRequest {
    PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(
            digifinex_core::Amount::new(Decimal::new(1, 2)),
            digifinex_core::Price::new(Decimal::new(30000, 0)),
        ),
    )
}

fn fmt_outcome(o: &Outcome, connections: Option<usize>) -> String {
    // `Network/Connect`, `OutcomeUnknown(Network/Timeout)`, `OutcomeUnknown(Redirect)`.
    let mut inner = format!("{:?}", o.cause.unwrap_or(o.kind));
    if let Some(t) = o.transport {
        inner.push_str(&format!("/{t:?}"));
    }
    let kind = match o.cause {
        Some(_) => format!("{:?}({inner})", o.kind),
        None => inner,
    };
    let conns = connections.map_or("-".to_owned(), |c| c.to_string());
    format!(
        "{kind} | {} | {} | {} | {conns}",
        o.retryable, o.attempts, o.requests
    )
}

#[test]
fn every_failure_mode_is_classified_alike_by_both_clients() {
    let started = Instant::now();
    let mut report = vec![
        "| mode | client | call | kind | retryable | attempts | requests at server | connections |"
            .to_owned(),
        "|---|---|---|---|---|---|---|---|".to_owned(),
    ];
    let mut failures = Vec::new();
    for row in table() {
        let mut seen: Vec<(Which, &str, Outcome)> = Vec::new();
        for which in [Which::Ureq, Which::Hyper] {
            for (what, want) in [("read", row.read), ("order", row.order)] {
                // A fresh place per call, so counts are this call's alone.
                let closed;
                let mut target = None;
                let (base, server) = match &row.place {
                    Place::Unresolvable => {
                        ("http://digifinex-failure-test.invalid".to_owned(), None)
                    }
                    Place::Closed => {
                        closed = TcpListener::bind("127.0.0.1:0")
                            .unwrap()
                            .local_addr()
                            .unwrap();
                        (format!("http://{closed}"), None)
                    }
                    Place::Server(mode) => {
                        let s = Server::start(mode.clone());
                        (s.url(), Some(s))
                    }
                    Place::Redirect(status) => {
                        let to = Server::start(Mode::Answer {
                            status: 200,
                            headers: vec![("content-type", "application/json".into())],
                            body: BOOK,
                        });
                        let s = Server::start(Mode::Answer {
                            status: *status,
                            headers: vec![
                                ("location", format!("{}{{target}}", to.url())),
                                ("content-type", "text/html".into()),
                            ],
                            body: "<html>moved</html>",
                        });
                        target = Some(to);
                        (s.url(), Some(s))
                    }
                };
                let result = if what == "read" {
                    call(which, &base, row.limits, &OrderBookRequest::new("btc_usdt"))
                } else {
                    call(which, &base, row.limits, &order())
                };
                let (e, attempts) = match result {
                    Ok(r) => r,
                    Err(m) => {
                        failures.push(format!("{} / {which:?} / {what}: {m}", row.name));
                        continue;
                    }
                };
                // Server threads count a request as it arrives; the client has already seen
                // its failure, which followed the arrival (or the request never came).
                let requests = server.as_ref().map_or(0, |s| s.requests().len());
                let connections = server.as_ref().map(Server::connections);
                let got = observe(&e, attempts, requests);
                let line = format!(
                    "| {} | {which:?} | {what} | {} |",
                    row.name,
                    fmt_outcome(&got, connections)
                );
                report.push(line);
                let context = format!("{} / {which:?} / {what}: {e}", row.name);
                if got != want {
                    failures.push(format!("{context}\n    want {want:?}\n    got  {got:?}"));
                }
                let mut check = |r: Result<(), String>| {
                    if let Err(m) = r {
                        failures.push(format!("{context}: {m}"));
                    }
                };
                if e.to_string().contains('\n') {
                    check(Err("Display is not one line".into()));
                }
                check(check_source(which, &e));
                if row.fresh_connections && connections != Some(attempts as usize) {
                    check(Err(format!(
                        "{connections:?} connections for {attempts} attempts"
                    )));
                }
                if let Place::Redirect(status) = row.place {
                    check(check_redirect(&e, status, target.as_ref().unwrap()));
                    // The order that was redirected did carry them (to the first server).
                    if what == "order" {
                        let first = &server.as_ref().unwrap().requests()[0];
                        for h in ["access-key", "access-sign", "access-timestamp"] {
                            assert!(first.iter().any(|n| n == h), "{context}: {h} not sent");
                        }
                    }
                }
                seen.push((which, what, got));
            }
        }
        // Both clients agree on every call of the row.
        for (what, _) in [("read", ()), ("order", ())] {
            let of = |w: Which| seen.iter().find(|s| s.0 == w && s.1 == what).map(|s| s.2);
            if of(Which::Ureq) != of(Which::Hyper) {
                failures.push(format!(
                    "{} / {what}: the clients disagree: ureq {:?}, hyper {:?}",
                    row.name,
                    of(Which::Ureq),
                    of(Which::Hyper)
                ));
            }
        }
    }
    println!("{}", report.join("\n"));
    let took = started.elapsed();
    println!("took {took:?}");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(took < Duration::from_secs(30), "too slow: {took:?}");
}
