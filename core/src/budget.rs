//! Request-weight budgets as pure state machines: the client asks before sending and is told to
//! go or how long to wait, so that it never crosses the exchange's limit.
//!
//! * Spot v3: at most 1200 weight per minute per IP, API key and user
//!   ([`SPOT_WEIGHT_PER_MINUTE`]); the weight of each endpoint is not documented, so each request
//!   counts 1 unless its [`crate::Meta::weight`] says otherwise.
//! * Swap v2: the venue's headers show 6,000 per minute per IP for public routes
//!   ([`SWAP_WEIGHT_PER_MINUTE`], docs/protocol.md); private routes are limited per account and per
//!   API key with totals the venue does not state, so they get a budget of the same size, kept
//!   in step with the server's own count through [`WeightBudget::observe_remaining`] (the
//!   `*-weight-minute-remain` headers). Route weights are declared per endpoint
//!   ([`crate::Meta::weight`], from the venue's published weights) and can be refreshed from
//!   `GET /swap/v2/public/api_weight` ([`crate::ratelimit::WeightTable`]).
//! * Crossing the spot limit anyway leads to bans that grow with repetition within 24 hours
//!   ([`BanSchedule`]); the session applies it: after a 10005 or 429 it refuses spot calls
//!   locally until the ban ends ([`crate::Error::BanActive`]).

/// The documented spot limit: 1200 weight per minute.
pub const SPOT_WEIGHT_PER_MINUTE: u64 = 1200;

/// The swap limit the venue reports for public routes: 6,000 weight per minute per IP
/// (`ip-weight-minute-use` 5 and `-remain` 5995 after one call; docs/protocol.md).
pub const SWAP_WEIGHT_PER_MINUTE: u64 = 6000;

use std::collections::VecDeque;
use std::time::Duration;

use crate::types::TimestampMillis;

/// A sliding-window weight budget.
#[derive(Debug, Clone)]
pub struct WeightBudget {
    limit: u64,
    window_ms: i64,
    /// (time, weight) of each request still inside the window, oldest first.
    spent: VecDeque<(i64, u64)>,
    used: u64,
}

impl WeightBudget {
    /// A budget of `limit` weight per `window`.
    pub fn new(limit: u64, window: Duration) -> Self {
        WeightBudget {
            limit,
            window_ms: i64::try_from(window.as_millis()).unwrap_or(i64::MAX),
            spent: VecDeque::new(),
            used: 0,
        }
    }

    /// The configured limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Weight spent inside the window ending at `now`.
    pub fn used(&mut self, now: TimestampMillis) -> u64 {
        self.expire(now);
        self.used
    }

    fn expire(&mut self, now: TimestampMillis) {
        while let Some(&(t, w)) = self.spent.front() {
            if now.0.saturating_sub(t) >= self.window_ms {
                self.spent.pop_front();
                self.used = self.used.saturating_sub(w);
            } else {
                break;
            }
        }
    }

    /// Takes `weight` from the budget if it fits now (`Ok`), or returns how long to wait until
    /// it fits (nothing is taken). A weight above the whole limit is allowed once the window is
    /// empty, so it cannot wait forever.
    pub fn try_acquire(&mut self, weight: u64, now: TimestampMillis) -> Result<(), Duration> {
        self.expire(now);
        if self.used.saturating_add(weight) <= self.limit || self.spent.is_empty() {
            self.spent.push_back((now.0, weight));
            self.used = self.used.saturating_add(weight);
            return Ok(());
        }
        // Wait until enough of the oldest entries leave the window.
        let mut freed = 0u64;
        let need = self.used.saturating_add(weight).saturating_sub(self.limit);
        for &(t, w) in &self.spent {
            freed = freed.saturating_add(w);
            if freed >= need {
                let leaves_at = t.saturating_add(self.window_ms);
                let wait = leaves_at.saturating_sub(now.0).max(0);
                return Err(Duration::from_millis(wait.unsigned_abs()));
            }
        }
        let last = self.spent.back().map_or(now.0, |&(t, _)| t);
        Err(Duration::from_millis(
            last.saturating_add(self.window_ms)
                .saturating_sub(now.0)
                .max(0)
                .unsigned_abs(),
        ))
    }

