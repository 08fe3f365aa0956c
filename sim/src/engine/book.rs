//! The order book both families trade on: price levels of resting orders, best prices, depth
//! snapshots, the price-time matching walk and the synthetic market maker's quotes.
//!
//! A level holds a FIFO queue of resting orders; an incoming order takes the best opposite level
//! first and, within a level, the oldest resting order first (price-time priority). Trades
//! execute at the resting order's price. Quantities are whatever the family trades in (spot base
//! amounts, swap contracts); the book does not convert them.
//!
//! Synthetic liquidity: [`Book::seeded`] quotes `levels` maker orders per side around a mid
//! price, `gap` apart, and [`Book::replenish`], run after trades, tops a side up to `levels`
//! synthetic orders beyond its worst price once it has fallen below half of that. Synthetic
//! orders have no owner. The family supplies the mid price, the gap and the sizes (drawn from its
//! seeded generator, in a fixed order: so the same seed and the same requests give the same
//! books).
//!
//! What differs between the families stays at their edges: the spacing and sizes of synthetic
//! quotes, and the order levels are written in (the spot `/order_book` lists asks highest price
//! first); [`Book::levels`] always answers best first.

use crate::market::fill::FillModel;
use crate::num::floor_dp;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, VecDeque};

/// Buy or sell side of the book (the side an order takes from is the other one): the
/// recording format's.
pub use digifinex_market::Side;

/// A resting order in a book level.
#[derive(Debug, Clone, PartialEq)]
pub struct Resting {
    /// Owner's order id; `None` for the synthetic market maker.
    pub order: Option<String>,
    /// Remaining quantity.
    pub remaining: Decimal,
}

/// Price levels of one side, each a FIFO queue.
pub type Levels = BTreeMap<Decimal, VecDeque<Resting>>;

/// One market's book.
///
/// The synthetic (ownerless) orders of each side are counted as they come and go, so that
/// [`Book::synthetic_count`] is O(1): the order flow reads it several times per event.
#[derive(Debug, Clone, Default)]
pub struct Book {
    /// Bids by price (best = last).
    bids: Levels,
    /// Asks by price (best = first).
    asks: Levels,
    /// Synthetic orders resting on the bids and on the asks.
    synthetic: [usize; 2],
    /// Recorded size a streamed trade put back at the back of its level until the next depth
    /// frame (by side index and price): that frame's decrease takes it first
    /// ([`Book::streamed_trade`]).
    readded: BTreeMap<(usize, Decimal), Decimal>,
    /// Whether own orders may rest: set when one is queued ([`Book::push`], the only way in),
    /// cleared when [`Book::uncross`] finds none. A hint that lets a recorded frame skip the
    /// search for own orders in a book that has none (a replay without a bot).
    may_own: bool,
}

fn ix(side: Side) -> usize {
    match side {
        Side::Buy => 0,
        Side::Sell => 1,
    }
}

/// Synthetic (ownerless) entries of a queue.
fn ownerless(q: &VecDeque<Resting>) -> usize {
    q.iter().filter(|r| r.order.is_none()).count()
}

/// What an incoming order still wants while it walks the book.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Demand {
    /// A quantity.
    Quantity(Decimal),
    /// A value to spend (a spot market buy's quote amount): at each price it wants the value
    /// left divided by the price, rounded down to `dp` places.
    Value {
        /// Value to spend.
        value: Decimal,
        /// Decimal places of quantities.
        dp: u32,
    },
}

/// One fill of a walk: the resting order taken from, the price and the quantity.
#[derive(Debug, Clone, PartialEq)]
pub struct Fill {
    /// The resting order's id; `None` for the synthetic maker.
    pub maker: Option<String>,
    /// Price (the resting order's).
    pub price: Decimal,
    /// Quantity.
    pub qty: Decimal,
}

/// The outcome of [`Book::take`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walk {
    /// Fills, in the order they happened.
    pub fills: Vec<Fill>,
    /// Whether the walk stopped because the opposite side ran out.
    pub exhausted: bool,
}

impl Book {
    /// A book quoted by the synthetic maker: for each of `levels` steps of `gap` from `mid`, an
    /// ask and (while positive) a bid, sized by `size` (called in that order).
    pub fn seeded(
        levels: usize,
        mid: Decimal,
        gap: Decimal,
        mut size: impl FnMut() -> Decimal,
    ) -> Book {
        let mut book = Book::default();
        for l in 1..=levels {
            let off = gap * Decimal::from(l);
            book.push(Side::Sell, mid + off, None, size());
            let bid = mid - off;
            if bid > Decimal::ZERO {
                book.push(Side::Buy, bid, None, size());
            }
        }
        book
    }

