//! The synthetic order flow: other traders, so that a market moves, refills and trades by
//! itself.
//!
//! # The model
//!
//! Each pair and instrument with a [`FlowSpec`] is driven by the stochastic order book model of
//! Cont, Stoikov and Talreja (2010, "A stochastic model for order book dynamics", Operations
//! Research 58(3)), with the constant per-order cancellation of Smith, Farmer, Gillemot and
//! Krishnamurthy (2003, "Statistical theory of the continuous double auction"), as independent
//! Poisson processes on the simulator clock:
//!
//! - **Limit orders** of each side arrive at distance `i` ticks from the opposite best price
//!   (a buy at `best ask - i * tick`, a sell at `best bid + i * tick`, so they never cross) at
//!   rate `λ(i)` ([`FlowSpec::limit_rates`], by default CST's fitted power law `k / i^0.52`);
//!   an arrival inside the spread improves the best price.
//! - **Market orders** of each side arrive at rate `μ` ([`FlowSpec::market_rate`]) and walk
//!   the opposite side with price-time priority, taking the users' resting orders in their
//!   turn: a user's quote at the touch is filled by the flow as a maker.
//! - **Cancellations**: each resting order of the flow is cancelled at rate `θ`
//!   ([`FlowSpec::cancel_rate`]), whatever its distance (SFGK's rule; CST fit a mildly
//!   decreasing `θ(i)`). The users' orders are never cancelled by the flow.
//!
//! Sizes are not CST's unit orders: each order of the flow (limit or market) is the market's
//! `maker_size` times a uniform factor in `[0.2, 1.8]`, rounded down to the amount precision
//! (whole contracts on swap) and at least the minimum. The tick is
//! [`FlowSpec::tick_bps`] of the configured mid price, a multiple of the price step. The mid
//! price is not modelled: it moves because the flow depletes a best level or improves it, which
//! gives the random walk of the model (about 2 % a day with the defaults; measured by the
//! `flow` benchmark).
//!
//! The next event is drawn by the Gillespie method: the time to it is exponential with the total
//! rate `2 Σλ + 2μ + θ N` (`N` the flow's resting orders), and the event is each kind with its
//! share of the rate. The draws come from a generator per market seeded from the simulator's
//! seed and the market's name, so a market's flow is the same on every run with the same seed
//! and the same user activity; the users' orders change it only through the book they share.
//! Times are kept in microseconds; events apply in time order with a recorded market's events
//! and delayed orders ([`super::sync`]), whenever the state is read, so advancing the clock runs
//! the flow for the skipped time: its last stretch when the skipped time holds more events than
//! one step of the simulator runs ([`crate::market`], "Bounded catch-up").
//!
//! What it does not capture: volatility clustering and long memory of order flow (rates are
//! constant), informed traders and trends (the mid is a driftless random walk), order sizes
//! correlated with the book, the cross-market structure (each market moves independently; a
//! swap and the spot pair of the same coin drift apart), and the hidden or iceberg liquidity of a
//! real venue. A rate read at an event stays in force until the next one of that market, so a
//! user's order that takes the flow's liquidity changes the cancellation rate one event late.

use crate::config::{FlowSpec, MarketSpec, SimConfig, SwapInstrumentSpec};
use crate::engine::book::{Book, Side};
use crate::engine::target::Target;
use crate::num::{floor_dp, round_dp, step};
use crate::rng::{mix, Rng};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What one event of the flow asks of the market.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A limit order was added, an order cancelled, or nothing happened (a limit price that
    /// would not be positive, a full side): the book is already updated.
    Done,
    /// A market order of the flow: the caller walks the book and settles the fills.
    Market {
        /// The taker's side.
        side: Side,
        /// Its quantity.
        qty: Decimal,
        /// Swap only: the taker's order kind (1 or 4 buying, 2 or 3 selling).
        direction: i64,
    },
}

/// Rates in events per second times 2^32.
type RateQ32 = u64;

fn q32(rate: Decimal) -> RateQ32 {
    (rate.max(Decimal::ZERO) * Decimal::from(1u64 << 32))
        .trunc()
        .to_u64()
        .unwrap_or(u64::MAX / 1024)
}

/// The flow of one market.
#[derive(Debug, Clone)]
struct Market {
    target: Target,
    rng: Rng,
    tick: Decimal,
    size: Decimal,
    size_dp: u32,
    min_size: Decimal,
    limits: Vec<RateQ32>,
    limit_total: RateQ32,
    market: RateQ32,
    cancel: RateQ32,
    max_orders: usize,
    /// The next event's time (µs); `None`: stopped.
    next_us: Option<i64>,
    /// The total rate the next event was drawn with (0 when stopped).
    rate: RateQ32,
}

