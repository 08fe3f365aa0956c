//! The spot (`/ws/v1/`) and swap (`/swap_ws/v2/`) websockets, served by the simulator's one
//! server on the same address as REST, over the same exchange: a depth snapshot is the REST
//! book of that instant, a pushed trade is a REST trade (same id), a ticker is the REST
//! ticker's figures ([`crate::engine::ticker`]), and a private push renders the order, balance or
//! position as REST reads it at the instant it changed.
//!
//! Written from the protocol, independently of `digifinex-core`: its own JSON frames, zlib
//! framing (level 9, `78 DA`, one stream per frame), base64 and signature check ([`zlib`], [`base64`], [`ws_signature`]).
//! The protocol as the venue speaks it (docs/protocol.md in the repository):
//!
//! | behaviour | here |
//! |---|---|
//! | binary zlib frames, one JSON each | always; the plain-text fault sends text frames |
//! | no protocol pings from the server | none sent |
//! | drop (no close frame) 60 s after the last **client** frame | [`WsSettings::idle_timeout`] |
//! | lifetime cap 2 h | [`WsSettings::lifetime`] |
//! | swap: a 31st channel drops the socket ~150 ms later, no reply | [`WsSettings::max_swap_channels`] |
//! | swap replies `{event,id,code,msg[,data]}` with the observed `msg` texts; no id → 2; non-JSON → `{"event":"","code":2,...}`; repeat → 5; unknown unsubscribe → 7 | yes |
//! | swap depth: `full_data:true` snapshot (best first), then changed levels only, 0 deletes, delta bids ascending, window kept at `level`, price string / size number | yes |
//! | swap trades: first push `full_data:true` | yes |
//! | spot replies `{id,result,error}`, pushes `{method,params,id:null}`, depth CLEAN=true snapshot with asks highest first then deltas with `"0"` deletes, trades newest first, error objects `{code,message}`, flat ticker `params` | yes |
//! | auth: spot `[key, ms-string, base64 HMAC]`, swap top-level, number or string timestamps | yes (the JSON type of each swap timestamp is recorded) |
//! | private pushes with cumulative `filled` / `filled_qty` | every change of the account's orders, balances and positions, from the first one |
//!
//! Bounds (all in [`WsSettings`]): the upgrade is an HTTP request, so the server's header-read
//! timeout bounds a handshake that dribbles; at most [`WsSettings::max_connections`] sockets
//! (a further upgrade is answered HTTP 503); a bounded queue of frames per socket (a client that
//! does not read is dropped, not buffered); client frames and messages at most
//! [`WsSettings::max_message_bytes`]. A subscription's targets must be listed pairs,
//! instruments or currencies, so a socket holds at most one subscription per channel and
//! listed target; a target already held is acknowledged again and ignored (no second
//! snapshot on spot; code 5 on swap, as the venue answers).
//!
//! DESIGN (unknowns decided):
//! - A private subscribe without targets (`[]` on spot, no `instrument_id` on swap) covers
//!   every market; no snapshot is pushed on a private subscribe; private channels count toward
//!   the swap cap of 30.
//! - `server.auth` timestamps are checked like REST's: spot within 5 s behind and 1 s ahead of
//!   the simulator clock, swap within 30 s either way; outside, the auth fails (spot error 3,
//!   swap code 3). An expired key or a caller outside the key's IP whitelist fails alike.
//! - Failed auths are throttled per socket (the venue bans a peer that keeps failing; its
//!   numbers are not published): the [`WsSettings::auth_failures`]th failure (5) is answered,
//!   then the socket is banned, its further frames unread and unanswered, and dropped 100 ms
//!   later (no close frame). A new socket starts again at 0: each costs an upgrade, under the
//!   socket cap. A success does not reset the count.
//! - Upgrades are checked like the control API: a `Host` that is not `localhost`, a loopback
//!   address or the bound address is refused (HTTP 403; any host with
//!   [`crate::SimConfig::allow_public_bind`]), and so is a present `Origin` that is not a
//!   loopback page (`null` included): a web page the user opens cannot open sockets on the
//!   simulator (see [`crate::host::is_loopback_host`]).
//! - An unknown target answers spot error `{"code":1,"message":"invalid argument"}` and swap
//!   code 2 `invalid param` (the venue's answer to an unknown instrument); nothing is
//!   subscribed.
//! - `balance` pushes the spot account's balances; swap `account` the swap account's rows of
//!   REST `account/balance`; swap `order` pushes REST's `trade/order_info` object and
//!   `position` REST's `account/positions` rows, plus a row with `position` 0 for a side that
//!   closed. After a clock jump, each changed order is pushed once, as it is at the end.
//! - `cur_candle` pushes the REST candle of the current period; `mark_candle` and
//!   `estimated_settle_price` are accepted and never pushed (the simulator keeps no mark
//!   history and lists no dated contracts).
//! - The spot ticker's `params` are flat (`[ {ticker} ]`); `all_ticker` pushes every listed
//!   market every two seconds.

