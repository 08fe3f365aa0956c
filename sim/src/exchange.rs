//! The exchange as a value: REST, both websockets and the control API over one state, with
//! time as an argument. It reads no clock, opens no socket, starts no thread.
//!
//! # Inputs and outputs
//!
//! - **HTTP** (REST under `/v3` and `/swap/v2`, the control API under `/__sim`, websocket
//!   upgrades): [`Exchange::handle`] takes an `http::Request<Vec<u8>>` and gives a [`Reply`]:
//!   the response, or what a fault asks the adapter to do (answer late, cut the body, drop the
//!   connection, wait before applying the request: [`Reply::Delay`] and
//!   [`Exchange::resume`]).
//! - **Websockets**: a session is opened by an upgrade through [`Exchange::handle`]
//!   ([`Reply::Upgrade`]) or by [`Exchange::ws_connect`]; the client's frames go in with
//!   [`Exchange::ws_input`], the replies and pushes come out with [`Exchange::ws_poll`]
//!   ([`WsOut`]: the JSON as the venue sends it, zlib-compressed in a binary frame, with the
//!   decoded text at hand), [`Exchange::ws_close`] ends it.
//! - **Time**: [`Exchange::advance_to`] runs everything due by an instant in time order: the
//!   order flow, a recording's events, orders on their way to the engine (latency), funding
//!   and the liquidations and triggers it causes, the websockets' public ticks and their
//!   timers (idle timeout, lifetime, the delayed drops of the auth ban and the swap channel
//!   cap). [`Exchange::next_event_time`] peeks at the next of them without changing anything.
//!
//! The same seed and the same inputs give the same outputs, byte for byte.
//!
//! # Time
//!
//! An exchange made by [`Exchange::new`] keeps *virtual* time: it starts at
//! [`crate::SimConfig::start_time_ms`] (else at a recording's first instant, else at
//! [`Exchange::DEFAULT_START_MS`]) and moves only by [`Exchange::advance_to`] and the control
//! API's clock operations (`advance_ms`, `freeze_at_ms`; an `offset_ms` is refused: there is
//! no wall clock to be offset from). Every input is applied at the current time; nothing is
//! ever left behind.
//!
//! The server ([`crate::Sim`]) is one adapter over this value: it owns the sockets and the
//! wall clock. Its exchange follows the wall clock through the clock rule the control API
//! sets (frozen, an offset, a speed), brought towards the current time by one bounded step
//! of work per request ([`crate::market`], "Bounded catch-up") and by a background task
//! between requests; its websocket timers and public ticks run on the wall clock (the
//! simulator's clock may be frozen while sockets still time out and tick).
//!
//! DESIGN (clock operations): the control API's clock operations edit pure data (the
//! exchange time, and the rule by which it follows a reference clock); the exchange brings
//! the markets and sessions up to the new time after the operation, so the control dialect
//! needs nothing above it. An adapter that owns a clock hands its reading in; the exchange
//! never reads one.
//!
//! DESIGN (latency faults): a `Latency` fault delays a request *before* it is applied (a
//! client that gives up meanwhile leaves nothing behind), so [`Exchange::handle`] hands it
//! back unapplied ([`Reply::Delay`]); the adapter waits in its own time (wall or virtual) and
//! then calls [`Exchange::resume`]. A `LateAnswer` is applied at once and answered
//! [`Reply::Answer`] with `after_ms`.

use crate::clock::{Time, MAX_MS, MIN_MS};
use crate::config::SimConfig;
use crate::dialect::control::desk::Desk;
use crate::dialect::control::DemoAccount;
use crate::dialect::wire::{error_body, SimRequest, SimResponse};
use crate::dialect::ws::{Hub, Out, Refusal, WsFamily};
use crate::drive::{self as market, Budget, Drivers};
use crate::engine::changes;
use crate::engine::state::State;
use crate::faults::{FaultKind, Faults};
use crate::json::J;
use crate::market::{ReadError, ReplayStats};
use bytes::Bytes;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// Largest request body accepted (larger bodies are answered 413 with 10004 / 400002).
pub const MAX_BODY: usize = 1 << 20;

