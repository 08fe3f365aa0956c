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

/// How the exchange time follows a reference clock: frozen at an instant, or running from an
/// anchor at a speed (simulator milliseconds per reference millisecond). Pure data: the
/// exchange never reads a clock; an adapter that owns one (the server: the wall clock) passes
/// its reading as `reference` ([`crate::Exchange`], "Time").
///
/// A running rule reads `anchor_sim + (reference - anchor_ref) * speed`; every change re-anchors
/// it at the current instant, so a change of speed never makes the time jump.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClockRule {
    /// Reference time (ms) of the anchor.
    anchor_ref: i64,
    /// Simulator time (ms) at the anchor.
    anchor_sim: i64,
    /// Simulator ms per reference ms.
    speed: Decimal,
    frozen_at: Option<i64>,
}

impl ClockRule {
    /// Frozen at `at_ms` (clamped into [`MIN_MS`]..=[`MAX_MS`]).
    pub(crate) fn frozen(at_ms: i64) -> ClockRule {
        ClockRule {
            anchor_ref: 0,
            anchor_sim: at_ms.clamp(MIN_MS, MAX_MS),
            speed: Decimal::ONE,
            frozen_at: Some(at_ms.clamp(MIN_MS, MAX_MS)),
        }
    }

    /// Running from `start_ms` (clamped) at reference time `reference`, at `speed` (negative
    /// counts as 0).
    pub(crate) fn running(reference: i64, start_ms: i64, speed: Decimal) -> ClockRule {
        ClockRule {
            anchor_ref: reference,
            anchor_sim: start_ms.clamp(MIN_MS, MAX_MS),
            speed: speed.max(Decimal::ZERO),
            frozen_at: None,
        }
    }

    fn run(&self, reference: i64) -> i64 {
        let elapsed = reference.saturating_sub(self.anchor_ref);
        let scaled = if self.speed == Decimal::ONE {
            elapsed
        } else {
            Decimal::from(elapsed)
                .checked_mul(self.speed)
                .and_then(|v| i64::try_from(v.trunc()).ok())
                .unwrap_or(i64::MAX)
        };
        self.anchor_sim.saturating_add(scaled)
    }

    /// The simulator time when the reference clock reads `reference`.
    pub(crate) fn at(&self, reference: i64) -> i64 {
        self.frozen_at
            .unwrap_or_else(|| self.run(reference).clamp(MIN_MS, MAX_MS))
    }

    /// Makes the rule read `target` (clamped) at `reference`, frozen or running as it is.
    pub(crate) fn set_time(&mut self, reference: i64, target: i64) {
        let target = target.clamp(MIN_MS, MAX_MS);
        match &mut self.frozen_at {
            Some(t) => *t = target,
            None => {
                self.anchor_ref = reference;
                self.anchor_sim = target;
            }
        }
    }

    /// Simulator milliseconds per reference millisecond while running (1 unless set).
    pub(crate) fn speed(&self) -> Decimal {
        self.speed
    }

    /// Sets the speed (negative counts as 0); the time does not jump.
    pub(crate) fn set_speed(&mut self, reference: i64, speed: Decimal) {
        let now = self.at(reference);
        self.anchor_ref = reference;
        self.anchor_sim = now;
        self.speed = speed.max(Decimal::ZERO);
    }

    /// The time `ms` later (earlier when negative), refused outside the range.
    pub(crate) fn try_advanced(&self, reference: i64, ms: i64) -> Result<i64, OutOfRange> {
        in_range(self.at(reference).checked_add(ms).ok_or(OutOfRange)?)
    }

    /// The time `ms` later, clamped into the range.
    pub(crate) fn advanced(&self, reference: i64, ms: i64) -> i64 {
        self.at(reference).saturating_add(ms).clamp(MIN_MS, MAX_MS)
    }

    /// Runs `ms` ahead of the reference (unfrozen); refused without change outside the range.
    pub(crate) fn try_set_offset(&mut self, reference: i64, ms: i64) -> Result<i64, OutOfRange> {
        let target = in_range(reference.checked_add(ms).ok_or(OutOfRange)?)?;
        self.anchor_ref = reference;
        self.anchor_sim = target;
        self.frozen_at = None;
        Ok(target)
    }

    /// Runs `ms` ahead of the reference (unfrozen), clamped so that the time stays in range.
    pub(crate) fn set_offset(&mut self, reference: i64, ms: i64) -> i64 {
        let target = reference.saturating_add(ms).clamp(MIN_MS, MAX_MS);
        self.anchor_ref = reference;
        self.anchor_sim = target;
        self.frozen_at = None;
        target
    }

    /// Simulator time minus reference time (ms).
    pub(crate) fn offset(&self, reference: i64) -> i64 {
        match self.frozen_at {
            Some(t) => t.saturating_sub(reference),
            None => self.run(reference).saturating_sub(reference),
        }
    }

