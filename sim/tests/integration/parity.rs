//! One exchange, two adapters: the same seeded sequence of requests (REST, control, faults)
//! and websocket frames driven through the loopback server and through the in-process
//! [`Exchange`] value gives the same answers and the same pushes, byte for byte. Both start
//! frozen at the same instant (the server's clock frozen, the value's time never advanced),
//! so both see the same times; the server's public ticks are an hour apart, so none falls
//! inside a case.

use crate::common::{hmac_hex, parse, raw, ws_signature};
use digifinex_sim::{Exchange, Reply, Sim, SimConfig, WsFamily, WsId, WsOut, WsSettings};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::stream::MaybeTlsStream;
use tokio_tungstenite::tungstenite::{self, Message, WebSocket};

const START: i64 = 1_800_000_000_000;

/// What a request came to, as a client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// Status, headers (without `date` and `connection`, which hyper adds), body.
    Answer(u16, Vec<(String, String)>, Vec<u8>),
    /// The head and half the body, then the connection closed.
    Truncated(u16, Vec<(String, String)>, Vec<u8>),
    /// Closed without an answer.
    Dropped,
}

fn kept(name: &str) -> bool {
    !matches!(name, "date" | "connection")
}

/// One HTTP request as both adapters get it: method, target, headers, body.
#[derive(Debug, Clone)]
struct Req {
    method: &'static str,
    target: String,
    headers: Vec<(&'static str, String)>,
    body: String,
}

fn via_server(addr: SocketAddr, r: &Req) -> Outcome {
    let mut text = format!(
        "{} {} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        r.method,
        r.target,
        r.body.len()
    );
    for (k, v) in &r.headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(&r.body);
    let bytes = raw(addr, text.as_bytes()).expect("the request is sent");
    if bytes.is_empty() {
        return Outcome::Dropped;
    }
    match parse(&bytes) {
        Ok(resp) => Outcome::Answer(
            resp.status,
            resp.headers.into_iter().filter(|(k, _)| kept(k)).collect(),
            resp.body,
        ),
        Err(_) => {
            // Cut short: the head promises more than was sent.
            let pos = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
            let head = std::str::from_utf8(&bytes[..pos]).unwrap();
            let mut lines = head.split("\r\n");
            let status = lines
                .next()
                .unwrap()
                .split(' ')
                .nth(1)
                .unwrap()
                .parse()
                .unwrap();
            let headers = lines
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .filter(|(k, _)| kept(k))
                .collect();
            Outcome::Truncated(status, headers, bytes[pos + 4..].to_vec())
        }
    }
}

fn via_value(ex: &mut Exchange, addr: SocketAddr, r: &Req) -> Outcome {
    let mut b = http::Request::builder()
        .method(r.method)
        .uri(r.target.as_str())
        .header("host", addr.to_string())
        .header("connection", "close")
        .header("content-length", r.body.len().to_string());
    for (k, v) in &r.headers {
        b = b.header(*k, v.as_str());
    }
    let mut reply = ex.handle(b.body(r.body.clone().into_bytes()).unwrap());
    loop {
        let parts = |resp: http::Response<Vec<u8>>| {
            let (p, body) = resp.into_parts();
            let headers = p
                .headers
                .iter()
                .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap().to_owned()))
                .filter(|(k, _)| kept(k))
                .collect();
            (p.status.as_u16(), headers, body)
        };
        return match reply {
            Reply::Delay { request, .. } => {
                reply = ex.resume(request);
                continue;
            }
            Reply::Answer { response, .. } => {
                let (s, h, b) = parts(response);
                Outcome::Answer(s, h, b)
            }
            Reply::Truncate(response) => {
                let (s, h, mut b) = parts(response);
                b.truncate(b.len() / 2);
                Outcome::Truncated(s, h, b)
            }
            Reply::Drop { .. } => Outcome::Dropped,
            other => panic!("unexpected reply {other:?}"),
        };
    }
}

/// A blocking websocket client of the server that keeps the frames' bytes as sent.
struct Ws {
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
}

