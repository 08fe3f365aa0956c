//! Request-weight limiter with the escalating ban schedule of the spot family, and the weight
//! subjects shared with the swap family's limiter ([`crate::swap::limits`], which has its own
//! per-minute total, 6,000 by default, and its own 429-then-ban schedule).
//!
//! DESIGN: the spec states "1200 per minute" without saying whether the minute is fixed or
//! sliding; the limiter counts weight in fixed minutes of the simulator clock
//! (`floor(now_ms / 60000)`), separately per subject (IP, API key, user). The request that would
//! cross the limit is refused, counts as a violation of every subject it crossed, and starts a ban
//! of that subject: violations within the last 24 hours 1-3 ban for 2 minutes, 4-6 for 10 minutes,
//! 7 and more for 30 minutes. While banned every request of the subject is refused. Refused
//! requests do not add weight.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;

/// Who a request's weight is charged to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Subject {
    /// Caller IP.
    Ip(IpAddr),
    /// API key.
    Key(String),
    /// Account.
    User(u64),
}

impl Subject {
    /// Prefix of the swap usage headers of this subject (`ip`, `account`, `apikey`):
    /// `{prefix}-weight-minute-use` and `{prefix}-weight-minute-remain`.
    pub fn header_prefix(&self) -> &'static str {
        match self {
            Subject::Ip(_) => "ip",
            Subject::User(_) => "account",
            Subject::Key(_) => "apikey",
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Entry {
    minute: i64,
    used: u32,
    violations: VecDeque<i64>,
    banned_until: i64,
}

/// Refusal: the request must wait this many ms (the end of a ban).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited {
    /// Milliseconds until the ban ends.
    pub retry_after_ms: i64,
    /// Whether this request caused a new ban (false: an earlier ban is still running).
    pub new_violation: bool,
}

/// Usage of one subject in the current minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Weight used in the current minute.
    pub used: u32,
    /// Weight left in the current minute.
    pub remaining: u32,
}

/// Weight counters and bans per subject.
#[derive(Debug, Clone)]
pub struct WeightLimiter {
    limit: u32,
    entries: HashMap<Subject, Entry>,
}

const MINUTE: i64 = 60_000;
const DAY: i64 = 86_400_000;

/// Ban length for the n-th violation (1-based) within 24 hours.
pub fn ban_ms(n: usize) -> i64 {
    match n {
        0..=3 => 2 * MINUTE,
        4..=6 => 10 * MINUTE,
        _ => 30 * MINUTE,
    }
}

impl WeightLimiter {
    /// A limiter allowing `limit` weight per subject per minute.
    pub fn new(limit: u32) -> WeightLimiter {
        WeightLimiter {
            limit,
            entries: HashMap::new(),
        }
    }

    /// The per-minute limit.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Charges `weight` to every subject, or refuses when one is banned or would cross the limit.
    pub fn check(&mut self, subjects: &[Subject], weight: u32, now_ms: i64) -> Result<(), Limited> {
        let minute = now_ms.div_euclid(MINUTE);
        let mut banned = 0i64;
        for s in subjects {
            if let Some(e) = self.entries.get(s) {
                if e.banned_until > now_ms {
                    banned = banned.max(e.banned_until - now_ms);
                }
            }
        }
        if banned > 0 {
            return Err(Limited {
                retry_after_ms: banned,
                new_violation: false,
            });
        }
        let mut crossed = Vec::new();
        for s in subjects {
            let e = self.entries.entry(s.clone()).or_default();
            if e.minute != minute {
                e.minute = minute;
                e.used = 0;
            }
            if e.used.saturating_add(weight) > self.limit {
                crossed.push(s.clone());
            }
        }
        if !crossed.is_empty() {
            let mut wait = 0;
            for s in crossed {
                let e = self.entries.entry(s).or_default();
                while e.violations.front().is_some_and(|t| *t <= now_ms - DAY) {
                    e.violations.pop_front();
                }
                e.violations.push_back(now_ms);
                e.banned_until = now_ms + ban_ms(e.violations.len());
                wait = i64::max(wait, e.banned_until - now_ms);
            }
            return Err(Limited {
                retry_after_ms: wait,
                new_violation: true,
            });
        }
        for s in subjects {
            if let Some(e) = self.entries.get_mut(s) {
                e.used = e.used.saturating_add(weight);
            }
        }
        Ok(())
    }

    /// Usage of `subject` in the minute containing `now_ms`.
    pub fn usage(&self, subject: &Subject, now_ms: i64) -> Usage {
        let minute = now_ms.div_euclid(MINUTE);
        let used = self
            .entries
            .get(subject)
            .filter(|e| e.minute == minute)
            .map_or(0, |e| e.used);
        Usage {
            used,
            remaining: self.limit.saturating_sub(used),
        }
    }

    /// Forgets every counter, violation and ban.
    pub fn reset(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule() {
        let ip = Subject::Ip(IpAddr::from([127, 0, 0, 1]));
        let mut l = WeightLimiter::new(2);
        let mut now = 0;
        let mut bans = Vec::new();
        for _ in 0..8 {
            assert!(l.check(std::slice::from_ref(&ip), 1, now).is_ok());
            assert!(l.check(std::slice::from_ref(&ip), 1, now).is_ok());
            let e = l.check(std::slice::from_ref(&ip), 1, now).unwrap_err();
            assert!(e.new_violation);
            bans.push(e.retry_after_ms);
            let again = l.check(std::slice::from_ref(&ip), 1, now + 1).unwrap_err();
            assert!(!again.new_violation);
            now += e.retry_after_ms + MINUTE;
        }
        assert_eq!(bans[..3], [2 * MINUTE; 3]);
        assert_eq!(bans[3..6], [10 * MINUTE; 3]);
        assert_eq!(bans[6..], [30 * MINUTE; 2]);
    }
}
