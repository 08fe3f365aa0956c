//! The account tracker against the simulator (issue 29), through the blocking client and
//! through the async client (its streams, orders and tracker reads on tokio): random
//! order activity on both families (resting orders, orders that cross the book and fill,
//! cancels, placements whose answer is lost after they were applied or comes after the timeout,
//! answers late but in time), with the simulator's push faults (duplicated and reordered private
//! pushes, every socket dropped). After each resync the tracker's state equals the simulator's
//! (open orders and their executed amounts, balances, positions) and every fill was emitted
//! exactly once.
//!
//! A stream and its tracker made in one call (`client.stream(..).tracked(..)`, both clients)
//! read the account once per reconnect: exactly one resync's requests, counted through a
//! recorder.
//!
//! Rounds: `TRACK_ROUNDS` (default 12); seeds: `TRACK_SEEDS` (default 2).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use digifinex_core::reconcile::Write;
use digifinex_core::track::{Answer, Change, TrackConfig, Tracker};
use digifinex_core::ws::{Event, WsConfig};
use digifinex_core::{spot, swap, Amount, Credentials, Decimal, Family, Price, Size};
use digifinex_core::{Endpoint, Error};
use digifinex_sim::{
    AccountType, FaultKind, FaultRule, Sim, SimConfig, SimHandle, WsFamily, WsFault, WsSettings,
};
use digifinex_ureq::track::Tracking;
use digifinex_ureq::ws::StreamBuilder;
use digifinex_ureq::Client;

const PAIR: &str = "btc_usdt";
const INST: &str = "BTCUSDTPERP";
/// The clients' timeout: a later answer is an unknown outcome.
const TIMEOUT_MS: u64 = 1_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A tracker driven by one of the clients.
trait Track {
    fn sync(&mut self);
    fn on_event(&mut self, event: &Event);
    fn on_answer(&mut self, write: &Write, answer: &Answer) -> bool;
    fn on_error(&mut self, error: &Error) -> bool;
    fn poll_change(&mut self) -> Option<Change>;
    fn tracker(&self) -> &Tracker;
    fn tracker_mut(&mut self) -> &mut Tracker;
}

macro_rules! track_methods {
    () => {
        fn on_event(&mut self, event: &Event) {
            self.0.on_event(event)
        }
        fn on_answer(&mut self, write: &Write, answer: &Answer) -> bool {
            self.0.on_answer(write, answer)
        }
        fn on_error(&mut self, error: &Error) -> bool {
            self.0.on_error(error)
        }
        fn poll_change(&mut self) -> Option<Change> {
            self.0.poll_change()
        }
        fn tracker(&self) -> &Tracker {
            self.0.tracker()
        }
        fn tracker_mut(&mut self) -> &mut Tracker {
            self.0.tracker_mut()
        }
    };
}

struct BlockingTrack(Tracking);

impl Track for BlockingTrack {
    fn sync(&mut self) {
        self.0.sync();
    }
    track_methods!();
}

struct AsyncTrack(digifinex_hyper::track::Tracking, tokio::runtime::Handle);

impl Track for AsyncTrack {
    fn sync(&mut self) {
        self.1.block_on(self.0.sync());
    }
    track_methods!();
}

/// Which client the bot trades, streams and tracks through.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Blocking,
    Async,
}

struct Bot {
    sim: SimHandle,
    /// The blocking client: the bot's own in `Kind::Blocking`, and the checks' reads in both.
    client: Client,
    /// The async client and its runtime (`Kind::Async`).
    async_client: Option<(digifinex_hyper::Client, tokio::runtime::Runtime)>,
    account: digifinex_sim::AccountId,
    spot: Box<dyn Track>,
    swap: Box<dyn Track>,
    rx: mpsc::Receiver<(Family, Event)>,
    /// Trade ids emitted, per family, in order.
    fills: HashMap<Family, Vec<String>>,
    /// Unknown outcomes reconciled.
    settled: usize,
}

