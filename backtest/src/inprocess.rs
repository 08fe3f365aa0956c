//! The in-process adapter: an [`Exchange`] in the same process, in virtual time, behind the
//! clients' seams (the REST [`Responder`], the websocket [`Pacer`], the [`Clock`]).
//!
//! - **REST**: [`InProcess::responder`] answers each request from [`Exchange::handle`] at the
//!   exchange's current time; a REST call takes the round trip's latency in virtual time (the
//!   exchange runs everything due meanwhile: the request reaches it `entry` after it was sent,
//!   the answer reaches the client `response` after that; [`InProcess::rest_latency`]). A
//!   client's waits (backoff, weight budget, `retry-after`) move the time instead of sleeping
//!   ([`Responder::wait`]). The exchange's faults come back as the network's failures: a
//!   dropped or cut connection is a lost connection (an order's outcome unknown), a latency
//!   fault is waited in virtual time, a late answer is held back in virtual time.
//! - **Websockets**: [`InProcess::pacer`] opens sessions with [`Exchange::ws_connect`]; the
//!   stream hands them its frames and reads their replies and pushes on the thread (or task)
//!   that reads the stream, and, when it has nothing to do until its next timer, lets the
//!   time pass to the exchange's next event ([`Exchange::next_event_time`]) or to the timer,
//!   whichever is first ([`digifinex_core::ws::pace`]). Frames come as their JSON text by
//!   default (no zlib either way); [`InProcess::compressed`] sends them as the venue does.
//! - **Time**: [`InProcess::clock`] reads the exchange's time; a client built on it signs
//!   with it and times its streams by it. [`InProcess::end_at`] sets the instant at which time
//!   is over: a stream waiting past it ends (its iterator returns `None`).
//!
//! Nothing waits on the wall clock, and one thread (the bot's) drives everything: the same
//! configuration, seed and calls give the same answers and pushes, byte for byte, as the
//! server gives them at the same instants.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use digifinex_core::record::{Responder, Unanswered};
use digifinex_core::ws::{PacedSocket, Pacer, Received};
use digifinex_core::Clock;
use digifinex_core::TimestampMillis;
use digifinex_core::{BoxError, Family, TransportErrorKind};
use digifinex_sim::{Control, Exchange, Reply, SimConfig, WsFamily, WsId, WsOut};

use crate::latency::RestLatency;

/// The base URL the in-process clients are given (any URL would do: nothing is sent).
pub const BASE_URL: &str = "http://127.0.0.1:1";

/// The most latency faults one request may go through before it is answered (each one waits
/// in virtual time, then the request is applied).
const MAX_DELAYS: usize = 16;

/// An exchange in the same process, shared by the clients it is wired to (cheap to clone; see
/// the module docs).
#[derive(Debug, Clone)]
pub struct InProcess {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    exchange: Arc<Mutex<Exchange>>,
    settings: Mutex<Settings>,
    sampler: Mutex<Option<Sampler>>,
}

#[derive(Debug, Clone, Default)]
struct Settings {
    latency: RestLatency,
    /// REST calls answered so far (the latency model's draw number).
    calls: u64,
    /// The time the exchange was wired at (the latency model's run start).
    start_ms: i64,
    compressed: bool,
    end_ms: Option<i64>,
    end_with_recording: bool,
}

/// What is called at every sampling instant ([`InProcess::sample_every`]).
type SampleFn = Box<dyn FnMut(&Control, i64) + Send>;

/// A periodic observer of the exchange.
struct Sampler {
    every_ms: i64,
    next_ms: i64,
    f: SampleFn,
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampler")
            .field("every_ms", &self.every_ms)
            .field("next_ms", &self.next_ms)
            .finish_non_exhaustive()
    }
}

impl InProcess {
    /// An exchange of `config` in virtual time ([`Exchange::new`]).
    pub fn new(config: SimConfig) -> Result<InProcess, digifinex_sim::market::ReadError> {
        Ok(InProcess::from_exchange(Exchange::new(config)?))
    }

    /// Wires `exchange` (keeping its time and state).
    pub fn from_exchange(exchange: Exchange) -> InProcess {
        let start_ms = exchange.now_ms();
        InProcess {
            shared: Arc::new(Shared {
                exchange: Arc::new(Mutex::new(exchange)),
                settings: Mutex::new(Settings {
                    start_ms,
                    ..Settings::default()
                }),
                sampler: Mutex::new(None),
            }),
        }
    }

