//! One account's state, from what the bot sends, what comes back, the private pushes and REST
//! reads: a sans-IO tracker per account and family (spot; swap).
//!
//! DigiFinex pushes carry no sequence number, spot order pushes carry neither trade id nor fee,
//! and there is no client order id. A [`Tracker`] assembles the pieces: it takes
//!
//! - the bot's writes and their answers ([`Tracker::on_answer`]: placements, batches, cancels)
//!   or their unknown outcomes ([`Tracker::on_unknown`], an [`Unknown`] rebuilt from
//!   [`crate::Error::OutcomeUnknown`]);
//! - the stream's events ([`Tracker::on_event`]: the private pushes, and the connection
//!   events that tell when pushes may have been lost);
//! - the answers to the reads it hands out ([`Tracker::next_read`], [`Tracker::feed`],
//!   [`Tracker::feed_error`]), the way [`crate::reconcile::Reconciler`] does;
//!
//! and holds the truth (open orders with their executed amounts, every fill once by trade id
//! with its fee, balances, positions), emitting each change once ([`Tracker::poll_change`],
//! [`Change`]). It never sleeps, sends or reads a clock: every input takes `now` (server time,
//! ms: the session's `now()`), and [`Tracker::next_deadline`] says when it next has a read to
//! hand out without new input.
//!
//! ```
//! use digifinex_core::track::{Change, TrackAnswer, TrackConfig, TrackRead, Tracker};
//! use digifinex_core::{spot, Family, TimestampMillis};
//!
//! let t0 = TimestampMillis(1_700_000_000_000);
//! let mut tracker = Tracker::new(Family::Spot, ["btc_usdt"], TrackConfig::default(), t0);
//! // The first resync: open orders, fills, balances.
//! while let Some(read) = tracker.next_read(t0) {
//!     let body = match &read {
//!         TrackRead::SpotOpenOrders(_) => r#"{"code":0,"data":[{"order_id":"a1",
//!             "symbol":"BTC_USDT","price":100,"amount":1,"executed_amount":0,"status":0,
//!             "type":"buy"}]}"#,
//!         TrackRead::SpotAssets(_) => r#"{"code":0,"list":[{"currency":"USDT","free":900,
//!             "total":1000}]}"#,
//!         _ => r#"{"code":0,"list":[]}"#,
//!     };
//!     tracker.feed(read.decode(body.as_bytes())?, t0);
//! }
//! assert!(matches!(tracker.poll_change(), Some(Change::Placed { order }) if order.order_id == "a1"));
//! assert!(matches!(tracker.poll_change(), Some(Change::BalanceChanged { currency, .. }) if currency == "USDT"));
//! assert!(matches!(tracker.poll_change(), Some(Change::Resynced { .. })));
//! assert!(tracker.unsure().is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What is trusted from where
//!
//! - **Orders** only move forward: an order is open, then filled or cancelled, never open
//!   again; its executed amount never decreases. Every source (a write's answer, a push, a
//!   read) is applied under that rule, so a duplicated, late or reordered push cannot undo
//!   what a newer one or a read said: a stale "open" after "cancelled", or a smaller executed
//!   amount, is ignored. An order the tracker believes open that a read of open orders does not
//!   list is read by id (its final state and executed amount).
//! - **Fills** (trade ids and fees) come only from REST: spot `mytrades`, swap
//!   `history_trades`. A push that raises an order's executed amount ([`Change::Progress`])
//!   makes the fills of its market due ([`Unsure::FillsPending`]); the tracker reads them after
//!   [`TrackConfig::fill_delay`] (a burst of pushes costs one read) and again after
//!   [`TrackConfig::fill_delay`] while the fills read fall short of the executed amount, at most
//!   [`TrackConfig::fill_retries`] times.
//! - **Balances and positions** are values, not events: a push replaces the value it names, and
//!   each resync's REST read replaces them all. A late push may show an older value until the
//!   next push or resync: balances and positions are eventually consistent, within one
//!   [`TrackConfig::resync_interval`] (or the next push of the same currency or position).
//!
//! # Fills are emitted once
//!
//! A fill is [`Change::Filled`] when its trade id is first read. The tracker remembers the last
//! [`TrackConfig::fill_memory`] trade ids (default [`DEFAULT_FILL_MEMORY`]); a forgotten one
//! leaves a floor for its market (the time of the newest forgotten fill), and a trade not
//! remembered at or before that floor is taken as already seen. Reads of fills start at the
//! newest fill seen less [`TrackConfig::overlap`], so a fill is read again only within that
//! overlap, where it is remembered. Fills before [`TrackConfig::fills_since`] (the tracker's
//! creation by default; spot fill times are whole seconds, so a fill of the creation's second
//! counts) are remembered but not emitted.
//!
//! # Server time
//!
//! Every `now` is the server's time: the session's `now()` once it has measured the clock. A
//! read's window never starts after the `now` it is handed out at (a spot window starting in
//! the server's future is refused with 20022), and the clients' reads measure the clock first
//! while the session has not (see [`TrackRead::call`]). A tracker created from a clock running
//! ahead of the server (a session that had not measured it) would date its creation in the
//! server's future. Time never runs backwards, so a `now` earlier than the latest one seen is
//! the clock's correction: the default [`TrackConfig::fills_since`] moves back by as much (and
//! never stays after a `now`), so that a fill made after the creation, even before the first
//! read, is emitted. (A correction forward cannot be told from time passing: from a clock
//! running behind, fills up to that error before the creation are emitted too. Measure the
//! clock before creating the tracker, or set `fills_since`, for an exact start.) A page of fills that comes back full is followed by a
//! read of the older ones, at most [`TrackConfig::max_fill_pages`] per resync.
//!
//! # Unsure
//!
//! [`Tracker::unsure`] lists why the state may differ from the account's ([`Unsure`]): before the
//! first resync; after the socket went down (until a resync that follows the private channels'
//! acknowledgement on a new socket: pushes between the loss and the acknowledgement exist only in
//! REST); while a write's outcome is unknown (until its reconciliation, whose
//! [`Change::Settled`] carries the [`Outcome`] per element, and the resync that follows it); while
//! fills are pending; after a failed read (the resync is tried again after
//! [`TrackConfig::retry_delay`]); after a bound was reached. The reads that settle it are handed
//! out by [`Tracker::next_read`]: a reconciliation's reads first, then a resync's.
//!
//! # Resyncs
//!
//! A resync reads, per pair or instrument, the open orders (and by id each order believed open
//! that the list lacks, and each order a reconciliation found applied), the fills since the
//! cursor, then the balances (and the swap positions). One is due at the start, after every
//! acknowledgement of private channels (every reconnect; [`TrackConfig::ack_delay`] after the
//! first of a burst), after every unknown outcome, after a
//! failed read (after [`TrackConfig::retry_delay`]), on [`Tracker::request_resync`], and every
//! [`TrackConfig::resync_interval`] (60 s by default) after the last one. Its cost per pair at the
//! default interval: spot 3 requests of weight 1 a minute (open orders, `mytrades`; `assets` once
//! for all pairs); swap `open_orders` (2) and `history_trades` (5) per instrument plus `balance`
//! and `positions` once.
//!
//! # Bounds
//!
//! Orders remembered: [`TrackConfig::order_memory`] (closed ones are forgotten first, oldest
//! first; when only open ones remain a new order is dropped and [`Unsure::Overflow`] is set).
//! Changes queued until polled: [`TrackConfig::change_capacity`] (the oldest dropped past it,
//! counted by [`Tracker::dropped_changes`]). Balances and positions: those the venue lists.
//! Unknown outcomes waiting: [`MAX_UNKNOWNS`].
//!
//! DESIGN: the spot tracker follows the spot account (`market=spot`); margin orders and
//! balances are not tracked. Swap fees name no currency (the settlement currency). A swap read
//! of open orders lists at most 100: an order beyond it that the tracker never saw stays unseen
//! until it is pushed or a later resync lists it.

