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
//! DESIGN (connection cap): at the cap the connection that has waited longest without a request
//! being handled gives way to the newcomer: silent connections first (those that never had a
//! request handled: nothing sent, or a request head dribbling in), the one idle longest
//! first, then keep-alive connections idle between requests, the longest idle first. So
//! connections that send nothing cannot hold every slot while real requests wait for their
//! header timeout: each new connection takes the slot of the oldest silent one (a client that
//! merely keeps a pooled connection open loses it only when the cap is full). When every
//! connection has a request in hand, the accept loop waits for one to end (the newcomer, already
//! accepted, waits with it; further clients wait in the kernel's listen backlog); the timeouts
//! bound that wait.
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
        let control = Control::stepping(shared.clone(), hub.clone());
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

/// Whether the request's `Host` names the loopback or an IP address the server listens on
/// ([`is_loopback_host`]): a web page that reaches the simulator through DNS rebinding sends
/// its own host name and is refused. A request without `Host` is refused.
pub fn loopback_host(req: &SimRequest, bound: SocketAddr) -> bool {
    req.header("host")
        .is_some_and(|h| is_loopback_host(h, Some(bound.ip())))
}

/// Whether a `Host` header value (`name`, `name:port`, `v4:port`, `[v6]:port`) names the
/// loopback: `localhost` (any case, with or without the final dot), an address of
/// `127.0.0.0/8` or `::1`, or an IPv4-mapped loopback address (`[::ffff:127.0.0.1]`); or
/// `bound`, the address a server listens on (not the unspecified `0.0.0.0` or `::`). The
/// port, when present, is digits (at most 65535). Anything else is refused: other names (a
/// DNS rebinding page sends its own), `*.localhost`, user info, paths, an unbracketed IPv6
/// address, numeric forms other than dotted decimal.
///
/// The one check of the simulator's control API and websocket upgrades and of
/// `digifinex replay`.
pub fn is_loopback_host(host: &str, bound: Option<IpAddr>) -> bool {
    let host = host.trim();
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let Some((inside, after)) = rest.split_once(']') else {
            return false;
        };
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return false,
        };
        // Only an IPv6 address goes in brackets.
        if inside.parse::<std::net::Ipv6Addr>().is_err() {
            return false;
        }
        (inside, port)
    } else {
        match host.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host, None),
        }
    };
    let port_ok = port.is_none_or(|p| {
        p.is_empty()
            || (p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok())
    });
    if !port_ok || name.is_empty() {
        return false;
    }
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let Ok(ip) = name.parse::<IpAddr>() else {
        return false;
    };
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    let bound = bound.map(|b| match b {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    });
    ip.is_loopback() || (Some(ip) == bound && !ip.is_unspecified())
}

/// Whether a websocket upgrade's `Origin` may connect: absent (not a browser), or a page
/// served from the loopback (`http://localhost:3000`, `https://127.0.0.1`, `http://[::1]:8080`:
/// an `http` or `https` origin whose host [`is_loopback_host`] accepts without a bound
/// address). `null` (a sandboxed page, a file) and every other origin are refused: any web
/// page the user opens could otherwise reach the simulator's sockets.
pub(crate) fn loopback_origin(origin: Option<&str>) -> bool {
    let Some(origin) = origin.map(str::trim) else {
        return true;
    };
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    web && !rest.contains(['/', '@', '?', '#']) && is_loopback_host(rest, None)
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
        let catch_up = {
            let shared = shared.clone();
            tokio::spawn(async move { shared.catch_up().await })
        };
        let mut tasks = tokio::task::JoinSet::new();
        let slots = Arc::new(tokio::sync::Semaphore::new(
            shared.config.max_connections.max(1),
        ));
        let live = Live::default();
        tokio::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                _ = &mut shutdown => break,
                accepted = listener.accept() => match accepted {
                    Ok(x) => x,
                    Err(_) => {
                        // Accept errors (e.g. too many open files) are transient.
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        continue;
                    }
                },
            };
            // At the cap: the longest-waiting idle connection gives way (see the module docs),
            // or, while every one has a request in hand, the first to end.
            let permit = loop {
                if let Ok(p) = slots.clone().try_acquire_owned() {
                    break Some(p);
                }
                // An evicted connection ends at once; else look again soon: one may have
                // finished its request meanwhile.
                let wait = if live.evict_one() { 1000 } else { 20 };
                tokio::select! {
                    _ = &mut shutdown => break None,
                    p = slots.clone().acquire_owned() => break p.ok(),
                    _ = tokio::time::sleep(Duration::from_millis(wait)) => {}
                }
            };
            let Some(permit) = permit else {
                break;
            };
            let _ = stream.set_nodelay(true);
            let activity = Arc::new(Activity {
                start: Instant::now(),
                last_ms: AtomicU64::new(0),
                busy: AtomicUsize::new(0),
                requests: AtomicU64::new(0),
                kill: tokio::sync::Notify::new(),
            });
            // Registered before its task runs, so that the next newcomer sees it.
            let id = live.add(activity.clone());
            let (shared, hub, live) = (shared.clone(), hub.clone(), live.clone());
            tasks.spawn(async move {
                serve_connection(shared, hub, stream, peer.ip(), activity).await;
                live.remove(id);
                drop(permit);
            });
            while tasks.try_join_next().is_some() {}
        }
        tasks.abort_all();
        ticker.abort();
        catch_up.abort();
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

