//! The client's whole request cycle as a sans-IO state machine, so that the blocking and the
//! async transports share every line except moving bytes and sleeping.
//!
//! A [`Session`] holds what lives across requests: config, credentials, the clock and its
//! server offset, the retry policy and the optional weight budgets. [`Session::call`] starts a
//! [`Call`] for one endpoint; the transport drives it: it asks [`Call::next`] (through the
//! [`Drive`] trait) for an [`Action`], sends the request it is given and reports the answer
//! ([`Drive::on_owned_response`] or [`Drive::on_response`]) or the failure
//! ([`Drive::on_transport_error`], with the kind decided by the phase the transport was in),
//! sleeps when told to, and stops at [`Action::Done`]. This is the whole loop of both clients;
//! here the "transport" is a function playing the venue, so the bytes that go back and forth
//! are visible. The server's clock is 10 s ahead of ours: the first answer is a spot 10008
//! (timestamp outside the window), the call syncs the clock through `GET /v3/time` and
//! re-signs the same request at the server's time:
//!
//! ```
//! use std::sync::Arc;
//! use digifinex_core::session::{Action, Drive, Session};
//! use digifinex_core::{http, spot, Credentials, FixedClock, TimestampMillis, TransportErrorKind};
//!
//! // What a transport does: send the bytes, return the answer. This one plays the venue.
//! fn venue(request: &http::Request<Vec<u8>>) -> Result<http::Response<Vec<u8>>, std::io::Error> {
//!     let server_secs = 1_700_000_010; // 10 s ahead of the clock below
//!     let body = match (request.uri().path(), request.headers().get("access-timestamp")) {
//!         ("/v3/time", _) => format!(r#"{{"server_time":{server_secs},"code":0}}"#),
//!         (_, Some(ts)) if ts.to_str().ok() != Some(&server_secs.to_string()) => {
//!             r#"{"code":10008}"#.to_owned() // the timestamp is outside the window
//!         }
//!         _ => r#"{"code":0,"list":[{"currency":"USDT","free":"90","total":"100"}]}"#.to_owned(),
//!     };
//!     let response = http::Response::builder().status(200).body(body.into_bytes());
//!     response.map_err(std::io::Error::other)
//! }
//!
//! let session = Session::builder()
//!     .credentials(Credentials::new("my-key", "my-secret"))
//!     .clock(Arc::new(FixedClock(TimestampMillis(1_700_000_000_000))))
//!     .without_weight_budget()
//!     .build();
//! let mut call = session.call(&spot::SpotAssetsRequest);
//! let mut sent = Vec::new();
//! let answer = loop {
//!     match call.next() {
//!         Action::Send(request) => {
//!             sent.push(format!("{} {}", request.method(), request.uri().path()));
//!             match venue(&request) {
//!                 Ok(response) => {
//!                     let (parts, body) = response.into_parts();
//!                     call.on_owned_response(http::Response::from_parts(parts, body.as_slice()));
//!                 }
//!                 // Decide the kind by where the transport was: `Connect` if no byte was written.
//!                 Err(e) => call.on_transport_error(TransportErrorKind::ConnectionLost, e.into()),
//!             }
//!         }
//!         Action::Wait(delay) => std::thread::sleep(delay),
//!         Action::Done(result) => break result?,
//!     }
//! };
//! assert_eq!(sent, ["GET /v3/spot/assets", "GET /v3/time", "GET /v3/spot/assets"]);
//! assert_eq!(answer.attempts, 2);
//! assert_eq!(answer.value.list[0].currency, "USDT");
//! assert!(session.offset_ms() > 9_000); // the server's clock, measured by the midpoint rule
//! # Ok::<(), digifinex_core::Error>(())
//! ```
//!
//! [`crate::exchange::drive_with`] is this loop for any closure, and
//! [`crate::exchange::send_with`] starts the call too.
//!
//! Inside, a call: waits for the weight budget (on by default); builds and signs the request
//! at the clock's time plus the server offset; parses the answer; on a spot 10008 (timestamp
//! outside the window) syncs the clock once through `GET /v3/time` and re-signs and resends the
//! same request (10008 is a definite rejection, so this is safe for orders too); on a swap
//! 400004 (signature mismatch, which a stale signed timestamp also causes) syncs once through
//! `GET /swap/v2/public/time` and resends only if the offset moved by more than
//! [`SWAP_RESYNC_MIN_SHIFT_MS`]; retries reads
//! by the [`RetryPolicy`]; and turns an uncertain failure of a state-changing request into
//! [`Error::OutcomeUnknown`], which is never re-sent.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::budget::{BanSchedule, WeightBudget, SPOT_WEIGHT_PER_MINUTE, SWAP_WEIGHT_PER_MINUTE};
use crate::clock::{estimate_offset, Clock, SystemClock};
use crate::config::Config;
use crate::credentials::Credentials;
use crate::endpoint::{build, parse_endpoint, Endpoint, Family, Meta};
use crate::error::{
    ApiCode, BoxError, Error, SpotCode, SwapCode, TransportErrorKind, TypedRequest,
};
use crate::policy::{settle, RetryDecision, RetryPolicy};
use crate::ratelimit::{RateLimitUsage, WeightTable};
use crate::types::TimestampMillis;