fn fast_ws() -> WsConfig {
    WsConfig {
        ping_interval: Duration::from_millis(500),
        pong_timeout: Duration::from_secs(3),
        reconnect_initial: Duration::from_millis(50),
        reconnect_max: Duration::from_millis(300),
        ..WsConfig::default()
    }
}

fn start(kind: Kind) -> Bot {
    let mut config = SimConfig::default().without_flow().without_limits();
    config.ws = WsSettings {
        tick: Duration::from_millis(20),
        ..config.ws
    };
    let sim = Sim::start(config).expect("the simulator starts");
    let demo = sim.control().demo_account();
    let creds = Credentials::new(demo.keys.key.clone(), demo.keys.secret.clone());
    let client = Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .timeout(Duration::from_millis(TIMEOUT_MS))
        .credentials(creds.clone())
        .build()
        .unwrap();
    let async_client = (kind == Kind::Async).then(|| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let client = digifinex_hyper::Client::builder()
            .spot_base_url(sim.spot_base_url())
            .swap_base_url(sim.swap_base_url())
            .allow_http(true)
            .timeout(Duration::from_millis(TIMEOUT_MS))
            .credentials(creds.clone())
            .build()
            .unwrap();
        (client, rt)
    });
    let (tx, rx) = mpsc::channel();
    let mut trackings: Vec<Box<dyn Track>> = Vec::new();
    for (family, url, subs) in [
        (
            Family::Spot,
            sim.spot_ws_url(),
            vec!["spot:order:btc_usdt", "spot:balance"],
        ),
        (
            Family::Swap,
            sim.swap_ws_url(),
            vec!["swap:order", "swap:account", "swap:position"],
        ),
    ] {
        let market = if family == Family::Spot { PAIR } else { INST };
        let config = TrackConfig::default().resync_interval(Duration::from_secs(3600));
        let tracker = Tracker::new(family, [market], config, client.session().now());
        let tx = tx.clone();
        if let Some((client, rt)) = &async_client {
            // The async client's own stream (its credentials, clock offset and REST reads).
            let mut b = client.stream(family).url(url).config(fast_ws());
            for s in subs {
                b = b.subscribe(s.parse().unwrap());
            }
            let mut stream = b.build().unwrap();
            rt.spawn(async move {
                while let Some(e) = stream.next_event().await {
                    if tx.send((family, e)).is_err() {
                        return;
                    }
                }
            });
            trackings.push(Box::new(AsyncTrack(
                client.tracker(tracker),
                rt.handle().clone(),
            )));
            continue;
        }
        let mut b = StreamBuilder::new(family)
            .url(url)
            .allow_http(true)
            .credentials(creds.clone())
            .config(fast_ws());
        for s in subs {
            b = b.subscribe(s.parse().unwrap());
        }
        let stream = b.build().unwrap();
        std::thread::spawn(move || {
            for e in stream {
                if tx.send((family, e)).is_err() {
                    return;
                }
            }
        });
        trackings.push(Box::new(BlockingTrack(client.tracker(tracker))));
    }
    let swap = trackings.pop().unwrap();
    let spot = trackings.pop().unwrap();
    Bot {
        sim,
        client,
        async_client,
        account: demo.account,
        spot,
        swap,
        rx,
        fills: HashMap::new(),
        settled: 0,
    }
}

impl Bot {
    fn tracking(&mut self, family: Family) -> &mut dyn Track {
        match family {
            Family::Spot => self.spot.as_mut(),
            _ => self.swap.as_mut(),
        }
    }

