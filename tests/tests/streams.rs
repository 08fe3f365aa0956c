//! Websocket conformance: both clients (blocking `digifinex-ureq`, async `digifinex-hyper`)
//! against the simulator's websockets (served by `Sim::start` beside REST, over the same
//! market) on loopback: subscribe and receive, keepalive under silence, recycle at the lifetime
//! cap, and recovery from each fault with a book equal to the simulator's REST book.

use std::time::{Duration, Instant};

use digifinex_core::ws::{Book, CloseReason, Event, ResyncReason, Subscription, WsConfig};
use digifinex_core::Family;
use digifinex_sim::{FlowSpec, SimConfig, SimHandle, WsFamily, WsFault, WsSettings};

/// A client under test, blocking or async (driven on its own runtime).
trait Client {
    fn next(&mut self) -> Option<Event>;
    fn book(&self, sub: &Subscription) -> Option<Book>;
    fn request_time(&mut self);
    fn unsubscribe(&mut self, sub: &Subscription) -> bool;
}

struct Blocking(digifinex_ureq::ws::Stream);

impl Client for Blocking {
    fn next(&mut self) -> Option<Event> {
        self.0.next_event()
    }
    fn book(&self, sub: &Subscription) -> Option<Book> {
        self.0.streams().book(sub).cloned()
    }
    fn request_time(&mut self) {
        self.0.request_time()
    }
    fn unsubscribe(&mut self, sub: &Subscription) -> bool {
        self.0.unsubscribe(sub)
    }
}

struct Async(digifinex_hyper::ws::Stream, tokio::runtime::Runtime);

