//! The exchange value stepped in virtual time: an hour of order flow and a recorded market,
//! event by event with `next_event_time` and `advance_to`, without a socket or a sleep; the
//! same as one `advance_to` over the whole stretch, byte for byte.

use crate::market_replay::sample_path;
use digifinex_sim::{
    Control, Exchange, MarketConfig, SimConfig, WsFamily, WsId, WsOut, WsSettings,
};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

const START: i64 = 1_800_000_000_000;
const HOUR: i64 = 3_600_000;

fn get(ex: &mut Exchange, target: &str) -> Value {
    let req = http::Request::get(target)
        .header("host", "localhost")
        .body(Vec::new())
        .unwrap();
    let resp = ex.handle(req).into_response().expect("an answer");
    assert_eq!(resp.status(), 200, "{target}");
    serde_json::from_slice(resp.body()).unwrap()
}

/// Every frame the session has, as sent (binary frames zlib-compressed).
fn drain(ex: &mut Exchange, ws: WsId) -> Vec<WsOut> {
    std::iter::from_fn(|| ex.ws_poll(ws)).collect()
}

fn flow_config() -> SimConfig {
    SimConfig {
        start_time_ms: Some(START),
        ws: WsSettings {
            // The session stays for the hour without pings.
            idle_timeout: None,
            lifetime: None,
            send_queue: 1 << 20,
            ..WsSettings::default()
        },
        ..SimConfig::default()
    }
}

/// An exchange with a session on the spot trades and depth of BTC_USDT.
fn subscribed() -> (Exchange, WsId) {
    let mut ex = Exchange::new(flow_config()).unwrap();
    let ws = ex.ws_connect(WsFamily::Spot).unwrap();
    for (id, channel) in [(1, "trades"), (2, "depth")] {
        let frame =
            json!({"id": id, "method": format!("{channel}.subscribe"), "params": ["BTC_USDT"]});
        ex.ws_input(ws, frame.to_string().as_bytes());
    }
    (ex, ws)
}

#[test]
fn an_hour_of_order_flow_steps_event_by_event() {
    let (mut ex, ws) = subscribed();
    let before = get(&mut ex, "/__sim/flow")["events"].as_u64().unwrap();
    let mut frames = drain(&mut ex, ws);
    let (mut steps, mut last) = (0u64, ex.now_ms());
    while let Some(t) = ex.next_event_time() {
        if t > START + HOUR {
            break;
        }
        // Time never runs back, and nothing due is left behind a step.
        assert!(t > last, "{t} after {last}");
        ex.advance_to(t);
        assert_eq!(ex.now_ms(), t);
        assert!(ex.next_event_time().is_none_or(|n| n > t));
        last = t;
        steps += 1;
        frames.extend(drain(&mut ex, ws));
    }
    ex.advance_to(START + HOUR);
    frames.extend(drain(&mut ex, ws));
    let events = get(&mut ex, "/__sim/flow")["events"].as_u64().unwrap() - before;
    // About 65 events a second for the default markets; one step per event and per tick of
    // the socket (every 100 ms), at most.
    assert!((150_000..350_000).contains(&events), "{events}");
    // (Events of the same millisecond share a step.)
    assert!(
        steps > events / 2 && steps <= events + 36_000 + 20,
        "{steps} steps, {events} events"
    );

    // The trades pushed are the REST tape's, oldest to newest: each push lists the new
    // trades, newest first.
    let mut pushed: Vec<u64> = Vec::new();
    for f in &frames {
        let v = f.value().unwrap();
        if v["method"] == "trades.update" {
            let mut ids: Vec<u64> = v["params"][1]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_u64().unwrap())
                .collect();
            ids.reverse();
            pushed.extend(ids);
        }
    }
    assert!(pushed.windows(2).all(|w| w[0] < w[1]), "trade ids in order");
    let tape = get(&mut ex, "/v3/trades?symbol=btc_usdt&limit=500");
    let newest = tape["data"][0]["id"].as_u64().unwrap();
    assert_eq!(pushed.last(), Some(&newest));
    // Depth: a snapshot, then a delta at most every tick.
    let deltas = frames
        .iter()
        .filter(|f| {
            let v = f.value().unwrap();
            v["method"] == "depth.update" && v["params"][0] == false
        })
        .count();
    assert!(deltas > 10_000 && deltas <= 36_000, "{deltas}");

    // One jump over the hour does the same work, in the same order: the same frames, byte
    // for byte, and the same market.
    let (mut once, ws1) = subscribed();
    let mut all = drain(&mut once, ws1);
    once.advance_to(START + HOUR);
    all.extend(drain(&mut once, ws1));
    assert_eq!(all.len(), frames.len());
    assert!(all == frames, "the same frames");
    assert_eq!(
        get(&mut once, "/__sim/flow")["events"].as_u64().unwrap() - before,
        events
    );
    for target in [
        "/v3/order_book?symbol=btc_usdt&limit=30",
        "/v3/ticker?symbol=eth_usdt",
    ] {
        assert_eq!(get(&mut once, target), get(&mut ex, target), "{target}");
    }
}

