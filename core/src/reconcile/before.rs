//! What is known before a write is sent: the snapshot of its evidence set ([`Snapshot`]), the
//! ids a client session remembers ([`IdMemory`]), and how a typed write request becomes a
//! [`Write`] ([`WriteRequest`]).

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use super::{spot as spot_rules, Evidence, Facts, Options, Read, Reconciler, Unknown, Write};
use crate::endpoint::Endpoint;
use crate::error::{Error, Prior};
use crate::params::ParamMap;
use crate::types::TimestampMillis;

// ---------------------------------------------------------------------------------------------
// The snapshot

/// The pre-send snapshot of a write's evidence set: the lists its reconciliation would read
/// (for an order: the pair's open orders and recent history; for a withdrawal: the currency's
/// withdrawals; ...), read just before the write is sent. Its ids become known ids, and when no
/// list came back full they are *complete* ([`Prior::complete`]): then every verdict on the write
/// is exact (see the verdict rule in [`super`]).
///
/// A sans-IO state machine like [`Reconciler`]: [`Snapshot::next_read`] hands out the reads,
/// [`Snapshot::feed`] takes their answers, [`Snapshot::finish`] gives the [`Prior`] to attach to
/// the write's unknown outcome ([`Error::with_prior`]) or to give as
/// [`Options::prior`]. Writes whose verdicts do not depend on older records (cancels, settings)
/// plan no read.
///
/// Its cost: for a spot order 2 reads (`GET /v3/{market}/order/current` and
/// `GET /v3/{market}/order/history`, weight 1 each as the spot budget counts them); for a swap
/// order 2 reads (`open_orders` and `history_orders`, weight 2 + 5) per instrument; see
/// [`Snapshot::weight`].
///
/// ```
/// use digifinex_core::reconcile::{Options, Read, Snapshot, Write};
/// use digifinex_core::{spot, Amount, Price, TimestampMillis};
/// use rust_decimal::Decimal;
///
/// let order = spot::PlaceOrderRequest::new(
///     spot::Market::Spot,
///     "btc_usdt",
///     spot::LimitOrder::buy(Amount::new(Decimal::new(1, 2)), Price::new(Decimal::new(10000, 0))),
/// );
/// let mut snap = Snapshot::new(&Write::SpotOrder(order), TimestampMillis(1_700_000_000_000), &Options::new());
/// assert_eq!((snap.planned(), snap.weight()), (2, 2));
/// while let Some(read) = snap.next_read() {
///     let body = match read {
///         Read::SpotCurrentOrders(_) => r#"{"code":0,"data":[{"order_id":"a1","symbol":"btc_usdt"}]}"#,
///         _ => r#"{"code":0,"data":[]}"#,
///     };
///     snap.feed(read.decode(body.as_bytes())?);
/// }
/// let prior = snap.finish();
/// assert!(prior.complete && prior.known_ids.contains("a1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Snapshot {
    write: Write,
    /// Where its history reads start (`now - clock_uncertainty`).
    from: TimestampMillis,
    queue: VecDeque<Read>,
    planned: usize,
    weight: u32,
    facts: Facts,
}

impl Snapshot {
    /// Plans the snapshot of `write`'s evidence at `now` (server time: the session's `now`);
    /// the history reads start `options.clock_uncertainty` before it, as the reconciliation's
    /// will.
    pub fn new(write: &Write, now: TimestampMillis, options: &Options) -> Snapshot {
        let planned = Reconciler::new(Unknown::new(write.clone(), Some(now)), options.clone());
        let queue: VecDeque<Read> = match write {
            Write::SpotOrder(_)
            | Write::SpotBatch(_)
            | Write::SpotTransfer(_)
            | Write::MarginClose(_)
            | Write::Withdraw(_)
            | Write::SwapOrder(_)
            | Write::SwapBatch(_)
            | Write::SwapTransfer(_)
            | Write::PositionMargin(_)
            | Write::Sponsor(_) => planned
                .queue
                .into_iter()
                .filter(|r| !matches!(r, Read::MarginPositions(_)))
                .collect(),
            Write::AddAlgo(_) => planned
                .queue
                .into_iter()
                .filter(|r| matches!(r, Read::PlanTasks(_)))
                .collect(),
            _ => VecDeque::new(),
        };
        let weight = queue
            .iter()
            .map(venue_weight)
            .fold(0u32, u32::saturating_add);
        Snapshot {
            write: write.clone(),
            from: {
                // Where its history reads start: spot reads whole seconds (the second of the
                // window start), swap milliseconds.
                let start = now.0.saturating_sub(options.uncertainty_ms());
                TimestampMillis(match write.meta().family {
                    crate::Family::Spot => start.div_euclid(1000).saturating_mul(1000),
                    _ => start,
                })
            },
            planned: queue.len(),
            queue,
            weight,
            facts: Facts::default(),
        }
    }

