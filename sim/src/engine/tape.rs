//! The tape of one pair or instrument: its public trades, and the candles and 24-hour figures
//! computed from them.
//!
//! Every public trade of a market (a user's order taking liquidity, the order flow's market
//! orders, a recorded trade) is pushed here once, in time order; the REST trades lists, the
//! tickers, the klines and candles, and the websocket trades and ticker channels all read it,
//! so they agree with each other and with the trades that happened.
//!
//! Candles are kept at three resolutions, each bounded ([`crate::config::Retention`]): one
//! minute (default 2 days), one hour (90 days) and one day (10 years). A candle of a longer
//! period is the union of the shorter ones it covers; a period whose trades have fallen out of
//! every resolution that could build it has no candle (the dialects then answer it flat at the
//! previous close, as a period without trades).
//!
//! DESIGN (the rolling 24 hours): the 24-hour figures (open, high, low, last, volumes) cover
//! the trades of the last 1,440 whole minutes up to now, the current minute included: a minute
//! leaves the window as a whole. `open` is the first trade of the window, `last` the latest
//! trade (also when it is older than the window), and the volume-weighted price
//! `turnover / volume` always lies within `[low, high]` because all come from the same trades.

use crate::engine::book::Side;
use rust_decimal::Decimal;
use std::collections::VecDeque;

/// One minute, in ms.
pub const MINUTE_MS: i64 = 60_000;
/// One hour, in ms.
pub const HOUR_MS: i64 = 3_600_000;
/// One day, in ms.
pub const DAY_MS: i64 = 86_400_000;

/// A public trade.
#[derive(Debug, Clone, PartialEq)]
pub struct Trade {
    /// Trade id (one sequence per family).
    pub id: u64,
    /// Time (ms).
    pub time_ms: i64,
    /// Price.
    pub price: Decimal,
    /// Quantity: spot base amount, swap contracts.
    pub qty: Decimal,
    /// The taker's side.
    pub side: Side,
    /// Swap only: the taker's order kind (1 open long, 2 open short, 3 close long, 4 close
    /// short); 0 on spot.
    pub direction: i64,
}

/// Open, high, low and close with volumes over some time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candle {
    /// Start of the period (ms).
    pub start_ms: i64,
    /// First trade's price.
    pub open: Decimal,
    /// Highest price.
    pub high: Decimal,
    /// Lowest price.
    pub low: Decimal,
    /// Last trade's price.
    pub close: Decimal,
    /// Quantity traded (spot base, swap contracts).
    pub volume: Decimal,
    /// Sum of quantity times price.
    pub turnover: Decimal,
    /// Number of trades.
    pub count: u64,
    /// Time of the first trade (ms).
    pub first_ms: i64,
    /// Time of the last trade (ms).
    pub last_ms: i64,
}

impl Candle {
    fn of(start_ms: i64, t: &Trade) -> Candle {
        Candle {
            start_ms,
            open: t.price,
            high: t.price,
            low: t.price,
            close: t.price,
            volume: t.qty,
            turnover: t.qty * t.price,
            count: 1,
            first_ms: t.time_ms,
            last_ms: t.time_ms,
        }
    }

    fn add(&mut self, t: &Trade) {
        self.high = self.high.max(t.price);
        self.low = self.low.min(t.price);
        // A late trade takes its place in time: it changes the close only when it is the
        // latest, the open when it is the earliest.
        if t.time_ms >= self.last_ms {
            self.close = t.price;
            self.last_ms = t.time_ms;
        }
        if t.time_ms < self.first_ms {
            self.open = t.price;
            self.first_ms = t.time_ms;
        }
        self.volume += t.qty;
        self.turnover += t.qty * t.price;
        self.count += 1;
    }

    /// `later` appended to this one (the start stays).
    fn merge(&mut self, later: &Candle) {
        self.high = self.high.max(later.high);
        self.low = self.low.min(later.low);
        self.close = later.close;
        self.last_ms = later.last_ms;
        self.volume += later.volume;
        self.turnover += later.turnover;
        self.count += later.count;
    }
}

