//! Both websocket clients against deliberately bad servers on loopback: a handshake dribbled
//! byte by byte, a message trickled as empty fragments forever (alone, and interleaved with
//! pings that must not restart its deadline), half a message and then silence, a book crossed
//! after every
//! snapshot, a book that grows without end, a level with a negative size, a delta that cannot
//! be read. Each must end in a bounded time with a reason, never freeze, never resync in a
//! tight loop, never keep a wrong book.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use digifinex_core::ws::{CloseReason, Event, ResyncReason, WsConfig};
use digifinex_core::Family;
use tungstenite::Message;

/// A client under test, blocking or async.
trait Client {
    fn next(&mut self) -> Option<Event>;
}

struct Blocking(digifinex_ureq::ws::Stream);

impl Client for Blocking {
    fn next(&mut self) -> Option<Event> {
        self.0.next_event()
    }
}

struct Async(digifinex_hyper::ws::Stream, tokio::runtime::Runtime);

impl Client for Async {
    fn next(&mut self) -> Option<Event> {
        let Async(stream, rt) = self;
        rt.block_on(stream.next_event())
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Blocking,
    Async,
}

const SUB: &str = "swap:depth:BTCUSDTPERP:20";

fn config() -> WsConfig {
    WsConfig {
        ping_interval: Duration::from_millis(300),
        pong_timeout: Duration::from_secs(5),
        reconnect_initial: Duration::from_millis(100),
        reconnect_max: Duration::from_millis(400),
        resync_initial: Duration::from_millis(200),
        resync_max: Duration::from_secs(1),
        max_book_levels: 50,
        ..WsConfig::default()
    }
}

fn client(kind: Kind, url: String) -> Box<dyn Client> {
    client_of(kind, url, SUB)
}

fn client_of(kind: Kind, url: String, sub: &str) -> Box<dyn Client> {
    client_with(kind, url, sub, config())
}

fn client_with(kind: Kind, url: String, sub: &str, config: WsConfig) -> Box<dyn Client> {
    let limit = Duration::from_secs(1);
    let family = if sub.starts_with("spot:") {
        Family::Spot
    } else {
        Family::Swap
    };
    match kind {
        Kind::Blocking => {
            let b = digifinex_ureq::ws::StreamBuilder::new(family)
                .url(url)
                .allow_http(true)
                .config(config.clone())
                .connect_timeout(limit)
                .message_timeout(limit)
                .subscribe(sub.parse().unwrap());
            Box::new(Blocking(b.build().unwrap()))
        }
        Kind::Async => {
            let b = digifinex_hyper::ws::StreamBuilder::new(family)
                .url(url)
                .allow_http(true)
                .config(config.clone())
                .connect_timeout(limit)
                .message_timeout(limit)
                .subscribe(sub.parse().unwrap());
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            Box::new(Async(b.build().unwrap(), rt))
        }
    }
}

/// Events until `pred` holds for one, within `limit`.
fn until(c: &mut dyn Client, limit: Duration, pred: impl Fn(&Event) -> bool) -> Vec<Event> {
    let end = Instant::now() + limit;
    let mut out = Vec::new();
    loop {
        assert!(
            Instant::now() < end,
            "nothing matched within {limit:?}: {out:#?}"
        );
        let e = c.next().expect("the stream goes on");
        let done = pred(&e);
        out.push(e);
        if done {
            return out;
        }
    }
}

/// Events for `d`.
fn run_for(c: &mut dyn Client, d: Duration) -> Vec<Event> {
    let end = Instant::now() + d;
    let mut out = Vec::new();
    while Instant::now() < end {
        out.push(c.next().expect("the stream goes on"));
    }
    out
}

/// A server on loopback handing each raw connection to `handle` on its own thread; its URL.
fn serve_raw(handle: fn(TcpStream)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            std::thread::spawn(move || handle(tcp));
        }
    });
    format!("ws://{addr}/swap_ws/v2/")
}

