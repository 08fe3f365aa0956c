//! Property test (issue 25): a verdict on an unknown outcome is never wrong.
//!
//! Random sequences of writes against the simulator, through both clients: spot and swap
//! orders and batches, most of them identical to orders placed just before (the case that made
//! a verdict wrong: a grid bot's identical orders), each sent plainly or after a snapshot
//! (`SnapshotPolicy`), with a random fault on its route (none, `drop_before_apply`,
//! `drop_after_apply`, `late_answer`) and the simulator's clock moved away from the sessions'
//! estimate of it by a random error within the documented clock uncertainty (what the server
//! accepts: 1 s ahead, 5 s behind, less a spot header's dropped milliseconds; here -0.9 s to
//! +3.8 s, within the reconciliation's 5 s). Every verdict is compared with the simulator's truth through its
//! control API, by order ids and counts: an applied verdict must name an order the write
//! created, a not-applied verdict must be given only when the write created nothing for that
//! element. Ambiguous verdicts are counted, with and without snapshots, and printed.
//!
//! Bounded in `cargo test` (`ROUNDS` writes per client); `DIGIFINEX_VERDICT_ROUNDS=N` runs N
//! per client, and `DIGIFINEX_VERDICT_SEED=S` replays a sequence (the seed is printed).
//!
//! Resting orders are placed 20 % and more under the best bid read from the book (the
//! simulator's market moves by itself), so they do not fill.

use std::collections::BTreeSet;
use std::time::Duration;

use digifinex_core::policy::RetryPolicy;
use digifinex_core::reconcile::{Options, Outcome, SnapshotPolicy, Verdict, WriteRequest};
use digifinex_core::spot::{self, LimitOrder, Market};
use digifinex_core::{swap, Amount, Credentials, Decimal, Endpoint, Error, ErrorKind, Price, Size};
use digifinex_sim::{AccountId, AccountType, FaultKind, FaultRule, Sim, SimConfig, SimHandle};

/// Writes per client in `cargo test`.
const ROUNDS: usize = 48;
/// The client's limit for one attempt; a late answer comes later.
const TIMEOUT: Duration = Duration::from_millis(800);
const LATE_MS: u64 = 1_600;
const PAIR: &str = "btc_usdt";
const PERP: &str = "BTCUSDTPERP";

// ---------------------------------------------------------------------------------------------
// A small seeded generator (splitmix64): the sequence is reproducible from the printed seed.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn between(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next() % (high - low + 1) as u64) as i64
    }
}

// ---------------------------------------------------------------------------------------------
// The clients

trait Driver {
    fn send<E>(&self, e: &E) -> Result<E::Output, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send;
    fn send_write<E>(&self, e: &E, policy: SnapshotPolicy) -> Result<E::Output, Error>
    where
        E: WriteRequest + Sync,
        E::Output: Send;
    fn reconcile(&self, e: &Error) -> Result<Outcome, Error>;
    /// The session's estimate of the server clock's offset (ms).
    fn offset_ms(&self) -> i64;
}

struct Ureq(digifinex_ureq::Client);

impl Driver for Ureq {
    fn send<E>(&self, e: &E) -> Result<E::Output, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        self.0.send(e)
    }
    fn send_write<E>(&self, e: &E, policy: SnapshotPolicy) -> Result<E::Output, Error>
    where
        E: WriteRequest + Sync,
        E::Output: Send,
    {
        self.0.send_write(e, policy)
    }
    fn reconcile(&self, e: &Error) -> Result<Outcome, Error> {
        self.0.reconcile_with(e, Options::new())
    }
    fn offset_ms(&self) -> i64 {
        self.0.session().offset_ms()
    }
}

struct Hyper(digifinex_hyper::Client, tokio::runtime::Runtime);

impl Driver for Hyper {
    fn send<E>(&self, e: &E) -> Result<E::Output, Error>
    where
        E: Endpoint + Sync,
        E::Output: Send,
    {
        self.1.block_on(self.0.send(e))
    }
    fn send_write<E>(&self, e: &E, policy: SnapshotPolicy) -> Result<E::Output, Error>
    where
        E: WriteRequest + Sync,
        E::Output: Send,
    {
        self.1.block_on(self.0.send_write(e, policy))
    }
    fn reconcile(&self, e: &Error) -> Result<Outcome, Error> {
        self.1.block_on(self.0.reconcile_with(e, Options::new()))
    }
    fn offset_ms(&self) -> i64 {
        self.0.session().offset_ms()
    }
}

