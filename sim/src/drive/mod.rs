//! The drivers beside the engine: the synthetic order flow ([`flow`]) and the replay of a
//! recording ([`replay`]), and the bounded step that runs them with the latency queue and
//! funding in time order ([`step`]; the semantics are documented in [`crate::market`]).
//! They change the market only through the engine's functions.

pub(crate) mod flow;
pub(crate) mod replay;

use crate::engine::latency::Pending;
use crate::market::format::{Data, Family, ReadError, Reader, Record};
use crate::market::{FillModel, ReplayStats, LOOKAHEAD_MS};
use flow::{Flow, Step};
use replay::{Event, Names, Replay, Target};
use std::collections::HashSet;

use crate::config::{MarketSpec, SimConfig, SwapInstrumentSpec};
use crate::engine::book::Side;
use crate::engine::state::State;
use rust_decimal::Decimal;
use std::collections::{HashMap, VecDeque};

/// What drives the markets besides the users: the order flow and a recording's replay, with
/// the replay's bookkeeping of streamed books.
#[derive(Debug)]
pub(crate) struct Drivers {
    /// The order flow of the markets that have one.
    pub(crate) flow: Flow,
    replay: Option<Replay>,
    /// Markets whose book comes from websocket depth frames (version 2).
    streamed: HashSet<Target>,
    /// Streamed markets whose book is valid (a snapshot since the last resync or reconnect).
    synced: HashSet<Target>,
    /// Instruments with recorded index pushes (a mark push then leaves the index alone).
    indexed: HashSet<usize>,
    /// Depth deltas dropped (see [`ReplayStats::dropped_deltas`]).
    dropped_deltas: u64,
    /// How own orders move up their queues in replayed books.
    fill: FillModel,
}

impl Drivers {
    /// The drivers of `config`, without a replay attached.
    pub(crate) fn new(config: &SimConfig) -> Drivers {
        Drivers {
            flow: Flow::new(config),
            replay: None,
            streamed: HashSet::new(),
            synced: HashSet::new(),
            indexed: HashSet::new(),
            dropped_deltas: 0,
            fill: config.fill_model.clone(),
        }
    }

    /// Counters of the replay (`None` without one).
    /// Whether a recording is replayed, was read to its end and has no event left to apply.
    pub(crate) fn replay_finished(&self) -> bool {
        self.replay
            .as_ref()
            .is_some_and(|r| r.stats().ended && r.peek_time().is_none())
    }

    pub(crate) fn stats(&self) -> Option<ReplayStats> {
        self.replay.as_ref().map(|r| ReplayStats {
            dropped_deltas: self.dropped_deltas,
            ..r.stats()
        })
    }
}

/// Opens the recording of `config.market` (if any) and completes the configuration: pairs and
/// instruments the header describes and the configuration lacks are added (their reference
/// price from their first recorded book). Returns the configuration, the replay to attach
/// ([`attach`]) and the recording's first time.
pub fn prepare(mut config: SimConfig) -> Result<(SimConfig, Option<Prepared>), ReadError> {
    let Some(market) = config.market.clone() else {
        return Ok((config, None));
    };
    let mut reader = market.source.open()?;
    let header = reader.header().clone();
    // Read ahead (up to a minute of records) for the first prices and the first time.
    let mut prefetched = VecDeque::new();
    let mut first_t = None;
    let mut mids: HashMap<String, Decimal> = HashMap::new();
    for r in reader.by_ref() {
        let Ok(r) = r else { continue };
        let t0 = *first_t.get_or_insert(r.t);
        let (name, bids, asks) = match &r.data {
            Data::SpotBook {
                symbol, bids, asks, ..
            }
            | Data::SpotDepth {
                symbol,
                snapshot: true,
                bids,
                asks,
                ..
            } => (symbol.to_ascii_lowercase(), bids, asks),
            Data::SwapBook {
                instrument,
                bids,
                asks,
                ..
            }
            | Data::SwapDepth {
                instrument,
                snapshot: true,
                bids,
                asks,
                ..
            } => (instrument.clone(), bids, asks),
            _ => (String::new(), &Vec::new(), &Vec::new()),
        };
        let best_bid = bids.iter().map(|l| l.0).max();
        let best_ask = asks.iter().map(|l| l.0).min();
        if let (Some(b), Some(a)) = (best_bid, best_ask) {
            mids.entry(name).or_insert((a + b) / Decimal::TWO);
        }
        let late = r.t > t0.saturating_add(LOOKAHEAD_MS);
        prefetched.push_back(r);
        if late || prefetched.len() >= 10_000 {
            break;
        }
    }
    for p in &header.spot {
        if config.markets.iter().any(|m| m.symbol() == p.symbol) {
            continue;
        }
        let Some((base, quote)) = p.symbol.split_once('_') else {
            continue;
        };
        let mid = mids.get(&p.symbol).copied().unwrap_or(Decimal::ONE);
        let mut spec = MarketSpec::new(
            base,
            quote,
            crate::num::round_dp(mid, p.price_precision),
            (p.price_precision, p.amount_precision),
            (p.min_amount, p.min_value),
        );
        spec.zone = "MAIN".to_owned();
        config.markets.push(spec);
    }
    for s in &header.swap {
        if config
            .swap_instruments
            .iter()
            .any(|i| i.instrument_id == s.instrument_id)
        {
            continue;
        }
        let mid = mids.get(&s.instrument_id).copied().unwrap_or(Decimal::ONE);
        let mut spec = SwapInstrumentSpec::new(
            &s.base,
            &s.quote,
            s.contract_value,
            s.price_precision,
            crate::num::round_dp(mid, s.price_precision),
        );
        spec.instrument_id = s.instrument_id.clone();
        spec.tick_size = s.tick_size;
        spec.min_order_amount = s.min_order_amount;
        spec.funding_interval_hours = s.funding_interval_hours;
        spec.copy_trading = false;
        config.swap_instruments.push(spec);
    }
    let start_ms = first_t.or(header.created_ms);
    Ok((
        config,
        Some(Prepared {
            reader,
            prefetched,
            start_ms,
        }),
    ))
}