/// A typed result with the facts of the exchange that produced it.
#[derive(Debug, Clone)]
pub struct Response<T> {
    /// The typed output.
    pub value: T,
    /// HTTP status of the final answer.
    pub status: u16,
    /// Headers of the final answer.
    pub headers: http::HeaderMap,
    /// Rate-limit usage reported by the final answer (swap only; empty for spot).
    pub usage: RateLimitUsage,
    /// Time between sending the final request and receiving its answer, by the session clock.
    pub latency: Duration,
    /// Attempts made (1 without retries or resync).
    pub attempts: u32,
}

impl<T> Response<T> {
    /// The value, and the rest of the answer without it.
    pub fn split(self) -> (T, Response<()>) {
        let Response {
            value,
            status,
            headers,
            usage,
            latency,
            attempts,
        } = self;
        let rest = Response {
            value: (),
            status,
            headers,
            usage,
            latency,
            attempts,
        };
        (value, rest)
    }

    /// The same answer carrying `value` instead.
    pub fn with<U>(self, value: U) -> Response<U> {
        Response {
            value,
            status: self.status,
            headers: self.headers,
            usage: self.usage,
            latency: self.latency,
            attempts: self.attempts,
        }
    }
}

/// What the transport must do next for a [`Call`].
#[derive(Debug)]
pub enum Action<T> {
    /// Send this request, then report with [`Call::on_response`] or
    /// [`Call::on_transport_error`].
    Send(http::Request<Vec<u8>>),
    /// Sleep this long, then ask [`Call::next`] again.
    Wait(Duration),
    /// The call is finished.
    Done(Result<Response<T>, Error>),
}

/// Weight budgets shared by the calls of one session.
#[derive(Debug)]
struct Budgets {
    spot: WeightBudget,
    /// Unsigned swap routes (limited per IP).
    swap_public: WeightBudget,
    /// Signed swap routes (limited per account and per API key).
    swap_private: WeightBudget,
    /// Route weights loaded from `/swap/v2/public/api_weight`; they win over the declared ones.
    swap_weights: WeightTable,
}

/// The longest a call waits for the weight budget by default: 10 seconds. A budget that needs
/// longer (the minute's weight is spent) ends the call with [`Error::BudgetExhausted`].
pub const DEFAULT_MAX_BUDGET_WAIT: Duration = Duration::from_secs(10);

/// A swap resync after 400004 leads to a resend only when the clock offset moved by more than
/// this (ms); a smaller shift means the signature itself is wrong.
pub const SWAP_RESYNC_MIN_SHIFT_MS: u64 = 1000;

/// Everything that lives across requests. Cheap to share behind an `Arc`; all methods take
/// `&self`.
pub struct Session {
    config: Config,
    credentials: Option<Credentials>,
    clock: Arc<dyn Clock>,
    offset_ms: AtomicI64,
    /// Whether the offset was measured (or set): see [`Session::clock_measured`].
    measured: AtomicBool,
    retry: RetryPolicy,
    auto_sync: bool,
    budgets: Option<Mutex<Budgets>>,
    max_budget_wait: Duration,
    /// Spot rate-limit violations and the ban they incur.
    spot_ban: Mutex<SpotBan>,
    time_probes: TimeProbes,
    /// How long the market rules stay fresh (`None`: the rules' default).
    rules_refresh: Option<Duration>,
    /// What the API layer keeps here (the market rules' cache of `rules/`, whose methods on
    /// the session live there).
    attached: Attached,
}

/// What the layers above keep in a session, one value per type, made on first use (the market
/// rules' cache). The session holds it and names none of it: the protocol layer imports
/// nothing from the API layer, and the API layer reaches its own value by its type.
#[derive(Default)]
pub(crate) struct Attached(Mutex<HashMap<TypeId, Box<dyn Any + Send>>>);

impl Attached {
    /// Runs `f` on the value of type `T`, made by `make` when there is none yet.
    pub(crate) fn with<T, R>(&self, make: impl FnOnce() -> T, f: impl FnOnce(&mut T) -> R) -> R
    where
        T: Any + Send,
    {
        let mut map = lock(&self.0);
        let key = TypeId::of::<T>();
        if let Some(value) = map.get_mut(&key).and_then(|v| v.downcast_mut::<T>()) {
            return f(value);
        }
        let mut value = Box::new(make());
        let result = f(&mut value);
        map.insert(key, value);
        result
    }
}

/// What the session knows of a spot ban.
#[derive(Debug, Default)]
struct SpotBan {
    schedule: BanSchedule,
    until: Option<TimestampMillis>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("config", &self.config)
            .field("credentials", &self.credentials)
            .field("offset_ms", &self.offset_ms.load(Ordering::Relaxed))
            .field("clock_measured", &self.clock_measured())
            .field("retry", &self.retry)
            .field("auto_sync", &self.auto_sync)
            .field("budgets", &self.budgets.is_some())
            .field("max_budget_wait", &self.max_budget_wait)
            .field("spot_banned_until", &lock(&self.spot_ban).until)
            .finish()
    }
}

/// An endpoint whose answer is the server's clock; the session sends it to sync its clock
/// (`GET /v3/time`, `GET /swap/v2/public/time`).
pub trait ServerClock: Endpoint + Default {
    /// The server time an answer carries.
    fn server_time(output: &Self::Output) -> TimestampMillis;
}

/// How the session reads one family's server clock: builds the time request and reads the
/// time from its answer. The session receives one per family (see [`SessionBuilder::time_probe`])
/// instead of naming endpoints itself.
#[derive(Clone, Copy)]
pub struct TimeProbe {
    build: BuildTimeRequest,
    read: fn(u16, &http::HeaderMap, &[u8]) -> Result<TimestampMillis, Error>,
}