/// The order flow of every market that has one.
#[derive(Debug, Clone, Default)]
pub struct Flow {
    markets: Vec<Market>,
    /// (time µs, market) of each market's next event.
    heap: BinaryHeap<Reverse<(i64, usize)>>,
    /// Events applied so far.
    pub events: u64,
    /// The longest stretch run at once (ms; see [`SimConfig::flow_catch_up_ms`]).
    catch_up_ms: i64,
    /// Whether the flow is paused (the control API's pause).
    paused: bool,
}

/// The flow's tick of a spot pair: `tick_bps` of its mid price, rounded to the price step.
pub fn spot_tick(m: &MarketSpec, flow: &FlowSpec) -> Decimal {
    let t = round_dp(
        m.mid_price * flow.tick_bps / Decimal::from(10_000),
        m.price_precision,
    );
    t.max(step(m.price_precision))
}

/// The flow's tick of a swap instrument: `tick_bps` of its mid price, a multiple of the tick
/// size.
pub fn swap_tick(m: &SwapInstrumentSpec, flow: &FlowSpec) -> Decimal {
    if m.tick_size <= Decimal::ZERO {
        return step(m.price_precision);
    }
    let t = m.mid_price * flow.tick_bps / Decimal::from(10_000);
    ((t / m.tick_size).floor() * m.tick_size).max(m.tick_size)
}

impl Flow {
    /// The flow of every market of `config` that has a [`FlowSpec`] (not yet scheduled: see
    /// [`Flow::start`]).
    pub fn new(config: &SimConfig) -> Flow {
        let mut markets = Vec::new();
        let seed = |name: &str| {
            let h = name
                .bytes()
                .fold(config.seed ^ 0x666c_6f77, |a, b| mix(a ^ u64::from(b)));
            Rng::new(mix(h))
        };
        for (i, m) in config.markets.iter().enumerate() {
            if let Some(f) = &m.flow {
                let min = m.min_amount.max(step(m.amount_precision));
                markets.push(Market::new(
                    Target::Spot(i),
                    seed(&m.symbol()),
                    f,
                    spot_tick(m, f),
                    (m.maker_size, m.amount_precision, min),
                ));
            }
        }
        for (i, m) in config.swap_instruments.iter().enumerate() {
            if let Some(f) = &m.flow {
                let min = m.min_order_amount.max(Decimal::ONE);
                markets.push(Market::new(
                    Target::Swap(i),
                    seed(&m.instrument_id),
                    f,
                    swap_tick(m, f),
                    (m.maker_size, 0, min),
                ));
            }
        }
        Flow {
            markets,
            heap: BinaryHeap::new(),
            events: 0,
            catch_up_ms: config.flow_catch_up_ms.max(1),
            paused: false,
        }
    }

