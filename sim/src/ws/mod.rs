//! The spot (`/ws/v1/`) and swap (`/swap_ws/v2/`) websockets on loopback, following the
//! checklist of `spec/websocket.md` §7 (issue 19).
//!
//! Written from the spec, independently of `digifinex-core`: its own JSON frames, zlib framing
//! (level 9, `78 DA`, one stream per frame), base64 and signature check.
//!
//! | § 7 | behaviour | here |
//! |---|---|---|
//! | 1 | binary zlib frames, one JSON each | always; [`WsSimHandle::plain_text`] sends text frames instead (fault) |
//! | 2 | no protocol pings from the server | none sent |
//! | 3 | drop (no close frame) 60 s after the last **client** frame | [`WsSimConfig::idle_timeout`] |
//! | 4 | lifetime cap 2 h | [`WsSimConfig::lifetime`] |
//! | 5 | swap: 31st channel drops the socket ~150 ms later, no reply | [`WsSimConfig::max_swap_channels`] |
//! | 6 | swap replies `{event,id,code,msg[,data]}` with the observed `msg` texts; no id → 2; non-JSON → `{"event":"","code":2,...}`; repeat → 5; unknown unsubscribe → 7 | yes |
//! | 7 | swap depth: `full_data:true` snapshot (best first), then changed levels only, 0 deletes, delta bids ascending, window kept at `level`, price string / size number | yes |
//! | 8 | swap trades: first push `full_data:true` | yes |
//! | 10-13 | spot replies `{id,result,error}`, pushes `{method,params,id:null}`, depth CLEAN=true snapshot with asks highest first then deltas with `"0"` deletes, trades newest first, error objects `{code,message}`, flat ticker `params` | yes |
//! | 14 | auth: spot `[key, ms-string, base64 HMAC]`, swap top-level, number or string timestamps | yes ([`WsSimHandle::auth_timestamp_kinds`] records which) |
//! | 15 | private pushes with cumulative `filled` / `filled_qty` | when orders, balances or positions change through the REST simulator (polled every tick); duplicate / reorder faults |
//! | 16 | handshake 502 | [`WsSimHandle::handshake_502`] |
//!
//! Also: [`WsSimHandle::drop_deltas`] (a silent gap), [`WsSimHandle::disconnect_all`] (TCP
//! drop), [`WsSimHandle::pause`] (the markets stop changing, so a test can compare books).
//!
//! DESIGN (unknowns decided): a private subscribe without targets (`[]` on spot, no
//! `instrument_id` on swap) covers every market; no snapshot is pushed on a private subscribe;
//! private channels count toward the swap cap of 30; a spot subscribe to a symbol already held is
//! acknowledged again (and re-sends the depth snapshot).

mod market;

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::Message;

use crate::accounts::{AccountId, AccountType};
use crate::control::Control;
pub use market::{diff, Level, Market, Side, Trade};

/// Which socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WsFamily {
    /// `/ws/v1/`.
    Spot,
    /// `/swap_ws/v2/`.
    Swap,
}

/// Settings of the websocket simulator.
#[derive(Debug, Clone)]
pub struct WsSimConfig {
    /// Listening address: `127.0.0.1:0`.
    pub addr: SocketAddr,
    /// Seed of the markets.
    pub seed: u64,
    /// Interval of market changes and pushes: 100 ms.
    pub tick: Duration,
    /// Drop a socket this long after the client's last frame: 60 s (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// Drop a socket this long after it opened: 2 h (`None`: never).
    pub lifetime: Option<Duration>,
    /// Channels one swap socket may hold; one more drops it: 30.
    pub max_swap_channels: usize,
    /// Levels of a spot depth snapshot: 30.
    pub spot_depth: usize,
}

impl Default for WsSimConfig {
    fn default() -> Self {
        WsSimConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            seed: 19,
            tick: Duration::from_millis(100),
            idle_timeout: Some(Duration::from_secs(60)),
            lifetime: Some(Duration::from_secs(2 * 3600)),
            max_swap_channels: 30,
            spot_depth: 30,
        }
    }
}

/// Fault counters: each is consumed by the next event it applies to.
#[derive(Debug, Default)]
struct Faults {
    drop_deltas: u32,
    duplicate_private: u32,
    reorder_private: u32,
    plain_text: u32,
    handshake_502: u32,
}

#[derive(Debug)]
enum Out {
    Frame(String),
    Kill,
}

#[derive(Debug, Clone, PartialEq)]
struct Sub {
    channel: String,
    target: Option<String>,
    level: Option<usize>,
    granularity: Option<String>,
    sent_bids: Side,
    sent_asks: Side,
    last_trade: u64,
}

impl Sub {
    fn same(&self, other: &Sub) -> bool {
        self.channel == other.channel
            && self.target == other.target
            && self.level == other.level
            && self.granularity == other.granularity
    }
}

/// What a connection last pushed of its account's private state, to push only changes.
#[derive(Debug, Default)]
struct Seen {
    baseline: bool,
    orders: HashMap<String, String>,
    balances: HashMap<String, String>,
    positions: HashMap<String, String>,
}

#[derive(Debug)]
struct Conn {
    family: WsFamily,
    tx: mpsc::UnboundedSender<Out>,
    subs: Vec<Sub>,
    account: Option<AccountId>,
    seen: Seen,
    /// A private push held back by the reorder fault.
    held: Option<String>,
    tick: u64,
}