impl Client for Async {
    fn next(&mut self) -> Option<Event> {
        let Async(stream, rt) = self;
        rt.block_on(stream.next_event())
    }
    fn book(&self, sub: &Subscription) -> Option<Book> {
        self.0.streams().book(sub).cloned()
    }
    fn request_time(&mut self) {
        self.0.request_time()
    }
    fn unsubscribe(&mut self, sub: &Subscription) -> bool {
        self.0.unsubscribe(sub)
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Blocking,
    Async,
}

fn fast_config() -> WsConfig {
    WsConfig {
        ping_interval: Duration::from_millis(300),
        // Generous: a loaded machine's simulator may answer late (no test here is about it).
        pong_timeout: Duration::from_secs(5),
        reconnect_initial: Duration::from_millis(50),
        reconnect_max: Duration::from_millis(400),
        snapshot_timeout: Duration::from_secs(2),
        ..WsConfig::default()
    }
}

/// A simulator whose streamed markets (BTC and ETH, both families) move forty times as often
/// as by default (a trade or two a second, a book change every few milliseconds), pushing every
/// 20 ms; the others stand still, so that the simulator's one thread keeps up on a loaded
/// machine.
fn sim(ws: WsSettings) -> SimHandle {
    let mut config = SimConfig::default().without_limits();
    let streamed = |base: &str| base == "BTC" || base == "ETH";
    for m in &mut config.markets {
        let quick = streamed(&m.base) && m.quote == "USDT";
        m.flow = m
            .flow
            .take()
            .filter(|_| quick)
            .map(|f| f.scaled(Decimal::from(40)));
    }
    for i in &mut config.swap_instruments {
        let quick = streamed(&i.base);
        i.flow = i
            .flow
            .take()
            .filter(|_| quick)
            .map(|f| f.scaled(Decimal::from(40)));
    }
    config.ws = WsSettings {
        tick: Duration::from_millis(20),
        ..ws
    };
    Sim::start(config).expect("the simulator starts")
}

/// Instruments `C0USDTPERP`, `C1USDTPERP`, ... beside the default ones.
fn many_instruments(n: usize, flow: Option<FlowSpec>) -> SimHandle {
    let mut config = SimConfig::default().without_limits();
    for i in 0..n {
        let mut spec = digifinex_sim::SwapInstrumentSpec::new(
            &format!("C{i}"),
            "USDT",
            Decimal::ONE,
            2,
            Decimal::from(100),
        );
        spec.flow = flow.clone();
        config.swap_instruments.push(spec);
    }
    Sim::start(config).expect("the simulator starts")
}

fn client(
    kind: Kind,
    sim: &SimHandle,
    family: Family,
    subs: &[&str],
    config: WsConfig,
) -> Box<dyn Client> {
    let url = match family {
        Family::Spot => sim.spot_ws_url(),
        _ => sim.swap_ws_url(),
    };
    let subs: Vec<Subscription> = subs.iter().map(|s| s.parse().unwrap()).collect();
    match kind {
        Kind::Blocking => {
            let mut b = digifinex_ureq::ws::StreamBuilder::new(family)
                .url(url)
                .allow_http(true)
                .config(config);
            for s in subs {
                b = b.subscribe(s);
            }
            Box::new(Blocking(b.build().unwrap()))
        }
        Kind::Async => {
            let mut b = digifinex_hyper::ws::StreamBuilder::new(family)
                .url(url)
                .allow_http(true)
                .config(config);
            for s in subs {
                b = b.subscribe(s);
            }
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            Box::new(Async(b.build().unwrap(), rt))
        }
    }
}

/// Reads events for `d`, all of them returned (panics past a hard limit).
fn run_for(c: &mut dyn Client, d: Duration) -> Vec<Event> {
    let end = Instant::now() + d;
    let mut out = Vec::new();
    while Instant::now() < end {
        out.push(c.next().expect("the stream goes on"));
    }
    out
}

/// Reads events until `pred` holds for one, within `limit`; returns them all.
fn until(c: &mut dyn Client, limit: Duration, pred: impl Fn(&Event) -> bool) -> Vec<Event> {
    let end = Instant::now() + limit;
    let mut out = Vec::new();
    loop {
        assert!(
            Instant::now() < end,
            "no matching event within {limit:?}; got {out:#?}"
        );
        let e = c.next().expect("the stream goes on");
        let done = pred(&e);
        out.push(e);
        if done {
            return out;
        }
    }
}

/// Pauses the simulator's order flow, drains the frames already sent (a `server.time`
/// marker), and checks the client's book against the simulator's REST book.
fn assert_book_matches(c: &mut dyn Client, sim: &SimHandle, sub: &Subscription, depth: usize) {
    sim.control().pause_flow(true);
    // Frames queued before the pause took effect are ahead of the marker's reply.
    std::thread::sleep(Duration::from_millis(60));
    c.request_time();
    until(c, Duration::from_secs(5), |e| {
        matches!(e, Event::ServerTime { .. })
    });
    let family = match sub.family {
        Family::Spot => WsFamily::Spot,
        _ => WsFamily::Swap,
    };
    let view = sim
        .control()
        .book(family, sub.target.as_deref().unwrap(), depth)
        .unwrap();
    let (bids, asks) = (view.bids, view.asks);
    let book = c.book(sub).expect("a book");
    assert!(book.is_live(), "the book is live");
    let got_bids: Vec<_> = book.bids().map(|l| (l.price, l.size)).collect();
    let got_asks: Vec<_> = book.asks().map(|l| (l.price, l.size)).collect();
    assert_eq!(got_bids, bids, "bids");
    assert_eq!(got_asks, asks, "asks");
    assert!(!bids.is_empty() && !asks.is_empty());
    sim.control().pause_flow(false);
}

fn count(events: &[Event], pred: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|e| pred(e)).count()
}

fn is_book(e: &Event, snapshot: bool) -> bool {
    matches!(e, Event::Book(b) if b.snapshot == snapshot)
}

// ---------------------------------------------------------------------------------------------