    /// The markets the flow drives.
    pub fn targets(&self) -> impl Iterator<Item = Target> + '_ {
        self.markets.iter().map(|m| m.target)
    }

    /// The flow's tick of `target` (`None` when the flow does not drive it).
    #[cfg(test)]
    pub fn tick(&self, target: Target) -> Option<Decimal> {
        self.markets
            .iter()
            .find(|m| m.target == target)
            .map(|m| m.tick)
    }

    /// Schedules every market's first event after `from_ms`, with the book of each as
    /// `book(target)` gives it.
    pub fn start<'a>(&mut self, from_ms: i64, book: impl Fn(Target) -> Option<&'a Book>) {
        for idx in 0..self.markets.len() {
            let target = self.markets.get(idx).map(|m| m.target);
            if let Some(b) = target.and_then(&book) {
                self.schedule(idx, b, from_ms.saturating_mul(1000));
            }
        }
    }

    /// The time (ms) of the earliest scheduled event (`None` while paused).
    pub fn next_ms(&mut self) -> Option<i64> {
        if self.paused {
            return None;
        }
        // Entries of a stopped or rescheduled market are stale: drop them from the top.
        while let Some(&Reverse((t, idx))) = self.heap.peek() {
            if self.markets.get(idx).and_then(|m| m.next_us) == Some(t) {
                return Some(t.div_euclid(1000));
            }
            self.heap.pop();
        }
        None
    }

    /// The time (ms) of the earliest scheduled event (`None` while paused), read without
    /// changing anything.
    pub fn peek_ms(&self) -> Option<i64> {
        if self.paused {
            return None;
        }
        self.markets
            .iter()
            .filter_map(|m| m.next_us)
            .min()
            .map(|t| t.div_euclid(1000))
    }

    /// When the earliest event is more than the catch-up bound behind `now_ms`, moves every
    /// market's next event to a fresh draw after `now_ms - bound`: the market stands still
    /// through the rest of the jump. The bound is the shorter of
    /// [`SimConfig::flow_catch_up_ms`] and the stretch in which the markets' current rates
    /// expect `max_events` events ([`Flow::window_ms`]).
    pub fn bound_catch_up<'a>(
        &mut self,
        now_ms: i64,
        max_events: u64,
        book: impl Fn(Target) -> Option<&'a Book>,
    ) {
        let bound = self.catch_up_ms.min(self.window_ms(max_events));
        let from = now_ms.saturating_sub(bound);
        if self.next_ms().is_some_and(|t| t < from) {
            self.restart(from, book);
        }
    }

    /// The stretch (ms, at least 1) in which the running markets' current rates expect
    /// `events` events (`i64::MAX` when nothing runs).
    pub fn window_ms(&self, events: u64) -> i64 {
        let total: u128 = self
            .markets
            .iter()
            .filter(|m| m.next_us.is_some())
            .map(|m| u128::from(m.rate))
            .sum();
        if total == 0 {
            return i64::MAX;
        }
        // `total` is events per second times 2^32.
        let ms = u128::from(events).saturating_mul(1000 << 32) / total;
        i64::try_from(ms).unwrap_or(i64::MAX).max(1)
    }

    /// Drops every event due by `now_ms` and draws each running market's next one after it:
    /// the markets stand still from their last event to `now_ms` (a step of the simulator that
    /// ran out of flow events: [`crate::market`], "Bounded catch-up").
    pub fn skip_to<'a>(&mut self, now_ms: i64, book: impl Fn(Target) -> Option<&'a Book>) {
        // From the next millisecond: an event within `now_ms` would still be due.
        self.restart(now_ms.saturating_add(1), book);
    }

    /// Draws every running market's next event afresh after `from_ms` (the model is
    /// memoryless, so this changes no rate).
    fn restart<'a>(&mut self, from_ms: i64, book: impl Fn(Target) -> Option<&'a Book>) {
        self.heap.clear();
        for idx in 0..self.markets.len() {
            let running = self
                .markets
                .get(idx)
                .and_then(|m| m.next_us.map(|_| m.target));
            if let Some(b) = running.and_then(&book) {
                self.schedule(idx, b, from_ms.saturating_mul(1000));
            }
        }
    }

    /// Pauses the flow (`true`) or resumes it from `now_ms`: while paused the markets change
    /// only through the users' orders.
    pub fn set_paused<'a>(
        &mut self,
        paused: bool,
        now_ms: i64,
        book: impl Fn(Target) -> Option<&'a Book>,
    ) {
        if self.paused && !paused {
            self.paused = false;
            self.restart(now_ms, book);
        }
        self.paused = paused;
    }

    /// Whether the flow is paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Takes the earliest event if it is due by `now_ms`: its market's index and time (µs).
    pub fn pop_due(&mut self, now_ms: i64) -> Option<(usize, i64)> {
        if self.paused {
            return None;
        }
        loop {
            let &Reverse((t, idx)) = self.heap.peek()?;
            if t.div_euclid(1000) > now_ms {
                return None;
            }
            self.heap.pop();
            // Entries of a stopped or rescheduled market are stale.
            if self.markets.get(idx).and_then(|m| m.next_us) == Some(t) {
                return Some((idx, t));
            }
        }
    }

    /// The market of event `idx`.
    pub fn target(&self, idx: usize) -> Option<Target> {
        self.markets.get(idx).map(|m| m.target)
    }

    /// Stops the flow of `target` (a recording took it over).
    pub fn stop(&mut self, target: Target) {
        for m in &mut self.markets {
            if m.target == target {
                m.next_us = None;
                m.rate = 0;
            }
        }
    }

    /// Draws event `idx`'s kind and applies it to `book` when the book alone changes (a limit
    /// order or a cancellation); a market order is handed back ([`Step::Market`]). `reference`
    /// stands in for a missing best price (the last trade, or the configured mid).
    pub fn draw(&mut self, idx: usize, book: &mut Book, reference: Decimal) -> Step {
        let Some(m) = self.markets.get_mut(idx) else {
            return Step::Done;
        };
        self.events += 1;
        let synthetic = book.synthetic_count(Side::Buy) + book.synthetic_count(Side::Sell);
        let total = m.total(synthetic);
        if total == 0 {
            return Step::Done;
        }
        let mut r = m.rng.below(total);
        // Limit orders: buys, then sells, by distance.
        for side in [Side::Buy, Side::Sell] {
            if r < m.limit_total {
                let i = m.distance(r);
                m.limit(book, side, i, reference);
                return Step::Done;
            }
            r -= m.limit_total;
        }
        for side in [Side::Buy, Side::Sell] {
            if r < m.market {
                let qty = m.size(book);
                let direction = match (side, m.rng.below(2)) {
                    (Side::Buy, 0) => 1,
                    (Side::Buy, _) => 4,
                    (Side::Sell, 0) => 2,
                    (Side::Sell, _) => 3,
                };
                let direction = match m.target {
                    Target::Spot(_) => 0,
                    Target::Swap(_) => direction,
                };
                return Step::Market {
                    side,
                    qty,
                    direction,
                };
            }
            r -= m.market;
        }
        if synthetic > 0 {
            let k = m.rng.below(u64::try_from(synthetic).unwrap_or(u64::MAX));
            book.remove_synthetic(usize::try_from(k).unwrap_or(0));
        }
        Step::Done
    }

    /// Schedules the next event of `idx` after `from_us`, with the rates `book` gives.
    pub fn schedule(&mut self, idx: usize, book: &Book, from_us: i64) {
        let Some(m) = self.markets.get_mut(idx) else {
            return;
        };
        let synthetic = book.synthetic_count(Side::Buy) + book.synthetic_count(Side::Sell);
        let total = m.total(synthetic);
        m.rate = total;
        if total == 0 {
            m.next_us = None;
            return;
        }
        // Exponential with rate `total / 2^32` per second, in µs: E * 10^6 * 2^32 / total.
        let e = m.rng.exp1_q62();
        let dt = e.saturating_mul(1_000_000) / (u128::from(total) << 30);
        let at = from_us.saturating_add(i64::try_from(dt).unwrap_or(i64::MAX / 2));
        m.next_us = Some(at);
        self.heap.push(Reverse((at, idx)));
    }

    /// The book of a market driven by the flow when the simulator starts: the stationary shape
    /// of the model around `mid` (about `λ(i) / θ` orders at each distance, at least one), the
    /// best bid and ask one tick from the mid.
    pub fn seed_book(&mut self, target: Target, mid: Decimal) -> Option<Book> {
        let m = self.markets.iter_mut().find(|m| m.target == target)?;
        let mut book = Book::default();
        let cancel = m.cancel.max(1);
        for (i, rate) in m.limits.clone().into_iter().enumerate() {
            let distance = Decimal::from(u64::try_from(i).unwrap_or(0) + 1);
            let orders = (rate / cancel).clamp(1, 64);
            for _ in 0..orders {
                let ask = mid + m.tick * distance;
                let size = m.size(&book);
                book.push(Side::Sell, ask, None, size);
                let bid = mid - m.tick * distance;
                if bid > Decimal::ZERO {
                    let size = m.size(&book);
                    book.push(Side::Buy, bid, None, size);
                }
            }
        }
        Some(book)
    }
}