    /// Freezes at `ms`, clamped into the range.
    pub(crate) fn freeze_at(&mut self, ms: i64) -> i64 {
        let ms = ms.clamp(MIN_MS, MAX_MS);
        self.frozen_at = Some(ms);
        ms
    }

    /// Freezes at the current time.
    pub(crate) fn freeze_now(&mut self, reference: i64) -> i64 {
        let now = self.at(reference);
        self.frozen_at = Some(now);
        now
    }

    /// Lets a frozen rule run again from the instant it was frozen at.
    pub(crate) fn unfreeze(&mut self, reference: i64) {
        if let Some(t) = self.frozen_at.take() {
            self.anchor_ref = reference;
            self.anchor_sim = t;
        }
    }

    /// Whether the rule is frozen.
    pub(crate) fn is_frozen(&self) -> bool {
        self.frozen_at.is_some()
    }
}

/// The exchange time and how it moves ([`crate::Exchange`], "Time").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Time {
    /// Exchange time (ms): what every rule and answer reads.
    now: i64,
    drive: Drive,
}

/// How the exchange time moves.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Drive {
    /// Only by `advance_to` and the control API's clock operations (an in-process exchange).
    /// The frozen flag and the speed are kept and reported, for an adapter to read.
    Virtual { frozen: bool, speed: Decimal },
    /// Following an adapter's reference clock (the server's wall clock) through `rule`; the
    /// reference's last reading.
    Wall { rule: ClockRule, reference: i64 },
}

/// The message of an offset asked of an exchange without a reference clock.
pub(crate) const NO_WALL_CLOCK: &str = "an in-process exchange has no wall clock to be offset \
     from: move its time with advance_ms, freeze_at_ms or Exchange::advance_to";

impl Time {
    /// Virtual time starting at `start_ms` (clamped into the range), frozen, at `speed`.
    pub(crate) fn virtual_at(start_ms: i64, speed: Decimal) -> Time {
        Time {
            now: start_ms.clamp(MIN_MS, MAX_MS),
            drive: Drive::Virtual {
                frozen: true,
                speed: speed.max(Decimal::ZERO),
            },
        }
    }

    /// Time following a reference clock that reads `reference` now, through `rule`.
    pub(crate) fn following(rule: ClockRule, reference: i64) -> Time {
        Time {
            now: rule.at(reference),
            drive: Drive::Wall { rule, reference },
        }
    }

    /// Exchange time (ms).
    pub(crate) fn now(&self) -> i64 {
        self.now
    }

    /// Whether the time follows a reference clock (an adapter keeps the timers).
    pub(crate) fn follows(&self) -> bool {
        matches!(self.drive, Drive::Wall { .. })
    }

    /// The reference clock reads `reference` now: the time follows (virtual time: nothing).
    pub(crate) fn follow(&mut self, reference: i64) {
        if let Drive::Wall { rule, reference: r } = &mut self.drive {
            *r = reference;
            self.now = rule.at(reference);
        }
    }

    /// Moves the time to `t` (clamped into the range); a followed clock goes on from there.
    pub(crate) fn set(&mut self, t: i64) {
        let t = t.clamp(MIN_MS, MAX_MS);
        if let Drive::Wall { rule, reference } = &mut self.drive {
            rule.set_time(*reference, t);
        }
        self.now = t;
    }

    /// Moves the time by `ms` (negative: back); refused without change out of the range.
    pub(crate) fn try_advance(&mut self, ms: i64) -> Result<i64, OutOfRange> {
        let t = match &self.drive {
            Drive::Wall { rule, reference } => rule.try_advanced(*reference, ms)?,
            Drive::Virtual { .. } => in_range(self.now.checked_add(ms).ok_or(OutOfRange)?)?,
        };
        self.set(t);
        Ok(t)
    }

    /// Moves the time by `ms`, stopping at the ends of the range.
    pub(crate) fn advance(&mut self, ms: i64) -> i64 {
        let t = match &self.drive {
            Drive::Wall { rule, reference } => rule.advanced(*reference, ms),
            Drive::Virtual { .. } => self.now.saturating_add(ms).clamp(MIN_MS, MAX_MS),
        };
        self.set(t);
        t
    }

    /// Runs `ms` ahead of the reference clock (unfrozen); refused without change out of the
    /// range, or without a reference clock ([`NO_WALL_CLOCK`]).
    pub(crate) fn try_set_offset(&mut self, ms: i64) -> Result<i64, String> {
        match &mut self.drive {
            Drive::Wall { rule, reference } => {
                let t = rule
                    .try_set_offset(*reference, ms)
                    .map_err(|e| e.to_string())?;
                self.now = t;
                Ok(t)
            }
            Drive::Virtual { .. } => Err(NO_WALL_CLOCK.to_owned()),
        }
    }

    /// Runs `ms` ahead of the reference clock, clamped (nothing without a reference clock).
    pub(crate) fn set_offset(&mut self, ms: i64) {
        if let Drive::Wall { rule, reference } = &mut self.drive {
            self.now = rule.set_offset(*reference, ms);
        }
    }