mod fills;
mod model;
mod read;
mod spot;
mod swap;

pub use fills::DEFAULT_FILL_MEMORY;
pub use model::{
    Balance, Change, Fee, Fill, OrderStatus, Position, Refusal, State, TrackedOrder, Unsure,
};
pub use read::{TrackAnswer, TrackRead};

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use rust_decimal::Decimal;

use crate::error::Error;
use crate::reconcile::{Options, Outcome, Reconciler, Unknown, Verdict, Write};
use crate::types::{Family, TimestampMillis};
use crate::ws::{Channel, Event, Subscription};
use crate::{spot as sp, swap as sw};
use fills::FillMemory;

/// Most unknown outcomes waiting for their reconciliation; more are dropped (and
/// [`Unsure::Overflow`] set; the resyncs still bring the state up to date).
pub const MAX_UNKNOWNS: usize = 64;

/// Timers and bounds of a [`Tracker`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrackConfig {
    /// A resync every this long after the last one: 60 s by default.
    pub resync_interval: Duration,
    /// After a failed read, the resync is tried again after this long: 5 s.
    pub retry_delay: Duration,
    /// Fills are read this long after a push showed an execution (a burst costs one read), and
    /// again this long after a read fell short: 500 ms.
    pub fill_delay: Duration,
    /// Reads of fills after an execution before giving up until the next resync: 5.
    pub fill_retries: u32,
    /// Reads of fills start this long before the newest fill seen: 5 s.
    pub overlap: Duration,
    /// Pages of fills read per market and resync: 10.
    pub max_fill_pages: u32,
    /// Trade ids remembered: [`DEFAULT_FILL_MEMORY`].
    pub fill_memory: usize,
    /// Orders remembered (open and closed): 10,000.
    pub order_memory: usize,
    /// Changes queued until polled: 100,000.
    pub change_capacity: usize,
    /// Fills before this instant are not emitted; `None`: the tracker's creation.
    pub fills_since: Option<TimestampMillis>,
    /// The resync after a private channel's acknowledgement waits this long for the other
    /// channels' (one resync per reconnect): 200 ms.
    pub ack_delay: Duration,
    /// The reconciliation options of unknown outcomes (clock uncertainty).
    pub reconcile: Options,
}

impl Default for TrackConfig {
    fn default() -> Self {
        TrackConfig {
            resync_interval: Duration::from_secs(60),
            retry_delay: Duration::from_secs(5),
            fill_delay: Duration::from_millis(500),
            fill_retries: 5,
            overlap: Duration::from_secs(5),
            max_fill_pages: 10,
            fill_memory: DEFAULT_FILL_MEMORY,
            order_memory: 10_000,
            change_capacity: 100_000,
            fills_since: None,
            ack_delay: Duration::from_millis(200),
            reconcile: Options::default(),
        }
    }
}

impl TrackConfig {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`TrackConfig::resync_interval`].
    pub fn resync_interval(mut self, interval: Duration) -> Self {
        self.resync_interval = interval;
        self
    }

    /// Sets [`TrackConfig::retry_delay`].
    pub fn retry_delay(mut self, delay: Duration) -> Self {
        self.retry_delay = delay;
        self
    }

    /// Sets [`TrackConfig::fill_delay`].
    pub fn fill_delay(mut self, delay: Duration) -> Self {
        self.fill_delay = delay;
        self
    }

    /// Sets [`TrackConfig::fill_memory`].
    pub fn fill_memory(mut self, fills: usize) -> Self {
        self.fill_memory = fills;
        self
    }

    /// Sets [`TrackConfig::order_memory`].
    pub fn order_memory(mut self, orders: usize) -> Self {
        self.order_memory = orders;
        self
    }

    /// Sets [`TrackConfig::fills_since`].
    pub fn fills_since(mut self, since: TimestampMillis) -> Self {
        self.fills_since = Some(since);
        self
    }
}

/// The answer of a write, for [`Tracker::on_answer`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// Of `spot.order_new`.
    SpotPlaced(sp::PlacedOrder),
    /// Of `spot.order_batch_new`.
    SpotBatchPlaced(sp::PlacedOrders),
    /// Of `spot.order_cancel`.
    SpotCancelled(sp::CancelResult),
    /// Of `swap.order_place`.
    SwapPlaced(sw::PlacedOrder),
    /// Of `swap.batch_order`.
    SwapBatchPlaced(sw::OrderIds),
    /// Of `swap.cancel_order`.
    SwapCancelled(sw::CancelledOrder),
    /// Of `swap.batch_cancel_order`.
    SwapBatchCancelled(sw::OrderIds),
}

/// What one source says about an order.
#[derive(Debug, Clone)]
pub(crate) struct OrderObs {
    pub(crate) id: String,
    pub(crate) market: Option<String>,
    pub(crate) side: Option<String>,
    pub(crate) price: Option<Decimal>,
    pub(crate) amount: Option<Decimal>,
    pub(crate) filled: Option<Decimal>,
    pub(crate) status: Option<OrderStatus>,
}

