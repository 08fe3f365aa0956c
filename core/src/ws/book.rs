//! The local order book of one depth subscription: a snapshot, then deltas applied by price.
//!
//! Neither socket sends sequence numbers or checksums (`docs/protocol.md`, "Books, gaps and
//! recovery"), so a gap cannot be seen in the stream. What can be seen makes the book invalid and
//! asks for a resnapshot: a delta before any snapshot, a crossed book after a frame (best bid ≥
//! best ask), and any reconnect. Levels are applied by price whatever their order (spot asks arrive
//! highest first, swap delta bids lowest first); size 0 deletes; a swap book is trimmed to its
//! level.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::Serialize;

use crate::types::TimestampMillis;
use crate::ws::model::Level;

/// Why a book needs a fresh snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResyncReason {
    /// A delta arrived before any snapshot.
    DeltaBeforeSnapshot,
    /// The best bid reached the best ask after applying a frame.
    Crossed,
    /// No snapshot arrived in time after the subscription was acknowledged, or the book went
    /// silent longer than allowed.
    Stale,
    /// The connection was lost or recycled; the book restarts from the next snapshot.
    Reconnect,
    /// The server refused the stream (a reply code other than success).
    Refused,
    /// A level with a price at or below zero or a negative size.
    InvalidLevel,
    /// A side grew past the most levels a book holds (`WsConfig::max_book_levels`).
    TooManyLevels,
    /// A depth push could not be read: the change it carried is unknown.
    Undecodable,
    /// Messages of a feed (`digifinex_core::feed`) were lost between the feed and this
    /// consumer: its sequence jumped; the book restarts from the feed's snapshot.
    FeedGap,
}

/// A local order book.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Book {
    bids: BTreeMap<Decimal, Decimal>,
    asks: BTreeMap<Decimal, Decimal>,
    /// Levels kept per side (swap: the subscribed level); `None` keeps all.
    window: Option<usize>,
    /// Whether a snapshot was applied since the last reset.
    live: bool,
    /// The server's time of the last frame (swap), when sent.
    timestamp: Option<TimestampMillis>,
    /// Most levels a side holds; past it the book is invalid (`None`: no limit).
    max_levels: Option<usize>,
}

impl Book {
    /// An empty book waiting for its snapshot; `window` levels per side are kept (`None`: all).
    pub fn new(window: Option<usize>) -> Self {
        Book {
            window,
            ..Book::default()
        }
    }

    /// The same book refusing a side of more than `max` levels ([`ResyncReason::TooManyLevels`]).
    pub fn with_max_levels(mut self, max: usize) -> Self {
        self.max_levels = Some(max);
        self
    }

    /// Whether a snapshot was applied and no desync has been seen since.
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// The best (highest) bid.
    pub fn best_bid(&self) -> Option<Level> {
        self.bids
            .iter()
            .next_back()
            .map(|(p, s)| Level::new(*p, *s))
    }

    /// The best (lowest) ask.
    pub fn best_ask(&self) -> Option<Level> {
        self.asks.iter().next().map(|(p, s)| Level::new(*p, *s))
    }

