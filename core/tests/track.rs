//! The account tracker (`digifinex_core::track`) with exact values: duplicated, reordered and
//! missing pushes; a fill seen by push then read over REST, emitted once; an unknown outcome
//! settled by the reads; a resync after a gap that finds an order filled while the socket was
//! down; swap positions; the JSON of a change.
//!
//! The push and REST bodies follow the shapes of `docs/protocol.md` and the spot and swap API
//! (the same samples as `core/src/ws/spot.rs` and `core/src/ws/swap.rs`).

use std::time::Duration;

use digifinex_core::reconcile::{Options, Unknown, Write};
use digifinex_core::track::{
    Answer, Balance, Change, OrderStatus, TrackAnswer, TrackConfig, TrackRead, Tracker, Unsure,
};
use digifinex_core::ws::{decode_frame, CloseReason, Event, Frame};
use digifinex_core::{spot, Amount, Decimal, Family, Price, TimestampMillis};

const T0: TimestampMillis = TimestampMillis(1_700_000_000_000);
const ID: &str = "198361cecdc65f9c8c9bb2fa68faec40";

fn at(ms: i64) -> TimestampMillis {
    TimestampMillis(T0.0 + ms)
}

fn d(text: &str) -> Decimal {
    text.parse().unwrap()
}

fn push(family: Family, text: &str) -> Event {
    let mut events = decode_frame(family, Frame::Text(text)).unwrap();
    assert_eq!(events.len(), 1, "{text}");
    events.remove(0)
}

fn spot_order_push(filled: &str, status: u8) -> Event {
    push(
        Family::Spot,
        &format!(
            r#"{{"method":"order.update","params":[{{"amount":"0.01","filled":"{filled}","id":"{ID}","mode":1,"notional":"0","price":"30000","price_avg":"30000","side":"buy","status":{status},"symbol":"BTC_USDT","timestamp":1700000001000,"type":"limit"}}],"id":null}}"#
        ),
    )
}

/// Answers every read with `answer(read)` (a JSON body) until none is due at `now`; returns
/// the endpoints read, in order.
fn drive(
    t: &mut Tracker,
    now: TimestampMillis,
    answer: impl Fn(&TrackRead) -> String,
) -> Vec<&'static str> {
    let mut reads = Vec::new();
    while let Some(read) = t.next_read(now) {
        reads.push(read.endpoint());
        let body = answer(&read);
        t.feed(read.decode(body.as_bytes()).unwrap(), now);
        assert!(reads.len() < 50, "{reads:?}");
    }
    reads
}

fn changes(t: &mut Tracker) -> Vec<Change> {
    std::iter::from_fn(|| t.poll_change()).collect()
}

const EMPTY_ORDERS: &str = r#"{"code":0,"data":[]}"#;
const EMPTY_TRADES: &str = r#"{"code":0,"list":[]}"#;
const ASSETS: &str = r#"{"code":0,"list":[{"currency":"USDT","free":"700","total":"1000"}]}"#;

/// A spot tracker of btc_usdt after its first resync (no orders, 1000 USDT).
fn spot_tracker() -> Tracker {
    let mut t = Tracker::new(Family::Spot, ["BTC_USDT"], TrackConfig::default(), T0);
    assert_eq!(t.unsure(), vec![Unsure::Starting]);
    let reads = drive(&mut t, T0, |r| {
        match r {
            TrackRead::SpotOpenOrders(_) => EMPTY_ORDERS,
            TrackRead::SpotTrades(_) => EMPTY_TRADES,
            _ => ASSETS,
        }
        .to_owned()
    });
    assert_eq!(
        reads,
        vec!["spot.order_current", "spot.mytrades", "spot.spot_assets"]
    );
    let c = changes(&mut t);
    assert_eq!(
        c,
        vec![
            Change::BalanceChanged {
                currency: "USDT".into(),
                before: None,
                after: Some(Balance::new("USDT", Some(d("700")), Some(d("1000")))),
            },
            Change::Resynced { at: T0, reads: 3 },
        ]
    );
    assert!(t.unsure().is_empty());
    t
}