#[test]
fn a_recorded_market_steps_event_by_event() {
    let config = SimConfig {
        market: Some(MarketConfig::file(sample_path())),
        ..SimConfig::default().without_flow().without_limits()
    };
    let shared = Arc::new(Mutex::new(Exchange::new(config.clone()).unwrap()));
    let control = Control::of(shared.clone());
    // The time starts at the recording's first instant (its first record, 05:00:00.100).
    let start = control.now_ms();
    assert_eq!(start, 1_706_763_600_100);
    let end = 1_706_763_600_000 + 180_000;
    let mut seen = Vec::new();
    loop {
        let mut ex = shared.lock().unwrap();
        let Some(t) = ex.next_event_time().filter(|t| *t <= end) else {
            break;
        };
        ex.advance_to(t);
        drop(ex);
        let stats = control.replay_stats().unwrap();
        seen.push((t, stats.applied));
    }
    shared.lock().unwrap().advance_to(end);
    let stats = control.replay_stats().unwrap();
    assert!(stats.ended);
    assert_eq!((stats.bad_lines, stats.unknown), (0, 0));
    // Each step applied the recorded events of its instant, in time order (funding once
    // every 8 hours is past the end).
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    assert_eq!(seen.last().unwrap().1, stats.applied);
    assert!(seen.len() >= 180, "{}", seen.len());
    let candle = "/v3/kline?symbol=icp_usdt&period=1&start_time=1706763600&end_time=1706763659";
    let stepped = {
        let mut ex = shared.lock().unwrap();
        (
            get(&mut ex, candle),
            get(&mut ex, "/v3/trades?symbol=icp_usdt&limit=500"),
            get(&mut ex, "/swap/v2/public/ticker?instrument_id=ICPUSDTPERP"),
        )
    };
    // Exactly the captured candle (core/tests/data/real/v3_kline_4.json).
    assert_eq!(
        stepped.0["data"],
        json!([[1706763600, 3.36, 11.364, 11.367, 11.353, 11.357]])
    );
    // The same as one jump to the end.
    let mut once = Exchange::new(config).unwrap();
    once.advance_to(end);
    assert_eq!(get(&mut once, candle), stepped.0);
    assert_eq!(
        get(&mut once, "/v3/trades?symbol=icp_usdt&limit=500"),
        stepped.1
    );
    assert_eq!(
        get(
            &mut once,
            "/swap/v2/public/ticker?instrument_id=ICPUSDTPERP"
        ),
        stepped.2
    );
}

fn post(ex: &mut Exchange, target: &str, body: Value) -> digifinex_sim::Reply {
    let req = http::Request::post(target)
        .header("host", "localhost")
        .header("content-type", "application/json")
        .body(body.to_string().into_bytes())
        .unwrap();
    ex.handle(req)
}

fn answer(reply: digifinex_sim::Reply) -> (u16, Value) {
    let resp = reply.into_response().expect("an answer");
    let status = resp.status().as_u16();
    (
        status,
        serde_json::from_slice(resp.body()).unwrap_or(Value::Null),
    )
}

#[test]
fn the_control_api_moves_virtual_time_and_faults_are_handed_back() {
    let mut ex = Exchange::new(SimConfig {
        start_time_ms: Some(START),
        ..SimConfig::default()
    })
    .unwrap();
    let events = |ex: &mut Exchange| get(ex, "/__sim/flow")["events"].as_u64().unwrap();
    let before = events(&mut ex);
    // advance_ms runs everything up to the new time at once.
    let (status, clock) = answer(post(&mut ex, "/__sim/clock", json!({"advance_ms": 60_000})));
    assert_eq!(status, 200);
    assert_eq!(clock["now_ms"], START + 60_000);
    assert_eq!(clock["offset_ms"], 0);
    assert_eq!(ex.now_ms(), START + 60_000);
    assert!(ex.next_event_time().unwrap() > START + 60_000);
    assert!(events(&mut ex) > before + 1_000);
    // No wall clock to be offset from: refused, naming the field, nothing changed.
    let (status, err) = answer(post(&mut ex, "/__sim/clock", json!({"offset_ms": 5})));
    assert_eq!(status, 400);
    assert!(
        err["error"].as_str().unwrap().starts_with("offset_ms"),
        "{err}"
    );
    assert_eq!(ex.now_ms(), START + 60_000);
    let (_, clock) = answer(post(
        &mut ex,
        "/__sim/clock",
        json!({"freeze_at_ms": START + 120_000}),
    ));
    assert_eq!(
        (clock["now_ms"].as_i64(), clock["frozen"].as_bool()),
        (Some(START + 120_000), Some(true))
    );

    // A latency fault hands the request back unapplied; a late answer is applied at once.
    let rule = json!({"method": "GET", "path": "/v3/ping", "fault": {"kind": "latency", "ms": 250}, "count": 1});
    assert_eq!(answer(post(&mut ex, "/__sim/faults", rule)).0, 200);
    let ping = || http::Request::get("/v3/ping").body(Vec::new()).unwrap();
    let digifinex_sim::Reply::Delay { delay_ms, request } = ex.handle(ping()) else {
        panic!("a delay")
    };
    assert_eq!(delay_ms, 250);
    ex.advance_to(ex.now_ms() + 250);
    assert_eq!(answer(ex.resume(request)).1["msg"], "pong");
    let rule =
        json!({"path": "/v3/ping", "fault": {"kind": "late_answer", "delay_ms": 70}, "count": 1});
    answer(post(&mut ex, "/__sim/faults", rule));
    let digifinex_sim::Reply::Answer { after_ms, .. } = ex.handle(ping()) else {
        panic!("an answer")
    };
    assert_eq!(after_ms, 70);
}

