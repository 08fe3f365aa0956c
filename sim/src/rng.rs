//! A seeded deterministic generator (splitmix64): the same seed gives the same books, ids and keys.

/// splitmix64 generator.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// `n` random bytes as lowercase hex.
    pub fn hex(&mut self, bytes: usize) -> String {
        let mut out = String::with_capacity(bytes * 2);
        let mut left = bytes;
        while left > 0 {
            let v = self.next_u64().to_be_bytes();
            let take = left.min(8);
            out.push_str(&hex::encode(&v[..take]));
            left -= take;
        }
        out
    }
}

/// One, in the Q62 fixed point of [`Rng::exp1_q62`].
pub const Q62: u128 = 1 << 62;

/// `ln 2` in Q62 fixed point.
const LN2_Q62: u128 = 3_196_577_161_300_663_808;

impl Rng {
    /// A draw of the standard exponential distribution (mean 1) in Q62 fixed point
    /// (`value * 2^62`), by inversion: `-ln U` for `U` uniform in `(0, 1]` with 53 random bits.
    /// Integer arithmetic only, so it gives the same draws on every platform; accurate to
    /// about `2^-50`.
    pub fn exp1_q62(&mut self) -> u128 {
        // U = u / 2^53 with u in 1..=2^53; -ln U = 53 ln 2 - ln u.
        let u = (self.next_u64() >> 11) + 1;
        let bits = 64 - u.leading_zeros(); // u in [2^(bits-1), 2^bits)
                                           // u = 2^(bits-1) * m with m in [1, 2): ln u = (bits - 1) ln 2 + ln m.
        let m_q62 = (u128::from(u) << 62) >> (bits - 1);
        let whole = u128::from(53 - (bits - 1)) * LN2_Q62;
        whole.saturating_sub(ln_1_2(m_q62))
    }
}

/// `ln x` for `x` in `[1, 2)`, both in Q62 fixed point: `2 atanh((x - 1) / (x + 1))` by its
/// series, whose ratio is below 1/9 there.
fn ln_1_2(x_q62: u128) -> u128 {
    let z = (x_q62.saturating_sub(Q62) << 62) / (x_q62 + Q62);
    let z2 = (z * z) >> 62;
    let (mut term, mut sum, mut k) = (z, 0u128, 1u128);
    while term > 0 && k < 64 {
        sum += term / k;
        term = (term * z2) >> 62;
        k += 2;
    }
    2 * sum
}

/// The splitmix64 finaliser, also usable as a stateless hash of an integer.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exponential_draws_have_mean_one_and_its_tail() {
        let mut rng = Rng::new(7);
        let n = 200_000u32;
        let (mut sum, mut above2) = (0u128, 0u32);
        for _ in 0..n {
            let e = rng.exp1_q62();
            sum += e >> 30; // Q32
            if e > 2 * Q62 {
                above2 += 1;
            }
        }
        // Mean 1 (standard error 1/sqrt(n) = 0.0022), P(E > 2) = e^-2 = 0.1353.
        let mean = sum as f64 / f64::from(n) / (1u64 << 32) as f64;
        assert!((mean - 1.0).abs() < 0.01, "mean {mean}");
        let tail = f64::from(above2) / f64::from(n);
        assert!((tail - 0.1353).abs() < 0.005, "tail {tail}");
        // ln 1.5 = 0.405465108...
        let ln15 = ln_1_2(Q62 + Q62 / 2) as f64 / Q62 as f64;
        assert!((ln15 - 0.405_465_108_108_164_4).abs() < 1e-12, "{ln15}");
        assert_eq!(ln_1_2(Q62), 0);
    }
}
