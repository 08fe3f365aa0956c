//! The loss of a socket (its books reset, the next one planned) and the reconnect backoff
//! with its jitter.

use super::{duration_ms, Connection, Phase, SubscriptionState};
use crate::ws::book::ResyncReason;
use crate::ws::event::{CloseReason, Event};

impl Connection {
    /// The socket is gone: reset the books, plan the next socket.
    pub(super) fn lose(&mut self, now: i64, reason: CloseReason) {
        let healthy = match &self.phase {
            Phase::Open(open) => {
                now.saturating_sub(open.since) >= duration_ms(self.config.healthy_after)
            }
            _ => false,
        };
        self.out.clear();
        self.pending.clear();
        self.connect_now = false;
        for e in &mut self.entries {
            e.state = SubscriptionState::Pending;
            e.snapshot_due = None;
            e.snapshot_at = None;
            e.resyncing = false;
            e.resubscribe_at = None;
            if let Some(book) = &mut e.book {
                if book.is_live() {
                    book.reset();
                    self.events.push_back(Event::Resync {
                        subscription: e.sub.clone(),
                        reason: ResyncReason::Reconnect,
                        retry_in_ms: 0,
                    });
                }
            }
        }
        let retry = match reason {
            CloseReason::Requested => None,
            CloseReason::Recycle => {
                self.attempt = 0;
                Some(0)
            }
            _ => {
                if healthy {
                    self.attempt = 0;
                }
                Some(self.backoff_ms())
            }
        };
        self.events.push_back(Event::Disconnected {
            family: self.dialect.family(),
            socket: self.socket,
            reason,
            retry_in_ms: retry,
        });
        self.phase = match retry {
            None => Phase::Stopped,
            Some(ms) => Phase::Backoff {
                until: now.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX)),
            },
        };
    }

    /// Exponential backoff for the next attempt (`self.attempt` failures so far), with
    /// "equal jitter": a random point in the upper half of the delay.
    fn backoff_ms(&mut self) -> u64 {
        let initial = u64::try_from(self.config.reconnect_initial.as_millis()).unwrap_or(u64::MAX);
        let max = u64::try_from(self.config.reconnect_max.as_millis()).unwrap_or(u64::MAX);
        let doublings = self.attempt.saturating_sub(1).min(32);
        let base = initial.saturating_mul(1u64 << doublings).min(max);
        let half = base / 2;
        let jitter = self.random_below(i64::try_from(base.saturating_sub(half)).unwrap_or(0));
        half.saturating_add(u64::try_from(jitter).unwrap_or(0))
    }

    /// A pseudo-random number in `0..=bound` (xorshift64*).
    pub(super) fn random_below(&mut self, bound: i64) -> i64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        let r = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
        match u64::try_from(bound) {
            Ok(b) if b > 0 => r
                .checked_rem(b.saturating_add(1))
                .and_then(|v| i64::try_from(v).ok())
                .unwrap_or(0),
            _ => 0,
        }
    }
}
