//! Request ids, the requests in flight and their replies, each handed to the part that sent
//! it.

use super::{Connection, Kind, Pending, Phase};
use crate::ws::event::{Event, ReplyError};
use crate::ws::protocol::ReplyValue;
use crate::ws::subscription::Subscription;

impl Connection {
    /// The next request id of the open socket (`None`: no socket open).
    pub(super) fn next_id(&mut self) -> Option<u64> {
        match &mut self.phase {
            Phase::Open(open) => {
                let id = open.next_id;
                open.next_id = open.next_id.saturating_add(1);
                Some(id)
            }
            _ => None,
        }
    }

    /// Queues request `id` and remembers what its reply answers.
    pub(super) fn push_request(
        &mut self,
        id: u64,
        text: String,
        kind: Kind,
        request: &str,
        subs: Vec<Subscription>,
    ) {
        self.out.push_back(text);
        self.pending.insert(
            id,
            Pending {
                kind,
                request: request.to_owned(),
                subs,
            },
        );
    }

    /// A reply to request `id` (one not in flight is ignored).
    pub(super) fn on_reply(
        &mut self,
        now: i64,
        id: Option<u64>,
        outcome: Result<ReplyValue, ReplyError>,
    ) {
        let Some(pending) = id.and_then(|id| self.pending.remove(&id)) else {
            return;
        };
        match pending.kind {
            Kind::Ping => self.on_pong(id),
            Kind::Time => {
                if let Ok(ReplyValue::Time(time)) = outcome {
                    self.events.push_back(Event::ServerTime {
                        family: self.dialect.family(),
                        time,
                    });
                }
            }
            Kind::Clock => self.on_clock_reply(now, id, outcome),
            Kind::Auth => self.on_auth_reply(outcome),
            Kind::Subscribe | Kind::Resubscribe => self.on_subscribe_reply(now, pending, outcome),
            Kind::Unsubscribe { by_user } => {
                if by_user {
                    self.on_unsubscribe_reply(pending, outcome);
                }
            }
        }
    }
}
