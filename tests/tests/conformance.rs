//! Conformance: one list of scenarios, run through both clients (blocking `digifinex-ureq` and
//! async `digifinex-hyper`) against a simulator started in-process, over real loopback HTTP,
//! and through both clients against an exchange in the same process with no socket
//! (`digifinex_backtest::InProcess`, virtual time).
//!
//! Each scenario is a generic function over [`Driver`]; the `scenarios!` macro emits one test
//! per client and adapter for each of them, so both clients answer exactly the same questions
//! through either adapter. Two scenarios are the server's alone: a client timeout (a responder
//! in process has none: a latency fault is waited in virtual time) and the control API's clock
//! offset (an exchange in virtual time has no wall clock to be offset from).

use std::sync::Arc;
use std::time::Duration;

use digifinex_core::policy::RetryPolicy;
use digifinex_core::session::{Response, Session};
use digifinex_core::spot::{
    BatchPlaceOrdersRequest, CancelOrdersRequest, CancelWithdrawRequest, ClosePositionRequest,
    CurrentOrdersRequest, DepositHistoryRequest, DepositState, FinanceLogRequest, FinanceType,
    LimitOrder, MarginPositionsRequest, Market, MyTradesRequest, OrderBookRequest,
    OrderDetailRequest, OrderHistoryRequest, OrderStatus, OrdersRequest, PlaceOrderRequest,
    TransferAccount, TransferRequest, WithdrawHistoryRequest, WithdrawRequest, WithdrawState,
};
use digifinex_core::{
    swap, Amount, Clock, Credentials, Decimal, Endpoint, Error, ErrorKind, Family, Pair, Price,
    Size, SystemClock,
};
use digifinex_sim::{AccountType, FaultKind, FaultRule, Sim, SimConfig, SimHandle, WhitelistEntry};

/// Settings a scenario may change before the simulator and the client are built.
#[derive(Clone)]
struct Setup {
    timeout: Duration,
    retry: RetryPolicy,
    /// The client's clock: the exchange's (the system clock for the server) plus this offset.
    clock_offset_ms: Option<i64>,
    /// The simulator's configuration.
    sim: SimConfig,
    /// Whether the client keeps its default weight budgets (on by default).
    budget: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            timeout: Duration::from_secs(5),
            retry: RetryPolicy {
                base_delay: Duration::from_millis(20),
                ..RetryPolicy::default()
            },
            clock_offset_ms: None,
            // Still markets: the suite checks exact prices, fills and fees.
            sim: SimConfig::default().without_flow(),
            budget: true,
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

/// A clock `offset_ms` from another.
struct Shifted(Arc<dyn Clock>, i64);

impl Clock for Shifted {
    fn now(&self) -> digifinex_core::TimestampMillis {
        digifinex_core::TimestampMillis(self.0.now().0 + self.1)
    }
}

/// The client's clock of a setup over `host`.
fn clock_of(host: &Host, s: &Setup) -> Option<Arc<dyn Clock>> {
    let base: Arc<dyn Clock> = match host {
        Host::Server(_) => Arc::new(SystemClock),
        Host::Local(ip) => ip.clock(),
    };
    match (host, s.clock_offset_ms) {
        (Host::Server(_), None) => None,
        (_, off) => Some(Arc::new(Shifted(base, off.unwrap_or(0)))),
    }
}

fn ureq(sim: &Host, creds: Credentials, s: &Setup) -> Ureq {
    let mut b = match sim {
        Host::Server(sim) => digifinex_ureq::Client::builder()
            .spot_base_url(sim.spot_base_url())
            .swap_base_url(sim.swap_base_url())
            .allow_http(true),
        Host::Local(ip) => ip.ureq_client(),
    }
    .credentials(creds)
    .timeout(s.timeout)
    .retry_policy(s.retry);
    if let Some(c) = clock_of(sim, s) {
        b = b.clock(c);
    }
    if !s.budget {
        b = b.without_weight_budget();
    }
    Ureq(b.build().unwrap())
}

fn hyper(sim: &Host, creds: Credentials, s: &Setup) -> HyperDriver {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async {
        let mut b = match sim {
            Host::Server(sim) => digifinex_hyper::Client::builder()
                .spot_base_url(sim.spot_base_url())
                .swap_base_url(sim.swap_base_url())
                .allow_http(true),
            Host::Local(ip) => ip.hyper_client(),
        }
        .credentials(creds)
        .timeout(s.timeout)
        .retry_policy(s.retry);
        if let Some(c) = clock_of(sim, s) {
            b = b.clock(c);
        }
        if !s.budget {
            b = b.without_weight_budget();
        }
        b.build().unwrap()
    });
    HyperDriver(client, rt)
}

/// Where the exchange runs: the server on loopback, or in this process.
enum Host {
    Server(SimHandle),
    Local(digifinex_backtest::InProcess),
}

impl Host {
    fn control(&self) -> digifinex_sim::Control {
        match self {
            Host::Server(sim) => sim.control(),
            Host::Local(ip) => ip.control(),
        }
    }
}

/// A running simulator with a funded account.
struct World {
    sim: Host,
    account: digifinex_sim::AccountId,
    creds: Credentials,
}

fn world(s: &Setup) -> World {
    world_on(Host::Server(Sim::start(s.sim.clone()).unwrap()))
}

fn world_in_process(s: &Setup) -> World {
    let mut config = s.sim.clone();
    // Virtual time starts where the server's wall clock is (the scenarios' order times).
    config.start_time_ms.get_or_insert(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap(),
    );
    world_on(Host::Local(
        digifinex_backtest::InProcess::new(config).unwrap(),
    ))
}

fn world_on(sim: Host) -> World {
    let demo = sim.control().demo_account();
    World {
        creds: Credentials::new(demo.keys.key.clone(), demo.keys.secret.clone()),
        account: demo.account,
        sim,
    }
}

