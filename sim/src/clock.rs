//! The simulator's own clock. Every time-based rule (timestamp windows, weight windows, bans,
//! order-history windows, withdrawal frequency, anti-manipulation cycles) reads it, so tests can
//! move time with [`crate::Control::advance_clock`] instead of sleeping.

use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// Wall clock plus an adjustable offset, or a frozen instant.
#[derive(Debug)]
pub struct SimClock {
    inner: Mutex<Inner>,
}

#[derive(Debug, Clone, Copy)]
struct Inner {
    offset_ms: i64,
    frozen_at: Option<i64>,
}

fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl SimClock {
    /// A clock that follows the wall clock; frozen at `start_ms` when given.
    pub fn new(start_ms: Option<i64>) -> SimClock {
        SimClock {
            inner: Mutex::new(Inner {
                offset_ms: 0,
                frozen_at: start_ms,
            }),
        }
    }

    fn get(&self) -> Inner {
        match self.inner.lock() {
            Ok(g) => *g,
            Err(p) => *p.into_inner(),
        }
    }

    fn update(&self, f: impl FnOnce(&mut Inner)) {
        match self.inner.lock() {
            Ok(mut g) => f(&mut g),
            Err(p) => f(&mut p.into_inner()),
        }
    }

    /// Simulator time in milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> i64 {
        let i = self.get();
        i.frozen_at
            .unwrap_or_else(|| wall_ms().saturating_add(i.offset_ms))
    }

    /// Simulator time in whole seconds.
    pub fn now_s(&self) -> i64 {
        self.now_ms().div_euclid(1000)
    }

    /// Moves the clock forward (or back, when negative) by `ms`.
    pub fn advance_ms(&self, ms: i64) {
        self.update(|i| match &mut i.frozen_at {
            Some(t) => *t = t.saturating_add(ms),
            None => i.offset_ms = i.offset_ms.saturating_add(ms),
        });
    }

    /// Sets the offset from the wall clock (unfreezes the clock).
    pub fn set_offset_ms(&self, ms: i64) {
        self.update(|i| {
            i.offset_ms = ms;
            i.frozen_at = None;
        });
    }

    /// Current offset from the wall clock in ms (for a frozen clock: frozen time minus wall time).
    pub fn offset_ms(&self) -> i64 {
        let i = self.get();
        match i.frozen_at {
            Some(t) => t.saturating_sub(wall_ms()),
            None => i.offset_ms,
        }
    }

    /// Freezes the clock at `ms` (it stays there until advanced or unfrozen).
    pub fn freeze_at(&self, ms: i64) {
        self.update(|i| i.frozen_at = Some(ms));
    }

    /// Lets a frozen clock run again from the instant it was frozen at.
    pub fn unfreeze(&self) {
        self.update(|i| {
            if let Some(t) = i.frozen_at.take() {
                i.offset_ms = t.saturating_sub(wall_ms());
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
}
