//! The websockets served by `Sim::start` on the REST address: one market behind every door
//! (socket books equal REST books, socket trades are REST trades), private pushes that mirror
//! REST after every change, and the bounds against a client. A tiny client of its own
//! (tungstenite + zlib), no project crate.

use crate::common::*;
use digifinex_sim::{AccountType, FaultKind, FaultRule, SimConfig, WsFamily, WsFault, WsSettings};
use serde_json::{json, Value};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::stream::MaybeTlsStream;
use tokio_tungstenite::tungstenite::{self, Message, WebSocket};

/// A blocking websocket client that inflates the simulator's zlib frames.
pub struct Ws {
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
}

impl Ws {
    pub fn connect(url: &str) -> Ws {
        let (ws, resp) = tungstenite::connect(url).expect("the websocket opens");
        assert_eq!(resp.status().as_u16(), 101);
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
        }
        Ws { ws, next_id: 1 }
    }

    pub fn send(&mut self, v: Value) {
        self.ws.send(Message::text(v.to_string())).unwrap();
    }

    /// The next frame within `limit` (`None` when none came or the socket closed).
    pub fn recv(&mut self, limit: Duration) -> Option<Value> {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            match self.ws.read() {
                Ok(Message::Binary(b)) => {
                    assert_eq!(&b[..2], &[0x78, 0xda], "zlib level 9");
                    let text = miniz_oxide::inflate::decompress_to_vec_zlib(&b).unwrap();
                    return Some(serde_json::from_slice(&text).unwrap());
                }
                Ok(Message::Text(t)) => return Some(serde_json::from_str(t.as_str()).unwrap()),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => return None,
            }
        }
        None
    }

    /// Frames until one satisfies `pred` (within `limit`); returns it.
    pub fn until(&mut self, limit: Duration, pred: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + limit;
        let mut seen = Vec::new();
        while Instant::now() < end {
            if let Some(v) = self.recv(Duration::from_millis(200)) {
                if pred(&v) {
                    return v;
                }
                seen.push(v);
            }
        }
        panic!("no matching frame within {limit:?}; saw {seen:#?}")
    }

    /// A spot request; returns its reply.
    pub fn spot(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"id": id, "method": method, "params": params}));
        self.until(Duration::from_secs(5), |v| v["id"] == id)
    }

    /// A swap request (fields beside `event` and `id`); returns its reply.
    pub fn swap(&mut self, event: &str, mut fields: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        fields["event"] = json!(event);
        fields["id"] = json!(id);
        self.send(fields);
        self.until(Duration::from_secs(5), |v| v["id"] == id)
    }
}

fn ms_now(env: &Env) -> i64 {
    env.ctl.now_ms()
}

fn ws_sign(secret: &str, ts: &str) -> String {
    ws_signature(secret, ts)
}

fn spot_auth(env: &Env, ws: &mut Ws, ts: i64) -> Value {
    let ts = ts.to_string();
    let sig = ws_sign(&env.secret, &ts);
    ws.spot("server.auth", json!([env.key, ts, sig]))
}

fn levels(v: &Value) -> Vec<(rust_decimal::Decimal, rust_decimal::Decimal)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| (num(&l[0]), num(&l[1])))
        .collect()
}

/// A frozen clock: the market moves only when the test advances it.
fn frozen() -> Env {
    let env = Env::with_config(SimConfig {
        start_time_ms: Some(1_800_000_000_000),
        ..SimConfig::default()
    });
    env.fund(AccountType::Spot, "USDT", "100000");
    env.fund(AccountType::Spot, "BTC", "10");
    env.fund(AccountType::Swap, "USDT", "100000");
    env
}