fn resting_buy() -> PlaceOrderRequest {
    // Far below the simulator's 30000 mid: rests on the book.
    PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(
            digifinex_core::Amount::new(Decimal::new(1, 2)),
            digifinex_core::Price::new(Decimal::new(10000, 0)),
        ),
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
    assert_eq!(detail.data.is_open(), Some(true));
    let cancelled = d
        .send(&CancelOrdersRequest::new(
            Market::Spot,
            [placed.order_id.clone()],
        ))
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
    // On the exchange's clock: the wall clock for the server, virtual time in process (where
    // the client's wait moves the time instead of sleeping).
    let t = w.sim.control().now_ms();
    let r = d.send(&OrderBookRequest::new("btc_usdt")).unwrap();
    assert_eq!(r.attempts, 2);
    assert!(w.sim.control().now_ms() - t >= 950);
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

// ---------------------------------------------------------------------------------------------
// Helpers for the scenarios below

const BTC_PERP: &str = "BTCUSDTPERP";

fn dec(text: &str) -> Decimal {
    text.parse().unwrap()
}

/// The exchange code of an API error (panics on any other error).
fn code(e: &Error) -> i64 {
    e.api_code()
        .unwrap_or_else(|| panic!("expected an API error, got {e:?}"))
}

fn balance(w: &World, at: AccountType, currency: &str) -> digifinex_sim::Balance {
    w.sim.control().balance(w.account, at, currency).unwrap()
}

/// Best spot ask (price, size), whatever order the book lists it in.
fn best_spot_ask<D: Driver>(d: &D, symbol: &str) -> (Decimal, Decimal) {
    let book = d
        .send(&OrderBookRequest::new(symbol).limit(5))
        .unwrap()
        .value;
    let best = book
        .asks
        .iter()
        .min_by(|a, b| a.price.cmp(&b.price))
        .unwrap();
    (best.price, best.amount)
}

/// Best swap ask and bid prices, and the ask size.
fn swap_top<D: Driver>(d: &D) -> (Decimal, Decimal, Decimal) {
    let depth = d.send(&swap::DepthRequest::new(BTC_PERP)).unwrap().value;
    let ask = depth
        .asks
        .iter()
        .min_by(|a, b| a.price.cmp(&b.price))
        .unwrap();
    let bid = depth.bids.iter().map(|l| l.price).max().unwrap();
    (ask.price, ask.amount, bid)
}

fn resting_swap_buy(price: Decimal) -> swap::PlaceOrderRequest {
    swap::PlaceOrderRequest::new(swap::OrderSpec::limit(
        BTC_PERP,
        swap::OrderSide::OpenLong,
        digifinex_core::Size::new(Decimal::ONE),
        digifinex_core::Price::new(price),
    ))
}

// ---------------------------------------------------------------------------------------------
// Spot: batches, fills, own trades, finance log

fn spot_batch_orders_all_or_nothing<D: Driver>(w: &World, d: &D) {
    let amount = dec("0.01");
    let prices = [dec("10000"), dec("10001.5"), dec("10002.25")];
    let batch = BatchPlaceOrdersRequest::new(
        Market::Spot,
        "btc_usdt",
        prices.map(|p| {
            LimitOrder::buy(
                digifinex_core::Amount::new(amount),
                digifinex_core::Price::new(p),
            )
        }),
    );
    let ids = d.send(&batch).unwrap().value.order_ids;
    assert_eq!(ids.len(), 3);
    assert!(
        ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2],
        "{ids:?}"
    );
    let orders = d
        .send(&OrdersRequest::new(Market::Spot, ids.clone()))
        .unwrap()
        .value
        .data;
    assert_eq!(orders.len(), 3);
    for (id, price) in ids.iter().zip(prices) {
        let o = orders.iter().find(|o| &o.order_id == id).unwrap();
        assert_eq!(o.price, Some(price));
        assert_eq!(o.amount, Some(amount));
        assert_eq!(o.executed_amount, Some(Decimal::ZERO));
        assert_eq!(o.status, Some(OrderStatus::NotExecuted));
        assert_eq!(o.symbol, Some(Pair::new("btc_usdt")));
    }
    assert_eq!(w.sim.control().order_count(w.account), 3);
    assert_eq!(w.sim.control().open_order_count(w.account), 3);
    // 3 x 0.01 x ~10000 USDT frozen.
    let frozen = prices.iter().map(|p| p * amount).sum::<Decimal>();
    assert_eq!(balance(w, AccountType::Spot, "USDT").frozen, frozen);

    // One order below the pair's minimum amount (0.0001 BTC): the whole batch is refused.
    let bad = BatchPlaceOrdersRequest::new(
        Market::Spot,
        "btc_usdt",
        [
            LimitOrder::buy(
                digifinex_core::Amount::new(amount),
                digifinex_core::Price::new(dec("10000")),
            ),
            LimitOrder::buy(
                digifinex_core::Amount::new(dec("0.00001")),
                digifinex_core::Price::new(dec("10000")),
            ),
            LimitOrder::buy(
                digifinex_core::Amount::new(amount),
                digifinex_core::Price::new(dec("10000")),
            ),
        ],
    );
    let e = d.send(&bad).unwrap_err();
    assert_eq!(code(&e), 20009, "{e}");
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert_eq!(w.sim.control().order_count(w.account), 3);
    assert_eq!(balance(w, AccountType::Spot, "USDT").frozen, frozen);
}

