//! The blocking client and its builder.

use std::io::{self, Read};
use std::sync::Arc;
use std::time::Duration;

use digifinex_core::exchange::{record, request_span, sync_span};
use digifinex_core::paging::Pager;
use digifinex_core::policy::RetryPolicy;
use digifinex_core::reconcile::{
    created_ids_of, Options as ReconcileOptions, Outcome, Prior, Reconciler, SessionIds, Snapshot,
    SnapshotPolicy, Unknown, Write, WriteRequest, DEFAULT_ID_MEMORY,
};
use digifinex_core::record::{Hooks, Responder, Tap};
use digifinex_core::session::{Action, Drive, Response, Session, SessionBuilder};
use digifinex_core::{
    spot, swap, BoxError, Clock, Config, Credentials, Endpoint, Error, Family, TransportErrorKind,
};
use ureq::unversioned::resolver::DefaultResolver;

use crate::pages::{Items, Pages};
use crate::phase::{self, PhaseConnector};

/// Default limit of a response body (16 MiB); a larger answer is a transport error.
pub const DEFAULT_MAX_BODY: usize = 16 << 20;

const DEFAULT_CONNECT: Duration = Duration::from_secs(5);
const DEFAULT_READ: Duration = Duration::from_secs(10);
const DEFAULT_TOTAL: Duration = Duration::from_secs(15);

/// A blocking DigiFinex client. Cheap to clone (the session and the agent are shared); usable
/// from many threads at once.
///
/// # Examples
///
/// Against the exchange simulator started in this process (the `digifinex-sim` crate); for the
/// exchange itself, leave out the two URLs and `allow_http` and pass your own keys:
///
/// ```
/// use digifinex_sim::{Sim, SimConfig};
/// use digifinex_ureq::core::spot::{OrderBookRequest, SpotAssetsRequest};
/// use digifinex_ureq::core::{Credentials, Family};
/// use digifinex_ureq::Client;
///
/// let sim = Sim::start(SimConfig::default())?;
/// let keys = sim.control().demo_account().keys;
/// let client = Client::builder()
///     .spot_base_url(sim.spot_base_url())
///     .swap_base_url(sim.swap_base_url())
///     .allow_http(true)
///     .credentials(Credentials::new(keys.key, keys.secret))
///     .build()?;
/// client.sync_time(Family::Spot)?;
///
/// let book = client.send(&OrderBookRequest::new("btc_usdt").limit(5))?;
/// let (bid, ask) = (book.best_bid().ok_or("no bid")?, book.best_ask().ok_or("no ask")?);
/// assert!(bid.price < ask.price);
///
/// // `send_full` also returns the status, headers, latency and attempts.
/// let assets = client.send_full(&SpotAssetsRequest)?;
/// assert_eq!(assets.status, 200);
/// assert!(assets.value.list.iter().any(|a| a.currency == "USDT"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Client {
    session: Arc<Session>,
    agent: ureq::Agent,
    /// Settings applied to each request (only for an agent the caller built).
    per_request: Option<PerRequest>,
    max_body: u64,
    /// Recording and replaying (see [`ClientBuilder::recorder`]).
    hooks: Hooks,
    /// The ids this session placed or saw (see [`Client::known_ids`]).
    known: SessionIds,
    /// `http://` allowed (a stream of this client allows `ws://`).
    #[cfg(feature = "ws")]
    allow_http: bool,
    /// The caller's roots (a stream of this client trusts the same).
    #[cfg(feature = "ws")]
    roots: Option<Vec<Vec<u8>>>,
    /// What opens the sockets of this client's streams (the network when `None`).
    #[cfg(feature = "ws")]
    connector: Option<Arc<dyn crate::ws::Connector>>,
    /// What opens the sockets of this client's streams in a time of its own, if anything.
    #[cfg(feature = "ws")]
    pacer: Option<Arc<dyn digifinex_core::ws::Pacer>>,
}

/// Request-level settings for a caller's agent: its status handling must return 4xx/5xx as
/// responses, it must not follow redirects, and timeouts set on the builder override the
/// agent's.
#[derive(Debug, Clone, Copy)]
struct PerRequest {
    status_as_error: bool,
    follows_redirects: bool,
    connect: Option<Duration>,
    read: Option<Duration>,
    total: Option<Duration>,
}

impl Client {
    /// A builder with the defaults: production URLs, no credentials, system clock, 5 s connect /
    /// 10 s read / 15 s total timeouts, default retries, automatic time sync, weight budgets on.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client with the defaults (see [`Client::builder`]).
    pub fn new() -> Result<Client, Error> {
        Client::builder().build()
    }

