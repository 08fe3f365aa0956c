//! `server.auth` signed with the server's clock: measured on the socket (`server.time`) when no
//! measured offset is at hand, measured again after every refusal, retried with backoff, and
//! given up after [`WsConfig::max_auth_refusals`](super::WsConfig::max_auth_refusals) refusals
//! in a row with the cause named ([`AuthCause`]).
//!
//! The steps on one socket, each at the time the machine is given:
//!
//! ```text
//! open ──(no offset known)──> server.time ──answer or pong_timeout──> server.auth
//!      ──(offset known)─────────────────────────────────────────────> server.auth
//! server.auth refused (or unanswered for pong_timeout)
//!        ──> server.time ──> AuthRefused { cause, retry_in_ms } ──wait──> server.auth
//!                       └──> AuthRefused { retry_in_ms: None } (the last refusal)
//! ```
//!
//! DESIGN: neither venue document states the auth's timestamp tolerance or an error that says
//! "clock" (both answer "auth fail"), so the cause is inferred: the clock measured right after
//! the refusal is compared with the timestamp that was signed; a difference of at least
//! [`CLOCK_MISMATCH_MS`] (or a clock that cannot be measured) is put down to the clock,
//! anything else to the key (the same answer covers a wrong key or secret, an expired key and
//! an IP outside the key's whitelist). Swap code 8 ("api not active") names a permission. The
//! refusals are counted per connection across its sockets and reset by a success; the retries
//! are on the same socket (the venue does not say whether a refused auth may be repeated on
//! it; the simulator allows it), a lost socket carries the count to the next.

use super::{duration_ms, Connection, Kind, Phase};
use crate::clock::estimate_offset;
use crate::types::TimestampMillis;
use crate::ws::event::{AuthCause, Event, ReplyError};
use crate::ws::protocol::ReplyValue;
use crate::ws::subscription::Subscription;
use crate::ws::SubscriptionState;

/// A refused `server.auth` whose signed timestamp was at least this far (ms) from the server's
/// clock measured right after it is put down to the clock ([`AuthCause::Clock`]): the spot
/// REST window's "1 s ahead", which a spot clock read in whole seconds (up to 999 ms low)
/// cannot reach on its own.
pub const CLOCK_MISMATCH_MS: i64 = 1_000;

/// Where one socket's `server.auth` stands.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Auth {
    /// Nothing sent yet.
    No,
    /// `server.time` is out (request `id`, sent at `sent`, given up on at `due`); `refused`:
    /// the refusal it will judge.
    Measuring {
        id: u64,
        sent: i64,
        due: i64,
        refused: Option<Refusal>,
    },
    /// `server.auth` is out, signed with `offset`; unanswered at `due`, it counts as refused.
    Sent { offset: i64, due: i64 },
    /// Refused; signed again at `at`.
    Retry { at: i64 },
    /// Accepted.
    Done,
    /// Given up: the private subscriptions stay refused.
    Failed,
}

impl Auth {
    /// The time the auth's next step is due without input.
    pub(super) fn deadline(&self) -> Option<i64> {
        match self {
            Auth::Measuring { due, .. } | Auth::Sent { due, .. } => Some(*due),
            Auth::Retry { at } => Some(*at),
            _ => None,
        }
    }
}

/// A refused auth: the offset it was signed with and the server's answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Refusal {
    offset: i64,
    error: ReplyError,
}

/// What a connection knows of the server's clock and its auth, across its sockets.
#[derive(Debug, Default)]
pub(super) struct Signer {
    /// The offset a socket measured (wins over the one given until another is given).
    pub(super) measured: Option<i64>,
    /// Refusals in a row.
    refusals: u32,
    /// Given up.
    gave_up: bool,
}

impl Connection {
    /// The offset `server.auth` is signed with: measured on a socket, else given.
    fn offset(&self) -> Option<i64> {
        self.signer.measured.or(self.config.time_offset_ms)
    }

    fn set_auth(&mut self, auth: Auth) {
        if let Phase::Open(open) = &mut self.phase {
            open.auth = auth;
        }
    }