fn spot_partial_fill_own_trades_and_finance_log<D: Driver>(w: &World, d: &D) {
    let (ask, ask_size) = best_spot_ask(d, "btc_usdt");
    let rest = dec("0.01");
    let amount = ask_size + rest;
    let placed = d
        .send(&PlaceOrderRequest::new(
            Market::Spot,
            "btc_usdt",
            LimitOrder::buy(
                digifinex_core::Amount::new(amount),
                digifinex_core::Price::new(ask),
            ),
        ))
        .unwrap()
        .value;
    let fee = ask_size * dec("0.002"); // taker, in BTC
    let detail = d
        .send(&OrderDetailRequest::new(
            Market::Spot,
            placed.order_id.clone(),
        ))
        .unwrap()
        .value
        .data;
    assert_eq!(detail.status, Some(OrderStatus::PartiallyExecuted));
    assert_eq!(detail.amount, Some(amount));
    assert_eq!(detail.executed_amount, Some(ask_size));
    assert_eq!(detail.avg_price, Some(ask));
    assert_eq!(detail.detail.len(), 1);
    assert_eq!(detail.detail[0].executed_amount, Some(ask_size));
    assert_eq!(detail.detail[0].executed_price, Some(ask));

    // The rest is open.
    let current = d
        .send(&CurrentOrdersRequest::new(Market::Spot).symbol("btc_usdt"))
        .unwrap()
        .value
        .data;
    assert_eq!(current.len(), 1);
    assert_eq!(current[0].order_id, placed.order_id);

    // Own trades: one taker fill with the fee in BTC.
    let trades = d
        .send(&MyTradesRequest::new(Market::Spot).symbol("btc_usdt"))
        .unwrap()
        .value
        .list;
    assert_eq!(trades.len(), 1);
    let t = &trades[0];
    assert_eq!(t.order_id.as_deref(), Some(placed.order_id.as_str()));
    assert_eq!(t.price, Some(ask));
    assert_eq!(t.amount, Some(ask_size));
    assert_eq!(t.fee, Some(fee));
    assert!(
        t.fee_currency
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("btc")),
        "{t:?}"
    );
    assert_eq!(t.is_maker, Some(false));
    assert_eq!(t.side, Some(digifinex_core::spot::OrderType::Buy));

    // Finance log, newest first: the BTC fee, then the BTC received.
    let log = d
        .send(
            &FinanceLogRequest::new(Market::Spot)
                .currency_mark("btc")
                .limit(2),
        )
        .unwrap()
        .value;
    assert_eq!(log.entries.len(), 2);
    let after = Decimal::from(2) + ask_size - fee;
    assert_eq!(log.entries[0].finance_type, Some(FinanceType(6)));
    assert_eq!(log.entries[0].num, Some(-fee));
    assert_eq!(log.entries[0].balance, Some(after));
    assert_eq!(log.entries[1].finance_type, Some(FinanceType(5)));
    assert_eq!(log.entries[1].num, Some(ask_size));
    // Control credit (type 8), trade, fee.
    assert_eq!(log.total, Some(3));
    assert_eq!(balance(w, AccountType::Spot, "BTC").free, after);

    // Cancel the rest: cancelled after a partial execution, in the history.
    let cancelled = d
        .send(&CancelOrdersRequest::new(
            Market::Spot,
            [placed.order_id.clone()],
        ))
        .unwrap()
        .value;
    assert_eq!(cancelled.success, vec![placed.order_id.clone()]);
    assert!(cancelled.error.is_empty());
    let history = d
        .send(&OrderHistoryRequest::new(Market::Spot).symbol("btc_usdt"))
        .unwrap()
        .value
        .data;
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].status, Some(OrderStatus::CancelledPartially));
    assert_eq!(history[0].executed_amount, Some(ask_size));
    let view = &w.sim.control().orders(w.account)[0];
    assert_eq!(view.executed_amount, ask_size);
    assert_eq!(view.status, 4);
    assert_eq!(w.sim.control().open_order_count(w.account), 0);
    assert_eq!(balance(w, AccountType::Spot, "USDT").frozen, Decimal::ZERO);
}

// ---------------------------------------------------------------------------------------------
// Margin

fn margin_transfer_order_position_and_close<D: Driver>(w: &World, d: &D) {
    let t = TransferRequest::new(
        "usdt",
        Amount::new(dec("1000")),
        TransferAccount::Spot,
        TransferAccount::Margin,
    );
    d.send(&t).unwrap();
    assert_eq!(
        balance(w, AccountType::Spot, "USDT").free,
        Decimal::from(99_000)
    );
    assert_eq!(
        balance(w, AccountType::Margin, "USDT").free,
        Decimal::from(11_000)
    );
    // Margin <-> OTC is refused before sending.
    let e = d
        .send(&TransferRequest::new(
            "usdt",
            Amount::ONE,
            TransferAccount::Margin,
            TransferAccount::Otc,
        ))
        .unwrap_err();
    assert!(matches!(e, Error::Validation { .. }), "{e:?}");

    let (ask, ask_size) = best_spot_ask(d, "btc_usdt");
    let qty = dec("0.01").min(ask_size);
    let placed = d
        .send(&PlaceOrderRequest::new(
            Market::Margin,
            "btc_usdt",
            LimitOrder::buy(
                digifinex_core::Amount::new(qty),
                digifinex_core::Price::new(ask),
            ),
        ))
        .unwrap()
        .value;
    let detail = d
        .send(&OrderDetailRequest::new(
            Market::Margin,
            placed.order_id.clone(),
        ))
        .unwrap()
        .value
        .data;
    assert_eq!(detail.status, Some(OrderStatus::FullyExecuted));
    assert_eq!(detail.executed_amount, Some(qty));
    // Not a spot order.
    let e = d
        .send(&OrderDetailRequest::new(
            Market::Spot,
            placed.order_id.clone(),
        ))
        .unwrap_err();
    assert_eq!(code(&e), 20013, "{e}");

    let positions = d.send(&MarginPositionsRequest::new()).unwrap().value;
    assert_eq!(positions.positions.len(), 1);
    let p = &positions.positions[0];
    assert_eq!(p.symbol, "btc_usdt");
    assert_eq!(p.side, Some(digifinex_core::spot::PositionSide::Long));
    assert_eq!(p.amount, Some(qty));
    assert_eq!(p.entry_price, Some(ask));
    assert_eq!(p.leverage_ratio, Some(Decimal::from(3)));
    // 2/3 of a 2-dp price is never a rounding midpoint: any rounding rule agrees.
    let liq = (ask * (Decimal::ONE - Decimal::ONE / Decimal::from(3))).round_dp(2);
    assert_eq!(p.liquidation_price, Some(liq));
    // Position margin: notional / leverage, locked in the margin account.
    assert_eq!(
        positions.margin,
        Some((qty * ask / Decimal::from(3)).round_dp(8))
    );

    d.send(&ClosePositionRequest::new("btc_usdt")).unwrap();
    let positions = d.send(&MarginPositionsRequest::new()).unwrap().value;
    assert!(positions.positions.is_empty(), "{positions:?}");
    let orders = w.sim.control().orders(w.account);
    assert_eq!(orders.len(), 2, "{orders:?}");
    assert!(orders.iter().all(|o| o.kind == "margin" && o.status == 2));
    assert_eq!(w.sim.control().open_order_count(w.account), 0);
    assert_eq!(
        balance(w, AccountType::Margin, "USDT").frozen,
        Decimal::ZERO
    );
    // Closing again: no position.
    let e = d.send(&ClosePositionRequest::new("btc_usdt")).unwrap_err();
    assert_eq!(code(&e), 20030, "{e}");
}

