//! The protocol machine of one socket, without I/O: frames and time in, frames, events and
//! deadlines out. The transport drives it:
//!
//! ```text
//! loop {
//!     match conn.poll(now()) {
//!         Action::Connect => match open_socket() {          // handshake; a 502 is a failure
//!             Ok(s) => conn.on_connected(now()),
//!             Err(e) => conn.on_connect_failed(now(), e.to_string()),
//!         },
//!         Action::Send(text) => socket.send_text(text),    // an error: conn.on_closed(..)
//!         Action::Close(_) => socket.close(),              // the machine already counts it closed
//!         Action::Event(e) => return Some(e),
//!         Action::Wait(deadline) => match socket.read_until(deadline) {
//!             Frame(f) => conn.on_frame(now(), f),
//!             Timeout => {}
//!             Closed(e) => conn.on_closed(now(), e.to_string()),
//!         },
//!         Action::Stopped => return None,
//!     }
//! }
//! ```
//!
//! What the machine does on its own: it opens the first socket at once; after `on_connected`
//! it authenticates (when it holds credentials and a private channel is wanted), replays every
//! subscription, pings every [`WsConfig::ping_interval`] (the venue closes a socket 60 s after
//! the client's last frame, whatever it pushes), ends a socket whose pong is late
//! ([`WsConfig::pong_timeout`]) and recycles each one before [`WsConfig::lifetime`] minus a
//! random part of [`WsConfig::lifetime_jitter`] (the venue closes at about 2 h). After a loss
//! it waits an exponential backoff with jitter, capped at [`WsConfig::reconnect_max`], and
//! opens the next one (a recycle reconnects at once). Every depth subscription keeps a
//! [`Book`]; a crossed book, a missing snapshot ([`WsConfig::snapshot_timeout`]), an old book
//! ([`WsConfig::book_max_age`]) or a reconnect resubscribes it and reports [`Event::Resync`].
//!
//! DESIGN: the spot and swap sockets speak two dialects of one protocol (frame shapes, the unit
//! of `server.time`, the auth frame, a few reply codes and limits). A connection takes its
//! [`Dialect`] once, in [`Connection::new`], and holds it; nothing here asks which family it
//! serves. The dialect builds every frame the machine sends (ping, `server.time`,
//! `server.auth`, (un)subscribe), reads every frame it receives (replies, depth frames and
//! pushes), and answers the family's own rules: the channel limit of a socket, a refused
//! subscribe that is a running stream (swap code 5), an auth refusal that names its cause
//! (swap code 8). The family itself is only carried into the events.
//!
//! The machine's parts, one file each: the timers and limits ([`WsConfig`], `config`), the
//! keepalive and lifetime timers (`keepalive`), the loss of a socket and the reconnect backoff
//! (`reconnect`), request ids and replies (`requests`), the subscriptions and their requests
//! (`subscriptions`), the local books and their resyncs (`books`), `server.auth` (`auth`), and
//! what a [`crate::ws::Streams`] asks of one of its sockets (`handover`).

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use crate::credentials::Credentials;
use crate::types::{Family, TimestampMillis};
use crate::ws::book::Book;
use crate::ws::dialects;
use crate::ws::event::{CloseReason, Event};
use crate::ws::frame::{self, Frame};
use crate::ws::protocol::{Dialect, Incoming};
use crate::ws::subscription::{Channel, SubscribeError, Subscription};

mod auth;
mod books;
mod config;
mod handover;
mod keepalive;
mod reconnect;
mod requests;
mod subscriptions;
#[cfg(test)]
mod tests;

pub use auth::CLOCK_MISMATCH_MS;
use auth::{Auth, Signer};
use books::contains_ignore_case;
pub use config::WsConfig;

