//! The request-weight limiter of both families: one [`Limiter`] type, parameterised by a
//! [`Policy`] (weight per minute, refusals before a ban, ban schedule).
//!
//! DESIGN: the spec states "1200 per minute" (spot) without saying whether the minute is fixed
//! or sliding; the limiter counts weight in fixed minutes of the simulator clock
//! (`floor(now_ms / 60000)`), separately per subject (IP, API key, user). The request that would
//! cross the limit is refused, adds no weight, and counts as a refusal ("strike") of every
//! subject it crossed. [`Policy::strikes_before_ban`] strikes of one subject within
//! [`Policy::strike_window_ms`] ban it; the ban's length is taken from [`Policy::ban_schedule`]
//! by the number of bans of the subject within the last 24 hours. While banned every request of
//! the subject is refused.
//!
//! - Spot ([`Policy::spot`], 1,200 per minute by default): every refusal bans at once; bans
//!   1-3 within 24 hours last 2 minutes, 4-6 10 minutes, 7 and more 30 minutes.
//! - Swap ([`Policy::swap`], 6,000 per minute by default; [`crate::engine::swap::limits`]): refusals
//!   answer HTTP 429 until 3 of them within 10 minutes ban (HTTP 403): 2 minutes, 10 minutes,
//!   30 minutes, 2 hours, then 1 day.
//!
//! Memory: each call also looks at a few tracked subjects ([`SWEEP_PER_CALL`], oldest looked-at
//! first) and forgets those that carry no state any more: no ban running, no weight in the
//! current minute, no strike inside the strike window and no ban inside the 24-hour window. A
//! forgotten subject behaves exactly like a remembered one would, so pruning changes no answer;
//! it keeps the number of tracked subjects within a small multiple of those active in the last
//! minute (plus those with a violation in the last 24 hours), at O(1) cost per call. Pruning
//! judges at the simulator time of the call: a clock moved back afterwards does not bring a
//! forgotten ban back.

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

/// One minute of the simulator clock (ms).
pub const MINUTE: i64 = 60_000;
/// The window bans are counted in for the schedule (24 hours, ms).
pub const DAY: i64 = 86_400_000;
/// Tracked subjects looked at (and forgotten when idle) per [`Limiter::check`].
pub const SWEEP_PER_CALL: usize = 8;

/// Spot ban lengths: bans 1-3 within 24 hours 2 minutes, 4-6 10 minutes, then 30 minutes.
const SPOT_BANS: &[i64] = &[
    2 * MINUTE,
    2 * MINUTE,
    2 * MINUTE,
    10 * MINUTE,
    10 * MINUTE,
    10 * MINUTE,
    30 * MINUTE,
];

/// Swap ban lengths: 2 minutes, 10 minutes, 30 minutes, 2 hours, then 1 day.
const SWAP_BANS: &[i64] = &[2 * MINUTE, 10 * MINUTE, 30 * MINUTE, 120 * MINUTE, DAY];

/// What a family's limiter allows and how it punishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Weight allowed per subject per fixed minute.
    pub limit_per_minute: u32,
    /// Refusals within [`Policy::strike_window_ms`] that ban the subject (1: every refusal bans).
    pub strikes_before_ban: usize,
    /// Window in which strikes are counted (ms).
    pub strike_window_ms: i64,
    /// Ban lengths (ms): the n-th ban within 24 hours lasts the n-th entry; the last repeats.
    pub ban_schedule: &'static [i64],
}

impl Policy {
    /// The spot policy: `limit` per minute; every refusal bans, 2/2/2/10/10/10/30 minutes.
    pub fn spot(limit: u32) -> Policy {
        Policy {
            limit_per_minute: limit,
            strikes_before_ban: 1,
            strike_window_ms: MINUTE,
            ban_schedule: SPOT_BANS,
        }
    }

    /// The swap policy: `limit` per minute; `strikes` refusals (at least 1) within 10 minutes
    /// ban, 2 minutes, 10 minutes, 30 minutes, 2 hours, then 1 day.
    pub fn swap(limit: u32, strikes: u32) -> Policy {
        Policy {
            limit_per_minute: limit,
            strikes_before_ban: usize::try_from(strikes.max(1)).unwrap_or(1),
            strike_window_ms: 10 * MINUTE,
            ban_schedule: SWAP_BANS,
        }
    }