mod codec;
mod spot;
mod swap;

pub use codec::{dec, diff, ws_signature, zlib, Window};

use crate::config::WsSettings;
use crate::engine::accounts::AccountId;
use crate::engine::changes::Changes;
use crate::engine::state::State;
use crate::json::J;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::IpAddr;
use std::time::Duration;

/// Which socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WsFamily {
    /// `/ws/v1/`.
    Spot,
    /// `/swap_ws/v2/`.
    Swap,
}

impl WsFamily {
    /// The socket a request path names (`/ws/v1/` or `/swap_ws/v2/`, trailing slash optional).
    pub fn of_path(path: &str) -> Option<WsFamily> {
        match path.trim_end_matches('/') {
            "/ws/v1" => Some(WsFamily::Spot),
            "/swap_ws/v2" => Some(WsFamily::Swap),
            _ => None,
        }
    }
}

/// A websocket fault; each is consumed by the next `count` events it applies to
/// ([`crate::Control::ws_fault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WsFault {
    /// Depth deltas (any socket) are not sent: a silent gap.
    DropDeltas,
    /// Private pushes are sent twice.
    DuplicatePrivate,
    /// A private push is held back and sent after the one that follows it.
    ReorderPrivate,
    /// Frames are sent as plain text frames instead of zlib binary frames.
    PlainText,
    /// Upgrades are answered HTTP 502.
    Handshake502,
}

impl WsFault {
    /// The fault named `name` (`drop_deltas`, `duplicate_private`, `reorder_private`,
    /// `plain_text`, `handshake_502`).
    pub fn parse(name: &str) -> Option<WsFault> {
        Some(match name {
            "drop_deltas" => WsFault::DropDeltas,
            "duplicate_private" => WsFault::DuplicatePrivate,
            "reorder_private" => WsFault::ReorderPrivate,
            "plain_text" => WsFault::PlainText,
            "handshake_502" => WsFault::Handshake502,
            _ => return None,
        })
    }
}

#[derive(Debug, Default)]
struct Faults {
    drop_deltas: u32,
    duplicate_private: u32,
    reorder_private: u32,
    plain_text: u32,
    handshake_502: u32,
}

impl Faults {
    fn take(counter: &mut u32) -> bool {
        if *counter > 0 {
            *counter -= 1;
            true
        } else {
            false
        }
    }
}

/// A frame or an end on its way to a socket's client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Out {
    /// Sent zlib-compressed in a binary frame.
    Zlib(String),
    /// Sent as a text frame (the plain-text fault).
    Text(String),
    /// With the adapter's timers: close the connection this long after the frames before
    /// (the auth ban, the swap channel cap).
    DropAfter(Duration),
    /// The connection is dropped (no close frame); nothing follows.
    Dropped,
}

/// What a subscription is about.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    /// Every market (a private channel without targets, `all_ticker`, `account`).
    All,
    /// One pair or instrument, by index.
    Market(usize),
    /// One currency (`balance`).
    Currency(String),
}