/// What the transport must do next.
///
/// DESIGN: the instructions of a sans-IO machine ([`Action`], `StreamAction`, `SocketReport`,
/// `policy::RetryDecision`) are deliberately exhaustive: a transport must carry out every one,
/// so a new instruction is a breaking change that stops a transport from compiling instead of
/// being ignored by a wildcard arm.
// An action is consumed at once by the caller; boxing the event would cost an allocation per
// pushed frame for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Action {
    /// Open a socket, then call [`Connection::on_connected`] or
    /// [`Connection::on_connect_failed`].
    Connect,
    /// Send this text frame.
    Send(String),
    /// Close the socket (the machine has already counted it closed and planned the next).
    Close(CloseReason),
    /// Hand this event to the user.
    Event(Event),
    /// Read frames until this time (`None`: no deadline), then poll again.
    Wait(Option<TimestampMillis>),
    /// The connection was closed on request and has nothing more to report.
    Stopped,
}

/// The state of a subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionState {
    /// Not yet acknowledged on the current socket (or no socket).
    Pending,
    /// Acknowledged.
    Active,
    /// Refused by the server (kept; retried on the next socket).
    Refused,
}

#[derive(Debug)]
struct Entry {
    sub: Subscription,
    state: SubscriptionState,
    book: Option<Book>,
    /// Resubscribe when no snapshot has come by then.
    snapshot_due: Option<i64>,
    /// Time the current book's snapshot was applied.
    snapshot_at: Option<i64>,
    /// Resubscription in flight: deltas are dropped until the next snapshot.
    resyncing: bool,
    /// Resyncs in a row, each within a minute of the previous snapshot (backoff).
    resyncs: u32,
    /// A resubscription held back by the backoff, sent at this time.
    resubscribe_at: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ping,
    Time,
    /// The clock measurement before `server.auth`.
    Clock,
    Auth,
    Subscribe,
    Resubscribe,
    Unsubscribe {
        by_user: bool,
    },
}

#[derive(Debug)]
struct Pending {
    kind: Kind,
    request: String,
    subs: Vec<Subscription>,
}

#[derive(Debug)]
struct Open {
    since: i64,
    recycle_at: i64,
    next_ping: i64,
    /// Outstanding ping: id and deadline.
    pong: Option<(u64, i64)>,
    auth: Auth,
    next_id: u64,
}

#[derive(Debug)]
enum Phase {
    Backoff { until: i64 },
    Connecting,
    Open(Open),
    Stopped,
}

/// The protocol machine of one socket of one family (see the module docs).
#[derive(Debug)]
pub struct Connection {
    /// The family's wire dialect, taken once in [`Connection::new`].
    dialect: &'static dyn Dialect,
    config: WsConfig,
    credentials: Option<Credentials>,
    entries: Vec<Entry>,
    phase: Phase,
    /// Attempts since the last healthy socket.
    attempt: u32,
    connect_now: bool,
    close_now: Option<CloseReason>,
    out: VecDeque<String>,
    events: VecDeque<Event>,
    pending: HashMap<u64, Pending>,
    rng: u64,
    /// The time given by the latest call, ms.
    now: i64,
    /// The socket's number in its stream (reported in the socket's events).
    socket: u32,
    /// The clock and the refusals of `server.auth`, across sockets.
    signer: Signer,
    /// The lifetime recycle is left to the owner ([`crate::ws::Streams`], which opens the
    /// next socket before closing this one).
    managed: bool,
}

impl Connection {
    /// A connection for `family`'s socket; `credentials` enable the private channels.
    pub fn new(family: Family, config: WsConfig, credentials: Option<Credentials>) -> Self {
        let rng = config.seed | 1;
        Connection {
            dialect: dialects::dialect(family),
            config,
            credentials,
            entries: Vec::new(),
            phase: Phase::Backoff { until: i64::MIN },
            attempt: 0,
            connect_now: false,
            close_now: None,
            out: VecDeque::new(),
            events: VecDeque::new(),
            pending: HashMap::new(),
            rng,
            now: 0,
            socket: 0,
            signer: Signer::default(),
            managed: false,
        }
    }

    /// The socket's number in its stream (0 for a connection used alone).
    pub fn socket(&self) -> u32 {
        self.socket
    }

    /// The number of subscriptions held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no subscription is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The socket's family.
    pub fn family(&self) -> Family {
        self.dialect.family()
    }

    /// The timers and limits.
    pub fn config(&self) -> &WsConfig {
        &self.config
    }