/// The exchange: configuration, state, faults, websocket sessions and time (see the module
/// docs).
///
/// # Examples
///
/// Half a minute of the synthetic market in virtual time, a websocket session and a REST
/// read, no socket and no sleep:
///
/// ```
/// use digifinex_sim::{Exchange, SimConfig, WsFamily, WsOut};
///
/// let mut ex = Exchange::new(SimConfig::default())?;
/// let start = ex.now_ms();
/// let ws = ex.ws_connect(WsFamily::Spot).expect("a session");
/// ex.ws_input(ws, br#"{"id":1,"method":"trades.subscribe","params":["BTC_USDT"]}"#);
/// ex.advance_to(start + 30_000);
/// assert_eq!(ex.now_ms(), start + 30_000);
/// let mut frames = 0;
/// while let Some(out) = ex.ws_poll(ws) {
///     assert!(out.json().is_some());
///     frames += 1;
/// }
/// assert!(frames > 2); // the reply, the first trades, then new trades at the ticks
///
/// // A client silent for a minute is dropped, as the venue does, in virtual time too.
/// ex.advance_to(start + 90_000);
/// let last = std::iter::from_fn(|| ex.ws_poll(ws)).last();
/// assert_eq!(last, Some(WsOut::Dropped));
///
/// let req = http::Request::get("/v3/ticker?symbol=btc_usdt").body(Vec::new())?;
/// let answer = ex.handle(req).into_response().expect("an answer");
/// assert_eq!(answer.status(), 200);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Exchange {
    config: SimConfig,
    state: State,
    /// The order flow and the replay of a recording.
    drivers: Drivers,
    faults: Faults,
    hub: Hub,
    time: Time,
    /// Virtual time: the time the markets and sessions were brought to.
    stepped: i64,
    /// The address the URLs in control answers name.
    addr: SocketAddr,
    panics: u64,
    /// The demo account ([`crate::Control::demo_account`]), made on first use.
    demo: Option<DemoAccount>,
    /// The last step left work due (followed time only).
    behind: bool,
}

/// What the adapter is to do with one HTTP request ([`Exchange::handle`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Reply {
    /// Send `response`, `after_ms` of the adapter's time from now (a `LateAnswer` fault: the
    /// request has been applied; 0 otherwise).
    Answer {
        /// The response (with `content-type` and `content-length`).
        response: http::Response<Vec<u8>>,
        /// Milliseconds to hold it back.
        after_ms: u64,
    },
    /// Send the status line, the headers (`content-length` promising the whole body) and the
    /// first half of the body, then close the connection (a `TruncatedBody` fault; the
    /// request has been applied).
    Truncate(http::Response<Vec<u8>>),
    /// Close the connection without answering (a drop fault; `applied`: whether the request
    /// took effect first).
    Drop {
        /// Whether the request was applied.
        applied: bool,
    },
    /// Wait `delay_ms` of the adapter's time (a `Latency` fault), then hand `request` to
    /// [`Exchange::resume`]: nothing has been applied yet.
    Delay {
        /// Milliseconds to wait.
        delay_ms: u64,
        /// The request, to resume.
        request: Delayed,
    },
    /// A websocket upgrade accepted: session `0` is open (answer `101 Switching Protocols`).
    Upgrade(WsId),
}

impl Reply {
    /// The response to send, if the reply is one ([`Reply::Answer`] or, whole,
    /// [`Reply::Truncate`]).
    pub fn response(&self) -> Option<&http::Response<Vec<u8>>> {
        match self {
            Reply::Answer { response, .. } | Reply::Truncate(response) => Some(response),
            _ => None,
        }
    }

    /// The response to send, if the reply is one.
    pub fn into_response(self) -> Option<http::Response<Vec<u8>>> {
        match self {
            Reply::Answer { response, .. } | Reply::Truncate(response) => Some(response),
            _ => None,
        }
    }
}

/// A request held back by a `Latency` fault ([`Reply::Delay`]).
#[derive(Debug)]
pub struct Delayed {
    req: SimRequest,
    fault: Option<FaultKind>,
    upgrade: Option<WsFamily>,
}

/// A websocket session of an [`Exchange`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WsId(pub(crate) u64);

