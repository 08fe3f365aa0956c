//! The local books: depth frames applied, the resync of a bad, stale or unreadable book (with
//! its backoff), and the books' timers.

use super::{duration_ms, Connection, Kind};
use crate::ws::book::{Book, ResyncReason};
use crate::ws::event::{BookUpdate, Event};
use crate::ws::protocol::DepthPush;
use crate::ws::subscription::{Channel, Subscription};

impl Connection {
    /// A depth frame: applied to its book (a snapshot or a delta), or reported without one
    /// when nobody holds the stream.
    pub(super) fn on_depth(&mut self, now: i64, push: DepthPush) {
        let found = self.entries.iter().position(|e| {
            e.sub.matches(Channel::Depth, Some(&push.target))
                && (push.level.is_none() || e.sub.level.is_none() || e.sub.level == push.level)
        });
        let Some(i) = found else {
            // A stream nobody holds (an unsubscribe in flight): reported without a book.
            if let Ok(subscription) =
                Subscription::new(self.dialect.family(), Channel::Depth, Some(&push.target))
            {
                self.events.push_back(Event::Book(BookUpdate {
                    subscription,
                    snapshot: push.snapshot,
                    bids: push.bids,
                    asks: push.asks,
                    timestamp: push.timestamp,
                    best_bid: None,
                    best_ask: None,
                    depth: (0, 0),
                }));
            }
            return;
        };
        let Some(entry) = self.entries.get_mut(i) else {
            return;
        };
        let Some(book) = entry.book.as_mut() else {
            return;
        };
        let applied = if push.snapshot {
            book.apply_snapshot(&push.bids, &push.asks, push.timestamp)
        } else {
            book.apply_delta(&push.bids, &push.asks, push.timestamp)
        };
        match applied {
            Ok(()) => {
                if push.snapshot {
                    entry.snapshot_due = None;
                    entry.snapshot_at = Some(now);
                    entry.resyncing = false;
                }
                let update = BookUpdate {
                    subscription: entry.sub.clone(),
                    snapshot: push.snapshot,
                    best_bid: book.best_bid(),
                    best_ask: book.best_ask(),
                    depth: book.len(),
                    bids: push.bids,
                    asks: push.asks,
                    timestamp: push.timestamp,
                };
                self.events.push_back(Event::Book(update));
            }
            // Deltas before the (re)snapshot are dropped; a missing snapshot is caught by
            // the snapshot timeout.
            Err(ResyncReason::DeltaBeforeSnapshot) => {}
            Err(reason) => self.resync(i, reason),
        }
    }

    /// Rebuilds a book from a fresh snapshot: unsubscribe, then subscribe again, at once the
    /// first time and after a growing delay when the book needs it again within a minute of
    /// its last snapshot (a server that sends a bad book every time must not be asked again
    /// and again: against the venue, a ban risk).
    pub(super) fn resync(&mut self, i: usize, reason: ResyncReason) {
        let now = self.now;
        let initial = duration_ms(self.config.resync_initial);
        let max = duration_ms(self.config.resync_max);
        let Some(entry) = self.entries.get_mut(i) else {
            return;
        };
        if let Some(b) = &mut entry.book {
            b.reset();
        }
        let recent = entry
            .snapshot_at
            .is_none_or(|at| now.saturating_sub(at) < 60_000);
        entry.resyncs = if recent {
            entry.resyncs.saturating_add(1)
        } else {
            1
        };
        let delay = match entry.resyncs {
            0 | 1 => 0,
            n => initial
                .saturating_mul(1i64 << n.saturating_sub(2).min(30))
                .min(max),
        };
        entry.snapshot_due = None;
        entry.snapshot_at = None;
        entry.resyncing = true;
        entry.resubscribe_at = (delay > 0).then(|| now.saturating_add(delay));
        let sub = entry.sub.clone();
        self.events.push_back(Event::Resync {
            subscription: sub.clone(),
            reason,
            retry_in_ms: u64::try_from(delay).unwrap_or(0),
        });
        self.send_group(&[&sub], Kind::Unsubscribe { by_user: false });
        if delay == 0 {
            self.send_group(&[&sub], Kind::Resubscribe);
        }
    }

    /// A depth push that could not be read: the books it may concern are resynced (the
    /// targets its text names, or every book of the socket), instead of living on without
    /// the change it carried.
    pub(super) fn resync_unreadable_depth(&mut self, text: &[u8]) {
        let books: Vec<usize> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.book.as_ref().is_some_and(Book::is_live))
            .map(|(i, _)| i)
            .collect();
        let named: Vec<usize> = books
            .iter()
            .copied()
            .filter(|&i| {
                self.entries.get(i).is_some_and(|e| {
                    e.sub
                        .target
                        .as_deref()
                        .is_some_and(|t| contains_ignore_case(text, t.as_bytes()))
                })
            })
            .collect();
        for i in if named.is_empty() { books } else { named } {
            self.resync(i, ResyncReason::Undecodable);
        }
    }

    /// The books' timers at `now`: a snapshot that did not come in time or a book too old
    /// (resynced), a resubscription held back by the backoff (sent).
    pub(super) fn book_timers(&mut self, now: i64) {
        let max_age = self.config.book_max_age.map(duration_ms);
        let stale: Vec<usize> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.snapshot_due.is_some_and(|due| now >= due)
                    || matches!((max_age, e.snapshot_at), (Some(age), Some(at)) if now >= at.saturating_add(age))
            })
            .map(|(i, _)| i)
            .collect();
        for i in stale {
            self.resync(i, ResyncReason::Stale);
        }
        let held: Vec<Subscription> = self
            .entries
            .iter_mut()
            .filter(|e| e.resubscribe_at.is_some_and(|at| now >= at))
            .map(|e| {
                e.resubscribe_at = None;
                e.sub.clone()
            })
            .collect();
        for sub in held {
            self.send_group(&[&sub], Kind::Resubscribe);
        }
    }
}

/// Whether `needle` occurs in `hay`, ASCII case ignored.
pub(super) fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}