#[test]
fn duplicated_reordered_and_stale_pushes_change_nothing_twice() {
    let mut t = spot_tracker();
    let open = spot_order_push("0", 0);
    t.on_event(&open, at(1));
    t.on_event(&open, at(2)); // duplicated
    let c = changes(&mut t);
    assert_eq!(c.len(), 1);
    let Change::Placed { order } = &c[0] else {
        panic!("{c:?}")
    };
    assert_eq!(order.order_id, ID);
    assert_eq!(order.market, "btc_usdt");
    assert_eq!(order.side.as_deref(), Some("buy"));
    assert_eq!(order.price, Some(d("30000")));
    assert_eq!(order.amount, Some(d("0.01")));
    assert_eq!(order.filled, Decimal::ZERO);
    assert_eq!(order.status, OrderStatus::Open);

    // Part filled, then the older "open, nothing filled" arrives late (reordered): ignored.
    t.on_event(&spot_order_push("0.004", 1), at(3));
    t.on_event(&open, at(4));
    t.on_event(&spot_order_push("0.004", 1), at(5)); // duplicated
    assert_eq!(
        changes(&mut t),
        vec![Change::Progress {
            order_id: ID.into(),
            market: "btc_usdt".into(),
            before: Decimal::ZERO,
            filled: d("0.004"),
        }]
    );
    // The execution's fills are due half a second later.
    assert_eq!(
        t.unsure(),
        vec![Unsure::FillsPending {
            market: "btc_usdt".into()
        }]
    );
    assert_eq!(t.next_deadline(), Some(at(503)));

    // Cancelled after the part fill; a stale "open" afterwards does not reopen it.
    t.on_event(&spot_order_push("0.004", 4), at(6));
    t.on_event(&spot_order_push("0.004", 1), at(7));
    assert_eq!(
        changes(&mut t),
        vec![Change::Cancelled {
            order_id: ID.into(),
            market: "btc_usdt".into(),
            filled: d("0.004"),
        }]
    );
    assert_eq!(t.open_orders().count(), 0);
    assert_eq!(t.order(ID).unwrap().status, OrderStatus::Cancelled);

    // A push of another pair is not this tracker's.
    t.on_event(
        &push(
            Family::Spot,
            r#"{"method":"order.update","params":[{"id":"e1","symbol":"ETH_USDT","filled":"0","status":0}],"id":null}"#,
        ),
        at(8),
    );
    // A balance pushed twice changes once.
    let b = push(
        Family::Spot,
        r#"{"method":"balance.update","params":[{"currency":"USDT","free":"600","total":"1000","used":"400"}],"id":null}"#,
    );
    t.on_event(&b, at(9));
    t.on_event(&b, at(10));
    assert_eq!(
        changes(&mut t),
        vec![Change::BalanceChanged {
            currency: "USDT".into(),
            before: Some(Balance::new("USDT", Some(d("700")), Some(d("1000")))),
            after: Some(Balance::new("USDT", Some(d("600")), Some(d("1000")))),
        }]
    );
}

const TRADE: &str = r#"{"code":0,"list":[{"symbol":"BTC_USDT","order_id":"198361cecdc65f9c8c9bb2fa68faec40","id":"7001","price":30000,"amount":0.004,"fee":0.000004,"fee_currency":"btc","timestamp":1700000001,"side":"buy","is_maker":true}]}"#;

