//! A version 2 recording (websocket depth snapshots and deltas, pushed trades, index and mark
//! pushes, resync and reconnect markers) replayed tick by tick: at each chosen instant the
//! simulator's one market state (the control view, REST) holds exactly the book the frames
//! describe, and the trades recorded.

use crate::common::*;
use digifinex_sim::book::Side;
use digifinex_sim::market::format::{Data, Family, Header, MarketId, Record, Trade, Writer};
use digifinex_sim::market::MarketConfig;
use digifinex_sim::{SimConfig, WsFamily};
use rust_decimal::Decimal;

/// 2027-01-15 08:00:00 UTC.
const T0: i64 = 1_800_000_000_000;
const BTC: &str = "btc_usdt";
const PERP: &str = "BTCUSDTPERP";

type Levels = Vec<(Decimal, Decimal)>;

fn lv(levels: &[(&str, &str)]) -> Levels {
    levels.iter().map(|(p, q)| (dec(p), dec(q))).collect()
}

fn trade(id: &str, time_ms: i64, price: &str, qty: &str, side: Side) -> Trade {
    Trade {
        id: id.into(),
        time_ms,
        price: dec(price),
        qty: dec(qty),
        side,
        direction: None,
    }
}

/// The recording, written with the writer's websocket methods.
fn recording() -> Vec<u8> {
    let spot = MarketId::Spot(BTC.into());
    let swap = MarketId::Swap(PERP.into());
    let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
    // A swap delta before any snapshot: there is no book to apply it to.
    w.write_depth(T0 - 1, &swap, false, &lv(&[("49000", "1")]), &[], None)
        .unwrap();
    // Snapshots as sent (not sorted).
    w.write_depth(
        T0,
        &spot,
        true,
        &lv(&[("99", "2"), ("100", "1"), ("98", "3")]),
        &lv(&[("102", "2"), ("101", "1")]),
        None,
    )
    .unwrap();
    w.write_depth(
        T0,
        &swap,
        true,
        &lv(&[("50000", "10")]),
        &lv(&[("50001", "5")]),
        Some(T0 - 3),
    )
    .unwrap();
    w.write_index(T0 + 5, PERP, dec("50000.4"), Some(T0 + 4))
        .unwrap();
    w.write(&Record {
        t: T0 + 6,
        data: Data::Mark {
            instrument: PERP.into(),
            mark: dec("50000.6"),
            index: None,
        },
    })
    .unwrap();
    // A delta: a level deleted, a level added, a size changed.
    w.write_depth(
        T0 + 10,
        &spot,
        false,
        &lv(&[("99", "0"), ("99.5", "4")]),
        &lv(&[("101", "0.5")]),
        None,
    )
    .unwrap();
    // A pushed trade (trade time T0 + 15), then the delta that reflects it.
    w.write(&Record {
        t: T0 + 20,
        data: Data::SpotTrades {
            symbol: BTC.into(),
            trades: vec![trade("7001", T0 + 15, "101", "0.5", Side::Buy)],
        },
    })
    .unwrap();
    w.write_depth(T0 + 20, &spot, false, &[], &lv(&[("101", "0")]), None)
        .unwrap();
    w.write_depth(
        T0 + 25,
        &swap,
        false,
        &lv(&[("49999", "3")]),
        &[],
        Some(T0 + 24),
    )
    .unwrap();
    w.write(&Record {
        t: T0 + 26,
        data: Data::SwapTrades {
            instrument: PERP.into(),
            trades: vec![trade("8001", T0 + 26, "50000", "2", Side::Sell)],
        },
    })
    .unwrap();
    // The spot book is found crossed: its next delta is not applied, the next snapshot is
    // the book.
    w.write_resync(T0 + 30, &spot, "crossed").unwrap();
    w.write_reconnect(
        T0 + 35,
        Family::Swap,
        Some(0),
        Some(T0 + 31),
        Some("connection lost"),
        &[],
    )
    .unwrap();
    w.write_depth(T0 + 40, &spot, false, &lv(&[("100", "7")]), &[], None)
        .unwrap();
    w.write_depth(T0 + 45, &swap, false, &[], &lv(&[("50001", "9")]), None)
        .unwrap();
    w.write_depth(
        T0 + 50,
        &spot,
        true,
        &lv(&[("100", "2")]),
        &lv(&[("102", "1")]),
        None,
    )
    .unwrap();
    w.write_depth(
        T0 + 55,
        &swap,
        true,
        &lv(&[("49990", "1")]),
        &lv(&[("50002", "2")]),
        None,
    )
    .unwrap();
    w.write_depth(T0 + 60, &spot, false, &[], &lv(&[("103", "4")]), None)
        .unwrap();
    w.finish().unwrap()
}

