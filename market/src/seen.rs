//! A bounded set of the ids seen last: how readers of a recording drop the trades that
//! overlapping polls and resubscriptions write again.

use std::collections::{HashSet, VecDeque};

/// The last `capacity` distinct ids seen, oldest forgotten first.
///
/// Polled recent-trade lists overlap, and a websocket sends the recent list again after each
/// subscription: a reader keeps one of these per market and takes a trade only when its id is
/// [`SeenIds::fresh`].
#[derive(Debug, Clone)]
pub struct SeenIds {
    set: HashSet<String>,
    order: VecDeque<String>,
    capacity: usize,
}

impl SeenIds {
    /// The capacity the simulator's replay and the exporters use (4,096 ids a market).
    pub const DEFAULT_CAPACITY: usize = 4096;

    /// An empty set remembering at most `capacity` ids (at least one).
    pub fn new(capacity: usize) -> SeenIds {
        SeenIds {
            set: HashSet::new(),
            order: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// Whether `id` is new (not among the last ids seen); it is remembered either way.
    pub fn fresh(&mut self, id: &str) -> bool {
        if self.set.contains(id) {
            return false;
        }
        self.set.insert(id.to_owned());
        self.order.push_back(id.to_owned());
        while self.order.len() > self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
        true
    }

    /// Ids remembered.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether no id is remembered.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

impl Default for SeenIds {
    fn default() -> SeenIds {
        SeenIds::new(SeenIds::DEFAULT_CAPACITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_last_ids_only() {
        let mut seen = SeenIds::new(2);
        assert!(seen.fresh("a"));
        assert!(!seen.fresh("a"));
        assert!(seen.fresh("b"));
        assert!(seen.fresh("c"));
        assert_eq!(seen.len(), 2);
        // "a" was forgotten: it reads as new again.
        assert!(seen.fresh("a"));
        assert!(!seen.fresh("c"));
        assert!(SeenIds::new(0).fresh("x"));
        assert!(SeenIds::default().is_empty());
    }
}