    /// Bids, best (highest price) first.
    pub fn bids(&self) -> impl Iterator<Item = Level> + '_ {
        self.bids.iter().rev().map(|(p, s)| Level::new(*p, *s))
    }

    /// Asks, best (lowest price) first.
    pub fn asks(&self) -> impl Iterator<Item = Level> + '_ {
        self.asks.iter().map(|(p, s)| Level::new(*p, *s))
    }

    /// Levels per side: (bids, asks).
    pub fn len(&self) -> (usize, usize) {
        (self.bids.len(), self.asks.len())
    }

    /// Whether both sides are empty.
    pub fn is_empty(&self) -> bool {
        self.bids.is_empty() && self.asks.is_empty()
    }

    /// The server time of the last applied frame, when the family sends one (swap).
    pub fn timestamp(&self) -> Option<TimestampMillis> {
        self.timestamp
    }

    /// Whether the best bid is at or above the best ask.
    pub fn is_crossed(&self) -> bool {
        matches!((self.best_bid(), self.best_ask()), (Some(b), Some(a)) if b.price >= a.price)
    }

    /// Empties the book and waits for the next snapshot.
    pub fn reset(&mut self) {
        self.bids.clear();
        self.asks.clear();
        self.live = false;
        self.timestamp = None;
    }

    /// Replaces the book with a snapshot (zero sizes are skipped), then checks it.
    pub fn apply_snapshot(
        &mut self,
        bids: &[Level],
        asks: &[Level],
        timestamp: Option<TimestampMillis>,
    ) -> Result<(), ResyncReason> {
        self.reset();
        self.live = true;
        self.apply(bids, asks, timestamp)
    }

    /// Applies a delta: each level sets its price's size, size zero deletes. A delta before
    /// any snapshot, or a crossed result, is refused (the book is reset).
    pub fn apply_delta(
        &mut self,
        bids: &[Level],
        asks: &[Level],
        timestamp: Option<TimestampMillis>,
    ) -> Result<(), ResyncReason> {
        if !self.live {
            return Err(ResyncReason::DeltaBeforeSnapshot);
        }
        self.apply(bids, asks, timestamp)
    }

    fn apply(
        &mut self,
        bids: &[Level],
        asks: &[Level],
        timestamp: Option<TimestampMillis>,
    ) -> Result<(), ResyncReason> {
        // DESIGN: a level with a price at or below zero or a negative size is not a book the
        // venue can have: the whole frame is refused and the book rebuilt, rather than kept
        // with a level dropped (which would hide what else the sender got wrong).
        if bids
            .iter()
            .chain(asks)
            .any(|l| l.price <= Decimal::ZERO || l.size.is_sign_negative() && !l.size.is_zero())
        {
            self.reset();
            return Err(ResyncReason::InvalidLevel);
        }
        for (side, levels) in [(&mut self.bids, bids), (&mut self.asks, asks)] {
            for l in levels {
                if l.size.is_zero() {
                    side.remove(&l.price);
                } else {
                    side.insert(l.price, l.size);
                }
            }
        }
        if let Some(w) = self.window {
            while self.bids.len() > w {
                self.bids.pop_first();
            }
            while self.asks.len() > w {
                self.asks.pop_last();
            }
        }
        if timestamp.is_some() {
            self.timestamp = timestamp;
        }
        if self
            .max_levels
            .is_some_and(|max| self.bids.len() > max || self.asks.len() > max)
        {
            self.reset();
            return Err(ResyncReason::TooManyLevels);
        }
        if self.is_crossed() {
            self.reset();
            return Err(ResyncReason::Crossed);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn l(p: &str, s: &str) -> Level {
        Level::new(Decimal::from_str(p).unwrap(), Decimal::from_str(s).unwrap())
    }

    #[test]
    fn snapshot_then_deltas_by_price() {
        let mut b = Book::new(None);
        // Spot snapshot: asks highest first.
        b.apply_snapshot(
            &[l("10", "1"), l("9", "2")],
            &[l("12", "3"), l("11", "4")],
            None,
        )
        .unwrap();
        assert_eq!(b.best_bid(), Some(l("10", "1")));
        assert_eq!(b.best_ask(), Some(l("11", "4")));
        // Delete 11 with "0", change 9, add 9.5.
        b.apply_delta(&[l("9", "5"), l("9.5", "1")], &[l("11", "0")], None)
            .unwrap();
        assert_eq!(
            b.bids().collect::<Vec<_>>(),
            vec![l("10", "1"), l("9.5", "1"), l("9", "5")]
        );
        assert_eq!(b.asks().collect::<Vec<_>>(), vec![l("12", "3")]);
        // 9.50 is the level 9.5.
        b.apply_delta(&[l("9.50", "0")], &[], None).unwrap();
        assert_eq!(b.len(), (2, 1));
    }

    #[test]
    fn window_trims_the_worst_levels() {
        let mut b = Book::new(Some(2));
        // Delta bids ascending (worst first), as swap sends them.
        b.apply_snapshot(
            &[l("1", "1"), l("2", "1"), l("3", "1")],
            &[l("5", "1")],
            None,
        )
        .unwrap();
        assert_eq!(b.bids().collect::<Vec<_>>(), vec![l("3", "1"), l("2", "1")]);
        b.apply_delta(&[], &[l("4", "1"), l("6", "1")], None)
            .unwrap();
        assert_eq!(b.asks().collect::<Vec<_>>(), vec![l("4", "1"), l("5", "1")]);
    }

    #[test]
    fn desyncs() {
        let mut b = Book::new(None);
        assert_eq!(
            b.apply_delta(&[l("1", "1")], &[], None),
            Err(ResyncReason::DeltaBeforeSnapshot)
        );
        b.apply_snapshot(&[l("10", "1")], &[l("11", "1")], Some(TimestampMillis(5)))
            .unwrap();
        assert_eq!(b.timestamp(), Some(TimestampMillis(5)));
        assert_eq!(
            b.apply_delta(&[l("11", "1")], &[], None),
            Err(ResyncReason::Crossed)
        );
        assert!(!b.is_live() && b.is_empty());
    }

    #[test]
    fn invalid_levels_and_too_many_levels() {
        let mut b = Book::new(None).with_max_levels(2);
        b.apply_snapshot(&[l("10", "1")], &[l("11", "1")], None)
            .unwrap();
        assert_eq!(
            b.apply_delta(&[l("0", "1")], &[], None),
            Err(ResyncReason::InvalidLevel)
        );
        assert!(!b.is_live());
        b.apply_snapshot(&[l("10", "1")], &[l("11", "1")], None)
            .unwrap();
        assert_eq!(
            b.apply_delta(&[l("9", "-1")], &[], None),
            Err(ResyncReason::InvalidLevel)
        );
        b.apply_snapshot(&[l("10", "1")], &[l("11", "1")], None)
            .unwrap();
        // "-0" is a size of zero: a deletion.
        b.apply_delta(&[l("10", "-0")], &[], None).unwrap();
        b.apply_delta(&[l("9", "1"), l("8", "1")], &[], None)
            .unwrap();
        assert_eq!(
            b.apply_delta(&[l("7", "1")], &[], None),
            Err(ResyncReason::TooManyLevels)
        );
        assert!(!b.is_live() && b.is_empty());
    }
}