    /// Sends through the bot's client.
    fn send<E>(&self, request: &E) -> Result<E::Output, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        match &self.async_client {
            Some((client, rt)) => rt.block_on(client.send(request)),
            None => self.client.send(request),
        }
    }

    fn collect(&mut self) {
        for family in [Family::Spot, Family::Swap] {
            while let Some(c) = self.tracking(family).poll_change() {
                if let Change::Settled { .. } = &c {
                    self.settled += 1;
                }
                if let Change::Filled { trade, fee } = &c {
                    assert!(fee.is_some(), "{c:?}");
                    self.fills
                        .entry(family)
                        .or_default()
                        .push(trade.trade_id.clone());
                }
            }
        }
    }

    /// Feeds events and performs due reads for `d`.
    fn pump(&mut self, d: Duration) {
        let end = Instant::now() + d;
        while Instant::now() < end {
            if let Ok((family, e)) = self.rx.recv_timeout(Duration::from_millis(10)) {
                self.tracking(family).on_event(&e);
            }
            self.spot.sync();
            self.swap.sync();
            self.collect();
        }
    }

    /// Waits until both trackers are sure (a socket dropped is back and resynced), then
    /// resyncs both now.
    fn resync(&mut self) {
        let end = Instant::now() + Duration::from_secs(10);
        self.pump(Duration::from_millis(300));
        while self.spot.tracker().is_unsure() || self.swap.tracker().is_unsure() {
            assert!(
                Instant::now() < end,
                "still unsure: spot {:?}, swap {:?}",
                self.spot.tracker().unsure(),
                self.swap.tracker().unsure()
            );
            self.pump(Duration::from_millis(50));
        }
        // No event is fed from here to the comparison: the state is the resync's.
        self.spot.tracker_mut().request_resync();
        self.swap.tracker_mut().request_resync();
        self.spot.sync();
        self.swap.sync();
        self.collect();
        assert!(!self.spot.tracker().is_unsure());
        assert!(!self.swap.tracker().is_unsure());
    }

    fn best(&self, family: WsFamily, target: &str) -> (Decimal, Decimal) {
        let book = self.sim.control().book(family, target, 1).unwrap();
        (book.bids[0].0, book.asks[0].0)
    }

    fn spot_order(&mut self, buy: bool, price: Decimal, fault: Option<FaultKind>) {
        let amount = Amount::new(Decimal::new(1, 3));
        let price = Price::new(price);
        let order = if buy {
            spot::LimitOrder::buy(amount, price)
        } else {
            spot::LimitOrder::sell(amount, price)
        };
        let req = spot::PlaceOrderRequest::new(spot::Market::Spot, PAIR, order);
        if let Some(fault) = fault {
            self.sim
                .control()
                .add_fault(FaultRule::route("POST", "/v3/spot/order/new", fault).times(1));
        }
        match self.send(&req) {
            Ok(placed) => {
                assert!(self
                    .spot
                    .on_answer(&Write::SpotOrder(req), &Answer::SpotPlaced(placed)));
            }
            Err(e) => assert!(self.spot.on_error(&e), "{e}"),
        }
    }

    fn swap_order(&mut self, side: swap::OrderSide, price: Decimal, fault: Option<FaultKind>) {
        let req = swap::PlaceOrderRequest::new(swap::OrderSpec::limit(
            INST,
            side,
            Size::new(Decimal::ONE),
            Price::new(price),
        ));
        if let Some(fault) = fault {
            self.sim
                .control()
                .add_fault(FaultRule::route("POST", "/swap/v2/trade/order_place", fault).times(1));
        }
        match self.send(&req) {
            Ok(placed) => {
                assert!(self
                    .swap
                    .on_answer(&Write::SwapOrder(req), &Answer::SwapPlaced(placed)));
            }
            Err(e) => assert!(self.swap.on_error(&e), "{e}"),
        }
    }

    fn cancel_one(&mut self, family: Family, rng: &mut Rng) {
        let open: Vec<String> = self
            .tracking(family)
            .tracker()
            .open_orders()
            .map(|o| o.order_id.clone())
            .collect();
        if open.is_empty() {
            return;
        }
        let id = open[rng.below(open.len() as u64) as usize].clone();
        match family {
            Family::Spot => {
                let req = spot::CancelOrdersRequest::new(spot::Market::Spot, [id]);
                if let Ok(a) = self.send(&req) {
                    self.spot
                        .on_answer(&Write::SpotCancel(req), &Answer::SpotCancelled(a));
                }
            }
            _ => {
                let req = swap::CancelOrderRequest::new(INST, id);
                if let Ok(a) = self.send(&req) {
                    self.swap
                        .on_answer(&Write::SwapCancel(req), &Answer::SwapCancelled(a));
                }
            }
        }
    }

    fn step(&mut self, rng: &mut Rng) {
        let (bid, ask) = self.best(WsFamily::Spot, PAIR);
        let (sbid, sask) = self.best(WsFamily::Swap, INST);
        // REST faults: an answer lost after the order was applied, an answer later than the
        // client's timeout (an unknown outcome too), an answer late but in time.
        let unknown = match rng.below(10) {
            0 => Some(FaultKind::DropAfterApply),
            1 => Some(FaultKind::LateAnswer {
                delay_ms: TIMEOUT_MS + 500,
            }),
            2 => Some(FaultKind::LateAnswer { delay_ms: 200 }),
            _ => None,
        };
        match rng.below(9) {
            0 => self.spot_order(
                true,
                (bid * Decimal::new(8, 1)).round_dp(0),
                unknown.clone(),
            ),
            1 => self.spot_order(
                true,
                (ask * Decimal::new(101, 2)).round_dp(0),
                unknown.clone(),
            ),
            2 => self.spot_order(
                false,
                (bid * Decimal::new(99, 2)).round_dp(0),
                unknown.clone(),
            ),
            3 | 4 => self.cancel_one(Family::Spot, rng),
            5 => self.swap_order(
                swap::OrderSide::OpenLong,
                (sbid * Decimal::new(8, 1)).round_dp(0),
                unknown,
            ),
            6 => self.swap_order(
                if rng.below(2) == 0 {
                    swap::OrderSide::OpenLong
                } else {
                    swap::OrderSide::OpenShort
                },
                if rng.below(2) == 0 {
                    (sask * Decimal::new(101, 2)).round_dp(0)
                } else {
                    (sbid * Decimal::new(99, 2)).round_dp(0)
                },
                unknown,
            ),
            _ => self.cancel_one(Family::Swap, rng),
        }
        match rng.below(6) {
            0 => self.sim.control().ws_fault(WsFault::DuplicatePrivate, 2),
            1 => self.sim.control().ws_fault(WsFault::ReorderPrivate, 2),
            2 => self.sim.control().ws_disconnect_all(),
            _ => {}
        }
        self.pump(Duration::from_millis(40));
    }

    /// The tracker's state equals the simulator's.
    fn check(&mut self, round: u32) {
        let control = self.sim.control();
        // Spot: open orders of the pair with their executed amounts.
        let want: BTreeMap<String, Decimal> = control
            .orders(self.account)
            .into_iter()
            .filter(|o| o.symbol.eq_ignore_ascii_case(PAIR) && o.kind == "spot" && o.status <= 1)
            .map(|o| (o.order_id, o.executed_amount.normalize()))
            .collect();
        let got: BTreeMap<String, Decimal> = self
            .spot
            .tracker()
            .open_orders()
            .map(|o| (o.order_id.clone(), o.filled.normalize()))
            .collect();
        assert_eq!(got, want, "round {round}: spot open orders");
        // Swap: open orders of the instrument.
        let want: BTreeMap<String, Decimal> = control
            .swap_orders(self.account)
            .into_iter()
            .filter(|o| o.instrument_id == INST && (o.state == 0 || o.state == 1) && !o.copy)
            .map(|o| (o.order_id, o.filled.normalize()))
            .collect();
        let got: BTreeMap<String, Decimal> = self
            .swap
            .tracker()
            .open_orders()
            .map(|o| (o.order_id.clone(), o.filled.normalize()))
            .collect();
        assert_eq!(got, want, "round {round}: swap open orders");
        // Spot balances: free and total.
        let want: BTreeMap<String, (Decimal, Decimal)> = control
            .balances(self.account)
            .unwrap()
            .into_iter()
            .filter(|b| b.account_type == AccountType::Spot)
            .map(|b| {
                (
                    b.currency.to_ascii_uppercase(),
                    (
                        b.balance.free.normalize(),
                        (b.balance.free + b.balance.frozen).normalize(),
                    ),
                )
            })
            .filter(|(_, (f, t))| !(f.is_zero() && t.is_zero()))
            .collect();
        let got: BTreeMap<String, (Decimal, Decimal)> = self
            .spot
            .tracker()
            .balances()
            .map(|b| {
                (
                    b.currency.clone(),
                    (
                        b.free.unwrap_or_default().normalize(),
                        b.total.unwrap_or_default().normalize(),
                    ),
                )
            })
            .collect();
        assert_eq!(got, want, "round {round}: spot balances");
        // Swap positions.
        let want: BTreeMap<(String, String), Decimal> = control
            .swap_positions(self.account)
            .into_iter()
            .filter(|p| p.instrument_id == INST && !p.size.is_zero())
            .map(|p| ((p.instrument_id, p.side.to_owned()), p.size.normalize()))
            .collect();
        let got: BTreeMap<(String, String), Decimal> = self
            .swap
            .tracker()
            .positions()
            .map(|p| {
                (
                    (p.instrument_id.clone(), p.side.clone()),
                    p.size.normalize(),
                )
            })
            .collect();
        assert_eq!(got, want, "round {round}: swap positions");
        // Swap balances, read over REST.
        let want: BTreeMap<String, (Option<Decimal>, Option<Decimal>)> = self
            .client
            .send(&swap::BalanceRequest::new())
            .unwrap()
            .into_iter()
            .map(|b| {
                (
                    b.currency.to_ascii_uppercase(),
                    (
                        b.avail_balance.map(|v| v.normalize()),
                        b.equity.map(|v| v.normalize()),
                    ),
                )
            })
            .filter(|(_, (f, t))| {
                f.is_some_and(|v| !v.is_zero()) || t.is_some_and(|v| !v.is_zero())
            })
            .collect();
        let got: BTreeMap<String, (Option<Decimal>, Option<Decimal>)> = self
            .swap
            .tracker()
            .balances()
            .map(|b| {
                (
                    b.currency.clone(),
                    (
                        b.free.map(|v| v.normalize()),
                        b.total.map(|v| v.normalize()),
                    ),
                )
            })
            .collect();
        assert_eq!(got, want, "round {round}: swap balances");
        // Every fill emitted exactly once: the ids emitted are the account's fills.
        for family in [Family::Spot, Family::Swap] {
            let emitted = self.fills.get(&family).cloned().unwrap_or_default();
            let unique: BTreeSet<String> = emitted.iter().cloned().collect();
            assert_eq!(
                unique.len(),
                emitted.len(),
                "round {round}: a fill emitted twice: {emitted:?}"
            );
            let venue: BTreeSet<String> = match family {
                Family::Spot => self
                    .client
                    .send(
                        &spot::MyTradesRequest::new(spot::Market::Spot)
                            .symbol(PAIR)
                            .limit(500),
                    )
                    .unwrap()
                    .list
                    .into_iter()
                    .map(|t| t.id)
                    .collect(),
                _ => self
                    .client
                    .send(
                        &swap::HistoryTradesRequest::new()
                            .instrument_id(INST)
                            .limit(100),
                    )
                    .unwrap()
                    .into_iter()
                    .map(|t| t.trade_id)
                    .collect(),
            };
            assert_eq!(unique, venue, "round {round}: {family} fills");
        }
    }
}