fn subscribe_and_receive(kind: Kind) {
    let sim = sim(WsSettings::default());
    for (family, subs, depth) in [
        (
            Family::Spot,
            [
                "spot:depth:btc_usdt",
                "spot:trades:btc_usdt",
                "spot:ticker:btc_usdt",
            ],
            30,
        ),
        (
            Family::Swap,
            [
                "swap:depth:BTCUSDTPERP:10",
                "swap:trades:BTCUSDTPERP",
                "swap:ticker:BTCUSDTPERP",
            ],
            10,
        ),
    ] {
        let mut c = client(kind, &sim, family, &subs, fast_config());
        let first = until(&mut *c, Duration::from_secs(5), |e| is_book(e, true));
        assert!(
            matches!(first[0], Event::Connecting { attempt: 1, .. }),
            "{first:?}"
        );
        assert!(first.iter().any(|e| matches!(e, Event::Connected { .. })));
        let events = run_for(&mut *c, Duration::from_millis(800));
        assert!(count(&events, |e| is_book(e, false)) >= 5, "deltas");
        let trades = |e: &Event| matches!(e, Event::SpotTrades { .. } | Event::SwapTrades { .. });
        let tickers = |e: &Event| matches!(e, Event::SpotTickers { .. } | Event::SwapTicker(_));
        // The recent-trades list, then live trades (a Poisson flow: wait for one when the
        // 0.8 s above had none).
        if count(&first, trades) + count(&events, trades) < 2 {
            until(&mut *c, Duration::from_secs(10), trades);
        }
        assert!(count(&events, tickers) >= 3, "tickers");
        // Every book update leaves the book uncrossed.
        for e in &events {
            if let Event::Book(b) = e {
                assert!(b.best_bid.unwrap().price < b.best_ask.unwrap().price);
            }
        }
        let sub: Subscription = subs[0].parse().unwrap();
        assert_book_matches(&mut *c, &sim, &sub, depth);
    }
}

#[test]
fn blocking_subscribe_and_receive() {
    subscribe_and_receive(Kind::Blocking);
}

#[test]
fn async_subscribe_and_receive() {
    subscribe_and_receive(Kind::Async);
}

fn keepalive_under_silence(kind: Kind) {
    // The server drops a socket 1 s after the client's last frame, whatever it pushes.
    let sim = sim(WsSettings {
        idle_timeout: Some(Duration::from_secs(1)),
        ..WsSettings::default()
    });
    let subs = ["swap:ticker:BTCUSDTPERP"];
    let mut c = client(kind, &sim, Family::Swap, &subs, fast_config());
    let events = run_for(&mut *c, Duration::from_secs(3));
    assert_eq!(
        count(&events, |e| matches!(e, Event::Disconnected { .. })),
        0
    );
    assert_eq!(sim.control().ws_accepted(), 1);
    // Without pings inside the idle rule, the socket is dropped and replaced.
    let slow = WsConfig {
        ping_interval: Duration::from_secs(30),
        ..fast_config()
    };
    let mut c = client(kind, &sim, Family::Swap, &subs, slow);
    let events = until(&mut *c, Duration::from_secs(5), |e| {
        matches!(
            e,
            Event::Disconnected {
                reason: CloseReason::Lost(_),
                ..
            }
        )
    });
    assert!(count(&events, |e| matches!(e, Event::SwapTicker(_))) > 0);
    until(&mut *c, Duration::from_secs(5), |e| {
        matches!(e, Event::Subscribed { .. })
    });
}

#[test]
fn blocking_keepalive_under_silence() {
    keepalive_under_silence(Kind::Blocking);
}

#[test]
fn async_keepalive_under_silence() {
    keepalive_under_silence(Kind::Async);
}