struct World {
    sim: SimHandle,
    account: AccountId,
    creds: Credentials,
}

fn world() -> World {
    let mut config = SimConfig::default();
    // Hundreds of orders a minute, many cancelled: not what the limits are about here.
    config.limits.weight_enabled = false;
    config.limits.risk_control = false;
    let sim = Sim::start(config).expect("simulator");
    let demo = sim.control().demo_account();
    let c = sim.control();
    for at in [AccountType::Spot, AccountType::Swap] {
        c.credit(demo.account, at, "USDT", Decimal::from(1_000_000))
            .expect("credit");
    }
    World {
        creds: Credentials::new(demo.keys.key, demo.keys.secret),
        account: demo.account,
        sim,
    }
}

/// A client; `memory` 0 forgets every id it placed or saw, as a new process (the CLI) does.
fn ureq(w: &World, memory: usize) -> Ureq {
    Ureq(
        digifinex_ureq::Client::builder()
            .known_ids_capacity(memory)
            .spot_base_url(w.sim.spot_base_url())
            .swap_base_url(w.sim.swap_base_url())
            .allow_http(true)
            .credentials(w.creds.clone())
            .timeout(TIMEOUT)
            .retry_policy(RetryPolicy::never())
            // Both sessions keep the local clock as their estimate of the server's, so the
            // error each sees is the simulator's offset, kept within the uncertainty below.
            .auto_time_sync(false)
            .without_weight_budget()
            .build()
            .expect("client"),
    )
}

fn hyper(w: &World, memory: usize) -> Hyper {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = rt.block_on(async {
        digifinex_hyper::Client::builder()
            .known_ids_capacity(memory)
            .spot_base_url(w.sim.spot_base_url())
            .swap_base_url(w.sim.swap_base_url())
            .allow_http(true)
            .credentials(w.creds.clone())
            .timeout(TIMEOUT)
            .retry_policy(RetryPolicy::never())
            // Both sessions keep the local clock as their estimate of the server's, so the
            // error each sees is the simulator's offset, kept within the uncertainty below.
            .auto_time_sync(false)
            .without_weight_budget()
            .build()
            .expect("client")
    });
    Hyper(client, rt)
}

// ---------------------------------------------------------------------------------------------
// The writes

/// One order as the truth is compared: its price and amount (spot) or size (swap).
type Key = (Decimal, Decimal);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    DropBefore,
    DropAfter,
    Late,
}

impl Fault {
    fn kind(self) -> Option<FaultKind> {
        match self {
            Fault::None => None,
            Fault::DropBefore => Some(FaultKind::DropBeforeApply),
            Fault::DropAfter => Some(FaultKind::DropAfterApply),
            Fault::Late => Some(FaultKind::LateAnswer { delay_ms: LATE_MS }),
        }
    }
}

/// What the generator works from: resting prices under the market, on the grids.
struct Market0 {
    spot_prices: Vec<Decimal>,
    swap_prices: Vec<Decimal>,
}

fn market<D: Driver>(d: &D) -> Market0 {
    let book = d
        .send(&spot::OrderBookRequest::new(PAIR).limit(5))
        .expect("book");
    let bid = book.best_bid().expect("a bid").price;
    let base = (bid * Decimal::new(8, 1)).round_dp(2);
    let depth = d.send(&swap::DepthRequest::new(PERP)).expect("depth");
    let sbid = depth.bids.iter().map(|l| l.price).max().expect("a bid");
    // Whole numbers are on the instrument's tick.
    let sbase = (sbid * Decimal::new(8, 1)).round_dp(0);
    Market0 {
        spot_prices: (0..6).map(|i| base - Decimal::from(i)).collect(),
        swap_prices: (0..6).map(|i| sbase - Decimal::from(10 * i)).collect(),
    }
}

const SPOT_AMOUNTS: [&str; 2] = ["0.0002", "0.0003"];

/// The truth about one write: the records it created, by id and key.
fn created(before: &BTreeSet<String>, now: Vec<(String, Key)>) -> Vec<(String, Key)> {
    now.into_iter()
        .filter(|(id, _)| !before.contains(id))
        .collect()
}

fn spot_truth(w: &World) -> Vec<(String, Key)> {
    w.sim
        .control()
        .orders(w.account)
        .into_iter()
        .map(|o| (o.order_id, (o.price.normalize(), o.amount.normalize())))
        .collect()
}