#[test]
fn one_server_serves_rest_and_both_sockets_on_one_address() {
    let env = frozen();
    assert_eq!(env.sim.spot_ws_url(), format!("ws://{}/ws/v1/", env.addr()));
    let health = env.control("GET", "/__sim/health", "").json();
    assert_eq!(health["spot_ws_url"], env.sim.spot_ws_url());
    assert_eq!(health["swap_ws_url"], env.sim.swap_ws_url());
    let mut spot = Ws::connect(&env.sim.spot_ws_url());
    let pong = spot.spot("server.ping", json!([]));
    assert_eq!(pong["result"], "pong");
    assert!(pong["error"].is_null());
    let mut swap = Ws::connect(&env.sim.swap_ws_url());
    let pong = swap.swap("server.ping", json!({}));
    assert_eq!(
        (pong["code"].clone(), pong["data"].clone()),
        (json!(1), json!("pong"))
    );
    // Without the upgrade headers the path answers plainly.
    let r = send(env.addr(), "GET", "/ws/v1/", &[], "").unwrap();
    assert_eq!(r.status, 400);
    assert_eq!(env.ctl.ws_connections(), 2);
    let status = env.control("GET", "/__sim/ws", "").json();
    assert_eq!(status["connections"], 2);
}

#[test]
fn the_socket_book_and_trades_are_the_rest_book_and_trades() {
    let env = frozen();
    let mut ws = Ws::connect(&env.sim.spot_ws_url());
    let ack = ws.spot("depth.subscribe", json!(["BTC_USDT"]));
    assert_eq!(ack["result"]["status"], "success");
    let snap = ws.until(Duration::from_secs(5), |v| v["method"] == "depth.update");
    assert_eq!(snap["params"][0], true);
    assert_eq!(snap["params"][2], "BTC_USDT");
    let rest = env
        .get("/order_book", &[("symbol", "btc_usdt"), ("limit", "30")])
        .json();
    // Both list asks highest first and bids best first.
    assert_eq!(levels(&snap["params"][1]["asks"]), levels(&rest["asks"]));
    assert_eq!(levels(&snap["params"][1]["bids"]), levels(&rest["bids"]));
    // Trades: the first push is REST's latest trades, same ids, newest first.
    ws.spot("trades.subscribe", json!(["BTC_USDT"]));
    let first = ws.until(Duration::from_secs(5), |v| v["method"] == "trades.update");
    assert_eq!(first["params"][0], true);
    let rest = env
        .get("/trades", &[("symbol", "btc_usdt"), ("limit", "50")])
        .json();
    let ids = |list: &Value| -> Vec<u64> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_u64().unwrap())
            .collect()
    };
    assert!(!ids(&rest["data"]).is_empty(), "the warm-up traded");
    assert_eq!(ids(&first["params"][1]), ids(&rest["data"]));
    // Five minutes of flow: the deltas keep the socket's book equal to REST's, and the new
    // trades pushed are REST's new trades.
    let last = ids(&rest["data"])[0];
    env.ctl.advance_clock(300_000);
    let mut book_bids = std::collections::BTreeMap::new();
    let mut book_asks = std::collections::BTreeMap::new();
    for (p, s) in levels(&snap["params"][1]["bids"]) {
        book_bids.insert(p, s);
    }
    for (p, s) in levels(&snap["params"][1]["asks"]) {
        book_asks.insert(p, s);
    }
    let mut pushed = Vec::new();
    let end = Instant::now() + Duration::from_secs(3);
    while Instant::now() < end {
        let Some(v) = ws.recv(Duration::from_millis(200)) else {
            continue;
        };
        match v["method"].as_str() {
            Some("depth.update") => {
                for (side, book) in [("bids", &mut book_bids), ("asks", &mut book_asks)] {
                    for (p, s) in levels(&v["params"][1][side]) {
                        if s.is_zero() {
                            book.remove(&p);
                        } else {
                            book.insert(p, s);
                        }
                    }
                }
            }
            Some("trades.update") => pushed.extend(ids(&v["params"][1])),
            _ => {}
        }
    }
    let rest_book = env
        .get("/order_book", &[("symbol", "btc_usdt"), ("limit", "30")])
        .json();
    let mut want_bids = levels(&rest_book["bids"]);
    want_bids.reverse();
    let want_asks: Vec<_> = levels(&rest_book["asks"]).into_iter().rev().collect();
    assert_eq!(book_bids.into_iter().collect::<Vec<_>>(), want_bids);
    assert_eq!(book_asks.into_iter().collect::<Vec<_>>(), want_asks);
    let rest = env
        .get("/trades", &[("symbol", "btc_usdt"), ("limit", "500")])
        .json();
    let mut new_rest: Vec<u64> = ids(&rest["data"])
        .into_iter()
        .filter(|id| *id > last)
        .collect();
    new_rest.sort_unstable();
    pushed.sort_unstable();
    assert!(!pushed.is_empty(), "five minutes of flow traded");
    assert_eq!(pushed, new_rest);
}