impl Market {
    fn new(
        target: Target,
        rng: Rng,
        flow: &FlowSpec,
        tick: Decimal,
        (size, size_dp, min_size): (Decimal, u32, Decimal),
    ) -> Market {
        let limits: Vec<RateQ32> = flow.limit_rates.iter().map(|r| q32(*r)).collect();
        let limit_total = limits.iter().fold(0u64, |a, r| a.saturating_add(*r));
        Market {
            target,
            rng,
            tick,
            size,
            size_dp,
            min_size,
            limits,
            limit_total,
            market: q32(flow.market_rate),
            cancel: q32(flow.cancel_rate),
            max_orders: flow.max_orders,
            next_us: None,
            rate: 0,
        }
    }

    /// The total rate with `synthetic` resting orders of the flow.
    fn total(&self, synthetic: usize) -> u64 {
        let cancels = self
            .cancel
            .saturating_mul(u64::try_from(synthetic).unwrap_or(u64::MAX));
        self.limit_total
            .saturating_mul(2)
            .saturating_add(self.market.saturating_mul(2))
            .saturating_add(cancels)
    }

    /// The distance (1-based) whose share of the limit rate holds `r`.
    fn distance(&self, mut r: u64) -> usize {
        for (i, rate) in self.limits.iter().enumerate() {
            if r < *rate {
                return i + 1;
            }
            r -= rate;
        }
        self.limits.len().max(1)
    }