    /// Best bid price.
    pub fn best_bid(&self) -> Option<Decimal> {
        self.bids.keys().next_back().copied()
    }

    /// Best ask price.
    pub fn best_ask(&self) -> Option<Decimal> {
        self.asks.keys().next().copied()
    }

    /// The levels of `side`.
    pub fn side(&self, side: Side) -> &Levels {
        match side {
            Side::Buy => &self.bids,
            Side::Sell => &self.asks,
        }
    }

    /// The levels of `side` and its synthetic count, to change together.
    fn side_mut(&mut self, side: Side) -> (&mut Levels, &mut usize) {
        let [bids, asks] = &mut self.synthetic;
        match side {
            Side::Buy => (&mut self.bids, bids),
            Side::Sell => (&mut self.asks, asks),
        }
    }

    /// Aggregated levels `(price, quantity)` of `side`, best first, at most `limit`.
    pub fn levels(&self, side: Side, limit: usize) -> Vec<(Decimal, Decimal)> {
        let sum = |q: &VecDeque<Resting>| q.iter().map(|r| r.remaining).sum::<Decimal>();
        match side {
            Side::Buy => self
                .bids
                .iter()
                .rev()
                .take(limit)
                .map(|(p, q)| (*p, sum(q)))
                .collect(),
            Side::Sell => self
                .asks
                .iter()
                .take(limit)
                .map(|(p, q)| (*p, sum(q)))
                .collect(),
        }
    }

    /// Whether an order of `side` limited at `price` would take liquidity.
    pub fn would_take(&self, side: Side, price: Decimal) -> bool {
        match side {
            Side::Buy => self.best_ask().is_some_and(|a| a <= price),
            Side::Sell => self.best_bid().is_some_and(|b| b >= price),
        }
    }

    /// Quantity an order of `side` could take at prices up to `limit` (down to, for a sell).
    pub fn available(&self, side: Side, limit: Decimal) -> Decimal {
        let sum = |q: &VecDeque<Resting>| q.iter().map(|r| r.remaining).sum::<Decimal>();
        match side {
            Side::Buy => self.asks.range(..=limit).map(|(_, q)| sum(q)).sum(),
            Side::Sell => self.bids.range(limit..).map(|(_, q)| sum(q)).sum(),
        }
    }

    /// Queues a resting order at the back of its level (`order` `None`: synthetic).
    pub fn push(&mut self, side: Side, price: Decimal, order: Option<String>, remaining: Decimal) {
        if order.is_some() {
            self.may_own = true;
        }
        let (levels, synthetic) = self.side_mut(side);
        if order.is_none() {
            *synthetic += 1;
        }
        levels
            .entry(price)
            .or_default()
            .push_back(Resting { order, remaining });
    }

    /// Removes order `id` resting on `side` at `price` (nothing when it is not there).
    pub fn remove_order(&mut self, side: Side, price: Decimal, id: &str) {
        let (levels, _) = self.side_mut(side);
        if let Some(q) = levels.get_mut(&price) {
            q.retain(|r| r.order.as_deref() != Some(id));
            if q.is_empty() {
                levels.remove(&price);
            }
        }
    }

