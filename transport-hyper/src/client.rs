//! The async client and its builder.

use std::error::Error as StdError;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
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
use http_body_util::combinators::Collect;
use http_body_util::{BodyExt, Collected, Full, Limited};
use hyper_util::client::legacy::connect::{capture_connection, Connect, HttpConnector};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tracing::Instrument;

use crate::pages::Pages;
use crate::tls::tls_config;

/// Default limit of a response body (16 MiB); a larger answer is a transport error.
pub const DEFAULT_MAX_BODY: usize = 16 << 20;

const DEFAULT_CONNECT: Duration = Duration::from_secs(5);
const DEFAULT_READ: Duration = Duration::from_secs(10);
const DEFAULT_TOTAL: Duration = Duration::from_secs(15);

/// The connector of the default client: hyper's `HttpConnector` wrapped in rustls, within the
/// builder's connect timeout for the whole setup (resolving, TCP, the TLS handshake). A setup
/// that fails or runs out of time is a connect error ([`TransportErrorKind::Connect`]):
/// nothing was sent.
#[derive(Debug, Clone)]
pub struct DefaultConnector {
    inner: hyper_rustls::HttpsConnector<HttpConnector>,
    timeout: Duration,
}

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

impl tower_service::Service<http::Uri> for DefaultConnector {
    type Response = <Https as tower_service::Service<http::Uri>>::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, dst: http::Uri) -> Self::Future {
        let setup = self.inner.call(dst);
        let limit = self.timeout;
        // DESIGN: one tokio timer per new connection (not per request: connections are
        // pooled). `HttpConnector`'s own timeout covers the TCP connect only, so a TLS
        // handshake that stalls would otherwise run into the request's read limit.
        Box::pin(async move {
            match tokio::time::timeout(limit, setup).await {
                Ok(r) => r,
                Err(_) => Err(Box::new(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("connection not set up within {} ms", limit.as_millis()),
                )) as BoxError),
            }
        })
    }
}

/// The hyper client type this crate drives (request bodies are [`Full<Bytes>`]).
pub type HyperClient<C> = hyper_util::client::legacy::Client<C, Full<Bytes>>;

/// An async DigiFinex client. Cheap to clone (session and connection pool are shared);
/// `Send + Sync`, and its futures are `Send`.
///
/// # Examples
///
/// Against the exchange simulator started in this process (the `digifinex-sim` crate); for the
/// exchange itself, leave out the two URLs and `allow_http` and pass your own keys. Two
/// requests run at once on clones of one client:
///
/// ```
/// use digifinex_sim::{Sim, SimConfig};
/// use digifinex_hyper::core::spot::{OrderBookRequest, SpotAssetsRequest};
/// use digifinex_hyper::core::{swap, Credentials, Family};
/// use digifinex_hyper::Client;
///
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let sim = Sim::start(SimConfig::default())?;
///     let keys = sim.control().demo_account().keys;
///     let client = Client::builder()
///         .spot_base_url(sim.spot_base_url())
///         .swap_base_url(sim.swap_base_url())
///         .allow_http(true)
///         .credentials(Credentials::new(keys.key, keys.secret))
///         .build()?;
///     client.sync_time(Family::Spot).await?;
///
///     let other = client.clone();
///     let depth = tokio::spawn(async move {
///         other.send(&swap::DepthRequest::new("BTCUSDTPERP").limit(5)).await
///     });
///     let book = client.send(&OrderBookRequest::new("btc_usdt").limit(5)).await?;
///     assert!(book.best_bid().is_some());
///     assert!(!depth.await??.bids.is_empty());
///
///     // `send_full` also returns the status, headers, latency and attempts.
///     let assets = client.send_full(&SpotAssetsRequest).await?;
///     assert_eq!(assets.status, 200);
///     Ok(())
/// }
/// ```
#[derive(Debug)]
pub struct Client<C = DefaultConnector> {
    session: Arc<Session>,
    http: HyperClient<C>,
    read: Duration,
    total: Duration,
    /// Whether the read and total limits apply (off after [`ClientBuilder::without_timeouts`]).
    timed: bool,
    /// Whether a limit may run out while connecting (see [`ClientBuilder::build`]): then each
    /// request notes when it gets a connection, to tell the phase.
    capture: bool,
    max_body: usize,
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

impl<C: Clone> Clone for Client<C> {
    fn clone(&self) -> Self {
        Client {
            session: self.session.clone(),
            http: self.http.clone(),
            read: self.read,
            total: self.total,
            timed: self.timed,
            capture: self.capture,
            max_body: self.max_body,
            hooks: self.hooks.clone(),
            known: self.known.clone(),
            #[cfg(feature = "ws")]
            allow_http: self.allow_http,
            #[cfg(feature = "ws")]
            roots: self.roots.clone(),
            #[cfg(feature = "ws")]
            connector: self.connector.clone(),
            #[cfg(feature = "ws")]
            pacer: self.pacer.clone(),
        }
    }
}

impl Client {
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