/// Activity of one connection, for the idle timeout and the connection cap.
#[derive(Debug)]
struct Activity {
    start: Instant,
    /// Milliseconds after `start` of the last byte read or written.
    last_ms: AtomicU64,
    /// Requests being handled once their body is read (their time, fault delays included, is
    /// not idle time).
    busy: AtomicUsize,
    /// Requests handled so far (0: a silent connection).
    requests: AtomicU64,
    /// Ends the connection (it gave way at the cap).
    kill: tokio::sync::Notify,
}

/// The connections being served, to pick the one that gives way at the cap.
#[derive(Debug, Clone, Default)]
struct Live(Arc<std::sync::Mutex<LiveInner>>);

#[derive(Debug, Default)]
struct LiveInner {
    next: u64,
    conns: std::collections::HashMap<u64, Arc<Activity>>,
}

impl Live {
    fn lock(&self) -> std::sync::MutexGuard<'_, LiveInner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn add(&self, a: Arc<Activity>) -> u64 {
        let mut l = self.lock();
        l.next += 1;
        let id = l.next;
        l.conns.insert(id, a);
        id
    }

    fn remove(&self, id: u64) {
        self.lock().conns.remove(&id);
    }

    /// Ends the connection that has waited longest without a request in hand, silent ones
    /// first (see the module docs); none (`false`) when every connection is handling a
    /// request.
    fn evict_one(&self) -> bool {
        let mut l = self.lock();
        let victim = l
            .conns
            .iter()
            .filter(|(_, a)| a.busy.load(Ordering::Relaxed) == 0)
            .min_by_key(|(id, a)| {
                let served = a.requests.load(Ordering::Relaxed) > 0;
                let last = a.start + Duration::from_millis(a.last_ms.load(Ordering::Relaxed));
                (served, last, **id)
            })
            .map(|(id, _)| *id);
        match victim.and_then(|id| l.conns.remove(&id)) {
            Some(a) => {
                a.kill.notify_one();
                true
            }
            None => false,
        }
    }
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
        a.requests.fetch_add(1, Ordering::Relaxed);
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
    activity: Arc<Activity>,
) {
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
    let far = Duration::from_secs(86_400 * 365);
    // Dropping the connection closes the socket.
    tokio::select! {
        _ = conn => {}
        _ = activity.idle_for(idle.unwrap_or(far)) => {}
        _ = activity.kill.notified() => {}
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

/// A websocket upgrade of `/ws/v1/` or `/swap_ws/v2/`: refused (HTTP 403) unless its `Host`
/// names the loopback or the bound address ([`is_loopback_host`]; any host with
/// [`SimConfig::allow_public_bind`]) and any `Origin` is a loopback page
/// (`loopback_origin`); then the route's fault rules apply as to any request (a
/// `ServerError` rule with status 502 is a failed handshake), then the socket is admitted
/// (HTTP 503 at [`crate::WsSettings::max_connections`]) and served on its own task.
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
    let header = |name: &str| req.headers().get(name).map(|v| v.to_str().unwrap_or(""));
    let host_ok = shared.config.allow_public_bind
        || header("host").is_some_and(|h| is_loopback_host(h, Some(shared.addr.ip())));
    if !host_ok {
        return Ok(text(
            403,
            "a websocket upgrade is answered only when its Host is localhost or an IP address \
             (DNS rebinding protection)",
        ));
    }
    if !loopback_origin(header("origin")) {
        return Ok(text(
            403,
            "a websocket upgrade from a web page is answered only when the page's Origin is \
             on the loopback",
        ));
    }
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
    use super::{check_bind_addr, is_loopback_host, loopback_origin};
    use std::net::IpAddr;

    #[test]
    fn host_forms() {
        let bound: IpAddr = "10.1.2.3".parse().unwrap();
        let any: IpAddr = "0.0.0.0".parse().unwrap();
        // (host, bound, accepted)
        let table: &[(&str, Option<IpAddr>, bool)] = &[
            ("localhost", None, true),
            ("LOCALHOST", None, true),
            ("localhost.", None, true),
            ("LOCALHOST.", None, true),
            ("LocalHost.:8080", None, true),
            ("localhost:", None, true),
            ("  localhost:1  ", None, true),
            ("127.0.0.1", None, true),
            ("127.0.0.1:8080", None, true),
            ("127.1.2.3:65535", None, true),
            ("[::1]", None, true),
            ("[::1]:8080", None, true),
            ("[0:0:0:0:0:0:0:1]:1", None, true),
            ("[::ffff:127.0.0.1]", None, true),
            ("[::ffff:127.0.0.1]:9", None, true),
            ("[::FFFF:7f00:1]:9", None, true),
            ("10.1.2.3:80", Some(bound), true),
            ("[::ffff:10.1.2.3]:80", Some(bound), true),
            // Refused.
            ("10.1.2.3:80", None, false),
            ("10.1.2.4:80", Some(bound), false),
            ("0.0.0.0:80", Some(any), false),
            ("[::]:80", Some("::".parse().unwrap()), false),
            ("", None, false),
            (":80", None, false),
            ("evil.example.com", None, false),
            ("localhost.evil.example", None, false),
            ("evil.localhost", None, false),
            ("localhost..", None, false),
            ("127.0.0.1.nip.io", None, false),
            ("127.0.0.1:65536", None, false),
            ("127.0.0.1:80:90", None, false),
            ("127.0.0.1:8o", None, false),
            ("127.0.0.1:000080", None, false),
            ("user@localhost", None, false),
            ("localhost/path", None, false),
            ("::1", None, false),
            ("[::1", None, false),
            ("[::1]x", None, false),
            ("[::1]:x", None, false),
            ("[localhost]", None, false),
            ("[127.0.0.1]", None, false),
            ("[::ffff:10.0.0.1]", None, false),
            ("2130706433", None, false),
            ("0x7f.0.0.1", None, false),
            ("127.1", None, false),
        ];
        for (host, bound, want) in table {
            assert_eq!(is_loopback_host(host, *bound), *want, "{host:?} {bound:?}");
        }
    }

    #[test]
    fn origin_forms() {
        for ok in [
            None,
            Some("http://localhost"),
            Some("http://localhost:3000"),
            Some("HTTPS://LOCALHOST."),
            Some("http://127.0.0.1:8080"),
            Some("https://[::1]:8443"),
            Some("http://[::ffff:127.0.0.1]"),
        ] {
            assert!(loopback_origin(ok), "{ok:?}");
        }
        for no in [
            "null",
            "",
            "localhost",
            "http://evil.example",
            "https://localhost.evil.example",
            "http://localhost/",
            "http://localhost:3000/x",
            "http://user@localhost",
            "file://localhost",
            "ws://localhost",
            "chrome-extension://abc",
            "http://10.0.0.1",
            "http://0.0.0.0:8080",
        ] {
            assert!(!loopback_origin(Some(no)), "{no:?}");
        }
    }

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