/// Builds the unsigned time request of a [`TimeProbe`].
type BuildTimeRequest = fn(&Config, TimestampMillis) -> Result<http::Request<Vec<u8>>, Error>;

impl std::fmt::Debug for TimeProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TimeProbe")
    }
}

impl TimeProbe {
    /// The probe that sends `E` (unsigned) and reads [`ServerClock::server_time`].
    pub fn of<E: ServerClock>() -> Self {
        TimeProbe {
            build: |config, now| build(&E::default(), config, None, now),
            read: |status, headers, body| {
                parse_endpoint::<E>(status, headers, body).map(|out| E::server_time(&out))
            },
        }
    }
}

/// The time probes of both families.
#[derive(Debug, Clone, Copy, Default)]
struct TimeProbes {
    spot: Option<TimeProbe>,
    swap: Option<TimeProbe>,
}

impl TimeProbes {
    fn get(&self, family: Family) -> Result<TimeProbe, Error> {
        match family {
            Family::Spot => self.spot,
            Family::Swap => self.swap,
        }
        .ok_or_else(|| {
            Error::validation(
                "time_probe",
                format!("the session has no time endpoint for {family}"),
            )
        })
    }
}

/// Builds a [`Session`].
pub struct SessionBuilder {
    config: Config,
    credentials: Option<Credentials>,
    clock: Option<Arc<dyn Clock>>,
    retry: RetryPolicy,
    auto_sync: bool,
    budget: Option<(u64, u64)>,
    max_budget_wait: Duration,
    time_probes: TimeProbes,
    rules_refresh: Option<Duration>,
}

impl std::fmt::Debug for SessionBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionBuilder")
            .field("config", &self.config)
            .field("credentials", &self.credentials)
            .field("retry", &self.retry)
            .field("auto_sync", &self.auto_sync)
            .field("budget", &self.budget)
            .field("max_budget_wait", &self.max_budget_wait)
            .finish()
    }
}

impl SessionBuilder {
    /// A builder with the defaults of [`Session::builder`] but no time probes: the session then
    /// cannot sync its clock until [`SessionBuilder::time_probe`] gives it the time endpoints.
    pub fn without_time_probes() -> Self {
        SessionBuilder {
            config: Config::default(),
            credentials: None,
            clock: None,
            retry: RetryPolicy::default(),
            auto_sync: true,
            budget: Some((SPOT_WEIGHT_PER_MINUTE, SWAP_WEIGHT_PER_MINUTE)),
            max_budget_wait: DEFAULT_MAX_BUDGET_WAIT,
            time_probes: TimeProbes::default(),
            rules_refresh: None,
        }
    }
}

impl SessionBuilder {
    /// Base URLs and recv window at once.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }
    /// Spot/margin base URL, ending with `/v3` (default `https://openapi.digifinex.com/v3`).
    pub fn spot_base_url(mut self, url: impl Into<String>) -> Self {
        self.config = self.config.with_spot_base_url(url);
        self
    }
    /// Swap host URL (default `https://openapi.digifinex.com`).
    pub fn swap_base_url(mut self, url: impl Into<String>) -> Self {
        self.config = self.config.with_swap_base_url(url);
        self
    }
    /// The `ACCESS-RECV-WINDOW` sent with signed spot requests.
    pub fn recv_window(mut self, window: u64) -> Self {
        self.config = self.config.with_recv_window(window);
        self
    }
    /// The config set so far.
    pub fn current_config(&self) -> &Config {
        &self.config
    }
    /// API credentials for private endpoints.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }
    /// The clock (default [`SystemClock`]).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }
    /// The retry policy for reads (default [`RetryPolicy::default`]).
    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }
    /// Whether a clock rejection triggers one automatic time sync (default on): a spot 10008 is
    /// then re-signed and resent; a swap 400004 is resent only if the offset moved by more than
    /// [`SWAP_RESYNC_MIN_SHIFT_MS`].
    pub fn auto_time_sync(mut self, on: bool) -> Self {
        self.auto_sync = on;
        self
    }
    /// Sets the weight budgets: spot at `spot_per_minute` (default
    /// [`SPOT_WEIGHT_PER_MINUTE`], the documented 1200), swap at `swap_per_minute` for public
    /// routes and, separately, for private ones (default [`SWAP_WEIGHT_PER_MINUTE`], the 6,000
    /// the venue reports for public routes; the server's remaining-weight headers keep both
    /// honest). Calls wait instead of crossing a limit. Budgets are on by default.
    pub fn weight_budget(mut self, spot_per_minute: u64, swap_per_minute: u64) -> Self {
        self.budget = Some((spot_per_minute, swap_per_minute));
        self
    }
    /// Turns the weight budgets off: calls never wait for them (the server's 429 and bans
    /// still apply).
    pub fn without_weight_budget(mut self) -> Self {
        self.budget = None;
        self
    }
    /// The longest a call waits for the weight budget before sending, all its waits together
    /// (default [`DEFAULT_MAX_BUDGET_WAIT`]); a longer wait ends the call with
    /// [`Error::BudgetExhausted`] without sending anything, so an order is never sent late.
    pub fn max_budget_wait(mut self, max: Duration) -> Self {
        self.max_budget_wait = max;
        self
    }
    /// The endpoint the session sends to read `family`'s server clock (the defaults are
    /// `GET /v3/time` and `GET /swap/v2/public/time`).
    pub fn time_probe(mut self, family: Family, probe: TimeProbe) -> Self {
        match family {
            Family::Spot => self.time_probes.spot = Some(probe),
            Family::Swap => self.time_probes.swap = Some(probe),
        }
        self
    }
    /// How long loaded market rules stay fresh (default 10 minutes; see
    /// `digifinex_core::rules::RulesCache`).
    pub fn rules_refresh(mut self, refresh: Duration) -> Self {
        self.rules_refresh = Some(refresh);
        self
    }

    /// The session.
    pub fn build(self) -> Session {
        Session {
            rules_refresh: self.rules_refresh,
            attached: Attached::default(),
            config: self.config,
            credentials: self.credentials,
            clock: self.clock.unwrap_or_else(|| Arc::new(SystemClock)),
            offset_ms: AtomicI64::new(0),
            measured: AtomicBool::new(false),
            retry: self.retry,
            auto_sync: self.auto_sync,
            max_budget_wait: self.max_budget_wait,
            spot_ban: Mutex::new(SpotBan::default()),
            time_probes: self.time_probes,
            budgets: self.budget.map(|(spot, swap)| {
                let minute = Duration::from_secs(60);
                Mutex::new(Budgets {
                    spot: WeightBudget::new(spot, minute),
                    swap_public: WeightBudget::new(swap, minute),
                    swap_private: WeightBudget::new(swap, minute),
                    swap_weights: WeightTable::default(),
                })
            }),
        }
    }
}

