//! The timers of a socket: the reconnect backoff running out, the lifetime recycle, the pings
//! and a late pong; and the earliest of every deadline (the auth's and the books' included).

use super::{duration_ms, Connection, Kind, Phase};
use crate::ws::event::{CloseReason, Event};

impl Connection {
    /// The earliest time something is due without input (`None`: nothing until a frame or
    /// a call).
    pub(super) fn deadline(&self) -> Option<i64> {
        match &self.phase {
            Phase::Backoff { until } => Some(*until),
            Phase::Connecting | Phase::Stopped => None,
            Phase::Open(open) => {
                let mut d = open.recycle_at.min(open.next_ping);
                if let Some((_, due)) = open.pong {
                    d = d.min(due);
                }
                if let Some(due) = open.auth.deadline() {
                    d = d.min(due);
                }
                for e in &self.entries {
                    if let Some(due) = e.snapshot_due.or(e.resubscribe_at) {
                        d = d.min(due);
                    }
                    if let (Some(age), Some(at)) = (self.config.book_max_age, e.snapshot_at) {
                        d = d.min(at.saturating_add(duration_ms(age)));
                    }
                }
                Some(d)
            }
        }
    }

    /// Runs the timers due at `now`: the backoff's end, the lifetime recycle, a late pong,
    /// the next ping, the auth's and the books' timers.
    pub(super) fn on_time(&mut self, now: i64) {
        match &mut self.phase {
            Phase::Backoff { until } if now >= *until => {
                self.phase = Phase::Connecting;
                self.attempt = self.attempt.saturating_add(1);
                self.connect_now = true;
                self.events.push_back(Event::Connecting {
                    family: self.dialect.family(),
                    socket: self.socket,
                    attempt: self.attempt,
                });
            }
            Phase::Open(open) => {
                if now >= open.recycle_at {
                    self.close_now = Some(CloseReason::Recycle);
                    self.lose(now, CloseReason::Recycle);
                    return;
                }
                if open.pong.is_some_and(|(_, due)| now >= due) {
                    self.close_now = Some(CloseReason::PongTimeout);
                    self.lose(now, CloseReason::PongTimeout);
                    return;
                }
                if now >= open.next_ping {
                    open.next_ping = now.saturating_add(duration_ms(self.config.ping_interval));
                    let due = now.saturating_add(duration_ms(self.config.pong_timeout));
                    if let Some(id) = self.next_id() {
                        let text = self.dialect.ping(id);
                        self.push_request(id, text, Kind::Ping, "server.ping", Vec::new());
                        if let Phase::Open(open) = &mut self.phase {
                            if open.pong.is_none() {
                                open.pong = Some((id, due));
                            }
                        }
                    }
                }
                self.auth_timers(now);
                self.book_timers(now);
            }
            _ => {}
        }
    }

    /// The answer to ping `id`: the pong it waits for, if it is that one.
    pub(super) fn on_pong(&mut self, id: Option<u64>) {
        if let Phase::Open(open) = &mut self.phase {
            if open.pong.is_some_and(|(p, _)| Some(p) == id) {
                open.pong = None;
            }
        }
    }
}
