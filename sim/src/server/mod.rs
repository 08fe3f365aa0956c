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

pub(crate) mod handle;
pub(crate) mod shared;

use crate::clock::{ClockRule, Time};
use crate::config::SimConfig;
use crate::dialect::wire::{error_body, SimResponse};
use crate::dialect::ws::{Out, WsFamily};
use crate::exchange::{is_upgrade, Exchange, Reply, WsId};
use crate::host::check_bind_addr;
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use handle::Control;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use shared::{wall_ms, Shared};
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;

pub use crate::exchange::MAX_BODY;

/// The simulator before it serves: bound to its address, state built.
#[derive(Debug)]
pub struct Sim {
    shared: Arc<Shared>,
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

/// The clock rule of a server's exchange at wall time `wall`: a replay runs from the
/// recording's start at its speed unless a start is given; a given start freezes the clock
/// there; else the clock follows the wall clock, at the configured speed.
fn server_rule(config: &SimConfig, replay_start: Option<i64>, wall: i64) -> ClockRule {
    let speed = config
        .market
        .as_ref()
        .map_or(config.clock_speed, |m| m.speed);
    match (&config.market, config.start_time_ms, replay_start) {
        (Some(_), None, Some(start)) => ClockRule::running(wall, start, speed),
        (_, Some(t), _) => {
            let mut r = ClockRule::frozen(t);
            r.set_speed(wall, speed);
            r
        }
        (_, None, _) => ClockRule::running(wall, wall, speed),
    }
}

impl Sim {
    /// Binds `config.addr` and builds the initial state (needs a tokio runtime with I/O).
    /// A non-loopback address is refused (`InvalidInput`) unless
    /// [`SimConfig::allow_public_bind`] is set.
    pub async fn bind(config: SimConfig) -> std::io::Result<Sim> {
        check_bind_addr(config.addr, config.allow_public_bind)
            .map_err(|m| std::io::Error::new(std::io::ErrorKind::InvalidInput, m))?;
        let (config, replay) = crate::drive::prepare(config)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        let listener = TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let replay_start = replay.as_ref().and_then(|r| r.start_ms);
        let wall = wall_ms();
        let time = Time::following(server_rule(&config, replay_start, wall), wall);
        let ex = Exchange::build(config, replay, time, addr);
        let shared = Arc::new(Shared::new(ex, addr));
        Ok(Sim { shared, listener })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.shared.addr
    }

    /// The control handle.
    pub fn control(&self) -> Control {
        Control::server(self.shared.clone())
    }

