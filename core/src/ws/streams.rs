//! Many sockets of one family as one stream: subscriptions spread over as many sockets as the
//! venue's limits need, sockets opened at a pace, make-before-break recycling, trades never
//! reported twice.
//!
//! [`Streams`] is what both transports drive: it owns one [`Connection`] per socket and
//! answers [`Streams::poll`] with a [`StreamAction`] naming the socket it concerns. The
//! transport opens, writes, reads and closes sockets by their number and reports back
//! (`on_connected`, `on_frame`, ...); it never decides anything.
//!
//! - **Sharding.** A swap socket holds at most [`crate::ws::MAX_SWAP_CHANNELS`] channels (the
//!   venue closes it, with every stream on it, on the 31st); a spot socket holds
//!   [`StreamSettings::channels_per_socket`](crate::ws::StreamSettings) (the venue states no
//!   limit; 100 by default). A subscription goes to the first socket with room, private
//!   channels preferably to socket 0, so that one `server.auth` covers them. Sockets are opened at most one per `open_interval` (500 ms by default): no burst of
//!   handshakes.
//! - **Make before break.** At its lifetime (`WsConfig::lifetime` less a random part of
//!   `lifetime_jitter`), a socket is not closed: a replacement is opened with the same
//!   subscriptions; the old socket keeps reporting until the replacement is subscribed and
//!   its books hold snapshots (or `snapshot_timeout` × 3 passed), then [`Event::Switched`] is
//!   reported, every live book once more as a snapshot from the replacement, and the old socket
//!   is closed. Trades are reported from both sockets during the overlap and deduplicated by
//!   trade id, so none is lost or repeated; the replacement's other pushes are held back until
//!   the switch (a tracker of the account resyncs after [`Event::Switched`], as after any new
//!   socket: [`crate::track`]).
//! - **Trades once.** Every trade id is remembered (the last 4,096 per market, 1,024 markets)
//!   and a trade already reported is dropped: the overlap of a recycle, the recent-trades list
//!   a socket sends again after a reconnect, a duplicate push.
//!
//! DESIGN: the recycle is decided here rather than in each [`Connection`], because only the
//! owner of several sockets can open one before closing another.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use crate::credentials::Credentials;
use crate::endpoint::Family;
use crate::types::TimestampMillis;
use crate::ws::connection::{duration_ms, Action, Connection, WsConfig};
use crate::ws::event::{CloseReason, Event};
use crate::ws::frame::Frame;
use crate::ws::subscription::{SubscribeError, Subscription};
use crate::ws::{Book, SubscriptionState, MAX_SWAP_CHANNELS};

/// Trade ids remembered per market.
const TRADES_PER_MARKET: usize = 4_096;
/// Markets whose trade ids are remembered (the oldest market is forgotten first).
const TRADE_MARKETS: usize = 1_024;

/// What the transport must do next for a [`Streams`].
// Consumed at once by the caller, as `Action` is.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum StreamAction {
    /// Open socket `socket`, then call [`Streams::on_connected`] or
    /// [`Streams::on_connect_failed`].
    Connect(u32),
    /// Send this text frame on socket `socket`.
    Send(u32, String),
    /// Close socket `socket` (already counted closed).
    Close(u32, CloseReason),
    /// Hand this event to the user.
    Event(Event),
    /// Read frames until this time (`None`: no deadline), then poll again.
    Wait(Option<TimestampMillis>),
    /// Every socket was closed on request; nothing more to report.
    Stopped,
}

/// What a socket's thread or task reports (see [`Streams::report`]).
#[derive(Debug)]
pub enum SocketReport {
    /// The socket is open.
    Opened,
    /// Opening it failed (the reason).
    Failed(String),
    /// A frame arrived: its bytes and whether it was a text frame.
    Frame(Vec<u8>, bool),
    /// The socket closed or failed (the reason).
    Closed(String),
}

/// What reaches a stream from its sockets' threads or tasks and from its handles (the
/// transports queue these in one bounded queue).
#[derive(Debug)]
pub enum StreamInput {
    /// A report of socket `.0`'s thread or task of generation `.1`.
    Socket(u32, u64, SocketReport),
    /// A handle adds a subscription.
    Subscribe(Subscription),
    /// A handle removes a subscription.
    Unsubscribe(Subscription),
    /// An event of the stream's public market data that another source delivered (a feed of
    /// the same channels, such as `digifinex_ureq::feed`): handed on in its turn, as it is.
    /// Dropped once the stream was closed.
    Relayed(Box<Event>),
}

