//! The fill models of a replayed book: where an own resting order stands in its level's queue
//! when the recorded size of the level shrinks.
//!
//! A recording shows each level's total size, never the orders in it. An own order joins its
//! level behind the recorded size there; recorded trades at the level take from the front (own
//! orders fill in their turn), and so do the trades a websocket recording shows. What a model
//! decides is the rest: when a snapshot or a depth delta reports the level smaller than it was,
//! and no trade explains it, how much of that decrease was cancelled *ahead* of the own order
//! (moving it up) and how much *behind* it. With `front` the recorded size ahead of the level's
//! first own order and `back` the recorded size behind it, a model gives the share `p` of the
//! decrease taken from behind:
//!
//! - [`FillModel::Fifo`] (the default, conservative): `p = 1`. Every unexplained decrease comes
//!   from behind: the order moves up only through trades, or when the level shrinks below what
//!   was ahead of it (hftbacktest's `RiskAdverseQueueModel`).
//! - [`FillModel::ProbLog`]: `p = f(back) / (f(back) + f(front))` with `f(x) = ln(1 + x)`
//!   (hftbacktest's `LogProbQueueFunc`).
//! - [`FillModel::ProbPower`]: the same with `f(x) = x^n` (hftbacktest's `PowerProbQueueFunc`;
//!   `n = 2` by default; a larger `n` sends more of the decrease to the longer side).
//!
//! Of a decrease `chg`, `(1 - p) * chg` is taken from ahead of the first own order (at most
//! what is there, rounded down to 8 decimal places: the conservative side) and the rest from
//! the back of the level. In a websocket recording, a trade's quantity at the level is put back
//! at the back of the queue until the next depth frame (which reports the trade's effect), and
//! that frame's decrease takes it from the back first, never from ahead (hftbacktest's
//! `cum_trade_qty`). A level with several own orders: the shares are computed for the first;
//! what leaves from behind leaves from the back of the level, behind the last own order first.
//!
//! What the models do not capture: the real order of cancellations (DigiFinex publishes no
//! per-order feed, so no model can know it); orders of others that join ahead of ours at a
//! price level where we rest (none can, in price-time priority, but a recording's snapshot can
//! show a level refilled after it emptied: its size joins behind); hidden or iceberg liquidity;
//! our own orders' effect on others. They apply to replayed books only: the synthetic order
//! flow (markets without a recording) places and cancels its own orders at known positions.

use rust_decimal::{Decimal, MathematicalOps, RoundingStrategy};
use std::fmt;
use std::str::FromStr;

/// Decimal places of the share of a decrease taken from ahead of an own order (rounded down).
pub const QUEUE_DP: u32 = 8;

/// Largest exponent of [`FillModel::ProbPower`].
pub const MAX_POWER: u32 = 16;

/// How an own order's queue position follows decreases of its level (the module docs).
///
/// Text form (`--fill-model`): `fifo`, `prob-log`, `prob-power` (n = 2) or `prob-power:N`
/// (`N` a decimal above 0 and at most [`MAX_POWER`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum FillModel {
    /// Unexplained decreases come from behind (conservative).
    #[default]
    Fifo,
    /// Probabilistic, `f(x) = ln(1 + x)`.
    ProbLog,
    /// Probabilistic, `f(x) = x^n`.
    ProbPower {
        /// The exponent (above 0, at most [`MAX_POWER`]).
        n: Decimal,
    },
}

impl FillModel {
    /// The share (0 to 1) of a decrease taken from behind an own order with `front` recorded
    /// ahead of it and `back` behind it (both at least 0).
    pub fn behind_share(&self, front: Decimal, back: Decimal) -> Decimal {
        let (front, back) = (front.max(Decimal::ZERO), back.max(Decimal::ZERO));
        if back.is_zero() {
            // Nothing behind: whatever left, left from ahead (all models agree).
            return if front.is_zero() || matches!(self, FillModel::Fifo) {
                Decimal::ONE
            } else {
                Decimal::ZERO
            };
        }
        if front.is_zero() {
            return Decimal::ONE;
        }
        match self {
            FillModel::Fifo => Decimal::ONE,
            FillModel::ProbLog => {
                let f = |x: Decimal| {
                    x.checked_add(Decimal::ONE)
                        .and_then(|y| y.checked_ln())
                        .unwrap_or(Decimal::ZERO)
                };
                let (fb, ff) = (f(back), f(front));
                let sum = fb.saturating_add(ff);
                if sum.is_zero() {
                    Decimal::ONE
                } else {
                    fb.checked_div(sum).unwrap_or(Decimal::ONE)
                }
            }
            FillModel::ProbPower { n } => {
                // b^n / (b^n + f^n) = 1 / (1 + (f / b)^n), which neither overflows nor
                // underflows for the sizes of a book.
                let Some(ratio) = front.checked_div(back) else {
                    return Decimal::ONE;
                };
                match ratio.checked_powd(*n) {
                    Some(r) => Decimal::ONE
                        .checked_div(Decimal::ONE.saturating_add(r))
                        .unwrap_or(Decimal::ZERO),
                    // (f / b)^n beyond Decimal's range: nothing comes from behind.
                    None => Decimal::ZERO,
                }
            }
        }
        .clamp(Decimal::ZERO, Decimal::ONE)
    }