// ---------------------------------------------------------------------------------------------
// Deposits and withdrawals

fn deposit_and_withdrawal_lifecycle<D: Driver>(w: &World, d: &D) {
    let ctl = w.sim.control();
    // A credited deposit and a pending one.
    let done = ctl
        .credit_deposit(w.account, "ETH", "", dec("5"), 3)
        .unwrap();
    let pending = ctl
        .credit_deposit(w.account, "ETH", "", dec("1.5"), 1)
        .unwrap();
    let history = d
        .send(&DepositHistoryRequest::new().currency("eth"))
        .unwrap()
        .value
        .data;
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].id, done.to_string());
    assert_eq!(history[0].amount, Some(dec("5")));
    assert_eq!(history[0].state, Some(DepositState::Deposited));
    assert_eq!(history[1].id, pending.to_string());
    assert_eq!(history[1].state, Some(DepositState::InDeposit));
    assert_eq!(balance(w, AccountType::Spot, "ETH").free, dec("25"));
    ctl.set_deposit_state(pending, 3).unwrap();
    let history = d
        .send(&DepositHistoryRequest::new().currency("eth"))
        .unwrap()
        .value
        .data;
    assert_eq!(history[1].state, Some(DepositState::Deposited));
    assert_eq!(balance(w, AccountType::Spot, "ETH").free, dec("26.5"));

    // An address off the whitelist is refused; whitelisted, it works.
    let address = "0x00000000000000000000000000000000000c0ffee";
    let e = d
        .send(&WithdrawRequest::new("eth", address, Amount::new(dec("2"))))
        .unwrap_err();
    assert_eq!(code(&e), 20038, "{e}");
    ctl.whitelist_address(
        w.account,
        WhitelistEntry {
            currency: "ETH".to_owned(),
            chain: String::new(),
            address: address.to_owned(),
            memo: String::new(),
        },
    )
    .unwrap();
    // Fee rule max(amount * 0.001, 0.005): the minimum for 2 ETH, the rate for 20 ETH.
    let small = d
        .send(&WithdrawRequest::new("eth", address, Amount::new(dec("2"))))
        .unwrap()
        .value
        .withdraw_id;
    let large = d
        .send(&WithdrawRequest::new(
            "eth",
            address,
            Amount::new(dec("20")),
        ))
        .unwrap()
        .value
        .withdraw_id;
    let eth = balance(w, AccountType::Spot, "ETH");
    assert_eq!((eth.free, eth.frozen), (dec("4.5"), dec("22")));
    let views = ctl.withdrawals(w.account);
    assert_eq!(views.len(), 2);
    assert_eq!(views[0].id.to_string(), small);
    assert_eq!(views[0].fee, dec("0.005"));
    assert_eq!(views[1].fee, dec("0.02"));
    assert_eq!(views[0].address, address);
    let history = d
        .send(&WithdrawHistoryRequest::new().currency("eth"))
        .unwrap()
        .value
        .data;
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].id, small);
    assert_eq!(history[0].amount, Some(dec("2")));
    assert_eq!(history[0].fee, Some(dec("0.005")));
    assert_eq!(history[0].state, Some(WithdrawState::Applying));
    assert_eq!(history[1].id, large);
    assert_eq!(history[1].fee, Some(dec("0.02")));

    // Cancel while applying: the frozen amount returns.
    let c = d
        .send(&CancelWithdrawRequest::new(small.clone()))
        .unwrap()
        .value;
    assert_eq!(c.withdraw_id.as_deref(), Some(small.as_str()));
    assert_eq!(ctl.withdrawals(w.account)[0].state, 4);
    let eth = balance(w, AccountType::Spot, "ETH");
    assert_eq!((eth.free, eth.frozen), (dec("6.5"), dec("20")));
    // Once confirmed it cannot be cancelled; completed, it leaves the account.
    let large_id: u64 = large.parse().unwrap();
    ctl.set_withdrawal_state(large_id, 2).unwrap();
    let e = d
        .send(&CancelWithdrawRequest::new(large.clone()))
        .unwrap_err();
    assert_eq!(code(&e), 20039, "{e}");
    ctl.set_withdrawal_state(large_id, 3).unwrap();
    let history = d
        .send(&WithdrawHistoryRequest::new().currency("eth"))
        .unwrap()
        .value
        .data;
    assert_eq!(history[0].state, Some(WithdrawState::Rejected));
    assert_eq!(history[1].state, Some(WithdrawState::Completed));
    let eth = balance(w, AccountType::Spot, "ETH");
    assert_eq!((eth.free, eth.frozen), (dec("6.5"), Decimal::ZERO));
}

