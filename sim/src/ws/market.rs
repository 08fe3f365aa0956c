//! The streamed market of one symbol or instrument: a book on a price grid that changes a
//! little every tick (sizes, new and removed levels, the mid moving by a tick) and the trades
//! it prints. Deterministic from the seed and the market's name.
//!
//! DESIGN: the stream market is separate from the REST matching books: it exists to exercise
//! the book maintenance of a client (snapshot, deltas, windows, deletes), so it changes every
//! tick, which the REST books (that move only when someone trades) do not.

use std::collections::{BTreeMap, VecDeque};

use rust_decimal::Decimal;

use crate::rng::{mix, Rng};

/// Price grid steps each side of the mid.
const GRID: i64 = 60;

/// One public trade.
#[derive(Debug, Clone, PartialEq)]
pub struct Trade {
    /// Id.
    pub id: u64,
    /// Price.
    pub price: Decimal,
    /// Amount (spot base) or contracts (swap).
    pub amount: Decimal,
    /// The taker bought.
    pub buy: bool,
    /// Time, ms.
    pub time_ms: i64,
}

/// A book side's window: price to size.
pub type Side = BTreeMap<Decimal, Decimal>;

/// A level: price and size.
pub type Level = (Decimal, Decimal);

/// One market.
#[derive(Debug, Clone)]
pub struct Market {
    rng: Rng,
    /// Price decimals (spot 2, swap 1).
    price_scale: u32,
    /// Size decimals (spot 3, swap 0: integer contracts).
    size_scale: u32,
    /// Mid in ticks.
    mid: i64,
    /// Bid sizes by price in ticks (below the mid).
    bids: BTreeMap<i64, i64>,
    /// Ask sizes by price in ticks (above the mid).
    asks: BTreeMap<i64, i64>,
    next_trade: u64,
    /// Recent trades, newest last.
    pub trades: VecDeque<Trade>,
}

impl Market {
    /// A market named `name` (`BTC_USDT`, `BTCUSDTPERP`); `swap` gives integer sizes and one
    /// price decimal.
    pub fn new(seed: u64, name: &str, swap: bool) -> Market {
        let h = name.bytes().fold(seed, |acc, b| mix(acc ^ u64::from(b)));
        let mut rng = Rng::new(h);
        let mid = 300_000 + i64::try_from(rng.below(100_000)).unwrap_or(0);
        let mut m = Market {
            rng,
            price_scale: if swap { 1 } else { 2 },
            size_scale: if swap { 0 } else { 3 },
            mid,
            bids: BTreeMap::new(),
            asks: BTreeMap::new(),
            next_trade: 1_000_000 + (h % 1_000_000),
            trades: VecDeque::new(),
        };
        for i in 1..=GRID {
            if m.rng.below(4) != 0 {
                let s = m.size();
                m.bids.insert(mid - i, s);
            }
            if m.rng.below(4) != 0 {
                let s = m.size();
                m.asks.insert(mid + i, s);
            }
        }
        m
    }

    fn size(&mut self) -> i64 {
        let range = if self.size_scale == 0 { 500 } else { 5000 };
        1 + i64::try_from(self.rng.below(range)).unwrap_or(0)
    }

    fn price(&self, ticks: i64) -> Decimal {
        Decimal::new(ticks, self.price_scale)
    }

    fn amount(&self, units: i64) -> Decimal {
        Decimal::new(units, self.size_scale)
    }

    /// One tick of change at `now_ms`.
    pub fn step(&mut self, now_ms: i64) {
        // The mid moves by one tick now and then; levels on the wrong side go.
        if self.rng.below(8) == 0 {
            let up = self.rng.below(2) == 0;
            self.mid += if up { 1 } else { -1 };
            let mid = self.mid;
            self.bids.retain(|p, _| *p < mid);
            self.asks.retain(|p, _| *p > mid);
            // The side that moved back keeps a level next to the mid.
            let s = self.size();
            if up {
                self.bids.insert(mid - 1, s);
            } else {
                self.asks.insert(mid + 1, s);
            }
        }
        for _ in 0..1 + self.rng.below(3) {
            let bid = self.rng.below(2) == 0;
            let offset =
                1 + i64::try_from(self.rng.below(u64::try_from(GRID).unwrap_or(1))).unwrap_or(0);
            let remove = self.rng.below(4) == 0;
            let s = self.size();
            let (side, price) = if bid {
                (&mut self.bids, self.mid - offset)
            } else {
                (&mut self.asks, self.mid + offset)
            };
            if remove {
                side.remove(&price);
            } else {
                side.insert(price, s);
            }
        }
        if self.rng.below(3) == 0 {
            let buy = self.rng.below(2) == 0;
            let price = if buy {
                self.asks.keys().next().copied()
            } else {
                self.bids.keys().next_back().copied()
            }
            .unwrap_or(self.mid);
            let units = 1 + i64::try_from(self.rng.below(20)).unwrap_or(0);
            self.next_trade += 1;
            self.trades.push_back(Trade {
                id: self.next_trade,
                price: self.price(price),
                amount: self.amount(units),
                buy,
                time_ms: now_ms,
            });
            while self.trades.len() > 50 {
                self.trades.pop_front();
            }
        }
    }

    /// The best `depth` levels each side: (bids, asks).
    pub fn window(&self, depth: usize) -> (Side, Side) {
        let bids = self
            .bids
            .iter()
            .rev()
            .take(depth)
            .map(|(p, s)| (self.price(*p), self.amount(*s)))
            .collect();
        let asks = self
            .asks
            .iter()
            .take(depth)
            .map(|(p, s)| (self.price(*p), self.amount(*s)))
            .collect();
        (bids, asks)
    }

    /// Best bid and ask.
    pub fn top(&self) -> (Option<Level>, Option<Level>) {
        (
            self.bids
                .iter()
                .next_back()
                .map(|(p, s)| (self.price(*p), self.amount(*s))),
            self.asks
                .iter()
                .next()
                .map(|(p, s)| (self.price(*p), self.amount(*s))),
        )
    }

    /// The mid price.
    pub fn mid(&self) -> Decimal {
        self.price(self.mid)
    }

    /// Last trade, if any.
    pub fn last(&self) -> Option<&Trade> {
        self.trades.back()
    }
}

/// The changes from `old` to `new`: changed or new levels with their size, removed levels with
/// size 0.
pub fn diff(old: &Side, new: &Side) -> Vec<Level> {
    let mut out: Vec<Level> = old
        .keys()
        .filter(|p| !new.contains_key(p))
        .map(|p| (*p, Decimal::ZERO))
        .collect();
    out.extend(
        new.iter()
            .filter(|(p, s)| old.get(p) != Some(s))
            .map(|(p, s)| (*p, *s)),
    );
    out.sort_by_key(|l| l.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_crossed_and_diff_rebuilds() {
        let mut m = Market::new(7, "BTCUSDTPERP", true);
        let (mut bids, mut asks) = m.window(20);
        for t in 0..2000 {
            m.step(t);
            let (nb, na) = m.window(20);
            let (b, a) = m.top();
            assert!(b.unwrap().0 < a.unwrap().0);
            for (p, s) in diff(&bids, &nb) {
                if s.is_zero() {
                    bids.remove(&p);
                } else {
                    bids.insert(p, s);
                }
            }
            for (p, s) in diff(&asks, &na) {
                if s.is_zero() {
                    asks.remove(&p);
                } else {
                    asks.insert(p, s);
                }
            }
            assert_eq!((&bids, &asks), (&nb, &na));
        }
    }
}