/// A fill read over REST.
#[derive(Debug, Clone)]
pub(crate) struct TradeObs {
    pub(crate) fill: Fill,
    pub(crate) fee: Option<model::Fee>,
}

/// A read with the market it concerns.
#[derive(Debug, Clone)]
struct Planned {
    read: TrackRead,
    market: String,
}

/// A resync (full) or a read of fills only, under way.
#[derive(Debug)]
struct Run {
    full: bool,
    queue: VecDeque<Planned>,
    reads: u32,
    gap_epoch: u64,
    pages: BTreeMap<String, u32>,
}

/// Fills due for a market.
#[derive(Debug, Clone, Copy)]
struct Due {
    at: i64,
    tries: u32,
}

/// The account state of one family (see the module documentation).
#[derive(Debug)]
pub struct Tracker {
    family: Family,
    markets: Vec<String>,
    config: TrackConfig,
    fills_since: i64,
    orders: BTreeMap<String, TrackedOrder>,
    /// Executed amount of orders first seen by the first resync (fills before the tracker).
    baseline: BTreeMap<String, Decimal>,
    closed: VecDeque<String>,
    fills: FillMemory,
    cursors: BTreeMap<String, i64>,
    balances: BTreeMap<String, Balance>,
    positions: BTreeMap<(String, String), Position>,
    changes: VecDeque<Change>,
    dropped: u64,
    unsure: BTreeSet<Unsure>,
    pending: Option<Planned>,
    run: Option<Run>,
    reconciler: Option<Reconciler>,
    unknowns: VecDeque<Unknown>,
    check: BTreeMap<String, BTreeSet<String>>,
    fills_due: BTreeMap<String, Due>,
    last_resync: Option<TimestampMillis>,
    retry_at: Option<i64>,
    resync_requested: bool,
    gap_epoch: u64,
    awaiting_subscribe: bool,
    ack_at: Option<i64>,
    refused: Option<Refusal>,
    /// The latest `now` seen (a `now` before it is a clock correction).
    last_now: i64,
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Tracker {
    /// A tracker of `family` over `markets` (spot pairs `btc_usdt`, swap instruments
    /// `BTCUSDTPERP`; compared without case), created at `now` (server time).
    pub fn new<I, S>(family: Family, markets: I, config: TrackConfig, now: TimestampMillis) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut list: Vec<String> = markets
            .into_iter()
            .map(|m| match family {
                Family::Spot => spot::market(m.as_ref()),
                _ => swap::market(m.as_ref()),
            })
            .filter(|m| !m.is_empty())
            .collect();
        list.sort();
        list.dedup();
        let fills_since = config.fills_since.unwrap_or(now).0;
        Tracker {
            family,
            markets: list,
            fills: FillMemory::new(config.fill_memory),
            config,
            fills_since,
            orders: BTreeMap::new(),
            baseline: BTreeMap::new(),
            closed: VecDeque::new(),
            cursors: BTreeMap::new(),
            balances: BTreeMap::new(),
            positions: BTreeMap::new(),
            changes: VecDeque::new(),
            dropped: 0,
            unsure: BTreeSet::from([Unsure::Starting]),
            pending: None,
            run: None,
            reconciler: None,
            unknowns: VecDeque::new(),
            check: BTreeMap::new(),
            fills_due: BTreeMap::new(),
            last_resync: None,
            retry_at: None,
            resync_requested: false,
            gap_epoch: 0,
            awaiting_subscribe: false,
            ack_at: None,
            refused: None,
            last_now: now.0,
        }
    }

    /// The family tracked.
    pub fn family(&self) -> Family {
        self.family
    }

    /// The pairs or instruments tracked (normalized: spot lower case, swap upper case).
    pub fn markets(&self) -> &[String] {
        &self.markets
    }

    /// The private subscriptions that feed this tracker: spot `order` per pair and `balance`
    /// (every currency); swap `order`, `account` and `position` (every instrument).
    pub fn subscriptions(&self) -> Vec<Subscription> {
        let channels: Vec<(Channel, Option<&str>)> = match self.family {
            Family::Spot => self
                .markets
                .iter()
                .map(|m| (Channel::Order, Some(m.as_str())))
                .chain([(Channel::Balance, None)])
                .collect(),
            _ => vec![
                (Channel::Order, None),
                (Channel::Account, None),
                (Channel::Position, None),
            ],
        };
        channels
            .into_iter()
            .filter_map(|(channel, target)| Subscription::new(self.family, channel, target).ok())
            .collect()
    }

    fn norm(&self, market: &str) -> String {
        match self.family {
            Family::Spot => spot::market(market),
            _ => swap::market(market),
        }
    }

    fn in_scope(&self, market: &str) -> bool {
        self.markets.iter().any(|m| m == market)
    }

    // -----------------------------------------------------------------------------------------
    // Inputs

    /// Takes the answer to a write the bot sent (`write` and `answer` of the same endpoint;
    /// another pair is ignored and `false` returned): the orders it placed become known
    /// ([`Change::Placed`]), those it cancelled cancelled.
    pub fn on_answer(&mut self, write: &Write, answer: &Answer, now: TimestampMillis) -> bool {
        let _ = now;
        let mut obs = Vec::new();
        match (write, answer) {
            (Write::SpotOrder(r), Answer::SpotPlaced(a)) => {
                if r.market() != sp::Market::Spot {
                    return false;
                }
                obs.push(spot::placed(r.symbol(), r.order(), &a.order_id));
            }
            (Write::SpotBatch(r), Answer::SpotBatchPlaced(a)) => {
                if r.market != sp::Market::Spot {
                    return false;
                }
                for (o, id) in r.orders().iter().zip(&a.order_ids) {
                    obs.push(spot::placed(&r.symbol, o, id));
                }
            }
            (Write::SpotCancel(_), Answer::SpotCancelled(a)) => {
                for id in &a.success {
                    obs.push(cancelled(id));
                }
            }
            (Write::SwapOrder(r), Answer::SwapPlaced(a)) => {
                obs.push(swap::placed(r.order(), &a.order_id));
            }
            (Write::SwapBatch(r), Answer::SwapBatchPlaced(a)) => {
                for (o, item) in r.orders.items().iter().zip(&a.0) {
                    if let Some(id) = item.id() {
                        obs.push(swap::placed(o, id));
                    }
                }
            }
            (Write::SwapCancel(r), Answer::SwapCancelled(a)) => {
                let _ = r;
                obs.push(cancelled(&a.order_id));
            }
            (Write::SwapBatchCancel(_), Answer::SwapBatchCancelled(a)) => {
                for id in a.ids() {
                    obs.push(cancelled(id));
                }
            }
            _ => return false,
        }
        for o in obs {
            self.observe_order(o, now);
        }
        true
    }