/// A recording opened by [`prepare`], ready to [`attach`].
#[derive(Debug)]
pub struct Prepared {
    reader: Reader,
    prefetched: VecDeque<Record>,
    /// The recording's first receive time (the header's `created_ms` when it has no record).
    pub start_ms: Option<i64>,
}

/// Attaches a prepared recording to the state: the replay starts with the next
/// [`sync`].
pub fn attach(dr: &mut Drivers, prepared: Prepared) {
    dr.replay = Some(Replay::new(prepared.reader, prepared.prefetched));
}

impl Names for State {
    fn spot(&self, symbol: &str) -> Option<usize> {
        self.spot
            .by_symbol
            .get(&symbol.to_ascii_lowercase())
            .copied()
    }

    fn swap(&self, id: &str) -> Option<usize> {
        self.swap.index(id)
    }
}

/// Brings the state up to simulator time `now`: applies, in time order, every recorded event
/// and every delayed order due by then, and the order flow's last
/// [`crate::SimConfig::flow_catch_up_ms`] (see the module docs). Cheap when nothing is due;
/// otherwise as much work as the time passed implies, however much that is (the simulator
/// itself advances in bounded steps: the module docs, "Bounded catch-up").
pub fn sync(st: &mut State, dr: &mut Drivers, now: i64) {
    let _ = step(st, dr, now, Budget::UNBOUNDED);
}

/// Order flow events one [`step`] runs by its estimate (25,000: about 6 minutes of the default
/// markets' flow, some 50 ms of a debug build); it runs at most twice as many.
pub(crate) const FLOW_EVENTS_PER_STEP: u64 = 25_000;

/// Other work one [`step`] does at most (2,500 units): a line of the recording read, a
/// recorded event applied and a delayed order executed count one each.
pub(crate) const WORK_PER_STEP: u64 = 2_500;

/// The most one [`step`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Order flow events, by the markets' rates (the flow is compressed to fit); at most twice
    /// as many run. Without `compress_flow`: exactly as many run, the rest waits for the next
    /// step.
    pub(crate) flow_events: u64,
    /// Lines of a recording read, recorded events applied and delayed orders executed.
    pub(crate) work: u64,
    /// Whether a flow longer than `flow_events` is compressed (the server's steps, so that a
    /// request is answered in bounded time however far the clock jumped) or run in full over
    /// several steps (an exchange driven by [`crate::Exchange::advance_to`]).
    pub(crate) compress_flow: bool,
}

