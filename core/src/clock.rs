//! Time as an argument: the [`Clock`] trait, the one wall-clock reader, test clocks, and the pure
//! server-offset estimator.

use std::sync::atomic::{AtomicI64, Ordering};

use crate::types::TimestampMillis;

/// A source of "now" in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> TimestampMillis;
}

/// The wall clock. The only place in the core that reads the system time.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    // The one reading of the system time the core makes (see `core/clippy.toml`).
    #[allow(clippy::disallowed_methods)]
    fn now(&self) -> TimestampMillis {
        let ms = match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            Err(e) => i64::try_from(e.duration().as_millis()).map_or(i64::MIN, i64::saturating_neg),
        };
        TimestampMillis(ms)
    }
}

/// A clock that always returns the same instant (tests, `--time-ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedClock(pub TimestampMillis);

impl Clock for FixedClock {
    fn now(&self) -> TimestampMillis {
        self.0
    }
}

/// A clock that tests move by hand; shareable across threads.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    /// A clock at `start`.
    pub fn new(start: TimestampMillis) -> Self {
        ManualClock(AtomicI64::new(start.0))
    }
    /// Sets the time.
    pub fn set(&self, t: TimestampMillis) {
        self.0.store(t.0, Ordering::SeqCst);
    }
    /// Moves the time by `delta_ms` (may be negative; saturating).
    pub fn advance(&self, delta_ms: i64) {
        let _ = self
            .0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| {
                Some(v.saturating_add(delta_ms))
            });
    }
}

impl Clock for ManualClock {
    fn now(&self) -> TimestampMillis {
        TimestampMillis(self.0.load(Ordering::SeqCst))
    }
}

/// A clock shifted by a signed offset (server time minus local time), as estimated by
/// [`estimate_offset`].
#[derive(Debug, Clone, Copy)]
pub struct OffsetClock<C> {
    /// The underlying clock.
    pub inner: C,
    /// Milliseconds to add to the inner clock's time.
    pub offset_ms: i64,
}

impl<C: Clock> Clock for OffsetClock<C> {
    fn now(&self) -> TimestampMillis {
        TimestampMillis(self.inner.now().0.saturating_add(self.offset_ms))
    }
}

/// Estimates the server clock's offset from ours: `server - midpoint(sent, received)`, in signed
/// milliseconds (positive when the server is ahead).
///
/// `server` is the time the server reported; `sent` and `received` are our clock's readings
/// around the request. The midpoint rule assumes the server read its clock halfway through the
/// round trip, so the error is at most half the round-trip time. Computed in `i128`: no overflow,
/// the result saturates into `i64`.
// Bound: every operand is an `i64` widened to `i128`; a sum of two is below 2^64 in magnitude,
// their half minus a third below 2^65, far inside `i128`.
#[allow(clippy::arithmetic_side_effects)]
pub fn estimate_offset(
    server: TimestampMillis,
    sent: TimestampMillis,
    received: TimestampMillis,
) -> i64 {
    let mid = (i128::from(sent.0) + i128::from(received.0)).div_euclid(2);
    let offset = i128::from(server.0) - mid;
    i64::try_from(offset).unwrap_or(if offset < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_uses_midpoint_and_sign() {
        let t = TimestampMillis;
        // Server 30 s ahead, 200 ms round trip.
        assert_eq!(
            estimate_offset(t(1_030_100), t(1_000_000), t(1_000_200)),
            30_000
        );
        // Server 5 s behind.
        assert_eq!(
            estimate_offset(t(995_100), t(1_000_000), t(1_000_200)),
            -5_000
        );
        // Extremes do not wrap.
        assert_eq!(
            estimate_offset(t(i64::MAX), t(i64::MIN), t(i64::MIN)),
            i64::MAX
        );
        assert_eq!(
            estimate_offset(t(i64::MIN), t(i64::MAX), t(i64::MAX)),
            i64::MIN
        );
    }

    #[test]
    fn manual_and_offset_clocks() {
        let c = ManualClock::new(TimestampMillis(1000));
        c.advance(500);
        assert_eq!(c.now(), TimestampMillis(1500));
        c.advance(-2000);
        assert_eq!(c.now(), TimestampMillis(-500));
        let o = OffsetClock {
            inner: FixedClock(TimestampMillis(10)),
            offset_ms: -20,
        };
        assert_eq!(o.now(), TimestampMillis(-10));
        assert!(SystemClock.now().0 > 1_600_000_000_000);
    }
}