#[test]
fn the_socket_ticker_is_the_rest_ticker() {
    let env = frozen();
    let mut ws = Ws::connect(&env.sim.spot_ws_url());
    ws.spot("ticker.subscribe", json!(["ETH_USDT"]));
    let push = ws.until(Duration::from_secs(5), |v| v["method"] == "ticker.update");
    let row = &push["params"][0];
    let rest = env.get("/ticker", &[("symbol", "eth_usdt")]).json();
    let t = &rest["ticker"][0];
    assert_eq!(num(&row["last"]), num(&t["last"]));
    assert_eq!(num(&row["best_bid"]), num(&t["buy"]));
    assert_eq!(num(&row["best_ask"]), num(&t["sell"]));
    assert_eq!(num(&row["high_24h"]), num(&t["high"]));
    assert_eq!(num(&row["low_24h"]), num(&t["low"]));
    assert_eq!(num(&row["base_volume_24h"]), num(&t["vol"]));
    assert_eq!(num(&row["quote_volume_24h"]), num(&t["base_vol"]));
    // The last price lies within the day's range, the average price too.
    let (low, high, last) = (num(&t["low"]), num(&t["high"]), num(&t["last"]));
    assert!(low <= last && last <= high);
    let vwap = num(&t["base_vol"]) / num(&t["vol"]);
    assert!(low <= vwap && vwap <= high, "{low} {vwap} {high}");
    // Swap: index, mark and ticker as REST says.
    let mut sw = Ws::connect(&env.sim.swap_ws_url());
    sw.swap("ticker.subscribe", json!({"instrument_id": "BTCUSDTPERP"}));
    sw.swap(
        "mark_price.subscribe",
        json!({"instrument_id": "BTCUSDTPERP"}),
    );
    let tick = sw.until(Duration::from_secs(5), |v| v["event"] == "ticker.update");
    let mark = sw.until(Duration::from_secs(5), |v| {
        v["event"] == "mark_price.update"
    });
    let r = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", "BTCUSDTPERP")]));
    assert_eq!(num(&tick["data"]["last"]), num(&r["last"]));
    assert_eq!(num(&tick["data"]["best_bid"]), num(&r["best_bid"]));
    assert_eq!(num(&tick["data"]["volume_24h"]), num(&r["volume_24h"]));
    assert_eq!(num(&mark["data"]["mark_price"]), num(&r["mark_price"]));
}