    /// Serves until `shutdown` completes. Connections still open then are closed.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
        let Sim { shared, listener } = self;
        let (period, max_connections) = {
            let ex = shared.lock_raw();
            (ex.config().ws.tick, ex.config().max_connections)
        };
        let ticker = {
            let shared = shared.clone();
            tokio::spawn(async move { shared.tick_loop(period).await })
        };
        let catch_up = {
            let shared = shared.clone();
            tokio::spawn(async move { shared.catch_up().await })
        };
        let mut tasks = tokio::task::JoinSet::new();
        let slots = Arc::new(tokio::sync::Semaphore::new(max_connections.max(1)));
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
            let (shared, live) = (shared.clone(), live.clone());
            tasks.spawn(async move {
                serve_connection(shared, stream, peer.ip(), activity).await;
                live.remove(id);
                drop(permit);
            });
            while tasks.try_join_next().is_some() {}
        }
        tasks.abort_all();
        ticker.abort();
        catch_up.abort();
        shared.lock_raw().control(|d| d.ws_disconnect_all());
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
                            let _ = tx.send(Ok(sim.shared.clone()));
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
        let shared = rx.recv().map_err(|_| StartError::Thread)??;
        Ok(SimHandle {
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }
}

/// A running simulator; dropping it stops the server and joins its thread.
#[derive(Debug)]
pub struct SimHandle {
    shared: Arc<Shared>,
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
        Control::server(self.shared.clone())
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
    shared: Arc<Shared>,
    stream: tokio::net::TcpStream,
    peer: IpAddr,
    activity: Arc<Activity>,
) {
    let (header_timeout, idle) = {
        let ex = shared.lock_raw();
        (ex.config().header_read_timeout, ex.config().idle_timeout)
    };
    let io = TokioIo::new(TrackedIo {
        inner: stream,
        activity: activity.clone(),
    });
    let act = activity.clone();
    let svc = service_fn(move |req| {
        let shared = shared.clone();
        let act = act.clone();
        async move { handle(shared, peer, req, act).await }
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
    shared: Arc<Shared>,
    peer: IpAddr,
    req: hyper::Request<Incoming>,
    activity: Arc<Activity>,
) -> Result<hyper::Response<SimBody>, DropConnection> {
    if WsFamily::of_path(req.uri().path()).is_some() && is_upgrade(req.headers()) {
        return ws_upgrade(shared, peer, req).await;
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
            return Ok(to_hyper(crate::exchange::to_http(r), false));
        }
    };
    // From here on the simulator, not the client, holds the connection up (fault delays
    // included): not idle time. Reading the body above is (a stalled body times out).
    let _busy = Busy::new(&activity);
    let req = http::Request::from_parts(parts, body.to_vec());
    let reply = shared.lock().handle_from(peer, req);
    deliver(&shared, reply).await
}

/// Carries out a reply: waits what it asks in wall time, answers, cuts or drops.
async fn deliver(
    shared: &Shared,
    mut reply: Reply,
) -> Result<hyper::Response<SimBody>, DropConnection> {
    loop {
        return match reply {
            Reply::Delay { delay_ms, request } => {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                reply = shared.lock().resume(request);
                continue;
            }
            Reply::Answer { response, after_ms } => {
                if after_ms > 0 {
                    // The request is applied: a client that gives up now does not undo it.
                    tokio::time::sleep(Duration::from_millis(after_ms)).await;
                }
                Ok(to_hyper(response, false))
            }
            Reply::Truncate(response) => Ok(to_hyper(response, true)),
            Reply::Drop { .. } => Err(DropConnection),
            // Not asked for by a request without an upgrade; nothing to serve it with.
            Reply::Upgrade(id) => {
                shared.lock_raw().ws_close(id);
                Err(DropConnection)
            }
        };
    }
}

/// A websocket upgrade of `/ws/v1/` or `/swap_ws/v2/`: the exchange checks it (`Host`,
/// `Origin`, the route's faults, the handshake's headers, the socket cap; a refusal is an HTTP
/// answer) and opens the session; the socket is served on its own task.
async fn ws_upgrade(
    shared: Arc<Shared>,
    peer: IpAddr,
    mut req: hyper::Request<Incoming>,
) -> Result<hyper::Response<SimBody>, DropConnection> {
    let key = req
        .headers()
        .get("sec-websocket-key")
        .map(|k| k.as_bytes().to_vec());
    let mut head = http::Request::builder()
        .method(req.method().clone())
        .uri(req.uri().clone());
    for (k, v) in req.headers() {
        head = head.header(k, v);
    }
    let head = head.body(Vec::new()).map_err(|_| DropConnection)?;
    let mut reply = shared.lock().handle_from(peer, head);
    if let Reply::Delay { delay_ms, request } = reply {
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        reply = shared.lock().resume(request);
    }
    let id = match reply {
        Reply::Upgrade(id) => id,
        other => return deliver(&shared, other).await,
    };
    let Some(key) = key else {
        shared.lock_raw().ws_close(id);
        return Err(DropConnection);
    };
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(&key);
    let on_upgrade = hyper::upgrade::on(&mut req);
    let settings = shared.lock_raw().config().ws.clone();
    let notify = shared.register(id);
    tokio::spawn(async move {
        if let Ok(upgraded) = on_upgrade.await {
            serve_ws(&shared, id, notify, settings, TokioIo::new(upgraded)).await;
        }
        shared.unregister(id);
        shared.lock_raw().ws_close(id);
    });
    let resp = hyper::Response::builder()
        .status(http::StatusCode::SWITCHING_PROTOCOLS)
        .header("upgrade", "websocket")
        .header("connection", "Upgrade")
        .header("sec-websocket-accept", accept)
        .body(SimBody::Full(None));
    resp.map_err(|_| DropConnection)
}

/// Serves an upgraded socket until it ends: reads the client's frames into the exchange,
/// writes the session's output, and drops the connection (no close frame, 1006 on the client
/// side, as the venue does) on the idle timeout, the lifetime cap (both in wall time), a
/// drop the exchange asks for, or the client's close.
async fn serve_ws<S>(
    shared: &Shared,
    id: WsId,
    notify: Arc<Notify>,
    settings: crate::WsSettings,
    io: S,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let config = WebSocketConfig::default()
        .max_message_size(Some(settings.max_message_bytes))
        .max_frame_size(Some(settings.max_message_bytes));
    let ws =
        tokio_tungstenite::WebSocketStream::from_raw_socket(io, Role::Server, Some(config)).await;
    let (mut sink, mut stream) = ws.split();
    let writer = async {
        loop {
            // What is queued first, then what the exchange signals.
            loop {
                let out = shared.lock_raw().ws_poll_raw(id);
                let msg = match out {
                    None => break,
                    Some(Out::Zlib(text)) => {
                        Message::binary(crate::dialect::ws::zlib(text.as_bytes()))
                    }
                    Some(Out::Text(text)) => Message::text(text),
                    Some(Out::DropAfter(delay)) => {
                        tokio::time::sleep(delay).await;
                        return;
                    }
                    Some(Out::Dropped) => return,
                };
                if sink.send(msg).await.is_err() {
                    return;
                }
            }
            notify.notified().await;
        }
    };
    let far = Duration::from_secs(86_400 * 365);
    let idle = settings.idle_timeout.unwrap_or(far);
    let lifetime = tokio::time::sleep(settings.lifetime.unwrap_or(far));
    let reader = async {
        tokio::pin!(lifetime);
        loop {
            tokio::select! {
                _ = &mut lifetime => return,
                r = tokio::time::timeout(idle, stream.next()) => match r {
                    // Idle: no client frame in time.
                    Err(_) | Ok(None) | Ok(Some(Err(_))) => return,
                    Ok(Some(Ok(msg))) => match msg {
                        Message::Text(t) => shared.lock().ws_input(id, t.as_str().as_bytes()),
                        Message::Binary(b) => shared.lock().ws_input(id, &b),
                        Message::Close(_) => return,
                        _ => {}
                    },
                },
            }
        }
    };
    tokio::select! {
        _ = writer => {}
        _ = reader => {}
    }
}

fn to_hyper(r: http::Response<Vec<u8>>, truncate: bool) -> hyper::Response<SimBody> {
    let (parts, mut body) = r.into_parts();
    let body = if truncate {
        body.truncate(body.len() / 2);
        SimBody::Truncated(Some(Bytes::from(body)), None)
    } else {
        SimBody::Full(Some(Bytes::from(body)))
    };
    hyper::Response::from_parts(parts, body)
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