    fn private_subs(&self) -> Vec<Subscription> {
        self.entries
            .iter()
            .filter(|e| e.sub.channel.is_private())
            .map(|e| e.sub.clone())
            .collect()
    }

    fn refuse_private(&mut self) {
        for e in &mut self.entries {
            if e.sub.channel.is_private() {
                e.state = SubscriptionState::Refused;
            }
        }
    }

    /// Private channels are wanted on a socket whose auth has not started: measure the clock
    /// first when no offset is known, else sign. After giving up, the private subscriptions
    /// are refused at once.
    pub(super) fn start_auth(&mut self) {
        if self.credentials.is_none() {
            return;
        }
        if self.signer.gave_up {
            self.set_auth(Auth::Failed);
            self.refuse_private();
            return;
        }
        match self.offset() {
            Some(offset) => self.sign(offset),
            None => self.measure(None),
        }
    }

    /// Sends `server.time` for the auth.
    fn measure(&mut self, refused: Option<Refusal>) {
        let Some(id) = self.next_id() else { return };
        let text = self.dialect.time(id);
        let (sent, due) = (
            self.now,
            self.now
                .saturating_add(duration_ms(self.config.pong_timeout)),
        );
        self.set_auth(Auth::Measuring {
            id,
            sent,
            due,
            refused,
        });
        self.push_request(id, text, Kind::Clock, "server.time", Vec::new());
    }

    /// Signs and sends `server.auth` at the latest call's time plus `offset`.
    fn sign(&mut self, offset: i64) {
        let Some(creds) = self.credentials.clone() else {
            return;
        };
        let Some(id) = self.next_id() else { return };
        let ts = self.now.saturating_add(offset);
        let ts_text = ts.to_string();
        let signature = match crate::sign::sign_ws(creds.secret(), &ts_text) {
            Ok(s) => s,
            Err(e) => {
                // A secret that cannot sign: nothing a retry changes.
                let error = ReplyError {
                    code: None,
                    message: Some(e.to_string()),
                };
                self.signer.refusals = self.signer.refusals.saturating_add(1);
                self.give_up(AuthCause::Key, error);
                return;
            }
        };
        let text = self.dialect.auth(id, creds.key(), ts, &signature);
        let due = ts
            .saturating_sub(offset)
            .saturating_add(duration_ms(self.config.pong_timeout));
        self.set_auth(Auth::Sent { offset, due });
        self.push_request(id, text, Kind::Auth, "server.auth", Vec::new());
    }

    /// The answer to the auth's `server.time`.
    pub(super) fn on_clock_reply(
        &mut self,
        now: i64,
        id: Option<u64>,
        outcome: Result<ReplyValue, ReplyError>,
    ) {
        let Phase::Open(open) = &self.phase else {
            return;
        };
        let Auth::Measuring { id: want, sent, .. } = &open.auth else {
            return;
        };
        if id != Some(*want) {
            return;
        }
        let sent = *sent;
        let measured = match outcome {
            Ok(ReplyValue::Time(server)) => Some(estimate_offset(
                server,
                TimestampMillis(sent),
                TimestampMillis(now),
            )),
            _ => None,
        };
        self.measured(measured);
    }

    /// The measurement ended (`None`: refused, unreadable or late): sign, or judge the refusal.
    fn measured(&mut self, offset: Option<i64>) {
        let refused = match &mut self.phase {
            Phase::Open(open) => match std::mem::replace(&mut open.auth, Auth::No) {
                Auth::Measuring { refused, .. } => refused,
                other => {
                    open.auth = other;
                    return;
                }
            },
            _ => return,
        };
        if let Some(offset) = offset {
            self.signer.measured = Some(offset);
            self.events.push_back(Event::ClockMeasured {
                family: self.dialect.family(),
                socket: self.socket,
                offset_ms: offset,
            });
        }
        match refused {
            None => self.sign(self.offset().unwrap_or(0)),
            Some(r) => {
                let cause = match offset {
                    Some(o) if o.abs_diff(r.offset) < CLOCK_MISMATCH_MS.unsigned_abs() => {
                        AuthCause::Key
                    }
                    _ => AuthCause::Clock,
                };
                self.judged(cause, r.error);
            }
        }
    }