impl Budget {
    /// What the simulator does per lock of its state: [`FLOW_EVENTS_PER_STEP`] and
    /// [`WORK_PER_STEP`].
    pub(crate) const STEP: Budget = Budget {
        flow_events: FLOW_EVENTS_PER_STEP,
        work: WORK_PER_STEP,
        compress_flow: true,
    };
    /// As much per step as [`Budget::STEP`], the flow never compressed but to
    /// [`crate::SimConfig::flow_catch_up_ms`]: what a step of `advance_to` does.
    pub(crate) const FULL: Budget = Budget {
        flow_events: FLOW_EVENTS_PER_STEP,
        work: WORK_PER_STEP,
        compress_flow: false,
    };
    /// No bound but [`crate::SimConfig::flow_catch_up_ms`] ([`sync`]).
    pub(crate) const UNBOUNDED: Budget = Budget {
        flow_events: u64::MAX,
        work: u64::MAX,
        compress_flow: true,
    };
}

/// How far a [`step`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub(crate) struct Progress {
    /// Events due by the step's time still wait (the budget ran out on a recording's events
    /// or delayed orders); everything before the first of them has happened.
    pub(crate) behind: bool,
    /// Order flow events run.
    pub(crate) flow_events: u64,
    /// Units of work done (see [`Budget::work`]).
    pub(crate) work: u64,
}

/// Brings the state towards simulator time `now` with at most `budget` of work, in time
/// order: recorded events, delayed orders and the order flow. What it compresses or leaves:
///
/// - **Order flow**: when more of it is due than `budget.flow_events` by the markets' current
///   rates ([`flow::Flow::window_ms`]), or more than `flow_catch_up_ms`, only the last such
///   stretch before `now` runs; the markets stand still before it. Should the rates have
///   risen so that twice the budget is reached, the rest of the flow due by `now` is skipped
///   ([`flow::Flow::skip_to`]). The flow never falls behind.
/// - **Recording and delayed orders**: when reading and applying them would exceed
///   `budget.work`, the step stops before the next of them and reports
///   [`Progress::behind`]; nothing later (the flow included) has happened, and the next step
///   goes on from there. Nothing of a recording or of the latency queue is skipped.
/// - **Funding**: each instrument settles at most [`crate::engine::swap::timed::MAX_FUNDING_CATCH_UP`]
///   periods at once; the later periods of a longer jump are skipped (not settled).
pub(crate) fn step(st: &mut State, dr: &mut Drivers, now: i64, budget: Budget) -> Progress {
    let mut done = Progress {
        behind: false,
        flow_events: 0,
        work: 0,
    };
    let flow_due = dr.flow.next_ms().is_some_and(|t| t <= now);
    if flow_due {
        let State { spot, swap, .. } = &mut *st;
        let events = if budget.compress_flow {
            budget.flow_events
        } else {
            u64::MAX
        };
        dr.flow.bound_catch_up(now, events, |t| match t {
            Target::Spot(m) => spot.books.get(m),
            Target::Swap(i) => swap.books.get(i),
        });
    }
    let funding_due = next_funding(st).is_some_and(|t| t <= now);
    if dr.replay.is_none() && st.latency.is_empty() && !flow_due && !funding_due {
        return done;
    }
    let flow_cap = budget.flow_events.saturating_mul(2);
    let mut work = budget.work;
    // Funding periods settled per instrument in this step (see `funding`).
    let mut settled: Vec<u32> = Vec::new();
    let mut replay = dr.replay.take();
    loop {
        // The earliest of the four sources; at the same millisecond funding comes first (it
        // settles at the prices before that instant), then a recorded event, then a delayed
        // order, then the flow.
        let recorded = match replay.as_mut().map(|r| r.next_time(&*st, &mut work)) {
            None => None,
            Some(Ok(t)) => t,
            Some(Err(replay::Cut)) => {
                done.behind = true;
                break;
            }
        };
        let sources = [
            next_funding(st),
            recorded,
            st.latency.next_time(),
            dr.flow.next_ms(),
        ];
        let Some((at, source)) = sources
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|t| (t, i)))
            .min()
        else {
            break;
        };
        if at > now {
            break;
        }
        match source {
            0 => funding(st, at, now, &mut settled),
            1 | 2 if work == 0 => {
                done.behind = true;
                break;
            }
            1 => {
                let Some(q) = replay.as_mut().and_then(|r| r.pop_due(now)) else {
                    break;
                };
                work -= 1;
                apply(st, dr, q.time, q.event);
            }
            2 => {
                let Some((at, p)) = st.latency.pop() else {
                    break;
                };
                work -= 1;
                arrive(st, p, at);
            }
            _ if !budget.compress_flow && done.flow_events >= budget.flow_events => {
                // The rest of the flow waits for the next step.
                done.behind = true;
                break;
            }
            _ if done.flow_events >= flow_cap => {
                // The rates outran the estimate: the rest of the flow due by now is skipped.
                let State { spot, swap, .. } = &mut *st;
                dr.flow.skip_to(now, |t| match t {
                    Target::Spot(m) => spot.books.get(m),
                    Target::Swap(i) => swap.books.get(i),
                });
            }
            _ => {
                let Some((idx, t_us)) = dr.flow.pop_due(now) else {
                    break;
                };
                done.flow_events += 1;
                flow_event(st, dr, idx, t_us);
            }
        }
    }
    dr.replay = replay;
    done.work = budget.work - work;
    done
}