fn swap_truth(w: &World) -> Vec<(String, Key)> {
    w.sim
        .control()
        .swap_orders(w.account)
        .into_iter()
        .map(|o| (o.order_id, (o.price.normalize(), o.size.normalize())))
        .collect()
}

#[derive(Debug, Default)]
struct Tally {
    /// [without snapshot, with snapshot] verdicts: applied, not applied, ambiguous.
    verdicts: [[usize; 3]; 2],
    wrong: Vec<String>,
    writes: usize,
    unknown: usize,
}

impl Tally {
    fn count(&mut self, snapshot: bool, v: &Verdict) {
        let i = usize::from(snapshot);
        let j = match v {
            Verdict::Applied { .. } => 0,
            Verdict::NotApplied { .. } => 1,
            Verdict::Ambiguous { .. } => 2,
        };
        self.verdicts[i][j] += 1;
    }

    fn line(&self, who: &str) -> String {
        let share = |t: [usize; 3]| {
            let n = t.iter().sum::<usize>();
            if n == 0 {
                "no verdicts".to_owned()
            } else {
                format!(
                    "{n} verdicts: {} applied, {} not applied, {} ambiguous ({:.1} %)",
                    t[0],
                    t[1],
                    t[2],
                    100.0 * t[2] as f64 / n as f64
                )
            }
        };
        format!(
            "{who}: {} writes, {} unknown outcomes; without snapshot {}; with snapshot {}; {} wrong",
            self.writes,
            self.unknown,
            share(self.verdicts[0]),
            share(self.verdicts[1]),
            self.wrong.len()
        )
    }
}

/// Checks the verdicts on a write of `elements` against what it created: per key, no more
/// applied verdicts than records it created with that key, each naming a distinct one of them,
/// and no more not-applied verdicts than elements it did not create.
fn judge(
    what: &str,
    elements: &[Key],
    outcome: &Outcome,
    new: &[(String, Key)],
    snapshot: bool,
    tally: &mut Tally,
) {
    assert_eq!(
        outcome.verdicts.len(),
        elements.len(),
        "{what}: {outcome:?}"
    );
    let mut named: BTreeSet<&str> = BTreeSet::new();
    let mut keys: Vec<Key> = elements.to_vec();
    keys.sort();
    keys.dedup();
    for key in keys {
        let k = elements.iter().filter(|e| **e == key).count();
        let truth: Vec<&str> = new
            .iter()
            .filter(|(_, x)| *x == key)
            .map(|(id, _)| id.as_str())
            .collect();
        let mut applied = 0;
        let mut not_applied = 0;
        for (v, _) in outcome
            .verdicts
            .iter()
            .zip(elements)
            .filter(|(_, e)| **e == key)
        {
            tally.count(snapshot, v);
            match v {
                Verdict::Applied { id, .. } => {
                    applied += 1;
                    match id.as_deref() {
                        Some(id) if truth.contains(&id) && named.insert(id) => {}
                        other => tally.wrong.push(format!(
                            "{what}: applied names {other:?}, the write created {truth:?}"
                        )),
                    }
                }
                Verdict::NotApplied { .. } => not_applied += 1,
                Verdict::Ambiguous { .. } => {}
            }
        }
        if applied > truth.len() {
            tally.wrong.push(format!(
                "{what}: {applied} applied for key {key:?}, the write created {}",
                truth.len()
            ));
        }
        if not_applied > k.saturating_sub(truth.len()) {
            tally.wrong.push(format!(
                "{what}: {not_applied} of {k} not applied for key {key:?}, yet it created {truth:?}: {outcome:?}"
            ));
        }
    }
}