impl Session {
    /// A builder with defaults (production URLs, no credentials, system clock, default retries,
    /// automatic time sync, weight budgets of 1200 (spot) and 6,000 (swap) per minute).
    pub fn builder() -> SessionBuilder {
        SessionBuilder::default()
    }

    /// The config.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The credentials, when set.
    pub fn credentials(&self) -> Option<&Credentials> {
        self.credentials.as_ref()
    }

    /// The retry policy.
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.retry
    }

    /// Whether a clock refusal triggers a sync ([`SessionBuilder::auto_time_sync`]).
    pub(crate) fn auto_sync(&self) -> bool {
        self.auto_sync
    }

    /// The clock's time plus the estimated server offset: the time requests are signed with.
    pub fn now(&self) -> TimestampMillis {
        TimestampMillis(
            self.clock
                .now()
                .0
                .saturating_add(self.offset_ms.load(Ordering::Relaxed)),
        )
    }

    /// The raw clock's time (for latency and offset measurement).
    pub fn local_now(&self) -> TimestampMillis {
        self.clock.now()
    }

    /// The session's clock (local time; [`Session::now`] adds the measured offset).
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// The current server offset estimate (server minus local), in milliseconds.
    pub fn offset_ms(&self) -> i64 {
        self.offset_ms.load(Ordering::Relaxed)
    }

    /// Sets the server offset (e.g. from an earlier sync); the clock then counts as measured.
    pub fn set_offset_ms(&self, offset: i64) {
        self.offset_ms.store(offset, Ordering::Relaxed);
        self.measured.store(true, Ordering::Relaxed);
    }

    /// Whether the server offset was measured ([`Session::sync_call`], the automatic sync
    /// after a clock refusal) or set ([`Session::set_offset_ms`]) since the session was built.
    /// Until then [`Session::now`] is the local clock's time: the time windows the clients
    /// compute measure the clock first, and a stream beside the session measures it on its
    /// socket.
    pub fn clock_measured(&self) -> bool {
        self.measured.load(Ordering::Relaxed)
    }

    /// How long loaded market rules stay fresh, when the builder set it.
    pub(crate) fn rules_refresh(&self) -> Option<Duration> {
        self.rules_refresh
    }

    /// What the API layer keeps in the session.
    pub(crate) fn attached(&self) -> &Attached {
        &self.attached
    }

    /// Loads the swap route weights (from `GET /swap/v2/public/api_weight`) into the budget.
    pub fn set_swap_weights(&self, table: WeightTable) {
        if let Some(b) = &self.budgets {
            lock(b).swap_weights = table;
        }
    }

    /// Starts a call of `endpoint`.
    pub fn call<'a, E: Endpoint>(&'a self, endpoint: &'a E) -> Call<'a, E> {
        self.start(Held::Ref(endpoint))
    }

    /// Starts a call that owns `endpoint` (for type-erased callers such as the catalog).
    pub fn call_owned<E: Endpoint>(&self, endpoint: E) -> Call<'_, E> {
        self.start(Held::Own(endpoint))
    }

    fn start<'a, E: Endpoint>(&'a self, endpoint: Held<'a, E>) -> Call<'a, E> {
        Call {
            session: self,
            endpoint,
            state: State::Start,
            retries: 0,
            attempts: 0,
            synced: false,
            resync_guard: None,
            sent_at: TimestampMillis(0),
            last: None,
            budget_waited: Duration::ZERO,
        }
    }

    /// Starts a clock sync for `family`: `GET /v3/time` (second precision) or
    /// `GET /swap/v2/public/time` (millisecond precision). On success the session offset is
    /// updated and the call's value is the new offset in milliseconds.
    pub fn sync_call(&self, family: Family) -> SyncCall<'_> {
        SyncCall {
            session: self,
            family,
            sent_at: TimestampMillis(0),
            state: State::Start,
        }
    }

    /// When the spot ban the session knows of ends, if it is still running at `now`.
    ///
    /// DESIGN: the spot API bans a client that crosses its weight limit, for 2, 10 or 30
    /// minutes as violations repeat within 24 hours (spec "Rate limits";
    /// [`BanSchedule`]). A spot answer 10005 or HTTP 429 records a violation; until the ban it
    /// incurs ends (the server's `retry-after` when it sends one: it knows its own ban), every
    /// spot call is refused with
    /// [`Error::BanActive`] and nothing is sent: a request during a ban only extends it.
    /// Swap routes are not affected (the swap API states no ban schedule).
    pub fn spot_banned_until(&self, now: TimestampMillis) -> Option<TimestampMillis> {
        lock(&self.spot_ban).until.filter(|until| *until > now)
    }

    /// Records a spot rate-limit violation at `now` (see [`Session::spot_banned_until`]).
    fn record_spot_violation(&self, now: TimestampMillis, retry_after: Option<Duration>) {
        let mut ban = lock(&self.spot_ban);
        let scheduled = ban.schedule.record_violation(now);
        let wait = retry_after.unwrap_or(scheduled);
        let ms = i64::try_from(wait.as_millis()).unwrap_or(i64::MAX);
        ban.until = Some(TimestampMillis(now.0.saturating_add(ms)));
    }

    fn acquire(&self, meta: &Meta, now: TimestampMillis) -> Result<(), Duration> {
        let Some(b) = &self.budgets else {
            return Ok(());
        };
        let mut b = lock(b);
        match meta.family {
            Family::Spot => b.spot.try_acquire(u64::from(meta.weight.unwrap_or(1)), now),
            Family::Swap => {
                // A table loaded from the server wins over the declared weight.
                let w = b
                    .swap_weights
                    .weight(meta.path)
                    .or(meta.weight)
                    .unwrap_or(1);
                if meta.signed {
                    b.swap_private.try_acquire(u64::from(w), now)
                } else {
                    b.swap_public.try_acquire(u64::from(w), now)
                }
            }
        }
    }

    fn observe(&self, meta: &Meta, usage: &RateLimitUsage, now: TimestampMillis) {
        let Some(b) = &self.budgets else {
            return;
        };
        if meta.family != Family::Swap {
            return;
        }
        let remaining = |limits: &[Option<crate::ratelimit::WeightUsage>]| {
            limits.iter().flatten().filter_map(|u| u.remaining).min()
        };
        let mut b = lock(b);
        if let Some(r) = remaining(&[usage.ip]) {
            b.swap_public.observe_remaining(r, now);
        }
        if let Some(r) = remaining(&[usage.account, usage.api_key]) {
            b.swap_private.observe_remaining(r, now);
        }
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave a budget inconsistent in a harmful way.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A [`Drive`] whose output is turned into another type by a function: how a machine that
/// hands out reads of several endpoints (reconciliation, the account tracker) gives the
/// transport one [`Drive`] type per machine.
pub struct Mapped<D: Drive, T> {
    inner: D,
    wrap: fn(D::Output) -> T,
}

impl<D: Drive, T> Mapped<D, T> {
    /// `inner`, its output mapped by `wrap`.
    pub fn new(inner: D, wrap: fn(D::Output) -> T) -> Self {
        Mapped { inner, wrap }
    }
}

impl<'a, E: Endpoint, T> Mapped<Call<'a, E>, T> {
    /// `request` as a call of `session`, its output mapped by `wrap`.
    pub fn call(session: &'a Session, request: &'a E, wrap: fn(E::Output) -> T) -> Self {
        Mapped::new(session.call(request), wrap)
    }
}

impl<'a, E: Endpoint, T> Mapped<Call<'a, E>, T> {
    /// `request` as a call of `session` that owns it, its output mapped by `wrap`.
    pub fn owned(session: &'a Session, request: E, wrap: fn(E::Output) -> T) -> Self {
        Mapped::new(session.call_owned(request), wrap)
    }
}

impl<D: Drive, T> Drive for Mapped<D, T> {
    type Output = T;
    fn next(&mut self) -> Action<T> {
        match self.inner.next() {
            Action::Send(r) => Action::Send(r),
            Action::Wait(d) => Action::Wait(d),
            Action::Done(result) => Action::Done(result.map(|r| {
                let (value, rest) = r.split();
                rest.with((self.wrap)(value))
            })),
        }
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

/// A state machine a transport drives: [`Call`] and [`SyncCall`] implement it, so one generic
/// driving loop per transport serves both.
pub trait Drive {
    /// The typed result (handed out inside a [`Response`]).
    type Output;
    /// The next action.
    fn next(&mut self) -> Action<Self::Output>;
    /// Reports the answer to the last [`Action::Send`].
    fn on_response(&mut self, response: &http::Response<&[u8]>);
    /// Reports the answer to the last [`Action::Send`], handing over its headers: the same as
    /// [`Drive::on_response`], but a [`Call`] keeps the headers for its [`Response`] without
    /// copying them. Transports that own the answer call this one.
    fn on_owned_response(&mut self, response: http::Response<&[u8]>) {
        self.on_response(&response)
    }
    /// Reports that the last [`Action::Send`] failed in the transport.
    ///
    /// `error` is the transport's own error, kept as the `source()` of the resulting
    /// [`Error::Transport`] (a `String` or `&str` converts into it too). `kind` must be decided
    /// by the phase the transport was in (see [`TransportErrorKind`]).
    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError);
}

#[derive(Debug)]
enum State<T> {
    /// Ready to acquire budget, build, sign and send the main request.
    Start,
    /// Wait this long (a retry backoff), then start again.
    Backoff(Duration),
    /// The main request is out.
    AwaitMain,
    /// Ready to send the time request of a resync.
    SyncStart,
    /// The time request is out.
    AwaitSync,
    /// A result is ready.
    Finished(Result<Response<T>, Error>),
    /// The result was handed out.
    Gone,
}

/// An endpoint borrowed from the caller or owned by the call.
enum Held<'a, E> {
    Ref(&'a E),
    Own(E),
}

impl<E> Held<'_, E> {
    fn get(&self) -> &E {
        match self {
            Held::Ref(e) => e,
            Held::Own(e) => e,
        }
    }
}

/// One endpoint call in progress; see the module docs for the loop that drives it.
pub struct Call<'a, E: Endpoint> {
    session: &'a Session,
    endpoint: Held<'a, E>,
    state: State<E::Output>,
    retries: u32,
    attempts: u32,
    synced: bool,
    /// For a swap resync: the offset before it and the error to return if it barely moves.
    resync_guard: Option<(i64, Error)>,
    sent_at: TimestampMillis,
    last: Option<http::Request<Vec<u8>>>,
    /// The waits for budget handed out so far (bounded by `max_budget_wait` in all).
    budget_waited: Duration,
}