/// What a websocket server does after answering a `depth.subscribe`.
type OnSubscribe = fn(&mut tungstenite::WebSocket<TcpStream>, u32);

/// A websocket server that answers every request with success and, after each
/// `depth.subscribe`, runs `on_subscribe` (with the count of subscribes so far).
fn serve_ws(on_subscribe: OnSubscribe) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let Ok(mut ws) = tungstenite::accept(tcp) else {
                    return;
                };
                let mut subscribes = 0;
                while let Ok(message) = ws.read() {
                    let Message::Text(text) = message else {
                        continue;
                    };
                    let request: serde_json::Value = serde_json::from_str(&text).unwrap();
                    // Spot requests name a `method`, swap ones an `event`.
                    let reply = match request.get("method") {
                        Some(_) => {
                            serde_json::json!({"id": request["id"], "result": {"status": "success"}, "error": null})
                        }
                        None => {
                            serde_json::json!({"event": request["event"], "id": request["id"], "code": 1})
                        }
                    };
                    if ws.send(Message::text(reply.to_string())).is_err() {
                        return;
                    }
                    if request["event"] == "depth.subscribe"
                        || request["method"] == "depth.subscribe"
                    {
                        subscribes += 1;
                        on_subscribe(&mut ws, subscribes);
                    }
                }
            });
        }
    });
    format!("ws://{addr}/swap_ws/v2/")
}

/// A spot depth push.
fn spot_depth(clean: bool, bids: &str, asks: &str) -> Message {
    Message::text(format!(
        r#"{{"method":"depth.update","params":[{clean},{{"bids":{bids},"asks":{asks}}},"BTC_USDT"],"id":null}}"#
    ))
}

/// A swap depth push.
fn depth(full: bool, bids: &str, asks: &str) -> Message {
    Message::text(format!(
        r#"{{"event":"depth.update","data":{{"instrument_id":"BTCUSDTPERP","level":20,"bids":{bids},"asks":{asks}}},"full_data":{full}}}"#
    ))
}

// ---------------------------------------------------------------------------------------------

