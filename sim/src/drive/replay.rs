//! The replay cursor of a recorded market: the reader, the records read ahead and the queue
//! of events in time order. Nothing here touches the books or accounts: applying what it
//! hands out is [`super`]'s work.

use crate::market::format::{Data, Family, MarketId, Reader, Record, Ticker, Trade};
use crate::market::{ReplayStats, LOOKAHEAD_MS, MAX_BATCH, MAX_QUEUED};
use rust_decimal::Decimal;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// A replay's reading stopped by its budget of lines ([`crate::drive::step`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut;

/// Looks up pairs and instruments by name (the state implements it).
pub trait Names {
    /// Index of spot pair `symbol` (any case).
    fn spot(&self, symbol: &str) -> Option<usize>;
    /// Index of swap instrument `id`.
    fn swap(&self, id: &str) -> Option<usize>;
}

pub(crate) use crate::engine::target::Target;

#[derive(Debug)]
pub(crate) enum Event {
    Book {
        target: Target,
        bids: Vec<(Decimal, Decimal)>,
        asks: Vec<(Decimal, Decimal)>,
    },
    // The two largest payloads are boxed: events move through a heap of up to
    // `MAX_QUEUED`, and a 240-byte ticker made every event as large (most are depth frames).
    Trade {
        target: Target,
        trade: Box<Trade>,
    },
    Ticker {
        target: Target,
        ticker: Box<Ticker>,
    },
    Funding {
        inst: usize,
        rate: Decimal,
        next_time: i64,
        next_rate: Option<Decimal>,
        last_rate: Option<Decimal>,
    },
    Mark {
        inst: usize,
        mark: Decimal,
        index: Option<Decimal>,
    },
    /// A websocket depth frame (version 2).
    Depth {
        target: Target,
        snapshot: bool,
        bids: Vec<(Decimal, Decimal)>,
        asks: Vec<(Decimal, Decimal)>,
    },
    /// An index price push (version 2).
    Index {
        inst: usize,
        index: Decimal,
    },
    /// The books of `targets` wait for their next snapshot (a resync or a reconnect);
    /// `family` set: every streamed book of that family.
    Invalidate {
        targets: Vec<Target>,
        family: Option<Family>,
    },
}

/// An event in the replay's queue: ordered by time, trades before other events of the same
/// time (a record is received after the trades it reflects), then by the order it was read.
#[derive(Debug)]
pub(crate) struct Queued {
    pub(crate) time: i64,
    class: u8,
    seq: u64,
    pub(crate) event: Event,
}

impl Queued {
    fn key(&self) -> (i64, u8, u64) {
        (self.time, self.class, self.seq)
    }
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// Trade ids seen recently (a bounded set of [`crate::market::SEEN_TRADES`] a market).
type Seen = digifinex_market::SeenIds;

/// The replay cursor: the reader, records read ahead, the event queue.
#[derive(Debug)]
pub(crate) struct Replay {
    reader: Option<Reader>,
    /// Records read before the replay started (looking for first prices), consumed first.
    prefetched: VecDeque<Record>,
    /// The next record not yet queued.
    next: Option<Record>,
    queue: BinaryHeap<Reverse<Queued>>,
    seq: u64,
    seen: HashMap<Target, Seen>,
    stats: ReplayStats,
    /// The receive time of the last record read and how many records had it.
    batch: (i64, u64),
}

impl Replay {
    /// A replay reading `reader`, after the records already read ahead.
    pub(crate) fn new(reader: Reader, prefetched: VecDeque<Record>) -> Replay {
        // The records read ahead count toward the batch of their last receive time.
        let batch = prefetched.back().map_or((i64::MIN, 0), |last| {
            let n = prefetched
                .iter()
                .rev()
                .take_while(|r| r.t == last.t)
                .count();
            (last.t, u64::try_from(n).unwrap_or(u64::MAX))
        });
        Replay {
            reader: Some(reader),
            prefetched,
            next: None,
            queue: BinaryHeap::new(),
            seq: 0,
            seen: HashMap::new(),
            stats: ReplayStats::default(),
            batch,
        }
    }

    /// The counters.
    pub(crate) fn stats(&self) -> ReplayStats {
        let mut stats = self.stats;
        if let Some(r) = &self.reader {
            // The records the reader skipped unparsed past its per-instant cap.
            stats.over_batch += r.over_instant();
        }
        stats
    }