fn recycle_at_lifetime(kind: Kind) {
    // The client recycles before the server's cap, make before break: the replacement is
    // opened and its book snapshotted before the old socket is closed.
    let sim = sim(WsSettings {
        lifetime: Some(Duration::from_secs(3)),
        ..WsSettings::default()
    });
    let sub = "spot:depth:eth_usdt";
    let config = WsConfig {
        lifetime: Duration::from_millis(1500),
        lifetime_jitter: Duration::ZERO,
        ..fast_config()
    };
    let mut c = client(kind, &sim, Family::Spot, &[sub], config);
    let events = until(&mut *c, Duration::from_secs(5), |e| {
        matches!(e, Event::Disconnected { .. })
    });
    let Some(Event::Disconnected {
        socket,
        reason,
        retry_in_ms,
        ..
    }) = events.last()
    else {
        unreachable!()
    };
    assert_eq!(
        (*socket, reason, *retry_in_ms),
        (0, &CloseReason::Recycle, None)
    );
    let switched = events
        .iter()
        .position(|e| matches!(e, Event::Switched { from: 0, to: 1, .. }))
        .expect("a switch before the old socket closed");
    // The replacement's book, right after the switch; never a resync.
    assert!(
        matches!(events.get(switched + 1), Some(e) if is_book(e, true)),
        "{events:#?}"
    );
    assert!(
        !events.iter().any(|e| matches!(e, Event::Resync { .. })),
        "{events:#?}"
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Connected { socket: 1, .. })));
    assert_eq!(sim.control().ws_accepted(), 2);
    let sub: Subscription = sub.parse().unwrap();
    run_for(&mut *c, Duration::from_millis(300));
    assert_book_matches(&mut *c, &sim, &sub, 30);
    // ...and survives the server's cap when it does not.
    let sim = self::sim(WsSettings {
        lifetime: Some(Duration::from_secs(1)),
        ..WsSettings::default()
    });
    let mut c = client(
        kind,
        &sim,
        Family::Spot,
        &["spot:depth:eth_usdt"],
        fast_config(),
    );
    until(&mut *c, Duration::from_secs(5), |e| {
        matches!(
            e,
            Event::Disconnected {
                reason: CloseReason::Lost(_),
                ..
            }
        )
    });
    until(&mut *c, Duration::from_secs(5), |e| is_book(e, true));
    run_for(&mut *c, Duration::from_millis(200));
    assert_book_matches(&mut *c, &sim, &sub, 30);
}

#[test]
fn blocking_recycle_at_lifetime() {
    recycle_at_lifetime(Kind::Blocking);
}

#[test]
fn async_recycle_at_lifetime() {
    recycle_at_lifetime(Kind::Async);
}

fn faults(kind: Kind) {
    let sim = sim(WsSettings::default());
    let config = WsConfig {
        book_max_age: Some(Duration::from_secs(1)),
        ..fast_config()
    };
    let subs = ["swap:depth:ETHUSDTPERP:20", "swap:ticker:ETHUSDTPERP"];
    let sub: Subscription = subs[0].parse().unwrap();
    let mut c = client(kind, &sim, Family::Swap, &subs, config);
    until(&mut *c, Duration::from_secs(5), |e| is_book(e, true));

    // Dropped deltas: invisible in the stream; the book's age limit resnapshots it.
    sim.control().ws_fault(WsFault::DropDeltas, 3);
    let events = until(&mut *c, Duration::from_secs(5), |e| {
        matches!(
            e,
            Event::Resync {
                reason: ResyncReason::Stale,
                ..
            }
        )
    });
    assert!(!events.is_empty());
    until(&mut *c, Duration::from_secs(5), |e| is_book(e, true));
    assert_book_matches(&mut *c, &sim, &sub, 20);

    // Plain text frames are read like zlib ones.
    sim.control().ws_fault(WsFault::PlainText, 20);
    let events = run_for(&mut *c, Duration::from_millis(500));
    assert_eq!(
        count(&events, |e| matches!(e, Event::Undecodable { .. })),
        0
    );
    assert!(count(&events, |e| is_book(e, false)) > 0);
    assert_book_matches(&mut *c, &sim, &sub, 20);

    // A forced disconnect: reconnect, resubscribe, new snapshot.
    sim.control().ws_disconnect_all();
    let events = until(&mut *c, Duration::from_secs(5), |e| is_book(e, true));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Disconnected {
            reason: CloseReason::Lost(_),
            ..
        }
    )));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Resync {
            reason: ResyncReason::Reconnect,
            ..
        }
    )));
    assert_book_matches(&mut *c, &sim, &sub, 20);

    // Handshake 502s: backoff, then a socket.
    sim.control().ws_fault(WsFault::Handshake502, 2);
    sim.control().ws_disconnect_all();
    let events = until(&mut *c, Duration::from_secs(8), |e| is_book(e, true));
    let failed: Vec<&CloseReason> = events
        .iter()
        .filter_map(|e| match e {
            Event::Disconnected {
                reason: r @ CloseReason::ConnectFailed(_),
                ..
            } => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(
        failed,
        vec![&CloseReason::ConnectFailed("HTTP 502".into()); 2],
        "{events:#?}"
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Connecting { attempt: 3, .. })));
    assert_book_matches(&mut *c, &sim, &sub, 20);
}

#[test]
fn blocking_faults() {
    faults(Kind::Blocking);
}

