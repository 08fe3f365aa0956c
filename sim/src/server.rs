//! The HTTP server: accept loop, per-connection hyper tasks, fault injection and routing.
//!
//! A dropped connection is produced by returning an error from the hyper service: hyper's HTTP/1
//! dispatcher then ends the connection without writing a response. A truncated body is a response
//! whose `content-length` promises the whole body while the body stream yields half of it and then
//! fails, which makes hyper abort the connection.
//!
//! Connection hardening (all in [`SimConfig`]): hyper's header-read timeout
//! ([`SimConfig::header_read_timeout`], which needs the tokio timer set on the connection builder)
//! closes a connection that sends nothing, or only part of a request head, or idles between
//! keep-alive requests; an idle timeout ([`SimConfig::idle_timeout`]) closes a connection that
//! moves no byte while no request is being handled (a stalled body, a client that stops reading);
//! at most [`SimConfig::max_connections`] connections are served at once.
//!
//! DESIGN (connection cap): at the cap the accept loop stops accepting until a connection ends,
//! so a further client waits in the kernel's listen backlog instead of being refused; the
//! timeouts bound that wait, so half-open connections cannot starve it for long.
//!
//! DESIGN (bind address): [`Sim::bind`] refuses an address that is not loopback unless
//! [`SimConfig::allow_public_bind`] is set ([`check_bind_addr`]): the control API is
//! unauthenticated and hands out API secrets.
//!
//! Request bodies: a body over [`MAX_BODY`] is answered 413 (spot code 10004, swap 400002); a
//! body that cannot be read (malformed chunked encoding, a client closing mid-body) is answered
//! 400 with the same codes.

use crate::clock::SimClock;
use crate::config::SimConfig;
use crate::control::Control;
use crate::exchange::Exchange;
use crate::faults::FaultKind;
use crate::json::J;
use crate::state::State;
use crate::wire::{error_body, SimRequest, SimResponse};
use crate::ws::{Hub, SharedHub, WsFamily};
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;

/// Largest request body accepted (larger bodies are answered 413 with 10004 / 400002).
pub const MAX_BODY: usize = 1 << 20;

/// Whether the simulator may listen on `addr`: loopback addresses (`127.0.0.0/8`, `::1`, and
/// `::ffff:127.x.x.x`) always; any other address only when `public` is set, because the
/// unauthenticated control API under `/__sim` hands out API secrets to whoever reaches it.
pub fn check_bind_addr(addr: SocketAddr, public: bool) -> Result<(), String> {
    let ip = match addr.ip() {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    if public || ip.is_loopback() {
        Ok(())
    } else {
        Err(format!(
            "refusing to listen on {addr}: it is not a loopback address, and the simulator's \
             control API (/__sim) is unauthenticated and hands out API secrets to anyone who \
             can reach it; pass --public (SimConfig::allow_public_bind) to listen there anyway"
        ))
    }
}

/// Routes one request (no faults applied).
pub fn route(shared: &Arc<Exchange>, hub: &SharedHub, req: &SimRequest) -> SimResponse {
    let path = req.path.as_str();
    if path == "/__sim" || path.starts_with("/__sim/") {
        if !loopback_host(req, shared.addr) {
            return SimResponse::json(
                403,
                &J::obj().with(
                    "error",
                    "the control API answers only requests whose Host is localhost or an IP \
                     address (DNS rebinding protection)",
                ),
            );
        }
        let control = Control::new(shared.clone(), hub.clone());
        return crate::control::http::handle(&control, req);
    }
    if WsFamily::of_path(path).is_some() {
        return SimResponse::json(
            400,
            &J::obj().with("error", "a websocket: send an HTTP/1.1 upgrade request"),
        );
    }
    if path == "/v3" || path.starts_with("/v3/") {
        return crate::spot::handle(shared, req);
    }
    if path == "/swap" || path.starts_with("/swap/") {
        return crate::swap::handle(shared, req);
    }
    SimResponse::json(404, &error_body(10009, "endpoint unknown"))
}

/// Whether the request's `Host` names the loopback (`localhost`, a loopback address) or an IP
/// address the server listens on: a web page that reaches the simulator through DNS rebinding
/// sends its own host name and is refused.
pub fn loopback_host(req: &SimRequest, bound: SocketAddr) -> bool {
    let Some(host) = req.header("host") else {
        return false;
    };
    let host = host.trim();
    // Strip the port: `[v6]:port`, `v4:port`, `name:port`.
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    if name.eq_ignore_ascii_case("localhost") || name.eq_ignore_ascii_case("localhost.") {
        return true;
    }
    match name.parse::<IpAddr>() {
        Ok(ip) => {
            let ip = match ip {
                IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
                v4 => v4,
            };
            ip.is_loopback() || ip == bound.ip()
        }
        Err(_) => false,
    }
}

/// The simulator before it serves: bound to its address, state built.
#[derive(Debug)]
pub struct Sim {
    shared: Arc<Exchange>,
    hub: SharedHub,
    listener: TcpListener,
}

/// Error starting the simulator.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// Binding the address or building the runtime failed.
    #[error("simulator I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The server thread stopped before reporting its address.
    #[error("simulator thread failed to start")]
    Thread,
}

