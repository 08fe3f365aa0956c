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

/// The splitmix64 finaliser, also usable as a stateless hash of an integer.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