    /// Takes the earliest queued event if it is due by `now` (counted as applied).
    pub(crate) fn pop_due(&mut self, now: i64) -> Option<Queued> {
        match self.queue.peek() {
            Some(q) if q.0.time <= now => {}
            _ => return None,
        }
        let Reverse(q) = self.queue.pop()?;
        self.stats.applied += 1;
        Some(q)
    }

    /// The next record, reading at most `*reads` lines (each line read, skipped ones included,
    /// counts one): `Ok(None)` at the end, `Err(Cut)` when the reads ran out first.
    fn read(&mut self, reads: &mut u64) -> Result<Option<Record>, Cut> {
        if let Some(r) = self.prefetched.pop_front() {
            return Ok(Some(r));
        }
        loop {
            let Some(reader) = self.reader.as_mut() else {
                return Ok(None);
            };
            if *reads == 0 {
                return Err(Cut);
            }
            *reads -= 1;
            match reader.next() {
                Some(Ok(r)) => {
                    if r.t == self.batch.0 {
                        self.batch.1 += 1;
                    } else {
                        self.batch = (r.t, 1);
                    }
                    if self.batch.1 > MAX_BATCH {
                        self.stats.over_batch += 1;
                        continue;
                    }
                    return Ok(Some(r));
                }
                Some(Err(_)) => self.stats.bad_lines += 1,
                None => {
                    // The records the reader skipped unparsed past its per-instant cap.
                    self.stats.over_batch += reader.over_instant();
                    self.reader = None;
                    return Ok(None);
                }
            }
        }
    }

    /// Queues every record received up to `horizon`, reading at most `*reads` lines; `Err(Cut)`
    /// when the reads ran out first.
    fn fill(&mut self, st: &dyn Names, horizon: i64, reads: &mut u64) -> Result<(), Cut> {
        loop {
            if self.queue.len() >= MAX_QUEUED {
                // Enough read ahead; the rest waits for the queue to drain.
                return Ok(());
            }
            if self.next.is_none() {
                if self.stats.ended {
                    return Ok(());
                }
                self.next = self.read(reads)?;
                if self.next.is_none() {
                    self.stats.ended = true;
                    return Ok(());
                }
                self.stats.records += 1;
            }
            match self.next.take() {
                Some(r) if r.t <= horizon => self.queue_record(st, r),
                other => {
                    self.next = other;
                    return Ok(());
                }
            }
        }
    }

    fn push(&mut self, time: i64, event: Event) {
        self.seq += 1;
        let class = u8::from(!matches!(event, Event::Trade { .. }));
        self.queue.push(Reverse(Queued {
            time,
            class,
            seq: self.seq,
            event,
        }));
    }