/// Candles of one resolution, oldest first, the newest `keep` kept.
#[derive(Debug, Clone)]
struct Series {
    period_ms: i64,
    keep: usize,
    candles: VecDeque<Candle>,
    /// Whether a candle was ever dropped (the series then covers from its first candle on).
    dropped: bool,
}

impl Series {
    fn new(period_ms: i64, keep: usize) -> Series {
        Series {
            period_ms,
            keep,
            candles: VecDeque::new(),
            dropped: false,
        }
    }

    fn add(&mut self, t: &Trade) {
        if self.keep == 0 {
            return;
        }
        let start = t.time_ms.div_euclid(self.period_ms) * self.period_ms;
        match self.candles.back_mut() {
            Some(last) if last.start_ms == start => last.add(t),
            Some(last) if last.start_ms > start => {
                // A late trade (a recording's trades arrive a little out of order).
                let i = self.candles.partition_point(|c| c.start_ms < start);
                let room = i > 0 || self.candles.len() < self.keep;
                match self.candles.get_mut(i) {
                    Some(c) if c.start_ms == start => c.add(t),
                    _ if room => {
                        self.candles.insert(i, Candle::of(start, t));
                        self.trim();
                    }
                    _ => {}
                }
            }
            _ => {
                self.candles.push_back(Candle::of(start, t));
                self.trim();
            }
        }
    }

    fn trim(&mut self) {
        while self.candles.len() > self.keep {
            self.candles.pop_front();
            self.dropped = true;
        }
    }

    fn clear(&mut self) {
        self.candles.clear();
        self.dropped = false;
    }

    /// Whether this series still holds everything from `from_ms` on (nothing was dropped, or
    /// `from_ms` is at or after its first candle).
    fn covers(&self, from_ms: i64) -> bool {
        !self.dropped || self.candles.front().is_some_and(|c| c.start_ms <= from_ms)
    }

    /// The union of the candles starting in `[from_ms, to_ms)`.
    fn union(&self, from_ms: i64, to_ms: i64, into: &mut Option<Candle>) {
        let i = self.candles.partition_point(|c| c.start_ms < from_ms);
        for c in self.candles.range(i..) {
            if c.start_ms >= to_ms {
                break;
            }
            match into {
                Some(acc) => acc.merge(c),
                None => *into = Some(*c),
            }
        }
    }
}

/// How much of a tape is kept (see [`crate::config::Retention`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TapeLimits {
    /// Public trades kept.
    pub trades: usize,
    /// One-minute candles kept.
    pub minutes: usize,
    /// One-hour candles kept.
    pub hours: usize,
    /// One-day candles kept.
    pub days: usize,
}

impl TapeLimits {
    /// What a market's tape keeps under `retention`.
    pub fn of(retention: &crate::config::Retention) -> TapeLimits {
        TapeLimits {
            trades: retention.public_trades_per_market,
            minutes: retention.candle_minutes,
            hours: retention.candle_hours,
            days: retention.candle_days,
        }
    }
}

/// The trades of one market and their candles.
#[derive(Debug, Clone)]
pub struct Tape {
    trades: VecDeque<Trade>,
    keep_trades: usize,
    last: Option<Trade>,
    minutes: Series,
    hours: Series,
    days: Series,
}

impl Tape {
    /// An empty tape keeping `limits`.
    pub fn new(limits: TapeLimits) -> Tape {
        Tape {
            trades: VecDeque::new(),
            keep_trades: limits.trades,
            last: None,
            minutes: Series::new(MINUTE_MS, limits.minutes),
            hours: Series::new(HOUR_MS, limits.hours),
            days: Series::new(DAY_MS, limits.days),
        }
    }