#[test]
fn async_faults() {
    faults(Kind::Async);
}

/// The simulator drops a swap socket on its 31st channel, without a reply (the clients refuse
/// it locally, so this speaks the protocol by hand).
#[test]
fn sim_drops_the_31st_swap_channel() {
    use tungstenite::Message;
    let sim = many_instruments(31, None);
    let (mut ws, _) = tungstenite::connect(sim.swap_ws_url()).unwrap();
    let ids: Vec<String> = (0..30).map(|i| format!("C{i}USDTPERP")).collect();
    ws.send(Message::text(
        serde_json::json!({"event":"ticker.subscribe","id":1,"instrument_ids":ids}).to_string(),
    ))
    .unwrap();
    let reply = loop {
        if let Message::Binary(b) = ws.read().unwrap() {
            let text = miniz_oxide::inflate::decompress_to_vec_zlib(&b).unwrap();
            let v: serde_json::Value = serde_json::from_slice(&text).unwrap();
            if v.get("code").is_some() {
                break v;
            }
        }
    };
    assert_eq!(reply["code"], 1);
    ws.send(Message::text(
        r#"{"event":"ticker.subscribe","id":2,"instrument_id":"C30USDTPERP"}"#,
    ))
    .unwrap();
    loop {
        match ws.read() {
            Ok(Message::Binary(b)) => {
                let text = miniz_oxide::inflate::decompress_to_vec_zlib(&b).unwrap();
                let v: serde_json::Value = serde_json::from_slice(&text).unwrap();
                assert!(v.get("code").is_none(), "no reply to the 31st: {v}");
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Private channels: pushes when the REST simulator's orders and balances change.

use digifinex_core::spot::{
    CancelOrdersRequest, LimitOrder, Market, OrderStatus, PlaceOrderRequest,
};
use digifinex_core::{swap, Amount, Credentials, Decimal, Price, Size};
use digifinex_sim::Sim;

fn private_client(
    kind: Kind,
    family: Family,
    subs: &[&str],
    creds: &Credentials,
    rest: &digifinex_sim::SimHandle,
) -> Box<dyn Client> {
    let url = match family {
        Family::Spot => rest.spot_ws_url(),
        _ => rest.swap_ws_url(),
    };
    let subs: Vec<Subscription> = subs.iter().map(|s| s.parse().unwrap()).collect();
    match kind {
        Kind::Blocking => {
            let client = digifinex_ureq::Client::builder()
                .spot_base_url(rest.spot_base_url())
                .swap_base_url(rest.swap_base_url())
                .allow_http(true)
                .credentials(creds.clone())
                .build()
                .unwrap();
            let mut b = digifinex_ureq::ws::StreamBuilder::new(family)
                .url(url)
                .allow_http(true)
                .credentials(creds.clone())
                .time_offset_from(client)
                .config(fast_config());
            for s in subs {
                b = b.subscribe(s);
            }
            Box::new(Blocking(b.build().unwrap()))
        }
        Kind::Async => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let client = rt.block_on(async {
                digifinex_hyper::Client::builder()
                    .spot_base_url(rest.spot_base_url())
                    .swap_base_url(rest.swap_base_url())
                    .allow_http(true)
                    .credentials(creds.clone())
                    .build()
                    .unwrap()
            });
            let mut b = digifinex_hyper::ws::StreamBuilder::new(family)
                .url(url)
                .allow_http(true)
                .credentials(creds.clone())
                .time_offset_from(client)
                .config(fast_config());
            for s in subs {
                b = b.subscribe(s);
            }
            Box::new(Async(b.build().unwrap(), rt))
        }
    }
}

fn spot_orders(events: &[Event]) -> Vec<(String, Option<OrderStatus>, Option<Decimal>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::SpotOrders { orders } => Some(orders),
            _ => None,
        })
        .flatten()
        .map(|o| (o.id.clone(), o.status.clone(), o.filled))
        .collect()
}

fn spot_private(kind: Kind) {
    let sim = sim(WsSettings::default());
    let ws = sim.control();
    let demo = ws.demo_account();
    let creds = Credentials::new(demo.keys.key.clone(), demo.keys.secret.clone());
    let rest = digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .allow_http(true)
        .credentials(creds.clone())
        .build()
        .unwrap();
    // A public channel keeps events flowing between the private ones.
    let subs = [
        "spot:ticker:btc_usdt",
        "spot:order:btc_usdt",
        "spot:balance:USDT",
    ];
    let mut c = private_client(kind, Family::Spot, &subs, &creds, &sim);
    let events = until(
        &mut *c,
        Duration::from_secs(5),
        |e| matches!(e, Event::Subscribed { subscriptions } if subscriptions[0].channel.is_private()),
    );
    assert!(events.contains(&Event::Authenticated {
        family: Family::Spot
    }));
    run_for(&mut *c, Duration::from_millis(100));

    let buy = |price: i64| {
        PlaceOrderRequest::new(
            Market::Spot,
            "btc_usdt",
            LimitOrder::buy(
                Amount::new(Decimal::new(1, 2)),
                Price::new(Decimal::new(price, 0)),
            ),
        )
    };
    let a = rest.send(&buy(10000)).unwrap().order_id;
    let events = until(&mut *c, Duration::from_secs(5), |e| {
        matches!(e, Event::SpotBalances { .. })
    });
    assert_eq!(
        spot_orders(&events),
        vec![(
            a.clone(),
            Some(OrderStatus::NotExecuted),
            Some(Decimal::ZERO)
        )]
    );
    let Some(Event::SpotBalances { balances }) = events.last() else {
        unreachable!()
    };
    assert_eq!(balances[0].currency, "USDT");
    assert_eq!(balances[0].used, Some(Decimal::new(100, 0)));

    // A duplicated push arrives twice, identical.
    ws.ws_fault(WsFault::DuplicatePrivate, 1);
    rest.send(&CancelOrdersRequest::new(Market::Spot, [a.clone()]))
        .unwrap();
    let events = until(&mut *c, Duration::from_secs(5), |e| {
        matches!(e, Event::SpotBalances { .. })
    });
    let cancelled = (a.clone(), Some(OrderStatus::Cancelled), Some(Decimal::ZERO));
    assert_eq!(spot_orders(&events), vec![cancelled.clone(), cancelled]);

    // A reordered push: the cancel is seen before the placement (no sequence number tells);
    // the cumulative state of the last push is wrong until reconciled over REST.
    assert!(c_unsubscribe_balance(&mut *c));
    // The server has taken the unsubscribe once it answers a later request.
    c.request_time();
    until(&mut *c, Duration::from_secs(5), |e| {
        matches!(e, Event::ServerTime { .. })
    });
    ws.ws_fault(WsFault::ReorderPrivate, 1);
    let b = rest.send(&buy(10001)).unwrap().order_id;
    run_for(&mut *c, Duration::from_millis(100));
    rest.send(&CancelOrdersRequest::new(Market::Spot, [b.clone()]))
        .unwrap();
    let events = until(
        &mut *c,
        Duration::from_secs(5),
        |e| matches!(e, Event::SpotOrders { orders } if orders[0].status == Some(OrderStatus::NotExecuted)),
    );
    assert_eq!(
        spot_orders(&events),
        vec![
            (b.clone(), Some(OrderStatus::Cancelled), Some(Decimal::ZERO)),
            (
                b.clone(),
                Some(OrderStatus::NotExecuted),
                Some(Decimal::ZERO)
            ),
        ]
    );
    // The last push says B is open: only REST can tell otherwise, and the stream reads
    // nothing over REST (a tracker does, tests/track.rs). After a reconnect the stream
    // subscribes again and reports it, for the tracker to resync.
    ws.ws_disconnect_all();
    let events = until(
        &mut *c,
        Duration::from_secs(5),
        |e| matches!(e, Event::Subscribed { subscriptions } if subscriptions[0].channel.is_private()),
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::Disconnected {
                family: Family::Spot,
                ..
            }
        )),
        "{events:?}"
    );
}