// ---------------------------------------------------------------------------------------------
// Swap

fn swap_leverage_and_margin_mode<D: Driver>(w: &World, d: &D) {
    let ack = d
        .send(&swap::LeverageRequest::new(BTC_PERP, Decimal::from(20)))
        .unwrap()
        .value;
    assert_eq!(ack.instrument_id.as_deref(), Some(BTC_PERP));
    assert_eq!(ack.leverage, Some(Decimal::from(20)));
    assert_eq!(ack.margin_mode, Some(swap::MarginMode::Crossed));
    // Out of range (1..=100).
    let e = d
        .send(&swap::LeverageRequest::new(BTC_PERP, Decimal::from(101)))
        .unwrap_err();
    assert!(
        matches!(e, Error::Validation { .. }) || code(&e) == 400002,
        "{e:?}"
    );

    // Another instrument switches to isolated.
    let ack = d
        .send(&swap::PositionModeRequest::new(
            "ETHUSDTPERP",
            swap::MarginMode::Isolated,
        ))
        .unwrap()
        .value;
    assert_eq!(ack.instrument_id.as_deref(), Some("ETHUSDTPERP"));
    assert_eq!(ack.margin_mode, Some(swap::MarginMode::Isolated));

    // An unfinished order blocks the switch (401001); a position too (401016).
    let (_, _, bid) = swap_top(d);
    let id = d
        .send(&resting_swap_buy(bid - Decimal::from(300)))
        .unwrap()
        .value;
    let switch = swap::PositionModeRequest::new(BTC_PERP, swap::MarginMode::Isolated);
    assert_eq!(code(&d.send(&switch).unwrap_err()), 401001);
    d.send(&swap::CancelOrderRequest::new(
        BTC_PERP,
        id.order_id.clone(),
    ))
    .unwrap();
    d.send(&swap::PlaceOrderRequest::new(swap::OrderSpec::market(
        BTC_PERP,
        swap::OrderSide::OpenShort,
        digifinex_core::Size::new(Decimal::from(2)),
        swap::MarketStyle::IocOpponent,
    )))
    .unwrap();
    let e = d.send(&switch).unwrap_err();
    assert_eq!(code(&e), 401016, "{e}");
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    // Leverage still changes with a position, and the position takes it.
    d.send(&swap::LeverageRequest::new(BTC_PERP, Decimal::from(5)))
        .unwrap();
    let views = w.sim.control().swap_positions(w.account);
    assert_eq!(views.len(), 1);
    assert_eq!(views[0].instrument_id, BTC_PERP);
    assert_eq!(views[0].side, "short");
    assert_eq!(views[0].margin_mode, "crossed");
    assert_eq!(views[0].leverage, Decimal::from(5));
    assert_eq!(views[0].size, Decimal::from(2));
}

fn swap_order_lifecycle<D: Driver>(w: &World, d: &D) {
    let (_, _, bid) = swap_top(d);
    let price = bid - Decimal::from(300);
    let id = d.send(&resting_swap_buy(price)).unwrap().value.order_id;
    let open = d
        .send(&swap::OpenOrdersRequest::new().instrument_id(BTC_PERP))
        .unwrap()
        .value;
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].order_id, id);
    assert_eq!(open[0].state, Some(swap::OrderState::Open));
    let info = d
        .send(&swap::OrderInfoRequest::new(id.clone()).instrument_id(BTC_PERP))
        .unwrap()
        .value;
    assert_eq!(info.order_id, id);
    assert_eq!(info.instrument_id.as_deref(), Some(BTC_PERP));
    assert_eq!(info.side, Some(swap::OrderSide::OpenLong));
    assert_eq!(info.price, Some(price));
    assert_eq!(info.size, Some(Decimal::ONE));
    assert_eq!(info.filled_qty, Some(Decimal::ZERO));
    assert_eq!(info.state, Some(swap::OrderState::Open));
    assert_eq!(w.sim.control().swap_open_order_count(w.account), 1);

    let cancelled = d
        .send(&swap::CancelOrderRequest::new(BTC_PERP, id.clone()))
        .unwrap()
        .value;
    assert_eq!(cancelled.order_id, id);
    assert!(d
        .send(&swap::OpenOrdersRequest::new())
        .unwrap()
        .value
        .is_empty());
    let history = d
        .send(&swap::HistoryOrdersRequest::new().instrument_id(BTC_PERP))
        .unwrap()
        .value;
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].order_id, id);
    assert_eq!(history[0].state, Some(swap::OrderState::Canceled));
    // Cancelling again is refused.
    assert!(d
        .send(&swap::CancelOrderRequest::new(BTC_PERP, id.clone()))
        .is_err());
    assert_eq!(w.sim.control().swap_order_count(w.account), 1);
    assert_eq!(w.sim.control().swap_open_order_count(w.account), 0);
    let view = &w.sim.control().swap_orders(w.account)[0];
    assert_eq!(view.state, -1);
    assert_eq!(
        balance(w, AccountType::Swap, "USDT"),
        digifinex_sim::Balance {
            free: Decimal::from(10_000),
            frozen: Decimal::ZERO
        }
    );
}