    /// Sets the measured server clock offset used to time-stamp `server.auth` (ms, server minus
    /// local). A new value wins over what a socket measured itself.
    pub fn set_time_offset(&mut self, offset_ms: i64) {
        if self.config.time_offset_ms != Some(offset_ms) {
            self.config.time_offset_ms = Some(offset_ms);
            self.signer.measured = None;
        }
    }

    /// Adds a subscription; it is sent now when the socket is open and replayed on every new
    /// socket. Refused locally: the other family's subscription, a private channel without
    /// credentials, and on swap a 31st channel ([`MAX_SWAP_CHANNELS`](crate::ws::MAX_SWAP_CHANNELS); the venue would kill
    /// the socket with every stream on it). Adding a subscription already held does nothing.
    pub fn subscribe(&mut self, sub: Subscription) -> Result<(), SubscribeError> {
        if sub.family != self.dialect.family() {
            return Err(SubscribeError::WrongFamily {
                connection: self.dialect.family(),
            });
        }
        if sub.channel.is_private() && self.credentials.is_none() {
            return Err(SubscribeError::NeedsCredentials {
                channel: sub.channel,
            });
        }
        if self.entries.iter().any(|e| e.sub == sub) {
            return Ok(());
        }
        if let Some(limit) = self.dialect.max_channels() {
            if self.entries.len() >= limit {
                return Err(SubscribeError::TooManyChannels { limit });
            }
        }
        let max_levels = self.config.max_book_levels;
        let book = (sub.channel == Channel::Depth)
            .then(|| Book::new(sub.level.map(usize::from)).with_max_levels(max_levels));
        self.entries.push(Entry {
            sub: sub.clone(),
            state: SubscriptionState::Pending,
            book,
            snapshot_due: None,
            snapshot_at: None,
            resyncing: false,
            resyncs: 0,
            resubscribe_at: None,
        });
        if matches!(self.phase, Phase::Open(_)) {
            self.send_subscriptions(vec![sub], Kind::Subscribe);
        }
        Ok(())
    }

    /// Removes a subscription (and its book); the unsubscribe is sent when the socket is
    /// open. Returns whether it was held.
    pub fn unsubscribe(&mut self, sub: &Subscription) -> bool {
        let Some(i) = self.entries.iter().position(|e| &e.sub == sub) else {
            return false;
        };
        let entry = self.entries.remove(i);
        if matches!(self.phase, Phase::Open(_)) {
            self.send_group(&[&entry.sub], Kind::Unsubscribe { by_user: true });
        }
        true
    }

    /// The subscriptions and their states.
    pub fn subscriptions(&self) -> impl Iterator<Item = (&Subscription, SubscriptionState)> {
        self.entries.iter().map(|e| (&e.sub, e.state))
    }

    /// The local book of a depth subscription.
    pub fn book(&self, sub: &Subscription) -> Option<&Book> {
        self.entries
            .iter()
            .find(|e| &e.sub == sub)
            .and_then(|e| e.book.as_ref())
    }

    /// Whether a socket is open.
    pub fn is_open(&self) -> bool {
        matches!(self.phase, Phase::Open(_))
    }

    /// Asks the server for its time (answered by [`Event::ServerTime`]); nothing when no
    /// socket is open.
    pub fn request_time(&mut self) {
        if let Some(id) = self.next_id() {
            let text = self.dialect.time(id);
            self.push_request(id, text, Kind::Time, "server.time", Vec::new());
        }
    }

    /// Ends the connection: the socket is closed and no other is opened.
    pub fn close(&mut self, now: TimestampMillis) {
        if matches!(self.phase, Phase::Stopped) {
            return;
        }
        if matches!(self.phase, Phase::Open(_) | Phase::Connecting) {
            self.close_now = Some(CloseReason::Requested);
        }
        self.lose(now.0, CloseReason::Requested);
    }

