//! The simulator's own clock. Every time-based rule (timestamp windows, weight windows, bans,
//! order-history windows, withdrawal frequency, anti-manipulation cycles) reads it, so tests can
//! move time with [`crate::Control::advance_clock`] instead of sleeping.
//!
//! DESIGN (range): the simulator time is kept within [`MIN_MS`]..=[`MAX_MS`] (1970-01-01 to
//! 9999-12-31 UTC). Every rule computes with the time (seconds times 1000, funding periods,
//! windows), and an instant near `i64::MIN` or `i64::MAX` overflowed there or saturated the
//! funding schedule for good. The `try_*` methods refuse a change that would leave the range
//! and change nothing then; the infallible ones clamp into it.

use rust_decimal::Decimal;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// Earliest simulator time (ms): the Unix epoch.
pub const MIN_MS: i64 = 0;
/// Latest simulator time (ms): 9999-12-31 23:59:59.999 UTC.
pub const MAX_MS: i64 = 253_402_300_799_999;

/// A clock change that would move the simulator time out of [`MIN_MS`]..=[`MAX_MS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the simulator time must stay within {MIN_MS}..={MAX_MS} ms (1970-01-01 to 9999-12-31 UTC)"
)]
pub struct OutOfRange;

fn in_range(ms: i64) -> Result<i64, OutOfRange> {
    if (MIN_MS..=MAX_MS).contains(&ms) {
        Ok(ms)
    } else {
        Err(OutOfRange)
    }
}

/// Wall clock plus an adjustable offset, or a frozen instant; a running clock may run faster
/// than the wall clock ([`SimClock::set_speed`], for replaying a recorded market).
///
/// A running clock reads `anchor_sim + (wall - anchor_wall) * speed`; every change re-anchors it
/// at the current instant, so a change of speed never makes the time jump.
#[derive(Debug)]
pub struct SimClock {
    inner: Mutex<Inner>,
}

#[derive(Debug, Clone, Copy)]
struct Inner {
    /// Wall time (ms) of the anchor.
    anchor_wall: i64,
    /// Simulator time (ms) at the anchor.
    anchor_sim: i64,
    /// Simulator ms per wall ms.
    speed: Decimal,
    frozen_at: Option<i64>,
}

fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl SimClock {
    /// A clock that follows the wall clock; frozen at `start_ms` (clamped into
    /// [`MIN_MS`]..=[`MAX_MS`]) when given.
    pub fn new(start_ms: Option<i64>) -> SimClock {
        let wall = wall_ms();
        SimClock {
            inner: Mutex::new(Inner {
                anchor_wall: wall,
                anchor_sim: wall,
                speed: Decimal::ONE,
                frozen_at: start_ms.map(|t| t.clamp(MIN_MS, MAX_MS)),
            }),
        }
    }

    /// A clock running from `start_ms` (clamped into the range) at `speed` simulator
    /// milliseconds per wall millisecond.
    pub fn running_from(start_ms: i64, speed: Decimal) -> SimClock {
        let wall = wall_ms();
        SimClock {
            inner: Mutex::new(Inner {
                anchor_wall: wall,
                anchor_sim: start_ms.clamp(MIN_MS, MAX_MS),
                speed: speed.max(Decimal::ZERO),
                frozen_at: None,
            }),
        }
    }

    fn get(&self) -> Inner {
        match self.inner.lock() {
            Ok(g) => *g,
            Err(p) => *p.into_inner(),
        }
    }

    fn update<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        match self.inner.lock() {
            Ok(mut g) => f(&mut g),
            Err(p) => f(&mut p.into_inner()),
        }
    }

    fn running(i: &Inner, wall: i64) -> i64 {
        let elapsed = wall.saturating_sub(i.anchor_wall);
        let scaled = if i.speed == Decimal::ONE {
            elapsed
        } else {
            Decimal::from(elapsed)
                .checked_mul(i.speed)
                .and_then(|v| i64::try_from(v.trunc()).ok())
                .unwrap_or(i64::MAX)
        };
        i.anchor_sim.saturating_add(scaled)
    }

    fn now_of(i: &Inner) -> i64 {
        i.frozen_at
            .unwrap_or_else(|| Self::running(i, wall_ms()).clamp(MIN_MS, MAX_MS))
    }

    /// Re-anchors a running clock so that it reads `target` now.
    fn anchor(i: &mut Inner, target: i64) {
        i.anchor_wall = wall_ms();
        i.anchor_sim = target;
    }

    /// Simulator time in milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> i64 {
        Self::now_of(&self.get())
    }

    /// Simulator time in whole seconds.
    pub fn now_s(&self) -> i64 {
        self.now_ms().div_euclid(1000)
    }

    /// Simulator milliseconds per wall millisecond while running (1 unless set).
    pub fn speed(&self) -> Decimal {
        self.get().speed
    }

    /// Sets how many simulator milliseconds pass per wall millisecond while the clock runs
    /// (negative counts as 0); the time does not jump.
    pub fn set_speed(&self, speed: Decimal) {
        self.update(|i| {
            let now = Self::now_of(i);
            Self::anchor(i, now);
            i.speed = speed.max(Decimal::ZERO);
        });
    }

    /// Moves the clock forward (or back, when negative) by `ms`; refused without change when the
    /// time would leave the range. Returns the new time.
    pub fn try_advance_ms(&self, ms: i64) -> Result<i64, OutOfRange> {
        self.update(|i| {
            let target = in_range(Self::now_of(i).checked_add(ms).ok_or(OutOfRange)?)?;
            match &mut i.frozen_at {
                Some(t) => *t = target,
                None => Self::anchor(i, target),
            }
            Ok(target)
        })
    }

    /// Moves the clock by `ms`, stopping at the ends of the range.
    pub fn advance_ms(&self, ms: i64) {
        self.update(|i| {
            let target = Self::now_of(i).saturating_add(ms).clamp(MIN_MS, MAX_MS);
            match &mut i.frozen_at {
                Some(t) => *t = target,
                None => Self::anchor(i, target),
            }
        });
    }

    /// Sets the offset from the wall clock and unfreezes the clock; refused without change when
    /// the time would leave the range.
    pub fn try_set_offset_ms(&self, ms: i64) -> Result<i64, OutOfRange> {
        let target = in_range(wall_ms().checked_add(ms).ok_or(OutOfRange)?)?;
        self.update(|i| {
            Self::anchor(i, target);
            i.frozen_at = None;
        });
        Ok(target)
    }

    /// Sets the offset from the wall clock (unfreezes the clock), clamped so that the time stays
    /// in range.
    pub fn set_offset_ms(&self, ms: i64) {
        let target = wall_ms().saturating_add(ms).clamp(MIN_MS, MAX_MS);
        self.update(|i| {
            Self::anchor(i, target);
            i.frozen_at = None;
        });
    }

    /// Current offset from the wall clock in ms (simulator time minus wall time).
    pub fn offset_ms(&self) -> i64 {
        let i = self.get();
        let wall = wall_ms();
        match i.frozen_at {
            Some(t) => t.saturating_sub(wall),
            None => Self::running(&i, wall).saturating_sub(wall),
        }
    }

    /// Freezes the clock at `ms`; refused without change outside the range.
    pub fn try_freeze_at(&self, ms: i64) -> Result<i64, OutOfRange> {
        let ms = in_range(ms)?;
        self.update(|i| i.frozen_at = Some(ms));
        Ok(ms)
    }

    /// Freezes the clock at `ms` (clamped into the range; it stays there until advanced or
    /// unfrozen).
    pub fn freeze_at(&self, ms: i64) {
        self.update(|i| i.frozen_at = Some(ms.clamp(MIN_MS, MAX_MS)));
    }

    /// Freezes the clock at the current simulator time.
    pub fn freeze_now(&self) -> i64 {
        self.update(|i| {
            let now = Self::now_of(i).clamp(MIN_MS, MAX_MS);
            i.frozen_at = Some(now);
            now
        })
    }

    /// Lets a frozen clock run again from the instant it was frozen at.
    pub fn unfreeze(&self) {
        self.update(|i| {
            if let Some(t) = i.frozen_at.take() {
                Self::anchor(i, t);
            }
        });
    }

    /// Whether the clock is frozen.
    pub fn is_frozen(&self) -> bool {
        self.get().frozen_at.is_some()
    }
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) for a time in seconds; used by the deposit/withdrawal records.
pub fn datetime_text(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetime() {
        assert_eq!(datetime_text(0), "1970-01-01 00:00:00");
        assert_eq!(datetime_text(1_700_000_000), "2023-11-14 22:13:20");
    }

    #[test]
    fn frozen_and_advance() {
        let c = SimClock::new(Some(1_000_000));
        c.advance_ms(500);
        assert_eq!(c.now_ms(), 1_000_500);
        assert_eq!(c.now_s(), 1000);
    }

    #[test]
    fn out_of_range_changes_nothing() {
        let c = SimClock::new(Some(1_000_000));
        assert_eq!(c.try_advance_ms(i64::MAX), Err(OutOfRange));
        assert_eq!(c.try_advance_ms(i64::MIN), Err(OutOfRange));
        assert_eq!(c.try_advance_ms(-1_000_001), Err(OutOfRange));
        assert_eq!(c.try_freeze_at(i64::MIN), Err(OutOfRange));
        assert_eq!(c.try_freeze_at(MAX_MS + 1), Err(OutOfRange));
        assert_eq!(c.try_set_offset_ms(i64::MAX), Err(OutOfRange));
        assert_eq!(c.try_set_offset_ms(i64::MIN), Err(OutOfRange));
        assert_eq!(c.now_ms(), 1_000_000);
        assert!(c.is_frozen());
        assert_eq!(c.try_advance_ms(-1_000_000), Ok(0));
        assert_eq!(c.try_freeze_at(MAX_MS), Ok(MAX_MS));
        // The infallible forms clamp.
        c.advance_ms(i64::MAX);
        assert_eq!(c.now_ms(), MAX_MS);
        c.freeze_at(i64::MIN);
        assert_eq!(c.now_ms(), MIN_MS);
        c.set_offset_ms(i64::MAX);
        assert!(!c.is_frozen());
        assert!(c.now_ms() <= MAX_MS && c.now_ms() > MAX_MS - 60_000);
        c.advance_ms(i64::MIN);
        assert!(c.now_ms() < 60_000);
    }

    #[test]
    fn speed_scales_running_time_without_jumps() {
        let c = SimClock::running_from(1_000_000, Decimal::from(1000));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let t = c.now_ms();
        // At least 20 wall ms have passed: at least 20 simulated seconds.
        assert!(t >= 1_020_000, "{t}");
        // No jump at the change of speed: between reading `t` and `u` the clock moves by at
        // most the wall time that passed (rounded up to whole ms) at the fast speed, however
        // slow the machine is.
        let before = std::time::Instant::now();
        let t = c.now_ms();
        c.set_speed(Decimal::ONE);
        let u = c.now_ms();
        let wall_ms = i64::try_from(before.elapsed().as_millis()).unwrap() + 1;
        assert!(
            u >= t && u - t <= wall_ms * 1_000,
            "{t} {u} after {wall_ms} ms"
        );
        c.freeze_now();
        c.advance_ms(5);
        assert_eq!(c.now_ms(), c.now_ms());
        assert_eq!(c.speed(), Decimal::ONE);
    }
}