impl Sim {
    /// Binds `config.addr` and builds the initial state (needs a tokio runtime with I/O).
    /// A non-loopback address is refused (`InvalidInput`) unless
    /// [`SimConfig::allow_public_bind`] is set; see [`check_bind_addr`].
    pub async fn bind(config: SimConfig) -> std::io::Result<Sim> {
        check_bind_addr(config.addr, config.allow_public_bind)
            .map_err(|m| std::io::Error::new(std::io::ErrorKind::InvalidInput, m))?;
        let (config, replay) = crate::market::prepare(config)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        let listener = TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let replay_start = replay.as_ref().and_then(|r| r.start_ms);
        let clock = match (&config.market, config.start_time_ms, replay_start) {
            // A replay runs from the recording's start at its speed unless a start is given.
            (Some(m), None, Some(start)) => SimClock::running_from(start, m.speed),
            (Some(m), _, _) => {
                let c = SimClock::new(config.start_time_ms);
                c.set_speed(m.speed);
                c
            }
            (None, _, _) => {
                let c = SimClock::new(config.start_time_ms);
                c.set_speed(config.clock_speed);
                c
            }
        };
        let mut state = State::new(&config, clock.now_ms());
        if let Some(r) = replay {
            crate::market::attach(&mut state, r);
        }
        crate::market::open(&mut state, config.flow_warmup_ms, clock.now_ms());
        let hub = Hub::new(config.ws.clone());
        let shared = Arc::new(Exchange::new(config, clock, state, addr));
        shared.observe(crate::ws::observer(hub.clone()));
        Ok(Sim {
            shared,
            hub,
            listener,
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.shared.addr
    }

    /// The control handle.
    pub fn control(&self) -> Control {
        Control::new(self.shared.clone(), self.hub.clone())
    }

    /// Serves until `shutdown` completes. Connections still open then are closed.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
        let Sim {
            shared,
            hub,
            listener,
        } = self;
        let ticker = tokio::spawn(crate::ws::tick_loop(shared.clone(), hub.clone()));
        let mut tasks = tokio::task::JoinSet::new();
        let slots = Arc::new(tokio::sync::Semaphore::new(
            shared.config.max_connections.max(1),
        ));
        tokio::pin!(shutdown);
        loop {
            // At the cap, wait for a connection to end before accepting another.
            let permit = tokio::select! {
                _ = &mut shutdown => break,
                p = slots.clone().acquire_owned() => match p {
                    Ok(p) => p,
                    Err(_) => break,
                },
            };
            tokio::select! {
                _ = &mut shutdown => break,
                accepted = listener.accept() => {
                    let (stream, peer) = match accepted {
                        Ok(x) => x,
                        Err(_) => {
                            // Accept errors (e.g. too many open files) are transient.
                            tokio::time::sleep(Duration::from_millis(5)).await;
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    let (shared, hub) = (shared.clone(), hub.clone());
                    tasks.spawn(async move {
                        serve_connection(shared, hub, stream, peer.ip()).await;
                        drop(permit);
                    });
                    while tasks.try_join_next().is_some() {}
                }
            }
        }
        tasks.abort_all();
        ticker.abort();
        crate::ws::lock(&hub).disconnect_all();
        Ok(())
    }

    /// Binds and serves on a background thread with its own tokio runtime; the returned handle
    /// stops the server when dropped.
    pub fn start(config: SimConfig) -> Result<SimHandle, StartError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("digifinex-sim".to_owned())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                rt.block_on(async move {
                    match Sim::bind(config).await {
                        Ok(sim) => {
                            let _ = tx.send(Ok((sim.shared.clone(), sim.hub.clone())));
                            let _ = sim
                                .serve(async {
                                    let _ = stop_rx.await;
                                })
                                .await;
                        }
                        Err(e) => {
                            let _ = tx.send(Err(e));
                        }
                    }
                });
            })?;
        let (shared, hub) = rx.recv().map_err(|_| StartError::Thread)??;
        Ok(SimHandle {
            shared,
            hub,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }
}

/// A running simulator; dropping it stops the server and joins its thread.
#[derive(Debug)]
pub struct SimHandle {
    shared: Arc<Exchange>,
    hub: SharedHub,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SimHandle {
    /// Listening address.
    pub fn addr(&self) -> SocketAddr {
        self.shared.addr
    }

    /// Spot/margin base URL, `http://127.0.0.1:PORT/v3`.
    pub fn spot_base_url(&self) -> String {
        format!("http://{}/v3", self.shared.addr)
    }

    /// Swap host URL, `http://127.0.0.1:PORT` (`/swap/v2/...` paths are appended).
    pub fn swap_base_url(&self) -> String {
        format!("http://{}", self.shared.addr)
    }

    /// Spot websocket URL, `ws://127.0.0.1:PORT/ws/v1/`.
    pub fn spot_ws_url(&self) -> String {
        format!("ws://{}/ws/v1/", self.shared.addr)
    }

    /// Swap websocket URL, `ws://127.0.0.1:PORT/swap_ws/v2/`.
    pub fn swap_ws_url(&self) -> String {
        format!("ws://{}/swap_ws/v2/", self.shared.addr)
    }

    /// Control API base URL, `http://127.0.0.1:PORT/__sim`.
    pub fn control_url(&self) -> String {
        format!("http://{}/__sim", self.shared.addr)
    }

    /// The control handle.
    pub fn control(&self) -> Control {
        Control::new(self.shared.clone(), self.hub.clone())
    }

    /// Blocks until the server thread ends (it runs until the handle is dropped or shut down, so
    /// this serves forever; for `digifinex sim`).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Stops the server and waits for its thread.
    pub fn shutdown(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// The error that makes hyper close a connection without answering.
#[derive(Debug)]
struct DropConnection;

impl std::fmt::Display for DropConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped by fault injection")
    }
}

impl std::error::Error for DropConnection {}

/// Activity of one connection, for the idle timeout.
#[derive(Debug)]
struct Activity {
    start: Instant,
    /// Milliseconds after `start` of the last byte read or written.
    last_ms: AtomicU64,
    /// Requests being handled once their body is read (their time, fault delays included, is
    /// not idle time).
    busy: AtomicUsize,
}

impl Activity {
    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    /// Waits until the connection has been idle for `idle` (no byte moved, no request handled).
    async fn idle_for(&self, idle: Duration) {
        loop {
            let last = self.start + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let deadline = last + idle;
            if Instant::now() >= deadline {
                if self.busy.load(Ordering::Relaxed) == 0 {
                    return;
                }
                self.touch();
                continue;
            }
            tokio::time::sleep_until(deadline.into()).await;
        }
    }
}

/// Marks a request as being handled while alive.
struct Busy(Arc<Activity>);

impl Busy {
    fn new(a: &Arc<Activity>) -> Busy {
        a.busy.fetch_add(1, Ordering::Relaxed);
        Busy(a.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The TCP stream, recording when bytes move.
struct TrackedIo<T> {
    inner: T,
    activity: Arc<Activity>,
}

impl<T: AsyncRead + Unpin> AsyncRead for TrackedIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        r
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for TrackedIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

async fn serve_connection(
    shared: Arc<Exchange>,
    hub: SharedHub,
    stream: tokio::net::TcpStream,
    peer: IpAddr,
) {
    let activity = Arc::new(Activity {
        start: Instant::now(),
        last_ms: AtomicU64::new(0),
        busy: AtomicUsize::new(0),
    });
    let header_timeout = shared.config.header_read_timeout;
    let idle = shared.config.idle_timeout;
    let io = TokioIo::new(TrackedIo {
        inner: stream,
        activity: activity.clone(),
    });
    let act = activity.clone();
    let svc = service_fn(move |req| {
        let (shared, hub) = (shared.clone(), hub.clone());
        let act = act.clone();
        async move { handle(shared, hub, peer, req, act).await }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    let conn = builder.serve_connection(io, svc).with_upgrades();
    match idle {
        Some(idle) => {
            tokio::select! {
                _ = conn => {}
                // Dropping the connection closes the socket.
                _ = activity.idle_for(idle) => {}
            }
        }
        None => {
            let _ = conn.await;
        }
    }
}

async fn handle(
    shared: Arc<Exchange>,
    hub: SharedHub,
    peer: IpAddr,
    req: hyper::Request<Incoming>,
    activity: Arc<Activity>,
) -> Result<hyper::Response<SimBody>, DropConnection> {
    if let Some(family) = WsFamily::of_path(req.uri().path()) {
        if is_upgrade(req.headers()) {
            return ws_upgrade(shared, hub, peer, req, family).await;
        }
    }
    let (parts, body) = req.into_parts();
    // A declared length over the limit is refused before any of the body is read.
    let declared_too_large = body.size_hint().lower() > MAX_BODY as u64;
    // `Err(true)`: too large; `Err(false)`: unreadable.
    let collected = if declared_too_large {
        Err(true)
    } else {
        match http_body_util::Limited::new(body, MAX_BODY).collect().await {
            Ok(b) => Ok(b.to_bytes()),
            Err(e) => Err(e.is::<http_body_util::LengthLimitError>()),
        }
    };
    let body = match collected {
        Ok(b) => b,
        Err(too_large) => {
            let swap = parts.uri.path().starts_with("/swap/");
            let code = if swap { 400002 } else { 10004 };
            let r = if too_large {
                SimResponse::json(413, &error_body(code, "request body too large"))
            } else {
                // Malformed chunked encoding, or the client closed before the whole body.
                SimResponse::json(400, &error_body(code, "request body unreadable"))
            };
            return Ok(to_hyper(r, false));
        }
    };
    // From here on the simulator, not the client, holds the connection up (fault delays
    // included): not idle time. Reading the body above is (a stalled body times out).
    let _busy = Busy::new(&activity);
    let sreq = SimRequest {
        method: parts.method,
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or("").to_owned(),
        headers: parts.headers,
        body,
        peer,
    };
    let control = sreq.path == "/__sim" || sreq.path.starts_with("/__sim/");
    let swap = sreq.path.starts_with("/swap/");
    let plan = if control {
        Default::default()
    } else {
        shared.faults().plan(sreq.method.as_str(), &sreq.path)
    };
    if plan.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(plan.delay_ms)).await;
    }
    // Faults that answer without applying the request.
    match &plan.fault {
        Some(FaultKind::DropBeforeApply) => return Err(DropConnection),
        Some(FaultKind::TooManyRequests { retry_after_s }) => {
            let code = if swap { 403001 } else { 10005 };
            let r = SimResponse::json(429, &error_body(code, "request frequency limit exceeded"))
                .with_header("retry-after", retry_after_s.to_string());
            return Ok(to_hyper(r, false));
        }
        Some(FaultKind::ServerError { status }) => {
            let status = if (500..600).contains(status) {
                *status
            } else {
                500
            };
            let code = if swap { 500001 } else { 50000 };
            let r = SimResponse::json(status, &error_body(code, "system error"));
            return Ok(to_hyper(r, false));
        }
        Some(FaultKind::HtmlError { status }) => {
            let status = if (100..1000).contains(status) {
                *status
            } else {
                502
            };
            let r = SimResponse {
                status,
                headers: Vec::new(),
                content_type: "text/html; charset=utf-8",
                body: format!(
                    "<html><head><title>{status} Error</title></head><body><center><h1>{status} Error</h1></center><hr><center>nginx</center></body></html>\n"
                )
                .into_bytes(),
            };
            return Ok(to_hyper(r, false));
        }
        _ => {}
    }
    let resp = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        route(&shared, &hub, &sreq)
    })) {
        Ok(r) => r,
        Err(_) => {
            // Defence in depth: a handler bug must not take the connection task down silently.
            shared
                .panics
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            SimResponse::json(500, &error_body(50000, "system error"))
        }
    };
    match plan.fault {
        Some(FaultKind::DropAfterApply) => Err(DropConnection),
        Some(FaultKind::MalformedJson) => {
            let mut r = resp;
            let mut body = r.body;
            body.truncate(body.len() / 2);
            body.extend_from_slice(b",,}<not json");
            r.body = body;
            Ok(to_hyper(r, false))
        }
        Some(FaultKind::TruncatedBody) => Ok(to_hyper(resp, true)),
        Some(FaultKind::LateAnswer { delay_ms }) => {
            // The request is applied above, synchronously: a client that gives up now does not
            // undo it.
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            Ok(to_hyper(resp, false))
        }
        _ => Ok(to_hyper(resp, false)),
    }
}

/// Whether the headers ask for a websocket upgrade (`Upgrade: websocket`, `Connection`
/// listing `upgrade`).
fn is_upgrade(h: &http::HeaderMap) -> bool {
    let has = |name: &str, token: &str| {
        h.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    has("upgrade", "websocket") && has("connection", "upgrade")
}

/// A websocket upgrade of `/ws/v1/` or `/swap_ws/v2/`: the route's fault rules apply as to any
/// request (a `ServerError` rule with status 502 is a failed handshake), then the socket is
/// admitted (HTTP 503 at [`crate::WsSettings::max_connections`]) and served on its own task.
async fn ws_upgrade(
    shared: Arc<Exchange>,
    hub: SharedHub,
    peer: IpAddr,
    mut req: hyper::Request<Incoming>,
    family: WsFamily,
) -> Result<hyper::Response<SimBody>, DropConnection> {
    let text = |status: u16, msg: &str| {
        to_hyper(
            SimResponse {
                status,
                headers: Vec::new(),
                content_type: "text/plain; charset=utf-8",
                body: msg.as_bytes().to_vec(),
            },
            false,
        )
    };
    let plan = shared
        .faults()
        .plan(req.method().as_str(), req.uri().path());
    if plan.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(plan.delay_ms)).await;
    }
    match &plan.fault {
        Some(FaultKind::DropBeforeApply | FaultKind::DropAfterApply) => return Err(DropConnection),
        Some(FaultKind::TooManyRequests { .. }) => return Ok(text(429, "too many requests")),
        Some(FaultKind::ServerError { status } | FaultKind::HtmlError { status }) => {
            let status = if (500..600).contains(status) {
                *status
            } else {
                502
            };
            return Ok(text(status, "bad gateway"));
        }
        _ => {}
    }
    if req.method() != http::Method::GET {
        return Ok(text(405, "a websocket upgrade is a GET"));
    }
    let headers = req.headers();
    if headers
        .get("sec-websocket-version")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        != Some("13")
    {
        let mut r = text(426, "websocket version 13 required");
        r.headers_mut().insert(
            "sec-websocket-version",
            http::HeaderValue::from_static("13"),
        );
        return Ok(r);
    }
    let Some(key) = headers
        .get("sec-websocket-key")
        .map(|k| k.as_bytes().to_vec())
    else {
        return Ok(text(400, "Sec-WebSocket-Key missing"));
    };
    let admitted = match crate::ws::admit(&hub, family, peer) {
        Ok(a) => a,
        Err(crate::ws::Refusal::Full) => return Ok(text(503, "too many websocket connections")),
        Err(crate::ws::Refusal::Handshake502) => return Ok(text(502, "bad gateway")),
    };
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(&key);
    let on_upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        match on_upgrade.await {
            Ok(upgraded) => crate::ws::serve(shared, hub, admitted, TokioIo::new(upgraded)).await,
            Err(_) => crate::ws::abandon(&hub, admitted),
        }
    });
    let resp = hyper::Response::builder()
        .status(http::StatusCode::SWITCHING_PROTOCOLS)
        .header("upgrade", "websocket")
        .header("connection", "Upgrade")
        .header("sec-websocket-accept", accept)
        .body(SimBody::Full(None));
    resp.map_err(|_| DropConnection)
}