/// Drops the balance channel (through the machine, as a user would).
fn c_unsubscribe_balance(c: &mut dyn Client) -> bool {
    c.unsubscribe(&"spot:balance:USDT".parse().unwrap())
}

#[test]
fn blocking_spot_private() {
    spot_private(Kind::Blocking);
}

#[test]
fn async_spot_private() {
    spot_private(Kind::Async);
}

fn swap_private(kind: Kind) {
    let sim = sim(WsSettings::default());
    let ws = sim.control();
    let demo = ws.demo_account();
    let creds = Credentials::new(demo.keys.key.clone(), demo.keys.secret.clone());
    let rest = digifinex_ureq::Client::builder()
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(creds.clone())
        .build()
        .unwrap();
    let subs = ["swap:ticker:BTCUSDTPERP", "swap:order", "swap:account"];
    let mut c = private_client(kind, Family::Swap, &subs, &creds, &sim);
    until(
        &mut *c,
        Duration::from_secs(5),
        |e| matches!(e, Event::Subscribed { subscriptions } if subscriptions[0].channel.is_private()),
    );
    run_for(&mut *c, Duration::from_millis(100));
    // The swap auth timestamp went as a JSON number.
    assert_eq!(ws.ws_auth_timestamp_kinds(), vec!["number"]);
    let placed = rest
        .send(&swap::PlaceOrderRequest::new(swap::OrderSpec::limit(
            "BTCUSDTPERP",
            swap::OrderSide::OpenLong,
            Size::new(Decimal::ONE),
            Price::new(Decimal::new(10000, 0)),
        )))
        .unwrap()
        .order_id;
    let events = until(&mut *c, Duration::from_secs(5), |e| {
        matches!(e, Event::SwapOrders { .. })
    });
    let Some(Event::SwapOrders { orders }) = events.last() else {
        unreachable!()
    };
    assert_eq!(orders[0].order_id, placed);
    assert_eq!(orders[0].state, Some(swap::OrderState::Open));
    assert_eq!(orders[0].size, Some(Decimal::ONE));
    assert_eq!(orders[0].filled_qty, Some(Decimal::ZERO));
    rest.send(&swap::CancelOrderRequest::new(
        "BTCUSDTPERP",
        placed.clone(),
    ))
    .unwrap();
    let events = until(
        &mut *c,
        Duration::from_secs(5),
        |e| matches!(e, Event::SwapOrders { orders } if orders[0].state == Some(swap::OrderState::Canceled)),
    );
    assert!(!events.is_empty());
}