#[derive(Debug)]
struct Hub {
    config: WsSimConfig,
    control: Option<Control>,
    markets: HashMap<(WsFamily, String), Market>,
    conns: HashMap<u64, Conn>,
    next_conn: u64,
    faults: Faults,
    paused: bool,
    accepted: u64,
    auth_kinds: Vec<&'static str>,
    started: Instant,
    epoch_ms: i64,
}

impl Hub {
    fn now_ms(&self) -> i64 {
        match &self.control {
            Some(c) => c.now_ms(),
            None => self
                .epoch_ms
                .saturating_add(i64::try_from(self.started.elapsed().as_millis()).unwrap_or(0)),
        }
    }

    /// Sends a frame to a connection (zlib binary unless the plain-text fault applies).
    fn send(&mut self, conn: u64, value: &Value) {
        let text = value.to_string();
        if let Some(c) = self.conns.get(&conn) {
            let _ = c.tx.send(Out::Frame(text));
        }
    }

    fn market(&mut self, family: WsFamily, target: &str) -> &mut Market {
        let seed = self.config.seed;
        self.markets
            .entry((family, target.to_owned()))
            .or_insert_with(|| Market::new(seed, target, family == WsFamily::Swap))
    }

    fn known_target(&self, family: WsFamily, target: &str) -> bool {
        let shape = match family {
            WsFamily::Spot => target.contains('_'),
            WsFamily::Swap => target.ends_with("PERP") && !target.contains('_'),
        };
        shape
            && match &self.control {
                Some(c) => match family {
                    WsFamily::Spot => c.has_spot_market(target),
                    WsFamily::Swap => c.has_swap_instrument(target),
                },
                None => true,
            }
    }
}

type SharedHub = Arc<Mutex<Hub>>;

fn lock(hub: &SharedHub) -> MutexGuard<'_, Hub> {
    hub.lock().unwrap_or_else(|p| p.into_inner())
}

/// The websocket simulator.
#[derive(Debug)]
pub struct WsSim;

impl WsSim {
    /// Serves both sockets on a background thread; `control` links them to a REST simulator
    /// (keys for `server.auth`, markets, and private pushes when its state changes).
    pub fn start(config: WsSimConfig, control: Option<Control>) -> std::io::Result<WsSimHandle> {
        let std_listener = std::net::TcpListener::bind(config.addr)?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let epoch_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(0))
            .unwrap_or(0);
        let hub = Arc::new(Mutex::new(Hub {
            config,
            control,
            markets: HashMap::new(),
            conns: HashMap::new(),
            next_conn: 1,
            faults: Faults::default(),
            paused: false,
            accepted: 0,
            auth_kinds: Vec::new(),
            started: Instant::now(),
            epoch_ms,
        }));
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let h = hub.clone();
        let thread = std::thread::Builder::new()
            .name("digifinex-sim-ws".to_owned())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                rt.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(std_listener) else {
                        return;
                    };
                    let ticker = tokio::spawn(tick_loop(h.clone()));
                    tokio::select! {
                        _ = accept_loop(h, listener) => {}
                        _ = stop_rx => {}
                    }
                    ticker.abort();
                });
            })?;
        Ok(WsSimHandle {
            addr,
            hub,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }
}

/// A running websocket simulator; dropping it stops it.
#[derive(Debug)]
pub struct WsSimHandle {
    addr: SocketAddr,
    hub: SharedHub,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WsSimHandle {
    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `ws://ADDR/ws/v1/`.
    pub fn spot_url(&self) -> String {
        format!("ws://{}/ws/v1/", self.addr)
    }

    /// `ws://ADDR/swap_ws/v2/`.
    pub fn swap_url(&self) -> String {
        format!("ws://{}/swap_ws/v2/", self.addr)
    }

    /// The next `n` depth deltas (any socket) are not sent (a silent gap).
    pub fn drop_deltas(&self, n: u32) {
        lock(&self.hub).faults.drop_deltas = n;
    }

    /// The next `n` private pushes are sent twice.
    pub fn duplicate_private(&self, n: u32) {
        lock(&self.hub).faults.duplicate_private = n;
    }

    /// The next `n` private pushes are held back and sent after the push that follows them.
    pub fn reorder_private(&self, n: u32) {
        lock(&self.hub).faults.reorder_private = n;
    }

    /// The next `n` frames are sent as plain text frames instead of zlib binary frames.
    pub fn plain_text(&self, n: u32) {
        lock(&self.hub).faults.plain_text = n;
    }

    /// The next `n` upgrades are answered with HTTP 502.
    pub fn handshake_502(&self, n: u32) {
        lock(&self.hub).faults.handshake_502 = n;
    }

    /// Drops every open socket now (no close frame).
    pub fn disconnect_all(&self) {
        let hub = lock(&self.hub);
        for c in hub.conns.values() {
            let _ = c.tx.send(Out::Kill);
        }
    }

    /// Stops (or restarts) the market changes; replies and private pushes go on.
    pub fn pause(&self, paused: bool) {
        lock(&self.hub).paused = paused;
    }

    /// Open sockets.
    pub fn connections(&self) -> usize {
        lock(&self.hub).conns.len()
    }

    /// Upgrades accepted so far.
    pub fn accepted(&self) -> u64 {
        lock(&self.hub).accepted
    }

    /// The JSON type of each swap `server.auth` timestamp received (`number` or `string`).
    pub fn auth_timestamp_kinds(&self) -> Vec<&'static str> {
        lock(&self.hub).auth_kinds.clone()
    }