impl<E: Endpoint> std::fmt::Debug for Call<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("endpoint", &E::META.name)
            .field("retries", &self.retries)
            .field("attempts", &self.attempts)
            .finish()
    }
}

impl<E: Endpoint> Call<'_, E> {
    /// The first step: the budget, then the main request built, signed and sent. The state
    /// is `Gone` unless a request goes out (or a wait for budget comes first), as when it is
    /// moved out in [`Drive::next`].
    fn start(&mut self) -> Action<E::Output> {
        self.state = State::Gone;
        // One clock read: the signed timestamp is the local time plus the offset, and the send
        // time is the local time (a millisecond clock; `build` takes microseconds).
        let local = self.session.local_now();
        let now = TimestampMillis(local.0.saturating_add(self.session.offset_ms()));
        if E::META.family == Family::Spot {
            if let Some(until) = self.session.spot_banned_until(now) {
                return Action::Done(Err(Error::BanActive {
                    family: Family::Spot,
                    until,
                }));
            }
        }
        if let Err(wait) = self.session.acquire(&E::META, now) {
            // DESIGN: the bound is on the call's waits in all, not on each: a clock that does
            // not move while the call waits (an exchange in virtual time whose time is over)
            // would otherwise ask for the same wait forever.
            let waited = self.budget_waited.saturating_add(wait);
            if wait > self.session.max_budget_wait || waited > self.session.max_budget_wait {
                return Action::Done(Err(Error::BudgetExhausted {
                    family: E::META.family,
                    retry_after: wait,
                }));
            }
            self.budget_waited = waited;
            self.state = State::Start;
            return Action::Wait(wait);
        }
        match build(
            self.endpoint.get(),
            &self.session.config,
            self.session.credentials.as_ref(),
            now,
        ) {
            Ok(req) => {
                self.attempts = self.attempts.saturating_add(1);
                // Only a write can end as an unknown outcome (`policy::settle`):
                // reads skip the copy kept for that report.
                self.last = (!E::META.idempotent).then(|| clone_request(&req));
                self.sent_at = local;
                self.state = State::AwaitMain;
                Action::Send(req)
            }
            Err(e) => Action::Done(Err(e)),
        }
    }

    /// Retries made so far.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    fn failed(&mut self, e: Error) {
        let meta = E::META;
        if meta.family == Family::Spot {
            let violation = match &e {
                Error::Api(a) if a.code == ApiCode::Spot(SpotCode::FrequencyLimit) => {
                    Some(a.retry_after)
                }
                Error::RateLimited { retry_after, .. } => Some(*retry_after),
                _ => None,
            };
            if let Some(retry_after) = violation {
                self.session
                    .record_spot_violation(self.session.now(), retry_after);
            }
        }
        // A spot 10008: resync once, then re-sign and resend (a definite rejection: safe).
        // A swap 400004 (signature mismatch) may be a stale timestamp, since the timestamp is
        // signed and the swap API has no clock error code: resync once too, but resend only if
        // the offset moved by more than `SWAP_RESYNC_MIN_SHIFT_MS` (otherwise the signature
        // really is wrong, and the original error is returned).
        let clock_code = match &e {
            Error::Api(a) => match a.code {
                ApiCode::Spot(SpotCode::InvalidTimestamp) => Some(None),
                ApiCode::Swap(SwapCode::InvalidSign) => Some(Some(self.session.offset_ms())),
                _ => None,
            },
            _ => None,
        };
        if let Some(offset_before) = clock_code {
            if self.session.auto_sync && !self.synced {
                self.synced = true;
                self.resync_guard = offset_before.map(|before| (before, e));
                self.state = State::SyncStart;
                return;
            }
        }
        let mut e = match &self.last {
            Some(req) => settle(&meta, req, e),
            None => e,
        };
        if let Error::OutcomeUnknown { request, .. } = &mut e {
            // The typed write, for reconciliation (see `reconcile::Write::from_request`).
            let endpoint = &self.endpoint;
            request.get_or_insert_with(|| Box::new(TypedRequest::new(endpoint.get().clone())));
        }
        self.state =
            match self
                .session
                .retry
                .decide(&meta, self.retries, &e, self.session.local_now())
            {
                RetryDecision::RetryAfter(d) => {
                    self.retries = self.retries.saturating_add(1);
                    State::Backoff(d)
                }
                RetryDecision::Stop => State::Finished(Err(e)),
            };
    }
}