#[test]
fn blocking_swap_private() {
    swap_private(Kind::Blocking);
}

#[test]
fn async_swap_private() {
    swap_private(Kind::Async);
}

/// CPU of one async client holding 30 swap depth channels (level 20) with a delta on nearly
/// every 20 ms tick of the simulator, about 1,000 frames/s (the venue's observed median for the
/// 30 busiest contracts is 75 frames/s, peak 122): the client's thread time over 10 s from
/// `/proc/thread-self/stat`, in the test (debug) build. Run by hand
/// (`cargo test -p digifinex-tests --test streams -- --ignored --nocapture cpu`); the figure is
/// in docs/benchmarks.md.
#[test]
#[ignore]
fn async_30_channels_cpu() {
    fn thread_cpu_ticks() -> u64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }
    let sim = sim(WsSettings::default());
    let subs: Vec<String> = (0..30)
        .map(|i| format!("swap:depth:C{i}USDTPERP:20"))
        .collect();
    let subs: Vec<&str> = subs.iter().map(String::as_str).collect();
    let config = WsConfig {
        ping_interval: Duration::from_secs(20),
        ..WsConfig::default()
    };
    let mut c = client(Kind::Async, &sim, Family::Swap, &subs, config);
    run_for(&mut *c, Duration::from_secs(2));
    let t0 = thread_cpu_ticks();
    let events = run_for(&mut *c, Duration::from_secs(10));
    let ticks = thread_cpu_ticks() - t0;
    let frames = count(&events, |e| is_book(e, false));
    println!(
        "30 channels: {frames} book frames in 10 s ({} /s), client thread CPU {:.1}% of one core",
        frames / 10,
        ticks as f64 / 10.0
    );
}