fn env() -> Env {
    Env::with_config(SimConfig {
        start_time_ms: Some(T0 - 10),
        market: Some(MarketConfig::reader(std::io::Cursor::new(recording()))),
        ..SimConfig::default().without_flow().without_limits()
    })
}

fn at(env: &Env, t: i64) {
    let now = env.ctl.now_ms();
    env.ctl.advance_clock(t - now);
}

fn book(env: &Env, family: WsFamily, target: &str) -> (Levels, Levels) {
    let b = env.ctl.book(family, target, 50).unwrap();
    (b.bids, b.asks)
}

#[test]
fn a_websocket_recording_replays_tick_by_tick() {
    let env = env();
    let spot = |t: i64| {
        at(&env, t);
        book(&env, WsFamily::Spot, BTC)
    };
    let swap = |t: i64| {
        at(&env, t);
        book(&env, WsFamily::Swap, PERP)
    };
    // The snapshots, best first.
    assert_eq!(
        spot(T0),
        (
            lv(&[("100", "1"), ("99", "2"), ("98", "3")]),
            lv(&[("101", "1"), ("102", "2")])
        )
    );
    assert_eq!(swap(T0), (lv(&[("50000", "10")]), lv(&[("50001", "5")])));
    // REST serves the same book.
    let ob = env
        .get("/order_book", &[("symbol", BTC), ("limit", "10")])
        .json();
    assert_eq!(ob["bids"].to_string(), "[[100,1],[99,2],[98,3]]");
    // Asks highest first, as the venue lists them.
    assert_eq!(ob["asks"].to_string(), "[[102,2],[101,1]]");
    // The index push, then a mark push without an index that leaves it alone.
    at(&env, T0 + 6);
    let tk = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", PERP)]));
    assert_eq!(tk["index_price"], "50000.4");
    assert_eq!(tk["mark_price"], "50000.6");
    // The first delta.
    assert_eq!(
        spot(T0 + 10),
        (
            lv(&[("100", "1"), ("99.5", "4"), ("98", "3")]),
            lv(&[("101", "0.5"), ("102", "2")])
        )
    );
    // The trade is on the tape at its time; the book is the depth frames' (the trade does not
    // take from it a second time).
    let (_, asks) = spot(T0 + 17);
    assert_eq!(asks, lv(&[("101", "0.5"), ("102", "2")]));
    let tape: Vec<(i64, Decimal, Decimal, bool)> = env
        .ctl
        .trades(WsFamily::Spot, BTC)
        .unwrap()
        .into_iter()
        .map(|t| (t.time_ms, t.price, t.qty, t.buy))
        .collect();
    assert_eq!(tape, vec![(T0 + 15, dec("101"), dec("0.5"), true)]);
    assert_eq!(spot(T0 + 20).1, lv(&[("102", "2")]));
    assert_eq!(
        swap(T0 + 26),
        (
            lv(&[("50000", "10"), ("49999", "3")]),
            lv(&[("50001", "5")])
        )
    );
    // After the resync the delta at +40 is not applied: the book stays as it was until the
    // snapshot at +50, which replaces it.
    assert_eq!(
        spot(T0 + 45),
        (
            lv(&[("100", "1"), ("99.5", "4"), ("98", "3")]),
            lv(&[("102", "2")])
        )
    );
    assert_eq!(spot(T0 + 50), (lv(&[("100", "2")]), lv(&[("102", "1")])));
    // The reconnect: the swap delta at +45 is not applied, the snapshot at +55 is the book.
    assert_eq!(swap(T0 + 50).1, lv(&[("50001", "5")]));
    assert_eq!(
        swap(T0 + 55),
        (lv(&[("49990", "1")]), lv(&[("50002", "2")]))
    );
    assert_eq!(
        spot(T0 + 60),
        (lv(&[("100", "2")]), lv(&[("102", "1"), ("103", "4")]))
    );
    let swap_tape: Vec<(i64, Decimal, Decimal, bool)> = env
        .ctl
        .trades(WsFamily::Swap, PERP)
        .unwrap()
        .into_iter()
        .map(|t| (t.time_ms, t.price, t.qty, t.buy))
        .collect();
    assert_eq!(swap_tape, vec![(T0 + 26, dec("50000"), dec("2"), false)]);
    let stats = env.ctl.replay_stats().unwrap();
    // Before the first swap snapshot, after the resync, after the reconnect.
    assert_eq!(stats.dropped_deltas, 3);
    assert_eq!(stats.bad_lines, 0);
    assert_eq!(stats.unknown, 0);
    assert_eq!(env.ctl.panics(), 0);
}
