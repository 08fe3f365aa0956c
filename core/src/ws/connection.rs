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

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use crate::credentials::Credentials;
use crate::types::{Family, TimestampMillis};
use crate::ws::book::{Book, ResyncReason};
use crate::ws::event::{BookUpdate, CloseReason, Event, ReplyError};
use crate::ws::frame::{self, Frame};
use crate::ws::private::PrivateSnapshot;
use crate::ws::protocol::{DepthPush, Incoming, ReplyValue};
use crate::ws::seen::PrivateState;
use crate::ws::subscription::{Channel, SubscribeError, Subscription};
use crate::ws::{spot, swap, MAX_SWAP_CHANNELS};

mod auth;
pub use auth::CLOCK_MISMATCH_MS;
use auth::{Auth, Signer};

/// Timers and limits of a connection. The defaults follow the spec's recommendations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsConfig {
    /// Interval of client pings: 20 s (the venue drops a socket after 60 s without a client
    /// frame).
    pub ping_interval: Duration,
    /// A socket whose pong is this late is ended and replaced: 10 s.
    pub pong_timeout: Duration,
    /// Planned lifetime of a socket: 110 min (the venue closes at about 2 h).
    pub lifetime: Duration,
    /// Up to this much is taken off each socket's lifetime at random, so that sockets opened
    /// together are not recycled together: 10 min.
    pub lifetime_jitter: Duration,
    /// A depth subscription whose snapshot has not come this long after its acknowledgement is
    /// resubscribed: 10 s.
    pub snapshot_timeout: Duration,
    /// A book older than this since its snapshot is resnapshotted (bounds the harm of a lost
    /// delta, which no sequence number reveals): off by default.
    pub book_max_age: Option<Duration>,
    /// First reconnect delay: 500 ms, doubling per failed attempt.
    pub reconnect_initial: Duration,
    /// Largest reconnect delay: 30 s.
    pub reconnect_max: Duration,
    /// A socket that lived at least this long resets the backoff: 10 s.
    pub healthy_after: Duration,
    /// Most levels a side of a local book holds (a book without a subscribed level): a
    /// delta past it resyncs the book (a server adding levels forever cannot grow it without
    /// bound): 5,000.
    pub max_book_levels: usize,
    /// First delay before resubscribing a book that needed a resync again soon after its
    /// last one (a book crossed after every snapshot): 1 s, doubling per resync, up to
    /// `resync_max`. The first resync after a healthy minute is at once.
    pub resync_initial: Duration,
    /// Largest delay between two resyncs of one book: 60 s.
    pub resync_max: Duration,
    /// Seed of the jitter (the transports seed it at random).
    pub seed: u64,
    /// Server clock minus local clock, ms, added to the `server.auth` timestamp: a measured
    /// offset (a REST session's). `None` (the default): the socket measures the server's clock
    /// itself (`server.time`) before its first `server.auth`.
    pub time_offset_ms: Option<i64>,
    /// Refusals of `server.auth` in a row after which the stream gives up on its private
    /// channels ([`Event::AuthRefused`] with no retry): 4.
    pub max_auth_refusals: u32,
    /// First delay before signing `server.auth` again after a refusal: 500 ms, doubling per
    /// refusal, at most `reconnect_max`.
    pub auth_retry_initial: Duration,
}