    /// A builder with the defaults: production URLs, no credentials, system clock, 5 s connect /
    /// 10 s read / 15 s total timeouts, default retries, automatic time sync, weight budgets on,
    /// rustls with webpki roots.
    pub fn builder() -> ClientBuilder {
        ClientBuilder {
            opts: Options::default(),
            http: None,
            make: default_client,
        }
    }

    /// A client with the defaults (see [`Client::builder`]).
    pub fn new() -> Result<Client, Error> {
        Client::builder().build()
    }
}

/// The driving loop of [`Client::drive`], written out where it is used so that the hot path
/// (a request without a subscriber) awaits it in place.
///
/// DESIGN (issue 28): see `send_traced!`.
macro_rules! drive_loop {
    ($client:expr, $call:expr) => {{
        let client = $client;
        let mut call = $call;
        loop {
            match call.next() {
                // Without hooks the exchange is awaited directly: its future is half the
                // size, and each await moves the future it starts.
                Action::Send(request) => match if client.hooks.is_empty() {
                    client.exchange_net(request).await
                } else {
                    client.exchange(request).await
                } {
                    Ok(response) => {
                        let (parts, body) = response.into_parts();
                        call.on_owned_response(http::Response::from_parts(parts, &body[..]));
                    }
                    Err((kind, error)) => {
                        tracing::debug!(%kind, %error, "transport error");
                        call.on_transport_error(kind, error);
                    }
                },
                Action::Wait(delay) => {
                    tracing::debug!(delay_ms = delay.as_millis() as u64, "waiting");
                    // A responder in its own time (an exchange in virtual time) waits there.
                    if !client.hooks.wait(delay) {
                        tokio::time::sleep(delay).await;
                    }
                }
                Action::Done(result) => break result,
            }
        }
    }};
}

/// One request of endpoint type `$e` through the session, in its `digifinex.request` span:
/// the typed answer with its facts, or the error.
///
/// DESIGN (issue 28, instructions per loopback GET, `benches/instructions.rs`): the request
/// cycle is written out and awaited in place by each public call, not boxed (boxing its future
/// cost an allocation and a copy: 526 instructions of 43,356) nor awaited through a private
/// `async fn` (each layer moves the future it starts, several KB: 0.8k instructions), and it
/// is instrumented only when a subscriber takes the span (a further 214).
macro_rules! send_traced {
    ($client:expr, $endpoint:expr, $e:ty) => {{
        let client = $client;
        let span = request_span(&<$e as Endpoint>::META);
        let result = if span.is_disabled() {
            drive_loop!(client, client.session.call($endpoint))
        } else {
            client
                .drive(client.session.call($endpoint))
                .instrument(span.clone())
                .await
        };
        record(&span, &result);
        result
    }};
}

impl<C> Client<C>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    /// The session: config, credentials, clock offset, retry policy and budgets.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The hyper client in use.
    pub fn hyper_client(&self) -> &HyperClient<C> {
        &self.http
    }