/// One subscription of a socket.
#[derive(Debug, Clone)]
struct Sub {
    channel: &'static str,
    key: Key,
    /// The target as pushes name it (`BTC_USDT`, `BTCUSDTPERP`).
    name: String,
    /// Swap depth level.
    level: Option<usize>,
    /// Swap candle granularity and its length.
    granularity: Option<(String, i64)>,
    /// The depth window last sent (bids, asks).
    sent: Option<(Window, Window)>,
    /// The last trade id sent.
    last_trade: u64,
}

impl Sub {
    fn new(channel: &'static str, key: Key, name: String) -> Sub {
        Sub {
            channel,
            key,
            name,
            level: None,
            granularity: None,
            sent: None,
            last_trade: 0,
        }
    }

    fn same(&self, other: &Sub) -> bool {
        self.channel == other.channel
            && self.key == other.key
            && self.level == other.level
            && self.granularity == other.granularity
    }

    fn covers_market(&self, m: usize) -> bool {
        match &self.key {
            Key::All => true,
            Key::Market(x) => *x == m,
            Key::Currency(_) => false,
        }
    }

    fn covers_currency(&self, c: &str) -> bool {
        match &self.key {
            Key::All => true,
            Key::Currency(x) => x == c,
            Key::Market(_) => false,
        }
    }
}

/// One open socket.
#[derive(Debug)]
struct Conn {
    family: WsFamily,
    /// Frames waiting for the client (at most [`WsSettings::send_queue`]).
    out: VecDeque<Out>,
    peer: IpAddr,
    subs: Vec<Sub>,
    account: Option<AccountId>,
    /// A private push held back by the reorder fault.
    held: Option<String>,
    /// Public ticks seen.
    tick: u64,
    /// Swap positions last pushed as open: (instrument, side is long).
    positions: BTreeSet<(usize, bool)>,
    /// Failed `server.auth` attempts so far.
    auth_failures: u32,
    /// Banned after [`WsSettings::auth_failures`] failures: its frames go unanswered until it
    /// is dropped.
    banned: bool,
    /// Exchange time it opened (ms).
    opened_ms: i64,
    /// Exchange time of the client's last frame (ms).
    last_input_ms: i64,
    /// Exchange time it is to be dropped at (the auth ban, the swap channel cap), with the
    /// exchange's timers.
    drop_at: Option<i64>,
}

/// The open sockets (sessions) and their subscriptions, the websocket faults and counters.
///
/// DESIGN (timers): a session's timers (idle timeout, lifetime, the delayed drops of the auth
/// ban and the swap channel cap) and the public ticks run in exchange time, unless an adapter
/// keeps them on its own clock (`wall`: the server, whose clock may be frozen while sockets
/// must still time out and tick). Either way a session's frames leave in the order they were
/// made, a drop after them.
#[derive(Debug)]
pub(crate) struct Hub {
    conns: BTreeMap<u64, Conn>,
    /// Outputs left of dropped sessions (until read or closed).
    ended: BTreeMap<u64, VecDeque<Out>>,
    next_conn: u64,
    faults: Faults,
    accepted: u64,
    auth_kinds: VecDeque<&'static str>,
    settings: WsSettings,
    /// The adapter keeps the timers and the ticks (see the type's docs).
    wall: bool,
    /// Exchange time of the operation under way (ms).
    now: i64,
    /// Sessions given output since [`Hub::take_ready`] (with `wall` only).
    ready: BTreeSet<u64>,
    /// Exchange time of the next public tick while sessions are open (without `wall`).
    next_tick: Option<i64>,
}

/// Auth timestamp kinds remembered ([`Hub::auth_timestamp_kinds`]).
const AUTH_KINDS_KEPT: usize = 64;