    /// The best `depth` levels of a market as streamed: bids best first, asks best first.
    pub fn book(&self, family: WsFamily, target: &str, depth: usize) -> (Vec<Level>, Vec<Level>) {
        let mut hub = lock(&self.hub);
        let (b, a) = hub
            .market(family, &target.to_ascii_uppercase())
            .window(depth);
        (b.into_iter().rev().collect(), a.into_iter().collect())
    }
}

impl Drop for WsSimHandle {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn accept_loop(hub: SharedHub, listener: tokio::net::TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve(hub.clone(), stream));
    }
}

async fn serve(hub: SharedHub, stream: tokio::net::TcpStream) {
    let mut family = None;
    let h = hub.clone();
    // The callback's error type is tungstenite's.
    #[allow(clippy::result_large_err)]
    let callback = |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        let mut hub = lock(&h);
        if hub.faults.handshake_502 > 0 {
            hub.faults.handshake_502 -= 1;
            let mut e = ErrorResponse::new(Some("502 Bad Gateway".to_owned()));
            *e.status_mut() = http::StatusCode::BAD_GATEWAY;
            return Err(e);
        }
        family = match req.uri().path().trim_end_matches('/') {
            "/ws/v1" => Some(WsFamily::Spot),
            "/swap_ws/v2" => Some(WsFamily::Swap),
            _ => None,
        };
        if family.is_none() {
            let mut e = ErrorResponse::new(Some("not found".to_owned()));
            *e.status_mut() = http::StatusCode::NOT_FOUND;
            return Err(e);
        }
        Ok(resp)
    };
    let Ok(ws) = tokio_tungstenite::accept_hdr_async(stream, callback).await else {
        return;
    };
    let Some(family) = family else { return };
    let (tx, mut rx) = mpsc::unbounded_channel::<Out>();
    let (idle, lifetime, id) = {
        let mut hub = lock(&hub);
        hub.accepted += 1;
        let id = hub.next_conn;
        hub.next_conn += 1;
        hub.conns.insert(
            id,
            Conn {
                family,
                tx: tx.clone(),
                subs: Vec::new(),
                account: None,
                seen: Seen::default(),
                held: None,
                tick: 0,
            },
        );
        (hub.config.idle_timeout, hub.config.lifetime, id)
    };
    let (mut sink, mut stream) = ws.split();
    let h = hub.clone();
    let writer = async move {
        while let Some(out) = rx.recv().await {
            match out {
                Out::Kill => break,
                Out::Frame(text) => {
                    let plain = {
                        let mut hub = lock(&h);
                        if hub.faults.plain_text > 0 {
                            hub.faults.plain_text -= 1;
                            true
                        } else {
                            false
                        }
                    };
                    let msg = if plain {
                        Message::text(text)
                    } else {
                        Message::binary(zlib(text.as_bytes()))
                    };
                    if sink.send(msg).await.is_err() {
                        break;
                    }
                }
            }
        }
    };
    let far = Duration::from_secs(86_400 * 365);
    let lifetime_end = tokio::time::sleep(lifetime.unwrap_or(far));
    let reader = async {
        tokio::pin!(lifetime_end);
        loop {
            let next = tokio::time::timeout(idle.unwrap_or(far), stream.next());
            tokio::select! {
                _ = &mut lifetime_end => return,
                r = next => match r {
                    // Idle: no client frame in time.
                    Err(_) => return,
                    Ok(None) | Ok(Some(Err(_))) => return,
                    Ok(Some(Ok(msg))) => match msg {
                        Message::Text(t) => on_client_frame(&hub, id, family, Some(t.as_str())),
                        Message::Binary(b) => on_client_frame(
                            &hub, id, family, std::str::from_utf8(&b).ok(),
                        ),
                        Message::Close(_) => return,
                        _ => {}
                    },
                },
            }
        }
    };
    // Whichever ends first ends the socket: dropping both halves closes TCP without a close
    // frame (1006 on the client side), as the venue does.
    tokio::select! {
        _ = writer => {}
        _ = reader => {}
    }
    lock(&hub).conns.remove(&id);
}

/// One zlib stream at level 9 (`78 DA`).
pub fn zlib(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(bytes, 9)
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |n: u32, shift: u32| {
        let i = u8::try_from((n >> shift) & 63)
            .map(usize::from)
            .unwrap_or(0);
        char::from(A.get(i).copied().unwrap_or(b'='))
    };
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let b = |i: usize| u32::from(c.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(n, 18));
        out.push(sym(n, 12));
        out.push(if c.len() > 1 { sym(n, 6) } else { '=' });
        out.push(if c.len() > 2 { sym(n, 0) } else { '=' });
    }
    out
}

/// The websocket signature: base64 of HMAC-SHA256(secret, timestamp text).
pub fn ws_signature(secret: &str, timestamp: &str) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    match Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mut mac) => {
            mac.update(timestamp.as_bytes());
            base64(&mac.finalize().into_bytes())
        }
        Err(_) => String::new(),
    }
}

fn on_client_frame(hub: &SharedHub, id: u64, family: WsFamily, text: Option<&str>) {
    let mut hub = lock(hub);
    let value: Option<Value> = text.and_then(|t| serde_json::from_str(t).ok());
    match family {
        WsFamily::Spot => spot_request(&mut hub, id, value),
        WsFamily::Swap => swap_request(&mut hub, id, value),
    }
}

const SPOT_CHANNELS: [&str; 7] = [
    "trades",
    "depth",
    "ticker",
    "all_ticker",
    "order",
    "order_algo",
    "balance",
];
const SWAP_CHANNELS: [&str; 14] = [
    "ticker",
    "all_ticker",
    "depth",
    "trades",
    "cur_candle",
    "index_price",
    "mark_price",
    "mark_candle",
    "price_range",
    "fund_rate",
    "estimated_settle_price",
    "account",
    "position",
    "order",
];