    /// Sends `endpoint` and returns its typed output.
    pub async fn send<E>(&self, endpoint: &E) -> Result<E::Output, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        // As `send_full`, written out (see `send_traced!`).
        let mark = (!E::META.idempotent).then(|| self.known.mark());
        let result = send_traced!(self, endpoint, E);
        self.settle::<E>(mark, result).map(|r| r.value)
    }

    /// Sends `endpoint` and returns its typed output with the status, headers, rate-limit
    /// usage, latency and attempts of the final answer.
    ///
    /// A write's answer that names what it created (an order id, a batch's ids, a withdrawal
    /// id) is remembered ([`Client::known_ids`]); a write's unknown outcome carries the ids
    /// remembered before it ([`Error::prior`]).
    pub async fn send_full<E>(&self, endpoint: &E) -> Result<Response<E::Output>, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        let mark = (!E::META.idempotent).then(|| self.known.mark());
        let result = send_traced!(self, endpoint, E);
        self.settle::<E>(mark, result)
    }

    /// A write's answer, its ids remembered, or its unknown outcome with the ids remembered
    /// before it (`mark`); a read's (no mark) as it is.
    fn settle<E: Endpoint>(
        &self,
        mark: Option<u64>,
        result: Result<Response<E::Output>, Error>,
    ) -> Result<Response<E::Output>, Error> {
        match mark {
            None => result,
            Some(mark) => self.known.after_write(
                mark,
                result,
                |r| created_ids_of(E::META.name, &r.value),
                None,
            ),
        }
    }

    /// Sends the write `request` after a snapshot of its evidence set when `policy` asks for
    /// one ([`SnapshotPolicy::BeforeSend`]: the reads of [`Client::snapshot`], just before
    /// it). An unknown outcome then carries the snapshot, and [`Client::reconcile`] gives an
    /// exact verdict (see [`digifinex_core::reconcile`]). A snapshot read that fails stops the
    /// write before it is sent, with that read's error.
    pub async fn send_write<E>(
        &self,
        request: &E,
        policy: SnapshotPolicy,
    ) -> Result<E::Output, Error>
    where
        E: WriteRequest + Sync,
        E::Output: Send,
    {
        let snapshot = match policy {
            SnapshotPolicy::BeforeSend => Some(self.snapshot(&request.to_write()).await?),
            _ => None,
        };
        let mark = self.known.mark();
        let result = send_traced!(self, request, E).map(|r| r.value);
        self.known
            .after_write(mark, result, |o| E::created_ids(o), snapshot)
    }

    /// `POST /v3/{market}/order/new` with a snapshot policy (see [`Client::send_write`]).
    pub async fn place_spot(
        &self,
        request: &spot::PlaceOrderRequest,
        policy: SnapshotPolicy,
    ) -> Result<spot::PlacedOrder, Error> {
        self.send_write(request, policy).await
    }

    /// `POST /v3/{market}/order/batch_new` with a snapshot policy (see [`Client::send_write`]).
    pub async fn place_spot_batch(
        &self,
        request: &spot::BatchPlaceOrdersRequest,
        policy: SnapshotPolicy,
    ) -> Result<spot::PlacedOrders, Error> {
        self.send_write(request, policy).await
    }

    /// `POST /swap/v2/trade/order_place` with a snapshot policy (see [`Client::send_write`]).
    pub async fn place_swap(
        &self,
        request: &swap::PlaceOrderRequest,
        policy: SnapshotPolicy,
    ) -> Result<swap::PlacedOrder, Error> {
        self.send_write(request, policy).await
    }

    /// `POST /swap/v2/trade/batch_order` with a snapshot policy (see [`Client::send_write`]).
    pub async fn place_swap_batch(
        &self,
        request: &swap::BatchPlaceOrdersRequest,
        policy: SnapshotPolicy,
    ) -> Result<swap::OrderIds, Error> {
        self.send_write(request, policy).await
    }

    /// Reads `write`'s evidence set now ([`Snapshot`]: for an order, the pair's open orders and
    /// recent history) and returns what it knows, to attach to the write's unknown outcome
    /// ([`Error::with_prior`]) or to give as [`ReconcileOptions::prior`]. Its ids are
    /// remembered as seen. [`Client::send_write`] calls it for you.
    pub async fn snapshot(&self, write: &Write) -> Result<Prior, Error> {
        let mut s = Snapshot::new(write, self.session.now(), &ReconcileOptions::default());
        while let Some(read) = s.next_read() {
            let answer = Box::pin(self.drive(read.call(&self.session))).await?;
            s.feed(answer.value);
        }
        let prior = s.finish();
        self.known.seen(prior.known_ids.iter().cloned());
        Ok(prior)
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
    pub async fn sync_time(&self, family: Family) -> Result<i64, Error> {
        let span = sync_span(family);
        let result = self
            .drive(self.session.sync_call(family))
            .instrument(span.clone())
            .await;
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
    pub async fn reconcile(&self, error: &Error) -> Result<Outcome, Error> {
        self.reconcile_with(error, ReconcileOptions::default())
            .await
    }

    /// [`Client::reconcile`] with options: known ids, clock uncertainty, the position margin
    /// before a `position_margin` write.
    pub async fn reconcile_with(
        &self,
        error: &Error,
        options: ReconcileOptions,
    ) -> Result<Outcome, Error> {
        let mut r = Reconciler::new(Unknown::from_error(error)?, options);
        while let Some(read) = r.next_read() {
            let result = Box::pin(self.drive(read.call(&self.session))).await;
            match result {
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
    pub async fn load_swap_weights(&self) -> Result<usize, Error> {
        let routes = self.send(&digifinex_core::swap::ApiWeightRequest).await?;
        let table = digifinex_core::ratelimit::WeightTable::new(&routes);
        let n = table.len();
        self.session.set_swap_weights(table);
        Ok(n)
    }

    /// Walks `pager`: call [`Pages::next_page`] in a loop, or turn it into a stream.
    pub fn pages<P: Pager>(&self, pager: P) -> Pages<C, P> {
        Pages::new(self.clone(), pager)
    }

    /// Walks `pager` item by item, as a stream (an error is the last element): the async
    /// counterpart of the blocking client's `items`.
    pub fn items<P>(
        &self,
        pager: P,
    ) -> impl futures_core::Stream<Item = Result<P::Item, Error>> + Send
    where
        P: Pager + Send,
        P::Item: Send,
        P::Request: Send + Sync,
        <P::Request as Endpoint>::Output: Send,
    {
        self.pages(pager).into_item_stream()
    }

    /// The one driving loop, for every [`Drive`] state machine of the core: [`Client::send`]
    /// and [`Client::sync_time`] use it, and so can callers holding a type-erased call (for
    /// example a catalog entry's `call`).
    pub async fn drive<D: Drive>(&self, call: D) -> Result<Response<D::Output>, Error> {
        drive_loop!(self, call)
    }

    /// Sends one request (or asks the responder) and hands the exchange to the recorder.
    async fn exchange(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Bytes>, Failed> {
        if self.hooks.is_empty() {
            return self.exchange_net(request).await;
        }
        let copy = self.hooks.before(&request);
        let at = self.session.local_now().0;
        let started = std::time::Instant::now();
        let result = match self.hooks.replay(&request) {
            Some(answer) => answer.map(|r| r.map(Bytes::from)),
            None => self.exchange_net(request).await,
        };
        let took = self
            .hooks
            .elapsed(at, self.session.local_now().0, started.elapsed());
        self.hooks.after(copy, &result, at, took);
        result
    }

    /// Sends one request and reads the whole answer within the timeouts. A failure carries its
    /// kind, decided by the phase it happened in (see [`head_failure`]), and the transport's
    /// error.
    async fn exchange_net(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<Bytes>, Failed> {
        let (parts, body) = request.into_parts();
        let mut request = http::Request::from_parts(parts, Full::new(Bytes::from(body)));
        if !self.timed {
            let head = self.http.request(request).await;
            let (parts, body) = head.map_err(head_failure)?.into_parts();
            let body = self.collect(body).await;
            return Ok(http::Response::from_parts(parts, self.read_body(body)?));
        }
        // Tells a limit that runs out before the request got a connection (nothing sent)
        // from one after: hyper-util notes the connection here just before sending on it.
        let connection = self.capture.then(|| capture_connection(&mut request));
        // DESIGN: one tokio timer for the whole attempt, moved once from the head deadline to
        // the body deadline. A coarse shared deadline task instead of it gained about 5% of
        // throughput with 32 requests in flight: below the 10% that would pay for custom
        // machinery, so the runtime's own timer is used.
        let start = tokio::time::Instant::now();
        let end = deadline(start, self.total);
        let head_by = end.min(deadline(start, self.read));
        let timer = tokio::time::sleep_until(head_by);
        tokio::pin!(timer);
        let response = tokio::select! {
            biased;
            r = self.http.request(request) => r.map_err(head_failure)?,
            () = &mut timer => {
                let limit = if head_by == end { self.total } else { self.read };
                let connected = connection.is_none_or(|c| c.connection_metadata().is_some());
                return Err(if !connected {
                    timed_out(TransportErrorKind::Connect, "no connection", limit)
                } else {
                    self.expired(head_by == end, "no response head")
                });
            }
        };
        let (parts, body) = response.into_parts();
        let body_by = end.min(deadline(tokio::time::Instant::now(), self.read));
        // DESIGN (issue 28): tokio's timer counts whole milliseconds, so when the head came
        // within one the timer already stands for the body's limit (at most 1 ms early);
        // moving it would cost about 230 instructions, 0.5% of a loopback GET.
        if body_by.saturating_duration_since(head_by) >= Duration::from_millis(1) {
            timer.as_mut().reset(body_by);
        }
        let body = tokio::select! {
            biased;
            r = self.collect(body) => self.read_body(r)?,
            () = &mut timer => return Err(self.expired(body_by == end, "body not read")),
        };
        Ok(http::Response::from_parts(parts, body))
    }

    /// Reads the whole body, up to the size limit (awaited in place by `exchange_net`: an
    /// `async fn` layer would move the future it starts).
    fn collect(&self, body: hyper::body::Incoming) -> Collect<Limited<hyper::body::Incoming>> {
        Limited::new(body, self.max_body).collect()
    }

    /// The collected body, or the failure that stopped it.
    fn read_body(&self, collected: Result<Collected<Bytes>, BoxError>) -> Result<Bytes, Failed> {
        collected
            .map(|c| c.to_bytes())
            .map_err(|e| body_failure(e, self.max_body))
    }

    /// The timeout error once the request may have been sent: the total limit when that
    /// deadline was the nearer one, else the read limit.
    fn expired(&self, total: bool, what: &str) -> Failed {
        if total {
            timed_out(TransportErrorKind::Timeout, "request not done", self.total)
        } else {
            timed_out(TransportErrorKind::Timeout, what, self.read)
        }
    }
}

/// `from + after`, saturating at about 30 years for huge limits.
fn deadline(from: tokio::time::Instant, after: Duration) -> tokio::time::Instant {
    from.checked_add(after)
        .unwrap_or_else(|| from + Duration::from_secs(30 * 365 * 86_400))
}

/// A failed exchange: its kind and the error handed to the core.
type Failed = (TransportErrorKind, BoxError);

/// A limit of the client's own that ran out: an `io::Error` of kind `TimedOut`.
fn timed_out(kind: TransportErrorKind, what: &str, after: Duration) -> Failed {
    let e = io::Error::new(
        io::ErrorKind::TimedOut,
        format!("{what} after {} ms", after.as_millis()),
    );
    (kind, Box::new(e))
}

/// A failure of the hyper client before the answer's head, by the phase it happened in:
/// before any request byte could be written it is `Connect` (nothing was sent), which the
/// errors' structure tells: a connector failure (`is_connect()`: resolving, connecting, the
/// TLS handshake, a proxy's refusal, the connect timeout), or a request hyper handed back
/// unsent (a canceled dispatch: the connection closed before the request was taken from the
/// queue). Anything else happened once the request may have been written: `Timeout` for an
/// expired limit, else `ConnectionLost`.
fn head_failure(e: hyper_util::client::legacy::Error) -> Failed {
    let unsent = first_hyper_error(e.source()).is_some_and(hyper::Error::is_canceled);
    let kind = if e.is_connect() || unsent {
        TransportErrorKind::Connect
    } else {
        after_kind(&e)
    };
    (kind, TransportFailure::boxed(Box::new(e)))
}

/// A failure while reading the body: the head arrived, so the request was sent. `Other` for a
/// body over the size limit.
fn body_failure(e: BoxError, limit: usize) -> Failed {
    if e.is::<http_body_util::LengthLimitError>() {
        let message = format!("response body larger than {limit} bytes");
        return (
            TransportErrorKind::Other,
            Box::new(TransportFailure { message, source: e }),
        );
    }
    (after_kind(&*e), TransportFailure::boxed(e))
}

/// The kind of a failure after the request may have been written: `Timeout` when a timeout
/// is in its chain, else `ConnectionLost`.
fn after_kind(e: &(dyn StdError + 'static)) -> TransportErrorKind {
    let mut next = Some(e);
    while let Some(err) = next {
        let timeout = err
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_timeout)
            || err
                .downcast_ref::<io::Error>()
                .is_some_and(|io| io.kind() == io::ErrorKind::TimedOut);
        if timeout {
            return TransportErrorKind::Timeout;
        }
        next = err.source();
    }
    TransportErrorKind::ConnectionLost
}

/// The first `hyper::Error` in a source chain.
fn first_hyper_error<'a>(mut e: Option<&'a (dyn StdError + 'static)>) -> Option<&'a hyper::Error> {
    while let Some(err) = e {
        if let Some(h) = err.downcast_ref::<hyper::Error>() {
            return Some(h);
        }
        e = err.source();
    }
    None
}

/// The error handed to the core for a hyper failure: its `Display` is the error and its
/// causes on one line (`hyper_util`'s own says only "client error (Connect)"), its `source()`
/// the transport's error (`hyper_util`'s, or the body's `hyper::Error`).
#[derive(Debug)]
struct TransportFailure {
    message: String,
    source: BoxError,
}

impl TransportFailure {
    fn boxed(source: BoxError) -> BoxError {
        let mut message = source.to_string();
        let mut next = source.source();
        while let Some(s) = next {
            message.push_str(": ");
            message.push_str(&s.to_string());
            next = s.source();
        }
        Box::new(TransportFailure { message, source })
    }
}

impl std::fmt::Display for TransportFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for TransportFailure {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&*self.source)
    }
}

/// The builder's settings that do not depend on the connector type.
struct Options {
    session: SessionBuilder,
    connect: Duration,
    read: Duration,
    total: Duration,
    allow_http: bool,
    max_body: usize,
    roots: Option<Vec<Vec<u8>>>,
    timed: bool,
    hooks: Hooks,
    known_ids: usize,
    #[cfg(feature = "ws")]
    connector: Option<Arc<dyn crate::ws::Connector>>,
    /// What opens the sockets of this client's streams in a time of its own, if anything.
    #[cfg(feature = "ws")]
    pacer: Option<Arc<dyn digifinex_core::ws::Pacer>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            session: SessionBuilder::default(),
            connect: DEFAULT_CONNECT,
            read: DEFAULT_READ,
            total: DEFAULT_TOTAL,
            allow_http: false,
            max_body: DEFAULT_MAX_BODY,
            roots: None,
            timed: true,
            hooks: Hooks::default(),
            known_ids: DEFAULT_ID_MEMORY,
            #[cfg(feature = "ws")]
            connector: None,
            #[cfg(feature = "ws")]
            pacer: None,
        }
    }
}

/// Builds a [`Client`]; `C` is the connector of the hyper client (see
/// [`ClientBuilder::hyper_client`]).
pub struct ClientBuilder<C = DefaultConnector> {
    opts: Options,
    http: Option<HyperClient<C>>,
    make: fn(&Options) -> Result<HyperClient<C>, Error>,
}

impl<C> std::fmt::Debug for ClientBuilder<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let o = &self.opts;
        f.debug_struct("ClientBuilder")
            .field("session", &o.session)
            .field("connect", &o.connect)
            .field("read", &o.read)
            .field("total", &o.total)
            .field("custom_client", &self.http.is_some())
            .field("allow_http", &o.allow_http)
            .field("max_body", &o.max_body)
            .field("timeouts", &o.timed)
            .field("trusted_roots", &o.roots.as_ref().map(Vec::len))
            .field("responder", &o.hooks.responder.is_some())
            .finish()
    }
}

impl<C> ClientBuilder<C>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    /// Records every exchange (request, answer, timing; secret-free) with `recorder`, e.g.
    /// `Arc::new(Recorder::append_to("session.jsonl")?.redacting(&credentials))` (see
    /// [`digifinex_core::record`]).
    pub fn recorder(mut self, recorder: Arc<dyn Tap>) -> Self {
        self.opts.hooks.tap = Some(recorder);
        self
    }

    /// Answers every request with `responder` instead of the network: a recording
    /// ([`Replayer`](digifinex_core::record::Replayer)) or an exchange in the same process (the
    /// `digifinex-backtest` crate). The client does everything else as over the network
    /// (budgets, signing, retries of reads, clock syncs, decoding, the recorder); its waits
    /// (backoff, weight budget) go to [`Responder::wait`], and sleep only when the responder
    /// keeps the wall clock. The timeouts and the hyper client are not used.
    pub fn responder(mut self, responder: Arc<dyn Responder>) -> Self {
        self.opts.hooks.responder = Some(responder);
        self
    }

    /// Answers every request from `replayer` instead of the network (tests): e.g.
    /// `Arc::new(Replayer::open("session.jsonl", ReplayMode::Strict)?)`. A request that does
    /// not match the recording fails as a transport error naming the first difference, and is
    /// never retried. The same as [`ClientBuilder::responder`].
    pub fn replayer(self, replayer: Arc<dyn Responder>) -> Self {
        self.responder(replayer)
    }

    /// Opens the sockets of this client's streams (`Client::stream`) through `connector`
    /// instead of the network (an exchange in the same process, a test double); see
    /// [`crate::ws::Connector`].
    #[cfg(feature = "ws")]
    pub fn ws_connector(mut self, connector: Arc<dyn crate::ws::Connector>) -> Self {
        self.opts.connector = Some(connector);
        self
    }

    /// Opens the sockets of this client's streams through `pacer`, in its time (an exchange
    /// in the same process, in virtual time: the `digifinex-backtest` crate); see
    /// [`digifinex_core::ws::pace`]. It takes the place of a connector.
    #[cfg(feature = "ws")]
    pub fn ws_pacer(mut self, pacer: Arc<dyn digifinex_core::ws::Pacer>) -> Self {
        self.opts.pacer = Some(pacer);
        self
    }

    /// Every session setting at once (URLs, credentials, clock, retries, budgets, time sync):
    /// the same [`SessionBuilder`] the blocking client takes. The setters below change it in
    /// place.
    pub fn session(mut self, session: SessionBuilder) -> Self {
        self.opts.session = session;
        self
    }
    /// Base URLs and recv window at once.
    pub fn config(mut self, config: Config) -> Self {
        self.opts.session = self.opts.session.config(config);
        self
    }
    /// Spot/margin base URL, ending with `/v3` (default `https://openapi.digifinex.com/v3`).
    pub fn spot_base_url(mut self, url: impl Into<String>) -> Self {
        self.opts.session = self.opts.session.spot_base_url(url);
        self
    }
    /// Swap host URL (default `https://openapi.digifinex.com`).
    pub fn swap_base_url(mut self, url: impl Into<String>) -> Self {
        self.opts.session = self.opts.session.swap_base_url(url);
        self
    }
    /// API credentials for private endpoints.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.opts.session = self.opts.session.credentials(credentials);
        self
    }
    /// The clock used for signing, latency and backoff jitter (default the system clock).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.opts.session = self.opts.session.clock(clock);
        self
    }
    /// The `ACCESS-RECV-WINDOW` sent with signed spot requests.
    pub fn recv_window(mut self, window: u64) -> Self {
        self.opts.session = self.opts.session.recv_window(window);
        self
    }
    /// Connection setup limit, resolving and the TLS handshake included (default 5 s); running
    /// out of it is a connect error (nothing was sent). Applies to the default connector only:
    /// a client given to [`ClientBuilder::hyper_client`] keeps its connector's settings.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.opts.connect = timeout;
        self
    }
    /// Limit for waiting for the response head, and again for the body (default 10 s).
    ///
    /// The head's limit runs from the start of the attempt, connecting included: when it (or
    /// the total limit) runs out before the request has a connection, nothing was sent and the
    /// error is a connect error; after, it is a timeout (an unknown outcome for an order). The
    /// body's limit runs from the head's arrival, to the millisecond (tokio's timer resolution:
    /// a head that came within a millisecond keeps the head's deadline for the body).
    pub fn read_timeout(mut self, timeout: Duration) -> Self {
        self.opts.read = timeout;
        self.opts.timed = true;
        self
    }
    /// Limit for one whole attempt, from connecting to the last body byte (default 15 s).
    ///
    /// The read and total limits share one tokio timer per attempt (millisecond resolution),
    /// set to the nearer deadline.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.opts.total = timeout;
        self.opts.timed = true;
        self
    }
    /// No client-side read or total limit (the connect timeout of the default connector still
    /// applies): a call then waits as long as the server keeps the connection open, so bound
    /// it yourself (`tokio::time::timeout`, which drops the call: a state-changing request
    /// dropped that way has an unknown outcome). Skips the per-request timer. A later
    /// [`ClientBuilder::read_timeout`] or
    /// [`ClientBuilder::timeout`] turns the limits back on.
    pub fn without_timeouts(mut self) -> Self {
        self.opts.timed = false;
        self
    }
    /// The retry policy for reads (default [`RetryPolicy::default`]).
    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.opts.session = self.opts.session.retry_policy(retry);
        self
    }
    /// Waits instead of crossing a weight budget (on by default): spot `spot_per_minute`
    /// (default 1200, the documented limit), swap `swap_per_minute` for public routes and,
    /// separately, for private ones (default 6,000, the venue's public limit; see
    /// [`Client::load_swap_weights`]).
    pub fn weight_budget(mut self, spot_per_minute: u64, swap_per_minute: u64) -> Self {
        self.opts.session = self
            .opts
            .session
            .weight_budget(spot_per_minute, swap_per_minute);
        self
    }
    /// Turns the weight budgets off: calls never wait for them (the server's 429 and bans
    /// still apply).
    pub fn without_weight_budget(mut self) -> Self {
        self.opts.session = self.opts.session.without_weight_budget();
        self
    }
    /// The longest a call waits for the weight budget before sending (default 10 s); a longer
    /// wait ends the call with `Error::BudgetExhausted` and sends nothing, so an order is never
    /// sent late.
    pub fn max_budget_wait(mut self, max: Duration) -> Self {
        self.opts.session = self.opts.session.max_budget_wait(max);
        self
    }
    /// Whether a clock rejection triggers one automatic time sync (default on): a spot 10008 is
    /// then re-signed and resent, a swap 400004 resent only if the clock offset moved.
    pub fn auto_time_sync(mut self, on: bool) -> Self {
        self.opts.session = self.opts.session.auto_time_sync(on);
        self
    }
    /// Allows plain `http://` base URLs (the simulator, tests). Default off.
    pub fn allow_http(mut self, allow: bool) -> Self {
        self.opts.allow_http = allow;
        self
    }
    /// Largest response body read (default [`DEFAULT_MAX_BODY`]).
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.opts.max_body = bytes;
        self
    }

    /// How many ids the session remembers ([`Client::known_ids`]; default
    /// [`DEFAULT_ID_MEMORY`], 4096; 0 remembers none).
    pub fn known_ids_capacity(mut self, ids: usize) -> Self {
        self.opts.known_ids = ids;
        self
    }

    /// Trusts only these root certificates (DER), instead of the webpki roots (or the system's,
    /// with the `native-roots` feature): a TLS-intercepting proxy's CA, or a simulator behind
    /// TLS. [`ClientBuilder::build`] rejects a certificate that does not parse. Applies to the
    /// default connector only, as [`ClientBuilder::connect_timeout`] does.
    pub fn trust_only_roots<I, D>(mut self, ders: I) -> Self
    where
        I: IntoIterator<Item = D>,
        D: AsRef<[u8]>,
    {
        self.opts.roots = Some(ders.into_iter().map(|d| d.as_ref().to_vec()).collect());
        self
    }

    /// Uses this hyper client (a proxy connector, custom TLS, pool settings). The read and
    /// total timeouts of this builder still apply; connection setup is the connector's.
    pub fn hyper_client<C2>(self, client: HyperClient<C2>) -> ClientBuilder<C2>
    where
        C2: Connect + Clone + Send + Sync + 'static,
    {
        ClientBuilder {
            opts: self.opts,
            http: Some(client),
            make: no_default,
        }
    }

    /// The client. Fails with a validation error for a base URL that is not `https://` (or
    /// `http://` with [`ClientBuilder::allow_http`]), or when no TLS provider feature is on
    /// and no hyper client was given.
    pub fn build(self) -> Result<Client<C>, Error> {
        let o = self.opts;
        o.session.current_config().check_urls(o.allow_http)?;
        // DESIGN: noting each request's connection (`capture_connection`: a watch channel and
        // an extension map per request) cost about 2.5% of throughput with 32 requests in
        // flight. It is needed only when the read or total limit can run out while the request
        // waits for a connection: with the default connector, whose own timeout bounds the
        // whole setup, only when one of them is not longer than it; with a caller's connector,
        // always. Without it such a limit is reported as a timeout, the cautious side (an
        // unknown outcome for an order, never a false "nothing was sent").
        let capture = self.http.is_some() || o.read.min(o.total) <= o.connect;
        let http = match self.http {
            Some(h) => h,
            None => (self.make)(&o)?,
        };
        Ok(Client {
            session: Arc::new(o.session.build()),
            http,
            read: o.read,
            total: o.total,
            timed: o.timed,
            capture,
            max_body: o.max_body,
            hooks: o.hooks,
            known: SessionIds::new(o.known_ids),
            #[cfg(feature = "ws")]
            allow_http: o.allow_http,
            #[cfg(feature = "ws")]
            roots: o.roots,
            #[cfg(feature = "ws")]
            connector: o.connector,
            #[cfg(feature = "ws")]
            pacer: o.pacer,
        })
    }
}