#[test]
fn a_fill_seen_by_push_then_read_is_emitted_once() {
    let mut t = spot_tracker();
    t.on_event(&spot_order_push("0", 0), at(1));
    t.on_event(&spot_order_push("0.004", 1), at(2));
    assert_eq!(changes(&mut t).len(), 2); // placed, progress
                                          // Not before the fill delay.
    assert_eq!(t.next_read(at(100)), None);
    let reads = drive(&mut t, at(502), |_| TRADE.to_owned());
    assert_eq!(reads, vec!["spot.mytrades"]);
    let c = changes(&mut t);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(
        serde_json::to_string(&c[0]).unwrap(),
        r#"{"change":"filled","trade":{"trade_id":"7001","order_id":"198361cecdc65f9c8c9bb2fa68faec40","market":"btc_usdt","side":"buy","price":"30000","amount":"0.004","time":1700000001000,"maker":true},"fee":{"amount":"0.000004","currency":"BTC"}}"#
    );
    assert_eq!(t.order(ID).unwrap().traded, d("0.004"));
    assert!(t.unsure().is_empty(), "{:?}", t.unsure());

    // The fills read started at the tracker's creation less the overlap (5 s), in seconds.
    t.request_resync();
    let read = t.next_read(at(600)).unwrap();
    assert_eq!(read.endpoint(), "spot.order_current");
    t.feed(
        read.decode(
            format!(
                r#"{{"code":0,"data":[{{"order_id":"{ID}","symbol":"BTC_USDT","price":30000,"amount":0.01,"executed_amount":0.004,"status":1,"type":"buy","created_date":1700000000}}]}}"#
            )
            .as_bytes(),
        )
        .unwrap(),
        at(600),
    );
    let read = t.next_read(at(600)).unwrap();
    let TrackRead::SpotTrades(r) = &read else {
        panic!("{read:?}")
    };
    // The cursor is the newest fill (second 1700000001) less 5 s.
    assert!(
        format!("{r:?}").contains("start_time: Some(TimestampSecs(1699999996))"),
        "{r:?}"
    );
    // The same fill read again (and a duplicate in the page) is not emitted again.
    let twice = r#"{"code":0,"list":[{"symbol":"BTC_USDT","order_id":"198361cecdc65f9c8c9bb2fa68faec40","id":"7001","price":30000,"amount":0.004,"fee":0.000004,"fee_currency":"btc","timestamp":1700000001},{"symbol":"BTC_USDT","order_id":"198361cecdc65f9c8c9bb2fa68faec40","id":7001,"amount":0.004,"timestamp":1700000001}]}"#;
    t.feed(read.decode(twice.as_bytes()).unwrap(), at(600));
    drive(&mut t, at(600), |_| ASSETS.to_owned());
    assert_eq!(
        changes(&mut t),
        vec![Change::Resynced {
            at: at(600),
            reads: 3
        }]
    );
    assert_eq!(t.order(ID).unwrap().traded, d("0.004"));
}

#[test]
fn an_unknown_outcome_is_settled_by_the_reads() {
    let mut config = TrackConfig::default();
    config.reconcile = Options::new().clock_uncertainty(Duration::ZERO);
    let mut t = Tracker::new(Family::Spot, ["btc_usdt"], config, T0);
    drive(&mut t, T0, |r| {
        match r {
            TrackRead::SpotOpenOrders(_) => EMPTY_ORDERS,
            TrackRead::SpotTrades(_) => EMPTY_TRADES,
            _ => ASSETS,
        }
        .to_owned()
    });
    changes(&mut t);
    let order = spot::PlaceOrderRequest::new(
        spot::Market::Spot,
        "btc_usdt",
        spot::LimitOrder::buy(Amount::new(d("0.01")), Price::new(d("25000"))),
    );
    t.on_unknown(
        Unknown::new(Write::SpotOrder(order), Some(at(1000))),
        at(1500),
    );
    assert_eq!(
        t.unsure(),
        vec![Unsure::Unknown {
            endpoint: "spot.order_new".into()
        }]
    );
    // Created two seconds after the build: certainly this write's.
    let open = r#"{"code":0,"data":[{"order_id":"x9","symbol":"BTC_USDT","created_date":1700000003,"price":25000,"amount":0.01,"executed_amount":0,"status":0,"type":"buy"}]}"#;
    let reads = drive(&mut t, at(4000), |r| {
        match r {
            TrackRead::Reconcile(digifinex_core::reconcile::Read::SpotCurrentOrders(_)) => open,
            TrackRead::Reconcile(_) => EMPTY_ORDERS,
            TrackRead::SpotOpenOrders(_) => open,
            TrackRead::SpotTrades(_) => EMPTY_TRADES,
            _ => ASSETS,
        }
        .to_owned()
    });
    assert_eq!(
        reads,
        vec![
            "spot.order_current",
            "spot.order_history",
            "spot.order_current",
            "spot.mytrades",
            "spot.spot_assets"
        ]
    );
    let c = changes(&mut t);
    assert_eq!(c.len(), 3, "{c:?}");
    let Change::Settled {
        endpoint, verdicts, ..
    } = &c[0]
    else {
        panic!("{c:?}")
    };
    assert_eq!(endpoint, "spot.order_new");
    assert!(verdicts[0].starts_with("applied: x9"), "{verdicts:?}");
    let Change::Placed { order } = &c[1] else {
        panic!("{c:?}")
    };
    assert_eq!(order.order_id, "x9");
    assert_eq!(order.amount, Some(d("0.01")));
    assert_eq!(
        c[2],
        Change::Resynced {
            at: at(4000),
            reads: 3
        }
    );
    assert!(t.unsure().is_empty());
}