    /// Takes a write whose outcome is unknown: its reconciliation's reads come first from
    /// [`Tracker::next_read`], then a resync. At most [`MAX_UNKNOWNS`] wait.
    pub fn on_unknown(&mut self, unknown: Unknown, now: TimestampMillis) {
        let _ = now;
        if self.unknowns.len() >= MAX_UNKNOWNS {
            self.unsure.insert(Unsure::Overflow);
            self.resync_requested = true;
            return;
        }
        self.unknowns.push_back(unknown);
        self.refresh_unknown();
    }

    /// Takes a stream event: private pushes of this family are applied; a disconnection of its
    /// socket makes the tracker unsure ([`Unsure::Gap`]); the acknowledgement of a private
    /// channel requests a resync [`TrackConfig::ack_delay`] later (the acknowledgements of one
    /// connection share it), and so does a recycled socket's switch ([`Event::Switched`]).
    /// Other events are ignored. The tracker is the only part that follows the account: the
    /// stream reads nothing over REST.
    pub fn on_event(&mut self, event: &Event, now: TimestampMillis) {
        match (self.family, event) {
            (Family::Spot, Event::SpotOrders { orders }) => {
                for o in orders {
                    self.observe_order(spot::push_order(o), now);
                }
            }
            (Family::Spot, Event::SpotBalances { balances }) => {
                for b in balances {
                    self.set_balance(spot::push_balance(b));
                }
            }
            (Family::Swap, Event::SwapOrders { orders }) => {
                for o in orders {
                    self.observe_order(swap::push_order(o), now);
                }
            }
            (Family::Swap, Event::SwapAccounts { accounts }) => {
                for a in accounts {
                    self.set_balance(swap::push_balance(a));
                }
            }
            (Family::Swap, Event::SwapPositions { positions }) => {
                for p in positions.iter().filter_map(swap::push_position) {
                    if self.in_scope(&p.instrument_id) {
                        self.set_position(p);
                    }
                }
            }
            (family, Event::Disconnected { family: f, .. }) if *f == family => {
                self.unsure.insert(Unsure::Gap);
                self.gap_epoch = self.gap_epoch.saturating_add(1);
                self.awaiting_subscribe = true;
            }
            (family, Event::Subscribed { subscriptions })
                if subscriptions
                    .iter()
                    .any(|s| s.family == family && s.channel.is_private()) =>
            {
                self.awaiting_subscribe = false;
                self.ack_at = Some(now.0.saturating_add(ms(self.config.ack_delay)));
            }
            // A recycled socket: its replacement's private pushes before the switch were not
            // reported (the old socket's were); a resync covers the seam.
            (family, Event::Switched { family: f, .. }) if *f == family => {
                self.ack_at = Some(now.0.saturating_add(ms(self.config.ack_delay)));
            }
            _ => {}
        }
    }

    /// The last read the venue refused because of the key (a wrong key or secret, a missing
    /// permission, an IP outside the whitelist, an expired key), until a resync completes: the
    /// tracker keeps retrying (after [`TrackConfig::retry_delay`]), but a program that cannot go
    /// on without the account's state may stop here, naming it.
    pub fn refused(&self) -> Option<&Refusal> {
        self.refused.as_ref()
    }

    /// Asks for a resync now (it starts at the next [`Tracker::next_read`] when none is under
    /// way).
    pub fn request_resync(&mut self) {
        self.resync_requested = true;
        self.retry_at = None;
    }

    // -----------------------------------------------------------------------------------------
    // Reads

    /// Whether a resync is due at `now` (none under way; the first, a requested one, a retry
    /// after [`TrackConfig::retry_delay`], or [`TrackConfig::resync_interval`] after the last).
    pub fn resync_due(&self, now: TimestampMillis) -> bool {
        if self.run.as_ref().is_some_and(|r| r.full) {
            return false;
        }
        if self.ack_at.is_some_and(|at| now.0 >= at) {
            return true;
        }
        if let Some(at) = self.retry_at {
            return now.0 >= at;
        }
        match self.last_resync {
            None => true,
            Some(_) if self.resync_requested => true,
            Some(last) => now.0 >= last.0.saturating_add(ms(self.config.resync_interval)),
        }
    }

    /// The next instant (server time) at which [`Tracker::next_read`] has a read to hand out
    /// without new input: the next periodic resync, a retry, fills due. `None` when a read is
    /// due now or under way (call [`Tracker::next_read`]).
    pub fn next_deadline(&self) -> Option<TimestampMillis> {
        if self.pending.is_some()
            || self.run.is_some()
            || self.reconciler.is_some()
            || !self.unknowns.is_empty()
        {
            return None;
        }
        let periodic = match (self.retry_at, self.last_resync) {
            (Some(at), _) => at,
            (None, None) => return None,
            (None, Some(_)) if self.resync_requested => return None,
            (None, Some(last)) => last.0.saturating_add(ms(self.config.resync_interval)),
        };
        let soonest = self
            .fills_due
            .values()
            .map(|d| d.at)
            .chain(self.ack_at)
            .fold(periodic, i64::min);
        Some(TimestampMillis(soonest))
    }