/// One output of a websocket session ([`Exchange::ws_poll`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WsOut {
    /// A binary frame: this JSON text, zlib-compressed as the venue sends it
    /// ([`WsOut::payload`] gives the frame's bytes).
    Binary(String),
    /// A text frame (the `plain_text` websocket fault).
    Text(String),
    /// The exchange dropped the connection (no close frame); nothing follows.
    Dropped,
}

impl WsOut {
    /// The frame's JSON text (`None` for [`WsOut::Dropped`]).
    pub fn json(&self) -> Option<&str> {
        match self {
            WsOut::Binary(t) | WsOut::Text(t) => Some(t),
            WsOut::Dropped => None,
        }
    }

    /// The frame's JSON, decoded.
    pub fn value(&self) -> Option<serde_json::Value> {
        self.json().and_then(|t| serde_json::from_str(t).ok())
    }

    /// The frame's payload as sent on the wire: the zlib stream of a binary frame (level 9,
    /// `78 DA`), the UTF-8 text of a text frame.
    pub fn payload(&self) -> Option<Vec<u8>> {
        match self {
            WsOut::Binary(t) => Some(crate::dialect::ws::zlib(t.as_bytes())),
            WsOut::Text(t) => Some(t.as_bytes().to_vec()),
            WsOut::Dropped => None,
        }
    }
}

/// The address of a caller without one (in-process): `127.0.0.1`.
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

impl Exchange {
    /// The start of an exchange whose configuration names no time and no recording
    /// (2026-01-01T00:00:00Z).
    pub const DEFAULT_START_MS: i64 = 1_767_225_600_000;

    /// An exchange in virtual time (see the module docs, "Time"): the configuration's
    /// markets, and its recording opened (an error when it cannot be read).
    pub fn new(config: SimConfig) -> Result<Exchange, ReadError> {
        let (config, replay) = market::prepare(config)?;
        let replay_start = replay.as_ref().and_then(|r| r.start_ms);
        let start = config
            .start_time_ms
            .or(replay_start)
            .unwrap_or(Exchange::DEFAULT_START_MS);
        let speed = config
            .market
            .as_ref()
            .map_or(config.clock_speed, |m| m.speed);
        let addr = config.addr;
        Ok(Exchange::build(
            config,
            replay,
            Time::virtual_at(start, speed),
            addr,
        ))
    }

    /// An exchange over a prepared configuration, at `time`, naming `addr` in its answers.
    pub(crate) fn build(
        config: SimConfig,
        replay: Option<market::Prepared>,
        time: Time,
        addr: SocketAddr,
    ) -> Exchange {
        let now = time.now();
        let mut state = State::new(&config, now);
        let mut drivers = Drivers::new(&config);
        if let Some(r) = replay {
            market::attach(&mut drivers, r);
        }
        market::open(&mut state, &mut drivers, config.flow_warmup_ms, now);
        let mut hub = Hub::new(config.ws.clone(), time.follows());
        hub.set_now(now);
        // What opening the markets noted is no one's change.
        let _ = changes::take(&mut state);
        Exchange {
            config,
            state,
            drivers,
            faults: Faults::default(),
            hub,
            time,
            stepped: now,
            addr,
            panics: 0,
            demo: None,
            behind: false,
        }
    }

    /// The configuration (completed by a recording's pairs and instruments).
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The exchange time (ms since the Unix epoch).
    pub fn now_ms(&self) -> i64 {
        self.time.now()
    }

    /// Counters of the recorded market being replayed (records read, events applied, lines
    /// skipped, whether the recording has ended); `None` without a replay.
    pub fn replay_stats(&self) -> Option<ReplayStats> {
        self.drivers.stats()
    }

    /// Whether the recording being replayed was read to its end and every event of it applied
    /// (`false` without a replay): the end of a backtest over it.
    pub fn replay_finished(&self) -> bool {
        self.drivers.replay_finished()
    }