    /// The session: config, credentials, clock offset, retry policy and budgets.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The `ureq` agent in use.
    pub fn agent(&self) -> &ureq::Agent {
        &self.agent
    }

    /// Sends `endpoint` and returns its typed output.
    pub fn send<E: Endpoint>(&self, endpoint: &E) -> Result<E::Output, Error> {
        self.send_full(endpoint).map(|r| r.value)
    }

    /// Sends `endpoint` and returns its typed output with the status, headers, rate-limit
    /// usage, latency and attempts of the final answer.
    ///
    /// A write's answer that names what it created (an order id, a batch's ids, a withdrawal
    /// id) is remembered ([`Client::known_ids`]); a write's unknown outcome carries the ids
    /// remembered before it ([`Error::prior`]).
    pub fn send_full<E: Endpoint>(&self, endpoint: &E) -> Result<Response<E::Output>, Error> {
        if E::META.idempotent {
            return self.send_traced(endpoint);
        }
        let mark = self.known.mark();
        let result = self.send_traced(endpoint);
        self.known.after_write(
            mark,
            result,
            |r| created_ids_of(E::META.name, &r.value),
            None,
        )
    }

    fn send_traced<E: Endpoint>(&self, endpoint: &E) -> Result<Response<E::Output>, Error> {
        let meta = E::META;
        let span = request_span(&meta);
        let _entered = span.enter();
        let result = self.drive(self.session.call(endpoint));
        record(&span, &result);
        result
    }

    /// Sends the write `request` after a snapshot of its evidence set when `policy` asks for
    /// one ([`SnapshotPolicy::BeforeSend`]: the reads of [`Client::snapshot`], just before
    /// it). An unknown outcome then carries the snapshot, and [`Client::reconcile`] gives an
    /// exact verdict (see [`digifinex_core::reconcile`]). A snapshot read that fails stops the
    /// write before it is sent, with that read's error.
    pub fn send_write<E: WriteRequest>(
        &self,
        request: &E,
        policy: SnapshotPolicy,
    ) -> Result<E::Output, Error> {
        let snapshot = match policy {
            SnapshotPolicy::BeforeSend => Some(self.snapshot(&request.to_write())?),
            _ => None,
        };
        let mark = self.known.mark();
        let result = self.send_traced(request).map(|r| r.value);
        self.known
            .after_write(mark, result, |o| E::created_ids(o), snapshot)
    }