    /// The next read to perform at `now`, `None` when nothing is due (see
    /// [`Tracker::next_deadline`]). Answer it with [`Tracker::feed`] or
    /// [`Tracker::feed_error`] before asking again (asked again, it hands out the same read).
    pub fn next_read(&mut self, now: TimestampMillis) -> Option<TrackRead> {
        self.server_now(now);
        if let Some(p) = &self.pending {
            return Some(p.read.clone());
        }
        // Bounded: each pass either hands out a read or ends a reconciliation, a run or a
        // queue entry, or starts a run (at most one per pass that then hands out or ends).
        for _ in 0..(MAX_UNKNOWNS.saturating_mul(2).saturating_add(8)) {
            if let Some(r) = self.reconciler.as_mut() {
                match r.next_read() {
                    Some(read) => {
                        let market = String::new();
                        self.pending = Some(Planned {
                            read: TrackRead::Reconcile(read),
                            market,
                        });
                        return self.pending.as_ref().map(|p| p.read.clone());
                    }
                    None => {
                        self.settle(now);
                        continue;
                    }
                }
            }
            if let Some(u) = self.unknowns.pop_front() {
                self.reconciler = Some(Reconciler::new(u, self.config.reconcile.clone()));
                continue;
            }
            if let Some(run) = self.run.as_mut() {
                match run.queue.pop_front() {
                    Some(p) => {
                        run.reads = run.reads.saturating_add(1);
                        // A fills read planned earlier gets its window from the time now.
                        let p = self.rewindow(p, now);
                        self.pending = Some(p);
                        return self.pending.as_ref().map(|p| p.read.clone());
                    }
                    None => {
                        self.finish_run(now);
                        continue;
                    }
                }
            }
            if self.resync_due(now) {
                self.start_run(true, now);
                continue;
            }
            let due: Vec<String> = self
                .fills_due
                .iter()
                .filter(|(_, d)| d.at <= now.0)
                .map(|(m, _)| m.clone())
                .collect();
            if !due.is_empty() {
                let mut run = Run {
                    full: false,
                    queue: VecDeque::new(),
                    reads: 0,
                    gap_epoch: self.gap_epoch,
                    pages: BTreeMap::new(),
                };
                for m in due {
                    if let Some(p) = self.trades_read(&m, None, now) {
                        run.queue.push_back(p);
                    }
                }
                self.run = Some(run);
                continue;
            }
            return None;
        }
        None
    }

    /// A `now` earlier than the latest: the clock was corrected back, and the default start of
    /// the fills, dated by the uncorrected clock, moves back as much (see "Server time" in the
    /// module docs).
    fn server_now(&mut self, now: TimestampMillis) {
        if self.config.fills_since.is_none() {
            let back = self.last_now.saturating_sub(now.0).max(0);
            self.fills_since = self.fills_since.saturating_sub(back).min(now.0);
        }
        self.last_now = now.0;
    }

    fn start_run(&mut self, full: bool, now: TimestampMillis) {
        self.resync_requested = false;
        self.retry_at = None;
        self.ack_at = None;
        let mut queue = VecDeque::new();
        for m in self.markets.clone() {
            let read = match self.family {
                Family::Spot => TrackRead::SpotOpenOrders(spot::open_read(&m)),
                _ => TrackRead::SwapOpenOrders(swap::open_read(&m)),
            };
            queue.push_back(Planned {
                read,
                market: m.clone(),
            });
            if let Some(p) = self.trades_read(&m, None, now) {
                queue.push_back(p);
            }
        }
        match self.family {
            Family::Spot => queue.push_back(Planned {
                read: TrackRead::SpotAssets(sp::SpotAssetsRequest::new()),
                market: String::new(),
            }),
            _ => {
                queue.push_back(Planned {
                    read: TrackRead::SwapBalances(sw::BalanceRequest::new()),
                    market: String::new(),
                });
                queue.push_back(Planned {
                    read: TrackRead::SwapPositions(sw::PositionsRequest::new()),
                    market: String::new(),
                });
            }
        }
        self.run = Some(Run {
            full,
            queue,
            reads: 0,
            gap_epoch: self.gap_epoch,
            pages: BTreeMap::new(),
        });
    }

    /// The read of the fills of `market` from its cursor (less the overlap) up to `end`,
    /// starting no later than `now`.
    fn trades_read(&self, market: &str, end: Option<i64>, now: TimestampMillis) -> Option<Planned> {
        let overlap = ms(self.config.overlap);
        let newest = self.cursors.get(market).copied().unwrap_or(i64::MIN);
        let from = newest.max(self.fills_since).saturating_sub(overlap);
        // Spot refuses a window starting more than 30 days back, or after its now (20022).
        let oldest = now.0.saturating_sub(29 * 24 * 3600 * 1000);
        let from = from.max(oldest).min(now.0);
        let read = match self.family {
            Family::Spot => TrackRead::SpotTrades(spot::trades_read(market, from, end)),
            _ => TrackRead::SwapTrades(swap::trades_read(market, from, end)),
        };
        Some(Planned {
            read,
            market: market.to_owned(),
        })
    }

    /// A planned fills read with its window computed at `now` (planned at the start of a
    /// resync, it is handed out after the reads before it, when the time may have been
    /// measured).
    fn rewindow(&self, p: Planned, now: TimestampMillis) -> Planned {
        let end = match &p.read {
            TrackRead::SpotTrades(r) => r.end_time.map(|t| t.as_millis()),
            TrackRead::SwapTrades(r) => r.end_timestamp.map(|t| t.0),
            _ => return p,
        };
        self.trades_read(&p.market, end, now).unwrap_or(p)
    }

    fn finish_run(&mut self, now: TimestampMillis) {
        let Some(run) = self.run.take() else {
            return;
        };
        if run.full {
            self.refused = None;
            self.last_resync = Some(now);
            self.unsure.remove(&Unsure::Starting);
            self.unsure.remove(&Unsure::ReadFailed);
            self.unsure.remove(&Unsure::Overflow);
            if run.gap_epoch == self.gap_epoch && !self.awaiting_subscribe {
                self.unsure.remove(&Unsure::Gap);
            }
            self.push_change(Change::Resynced {
                at: now,
                reads: run.reads,
            });
        }
    }

