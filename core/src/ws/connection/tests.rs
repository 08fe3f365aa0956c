//! The socket machine end to end: books and resyncs, the keepalive, the backoff, the lifetime
//! recycle, the channel limit, `server.auth` before the private subscriptions, the timeouts
//! and the tolerant reading of frames.

use std::str::FromStr;
use std::time::Duration;

use rust_decimal::Decimal;

use super::{Action, Connection, SubscriptionState, WsConfig};
use crate::credentials::Credentials;
use crate::types::{Family, TimestampMillis};
use crate::ws::book::ResyncReason;
use crate::ws::event::{BookUpdate, CloseReason, Event, ReplyError};
use crate::ws::frame::tests::zlib;
use crate::ws::frame::Frame;
use crate::ws::model::Level;
use crate::ws::subscription::{Channel, SubscribeError, Subscription};

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

/// The dialect a connection holds keeps it `Send`, `Sync` and unwind-safe (as before it held
/// one).
#[test]
fn connection_stays_send_sync_and_unwind_safe() {
    fn check<T: Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>(_: &T) {}
    for family in [Family::Spot, Family::Swap] {
        let c = Connection::new(family, WsConfig::default(), None);
        check(&c);
        assert_eq!(c.family(), family);
    }
}

/// Swap code 5 ("repeat subscribe") is a running stream: acknowledged. On spot, the same code
/// is a refusal.
#[test]
fn a_repeat_subscribe_is_acknowledged_on_swap_only() {
    let (mut c, sub) = swap_depth();
    drain(&mut c, T0);
    c.unsubscribe(&sub);
    c.subscribe(sub.clone()).unwrap();
    let (sent, _, _) = drain(&mut c, T0);
    assert_eq!(
        sent[1],
        r#"{"event":"depth.subscribe","id":3,"instrument_id":"BTCUSDTPERP","level":20}"#
    );
    binary(
        &mut c,
        T0,
        r#"{"event":"depth.subscribe","id":3,"code":5,"msg":"repeat subscribe"}"#,
    );
    let (_, ev, _) = drain(&mut c, T0);
    assert_eq!(
        ev,
        vec![Event::Subscribed {
            subscriptions: vec![sub.clone()]
        }]
    );
    assert_eq!(
        c.subscriptions().map(|(_, s)| s).collect::<Vec<_>>(),
        vec![SubscriptionState::Active]
    );

    let mut c = Connection::new(Family::Spot, WsConfig::default(), None);
    let sub: Subscription = "spot:ticker:btc_usdt".parse().unwrap();
    c.subscribe(sub.clone()).unwrap();
    drain(&mut c, T0);
    c.on_connected(TimestampMillis(T0));
    drain(&mut c, T0);
    binary(
        &mut c,
        T0,
        r#"{"id":1,"result":null,"error":{"code":5,"message":"repeat subscribe"}}"#,
    );
    let (_, ev, _) = drain(&mut c, T0);
    assert_eq!(
        ev,
        vec![Event::Refused {
            family: Family::Spot,
            request: "ticker.subscribe".into(),
            subscriptions: vec![sub],
            error: ReplyError {
                code: Some(5),
                message: Some("repeat subscribe".into())
            }
        }]
    );
    assert_eq!(
        c.subscriptions().map(|(_, s)| s).collect::<Vec<_>>(),
        vec![SubscriptionState::Refused]
    );
}