fn swap_filled_position_and_bills<D: Driver>(w: &World, d: &D) {
    let (ask, ask_size, _) = swap_top(d);
    assert!(ask_size >= Decimal::ONE);
    let id = d
        .send(&swap::PlaceOrderRequest::new(swap::OrderSpec::limit(
            BTC_PERP,
            swap::OrderSide::OpenLong,
            digifinex_core::Size::new(Decimal::ONE),
            digifinex_core::Price::new(ask),
        )))
        .unwrap()
        .value
        .order_id;
    // 1 contract of 0.001 BTC, taker 0.0005.
    let fee = ask * dec("0.001") * dec("0.0005");
    let info = d
        .send(&swap::OrderInfoRequest::new(id.clone()))
        .unwrap()
        .value;
    assert_eq!(info.state, Some(swap::OrderState::Filled));
    assert_eq!(info.filled_qty, Some(Decimal::ONE));
    assert_eq!(info.price_avg, Some(ask));
    assert_eq!(info.fee.map(|f| f.abs()), Some(fee));

    let positions = d
        .send(&swap::PositionsRequest::new().instrument_id(BTC_PERP))
        .unwrap()
        .value;
    assert_eq!(positions.len(), 1);
    let p = &positions[0];
    assert_eq!(p.instrument_id, BTC_PERP);
    assert_eq!(p.side, Some(swap::PositionSide::Long));
    assert_eq!(p.position, Some(Decimal::ONE));
    assert_eq!(p.avg_cost, Some(ask));
    assert_eq!(p.margin_mode, Some(swap::MarginMode::Crossed));

    let fills = d
        .send(&swap::HistoryTradesRequest::new().instrument_id(BTC_PERP))
        .unwrap()
        .value;
    assert_eq!(fills.len(), 1);
    assert_eq!(fills[0].order_id.as_deref(), Some(id.as_str()));
    assert_eq!(fills[0].price, Some(ask));
    assert_eq!(fills[0].size, Some(Decimal::ONE));

    // Bills: the opening fee, billed as open long.
    let bills = d
        .send(&swap::FinanceRecordRequest::new().currency("USDT"))
        .unwrap()
        .value;
    let open: Vec<_> = bills
        .iter()
        .filter(|b| b.finance_type == Some(swap::FinanceType::OpenLong))
        .collect();
    assert_eq!(open.len(), 1, "{bills:?}");
    assert_eq!(open[0].change, Some(-fee));
    assert_eq!(open[0].currency.as_deref(), Some("USDT"));

    let views = w.sim.control().swap_positions(w.account);
    assert_eq!(views.len(), 1);
    assert_eq!((views[0].side, views[0].size), ("long", Decimal::ONE));
    assert_eq!(views[0].avg_cost, ask);
    assert_eq!(w.sim.control().swap_order_count(w.account), 1);
}

fn swap_transfer_with_spot<D: Driver>(w: &World, d: &D) {
    let ack = d
        .send(&swap::TransferRequest::new(
            swap::TransferType::SpotToSwap,
            "USDT",
            Amount::new(dec("250")),
        ))
        .unwrap()
        .value;
    assert_eq!(ack.transfer_type, Some(swap::TransferType::SpotToSwap));
    assert_eq!(ack.transfer_amount, Some(dec("250")));
    d.send(&swap::TransferRequest::new(
        swap::TransferType::SwapToSpot,
        "USDT",
        Amount::new(dec("100")),
    ))
    .unwrap();
    assert_eq!(
        balance(w, AccountType::Spot, "USDT").free,
        Decimal::from(99_850)
    );
    assert_eq!(
        balance(w, AccountType::Swap, "USDT").free,
        Decimal::from(10_150)
    );
    // More than the swap balance.
    let e = d
        .send(&swap::TransferRequest::new(
            swap::TransferType::SwapToSpot,
            "USDT",
            Amount::new(Decimal::from(1_000_000)),
        ))
        .unwrap_err();
    assert_eq!(code(&e), 401003, "{e}");
    assert_eq!(e.kind(), ErrorKind::InsufficientFunds);

    let records = d.send(&swap::TransferRecordRequest::new()).unwrap().value;
    assert_eq!(records.len(), 2, "{records:?}");
    let mut amounts: Vec<_> = records
        .iter()
        .map(|r| (r.transfer_type.clone(), r.amount))
        .collect();
    amounts.sort_by_key(|(_, a)| *a);
    assert_eq!(
        amounts,
        vec![
            (
                Some(swap::TransferRecordType::TransferOut),
                Some(dec("100"))
            ),
            (Some(swap::TransferRecordType::TransferIn), Some(dec("250"))),
        ]
    );
    let bills = d.send(&swap::FinanceRecordRequest::new()).unwrap().value;
    let ins: Vec<_> = bills
        .iter()
        .filter(|b| {
            b.finance_type == Some(swap::FinanceType::TransferIn) && b.change == Some(dec("250"))
        })
        .collect();
    assert_eq!(ins.len(), 1, "{bills:?}");
    assert!(bills
        .iter()
        .any(|b| b.finance_type == Some(swap::FinanceType::TransferOut)
            && b.change == Some(dec("-100"))));
}

// ---------------------------------------------------------------------------------------------
// Copy trading