    /// Takes the answer to the last read handed out. An answer of another kind than the read
    /// is ignored.
    pub fn feed(&mut self, answer: TrackAnswer, now: TimestampMillis) {
        self.server_now(now);
        let Some(p) = self.pending.take() else {
            return;
        };
        let market = p.market;
        match (p.read, answer) {
            (TrackRead::Reconcile(_), TrackAnswer::Reconcile(e)) => {
                if let Some(r) = self.reconciler.as_mut() {
                    r.feed(e);
                }
            }
            (TrackRead::SpotOpenOrders(_), TrackAnswer::SpotOpenOrders(list)) => {
                let obs: Vec<OrderObs> = list.data.iter().map(spot::rest_order).collect();
                self.open_listed(&market, obs, now);
            }
            (TrackRead::SwapOpenOrders(_), TrackAnswer::SwapOpenOrders(list)) => {
                let obs: Vec<OrderObs> = list.iter().map(swap::rest_order).collect();
                self.open_listed(&market, obs, now);
            }
            (TrackRead::SpotOrders(_), TrackAnswer::SpotOrders(list)) => {
                for o in &list.data {
                    let mut obs = spot::rest_order(o);
                    obs.market.get_or_insert_with(|| market.clone());
                    self.observe_order(obs, now);
                }
            }
            (TrackRead::SwapOrder(_), TrackAnswer::SwapOrder(o)) => {
                let mut obs = swap::rest_order(&o);
                obs.market.get_or_insert_with(|| market.clone());
                self.observe_order(obs, now);
            }
            (TrackRead::SpotTrades(_), TrackAnswer::SpotTrades(list)) => {
                let trades: Vec<TradeObs> = list
                    .list
                    .iter()
                    .map(|t| spot::rest_trade(t, &market))
                    .collect();
                self.trades_listed(&market, trades, spot::TRADES_PAGE, now);
            }
            (TrackRead::SwapTrades(_), TrackAnswer::SwapTrades(list)) => {
                let trades: Vec<TradeObs> =
                    list.iter().map(|t| swap::rest_trade(t, &market)).collect();
                self.trades_listed(&market, trades, swap::PAGE, now);
            }
            (TrackRead::SpotAssets(_), TrackAnswer::SpotAssets(a)) => {
                let all: Vec<Balance> = a.list.iter().map(spot::rest_balance).collect();
                self.replace_balances(all);
            }
            (TrackRead::SwapBalances(_), TrackAnswer::SwapBalances(b)) => {
                let all: Vec<Balance> = b.iter().map(swap::rest_balance).collect();
                self.replace_balances(all);
            }
            (TrackRead::SwapPositions(_), TrackAnswer::SwapPositions(p)) => {
                let all: Vec<Position> = p
                    .iter()
                    .filter_map(swap::rest_position)
                    .filter(|p| self.in_scope(&p.instrument_id))
                    .collect();
                self.replace_positions(all);
            }
            _ => {}
        }
    }

    /// Takes the failure of the last read handed out. A reconciliation's by-id read refused by
    /// the venue is evidence (see [`Reconciler::feed_error`]); an order read by id that the
    /// venue does not know is skipped; any other failure abandons the resync (tried again after
    /// [`TrackConfig::retry_delay`]) or the reconciliation ([`Change::Unsettled`]).
    pub fn feed_error(&mut self, error: Error, now: TimestampMillis) {
        self.server_now(now);
        let Some(p) = self.pending.take() else {
            return;
        };
        match p.read {
            TrackRead::Reconcile(_) => {
                let Some(r) = self.reconciler.as_mut() else {
                    return;
                };
                if let Err(e) = r.feed_error(error) {
                    let endpoint = r.unknown().write.endpoint().to_owned();
                    self.reconciler = None;
                    self.refresh_unknown();
                    self.resync_requested = true;
                    self.push_change(Change::Unsettled {
                        endpoint,
                        error: e.to_string(),
                    });
                }
            }
            TrackRead::SpotOrders(_) | TrackRead::SwapOrder(_)
                if matches!(error, Error::Api(_)) => {}
            read => {
                if let (Error::Api(a), crate::ErrorKind::Auth) = (&error, error.kind()) {
                    let code = a.code.code();
                    self.refused = Some(Refusal {
                        endpoint: read.endpoint(),
                        code,
                        permission: matches!(code, 10006 | 400005),
                        message: error.to_string(),
                    });
                }
                self.run = None;
                self.retry_at = Some(now.0.saturating_add(ms(self.config.retry_delay)));
                self.unsure.insert(Unsure::ReadFailed);
                self.push_change(Change::ReadFailed {
                    endpoint: read.endpoint().to_owned(),
                    error: error.to_string(),
                });
            }
        }
    }

    /// Ends the reconciliation under way: [`Change::Settled`], the ids it found applied read
    /// by the next resync, which it requests.
    fn settle(&mut self, now: TimestampMillis) {
        let Some(r) = self.reconciler.take() else {
            return;
        };
        let outcome: Outcome = r.verdict(now);
        let market = match &r.unknown().write {
            Write::SpotOrder(w) => Some(self.norm(w.symbol())),
            Write::SpotBatch(w) => Some(self.norm(&w.symbol)),
            Write::SwapOrder(w) => Some(self.norm(w.order().instrument_id())),
            Write::SwapBatch(w) => w
                .orders
                .items()
                .first()
                .map(|o| self.norm(o.instrument_id())),
            _ => None,
        };
        if let Some(m) = market.filter(|m| self.in_scope(m)) {
            for v in &outcome.verdicts {
                if let Verdict::Applied { id: Some(id), .. } = v {
                    let ids = self.check.entry(m.clone()).or_default();
                    if ids.len() < 1000 {
                        ids.insert(id.clone());
                    }
                }
            }
        }
        self.refresh_unknown();
        self.resync_requested = true;
        self.push_change(Change::Settled {
            endpoint: outcome.endpoint.to_owned(),
            verdicts: outcome.verdicts.iter().map(|v| v.to_string()).collect(),
            outcome,
        });
    }

    fn refresh_unknown(&mut self) {
        self.unsure.retain(|u| !matches!(u, Unsure::Unknown { .. }));
        let active = self.reconciler.as_ref().map(|r| r.unknown());
        for u in active.into_iter().chain(self.unknowns.iter()) {
            self.unsure.insert(Unsure::Unknown {
                endpoint: u.write.endpoint().to_owned(),
            });
        }
    }

    // -----------------------------------------------------------------------------------------
    // Applying what a source says

    /// The open orders of `market` as read: each applied; the orders believed open that are not
    /// listed (and those a reconciliation found) are read by id next.
    fn open_listed(&mut self, market: &str, obs: Vec<OrderObs>, now: TimestampMillis) {
        let mut listed = BTreeSet::new();
        for mut o in obs {
            o.market.get_or_insert_with(|| market.to_owned());
            if o.market.as_deref() != Some(market) {
                continue;
            }
            listed.insert(o.id.clone());
            self.observe_order(o, now);
        }
        let mut ids: BTreeSet<String> = self
            .orders
            .values()
            .filter(|o| o.market == market && o.status == OrderStatus::Open)
            .filter(|o| !listed.contains(&o.order_id))
            .map(|o| o.order_id.clone())
            .collect();
        if let Some(extra) = self.check.remove(market) {
            ids.extend(extra.into_iter().filter(|id| !listed.contains(id)));
        }
        let ids: Vec<String> = ids.into_iter().collect();
        let mut reads = Vec::new();
        match self.family {
            Family::Spot => {
                for chunk in ids.chunks(spot::BY_ID) {
                    reads.push(TrackRead::SpotOrders(sp::OrdersRequest::new(
                        sp::Market::Spot,
                        chunk.to_vec(),
                    )));
                }
            }
            _ => {
                for id in ids {
                    reads.push(TrackRead::SwapOrder(
                        sw::OrderInfoRequest::new(id).instrument_id(market),
                    ));
                }
            }
        }
        if let Some(run) = self.run.as_mut() {
            for read in reads.into_iter().rev() {
                run.queue.push_front(Planned {
                    read,
                    market: market.to_owned(),
                });
            }
        }
    }