    /// Exchange time minus reference time (0 without a reference clock).
    pub(crate) fn offset(&self) -> i64 {
        match &self.drive {
            Drive::Wall { rule, reference } => rule.offset(*reference),
            Drive::Virtual { .. } => 0,
        }
    }

    /// Freezes at `at_ms`, or now when `None`; refused without change out of the range.
    pub(crate) fn try_freeze(&mut self, at_ms: Option<i64>) -> Result<i64, OutOfRange> {
        let t = match at_ms {
            Some(t) => in_range(t)?,
            None => self.now,
        };
        self.freeze(Some(t));
        Ok(t)
    }

    /// Freezes at `at_ms` (clamped), or now when `None`.
    pub(crate) fn freeze(&mut self, at_ms: Option<i64>) -> i64 {
        match &mut self.drive {
            Drive::Wall { rule, reference } => {
                self.now = match at_ms {
                    Some(t) => rule.freeze_at(t),
                    None => rule.freeze_now(*reference),
                };
            }
            Drive::Virtual { frozen, .. } => {
                *frozen = true;
                if let Some(t) = at_ms {
                    self.now = t.clamp(MIN_MS, MAX_MS);
                }
            }
        }
        self.now
    }

    /// Lets a frozen clock run again from where it stands.
    pub(crate) fn unfreeze(&mut self) {
        match &mut self.drive {
            Drive::Wall { rule, reference } => rule.unfreeze(*reference),
            Drive::Virtual { frozen, .. } => *frozen = false,
        }
    }

    /// Whether the clock is frozen.
    pub(crate) fn frozen(&self) -> bool {
        match &self.drive {
            Drive::Wall { rule, .. } => rule.is_frozen(),
            Drive::Virtual { frozen, .. } => *frozen,
        }
    }

    /// Simulator milliseconds per reference millisecond while running.
    pub(crate) fn speed(&self) -> Decimal {
        match &self.drive {
            Drive::Wall { rule, .. } => rule.speed(),
            Drive::Virtual { speed, .. } => *speed,
        }
    }

    /// Sets the speed (negative counts as 0); the time does not jump.
    pub(crate) fn set_speed(&mut self, s: Decimal) {
        match &mut self.drive {
            Drive::Wall { rule, reference } => rule.set_speed(*reference, s),
            Drive::Virtual { speed, .. } => *speed = s.max(Decimal::ZERO),
        }
    }
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) for a time in seconds; used by the deposit/withdrawal records.
pub use digifinex_market::time::datetime_text;

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
        let mut c = ClockRule::frozen(1_000_000);
        let t = c.advanced(0, 500);
        c.set_time(0, t);
        assert_eq!(c.at(123), 1_000_500);
    }

    #[test]
    fn out_of_range_changes_nothing() {
        let mut c = ClockRule::frozen(1_000_000);
        assert_eq!(c.try_advanced(0, i64::MAX), Err(OutOfRange));
        assert_eq!(c.try_advanced(0, i64::MIN), Err(OutOfRange));
        assert_eq!(c.try_advanced(0, -1_000_001), Err(OutOfRange));
        assert_eq!(c.try_set_offset(5, i64::MAX), Err(OutOfRange));
        assert_eq!(c.try_set_offset(5, i64::MIN), Err(OutOfRange));
        assert_eq!(c.at(0), 1_000_000);
        assert!(c.is_frozen());
        assert_eq!(c.try_advanced(0, -1_000_000), Ok(0));
        assert_eq!(c.freeze_at(MAX_MS), MAX_MS);
        // The infallible forms clamp.
        let t = c.advanced(0, i64::MAX);
        c.set_time(0, t);
        assert_eq!(c.at(0), MAX_MS);
        c.freeze_at(i64::MIN);
        assert_eq!(c.at(0), MIN_MS);
        let wall = 1_700_000_000_000;
        c.set_offset(wall, i64::MAX);
        assert!(!c.is_frozen());
        assert_eq!(c.at(wall), MAX_MS);
        let t = c.advanced(wall, i64::MIN);
        c.set_time(wall, t);
        assert_eq!(c.at(wall), MIN_MS);
    }

    #[test]
    fn speed_scales_running_time_without_jumps() {
        let mut c = ClockRule::running(10, 1_000_000, Decimal::from(1000));
        assert_eq!(c.at(30), 1_020_000);
        // No jump at the change of speed.
        c.set_speed(30, Decimal::ONE);
        assert_eq!(c.at(30), 1_020_000);
        assert_eq!(c.at(35), 1_020_005);
        assert_eq!(c.offset(35), 1_020_005 - 35);
        assert_eq!(c.freeze_now(40), 1_020_010);
        assert_eq!(c.at(1_000), 1_020_010);
        c.unfreeze(2_000);
        assert_eq!(c.at(2_001), 1_020_011);
        assert_eq!(c.speed(), Decimal::ONE);
        assert_eq!(c.try_set_offset(2_000, 7), Ok(2_007));
        assert_eq!(c.at(2_003), 2_010);
    }
}