fn to_hyper(r: SimResponse, truncate: bool) -> hyper::Response<SimBody> {
    let len = r.body.len();
    let body = if truncate {
        let mut b = r.body;
        b.truncate(len / 2);
        SimBody::Truncated(Some(Bytes::from(b)), None)
    } else {
        SimBody::Full(Some(Bytes::from(r.body)))
    };
    let mut builder = hyper::Response::builder()
        .status(r.status)
        .header("content-type", r.content_type)
        .header("content-length", len.to_string());
    for (k, v) in &r.headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    builder.body(body).unwrap_or_else(|_| {
        let mut resp = hyper::Response::new(SimBody::Full(Some(Bytes::from_static(
            b"{\"code\":50000,\"msg\":\"system error\"}",
        ))));
        *resp.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
        resp
    })
}

/// Response body: whole, or half of it followed (after a short pause, so that hyper flushes the
/// head and the half body) by an error (truncated-body fault).
enum SimBody {
    Full(Option<Bytes>),
    Truncated(Option<Bytes>, Option<Pin<Box<tokio::time::Sleep>>>),
}

impl Body for SimBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            SimBody::Full(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            SimBody::Truncated(b, pause) => {
                if let Some(b) = b.take() {
                    return Poll::Ready(Some(Ok(Frame::data(b))));
                }
                let sleep = pause
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(Duration::from_millis(50))));
                match sleep.as_mut().poll(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(DropConnection)))),
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, SimBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            SimBody::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            SimBody::Full(None) => SizeHint::with_exact(0),
            SimBody::Truncated(..) => SizeHint::default(),
        }
    }
}

/// A JSON 404 for unknown paths in a family.
pub fn not_found() -> SimResponse {
    SimResponse::json(
        404,
        &J::obj().with("code", 10009).with("msg", "endpoint unknown"),
    )
}

#[cfg(test)]
mod tests {
    use super::check_bind_addr;

    #[test]
    fn only_loopback_without_public() {
        for ok in [
            "127.0.0.1:0",
            "127.1.2.3:80",
            "[::1]:8080",
            "[::ffff:127.0.0.1]:1",
        ] {
            assert!(check_bind_addr(ok.parse().unwrap(), false).is_ok(), "{ok}");
        }
        for no in [
            "0.0.0.0:0",
            "[::]:0",
            "192.168.1.5:80",
            "[::ffff:10.0.0.1]:1",
            "8.8.8.8:1",
        ] {
            let e = check_bind_addr(no.parse().unwrap(), false).unwrap_err();
            assert!(e.contains("--public") && e.contains("/__sim"), "{e}");
            assert!(check_bind_addr(no.parse().unwrap(), true).is_ok(), "{no}");
        }
    }
}