fn copy_trading_sponsor_tp_sl_and_close<D: Driver>(w: &World, d: &D) {
    let ctl = w.sim.control();
    ctl.set_mark_price(BTC_PERP, Some(dec("30000"))).unwrap();
    let sponsor = || {
        swap::SponsorOrderRequest::new(
            BTC_PERP,
            swap::CopyMarginMode::Crossed,
            swap::SponsorSide::OpenLong,
            Decimal::from(10),
            Size::new(Decimal::from(3)),
            swap::CopyPricing::Market(swap::CopyMarketStyle::OpponentIoc),
        )
    };
    // A long's take-profit must be above the reference (the mark price for market types).
    let e = d
        .send(&sponsor().take_profit_price(Price::new(dec("29000"))))
        .unwrap_err();
    assert_eq!(code(&e), 404008, "{e}");
    let e = d
        .send(&sponsor().stop_loss_price(Price::new(dec("31000"))))
        .unwrap_err();
    assert_eq!(code(&e), 404010, "{e}");
    assert_eq!(ctl.swap_order_count(w.account), 0);

    let ack = d
        .send(
            &sponsor()
                .take_profit_trigger(swap::TriggerPriceType::Mark)
                .take_profit_price(Price::new(dec("33000")))
                .stop_loss_trigger(swap::TriggerPriceType::Mark)
                .stop_loss_price(Price::new(dec("27000"))),
        )
        .unwrap()
        .value;
    assert!(ack.is_success());
    let orders = ctl.swap_orders(w.account);
    assert_eq!(orders.len(), 1);
    assert!(orders[0].copy);
    assert_eq!(orders[0].filled, Decimal::from(3));
    let id = orders[0].order_id.clone();

    let current = d
        .send(&swap::CopyCurrentRequest::new(
            swap::CopyCurrentView::Detailed,
        ))
        .unwrap()
        .value;
    assert_eq!(current.list.len(), 1);
    let p = &current.list[0];
    assert_eq!(p.order_id, id);
    assert_eq!(p.direction, Some(swap::OrderSide::OpenLong));
    assert_eq!(p.volume_total_original, Some(Decimal::from(3)));
    assert_eq!(p.leverage, Some(Decimal::from(10)));
    assert_eq!(p.stop_earn_trigger_price, Some(dec("33000")));
    assert_eq!(p.stop_loss_trigger_price, Some(dec("27000")));
    assert_eq!(p.margin_mode, Some(swap::CopyMarginMode::Crossed));
    assert_eq!(p.is_closing, Some(false));
    let page = current.page.unwrap();
    assert_eq!((page.cur_page, page.count), (Some(1), Some(1)));
    assert!(d
        .send(&swap::CopyHistoryRequest::new())
        .unwrap()
        .value
        .list
        .is_empty());

    let closed = d
        .send(&swap::CloseCopyOrderRequest::new(id.clone()))
        .unwrap()
        .value;
    assert!(closed.is_success());
    assert!(ctl.swap_positions(w.account).is_empty());
    assert!(d
        .send(&swap::CopyCurrentRequest::new(
            swap::CopyCurrentView::Detailed
        ))
        .unwrap()
        .value
        .list
        .is_empty());
    let history = d.send(&swap::CopyHistoryRequest::new()).unwrap().value;
    assert_eq!(history.list.len(), 1);
    let h = &history.list[0];
    assert_eq!(h.order_id, id);
    assert_eq!(h.status, Some(swap::CopyCloseReason::Manual));
    assert_eq!(h.close_volume_traded, Some(Decimal::from(3)));
    // Closing twice: already closed.
    let e = d
        .send(&swap::CloseCopyOrderRequest::new(id.clone()))
        .unwrap_err();
    assert_eq!(code(&e), 404012, "{e}");
    // Sponsor order + close order.
    assert_eq!(ctl.swap_order_count(w.account), 2);
}

// ---------------------------------------------------------------------------------------------
// More faults

fn swap_ban_is_a_ban_and_spot_weight_ban_is_a_rate_limit<D: Driver>(w: &World, d: &D) {
    // Swap: 3 weight per minute, the first refusal bans (HTTP 403, 403002).
    let mut e = None;
    for _ in 0..10 {
        if let Err(err) = d.send(&swap::ServerTimeRequest) {
            e = Some(err);
            break;
        }
    }
    let e = e.expect("the swap limit is reached within 10 requests");
    assert_eq!(e.kind(), ErrorKind::Ban, "{e:?}");
    assert_eq!(e.status(), Some(403), "{e:?}");
    assert_eq!(code(&e), 403002, "{e:?}");
    // Still banned (public routes are counted per IP).
    let again = d.send(&swap::ServerTimeRequest).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::Ban, "{again:?}");
    // Spot: the weight ban is answered as HTTP 429 with 10005 and the ban's retry-after.
    let mut e = None;
    for _ in 0..10 {
        if let Err(err) = d.send(&OrderBookRequest::new("btc_usdt")) {
            e = Some(err);
            break;
        }
    }
    let e = e.expect("the spot limit is reached within 10 requests");
    assert_eq!(e.kind(), ErrorKind::RateLimit, "{e:?}");
    assert_eq!(e.status(), Some(429), "{e:?}");
    assert_eq!(e.retry_after(), Some(Duration::from_secs(120)), "{e:?}");
    let _ = w;
}

fn server_error_on_a_swap_get_is_retried<D: Driver>(w: &World, d: &D) {
    w.sim.control().add_fault(
        FaultRule::route(
            "GET",
            "/swap/v2/public/depth",
            FaultKind::ServerError { status: 500 },
        )
        .times(2),
    );
    let r = d.send(&swap::DepthRequest::new(BTC_PERP)).unwrap();
    assert_eq!(r.attempts, 3);
    assert_eq!(r.status, 200);
    assert!(!r.value.asks.is_empty());
}

