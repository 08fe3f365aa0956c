//! The spot (`/ws/v1/`) and swap (`/swap_ws/v2/`) websockets, served by the simulator's one
//! server on the same address as REST, over the same exchange: a depth snapshot is the REST
//! book of that instant, a pushed trade is a REST trade (same id), a ticker is the REST
//! ticker's figures ([`crate::ticker`]), and a private push renders the order, balance or
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
//!   simulator (see [`crate::server::is_loopback_host`]).
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

pub use codec::{base64, dec, diff, ws_signature, zlib, Window};

use crate::accounts::AccountId;
use crate::changes::Changes;
use crate::config::WsSettings;
use crate::exchange::{Exchange, Observer};
use crate::json::J;
use crate::state::State;
use futures_util::{SinkExt, StreamExt};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, Notify};
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;

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

/// A frame on its way to a socket.
#[derive(Debug)]
enum Out {
    /// Sent zlib-compressed in a binary frame.
    Zlib(String),
    /// Sent as a text frame (the plain-text fault).
    Text(String),
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
    tx: mpsc::Sender<Out>,
    kill: Arc<Notify>,
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
}

/// The open sockets and their subscriptions, the websocket faults and counters.
#[derive(Debug)]
pub struct Hub {
    conns: HashMap<u64, Conn>,
    next_conn: u64,
    faults: Faults,
    accepted: u64,
    auth_kinds: VecDeque<&'static str>,
    settings: WsSettings,
}

/// The hub shared by the server, the sockets, the observer and the control API.
pub type SharedHub = Arc<Mutex<Hub>>;

/// Auth timestamp kinds remembered ([`Hub::auth_timestamp_kinds`]).
const AUTH_KINDS_KEPT: usize = 64;

/// A socket banned for failed auths is dropped this long after its last answer (so that the
/// answer is written first).
const AUTH_BAN_DROP: Duration = Duration::from_millis(100);

/// Locks the hub (a poisoned lock is recovered). Lock order: the state first, then the hub;
/// never the state while holding the hub.
pub fn lock(hub: &SharedHub) -> MutexGuard<'_, Hub> {
    hub.lock().unwrap_or_else(|p| p.into_inner())
}

impl Hub {
    /// A hub with no socket.
    pub fn new(settings: WsSettings) -> SharedHub {
        Arc::new(Mutex::new(Hub {
            conns: HashMap::new(),
            next_conn: 1,
            faults: Faults::default(),
            accepted: 0,
            auth_kinds: VecDeque::new(),
            settings,
        }))
    }