fn is_private(channel: &str) -> bool {
    matches!(
        channel,
        "order" | "order_algo" | "balance" | "account" | "position"
    )
}

fn new_sub(channel: &str, target: Option<String>, level: Option<usize>) -> Sub {
    Sub {
        channel: channel.to_owned(),
        target,
        level,
        granularity: None,
        sent_bids: Side::new(),
        sent_asks: Side::new(),
        last_trade: 0,
    }
}

fn spot_error(id: &Value, code: i64, message: &str) -> Value {
    json!({"id": id, "result": null, "error": {"code": code, "message": message}})
}

fn spot_request(hub: &mut Hub, conn: u64, value: Option<Value>) {
    let Some(v) = value.filter(Value::is_object) else {
        let e = spot_error(&Value::Null, 1, "invalid argument");
        hub.send(conn, &e);
        return;
    };
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    let method = v.get("method").and_then(Value::as_str).unwrap_or("");
    let params: Vec<Value> = v
        .get("params")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ok = json!({"error": null, "result": {"status": "success"}, "id": id});
    match method {
        "server.ping" => hub.send(conn, &json!({"error": null, "result": "pong", "id": id})),
        "server.time" => {
            let secs = hub.now_ms() / 1000;
            hub.send(conn, &json!({"error": null, "result": secs, "id": id}));
        }
        "server.auth" => {
            let texts: Vec<&str> = params.iter().filter_map(Value::as_str).collect();
            let account = match texts.as_slice() {
                [key, ts, sig] => verify(hub, key, ts, sig),
                _ => None,
            };
            match account {
                Some(a) => {
                    if let Some(c) = hub.conns.get_mut(&conn) {
                        c.account = Some(a);
                    }
                    hub.send(conn, &ok);
                }
                None => {
                    let e = spot_error(&id, 3, "auth fail");
                    hub.send(conn, &e);
                }
            }
        }
        m => {
            let Some((channel, verb)) = m.rsplit_once('.') else {
                let e = spot_error(&id, 4, "method not found");
                hub.send(conn, &e);
                return;
            };
            if !SPOT_CHANNELS.contains(&channel) || !matches!(verb, "subscribe" | "unsubscribe") {
                let e = spot_error(&id, 4, "method not found");
                hub.send(conn, &e);
                return;
            }
            let authed = hub.conns.get(&conn).is_some_and(|c| c.account.is_some());
            if is_private(channel) && !authed {
                let e = spot_error(&id, 6, "need auth");
                hub.send(conn, &e);
                return;
            }
            let targets: Vec<String> = params
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_uppercase)
                .collect();
            if verb == "unsubscribe" {
                if let Some(c) = hub.conns.get_mut(&conn) {
                    c.subs.retain(|s| {
                        s.channel != channel
                            || !(targets.is_empty()
                                || s.target.as_ref().is_some_and(|t| targets.contains(t)))
                    });
                }
                hub.send(conn, &ok);
                return;
            }
            let market_channel = matches!(channel, "trades" | "depth" | "ticker");
            if (market_channel && targets.is_empty())
                || (channel != "balance"
                    && targets.iter().any(|t| !hub.known_target(WsFamily::Spot, t)))
            {
                let e = spot_error(&id, 1, "invalid argument");
                hub.send(conn, &e);
                return;
            }
            let mut added = Vec::new();
            let list: Vec<Option<String>> = if targets.is_empty() {
                vec![None]
            } else {
                targets.into_iter().map(Some).collect()
            };
            if let Some(c) = hub.conns.get_mut(&conn) {
                for t in list {
                    let sub = new_sub(channel, t, None);
                    c.subs.retain(|s| !s.same(&sub));
                    c.subs.push(sub.clone());
                    added.push(sub);
                }
            }
            hub.send(conn, &ok);
            for sub in added {
                first_push(hub, conn, WsFamily::Spot, &sub);
            }
        }
    }
}

fn swap_reply(event: &str, id: &Value, code: i64, msg: &str) -> Value {
    json!({"event": event, "id": id, "code": code, "msg": msg})
}