    /// A size of the flow: `maker_size` times a factor in [0.2, 1.8], on the amount grid.
    fn size(&mut self, _book: &Book) -> Decimal {
        let factor = Decimal::new(2, 1)
            + Decimal::new(16, 1) * Decimal::from(self.rng.below(1001)) / Decimal::from(1000);
        floor_dp(self.size * factor, self.size_dp).max(self.min_size)
    }

    /// A limit order of `side` at `distance` ticks from the opposite best price.
    fn limit(&mut self, book: &mut Book, side: Side, distance: usize, reference: Decimal) {
        if book.synthetic_count(side) >= self.max_orders {
            return;
        }
        let ticks = self.tick * Decimal::from(u64::try_from(distance).unwrap_or(1));
        let price = match side {
            Side::Buy => {
                let ask = book
                    .best_ask()
                    .or_else(|| book.best_bid().map(|b| b + self.tick))
                    .unwrap_or(reference + self.tick);
                ask - ticks
            }
            Side::Sell => {
                let bid = book
                    .best_bid()
                    .or_else(|| book.best_ask().map(|a| a - self.tick))
                    .unwrap_or(reference - self.tick);
                bid + ticks
            }
        };
        if price <= Decimal::ZERO {
            return;
        }
        let size = self.size(book);
        book.push(side, price, None, size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::default_markets;

    fn btc_flow() -> (Flow, Book) {
        let config = SimConfig {
            markets: default_markets().into_iter().take(1).collect(),
            swap_instruments: Vec::new(),
            ..SimConfig::default()
        };
        let mut flow = Flow::new(&config);
        let mid = config.markets[0].mid_price;
        let book = flow.seed_book(Target::Spot(0), mid).unwrap();
        (flow, book)
    }

    #[test]
    fn a_market_moves_refills_and_never_crosses() {
        let (mut flow, mut book) = btc_flow();
        let tick = flow.tick(Target::Spot(0)).unwrap();
        assert_eq!(tick, Decimal::from(6)); // 2 bp of 30,000
        assert_eq!(book.best_bid(), Some(Decimal::from(29_994)));
        assert_eq!(book.best_ask(), Some(Decimal::from(30_006)));
        flow.start(0, |_| Some(&book));
        let (mut markets, mut mids) = (0, std::collections::BTreeSet::new());
        let mut last_us = 0;
        for _ in 0..20_000 {
            let (idx, t) = flow.pop_due(i64::MAX).unwrap();
            assert!(t >= last_us);
            last_us = t;
            match flow.draw(idx, &mut book, Decimal::from(30_000)) {
                Step::Market { side, qty, .. } => {
                    markets += 1;
                    book.take(side, None, crate::engine::book::Demand::Quantity(qty));
                }
                Step::Done => {}
            }
            flow.schedule(idx, &book, t);
            for side in [Side::Buy, Side::Sell] {
                assert_eq!(book.synthetic_count(side), book.recount(side));
            }
            let (b, a) = (book.best_bid().unwrap(), book.best_ask().unwrap());
            assert!(b < a, "crossed at {t}: {b} / {a}");
            assert_eq!(((a - b) / tick).fract(), Decimal::ZERO);
            mids.insert(a + b);
        }
        // About 7 events a second: 20,000 take most of an hour.
        let hours = Decimal::from(last_us) / Decimal::from(3_600_000_000u64);
        assert!(
            hours > Decimal::new(6, 1) && hours < Decimal::new(12, 1),
            "{hours}"
        );
        // Market orders are 0.188 of the ~7.2 events a second.
        assert!((150..=900).contains(&markets), "{markets}");
        assert!(mids.len() > 20, "the mid moved to {} prices", mids.len());
        let resting = book.synthetic_count(Side::Buy) + book.synthetic_count(Side::Sell);
        assert!((40..=250).contains(&resting), "{resting}");
    }

    #[test]
    fn the_same_seed_gives_the_same_flow() {
        let run = || {
            let (mut flow, mut book) = btc_flow();
            flow.start(0, |_| Some(&book));
            let mut out = Vec::new();
            for _ in 0..500 {
                let (idx, t) = flow.pop_due(i64::MAX).unwrap();
                let step = flow.draw(idx, &mut book, Decimal::from(30_000));
                if let Step::Market { side, qty, .. } = &step {
                    book.take(*side, None, crate::engine::book::Demand::Quantity(*qty));
                }
                flow.schedule(idx, &book, t);
                out.push((t, step, book.best_bid(), book.best_ask()));
            }
            out
        };
        assert_eq!(run(), run());
    }
}