#[test]
fn a_resync_after_a_gap_finds_an_order_filled_while_the_socket_was_down() {
    let mut t = spot_tracker();
    let placed = spot::PlaceOrderRequest::new(
        spot::Market::Spot,
        "btc_usdt",
        spot::LimitOrder::buy(Amount::new(d("0.01")), Price::new(d("30000"))),
    );
    assert!(t.on_answer(
        &Write::SpotOrder(placed),
        &Answer::SpotPlaced(spot::PlacedOrder::new(ID)),
        at(10)
    ));
    assert!(matches!(&changes(&mut t)[..], [Change::Placed { .. }]));
    // The socket drops; the order fills meanwhile; the private channel is acknowledged again.
    t.on_event(
        &Event::Disconnected {
            family: Family::Spot,
            socket: 0,
            reason: CloseReason::Lost("reset".into()),
            retry_in_ms: Some(250),
        },
        at(20),
    );
    assert_eq!(t.unsure(), vec![Unsure::Gap]);
    // Nothing to read while the socket is down (the next resync is a minute away).
    assert_eq!(t.next_read(at(30)), None);
    assert_eq!(t.next_deadline(), Some(at(60_000)));
    t.on_event(
        &Event::Subscribed {
            subscriptions: vec!["spot:order:btc_usdt".parse().unwrap()],
        },
        at(400),
    );
    let filled = format!(
        r#"{{"code":0,"data":[{{"order_id":"{ID}","symbol":"BTC_USDT","price":30000,"amount":0.01,"executed_amount":0.01,"status":2,"type":"buy"}}]}}"#
    );
    let trades = r#"{"code":0,"list":[{"symbol":"BTC_USDT","order_id":"198361cecdc65f9c8c9bb2fa68faec40","id":"7001","price":30000,"amount":0.006,"fee":0.000006,"fee_currency":"BTC","timestamp":1700000000},{"symbol":"BTC_USDT","order_id":"198361cecdc65f9c8c9bb2fa68faec40","id":"7002","price":30000,"amount":0.004,"fee":0.000004,"fee_currency":"BTC","timestamp":1700000000}]}"#;
    let assets = r#"{"code":0,"list":[{"currency":"USDT","free":"700","total":"700"},{"currency":"BTC","free":"0.00999","total":"0.00999"}]}"#;
    // The resync waits 200 ms for the other channels' acknowledgements.
    assert_eq!(t.next_deadline(), Some(at(600)));
    assert_eq!(t.next_read(at(599)), None);
    let reads = drive(&mut t, at(600), |r| {
        match r {
            TrackRead::SpotOpenOrders(_) => EMPTY_ORDERS,
            TrackRead::SpotOrders(_) => filled.as_str(),
            TrackRead::SpotTrades(_) => trades,
            _ => assets,
        }
        .to_owned()
    });
    assert_eq!(
        reads,
        vec![
            "spot.order_current",
            "spot.order",
            "spot.mytrades",
            "spot.spot_assets"
        ]
    );
    let c = changes(&mut t);
    let kinds: Vec<String> = c
        .iter()
        .map(|c| {
            serde_json::to_value(c).unwrap()["change"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "progress",
            "completed",
            "filled",
            "filled",
            "balance_changed",
            "balance_changed",
            "resynced"
        ]
    );
    assert_eq!(
        c[0],
        Change::Progress {
            order_id: ID.into(),
            market: "btc_usdt".into(),
            before: Decimal::ZERO,
            filled: d("0.01")
        }
    );
    assert_eq!(
        c[5],
        Change::BalanceChanged {
            currency: "BTC".into(),
            before: None,
            after: Some(Balance::new("BTC", Some(d("0.00999")), Some(d("0.00999")))),
        }
    );
    let o = t.order(ID).unwrap();
    assert_eq!(
        (o.filled, o.traded, o.status),
        (d("0.01"), d("0.01"), OrderStatus::Filled)
    );
    assert!(t.unsure().is_empty(), "{:?}", t.unsure());
    assert_eq!(t.state().open_orders, vec![]);
}

#[test]
fn periodic_resync_and_failed_reads() {
    let mut t = spot_tracker();
    assert!(!t.resync_due(at(59_999)));
    assert!(t.resync_due(at(60_000)));
    assert_eq!(t.next_deadline(), Some(at(60_000)));
    let read = t.next_read(at(60_000)).unwrap();
    // Asked again before an answer: the same read.
    assert_eq!(t.next_read(at(60_000)), Some(read.clone()));
    t.feed_error(
        digifinex_core::Error::validation("x", "transport down"),
        at(60_001),
    );
    assert_eq!(t.unsure(), vec![Unsure::ReadFailed]);
    assert!(
        matches!(&changes(&mut t)[..], [Change::ReadFailed { endpoint, .. }] if endpoint == "spot.order_current")
    );
    assert_eq!(t.next_read(at(61_000)), None);
    assert_eq!(t.next_deadline(), Some(at(65_001)));
    // An answer of another kind than the read is ignored.
    let read = t.next_read(at(65_001)).unwrap();
    t.feed(TrackAnswer::SpotAssets(Default::default()), at(65_001));
    assert_eq!(read.endpoint(), "spot.order_current");
    drive(&mut t, at(65_001), |r| {
        match r {
            TrackRead::SpotTrades(_) => EMPTY_TRADES,
            _ => ASSETS,
        }
        .to_owned()
    });
    assert!(t.unsure().is_empty());
    assert_eq!(t.last_resync(), Some(at(65_001)));
}

#[test]
fn swap_positions_balances_and_orders() {
    let mut t = Tracker::new(Family::Swap, ["btcusdtperp"], TrackConfig::default(), T0);
    let positions = r#"{"code":0,"data":[{"instrument_id":"BTCUSDTPERP","margin_mode":"crossed","avg_cost":"30000","position":"2","side":"long"},{"instrument_id":"ETHUSDTPERP","position":"5","side":"short"}]}"#;
    let reads = drive(&mut t, T0, |r| {
        match r {
            TrackRead::SwapOpenOrders(_) => r#"{"code":0,"data":[{"order_id":"1557071302651875328","instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"price":"20000","size":"10","filled_qty":"4","state":1}]}"#,
            TrackRead::SwapTrades(_) => r#"{"code":0,"data":[]}"#,
            TrackRead::SwapBalances(_) => r#"{"code":0,"data":[{"currency":"USDT","equity":"1000","avail_balance":"900"}]}"#,
            _ => positions,
        }
        .to_owned()
    });
    assert_eq!(
        reads,
        vec![
            "swap.open_orders",
            "swap.history_trades",
            "swap.balance",
            "swap.positions"
        ]
    );
    let c = changes(&mut t);
    assert_eq!(c.len(), 4, "{c:?}");
    let Change::Placed { order } = &c[0] else {
        panic!("{c:?}")
    };
    assert_eq!(order.side.as_deref(), Some("open_long"));
    assert_eq!(order.filled, d("4"));
    // Filled before the tracker: no fills are due for it.
    assert!(t.unsure().is_empty(), "{:?}", t.unsure());
    let st = t.state();
    assert_eq!(st.positions.len(), 1);
    assert_eq!(st.positions[0].size, d("2"));
    // A pushed position closing to zero goes; pushed again, nothing.
    let gone = push(
        Family::Swap,
        r#"{"event":"position.update","data":[{"instrument_id":"BTCUSDTPERP","side":"long","position":"0"}]}"#,
    );
    t.on_event(&gone, at(1));
    t.on_event(&gone, at(2));
    let c = changes(&mut t);
    assert!(
        matches!(&c[..], [Change::PositionChanged { instrument_id, side, after: None, .. }] if instrument_id == "BTCUSDTPERP" && side == "long"),
        "{c:?}"
    );
    assert!(t.state().positions.is_empty());
}

/// A tracker dated by a clock 30 s ahead of the server (a session that had not measured it):
/// the fills read starts no later than the server's now (not 25 s in its future, which spot
/// refuses with 20022), and a fill a second after the server's now is emitted (not held back
/// as older than the creation).
#[test]
fn a_creation_dated_ahead_of_the_server_is_pulled_back() {
    let ahead = at(30_000);
    let mut t = Tracker::new(Family::Spot, ["btc_usdt"], TrackConfig::default(), ahead);
    // The first read goes out at the unmeasured time; its answer comes at the server's.
    let read = t.next_read(ahead).unwrap();
    assert_eq!(read.endpoint(), "spot.order_current");
    t.feed(read.decode(EMPTY_ORDERS.as_bytes()).unwrap(), T0);
    let read = t.next_read(T0).unwrap();
    let TrackRead::SpotTrades(r) = &read else {
        panic!("{read:?}")
    };
    // The server's now less the overlap (5 s), in seconds.
    assert!(
        format!("{r:?}").contains("start_time: Some(TimestampSecs(1699999995))"),
        "{r:?}"
    );
    let fill = r#"{"code":0,"list":[{"symbol":"BTC_USDT","order_id":"198361cecdc65f9c8c9bb2fa68faec40","id":"7001","price":30000,"amount":0.004,"fee":0.000004,"fee_currency":"btc","timestamp":1700000001}]}"#;
    t.feed(read.decode(fill.as_bytes()).unwrap(), at(1_500));
    drive(&mut t, at(1_500), |_| ASSETS.to_owned());
    let filled: Vec<String> = changes(&mut t)
        .into_iter()
        .filter_map(|c| match c {
            Change::Filled { trade, .. } => Some(trade.trade_id),
            _ => None,
        })
        .collect();
    assert_eq!(filled, vec!["7001".to_owned()]);
}

/// A read refused for the key's sake is kept as a typed refusal (a permission for spot 10006)
/// until a resync completes; other failures are not.
#[test]
fn a_read_refused_for_the_key_is_named() {
    let mut t = Tracker::new(Family::Spot, ["btc_usdt"], TrackConfig::default(), T0);
    let read = t.next_read(T0).unwrap();
    let e = read.decode(br#"{"code":10006}"#).unwrap_err();
    t.feed_error(e, T0);
    let r = t.refused().expect("refused");
    assert_eq!(
        (r.endpoint, r.code, r.permission),
        ("spot.order_current", 10006, true)
    );
    // After the retry delay a resync that completes clears it.
    let reads = drive(&mut t, at(5_000), |r| {
        match r {
            TrackRead::SpotOpenOrders(_) => EMPTY_ORDERS,
            TrackRead::SpotTrades(_) => EMPTY_TRADES,
            _ => ASSETS,
        }
        .to_owned()
    });
    assert_eq!(reads.len(), 3, "{reads:?}");
    assert!(t.refused().is_none());
    // A rate limit is no refusal.
    t.request_resync();
    let read = t.next_read(at(6_000)).unwrap();
    t.feed_error(read.decode(br#"{"code":10005}"#).unwrap_err(), at(6_000));
    assert!(t.refused().is_none());
}

/// The private subscriptions a tracked stream adds for its tracker: spot `order` per pair and
/// `balance`; swap `order`, `account` and `position`.
#[test]
fn the_subscriptions_that_feed_a_tracker() {
    let spot = Tracker::new(
        Family::Spot,
        ["ETH_USDT", "btc_usdt"],
        TrackConfig::default(),
        T0,
    );
    let texts: Vec<String> = spot.subscriptions().iter().map(|s| s.to_string()).collect();
    assert_eq!(
        texts,
        ["spot:order:BTC_USDT", "spot:order:ETH_USDT", "spot:balance"]
    );
    let swap = Tracker::new(Family::Swap, ["btcusdtperp"], TrackConfig::default(), T0);
    let texts: Vec<String> = swap.subscriptions().iter().map(|s| s.to_string()).collect();
    assert_eq!(texts, ["swap:order", "swap:account", "swap:position"]);
}

/// A recycled socket's switch asks for one resync 200 ms later (the replacement's pushes before
/// the switch were not reported), without a gap; the other family's switch asks for nothing.
#[test]
fn a_switch_asks_for_one_resync() {
    let mut t = spot_tracker();
    assert_eq!(t.next_deadline(), Some(at(60_000)));
    t.on_event(
        &Event::Switched {
            family: Family::Swap,
            from: 0,
            to: 1,
        },
        at(10),
    );
    assert_eq!(t.next_deadline(), Some(at(60_000)));
    t.on_event(
        &Event::Switched {
            family: Family::Spot,
            from: 0,
            to: 1,
        },
        at(10),
    );
    assert!(t.unsure().is_empty());
    assert_eq!(t.next_deadline(), Some(at(210)));
    assert_eq!(t.next_read(at(209)), None);
    let reads = drive(&mut t, at(210), |r| {
        match r {
            TrackRead::SpotOpenOrders(_) => EMPTY_ORDERS,
            TrackRead::SpotTrades(_) => EMPTY_TRADES,
            _ => ASSETS,
        }
        .to_owned()
    });
    assert_eq!(
        reads,
        vec!["spot.order_current", "spot.mytrades", "spot.spot_assets"]
    );
    assert_eq!(
        changes(&mut t),
        vec![Change::Resynced {
            at: at(210),
            reads: 3
        }]
    );
    assert_eq!(t.next_read(at(1_000)), None);
}
