//! The subscriptions' requests: grouped per channel, the private ones held until `server.auth`
//! succeeded, and their replies (acknowledged, refused, or a running stream the venue
//! acknowledges by a refusal).

use super::{duration_ms, Auth, Connection, Kind, Pending, Phase, SubscriptionState};
use crate::ws::event::{Event, ReplyError};
use crate::ws::protocol::ReplyValue;
use crate::ws::subscription::Subscription;

impl Connection {
    /// Sends subscriptions: public ones now, private ones after `server.auth` succeeded (sent
    /// first if needed), grouped into one request per channel (and level or granularity).
    pub(super) fn send_subscriptions(&mut self, subs: Vec<Subscription>, kind: Kind) {
        let (done, start) = match &self.phase {
            Phase::Open(open) => (open.auth == Auth::Done, open.auth == Auth::No),
            _ => return,
        };
        let (private, public): (Vec<_>, Vec<_>) =
            subs.into_iter().partition(|s| s.channel.is_private());
        let mut now_subs = public;
        if !private.is_empty() {
            if done {
                now_subs.extend(private);
            } else if start {
                self.start_auth();
            }
        }
        let mut groups: Vec<Vec<Subscription>> = Vec::new();
        for s in now_subs {
            match groups.iter_mut().find(|g| {
                g.first().is_some_and(|f| {
                    f.channel == s.channel
                        && f.level == s.level
                        && f.granularity == s.granularity
                        && f.target.is_some() == s.target.is_some()
                })
            }) {
                Some(g) => g.push(s),
                None => groups.push(vec![s]),
            }
        }
        for g in groups {
            let refs: Vec<&Subscription> = g.iter().collect();
            self.send_group(&refs, kind);
        }
    }

    /// Sends one (un)subscribe request for subscriptions sharing channel, level and
    /// granularity.
    pub(super) fn send_group(&mut self, subs: &[&Subscription], kind: Kind) {
        let Some(id) = self.next_id() else { return };
        let unsubscribe = matches!(kind, Kind::Unsubscribe { .. });
        let text = self.dialect.subscribe(id, subs, unsubscribe);
        let request = format!(
            "{}.{}",
            subs.first().map_or("", |s| s.channel.wire()),
            if unsubscribe {
                "unsubscribe"
            } else {
                "subscribe"
            }
        );
        let owned = subs.iter().map(|s| (*s).clone()).collect();
        self.push_request(id, text, kind, &request, owned);
    }

    /// The reply to a (re)subscribe: the subscriptions acknowledged (their books wait for a
    /// snapshot) or refused.
    pub(super) fn on_subscribe_reply(
        &mut self,
        now: i64,
        pending: Pending,
        outcome: Result<ReplyValue, ReplyError>,
    ) {
        let accepted = match &outcome {
            Ok(_) => true,
            Err(e) => self.dialect.already_subscribed(e),
        };
        let timeout = duration_ms(self.config.snapshot_timeout);
        for e in &mut self.entries {
            if !pending.subs.contains(&e.sub) {
                continue;
            }
            if accepted {
                e.state = SubscriptionState::Active;
                if e.book.as_ref().is_some_and(|b| !b.is_live()) {
                    e.snapshot_due = Some(now.saturating_add(timeout));
                }
            } else {
                e.state = SubscriptionState::Refused;
                e.snapshot_due = None;
                e.resyncing = false;
                if let Some(b) = &mut e.book {
                    b.reset();
                }
            }
        }
        match outcome {
            Err(error) if !accepted => self.events.push_back(Event::Refused {
                family: self.dialect.family(),
                request: pending.request,
                subscriptions: pending.subs,
                error,
            }),
            _ if pending.kind == Kind::Subscribe => self.events.push_back(Event::Subscribed {
                subscriptions: pending.subs,
            }),
            _ => {}
        }
    }

    /// The reply to the user's unsubscribe.
    pub(super) fn on_unsubscribe_reply(
        &mut self,
        pending: Pending,
        outcome: Result<ReplyValue, ReplyError>,
    ) {
        self.events.push_back(match outcome {
            Ok(_) => Event::Unsubscribed {
                subscriptions: pending.subs,
            },
            Err(error) => Event::Refused {
                family: self.dialect.family(),
                request: pending.request,
                subscriptions: pending.subs,
                error,
            },
        });
    }
}