    /// The answer to `server.auth`.
    pub(super) fn on_auth_reply(&mut self, outcome: Result<ReplyValue, ReplyError>) {
        let offset = match &self.phase {
            Phase::Open(open) => match open.auth {
                Auth::Sent { offset, .. } => offset,
                _ => return,
            },
            _ => return,
        };
        match outcome {
            Ok(_) => {
                self.signer.refusals = 0;
                self.set_auth(Auth::Done);
                self.events.push_back(Event::Authenticated {
                    family: self.dialect.family(),
                });
                let private = self.private_subs();
                self.send_subscriptions(private, Kind::Subscribe);
            }
            Err(error) => {
                self.signer.refusals = self.signer.refusals.saturating_add(1);
                self.refuse_private();
                match self.dialect.auth_refusal_cause(&error) {
                    Some(cause) => self.judged(cause, error),
                    None => self.measure(Some(Refusal { offset, error })),
                }
            }
        }
    }

    /// A refusal judged: retried after the backoff, or given up after the last one.
    fn judged(&mut self, cause: AuthCause, error: ReplyError) {
        if self.signer.refusals >= self.config.max_auth_refusals.max(1) {
            self.give_up(cause, error);
            return;
        }
        let initial = duration_ms(self.config.auth_retry_initial).max(1);
        let max = duration_ms(self.config.reconnect_max).max(initial);
        let doublings = self.signer.refusals.saturating_sub(1).min(30);
        let delay = initial.saturating_mul(1i64 << doublings).min(max);
        self.set_auth(Auth::Retry {
            at: self.now.saturating_add(delay),
        });
        self.events.push_back(Event::AuthRefused {
            family: self.dialect.family(),
            socket: self.socket,
            cause,
            refusals: self.signer.refusals,
            retry_in_ms: Some(u64::try_from(delay).unwrap_or(0)),
            subscriptions: self.private_subs(),
            error,
        });
    }

    fn give_up(&mut self, cause: AuthCause, error: ReplyError) {
        self.signer.gave_up = true;
        self.set_auth(Auth::Failed);
        self.refuse_private();
        self.events.push_back(Event::AuthRefused {
            family: self.dialect.family(),
            socket: self.socket,
            cause,
            refusals: self.signer.refusals,
            retry_in_ms: None,
            subscriptions: self.private_subs(),
            error,
        });
    }