#[test]
fn private_pushes_mirror_rest_from_the_first_change() {
    let env = frozen();
    let mut ws = Ws::connect(&env.sim.spot_ws_url());
    let auth = spot_auth(&env, &mut ws, ms_now(&env));
    assert_eq!(auth["result"]["status"], "success", "{auth}");
    ws.spot("order.subscribe", json!(["BTC_USDT"]));
    ws.spot("balance.subscribe", json!(["USDT", "BTC"]));
    // The first order after subscribing is pushed, with REST's values.
    let placed = env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "20000"),
            ("amount", "0.01"),
        ],
    );
    let id = placed.json()["order_id"].as_str().unwrap().to_owned();
    let push = ws.until(Duration::from_secs(5), |v| v["method"] == "order.update");
    let o = &push["params"][0];
    assert_eq!(o["id"], id.as_str());
    assert_eq!(
        (o["status"].clone(), o["filled"].clone()),
        (json!(0), json!("0"))
    );
    let bal = ws.until(Duration::from_secs(5), |v| v["method"] == "balance.update");
    let usdt = bal["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["currency"] == "USDT")
        .unwrap();
    assert_eq!(num(&usdt["used"]), env.frozen(AccountType::Spot, "USDT"));
    assert_eq!(num(&usdt["free"]), env.free(AccountType::Spot, "USDT"));
    // A market buy that fills: average price and notional as REST reports them.
    let mb = env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy_market"),
            ("amount", "1000"),
        ],
    );
    let mid = mb.json()["order_id"].as_str().unwrap().to_owned();
    let push = ws.until(Duration::from_secs(5), |v| {
        v["method"] == "order.update" && v["params"][0]["id"] == mid.as_str()
    });
    let o = &push["params"][0];
    let rest = env
        .sget("/spot/order", &[("order_id", mid.as_str())])
        .json();
    let r = &rest["data"][0];
    assert_eq!(o["status"], r["status"]);
    assert_eq!(num(&o["filled"]), num(&r["executed_amount"]));
    assert_eq!(num(&o["price_avg"]), num(&r["avg_price"]));
    assert!(num(&o["price_avg"]) > rust_decimal::Decimal::ZERO);
    assert!(num(&o["notional"]) > rust_decimal::Decimal::from(999));
    // The resting bid is filled by the flow's market orders once the market comes down to
    // it: pushed as it happens, with REST's values.
    let cancel = env.spost("/spot/order/cancel", &[("order_id", id.as_str())]);
    assert_eq!(cancel.code(), 0);
    let push = ws.until(Duration::from_secs(5), |v| {
        v["method"] == "order.update" && v["params"][0]["id"] == id.as_str()
    });
    assert_eq!(push["params"][0]["status"], 3);
}

#[test]
fn swap_private_pushes_mirror_rest() {
    let env = frozen();
    let mut ws = Ws::connect(&env.sim.swap_ws_url());
    let ts = ms_now(&env);
    let r = ws.swap(
        "server.auth",
        json!({"apikey": env.key, "timestamp": ts, "signature": ws_sign(&env.secret, &ts.to_string())}),
    );
    assert_eq!(r["code"], 1, "{r}");
    assert_eq!(env.ctl.ws_auth_timestamp_kinds(), vec!["number"]);
    assert_eq!(ws.swap("order.subscribe", json!({}))["code"], 1);
    assert_eq!(ws.swap("position.subscribe", json!({}))["code"], 1);
    assert_eq!(ws.swap("account.subscribe", json!({}))["code"], 1);
    // A market-style open: the order, the position and the account are pushed as REST has them.
    let placed = env.swpost(
        "/trade/order_place",
        &json!({"instrument_id": "BTCUSDTPERP", "type": 1, "order_type": 1, "size": 5}),
    );
    let id = Env::ok_data(&placed).as_str().unwrap().to_owned();
    let order = ws.until(Duration::from_secs(5), |v| {
        v["event"] == "order.update"
            && v["data"][0]["order_id"] == id.as_str()
            && v["data"][0]["state"] == 2
    });
    let rest = Env::ok_data(&env.swsget("/trade/order_info", &[("order_id", id.as_str())]));
    assert_eq!(order["data"][0], rest);
    let pos = ws.until(Duration::from_secs(5), |v| v["event"] == "position.update");
    let rest = Env::ok_data(&env.swsget("/account/positions", &[]));
    let mut row = pos["data"][0].clone();
    let mut want = rest[0].clone();
    // Pushed at the fill's instant; REST's time stamp is the read's.
    row["timestamp"] = Value::Null;
    want["timestamp"] = Value::Null;
    assert_eq!(row, want);
    let acct = ws.until(Duration::from_secs(5), |v| v["event"] == "account.update");
    let rest = Env::ok_data(&env.swsget("/account/balance", &[("currency", "USDT")]));
    let mut row = acct["data"][0].clone();
    let mut want = rest[0].clone();
    row["time_stamp"] = Value::Null;
    want["time_stamp"] = Value::Null;
    row["unrealized_pnl"] = Value::Null;
    want["unrealized_pnl"] = Value::Null;
    row["equity"] = Value::Null;
    want["equity"] = Value::Null;
    row["margin_ratio"] = Value::Null;
    want["margin_ratio"] = Value::Null;
    assert_eq!(row, want);
    // Closing it: the side's row comes with position 0.
    env.swpost(
        "/trade/order_place",
        &json!({"instrument_id": "BTCUSDTPERP", "type": 3, "order_type": 1, "size": 5}),
    );
    let closed = ws.until(Duration::from_secs(5), |v| {
        v["event"] == "position.update" && v["data"][0]["position"] == "0"
    });
    assert_eq!(closed["data"][0]["side"], "long");
}

