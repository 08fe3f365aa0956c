//! Bounded history: the containers that apply [`crate::config::Retention`].
//!
//! - [`OrderLog`]: one owner's records (order ids, copy-trading plans) in creation order. A
//!   record is open until [`OrderLog::finish`] marks it finished; the finished ones are capped
//!   (the first finished is the first dropped), open ones are never dropped. Every operation is
//!   `O(log n)` (a `BTreeMap` keyed by the creation sequence and a `VecDeque` of finished
//!   sequences), so no request walks the history to prune it.
//! - [`push_capped`]: appends to a `VecDeque` kept oldest first and pops the oldest beyond the
//!   cap (own trades, public trades).

use std::collections::{BTreeMap, VecDeque};

/// One kept record and whether it has finished.
#[derive(Debug, Clone, PartialEq)]
struct Entry<T> {
    value: T,
    finished: bool,
}

/// One owner's records in creation order, with at most a given number of finished ones kept
/// (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderLog<T> {
    /// Records by creation sequence.
    items: BTreeMap<u64, Entry<T>>,
    /// Sequences of the kept finished records, in the order they finished.
    finished: VecDeque<u64>,
}

impl<T> Default for OrderLog<T> {
    fn default() -> Self {
        OrderLog {
            items: BTreeMap::new(),
            finished: VecDeque::new(),
        }
    }
}

impl<T> OrderLog<T> {
    /// Adds an open record created as number `seq` (sequences grow with creation time; an
    /// existing record of that number is replaced).
    pub fn insert(&mut self, seq: u64, value: T) {
        self.items.insert(
            seq,
            Entry {
                value,
                finished: false,
            },
        );
    }

    /// The record created as number `seq`, if kept.
    pub fn get(&self, seq: u64) -> Option<&T> {
        self.items.get(&seq).map(|e| &e.value)
    }

    /// The record created as number `seq`, if kept, for change.
    pub fn get_mut(&mut self, seq: u64) -> Option<&mut T> {
        self.items.get_mut(&seq).map(|e| &mut e.value)
    }

    /// Finished records kept.
    #[cfg(test)]
    pub fn finished_len(&self) -> usize {
        self.finished.len()
    }

    /// The oldest kept record.
    #[cfg(test)]
    pub fn first(&self) -> Option<&T> {
        self.items.values().next().map(|e| &e.value)
    }

    /// Records kept (open and finished).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Kept records, oldest first (`.rev()` for newest first).
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.items.values().map(|e| &e.value)
    }

    /// Marks record `seq` finished (nothing for an unknown or already finished record), then
    /// drops the earliest finished records beyond `keep`, handing each to `dropped`.
    pub fn finish(&mut self, seq: u64, keep: usize, mut dropped: impl FnMut(T)) {
        if let Some(e) = self.items.get_mut(&seq) {
            if !e.finished {
                e.finished = true;
                self.finished.push_back(seq);
            }
        }
        while self.finished.len() > keep {
            let Some(old) = self.finished.pop_front() else {
                break;
            };
            if let Some(e) = self.items.remove(&old) {
                dropped(e.value);
            }
        }
    }
}

/// Appends `item` to `list` (oldest first) and drops the oldest items beyond `keep` (`keep` 0
/// keeps nothing).
pub fn push_capped<T>(list: &mut VecDeque<T>, item: T, keep: usize) {
    list.push_back(item);
    while list.len() > keep {
        list.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_records_are_capped_in_finish_order_and_open_ones_kept() {
        let mut log = OrderLog::default();
        for seq in 1..=6u64 {
            log.insert(seq, seq * 10);
        }
        let mut gone = Vec::new();
        // 1 stays open; 2..=6 finish in the order 3, 2, 5, 6, 4 with 2 kept.
        for seq in [3, 2, 5, 6, 4] {
            log.finish(seq, 2, |v| gone.push(v));
        }
        assert_eq!(gone, vec![30, 20, 50]);
        assert_eq!(log.iter().copied().collect::<Vec<_>>(), vec![10, 40, 60]);
        assert_eq!(log.finished_len(), 2);
        // Finishing again changes nothing.
        log.finish(6, 2, |v| gone.push(v));
        assert_eq!(gone.len(), 3);
        assert_eq!(log.get(1), Some(&10));
        assert_eq!(log.get(2), None);
        assert_eq!(log.first(), Some(&10));
    }

    #[test]
    fn push_capped_keeps_the_newest() {
        let mut list = VecDeque::new();
        for i in 0..5 {
            push_capped(&mut list, i, 3);
        }
        assert_eq!(list, VecDeque::from(vec![2, 3, 4]));
        push_capped(&mut list, 9, 0);
        assert!(list.is_empty());
    }
}