/// Sends `req` with `fault` on `path` for that one request; reconciles an unknown outcome and
/// judges it against the records the write created.
#[allow(clippy::too_many_arguments)]
fn write<D: Driver, E>(
    w: &World,
    d: &D,
    req: &E,
    path: &str,
    elements: &[Key],
    fault: Fault,
    policy: SnapshotPolicy,
    truth: fn(&World) -> Vec<(String, Key)>,
    tally: &mut Tally,
) where
    E: WriteRequest + Sync,
    E::Output: Send,
{
    let before: BTreeSet<String> = truth(w).into_iter().map(|(id, _)| id).collect();
    if let Some(kind) = fault.kind() {
        w.sim
            .control()
            .add_fault(FaultRule::route("POST", path, kind).times(1));
    }
    tally.writes += 1;
    let what = format!("{} {fault:?} {policy:?}", E::META.name);
    match d.send_write(req, policy) {
        Ok(_) => assert_eq!(fault, Fault::None, "{what}: succeeded despite the fault"),
        Err(e) if e.kind() == ErrorKind::OutcomeUnknown => {
            tally.unknown += 1;
            let outcome = d.reconcile(&e).unwrap_or_else(|e| panic!("{what}: {e}"));
            let new = created(&before, truth(w));
            let wrong = tally.wrong.len();
            judge(
                &what,
                elements,
                &outcome,
                &new,
                policy == SnapshotPolicy::BeforeSend,
                tally,
            );
            if tally.wrong.len() > wrong {
                // What the simulator knows of the records, to tell what went wrong.
                let c = w.sim.control();
                let spot: Vec<(String, i64)> = c
                    .orders(w.account)
                    .into_iter()
                    .filter(|o| new.iter().any(|(id, _)| *id == o.order_id))
                    .map(|o| (o.order_id, o.created_ms))
                    .collect();
                let swap: Vec<(String, i64)> = c
                    .swap_orders(w.account)
                    .into_iter()
                    .filter(|o| new.iter().any(|(id, _)| *id == o.order_id))
                    .map(|o| (o.order_id, o.created_ms))
                    .collect();
                tally.wrong.push(format!(
                    "  (clock offset {} ms, simulator now {}; created: {spot:?} {swap:?})",
                    c.clock_offset(),
                    c.now_ms()
                ));
            }
        }
        Err(e) => panic!("{what}: {e}"),
    }
    w.sim.control().clear_faults();
}

/// Cancels the open orders when they pile up (a bot's grid moves on too).
fn tidy<D: Driver>(w: &World, d: &D) {
    let open: Vec<String> = w
        .sim
        .control()
        .orders(w.account)
        .into_iter()
        .filter(|o| o.status <= 1)
        .map(|o| o.order_id)
        .collect();
    if open.len() > 40 {
        for chunk in open.chunks(20) {
            d.send(&spot::CancelOrdersRequest::new(
                Market::Spot,
                chunk.to_vec(),
            ))
            .expect("cancel");
        }
    }
    let open: Vec<String> = w
        .sim
        .control()
        .swap_orders(w.account)
        .into_iter()
        .filter(|o| o.state == 0 || o.state == 1)
        .map(|o| o.order_id)
        .collect();
    if open.len() > 40 {
        for chunk in open.chunks(20) {
            d.send(&swap::BatchCancelOrdersRequest::new(
                chunk.iter().map(|id| (PERP, id.clone())),
            ))
            .expect("cancel");
        }
    }
}