fn swap_request(hub: &mut Hub, conn: u64, value: Option<Value>) {
    let Some(v) = value.filter(Value::is_object) else {
        hub.send(
            conn,
            &json!({"event": "", "code": 2, "msg": "invalid param"}),
        );
        return;
    };
    let event = v
        .get("event")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let Some(id) = v.get("id").filter(|i| i.is_u64()).cloned() else {
        let r = json!({"event": event, "code": 2, "msg": "invalid param"});
        hub.send(conn, &r);
        return;
    };
    match event.as_str() {
        "server.ping" => {
            let mut r = swap_reply(&event, &id, 1, "success");
            r["data"] = json!("pong");
            hub.send(conn, &r);
        }
        "server.time" => {
            let mut r = swap_reply(&event, &id, 1, "success");
            r["data"] = json!(hub.now_ms());
            hub.send(conn, &r);
        }
        "server.auth" => {
            let key = v.get("apikey").and_then(Value::as_str).unwrap_or("");
            let sig = v.get("signature").and_then(Value::as_str).unwrap_or("");
            let ts = match v.get("timestamp") {
                Some(Value::Number(n)) => {
                    hub.auth_kinds.push("number");
                    n.to_string()
                }
                Some(Value::String(s)) => {
                    hub.auth_kinds.push("string");
                    s.clone()
                }
                _ => String::new(),
            };
            if hub.conns.get(&conn).is_some_and(|c| c.account.is_some()) {
                let r = swap_reply(&event, &id, 9, "repeat auth");
                hub.send(conn, &r);
                return;
            }
            match verify(hub, key, &ts, sig) {
                Some(a) => {
                    if let Some(c) = hub.conns.get_mut(&conn) {
                        c.account = Some(a);
                    }
                    let r = swap_reply(&event, &id, 1, "success");
                    hub.send(conn, &r);
                }
                None => {
                    let r = swap_reply(&event, &id, 3, "auth fail");
                    hub.send(conn, &r);
                }
            }
        }
        e => {
            let Some((channel, verb)) = e.rsplit_once('.') else {
                let r = swap_reply(e, &id, 2, "invalid param");
                hub.send(conn, &r);
                return;
            };
            if !SWAP_CHANNELS.contains(&channel) || !matches!(verb, "subscribe" | "unsubscribe") {
                let r = swap_reply(e, &id, 2, "invalid param");
                hub.send(conn, &r);
                return;
            }
            let authed = hub.conns.get(&conn).is_some_and(|c| c.account.is_some());
            if is_private(channel) && !authed {
                let r = swap_reply(e, &id, 4, "need auth");
                hub.send(conn, &r);
                return;
            }
            let mut targets: Vec<String> = Vec::new();
            if let Some(t) = v.get("instrument_id").and_then(Value::as_str) {
                targets.push(t.to_owned());
            }
            if let Some(list) = v.get("instrument_ids").and_then(Value::as_array) {
                targets.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            let needs_target = !matches!(channel, "all_ticker" | "account" | "order" | "position");
            if (needs_target && targets.is_empty())
                || targets.iter().any(|t| !hub.known_target(WsFamily::Swap, t))
            {
                let r = swap_reply(e, &id, 2, "invalid param");
                hub.send(conn, &r);
                return;
            }
            let level = if channel == "depth" {
                match v.get("level").and_then(Value::as_u64) {
                    Some(l @ (10 | 20 | 100)) => usize::try_from(l).ok(),
                    _ => {
                        let r = swap_reply(e, &id, 2, "invalid param");
                        hub.send(conn, &r);
                        return;
                    }
                }
            } else {
                None
            };
            let granularity = v
                .get("granularity")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let list: Vec<Option<String>> = if targets.is_empty() {
                vec![None]
            } else {
                targets.into_iter().map(Some).collect()
            };
            let wanted: Vec<Sub> = list
                .into_iter()
                .map(|t| Sub {
                    granularity: granularity.clone(),
                    ..new_sub(channel, t, level)
                })
                .collect();
            let max = hub.config.max_swap_channels;
            let Some(c) = hub.conns.get_mut(&conn) else {
                return;
            };
            if verb == "unsubscribe" {
                let before = c.subs.len();
                c.subs.retain(|s| !wanted.iter().any(|w| w.same(s)));
                let (code, msg) = if c.subs.len() < before {
                    (1, "success")
                } else {
                    (7, "unsubscribe fail")
                };
                let r = swap_reply(e, &id, code, msg);
                hub.send(conn, &r);
                return;
            }
            if wanted.iter().any(|w| c.subs.iter().any(|s| s.same(w))) {
                let r = swap_reply(e, &id, 5, "repeat subscribe");
                hub.send(conn, &r);
                return;
            }
            if c.subs.len().saturating_add(wanted.len()) > max {
                // The venue drops the socket ~150 ms later without a reply.
                let tx = c.tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    let _ = tx.send(Out::Kill);
                });
                return;
            }
            c.subs.extend(wanted.iter().cloned());
            let r = swap_reply(e, &id, 1, "success");
            hub.send(conn, &r);
            for sub in wanted {
                first_push(hub, conn, WsFamily::Swap, &sub);
            }
        }
    }
}

/// The account of a key whose signature over `ts` is right.
fn verify(hub: &Hub, key: &str, ts: &str, sig: &str) -> Option<AccountId> {
    let (account, secret) = match &hub.control {
        Some(c) => c.key_account(key)?,
        // Without a REST simulator any key is an account of its own, with secret "secret".
        None => (1, "secret".to_owned()),
    };
    let want = ws_signature(&secret, ts);
    (!ts.is_empty() && want.as_bytes() == sig.as_bytes()).then_some(account)
}

fn dec(d: Decimal) -> Value {
    Value::String(d.normalize().to_string())
}

fn level_json(family: WsFamily, (p, s): (&Decimal, &Decimal)) -> Value {
    match family {
        WsFamily::Spot => json!([dec(*p), dec(*s)]),
        WsFamily::Swap => json!([dec(*p), s.to_i64().unwrap_or(0)]),
    }
}