fn run(kind: Kind, seed: u64, rounds: u32) {
    let mut bot = start(kind);
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    bot.resync();
    bot.check(0);
    // One placement of each family whose answer is lost after it was applied.
    let (bid, _) = bot.best(WsFamily::Spot, PAIR);
    bot.spot_order(
        true,
        (bid * Decimal::new(8, 1)).round_dp(0),
        Some(FaultKind::DropAfterApply),
    );
    let (sbid, _) = bot.best(WsFamily::Swap, INST);
    bot.swap_order(
        swap::OrderSide::OpenLong,
        (sbid * Decimal::new(8, 1)).round_dp(0),
        Some(FaultKind::LateAnswer {
            delay_ms: TIMEOUT_MS + 500,
        }),
    );
    bot.resync();
    assert_eq!(bot.settled, 2);
    assert_eq!(bot.spot.tracker().open_orders().count(), 1);
    assert_eq!(bot.swap.tracker().open_orders().count(), 1);
    bot.check(0);
    for round in 1..=rounds {
        for _ in 0..=rng.below(4) {
            bot.step(&mut rng);
        }
        bot.resync();
        bot.check(round);
    }
    let fills: usize = bot.fills.values().map(Vec::len).sum();
    assert!(
        fills > 0,
        "no fill in {rounds} rounds ({kind:?}, seed {seed})"
    );
}