    /// A page of fills of `market`: each new one emitted; a full page is followed by the
    /// older ones; the fills due of the market are settled when nothing is missing.
    fn trades_listed(
        &mut self,
        market: &str,
        trades: Vec<TradeObs>,
        page: u32,
        now: TimestampMillis,
    ) {
        let full = trades.len() >= usize::try_from(page).unwrap_or(usize::MAX);
        let oldest = trades.iter().filter_map(|t| t.fill.time).map(|t| t.0).min();
        for t in trades {
            self.observe_trade(t, now);
        }
        let max_pages = self.config.max_fill_pages;
        if full {
            let next = match (self.run.as_mut(), oldest) {
                (Some(run), Some(oldest)) => {
                    let pages = run.pages.entry(market.to_owned()).or_insert(1);
                    if *pages < max_pages {
                        *pages = pages.saturating_add(1);
                        Some(oldest)
                    } else {
                        None
                    }
                }
                _ => None,
            };
            match next.and_then(|end| self.trades_read(market, Some(end), now)) {
                Some(p) => {
                    if let Some(run) = self.run.as_mut() {
                        run.queue.push_front(p);
                    }
                    return;
                }
                None => {
                    self.unsure.insert(Unsure::FillsPending {
                        market: market.to_owned(),
                    });
                    return;
                }
            }
        }
        let short = self.orders.values().any(|o| {
            o.market == market && {
                let base = self.baseline.get(&o.order_id).copied().unwrap_or_default();
                o.traded.checked_add(base).is_some_and(|t| t < o.filled)
            }
        });
        let due = self.fills_due.get(market).copied();
        match (short, due) {
            (true, Some(d)) if d.tries.saturating_add(1) < self.config.fill_retries => {
                self.fills_due.insert(
                    market.to_owned(),
                    Due {
                        at: now.0.saturating_add(ms(self.config.fill_delay)),
                        tries: d.tries.saturating_add(1),
                    },
                );
            }
            _ => {
                self.fills_due.remove(market);
                self.unsure.remove(&Unsure::FillsPending {
                    market: market.to_owned(),
                });
            }
        }
    }

    fn observe_trade(&mut self, t: TradeObs, now: TimestampMillis) {
        let market = self.norm(&t.fill.market);
        if !self.in_scope(&market) {
            return;
        }
        let id = t.fill.trade_id.clone();
        let time = t.fill.time.map(|x| x.0);
        if self.fills.seen(&market, &id, time) {
            return;
        }
        self.fills.insert(&market, &id, time);
        if let Some(t) = time {
            let c = self.cursors.entry(market.clone()).or_insert(t);
            *c = (*c).max(t);
        }
        // A spot time is the start of its second: the fill may be up to 999 ms later.
        let latest = match (self.family, time) {
            (Family::Spot, Some(t)) => Some(t.saturating_add(999)),
            (_, t) => t,
        };
        if latest.is_some_and(|t| t < self.fills_since) {
            return;
        }
        if let (Some(oid), Some(amount)) = (t.fill.order_id.as_deref(), t.fill.amount) {
            if let Some(o) = self.orders.get_mut(oid) {
                o.traded = o.traded.checked_add(amount).unwrap_or(o.traded);
            }
            // Without a baseline (fills before the tracker), the fills read are all of the
            // order's: their sum is a lower bound of its executed amount.
            let traded = self.orders.get(oid).map(|o| o.traded);
            if let Some(traded) = traded.filter(|_| !self.baseline.contains_key(oid)) {
                self.raise_filled(oid, traded, true, now);
            }
        }
        self.push_change(Change::Filled {
            trade: Fill { market, ..t.fill },
            fee: t.fee,
        });
    }

    /// Applies what a source (an answer, a push, a read) says about an order.
    fn observe_order(&mut self, o: OrderObs, now: TimestampMillis) {
        let known_market = self.orders.get(&o.id).map(|x| x.market.clone());
        let market = match (known_market, &o.market) {
            (Some(m), _) => m,
            (None, Some(m)) => self.norm(m),
            (None, None) => return,
        };
        if !self.in_scope(&market) {
            return;
        }
        if !self.orders.contains_key(&o.id) {
            if self.orders.len() >= self.config.order_memory.max(1) && !self.forget_closed() {
                self.unsure.insert(Unsure::Overflow);
                return;
            }
            let filled = o.filled.unwrap_or_default();
            let order = TrackedOrder {
                order_id: o.id.clone(),
                market: market.clone(),
                side: o.side.clone(),
                price: o.price,
                amount: o.amount,
                filled,
                traded: Decimal::ZERO,
                status: OrderStatus::Open,
            };
            if self.last_resync.is_none() && !filled.is_zero() {
                self.baseline.insert(o.id.clone(), filled);
            } else if !filled.is_zero() {
                self.fills_due_now(&market, now);
            }
            self.orders.insert(o.id.clone(), order.clone());
            self.push_change(Change::Placed { order });
        } else {
            if let Some(x) = self.orders.get_mut(&o.id) {
                if x.side.is_none() {
                    x.side = o.side.clone();
                }
                if x.price.is_none() {
                    x.price = o.price;
                }
                if x.amount.is_none() {
                    x.amount = o.amount;
                }
            }
            if let Some(f) = o.filled {
                self.raise_filled(&o.id, f, false, now);
            }
        }
        let Some(status) = o.status else {
            return;
        };
        let Some(x) = self.orders.get_mut(&o.id) else {
            return;
        };
        if x.status != OrderStatus::Open || status == OrderStatus::Open {
            return;
        }
        x.status = status;
        let (id, market, filled) = (x.order_id.clone(), x.market.clone(), x.filled);
        self.closed.push_back(id.clone());
        match status {
            OrderStatus::Filled => self.push_change(Change::Completed {
                order_id: id,
                market,
            }),
            _ => self.push_change(Change::Cancelled {
                order_id: id,
                market,
                filled,
            }),
        }
    }