/// What a subscription gets right after its acknowledgement: the depth snapshot, the recent
/// trades, the funding rate.
fn first_push(hub: &mut Hub, conn: u64, family: WsFamily, sub: &Sub) {
    let Some(target) = sub.target.clone() else {
        return;
    };
    let now = hub.now_ms();
    let spot_depth = hub.config.spot_depth;
    match sub.channel.as_str() {
        "depth" => {
            let depth = sub.level.unwrap_or(spot_depth);
            let (bids, asks) = hub.market(family, &target).window(depth);
            let frame = match family {
                // Spot: asks highest first, as the venue lists them.
                WsFamily::Spot => json!({
                    "method": "depth.update",
                    "params": [true, {
                        "asks": asks.iter().rev().map(|l| level_json(family, l)).collect::<Vec<_>>(),
                        "bids": bids.iter().rev().map(|l| level_json(family, l)).collect::<Vec<_>>(),
                    }, target],
                    "id": null,
                }),
                WsFamily::Swap => json!({
                    "event": "depth.update",
                    "data": {
                        "instrument_id": target,
                        "level": depth,
                        "timestamp": now,
                        "asks": asks.iter().map(|l| level_json(family, l)).collect::<Vec<_>>(),
                        "bids": bids.iter().rev().map(|l| level_json(family, l)).collect::<Vec<_>>(),
                    },
                    "full_data": true,
                }),
            };
            if let Some(s) = hub
                .conns
                .get_mut(&conn)
                .and_then(|c| c.subs.iter_mut().find(|s| s.same(sub)))
            {
                s.sent_bids = bids;
                s.sent_asks = asks;
            }
            hub.send(conn, &frame);
        }
        "trades" => {
            let trades: Vec<Trade> = hub.market(family, &target).trades.iter().cloned().collect();
            let last = trades.last().map_or(0, |t| t.id);
            if let Some(s) = hub
                .conns
                .get_mut(&conn)
                .and_then(|c| c.subs.iter_mut().find(|s| s.same(sub)))
            {
                s.last_trade = last;
            }
            let frame = trades_frame(family, &target, &trades, true);
            hub.send(conn, &frame);
        }
        "fund_rate" => {
            let f = json!({"event": "fund_rate.update", "data": {
                "instrument_id": target, "funding_rate": "0.0001",
                "funding_time": now - now.rem_euclid(28_800_000) + 28_800_000,
                "next_funding_rate": "-3e-05",
                "next_funding_time": now - now.rem_euclid(28_800_000) + 57_600_000,
            }});
            hub.send(conn, &f);
        }
        _ => {}
    }
}

fn trades_frame(family: WsFamily, target: &str, trades: &[Trade], clean: bool) -> Value {
    match family {
        WsFamily::Spot => {
            let list: Vec<Value> = trades
                .iter()
                .rev()
                .map(|t| {
                    json!({
                        "id": t.id,
                        "time": serde_json::Number::from_f64(t.time_ms as f64 / 1000.0)
                            .map_or(Value::Null, Value::Number),
                        "price": dec(t.price),
                        "amount": dec(t.amount),
                        "type": if t.buy { "buy" } else { "sell" },
                    })
                })
                .collect();
            json!({"method": "trades.update", "params": [clean, list, target], "id": null})
        }
        WsFamily::Swap => {
            let list: Vec<Value> = trades
                .iter()
                .map(|t| {
                    json!({
                        "instrument_id": target,
                        "trade_id": (t.id * 1_000_003).to_string(),
                        "direction": if t.buy { "1" } else { "2" },
                        "volume": dec(t.amount),
                        "price": dec(t.price),
                        "trade_time": t.time_ms,
                    })
                })
                .collect();
            let mut v = json!({"event": "trades.update", "data": list});
            if clean {
                v["full_data"] = json!(true);
            }
            v
        }
    }
}

async fn tick_loop(hub: SharedHub) {
    let tick = lock(&hub).config.tick;
    let mut interval = tokio::time::interval(tick);
    loop {
        interval.tick().await;
        let mut h = lock(&hub);
        tick_once(&mut h);
    }
}