/// One socket: its machine and whether it waits for its turn to be opened.
#[derive(Debug)]
struct Socket {
    conn: Connection,
    /// The machine asked to be connected; the transport is told when the pace allows.
    wants_connect: bool,
    /// Being replaced: held back or closing.
    retiring: bool,
}

impl Socket {
    fn new(conn: Connection) -> Self {
        Socket {
            conn,
            wants_connect: false,
            retiring: false,
        }
    }
}

/// A shard: the socket in service and, during a recycle, its replacement.
#[derive(Debug)]
struct Shard {
    primary: Socket,
    standby: Option<Socket>,
    /// When the primary's replacement is opened.
    recycle_at: Option<i64>,
    /// When the standby takes over even if not every book has its snapshot.
    switch_by: Option<i64>,
}

/// The trade ids already reported, per market, bounded.
#[derive(Debug, Default)]
struct SeenTrades {
    markets: HashMap<String, (HashSet<String>, VecDeque<String>)>,
    order: VecDeque<String>,
}

impl SeenTrades {
    /// Whether the trade is new (and remembers it).
    fn first_time(&mut self, market: &str, id: &str) -> bool {
        if !self.markets.contains_key(market) {
            if self.order.len() >= TRADE_MARKETS {
                if let Some(old) = self.order.pop_front() {
                    self.markets.remove(&old);
                }
            }
            self.order.push_back(market.to_owned());
            self.markets.insert(market.to_owned(), Default::default());
        }
        let Some((set, fifo)) = self.markets.get_mut(market) else {
            return true;
        };
        if set.contains(id) {
            return false;
        }
        if fifo.len() >= TRADES_PER_MARKET {
            if let Some(old) = fifo.pop_front() {
                set.remove(&old);
            }
        }
        set.insert(id.to_owned());
        fifo.push_back(id.to_owned());
        true
    }
}

/// The sockets of one family as one stream (see the module docs).
#[derive(Debug)]
pub struct Streams {
    family: Family,
    config: WsConfig,
    credentials: Option<Credentials>,
    per_socket: usize,
    open_interval: i64,
    shards: Vec<Shard>,
    next_socket: u32,
    last_open: Option<i64>,
    events: VecDeque<Event>,
    seen: SeenTrades,
    /// Round-robin start of the next poll.
    turn: usize,
    /// The generation of each socket's current thread or task: reports of older ones are
    /// ignored (a socket reopened while its old thread still reports).
    generations: HashMap<u32, u64>,
    generation: u64,
    closed: bool,
    rng: u64,
}

impl Streams {
    /// A stream of `family` with `config`'s timers, `credentials` for the private channels,
    /// at most `per_socket` channels per socket (capped at [`MAX_SWAP_CHANNELS`] on swap) and
    /// at most one socket opened per `open_interval`.
    pub fn new(
        family: Family,
        config: WsConfig,
        credentials: Option<Credentials>,
        per_socket: usize,
        open_interval: Duration,
    ) -> Self {
        let per_socket = match family {
            Family::Swap => per_socket.clamp(1, MAX_SWAP_CHANNELS),
            _ => per_socket.max(1),
        };
        let rng = config.seed | 1;
        let mut streams = Streams {
            family,
            config,
            credentials,
            per_socket,
            open_interval: duration_ms(open_interval),
            shards: Vec::new(),
            next_socket: 0,
            last_open: None,
            events: VecDeque::new(),
            seen: SeenTrades::default(),
            turn: 0,
            generations: HashMap::new(),
            generation: 0,
            closed: false,
            rng,
        };
        // The first socket exists from the start (as a lone connection's does).
        let conn = streams.new_connection();
        streams.shards.push(Shard {
            primary: Socket::new(conn),
            standby: None,
            recycle_at: None,
            switch_by: None,
        });
        streams
    }

    /// The stream's family.
    pub fn family(&self) -> Family {
        self.family
    }

    /// Sets the measured server clock offset used to time-stamp `server.auth` on every socket
    /// (ms, server minus local): a client's stream keeps it equal to the REST session's once
    /// that session has measured it. Without one, each socket measures the clock itself.
    pub fn set_time_offset(&mut self, offset_ms: i64) {
        self.config.time_offset_ms = Some(offset_ms);
        for s in self.sockets_mut() {
            s.conn.set_time_offset(offset_ms);
        }
    }