#[test]
fn blocking_tracker_equals_the_simulator_after_every_resync() {
    let rounds = u32::try_from(env("TRACK_ROUNDS", 12)).unwrap_or(12);
    for seed in 1..=env("TRACK_SEEDS", 2) {
        run(Kind::Blocking, seed, rounds);
    }
}

#[test]
fn async_tracker_equals_the_simulator_after_every_resync() {
    let rounds = u32::try_from(env("TRACK_ROUNDS", 12)).unwrap_or(12);
    for seed in 1..=env("TRACK_SEEDS", 2) {
        run(Kind::Async, seed.wrapping_add(100), rounds);
    }
}

// ---------------------------------------------------------------------------------------------
// One machine for the account: a stream and its tracker made in one call read the account once
// per reconnect (the tracker's resync), and the stream itself reads nothing.

/// The path of every request a client sends.
#[derive(Debug, Default)]
struct Paths(std::sync::Mutex<Vec<String>>);

impl digifinex_core::record::Tap for Paths {
    fn exchanged(
        &self,
        request: &http::Request<Vec<u8>>,
        _: Result<&http::Response<Vec<u8>>, &str>,
        _: i64,
        _: Duration,
    ) {
        self.0.lock().unwrap().push(request.uri().path().to_owned());
    }
}

