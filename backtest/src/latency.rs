//! Latency models of the REST round trip in virtual time: the request's way to the exchange
//! (entry) and the answer's way back (response), each in ms.
//!
//! - [`RestLatency::Fixed`]: the same two legs every time.
//! - [`RestLatency::Uniform`]: each leg drawn uniformly from its range, from a seeded counter
//!   (the n-th call of a run always draws the same).
//! - [`RestLatency::Recorded`]: rows logged against the live venue
//!   ([`digifinex_core::roundtrip::RoundTripLog`]), each leg interpolated linearly in time
//!   between the two rows around the call (hftbacktest's interpolated order latency). When
//!   the rows do not cover the run's time (a log of another day), the log is laid over the
//!   run from its start and repeated: the call at `run_start + d` takes the log's time
//!   `log_start + d mod span`.
//!
//! DESIGN: a leg is whole milliseconds, as the exchange's clock is.

use digifinex_core::roundtrip::RoundTrip;

/// The REST round trip's model (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestLatency {
    /// Fixed legs.
    Fixed {
        /// Request to exchange.
        entry_ms: u64,
        /// Exchange to answer.
        response_ms: u64,
    },
    /// Each leg uniform in `[lo, hi]`, drawn from `seed` and the call's number.
    Uniform {
        /// The entry leg's range.
        entry_ms: (u64, u64),
        /// The response leg's range.
        response_ms: (u64, u64),
        /// The draws' seed.
        seed: u64,
    },
    /// Interpolated between logged rows: `(time_ms, entry_ms, response_ms)`, sorted by time.
    Recorded(Vec<(i64, u64, u64)>),
}

impl Default for RestLatency {
    fn default() -> Self {
        RestLatency::Fixed {
            entry_ms: 0,
            response_ms: 0,
        }
    }
}

/// splitmix64: a well-mixed 64-bit value of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn draw((lo, hi): (u64, u64), r: u64) -> u64 {
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    let span = hi - lo;
    if span == u64::MAX {
        return r;
    }
    lo + r % (span + 1)
}

/// The most a leg may be (ms).
pub const MAX_LEG_MS: u64 = 60_000;

impl RestLatency {
    /// Reads a model as `digifinex backtest --latency` takes it: `ENTRY_MS[:RESPONSE_MS]`
    /// fixed (one number: both legs), `uniform:LO-HI[:LO-HI]` drawn per call from `seed`, or
    /// `file:PATH`, round trips logged against the venue
    /// ([`digifinex_core::roundtrip::RoundTripLog`]); each leg at most [`MAX_LEG_MS`]. The
    /// error says what was expected.
    ///
    /// ```
    /// use digifinex_backtest::RestLatency;
    ///
    /// assert_eq!(
    ///     RestLatency::parse("15:25", 1),
    ///     Ok(RestLatency::Fixed { entry_ms: 15, response_ms: 25 })
    /// );
    /// assert!(RestLatency::parse("fast", 1).is_err());
    /// ```
    pub fn parse(text: &str, seed: u64) -> Result<RestLatency, String> {
        let bad = || {
            format!(
                "expected ENTRY_MS[:RESPONSE_MS], uniform:LO-HI[:LO-HI] (ms) or file:PATH, \
                 got {text:?}"
            )
        };
        let ms = |s: &str| -> Result<u64, String> {
            let v: u64 = s.trim().parse().map_err(|_| bad())?;
            if v > MAX_LEG_MS {
                return Err(format!("each leg is at most {MAX_LEG_MS} ms"));
            }
            Ok(v)
        };
        if let Some(path) = text.strip_prefix("file:") {
            let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
            let rows = digifinex_core::roundtrip::read_rows(std::io::BufReader::new(file))
                .map_err(|e| format!("{path}: {e}"))?;
            return Ok(RestLatency::from_rows(&rows));
        }
        if let Some(ranges) = text.strip_prefix("uniform:") {
            let range = |s: &str| -> Result<(u64, u64), String> {
                let (lo, hi) = s.split_once('-').ok_or_else(bad)?;
                let (lo, hi) = (ms(lo)?, ms(hi)?);
                if lo > hi {
                    return Err(bad());
                }
                Ok((lo, hi))
            };
            let (a, b) = ranges.split_once(':').unwrap_or((ranges, ranges));
            return Ok(RestLatency::Uniform {
                entry_ms: range(a)?,
                response_ms: range(b)?,
                seed,
            });
        }
        let (a, b) = text.split_once(':').unwrap_or((text, text));
        Ok(RestLatency::Fixed {
            entry_ms: ms(a)?,
            response_ms: ms(b)?,
        })
    }