    /// Raises an order's executed amount to `filled` when larger ([`Change::Progress`]); a rise
    /// not from a fill read makes the market's fills due.
    fn raise_filled(&mut self, id: &str, filled: Decimal, by_trade: bool, now: TimestampMillis) {
        let Some(x) = self.orders.get_mut(id) else {
            return;
        };
        if filled <= x.filled {
            return;
        }
        let before = x.filled;
        x.filled = filled;
        let market = x.market.clone();
        if !by_trade {
            self.fills_due_now(&market, now);
        }
        self.push_change(Change::Progress {
            order_id: id.to_owned(),
            market,
            before,
            filled,
        });
    }

    fn fills_due_now(&mut self, market: &str, now: TimestampMillis) {
        let at = now.0.saturating_add(ms(self.config.fill_delay));
        self.fills_due
            .entry(market.to_owned())
            .and_modify(|d| d.tries = 0)
            .or_insert(Due { at, tries: 0 });
        self.unsure.insert(Unsure::FillsPending {
            market: market.to_owned(),
        });
    }

    /// Forgets the oldest closed order; `false` when none is left.
    fn forget_closed(&mut self) -> bool {
        while let Some(id) = self.closed.pop_front() {
            if self
                .orders
                .get(&id)
                .is_some_and(|o| o.status != OrderStatus::Open)
            {
                self.orders.remove(&id);
                self.baseline.remove(&id);
                return true;
            }
        }
        false
    }

    fn set_balance(&mut self, b: Balance) {
        let before = self.balances.get(&b.currency).cloned();
        let same = match &before {
            Some(x) => model::same_balance(x, &b),
            None => b.is_empty(),
        };
        if same {
            return;
        }
        let currency = b.currency.clone();
        let after = if b.is_empty() {
            self.balances.remove(&currency);
            None
        } else {
            self.balances.insert(currency.clone(), b.clone());
            Some(b)
        };
        self.push_change(Change::BalanceChanged {
            currency,
            before,
            after,
        });
    }

    fn replace_balances(&mut self, all: Vec<Balance>) {
        let listed: BTreeSet<String> = all.iter().map(|b| b.currency.clone()).collect();
        let gone: Vec<String> = self
            .balances
            .keys()
            .filter(|c| !listed.contains(*c))
            .cloned()
            .collect();
        for c in gone {
            self.set_balance(Balance::new(&c, None, None));
        }
        for b in all {
            self.set_balance(b);
        }
    }

    fn set_position(&mut self, p: Position) {
        let key = p.key();
        let before = self.positions.get(&key).cloned();
        let empty = p.size.is_zero();
        let same = match &before {
            Some(x) => !empty && model::same_position(x, &p),
            None => empty,
        };
        if same {
            return;
        }
        let after = if empty {
            self.positions.remove(&key);
            None
        } else {
            self.positions.insert(key.clone(), p.clone());
            Some(p)
        };
        self.push_change(Change::PositionChanged {
            instrument_id: key.0,
            side: key.1,
            before,
            after,
        });
    }

    fn replace_positions(&mut self, all: Vec<Position>) {
        let listed: BTreeSet<(String, String)> = all.iter().map(Position::key).collect();
        let gone: Vec<Position> = self
            .positions
            .iter()
            .filter(|(k, _)| !listed.contains(*k))
            .map(|(_, p)| Position {
                size: Decimal::ZERO,
                ..p.clone()
            })
            .collect();
        for p in gone {
            self.set_position(p);
        }
        for p in all {
            self.set_position(p);
        }
    }

    fn push_change(&mut self, change: Change) {
        if self.changes.len() >= self.config.change_capacity.max(1) {
            self.changes.pop_front();
            self.dropped = self.dropped.saturating_add(1);
            self.unsure.insert(Unsure::Overflow);
        }
        self.changes.push_back(change);
    }

    // -----------------------------------------------------------------------------------------
    // Outputs

    /// The next change, each handed out once, in the order they happened.
    pub fn poll_change(&mut self) -> Option<Change> {
        self.changes.pop_front()
    }

    /// Changes dropped because the queue was full ([`TrackConfig::change_capacity`]).
    pub fn dropped_changes(&self) -> u64 {
        self.dropped
    }

    /// Why the state may differ from the account's; empty when it is the last resync's plus
    /// every push since.
    pub fn unsure(&self) -> Vec<Unsure> {
        self.unsure.iter().cloned().collect()
    }

    /// Whether any [`Tracker::unsure`] reason holds.
    pub fn is_unsure(&self) -> bool {
        !self.unsure.is_empty()
    }

    /// When the last resync completed.
    pub fn last_resync(&self) -> Option<TimestampMillis> {
        self.last_resync
    }

    /// An order by id (open, or closed and still remembered).
    pub fn order(&self, id: &str) -> Option<&TrackedOrder> {
        self.orders.get(id)
    }

    /// The open orders, by id.
    pub fn open_orders(&self) -> impl Iterator<Item = &TrackedOrder> {
        self.orders
            .values()
            .filter(|o| o.status == OrderStatus::Open)
    }

    /// The balances, by currency.
    pub fn balances(&self) -> impl Iterator<Item = &Balance> {
        self.balances.values()
    }

    /// The positions, by instrument and side.
    pub fn positions(&self) -> impl Iterator<Item = &Position> {
        self.positions.values()
    }

    /// Trade ids remembered.
    pub fn fills_remembered(&self) -> usize {
        self.fills.len()
    }

    /// A snapshot of the state.
    pub fn state(&self) -> State {
        State {
            family: self.family,
            open_orders: self.open_orders().cloned().collect(),
            balances: self.balances.values().cloned().collect(),
            positions: self.positions.values().cloned().collect(),
            unsure: self.unsure(),
            last_resync: self.last_resync,
        }
    }
}

/// A cancellation the venue confirmed.
fn cancelled(id: &str) -> OrderObs {
    OrderObs {
        id: id.to_owned(),
        market: None,
        side: None,
        price: None,
        amount: None,
        filled: None,
        status: Some(OrderStatus::Cancelled),
    }
}
