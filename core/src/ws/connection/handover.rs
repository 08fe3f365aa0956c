//! What the owner of several sockets ([`crate::ws::Streams`]) asks of one of them: its number and
//! the recycle left to the owner, whether it is ready to take over, and the handover (the books
//! passed on, the old socket retired as a recycle).

use super::{Connection, Phase, SubscriptionState};
use crate::types::TimestampMillis;
use crate::ws::book::Book;
use crate::ws::event::{BookUpdate, CloseReason, Event};

impl Connection {
    /// Numbers the socket and leaves its lifetime recycle to the owner (a [`crate::ws::Streams`]).
    pub(crate) fn managed(mut self, socket: u32) -> Self {
        self.socket = socket;
        self.managed = true;
        self
    }

    /// Whether the socket is open, every subscription answered (acknowledged or refused) and
    /// every acknowledged book holds a snapshot: a replacement socket can take over.
    pub(crate) fn is_ready(&self) -> bool {
        self.is_open()
            && self.entries.iter().all(|e| match e.state {
                SubscriptionState::Pending => false,
                SubscriptionState::Refused => true,
                SubscriptionState::Active => e.book.as_ref().is_none_or(Book::is_live),
            })
    }

    /// The time the current socket opened.
    pub(crate) fn open_since(&self) -> Option<i64> {
        match &self.phase {
            Phase::Open(open) => Some(open.since),
            _ => None,
        }
    }

    /// Every live book as a snapshot update (what a replacement socket hands over).
    pub(crate) fn book_snapshots(&self) -> Vec<Event> {
        self.entries
            .iter()
            .filter_map(|e| {
                let book = e.book.as_ref().filter(|b| b.is_live())?;
                Some(Event::Book(BookUpdate::snapshot_of(e.sub.clone(), book)))
            })
            .collect()
    }

    /// Closes the socket for good because a replacement took over: reported as a recycle,
    /// without resyncs (the books live on in the replacement).
    pub(crate) fn retire(&mut self, now: TimestampMillis) {
        if matches!(self.phase, Phase::Stopped) {
            return;
        }
        if matches!(self.phase, Phase::Open(_) | Phase::Connecting) {
            self.close_now = Some(CloseReason::Recycle);
        }
        for e in &mut self.entries {
            if let Some(book) = &mut e.book {
                book.reset();
            }
        }
        self.lose(now.0, CloseReason::Requested);
        if let Some(Event::Disconnected { reason, .. }) = self.events.back_mut() {
            *reason = CloseReason::Recycle;
        }
    }
}