/// A socket banned for failed auths is dropped this long after its last answer (so that the
/// answer is written first).
const AUTH_BAN_DROP: Duration = Duration::from_millis(100);

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Hub {
    /// A hub with no socket; `wall`: the adapter keeps the timers and ticks.
    pub(crate) fn new(settings: WsSettings, wall: bool) -> Hub {
        Hub {
            conns: BTreeMap::new(),
            ended: BTreeMap::new(),
            next_conn: 1,
            faults: Faults::default(),
            accepted: 0,
            auth_kinds: VecDeque::new(),
            settings,
            wall,
            now: 0,
            ready: BTreeSet::new(),
            next_tick: None,
        }
    }

    /// The exchange time of what follows.
    pub(crate) fn set_now(&mut self, now: i64) {
        self.now = now;
    }

    /// Arms `fault` for the next `count` events it applies to.
    pub(crate) fn fault(&mut self, fault: WsFault, count: u32) {
        let f = &mut self.faults;
        let counter = match fault {
            WsFault::DropDeltas => &mut f.drop_deltas,
            WsFault::DuplicatePrivate => &mut f.duplicate_private,
            WsFault::ReorderPrivate => &mut f.reorder_private,
            WsFault::PlainText => &mut f.plain_text,
            WsFault::Handshake502 => &mut f.handshake_502,
        };
        *counter = count;
    }

    /// Drops every open socket now (no close frame).
    pub(crate) fn disconnect_all(&mut self) {
        let ids: Vec<u64> = self.conns.keys().copied().collect();
        for id in ids {
            self.drop_conn(id, false);
        }
    }

    /// Open sockets.
    pub(crate) fn connections(&self) -> usize {
        self.conns.len()
    }

    /// Upgrades accepted so far.
    pub(crate) fn accepted(&self) -> u64 {
        self.accepted
    }

    /// The JSON type of each swap `server.auth` timestamp received (`number` or `string`), the
    /// latest 64.
    pub(crate) fn auth_timestamp_kinds(&self) -> Vec<&'static str> {
        self.auth_kinds.iter().copied().collect()
    }

    fn note_auth_kind(&mut self, kind: &'static str) {
        self.auth_kinds.push_back(kind);
        while self.auth_kinds.len() > AUTH_KINDS_KEPT {
            self.auth_kinds.pop_front();
        }
    }

    /// Queues a frame for socket `id`; a socket whose queue is full is dropped.
    fn send(&mut self, id: u64, frame: &J) {
        self.send_text(id, frame.to_json());
    }

    fn send_text(&mut self, id: u64, text: String) {
        let plain = Faults::take(&mut self.faults.plain_text);
        let out = if plain {
            Out::Text(text)
        } else {
            Out::Zlib(text)
        };
        self.queue(id, out);
    }

    /// Queues `out` for socket `id`; a full queue (the client does not read) drops the socket
    /// and what it had not read.
    fn queue(&mut self, id: u64, out: Out) {
        let cap = self.settings.send_queue.max(1);
        let Some(c) = self.conns.get_mut(&id) else {
            return;
        };
        if c.out.len() >= cap {
            self.drop_conn(id, true);
            return;
        }
        c.out.push_back(out);
        if self.wall {
            self.ready.insert(id);
        }
    }

    /// A private push, through the duplicate and reorder faults.
    fn send_private(&mut self, id: u64, frame: &J) {
        let text = frame.to_json();
        if Faults::take(&mut self.faults.duplicate_private) {
            self.send_text(id, text.clone());
            self.send_text(id, text);
        } else if self.conns.get(&id).is_some_and(|c| c.held.is_none())
            && Faults::take(&mut self.faults.reorder_private)
        {
            if let Some(c) = self.conns.get_mut(&id) {
                c.held = Some(text);
            }
        } else {
            self.send_text(id, text);
            if let Some(held) = self.conns.get_mut(&id).and_then(|c| c.held.take()) {
                self.send_text(id, held);
            }
        }
    }

    /// Drops socket `id` now: what it had queued stays for the client to read (unless
    /// `unread`: a full queue, whose frames the client never took), then [`Out::Dropped`].
    fn drop_conn(&mut self, id: u64, unread: bool) {
        if let Some(c) = self.conns.remove(&id) {
            let mut out = if unread { VecDeque::new() } else { c.out };
            out.push_back(Out::Dropped);
            self.ended.insert(id, out);
            if self.wall {
                self.ready.insert(id);
            }
        }
        if self.conns.is_empty() {
            self.next_tick = None;
        }
    }

    /// Counts a failed `server.auth` of socket `id`; at [`WsSettings::auth_failures`] the
    /// socket is banned and dropped shortly after (the failure's answer goes out first).
    fn auth_failed(&mut self, id: u64) {
        let max = self.settings.auth_failures;
        let Some(c) = self.conns.get_mut(&id) else {
            return;
        };
        c.auth_failures = c.auth_failures.saturating_add(1);
        if max > 0 && c.auth_failures >= max {
            c.banned = true;
            self.drop_later(id, AUTH_BAN_DROP);
        }
    }

    /// Drops socket `id` after `delay` (the auth ban, the swap channel cap).
    fn drop_later(&mut self, id: u64, delay: Duration) {
        if self.wall {
            self.queue(id, Out::DropAfter(delay));
        } else if let Some(c) = self.conns.get_mut(&id) {
            let at = self.now.saturating_add(ms(delay));
            c.drop_at = Some(c.drop_at.map_or(at, |t| t.min(at)));
        }
    }

    /// Sockets of `account` on `family` (ids, ascending).
    fn of_account(&self, family: WsFamily, account: AccountId) -> Vec<u64> {
        self.conns
            .iter()
            .filter(|(_, c)| c.family == family && c.account == Some(account))
            .map(|(id, _)| *id)
            .collect()
    }

    /// One tick of the public channels at `now`.
    pub(crate) fn tick(&mut self, st: &State, now: i64) {
        self.now = now;
        let ids: Vec<u64> = self.conns.keys().copied().collect();
        let depth = self.settings.spot_depth;
        for id in ids {
            let Some(c) = self.conns.get_mut(&id) else {
                continue;
            };
            c.tick += 1;
            let (family, tick) = (c.family, c.tick);
            let mut frames = Vec::new();
            let mut deltas = Vec::new();
            for sub in &mut c.subs {
                let out = match family {
                    WsFamily::Spot => spot::tick(st, sub, now, tick, depth),
                    WsFamily::Swap => swap::tick(st, sub, now, tick),
                };
                if let Some(frame) = out.delta {
                    deltas.push(frame);
                }
                frames.extend(out.frames);
            }
            for f in deltas {
                if !Faults::take(&mut self.faults.drop_deltas) {
                    self.send(id, &f);
                }
            }
            for f in frames {
                self.send(id, &f);
            }
        }
    }

    /// The private pushes of what changed, rendered at `now`.
    pub(crate) fn changed(&mut self, st: &State, changes: &Changes, now: i64) {
        if !self.conns.values().any(|c| c.account.is_some()) {
            return;
        }
        self.now = now;
        spot::changed(self, st, changes, now);
        swap::changed(self, st, changes, now);
    }

    /// Admits a socket of `family` from `peer` at `now`: its id, or why not.
    pub(crate) fn admit(
        &mut self,
        family: WsFamily,
        peer: IpAddr,
        now: i64,
    ) -> Result<u64, Refusal> {
        if Faults::take(&mut self.faults.handshake_502) {
            return Err(Refusal::Handshake502);
        }
        if self.conns.len() >= self.settings.max_connections.max(1) {
            return Err(Refusal::Full);
        }
        let id = self.next_conn;
        self.next_conn += 1;
        self.accepted += 1;
        self.conns.insert(
            id,
            Conn {
                family,
                out: VecDeque::new(),
                peer,
                subs: Vec::new(),
                account: None,
                held: None,
                tick: 0,
                positions: BTreeSet::new(),
                auth_failures: 0,
                banned: false,
                opened_ms: now,
                last_input_ms: now,
                drop_at: None,
            },
        );
        if !self.wall && self.next_tick.is_none() {
            self.next_tick = Some(now.saturating_add(ms(self.settings.tick).max(1)));
        }
        Ok(id)
    }

    /// One client frame of socket `id` at `now` (`None`: not UTF-8).
    pub(crate) fn input(&mut self, st: &State, id: u64, text: Option<&str>, now: i64) {
        self.now = now;
        let Some(c) = self.conns.get_mut(&id) else {
            return;
        };
        c.last_input_ms = now;
        if c.banned {
            // Banned: nothing is read, parsed or answered any more.
            return;
        }
        let family = c.family;
        let value: Option<serde_json::Value> = text.and_then(|t| serde_json::from_str(t).ok());
        match family {
            WsFamily::Spot => spot::request(self, st, id, value, now),
            WsFamily::Swap => swap::request(self, st, id, value, now),
        }
    }

    /// The next output of session `id` (`None`: nothing now, or the session is gone).
    pub(crate) fn poll(&mut self, id: u64) -> Option<Out> {
        if let Some(c) = self.conns.get_mut(&id) {
            return c.out.pop_front();
        }
        let out = self.ended.get_mut(&id)?;
        let next = out.pop_front();
        if out.is_empty() {
            self.ended.remove(&id);
        }
        next
    }

    /// Whether session `id` is open (not dropped or closed).
    pub(crate) fn is_open(&self, id: u64) -> bool {
        self.conns.contains_key(&id)
    }

    /// The client closed session `id` (or its connection ended): it is forgotten.
    pub(crate) fn close(&mut self, id: u64) {
        self.conns.remove(&id);
        self.ended.remove(&id);
        self.ready.remove(&id);
        if self.conns.is_empty() {
            self.next_tick = None;
        }
    }

    /// Sessions given output since the last call (with `wall`).
    pub(crate) fn take_ready(&mut self) -> Vec<u64> {
        let ready = std::mem::take(&mut self.ready);
        ready.into_iter().collect()
    }

    /// The exchange time of the next public tick (without `wall`, while sessions are open).
    pub(crate) fn next_tick(&self) -> Option<i64> {
        self.next_tick
    }

    /// The earliest timer of a session (idle, lifetime, a delayed drop), without `wall`.
    pub(crate) fn next_deadline(&self) -> Option<i64> {
        if self.wall {
            return None;
        }
        self.conns.values().filter_map(|c| self.deadline(c)).min()
    }

    fn deadline(&self, c: &Conn) -> Option<i64> {
        let idle = self
            .settings
            .idle_timeout
            .map(|d| c.last_input_ms.saturating_add(ms(d)));
        let life = self
            .settings
            .lifetime
            .map(|d| c.opened_ms.saturating_add(ms(d)));
        [idle, life, c.drop_at].into_iter().flatten().min()
    }

    /// Drops the sessions whose timer is due by `now` (without `wall`).
    pub(crate) fn expire(&mut self, now: i64) {
        if self.wall {
            return;
        }
        let due: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| self.deadline(c).is_some_and(|t| t <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            self.drop_conn(id, false);
        }
    }

    /// Runs the public tick due at `now` (without `wall`) and schedules the next.
    pub(crate) fn timed_tick(&mut self, st: &State, now: i64) {
        self.tick(st, now);
        let period = ms(self.settings.tick).max(1);
        self.next_tick = if self.conns.is_empty() {
            None
        } else {
            Some(now.saturating_add(period))
        };
    }
}