    /// The REST round trip in virtual time: the request reaches the exchange `entry` after it
    /// was sent, the answer reaches the client `response` after that (0 and 0 by default).
    pub fn rest_latency(self, entry: Duration, response: Duration) -> InProcess {
        self.latency_model(RestLatency::Fixed {
            entry_ms: millis(entry),
            response_ms: millis(response),
        })
    }

    /// The REST round trip's latency model ([`RestLatency`]: fixed, uniform, or interpolated
    /// from round trips logged against the venue).
    pub fn latency_model(self, model: RestLatency) -> InProcess {
        self.settings().latency = model;
        self
    }

    /// Websocket frames as the venue sends them (zlib streams in binary frames), inflated by
    /// the client as from the network; by default their JSON text (faster, same events).
    pub fn compressed(self, compressed: bool) -> InProcess {
        self.settings().compressed = compressed;
        self
    }

    /// Time is over at `t_ms`: a stream that waits past it closes and ends, and time does
    /// not move past it; `None` (the default) never ends.
    pub fn end_at(self, t_ms: Option<i64>) -> InProcess {
        self.settings().end_ms = t_ms;
        self
    }

    /// Time is over once the recording being replayed has been read to its end (and nothing
    /// it scheduled is left), as well as at [`InProcess::end_at`].
    pub fn end_with_recording(self, end: bool) -> InProcess {
        self.settings().end_with_recording = end;
        self
    }

    /// Calls `f` with the control handle and the time at every multiple of `every_ms` after
    /// the current time that the exchange reaches while a stream waits or a client waits
    /// ([`InProcess::wait`], a backoff): the time stops there for it. An equity curve is
    /// sampled this way.
    pub fn sample_every(&self, every_ms: i64, f: impl FnMut(&Control, i64) + Send + 'static) {
        let every_ms = every_ms.max(1);
        let next_ms = self.now_ms().saturating_add(every_ms);
        *self
            .shared
            .sampler
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(Sampler {
            every_ms,
            next_ms,
            f: Box::new(f),
        });
    }

    /// Lets `duration` of virtual time pass (stopping at each sampling instant), as a bot's
    /// sleep; `false` when time is over.
    pub fn wait(&self, duration: Duration) -> bool {
        let target = self
            .now_ms()
            .saturating_add(i64::try_from(millis(duration)).unwrap_or(i64::MAX));
        // Each step moves the time on (or samples at the current instant, once); at the end,
        // and at the exchange's last instant, time is over.
        while self.now_ms() < target {
            if !self.shared.step(Some(target)) {
                return false;
            }
        }
        true
    }

    /// Lets virtual time pass to the exchange's next event (a market change, a push due, a
    /// timer of its own), or by `max` if nothing comes sooner, stopping at each sampling
    /// instant; `false` when time is over. For a reader of several streams on one thread: it
    /// reads what each has ready, then waits here for the next thing to happen.
    pub fn wait_for_event(&self, max: Duration) -> bool {
        let timer = self
            .now_ms()
            .saturating_add(i64::try_from(millis(max)).unwrap_or(i64::MAX));
        self.shared.step_to_event(timer)
    }

    /// Whether time is over ([`InProcess::end_at`], [`InProcess::end_with_recording`]).
    pub fn is_over(&self) -> bool {
        let ex = self.shared.lock();
        self.shared.over(&ex)
    }

    /// The instant at which time is over, if any ([`InProcess::end_at`]).
    pub fn end_ms(&self) -> Option<i64> {
        self.settings().end_ms
    }

    /// The exchange, shared ([`Control::of`] and anything else that holds it).
    pub fn exchange(&self) -> &Arc<Mutex<Exchange>> {
        &self.shared.exchange
    }

    /// Runs `f` on the exchange (nothing else touches it meanwhile).
    pub fn with<R>(&self, f: impl FnOnce(&mut Exchange) -> R) -> R {
        f(&mut self.shared.lock())
    }

    /// The control operations (accounts, balances, faults, the clock) on this exchange.
    pub fn control(&self) -> Control {
        Control::of(self.shared.exchange.clone())
    }

    /// The exchange's time (ms since the Unix epoch).
    pub fn now_ms(&self) -> i64 {
        self.shared.lock().now_ms()
    }

    /// Runs everything due by `t_ms` ([`Exchange::advance_to`]).
    pub fn advance_to(&self, t_ms: i64) {
        self.shared.lock().advance_to(t_ms);
    }