    /// Runs everything due by `t_ms` in time order (see the module docs) and moves the time
    /// there; an instant before the current time changes nothing. The order flow runs in full
    /// up to [`crate::SimConfig::flow_catch_up_ms`] (one hour by default) of a longer jump, and
    /// funding settles at most 100 periods of an instrument at once ([`crate::market`],
    /// "Bounded catch-up").
    pub fn advance_to(&mut self, t_ms: i64) {
        let t = t_ms.clamp(MIN_MS, MAX_MS);
        if t > self.time.now() {
            self.time.set(t);
        }
        self.catch_up();
    }

    /// The time of the next thing due: an order flow event, a recorded event, an order
    /// reaching the engine, a funding settlement, a websocket tick or timer. Pure: nothing
    /// changes. `None` when nothing is scheduled.
    pub fn next_event_time(&self) -> Option<i64> {
        if self.behind {
            return Some(self.time.now());
        }
        [
            market::next_event(&self.state, &self.drivers),
            self.hub.next_tick(),
            self.hub.next_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Handles one HTTP request from `127.0.0.1` at the current time ([`Exchange::handle_from`]).
    pub fn handle(&mut self, req: http::Request<Vec<u8>>) -> Reply {
        self.handle_from(LOCAL, req)
    }

    /// Handles one HTTP request from `peer` at the current time: REST, the control API, or a
    /// websocket upgrade (its `Host` and `Origin` checked, then its route's faults, then the
    /// socket cap). Fault rules apply to every path but `/__sim`.
    pub fn handle_from(&mut self, peer: IpAddr, req: http::Request<Vec<u8>>) -> Reply {
        let (parts, body) = req.into_parts();
        let req = SimRequest {
            method: parts.method,
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().unwrap_or("").to_owned(),
            headers: parts.headers,
            body: Bytes::from(body),
            peer,
        };
        let upgrade = WsFamily::of_path(&req.path).filter(|_| is_upgrade(&req.headers));
        if let Some(_family) = upgrade {
            if let Err(r) = self.upgrade_checks(&req) {
                return answer(r);
            }
        } else if req.body.len() > MAX_BODY {
            let code = if req.path.starts_with("/swap/") {
                400002
            } else {
                10004
            };
            return answer(SimResponse::json(
                413,
                &error_body(code, "request body too large"),
            ));
        }
        let plan = if is_control(&req.path) {
            Default::default()
        } else {
            self.faults.plan(req.method.as_str(), &req.path)
        };
        if plan.delay_ms > 0 {
            return Reply::Delay {
                delay_ms: plan.delay_ms,
                request: Delayed {
                    req,
                    fault: plan.fault,
                    upgrade,
                },
            };
        }
        self.apply(req, plan.fault, upgrade)
    }

    /// Applies a request a `Latency` fault held back ([`Reply::Delay`]), at the current time.
    pub fn resume(&mut self, delayed: Delayed) -> Reply {
        let Delayed {
            req,
            fault,
            upgrade,
        } = delayed;
        self.apply(req, fault, upgrade)
    }

    fn apply(
        &mut self,
        req: SimRequest,
        fault: Option<FaultKind>,
        upgrade: Option<WsFamily>,
    ) -> Reply {
        if let Some(family) = upgrade {
            return self.upgrade(&req, family, fault);
        }
        let swap = req.path.starts_with("/swap/");
        // Faults that answer without applying the request.
        match &fault {
            Some(FaultKind::DropBeforeApply) => return Reply::Drop { applied: false },
            Some(FaultKind::TooManyRequests { retry_after_s }) => {
                let code = if swap { 403001 } else { 10005 };
                return answer(
                    SimResponse::json(429, &error_body(code, "request frequency limit exceeded"))
                        .with_header("retry-after", retry_after_s.to_string()),
                );
            }
            Some(FaultKind::ServerError { status }) => {
                let status = if (500..600).contains(status) {
                    *status
                } else {
                    500
                };
                let code = if swap { 500001 } else { 50000 };
                return answer(SimResponse::json(status, &error_body(code, "system error")));
            }
            Some(FaultKind::HtmlError { status }) => {
                let status = if (100..1000).contains(status) {
                    *status
                } else {
                    502
                };
                return answer(SimResponse {
                    status,
                    headers: Vec::new(),
                    content_type: "text/html; charset=utf-8",
                    body: format!(
                        "<html><head><title>{status} Error</title></head><body><center><h1>{status} Error</h1></center><hr><center>nginx</center></body></html>\n"
                    )
                    .into_bytes(),
                });
            }
            _ => {}
        }
        let control = is_control(&req.path);
        let resp = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.route(&req)))
        {
            Ok(r) => r,
            Err(_) => {
                // Defence in depth: a handler bug must not take the adapter down.
                self.panics += 1;
                SimResponse::json(500, &error_body(50000, "system error"))
            }
        };
        if control {
            // A clock operation moved the time: the markets and sessions follow.
            self.catch_up();
        }
        self.flush();
        match fault {
            Some(FaultKind::DropAfterApply) => Reply::Drop { applied: true },
            Some(FaultKind::MalformedJson) => {
                let mut r = resp;
                let mut body = r.body;
                body.truncate(body.len() / 2);
                body.extend_from_slice(b",,}<not json");
                r.body = body;
                answer(r)
            }
            Some(FaultKind::TruncatedBody) => Reply::Truncate(to_http(resp)),
            Some(FaultKind::LateAnswer { delay_ms }) => Reply::Answer {
                response: to_http(resp),
                after_ms: delay_ms,
            },
            _ => answer(resp),
        }
    }