    fn queue_record(&mut self, st: &dyn Names, r: Record) {
        let spot = |s: &str| st.spot(s);
        let swap = |s: &str| st.swap(s);
        let t = r.t;
        match r.data {
            Data::SpotBook {
                symbol, bids, asks, ..
            } => match spot(&symbol) {
                Some(m) => self.push(
                    t,
                    Event::Book {
                        target: Target::Spot(m),
                        bids,
                        asks,
                    },
                ),
                None => self.stats.unknown += 1,
            },
            Data::SwapBook {
                instrument,
                bids,
                asks,
                ..
            } => match swap(&instrument) {
                Some(i) => self.push(
                    t,
                    Event::Book {
                        target: Target::Swap(i),
                        bids,
                        asks,
                    },
                ),
                None => self.stats.unknown += 1,
            },
            Data::SpotTrades { symbol, trades } => match spot(&symbol) {
                Some(m) => self.queue_trades(Target::Spot(m), trades),
                None => self.stats.unknown += 1,
            },
            Data::SwapTrades { instrument, trades } => match swap(&instrument) {
                Some(i) => self.queue_trades(Target::Swap(i), trades),
                None => self.stats.unknown += 1,
            },
            Data::SpotTicker { symbol, ticker } => match spot(&symbol) {
                Some(m) => self.push(
                    t,
                    Event::Ticker {
                        target: Target::Spot(m),
                        ticker: Box::new(ticker),
                    },
                ),
                None => self.stats.unknown += 1,
            },
            Data::SwapTicker { instrument, ticker } => match swap(&instrument) {
                Some(i) => self.push(
                    t,
                    Event::Ticker {
                        target: Target::Swap(i),
                        ticker: Box::new(ticker),
                    },
                ),
                None => self.stats.unknown += 1,
            },
            Data::Funding {
                instrument,
                rate,
                next_time,
                next_rate,
                last_rate,
            } => match swap(&instrument) {
                Some(inst) => self.push(
                    t,
                    Event::Funding {
                        inst,
                        rate,
                        next_time,
                        next_rate,
                        last_rate,
                    },
                ),
                None => self.stats.unknown += 1,
            },
            Data::Mark {
                instrument,
                mark,
                index,
            } => match swap(&instrument) {
                Some(inst) => self.push(t, Event::Mark { inst, mark, index }),
                None => self.stats.unknown += 1,
            },
            Data::SpotDepth {
                symbol,
                snapshot,
                bids,
                asks,
                ..
            } => match spot(&symbol) {
                Some(m) => self.push(
                    t,
                    Event::Depth {
                        target: Target::Spot(m),
                        snapshot,
                        bids,
                        asks,
                    },
                ),
                None => self.stats.unknown += 1,
            },
            Data::SwapDepth {
                instrument,
                snapshot,
                bids,
                asks,
                ..
            } => match swap(&instrument) {
                Some(i) => self.push(
                    t,
                    Event::Depth {
                        target: Target::Swap(i),
                        snapshot,
                        bids,
                        asks,
                    },
                ),
                None => self.stats.unknown += 1,
            },
            Data::Index {
                instrument, index, ..
            } => match swap(&instrument) {
                Some(inst) => self.push(t, Event::Index { inst, index }),
                None => self.stats.unknown += 1,
            },
            Data::Resync { market, .. } => {
                let target = match &market {
                    MarketId::Spot(s) => spot(s).map(Target::Spot),
                    MarketId::Swap(i) => swap(i).map(Target::Swap),
                };
                match target {
                    Some(target) => self.push(
                        t,
                        Event::Invalidate {
                            targets: vec![target],
                            family: None,
                        },
                    ),
                    None => self.stats.unknown += 1,
                }
            }
            Data::Reconnect {
                family, markets, ..
            } => {
                let event = if markets.is_empty() {
                    Event::Invalidate {
                        targets: Vec::new(),
                        family: Some(family),
                    }
                } else {
                    let targets = markets
                        .iter()
                        .filter_map(|m| match family {
                            Family::Spot => spot(m).map(Target::Spot),
                            Family::Swap => swap(m).map(Target::Swap),
                        })
                        .collect();
                    Event::Invalidate {
                        targets,
                        family: None,
                    }
                };
                self.push(t, event);
            }
            // A kind newer than this replay (the format marks its kinds non-exhaustive).
            _ => self.stats.unknown += 1,
        }
    }

    fn queue_trades(&mut self, target: Target, trades: Vec<Trade>) {
        // Venues list recent trades newest first: a list whose first trade is not older than
        // its last is taken in that order. Applied oldest first.
        let mut trades = trades;
        if let (Some(first), Some(last)) = (trades.first(), trades.last()) {
            if first.time_ms >= last.time_ms {
                trades.reverse();
            }
        }
        trades.sort_by_key(|t| t.time_ms);
        for trade in trades {
            if !self.seen.entry(target).or_default().fresh(&trade.id) {
                self.stats.repeated_trades += 1;
                continue;
            }
            self.push(
                trade.time_ms,
                Event::Trade {
                    target,
                    trade: Box::new(trade),
                },
            );
        }
    }

    /// Time of the earliest event read (queued, or the next record), without reading:
    /// exact once [`Replay::next_time`] has completed its read-ahead.
    pub(crate) fn peek_time(&self) -> Option<i64> {
        self.queue
            .peek()
            .map(|q| q.0.time)
            .into_iter()
            .chain(self.next.as_ref().map(|r| r.t))
            .min()
    }

    /// Time of the earliest queued event, reading ahead as needed, at most `*reads` lines;
    /// `Err(Cut)` when the reads ran out before the read-ahead was complete (the time is then
    /// not known: a record not yet read may hold an earlier event).
    pub(crate) fn next_time(
        &mut self,
        st: &dyn Names,
        reads: &mut u64,
    ) -> Result<Option<i64>, Cut> {
        let head = self
            .queue
            .peek()
            .map(|q| q.0.time)
            .into_iter()
            .chain(self.next.as_ref().map(|r| r.t))
            .min();
        match head {
            Some(h) => self.fill(st, h.saturating_add(LOOKAHEAD_MS), reads)?,
            None => {
                // Nothing read yet (or all consumed): read the next record, then look again.
                self.fill(st, i64::MIN, reads)?;
                if let Some(t) = self.next.as_ref().map(|r| r.t) {
                    self.fill(st, t.saturating_add(LOOKAHEAD_MS), reads)?;
                }
            }
        }
        Ok(self.queue.peek().map(|q| q.0.time))
    }
}