    /// The exchange's time as a [`Clock`], for the clients.
    pub fn clock(&self) -> Arc<dyn Clock> {
        Arc::new(ExchangeClock(self.shared.clone()))
    }

    /// The REST seam: answers from the exchange (see the module docs).
    pub fn responder(&self) -> Arc<dyn Responder> {
        Arc::new(Rest(self.shared.clone()))
    }

    /// The websocket seam: sessions of the exchange, in its time (see the module docs).
    pub fn pacer(&self) -> Arc<dyn Pacer> {
        Arc::new(Sockets(self.shared.clone()))
    }

    /// A blocking client wired to this exchange: its REST calls, its streams and its clock
    /// (add credentials, e.g. the demo account's, and build).
    #[cfg(feature = "ureq")]
    pub fn ureq_client(&self) -> digifinex_ureq::ClientBuilder {
        digifinex_ureq::Client::builder()
            .spot_base_url(format!("{BASE_URL}/v3"))
            .swap_base_url(BASE_URL)
            .allow_http(true)
            .clock(self.clock())
            .responder(self.responder())
            .ws_pacer(self.pacer())
    }

    /// An async client wired to this exchange: its REST calls, its streams and its clock (add
    /// credentials and build).
    #[cfg(feature = "hyper")]
    pub fn hyper_client(&self) -> digifinex_hyper::ClientBuilder {
        digifinex_hyper::Client::builder()
            .spot_base_url(format!("{BASE_URL}/v3"))
            .swap_base_url(BASE_URL)
            .allow_http(true)
            .clock(self.clock())
            .responder(self.responder())
            .ws_pacer(self.pacer())
    }