    /// How much of a decrease `chg` leaves from ahead of an own order with `front` ahead and
    /// `back` behind: `(1 - p) * chg` rounded down to [`QUEUE_DP`] places, at most `front`.
    pub fn from_front(&self, chg: Decimal, front: Decimal, back: Decimal) -> Decimal {
        if matches!(self, FillModel::Fifo) || chg <= Decimal::ZERO {
            return Decimal::ZERO;
        }
        let p = self.behind_share(front, back);
        let ahead = (Decimal::ONE - p)
            .checked_mul(chg)
            .unwrap_or(chg)
            .round_dp_with_strategy(QUEUE_DP, RoundingStrategy::ToZero);
        // What the back cannot give comes from ahead too.
        let overflow = chg.saturating_sub(back).max(Decimal::ZERO);
        ahead.max(overflow).min(front.max(Decimal::ZERO)).min(chg)
    }
}

impl fmt::Display for FillModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FillModel::Fifo => f.write_str("fifo"),
            FillModel::ProbLog => f.write_str("prob-log"),
            FillModel::ProbPower { n } => write!(f, "prob-power:{n}"),
        }
    }
}

impl FromStr for FillModel {
    type Err = String;

    fn from_str(s: &str) -> Result<FillModel, String> {
        match s.split_once(':') {
            None if s == "fifo" => Ok(FillModel::Fifo),
            None if s == "prob-log" => Ok(FillModel::ProbLog),
            None if s == "prob-power" => Ok(FillModel::ProbPower { n: Decimal::TWO }),
            Some(("prob-power", n)) => crate::num::parse_dec(n)
                .filter(|v| *v > Decimal::ZERO && *v <= Decimal::from(MAX_POWER))
                .map(|n| FillModel::ProbPower { n: n.normalize() })
                .ok_or_else(|| {
                    format!(
                        "prob-power:{n}: the exponent is a number above 0 and at most {MAX_POWER}"
                    )
                }),
            _ => Err(format!(
                "{s:?} is not fifo, prob-log, prob-power or prob-power:N"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::d;

    #[test]
    fn shares_by_hand() {
        // FIFO: everything from behind.
        assert_eq!(FillModel::Fifo.behind_share(d("10"), d("30")), Decimal::ONE);
        assert_eq!(FillModel::Fifo.from_front(d("5"), d("10"), d("30")), d("0"));
        // Power 2: 30^2 / (30^2 + 10^2) = 900 / 1000 = 0.9 from behind, 0.1 ahead.
        let p2 = FillModel::ProbPower { n: d("2") };
        assert_eq!(p2.behind_share(d("10"), d("30")), d("0.9"));
        assert_eq!(p2.from_front(d("5"), d("10"), d("30")), d("0.5"));
        // Power 1: 30 / 40 = 0.75 from behind.
        let p1 = FillModel::ProbPower { n: d("1") };
        assert_eq!(p1.from_front(d("4"), d("10"), d("30")), d("1"));
        // Log: ln 4 / (ln 4 + ln 2) = 2/3 from behind (ln 4 = 2 ln 2): 1/3 of 3 ahead.
        let share = FillModel::ProbLog.behind_share(d("1"), d("3"));
        assert!(
            (share - d("0.6666666666")).abs() < d("0.000000001"),
            "{share}"
        );
        assert_eq!(
            FillModel::ProbLog.from_front(d("3"), d("1"), d("3")),
            d("0.99999999")
        );
        // Nothing behind: all from ahead; nothing ahead: all from behind.
        assert_eq!(p2.from_front(d("2"), d("10"), d("0")), d("2"));
        assert_eq!(
            FillModel::ProbLog.from_front(d("2"), d("0"), d("10")),
            d("0")
        );
        // The back cannot give more than it has; the front at most what it has.
        assert_eq!(p2.from_front(d("35"), d("10"), d("30")), d("5"));
        assert_eq!(p2.from_front(d("45"), d("10"), d("30")), d("10"));
        // Huge ratios neither panic nor leave the range.
        let p16 = FillModel::ProbPower { n: d("16") };
        assert_eq!(p16.behind_share(d("1000000000"), d("0.00000001")), d("0"));
        assert_eq!(p16.behind_share(d("0.00000001"), d("1000000000")), d("1"));
    }

    #[test]
    fn text_forms() {
        for (text, model) in [
            ("fifo", FillModel::Fifo),
            ("prob-log", FillModel::ProbLog),
            ("prob-power", FillModel::ProbPower { n: d("2") }),
            ("prob-power:3", FillModel::ProbPower { n: d("3") }),
            ("prob-power:0.5", FillModel::ProbPower { n: d("0.5") }),
        ] {
            assert_eq!(text.parse::<FillModel>(), Ok(model.clone()), "{text}");
        }
        assert_eq!(
            FillModel::ProbPower { n: d("3") }.to_string(),
            "prob-power:3"
        );
        assert_eq!(
            "prob-power".parse::<FillModel>().unwrap().to_string(),
            "prob-power:2"
        );
        for bad in [
            "",
            "FIFO",
            "prob-power:0",
            "prob-power:17",
            "prob-power:x",
            "prob-log:2",
        ] {
            assert!(bad.parse::<FillModel>().is_err(), "{bad}");
        }
    }
}