    /// `POST /v3/{market}/order/new` with a snapshot policy (see [`Client::send_write`]).
    ///
    /// ```
    /// use digifinex_sim::{Sim, SimConfig};
    /// use digifinex_ureq::core::reconcile::SnapshotPolicy;
    /// use digifinex_ureq::core::{spot, Credentials};
    /// use digifinex_ureq::Client;
    ///
    /// let sim = Sim::start(SimConfig::default())?;
    /// let keys = sim.control().demo_account().keys;
    /// let client = Client::builder()
    ///     .spot_base_url(sim.spot_base_url())
    ///     .swap_base_url(sim.swap_base_url())
    ///     .allow_http(true)
    ///     .credentials(Credentials::new(keys.key, keys.secret))
    ///     .build()?;
    /// let bid = client.send(&spot::OrderBookRequest::new("btc_usdt"))?.best_bid().ok_or("no bid")?.price;
    /// // A resting buy 20 % under the best bid, on the pair's grids.
    /// let price = (bid * "0.8".parse::<rust_decimal::Decimal>()?).round_dp(2);
    /// let order = spot::PlaceOrderRequest::new(
    ///     spot::Market::Spot,
    ///     "btc_usdt",
    ///     spot::LimitOrder::buy("0.001".parse()?, digifinex_ureq::core::Price::new(price)),
    /// );
    /// match client.place_spot(&order, SnapshotPolicy::BeforeSend) {
    ///     Ok(placed) => assert!(client.known_ids().len() >= 1, "{}", placed.order_id),
    ///     // Exact, thanks to the snapshot: applied or not applied, never a guess.
    ///     Err(e) => println!("{}", client.reconcile(&e)?.what_to_do()),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn place_spot(
        &self,
        request: &spot::PlaceOrderRequest,
        policy: SnapshotPolicy,
    ) -> Result<spot::PlacedOrder, Error> {
        self.send_write(request, policy)
    }

    /// `POST /v3/{market}/order/batch_new` with a snapshot policy (see [`Client::send_write`]).
    pub fn place_spot_batch(
        &self,
        request: &spot::BatchPlaceOrdersRequest,
        policy: SnapshotPolicy,
    ) -> Result<spot::PlacedOrders, Error> {
        self.send_write(request, policy)
    }

    /// `POST /swap/v2/trade/order_place` with a snapshot policy (see [`Client::send_write`]).
    pub fn place_swap(
        &self,
        request: &swap::PlaceOrderRequest,
        policy: SnapshotPolicy,
    ) -> Result<swap::PlacedOrder, Error> {
        self.send_write(request, policy)
    }

    /// `POST /swap/v2/trade/batch_order` with a snapshot policy (see [`Client::send_write`]).
    pub fn place_swap_batch(
        &self,
        request: &swap::BatchPlaceOrdersRequest,
        policy: SnapshotPolicy,
    ) -> Result<swap::OrderIds, Error> {
        self.send_write(request, policy)
    }

    /// Reads `write`'s evidence set now ([`Snapshot`]: for an order, the pair's open orders and
    /// recent history) and returns what it knows, to attach to the write's unknown outcome
    /// ([`Error::with_prior`]) or to give as [`ReconcileOptions::prior`]. Its ids are
    /// remembered as seen. [`Client::send_write`] calls it for you.
    pub fn snapshot(&self, write: &Write) -> Result<Prior, Error> {
        let mut s = Snapshot::new(write, self.session.now(), &ReconcileOptions::default());
        while let Some(read) = s.next_read() {
            let answer = self.drive(read.call(&self.session))?;
            s.feed(answer.value);
        }
        let prior = s.finish();
        self.known.seen(prior.known_ids.iter().cloned());
        Ok(prior)
    }

    /// What a stream of this client shares with it: `allow_http`, the caller's roots and the
    /// socket connector.
    #[cfg(feature = "ws")]
    pub(crate) fn stream_settings(&self) -> StreamSettings<'_> {
        (
            self.allow_http,
            self.roots.as_deref(),
            self.connector.as_ref(),
            self.pacer.as_ref(),
        )
    }

    /// The ids this session has placed (named by its writes' answers) or seen (by its
    /// snapshots and reconciliations), which every unknown outcome it reports excludes from the
    /// write's results; at most [`ClientBuilder::known_ids_capacity`] of them, the oldest
    /// forgotten first (forgetting is safe: a verdict can only become ambiguous). Shared by the
    /// client's clones.
    pub fn known_ids(&self) -> &SessionIds {
        &self.known
    }

    /// Measures the server clock through `GET /v3/time` (spot) or `GET /swap/v2/public/time`
    /// (swap) and stores the offset in the session; returns the offset in milliseconds
    /// (server minus local). A spot 10008 already triggers one automatic sync.
    pub fn sync_time(&self, family: Family) -> Result<i64, Error> {
        let span = sync_span(family);
        let _entered = span.enter();
        let result = self.drive(self.session.sync_call(family));
        record(&span, &result);
        result.map(|r| r.value)
    }

    /// Reconciles an unknown outcome: takes the [`Error::OutcomeUnknown`] of a write, performs
    /// the idempotent reads that can tell whether it was applied (through [`Client::send`]'s
    /// path: weight budget, retries, clock) and returns the verdict per element (see
    /// [`digifinex_core::reconcile`]). Call it at once after the error, so the window stays
    /// short. The error carries what the client knew before the write: the ids it remembers
    /// ([`Client::known_ids`]) and, from [`Client::send_write`] or a `place_*` with
    /// [`SnapshotPolicy::BeforeSend`], the snapshot that makes the verdict exact; without a
    /// snapshot, a write that took effect is usually ambiguous (its record cannot be told from
    /// an older identical one). More known ids: [`Client::reconcile_with`].
    ///
    /// Errors: any other error is refused ([`Error::Validation`] on `error`), and a read that
    /// fails (other than a by-id read answering "no such record") ends the reconciliation
    /// with its error.
    pub fn reconcile(&self, error: &Error) -> Result<Outcome, Error> {
        self.reconcile_with(error, ReconcileOptions::default())
    }

    /// [`Client::reconcile`] with options: known ids, clock uncertainty, the position margin
    /// before a `position_margin` write.
    pub fn reconcile_with(
        &self,
        error: &Error,
        options: ReconcileOptions,
    ) -> Result<Outcome, Error> {
        let mut r = Reconciler::new(Unknown::from_error(error)?, options);
        while let Some(read) = r.next_read() {
            match self.drive(read.call(&self.session)) {
                Ok(answer) => r.feed(answer.value),
                Err(e) => r.feed_error(e)?,
            }
        }
        let outcome = r.verdict(self.session.now());
        self.known.after_reconcile(&r, &outcome);
        Ok(outcome)
    }

    /// Loads the swap route weights (`GET /swap/v2/public/api_weight`) into the weight budget;
    /// returns the number of routes. The loaded weights replace the declared ones (see
    /// [`digifinex_core::budget`]).
    pub fn load_swap_weights(&self) -> Result<usize, Error> {
        let routes = self.send(&digifinex_core::swap::ApiWeightRequest)?;
        let table = digifinex_core::ratelimit::WeightTable::new(&routes);
        let n = table.len();
        self.session.set_swap_weights(table);
        Ok(n)
    }

    /// Walks `pager` page by page (each page is one request through [`Client::send`]).
    pub fn pages<P: Pager>(&self, pager: P) -> Pages<'_, P> {
        Pages::new(self, pager)
    }

    /// Walks `pager` item by item.
    pub fn items<P: Pager>(&self, pager: P) -> Items<'_, P> {
        Items::new(self, pager)
    }

    /// The one driving loop, for every [`Drive`] state machine of the core: [`Client::send`]
    /// and [`Client::sync_time`] use it, and so can callers holding a type-erased call (for
    /// example a catalog entry's `call`, as the `digifinex` CLI does).
    pub fn drive<D: Drive>(&self, mut call: D) -> Result<Response<D::Output>, Error> {
        loop {
            match call.next() {
                Action::Send(request) => match self.exchange(request) {
                    Ok(response) => {
                        let (parts, body) = response.into_parts();
                        call.on_owned_response(http::Response::from_parts(parts, body.as_slice()));
                    }
                    Err((kind, error)) => {
                        tracing::debug!(%kind, %error, "transport error");
                        call.on_transport_error(kind, error);
                    }
                },
                Action::Wait(delay) => {
                    tracing::debug!(delay_ms = delay.as_millis() as u64, "waiting");
                    // A responder in its own time (an exchange in virtual time) waits there.
                    if !self.hooks.wait(delay) {
                        std::thread::sleep(delay);
                    }
                }
                Action::Done(result) => return result,
            }
        }
    }

    /// Applies the request-level settings (a caller's agent only) and sends.
    fn run<S: ureq::AsSendBody>(
        &self,
        request: http::Request<S>,
    ) -> Result<http::Response<ureq::Body>, ureq::Error> {
        let request = match &self.per_request {
            None => request,
            Some(p) => {
                let mut b = self.agent.configure_request(request);
                if p.status_as_error {
                    b = b.http_status_as_error(false);
                }
                if p.follows_redirects {
                    b = b.max_redirects(0);
                }
                if p.connect.is_some() {
                    b = b.timeout_connect(p.connect);
                }
                if p.read.is_some() {
                    b = b.timeout_per_read(p.read);
                }
                if p.total.is_some() {
                    b = b
                        .timeout_send_request(p.total)
                        .timeout_recv_response(p.total)
                        .timeout_recv_body(p.total);
                }
                b.build()
            }
        };
        self.agent.run(request)
    }

    /// Sends one request (or asks the responder) and hands the exchange to the recorder.
    fn exchange(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, (TransportErrorKind, BoxError)> {
        if self.hooks.is_empty() {
            return self.exchange_net(request);
        }
        let copy = self.hooks.before(&request);
        let at = self.session.local_now().0;
        let started = std::time::Instant::now();
        let result = match self.hooks.replay(&request) {
            Some(answer) => answer,
            None => self.exchange_net(request),
        };
        let took = self
            .hooks
            .elapsed(at, self.session.local_now().0, started.elapsed());
        self.hooks.after(copy, &result, at, took);
        result
    }

    /// Sends one request and reads the whole answer. A failure carries its kind, decided by the
    /// phase it happened in (see [`classify`]), and ureq's error.
    fn exchange_net(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Vec<u8>>, (TransportErrorKind, BoxError)> {
        phase::begin();
        let (mut parts, body) = request.into_parts();
        // The key and signature reach ureq as stars (its TRACE log dumps what it writes); the
        // connection writes the real values (see `crate::phase`).
        phase::hide(&mut parts.headers);
        // An empty body travels as "no body" (a GET): ureq then keeps the request plain.
        let response = if body.is_empty() {
            self.run(http::Request::from_parts(parts, ()))
        } else {
            self.run(http::Request::from_parts(parts, body))
        };
        phase::forget();
        let response = response.map_err(failure)?;
        let (parts, mut body) = response.into_parts();
        // Sized from `content-length` (within the body limit, and at most 1 MiB up front):
        // one allocation instead of growing from empty.
        let declared = parts
            .headers
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
            .unwrap_or(0);
        let mut bytes = Vec::with_capacity(
            usize::try_from(declared.min(self.max_body).min(1 << 20)).unwrap_or(0),
        );
        body.with_config()
            .limit(self.max_body)
            .reader()
            .read_to_end(&mut bytes)
            .map_err(|e| failure(ureq::Error::from(e)))?;
        Ok(http::Response::from_parts(parts, bytes))
    }
}

/// A failed exchange: its kind (by the phase this thread's exchange reached) and ureq's error.
fn failure(e: ureq::Error) -> (TransportErrorKind, BoxError) {
    (classify(&e, phase::written()), Box::new(e))
}

/// The kind of a `ureq` failure, by the phase it happened in (see `crate::phase`): before any
/// request byte was written (resolving, connecting, the TLS handshake, a proxy's refusal, or
/// a timeout in those) it is `Connect`, or `InvalidRequest` when ureq refused the URL or
/// request itself; nothing was sent. After (writing, waiting for the answer, reading it) it is
/// `Timeout` for an expired limit, `Other` for a body over the size limit, else
/// `ConnectionLost`: the request may have reached the server.
fn classify(e: &ureq::Error, written: bool) -> TransportErrorKind {
    use ureq::Error as U;
    if !written {
        return match e {
            U::BadUri(_) | U::Http(_) | U::RequireHttpsOnly(_) | U::InvalidProxyUrl => {
                TransportErrorKind::InvalidRequest
            }
            _ => TransportErrorKind::Connect,
        };
    }
    match e {
        U::Timeout(_) => TransportErrorKind::Timeout,
        U::Io(io)
            if matches!(
                io.kind(),
                io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
            ) =>
        {
            TransportErrorKind::Timeout
        }
        U::BodyExceedsLimit(_) => TransportErrorKind::Other,
        _ => TransportErrorKind::ConnectionLost,
    }
}

/// Builds a [`Client`].
pub struct ClientBuilder {
    session: SessionBuilder,
    connect: Option<Duration>,
    read: Option<Duration>,
    total: Option<Duration>,
    agent: Option<ureq::Agent>,
    /// Whether the default read and phase limits apply (see `without_timeouts`).
    timed: bool,
    allow_http: bool,
    max_body: usize,
    roots: Option<Vec<Vec<u8>>>,
    hooks: Hooks,
    known_ids: usize,
    #[cfg(feature = "ws")]
    connector: Option<Arc<dyn crate::ws::Connector>>,
    /// What opens the sockets of this client's streams in a time of its own, if anything.
    #[cfg(feature = "ws")]
    pacer: Option<Arc<dyn digifinex_core::ws::Pacer>>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("session", &self.session)
            .field("connect", &self.connect)
            .field("read", &self.read)
            .field("total", &self.total)
            .field("timed", &self.timed)
            .field("custom_agent", &self.agent.is_some())
            .field("allow_http", &self.allow_http)
            .field("max_body", &self.max_body)
            .field("trusted_roots", &self.roots.as_ref().map(Vec::len))
            .field("responder", &self.hooks.responder.is_some())
            .finish()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            session: SessionBuilder::default(),
            connect: None,
            read: None,
            total: None,
            agent: None,
            timed: true,
            allow_http: false,
            max_body: DEFAULT_MAX_BODY,
            roots: None,
            hooks: Hooks::default(),
            known_ids: DEFAULT_ID_MEMORY,
            #[cfg(feature = "ws")]
            connector: None,
            #[cfg(feature = "ws")]
            pacer: None,
        }
    }
}