    /// Length of the n-th ban (1-based) within 24 hours.
    pub fn ban_ms(&self, n: usize) -> i64 {
        let last = self.ban_schedule.len().saturating_sub(1);
        self.ban_schedule
            .get(n.saturating_sub(1).min(last))
            .copied()
            .unwrap_or(2 * MINUTE)
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
    /// Over the per-minute weight, not (yet) banned (swap: HTTP 429, 403001).
    TooMany {
        /// Milliseconds until the minute ends.
        retry_after_ms: i64,
    },
    /// Banned (spot: 429, 10005; swap: HTTP 403, 403002).
    Banned {
        /// Milliseconds until the ban ends.
        retry_after_ms: i64,
        /// Whether this request started the ban (false: an earlier ban is still running).
        new_ban: bool,
    },
}

impl Refusal {
    /// Milliseconds the caller must wait.
    pub fn retry_after_ms(&self) -> i64 {
        match *self {
            Refusal::TooMany { retry_after_ms } | Refusal::Banned { retry_after_ms, .. } => {
                retry_after_ms
            }
        }
    }
}

/// Usage of one subject in the current minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Weight used in the current minute.
    pub used: u32,
    /// Weight left in the current minute.
    pub remaining: u32,
}

/// Weight counters, strikes and bans per subject, under one [`Policy`].
#[derive(Debug, Clone)]
pub struct Limiter {
    policy: Policy,
    entries: HashMap<Subject, Entry>,
    /// Every tracked subject exactly once, in the order the sweep looks at them.
    sweep: VecDeque<Subject>,
    sweep_per_call: usize,
}

impl Limiter {
    /// Number of subjects currently tracked (memory in use).
    #[cfg(test)]
    pub fn tracked(&self) -> usize {
        self.entries.len()
    }

    /// A limiter enforcing `policy`.
    pub fn new(policy: Policy) -> Limiter {
        Limiter {
            policy,
            entries: HashMap::new(),
            sweep: VecDeque::new(),
            sweep_per_call: SWEEP_PER_CALL,
        }
    }

    /// Charges `weight` to every subject, or refuses: when one is banned, or when one would
    /// cross the limit (a strike of each subject crossed, and a ban of those with enough
    /// strikes). With `enforce` false nothing is refused: the weight is only counted.
    pub fn check(
        &mut self,
        subjects: &[Subject],
        weight: u32,
        now_ms: i64,
        enforce: bool,
    ) -> Result<(), Refusal> {
        self.prune(now_ms);
        let minute = now_ms.div_euclid(MINUTE);
        let banned = if enforce {
            self.banned_for(subjects, now_ms)
        } else {
            0
        };
        if banned > 0 {
            return Err(Refusal::Banned {
                retry_after_ms: banned,
                new_ban: false,
            });
        }
        let mut crossed = Vec::new();
        for s in subjects {
            let e = self.entry(s);
            if e.minute != minute {
                e.minute = minute;
                e.used = 0;
            }
            if e.used.saturating_add(weight) > self.policy.limit_per_minute {
                crossed.push(s);
            }
        }
        if enforce && !crossed.is_empty() {
            return Err(self.strike(&crossed, now_ms, minute));
        }
        for s in subjects {
            if let Some(e) = self.entries.get_mut(s) {
                e.used = e.used.saturating_add(weight);
            }
        }
        Ok(())
    }

    /// Milliseconds until the longest running ban of `subjects` ends (0: none is banned).
    fn banned_for(&self, subjects: &[Subject], now_ms: i64) -> i64 {
        subjects
            .iter()
            .filter_map(|s| self.entries.get(s))
            .map(|e| e.banned_until.saturating_sub(now_ms))
            .max()
            .unwrap_or(0)
            .max(0)
    }

    /// Records a strike of each crossed subject, banning those with enough strikes.
    fn strike(&mut self, crossed: &[&Subject], now_ms: i64, minute: i64) -> Refusal {
        let policy = self.policy;
        let mut ban = 0i64;
        for s in crossed {
            let Some(e) = self.entries.get_mut(*s) else {
                continue;
            };
            let strike_cut = now_ms.saturating_sub(policy.strike_window_ms);
            while e.strikes.front().is_some_and(|t| *t <= strike_cut) {
                e.strikes.pop_front();
            }
            e.strikes.push_back(now_ms);
            if e.strikes.len() >= policy.strikes_before_ban {
                e.strikes.clear();
                let day_cut = now_ms.saturating_sub(DAY);
                while e.bans.front().is_some_and(|t| *t <= day_cut) {
                    e.bans.pop_front();
                }
                e.bans.push_back(now_ms);
                e.banned_until = now_ms.saturating_add(policy.ban_ms(e.bans.len()));
                ban = ban.max(e.banned_until.saturating_sub(now_ms));
            }
        }
        if ban > 0 {
            Refusal::Banned {
                retry_after_ms: ban,
                new_ban: true,
            }
        } else {
            Refusal::TooMany {
                retry_after_ms: minute
                    .saturating_add(1)
                    .saturating_mul(MINUTE)
                    .saturating_sub(now_ms),
            }
        }
    }

