//! The order latency model: how long a placed order takes to reach the matching engine.

use crate::rng::Rng;
use rust_decimal::Decimal;
use std::fmt;
use std::str::FromStr;

/// Longest latency a model may produce (ms): samples are capped here.
pub const MAX_LATENCY_MS: u64 = 600_000;

/// Time from an order request to the matching engine, in simulator milliseconds, drawn per
/// order from a generator seeded by [`crate::SimConfig::seed`] (so the same seed and the same
/// requests give the same delays).
///
/// Text form (for `--latency`): `none`, `fixed:MS`, `uniform:MIN:MAX`, `lognormal:MEDIAN:SIGMA`
/// (`lognormal:50:0.5`: median 50 ms, sigma 0.5 of the underlying normal).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Latency {
    /// Orders reach the engine at once (the default).
    #[default]
    None,
    /// Always `ms`.
    Fixed {
        /// Delay (ms).
        ms: u64,
    },
    /// Uniform over `min_ms..=max_ms`.
    Uniform {
        /// Shortest delay (ms).
        min_ms: u64,
        /// Longest delay (ms).
        max_ms: u64,
    },
    /// Log-normal: `median_ms * exp(sigma * z)` for a standard normal `z`, rounded to ms.
    LogNormal {
        /// Median delay (ms).
        median_ms: u64,
        /// Standard deviation of the underlying normal (0 gives the median).
        sigma: Decimal,
    },
}

impl Latency {
    /// Draws one delay (ms, at most [`MAX_LATENCY_MS`]).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let ms = match self {
            Latency::None => 0,
            Latency::Fixed { ms } => *ms,
            Latency::Uniform { min_ms, max_ms } => {
                let (lo, hi) = (*min_ms.min(max_ms), *min_ms.max(max_ms));
                lo + rng.below(hi - lo + 1)
            }
            Latency::LogNormal { median_ms, sigma } => {
                // Box-Muller from two uniforms in (0, 1]: time, not money, so f64 is fine.
                let unit = |r: &mut Rng| {
                    let bits = r.next_u64();
                    let hi = f64::from(u32::try_from(bits >> 43).unwrap_or(0));
                    let lo = f64::from(u32::try_from((bits >> 11) & 0xffff_ffff).unwrap_or(0));
                    (hi * 4_294_967_296.0 + lo + 1.0) / 9_007_199_254_740_992.0
                };
                let (u1, u2) = (unit(rng), unit(rng));
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let s = f64::try_from(*sigma).unwrap_or(0.0);
                let median = f64::from(u32::try_from(*median_ms).unwrap_or(u32::MAX));
                let v = (median * (s * z).exp()).round();
                Decimal::try_from(v)
                    .ok()
                    .and_then(|d| u64::try_from(d).ok())
                    .unwrap_or(MAX_LATENCY_MS)
            }
        };
        ms.min(MAX_LATENCY_MS)
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Latency::None => f.write_str("none"),
            Latency::Fixed { ms } => write!(f, "fixed:{ms}"),
            Latency::Uniform { min_ms, max_ms } => write!(f, "uniform:{min_ms}:{max_ms}"),
            Latency::LogNormal { median_ms, sigma } => write!(f, "lognormal:{median_ms}:{sigma}"),
        }
    }
}

impl FromStr for Latency {
    type Err = String;

    fn from_str(s: &str) -> Result<Latency, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let ms = |t: &str| -> Result<u64, String> {
            let v: u64 = t
                .parse()
                .map_err(|_| format!("{t:?} is not a whole number of milliseconds"))?;
            if v > MAX_LATENCY_MS {
                return Err(format!("{v} ms is above the {MAX_LATENCY_MS} ms limit"));
            }
            Ok(v)
        };
        match parts.as_slice() {
            ["none"] => Ok(Latency::None),
            ["fixed", m] => Ok(Latency::Fixed { ms: ms(m)? }),
            ["uniform", a, b] => {
                let (min_ms, max_ms) = (ms(a)?, ms(b)?);
                if min_ms > max_ms {
                    return Err(format!(
                        "uniform:{min_ms}:{max_ms}: the minimum is above the maximum"
                    ));
                }
                Ok(Latency::Uniform { min_ms, max_ms })
            }
            ["lognormal", m, s] => {
                let sigma = crate::num::parse_dec(s)
                    .filter(|v| *v >= Decimal::ZERO && *v <= Decimal::from(5))
                    .ok_or_else(|| format!("sigma {s:?} is not a number within 0..=5"))?;
                Ok(Latency::LogNormal {
                    median_ms: ms(m)?,
                    sigma,
                })
            }
            _ => Err(format!(
                "{s:?} is not none, fixed:MS, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms() {
        for t in ["none", "fixed:50", "uniform:20:80", "lognormal:50:0.5"] {
            assert_eq!(t.parse::<Latency>().unwrap().to_string(), t);
        }
        assert!("fixed".parse::<Latency>().is_err());
        assert!("uniform:9:3".parse::<Latency>().is_err());
        assert!("lognormal:50:-1".parse::<Latency>().is_err());
        assert!("fixed:9999999".parse::<Latency>().is_err());
    }

    #[test]
    fn samples_are_seeded_and_in_range() {
        let mut a = Rng::new(7);
        assert_eq!(Latency::Fixed { ms: 40 }.sample(&mut a), 40);
        let u = Latency::Uniform {
            min_ms: 10,
            max_ms: 12,
        };
        let draws: Vec<u64> = (0..50).map(|_| u.sample(&mut a)).collect();
        assert!(draws.iter().all(|d| (10..=12).contains(d)));
        let ln = Latency::LogNormal {
            median_ms: 50,
            sigma: Decimal::new(5, 1),
        };
        let (mut x, mut y) = (Rng::new(3), Rng::new(3));
        let xs: Vec<u64> = (0..200).map(|_| ln.sample(&mut x)).collect();
        let ys: Vec<u64> = (0..200).map(|_| ln.sample(&mut y)).collect();
        assert_eq!(xs, ys);
        let mut sorted = xs.clone();
        sorted.sort_unstable();
        // The median of 200 draws is near 50.
        assert!((35..=70).contains(&sorted[100]), "{}", sorted[100]);
        let zero = Latency::LogNormal {
            median_ms: 50,
            sigma: Decimal::ZERO,
        };
        assert_eq!(zero.sample(&mut x), 50);
    }
}