fn tick_once(hub: &mut Hub) {
    let now = hub.now_ms();
    // Markets somebody watches change.
    let watched: HashSet<(WsFamily, String)> = hub
        .conns
        .values()
        .flat_map(|c| {
            c.subs
                .iter()
                .filter_map(move |s| s.target.clone().map(|t| (c.family, t)))
        })
        .collect();
    if !hub.paused {
        for key in &watched {
            let seed = hub.config.seed;
            hub.markets
                .entry(key.clone())
                .or_insert_with(|| Market::new(seed, &key.1, key.0 == WsFamily::Swap))
                .step(now);
        }
    }
    let spot_depth = hub.config.spot_depth;
    let ids: Vec<u64> = hub.conns.keys().copied().collect();
    for id in ids {
        let Some(c) = hub.conns.get_mut(&id) else {
            continue;
        };
        c.tick += 1;
        let tick_no = c.tick;
        let family = c.family;
        let subs = c.subs.clone();
        let mut frames = Vec::new();
        let mut updated = Vec::new();
        for sub in subs {
            let Some(target) = sub.target.clone() else {
                if sub.channel == "all_ticker" && tick_no % 20 == 0 && !hub.paused {
                    let rows: Vec<Value> = hub
                        .markets
                        .iter()
                        .filter(|((f, _), _)| *f == family)
                        .map(|((_, t), m)| ticker_json(family, t, m, now))
                        .collect();
                    frames.push(match family {
                        WsFamily::Spot => {
                            json!({"method": "all_ticker.update", "params": rows, "id": null})
                        }
                        WsFamily::Swap => json!({"event": "all_ticker.update", "data": rows}),
                    });
                }
                continue;
            };
            if hub.paused {
                continue;
            }
            let Some(m) = hub.markets.get(&(family, target.clone())) else {
                continue;
            };
            match sub.channel.as_str() {
                "depth" => {
                    let depth = sub.level.unwrap_or(spot_depth);
                    let (bids, asks) = m.window(depth);
                    let db = diff(&sub.sent_bids, &bids);
                    let da = diff(&sub.sent_asks, &asks);
                    if db.is_empty() && da.is_empty() {
                        continue;
                    }
                    let lv = |l: &(Decimal, Decimal)| level_json(family, (&l.0, &l.1));
                    let frame = match family {
                        WsFamily::Spot => json!({
                            "method": "depth.update",
                            "params": [false, {
                                "asks": da.iter().map(lv).collect::<Vec<_>>(),
                                "bids": db.iter().map(lv).collect::<Vec<_>>(),
                            }, target],
                            "id": null,
                        }),
                        WsFamily::Swap => json!({
                            "event": "depth.update",
                            "data": {
                                "instrument_id": target,
                                "level": depth,
                                "timestamp": now,
                                "asks": da.iter().map(lv).collect::<Vec<_>>(),
                                // Ascending (worst first), as observed.
                                "bids": db.iter().map(lv).collect::<Vec<_>>(),
                            },
                        }),
                    };
                    updated.push((sub.clone(), Some((bids, asks)), None));
                    if hub.faults.drop_deltas > 0 {
                        hub.faults.drop_deltas -= 1;
                    } else {
                        frames.push(frame);
                    }
                }
                "trades" => {
                    let new: Vec<Trade> = m
                        .trades
                        .iter()
                        .filter(|t| t.id > sub.last_trade)
                        .cloned()
                        .collect();
                    if let Some(last) = new.last() {
                        updated.push((sub.clone(), None, Some(last.id)));
                        frames.push(trades_frame(family, &target, &new, false));
                    }
                }
                "ticker" if tick_no % 2 == 0 => {
                    let row = ticker_json(family, &target, m, now);
                    frames.push(match family {
                        WsFamily::Spot => {
                            json!({"method": "ticker.update", "params": [row], "id": null})
                        }
                        WsFamily::Swap => json!({"event": "ticker.update", "data": row}),
                    });
                }
                "index_price" | "mark_price" if tick_no % 5 == 0 => {
                    let mut data = json!({"instrument_id": target, "timestamp": now});
                    data[sub.channel.as_str()] = dec(m.mid());
                    frames.push(json!({"event": format!("{}.update", sub.channel), "data": data}));
                }
                _ => {}
            }
        }
        if let Some(c) = hub.conns.get_mut(&id) {
            for (sub, window, last_trade) in updated {
                if let Some(s) = c.subs.iter_mut().find(|s| s.same(&sub)) {
                    if let Some((b, a)) = window {
                        s.sent_bids = b;
                        s.sent_asks = a;
                    }
                    if let Some(t) = last_trade {
                        s.last_trade = t;
                    }
                }
            }
        }
        for f in frames {
            hub.send(id, &f);
        }
        private_pushes(hub, id, now);
    }
}

fn ticker_json(family: WsFamily, target: &str, m: &Market, now: i64) -> Value {
    let (bid, ask) = m.top();
    let last = m.last().map_or(m.mid(), |t| t.price);
    let qty = m.last().map_or(Decimal::ZERO, |t| t.amount);
    let p = |x: Option<(Decimal, Decimal)>| x.map_or(Value::Null, |(p, _)| dec(p));
    let s = |x: Option<(Decimal, Decimal)>| x.map_or(Value::Null, |(_, s)| dec(s));
    match family {
        WsFamily::Spot => json!({
            "symbol": target, "open_24h": dec(m.mid()), "high_24h": p(ask), "low_24h": p(bid),
            "base_volume_24h": "1234.5", "quote_volume_24h": "43929883.5",
            "last": dec(last), "last_qty": dec(qty),
            "best_bid": p(bid), "best_bid_size": s(bid), "best_ask": p(ask), "best_ask_size": s(ask),
            "timestamp": now,
        }),
        WsFamily::Swap => json!({
            "instrument_id": target, "best_bid": p(bid), "best_bid_size": s(bid),
            "best_ask": p(ask), "best_ask_size": s(ask), "high_24h": p(ask), "open_24h": dec(m.mid()),
            "low_24h": p(bid), "last": dec(last), "last_qty": dec(qty),
            "volume_24h": "127958869", "volume_token_24h": "127958.869", "open_interest": "-",
            "timestamp": now,
        }),
    }
}