impl<E: Endpoint> Drive for Call<'_, E> {
    type Output = E::Output;

    fn next(&mut self) -> Action<E::Output> {
        // The first step is taken without moving the state out and back (a `State` is a few
        // hundred bytes: its result).
        if matches!(self.state, State::Start) {
            return self.start();
        }
        match std::mem::replace(&mut self.state, State::Gone) {
            State::Start => self.start(),
            State::Backoff(d) => {
                self.state = State::Start;
                Action::Wait(d)
            }
            State::SyncStart => match time_request(self.session, E::META.family) {
                Ok(req) => {
                    self.sent_at = self.session.local_now();
                    self.state = State::AwaitSync;
                    Action::Send(req)
                }
                Err(e) => Action::Done(Err(e)),
            },
            State::Finished(result) => Action::Done(result),
            State::AwaitMain | State::AwaitSync => Action::Done(Err(Error::validation(
                "call",
                "next() called while a request is out: report its response first",
            ))),
            State::Gone => {
                Action::Done(Err(Error::validation("call", "the call already finished")))
            }
        }
    }

    fn on_response(&mut self, response: &http::Response<&[u8]>) {
        self.answer(response, None)
    }

    fn on_owned_response(&mut self, mut response: http::Response<&[u8]>) {
        // Only the main answer's headers end in the result; a time answer is read in place.
        if matches!(self.state, State::AwaitMain) {
            let headers = std::mem::take(response.headers_mut());
            self.answer(&response, Some(headers))
        } else {
            self.answer(&response, None)
        }
    }

    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError) {
        let e = transport_error(kind, error);
        match std::mem::replace(&mut self.state, State::Gone) {
            State::AwaitMain => self.failed(e),
            State::AwaitSync => self.state = State::Finished(Err(e)),
            other => self.state = other,
        }
    }
}