impl Paths {
    /// The paths sent since the last call.
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// One resync of a tracker of `btc_usdt` and one of `BTCUSDTPERP`, in the order it reads.
fn one_resync() -> (Vec<&'static str>, Vec<&'static str>) {
    (
        vec![
            "/v3/spot/order/current",
            "/v3/spot/mytrades",
            "/v3/spot/assets",
        ],
        vec![
            "/swap/v2/trade/open_orders",
            "/swap/v2/trade/history_trades",
            "/swap/v2/account/balance",
            "/swap/v2/account/positions",
        ],
    )
}

/// What a tracked stream went through, per family.
#[derive(Default)]
struct Seen {
    disconnected: bool,
    resubscribed: bool,
}

impl Seen {
    fn observe(&mut self, event: &Event) {
        match event {
            Event::Disconnected { .. } => self.disconnected = true,
            Event::Subscribed { subscriptions }
                if self.disconnected && subscriptions.iter().any(|s| s.channel.is_private()) =>
            {
                self.resubscribed = true
            }
            _ => {}
        }
    }
}

/// The tracked streams of a test: stepped for a while, and asked about their trackers.
trait Tracked {
    /// Steps both tracked streams for `d`, handing their events to `seen`.
    fn pump(&mut self, d: Duration, seen: &mut [Seen; 2]);
    fn unsure(&self) -> bool;
    fn open_orders(&self) -> Vec<String>;
}

struct BlockingTracked([digifinex_ureq::track::TrackedStream; 2]);

impl Tracked for BlockingTracked {
    fn pump(&mut self, d: Duration, seen: &mut [Seen; 2]) {
        let end = Instant::now() + d;
        while Instant::now() < end {
            for (t, s) in self.0.iter_mut().zip(seen.iter_mut()) {
                if let Some(e) = t.next_event_timeout(Duration::from_millis(10)) {
                    s.observe(&e);
                }
            }
        }
    }
    fn unsure(&self) -> bool {
        self.0.iter().any(|t| t.tracker().is_unsure())
    }
    fn open_orders(&self) -> Vec<String> {
        self.0[0]
            .state()
            .open_orders
            .into_iter()
            .map(|o| o.order_id)
            .collect()
    }
}

struct AsyncTracked(
    [digifinex_hyper::track::TrackedStream; 2],
    tokio::runtime::Runtime,
);

impl Tracked for AsyncTracked {
    fn pump(&mut self, d: Duration, seen: &mut [Seen; 2]) {
        let end = Instant::now() + d;
        let (streams, rt) = (&mut self.0, &self.1);
        while Instant::now() < end {
            for (t, s) in streams.iter_mut().zip(seen.iter_mut()) {
                // Cut short after 10 ms: the tracked stream is cancel-safe.
                let next = rt.block_on(async {
                    tokio::time::timeout(Duration::from_millis(10), t.next_event()).await
                });
                if let Ok(Some(e)) = next {
                    s.observe(&e);
                }
            }
        }
    }
    fn unsure(&self) -> bool {
        self.0.iter().any(|t| t.tracker().is_unsure())
    }
    fn open_orders(&self) -> Vec<String> {
        self.0[0]
            .state()
            .open_orders
            .into_iter()
            .map(|o| o.order_id)
            .collect()
    }
}

fn tracked_streams(
    kind: Kind,
    sim: &SimHandle,
    creds: &Credentials,
) -> (Box<dyn Tracked>, std::sync::Arc<Paths>) {
    let paths = std::sync::Arc::new(Paths::default());
    let config = TrackConfig::default().resync_interval(Duration::from_secs(3600));
    let urls = [
        (Family::Spot, sim.spot_ws_url(), PAIR),
        (Family::Swap, sim.swap_ws_url(), INST),
    ];
    let tracked: Box<dyn Tracked> = match kind {
        Kind::Blocking => {
            let client = Client::builder()
                .spot_base_url(sim.spot_base_url())
                .swap_base_url(sim.swap_base_url())
                .allow_http(true)
                .credentials(creds.clone())
                .recorder(paths.clone())
                .build()
                .unwrap();
            Box::new(BlockingTracked(urls.map(|(family, url, market)| {
                client
                    .stream(family)
                    .url(url)
                    .config(fast_ws())
                    .tracked([market], config.clone())
                    .unwrap()
            })))
        }
        Kind::Async => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            let client = rt.block_on(async {
                digifinex_hyper::Client::builder()
                    .spot_base_url(sim.spot_base_url())
                    .swap_base_url(sim.swap_base_url())
                    .allow_http(true)
                    .credentials(creds.clone())
                    .recorder(paths.clone())
                    .build()
                    .unwrap()
            });
            let streams = rt.block_on(async {
                urls.map(|(family, url, market)| {
                    client
                        .stream(family)
                        .url(url)
                        .config(fast_ws())
                        .tracked([market], config.clone())
                        .unwrap()
                })
            });
            Box::new(AsyncTracked(streams, rt))
        }
    };
    (tracked, paths)
}