#[test]
fn targets_are_checked_and_duplicates_ignored() {
    let env = frozen();
    let mut ws = Ws::connect(&env.sim.spot_ws_url());
    let r = ws.spot("depth.subscribe", json!(["NOPE_USDT"]));
    assert_eq!(r["error"]["code"], 1);
    // A balance subscription names currencies; no market is made of them.
    let auth = spot_auth(&env, &mut ws, ms_now(&env));
    assert!(auth["error"].is_null());
    assert_eq!(
        ws.spot("balance.subscribe", json!(["NOPE"]))["error"]["code"],
        1
    );
    ws.spot("depth.subscribe", json!(["BTC_USDT"]));
    ws.until(Duration::from_secs(5), |v| v["params"][0] == true);
    // The same target again: acknowledged, no second snapshot.
    let again = ws.spot("depth.subscribe", json!(["btc_usdt"]));
    assert!(again["error"].is_null());
    let mut snapshots = 0;
    let end = Instant::now() + Duration::from_millis(600);
    while Instant::now() < end {
        if let Some(v) = ws.recv(Duration::from_millis(100)) {
            if v["method"] == "depth.update" && v["params"][0] == true {
                snapshots += 1;
            }
        }
    }
    assert_eq!(snapshots, 0);
    let mut sw = Ws::connect(&env.sim.swap_ws_url());
    let r = sw.swap(
        "depth.subscribe",
        json!({"instrument_id": "NOPEUSDTPERP", "level": 10}),
    );
    assert_eq!(
        (r["code"].clone(), r["msg"].clone()),
        (json!(2), json!("invalid param"))
    );
    let r = sw.swap(
        "depth.subscribe",
        json!({"instrument_id": "BTCUSDTPERP", "level": 10}),
    );
    assert_eq!(r["code"], 1);
    let r = sw.swap(
        "depth.subscribe",
        json!({"instrument_id": "BTCUSDTPERP", "level": 10}),
    );
    assert_eq!(
        (r["code"].clone(), r["msg"].clone()),
        (json!(5), json!("repeat subscribe"))
    );
}

#[test]
fn auth_timestamps_are_checked_like_rest() {
    let env = frozen();
    let now = ms_now(&env);
    for (ts, ok) in [
        (now, true),
        (now - 4_000, true),
        (now - 6_000, false),
        (now + 2_000, false),
    ] {
        let mut ws = Ws::connect(&env.sim.spot_ws_url());
        let r = spot_auth(&env, &mut ws, ts);
        assert_eq!(r["error"].is_null(), ok, "{ts} - {now}: {r}");
    }
    for (ts, ok) in [(now + 29_000, true), (now - 31_000, false)] {
        let mut ws = Ws::connect(&env.sim.swap_ws_url());
        let r = ws.swap(
            "server.auth",
            json!({"apikey": env.key, "timestamp": ts.to_string(), "signature": ws_sign(&env.secret, &ts.to_string())}),
        );
        assert_eq!(r["code"] == 1, ok, "{r}");
    }
}

