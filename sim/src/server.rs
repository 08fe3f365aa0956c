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

use crate::clock::{ClockRule, Time};
use crate::config::SimConfig;
use crate::exchange::{is_upgrade, Exchange, Reply, WsId};
use crate::handle::Control;
use crate::wire::{error_body, SimRequest, SimResponse};
use crate::ws::{Out, WsFamily};
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;

pub use crate::exchange::MAX_BODY;

/// The wall clock (ms since the Unix epoch): the server's reference clock, the only place
/// the simulator reads one.
fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// What the server's tasks share: the exchange behind one lock, the catch-up task's wake-up
/// and the websocket writers' wake-ups.
#[derive(Debug)]
pub(crate) struct Shared {
    ex: Mutex<Exchange>,
    addr: SocketAddr,
    /// Wakes the catch-up task when a step falls behind.
    wake: Notify,
    /// Wakes a session's writer when it has output.
    writers: Mutex<HashMap<WsId, Arc<Notify>>>,
}

/// The locked exchange; releasing it wakes the writers of sessions given output and the
/// catch-up task when a step fell behind.
pub(crate) struct Locked<'a> {
    guard: MutexGuard<'a, Exchange>,
    shared: &'a Shared,
}

impl std::ops::Deref for Locked<'_> {
    type Target = Exchange;
    fn deref(&self) -> &Exchange {
        &self.guard
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Exchange {
        &mut self.guard
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let ready = self.guard.ws_ready();
        if !ready.is_empty() {
            let writers = self
                .shared
                .writers
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            for id in ready {
                if let Some(n) = writers.get(&id) {
                    n.notify_one();
                }
            }
        }
        if self.guard.behind() {
            self.shared.wake.notify_one();
        }
    }
}

impl Shared {
    /// Locks the exchange (a poisoned lock is recovered: handlers never leave it half-updated
    /// on purpose, and a simulator should keep serving) without moving its time.
    pub(crate) fn lock_raw(&self) -> Locked<'_> {
        Locked {
            guard: self.ex.lock().unwrap_or_else(|p| p.into_inner()),
            shared: self,
        }
    }

    /// Locks the exchange with its time following the wall clock, brought towards it by one
    /// bounded step.
    pub(crate) fn lock(&self) -> Locked<'_> {
        let mut l = self.lock_raw();
        l.follow(wall_ms());
        l
    }

    /// Locks the exchange with everything due by the current time applied: as many bounded
    /// steps as it takes, the lock released between them (so that the server keeps
    /// answering). Returns once the state has caught up with the time read at the call,
    /// brought towards the current time by one more step.
    pub(crate) fn settled(&self) -> Locked<'_> {
        let mut l = self.lock();
        let target = l.now_ms();
        while l.behind() {
            drop(l);
            std::thread::yield_now();
            l = self.lock_raw();
            if !l.step_towards(target) {
                l.follow(wall_ms());
                break;
            }
        }
        l
    }

    fn register(&self, id: WsId) -> Arc<Notify> {
        let n = Arc::new(Notify::new());
        self.writers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, n.clone());
        n
    }

    fn unregister(&self, id: WsId) {
        self.writers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }

    /// Steps while behind, one lock per step, yielding to other tasks between steps; waits
    /// while not. The server runs it for as long as it serves.
    async fn catch_up(&self) {
        loop {
            self.wake.notified().await;
            while self.lock_raw().behind() {
                drop(self.lock());
                tokio::task::yield_now().await;
            }
        }
    }

    /// The public pushes, every [`crate::WsSettings::tick`] of wall time, while the server
    /// runs.
    async fn tick_loop(&self, period: Duration) {
        let mut interval = tokio::time::interval(period.max(Duration::from_millis(1)));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            if self.lock_raw().ws_connections() == 0 {
                continue;
            }
            self.lock().ws_tick();
        }
    }
}

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
    /// [`SimConfig::allow_public_bind`] is set; see [`check_bind_addr`].
    pub async fn bind(config: SimConfig) -> std::io::Result<Sim> {
        check_bind_addr(config.addr, config.allow_public_bind)
            .map_err(|m| std::io::Error::new(std::io::ErrorKind::InvalidInput, m))?;
        let (config, replay) = crate::market::prepare(config)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        let listener = TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let replay_start = replay.as_ref().and_then(|r| r.start_ms);
        let wall = wall_ms();
        let time = Time::following(server_rule(&config, replay_start, wall), wall);
        let ex = Exchange::build(config, replay, time, addr);
        let shared = Arc::new(Shared {
            ex: Mutex::new(ex),
            addr,
            wake: Notify::new(),
            writers: Mutex::new(HashMap::new()),
        });
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
                    Some(Out::Zlib(text)) => Message::binary(crate::ws::zlib(text.as_bytes())),
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