/// Trades across three recycles: every trade the simulator made after the first one seen is
/// reported exactly once (none lost in a switch, none repeated from the overlap or the
/// recent-trades list a new socket sends).
fn trades_across_recycles(kind: Kind) {
    let sim = sim(WsSettings::default());
    let config = WsConfig {
        lifetime: Duration::from_millis(1200),
        lifetime_jitter: Duration::ZERO,
        ..fast_config()
    };
    let mut c = client(kind, &sim, Family::Spot, &["spot:trades:btc_usdt"], config);
    let mut ids: Vec<u64> = Vec::new();
    let mut switches = 0;
    let end = Instant::now() + Duration::from_secs(20);
    while switches < 3 {
        assert!(Instant::now() < end, "three recycles within 20 s");
        match c.next().expect("the stream goes on") {
            Event::SpotTrades {
                trades, snapshot, ..
            } => {
                // The first list is the recent trades before the stream: not counted.
                if !(snapshot && ids.is_empty()) {
                    ids.extend(trades.iter().map(|t| t.id.parse::<u64>().unwrap()));
                } else if let Some(newest) =
                    trades.iter().map(|t| t.id.parse::<u64>().unwrap()).max()
                {
                    ids.push(newest);
                }
            }
            Event::Switched { .. } => switches += 1,
            _ => {}
        }
    }
    // Everything the simulator traded up to the last id seen has come.
    sim.control().pause_flow(true);
    let last = *ids.iter().max().unwrap();
    let first = *ids.iter().min().unwrap();
    let mut got = ids.clone();
    got.sort_unstable();
    let dup = got.windows(2).filter(|w| w[0] == w[1]).count();
    assert_eq!(dup, 0, "duplicated trade ids: {got:?}");
    let want: Vec<u64> = sim
        .control()
        .trades(WsFamily::Spot, "btc_usdt")
        .unwrap()
        .iter()
        .map(|t| t.id)
        .filter(|id| (first..=last).contains(id))
        .collect();
    assert_eq!(got, want, "trades missing across the switches");
    assert!(want.len() > 10, "the flow traded: {}", want.len());
}

#[test]
fn blocking_trades_across_recycles() {
    trades_across_recycles(Kind::Blocking);
}

#[test]
fn async_trades_across_recycles() {
    trades_across_recycles(Kind::Async);
}

/// Forty swap subscriptions through one builder: two sockets (30 channels each at most),
/// every subscription acknowledged and every book snapshotted.
fn forty_swap_subscriptions(kind: Kind) {
    let flow = SimConfig::default().swap_instruments[0].flow.clone();
    let sim = many_instruments(10, flow);
    let subs: Vec<String> = (0..10)
        .flat_map(|i| {
            ["depth", "ticker", "trades", "mark_price"]
                .into_iter()
                .map(move |ch| match ch {
                    "depth" => format!("swap:depth:C{i}USDTPERP:10"),
                    ch => format!("swap:{ch}:C{i}USDTPERP"),
                })
        })
        .collect();
    assert_eq!(subs.len(), 40);
    let refs: Vec<&str> = subs.iter().map(String::as_str).collect();
    let config = WsConfig {
        snapshot_timeout: Duration::from_secs(10),
        ..fast_config()
    };
    let mut c = client(kind, &sim, Family::Swap, &refs, config);
    let mut acked = 0;
    let mut sockets = std::collections::BTreeSet::new();
    let mut books = std::collections::BTreeSet::new();
    let end = Instant::now() + Duration::from_secs(15);
    while acked < 40 || books.len() < 10 {
        assert!(Instant::now() < end, "acked {acked}, books {}", books.len());
        match c.next().expect("the stream goes on") {
            Event::Subscribed { subscriptions } => acked += subscriptions.len(),
            Event::Connected { socket, .. } => {
                sockets.insert(socket);
            }
            Event::Book(b) if b.snapshot => {
                books.insert(b.subscription.target.clone());
            }
            Event::Refused { .. } => panic!("a subscription was refused"),
            _ => {}
        }
    }
    assert_eq!(sockets.into_iter().collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(sim.control().ws_accepted(), 2);
}

#[test]
fn blocking_forty_swap_subscriptions() {
    forty_swap_subscriptions(Kind::Blocking);
}

#[test]
fn async_forty_swap_subscriptions() {
    forty_swap_subscriptions(Kind::Async);
}