#[test]
fn a_client_that_does_not_read_is_dropped_not_buffered() {
    let env = Env::with_config(SimConfig {
        ws: WsSettings {
            tick: Duration::from_millis(5),
            send_queue: 16,
            ..WsSettings::default()
        },
        ..SimConfig::default()
    });
    let (mut ws, _) = tungstenite::connect(env.sim.swap_ws_url()).unwrap();
    let mut subs = Vec::new();
    for id in ["BTCUSDTPERP", "ETHUSDTPERP", "XRPUSDTPERP", "BTCUSDT2PERP"] {
        for ch in [
            "ticker",
            "index_price",
            "mark_price",
            "trades",
            "price_range",
        ] {
            subs.push((ch, id));
        }
    }
    for (i, (ch, id)) in subs.iter().enumerate() {
        ws.send(Message::text(
            json!({"event": format!("{ch}.subscribe"), "id": i + 1, "instrument_id": id})
                .to_string(),
        ))
        .unwrap();
    }
    ws.send(Message::text(
        json!({"event": "all_ticker.subscribe", "id": 99}).to_string(),
    ))
    .unwrap();
    // The client never reads: its socket buffers fill, then the queue, then it is dropped.
    let end = Instant::now() + Duration::from_secs(30);
    while env.ctl.ws_connections() > 0 {
        assert!(
            Instant::now() < end,
            "the non-reading client was never dropped"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_connection_cap_and_the_handshake_faults() {
    let env = Env::with_config(SimConfig {
        ws: WsSettings {
            max_connections: 2,
            ..WsSettings::default()
        },
        ..SimConfig::default().without_flow()
    });
    let _a = Ws::connect(&env.sim.spot_ws_url());
    let _b = Ws::connect(&env.sim.swap_ws_url());
    match tungstenite::connect(env.sim.spot_ws_url()) {
        Err(tungstenite::Error::Http(r)) => assert_eq!(r.status().as_u16(), 503),
        other => panic!("a third socket: {other:?}"),
    }
    drop(_a);
    let end = Instant::now() + Duration::from_secs(5);
    while env.ctl.ws_connections() > 1 {
        assert!(Instant::now() < end);
        std::thread::sleep(Duration::from_millis(20));
    }
    env.ctl.ws_fault(WsFault::Handshake502, 1);
    match tungstenite::connect(env.sim.spot_ws_url()) {
        Err(tungstenite::Error::Http(r)) => assert_eq!(r.status().as_u16(), 502),
        other => panic!("{other:?}"),
    }
    // The route's fault rules apply to the upgrade like to any request.
    env.ctl.add_fault(
        FaultRule::route(
            "GET",
            "/swap_ws/v2/",
            FaultKind::ServerError { status: 502 },
        )
        .times(1),
    );
    match tungstenite::connect(env.sim.swap_ws_url()) {
        Err(tungstenite::Error::Http(r)) => assert_eq!(r.status().as_u16(), 502),
        other => panic!("{other:?}"),
    }
    let _c = Ws::connect(&env.sim.swap_ws_url());
    // Over HTTP too.
    let r = env.control(
        "POST",
        "/__sim/ws/faults",
        r#"{"kind":"handshake_502","count":1}"#,
    );
    assert_eq!(r.status, 200);
    drop(_c);
    assert!(env
        .control("POST", "/__sim/ws/faults", r#"{"kind":"nope"}"#)
        .text()
        .contains("drop_deltas"));
}

#[test]
fn the_control_api_answers_only_loopback_hosts() {
    let env = Env::new();
    let ok = |host: &str| {
        let req =
            format!("GET /__sim/health HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n");
        parse(&raw(env.addr(), req.as_bytes()).unwrap())
            .unwrap()
            .status
    };
    assert_eq!(ok("localhost:1234"), 200);
    assert_eq!(ok("127.0.0.1:9"), 200);
    assert_eq!(ok("[::1]:9"), 200);
    assert_eq!(ok("evil.example.com"), 403);
    assert_eq!(ok("localhost.evil.example"), 403);
    // REST itself answers any host (a client may use a name).
    let req = "GET /v3/ping HTTP/1.1\r\nhost: sim.example\r\nconnection: close\r\n\r\n";
    assert_eq!(
        parse(&raw(env.addr(), req.as_bytes()).unwrap())
            .unwrap()
            .status,
        200
    );
}

#[test]
fn a_book_view_is_the_rest_book() {
    let env = frozen();
    let view = env.ctl.book(WsFamily::Spot, "btc_usdt", 5).unwrap();
    let rest = env
        .get("/order_book", &[("symbol", "btc_usdt"), ("limit", "5")])
        .json();
    assert_eq!(view.bids, levels(&rest["bids"]));
    assert_eq!(
        view.asks,
        levels(&rest["asks"]).into_iter().rev().collect::<Vec<_>>()
    );
}

#[test]
fn all_ticker_lists_every_market_without_other_subscriptions() {
    let env = frozen();
    let mut ws = Ws::connect(&env.sim.spot_ws_url());
    ws.spot("all_ticker.subscribe", json!([]));
    let push = ws.until(Duration::from_secs(10), |v| {
        v["method"] == "all_ticker.update"
    });
    let symbols: Vec<&str> = push["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(
        symbols,
        [
            "BTC_USDT",
            "ETH_USDT",
            "XRP_USDT",
            "ETH_BTC",
            "DFT_USDT",
            "LUNA_USDT"
        ]
    );
    let mut sw = Ws::connect(&env.sim.swap_ws_url());
    sw.swap("all_ticker.subscribe", json!({}));
    let push = sw.until(Duration::from_secs(10), |v| {
        v["event"] == "all_ticker.update"
    });
    assert_eq!(push["data"].as_array().unwrap().len(), 5);
}

#[test]
fn a_handshake_that_dribbles_is_cut_at_the_header_timeout() {
    use std::io::{Read, Write};
    let env = Env::with_config(SimConfig {
        header_read_timeout: Some(Duration::from_millis(300)),
        ..SimConfig::default().without_flow()
    });
    let mut tcp = std::net::TcpStream::connect(env.addr()).unwrap();
    tcp.write_all(b"GET /ws/v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n")
        .unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let start = Instant::now();
    let mut buf = Vec::new();
    let _ = tcp.read_to_end(&mut buf);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(env.ctl.ws_connections(), 0);
}

/// The status of a websocket upgrade of `path` sent with `host` and, when given, `origin`.
fn upgrade_status(env: &Env, path: &str, host: &str, origin: Option<&str>) -> u16 {
    use std::io::{Read, Write};
    let mut tcp = TcpStream::connect(env.addr()).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
    write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Upgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n") {
        match tcp.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            other => panic!("no status line ({other:?}): {head:?}"),
        }
    }
    let line = String::from_utf8(head).unwrap();
    line.split(' ').nth(1).unwrap().parse().unwrap()
}

/// Upgrades are checked like the control API: a foreign `Host` (DNS rebinding) and a present
/// `Origin` that is not a loopback page are refused with 403 on both sockets, before the cap
/// or the faults count them; local hosts and pages, and clients that send no `Origin`, open.
#[test]
fn upgrades_refuse_foreign_hosts_and_origins() {
    let env = Env::new();
    let port = env.addr().port();
    for path in ["/ws/v1/", "/swap_ws/v2/"] {
        for (host, origin, want) in [
            (format!("127.0.0.1:{port}"), None, 101),
            (format!("localhost:{port}"), None, 101),
            (format!("LOCALHOST.:{port}"), None, 101),
            (format!("[::ffff:127.0.0.1]:{port}"), None, 101),
            (format!("[::1]:{port}"), Some("http://localhost:3000"), 101),
            (format!("127.0.0.1:{port}"), Some("https://127.0.0.1"), 101),
            ("evil.example".to_owned(), None, 403),
            (format!("localhost.evil.example:{port}"), None, 403),
            (
                format!("127.0.0.1:{port}"),
                Some("https://evil.example"),
                403,
            ),
            (
                format!("127.0.0.1:{port}"),
                Some("http://localhost.evil.example"),
                403,
            ),
            (format!("127.0.0.1:{port}"), Some("null"), 403),
        ] {
            assert_eq!(
                upgrade_status(&env, path, &host, origin),
                want,
                "{path} Host {host} Origin {origin:?}"
            );
        }
    }
    // The refused upgrades never took a socket.
    let end = Instant::now() + Duration::from_secs(5);
    while env.ctl.ws_connections() > 0 {
        assert!(Instant::now() < end, "{} sockets", env.ctl.ws_connections());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(env.ctl.ws_accepted(), 12);
}

/// Every frame a socket gets until it closes (a hang guard ends the wait).
fn frames_until_closed(
    ws: &mut WebSocket<MaybeTlsStream<TcpStream>>,
    guard: Duration,
) -> Vec<Value> {
    let end = Instant::now() + guard;
    let mut out = Vec::new();
    loop {
        assert!(
            Instant::now() < end,
            "the socket stayed open; got {} frames",
            out.len()
        );
        match ws.read() {
            Ok(Message::Binary(b)) => {
                let text = miniz_oxide::inflate::decompress_to_vec_zlib(&b).unwrap();
                out.push(serde_json::from_slice(&text).unwrap());
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return out,
        }
    }
}

/// 2,000 bad `server.auth` attempts on one socket: five are answered "auth fail", then the
/// socket is banned and dropped (the rest go unanswered), on both families; a new socket with
/// the right signature still authenticates.
#[test]
fn repeated_auth_failures_ban_the_socket() {
    let env = frozen();
    let ts = ms_now(&env).to_string();
    for url in [env.sim.spot_ws_url(), env.sim.swap_ws_url()] {
        let spot = url.contains("/ws/v1");
        let (mut ws, _) = tungstenite::connect(&url).unwrap();
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_millis(100)))
                .unwrap();
        }
        for id in 1..=2000u64 {
            let bad = if spot {
                json!({"id": id, "method": "server.auth", "params": [env.key, ts, "AAAA"]})
            } else {
                json!({"event": "server.auth", "id": id, "apikey": env.key, "timestamp": ts, "signature": "AAAA"})
            };
            if ws.send(Message::text(bad.to_string())).is_err() {
                break; // dropped while we were still sending
            }
        }
        let frames = frames_until_closed(&mut ws, Duration::from_secs(20));
        assert_eq!(frames.len(), 5, "{url}: {frames:?}");
        for f in &frames {
            if spot {
                assert_eq!(f["error"]["code"], 3, "{f}");
            } else {
                assert_eq!(f["code"], 3, "{f}");
            }
        }
    }
    let end = Instant::now() + Duration::from_secs(5);
    while env.ctl.ws_connections() > 0 {
        assert!(Instant::now() < end);
        std::thread::sleep(Duration::from_millis(20));
    }
    // The ban is the socket's: a new one authenticates.
    let mut ws = Ws::connect(&env.sim.spot_ws_url());
    let r = spot_auth(&env, &mut ws, ms_now(&env));
    assert!(r["error"].is_null(), "{r}");
}