    /// Removes the `k`-th synthetic (ownerless) order, counting the bids from the best price
    /// down, then the asks from the best price up, and each level from its front; returns
    /// whether there was one.
    pub fn remove_synthetic(&mut self, k: usize) -> bool {
        /// Removes the `k`-th synthetic order of the levels in iteration order; returns the
        /// price of a level it emptied (`None`: fewer than `k + 1` there).
        fn nth<'a>(
            levels: impl Iterator<Item = (&'a Decimal, &'a mut VecDeque<Resting>)>,
            mut k: usize,
        ) -> Option<Option<Decimal>> {
            for (p, q) in levels {
                let n = ownerless(q);
                if k >= n {
                    k -= n;
                    continue;
                }
                let at = q
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.order.is_none())
                    .nth(k)
                    .map(|(i, _)| i);
                if let Some(i) = at {
                    q.remove(i);
                }
                return Some(q.is_empty().then_some(*p));
            }
            None
        }
        // The kept counts say which side holds the `k`-th: only that side is walked.
        let bids = self.synthetic[0];
        let (side, k) = if k < bids {
            (Side::Buy, k)
        } else {
            (Side::Sell, k - bids)
        };
        let found = match side {
            Side::Buy => nth(self.bids.iter_mut().rev(), k),
            Side::Sell => nth(self.asks.iter_mut(), k),
        };
        let Some(emptied) = found else {
            return false;
        };
        let (levels, synthetic) = self.side_mut(side);
        if let Some(p) = emptied {
            levels.remove(&p);
        }
        *synthetic = synthetic.saturating_sub(1);
        true
    }

    /// Synthetic orders resting on `side` (kept as they change: O(1)).
    pub fn synthetic_count(&self, side: Side) -> usize {
        self.synthetic[ix(side)]
    }

    /// The synthetic orders counted afresh (the tests check the kept count against it).
    #[cfg(test)]
    pub(crate) fn recount(&self, side: Side) -> usize {
        self.side(side).values().map(ownerless).sum()
    }

    /// The matching walk of an incoming order of `side`: takes from the opposite side, best
    /// price first and oldest resting order first within a price, at prices no worse than
    /// `limit` (`None`: any price), until `demand` is met (a value demand: until nothing more
    /// can be bought with what is left) or the opposite side runs out. Taken quantities leave
    /// the book; emptied orders and levels are removed.
    pub fn take(&mut self, side: Side, limit: Option<Decimal>, demand: Demand) -> Walk {
        let mut walk = Walk::default();
        let mut left = demand;
        let (opposite, synthetic) = self.side_mut(side.opposite());
        loop {
            let level = match side {
                Side::Buy => opposite.keys().next().copied(),
                Side::Sell => opposite.keys().next_back().copied(),
            };
            let Some(price) = level else {
                walk.exhausted = true;
                break;
            };
            let beyond = limit.is_some_and(|l| match side {
                Side::Buy => price > l,
                Side::Sell => price < l,
            });
            if beyond {
                break;
            }
            let Some(queue) = opposite.get_mut(&price) else {
                break;
            };
            let Some(front) = queue.front_mut() else {
                opposite.remove(&price);
                continue;
            };
            let want = match left {
                Demand::Quantity(q) => q,
                Demand::Value { value, dp } => floor_dp(value / price, dp),
            };
            let qty = want.min(front.remaining);
            if qty <= Decimal::ZERO {
                break;
            }
            walk.fills.push(Fill {
                maker: front.order.clone(),
                price,
                qty,
            });
            front.remaining -= qty;
            if front.remaining <= Decimal::ZERO {
                if queue.pop_front().is_some_and(|r| r.order.is_none()) {
                    *synthetic = synthetic.saturating_sub(1);
                }
                if queue.is_empty() {
                    opposite.remove(&price);
                }
            }
            match &mut left {
                Demand::Quantity(q) => {
                    *q -= qty;
                    if *q <= Decimal::ZERO {
                        break;
                    }
                }
                Demand::Value { value, .. } => *value -= qty * price,
            }
        }
        walk
    }

    /// Tops up the synthetic maker after trades: a side holding fewer than half of `want`
    /// synthetic orders gets new ones, `gap` beyond its worst price (from `mid` when empty),
    /// until it holds `want` or prices would reach zero; `size` sizes each (bids first, then
    /// asks).
    pub fn replenish(
        &mut self,
        want: usize,
        mid: Decimal,
        gap: Decimal,
        mut size: impl FnMut() -> Decimal,
    ) {
        for side in [Side::Buy, Side::Sell] {
            let mut have = self.synthetic_count(side);
            if have * 2 >= want {
                continue;
            }
            while have < want {
                let next = match side {
                    Side::Sell => self.asks.keys().next_back().copied().unwrap_or(mid) + gap,
                    Side::Buy => self.bids.keys().next().copied().unwrap_or(mid) - gap,
                };
                if next <= Decimal::ZERO {
                    break;
                }
                self.push(side, next, None, size());
                have += 1;
            }
        }
    }
}

/// Recorded liquidity (a replayed market, [`crate::market`]): the ownerless entries of a level
/// stand for the size the recording showed there, own orders queue among them.
///
/// DESIGN (queue position): an own order joins its level behind the recorded size that was
/// there ([`Book::push`]). A snapshot sets each level's recorded size ([`Book::set_recorded`]):
/// growth joins the back of the queue; a reduction leaves from the back first (cancellations
/// are taken to come from behind an own order), so an own order moves up only when the level
/// shrinks below what was ahead of it (the "risk-averse" queue model). Recorded trades take
/// from the front ([`Book::recorded_trade`]), own orders in their turn.
impl Book {
    /// Recorded (ownerless) quantity of the level of `side` at `price`.
    pub fn recorded_at(&self, side: Side, price: Decimal) -> Decimal {
        self.side(side).get(&price).map_or(Decimal::ZERO, |q| {
            q.iter()
                .filter(|r| r.order.is_none())
                .map(|r| r.remaining)
                .sum()
        })
    }