    /// The number of reads planned (0: the write needs no snapshot).
    pub fn planned(&self) -> usize {
        self.planned
    }

    /// The weight of the planned reads: spot 1 per request (the spot budget's count), swap the
    /// venue's published route weights (`open_orders` 2, `history_orders` 5, `positions` 2,
    /// `transfer_record` 5, the copy-trading reads 5 each).
    pub fn weight(&self) -> u32 {
        self.weight
    }

    /// The next read to perform, `None` when every read is done.
    pub fn next_read(&mut self) -> Option<Read> {
        self.queue.pop_front()
    }

    /// Takes the answer to the last read handed out.
    pub fn feed(&mut self, evidence: Evidence) {
        self.facts.add(evidence);
    }

    /// What the snapshot knows: every id its reads listed (for the id-less spot finance log,
    /// each entry's key), complete when every planned read was answered and none came back
    /// full; for `swap.position_margin`, the position's margin.
    pub fn finish(&self) -> Prior {
        let f = &self.facts;
        let mut known: BTreeSet<String> = BTreeSet::new();
        known.extend(f.spot_orders.iter().map(|o| o.order_id.clone()));
        known.extend(f.withdrawals.iter().map(|w| w.id.clone()));
        known.extend(f.swap_orders.iter().map(|o| o.order_id.clone()));
        known.extend(f.transfers.iter().map(|t| t.transfer_id.clone()));
        known.extend(f.copy_current.iter().map(|p| p.order_id.clone()));
        known.extend(f.copy_history.iter().map(|p| p.order_id.clone()));
        known.extend(f.expert_open.iter().map(|p| p.order_id.clone()));
        known.extend(f.plans.iter().map(|p| p.order_id.clone()));
        if let Write::SpotTransfer(r) = &self.write {
            let (market, _) = spot_rules::log_side(r);
            known.extend(
                spot_rules::finance_keys(&f.finance, market)
                    .into_iter()
                    .map(|(k, _)| k),
            );
        }
        let position_margin = match &self.write {
            Write::PositionMargin(r) => f
                .swap_positions
                .iter()
                .flatten()
                .filter(|p| p.instrument_id.eq_ignore_ascii_case(&r.instrument_id))
                .find(|p| p.side.as_ref() == Some(&r.side))
                .and_then(|p| p.posi_balance.or(p.margin)),
            _ => None,
        };
        let mut prior = Prior::new();
        prior.known_ids = known;
        prior.complete = self.planned > 0 && self.queue.is_empty() && f.full_pages.is_empty();
        prior.complete_from = prior.complete.then_some(self.from);
        prior.position_margin = position_margin;
        prior.snapshot_reads = u32::try_from(self.planned).unwrap_or(u32::MAX);
        prior.snapshot_weight = self.weight;
        prior
    }
}

/// The weight a snapshot read costs.
///
/// DESIGN: the swap private reads declare no weight in their `Meta` (the venue publishes them
/// through `GET /swap/v2/public/api_weight`, which a client may load); the figures here are
/// the published ones for the reads a snapshot makes, so that its cost can be stated before
/// any table is loaded.
fn venue_weight(read: &Read) -> u32 {
    match read {
        Read::SwapOpenOrders(_) | Read::SwapPositions(_) => 2,
        Read::SwapHistoryOrders(_)
        | Read::SwapTransferRecords(_)
        | Read::CopyCurrent(_)
        | Read::CopyHistory(_)
        | Read::ExpertOpenOrders(_)
        | Read::PlanTasks(_) => 5,
        other => other.meta().weight.unwrap_or(1),
    }
}

// ---------------------------------------------------------------------------------------------
// The session's memory of ids

/// Default capacity of an [`IdMemory`]: 4096 ids.
pub const DEFAULT_ID_MEMORY: usize = 4096;