    /// Routes one request (no faults applied).
    fn route(&mut self, req: &SimRequest) -> SimResponse {
        let path = req.path.as_str();
        let now = self.time.now();
        if is_control(path) {
            if !crate::host::loopback_host(&req.headers, self.addr) {
                return SimResponse::json(
                    403,
                    &J::obj().with(
                        "error",
                        "the control API answers only requests whose Host is localhost or an IP \
                         address (DNS rebinding protection)",
                    ),
                );
            }
            return crate::dialect::control::http::handle(&mut self.desk(), req);
        }
        if WsFamily::of_path(path).is_some() {
            return SimResponse::json(
                400,
                &J::obj().with("error", "a websocket: send an HTTP/1.1 upgrade request"),
            );
        }
        if path == "/v3" || path.starts_with("/v3/") {
            return crate::dialect::spot::handle(&self.config, &mut self.state, now, req);
        }
        if path == "/swap" || path.starts_with("/swap/") {
            return crate::dialect::swap::handle(&self.config, &mut self.state, now, req);
        }
        SimResponse::json(404, &error_body(10009, "endpoint unknown"))
    }

    /// The `Host` and `Origin` checks of an upgrade (HTTP 403 when refused).
    fn upgrade_checks(&self, req: &SimRequest) -> Result<(), SimResponse> {
        let host_ok = self.config.allow_public_bind
            || req
                .header("host")
                .is_some_and(|h| crate::host::is_loopback_host(h, Some(self.addr.ip())));
        if !host_ok {
            return Err(text(
                403,
                "a websocket upgrade is answered only when its Host is localhost or an IP address \
                 (DNS rebinding protection)",
            ));
        }
        let origin = req.headers.get("origin").map(|v| v.to_str().unwrap_or(""));
        if !crate::host::loopback_origin(origin) {
            return Err(text(
                403,
                "a websocket upgrade from a web page is answered only when the page's Origin is \
                 on the loopback",
            ));
        }
        Ok(())
    }

    /// A websocket upgrade after its checks: the route's fault, the handshake's headers, the
    /// socket cap.
    fn upgrade(&mut self, req: &SimRequest, family: WsFamily, fault: Option<FaultKind>) -> Reply {
        match &fault {
            Some(FaultKind::DropBeforeApply | FaultKind::DropAfterApply) => {
                return Reply::Drop { applied: false }
            }
            Some(FaultKind::TooManyRequests { .. }) => {
                return answer(text(429, "too many requests"))
            }
            Some(FaultKind::ServerError { status } | FaultKind::HtmlError { status }) => {
                let status = if (500..600).contains(status) {
                    *status
                } else {
                    502
                };
                return answer(text(status, "bad gateway"));
            }
            _ => {}
        }
        if req.method != http::Method::GET {
            return answer(text(405, "a websocket upgrade is a GET"));
        }
        if req.header("sec-websocket-version").map(str::trim) != Some("13") {
            return answer(
                text(426, "websocket version 13 required")
                    .with_header("sec-websocket-version", "13"),
            );
        }
        if req.headers.get("sec-websocket-key").is_none() {
            return answer(text(400, "Sec-WebSocket-Key missing"));
        }
        match self.hub.admit(family, req.peer, self.time.now()) {
            Ok(id) => Reply::Upgrade(WsId(id)),
            Err(Refusal::Full) => answer(text(503, "too many websocket connections")),
            Err(Refusal::Handshake502) => answer(text(502, "bad gateway")),
        }
    }