    /// Whether own orders rest on `side` at `price`.
    pub fn has_own(&self, side: Side, price: Decimal) -> bool {
        self.side(side)
            .get(&price)
            .is_some_and(|q| q.iter().any(|r| r.order.is_some()))
    }

    /// Sets the recorded quantity of a level to `qty` ([`FillModel::Fifo`]): more joins the
    /// back of the queue, less leaves from the back (behind own orders first); own orders stay.
    pub fn set_recorded(&mut self, side: Side, price: Decimal, qty: Decimal) {
        self.set_recorded_with(side, price, qty, &FillModel::Fifo);
    }

    /// Sets the recorded quantity of a level to `qty` under `model`: more joins the back of
    /// the queue; of less, what a streamed trade put back leaves from the back first, then
    /// `model` splits the rest between ahead of the level's first own order and behind it
    /// ([`crate::market::fill`]); own orders stay.
    pub fn set_recorded_with(
        &mut self,
        side: Side,
        price: Decimal,
        qty: Decimal,
        model: &FillModel,
    ) {
        let qty = qty.max(Decimal::ZERO);
        let readded = self
            .readded
            .remove(&(ix(side), price))
            .unwrap_or(Decimal::ZERO);
        let (levels, synthetic) = self.side_mut(side);
        let queue = levels.entry(price).or_default();
        let current: Decimal = queue
            .iter()
            .filter(|r| r.order.is_none())
            .map(|r| r.remaining)
            .sum();
        if qty > current {
            let add = qty - current;
            match queue.back_mut() {
                Some(last) if last.order.is_none() => last.remaining += add,
                _ => {
                    *synthetic += 1;
                    queue.push_back(Resting {
                        order: None,
                        remaining: add,
                    });
                }
            }
        } else if qty < current {
            let mut cut = current - qty;
            // What a trade put back leaves from behind; the model splits the rest.
            let unexplained = cut.saturating_sub(readded).max(Decimal::ZERO);
            if let Some(first_own) = queue.iter().position(|r| r.order.is_some()) {
                let front: Decimal = queue.iter().take(first_own).map(|r| r.remaining).sum();
                let back = current - front - (cut - unexplained);
                let mut ahead = model.from_front(unexplained, front, back.max(Decimal::ZERO));
                cut -= ahead;
                for r in queue.iter_mut().take(first_own) {
                    if ahead <= Decimal::ZERO {
                        break;
                    }
                    let c = ahead.min(r.remaining);
                    r.remaining -= c;
                    ahead -= c;
                }
            }
            for r in queue.iter_mut().rev() {
                if cut <= Decimal::ZERO {
                    break;
                }
                if r.order.is_none() {
                    let c = cut.min(r.remaining);
                    r.remaining -= c;
                    cut -= c;
                }
            }
            let before = ownerless(queue);
            queue.retain(|r| r.order.is_some() || r.remaining > Decimal::ZERO);
            *synthetic = synthetic.saturating_sub(before - ownerless(queue));
        }
        if queue.is_empty() {
            levels.remove(&price);
        }
    }

    /// A recorded snapshot of `side` (`levels` best first, as deep as it was recorded): each
    /// listed level gets its recorded size ([`Book::set_recorded`]); a level between the best
    /// price and the snapshot's worst that is not listed has none left; beyond the worst
    /// listed price (not seen) recorded sizes are dropped, except at levels where own orders
    /// rest, which keep their last known queue. An empty side drops every recorded size.
    pub fn apply_snapshot(&mut self, side: Side, levels: &[(Decimal, Decimal)]) {
        self.apply_snapshot_with(side, levels, &FillModel::Fifo);
    }

    /// [`Book::apply_snapshot`] with each level set under `model` ([`Book::set_recorded_with`]).
    pub fn apply_snapshot_with(
        &mut self,
        side: Side,
        levels: &[(Decimal, Decimal)],
        model: &FillModel,
    ) {
        let worst = levels.last().map(|l| l.0);
        let listed: std::collections::BTreeSet<Decimal> = levels.iter().map(|l| l.0).collect();
        let gone: Vec<Decimal> = self
            .side(side)
            .keys()
            .copied()
            .filter(|p| !listed.contains(p))
            .filter(|p| {
                let covered = worst.is_none_or(|w| match side {
                    Side::Buy => *p >= w,
                    Side::Sell => *p <= w,
                });
                covered || !self.has_own(side, *p)
            })
            .collect();
        for p in gone {
            self.set_recorded_with(side, p, Decimal::ZERO, model);
        }
        for (p, q) in levels {
            self.set_recorded_with(side, *p, *q, model);
        }
    }