/// Before: a stream made by `client.stream(..)` reconciled each private subscription over REST
/// and the tracker resynced on top (13 reads per reconnect of both families). Now each family's
/// account is read once per reconnect: exactly one resync's reads, and nothing else.
fn read_once_per_reconnect(kind: Kind) {
    let mut config = SimConfig::default().without_flow().without_limits();
    config.ws = WsSettings {
        tick: Duration::from_millis(20),
        ..config.ws
    };
    let sim = Sim::start(config).expect("the simulator starts");
    let demo = sim.control().demo_account();
    let creds = Credentials::new(demo.keys.key.clone(), demo.keys.secret.clone());
    let (mut tracked, paths) = tracked_streams(kind, &sim, &creds);
    let split = |all: Vec<String>| -> (Vec<String>, Vec<String>) {
        all.into_iter().partition(|p| p.starts_with("/v3/"))
    };
    let (want_spot, want_swap) = one_resync();

    // The start: one resync per family (and the clock measured once).
    let mut seen = [Seen::default(), Seen::default()];
    let end = Instant::now() + Duration::from_secs(10);
    while tracked.unsure() {
        assert!(Instant::now() < end, "the trackers never got sure");
        tracked.pump(Duration::from_millis(50), &mut seen);
    }
    tracked.pump(Duration::from_millis(1_000), &mut seen);
    // The first resync may start before the private channels are acknowledged; the
    // acknowledgement then asks for one more (pushes before it are only in REST).
    let (spot, swap) = split(paths.take());
    let spot: Vec<&str> = spot
        .iter()
        .map(String::as_str)
        .filter(|p| *p != "/v3/time")
        .collect();
    for (family, got, want) in [
        ("spot", spot, &want_spot),
        (
            "swap",
            swap.iter().map(String::as_str).collect(),
            &want_swap,
        ),
    ] {
        let once = want.clone();
        let twice = [want.as_slice(), want.as_slice()].concat();
        assert!(
            got == once || got == twice,
            "kind {kind:?}, {family} at the start: {got:?}"
        );
    }

    // An order placed through another client: pushed, and tracked.
    let other = Client::builder()
        .spot_base_url(sim.spot_base_url())
        .allow_http(true)
        .credentials(creds.clone())
        .build()
        .unwrap();
    let (bid, _) = {
        let book = sim.control().book(WsFamily::Spot, PAIR, 1).unwrap();
        (book.bids[0].0, book.asks[0].0)
    };
    let order = spot::PlaceOrderRequest::new(
        spot::Market::Spot,
        PAIR,
        spot::LimitOrder::buy(
            Amount::new(Decimal::new(1, 3)),
            Price::new((bid * Decimal::new(8, 1)).round_dp(0)),
        ),
    );
    let id = other.send(&order).unwrap().order_id;
    let end = Instant::now() + Duration::from_secs(5);
    while !tracked.open_orders().contains(&id) {
        assert!(Instant::now() < end, "the pushed order was never tracked");
        tracked.pump(Duration::from_millis(50), &mut seen);
    }
    assert!(paths.take().is_empty(), "a push is not a read");

    // Three reconnects: each one resync per family.
    for round in 1..=3 {
        let mut seen = [Seen::default(), Seen::default()];
        sim.control().ws_disconnect_all();
        let end = Instant::now() + Duration::from_secs(10);
        while !seen.iter().all(|s| s.resubscribed) || tracked.unsure() {
            assert!(Instant::now() < end, "round {round}: not back");
            tracked.pump(Duration::from_millis(50), &mut seen);
        }
        // Whatever else would be read comes within this second (the resync waits 200 ms
        // after the acknowledgement).
        tracked.pump(Duration::from_millis(1_000), &mut seen);
        let (spot, swap) = split(paths.take());
        assert_eq!(spot, want_spot, "kind {kind:?}, round {round}");
        assert_eq!(swap, want_swap, "kind {kind:?}, round {round}");
        assert_eq!(tracked.open_orders(), vec![id.clone()], "round {round}");
    }
}

#[test]
fn blocking_tracked_stream_reads_the_account_once_per_reconnect() {
    read_once_per_reconnect(Kind::Blocking);
}

#[test]
fn async_tracked_stream_reads_the_account_once_per_reconnect() {
    read_once_per_reconnect(Kind::Async);
}