/// The earliest next funding time of the swap instruments.
fn next_funding(st: &State) -> Option<i64> {
    st.swap.funding.iter().map(|f| f.next_time).min()
}

/// Settles the funding due at `at` (one period of each instrument due then), then the
/// copy-trading triggers and liquidations at that instant. An instrument that has settled
/// [`crate::engine::swap::timed::MAX_FUNDING_CATCH_UP`] periods in this step skips the rest due by
/// `now` unsettled, as one long jump does ([`crate::engine::swap::timed::tick`]).
fn funding(st: &mut State, at: i64, now: i64, settled: &mut Vec<u32>) {
    let n = st.swap.funding.len();
    if settled.len() < n {
        settled.resize(n, 0);
    }
    for (i, count) in settled.iter_mut().enumerate().take(n) {
        if st.swap.funding.get(i).is_none_or(|f| f.next_time > at) {
            continue;
        }
        *count += 1;
        if *count > crate::engine::swap::timed::MAX_FUNDING_CATCH_UP {
            crate::engine::swap::timed::skip_funding(st, i, now);
        } else {
            crate::engine::swap::timed::settle_one(st, i);
            if st.swap.funding.get(i).is_some_and(|f| f.next_time <= at) {
                // The schedule cannot move on (the end of time): stop it there.
                crate::engine::swap::timed::skip_funding(st, i, now.max(at));
            }
        }
    }
    crate::engine::swap::timed::after_move(st, at);
}