/// The upgrade's answer, one byte every 200 ms: cut at the connect timeout (1 s), reported,
/// and tried again with backoff.
fn dribbled_handshake(kind: Kind) {
    let url = serve_raw(|mut tcp| {
        let mut buf = [0u8; 4096];
        let _ = tcp.read(&mut buf);
        for b in b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n" {
            if tcp.write_all(&[*b]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let started = Instant::now();
    let mut c = client(kind, url);
    let events = until(&mut *c, Duration::from_secs(4), |e| {
        matches!(
            e,
            Event::Disconnected {
                reason: CloseReason::ConnectFailed(_),
                ..
            }
        )
    });
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "cut after {took:?}: {events:#?}"
    );
    // And it goes on trying.
    until(&mut *c, Duration::from_secs(4), |e| {
        matches!(e, Event::Connecting { attempt: 2, .. })
    });
}

#[test]
fn blocking_dribbled_handshake() {
    dribbled_handshake(Kind::Blocking);
}

#[test]
fn async_dribbled_handshake() {
    dribbled_handshake(Kind::Async);
}

/// After the upgrade, a text message that never ends: empty continuation fragments every
/// 100 ms. Cut at the message timeout (1 s after its first byte), then reconnected.
fn trickled_fragments(kind: Kind) {
    let url = serve_raw(|tcp| {
        let Ok(mut ws) = tungstenite::accept(tcp) else {
            return;
        };
        let tcp = ws.get_mut();
        // A text frame without FIN, then empty continuations.
        if tcp.write_all(&[0x01, 0x00]).is_err() {
            return;
        }
        loop {
            std::thread::sleep(Duration::from_millis(100));
            if tcp.write_all(&[0x00, 0x00]).is_err() {
                return;
            }
        }
    });
    let mut c = client(kind, url);
    until(&mut *c, Duration::from_secs(3), |e| {
        matches!(e, Event::Connected { .. })
    });
    let started = Instant::now();
    let events = until(&mut *c, Duration::from_secs(4), |e| {
        matches!(e, Event::Disconnected { .. })
    });
    let Some(Event::Disconnected {
        reason: CloseReason::Lost(detail),
        ..
    }) = events.last()
    else {
        panic!("{events:#?}")
    };
    assert!(detail.contains("no whole message within 1s"), "{detail}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn blocking_trickled_fragments() {
    trickled_fragments(Kind::Blocking);
}

#[test]
fn async_trickled_fragments() {
    trickled_fragments(Kind::Async);
}

/// After the upgrade, a text message that never ends, its empty continuations interleaved with
/// pings (a ping, then a fragment, every 100 ms): the pings are answered but do not restart the
/// message's deadline, so the socket is cut at the message timeout (1 s after the first
/// fragment), long before the pong timeout (set to 30 s here) could end it.
fn fragments_between_pings(kind: Kind) {
    let url = serve_raw(|tcp| {
        let Ok(mut ws) = tungstenite::accept(tcp) else {
            return;
        };
        let tcp = ws.get_mut();
        // A text frame without FIN, then pings (FIN, opcode 9, empty) and empty continuations.
        if tcp.write_all(&[0x01, 0x00]).is_err() {
            return;
        }
        loop {
            std::thread::sleep(Duration::from_millis(50));
            if tcp.write_all(&[0x89, 0x00]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
            if tcp.write_all(&[0x00, 0x00]).is_err() {
                return;
            }
        }
    });
    let config = WsConfig {
        pong_timeout: Duration::from_secs(30),
        ..config()
    };
    let mut c = client_with(kind, url, SUB, config);
    until(&mut *c, Duration::from_secs(3), |e| {
        matches!(e, Event::Connected { .. })
    });
    let started = Instant::now();
    let events = until(&mut *c, Duration::from_secs(5), |e| {
        matches!(e, Event::Disconnected { .. })
    });
    let Some(Event::Disconnected {
        reason: CloseReason::Lost(detail),
        ..
    }) = events.last()
    else {
        panic!("{events:#?}")
    };
    assert!(detail.contains("no whole message within 1s"), "{detail}");
    // A bound (hang guard), not a timing: far below the 30 s pong timeout.
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[test]
fn blocking_fragments_between_pings() {
    fragments_between_pings(Kind::Blocking);
}

#[test]
fn async_fragments_between_pings() {
    fragments_between_pings(Kind::Async);
}

/// After the upgrade, the first fragment of a message and then silence (nor does the client
/// ping: its interval is 20 s): the socket is cut at the message timeout by the deadline's own
/// timer, not when something else wakes the client.
fn silence_inside_a_message(kind: Kind) {
    let url = serve_raw(|tcp| {
        let Ok(mut ws) = tungstenite::accept(tcp) else {
            return;
        };
        if ws.get_mut().write_all(&[0x01, 0x01, b'{']).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_secs(30));
    });
    let config = WsConfig {
        ping_interval: Duration::from_secs(20),
        pong_timeout: Duration::from_secs(30),
        ..config()
    };
    let mut c = client_with(kind, url, SUB, config);
    until(&mut *c, Duration::from_secs(3), |e| {
        matches!(e, Event::Connected { .. })
    });
    let started = Instant::now();
    let events = until(&mut *c, Duration::from_secs(5), |e| {
        matches!(e, Event::Disconnected { .. })
    });
    let Some(Event::Disconnected {
        reason: CloseReason::Lost(detail),
        ..
    }) = events.last()
    else {
        panic!("{events:#?}")
    };
    assert!(detail.contains("no whole message within 1s"), "{detail}");
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[test]
fn blocking_silence_inside_a_message() {
    silence_inside_a_message(Kind::Blocking);
}

#[test]
fn async_silence_inside_a_message() {
    silence_inside_a_message(Kind::Async);
}

/// A book crossed after every snapshot: the resyncs back off (200 ms doubling to 1 s) instead
/// of asking again and again.
fn crossed_every_time(kind: Kind) {
    let url = serve_ws(|ws, _| {
        let _ = ws.send(depth(true, r#"[["101","1"]]"#, r#"[["100","1"]]"#));
    });
    let mut c = client(kind, url);
    let events = run_for(&mut *c, Duration::from_secs(4));
    let delays: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Resync {
                reason: ResyncReason::Crossed,
                retry_in_ms,
                ..
            } => Some(*retry_in_ms),
            _ => None,
        })
        .collect();
    // 0, 200, 400, 800, 1000, 1000 ... : within 4 s at most 7 or so, not hundreds.
    assert!(delays.len() >= 4 && delays.len() <= 8, "{delays:?}");
    assert_eq!(&delays[..4], &[0, 200, 400, 800], "{delays:?}");
    assert!(delays.iter().skip(4).all(|d| *d == 1000), "{delays:?}");
}

#[test]
fn blocking_crossed_every_time() {
    crossed_every_time(Kind::Blocking);
}

#[test]
fn async_crossed_every_time() {
    crossed_every_time(Kind::Async);
}

/// Spot deltas (a spot book has no level window) that add a new level each time: the book
/// refuses to grow past its limit (50 levels a side here) and is rebuilt.
fn growing_book(kind: Kind) {
    let url = serve_ws(|ws, n| {
        if n > 1 {
            return;
        }
        let _ = ws.send(spot_depth(true, r#"[["100","1"]]"#, r#"[["200","1"]]"#));
        for i in 0..200 {
            let bid = format!(r#"[["{}","1"]]"#, 99 - i % 99);
            let bid = if i < 99 {
                bid
            } else {
                format!(r#"[["0.{i}","1"]]"#)
            };
            if ws.send(spot_depth(false, &bid, "[]")).is_err() {
                return;
            }
        }
    });
    let mut c = client_of(
        kind,
        url.replace("/swap_ws/v2/", "/ws/v1/"),
        "spot:depth:btc_usdt",
    );
    let events = until(&mut *c, Duration::from_secs(4), |e| {
        matches!(
            e,
            Event::Resync {
                reason: ResyncReason::TooManyLevels,
                ..
            }
        )
    });
    let deepest = events
        .iter()
        .filter_map(|e| match e {
            Event::Book(b) => Some(b.depth.0),
            _ => None,
        })
        .max();
    assert_eq!(deepest, Some(50), "the book never held more than its limit");
}

#[test]
fn blocking_growing_book() {
    growing_book(Kind::Blocking);
}

#[test]
fn async_growing_book() {
    growing_book(Kind::Async);
}

/// A negative size, then a delta that cannot be read: each resyncs the book with its reason
/// (the book is never kept with the level dropped or the change missing).
fn invalid_and_unreadable_levels(kind: Kind) {
    let url = serve_ws(|ws, n| {
        let _ = ws.send(depth(true, r#"[["100","1"]]"#, r#"[["101","1"]]"#));
        let bad = match n {
            1 => depth(false, r#"[["99","-1"]]"#, "[]"),
            _ => depth(false, r#"[["x","1"]]"#, "[]"),
        };
        let _ = ws.send(bad);
    });
    let mut c = client(kind, url);
    let reason = |want: ResyncReason| move |e: &Event| matches!(e, Event::Resync { reason, .. } if *reason == want);
    let events = until(
        &mut *c,
        Duration::from_secs(4),
        reason(ResyncReason::InvalidLevel),
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Book(b) if b.snapshot)));
    let events = until(
        &mut *c,
        Duration::from_secs(4),
        reason(ResyncReason::Undecodable),
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Undecodable { .. })),
        "{events:#?}"
    );
}

#[test]
fn blocking_invalid_and_unreadable_levels() {
    invalid_and_unreadable_levels(Kind::Blocking);
}

#[test]
fn async_invalid_and_unreadable_levels() {
    invalid_and_unreadable_levels(Kind::Async);
}