    /// A recorded trade of `qty` at `price` whose taker was on `taker`'s side: it trades
    /// through every better level of the other side (own orders there fill completely at their
    /// price, recorded sizes there are gone), then takes `qty` from the front of the level at
    /// `price` (recorded size and own orders in queue order). Returns the own orders' fills.
    pub fn recorded_trade(&mut self, taker: Side, price: Decimal, qty: Decimal) -> Vec<Fill> {
        let mut fills = Vec::new();
        let (levels, synthetic) = self.side_mut(taker.opposite());
        let through: Vec<Decimal> = match taker {
            Side::Buy => levels.range(..price).map(|(p, _)| *p).collect(),
            Side::Sell => levels
                .range((std::ops::Bound::Excluded(price), std::ops::Bound::Unbounded))
                .map(|(p, _)| *p)
                .collect(),
        };
        for p in through {
            for r in levels.remove(&p).into_iter().flatten() {
                if r.order.is_none() {
                    *synthetic = synthetic.saturating_sub(1);
                }
                if let Some(id) = r.order {
                    fills.push(Fill {
                        maker: Some(id),
                        price: p,
                        qty: r.remaining,
                    });
                }
            }
        }
        if let Some(queue) = levels.get_mut(&price) {
            let mut left = qty;
            while left > Decimal::ZERO {
                let Some(front) = queue.front_mut() else {
                    break;
                };
                let take = left.min(front.remaining);
                front.remaining -= take;
                left -= take;
                if let Some(id) = &front.order {
                    fills.push(Fill {
                        maker: Some(id.clone()),
                        price,
                        qty: take,
                    });
                }
                if front.remaining <= Decimal::ZERO
                    && queue.pop_front().is_some_and(|r| r.order.is_none())
                {
                    *synthetic = synthetic.saturating_sub(1);
                }
            }
            if queue.is_empty() {
                levels.remove(&price);
            }
        }
        fills
    }

    /// A recorded trade in a market whose book comes from websocket depth frames: own orders
    /// fill as [`Book::recorded_trade`] fills them, but the recorded sizes stay as they were
    /// (the depth frames report them, the trade's included); what the trade took ahead of
    /// an own order joins the back of its level again, so the own order moves up the queue.
    /// Returns the own orders' fills.
    pub fn streamed_trade(&mut self, taker: Side, price: Decimal, qty: Decimal) -> Vec<Fill> {
        let side = taker.opposite();
        let reached: Vec<(Decimal, Decimal)> = {
            let levels = self.side(side);
            let prices: Vec<Decimal> = match taker {
                Side::Buy => levels.range(..=price).map(|(p, _)| *p).collect(),
                Side::Sell => levels.range(price..).map(|(p, _)| *p).collect(),
            };
            prices
                .into_iter()
                .map(|p| (p, self.recorded_at(side, p)))
                .collect()
        };
        let fills = self.recorded_trade(taker, price, qty);
        for (p, q) in reached {
            // What the trade took is put back behind, until the next depth frame takes it.
            // (Several trades before one frame add up.)
            let taken = q
                .saturating_sub(self.recorded_at(side, p))
                .max(Decimal::ZERO);
            let before = self.readded.get(&(ix(side), p)).copied();
            self.set_recorded(side, p, q);
            let total = before.unwrap_or(Decimal::ZERO).saturating_add(taken);
            if total > Decimal::ZERO {
                self.readded.insert((ix(side), p), total);
            }
        }
        fills
    }