fn swap_order_dropped_is_unknown_and_never_doubled<D: Driver>(w: &World, d: &D) {
    let (_, _, bid) = swap_top(d);
    let order = resting_swap_buy(bid - Decimal::from(300));
    w.sim.control().add_fault(
        FaultRule::route(
            "POST",
            "/swap/v2/trade/order_place",
            FaultKind::DropBeforeApply,
        )
        .times(1),
    );
    let e = d.send(&order).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(w.sim.control().swap_order_count(w.account), 0);
    w.sim.control().add_fault(
        FaultRule::route(
            "POST",
            "/swap/v2/trade/order_place",
            FaultKind::DropAfterApply,
        )
        .times(1),
    );
    let e = d.send(&order).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    match &e {
        Error::OutcomeUnknown {
            method, url, body, ..
        } => {
            assert_eq!(method, "POST");
            assert!(url.ends_with("/swap/v2/trade/order_place"), "{url}");
            assert!(body.contains(BTC_PERP), "{body}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(w.sim.control().swap_order_count(w.account), 1);
    assert_eq!(w.sim.control().swap_open_order_count(w.account), 1);
}

fn a_client_clock_30_s_behind_is_synced<D: Driver>(w: &World, d: &D) {
    // Spot: 10008, one automatic sync, then the re-signed order succeeds.
    let r = d.send(&resting_buy()).unwrap();
    assert_eq!(r.attempts, 2);
    let off = d.session().offset_ms();
    assert!((29_000..=31_000).contains(&off), "{off}");
    assert_eq!(w.sim.control().order_count(w.account), 1);
    // The offset serves the swap family as well.
    let r = d.send(&swap::BalanceRequest::new()).unwrap();
    assert_eq!(r.attempts, 1);
    let again = d.sync(Family::Swap).unwrap();
    assert!((29_000..=31_000).contains(&again), "{again}");
}

fn a_swap_request_with_the_clock_off_is_resynced_after_400004<D: Driver>(w: &World, d: &D) {
    // The swap family has no timestamp code: a stale timestamp is a signature error (400004).
    // The client resyncs once through /swap/v2/public/time and, since the offset moved, re-signs
    // and resends.
    let r = d.send(&swap::BalanceRequest::new()).unwrap();
    assert_eq!(r.attempts, 2);
    assert_eq!(r.value[0].currency, "USDT");
    // Synced: the next request goes through first time, and an explicit sync agrees.
    let r = d.send(&swap::BalanceRequest::new()).unwrap();
    assert_eq!(r.attempts, 1);
    let off = d.sync(Family::Swap).unwrap();
    assert!((39_000..=41_000).contains(&off), "{off}");
    let _ = w;
}

/// Emits one test per client and adapter for each scenario (with an optional setup change);
/// `server only` marks the scenarios of the server alone (see the module docs).
macro_rules! scenarios {
    ($($name:ident $(with $setup:expr)? $(, $only:ident only)?;)*) => {
        scenarios!(@ ureq_client, ureq, world; $($name $(with $setup)?;)*);
        scenarios!(@ hyper_client, hyper, world; $($name $(with $setup)?;)*);
        scenarios!(@in ureq_in_process, ureq; $($name $(with $setup)? $(, $only only)?;)*);
        scenarios!(@in hyper_in_process, hyper; $($name $(with $setup)? $(, $only only)?;)*);
    };
    (@ $module:ident, $driver:ident, $world:ident; $($name:ident $(with $setup:expr)?;)*) => {
        mod $module {
            use super::*;
            $(
                #[test]
                fn $name() {
                    #[allow(unused_mut)]
                    let mut s = Setup::default();
                    $( $setup(&mut s); )?
                    let w = $world(&s);
                    let d = $driver(&w.sim, w.creds.clone(), &s);
                    super::$name(&w, &d);
                }
            )*
        }
    };
    (@in $module:ident, $driver:ident; $($name:ident $(with $setup:expr)? $(, $only:ident only)?;)*) => {
        mod $module {
            use super::*;
            $(
                scenarios!(@one $driver, $name $(with $setup)? $(, $only)?);
            )*
        }
    };
    (@one $driver:ident, $name:ident $(with $setup:expr)?, server) => {};
    (@one $driver:ident, $name:ident $(with $setup:expr)?) => {
        #[test]
        fn $name() {
            #[allow(unused_mut)]
            let mut s = Setup::default();
            $( $setup(&mut s); )?
            let w = world_in_process(&s);
            let d = $driver(&w.sim, w.creds.clone(), &s);
            super::$name(&w, &d);
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

/// Tight limits on a frozen simulator clock (no minute rollover), the first swap refusal bans.
/// The client's own weight budget is off: it would learn the server's remaining weight (0 after
/// three calls) from the swap headers and wait out a minute before each further swap call, where
/// this scenario is about how the server's refusals are reported.
fn tight_limits(s: &mut Setup) {
    s.retry = RetryPolicy::never();
    s.budget = false;
    s.sim.start_time_ms = Some(1_700_000_010_000);
    s.sim.limits.spot_weight_per_minute = 3;
    s.sim.limits.swap_weight_per_minute = 3;
    s.sim.limits.swap_violations_before_ban = 1;
}

fn clock_30_s_behind(s: &mut Setup) {
    s.clock_offset_ms = Some(-30_000);
}

fn clock_40_s_behind(s: &mut Setup) {
    s.retry = RetryPolicy::never();
    s.clock_offset_ms = Some(-40_000);
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
    latency_past_the_timeout_is_a_network_error with short_timeout, server only;
    a_clock_30_s_off_is_synced_automatically, server only;
    spot_batch_orders_all_or_nothing;
    spot_partial_fill_own_trades_and_finance_log;
    margin_transfer_order_position_and_close;
    deposit_and_withdrawal_lifecycle;
    swap_leverage_and_margin_mode;
    swap_order_lifecycle;
    swap_filled_position_and_bills;
    swap_transfer_with_spot;
    copy_trading_sponsor_tp_sl_and_close;
    swap_ban_is_a_ban_and_spot_weight_ban_is_a_rate_limit with tight_limits;
    server_error_on_a_swap_get_is_retried;
    swap_order_dropped_is_unknown_and_never_doubled with no_retries;
    a_client_clock_30_s_behind_is_synced with clock_30_s_behind;
    a_swap_request_with_the_clock_off_is_resynced_after_400004 with clock_40_s_behind;
}