fn no_default<C>(_: &Options) -> Result<HyperClient<C>, Error> {
    Err(Error::validation("hyper_client", "no hyper client given"))
}

/// A hyper client on tokio with a rustls connector (http and https).
fn default_client(o: &Options) -> Result<HyperClient<DefaultConnector>, Error> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(o.connect));
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls_config(o.roots.as_deref())?)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    let connector = DefaultConnector {
        inner: https,
        timeout: o.connect,
    };
    // hyper-util's legacy client never follows redirects (it has no such option): a 3xx is
    // handed to the core, which makes it `Error::Redirect` (tests/failures.rs proves it).
    Ok(
        hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .build(connector),
    )
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
        assert!(Client::builder()
            .spot_base_url("http://127.0.0.1:1/v3")
            .swap_base_url("http://127.0.0.1:1")
            .allow_http(true)
            .build()
            .is_ok());
    }

    #[test]
    fn client_and_futures_are_send_sync() {
        fn check<T: Send + Sync + Clone>() {}
        check::<Client>();
        fn send<T: Send>(_: &T) {}
        let c = Client::builder().build().unwrap();
        let req = digifinex_core::spot::OrderBookRequest::new("btc_usdt");
        send(&c.send(&req));
        send(&c.sync_time(Family::Spot));
        let pager =
            digifinex_core::paging::DepositPager::new(digifinex_core::spot::HistoryDirection::Next);
        let mut pages = c.pages(pager);
        send(&pages.next_page());
        send(
            &c.pages(digifinex_core::paging::DepositPager::new(
                digifinex_core::spot::HistoryDirection::Next,
            ))
            .into_stream(),
        );
    }
}