    /// Own orders that recorded liquidity on the other side now crosses (the market moved
    /// through them between two snapshots) fill as makers at their own price, as far as that
    /// liquidity goes, best own price first and in queue order; the liquidity they take is
    /// gone. Returns their fills.
    pub fn uncross(&mut self) -> Vec<Fill> {
        let mut fills = Vec::new();
        if !self.may_own {
            return fills;
        }
        let mut own_seen = false;
        for side in [Side::Buy, Side::Sell] {
            let opposite = side.opposite();
            let crosses = |own: Decimal, other: Decimal| match side {
                Side::Buy => other <= own,
                Side::Sell => other >= own,
            };
            // Own price levels, best first (one pass over the side's queues: this runs after
            // every recorded frame, and a lookup per level made it the replay's hot spot).
            let own_levels: Vec<Decimal> = {
                let levels = self.side(side);
                let holds_own =
                    |(_, q): &(&Decimal, &VecDeque<Resting>)| q.iter().any(|r| r.order.is_some());
                match side {
                    Side::Buy => levels
                        .iter()
                        .rev()
                        .filter(holds_own)
                        .map(|(p, _)| *p)
                        .collect(),
                    Side::Sell => levels.iter().filter(holds_own).map(|(p, _)| *p).collect(),
                }
            };
            let Some(best_own) = own_levels.first().copied() else {
                continue;
            };
            own_seen = true;
            // Recorded liquidity on the other side that crosses the best own price, best first
            // (read lazily: usually no level crosses, and the side is not copied).
            let recorded = |q: &VecDeque<Resting>| -> Decimal {
                q.iter()
                    .filter(|r| r.order.is_none())
                    .map(|r| r.remaining)
                    .sum()
            };
            let other = self.side(opposite);
            let best_first: Box<dyn Iterator<Item = (&Decimal, &VecDeque<Resting>)>> =
                match opposite {
                    Side::Buy => Box::new(other.iter().rev()),
                    Side::Sell => Box::new(other.iter()),
                };
            let mut pool: Vec<(Decimal, Decimal)> = best_first
                .take_while(|(p, _)| crosses(best_own, **p))
                .map(|(p, q)| (*p, recorded(q)))
                .filter(|(_, q)| *q > Decimal::ZERO)
                .collect();
            if pool.is_empty() {
                continue;
            }
            let taken_before: Vec<Decimal> = pool.iter().map(|(_, q)| *q).collect();
            for own in own_levels {
                let Some(queue) = self.side_mut(side).0.get_mut(&own) else {
                    continue;
                };
                for r in queue.iter_mut() {
                    let Some(id) = &r.order else {
                        continue;
                    };
                    for (p, avail) in pool.iter_mut() {
                        if r.remaining <= Decimal::ZERO || !crosses(own, *p) {
                            break;
                        }
                        let take = r.remaining.min(*avail);
                        if take <= Decimal::ZERO {
                            continue;
                        }
                        *avail -= take;
                        r.remaining -= take;
                        fills.push(Fill {
                            maker: Some(id.clone()),
                            price: own,
                            qty: take,
                        });
                    }
                }
                // Only own orders leave here: the synthetic count stays.
                queue.retain(|r| r.order.is_none() || r.remaining > Decimal::ZERO);
                if queue.is_empty() {
                    self.side_mut(side).0.remove(&own);
                }
            }
            for ((p, left), before) in pool.into_iter().zip(taken_before) {
                if left != before {
                    self.set_recorded_front(opposite, p, before - left);
                }
            }
        }
        if !own_seen {
            // No own order on either side: none until the next is queued.
            self.may_own = false;
        }
        fills
    }