/// The time of the next event of the market drivers (a recorded event, a delayed order, an
/// order flow event, a funding settlement), read without changing anything: exact after a
/// step that is not behind (the recording's read-ahead is complete then).
pub(crate) fn next_event(st: &State, dr: &Drivers) -> Option<i64> {
    [
        next_funding(st),
        dr.replay.as_ref().and_then(|r| r.peek_time()),
        st.latency.next_time(),
        dr.flow.peek_ms(),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// Opens the markets at `now`: each market the order flow drives gets the model's book around
/// its configured mid price (instead of the still market's quotes and day of trades), and the
/// flow runs for `warmup_ms` before `now`, so the books and tapes start lived-in.
pub fn open(st: &mut State, dr: &mut Drivers, warmup_ms: i64, now: i64) {
    let targets: Vec<Target> = dr.flow.targets().collect();
    for target in targets {
        let mid = match target {
            Target::Spot(m) => st
                .spot
                .markets
                .get(m)
                .map(|s| crate::num::round_dp(s.mid_price, s.price_precision)),
            Target::Swap(i) => st.swap.instruments.get(i).map(|s| {
                if s.tick_size > Decimal::ZERO {
                    (s.mid_price / s.tick_size).round() * s.tick_size
                } else {
                    s.mid_price
                }
            }),
        };
        let Some(book) = mid.and_then(|mid| dr.flow.seed_book(target, mid)) else {
            continue;
        };
        let (slot, tape) = match target {
            Target::Spot(m) => (st.spot.books.get_mut(m), st.spot.tapes.get_mut(m)),
            Target::Swap(i) => (st.swap.books.get_mut(i), st.swap.tapes.get_mut(i)),
        };
        if let Some(slot) = slot {
            *slot = book;
        }
        if let Some(tape) = tape {
            tape.clear();
        }
    }
    let from = now.saturating_sub(warmup_ms.max(0));
    let State { spot, swap, .. } = st;
    dr.flow.start(from, |t| match t {
        Target::Spot(m) => spot.books.get(m),
        Target::Swap(i) => swap.books.get(i),
    });
    sync(st, dr, now);
}

/// One event of the order flow at `t_us` (µs) on market `idx` ([`flow`]).
fn flow_event(st: &mut State, dr: &mut Drivers, idx: usize, t_us: i64) {
    let Some(target) = dr.flow.target(idx) else {
        return;
    };
    let t = t_us.div_euclid(1000);
    let replayed = match target {
        Target::Spot(m) => st.spot.replayed.get(m).copied().unwrap_or(true),
        Target::Swap(i) => st.swap.replayed.get(i).copied().unwrap_or(true),
    };
    if replayed {
        dr.flow.stop(target);
        return;
    }
    if let Target::Swap(_) = target {
        // Funding due before this moment settles at the prices before it.
        crate::engine::swap::timed::tick(st, t);
    }
    let reference = match target {
        Target::Spot(m) => st.spot.last_price(m),
        Target::Swap(i) => st.swap.last_price(i),
    };
    let step = {
        let State { spot, swap, .. } = &mut *st;
        let book = match target {
            Target::Spot(m) => spot.books.get_mut(m),
            Target::Swap(i) => swap.books.get_mut(i),
        };
        match book {
            Some(b) => dr.flow.draw(idx, b, reference),
            None => return,
        }
    };
    if let Step::Market {
        side,
        qty,
        direction,
    } = step
    {
        match target {
            Target::Spot(m) => crate::engine::spot::engine::flow_take(st, m, side, qty, t),
            Target::Swap(i) => {
                crate::engine::swap::engine::flow_take(st, i, side, qty, direction, t)
            }
        }
    }
    if let Target::Swap(_) = target {
        // Liquidations and TP/SL triggers at the moved mark price.
        crate::engine::swap::timed::tick(st, t);
    }
    let State { spot, swap, .. } = st;
    let book = match target {
        Target::Spot(m) => spot.books.get(m),
        Target::Swap(i) => swap.books.get(i),
    };
    if let Some(b) = book {
        dr.flow.schedule(idx, b, t_us);
    }
}

/// A delayed order reaches the engine at `at`.
fn arrive(st: &mut State, p: Pending, at: i64) {
    match p {
        Pending::Spot(id) => {
            if st.spot.orders.get(&id).is_some_and(|o| o.is_active()) {
                crate::engine::spot::engine::execute(st, &id, at);
            }
        }
        Pending::Swap(id) => {
            crate::engine::swap::timed::tick(st, at);
            if st.swap.orders.get(&id).is_some_and(|o| o.is_active()) {
                crate::engine::swap::engine::execute(st, &id, at);
            }
        }
    }
}

/// Hands a replayed pair or instrument over to the recording on its first event: the synthetic
/// maker's quotes and trades go (own orders stay), and it is no longer topped up.
fn activate(st: &mut State, dr: &mut Drivers, target: Target) {
    let replayed = match target {
        Target::Spot(m) => st.spot.replayed.get(m).copied().unwrap_or(true),
        Target::Swap(i) => st.swap.replayed.get(i).copied().unwrap_or(true),
    };
    if !replayed {
        dr.flow.stop(target);
    }
    match target {
        Target::Spot(m) => {
            if st.spot.replayed.get(m).copied().unwrap_or(true) {
                return;
            }
            if let Some(r) = st.spot.replayed.get_mut(m) {
                *r = true;
            }
            if let Some(book) = st.spot.books.get_mut(m) {
                book.apply_snapshot(Side::Buy, &[]);
                book.apply_snapshot(Side::Sell, &[]);
            }
            if let Some(t) = st.spot.tapes.get_mut(m) {
                t.clear();
            }
        }
        Target::Swap(i) => {
            if st.swap.replayed.get(i).copied().unwrap_or(true) {
                return;
            }
            if let Some(r) = st.swap.replayed.get_mut(i) {
                *r = true;
            }
            if let Some(book) = st.swap.books.get_mut(i) {
                book.apply_snapshot(Side::Buy, &[]);
                book.apply_snapshot(Side::Sell, &[]);
            }
            if let Some(t) = st.swap.tapes.get_mut(i) {
                t.clear();
            }
            if let Some(f) = st.swap.funding.get_mut(i) {
                f.history.clear();
            }
        }
    }
}

fn apply(st: &mut State, dr: &mut Drivers, time: i64, event: Event) {
    let fill = dr.fill.clone();
    let target = match &event {
        Event::Book { target, .. }
        | Event::Trade { target, .. }
        | Event::Ticker { target, .. }
        | Event::Depth { target, .. } => *target,
        Event::Funding { inst, .. } | Event::Mark { inst, .. } | Event::Index { inst, .. } => {
            Target::Swap(*inst)
        }
        Event::Invalidate { targets, family } => {
            // Markers change no market: the books named wait for their next snapshot.
            for t in targets {
                dr.synced.remove(t);
            }
            if let Some(f) = family {
                dr.synced.retain(|t| {
                    !matches!(
                        (f, t),
                        (Family::Spot, Target::Spot(_)) | (Family::Swap, Target::Swap(_))
                    )
                });
            }
            return;
        }
    };
    activate(st, dr, target);
    if let Target::Swap(_) = target {
        // Funding due before this moment settles at the prices before it.
        crate::engine::swap::timed::tick(st, time);
    }
    match event {
        Event::Book { target, bids, asks } => {
            // A whole book: deltas that follow apply to it.
            dr.synced.insert(target);
            let fills = match target {
                Target::Spot(m) => st.spot.books.get_mut(m),
                Target::Swap(i) => st.swap.books.get_mut(i),
            }
            .map(|book| {
                book.apply_snapshot_with(Side::Buy, &bids, &fill);
                book.apply_snapshot_with(Side::Sell, &asks, &fill);
                book.uncross()
            })
            .unwrap_or_default();
            fill_own(st, target, fills, time);
        }
        Event::Trade { target, trade } => {
            let streamed = dr.streamed.contains(&target);
            let (id, tape) = match target {
                Target::Spot(m) => {
                    st.spot.next_trade_id += 1;
                    (st.spot.next_trade_id - 1, st.spot.tapes.get_mut(m))
                }
                Target::Swap(i) => {
                    st.swap.next_trade_id += 1;
                    (st.swap.next_trade_id - 1, st.swap.tapes.get_mut(i))
                }
            };
            let direction = match target {
                Target::Spot(_) => 0,
                Target::Swap(_) => trade.direction.unwrap_or(match trade.side {
                    Side::Buy => 1,
                    Side::Sell => 2,
                }),
            };
            if let Some(tape) = tape {
                tape.push(crate::engine::tape::Trade {
                    id,
                    time_ms: trade.time_ms,
                    price: trade.price,
                    qty: trade.qty,
                    side: trade.side,
                    direction,
                });
            }
            let fills = match target {
                Target::Spot(m) => st.spot.books.get_mut(m),
                Target::Swap(i) => st.swap.books.get_mut(i),
            }
            .map(|book| {
                if streamed {
                    book.streamed_trade(trade.side, trade.price, trade.qty)
                } else {
                    book.recorded_trade(trade.side, trade.price, trade.qty)
                }
            })
            .unwrap_or_default();
            fill_own(st, target, fills, time);
        }
        Event::Depth {
            target,
            snapshot,
            mut bids,
            mut asks,
        } => {
            if snapshot {
                dr.streamed.insert(target);
                dr.synced.insert(target);
            } else if !dr.synced.contains(&target) {
                dr.dropped_deltas += 1;
                return;
            }
            let fills = match target {
                Target::Spot(m) => st.spot.books.get_mut(m),
                Target::Swap(i) => st.swap.books.get_mut(i),
            }
            .map(|book| {
                if snapshot {
                    // Best first, as a snapshot is applied.
                    bids.sort_by_key(|l| std::cmp::Reverse(l.0));
                    asks.sort_by_key(|l| l.0);
                    book.apply_snapshot_with(Side::Buy, &bids, &fill);
                    book.apply_snapshot_with(Side::Sell, &asks, &fill);
                } else {
                    for (p, q) in bids {
                        book.set_recorded_with(Side::Buy, p, q, &fill);
                    }
                    for (p, q) in asks {
                        book.set_recorded_with(Side::Sell, p, q, &fill);
                    }
                }
                book.uncross()
            })
            .unwrap_or_default();
            fill_own(st, target, fills, time);
        }
        Event::Index { inst, index } => {
            dr.indexed.insert(inst);
            if let Some(x) = st.swap.indexes.get_mut(inst) {
                *x = Some(index);
            }
        }
        Event::Invalidate { .. } => {}
        Event::Ticker { target, ticker } => match target {
            Target::Spot(m) => {
                st.recorded.spot.insert(m, *ticker);
            }
            Target::Swap(i) => {
                st.recorded.swap.insert(i, *ticker);
            }
        },
        Event::Mark { inst, mark, index } => {
            if let Some(m) = st.swap.marks.get_mut(inst) {
                *m = Some(mark);
            }
            // A mark push without an index leaves a pushed index alone.
            let keep = index.is_none() && dr.indexed.contains(&inst);
            if let Some(x) = st.swap.indexes.get_mut(inst).filter(|_| !keep) {
                *x = index;
            }
            // Liquidations at the new mark price.
            crate::engine::swap::timed::tick(st, time);
        }
        Event::Funding {
            inst,
            rate,
            next_time,
            next_rate,
            last_rate,
        } => {
            let period = st
                .swap
                .instruments
                .get(inst)
                .map_or(crate::engine::swap::engine::FUNDING_PERIOD_MS, |s| {
                    s.funding_period_ms()
                });
            if let Some(f) = st.swap.funding.get_mut(inst) {
                let settled = f.history.last().map(|h| h.0);
                if settled.is_none_or(|s| next_time > s) {
                    f.rate = rate;
                    f.next_time = next_time;
                    if let Some(n) = next_rate {
                        f.next_rate = n;
                    }
                }
                // The last settlement the venue reported, one interval before the next.
                let previous = next_time.saturating_sub(period);
                if let Some(r) = last_rate {
                    if settled.is_none_or(|s| previous > s) {
                        f.history.push((previous, r));
                    }
                }
            }
            crate::engine::swap::timed::tick(st, time);
        }
    }
}

/// Settles the maker fills of own orders that a recorded event reached.
fn fill_own(st: &mut State, target: Target, fills: Vec<crate::engine::book::Fill>, time: i64) {
    for f in fills {
        let Some(id) = f.maker else { continue };
        match target {
            Target::Spot(_) => {
                crate::engine::spot::engine::fill_resting(st, &id, f.price, f.qty, time)
            }
            Target::Swap(_) => {
                crate::engine::swap::engine::fill_resting(st, &id, f.price, f.qty, time)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimConfig;

    const START: i64 = 1_800_000_000_000;
    const DAY: i64 = 86_400_000;

    fn opened(config: &SimConfig) -> (State, Drivers) {
        let mut st = State::new(config, START);
        let mut dr = Drivers::new(config);
        open(&mut st, &mut dr, config.flow_warmup_ms, START);
        (st, dr)
    }

    fn sane(book: &crate::engine::book::Book) {
        let (bid, ask) = (book.best_bid().unwrap(), book.best_ask().unwrap());
        assert!(bid < ask, "crossed: {bid} / {ask}");
    }

    /// A month's jump costs one step: the flow runs its last stretch up to the jump's end (the
    /// markets alive, their last trades just before it), within twice the step's estimate.
    #[test]
    fn a_month_long_jump_runs_a_bounded_stretch_of_flow() {
        let (mut st, mut dr) = opened(&SimConfig::default());
        let now = START + 30 * DAY;
        let done = step(&mut st, &mut dr, now, Budget::STEP);
        assert!(!done.behind);
        assert!(
            done.flow_events > FLOW_EVENTS_PER_STEP / 2
                && done.flow_events <= 2 * FLOW_EVENTS_PER_STEP,
            "{done:?}"
        );
        assert!(dr.flow.next_ms().is_some_and(|t| t > now));
        for (m, book) in st.spot.books.iter().enumerate() {
            sane(book);
            if dr.flow.tick(Target::Spot(m)).is_none() {
                continue; // a still market
            }
            let last = st.spot.tapes[m].last().unwrap().time_ms;
            assert!(last > now - 3_600_000 && last <= now, "{m}: {last}");
        }
        st.swap.books.iter().for_each(sane);
        // Nothing more is due at that instant; the flow goes on from there.
        assert_eq!(step(&mut st, &mut dr, now, Budget::STEP).flow_events, 0);
        let next = step(&mut st, &mut dr, now + 60_000, Budget::STEP);
        assert!(next.flow_events > 0 && !next.behind, "{next:?}");
    }

    /// Without a budget (`sync`), the flow still runs `flow_catch_up_ms` of a long jump.
    #[test]
    fn sync_runs_the_configured_catch_up() {
        let config = SimConfig {
            flow_catch_up_ms: 600_000,
            ..SimConfig::default()
        };
        let (mut st, mut dr) = opened(&config);
        let before = dr.flow.events;
        sync(&mut st, &mut dr, START + DAY);
        let ran = dr.flow.events - before;
        // About 65 events a second for the nine markets: ten minutes' worth.
        assert!((25_000..60_000).contains(&ran), "{ran}");
    }

    /// More delayed orders due than a step executes: the step stops behind, the next ones go
    /// on from there, and none is skipped.
    #[test]
    fn delayed_orders_beyond_a_step_wait_for_the_next() {
        let (mut st, mut dr) = opened(&SimConfig::default().without_flow());
        let n = WORK_PER_STEP * 2 + 10;
        for k in 0..n {
            let at = START + 1 + i64::try_from(k).unwrap();
            st.latency.hold(at, Pending::Spot(format!("gone-{k}")));
        }
        let now = START + DAY;
        let first = step(&mut st, &mut dr, now, Budget::STEP);
        assert!(first.behind);
        assert_eq!(first.work, WORK_PER_STEP);
        assert_eq!(
            st.latency.len(),
            usize::try_from(n - WORK_PER_STEP).unwrap()
        );
        let second = step(&mut st, &mut dr, now, Budget::STEP);
        assert!(second.behind);
        let third = step(&mut st, &mut dr, now, Budget::STEP);
        assert!(!third.behind);
        assert_eq!(third.work, 10);
        assert_eq!(st.latency.len(), 0);
    }

    /// A recording with more due than a step does is read and applied over several steps, in
    /// order, to the same end as a single unbounded catch-up.
    #[test]
    fn a_long_recording_is_caught_up_in_steps_to_the_same_end() {
        use crate::market::format::{Header, Record, Writer};
        use crate::market::MarketConfig;
        let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
        let n: i64 = 6_000;
        for s in 0..n {
            let p = Decimal::from(30_000 + s % 50);
            w.write(&Record {
                t: START + s * 1000,
                data: Data::SpotBook {
                    symbol: "btc_usdt".into(),
                    depth: Some(1),
                    bids: vec![(p - Decimal::ONE, Decimal::from(1 + s % 3))],
                    asks: vec![(p + Decimal::ONE, Decimal::from(1 + s % 5))],
                },
            })
            .unwrap();
        }
        let bytes = w.finish().unwrap();
        let state = || {
            let config = SimConfig {
                start_time_ms: Some(START),
                market: Some(MarketConfig::reader(std::io::Cursor::new(bytes.clone()))),
                ..SimConfig::default().without_flow()
            };
            let (config, prepared) = prepare(config).unwrap();
            let st = State::new(&config, START);
            let mut dr = Drivers::new(&config);
            attach(&mut dr, prepared.unwrap());
            (st, dr)
        };
        let end = START + n * 1000;
        let mut whole = state();
        sync(&mut whole.0, &mut whole.1, end);
        let mut stepped = state();
        let mut steps = 0;
        loop {
            let p = step(&mut stepped.0, &mut stepped.1, end, Budget::STEP);
            assert!(p.work <= WORK_PER_STEP, "{p:?}");
            steps += 1;
            if !p.behind {
                break;
            }
        }
        // 6,000 lines read and 6,000 books applied, 2,500 units a step.
        assert_eq!(steps, 5);
        let m = stepped.0.spot("btc_usdt").unwrap();
        let levels = |st: &State| {
            (
                st.spot.books[m].levels(Side::Buy, 5),
                st.spot.books[m].levels(Side::Sell, 5),
            )
        };
        assert_eq!(levels(&stepped.0), levels(&whole.0));
        assert_eq!(stepped.1.stats(), whole.1.stats());
        assert_eq!(
            stepped.1.stats().unwrap().applied,
            u64::try_from(n).unwrap()
        );
    }

    /// A jump of a year settles at most 100 funding periods of each instrument.
    #[test]
    fn funding_settles_at_most_a_hundred_periods_at_once() {
        let (mut st, _dr) = opened(&SimConfig::default().without_flow());
        let before: Vec<usize> = st.swap.funding.iter().map(|f| f.history.len()).collect();
        let now = START + 365 * DAY;
        crate::engine::swap::timed::tick(&mut st, now);
        for (i, f) in st.swap.funding.iter().enumerate() {
            assert_eq!(
                f.history.len() - before[i],
                crate::engine::swap::timed::MAX_FUNDING_CATCH_UP as usize
            );
            assert!(f.next_time > now);
        }
    }
}
