//! Conformance: one list of scenarios, run through both clients (blocking `digifinex-ureq` and
//! async `digifinex-hyper`) against a simulator started in-process, over real loopback HTTP.
//!
//! Each scenario is a generic function over [`Driver`]; the `scenarios!` macro emits one test
//! per client for each of them, so both clients answer exactly the same questions.

use std::time::Duration;

use digifinex_core::policy::RetryPolicy;
use digifinex_core::session::{Response, Session};
use digifinex_core::spot::{
    CancelOrders, LimitOrder, Market, OrderBookRequest, OrderDetailRequest, PlaceOrder,
};
use digifinex_core::{swap, Credentials, Decimal, Endpoint, Error, ErrorKind, Family};
use digifinex_sim::{FaultKind, FaultRule, Sim, SimConfig, SimHandle};

/// Settings a scenario may change before the client is built.
#[derive(Debug, Clone)]
struct Setup {
    timeout: Duration,
    retry: RetryPolicy,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            timeout: Duration::from_secs(5),
            retry: RetryPolicy {
                base_delay: Duration::from_millis(20),
                ..RetryPolicy::default()
            },
        }
    }
}

/// What a scenario needs from a client.
trait Driver {
    fn send<E>(&self, e: &E) -> Result<Response<E::Output>, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send;
    fn sync(&self, family: Family) -> Result<i64, Error>;
    fn session(&self) -> &Session;
}

struct Ureq(digifinex_ureq::Client);

impl Driver for Ureq {
    fn send<E>(&self, e: &E) -> Result<Response<E::Output>, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        self.0.send_full(e)
    }
    fn sync(&self, family: Family) -> Result<i64, Error> {
        self.0.sync_time(family)
    }
    fn session(&self) -> &Session {
        self.0.session()
    }
}

struct HyperDriver(digifinex_hyper::Client, tokio::runtime::Runtime);

impl Driver for HyperDriver {
    fn send<E>(&self, e: &E) -> Result<Response<E::Output>, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        self.1.block_on(self.0.send_full(e))
    }
    fn sync(&self, family: Family) -> Result<i64, Error> {
        self.1.block_on(self.0.sync_time(family))
    }
    fn session(&self) -> &Session {
        self.0.session()
    }
}

fn ureq(sim: &SimHandle, creds: Credentials, s: &Setup) -> Ureq {
    Ureq(
        digifinex_ureq::Client::builder()
            .spot_base_url(sim.spot_base_url())
            .swap_base_url(sim.swap_base_url())
            .allow_http(true)
            .credentials(creds)
            .timeout(s.timeout)
            .retry_policy(s.retry)
            .build()
            .unwrap(),
    )
}

fn hyper(sim: &SimHandle, creds: Credentials, s: &Setup) -> HyperDriver {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async {
        digifinex_hyper::Client::builder()
            .spot_base_url(sim.spot_base_url())
            .swap_base_url(sim.swap_base_url())
            .allow_http(true)
            .credentials(creds)
            .timeout(s.timeout)
            .retry_policy(s.retry)
            .build()
            .unwrap()
    });
    HyperDriver(client, rt)
}

/// A running simulator with a funded account.
struct World {
    sim: SimHandle,
    account: digifinex_sim::AccountId,
    creds: Credentials,
}

fn world() -> World {
    let sim = Sim::start(SimConfig::default()).unwrap();
    let demo = sim.control().demo_account();
    World {
        creds: Credentials::new(demo.keys.key.clone(), demo.keys.secret.clone()),
        account: demo.account,
        sim,
    }
}

fn resting_buy() -> PlaceOrder {
    // Far below the simulator's 30000 mid: rests on the book.
    PlaceOrder::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(Decimal::new(10000, 0), Decimal::new(1, 2)),
    )
}

// ---------------------------------------------------------------------------------------------
// Scenarios

fn public_data_both_families<D: Driver>(w: &World, d: &D) {
    let book = d.send(&OrderBookRequest::new("btc_usdt").limit(5)).unwrap();
    assert!(!book.value.bids.is_empty() && !book.value.asks.is_empty());
    let time = d.send(&swap::ServerTimeRequest).unwrap();
    assert!((time.value.0 - w.sim.control().now_ms()).abs() < 5_000);
}

fn spot_order_lifecycle<D: Driver>(w: &World, d: &D) {
    let placed = d.send(&resting_buy()).unwrap().value;
    let detail = d
        .send(&OrderDetailRequest::new(
            Market::Spot,
            placed.order_id.clone(),
        ))
        .unwrap()
        .value;
    assert_eq!(detail.data.order_id, placed.order_id);
    assert!(detail.data.status.is_open());
    let cancelled = d
        .send(&CancelOrders::new(Market::Spot, [placed.order_id.clone()]))
        .unwrap()
        .value;
    assert!(format!("{cancelled:?}").contains(&placed.order_id));
    assert_eq!(w.sim.control().order_count(w.account), 1);
    assert_eq!(w.sim.control().open_order_count(w.account), 0);
}

fn server_error_on_a_get_is_retried<D: Driver>(w: &World, d: &D) {
    w.sim.control().add_fault(
        FaultRule::route(
            "GET",
            "/v3/order_book",
            FaultKind::ServerError { status: 502 },
        )
        .times(1),
    );
    let r = d.send(&OrderBookRequest::new("btc_usdt")).unwrap();
    assert_eq!(r.attempts, 2);
}