    /// Opens a websocket session of `family` in process: the upgrade goes through the same
    /// checks and faults as one through [`Exchange::handle`] (from `127.0.0.1`, `Host:
    /// localhost`); anything but an accepted upgrade comes back as the [`Reply`].
    pub fn ws_connect(&mut self, family: WsFamily) -> Result<WsId, Box<Reply>> {
        let path = match family {
            WsFamily::Spot => "/ws/v1/",
            WsFamily::Swap => "/swap_ws/v2/",
        };
        let req = http::Request::get(path)
            .header("host", "localhost")
            .header("connection", "Upgrade")
            .header("upgrade", "websocket")
            .header("sec-websocket-version", "13")
            .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
            .body(Vec::new());
        let Ok(req) = req else {
            return Err(Box::new(answer(text(400, "bad request"))));
        };
        match self.handle(req) {
            Reply::Upgrade(id) => Ok(id),
            other => Err(Box::new(other)),
        }
    }

    /// One frame from the client of session `ws` at the current time: the payload of a text
    /// or a binary frame (both are read as JSON text). A dropped, closed or banned session
    /// ignores it.
    pub fn ws_input(&mut self, ws: WsId, payload: &[u8]) {
        let now = self.time.now();
        self.hub
            .input(&self.state, ws.0, std::str::from_utf8(payload).ok(), now);
        self.flush();
    }

    /// The next output of session `ws`, oldest first; `None` when nothing waits (or the
    /// session is gone: after [`WsOut::Dropped`] was read, or [`Exchange::ws_close`]).
    pub fn ws_poll(&mut self, ws: WsId) -> Option<WsOut> {
        loop {
            return match self.hub.poll(ws.0)? {
                Out::Zlib(t) => Some(WsOut::Binary(t)),
                Out::Text(t) => Some(WsOut::Text(t)),
                Out::Dropped => Some(WsOut::Dropped),
                // Only with an adapter's timers.
                Out::DropAfter(_) => continue,
            };
        }
    }

    /// The client closed session `ws` (or its connection ended): it is forgotten, with what
    /// it had not read.
    pub fn ws_close(&mut self, ws: WsId) {
        self.hub.close(ws.0);
    }

    /// Whether session `ws` is open (not dropped or closed).
    pub fn ws_is_open(&self, ws: WsId) -> bool {
        self.hub.is_open(ws.0)
    }

    /// The next raw output of session `id` (the server's writer).
    pub(crate) fn ws_poll_raw(&mut self, id: WsId) -> Option<Out> {
        self.hub.poll(id.0)
    }

    /// Sessions given output since the last call (with the adapter's timers).
    pub(crate) fn ws_ready(&mut self) -> Vec<WsId> {
        self.hub.take_ready().into_iter().map(WsId).collect()
    }

    /// One public tick of the websockets now (the server's, on its wall clock).
    pub(crate) fn ws_tick(&mut self) {
        if self.hub.connections() == 0 {
            return;
        }
        let now = self.time.now();
        self.hub.tick(&self.state, now);
    }

    /// Open websocket sessions.
    pub(crate) fn ws_connections(&self) -> usize {
        self.hub.connections()
    }

    /// The reference clock reads `reference` (the server's wall clock): the time follows its
    /// rule and the markets take one bounded step towards it.
    pub(crate) fn follow(&mut self, reference: i64) {
        self.time.follow(reference);
        self.step_followed(self.time.now());
    }