/// The ids a client session has placed or seen, each excluded from the results of later
/// unknown outcomes: bounded (the oldest entries go first), pure (the clients keep one behind a
/// lock).
///
/// - A *placed* id (named by a write's own answer) is never another write's result: it is known
///   for every unknown outcome.
/// - A *seen* id (listed by a read: a snapshot, a reconciliation) is known only for writes built
///   after it was seen ([`IdMemory::mark`] taken before the write, [`IdMemory::known_before`]
///   when it fails): a record seen after the write was sent may be that write's own.
///
/// Forgetting an id is safe: a verdict only becomes ambiguous where it could have been exact.
///
/// ```
/// use digifinex_core::reconcile::IdMemory;
/// let mut memory = IdMemory::new(2);
/// memory.seen(["a"]);
/// let mark = memory.mark(); // before a write
/// memory.seen(["b"]); // seen after the write: maybe its own
/// memory.placed(["c"]);
/// let known = memory.known_before(mark);
/// assert!(known.contains("c") && !known.contains("b"));
/// assert!(!known.contains("a")); // forgotten: the memory holds 2
/// ```
#[derive(Debug, Clone)]
pub struct IdMemory {
    order: VecDeque<String>,
    ids: HashMap<String, (u64, bool)>,
    next: u64,
    capacity: usize,
}

impl Default for IdMemory {
    fn default() -> Self {
        IdMemory::new(DEFAULT_ID_MEMORY)
    }
}

impl IdMemory {
    /// An empty memory of at most `capacity` ids (0 remembers nothing).
    pub fn new(capacity: usize) -> Self {
        IdMemory {
            order: VecDeque::new(),
            ids: HashMap::new(),
            next: 0,
            capacity,
        }
    }

    /// The mark to take just before building a write: ids seen from now on are not known for it.
    pub fn mark(&self) -> u64 {
        self.next
    }

    /// Remembers ids that a write's answer named.
    pub fn placed<I: IntoIterator<Item = S>, S: Into<String>>(&mut self, ids: I) {
        for id in ids {
            self.insert(id.into(), true);
        }
    }

    /// Remembers ids that a read listed.
    pub fn seen<I: IntoIterator<Item = S>, S: Into<String>>(&mut self, ids: I) {
        for id in ids {
            self.insert(id.into(), false);
        }
    }

    fn insert(&mut self, id: String, placed: bool) {
        if self.capacity == 0 || id.is_empty() {
            return;
        }
        if let Some(entry) = self.ids.get_mut(&id) {
            entry.1 |= placed;
            return;
        }
        self.ids.insert(id.clone(), (self.next, placed));
        self.order.push_back(id);
        self.next = self.next.saturating_add(1);
        while self.order.len() > self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.ids.remove(&old);
            }
        }
    }

    /// The ids known not to be the result of a write built after `mark`: every placed id, and
    /// the ids seen before `mark`.
    pub fn known_before(&self, mark: u64) -> BTreeSet<String> {
        self.ids
            .iter()
            .filter(|(_, (seq, placed))| *placed || *seq < mark)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// The number of ids held.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no id is held.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The most ids it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

/// An [`IdMemory`] behind a lock, shared by a client and its clones: what the transports call
/// around each write and reconciliation.
#[derive(Debug, Clone, Default)]
pub struct SessionIds(Arc<Mutex<IdMemory>>);

impl SessionIds {
    /// A memory of at most `capacity` ids.
    pub fn new(capacity: usize) -> Self {
        SessionIds(Arc::new(Mutex::new(IdMemory::new(capacity))))
    }

    fn with<T>(&self, f: impl FnOnce(&mut IdMemory) -> T) -> T {
        let mut guard = match self.0.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut guard)
    }

    /// [`IdMemory::mark`].
    pub fn mark(&self) -> u64 {
        self.with(|m| m.mark())
    }

    /// [`IdMemory::placed`].
    pub fn placed<I: IntoIterator<Item = S>, S: Into<String>>(&self, ids: I) {
        self.with(|m| m.placed(ids))
    }

    /// [`IdMemory::seen`].
    pub fn seen<I: IntoIterator<Item = S>, S: Into<String>>(&self, ids: I) {
        self.with(|m| m.seen(ids))
    }

    /// [`IdMemory::known_before`].
    pub fn known_before(&self, mark: u64) -> BTreeSet<String> {
        self.with(|m| m.known_before(mark))
    }

    /// The number of ids held.
    pub fn len(&self) -> usize {
        self.with(|m| m.len())
    }

    /// Whether no id is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// After a write's call (`mark` taken before it was built): remembers the ids its answer
    /// named (`created`), or gives its unknown outcome what was known before it (the ids
    /// placed, the ids seen before `mark`, and `snapshot` when one was taken). Other errors
    /// pass unchanged.
    pub fn after_write<T>(
        &self,
        mark: u64,
        result: Result<T, Error>,
        created: impl FnOnce(&T) -> Vec<String>,
        snapshot: Option<Prior>,
    ) -> Result<T, Error> {
        match result {
            Ok(value) => {
                self.placed(created(&value));
                Ok(value)
            }
            Err(e @ Error::OutcomeUnknown { .. }) => {
                let mut prior = snapshot.unwrap_or_default();
                prior.known_ids.extend(self.known_before(mark));
                Err(e.with_prior(prior))
            }
            Err(e) => Err(e),
        }
    }

    /// After a reconciliation: the ids its reads listed are seen, and the records it found
    /// applied are placed (they are that write's: never another's).
    pub fn after_reconcile(&self, reconciler: &Reconciler, outcome: &super::Outcome) {
        self.seen(reconciler.seen_ids());
        self.placed(outcome.verdicts.iter().filter_map(|v| match v {
            super::Verdict::Applied { id: Some(id), .. } => Some(id.clone()),
            _ => None,
        }));
    }
}