    /// The model of logged round trips (their legs, [`RoundTrip::legs`]).
    pub fn from_rows(rows: &[RoundTrip]) -> RestLatency {
        let mut points: Vec<(i64, u64, u64)> = rows
            .iter()
            .map(|r| {
                let (e, s) = r.legs();
                (
                    r.sent_ms,
                    u64::try_from(e).unwrap_or(0),
                    u64::try_from(s).unwrap_or(0),
                )
            })
            .collect();
        points.sort_by_key(|p| p.0);
        RestLatency::Recorded(points)
    }

    /// The two legs of call number `n` (0 first) made at `now_ms` in a run that started at
    /// `start_ms`.
    pub fn legs(&self, now_ms: i64, start_ms: i64, n: u64) -> (u64, u64) {
        match self {
            RestLatency::Fixed {
                entry_ms,
                response_ms,
            } => (*entry_ms, *response_ms),
            RestLatency::Uniform {
                entry_ms,
                response_ms,
                seed,
            } => {
                let a = mix(seed ^ mix(n.wrapping_mul(2)));
                let b = mix(seed ^ mix(n.wrapping_mul(2).wrapping_add(1)));
                (draw(*entry_ms, a), draw(*response_ms, b))
            }
            RestLatency::Recorded(points) => interpolate(points, now_ms, start_ms),
        }
    }
}

fn interpolate(points: &[(i64, u64, u64)], now: i64, start: i64) -> (u64, u64) {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return (0, 0);
    };
    let mut t = now;
    if now < first.0 || now > last.0 {
        // The log does not cover this instant: lay it over the run from its start.
        let span = (last.0 - first.0).max(1);
        t = first.0 + (now - start).rem_euclid(span);
    }
    let i = points.partition_point(|p| p.0 <= t);
    let (Some(a), Some(b)) = (points.get(i.saturating_sub(1)), points.get(i)) else {
        return (last.1, last.2);
    };
    if b.0 <= a.0 {
        return (a.1, a.2);
    }
    let lerp = |x: u64, y: u64| -> u64 {
        let (x, y) = (i128::from(x), i128::from(y));
        let v = x + (y - x) * i128::from(t - a.0) / i128::from(b.0 - a.0);
        u64::try_from(v).unwrap_or(0)
    };
    (lerp(a.1, b.1), lerp(a.2, b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_uniform_legs() {
        let f = RestLatency::Fixed {
            entry_ms: 12,
            response_ms: 30,
        };
        assert_eq!(f.legs(5, 0, 9), (12, 30));
        let u = RestLatency::Uniform {
            entry_ms: (10, 20),
            response_ms: (5, 5),
            seed: 7,
        };
        let draws: Vec<(u64, u64)> = (0..200).map(|n| u.legs(0, 0, n)).collect();
        assert!(draws.iter().all(|(e, r)| (10..=20).contains(e) && *r == 5));
        // Both ends are reached, and the n-th draw is the same every time.
        assert!(draws.iter().any(|d| d.0 == 10) && draws.iter().any(|d| d.0 == 20));
        assert_eq!(u.legs(99, 0, 17), draws[17]);
    }

    #[test]
    fn recorded_legs_are_interpolated_and_laid_over_the_run() {
        let r = RestLatency::Recorded(vec![(1_000, 10, 40), (2_000, 30, 20), (3_000, 30, 20)]);
        assert_eq!(r.legs(1_000, 0, 0), (10, 40));
        assert_eq!(r.legs(1_500, 0, 0), (20, 30));
        assert_eq!(r.legs(1_250, 0, 0), (15, 35));
        assert_eq!(r.legs(2_500, 0, 0), (30, 20));
        // Outside the log: from the log's start, repeated over its span (2,000 ms).
        assert_eq!(r.legs(100_500, 100_000, 0), (20, 30));
        assert_eq!(r.legs(102_500, 100_000, 0), (20, 30));
        assert_eq!(RestLatency::Recorded(Vec::new()).legs(5, 0, 0), (0, 0));
    }
}