    /// The most channels one socket holds.
    pub fn channels_per_socket(&self) -> usize {
        self.per_socket
    }

    /// The sockets in service (replacements during a recycle not counted).
    pub fn sockets(&self) -> usize {
        self.shards.len()
    }

    /// Adds a subscription to the first socket with room (private channels preferably to
    /// socket 0), opening another socket when all are full. Refused locally: the other
    /// family's subscription, a private channel without credentials. Adding a subscription
    /// already held does nothing.
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
        if self.subscriptions().any(|(s, _)| *s == sub) {
            return Ok(());
        }
        let per_socket = self.per_socket;
        let room = |shard: &Shard| shard.primary.conn.len() < per_socket;
        let index = match self.shards.iter().position(room) {
            Some(i) => i,
            None => {
                let conn = self.new_connection();
                self.shards.push(Shard {
                    primary: Socket::new(conn),
                    standby: None,
                    recycle_at: None,
                    switch_by: None,
                });
                self.shards.len().saturating_sub(1)
            }
        };
        let Some(shard) = self.shards.get_mut(index) else {
            return Ok(());
        };
        shard.primary.conn.subscribe(sub.clone())?;
        if let Some(standby) = &mut shard.standby {
            standby.conn.subscribe(sub)?;
        }
        Ok(())
    }

    /// Removes a subscription (and its book). Returns whether it was held.
    pub fn unsubscribe(&mut self, sub: &Subscription) -> bool {
        let mut held = false;
        for shard in &mut self.shards {
            held |= shard.primary.conn.unsubscribe(sub);
            if let Some(standby) = &mut shard.standby {
                standby.conn.unsubscribe(sub);
            }
        }
        held
    }

    /// The subscriptions and their states, over every socket.
    pub fn subscriptions(&self) -> impl Iterator<Item = (&Subscription, SubscriptionState)> {
        self.shards
            .iter()
            .flat_map(|s| s.primary.conn.subscriptions())
    }

    /// The local book of a depth subscription.
    pub fn book(&self, sub: &Subscription) -> Option<&Book> {
        self.shards.iter().find_map(|s| s.primary.conn.book(sub))
    }

    /// The machines of the sockets in service, in socket order.
    pub fn connections(&self) -> impl Iterator<Item = &Connection> {
        self.shards.iter().map(|s| &s.primary.conn)
    }

    /// Asks every open socket for the server time ([`Event::ServerTime`] follows every frame
    /// that socket sent before answering).
    pub fn request_time(&mut self) {
        for s in &mut self.shards {
            s.primary.conn.request_time();
        }
    }

    /// Ends the stream: every socket is closed and none is opened again.
    pub fn close(&mut self, now: TimestampMillis) {
        self.closed = true;
        for s in self.sockets_mut() {
            s.conn.close(now);
        }
    }

    /// The transport starts a thread or task for socket `socket` (after
    /// [`StreamAction::Connect`]): the generation its reports carry.
    pub fn started(&mut self, socket: u32) -> u64 {
        self.generation = self.generation.wrapping_add(1);
        self.generations.insert(socket, self.generation);
        self.generation
    }

    /// The transport let go of socket `socket` (after [`StreamAction::Close`]): its later
    /// reports are ignored.
    pub fn released(&mut self, socket: u32) {
        self.generations.remove(&socket);
    }

    /// A report of socket `socket`'s thread or task of `generation`, at `now`; one of an
    /// older generation, or of a released socket, is ignored.
    pub fn report(
        &mut self,
        socket: u32,
        generation: u64,
        report: SocketReport,
        now: TimestampMillis,
    ) {
        if self.generations.get(&socket) != Some(&generation) {
            return;
        }
        match report {
            SocketReport::Opened => self.on_connected(socket, now),
            SocketReport::Failed(detail) => {
                self.generations.remove(&socket);
                self.on_connect_failed(socket, now, detail);
            }
            SocketReport::Frame(bytes, text) => {
                let frame = match (text, std::str::from_utf8(&bytes)) {
                    (true, Ok(t)) => Frame::Text(t),
                    _ => Frame::Binary(&bytes),
                };
                self.on_frame(socket, now, frame);
            }
            SocketReport::Closed(detail) => {
                self.generations.remove(&socket);
                self.on_closed(socket, now, detail);
            }
        }
    }

    /// Takes one input from the transport's queue at `now` (a handle's subscription that is
    /// refused is dropped: the handle checked its family, and a private channel without
    /// credentials cannot be held).
    pub fn apply(&mut self, input: StreamInput, now: TimestampMillis) {
        match input {
            StreamInput::Socket(socket, generation, report) => {
                self.report(socket, generation, report, now)
            }
            StreamInput::Subscribe(sub) => drop(self.subscribe(sub)),
            StreamInput::Unsubscribe(sub) => drop(self.unsubscribe(&sub)),
            StreamInput::Relayed(event) => {
                if !self.closed {
                    self.events.push_back(*event);
                }
            }
        }
    }

    /// Whether the stream was asked to close ([`Streams::close`]).
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Socket `socket` is open.
    pub fn on_connected(&mut self, socket: u32, now: TimestampMillis) {
        let lifetime = duration_ms(self.config.lifetime);
        let jitter = self.random_below(duration_ms(self.config.lifetime_jitter));
        let recycle_at = now.0.saturating_add(lifetime.saturating_sub(jitter).max(1));
        for shard in &mut self.shards {
            if shard.primary.conn.socket() == socket {
                shard.primary.conn.on_connected(now);
                shard.recycle_at = Some(recycle_at);
            } else if let Some(standby) =
                shard.standby.as_mut().filter(|s| s.conn.socket() == socket)
            {
                standby.conn.on_connected(now);
            }
        }
    }

    /// Opening socket `socket` failed.
    pub fn on_connect_failed(
        &mut self,
        socket: u32,
        now: TimestampMillis,
        detail: impl Into<String>,
    ) {
        if let Some(s) = self.socket_mut(socket) {
            s.conn.on_connect_failed(now, detail);
        }
    }

    /// Socket `socket` closed or failed.
    pub fn on_closed(&mut self, socket: u32, now: TimestampMillis, detail: impl Into<String>) {
        if let Some(s) = self.socket_mut(socket) {
            s.conn.on_closed(now, detail);
        }
    }

    /// A frame arrived on socket `socket`.
    pub fn on_frame(&mut self, socket: u32, now: TimestampMillis, frame: Frame<'_>) {
        if let Some(s) = self.socket_mut(socket) {
            s.conn.on_frame(now, frame);
        }
    }

    /// When [`Streams::poll`] next has something to do without new input, without running any
    /// timer (a transport's select over its sockets and a sleep can ask this first):
    /// `Some(TimestampMillis(i64::MIN))` when something is already waiting, `None` when
    /// nothing happens until input arrives. Only `poll` moves the machine.
    pub fn next_deadline(&self) -> Option<TimestampMillis> {
        if !self.events.is_empty() {
            return Some(TimestampMillis(i64::MIN));
        }
        let mut at: Option<i64> = None;
        let mut earlier = |t: i64| at = Some(at.map_or(t, |a| a.min(t)));
        for shard in &self.shards {
            for socket in std::iter::once(&shard.primary).chain(shard.standby.as_ref()) {
                if let Some(TimestampMillis(t)) = socket.conn.next_deadline() {
                    earlier(t);
                }
            }
            if let Some(t) = shard.switch_by {
                earlier(t);
            }
            if shard.standby.is_none() && !self.closed && shard.primary.conn.is_open() {
                if let Some(t) = shard.recycle_at {
                    earlier(t);
                }
            }
        }
        if self.waiting_socket().is_some() {
            earlier(
                self.last_open
                    .map_or(i64::MIN, |t| t.saturating_add(self.open_interval)),
            );
        }
        at.map(TimestampMillis)
    }

    /// The next thing to do at `now`.
    pub fn poll(&mut self, now: TimestampMillis) -> StreamAction {
        // Each round that hands nothing out dropped an event (a trade already reported, a
        // replacement's push held back), so this ends.
        loop {
            if let Some(action) = self.poll_once(now) {
                return action;
            }
        }
    }

    fn poll_once(&mut self, now: TimestampMillis) -> Option<StreamAction> {
        if let Some(e) = self.events.pop_front() {
            return self.deliver(e);
        }
        self.plan_recycles(now);
        let mut deadline: Option<i64> = None;
        let mut stopped = true;
        let count = self.shards.len();
        for k in 0..count {
            let i = self.turn.wrapping_add(k).checked_rem(count).unwrap_or(0);
            match self.poll_shard(i, now) {
                Polled::Do(action) => {
                    self.turn = i;
                    return match action {
                        StreamAction::Event(e) => self.deliver(e),
                        other => Some(other),
                    };
                }
                Polled::Again => return None,
                Polled::Wait(d) => {
                    stopped = false;
                    if let Some(d) = d {
                        deadline = Some(deadline.map_or(d, |x: i64| x.min(d)));
                    }
                }
                Polled::Stopped => {}
            }
        }
        self.turn = self.turn.wrapping_add(1);
        if let Some(e) = self.events.pop_front() {
            return self.deliver(e);
        }
        // Paced opening: the oldest socket waiting for its turn.
        let next_open = self
            .last_open
            .map_or(i64::MIN, |t| t.saturating_add(self.open_interval));
        if let Some(socket) = self.waiting_socket() {
            if now.0 >= next_open {
                self.last_open = Some(now.0);
                if let Some(s) = self.socket_mut(socket) {
                    s.wants_connect = false;
                }
                return Some(StreamAction::Connect(socket));
            }
            deadline = Some(deadline.map_or(next_open, |x| x.min(next_open)));
            stopped = false;
        }
        if stopped {
            return Some(StreamAction::Stopped);
        }
        Some(StreamAction::Wait(deadline.map(TimestampMillis)))
    }

    // -----------------------------------------------------------------------------------------

    fn new_connection(&mut self) -> Connection {
        let socket = self.next_socket;
        self.next_socket = self.next_socket.saturating_add(1);
        let mut config = self.config.clone();
        config.seed = self
            .config
            .seed
            .wrapping_add(u64::from(socket).wrapping_mul(0x9e37_79b9));
        Connection::new(self.family, config, self.credentials.clone()).managed(socket)
    }

    fn sockets_mut(&mut self) -> impl Iterator<Item = &mut Socket> {
        self.shards
            .iter_mut()
            .flat_map(|s| std::iter::once(&mut s.primary).chain(s.standby.as_mut()))
    }

    fn socket_mut(&mut self, socket: u32) -> Option<&mut Socket> {
        self.sockets_mut().find(|s| s.conn.socket() == socket)
    }

    fn waiting_socket(&self) -> Option<u32> {
        self.shards
            .iter()
            .flat_map(|s| std::iter::once(&s.primary).chain(s.standby.as_ref()))
            .filter(|s| s.wants_connect)
            .map(|s| s.conn.socket())
            .min()
    }

    /// Opens a replacement for every socket past its lifetime; switches to a replacement
    /// that is ready (or waited long enough).
    fn plan_recycles(&mut self, now: TimestampMillis) {
        let switch_wait = duration_ms(self.config.snapshot_timeout).saturating_mul(3);
        for i in 0..self.shards.len() {
            let due = self.shards.get(i).is_some_and(|s| {
                s.standby.is_none()
                    && !self.closed
                    && s.primary.conn.is_open()
                    && s.recycle_at.is_some_and(|at| now.0 >= at)
            });
            if due {
                let mut conn = self.new_connection();
                let subs: Vec<Subscription> = self
                    .shards
                    .get(i)
                    .map(|s| {
                        s.primary
                            .conn
                            .subscriptions()
                            .map(|(s, _)| s.clone())
                            .collect()
                    })
                    .unwrap_or_default();
                for sub in subs {
                    let _ = conn.subscribe(sub);
                }
                if let Some(shard) = self.shards.get_mut(i) {
                    shard.standby = Some(Socket::new(conn));
                    shard.recycle_at = None;
                    shard.switch_by = None;
                }
            }
            let Some(shard) = self.shards.get_mut(i) else {
                continue;
            };
            let Some(standby) = &shard.standby else {
                continue;
            };
            if standby.conn.is_open() && shard.switch_by.is_none() {
                shard.switch_by = Some(now.0.saturating_add(switch_wait));
            }
            let ready = standby.conn.is_ready();
            let late = shard.switch_by.is_some_and(|by| now.0 >= by) && standby.conn.is_open();
            if ready || late {
                self.switch(i, now);
            }
        }
    }

    /// The standby of shard `i` takes over; the old socket is closed.
    fn switch(&mut self, i: usize, now: TimestampMillis) {
        let lifetime = duration_ms(self.config.lifetime);
        let jitter = self.random_below(duration_ms(self.config.lifetime_jitter));
        let Some(shard) = self.shards.get_mut(i) else {
            return;
        };
        let Some(standby) = shard.standby.take() else {
            return;
        };
        let mut old = std::mem::replace(&mut shard.primary, standby);
        let since = shard.primary.conn.open_since().unwrap_or(now.0);
        shard.recycle_at = Some(since.saturating_add(lifetime.saturating_sub(jitter).max(1)));
        shard.switch_by = None;
        let from = old.conn.socket();
        let to = shard.primary.conn.socket();
        old.retiring = true;
        old.conn.retire(now);
        let books = shard.primary.conn.book_snapshots();
        shard.standby = Some(old);
        self.events.push_back(Event::Switched {
            family: self.family,
            from,
            to,
        });
        self.events.extend(books);
    }

    /// Polls shard `i`'s sockets once.
    fn poll_shard(&mut self, i: usize, now: TimestampMillis) -> Polled {
        let Some(shard) = self.shards.get_mut(i) else {
            return Polled::Stopped;
        };
        let mut result = poll_socket(&mut shard.primary, now);
        // The standby: a replacement being prepared, or a retired socket closing.
        if let Some(standby) = &mut shard.standby {
            match poll_socket(standby, now) {
                Polled::Do(StreamAction::Event(e)) => {
                    let keep = if standby.retiring {
                        // The old socket: only its own state (the close) is reported.
                        matches!(e, Event::Disconnected { .. })
                    } else {
                        // The replacement: its socket state and its trades (deduplicated
                        // below); the rest waits for the switch.
                        matches!(
                            e,
                            Event::Connecting { .. }
                                | Event::Connected { .. }
                                | Event::Disconnected { .. }
                                | Event::SpotTrades { .. }
                                | Event::SwapTrades { .. }
                        )
                    };
                    return if keep {
                        Polled::Do(StreamAction::Event(e))
                    } else {
                        Polled::Again
                    };
                }
                Polled::Again => return Polled::Again,
                Polled::Do(action) => return Polled::Do(action),
                Polled::Stopped if standby.retiring => shard.standby = None,
                Polled::Stopped => {}
                Polled::Wait(d) => {
                    result = match result {
                        Polled::Wait(w) => Polled::Wait(match (w, d) {
                            (Some(a), Some(b)) => Some(a.min(b)),
                            (a, b) => a.or(b),
                        }),
                        Polled::Stopped => Polled::Wait(d),
                        other => other,
                    };
                }
            }
        }
        result
    }

    /// An event on its way out: trades already reported are dropped (`None`).
    fn deliver(&mut self, event: Event) -> Option<StreamAction> {
        let event = match event {
            Event::SpotTrades {
                symbol,
                snapshot,
                mut trades,
            } => {
                let market = symbol.to_ascii_lowercase();
                trades.retain(|t| self.seen.first_time(&market, &t.id));
                if trades.is_empty() {
                    return None;
                }
                Event::SpotTrades {
                    symbol,
                    snapshot,
                    trades,
                }
            }
            Event::SwapTrades {
                snapshot,
                mut trades,
            } => {
                trades.retain(|t| {
                    let market = t
                        .instrument_id
                        .as_deref()
                        .unwrap_or("")
                        .to_ascii_uppercase();
                    self.seen.first_time(&market, &t.trade_id)
                });
                if trades.is_empty() {
                    return None;
                }
                Event::SwapTrades { snapshot, trades }
            }
            other => other,
        };
        Some(StreamAction::Event(event))
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
}

/// What polling one shard gave (consumed at once, as `Action` is).
#[allow(clippy::large_enum_variant)]
enum Polled {
    Do(StreamAction),
    /// An event was dropped: poll again.
    Again,
    Wait(Option<i64>),
    Stopped,
}

/// One step of one socket's machine, with its number on what the transport must do.
fn poll_socket(socket: &mut Socket, now: TimestampMillis) -> Polled {
    let id = socket.conn.socket();
    match socket.conn.poll(now) {
        Action::Connect => {
            socket.wants_connect = true;
            Polled::Wait(None)
        }
        Action::Send(text) => Polled::Do(StreamAction::Send(id, text)),
        Action::Close(reason) => Polled::Do(StreamAction::Close(id, reason)),
        Action::Event(e) => Polled::Do(StreamAction::Event(e)),
        Action::Wait(d) => Polled::Wait(d.map(|t| t.0)),
        Action::Stopped => Polled::Stopped,
    }
}
