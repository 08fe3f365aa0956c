//! The fills remembered by trade id, bounded.

use std::collections::{BTreeMap, HashSet, VecDeque};

/// Default [`super::TrackConfig::fill_memory`]: trade ids remembered per tracker.
pub const DEFAULT_FILL_MEMORY: usize = 20_000;

/// Trade ids seen, oldest forgotten first past the capacity.
///
/// A forgotten trade must not come back as new: each market keeps a floor, the latest time of
/// a forgotten trade of that market; a trade at or before its market's floor that is not
/// remembered is taken as seen (see the module documentation, "Fills").
#[derive(Debug, Clone)]
pub(crate) struct FillMemory {
    capacity: usize,
    ids: HashSet<String>,
    order: VecDeque<(String, String, i64)>,
    floors: BTreeMap<String, i64>,
}

impl FillMemory {
    pub(crate) fn new(capacity: usize) -> Self {
        FillMemory {
            capacity: capacity.max(1),
            ids: HashSet::new(),
            order: VecDeque::new(),
            floors: BTreeMap::new(),
        }
    }

    /// Whether the trade `id` of `market` at `time` (ms; `None`: unknown) was seen.
    pub(crate) fn seen(&self, market: &str, id: &str, time: Option<i64>) -> bool {
        if self.ids.contains(id) {
            return true;
        }
        match (self.floors.get(market), time) {
            (Some(floor), Some(t)) => t <= *floor,
            // A forgotten fill without a time cannot be told from a new one: taken as seen once
            // anything of the market was forgotten (never emitted twice; see the docs).
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// Remembers a trade; forgets the oldest past the capacity.
    pub(crate) fn insert(&mut self, market: &str, id: &str, time: Option<i64>) {
        if !self.ids.insert(id.to_owned()) {
            return;
        }
        self.order
            .push_back((id.to_owned(), market.to_owned(), time.unwrap_or(i64::MIN)));
        while self.order.len() > self.capacity {
            let Some((old, market, t)) = self.order.pop_front() else {
                break;
            };
            self.ids.remove(&old);
            let floor = self.floors.entry(market).or_insert(i64::MIN);
            *floor = (*floor).max(t);
        }
    }

    /// Trade ids remembered.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgets_the_oldest_and_keeps_a_floor() {
        let mut m = FillMemory::new(2);
        m.insert("btc_usdt", "1", Some(1000));
        m.insert("btc_usdt", "2", Some(2000));
        m.insert("btc_usdt", "3", Some(3000));
        assert_eq!(m.len(), 2);
        // "1" is forgotten, but its time is under the floor: still seen.
        assert!(m.seen("btc_usdt", "1", Some(1000)));
        assert!(!m.seen("btc_usdt", "4", Some(4000)));
        assert!(!m.seen("eth_usdt", "9", Some(500)));
        assert!(m.seen("btc_usdt", "2", Some(2000)));
    }
}