    fn settings(&self) -> MutexGuard<'_, Settings> {
        self.shared.settings()
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Exchange> {
        self.exchange.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn settings(&self) -> MutexGuard<'_, Settings> {
        self.settings.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether time is over.
    fn over(&self, ex: &Exchange) -> bool {
        let s = self.settings().clone();
        ex.now_ms() >= digifinex_sim::MAX_MS
            || s.end_ms.is_some_and(|e| ex.now_ms() >= e)
            || (s.end_with_recording && ex.replay_finished())
    }

    /// Moves to the exchange's next event, or to `timer` if that comes first (stopping at a
    /// sampling instant and at the end); `false` when time is over.
    fn step_to_event(&self, timer: i64) -> bool {
        let next = {
            let ex = self.lock();
            let now = ex.now_ms();
            ex.next_event_time().map_or(timer, |t| t.clamp(now, timer))
        };
        self.step(Some(next))
    }

    /// Moves to `to` (stopping at a sampling instant and at the end), then samples if one is
    /// due; `false` when time is over.
    fn step(&self, to: Option<i64>) -> bool {
        let end = self.settings().end_ms;
        let mut sampler = self.sampler.lock().unwrap_or_else(|p| p.into_inner());
        let due = {
            let mut ex = self.lock();
            if self.over(&ex) {
                return false;
            }
            let now = ex.now_ms();
            let mut t = to.unwrap_or(now).max(now);
            if let Some(e) = end {
                t = t.min(e);
            }
            let sample = sampler.as_ref().map(|s| s.next_ms);
            if let Some(at) = sample.filter(|at| *at <= t) {
                t = at;
            }
            ex.advance_to(t);
            sample.is_some_and(|at| at <= ex.now_ms())
        };
        if due {
            if let Some(s) = sampler.as_mut() {
                let now = self.lock().now_ms();
                let control = Control::of(self.exchange.clone());
                (s.f)(&control, now);
                while s.next_ms <= now {
                    s.next_ms = s.next_ms.saturating_add(s.every_ms);
                }
            }
        }
        true
    }

    /// Moves the exchange on by `ms` (never past the end).
    fn pass(&self, ex: &mut Exchange, ms: u64) {
        let end = self.settings().end_ms;
        let t = ex
            .now_ms()
            .saturating_add(i64::try_from(ms).unwrap_or(i64::MAX));
        ex.advance_to(end.map_or(t, |e| t.min(e.max(ex.now_ms()))));
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The exchange's time.
#[derive(Debug)]
struct ExchangeClock(Arc<Shared>);

impl Clock for ExchangeClock {
    fn now(&self) -> TimestampMillis {
        TimestampMillis(self.0.lock().now_ms())
    }
}

/// The REST seam.
#[derive(Debug)]
struct Rest(Arc<Shared>);

impl Responder for Rest {
    fn respond(
        &self,
        request: &http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, BoxError> {
        let mut ex = self.0.lock();
        let (entry_ms, response_ms) = {
            let mut s = self.0.settings();
            let n = s.calls;
            s.calls = s.calls.wrapping_add(1);
            s.latency.legs(ex.now_ms(), s.start_ms, n)
        };
        self.0.pass(&mut ex, entry_ms);
        let mut reply = ex.handle(copy(request)?);
        for _ in 0..MAX_DELAYS {
            let Reply::Delay { delay_ms, request } = reply else {
                break;
            };
            self.0.pass(&mut ex, delay_ms);
            reply = ex.resume(request);
        }
        let response = match reply {
            Reply::Answer { response, after_ms } => {
                self.0.pass(&mut ex, after_ms);
                response
            }
            Reply::Truncate(_) => {
                return Err(lost("the exchange cut the answer's body short"));
            }
            Reply::Drop { .. } => {
                return Err(lost("the exchange closed the connection without answering"));
            }
            Reply::Delay { .. } => {
                return Err(lost("the exchange held the request back too many times"));
            }
            _ => {
                return Err(Box::new(Unanswered::new(
                    TransportErrorKind::Other,
                    "the exchange answered with a websocket upgrade",
                )));
            }
        };
        self.0.pass(&mut ex, response_ms);
        Ok(response)
    }

    fn keeps_time(&self) -> bool {
        true
    }

    fn wait(&self, duration: Duration) -> bool {
        let target = self
            .0
            .lock()
            .now_ms()
            .saturating_add(i64::try_from(millis(duration)).unwrap_or(i64::MAX));
        while self.0.lock().now_ms() < target {
            if !self.0.step(Some(target)) {
                break;
            }
        }
        true
    }
}

fn lost(message: &str) -> BoxError {
    Box::new(Unanswered::new(TransportErrorKind::ConnectionLost, message))
}

/// The request as the exchange takes it (the client keeps its own).
fn copy(request: &http::Request<Vec<u8>>) -> Result<http::Request<Vec<u8>>, BoxError> {
    let mut b = http::Request::builder()
        .method(request.method().clone())
        .uri(request.uri().clone())
        .version(request.version());
    for (k, v) in request.headers() {
        b = b.header(k, v);
    }
    b.body(request.body().clone()).map_err(|e| {
        Box::new(Unanswered::new(
            TransportErrorKind::InvalidRequest,
            e.to_string(),
        )) as BoxError
    })
}

/// The websocket seam.
#[derive(Debug)]
struct Sockets(Arc<Shared>);

impl Pacer for Sockets {
    fn connect(&self, family: Family) -> Result<Box<dyn PacedSocket>, String> {
        let family = match family {
            Family::Spot => WsFamily::Spot,
            _ => WsFamily::Swap,
        };
        let compressed = self.0.settings().compressed;
        let mut ex = self.0.lock();
        match ex.ws_connect(family) {
            Ok(id) => Ok(Box::new(Session {
                shared: self.0.clone(),
                id,
                compressed,
            })),
            Err(reply) => Err(match reply.response() {
                Some(r) => format!("HTTP {}", r.status().as_u16()),
                None => "the exchange closed the connection".to_owned(),
            }),
        }
    }

    fn idle(&self, wait: Duration) -> bool {
        let now = self.0.lock().now_ms();
        let timer = now.saturating_add(i64::try_from(millis(wait)).unwrap_or(i64::MAX));
        self.0.step_to_event(timer)
    }

    /// The exchange's seed: the same run's streams back off and recycle alike.
    fn seed(&self) -> Option<u64> {
        Some(self.0.lock().config().seed)
    }
}

/// One websocket session of the exchange.
#[derive(Debug)]
struct Session {
    shared: Arc<Shared>,
    id: WsId,
    compressed: bool,
}

impl PacedSocket for Session {
    fn send(&mut self, text: &str) -> Result<(), String> {
        self.shared.lock().ws_input(self.id, text.as_bytes());
        Ok(())
    }

    fn poll(&mut self) -> Option<Received> {
        let out = self.shared.lock().ws_poll(self.id)?;
        Some(match out {
            WsOut::Binary(_) if self.compressed => {
                Received::Binary(out.payload().unwrap_or_default())
            }
            WsOut::Binary(t) | WsOut::Text(t) => Received::Text(t),
            _ => Received::Closed("the exchange dropped the connection".to_owned()),
        })
    }

    fn close(&mut self) {
        self.shared.lock().ws_close(self.id);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.shared.lock().ws_close(self.id);
    }
}