#[test]
fn websocket_timers_run_in_virtual_time() {
    let mut ex = Exchange::new(SimConfig {
        start_time_ms: Some(START),
        ws: WsSettings {
            idle_timeout: Some(std::time::Duration::from_secs(60)),
            lifetime: Some(std::time::Duration::from_secs(600)),
            auth_failures: 2,
            ..WsSettings::default()
        },
        ..SimConfig::default()
    })
    .unwrap();
    let quiet = ex.ws_connect(WsFamily::Spot).unwrap();
    let chatty = ex.ws_connect(WsFamily::Swap).unwrap();
    let banned = ex.ws_connect(WsFamily::Spot).unwrap();
    // The idle timer is the next event; the silent socket goes at 60 s exactly.
    assert!(ex.next_event_time().unwrap() <= START + 60_000);
    let ping = json!({"event": "server.ping", "id": 1}).to_string();
    for s in 1..=59 {
        ex.advance_to(START + s * 10_000);
        ex.ws_input(chatty, ping.as_bytes());
        if s == 5 {
            assert!(ex.ws_is_open(quiet));
        }
        if s == 6 {
            assert!(!ex.ws_is_open(quiet));
            assert_eq!(drain(&mut ex, quiet), vec![WsOut::Dropped]);
            assert_eq!(ex.ws_poll(quiet), None);
        }
        if s == 1 {
            // Two bad auths: answered, then the socket is dropped 100 ms later.
            for id in [1, 2] {
                let bad = json!({"id": id, "method": "server.auth", "params": ["k", START.to_string(), "AAAA"]});
                ex.ws_input(banned, bad.to_string().as_bytes());
            }
            ex.advance_to(START + 10_099);
            assert!(ex.ws_is_open(banned));
            ex.advance_to(START + 10_100);
            let out = drain(&mut ex, banned);
            assert_eq!(out.len(), 3, "{out:?}");
            assert_eq!(out[1].value().unwrap()["error"]["code"], 3);
            assert_eq!(out[2], WsOut::Dropped);
        }
    }
    // The lifetime cap ends the chatty one at 600 s, pings or not.
    assert!(ex.ws_is_open(chatty));
    ex.advance_to(START + 600_000);
    assert!(!ex.ws_is_open(chatty));
    assert_eq!(drain(&mut ex, chatty).last(), Some(&WsOut::Dropped));
}

#[test]
fn funding_is_an_event_of_its_own() {
    let mut ex = Exchange::new(SimConfig {
        start_time_ms: Some(START + 1),
        ..SimConfig::default().without_flow()
    })
    .unwrap();
    // Nothing but funding is scheduled: the next event is the next funding time.
    let next = get(&mut ex, "/__sim/swap/funding")["next_funding_time"]
        .as_i64()
        .unwrap();
    assert_eq!(ex.next_event_time(), Some(next));
    let instruments: Vec<String> = get(&mut ex, "/swap/v2/public/instruments")["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["instrument_id"].as_str().unwrap().to_owned())
        .collect();
    // Settlements in the funding histories of every instrument.
    let history = |ex: &mut Exchange| -> usize {
        instruments
            .iter()
            .map(|i| {
                let t = format!("/swap/v2/public/funding_rate_history?instrument_id={i}&limit=100");
                get(ex, &t)["data"]["funding_rates"]
                    .as_array()
                    .unwrap()
                    .len()
            })
            .sum()
    };
    let settled = history(&mut ex);
    ex.advance_to(next - 1);
    assert_eq!(history(&mut ex), settled);
    ex.advance_to(next);
    assert!(history(&mut ex) > settled);
    assert!(ex.next_event_time().unwrap() > next);
}