impl ClientBuilder {
    /// Records every exchange (request, answer, timing; secret-free) with `recorder`, e.g.
    /// `Arc::new(Recorder::append_to("session.jsonl")?.redacting(&credentials))` (see
    /// [`digifinex_core::record`]).
    pub fn recorder(mut self, recorder: Arc<dyn Tap>) -> Self {
        self.hooks.tap = Some(recorder);
        self
    }

    /// Answers every request with `responder` instead of the network: a recording
    /// ([`Replayer`](digifinex_core::record::Replayer)) or an exchange in the same process (the
    /// `digifinex-backtest` crate). The client does everything else as over the network
    /// (budgets, signing, retries of reads, clock syncs, decoding, the recorder); its waits
    /// (backoff, weight budget) go to [`Responder::wait`], and sleep only when the responder
    /// keeps the wall clock. The timeouts and the agent are not used.
    pub fn responder(mut self, responder: Arc<dyn Responder>) -> Self {
        self.hooks.responder = Some(responder);
        self
    }

    /// Answers every request from `replayer` instead of the network (tests): e.g.
    /// `Arc::new(Replayer::open("session.jsonl", ReplayMode::Strict)?)`. A request that does
    /// not match the recording fails as a transport error naming the first difference, and is
    /// never retried. The same as [`ClientBuilder::responder`].
    pub fn replayer(self, replayer: Arc<dyn Responder>) -> Self {
        self.responder(replayer)
    }