/// Whether a client reads the write's evidence set just before sending it ([`Snapshot`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SnapshotPolicy {
    /// No read before the write: an unknown outcome knows only the ids the client remembers;
    /// a write that took effect is then usually reconciled as ambiguous.
    #[default]
    Skip,
    /// Read the evidence set just before the write (its weight: [`Snapshot::weight`], 2 for a
    /// spot order); a failed read stops the write before it is sent. Verdicts are then exact.
    BeforeSend,
}

/// The ids the answer of endpoint `endpoint` names as created (orders, batches, withdrawals,
/// plans), for any typed answer: rendered as JSON only for those endpoints
/// ([`Write::created_ids_json`]); empty for every other endpoint.
pub fn created_ids_of<T: serde::Serialize>(endpoint: &str, answer: &T) -> Vec<String> {
    if !matches!(
        endpoint,
        "spot.order_new"
            | "swap.order_place"
            | "spot.order_batch_new"
            | "swap.batch_order"
            | "spot.withdraw_new"
            | "swap.follow.add_algo"
    ) {
        return Vec::new();
    }
    serde_json::to_value(answer)
        .map(|v| Write::created_ids_json(endpoint, &v))
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Typed writes

/// A write request that can be reconciled: the [`Write`] it is, and the ids its answer names
/// (remembered as placed by the clients).
pub trait WriteRequest: Endpoint {
    /// The write.
    fn to_write(&self) -> Write;
    /// The ids of the records the answer says were created (orders, withdrawals, plans).
    fn created_ids(output: &Self::Output) -> Vec<String>;
}

impl Write {
    /// Reads the write of endpoint `endpoint` (`spot.order_new`) from wire parameters, as the
    /// catalog does; `None` when the endpoint is not a write.
    pub fn from_params(endpoint: &str, params: &mut ParamMap) -> Option<Result<Write, Error>> {
        let (_, rebuild) = super::WRITES.iter().find(|(name, _)| *name == endpoint)?;
        Some(rebuild(params))
    }

    /// The ids a write's answer (rendered as JSON, as [`Write::json_call`] and the catalog give
    /// it) says were created: for writes whose answer names them (orders, batches,
    /// withdrawals, plans); empty otherwise.
    pub fn created_ids_json(endpoint: &str, answer: &serde_json::Value) -> Vec<String> {
        use serde_json::Value;
        let text = |v: &Value| match v {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let key = match endpoint {
            "spot.order_new" | "swap.order_place" => "order_id",
            "spot.order_batch_new" => "order_ids",
            "spot.withdraw_new" => "withdraw_id",
            "swap.follow.add_algo" => "algos",
            "swap.batch_order" => {
                return answer
                    .as_array()
                    .map(|a| a.iter().filter_map(text).collect())
                    .unwrap_or_default()
            }
            _ => return Vec::new(),
        };
        match answer.get(key) {
            Some(Value::Array(a)) => a.iter().filter_map(text).collect(),
            Some(v) => text(v).into_iter().collect(),
            None => Vec::new(),
        }
    }
}

impl Reconciler {
    /// Every id the reads answered so far (what a client remembers as seen after reconciling).
    pub fn seen_ids(&self) -> Vec<String> {
        let f = &self.facts;
        f.spot_orders
            .iter()
            .map(|o| o.order_id.clone())
            .chain(f.withdrawals.iter().map(|w| w.id.clone()))
            .chain(f.swap_orders.iter().map(|o| o.order_id.clone()))
            .chain(f.transfers.iter().map(|t| t.transfer_id.clone()))
            .chain(f.copy_current.iter().map(|p| p.order_id.clone()))
            .chain(f.copy_history.iter().map(|p| p.order_id.clone()))
            .chain(f.expert_open.iter().map(|p| p.order_id.clone()))
            .chain(f.plans.iter().map(|p| p.order_id.clone()))
            .collect()
    }
}
