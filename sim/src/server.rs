//! The HTTP server: accept loop, per-connection hyper tasks, fault injection and routing.
//!
//! A dropped connection is produced by returning an error from the hyper service: hyper's HTTP/1
//! dispatcher then ends the connection without writing a response. A truncated body is a response
//! whose `content-length` promises the whole body while the body stream yields half of it and then
//! fails, which makes hyper abort the connection.

use crate::clock::SimClock;
use crate::config::SimConfig;
use crate::control::Control;
use crate::faults::{FaultKind, Faults};
use crate::json::J;
use crate::state::State;
use crate::wire::{error_body, SimRequest, SimResponse};
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use tokio::net::TcpListener;

/// Largest request body accepted (larger bodies are answered with 10004).
const MAX_BODY: usize = 1 << 20;

/// State shared by the server tasks and the control handles.
#[derive(Debug)]
pub struct Shared {
    /// Configuration the simulator started with.
    pub config: SimConfig,
    /// The simulator clock.
    pub clock: SimClock,
    state: Mutex<State>,
    faults: Mutex<Faults>,
    /// Address the server listens on.
    pub addr: SocketAddr,
    /// Number of handler panics caught (always 0 unless the simulator has a bug).
    pub panics: std::sync::atomic::AtomicU64,
}

impl Shared {
    /// Locks the state (a poisoned lock is recovered: handlers never leave it half-updated on
    /// purpose, and a simulator should keep serving).
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Locks the fault rules.
    pub fn faults(&self) -> MutexGuard<'_, Faults> {
        self.faults.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Routes one request (no faults applied).
pub fn route(shared: &Arc<Shared>, req: &SimRequest) -> SimResponse {
    let path = req.path.as_str();
    if path == "/__sim" || path.starts_with("/__sim/") {
        return crate::control::http::handle(shared, req);
    }
    if path == "/v3" || path.starts_with("/v3/") {
        return crate::spot::handle(shared, req);
    }
    if path == "/swap" || path.starts_with("/swap/") {
        return crate::swap::handle(shared, req);
    }
    SimResponse::json(404, &error_body(10009, "endpoint unknown"))
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

impl Sim {
    /// Binds `config.addr` and builds the initial state (needs a tokio runtime with I/O).
    pub async fn bind(config: SimConfig) -> std::io::Result<Sim> {
        let listener = TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let clock = SimClock::new(config.start_time_ms);
        let state = State::new(&config, clock.now_ms());
        let shared = Arc::new(Shared {
            config,
            clock,
            state: Mutex::new(state),
            faults: Mutex::new(Faults::default()),
            addr,
            panics: std::sync::atomic::AtomicU64::new(0),
        });
        Ok(Sim { shared, listener })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.shared.addr
    }

    /// The control handle.
    pub fn control(&self) -> Control {
        Control::new(self.shared.clone())
    }

    /// Serves until `shutdown` completes. Connections still open then are closed.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
        let Sim { shared, listener } = self;
        let mut tasks = tokio::task::JoinSet::new();
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                _ = &mut shutdown => break,
                accepted = listener.accept() => {
                    let (stream, peer) = match accepted {
                        Ok(x) => x,
                        Err(_) => {
                            // Accept errors (e.g. too many open files) are transient.
                            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    let shared = shared.clone();
                    tasks.spawn(serve_connection(shared, stream, peer.ip()));
                    while tasks.try_join_next().is_some() {}
                }
            }
        }
        tasks.abort_all();
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

    /// Control API base URL, `http://127.0.0.1:PORT/__sim`.
    pub fn control_url(&self) -> String {
        format!("http://{}/__sim", self.shared.addr)
    }

    /// The control handle.
    pub fn control(&self) -> Control {
        Control::new(self.shared.clone())
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

async fn serve_connection(shared: Arc<Shared>, stream: tokio::net::TcpStream, peer: IpAddr) {
    let io = TokioIo::new(stream);
    let svc = service_fn(move |req| {
        let shared = shared.clone();
        async move { handle(shared, peer, req).await }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(io, svc)
        .await;
}

async fn handle(
    shared: Arc<Shared>,
    peer: IpAddr,
    req: hyper::Request<Incoming>,
) -> Result<hyper::Response<SimBody>, DropConnection> {
    let (parts, body) = req.into_parts();
    let limited = http_body_util::Limited::new(body, MAX_BODY);
    let body = match limited.collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            let r = SimResponse::json(413, &error_body(10004, "request body too large"));
            return Ok(to_hyper(r, false));
        }
    };
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
        tokio::time::sleep(std::time::Duration::from_millis(plan.delay_ms)).await;
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
    let resp =
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(&shared, &sreq))) {
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
        _ => Ok(to_hyper(resp, false)),
    }
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
                let sleep = pause.get_or_insert_with(|| {
                    Box::pin(tokio::time::sleep(std::time::Duration::from_millis(50)))
                });
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