    /// When [`Connection::poll`] next has something to do without new input, without running
    /// any timer: `Some(TimestampMillis(i64::MIN))` when something is already waiting to be
    /// handed out, `None` when nothing happens until a frame or a call arrives. Peeking twice
    /// gives the same answer; only `poll` moves the machine.
    pub fn next_deadline(&self) -> Option<TimestampMillis> {
        let pending = self.close_now.is_some()
            || !self.out.is_empty()
            || !self.events.is_empty()
            || self.connect_now;
        if pending {
            return Some(TimestampMillis(i64::MIN));
        }
        self.deadline().map(TimestampMillis)
    }

    /// The next thing to do at `now` (see the module docs).
    pub fn poll(&mut self, now: TimestampMillis) -> Action {
        self.now = now.0;
        self.on_time(now.0);
        if let Some(reason) = self.close_now.take() {
            return Action::Close(reason);
        }
        if let Some(text) = self.out.pop_front() {
            return Action::Send(text);
        }
        if let Some(event) = self.events.pop_front() {
            return Action::Event(event);
        }
        if self.connect_now {
            self.connect_now = false;
            return Action::Connect;
        }
        match &self.phase {
            Phase::Stopped => Action::Stopped,
            _ => Action::Wait(self.deadline().map(TimestampMillis)),
        }
    }

    /// The socket is open: authenticate, replay the subscriptions, start the timers.
    pub fn on_connected(&mut self, now: TimestampMillis) {
        if !matches!(self.phase, Phase::Connecting) {
            return;
        }
        let now = now.0;
        self.now = now;
        let jitter = self.random_below(duration_ms(self.config.lifetime_jitter));
        let lifetime = duration_ms(self.config.lifetime);
        let recycle_at = if self.managed {
            i64::MAX
        } else {
            now.saturating_add(lifetime.saturating_sub(jitter).max(1))
        };
        self.phase = Phase::Open(Open {
            since: now,
            recycle_at,
            next_ping: now.saturating_add(duration_ms(self.config.ping_interval)),
            pong: None,
            auth: Auth::No,
            next_id: 1,
        });
        self.events.push_back(Event::Connected {
            family: self.dialect.family(),
            socket: self.socket,
        });
        let wanted: Vec<Subscription> = self
            .entries
            .iter_mut()
            .map(|e| {
                e.state = SubscriptionState::Pending;
                e.snapshot_due = None;
                e.resyncing = false;
                e.resubscribe_at = None;
                e.sub.clone()
            })
            .collect();
        self.send_subscriptions(wanted, Kind::Subscribe);
    }

    /// Opening the socket failed (refused, TLS, an HTTP status such as 502 on the upgrade).
    pub fn on_connect_failed(&mut self, now: TimestampMillis, detail: impl Into<String>) {
        if matches!(self.phase, Phase::Connecting) {
            self.lose(now.0, CloseReason::ConnectFailed(detail.into()));
        }
    }

    /// The socket closed or failed.
    pub fn on_closed(&mut self, now: TimestampMillis, detail: impl Into<String>) {
        if matches!(self.phase, Phase::Open(_) | Phase::Connecting) {
            self.lose(now.0, CloseReason::Lost(detail.into()));
        }
    }

    /// A frame arrived.
    pub fn on_frame(&mut self, now: TimestampMillis, frame: Frame<'_>) {
        self.now = now.0;
        if !matches!(self.phase, Phase::Open(_)) {
            return;
        }
        let text = match frame::decode(frame) {
            Ok(text) => text,
            Err(e) => {
                let raw = match frame {
                    Frame::Binary(b) => b,
                    Frame::Text(t) => t.as_bytes(),
                };
                self.events.push_back(Event::undecodable(
                    self.dialect.family(),
                    e,
                    raw.get(..16).unwrap_or(raw),
                ));
                return;
            }
        };
        let incoming = self.dialect.decode(&text);
        match incoming {
            Incoming::Reply { id, outcome } => self.on_reply(now.0, id, outcome),
            Incoming::Depth(push) => self.on_depth(now.0, push),
            Incoming::Event(event) => {
                let depth = matches!(event, Event::Undecodable { .. })
                    && contains_ignore_case(&text, b"depth");
                self.events.push_back(event);
                if depth {
                    self.resync_unreadable_depth(&text);
                }
            }
        }
    }
}

/// A duration in whole milliseconds, saturating.
pub(crate) fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}