impl Ws {
    fn connect(addr: SocketAddr) -> Ws {
        let (ws, _) = tungstenite::connect(format!("ws://{addr}/ws/v1/")).expect("it opens");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_millis(100)))
                .unwrap();
        }
        Ws { ws }
    }

    /// Frames (kind, payload bytes) up to and including the reply to request `marker`.
    fn until(&mut self, marker: u64) -> Vec<(bool, Vec<u8>)> {
        let end = Instant::now() + Duration::from_secs(10);
        let mut frames = Vec::new();
        while Instant::now() < end {
            let (binary, bytes) = match self.ws.read() {
                Ok(Message::Binary(b)) => (true, b.to_vec()),
                Ok(Message::Text(t)) => (false, t.as_bytes().to_vec()),
                Ok(_) => continue,
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue
                }
                Err(e) => panic!("the socket failed: {e}"),
            };
            let text = if binary {
                miniz_oxide::inflate::decompress_to_vec_zlib(&bytes).unwrap()
            } else {
                bytes.clone()
            };
            let v: Value = serde_json::from_slice(&text).unwrap();
            frames.push((binary, bytes));
            if v["id"] == marker {
                return frames;
            }
        }
        panic!("no reply to {marker}; saw {} frames", frames.len())
    }
}

fn value_frames(ex: &mut Exchange, ws: WsId) -> Vec<(bool, Vec<u8>)> {
    std::iter::from_fn(|| ex.ws_poll(ws))
        .map(|out| match &out {
            WsOut::Binary(_) => (true, out.payload().unwrap()),
            WsOut::Text(_) => (false, out.payload().unwrap()),
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

/// One step of a sequence.
#[derive(Debug, Clone)]
enum Op {
    /// A spot limit order `offset` dollars from 30,000, `lots` thousandths of a BTC.
    SpotOrder { buy: bool, offset: i32, lots: u8 },
    /// Cancel the last order placed.
    CancelLast,
    /// A public or signed spot read.
    SpotRead(u8),
    /// A swap order `offset` dollars from 30,000, `size` contracts.
    SwapOrder { long: bool, offset: i32, size: u8 },
    /// A swap read.
    SwapRead(u8),
    /// A control request.
    Control(u8),
    /// A fault rule for the next order placement.
    Fault(u8),
    /// A websocket frame: subscriptions, auth, garbage.
    Frame(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<bool>(), -60i32..60, 1u8..20).prop_map(|(buy, offset, lots)| Op::SpotOrder { buy, offset, lots }),
        1 => Just(Op::CancelLast),
        2 => (0u8..6).prop_map(Op::SpotRead),
        2 => (any::<bool>(), -60i32..60, 1u8..20).prop_map(|(long, offset, size)| Op::SwapOrder { long, offset, size }),
        1 => (0u8..3).prop_map(Op::SwapRead),
        1 => (0u8..5).prop_map(Op::Control),
        1 => (0u8..7).prop_map(Op::Fault),
        3 => (0u8..10).prop_map(Op::Frame),
    ]
}

/// The state a sequence builds on, the same in both adapters.
struct Keys {
    account: u64,
    key: String,
    secret: String,
    last_order: Option<String>,
}

fn spot_signed(k: &Keys, method: &'static str, path: &str, params: &str) -> Req {
    let ts = (START / 1000).to_string();
    let mut headers = vec![
        ("ACCESS-KEY", k.key.clone()),
        ("ACCESS-SIGN", hmac_hex(&k.secret, params)),
        ("ACCESS-TIMESTAMP", ts),
    ];
    let (target, body) = if method == "POST" {
        headers.push((
            "Content-Type",
            "application/x-www-form-urlencoded".to_owned(),
        ));
        (format!("/v3{path}"), params.to_owned())
    } else if params.is_empty() {
        (format!("/v3{path}"), String::new())
    } else {
        (format!("/v3{path}?{params}"), String::new())
    };
    Req {
        method,
        target,
        headers,
        body,
    }
}

fn swap_signed(k: &Keys, method: &'static str, target: &str, body: &str) -> Req {
    let ts = START.to_string();
    let sign = hmac_hex(&k.secret, &format!("{ts}{method}{target}{body}"));
    let mut headers = vec![
        ("ACCESS-KEY", k.key.clone()),
        ("ACCESS-SIGN", sign),
        ("ACCESS-TIMESTAMP", ts),
    ];
    if method == "POST" {
        headers.push(("Content-Type", "application/json".to_owned()));
    }
    Req {
        method,
        target: target.to_owned(),
        headers,
        body: body.to_owned(),
    }
}

fn get(target: &str) -> Req {
    Req {
        method: "GET",
        target: target.to_owned(),
        headers: Vec::new(),
        body: String::new(),
    }
}

fn control(method: &'static str, target: &str, body: Value) -> Req {
    Req {
        method,
        target: target.to_owned(),
        headers: vec![("Content-Type", "application/json".to_owned())],
        body: body.to_string(),
    }
}

/// The request of an HTTP step (`None` for a websocket frame).
fn request(op: &Op, k: &Keys) -> Option<Req> {
    Some(match op {
        Op::SpotOrder { buy, offset, lots } => {
            let price = 30_000 + offset;
            let amount = format!("0.{:03}", lots);
            let side = if *buy { "buy" } else { "sell" };
            let params = format!("symbol=btc_usdt&type={side}&price={price}&amount={amount}");
            spot_signed(k, "POST", "/spot/order/new", &params)
        }
        Op::CancelLast => {
            let id = k.last_order.clone().unwrap_or_else(|| "0".repeat(32));
            spot_signed(k, "POST", "/spot/order/cancel", &format!("order_id={id}"))
        }
        Op::SpotRead(n) => match n {
            0 => get("/v3/order_book?symbol=btc_usdt&limit=10"),
            1 => get("/v3/ticker?symbol=btc_usdt"),
            2 => get("/v3/trades?symbol=btc_usdt&limit=20"),
            3 => spot_signed(k, "GET", "/spot/assets", ""),
            4 => spot_signed(k, "GET", "/spot/order/current", "symbol=btc_usdt"),
            _ => spot_signed(k, "GET", "/spot/mytrades", "symbol=btc_usdt"),
        },
        Op::SwapOrder { long, offset, size } => {
            let body = json!({
                "instrument_id": "BTCUSDTPERP",
                "type": if *long { 1 } else { 2 },
                "order_type": 0,
                "size": size,
                "price": (30_000 + offset).to_string(),
            });
            swap_signed(k, "POST", "/swap/v2/trade/order_place", &body.to_string())
        }
        Op::SwapRead(n) => match n {
            0 => get("/swap/v2/public/depth?instrument_id=BTCUSDTPERP&limit=10"),
            1 => swap_signed(k, "GET", "/swap/v2/account/balance", ""),
            _ => swap_signed(k, "GET", "/swap/v2/account/positions", ""),
        },
        Op::Control(n) => match n {
            0 => get(&format!("/__sim/orders?account={}", k.account)),
            // Not the clock: its `offset_ms` is the server's wall clock.
            1 => get("/__sim/flow"),
            3 => get(&format!("/__sim/balances?account={}", k.account)),
            2 => get("/__sim/ws"),
            _ => get("/__sim/faults"),
        },
        Op::Fault(n) => {
            let fault = match n {
                0 => json!({"kind": "server_error", "status": 503}),
                1 => json!({"kind": "malformed_json"}),
                2 => json!({"kind": "too_many_requests", "retry_after_s": 2}),
                3 => json!({"kind": "drop_after_apply"}),
                4 => json!({"kind": "truncated_body"}),
                5 => json!({"kind": "latency", "ms": 5}),
                _ => json!({"kind": "late_answer", "delay_ms": 5}),
            };
            control(
                "POST",
                "/__sim/faults",
                json!({"method": "POST", "path": "/v3/spot/order/new", "fault": fault, "count": 1}),
            )
        }
        Op::Frame(_) => return None,
    })
}

/// The websocket frame of a frame step.
fn frame(n: u8, id: u64, k: &Keys) -> String {
    let sub = |method: &str, params: Value| json!({"id": id, "method": method, "params": params});
    let v = match n {
        0 => sub("depth.subscribe", json!(["BTC_USDT"])),
        1 => sub("trades.subscribe", json!(["BTC_USDT"])),
        2 => sub("ticker.subscribe", json!(["BTC_USDT"])),
        3 => sub("order.subscribe", json!(["BTC_USDT"])),
        4 => sub("balance.subscribe", json!(["USDT", "BTC"])),
        5 => {
            let ts = START.to_string();
            sub(
                "server.auth",
                json!([k.key, ts, ws_signature(&k.secret, &ts)]),
            )
        }
        6 => sub("server.auth", json!([k.key, START.to_string(), "AAAA"])),
        7 => sub("depth.unsubscribe", json!(["BTC_USDT"])),
        8 => sub("server.time", json!([])),
        _ => return "not json".to_owned(),
    };
    v.to_string()
}

fn config() -> SimConfig {
    SimConfig {
        start_time_ms: Some(START),
        ws: WsSettings {
            // No public tick within a case; bans off, so that a bad auth leaves the socket
            // answering.
            tick: Duration::from_secs(3600),
            auth_failures: 0,
            ..WsSettings::default()
        },
        ..SimConfig::default()
    }
}

fn run_case(seed: u64, ops: &[Op]) -> Result<(), TestCaseError> {
    let sim = Sim::start(SimConfig { seed, ..config() }).unwrap();
    let addr = sim.addr();
    let mut ex = Exchange::new(SimConfig {
        seed,
        addr,
        ..config()
    })
    .unwrap();
    // The demo account, through the control API of each.
    let demo = control("POST", "/__sim/demo", json!({}));
    let (a, b) = (via_server(addr, &demo), via_value(&mut ex, addr, &demo));
    prop_assert_eq!(&a, &b);
    let Outcome::Answer(_, _, body) = a else {
        panic!("{a:?}")
    };
    let d: Value = serde_json::from_slice(&body).unwrap();
    let mut keys = Keys {
        account: d["account"].as_u64().unwrap(),
        key: d["key"].as_str().unwrap().to_owned(),
        secret: d["secret"].as_str().unwrap().to_owned(),
        last_order: None,
    };
    let mut ws = Ws::connect(addr);
    let session = ex.ws_connect(WsFamily::Spot).unwrap();
    for (i, op) in ops.iter().enumerate() {
        let step = u64::try_from(i).unwrap();
        if let Some(req) = request(op, &keys) {
            let (a, b) = (via_server(addr, &req), via_value(&mut ex, addr, &req));
            prop_assert_eq!(&a, &b, "step {} {:?}", i, op);
            if let (Op::SpotOrder { .. }, Outcome::Answer(200, _, body)) = (op, &a) {
                let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
                if let Some(id) = v["order_id"].as_str() {
                    keys.last_order = Some(id.to_owned());
                }
            }
        } else if let Op::Frame(n) = op {
            let text = frame(*n, 1 + step, &keys);
            ws.ws.send(Message::text(text.clone())).unwrap();
            ex.ws_input(session, text.as_bytes());
        }
        // Everything the step pushed, up to the reply to a marker ping.
        let marker = 100_000 + step;
        let ping = json!({"id": marker, "method": "server.ping", "params": []}).to_string();
        ws.ws.send(Message::text(ping.clone())).unwrap();
        ex.ws_input(session, ping.as_bytes());
        let (a, b) = (ws.until(marker), value_frames(&mut ex, session));
        prop_assert_eq!(a, b, "pushes of step {} {:?}", i, op);
    }
    prop_assert_eq!(sim.control().panics(), 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_server_and_the_value_answer_and_push_alike(
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..30),
    ) {
        run_case(seed, &ops)?;
    }
}

/// A hand-picked sequence that covers each kind of step at least once.
#[test]
fn every_kind_of_step_answers_alike() {
    let mut ops = vec![
        Op::Frame(5),
        Op::Frame(3),
        Op::Frame(4),
        Op::Frame(0),
        Op::Frame(1),
    ];
    for n in 0..7 {
        ops.push(Op::Fault(n));
        ops.push(Op::SpotOrder {
            buy: n % 2 == 0,
            offset: i32::from(n) * 7 - 20,
            lots: 3 + n,
        });
    }
    ops.extend([
        Op::CancelLast,
        Op::SwapOrder {
            long: true,
            offset: 40,
            size: 3,
        },
        Op::SwapRead(1),
        Op::SwapRead(2),
        Op::Frame(6),
        Op::Frame(8),
        Op::Frame(9),
        Op::Frame(7),
    ]);
    ops.extend((0..6).map(Op::SpotRead));
    ops.extend((0..5).map(Op::Control));
    run_case(7, &ops).unwrap();
}
