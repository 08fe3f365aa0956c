//! Swap request weights: per-minute counters, HTTP 429 and escalating bans (HTTP 403).
//!
//! DESIGN (the spec leaves the totals and the schedule open):
//! - Weight is counted in fixed minutes of the simulator clock (`floor(now_ms / 60000)`), per IP
//!   for public routes and per account and per API key for private routes, against
//!   [`crate::LimitsConfig::swap_weight_per_minute`] (6,000 by default: the live venue's headers
//!   show 6,000 per minute per IP for public routes, `ip-weight-minute-use` 5 and `-remain` 5995
//!   after one call of weight 5; venue-notes.md). The notes do not show the private totals; the
//!   same figure applies per account and per API key. Each route's weight is the one
//!   `/swap/v2/public/api_weight` lists. The unknown-path 404 is not charged.
//! - A request that would cross the limit is refused with HTTP 429, code 403001 and a
//!   `retry-after` header (seconds until the minute ends); it adds no weight and counts as a
//!   violation of every subject it crossed.
//! - [`crate::LimitsConfig::swap_violations_before_ban`] (3) violations of one subject within 10
//!   minutes ban it: HTTP 403, code 403002, `retry-after` = seconds until the ban ends. The ban
//!   length grows with the subject's bans in the last 24 hours: 2 minutes, 10 minutes,
//!   30 minutes, 2 hours, then 1 day. Every request of a banned subject is refused (no weight).

use crate::limiter::{Subject, Usage};
use std::collections::{HashMap, VecDeque};

const MINUTE: i64 = 60_000;
const DAY: i64 = 86_400_000;
const STRIKE_WINDOW: i64 = 10 * MINUTE;

/// Ban length for the n-th ban (1-based) of a subject within 24 hours.
pub fn ban_ms(n: usize) -> i64 {
    match n {
        0 | 1 => 2 * MINUTE,
        2 => 10 * MINUTE,
        3 => 30 * MINUTE,
        4 => 120 * MINUTE,
        _ => DAY,
    }
}

#[derive(Debug, Clone, Default)]
struct Entry {
    minute: i64,
    used: u32,
    strikes: VecDeque<i64>,
    bans: VecDeque<i64>,
    banned_until: i64,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Over the per-minute weight: HTTP 429 (403001).
    TooMany {
        /// Milliseconds until the minute ends.
        retry_after_ms: i64,
    },
    /// Banned: HTTP 403 (403002).
    Banned {
        /// Milliseconds until the ban ends.
        retry_after_ms: i64,
    },
}

/// Weight counters, violations and bans per subject.
#[derive(Debug, Clone)]
pub struct SwapLimiter {
    limit: u32,
    strikes_before_ban: usize,
    entries: HashMap<Subject, Entry>,
}

impl SwapLimiter {
    /// `limit` weight per subject per minute; `strikes` refusals within 10 minutes ban.
    pub fn new(limit: u32, strikes: u32) -> SwapLimiter {
        SwapLimiter {
            limit,
            strikes_before_ban: usize::try_from(strikes.max(1)).unwrap_or(1),
            entries: HashMap::new(),
        }
    }

    /// The per-minute limit.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Charges `weight` to every subject; with `enforce` false it only counts.
    pub fn check(
        &mut self,
        subjects: &[Subject],
        weight: u32,
        now_ms: i64,
        enforce: bool,
    ) -> Result<(), Refusal> {
        let minute = now_ms.div_euclid(MINUTE);
        if enforce {
            let banned = subjects
                .iter()
                .filter_map(|s| self.entries.get(s))
                .map(|e| e.banned_until - now_ms)
                .max()
                .unwrap_or(0);
            if banned > 0 {
                return Err(Refusal::Banned {
                    retry_after_ms: banned,
                });
            }
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
        if enforce && !crossed.is_empty() {
            let mut ban = 0i64;
            for s in crossed {
                let e = self.entries.entry(s).or_default();
                while e
                    .strikes
                    .front()
                    .is_some_and(|t| *t <= now_ms - STRIKE_WINDOW)
                {
                    e.strikes.pop_front();
                }
                e.strikes.push_back(now_ms);
                if e.strikes.len() >= self.strikes_before_ban {
                    e.strikes.clear();
                    while e.bans.front().is_some_and(|t| *t <= now_ms - DAY) {
                        e.bans.pop_front();
                    }
                    e.bans.push_back(now_ms);
                    e.banned_until = now_ms.saturating_add(ban_ms(e.bans.len()));
                    ban = ban.max(e.banned_until - now_ms);
                }
            }
            if ban > 0 {
                return Err(Refusal::Banned {
                    retry_after_ms: ban,
                });
            }
            return Err(Refusal::TooMany {
                retry_after_ms: (minute + 1) * MINUTE - now_ms,
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
    fn strikes_then_growing_bans() {
        let ip = Subject::Ip(std::net::IpAddr::from([127, 0, 0, 1]));
        let s = std::slice::from_ref(&ip);
        let mut l = SwapLimiter::new(2, 3);
        let mut now = 0;
        let mut bans = Vec::new();
        for _ in 0..5 {
            assert!(l.check(s, 1, now, true).is_ok());
            assert!(l.check(s, 1, now, true).is_ok());
            assert!(matches!(
                l.check(s, 1, now, true),
                Err(Refusal::TooMany { .. })
            ));
            assert!(matches!(
                l.check(s, 1, now, true),
                Err(Refusal::TooMany { .. })
            ));
            match l.check(s, 1, now, true) {
                Err(Refusal::Banned { retry_after_ms }) => bans.push(retry_after_ms),
                other => panic!("{other:?}"),
            }
            now += bans.last().copied().unwrap_or(0) + MINUTE;
        }
        assert_eq!(
            bans,
            [2 * MINUTE, 10 * MINUTE, 30 * MINUTE, 120 * MINUTE, DAY]
        );
    }
}