    /// Takes `qty` of recorded size from the front of a level (own orders stay).
    fn set_recorded_front(&mut self, side: Side, price: Decimal, qty: Decimal) {
        let (levels, synthetic) = self.side_mut(side);
        let Some(queue) = levels.get_mut(&price) else {
            return;
        };
        let mut cut = qty;
        for r in queue.iter_mut() {
            if cut <= Decimal::ZERO {
                break;
            }
            if r.order.is_none() {
                let c = cut.min(r.remaining);
                r.remaining -= c;
                cut -= c;
            }
        }
        let before = ownerless(queue);
        queue.retain(|r| r.order.is_some() || r.remaining > Decimal::ZERO);
        *synthetic = synthetic.saturating_sub(before - ownerless(queue));
        if queue.is_empty() {
            levels.remove(&price);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::d;

    /// The kept synthetic counts agree with a fresh count.
    fn counted(b: &Book) {
        for side in [Side::Buy, Side::Sell] {
            assert_eq!(b.synthetic_count(side), b.recount(side), "{side:?}");
        }
    }

    #[test]
    fn synthetic_counts_follow_every_change() {
        let mut b = Book::seeded(5, d("100"), d("1"), || d("2"));
        counted(&b);
        assert_eq!(b.synthetic_count(Side::Sell), 5);
        b.push(Side::Sell, d("101"), Some("own".into()), d("1"));
        b.take(Side::Buy, None, Demand::Quantity(d("3")));
        counted(&b);
        assert!(b.remove_synthetic(0));
        assert!(b.remove_synthetic(6));
        counted(&b);
        b.set_recorded(Side::Buy, d("97"), d("9"));
        b.set_recorded(Side::Buy, d("96"), d("0"));
        b.apply_snapshot(Side::Sell, &[(d("103"), d("1")), (d("104"), d("0.5"))]);
        counted(&b);
        b.push(Side::Buy, d("103.5"), Some("cross".into()), d("1"));
        b.uncross();
        counted(&b);
        b.recorded_trade(Side::Sell, d("95"), d("1"));
        b.streamed_trade(Side::Buy, d("104"), d("0.2"));
        counted(&b);
        b.apply_snapshot(Side::Buy, &[]);
        b.apply_snapshot(Side::Sell, &[]);
        counted(&b);
        assert_eq!(b.synthetic_count(Side::Buy), 0);
        b.replenish(4, d("100"), d("1"), || d("1"));
        counted(&b);
        assert_eq!(b.synthetic_count(Side::Buy), 4);
    }

    fn book() -> Book {
        let mut b = Book::default();
        b.push(Side::Sell, d("101"), Some("a1".into()), d("1"));
        b.push(Side::Sell, d("101"), Some("a2".into()), d("2"));
        b.push(Side::Sell, d("102"), None, d("5"));
        b.push(Side::Buy, d("99"), Some("b1".into()), d("3"));
        b
    }

    #[test]
    fn walk_takes_best_price_then_oldest_and_stops_at_the_limit() {
        let mut b = book();
        let w = b.take(Side::Buy, Some(d("101")), Demand::Quantity(d("2.5")));
        assert_eq!(
            w.fills,
            vec![
                Fill {
                    maker: Some("a1".into()),
                    price: d("101"),
                    qty: d("1")
                },
                Fill {
                    maker: Some("a2".into()),
                    price: d("101"),
                    qty: d("1.5")
                },
            ]
        );
        assert!(!w.exhausted);
        assert_eq!(
            b.levels(Side::Sell, 10),
            vec![(d("101"), d("0.5")), (d("102"), d("5"))]
        );
        // Beyond the limit nothing is taken.
        let w = b.take(Side::Buy, Some(d("100")), Demand::Quantity(d("1")));
        assert!(w.fills.is_empty());
        // Without a limit the side can run out.
        let w = b.take(Side::Sell, None, Demand::Quantity(d("10")));
        assert_eq!(w.fills.len(), 1);
        assert!(w.exhausted);
        assert_eq!(b.best_bid(), None);
    }

    #[test]
    fn a_streamed_trade_fills_own_orders_and_leaves_recorded_sizes() {
        let mut b = Book::default();
        // Recorded 2 ahead of an own order of 1 at 101; recorded 4 at 100.5 (traded through).
        b.set_recorded(Side::Sell, d("100.5"), d("4"));
        b.set_recorded(Side::Sell, d("101"), d("2"));
        b.push(Side::Sell, d("101"), Some("own".into()), d("1"));
        b.set_recorded(Side::Sell, d("102"), d("7"));
        let fills = b.streamed_trade(Side::Buy, d("101"), d("2.5"));
        assert_eq!(
            fills,
            vec![Fill {
                maker: Some("own".into()),
                price: d("101"),
                qty: d("0.5")
            }]
        );
        // The recorded sizes are what the depth frames said; the own order's rest is now
        // ahead of the recorded size at its level.
        assert_eq!(
            b.levels(Side::Sell, 10),
            vec![
                (d("100.5"), d("4")),
                (d("101"), d("2.5")),
                (d("102"), d("7"))
            ]
        );
        assert_eq!(b.recorded_at(Side::Sell, d("101")), d("2"));
        let next = b.streamed_trade(Side::Buy, d("101"), d("0.5"));
        assert_eq!(next.len(), 1);
        assert_eq!(next[0].qty, d("0.5"));
        // A trade that reaches no own order changes nothing.
        let before = (b.levels(Side::Buy, 10), b.levels(Side::Sell, 10));
        assert!(b.streamed_trade(Side::Buy, d("101"), d("1")).is_empty());
        assert_eq!((b.levels(Side::Buy, 10), b.levels(Side::Sell, 10)), before);
    }

    #[test]
    fn value_demand_buys_what_the_value_pays_for() {
        let mut b = book();
        // 150 buys 1 at 101 (49 left), then floor(49 / 101, 2) = 0.48.
        let w = b.take(
            Side::Buy,
            None,
            Demand::Value {
                value: d("150"),
                dp: 2,
            },
        );
        let got: Vec<_> = w.fills.iter().map(|f| (f.price, f.qty)).collect();
        assert_eq!(got, vec![(d("101"), d("1")), (d("101"), d("0.48"))]);
        assert!(!w.exhausted);
    }

    #[test]
    fn seeding_and_replenishing_follow_the_gap() {
        let mut n = 0;
        let mut b = Book::seeded(3, d("10"), d("4"), || {
            n += 1;
            Decimal::from(n)
        });
        // Asks 14, 18, 22 (sizes 1, 3, 5); bids 6, 2 (sizes 2, 4); -2 is not quoted.
        assert_eq!(
            b.levels(Side::Sell, 5),
            vec![(d("14"), d("1")), (d("18"), d("3")), (d("22"), d("5"))]
        );
        assert_eq!(
            b.levels(Side::Buy, 5),
            vec![(d("6"), d("2")), (d("2"), d("4"))]
        );
        b.take(Side::Buy, None, Demand::Quantity(d("4")));
        assert_eq!(b.synthetic_count(Side::Sell), 1);
        b.replenish(3, d("10"), d("4"), || d("7"));
        assert_eq!(
            b.levels(Side::Sell, 5),
            vec![(d("22"), d("5")), (d("26"), d("7")), (d("30"), d("7"))]
        );
        // Bids hold 2 of 3 synthetic orders (at least half): untouched.
        assert_eq!(b.synthetic_count(Side::Buy), 2);
        assert!(b.would_take(Side::Buy, d("22")));
        assert!(!b.would_take(Side::Buy, d("21.9")));
        assert_eq!(b.available(Side::Buy, d("26")), d("12"));
        b.remove_order(Side::Sell, d("22"), "none");
        assert_eq!(b.best_ask(), Some(d("22")));
    }

    type Queue = Vec<(Option<String>, Decimal)>;

    fn own(b: &Book, side: Side) -> Vec<(Decimal, Queue)> {
        let levels = b.side(side);
        levels
            .iter()
            .map(|(p, q)| {
                (
                    *p,
                    q.iter().map(|r| (r.order.clone(), r.remaining)).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn recorded_sizes_queue_around_own_orders() {
        let mut b = Book::default();
        b.apply_snapshot(Side::Buy, &[(d("10"), d("5")), (d("9"), d("2"))]);
        b.push(Side::Buy, d("10"), Some("me".into()), d("3"));
        // Growth joins behind, a reduction leaves from behind first.
        b.set_recorded(Side::Buy, d("10"), d("8"));
        assert_eq!(
            own(&b, Side::Buy)[1].1,
            vec![(None, d("5")), (Some("me".into()), d("3")), (None, d("3"))]
        );
        b.set_recorded(Side::Buy, d("10"), d("4"));
        assert_eq!(
            own(&b, Side::Buy)[1].1,
            vec![(None, d("4")), (Some("me".into()), d("3"))]
        );
        assert_eq!(b.recorded_at(Side::Buy, d("10")), d("4"));
        // A trade takes from the front: 4 ahead, then 1 of ours.
        let fills = b.recorded_trade(Side::Sell, d("10"), d("5"));
        assert_eq!(
            fills,
            vec![Fill {
                maker: Some("me".into()),
                price: d("10"),
                qty: d("1")
            }]
        );
        assert_eq!(own(&b, Side::Buy)[1].1, vec![(Some("me".into()), d("2"))]);
        // Trading through 10 at 9 fills the rest and clears the level.
        let fills = b.recorded_trade(Side::Sell, d("9"), d("1"));
        assert_eq!(fills[0].qty, d("2"));
        assert_eq!(b.levels(Side::Buy, 5), vec![(d("9"), d("1"))]);
    }

    #[test]
    fn snapshots_drop_unlisted_levels_but_keep_deep_own_queues() {
        let mut b = Book::default();
        b.apply_snapshot(
            Side::Sell,
            &[(d("11"), d("1")), (d("12"), d("2")), (d("15"), d("4"))],
        );
        b.push(Side::Sell, d("15"), Some("deep".into()), d("1"));
        b.apply_snapshot(Side::Sell, &[(d("10"), d("1")), (d("12"), d("3"))]);
        // 11 is gone (inside the snapshot), 15 is beyond it and keeps its queue.
        assert_eq!(
            b.levels(Side::Sell, 5),
            vec![(d("10"), d("1")), (d("12"), d("3")), (d("15"), d("5"))]
        );
        b.apply_snapshot(Side::Sell, &[]);
        assert_eq!(b.levels(Side::Sell, 5), vec![(d("15"), d("1"))]);
    }

    #[test]
    fn crossed_own_orders_fill_at_their_price() {
        let mut b = Book::default();
        b.push(Side::Buy, d("10"), Some("bid".into()), d("3"));
        b.apply_snapshot(
            Side::Sell,
            &[(d("9.9"), d("1")), (d("10"), d("1")), (d("10.1"), d("5"))],
        );
        let fills = b.uncross();
        assert_eq!(
            fills,
            vec![
                Fill {
                    maker: Some("bid".into()),
                    price: d("10"),
                    qty: d("1")
                },
                Fill {
                    maker: Some("bid".into()),
                    price: d("10"),
                    qty: d("1")
                },
            ]
        );
        assert_eq!(b.levels(Side::Buy, 5), vec![(d("10"), d("1"))]);
        assert_eq!(b.levels(Side::Sell, 5), vec![(d("10.1"), d("5"))]);
    }
}