    /// Arms `fault` for the next `count` events it applies to.
    pub fn fault(&mut self, fault: WsFault, count: u32) {
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
    pub fn disconnect_all(&mut self) {
        for c in self.conns.values() {
            c.kill.notify_one();
        }
        self.conns.clear();
    }

    /// Open sockets.
    pub fn connections(&self) -> usize {
        self.conns.len()
    }

    /// Upgrades accepted so far.
    pub fn accepted(&self) -> u64 {
        self.accepted
    }

    /// The JSON type of each swap `server.auth` timestamp received (`number` or `string`), the
    /// latest 64.
    pub fn auth_timestamp_kinds(&self) -> Vec<&'static str> {
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
        let Some(c) = self.conns.get(&id) else {
            return;
        };
        let out = if plain {
            Out::Text(text)
        } else {
            Out::Zlib(text)
        };
        if c.tx.try_send(out).is_err() {
            // Full (the client does not read) or closed: the socket goes.
            self.drop_conn(id);
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

    fn drop_conn(&mut self, id: u64) {
        if let Some(c) = self.conns.remove(&id) {
            c.kill.notify_one();
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

    /// Drops socket `id` after `delay` (the swap channel cap).
    fn drop_later(&mut self, id: u64, delay: Duration) {
        if let Some(c) = self.conns.get(&id) {
            let kill = c.kill.clone();
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                kill.notify_one();
            });
        }
    }

    /// Sockets of `account` on `family` (ids).
    fn of_account(&self, family: WsFamily, account: AccountId) -> Vec<u64> {
        let mut ids: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| c.family == family && c.account == Some(account))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// One tick of the public channels.
    fn tick(&mut self, st: &State, now: i64) {
        let mut ids: Vec<u64> = self.conns.keys().copied().collect();
        ids.sort_unstable();
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

    /// The private pushes of what changed.
    fn changed(&mut self, st: &State, changes: &Changes, now: i64) {
        if !self.conns.values().any(|c| c.account.is_some()) {
            return;
        }
        spot::changed(self, st, changes, now);
        swap::changed(self, st, changes, now);
    }
}

/// The observer that turns every change into private pushes (registered with
/// [`Exchange::observe`]).
pub fn observer(hub: SharedHub) -> Observer {
    Box::new(move |st, changes, now| lock(&hub).changed(st, &changes, now))
}

/// The public pushes, every [`WsSettings::tick`], while the exchange runs.
pub async fn tick_loop(exchange: Arc<Exchange>, hub: SharedHub) {
    let period = lock(&hub).settings.tick.max(Duration::from_millis(1));
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if lock(&hub).conns.is_empty() {
            continue;
        }
        let st = exchange.state();
        let now = exchange.clock.now_ms();
        lock(&hub).tick(&st, now);
        // The state guard goes after the hub's (the observer locks the hub).
        drop(st);
    }
}

/// Why an upgrade is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// [`WsSettings::max_connections`] sockets are open: HTTP 503.
    Full,
    /// The handshake fault: HTTP 502.
    Handshake502,
}

/// A socket admitted before its upgrade completes.
#[derive(Debug)]
pub struct Admitted {
    id: u64,
    family: WsFamily,
    rx: mpsc::Receiver<Out>,
    kill: Arc<Notify>,
    settings: WsSettings,
}

/// Admits a socket of `family` from `peer` (registered now, so the connection cap counts it
/// before the upgrade completes).
pub fn admit(hub: &SharedHub, family: WsFamily, peer: IpAddr) -> Result<Admitted, Refusal> {
    let mut h = lock(hub);
    if Faults::take(&mut h.faults.handshake_502) {
        return Err(Refusal::Handshake502);
    }
    if h.conns.len() >= h.settings.max_connections.max(1) {
        return Err(Refusal::Full);
    }
    let (tx, rx) = mpsc::channel(h.settings.send_queue.max(1));
    let kill = Arc::new(Notify::new());
    let id = h.next_conn;
    h.next_conn += 1;
    h.accepted += 1;
    h.conns.insert(
        id,
        Conn {
            family,
            tx,
            kill: kill.clone(),
            peer,
            subs: Vec::new(),
            account: None,
            held: None,
            tick: 0,
            positions: BTreeSet::new(),
            auth_failures: 0,
            banned: false,
        },
    );
    Ok(Admitted {
        id,
        family,
        rx,
        kill,
        settings: h.settings.clone(),
    })
}

/// Forgets an admitted socket whose upgrade failed.
pub fn abandon(hub: &SharedHub, admitted: Admitted) {
    lock(hub).conns.remove(&admitted.id);
}

/// Serves an upgraded socket until it ends: reads the client's frames, writes the queued
/// frames, and drops the connection (no close frame, 1006 on the client side, as the venue
/// does) on the idle timeout, the lifetime cap, a full queue or a kill.
pub async fn serve<S>(exchange: Arc<Exchange>, hub: SharedHub, admitted: Admitted, io: S)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let Admitted {
        id,
        family,
        mut rx,
        kill,
        settings,
    } = admitted;
    let config = WebSocketConfig::default()
        .max_message_size(Some(settings.max_message_bytes))
        .max_frame_size(Some(settings.max_message_bytes));
    let ws =
        tokio_tungstenite::WebSocketStream::from_raw_socket(io, Role::Server, Some(config)).await;
    let (mut sink, mut stream) = ws.split();
    let writer = async {
        while let Some(out) = rx.recv().await {
            let msg = match out {
                Out::Zlib(text) => Message::binary(zlib(text.as_bytes())),
                Out::Text(text) => Message::text(text),
            };
            if sink.send(msg).await.is_err() {
                return;
            }
        }
    };
    let far = Duration::from_secs(86_400 * 365);
    let idle = settings.idle_timeout.unwrap_or(far);
    let lifetime = tokio::time::sleep(settings.lifetime.unwrap_or(far));
    let reader = async {
        tokio::pin!(lifetime);
        loop {
            tokio::select! {
                _ = &mut lifetime => return,
                r = tokio::time::timeout(idle, stream.next()) => match r {
                    // Idle: no client frame in time.
                    Err(_) | Ok(None) | Ok(Some(Err(_))) => return,
                    Ok(Some(Ok(msg))) => match msg {
                        Message::Text(t) => on_frame(&exchange, &hub, id, family, Some(t.as_str())),
                        Message::Binary(b) => {
                            on_frame(&exchange, &hub, id, family, std::str::from_utf8(&b).ok())
                        }
                        Message::Close(_) => return,
                        _ => {}
                    },
                },
            }
        }
    };
    tokio::select! {
        _ = writer => {}
        _ = reader => {}
        _ = kill.notified() => {}
    }
    lock(&hub).conns.remove(&id);
}

/// One client frame.
fn on_frame(exchange: &Exchange, hub: &SharedHub, id: u64, family: WsFamily, text: Option<&str>) {
    if lock(hub).conns.get(&id).is_none_or(|c| c.banned) {
        // Banned (or gone): nothing is read, parsed or answered any more.
        return;
    }
    let value: Option<serde_json::Value> = text.and_then(|t| serde_json::from_str(t).ok());
    let st = exchange.state();
    let now = exchange.clock.now_ms();
    {
        let mut h = lock(hub);
        match family {
            WsFamily::Spot => spot::request(&mut h, &st, id, value, now),
            WsFamily::Swap => swap::request(&mut h, &st, id, value, now),
        }
    }
    drop(st);
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