impl Default for WsConfig {
    fn default() -> Self {
        WsConfig {
            ping_interval: Duration::from_secs(20),
            pong_timeout: Duration::from_secs(10),
            lifetime: Duration::from_secs(110 * 60),
            lifetime_jitter: Duration::from_secs(10 * 60),
            snapshot_timeout: Duration::from_secs(10),
            book_max_age: None,
            reconnect_initial: Duration::from_millis(500),
            reconnect_max: Duration::from_secs(30),
            healthy_after: Duration::from_secs(10),
            max_book_levels: 5_000,
            resync_initial: Duration::from_secs(1),
            resync_max: Duration::from_secs(60),
            seed: 0x5eed_d161_f1e7,
            time_offset_ms: None,
            max_auth_refusals: 4,
            auth_retry_initial: Duration::from_millis(500),
        }
    }
}

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
    family: Family,
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
    /// What the private pushes said.
    private: PrivateState,
    /// A REST reconciliation is wanted (private subscriptions acknowledged on a new socket).
    reconcile_due: bool,
    /// A reconciliation was made on this connection.
    reconciled: bool,
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
            family,
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
            private: PrivateState::default(),
            reconcile_due: false,
            reconciled: false,
            socket: 0,
            signer: Signer::default(),
            managed: false,
        }
    }

    /// Numbers the socket and leaves its lifetime recycle to the owner (a [`crate::ws::Streams`]).
    pub(crate) fn managed(mut self, socket: u32) -> Self {
        self.socket = socket;
        self.managed = true;
        self
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
                Some(Event::Book(BookUpdate {
                    subscription: e.sub.clone(),
                    snapshot: true,
                    bids: book.bids().collect(),
                    asks: book.asks().collect(),
                    timestamp: book.timestamp(),
                    best_bid: book.best_bid(),
                    best_ask: book.best_ask(),
                    depth: book.len(),
                }))
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

    /// The socket's family.
    pub fn family(&self) -> Family {
        self.family
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
    /// credentials, and on swap a 31st channel ([`MAX_SWAP_CHANNELS`]; the venue would kill
    /// the socket with every stream on it). Adding a subscription already held does nothing.
    pub fn subscribe(&mut self, sub: Subscription) -> Result<(), SubscribeError> {
        if sub.family != self.family {
            return Err(SubscribeError::WrongFamily {
                connection: self.family,
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
        if self.family == Family::Swap && self.entries.len() >= MAX_SWAP_CHANNELS {
            return Err(SubscribeError::TooManyChannels {
                limit: MAX_SWAP_CHANNELS,
            });
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
            let text = match self.family {
                Family::Spot => spot::time(id),
                Family::Swap => swap::time(id),
            };
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
            family: self.family,
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
                    self.family,
                    e,
                    raw.get(..16).unwrap_or(raw),
                ));
                return;
            }
        };
        let incoming = match self.family {
            Family::Spot => spot::decode(&text),
            Family::Swap => swap::decode(&text),
        };
        match incoming {
            Incoming::Reply { id, outcome } => self.on_reply(now.0, id, outcome),
            Incoming::Depth(push) => self.on_depth(now.0, push),
            Incoming::Event(event) => {
                let depth = matches!(event, Event::Undecodable { .. })
                    && contains_ignore_case(&text, b"depth");
                self.private.observe(&event);
                self.events.push_back(event);
                if depth {
                    self.resync_unreadable_depth(&text);
                }
            }
        }
    }

    /// Whether the private state should be read over REST now and handed to
    /// [`Connection::on_private_snapshot`]: set when private subscriptions are acknowledged on
    /// a new socket (so that a push after the read is not lost), cleared by the snapshot or by
    /// [`Connection::on_reconcile_failed`]. Transports without a REST client ignore it.
    pub fn reconcile_due(&self) -> bool {
        self.reconcile_due
    }

    /// The REST read of the private state (open orders, balances, positions): the differences
    /// with what the pushes said are reported as [`Event::Reconciled`], restricted to what the
    /// private subscriptions cover, and the REST state becomes the connection's.
    pub fn on_private_snapshot(&mut self, snapshot: PrivateSnapshot) {
        let covers = |channel: Channel, key: Option<&str>| {
            self.entries.iter().any(|e| {
                e.sub.channel == channel
                    && match (&e.sub.target, key) {
                        (None, _) => true,
                        (Some(t), Some(k)) => t.eq_ignore_ascii_case(k),
                        (Some(_), None) => false,
                    }
            })
        };
        let family = self.family;
        let balance_channel = match family {
            Family::Spot => Channel::Balance,
            _ => Channel::Account,
        };
        let changes = self.private.reconcile(
            snapshot,
            |o| covers(Channel::Order, o.market.as_deref()),
            |b| match family {
                Family::Spot => covers(balance_channel, Some(&b.currency)),
                _ => covers(balance_channel, None),
            },
            |p| covers(Channel::Position, Some(&p.instrument_id)),
        );
        self.events.push_back(Event::Reconciled {
            family,
            initial: !self.reconciled,
            changes,
        });
        self.reconciled = true;
        self.reconcile_due = false;
    }

    /// The REST read of a reconciliation failed: reported, and tried again on the next socket.
    pub fn on_reconcile_failed(&mut self, error: impl Into<String>) {
        self.reconcile_due = false;
        self.events.push_back(Event::ReconcileFailed {
            family: self.family,
            error: error.into(),
        });
    }

    // -----------------------------------------------------------------------------------------

    fn deadline(&self) -> Option<i64> {
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

    fn on_time(&mut self, now: i64) {
        match &mut self.phase {
            Phase::Backoff { until } if now >= *until => {
                self.phase = Phase::Connecting;
                self.attempt = self.attempt.saturating_add(1);
                self.connect_now = true;
                self.events.push_back(Event::Connecting {
                    family: self.family,
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
                        let text = match self.family {
                            Family::Spot => spot::ping(id),
                            Family::Swap => swap::ping(id),
                        };
                        self.push_request(id, text, Kind::Ping, "server.ping", Vec::new());
                        if let Phase::Open(open) = &mut self.phase {
                            if open.pong.is_none() {
                                open.pong = Some((id, due));
                            }
                        }
                    }
                }
                self.auth_timers(now);
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
            _ => {}
        }
    }

    /// The socket is gone: reset the books, plan the next socket.
    fn lose(&mut self, now: i64, reason: CloseReason) {
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
            family: self.family,
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
    fn random_below(&mut self, bound: i64) -> i64 {
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

    fn next_id(&mut self) -> Option<u64> {
        match &mut self.phase {
            Phase::Open(open) => {
                let id = open.next_id;
                open.next_id = open.next_id.saturating_add(1);
                Some(id)
            }
            _ => None,
        }
    }

    fn push_request(
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

    /// Sends subscriptions: public ones now, private ones after `server.auth` succeeded (sent
    /// first if needed), grouped into one request per channel (and level or granularity).
    fn send_subscriptions(&mut self, subs: Vec<Subscription>, kind: Kind) {
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

    fn send_group(&mut self, subs: &[&Subscription], kind: Kind) {
        let Some(id) = self.next_id() else { return };
        let unsubscribe = matches!(kind, Kind::Unsubscribe { .. });
        let text = match self.family {
            Family::Spot => spot::subscribe(id, subs, unsubscribe),
            Family::Swap => swap::subscribe(id, subs, unsubscribe),
        };
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

    fn on_reply(&mut self, now: i64, id: Option<u64>, outcome: Result<ReplyValue, ReplyError>) {
        let Some(pending) = id.and_then(|id| self.pending.remove(&id)) else {
            return;
        };
        match pending.kind {
            Kind::Ping => {
                if let Phase::Open(open) = &mut self.phase {
                    if open.pong.is_some_and(|(p, _)| Some(p) == id) {
                        open.pong = None;
                    }
                }
            }
            Kind::Time => {
                if let Ok(ReplyValue::Time(time)) = outcome {
                    self.events.push_back(Event::ServerTime {
                        family: self.family,
                        time,
                    });
                }
            }
            Kind::Clock => self.on_clock_reply(now, id, outcome),
            Kind::Auth => self.on_auth_reply(outcome),
            Kind::Subscribe | Kind::Resubscribe => {
                // Swap code 5 ("repeat subscribe"): the existing stream goes on.
                let accepted = match &outcome {
                    Ok(_) => true,
                    Err(e) => e.code == Some(5) && self.family == Family::Swap,
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
                        family: self.family,
                        request: pending.request,
                        subscriptions: pending.subs,
                        error,
                    }),
                    _ if pending.kind == Kind::Subscribe => {
                        if pending.subs.iter().any(|s| s.channel.is_private()) {
                            self.reconcile_due = true;
                        }
                        self.events.push_back(Event::Subscribed {
                            subscriptions: pending.subs,
                        })
                    }
                    _ => {}
                }
            }
            Kind::Unsubscribe { by_user } => {
                if by_user {
                    self.events.push_back(match outcome {
                        Ok(_) => Event::Unsubscribed {
                            subscriptions: pending.subs,
                        },
                        Err(error) => Event::Refused {
                            family: self.family,
                            request: pending.request,
                            subscriptions: pending.subs,
                            error,
                        },
                    });
                }
            }
        }
    }

    fn on_depth(&mut self, now: i64, push: DepthPush) {
        let found = self.entries.iter().position(|e| {
            e.sub.matches(Channel::Depth, Some(&push.target))
                && (push.level.is_none() || e.sub.level.is_none() || e.sub.level == push.level)
        });
        let Some(i) = found else {
            // A stream nobody holds (an unsubscribe in flight): reported without a book.
            if let Ok(subscription) =
                Subscription::new(self.family, Channel::Depth, Some(&push.target))
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
    fn resync(&mut self, i: usize, reason: ResyncReason) {
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
    fn resync_unreadable_depth(&mut self, text: &[u8]) {
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
}

/// Whether `needle` occurs in `hay`, ASCII case ignored.
fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

/// A duration in whole milliseconds, saturating.
pub(crate) fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ws::frame::tests::zlib;
    use crate::ws::model::Level;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    const T0: i64 = 1_700_000_000_000;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    /// Polls until the machine waits; returns the frames sent, the events and the wait.
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

    fn binary(c: &mut Connection, now: i64, json: &str) {
        c.on_frame(TimestampMillis(now), Frame::Binary(&zlib(json)));
    }

    /// A swap connection holding BTCUSDTPERP depth 20, open and acknowledged at T0.
    fn swap_depth() -> (Connection, Subscription) {
        let mut c = Connection::new(Family::Swap, WsConfig::default(), None);
        let sub: Subscription = "swap:depth:BTCUSDTPERP".parse().unwrap();
        c.subscribe(sub.clone()).unwrap();
        let (_, ev, a) = drain(&mut c, T0);
        assert!(matches!(a, Action::Connect));
        assert_eq!(
            ev,
            vec![Event::Connecting {
                family: Family::Swap,
                socket: 0,
                attempt: 1
            }]
        );
        c.on_connected(TimestampMillis(T0));
        let (sent, _, _) = drain(&mut c, T0);
        assert_eq!(
            sent,
            vec![r#"{"event":"depth.subscribe","id":1,"instrument_id":"BTCUSDTPERP","level":20}"#]
        );
        binary(
            &mut c,
            T0,
            r#"{"event":"depth.subscribe","id":1,"code":1,"msg":"success"}"#,
        );
        (c, sub)
    }

    const SNAP: &str = r#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":1,"asks":[["100.5",3],["101",4]],"bids":[["100",1],["99.5",2]]},"full_data":true}"#;

    #[test]
    fn swap_book_snapshot_delta_and_crossing_resync() {
        let (mut c, sub) = swap_depth();
        binary(&mut c, T0 + 100, SNAP);
        // Delta: empty asks, bids ascending, a delete.
        binary(
            &mut c,
            T0 + 200,
            r#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":2,"asks":[],"bids":[["99.5",0],["100.2",5]]}}"#,
        );
        let (_, ev, _) = drain(&mut c, T0 + 200);
        let books: Vec<&BookUpdate> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Book(b) => Some(b),
                _ => None,
            })
            .collect();
        assert_eq!(books.len(), 2);
        assert!(books[0].snapshot && !books[1].snapshot);
        assert_eq!(books[1].best_bid, Some(Level::new(d("100.2"), d("5"))));
        assert_eq!(books[1].best_ask, Some(Level::new(d("100.5"), d("3"))));
        assert_eq!(books[1].depth, (2, 2));
        let book = c.book(&sub).unwrap();
        assert_eq!(
            book.bids().collect::<Vec<_>>(),
            vec![Level::new(d("100.2"), d("5")), Level::new(d("100"), d("1"))]
        );
        // A bid through the ask crosses the book: resync by unsubscribe + subscribe.
        binary(
            &mut c,
            T0 + 300,
            r#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":3,"asks":[],"bids":[["100.6",1]]}}"#,
        );
        let (sent, ev, _) = drain(&mut c, T0 + 300);
        assert_eq!(
            ev,
            vec![Event::Resync {
                subscription: sub.clone(),
                reason: ResyncReason::Crossed,
                retry_in_ms: 0
            }]
        );
        assert_eq!(
            sent,
            vec![
                r#"{"event":"depth.unsubscribe","id":2,"instrument_id":"BTCUSDTPERP","level":20}"#,
                r#"{"event":"depth.subscribe","id":3,"instrument_id":"BTCUSDTPERP","level":20}"#
            ]
        );
        // Deltas before the new snapshot are dropped; the snapshot restores the book.
        binary(
            &mut c,
            T0 + 400,
            r#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"asks":[],"bids":[["1",1]]}}"#,
        );
        binary(&mut c, T0 + 500, SNAP);
        let (_, ev, _) = drain(&mut c, T0 + 500);
        assert_eq!(ev.len(), 1);
        assert!(matches!(&ev[0], Event::Book(b) if b.snapshot && b.depth == (2, 2)));
        assert!(c.book(&sub).unwrap().is_live());
    }

    #[test]
    fn keepalive_pong_timeout_reconnect_and_replay() {
        let (mut c, sub) = swap_depth();
        binary(&mut c, T0 + 100, SNAP);
        drain(&mut c, T0 + 100);
        // The first ping 20 s after connecting, whatever arrived meanwhile.
        let (sent, _, wait) = drain(&mut c, T0 + 19_999);
        assert!(sent.is_empty());
        assert!(matches!(wait, Action::Wait(Some(TimestampMillis(t))) if t == T0 + 20_000));
        let (sent, _, _) = drain(&mut c, T0 + 20_000);
        assert_eq!(sent, vec![r#"{"event":"server.ping","id":2}"#]);
        binary(
            &mut c,
            T0 + 20_150,
            r#"{"event":"server.ping","id":2,"code":1,"msg":"success","data":"pong"}"#,
        );
        let (sent, _, _) = drain(&mut c, T0 + 40_000);
        assert_eq!(sent, vec![r#"{"event":"server.ping","id":3}"#]);
        // No pong within 10 s: the socket is closed and replaced.
        assert!(matches!(
            c.poll(TimestampMillis(T0 + 50_000)),
            Action::Close(CloseReason::PongTimeout)
        ));
        let (_, ev, wait) = drain(&mut c, T0 + 50_000);
        assert_eq!(
            ev[0],
            Event::Resync {
                subscription: sub.clone(),
                reason: ResyncReason::Reconnect,
                retry_in_ms: 0
            }
        );
        let Event::Disconnected {
            reason: CloseReason::PongTimeout,
            retry_in_ms: Some(retry),
            ..
        } = ev[1]
        else {
            panic!("{:?}", ev[1]);
        };
        // A healthy socket resets the backoff: the first delay is in 250..=500 ms.
        assert!((250..=500).contains(&retry), "{retry}");
        assert!(
            matches!(wait, Action::Wait(Some(TimestampMillis(t))) if t == T0 + 50_000 + i64::try_from(retry).unwrap())
        );
        assert!(c.book(&sub).unwrap().is_empty());
        let t1 = T0 + 51_000;
        let (_, ev, a) = drain(&mut c, t1);
        assert!(matches!(a, Action::Connect));
        assert!(matches!(ev[0], Event::Connecting { attempt: 1, .. }));
        c.on_connected(TimestampMillis(t1));
        // Ids restart per socket; the subscription is replayed.
        let (sent, _, _) = drain(&mut c, t1);
        assert_eq!(
            sent,
            vec![r#"{"event":"depth.subscribe","id":1,"instrument_id":"BTCUSDTPERP","level":20}"#]
        );
    }

    #[test]
    fn backoff_grows_with_jitter_and_is_capped() {
        let config = WsConfig {
            reconnect_initial: Duration::from_millis(1000),
            reconnect_max: Duration::from_millis(8000),
            ..WsConfig::default()
        };
        let mut c = Connection::new(Family::Spot, config, None);
        let mut now = T0;
        let mut delays = Vec::new();
        for _ in 0..7 {
            let (_, _, a) = drain(&mut c, now);
            assert!(matches!(a, Action::Connect));
            c.on_connect_failed(TimestampMillis(now), "HTTP 502");
            let (_, ev, _) = drain(&mut c, now);
            let Some(Event::Disconnected {
                reason: CloseReason::ConnectFailed(detail),
                retry_in_ms: Some(ms),
                ..
            }) = ev.last()
            else {
                panic!("{ev:?}")
            };
            assert_eq!(detail, "HTTP 502");
            delays.push(*ms);
            now += i64::try_from(*ms).unwrap();
        }
        for (i, (ms, base)) in delays
            .iter()
            .zip([1000u64, 2000, 4000, 8000, 8000, 8000, 8000])
            .enumerate()
        {
            assert!(
                (base / 2..=base).contains(ms),
                "attempt {i}: {ms} not in {base}/2..={base}"
            );
        }
    }

    #[test]
    fn lifetime_recycles_at_once() {
        let config = WsConfig {
            lifetime: Duration::from_secs(60),
            lifetime_jitter: Duration::ZERO,
            ping_interval: Duration::from_secs(100),
            ..WsConfig::default()
        };
        let mut c = Connection::new(Family::Spot, config, None);
        c.subscribe(Subscription::spot(Channel::Ticker, "btc_usdt").unwrap())
            .unwrap();
        drain(&mut c, T0);
        c.on_connected(TimestampMillis(T0));
        let (sent, _, wait) = drain(&mut c, T0);
        assert_eq!(
            sent,
            vec![r#"{"id":1,"method":"ticker.subscribe","params":["BTC_USDT"]}"#]
        );
        assert!(matches!(wait, Action::Wait(Some(TimestampMillis(t))) if t == T0 + 60_000));
        assert!(matches!(
            c.poll(TimestampMillis(T0 + 60_000)),
            Action::Close(CloseReason::Recycle)
        ));
        let (_, ev, a) = drain(&mut c, T0 + 60_000);
        assert!(matches!(
            ev[0],
            Event::Disconnected {
                reason: CloseReason::Recycle,
                retry_in_ms: Some(0),
                ..
            }
        ));
        assert!(matches!(ev[1], Event::Connecting { attempt: 1, .. }));
        assert!(matches!(a, Action::Connect));
    }

    #[test]
    fn thirty_swap_channels_at_most() {
        let mut c = Connection::new(Family::Swap, WsConfig::default(), None);
        for i in 0..30 {
            c.subscribe(Subscription::swap(Channel::Ticker, &format!("C{i}USDTPERP")).unwrap())
                .unwrap();
        }
        // The same subscription again is not a new channel.
        c.subscribe(Subscription::swap(Channel::Ticker, "C0USDTPERP").unwrap())
            .unwrap();
        assert_eq!(
            c.subscribe(Subscription::swap(Channel::Ticker, "XUSDTPERP").unwrap()),
            Err(SubscribeError::TooManyChannels { limit: 30 })
        );
        assert_eq!(c.subscriptions().count(), 30);
        assert_eq!(
            c.subscribe(Subscription::spot(Channel::Ticker, "btc_usdt").unwrap()),
            Err(SubscribeError::WrongFamily {
                connection: Family::Swap
            })
        );
        assert_eq!(
            c.subscribe("swap:account".parse().unwrap()),
            Err(SubscribeError::NeedsCredentials {
                channel: Channel::Account
            })
        );
        // One request for the 30 instruments on connect.
        drain(&mut c, T0);
        c.on_connected(TimestampMillis(T0));
        let (sent, _, _) = drain(&mut c, T0);
        assert_eq!(sent.len(), 1);
        assert!(sent[0].starts_with(
            r#"{"event":"ticker.subscribe","id":1,"instrument_ids":["C0USDTPERP","C1USDTPERP""#
        ));
    }

    #[test]
    fn spot_auth_before_private_subscriptions() {
        let creds = Credentials::new("0123456789abcd", "01234567890123456789abcd");
        // A measured offset at hand: the auth is signed at once.
        let config = WsConfig {
            time_offset_ms: Some(0),
            ..WsConfig::default()
        };
        let mut c = Connection::new(Family::Spot, config, Some(creds));
        c.subscribe("spot:order:btc_usdt".parse().unwrap()).unwrap();
        c.subscribe("spot:depth:btc_usdt".parse().unwrap()).unwrap();
        let t = 1583135616239;
        drain(&mut c, t);
        c.on_connected(TimestampMillis(t));
        let (sent, _, _) = drain(&mut c, t);
        // The auth frame of `docs/protocol.md` ("Websocket authentication"), then the public
        // subscription; the private one waits.
        assert_eq!(
            sent,
            vec![
                r#"{"id":1,"method":"server.auth","params":["0123456789abcd","1583135616239","tzcVcUbbxJ7fzsNURTvDD42uAs9jDTV67ObUJKQ+QHk="]}"#,
                r#"{"id":2,"method":"depth.subscribe","params":["BTC_USDT"]}"#
            ]
        );
        binary(
            &mut c,
            t + 1,
            r#"{"error":null,"result":{"status":"success"},"id":1}"#,
        );
        let (sent, ev, _) = drain(&mut c, t + 1);
        assert_eq!(
            sent,
            vec![r#"{"id":3,"method":"order.subscribe","params":["BTC_USDT"]}"#]
        );
        assert!(ev.contains(&Event::Authenticated {
            family: Family::Spot
        }));
        // A refusal is reported with the server's error.
        binary(
            &mut c,
            t + 2,
            r#"{"id":3,"result":null,"error":{"code":1,"message":"invalid argument"}}"#,
        );
        let (_, ev, _) = drain(&mut c, t + 2);
        assert_eq!(
            ev,
            vec![Event::Refused {
                family: Family::Spot,
                request: "order.subscribe".into(),
                subscriptions: vec!["spot:order:btc_usdt".parse().unwrap()],
                error: ReplyError {
                    code: Some(1),
                    message: Some("invalid argument".into())
                }
            }]
        );
        assert!(!format!("{c:?}").contains("01234567890123456789abcd"));
    }

    #[test]
    fn snapshot_timeout_and_book_age_resync() {
        let (mut c, sub) = swap_depth();
        // Acknowledged at T0, no snapshot by T0 + 10 s.
        let (sent, ev, _) = drain(&mut c, T0 + 10_000);
        assert_eq!(
            ev,
            vec![
                Event::Subscribed {
                    subscriptions: vec![sub.clone()]
                },
                Event::Resync {
                    subscription: sub.clone(),
                    reason: ResyncReason::Stale,
                    retry_in_ms: 0
                }
            ]
        );
        assert_eq!(sent.len(), 2);
        let mut c = Connection::new(
            Family::Spot,
            WsConfig {
                book_max_age: Some(Duration::from_secs(5)),
                ..WsConfig::default()
            },
            None,
        );
        let sub: Subscription = "spot:depth:btc_usdt".parse().unwrap();
        c.subscribe(sub.clone()).unwrap();
        drain(&mut c, T0);
        c.on_connected(TimestampMillis(T0));
        binary(
            &mut c,
            T0,
            r#"{"id":1,"result":{"status":"success"},"error":null}"#,
        );
        binary(
            &mut c,
            T0,
            r#"{"method":"depth.update","params":[true,{"asks":[["2","1"]],"bids":[["1","1"]]},"BTC_USDT"],"id":null}"#,
        );
        drain(&mut c, T0);
        let (sent, ev, _) = drain(&mut c, T0 + 5_000);
        assert_eq!(
            ev,
            vec![Event::Resync {
                subscription: sub,
                reason: ResyncReason::Stale,
                retry_in_ms: 0
            }]
        );
        assert_eq!(
            sent,
            vec![
                r#"{"id":2,"method":"depth.unsubscribe","params":["BTC_USDT"]}"#,
                r#"{"id":3,"method":"depth.subscribe","params":["BTC_USDT"]}"#
            ]
        );
    }

    #[test]
    fn tolerant_frames_and_garbage() {
        let (mut c, _) = swap_depth();
        drain(&mut c, T0);
        // Plain JSON in a text frame or a binary frame is read.
        c.on_frame(
            TimestampMillis(T0),
            Frame::Text(r#"{"event":"index_price.update","data":{"instrument_id":"BTCUSDTPERP","index_price":"86777.2","timestamp":1}}"#),
        );
        c.on_frame(TimestampMillis(T0), Frame::Binary(b"\x78\xda\x00garbage"));
        let (_, ev, _) = drain(&mut c, T0);
        assert!(matches!(&ev[0], Event::SwapIndexPrice(p) if p.index_price == Some(d("86777.2"))));
        assert!(matches!(
            &ev[1],
            Event::Undecodable {
                family: Family::Swap,
                ..
            }
        ));
        // Close on request: no further socket.
        c.close(TimestampMillis(T0));
        assert!(matches!(
            c.poll(TimestampMillis(T0)),
            Action::Close(CloseReason::Requested)
        ));
        let (_, ev, a) = drain(&mut c, T0);
        assert!(matches!(
            ev.last(),
            Some(Event::Disconnected {
                retry_in_ms: None,
                ..
            })
        ));
        assert!(matches!(a, Action::Stopped));
    }
}