impl<E: Endpoint> Call<'_, E> {
    /// Handles an answer; `owned` carries the main answer's headers when the transport handed
    /// them over (then `response`'s own header map is empty), else they are copied for the
    /// result.
    fn answer(&mut self, response: &http::Response<&[u8]>, owned: Option<http::HeaderMap>) {
        let received = self.session.local_now();
        let headers = owned.as_ref().unwrap_or(response.headers());
        // The main answer is handled without moving the state out and back (see `next`).
        if matches!(self.state, State::AwaitMain) {
            self.state = State::Gone;
            let meta = E::META;
            let status = response.status().as_u16();
            let usage = RateLimitUsage::from_headers(headers);
            self.session.observe(&meta, &usage, received);
            match parse_endpoint::<E>(status, headers, response.body()) {
                Ok(value) => {
                    self.state = State::Finished(Ok(Response {
                        value,
                        status,
                        headers: owned.unwrap_or_else(|| response.headers().clone()),
                        usage,
                        latency: elapsed(self.sent_at, received),
                        attempts: self.attempts,
                    }))
                }
                Err(e) => self.failed(e),
            }
            return;
        }
        match std::mem::replace(&mut self.state, State::Gone) {
            State::AwaitSync => {
                self.state = match apply_time(
                    self.session,
                    E::META.family,
                    response,
                    self.sent_at,
                    received,
                ) {
                    Ok(after) => match self.resync_guard.take() {
                        Some((before, original))
                            if after.abs_diff(before) <= SWAP_RESYNC_MIN_SHIFT_MS =>
                        {
                            State::Finished(Err(original))
                        }
                        _ => State::Start,
                    },
                    Err(e) => State::Finished(Err(e)),
                }
            }
            other => self.state = other,
        }
    }
}

impl<D: Drive + ?Sized> Drive for Box<D> {
    type Output = D::Output;
    fn next(&mut self) -> Action<D::Output> {
        (**self).next()
    }
    fn on_response(&mut self, response: &http::Response<&[u8]>) {
        (**self).on_response(response)
    }
    fn on_owned_response(&mut self, response: http::Response<&[u8]>) {
        (**self).on_owned_response(response)
    }
    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError) {
        (**self).on_transport_error(kind, error)
    }
}

/// A call whose typed output is rendered as JSON (the catalog's type-erased calls).
pub struct JsonCall<'a, E: Endpoint>(pub Call<'a, E>);

impl<E: Endpoint> std::fmt::Debug for JsonCall<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: Endpoint> Drive for JsonCall<'_, E> {
    type Output = serde_json::Value;

    fn next(&mut self) -> Action<serde_json::Value> {
        match self.0.next() {
            Action::Send(r) => Action::Send(r),
            Action::Wait(d) => Action::Wait(d),
            Action::Done(result) => Action::Done(result.and_then(|r| {
                let status = r.status;
                let value = serde_json::to_value(&r.value).map_err(|e| Error::Decode {
                    path: ".".to_owned(),
                    type_name: std::any::type_name::<E::Output>(),
                    message: format!("cannot render as JSON: {e}"),
                    status,
                    snippet: String::new(),
                })?;
                Ok(Response {
                    value,
                    status,
                    headers: r.headers,
                    usage: r.usage,
                    latency: r.latency,
                    attempts: r.attempts,
                })
            })),
        }
    }
    fn on_response(&mut self, response: &http::Response<&[u8]>) {
        self.0.on_response(response)
    }
    fn on_owned_response(&mut self, response: http::Response<&[u8]>) {
        self.0.on_owned_response(response)
    }
    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError) {
        self.0.on_transport_error(kind, error)
    }
}

