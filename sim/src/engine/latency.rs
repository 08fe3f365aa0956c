//! Orders on their way to the matching engine ([`crate::Latency`]): each API placement
//! draws its delay from the seeded latency model and waits in time order; the drivers'
//! step ([`crate::drive`]) executes it when its time comes.

use crate::config::SimConfig;
use crate::market::Latency;
use crate::rng::{mix, Rng};
use std::collections::BTreeMap;

/// An order waiting for its latency to pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// A spot or margin order id.
    Spot(String),
    /// A swap order id.
    Swap(String),
}

/// The orders on their way to the engine, in the order they arrive.
#[derive(Debug)]
pub struct LatencyQueue {
    latency: Latency,
    rng: Rng,
    pending: BTreeMap<(i64, u64), Pending>,
    seq: u64,
}

impl LatencyQueue {
    /// The queue of `config`'s latency model, empty.
    pub fn new(config: &SimConfig) -> LatencyQueue {
        LatencyQueue {
            latency: config.latency.clone(),
            rng: Rng::new(mix(config.seed ^ 0x6c61_7465_6e63_7921)),
            pending: BTreeMap::new(),
            seq: 0,
        }
    }

    /// Orders placed but not yet at the engine.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Draws the delay of one order placed now (0 without a latency model).
    pub fn draw_delay(&mut self) -> i64 {
        i64::try_from(self.latency.sample(&mut self.rng)).unwrap_or(0)
    }

    /// Holds order `p` until simulator time `at`, when it reaches the engine.
    pub fn hold(&mut self, at: i64, p: Pending) {
        self.seq += 1;
        self.pending.insert((at, self.seq), p);
    }

    /// The time the first order arrives.
    pub fn next_time(&self) -> Option<i64> {
        self.pending.keys().next().map(|k| k.0)
    }

    /// Takes the first order: its arrival time and the order.
    pub fn pop(&mut self) -> Option<(i64, Pending)> {
        let (&key, _) = self.pending.iter().next()?;
        self.pending.remove(&key).map(|p| (key.0, p))
    }
}