    /// Opens the sockets of this client's streams ([`Client::stream`]) through `connector`
    /// instead of the network (an exchange in the same process, a test double); see
    /// [`crate::ws::Connector`].
    #[cfg(feature = "ws")]
    pub fn ws_connector(mut self, connector: Arc<dyn crate::ws::Connector>) -> Self {
        self.connector = Some(connector);
        self
    }

    /// Opens the sockets of this client's streams through `pacer`, in its time (an exchange
    /// in the same process, in virtual time: the `digifinex-backtest` crate); see
    /// [`digifinex_core::ws::pace`]. It takes the place of a connector.
    #[cfg(feature = "ws")]
    pub fn ws_pacer(mut self, pacer: Arc<dyn digifinex_core::ws::Pacer>) -> Self {
        self.pacer = Some(pacer);
        self
    }

    /// Every session setting at once (URLs, credentials, clock, retries, budgets, time sync):
    /// the same [`SessionBuilder`] the async client takes. The setters below change it in place.
    pub fn session(mut self, session: SessionBuilder) -> Self {
        self.session = session;
        self
    }
    /// Base URLs and recv window at once.
    pub fn config(mut self, config: Config) -> Self {
        self.session = self.session.config(config);
        self
    }
    /// Spot/margin base URL, ending with `/v3` (default `https://openapi.digifinex.com/v3`).
    pub fn spot_base_url(mut self, url: impl Into<String>) -> Self {
        self.session = self.session.spot_base_url(url);
        self
    }
    /// Swap host URL (default `https://openapi.digifinex.com`).
    pub fn swap_base_url(mut self, url: impl Into<String>) -> Self {
        self.session = self.session.swap_base_url(url);
        self
    }
    /// API credentials for private endpoints.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.session = self.session.credentials(credentials);
        self
    }
    /// The clock used for signing, latency and backoff jitter (default the system clock).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.session = self.session.clock(clock);
        self
    }
    /// The `ACCESS-RECV-WINDOW` sent with signed spot requests.
    pub fn recv_window(mut self, window: u64) -> Self {
        self.session = self.session.recv_window(window);
        self
    }
    /// The retry policy for reads (default [`RetryPolicy::default`]).
    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.session = self.session.retry_policy(retry);
        self
    }
    /// Waits instead of crossing a weight budget (on by default): spot `spot_per_minute`
    /// (default 1200, the documented limit), swap `swap_per_minute` for public routes and,
    /// separately, for private ones (default 6,000, the venue's public limit; see
    /// [`Client::load_swap_weights`]).
    pub fn weight_budget(mut self, spot_per_minute: u64, swap_per_minute: u64) -> Self {
        self.session = self.session.weight_budget(spot_per_minute, swap_per_minute);
        self
    }
    /// Turns the weight budgets off: calls never wait for them (the server's 429 and bans
    /// still apply).
    pub fn without_weight_budget(mut self) -> Self {
        self.session = self.session.without_weight_budget();
        self
    }
    /// The longest a call waits for the weight budget before sending (default 10 s); a longer
    /// wait ends the call with `Error::BudgetExhausted` and sends nothing, so an order is never
    /// sent late.
    pub fn max_budget_wait(mut self, max: Duration) -> Self {
        self.session = self.session.max_budget_wait(max);
        self
    }
    /// Whether a clock rejection triggers one automatic time sync (default on): a spot 10008 is
    /// then re-signed and resent, a swap 400004 resent only if the clock offset moved.
    pub fn auto_time_sync(mut self, on: bool) -> Self {
        self.session = self.session.auto_time_sync(on);
        self
    }
    /// Connection setup limit, DNS and TLS included (default 5 s); running out of it is a
    /// connect error (nothing was sent).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect = Some(timeout);
        self
    }
    /// Limit for each read from the connection while waiting for the answer (default 10 s).
    pub fn read_timeout(mut self, timeout: Duration) -> Self {
        self.read = Some(timeout);
        self.timed = true;
        self
    }
    /// Limit for each phase of one attempt: sending the request, waiting for the answer's
    /// head, and reading its body (default 15 s each; connecting has its own limit).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.total = Some(timeout);
        self.timed = true;
        self
    }
    /// No client-side read or phase limit (the connect timeout still applies), as in the async
    /// client: a call then waits as long as the server keeps the connection open. A later
    /// [`ClientBuilder::read_timeout`] or [`ClientBuilder::timeout`] turns limits back on.
    pub fn without_timeouts(mut self) -> Self {
        self.timed = false;
        self.read = None;
        self.total = None;
        self
    }
    /// Uses this agent's configuration (proxy, TLS settings, pool limits, middleware). Its own
    /// timeouts are kept unless timeouts are also set on this builder; whatever it says, 4xx/5xx
    /// answers are handed to the core as answers and redirects are never followed (each request
    /// sets `http_status_as_error(false)` and `max_redirects(0)`).
    ///
    /// The client runs a new agent built from `agent.config()` with this crate's connector
    /// (ureq's default chain of TCP, proxy and TLS connectors, wrapped to tell a failure before
    /// the request was written from one after) and ureq's default resolver: a connector or
    /// resolver the agent was built with (`Agent::with_parts`) is replaced, and the new agent
    /// has its own connection pool and cookie jar.
    pub fn agent(mut self, agent: ureq::Agent) -> Self {
        self.agent = Some(agent);
        self
    }
    /// How many ids the session remembers ([`Client::known_ids`]; default
    /// [`DEFAULT_ID_MEMORY`], 4096; 0 remembers none).
    pub fn known_ids_capacity(mut self, ids: usize) -> Self {
        self.known_ids = ids;
        self
    }
    /// Allows plain `http://` base URLs (the simulator, tests). Default off.
    pub fn allow_http(mut self, allow: bool) -> Self {
        self.allow_http = allow;
        self
    }
    /// Largest response body read (default [`DEFAULT_MAX_BODY`]).
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// Trusts only these root certificates (DER), instead of the webpki roots (or the system's,
    /// with the `native-roots` feature): a TLS-intercepting proxy's CA, or a simulator behind
    /// TLS. [`ClientBuilder::build`] rejects a certificate that does not parse. Not used with
    /// [`ClientBuilder::agent`] (that agent's TLS settings stay as they are).
    pub fn trust_only_roots<I, D>(mut self, ders: I) -> Self
    where
        I: IntoIterator<Item = D>,
        D: AsRef<[u8]>,
    {
        self.roots = Some(ders.into_iter().map(|d| d.as_ref().to_vec()).collect());
        self
    }

    /// The client. Fails with a validation error for a base URL that is not `https://` (or
    /// `http://` with [`ClientBuilder::allow_http`]).
    pub fn build(self) -> Result<Client, Error> {
        self.session.current_config().check_urls(self.allow_http)?;
        #[cfg(any(feature = "ring", feature = "aws-lc-rs", feature = "native-roots"))]
        let roots = self.roots.as_deref().map(check_roots).transpose()?;
        #[cfg(not(any(feature = "ring", feature = "aws-lc-rs", feature = "native-roots")))]
        if self.roots.is_some() {
            return Err(Error::validation(
                "trust_only_roots",
                "built without TLS: enable the `ring` or `aws-lc-rs` feature",
            ));
        }
        let session = self.session;
        let (agent, per_request) = match self.agent {
            Some(agent) => {
                let config = agent.config().clone();
                let status_as_error = config.http_status_as_error();
                let follows_redirects = config.max_redirects() > 0;
                let any = status_as_error
                    || follows_redirects
                    || self.connect.is_some()
                    || self.read.is_some()
                    || self.total.is_some();
                let p = PerRequest {
                    status_as_error,
                    follows_redirects,
                    connect: self.connect,
                    read: self.read,
                    total: self.total,
                };
                (agent_with_phases(config), any.then_some(p))
            }
            None => {
                let (read, total) = if self.timed {
                    (
                        Some(self.read.unwrap_or(DEFAULT_READ)),
                        Some(self.total.unwrap_or(DEFAULT_TOTAL)),
                    )
                } else {
                    (None, None)
                };
                let config = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    // DESIGN: a redirect is never followed (it would carry the signed headers
                    // to another host); the core turns the 3xx into `Error::Redirect`.
                    .max_redirects(0)
                    .user_agent(concat!("digifinex-rs/", env!("CARGO_PKG_VERSION")))
                    .timeout_connect(Some(self.connect.unwrap_or(DEFAULT_CONNECT)))
                    .timeout_per_read(read)
                    // DESIGN: the total limit is set per phase (sending, waiting for the
                    // head, reading the body), not as ureq's `timeout_global`/`timeout_per_call`:
                    // on a pooled keep-alive connection those cost about 200 µs per request
                    // (a loopback GET took ~8x raw ureq), the phase limits nothing measurable.
                    .timeout_send_request(total)
                    .timeout_recv_response(total)
                    .timeout_recv_body(total);
                #[cfg(any(feature = "ring", feature = "aws-lc-rs", feature = "native-roots"))]
                let config = config.tls_config(tls_config(roots));
                (agent_with_phases(config.build()), None)
            }
        };
        Ok(Client {
            session: Arc::new(session.build()),
            agent,
            per_request,
            max_body: self.max_body as u64,
            hooks: self.hooks,
            known: SessionIds::new(self.known_ids),
            #[cfg(feature = "ws")]
            allow_http: self.allow_http,
            #[cfg(feature = "ws")]
            roots: self.roots,
            #[cfg(feature = "ws")]
            connector: self.connector,
            #[cfg(feature = "ws")]
            pacer: self.pacer,
        })
    }
}