/// A typed output behind a type-erased `Serialize` (see [`ErasedCall`]).
#[cfg(feature = "catalog")]
pub type ErasedOutput = Box<dyn erased_serde::Serialize + Send>;

/// A call whose typed output is kept, type-erased, for a serializer of the caller's choice (the
/// catalog's [`CatalogEntry::call_erased`](crate::catalog::CatalogEntry::call_erased)): the
/// Python package builds Python values from it, with decimals as decimals (see
/// [`DECIMAL_NEWTYPE`](crate::DECIMAL_NEWTYPE)), where [`JsonCall`]'s `serde_json::Value` has
/// only strings.
#[cfg(feature = "catalog")]
pub struct ErasedCall<'a, E: Endpoint>(pub Call<'a, E>);

#[cfg(feature = "catalog")]
impl<E: Endpoint> std::fmt::Debug for ErasedCall<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(feature = "catalog")]
impl<E: Endpoint> Drive for ErasedCall<'_, E>
where
    E::Output: Send + 'static,
{
    type Output = ErasedOutput;

    fn next(&mut self) -> Action<ErasedOutput> {
        match self.0.next() {
            Action::Send(r) => Action::Send(r),
            Action::Wait(d) => Action::Wait(d),
            Action::Done(result) => Action::Done(result.map(|r| Response {
                value: Box::new(r.value) as ErasedOutput,
                status: r.status,
                headers: r.headers,
                usage: r.usage,
                latency: r.latency,
                attempts: r.attempts,
            })),
        }
    }
    fn on_response(&mut self, response: &http::Response<&[u8]>) {
        self.0.on_response(response)
    }
    fn on_owned_response(&mut self, response: http::Response<&[u8]>) {
        self.0.on_owned_response(response)
    }
    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError) {
        self.0.on_transport_error(kind, error)
    }
}

/// A clock sync in progress (see [`Session::sync_call`]); its output is the new offset (ms).
#[derive(Debug)]
pub struct SyncCall<'a> {
    session: &'a Session,
    family: Family,
    sent_at: TimestampMillis,
    state: State<i64>,
}

impl Drive for SyncCall<'_> {
    type Output = i64;

    fn next(&mut self) -> Action<i64> {
        match std::mem::replace(&mut self.state, State::Gone) {
            State::Start => match time_request(self.session, self.family) {
                Ok(req) => {
                    self.sent_at = self.session.local_now();
                    self.state = State::AwaitSync;
                    Action::Send(req)
                }
                Err(e) => Action::Done(Err(e)),
            },
            State::Finished(result) => Action::Done(result),
            _ => Action::Done(Err(Error::validation(
                "call",
                "the sync call is not waiting for next()",
            ))),
        }
    }

    fn on_response(&mut self, response: &http::Response<&[u8]>) {
        let received = self.session.local_now();
        if let State::AwaitSync = self.state {
            self.state = State::Finished(
                apply_time(self.session, self.family, response, self.sent_at, received).map(
                    |offset| Response {
                        value: offset,
                        status: response.status().as_u16(),
                        headers: response.headers().clone(),
                        usage: RateLimitUsage::from_headers(response.headers()),
                        latency: elapsed(self.sent_at, received),
                        attempts: 1,
                    },
                ),
            );
        }
    }

    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError) {
        if let State::AwaitSync = self.state {
            self.state = State::Finished(Err(transport_error(kind, error)));
        }
    }
}

/// The core's error for a transport failure, keeping the transport's error as its source.
fn transport_error(kind: TransportErrorKind, error: BoxError) -> Error {
    Error::Transport {
        kind,
        message: error.to_string(),
        source: Some(error),
    }
}

/// Parses a server-time answer and stores the new offset, returning it.
fn apply_time(
    session: &Session,
    family: Family,
    response: &http::Response<&[u8]>,
    sent: TimestampMillis,
    received: TimestampMillis,
) -> Result<i64, Error> {
    let probe = session.time_probes.get(family)?;
    let server = (probe.read)(
        response.status().as_u16(),
        response.headers(),
        response.body(),
    )?;
    let offset = estimate_offset(server, sent, received);
    session.set_offset_ms(offset);
    Ok(offset)
}

fn elapsed(from: TimestampMillis, to: TimestampMillis) -> Duration {
    Duration::from_millis(u64::try_from(to.0.saturating_sub(from.0)).unwrap_or(0))
}

/// What an unknown-outcome report needs of a request: method, URI and body (no headers: they
/// carry the key and signature, and the report does not use them).
/// What an unknown outcome keeps of a write's request: method, URL, body and the
/// `ACCESS-TIMESTAMP` header (the build time, the start of a reconciliation window); not the key
/// or the signature.
fn clone_request(req: &http::Request<Vec<u8>>) -> http::Request<Vec<u8>> {
    let mut out = http::Request::new(req.body().clone());
    *out.method_mut() = req.method().clone();
    *out.uri_mut() = req.uri().clone();
    if let Some(ts) = req.headers().get("access-timestamp") {
        out.headers_mut().insert("access-timestamp", ts.clone());
    }
    out
}

fn time_request(session: &Session, family: Family) -> Result<http::Request<Vec<u8>>, Error> {
    let probe = session.time_probes.get(family)?;
    (probe.build)(&session.config, session.now())
}