    /// The auth's timers at `now`: a measurement that did not answer in time, a retry due.
    pub(super) fn auth_timers(&mut self, now: i64) {
        let Phase::Open(open) = &self.phase else {
            return;
        };
        match open.auth {
            Auth::Measuring { due, .. } if now >= due => self.measured(None),
            Auth::Sent { due, .. } if now >= due => self.on_auth_reply(Err(ReplyError {
                code: None,
                message: Some(format!(
                    "no answer within {} ms",
                    duration_ms(self.config.pong_timeout)
                )),
            })),
            Auth::Retry { at } if now >= at => match self.offset() {
                Some(offset) => self.sign(offset),
                None => self.measure(None),
            },
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Action, WsConfig};
    use super::*;
    use crate::credentials::Credentials;
    use crate::types::Family;
    use crate::ws::frame::Frame;
    use crate::ws::subscription::Subscription;
    use crate::ws::{spot, swap};

    const T0: i64 = 1_700_000_000_000;

    /// Polls until the machine waits: the frames sent, the events, the wait.
    fn drain(c: &mut Connection, now: i64) -> (Vec<String>, Vec<Event>, Action) {
        let (mut sent, mut events) = (Vec::new(), Vec::new());
        loop {
            match c.poll(TimestampMillis(now)) {
                Action::Send(t) => sent.push(t),
                Action::Event(e) => events.push(e),
                other => return (sent, events, other),
            }
        }
    }

    fn text(c: &mut Connection, now: i64, json: &str) {
        c.on_frame(TimestampMillis(now), Frame::Text(json));
    }

    /// A connection of `family` holding `subs`, its socket open at T0; returns the first frames.
    fn open(family: Family, subs: &[&str], config: WsConfig) -> (Connection, Vec<String>) {
        let creds = Credentials::new("0123456789abcd", "01234567890123456789abcd");
        let mut c = Connection::new(family, config, Some(creds));
        for s in subs {
            c.subscribe(s.parse().unwrap()).unwrap();
        }
        let (_, _, a) = drain(&mut c, T0);
        assert!(matches!(a, Action::Connect));
        c.on_connected(TimestampMillis(T0));
        let (sent, _, _) = drain(&mut c, T0);
        (c, sent)
    }

    fn spot_auth(id: u64, ts: i64) -> String {
        let sig = crate::sign::sign_ws(b"01234567890123456789abcd", &ts.to_string()).unwrap();
        spot::auth(id, "0123456789abcd", &ts.to_string(), &sig)
    }

    fn swap_auth(id: u64, ts: i64) -> String {
        let sig = crate::sign::sign_ws(b"01234567890123456789abcd", &ts.to_string()).unwrap();
        swap::auth(id, "0123456789abcd", ts, &sig)
    }

    fn order() -> Subscription {
        "spot:order:btc_usdt".parse().unwrap()
    }

    /// No offset at hand: `server.time` first, the auth signed at the measured server time; a
    /// refusal measures again (the server's clock jumped 60 s), is put down to the clock and
    /// retried 500 ms later with the new offset; the success subscribes.
    #[test]
    fn spot_measures_first_and_retries_a_clock_refusal() {
        let (mut c, sent) = open(
            Family::Spot,
            &["spot:ticker:btc_usdt", "spot:order:btc_usdt"],
            WsConfig::default(),
        );
        assert_eq!(
            sent,
            vec![
                r#"{"id":1,"method":"server.time","params":[]}"#,
                r#"{"id":2,"method":"ticker.subscribe","params":["BTC_USDT"]}"#,
            ]
        );
        // The server is 30 s behind: seconds, read 200 ms after the request.
        text(
            &mut c,
            T0 + 200,
            r#"{"id":1,"result":1699999970,"error":null}"#,
        );
        let (sent, ev, _) = drain(&mut c, T0 + 200);
        // 1_699_999_970_000 - midpoint(T0, T0 + 200)
        let offset = -30_100;
        assert_eq!(
            ev,
            vec![Event::ClockMeasured {
                family: Family::Spot,
                socket: 0,
                offset_ms: offset
            }]
        );
        assert_eq!(sent, vec![spot_auth(3, T0 + 200 + offset)]);
        // Refused: measured again; the server now reads 30 s ahead.
        text(
            &mut c,
            T0 + 300,
            r#"{"id":3,"result":null,"error":{"code":3,"message":"auth fail"}}"#,
        );
        let (sent, ev, _) = drain(&mut c, T0 + 300);
        assert_eq!(sent, vec![r#"{"id":4,"method":"server.time","params":[]}"#]);
        assert!(ev.is_empty(), "{ev:?}");
        assert_eq!(
            c.subscriptions()
                .find(|(s, _)| **s == order())
                .map(|(_, st)| st),
            Some(SubscriptionState::Refused)
        );
        text(
            &mut c,
            T0 + 400,
            r#"{"id":4,"result":1700000030,"error":null}"#,
        );
        let (sent, ev, wait) = drain(&mut c, T0 + 400);
        let offset = 29_650;
        assert!(sent.is_empty(), "{sent:?}");
        assert_eq!(
            ev,
            vec![
                Event::ClockMeasured {
                    family: Family::Spot,
                    socket: 0,
                    offset_ms: offset
                },
                Event::AuthRefused {
                    family: Family::Spot,
                    socket: 0,
                    cause: AuthCause::Clock,
                    refusals: 1,
                    retry_in_ms: Some(500),
                    subscriptions: vec![order()],
                    error: ReplyError {
                        code: Some(3),
                        message: Some("auth fail".into())
                    }
                }
            ]
        );
        assert!(matches!(wait, Action::Wait(Some(TimestampMillis(t))) if t == T0 + 900));
        let (sent, _, _) = drain(&mut c, T0 + 899);
        assert!(sent.is_empty());
        let (sent, _, _) = drain(&mut c, T0 + 900);
        assert_eq!(sent, vec![spot_auth(5, T0 + 900 + offset)]);
        text(
            &mut c,
            T0 + 950,
            r#"{"id":5,"result":{"status":"success"},"error":null}"#,
        );
        let (sent, ev, _) = drain(&mut c, T0 + 950);
        assert_eq!(
            ev,
            vec![Event::Authenticated {
                family: Family::Spot
            }]
        );
        assert_eq!(
            sent,
            vec![r#"{"id":6,"method":"order.subscribe","params":["BTC_USDT"]}"#]
        );
    }

    /// Refusals with a clock that the measurement confirms are put down to the key; the delays
    /// double (500, 1000, 2000 ms); the fourth refusal gives up, and a new socket neither
    /// signs again nor sends the private subscription.
    #[test]
    fn swap_key_refusals_back_off_and_give_up_after_four() {
        let (mut c, sent) = open(Family::Swap, &["swap:order"], WsConfig::default());
        assert_eq!(sent, vec![r#"{"event":"server.time","id":1}"#]);
        let time = |id: u64, ms: i64| {
            format!(r#"{{"event":"server.time","id":{id},"code":1,"msg":"success","data":{ms}}}"#)
        };
        let refuse =
            |id: u64| format!(r#"{{"event":"server.auth","id":{id},"code":3,"msg":"auth fail"}}"#);
        // The server is 30 s ahead; 100 ms round trips.
        text(&mut c, T0 + 100, &time(1, T0 + 30_050));
        let (sent, _, _) = drain(&mut c, T0 + 100);
        let offset = 30_000;
        assert_eq!(sent, vec![swap_auth(2, T0 + 100 + offset)]);
        let (mut now, mut id) = (T0 + 100, 2u64);
        let mut delays = Vec::new();
        for refusal in 1..=4u32 {
            text(&mut c, now, &refuse(id));
            let (sent, ev, _) = drain(&mut c, now);
            id += 1;
            assert_eq!(
                sent,
                vec![format!(r#"{{"event":"server.time","id":{id}}}"#)]
            );
            assert!(ev.is_empty(), "{ev:?}");
            // The same clock (within the 1 s tolerance): the key.
            text(&mut c, now + 100, &time(id, now + 50 + offset + 400));
            let (sent, ev, wait) = drain(&mut c, now + 100);
            assert!(sent.is_empty(), "{sent:?}");
            let Some(Event::AuthRefused {
                cause,
                refusals,
                retry_in_ms,
                subscriptions,
                ..
            }) = ev.last()
            else {
                panic!("{ev:?}")
            };
            assert_eq!(
                (*cause, *refusals, subscriptions.len()),
                (AuthCause::Key, refusal, 1)
            );
            let Some(delay) = retry_in_ms else {
                assert_eq!(refusal, 4);
                assert!(matches!(wait, Action::Wait(Some(_))));
                break;
            };
            delays.push(*delay);
            let delay = i64::try_from(*delay).unwrap();
            now += 100 + delay;
            id += 1;
            let (sent, _, _) = drain(&mut c, now);
            assert_eq!(sent, vec![swap_auth(id, now + offset + 400)]);
        }
        assert_eq!(delays, vec![500, 1000, 2000]);
        assert_eq!(
            c.subscriptions().map(|(_, s)| s).collect::<Vec<_>>(),
            vec![SubscriptionState::Refused]
        );
        // A new socket: no auth, no private subscription, the subscription refused.
        c.on_closed(TimestampMillis(now), "reset");
        let (_, _, a) = drain(&mut c, now + 60_000);
        assert!(matches!(a, Action::Connect));
        c.on_connected(TimestampMillis(now + 60_000));
        let (sent, _, _) = drain(&mut c, now + 60_000);
        assert!(sent.is_empty(), "{sent:?}");
        assert_eq!(
            c.subscriptions().map(|(_, s)| s).collect::<Vec<_>>(),
            vec![SubscriptionState::Refused]
        );
    }

    /// Swap code 8 names a permission (no measurement); the limit of one refusal gives up at
    /// once.
    #[test]
    fn swap_code_8_is_a_permission() {
        let config = WsConfig {
            time_offset_ms: Some(0),
            max_auth_refusals: 1,
            ..WsConfig::default()
        };
        let (mut c, sent) = open(Family::Swap, &["swap:account"], config);
        assert_eq!(sent, vec![swap_auth(1, T0)]);
        text(
            &mut c,
            T0 + 10,
            r#"{"event":"server.auth","id":1,"code":8,"msg":"api not active"}"#,
        );
        let (sent, ev, _) = drain(&mut c, T0 + 10);
        assert!(sent.is_empty(), "{sent:?}");
        assert_eq!(
            ev,
            vec![Event::AuthRefused {
                family: Family::Swap,
                socket: 0,
                cause: AuthCause::Permission,
                refusals: 1,
                retry_in_ms: None,
                subscriptions: vec!["swap:account".parse().unwrap()],
                error: ReplyError {
                    code: Some(8),
                    message: Some("api not active".into())
                }
            }]
        );
    }

    /// An auth that is never answered counts as refused after `pong_timeout`.
    #[test]
    fn an_unanswered_auth_counts_as_refused() {
        let config = WsConfig {
            time_offset_ms: Some(0),
            ..WsConfig::default()
        };
        let (mut c, sent) = open(Family::Spot, &["spot:order:btc_usdt"], config);
        assert_eq!(sent, vec![spot_auth(1, T0)]);
        let (_, _, wait) = drain(&mut c, T0);
        assert!(matches!(wait, Action::Wait(Some(TimestampMillis(t))) if t == T0 + 10_000));
        let (sent, _, _) = drain(&mut c, T0 + 10_000);
        assert_eq!(sent, vec![r#"{"id":2,"method":"server.time","params":[]}"#]);
        text(
            &mut c,
            T0 + 10_100,
            r#"{"id":2,"result":1700000010,"error":null}"#,
        );
        let (_, ev, _) = drain(&mut c, T0 + 10_100);
        let Some(Event::AuthRefused {
            cause: AuthCause::Key,
            refusals: 1,
            retry_in_ms: Some(500),
            error,
            ..
        }) = ev.last()
        else {
            panic!("{ev:?}")
        };
        assert_eq!(error.message.as_deref(), Some("no answer within 10000 ms"));
    }

    /// A `server.time` that is never answered: the auth goes out `pong_timeout` later with
    /// the local clock; a refusal then (no clock measured) is put down to the clock.
    #[test]
    fn an_unanswered_measurement_signs_with_the_local_clock() {
        let (mut c, sent) = open(Family::Spot, &["spot:order:btc_usdt"], WsConfig::default());
        assert_eq!(sent, vec![r#"{"id":1,"method":"server.time","params":[]}"#]);
        let (sent, _, wait) = drain(&mut c, T0);
        assert!(sent.is_empty());
        assert!(matches!(wait, Action::Wait(Some(TimestampMillis(t))) if t == T0 + 10_000));
        let (sent, _, _) = drain(&mut c, T0 + 10_000);
        assert_eq!(sent, vec![spot_auth(2, T0 + 10_000)]);
        // The late answer changes nothing.
        text(
            &mut c,
            T0 + 10_001,
            r#"{"id":1,"result":1700000000,"error":null}"#,
        );
        text(
            &mut c,
            T0 + 10_002,
            r#"{"id":2,"result":null,"error":{"code":3,"message":"auth fail"}}"#,
        );
        let (sent, ev, _) = drain(&mut c, T0 + 10_002);
        assert_eq!(sent, vec![r#"{"id":3,"method":"server.time","params":[]}"#]);
        assert!(ev.is_empty(), "{ev:?}");
        text(
            &mut c,
            T0 + 10_003,
            r#"{"id":3,"result":null,"error":{"code":2,"message":"internal error"}}"#,
        );
        let (_, ev, _) = drain(&mut c, T0 + 10_003);
        assert!(
            matches!(
                ev.as_slice(),
                [Event::AuthRefused {
                    cause: AuthCause::Clock,
                    refusals: 1,
                    retry_in_ms: Some(500),
                    ..
                }]
            ),
            "{ev:?}"
        );
    }
}