    /// Appends a trade (trades come in time order; a slightly late one still counts in its
    /// candles).
    pub fn push(&mut self, t: Trade) {
        self.minutes.add(&t);
        self.hours.add(&t);
        self.days.add(&t);
        if self.last.as_ref().is_none_or(|l| t.time_ms >= l.time_ms) {
            self.last = Some(t.clone());
        }
        if self.keep_trades > 0 {
            self.trades.push_back(t);
            while self.trades.len() > self.keep_trades {
                self.trades.pop_front();
            }
        }
    }

    /// The kept trades, oldest first.
    pub fn trades(&self) -> &VecDeque<Trade> {
        &self.trades
    }

    /// The kept trades with an id above `id`, oldest first.
    pub fn since(&self, id: u64) -> impl DoubleEndedIterator<Item = &Trade> + '_ {
        let from = self.trades.partition_point(|t| t.id <= id);
        self.trades.range(from..)
    }

    /// The latest trade (kept even when the trades list keeps none).
    pub fn last(&self) -> Option<&Trade> {
        self.last.as_ref()
    }

    /// Forgets every trade and candle (a recording takes the market over).
    pub fn clear(&mut self) {
        self.trades.clear();
        self.last = None;
        self.minutes.clear();
        self.hours.clear();
        self.days.clear();
    }

    /// The union of the trades in `[from_ms, to_ms)`, both multiples of a minute, from the
    /// coarsest resolution that covers each part; `None` without trades.
    pub fn range(&self, from_ms: i64, to_ms: i64) -> Option<Candle> {
        let mut acc = None;
        let mut t = from_ms;
        while t < to_ms {
            // The longest aligned step that fits and a series still covers.
            let step = [
                (DAY_MS, &self.days),
                (HOUR_MS, &self.hours),
                (MINUTE_MS, &self.minutes),
            ]
            .into_iter()
            .find(|(p, s)| t.rem_euclid(*p) == 0 && t + p <= to_ms && s.covers(t));
            match step {
                Some((p, s)) => {
                    // Whole periods of this size, up to the next boundary of a coarser one
                    // (from there the coarser series may take over).
                    let coarser = match p {
                        MINUTE_MS => (t.div_euclid(HOUR_MS) + 1) * HOUR_MS,
                        HOUR_MS => (t.div_euclid(DAY_MS) + 1) * DAY_MS,
                        _ => to_ms,
                    };
                    let end = (t + (to_ms - t) / p * p).min(coarser);
                    s.union(t, end, &mut acc);
                    t = end;
                }
                None => {
                    // Not covered at minute resolution: skip to the next minute.
                    t = (t.div_euclid(MINUTE_MS) + 1) * MINUTE_MS;
                }
            }
        }
        acc
    }

    /// The candle of the period of `len_ms` starting at `start_ms` (`None` without trades, or
    /// when no resolution still holds them).
    pub fn candle(&self, start_ms: i64, len_ms: i64) -> Option<Candle> {
        self.range(start_ms, start_ms.saturating_add(len_ms))
            .map(|mut c| {
                c.start_ms = start_ms;
                c
            })
    }

    /// The 24-hour figures at `now_ms` (see the module docs); `None` without trades in the
    /// window.
    pub fn day(&self, now_ms: i64) -> Option<Candle> {
        let end = (now_ms.div_euclid(MINUTE_MS) + 1) * MINUTE_MS;
        self.range(end - DAY_MS, end)
    }

    /// The first price the tape still knows (the open of its earliest candle).
    pub fn first_price(&self) -> Option<Decimal> {
        [&self.days, &self.hours, &self.minutes]
            .into_iter()
            .filter_map(|s| s.candles.front())
            .min_by_key(|c| c.start_ms)
            .map(|c| c.open)
    }

    /// The close before `time_ms`: the last trade before it that the tape still knows.
    pub fn close_before(&self, time_ms: i64) -> Option<Decimal> {
        let before = |c: &VecDeque<Candle>| {
            let i = c.partition_point(|k| k.start_ms < time_ms);
            i.checked_sub(1).and_then(|j| c.get(j)).map(|k| k.close)
        };
        // A minute candle starting before `time_ms` may hold trades after it; the trades list
        // decides when it reaches back far enough.
        let i = self.trades.partition_point(|t| t.time_ms < time_ms);
        if i > 0 {
            return self.trades.get(i - 1).map(|t| t.price);
        }
        before(&self.minutes.candles)
            .or_else(|| before(&self.hours.candles))
            .or_else(|| before(&self.days.candles))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::d;

    fn tape() -> Tape {
        Tape::new(TapeLimits {
            trades: 100,
            minutes: 3000,
            hours: 100,
            days: 10,
        })
    }

    fn trade(id: u64, time_ms: i64, price: &str, qty: &str) -> Trade {
        Trade {
            id,
            time_ms,
            price: d(price),
            qty: d(qty),
            side: Side::Buy,
            direction: 0,
        }
    }

    #[test]
    fn candles_and_the_day_come_from_the_trades() {
        let mut t = tape();
        let base = 10 * DAY_MS;
        t.push(trade(1, base + 1_000, "10", "1"));
        t.push(trade(2, base + 61_000, "12", "2"));
        t.push(trade(3, base + HOUR_MS + 5_000, "9", "1"));
        // Late by 30 s: counted in its own minute.
        t.push(trade(4, base + 30_000, "11", "1"));
        let m0 = t.candle(base, MINUTE_MS).unwrap();
        assert_eq!(
            (m0.open, m0.close, m0.high, m0.volume),
            (d("10"), d("11"), d("11"), d("2"))
        );
        let h0 = t.candle(base, HOUR_MS).unwrap();
        assert_eq!(
            (h0.open, h0.high, h0.low, h0.close),
            (d("10"), d("12"), d("10"), d("12"))
        );
        assert_eq!((h0.volume, h0.turnover, h0.count), (d("4"), d("45"), 3));
        let day = t.day(base + HOUR_MS + 10_000).unwrap();
        assert_eq!(
            (day.open, day.high, day.low, day.close),
            (d("10"), d("12"), d("9"), d("9"))
        );
        assert_eq!(day.volume, d("5"));
        let vwap = day.turnover / day.volume;
        assert!(day.low <= vwap && vwap <= day.high);
        // A day later the first hour has left the window.
        let later = t.day(base + DAY_MS + 30 * MINUTE_MS).unwrap();
        assert_eq!((later.open, later.volume), (d("9"), d("1")));
        assert!(t.day(base + 3 * DAY_MS).is_none());
        assert_eq!(t.last().unwrap().id, 3);
        assert_eq!(t.close_before(base + HOUR_MS), Some(d("12")));
        assert_eq!(t.since(2).map(|x| x.id).collect::<Vec<_>>(), vec![3, 4]);
    }

    #[test]
    fn dropped_minutes_fall_back_to_hours_and_bounds_hold() {
        let mut t = Tape::new(TapeLimits {
            trades: 2,
            minutes: 60,
            hours: 48,
            days: 3,
        });
        for m in 0..180i64 {
            t.push(trade(
                u64::try_from(m).unwrap(),
                m * MINUTE_MS,
                &(100 + m).to_string(),
                "1",
            ));
        }
        assert_eq!(t.trades().len(), 2);
        // Minutes 0..120 are gone; the first two hours come from the hour candles.
        let c = t.range(0, 2 * HOUR_MS).unwrap();
        assert_eq!((c.open, c.close, c.volume), (d("100"), d("219"), d("120")));
        // A 5-minute candle in the dropped hours cannot be built.
        assert!(t.candle(10 * MINUTE_MS, 5 * MINUTE_MS).is_none());
        assert_eq!(
            t.candle(150 * MINUTE_MS, 5 * MINUTE_MS).unwrap().open,
            d("250")
        );
    }
}