fn rounds() -> usize {
    std::env::var("DIGIFINEX_VERDICT_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ROUNDS)
}

fn seed() -> u64 {
    std::env::var("DIGIFINEX_VERDICT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25)
}

/// Runs the rounds with two clients of one account: `bot`, which remembers the ids it placed
/// and saw, and `fresh`, which remembers none (a new process for each write, as `digifinex
/// call` is). Each write is sent by one of them at random, so identical orders come from both:
/// for each, some were placed by "another program". Returns their tallies.
fn run<D: Driver>(who: &str, w: &World, bot: &D, fresh: &D, seed: u64) -> [Tally; 2] {
    let mut rng = Rng(seed);
    let m = market(bot);
    let mut tallies = [Tally::default(), Tally::default()];
    // The current episode: a family and the elements (price, amount or size index) of a write
    // repeated identically a few times, as a grid bot re-places its orders.
    let mut episode: Option<(bool, Vec<(usize, usize)>)> = None;
    for round in 0..rounds() {
        if round % 8 == 7 {
            tidy(w, bot);
        }
        let fresh_turn = rng.chance(50);
        let (d, tally) = if fresh_turn {
            (fresh, &mut tallies[1])
        } else {
            (bot, &mut tallies[0])
        };
        // The simulator's clock, off the sessions' estimate of it (the local clock) by up to
        // what the server accepts (1 s ahead, 5 s behind, less the up to 999 ms a spot header's
        // whole seconds drop and some latency) and within the reconciliation's 5 s.
        if rng.chance(30) {
            assert_eq!((bot.offset_ms(), fresh.offset_ms()), (0, 0));
            w.sim.control().set_clock_offset(rng.between(-900, 3_800));
        }
        let (spot_turn, picks) = match episode.take() {
            Some(e) if rng.chance(60) => e,
            _ => {
                let count = if rng.chance(30) { 2 + rng.below(2) } else { 1 };
                let spot_turn = rng.chance(50);
                let prices = if spot_turn {
                    m.spot_prices.len()
                } else {
                    m.swap_prices.len()
                };
                // A batch repeats one element at times: identical elements in one write.
                let mut picks: Vec<(usize, usize)> = Vec::new();
                for _ in 0..count {
                    let p = match picks.last() {
                        Some(last) if rng.chance(40) => *last,
                        _ => (rng.below(prices), rng.below(2)),
                    };
                    picks.push(p);
                }
                (spot_turn, picks)
            }
        };
        episode = Some((spot_turn, picks.clone()));
        let fault = match rng.below(4) {
            0 => Fault::None,
            1 => Fault::DropBefore,
            2 => Fault::DropAfter,
            _ => Fault::Late,
        };
        let policy = if rng.chance(50) {
            SnapshotPolicy::BeforeSend
        } else {
            SnapshotPolicy::Skip
        };
        let batch = picks.len() > 1;
        if spot_turn {
            let orders: Vec<LimitOrder> = picks
                .iter()
                .map(|(p, a)| {
                    LimitOrder::buy(
                        SPOT_AMOUNTS[*a].parse::<Amount>().expect("amount"),
                        Price::new(m.spot_prices[*p]),
                    )
                })
                .collect();
            let keys: Vec<Key> = orders
                .iter()
                .map(|o| (o.price().get().normalize(), o.amount().get().normalize()))
                .collect();
            if batch {
                let req = spot::BatchPlaceOrdersRequest::new(Market::Spot, PAIR, orders);
                let path = "/v3/spot/order/batch_new";
                write(w, d, &req, path, &keys, fault, policy, spot_truth, tally);
            } else {
                let req = spot::PlaceOrderRequest::new(Market::Spot, PAIR, orders[0]);
                let path = "/v3/spot/order/new";
                write(w, d, &req, path, &keys, fault, policy, spot_truth, tally);
            }
        } else {
            let orders: Vec<swap::OrderSpec> = picks
                .iter()
                .map(|(p, s)| {
                    swap::OrderSpec::limit(
                        PERP,
                        swap::OrderSide::OpenLong,
                        Size::new(Decimal::from(1 + *s as i64)),
                        Price::new(m.swap_prices[*p]),
                    )
                })
                .collect();
            let keys: Vec<Key> = picks
                .iter()
                .map(|(p, s)| (m.swap_prices[*p].normalize(), Decimal::from(1 + *s as i64)))
                .collect();
            if batch {
                let req = swap::BatchPlaceOrdersRequest::new(orders);
                let path = "/swap/v2/trade/batch_order";
                write(w, d, &req, path, &keys, fault, policy, swap_truth, tally);
            } else {
                let req = swap::PlaceOrderRequest::new(orders[0].clone());
                let path = "/swap/v2/trade/order_place";
                write(w, d, &req, path, &keys, fault, policy, swap_truth, tally);
            }
        }
    }
    w.sim.control().set_clock_offset(0);
    for (t, kind) in tallies.iter().zip(["remembering", "fresh"]) {
        println!("{} (seed {seed})", t.line(&format!("{who}, {kind} client")));
    }
    tallies
}

fn check(who: &str, tallies: &[Tally; 2]) {
    for tally in tallies {
        check_one(who, tally);
    }
}

fn check_one(who: &str, tally: &Tally) {
    assert!(
        tally.wrong.is_empty(),
        "{who}: wrong verdicts:\n{}",
        tally.wrong.join("\n")
    );
    // With a snapshot every verdict on an order is exact.
    assert_eq!(tally.verdicts[1][2], 0, "{}", tally.line(who));
    assert!(tally.unknown > 0, "{}", tally.line(who));
}

#[test]
fn verdicts_are_never_wrong_blocking_client() {
    let w = world();
    let (bot, fresh) = (ureq(&w, 4096), ureq(&w, 0));
    let tallies = run("ureq", &w, &bot, &fresh, seed());
    check("ureq", &tallies);
}

#[test]
fn verdicts_are_never_wrong_async_client() {
    let w = world();
    let (bot, fresh) = (hyper(&w, 4096), hyper(&w, 0));
    let tallies = run("hyper", &w, &bot, &fresh, seed().wrapping_add(1));
    check("hyper", &tallies);
}