    /// Aligns the budget with the server's count: when the server reports less weight remaining
    /// than the budget believes, the difference is recorded as spent now.
    pub fn observe_remaining(&mut self, remaining: u64, now: TimestampMillis) {
        self.expire(now);
        let believed = self.limit.saturating_sub(self.used);
        // `remaining` comes from the server: the difference is taken only when it is positive.
        if let Some(extra) = believed.checked_sub(remaining).filter(|&d| d > 0) {
            self.spent.push_back((now.0, extra));
            self.used = self.used.saturating_add(extra);
        }
    }
}

/// The spot request-weight ban schedule: within 24 hours, the first 3 violations ban for 2
/// minutes, the 4th to 6th for 10 minutes, and any further one for 30 minutes.
#[derive(Debug, Clone, Default)]
pub struct BanSchedule {
    violations: VecDeque<i64>,
}

impl BanSchedule {
    const DAY_MS: i64 = 86_400_000;

    /// An empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a violation (a 10005 or 429 answer) at `now` and returns the ban it incurs.
    pub fn record_violation(&mut self, now: TimestampMillis) -> Duration {
        while let Some(&t) = self.violations.front() {
            if now.0.saturating_sub(t) >= Self::DAY_MS {
                self.violations.pop_front();
            } else {
                break;
            }
        }
        self.violations.push_back(now.0);
        Self::ban_for(self.violations.len())
    }

    /// The ban after the `n`-th violation within 24 hours (1-based).
    pub fn ban_for(n: usize) -> Duration {
        match n {
            0..=3 => Duration::from_secs(120),
            4..=6 => Duration::from_secs(600),
            _ => Duration::from_secs(1800),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_700_000_000_000;

    #[test]
    fn spot_budget_allows_1200_per_minute_then_says_how_long_to_wait() {
        let mut b = WeightBudget::new(SPOT_WEIGHT_PER_MINUTE, Duration::from_secs(60));
        for i in 0..1200 {
            assert_eq!(b.try_acquire(1, TimestampMillis(T0 + i)), Ok(()));
        }
        // The 1201st request at T0+1500 must wait until the first leaves the window (T0+60000).
        assert_eq!(
            b.try_acquire(1, TimestampMillis(T0 + 1500)),
            Err(Duration::from_millis(58_500))
        );
        assert_eq!(b.used(TimestampMillis(T0 + 1500)), 1200);
        assert_eq!(b.try_acquire(1, TimestampMillis(T0 + 60_000)), Ok(()));
        // A weight of 5 needs five old entries gone: the fifth left at T0+4+60000.
        let mut b = WeightBudget::new(10, Duration::from_secs(60));
        for i in 0..10 {
            b.try_acquire(1, TimestampMillis(T0 + i)).unwrap();
        }
        assert_eq!(
            b.try_acquire(5, TimestampMillis(T0 + 10)),
            Err(Duration::from_millis(59_994))
        );
    }

    #[test]
    fn oversized_weight_goes_alone() {
        let mut b = WeightBudget::new(10, Duration::from_secs(60));
        assert_eq!(b.try_acquire(50, TimestampMillis(T0)), Ok(()));
        assert_eq!(
            b.try_acquire(1, TimestampMillis(T0 + 1)),
            Err(Duration::from_millis(59_999))
        );
    }

    #[test]
    fn server_count_wins_when_lower() {
        let mut b = WeightBudget::new(100, Duration::from_secs(60));
        b.try_acquire(10, TimestampMillis(T0)).unwrap();
        b.observe_remaining(50, TimestampMillis(T0 + 1));
        assert_eq!(b.used(TimestampMillis(T0 + 1)), 50);
        b.observe_remaining(80, TimestampMillis(T0 + 2));
        assert_eq!(b.used(TimestampMillis(T0 + 2)), 50);
    }

    #[test]
    fn ban_schedule_escalates_within_a_day() {
        let mut s = BanSchedule::new();
        let mins = |d: Duration| d.as_secs() / 60;
        let got: Vec<u64> = (0..8)
            .map(|i| mins(s.record_violation(TimestampMillis(T0 + i * 1000))))
            .collect();
        assert_eq!(got, vec![2, 2, 2, 10, 10, 10, 30, 30]);
        // A day later the history is forgotten.
        assert_eq!(
            mins(s.record_violation(TimestampMillis(T0 + 7000 + 86_400_000))),
            2
        );
    }
}