/// Pushes what changed in the connection's account since the last tick (orders, balances,
/// positions), on the private channels it holds.
fn private_pushes(hub: &mut Hub, id: u64, now: i64) {
    let Some(control) = hub.control.clone() else {
        return;
    };
    let Some(c) = hub.conns.get(&id) else { return };
    let Some(account) = c.account else { return };
    let family = c.family;
    let wants = |ch: &str, target: Option<&str>| {
        c.subs.iter().any(|s| {
            s.channel == ch
                && match (&s.target, target) {
                    (None, _) => true,
                    (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                    (Some(_), None) => false,
                }
        })
    };
    let mut orders = Vec::new();
    let mut balances = Vec::new();
    let mut positions = Vec::new();
    let mut seen_orders = HashMap::new();
    let mut seen_bal = HashMap::new();
    let mut seen_pos = HashMap::new();
    match family {
        WsFamily::Spot => {
            for o in control.orders(account) {
                let side = if o.order_type.starts_with("buy") {
                    "buy"
                } else {
                    "sell"
                };
                let kind = if o.order_type.ends_with("market") {
                    "market"
                } else {
                    "limit"
                };
                let row = json!({
                    "id": o.order_id, "symbol": o.symbol.to_ascii_uppercase(), "side": side,
                    "type": kind, "mode": if o.kind == "margin" { 2 } else { 1 },
                    "amount": dec(o.amount), "price": dec(o.price), "filled": dec(o.executed_amount),
                    "price_avg": if o.executed_amount.is_zero() { json!("0") } else { dec(o.price) },
                    "notional": dec(o.executed_amount * o.price), "status": o.status, "timestamp": now,
                });
                let key = format!("{}/{}", o.status, o.executed_amount);
                if wants("order", Some(&o.symbol)) && c.seen.orders.get(&o.order_id) != Some(&key) {
                    orders.push(row);
                }
                seen_orders.insert(o.order_id, key);
            }
            if let Ok(list) = control.balances(account) {
                for b in list
                    .into_iter()
                    .filter(|b| b.account_type == AccountType::Spot)
                {
                    let key = format!("{}/{}", b.balance.free, b.balance.frozen);
                    if wants("balance", Some(&b.currency))
                        && c.seen.balances.get(&b.currency) != Some(&key)
                    {
                        balances.push(json!({
                            "currency": b.currency, "free": dec(b.balance.free),
                            "used": dec(b.balance.frozen), "total": dec(b.balance.total()),
                        }));
                    }
                    seen_bal.insert(b.currency, key);
                }
            }
        }
        WsFamily::Swap => {
            for o in control.swap_orders(account) {
                let key = format!("{}/{}", o.state, o.filled);
                if wants("order", Some(&o.instrument_id))
                    && c.seen.orders.get(&o.order_id) != Some(&key)
                {
                    orders.push(json!({
                        "order_id": o.order_id, "instrument_id": o.instrument_id,
                        "type": o.kind, "price": dec(o.price), "size": dec(o.size),
                        "filled_qty": dec(o.filled), "price_avg": dec(o.price),
                        "state": o.state, "margin_mode": o.margin_mode, "time_stamp": now,
                    }));
                }
                seen_orders.insert(o.order_id, key);
            }
            for p in control.swap_positions(account) {
                let id = format!("{}/{}/{}", p.instrument_id, p.side, p.margin_mode);
                let key = format!("{}/{}", p.size, p.avg_cost);
                if wants("position", Some(&p.instrument_id))
                    && c.seen.positions.get(&id) != Some(&key)
                {
                    positions.push(json!({
                        "instrument_id": p.instrument_id, "margin_mode": p.margin_mode,
                        "side": p.side, "position": dec(p.size), "avail_position": dec(p.size),
                        "avg_cost": dec(p.avg_cost), "leverage": dec(p.leverage),
                        "margin": dec(p.margin), "timestamp": now,
                    }));
                }
                seen_pos.insert(id, key);
            }
            if let Ok(list) = control.balances(account) {
                for b in list
                    .into_iter()
                    .filter(|b| b.account_type == AccountType::Swap)
                {
                    let key = format!("{}/{}", b.balance.free, b.balance.frozen);
                    if wants("account", None) && c.seen.balances.get(&b.currency) != Some(&key) {
                        balances.push(json!({
                            "currency": b.currency, "equity": dec(b.balance.total()),
                            "avail_balance": dec(b.balance.free), "margin": "0",
                            "frozen_margin": dec(b.balance.frozen), "realized_pnl": "0",
                            "unrealized_pnl": "0", "time_stamp": now,
                        }));
                    }
                    seen_bal.insert(b.currency, key);
                }
            }
        }
    }
    let baseline = c.seen.baseline;
    if let Some(c) = hub.conns.get_mut(&id) {
        c.seen = Seen {
            baseline: true,
            orders: seen_orders,
            balances: seen_bal,
            positions: seen_pos,
        };
    }
    // The first look only records the state: no snapshot on subscribe.
    if !baseline {
        return;
    }
    let mut frames = Vec::new();
    match family {
        WsFamily::Spot => {
            for o in orders {
                frames.push(json!({"method": "order.update", "params": [o], "id": null}));
            }
            if !balances.is_empty() {
                frames.push(json!({"method": "balance.update", "params": balances, "id": null}));
            }
        }
        WsFamily::Swap => {
            for o in orders {
                frames.push(json!({"event": "order.update", "data": [o]}));
            }
            if !positions.is_empty() {
                frames.push(json!({"event": "position.update", "data": positions}));
            }
            if !balances.is_empty() {
                frames.push(json!({"event": "account.update", "data": balances}));
            }
        }
    }
    for f in frames {
        let text = f.to_string();
        if hub.faults.duplicate_private > 0 {
            hub.faults.duplicate_private -= 1;
            send_text(hub, id, text.clone());
            send_text(hub, id, text);
        } else if hub.faults.reorder_private > 0
            && hub.conns.get(&id).is_some_and(|c| c.held.is_none())
        {
            hub.faults.reorder_private -= 1;
            if let Some(c) = hub.conns.get_mut(&id) {
                c.held = Some(text);
            }
        } else {
            send_text(hub, id, text);
            if let Some(held) = hub.conns.get_mut(&id).and_then(|c| c.held.take()) {
                send_text(hub, id, held);
            }
        }
    }
}

fn send_text(hub: &Hub, id: u64, text: String) {
    if let Some(c) = hub.conns.get(&id) {
        let _ = c.tx.send(Out::Frame(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_vectors() {
        assert_eq!(
            ws_signature("01234567890123456789abcd", "1583135616239"),
            "tzcVcUbbxJ7fzsNURTvDD42uAs9jDTV67ObUJKQ+QHk="
        );
        assert_eq!(base64(b"fo"), "Zm8=");
        let z = zlib(br#"{"event":"server.ping","id":7,"code":1,"msg":"success","data":"pong"}"#);
        assert_eq!(&z[..2], &[0x78, 0xda]);
    }
}