/// Why an upgrade is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// [`WsSettings::max_connections`] sockets are open: HTTP 503.
    Full,
    /// The handshake fault: HTTP 502.
    Handshake502,
}

/// What one subscription pushes at a tick: a depth delta (subject to the drop fault) and other
/// frames.
#[derive(Debug, Default)]
struct TickOut {
    delta: Option<J>,
    frames: Vec<J>,
}

/// The account of `key` when its signature over `ts` is right, the timestamp within
/// `behind`/`ahead` ms of `now`, the key alive and the caller allowed.
fn verify(
    st: &State,
    peer: IpAddr,
    (key, ts, sig): (&str, &str, &str),
    (behind, ahead): (i64, i64),
    now: i64,
) -> Option<AccountId> {
    let k = st.keys.get(key)?;
    if k.expires_at_ms.is_some_and(|t| now >= t) {
        return None;
    }
    if !k.ip_whitelist.is_empty() && !k.ip_whitelist.contains(&peer) {
        return None;
    }
    let t = crate::num::parse_int(ts)?;
    if now.saturating_sub(t) > behind || t.saturating_sub(now) > ahead {
        return None;
    }
    let want = ws_signature(&k.secret, ts);
    let ok: bool = want.len() == sig.len()
        && want
            .bytes()
            .zip(sig.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    ok.then_some(k.account)
}
