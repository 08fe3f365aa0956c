//! Exact rounding of decimals to a grid of steps (a tick size, a precision, a lot size).

use rust_decimal::Decimal;

/// Which way a value that is not on the grid goes.
///
/// DESIGN: the default is [`Rounding::Passive`]: a buy price rounds down and a sell price up, so
/// a rounded order is never more aggressive than the one asked for (it may rest where the
/// original would have crossed, never the reverse).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rounding {
    /// Toward the passive side: a buy price down, a sell price up.
    #[default]
    Passive,
    /// To the nearest grid value; a value halfway between two goes to the passive side.
    Nearest,
    /// No rounding: a value off the grid is an error that names the two nearest valid values.
    Exact,
}

/// A grid of evenly spaced values: every multiple of `step` (`0.01`, `0.5`, `25`). Steps need
/// not be powers of ten.
///
/// All arithmetic is exact: the remainder of a decimal division, never a float or a rounded
/// quotient.
///
/// # Examples
///
/// ```
/// use digifinex_core::rules::Grid;
/// use digifinex_core::Decimal;
/// let tick = Grid::new(Decimal::new(5, 1)).expect("positive"); // 0.5
/// assert_eq!(tick.down(Decimal::new(1007, 2)), Some(Decimal::new(100, 1))); // 10.07 -> 10.0
/// assert_eq!(tick.up(Decimal::new(1007, 2)), Some(Decimal::new(105, 1))); // 10.07 -> 10.5
/// assert!(tick.contains(Decimal::new(105, 1)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid {
    step: Decimal,
}

impl Grid {
    /// The grid of multiples of `step`; `None` unless `step` is positive.
    pub fn new(step: Decimal) -> Option<Grid> {
        (step > Decimal::ZERO).then(|| Grid {
            step: step.normalize(),
        })
    }

    /// The grid of values with at most `places` decimal places (step `10^-places`); places
    /// beyond 28 (the most a decimal holds) are taken as 28.
    pub fn places(places: u32) -> Grid {
        Grid {
            step: Decimal::new(1, places.min(28)),
        }
    }

    /// The step.
    pub fn step(&self) -> Decimal {
        self.step
    }

    /// Whether `value` is a multiple of the step.
    pub fn contains(&self, value: Decimal) -> bool {
        value.checked_rem(self.step).is_some_and(|r| r.is_zero())
    }

    /// The largest grid value at or below `value` (`None` only on overflow).
    pub fn down(&self, value: Decimal) -> Option<Decimal> {
        let r = value.checked_rem(self.step)?;
        let v = if r.is_zero() {
            value
        } else if r.is_sign_negative() {
            value.checked_sub(r)?.checked_sub(self.step)?
        } else {
            value.checked_sub(r)?
        };
        Some(v.normalize())
    }

    /// The smallest grid value at or above `value` (`None` only on overflow).
    pub fn up(&self, value: Decimal) -> Option<Decimal> {
        let down = self.down(value)?;
        if down == value {
            Some(down)
        } else {
            Some(down.checked_add(self.step)?.normalize())
        }
    }

    /// The grid value nearest to `value`; halfway goes up when `tie_up`, else down.
    pub fn nearest(&self, value: Decimal, tie_up: bool) -> Option<Decimal> {
        let down = self.down(value)?;
        let up = self.up(value)?;
        let below = value.checked_sub(down)?;
        let above = up.checked_sub(value)?;
        Some(match below.cmp(&above) {
            std::cmp::Ordering::Less => down,
            std::cmp::Ordering::Greater => up,
            std::cmp::Ordering::Equal if tie_up => up,
            std::cmp::Ordering::Equal => down,
        })
    }

    /// Rounds toward zero (what a lot size does to an amount).
    pub fn truncate(&self, value: Decimal) -> Option<Decimal> {
        if value.is_sign_negative() {
            self.up(value)
        } else {
            self.down(value)
        }
    }

    /// The two grid values around `value` (equal when it is on the grid).
    pub fn around(&self, value: Decimal) -> Option<(Decimal, Decimal)> {
        Some((self.down(value)?, self.up(value)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().expect("decimal")
    }

    #[test]
    fn powers_of_ten_and_other_steps() {
        let g = Grid::places(2);
        assert_eq!(g.down(d("1.239")), Some(d("1.23")));
        assert_eq!(g.up(d("1.231")), Some(d("1.24")));
        assert_eq!(g.up(d("1.23")), Some(d("1.23")));
        let q = Grid::new(d("0.25")).expect("step");
        assert_eq!(q.down(d("1.3")), Some(d("1.25")));
        assert_eq!(q.up(d("1.3")), Some(d("1.5")));
        assert_eq!(q.nearest(d("1.375"), false), Some(d("1.25")));
        assert_eq!(q.nearest(d("1.375"), true), Some(d("1.5")));
        assert_eq!(q.nearest(d("1.4"), false), Some(d("1.5")));
        let t = Grid::new(d("0.3")).expect("step");
        assert!(t.contains(d("0.9")));
        assert_eq!(t.down(d("1.0")), Some(d("0.9")));
        assert_eq!(t.up(d("1.0")), Some(d("1.2")));
        let big = Grid::new(d("25")).expect("step");
        assert_eq!(big.down(d("1010")), Some(d("1000")));
        assert_eq!(big.down(d("-10")), Some(d("-25")));
        assert_eq!(big.truncate(d("-10")), Some(d("0")));
        assert!(Grid::new(Decimal::ZERO).is_none());
        assert!(Grid::new(d("-1")).is_none());
    }

    #[test]
    fn results_are_normalized() {
        let g = Grid::places(4);
        assert_eq!(
            g.down(d("30000.50001")).map(|v| v.to_string()),
            Some("30000.5".to_owned())
        );
        assert_eq!(
            g.down(d("100.0000")).map(|v| v.to_string()),
            Some("100".to_owned())
        );
    }
}