fn too_many_requests_on_a_get_waits_and_succeeds<D: Driver>(w: &World, d: &D) {
    w.sim.control().add_fault(
        FaultRule::route(
            "GET",
            "/v3/order_book",
            FaultKind::TooManyRequests { retry_after_s: 1 },
        )
        .times(1),
    );
    let t = std::time::Instant::now();
    let r = d.send(&OrderBookRequest::new("btc_usdt")).unwrap();
    assert_eq!(r.attempts, 2);
    assert!(t.elapsed() >= Duration::from_millis(950));
}

fn order_dropped_after_apply_is_unknown_and_exists_once<D: Driver>(w: &World, d: &D) {
    w.sim.control().add_fault(
        FaultRule::route("POST", "/v3/spot/order/new", FaultKind::DropAfterApply).times(1),
    );
    let e = d.send(&resting_buy()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(w.sim.control().order_count(w.account), 1);
}

fn order_dropped_before_apply_is_unknown_and_absent<D: Driver>(w: &World, d: &D) {
    w.sim.control().add_fault(
        FaultRule::route("POST", "/v3/spot/order/new", FaultKind::DropBeforeApply).times(1),
    );
    let e = d.send(&resting_buy()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(w.sim.control().order_count(w.account), 0);
}

fn server_error_on_an_order_is_unknown_and_never_doubled<D: Driver>(w: &World, d: &D) {
    w.sim.control().add_fault(
        FaultRule::route(
            "POST",
            "/v3/spot/order/new",
            FaultKind::ServerError { status: 503 },
        )
        .times(1),
    );
    let e = d.send(&resting_buy()).unwrap_err();
    // A 5xx (here with the exchange's 50000 envelope) may have been applied: outcome unknown,
    // and the order is never re-sent.
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert!(w.sim.control().order_count(w.account) <= 1);
}

fn malformed_and_html_bodies_are_reported_with_a_snippet<D: Driver>(w: &World, d: &D) {
    w.sim
        .control()
        .add_fault(FaultRule::route("GET", "/v3/order_book", FaultKind::MalformedJson).times(1));
    match d.send(&OrderBookRequest::new("btc_usdt")).unwrap_err() {
        Error::Decode { snippet, .. } => assert!(!snippet.is_empty()),
        other => panic!("{other:?}"),
    }
    w.sim.control().add_fault(
        FaultRule::route(
            "GET",
            "/v3/order_book",
            FaultKind::HtmlError { status: 404 },
        )
        .times(1),
    );
    match d.send(&OrderBookRequest::new("btc_usdt")).unwrap_err() {
        Error::HttpStatus { status, snippet } => {
            assert_eq!(status, 404);
            assert!(snippet.contains('<'), "{snippet}");
        }
        other => panic!("{other:?}"),
    }
}

fn truncated_body_on_a_get_is_retried<D: Driver>(w: &World, d: &D) {
    w.sim
        .control()
        .add_fault(FaultRule::route("GET", "/v3/order_book", FaultKind::TruncatedBody).times(1));
    let r = d.send(&OrderBookRequest::new("btc_usdt")).unwrap();
    assert_eq!(r.attempts, 2);
}

fn latency_past_the_timeout_is_a_network_error<D: Driver>(w: &World, d: &D) {
    w.sim.control().add_fault(
        FaultRule::route("GET", "/v3/order_book", FaultKind::Latency { ms: 1_500 }).times(1),
    );
    let e = d.send(&OrderBookRequest::new("btc_usdt")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Network, "{e}");
}

fn a_clock_30_s_off_is_synced_automatically<D: Driver>(w: &World, d: &D) {
    w.sim.control().set_clock_offset(30_000);
    let r = d.send(&resting_buy()).unwrap();
    assert_eq!(r.attempts, 2);
    let off = d.session().offset_ms();
    assert!((25_000..=35_000).contains(&off), "{off}");
    let again = d.sync(Family::Swap).unwrap();
    assert!((25_000..=35_000).contains(&again), "{again}");
}

/// Emits one test per client for each scenario (with an optional setup change).
macro_rules! scenarios {
    ($($name:ident $(with $setup:expr)?;)*) => {
        mod ureq_client {
            use super::*;
            $(
                #[test]
                fn $name() {
                    #[allow(unused_mut)]
                    let mut s = Setup::default();
                    $( $setup(&mut s); )?
                    let w = world();
                    let d = ureq(&w.sim, w.creds.clone(), &s);
                    super::$name(&w, &d);
                }
            )*
        }
        mod hyper_client {
            use super::*;
            $(
                #[test]
                fn $name() {
                    #[allow(unused_mut)]
                    let mut s = Setup::default();
                    $( $setup(&mut s); )?
                    let w = world();
                    let d = hyper(&w.sim, w.creds.clone(), &s);
                    super::$name(&w, &d);
                }
            )*
        }
    };
}

fn no_retries(s: &mut Setup) {
    s.retry = RetryPolicy::never();
}

fn short_timeout(s: &mut Setup) {
    s.retry = RetryPolicy::never();
    s.timeout = Duration::from_millis(300);
}

scenarios! {
    public_data_both_families;
    spot_order_lifecycle;
    server_error_on_a_get_is_retried;
    too_many_requests_on_a_get_waits_and_succeeds;
    order_dropped_after_apply_is_unknown_and_exists_once;
    order_dropped_before_apply_is_unknown_and_absent;
    server_error_on_an_order_is_unknown_and_never_doubled;
    malformed_and_html_bodies_are_reported_with_a_snippet with no_retries;
    truncated_body_on_a_get_is_retried;
    latency_past_the_timeout_is_a_network_error with short_timeout;
    a_clock_30_s_off_is_synced_automatically;
}
