//! The fill models by hand, on a small websocket recording: an own buy of 4 at 100 joins
//! behind 10 recorded there; 30 more join behind it; the level then shrinks by 20 with no
//! trade; then a recorded sell of 10 trades at 100.
//!
//! - FIFO: the 20 leave from behind (ahead 10, behind 10): the trade takes the 10 ahead, the
//!   own order fills nothing.
//! - prob-power:2: behind share 30² / (30² + 10²) = 0.9, so 2 of the 20 leave from ahead
//!   (ahead 8): the trade takes 8, then 2 of the own order.
//! - prob-power:1: 30 / 40 = 0.75, so 5 leave from ahead (ahead 5): the own order fills 4
//!   (5 + 4 < 10; the last 1 of the trade goes to what is behind it).
//! - prob-log: ln 31 / (ln 31 + ln 11) = 0.588862..., so 8.22275... leave from ahead: ahead
//!   1.77724..., the own order fills 4.
//!
//! Then a second case checks that a trade's size a depth frame reports is not taken from ahead
//! again: a trade of 3 and the frame that shows it (the level 3 smaller) move the own order up
//! by 3 under every model.

use crate::common::*;
use digifinex_sim::book::Side;
use digifinex_sim::market::format::{Data, Header, MarketId, Record, Trade, Writer};
use digifinex_sim::market::{FillModel, MarketConfig};
use digifinex_sim::{AccountType, SimConfig};
use rust_decimal::Decimal;

const T0: i64 = 1_800_000_000_000;
const BTC: &str = "btc_usdt";

fn lv(levels: &[(&str, &str)]) -> Vec<(Decimal, Decimal)> {
    levels.iter().map(|(p, q)| (dec(p), dec(q))).collect()
}

fn sell(id: &str, t: i64, qty: &str) -> Record {
    Record {
        t,
        data: Data::SpotTrades {
            symbol: BTC.into(),
            trades: vec![Trade {
                id: id.into(),
                time_ms: t,
                price: dec("100"),
                qty: dec(qty),
                side: Side::Sell,
                direction: None,
            }],
        },
    }
}

/// The first case: the snapshot at T0, the own order placed at T0 + 5, the frames after it.
fn shrink_then_trade() -> Vec<u8> {
    let spot = MarketId::Spot(BTC.into());
    let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
    w.write_depth(
        T0,
        &spot,
        true,
        &lv(&[("100", "10")]),
        &lv(&[("101", "10")]),
        None,
    )
    .unwrap();
    // The venue's level: 30 more joined behind the own order (which it never sees).
    w.write_depth(T0 + 10, &spot, false, &lv(&[("100", "40")]), &[], None)
        .unwrap();
    w.write_depth(T0 + 20, &spot, false, &lv(&[("100", "20")]), &[], None)
        .unwrap();
    w.write(&sell("t1", T0 + 30, "10")).unwrap();
    w.finish().unwrap()
}

/// The second case: a trade of 3 at 100 and the frame that reports it (40 -> 37), then a
/// trade of 7.
fn trade_then_its_frame() -> Vec<u8> {
    let spot = MarketId::Spot(BTC.into());
    let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
    w.write_depth(
        T0,
        &spot,
        true,
        &lv(&[("100", "10")]),
        &lv(&[("101", "10")]),
        None,
    )
    .unwrap();
    w.write_depth(T0 + 10, &spot, false, &lv(&[("100", "40")]), &[], None)
        .unwrap();
    w.write(&sell("t1", T0 + 20, "3")).unwrap();
    // The frame that shows the trade (the venue's level never holds the simulator's order).
    w.write_depth(T0 + 21, &spot, false, &lv(&[("100", "37")]), &[], None)
        .unwrap();
    w.write(&sell("t2", T0 + 30, "7")).unwrap();
    w.finish().unwrap()
}

/// What the own buy of 4 at 100, placed at T0 + 5, has filled at T0 + 40 under `model`.
fn filled(bytes: Vec<u8>, model: FillModel) -> Decimal {
    let env = Env::with_config(SimConfig {
        start_time_ms: Some(T0 - 1),
        market: Some(MarketConfig::reader(std::io::Cursor::new(bytes))),
        fill_model: model,
        ..SimConfig::default().without_flow().without_limits()
    });
    env.fund(AccountType::Spot, "USDT", "1000");
    env.ctl.advance_clock(T0 + 5 - env.ctl.now_ms());
    let placed = env.spost(
        "/spot/order/new",
        &[
            ("symbol", BTC),
            ("type", "buy"),
            ("price", "100"),
            ("amount", "4"),
        ],
    );
    assert_eq!(placed.code(), 0, "{}", placed.text());
    env.ctl.advance_clock(T0 + 40 - env.ctl.now_ms());
    let orders = env.ctl.orders(env.account);
    assert_eq!(orders.len(), 1);
    orders[0].executed_amount
}

#[test]
fn each_model_moves_the_order_up_as_computed_by_hand() {
    let power = |n: &str| FillModel::ProbPower { n: dec(n) };
    assert_eq!(filled(shrink_then_trade(), FillModel::Fifo), dec("0"));
    assert_eq!(filled(shrink_then_trade(), power("2")), dec("2"));
    assert_eq!(filled(shrink_then_trade(), power("1")), dec("4"));
    assert_eq!(filled(shrink_then_trade(), FillModel::ProbLog), dec("4"));
}

#[test]
fn a_trade_the_next_frame_reports_is_not_taken_from_ahead_twice() {
    // Ahead 10, behind 30; the trade of 3 takes 3 from ahead (7 left) and its frame's decrease
    // of 3 is that trade, taken from behind under every model; the trade of 7 then takes the 7
    // ahead and nothing of the own order. Were the frame's 3 split again, the probabilistic
    // models would move the order further up and fill it.
    for model in [
        FillModel::Fifo,
        FillModel::ProbLog,
        FillModel::ProbPower { n: dec("2") },
    ] {
        assert_eq!(
            filled(trade_then_its_frame(), model.clone()),
            dec("0"),
            "{model}"
        );
    }
}