    /// One bounded step of the markets towards `target` (followed time); whether work due by
    /// then remains.
    pub(crate) fn step_towards(&mut self, target: i64) -> bool {
        self.step_followed(target);
        self.behind
    }

    /// Whether the last step left work due (followed time).
    pub(crate) fn behind(&self) -> bool {
        self.behind
    }

    fn step_followed(&mut self, target: i64) {
        self.behind = market::step(&mut self.state, &mut self.drivers, target, Budget::STEP).behind;
        self.flush();
    }

    /// Brings the markets and sessions up to the current time after it moved: in virtual time
    /// everything due, the ticks and timers in order; followed time one bounded step.
    fn catch_up(&mut self) {
        let t = self.time.now();
        if self.time.follows() {
            self.step_followed(t);
            return;
        }
        if t <= self.stepped {
            // Moved back (or not at all): nothing is undone.
            self.stepped = t;
            return;
        }
        loop {
            let floor = self.stepped;
            let mut stop = t;
            for at in [self.hub.next_tick(), self.hub.next_deadline()]
                .into_iter()
                .flatten()
            {
                stop = stop.min(at.max(floor));
            }
            loop {
                let p = market::step(&mut self.state, &mut self.drivers, stop, Budget::FULL);
                self.flush_at(stop);
                if !p.behind {
                    break;
                }
            }
            self.stepped = stop;
            self.hub.expire(stop);
            if self.hub.next_tick().is_some_and(|x| x <= stop) {
                self.hub.timed_tick(&self.state, stop);
            }
            let more = [self.hub.next_tick(), self.hub.next_deadline()]
                .into_iter()
                .flatten()
                .any(|x| x <= t);
            if stop >= t && !more {
                break;
            }
        }
        self.hub.set_now(t);
    }

    fn flush(&mut self) {
        self.flush_at(self.time.now());
    }

    /// Renders the private pushes of what changed, at `now`.
    fn flush_at(&mut self, now: i64) {
        if changes::pending(&self.state) {
            let c = changes::take(&mut self.state);
            self.hub.changed(&self.state, &c, now);
        }
    }

    /// The parts a control operation works on.
    pub(crate) fn desk(&mut self) -> Desk<'_> {
        Desk {
            config: &self.config,
            st: &mut self.state,
            dr: &mut self.drivers,
            faults: &mut self.faults,
            hub: &mut self.hub,
            time: &mut self.time,
            demo: &mut self.demo,
            addr: self.addr,
            panics: self.panics,
        }
    }

    /// Runs control operation `f` and brings the exchange up to the time it left.
    pub(crate) fn control<R>(&mut self, f: impl FnOnce(&mut Desk<'_>) -> R) -> R {
        let r = f(&mut self.desk());
        self.catch_up();
        self.flush();
        r
    }
}

fn is_control(path: &str) -> bool {
    path == "/__sim" || path.starts_with("/__sim/")
}

/// Whether the headers ask for a websocket upgrade (`Upgrade: websocket`, `Connection`
/// listing `upgrade`).
pub(crate) fn is_upgrade(h: &http::HeaderMap) -> bool {
    let has = |name: &str, token: &str| {
        h.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    has("upgrade", "websocket") && has("connection", "upgrade")
}

fn text(status: u16, msg: &str) -> SimResponse {
    SimResponse {
        status,
        headers: Vec::new(),
        content_type: "text/plain; charset=utf-8",
        body: msg.as_bytes().to_vec(),
    }
}

fn answer(r: SimResponse) -> Reply {
    Reply::Answer {
        response: to_http(r),
        after_ms: 0,
    }
}

/// The response as an `http::Response`: `content-type`, `content-length` of the whole body,
/// then the handler's headers.
pub(crate) fn to_http(r: SimResponse) -> http::Response<Vec<u8>> {
    let len = r.body.len();
    let mut builder = http::Response::builder()
        .status(r.status)
        .header("content-type", r.content_type)
        .header("content-length", len.to_string());
    for (k, v) in &r.headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    builder.body(r.body).unwrap_or_else(|_| {
        let body = b"{\"code\":50000,\"msg\":\"system error\"}".to_vec();
        let mut resp = http::Response::new(body);
        *resp.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
        resp
    })
}