    /// The entry of `s`, created (and queued for the sweep) on first use.
    fn entry(&mut self, s: &Subject) -> &mut Entry {
        match self.entries.entry(s.clone()) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                self.sweep.push_back(s.clone());
                v.insert(Entry::default())
            }
        }
    }

    /// Looks at the next few tracked subjects and forgets the idle ones.
    fn prune(&mut self, now_ms: i64) {
        let minute = now_ms.div_euclid(MINUTE);
        let strike_cut = now_ms.saturating_sub(self.policy.strike_window_ms);
        let day_cut = now_ms.saturating_sub(DAY);
        for _ in 0..self.sweep_per_call.min(self.sweep.len()) {
            let Some(s) = self.sweep.pop_front() else {
                break;
            };
            let idle = match self.entries.get(&s) {
                None => continue,
                Some(e) => {
                    e.banned_until <= now_ms
                        && (e.minute != minute || e.used == 0)
                        && e.strikes.back().is_none_or(|t| *t <= strike_cut)
                        && e.bans.back().is_none_or(|t| *t <= day_cut)
                }
            };
            if idle {
                self.entries.remove(&s);
            } else {
                self.sweep.push_back(s);
            }
        }
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
            remaining: self.policy.limit_per_minute.saturating_sub(used),
        }
    }

    /// Forgets every counter, strike and ban.
    pub fn reset(&mut self) {
        self.entries.clear();
        self.sweep.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(n: u32) -> Subject {
        Subject::Ip(IpAddr::from(n.to_be_bytes()))
    }

    #[test]
    fn spot_schedule() {
        let ip = ip(0x7f00_0001);
        let s = std::slice::from_ref(&ip);
        let mut l = Limiter::new(Policy::spot(2));
        let mut now = 0;
        let mut bans = Vec::new();
        for _ in 0..8 {
            assert_eq!(l.check(s, 1, now, true), Ok(()));
            assert_eq!(l.check(s, 1, now, true), Ok(()));
            let Err(Refusal::Banned {
                retry_after_ms,
                new_ban: true,
            }) = l.check(s, 1, now, true)
            else {
                panic!("third request must start a ban");
            };
            bans.push(retry_after_ms);
            assert_eq!(
                l.check(s, 1, now + 1, true),
                Err(Refusal::Banned {
                    retry_after_ms: retry_after_ms - 1,
                    new_ban: false
                })
            );
            now += retry_after_ms + MINUTE;
        }
        assert_eq!(bans[..3], [2 * MINUTE; 3]);
        assert_eq!(bans[3..6], [10 * MINUTE; 3]);
        assert_eq!(bans[6..], [30 * MINUTE; 2]);
    }

    #[test]
    fn swap_strikes_then_growing_bans() {
        let ip = ip(0x7f00_0001);
        let s = std::slice::from_ref(&ip);
        let mut l = Limiter::new(Policy::swap(2, 3));
        let mut now = 30_000;
        let mut bans = Vec::new();
        for _ in 0..5 {
            assert_eq!(l.check(s, 1, now, true), Ok(()));
            assert_eq!(l.check(s, 1, now, true), Ok(()));
            let until_minute_end = MINUTE - now.rem_euclid(MINUTE);
            for _ in 0..2 {
                assert_eq!(
                    l.check(s, 1, now, true),
                    Err(Refusal::TooMany {
                        retry_after_ms: until_minute_end
                    })
                );
            }
            match l.check(s, 1, now, true) {
                Err(Refusal::Banned {
                    retry_after_ms,
                    new_ban: true,
                }) => bans.push(retry_after_ms),
                other => panic!("{other:?}"),
            }
            now += bans.last().copied().unwrap_or(0) + MINUTE;
        }
        assert_eq!(
            bans,
            [2 * MINUTE, 10 * MINUTE, 30 * MINUTE, 120 * MINUTE, DAY]
        );
    }

    #[test]
    fn counting_only_never_refuses() {
        let ip = ip(1);
        let s = std::slice::from_ref(&ip);
        let mut l = Limiter::new(Policy::swap(2, 1));
        for _ in 0..5 {
            assert_eq!(l.check(s, 1, 0, false), Ok(()));
        }
        assert_eq!(
            l.usage(&ip, 0),
            Usage {
                used: 5,
                remaining: 0
            }
        );
    }

    #[test]
    fn memory_stays_bounded_over_many_subjects() {
        // 200,000 requests from distinct IPs, one every 10 ms (6,000 a minute), across 33
        // minutes: only the subjects of about the last minute (and those with a recent
        // violation) stay tracked.
        let mut l = Limiter::new(Policy::spot(1));
        let offender = ip(0xffff_ffff);
        let mut now = 0i64;
        let mut peak = 0;
        let mut offender_bans = Vec::new();
        for i in 0..200_000u32 {
            assert_eq!(l.check(&[ip(i)], 1, now, true), Ok(()));
            if i % 20_000 == 0 {
                // The offender crosses its limit every 200 s: each crossing outside a ban is a
                // new violation, counted within 24 hours despite the sweeps (bans at 0, 200,
                // 400, 600, 1200 and 1800 s; the 10-minute bans cover the others).
                let o = std::slice::from_ref(&offender);
                let _ = l.check(o, 1, now, true);
                if let Err(Refusal::Banned {
                    retry_after_ms,
                    new_ban: true,
                }) = l.check(o, 1, now, true)
                {
                    offender_bans.push(retry_after_ms);
                }
            }
            peak = peak.max(l.tracked());
            now += 10;
        }
        assert!(peak <= 2 * 6_000 + 100, "peak {peak}");
        assert!(l.tracked() <= 2 * 6_000 + 100, "now {}", l.tracked());
        assert_eq!(l.sweep.len(), l.tracked());
        assert_eq!(
            offender_bans,
            [
                2 * MINUTE,
                2 * MINUTE,
                2 * MINUTE,
                10 * MINUTE,
                10 * MINUTE,
                10 * MINUTE
            ]
        );
        // After a quiet day everything is forgotten, and the next ban is a first ban again.
        now += DAY;
        for i in 0..10_000u32 {
            assert_eq!(l.check(&[ip(i)], 1, now + i64::from(i) * 10, true), Ok(()));
        }
        now += 100_000 + MINUTE;
        for i in 0..2_000u32 {
            assert_eq!(
                l.check(&[ip(1_000_000 + i)], 1, now + i64::from(i), true),
                Ok(())
            );
        }
        assert!(
            l.tracked() <= 2 * 2_000 + 100,
            "after a day {}",
            l.tracked()
        );
        let o = std::slice::from_ref(&offender);
        now += MINUTE;
        assert_eq!(l.check(o, 1, now, true), Ok(()));
        assert_eq!(
            l.check(o, 1, now, true),
            Err(Refusal::Banned {
                retry_after_ms: 2 * MINUTE,
                new_ban: true
            })
        );
    }

    /// A small deterministic generator for the differential test.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn pruning_changes_no_answer() {
        for policy in [Policy::spot(5), Policy::swap(5, 3)] {
            let mut pruned = Limiter::new(policy);
            let mut kept = Limiter::new(policy);
            kept.sweep_per_call = 0;
            let mut rng = Lcg(7);
            let mut now = 0i64;
            for _ in 0..100_000 {
                // Mostly small steps, sometimes minutes or hours, so that subjects go idle,
                // come back, cross limits and get banned again.
                now += match rng.next(100) {
                    0 => i64::try_from(rng.next(6)).unwrap() * 3_600_000,
                    1..=4 => i64::try_from(rng.next(600_000)).unwrap(),
                    _ => i64::try_from(rng.next(300)).unwrap(),
                };
                let n = u32::try_from(rng.next(40)).unwrap();
                let mut subjects = vec![ip(n)];
                if rng.next(2) == 0 {
                    subjects.push(Subject::Key(format!("k{}", n % 7)));
                    subjects.push(Subject::User(u64::from(n % 5)));
                }
                let weight = u32::try_from(rng.next(3)).unwrap() + 1;
                let enforce = rng.next(10) != 0;
                let a = pruned.check(&subjects, weight, now, enforce);
                let b = kept.check(&subjects, weight, now, enforce);
                assert_eq!(a, b, "at {now} for {subjects:?}");
                for s in &subjects {
                    assert_eq!(pruned.usage(s, now), kept.usage(s, now));
                }
            }
            assert!(pruned.tracked() < kept.tracked(), "{policy:?}");
        }
    }
}