/// An agent on `config` whose connections report the phase a failure happened in (see
/// `crate::phase`).
fn agent_with_phases(config: ureq::config::Config) -> ureq::Agent {
    ureq::Agent::with_parts(
        config,
        PhaseConnector::default(),
        DefaultResolver::default(),
    )
}

/// The caller's root certificates, each checked to parse as an X.509 trust anchor.
#[cfg(any(feature = "ring", feature = "aws-lc-rs", feature = "native-roots"))]
fn check_roots(ders: &[Vec<u8>]) -> Result<Vec<ureq::tls::Certificate<'static>>, Error> {
    if ders.is_empty() {
        return Err(Error::validation(
            "trust_only_roots",
            "no certificate: every https connection would fail",
        ));
    }
    let mut store = rustls::RootCertStore::empty();
    ders.iter()
        .enumerate()
        .map(|(i, der)| {
            store
                .add(rustls::pki_types::CertificateDer::from(der.as_slice()))
                .map_err(|e| {
                    Error::validation(
                        "trust_only_roots",
                        format!("certificate {i} is not a usable root: {e}"),
                    )
                })?;
            Ok(ureq::tls::Certificate::from_der(der).to_owned())
        })
        .collect()
}

/// rustls with the provider chosen by the cargo features, and the caller's roots or else the
/// roots the features choose.
#[cfg(any(feature = "ring", feature = "aws-lc-rs", feature = "native-roots"))]
fn tls_config(roots: Option<Vec<ureq::tls::Certificate<'static>>>) -> ureq::tls::TlsConfig {
    #[allow(unused_mut)]
    let mut b = ureq::tls::TlsConfig::builder().provider(ureq::tls::TlsProvider::Rustls);
    #[cfg(all(feature = "aws-lc-rs", not(feature = "ring")))]
    {
        b = b.unversioned_rustls_crypto_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ));
    }
    #[cfg(feature = "native-roots")]
    {
        b = b.root_certs(ureq::tls::RootCerts::PlatformVerifier);
    }
    if let Some(roots) = roots {
        b = b.root_certs(ureq::tls::RootCerts::Specific(Arc::new(roots)));
    }
    b.build()
}

/// What a stream shares with its client: `allow_http`, the caller's roots, the socket
/// connector and the pacer.
#[cfg(feature = "ws")]
pub(crate) type StreamSettings<'a> = (
    bool,
    Option<&'a [Vec<u8>]>,
    Option<&'a Arc<dyn crate::ws::Connector>>,
    Option<&'a Arc<dyn digifinex_core::ws::Pacer>>,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_needs_allow_http() {
        let e = Client::builder()
            .spot_base_url("http://127.0.0.1:1/v3")
            .build()
            .unwrap_err();
        assert!(matches!(e, Error::Validation { ref field, .. } if field == "spot_base_url"));
        let e = Client::builder()
            .swap_base_url("ftp://x")
            .build()
            .unwrap_err();
        assert!(matches!(e, Error::Validation { ref field, .. } if field == "swap_base_url"));
        assert!(Client::builder()
            .spot_base_url("http://127.0.0.1:1/v3")
            .swap_base_url("http://127.0.0.1:1")
            .allow_http(true)
            .build()
            .is_ok());
        assert!(Client::builder().build().is_ok());
    }

    #[test]
    fn client_is_send_sync_clone() {
        fn check<T: Send + Sync + Clone>() {}
        check::<Client>();
    }
}
