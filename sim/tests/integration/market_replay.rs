//! A recorded market replayed into the simulator: the books and trades of a recording made from
//! the simulator itself, queue position, partial fills, trade-through, latency and funding.

use crate::common::Rng;
use crate::common::*;
use digifinex_sim::book::Side;
use digifinex_sim::market::format::{Data, Header, Reader, Record, Ticker, Trade, Writer};
use digifinex_sim::market::format::{SpotPairInfo, SwapInstrumentInfo};
use digifinex_sim::market::{Latency, MarketConfig};
use digifinex_sim::{AccountType, SimConfig};
use rust_decimal::Decimal;
use serde_json::{json, Value};

/// 2027-01-15 08:00:00 UTC, a multiple of 8 hours.
const T0: i64 = 1_800_000_000_000;
const BTC: &str = "btc_usdt";
const PERP: &str = "BTCUSDTPERP";
const XRP_PERP: &str = "XRPUSDTPERP";

fn gz(records: &[Record]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.finish().unwrap()
}

fn replay(records: &[Record], start: i64, latency: Latency) -> Env {
    let config = SimConfig {
        start_time_ms: Some(start),
        market: Some(MarketConfig::reader(std::io::Cursor::new(gz(records)))),
        latency,
        ..SimConfig::default().without_flow().without_limits()
    };
    let env = Env::with_config(config);
    env.fund(AccountType::Spot, "USDT", "100000");
    env.fund(AccountType::Spot, "BTC", "10");
    env.fund(AccountType::Swap, "USDT", "100000");
    env
}

fn lv(levels: &[(&str, &str)]) -> Vec<(rust_decimal::Decimal, rust_decimal::Decimal)> {
    levels.iter().map(|(p, q)| (dec(p), dec(q))).collect()
}

fn book(t: i64, bids: &[(&str, &str)], asks: &[(&str, &str)]) -> Record {
    Record {
        t,
        data: Data::SpotBook {
            symbol: BTC.into(),
            depth: None,
            bids: lv(bids),
            asks: lv(asks),
        },
    }
}

fn trade(t: i64, id: &str, price: &str, qty: &str, side: Side) -> Record {
    Record {
        t,
        data: Data::SpotTrades {
            symbol: BTC.into(),
            trades: vec![Trade {
                id: id.into(),
                time_ms: t - 10,
                price: dec(price),
                qty: dec(qty),
                side,
                direction: None,
            }],
        },
    }
}

fn place(env: &Env, side: &str, price: &str, amount: &str) -> String {
    let r = env
        .spost(
            "/spot/order/new",
            &[
                ("symbol", BTC),
                ("type", side),
                ("price", price),
                ("amount", amount),
            ],
        )
        .json();
    assert_eq!(r["code"], 0, "{r}");
    r["order_id"].as_str().unwrap().to_owned()
}

fn order(env: &Env, id: &str) -> Value {
    env.sget("/spot/order", &[("order_id", id)]).json()["data"][0].clone()
}

fn executed(env: &Env, id: &str) -> (rust_decimal::Decimal, i64) {
    let o = order(env, id);
    (num(&o["executed_amount"]), o["status"].as_i64().unwrap())
}

fn at(env: &Env, t: i64) {
    let now = env.ctl.now_ms();
    env.ctl.advance_clock(t - now);
}

fn levels(v: &Value) -> Vec<(rust_decimal::Decimal, rust_decimal::Decimal)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| (num(&l[0]), num(&l[1])))
        .collect()
}

/// Drops the trade id fields (the replay numbers trades itself).
fn without(mut list: Value, field: &str) -> Value {
    for t in list.as_array_mut().unwrap() {
        t.as_object_mut().unwrap().remove(field);
    }
    list
}

fn dec_levels(v: &Value) -> Vec<(rust_decimal::Decimal, rust_decimal::Decimal)> {
    let mut l = levels(v);
    l.sort_by_key(|x| std::cmp::Reverse(x.0));
    l
}

#[test]
fn a_recording_of_the_simulator_replays_with_the_same_books_and_trades() {
    // The source: a synthetic simulator where some orders have traded.
    let start = T0 + 500;
    let src = Env::with_config(SimConfig {
        start_time_ms: Some(start),
        ..SimConfig::default().without_flow().without_limits()
    });
    src.fund(AccountType::Spot, "USDT", "100000");
    src.fund(AccountType::Swap, "USDT", "100000");
    let ((ask, _), _) = src.top(BTC);
    place(&src, "buy", &ask.to_string(), "0.3");
    let r = src.swpost(
        "/trade/order_place",
        &json!({"instrument_id": PERP, "type": 1, "order_type": 13, "size": 120}),
    );
    assert_eq!(r.code(), 0, "{}", r.text());

    // The recorder: polls the public endpoints and writes what it got.
    let mut recs = Vec::new();
    let mut t = start + 1;
    let ob = src
        .get("/order_book", &[("symbol", BTC), ("limit", "150")])
        .json();
    let by_price = |v: &Value, best_high: bool| {
        let mut l = levels(v);
        l.sort_by(|a, b| {
            if best_high {
                b.0.cmp(&a.0)
            } else {
                a.0.cmp(&b.0)
            }
        });
        l
    };
    recs.push(Record {
        t,
        data: Data::SpotBook {
            symbol: BTC.into(),
            depth: Some(150),
            bids: by_price(&ob["bids"], true),
            asks: by_price(&ob["asks"], false),
        },
    });
    t += 1;
    let trades = src
        .get("/trades", &[("symbol", BTC), ("limit", "500")])
        .json();
    recs.push(Record {
        t,
        data: Data::SpotTrades {
            symbol: BTC.into(),
            trades: trades["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| Trade {
                    id: x["id"].to_string(),
                    time_ms: x["date"].as_i64().unwrap() * 1000,
                    price: num(&x["price"]),
                    qty: num(&x["amount"]),
                    side: if x["type"] == "buy" {
                        Side::Buy
                    } else {
                        Side::Sell
                    },
                    direction: None,
                })
                .collect(),
        },
    });
    t += 1;
    let tk = src.get("/ticker", &[("symbol", BTC)]).json()["ticker"][0].clone();
    recs.push(Record {
        t,
        data: Data::SpotTicker {
            symbol: BTC.into(),
            ticker: Ticker {
                last: Some(num(&tk["last"])),
                bid: Some(num(&tk["buy"])),
                ask: Some(num(&tk["sell"])),
                high: Some(num(&tk["high"])),
                low: Some(num(&tk["low"])),
                open: None,
                volume: Some(num(&tk["vol"])),
                quote_volume: Some(num(&tk["base_vol"])),
                change: Some(num(&tk["change"])),
                ..Ticker::default()
            },
        },
    });
    t += 1;
    let depth = Env::ok_data(&src.swget(
        "/public/depth",
        &[("instrument_id", PERP), ("limit", "100")],
    ));
    recs.push(Record {
        t,
        data: Data::SwapBook {
            instrument: PERP.into(),
            depth: Some(100),
            bids: levels(&depth["bids"]),
            asks: levels(&depth["asks"]),
        },
    });
    t += 1;
    let strades = Env::ok_data(&src.swget(
        "/public/trades",
        &[("instrument_id", PERP), ("limit", "100")],
    ));
    recs.push(Record {
        t,
        data: Data::SwapTrades {
            instrument: PERP.into(),
            trades: strades
                .as_array()
                .unwrap()
                .iter()
                .map(|x| {
                    let direction: i64 = x["direction"].as_str().unwrap().parse().unwrap();
                    Trade {
                        id: x["trade_id"].as_str().unwrap().into(),
                        time_ms: x["trade_time"].as_i64().unwrap(),
                        price: num(&x["price"]),
                        qty: num(&x["volume"]),
                        side: if direction == 1 || direction == 4 {
                            Side::Buy
                        } else {
                            Side::Sell
                        },
                        direction: Some(direction),
                    }
                })
                .collect(),
        },
    });
    t += 1;
    let stk = Env::ok_data(&src.swget("/public/ticker", &[("instrument_id", PERP)]));
    recs.push(Record {
        t,
        data: Data::SwapTicker {
            instrument: PERP.into(),
            ticker: Ticker {
                last: Some(num(&stk["last"])),
                bid: Some(num(&stk["best_bid"])),
                ask: Some(num(&stk["best_ask"])),
                high: Some(num(&stk["high_24h"])),
                low: Some(num(&stk["low_24h"])),
                open: Some(num(&stk["open_24h"])),
                volume: Some(num(&stk["volume_24h"])),
                quote_volume: None,
                change: Some(num(&stk["price_change_percent"])),
                ..Ticker::default()
            },
        },
    });
    recs.push(Record {
        t,
        data: Data::Mark {
            instrument: PERP.into(),
            mark: num(&stk["mark_price"]),
            index: Some(num(&stk["index_price"])),
        },
    });
    t += 1;
    let fr = Env::ok_data(&src.swget("/public/funding_rate", &[("instrument_id", PERP)]));
    recs.push(Record {
        t,
        data: Data::Funding {
            instrument: PERP.into(),
            rate: num(&fr["next_funding_rate"]),
            next_time: fr["funding_time"].as_i64().unwrap(),
            next_rate: None,
            last_rate: Some(num(&fr["funding_rate"])),
        },
    });

    // Through the file format, into a fresh simulator with another seed, at the same time.
    let bytes = gz(&recs);
    let read: Vec<Record> = Reader::new(std::io::Cursor::new(bytes.clone()))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(read, recs);
    let dst = Env::with_config(SimConfig {
        start_time_ms: Some(t),
        market: Some(MarketConfig::reader(std::io::Cursor::new(bytes))),
        ..SimConfig::with_seed(99).without_flow().without_limits()
    });
    src.ctl.freeze_clock(Some(t));

    let book_of = |e: &Env| {
        let b = e
            .get("/order_book", &[("symbol", BTC), ("limit", "150")])
            .json();
        (b["bids"].clone(), b["asks"].clone())
    };
    let (bids, asks) = book_of(&src);
    assert_eq!(book_of(&dst), (bids.clone(), asks));
    // 20 synthetic levels and the rest of the 0.3 BTC bid, which outran the best ask.
    assert_eq!(bids.as_array().unwrap().len(), 21);
    let trades_of = |e: &Env| {
        without(
            e.get("/trades", &[("symbol", BTC), ("limit", "500")])
                .json()["data"]
                .clone(),
            "id",
        )
    };
    let src_trades = trades_of(&src);
    assert_eq!(trades_of(&dst), src_trades);
    // The synthetic day plus the 0.3 BTC bought at the best ask.
    assert!(src_trades.as_array().unwrap().len() > 48);
    assert_eq!(
        src.get("/ticker", &[("symbol", BTC)]).json()["ticker"],
        dst.get("/ticker", &[("symbol", BTC)]).json()["ticker"]
    );
    let swap = |e: &Env, path: &str, q: &[(&str, &str)]| Env::ok_data(&e.swget(path, q));
    let q = [("instrument_id", PERP), ("limit", "100")];
    assert_eq!(
        swap(&src, "/public/depth", &q),
        swap(&dst, "/public/depth", &q)
    );
    assert_eq!(
        without(swap(&src, "/public/trades", &q), "trade_id"),
        without(swap(&dst, "/public/trades", &q), "trade_id")
    );
    let one = [("instrument_id", PERP)];
    let mut src_ticker = swap(&src, "/public/ticker", &one);
    let mut dst_ticker = swap(&dst, "/public/ticker", &one);
    // Open interest counts the source's own position, which the recording does not carry.
    src_ticker.as_object_mut().unwrap().remove("open_interest");
    dst_ticker.as_object_mut().unwrap().remove("open_interest");
    assert_eq!(src_ticker, dst_ticker);
    assert_eq!(
        swap(&src, "/public/funding_rate", &one),
        swap(&dst, "/public/funding_rate", &one)
    );
    // Pairs the recording does not name keep the synthetic market.
    assert_eq!(
        dst.get("/trades", &[("symbol", "eth_usdt")]).json()["data"]
            .as_array()
            .unwrap()
            .len(),
        48
    );
    assert_eq!(dst.ctl.panics(), 0);
}

#[test]
fn an_order_behind_five_units_fills_only_after_five_trade_there() {
    let recs = vec![
        book(T0, &[("29990", "5"), ("29980", "2")], &[("30010", "5")]),
        // 2 trade at 29990: 3 left ahead of the order.
        trade(T0 + 1_000, "1", "29990", "2", Side::Sell),
        // The snapshot reflects those 2 (no double counting) and 4 more arrive behind.
        book(
            T0 + 1_500,
            &[("29990", "7"), ("29980", "2")],
            &[("30010", "5")],
        ),
        // 3 more: the 5 ahead are gone, the order is at the front.
        trade(T0 + 2_000, "2", "29990", "3", Side::Sell),
        // 0.4 of the order.
        trade(T0 + 3_000, "3", "29990", "0.4", Side::Sell),
        // 1 more: the last 0.6 of the order, then 0.4 of the size behind it.
        trade(T0 + 4_000, "4", "29990", "1", Side::Sell),
    ];
    let env = replay(&recs, T0 + 100, Latency::None);
    let id = place(&env, "buy", "29990", "1");
    let top = |e: &Env| levels(&e.get("/order_book", &[("symbol", BTC)]).json()["bids"])[0];
    assert_eq!(top(&env), (dec("29990"), dec("6")));
    // (Recorded trades happen 10 ms before they are received.)
    at(&env, T0 + 990);
    assert_eq!(executed(&env, &id), (dec("0"), 0));
    assert_eq!(top(&env), (dec("29990"), dec("4")));
    at(&env, T0 + 1_989);
    assert_eq!(top(&env), (dec("29990"), dec("8")));
    at(&env, T0 + 1_990);
    // 5 have traded: the order is at the front, unfilled, the 4 behind it.
    assert_eq!(executed(&env, &id), (dec("0"), 0));
    assert_eq!(top(&env), (dec("29990"), dec("5")));
    at(&env, T0 + 3_000);
    assert_eq!(executed(&env, &id), (dec("0.4"), 1));
    at(&env, T0 + 4_000);
    assert_eq!(executed(&env, &id), (dec("1"), 2));
    // Of the 4 behind, 0.4 traded.
    assert_eq!(top(&env), (dec("29990"), dec("3.6")));
    // Maker fills: 1 BTC less the 0.1% maker fee; 29990 USDT spent.
    assert_eq!(env.free(AccountType::Spot, "BTC"), dec("10.999"));
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("70010"));
    let mine = env.sget("/spot/mytrades", &[("symbol", BTC)]).json();
    let fills: Vec<(String, bool)> = mine["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["amount"].to_string(), f["is_maker"] == true))
        .collect();
    assert_eq!(fills.len(), 2, "{mine}");
    assert!(fills.iter().all(|(_, maker)| *maker), "{mine}");
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn partial_fills_shrinking_levels_and_a_taker_walking_the_depth() {
    let recs = vec![
        book(
            T0,
            &[("29990", "5")],
            &[("30010", "0.5"), ("30020", "1"), ("30030", "2")],
        ),
        // The recorded level shrinks from 5 to 2: cancellations come from behind first, and
        // nothing is behind the order, so 2 stay ahead of it.
        book(
            T0 + 1_000,
            &[("29990", "2")],
            &[("30010", "0.5"), ("30020", "1"), ("30030", "2")],
        ),
        trade(T0 + 2_000, "1", "29990", "2.2", Side::Sell),
        trade(T0 + 2_500, "2", "29990", "0.1", Side::Sell),
    ];
    let env = replay(&recs, T0 + 100, Latency::None);
    let id = place(&env, "buy", "29990", "0.5");
    at(&env, T0 + 2_000);
    assert_eq!(executed(&env, &id), (dec("0.2"), 1));
    at(&env, T0 + 2_500);
    assert_eq!(executed(&env, &id), (dec("0.3"), 1));
    // A marketable buy of 0.7 walks the recorded asks: 0.5 at 30010 and 0.2 at 30020.
    let taker = place(&env, "buy", "30030", "0.7");
    let o = order(&env, &taker);
    assert_eq!(o["status"], 2, "{o}");
    assert_eq!(num(&o["executed_amount"]), dec("0.7"));
    // (0.5 * 30010 + 0.2 * 30020) / 0.7 = 30012.857142...
    assert_eq!(num(&o["avg_price"]).round_dp(4), dec("30012.8571"));
    let asks = levels(&env.get("/order_book", &[("symbol", BTC)]).json()["asks"]);
    assert_eq!(
        asks,
        vec![(dec("30030"), dec("2")), (dec("30020"), dec("0.8"))]
    );
    // Taker fee 0.2% in BTC on the 0.7; maker fee 0.1% on the 0.3.
    assert_eq!(
        env.free(AccountType::Spot, "BTC"),
        dec("10") + dec("0.7") - dec("0.0014") + dec("0.3") - dec("0.0003")
    );
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn trading_through_an_order_and_a_book_moving_through_it_fill_it() {
    let recs = vec![
        book(T0, &[("29990", "5")], &[("30010", "5"), ("30020", "5")]),
        // A buyer paid 30020: every ask below, ours included, was taken.
        trade(T0 + 1_000, "1", "30020", "0.1", Side::Buy),
        book(T0 + 1_500, &[("29990", "5")], &[("30020", "4.9")]),
        // The asks drop through our bid at 29995: we are filled at our price as maker.
        book(
            T0 + 2_000,
            &[("29980", "5")],
            &[("29985", "0.3"), ("30000", "1")],
        ),
    ];
    let env = replay(&recs, T0 + 100, Latency::None);
    let ask = place(&env, "sell", "30010", "2");
    let bid = place(&env, "buy", "29995", "0.5");
    at(&env, T0 + 1_000);
    assert_eq!(executed(&env, &ask), (dec("2"), 2));
    let o = order(&env, &ask);
    assert_eq!(num(&o["avg_price"]), dec("30010"));
    assert_eq!(executed(&env, &bid), (dec("0"), 0));
    at(&env, T0 + 2_000);
    // Only 0.3 crossed it; the rest rests.
    assert_eq!(executed(&env, &bid), (dec("0.3"), 1));
    assert_eq!(num(&order(&env, &bid)["avg_price"]), dec("29995"));
    let b = env.get("/order_book", &[("symbol", BTC)]).json();
    assert_eq!(levels(&b["asks"]), vec![(dec("30000"), dec("1"))]);
    assert_eq!(
        dec_levels(&b["bids"]),
        vec![(dec("29995"), dec("0.2")), (dec("29980"), dec("5"))]
    );
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn a_delayed_order_meets_the_book_as_it_is_when_it_arrives() {
    let recs = vec![
        book(T0, &[("29990", "5")], &[("30010", "1")]),
        // 300 ms later the ask has moved above the order's limit.
        book(T0 + 300, &[("30040", "5")], &[("30050", "1")]),
    ];
    // Without latency the order takes the ask at once.
    let fast = replay(&recs, T0 + 100, Latency::None);
    let id = place(&fast, "buy", "30030", "0.5");
    assert_eq!(executed(&fast, &id), (dec("0.5"), 2));
    // With 500 ms it arrives at T0 + 600 and finds the ask gone: it rests at 30030, below the
    // new best bid.
    let slow = replay(&recs, T0 + 100, Latency::Fixed { ms: 500 });
    let id = place(&slow, "buy", "30030", "0.5");
    let o = order(&slow, &id);
    assert_eq!(
        (o["status"].as_i64(), num(&o["executed_amount"])),
        (Some(0), dec("0"))
    );
    // Accepted and frozen at the request, not yet in the book.
    assert_eq!(slow.frozen(AccountType::Spot, "USDT"), dec("15015"));
    assert!(
        levels(&slow.get("/order_book", &[("symbol", BTC)]).json()["bids"])
            .iter()
            .all(|(p, _)| *p != dec("30030"))
    );
    assert_eq!(slow.ctl.pending_orders(), 1);
    at(&slow, T0 + 599);
    assert_eq!(executed(&slow, &id), (dec("0"), 0));
    at(&slow, T0 + 600);
    assert_eq!(executed(&slow, &id), (dec("0"), 0));
    let bids = dec_levels(&slow.get("/order_book", &[("symbol", BTC)]).json()["bids"]);
    assert_eq!(
        bids,
        vec![(dec("30040"), dec("5")), (dec("30030"), dec("0.5"))]
    );
    assert_eq!(
        order(&slow, &id)["created_date"].as_i64(),
        Some((T0 + 100) / 1000)
    );
    // A cancel before arrival cancels it outright.
    let id2 = place(&slow, "buy", "30060", "0.1");
    let c = slow
        .spost("/spot/order/cancel", &[("order_id", &id2)])
        .json();
    assert_eq!(c["code"], 0, "{c}");
    at(&slow, T0 + 2_000);
    assert_eq!(executed(&slow, &id2), (dec("0"), 3));
    assert_eq!(slow.ctl.panics(), 0);
}

fn swap_book(t: i64, inst: &str, bid: &str, ask: &str) -> Record {
    Record {
        t,
        data: Data::SwapBook {
            instrument: inst.into(),
            depth: None,
            bids: lv(&[(bid, "100000")]),
            asks: lv(&[(ask, "100000")]),
        },
    }
}

fn mark(t: i64, inst: &str, price: &str) -> Record {
    Record {
        t,
        data: Data::Mark {
            instrument: inst.into(),
            mark: dec(price),
            index: None,
        },
    }
}

fn funding(t: i64, inst: &str, rate: &str, next_time: i64) -> Record {
    Record {
        t,
        data: Data::Funding {
            instrument: inst.into(),
            rate: dec(rate),
            next_time,
            next_rate: None,
            last_rate: None,
        },
    }
}

#[test]
fn funding_settles_at_four_and_eight_hour_intervals_during_replay() {
    let h = 3_600_000;
    let start = T0 + 4 * h - 60_000;
    let recs = vec![
        swap_book(start, PERP, "29999.9", "30000"),
        swap_book(start, XRP_PERP, "0.4999", "0.5"),
        mark(start, PERP, "30000"),
        mark(start, XRP_PERP, "0.5"),
        funding(start, PERP, "0.0001", T0 + 8 * h),
        funding(start, XRP_PERP, "0.0002", T0 + 4 * h),
        // After the 4-hour settlement the venue announces the next XRP rate.
        funding(T0 + 4 * h + 5_000, XRP_PERP, "0.0003", T0 + 8 * h),
        // The marks just before 8 hours are the ones funding uses.
        mark(T0 + 8 * h - 1_000, PERP, "31000"),
        mark(T0 + 8 * h - 1_000, XRP_PERP, "0.6"),
        mark(T0 + 8 * h + 1_000, PERP, "32000"),
    ];
    let env = replay(&recs, start + 10, Latency::None);
    for (inst, size) in [(PERP, 100), (XRP_PERP, 1000)] {
        let r = env.swpost(
            "/trade/order_place",
            &json!({"instrument_id": inst, "type": 1, "order_type": 13, "size": size}),
        );
        assert_eq!(r.code(), 0, "{}", r.text());
    }
    let fees = |e: &Env| {
        let list = Env::ok_data(&e.swsget("/account/funding_fee", &[]));
        list.as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["instrument_id"].as_str().unwrap().to_owned(),
                    f["amount"].as_str().unwrap().to_owned(),
                    f["timestamp"].as_i64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    at(&env, T0 + 4 * h - 1);
    assert!(fees(&env).is_empty());
    let free = env.free(AccountType::Swap, "USDT");
    at(&env, T0 + 4 * h + 10_000);
    // XRP: 1000 contracts * 10 XRP * 0.5 * 0.0002 = 1 USDT paid by the long.
    assert_eq!(
        fees(&env),
        vec![(XRP_PERP.to_owned(), "-1".to_owned(), T0 + 4 * h)]
    );
    assert_eq!(env.free(AccountType::Swap, "USDT"), free - dec("1"));
    let fr = Env::ok_data(&env.swget("/public/funding_rate", &[("instrument_id", XRP_PERP)]));
    assert_eq!(fr["funding_rate"], "0.0002");
    assert_eq!(fr["next_funding_rate"], "0.0003");
    assert_eq!(fr["funding_time"].as_i64(), Some(T0 + 8 * h));
    at(&env, T0 + 8 * h + 2_000);
    let mut got = fees(&env);
    got.sort();
    // BTC: 100 * 0.001 * 31000 * 0.0001 = 0.31; XRP: 1000 * 10 * 0.6 * 0.0003 = 1.8.
    assert_eq!(
        got,
        vec![
            (PERP.to_owned(), "-0.31".to_owned(), T0 + 8 * h),
            (XRP_PERP.to_owned(), "-1".to_owned(), T0 + 4 * h),
            (XRP_PERP.to_owned(), "-1.8".to_owned(), T0 + 8 * h),
        ]
    );
    let tk = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", PERP)]));
    assert_eq!(tk["mark_price"], "32000");
    assert_eq!(tk["index_price"], "32000");
    assert_eq!(env.ctl.panics(), 0);
}

// ---- the sample recording (sim/tests/data/, see SOURCES.md there) ----

/// 2024-02-01 05:00:00 UTC: the minute of the captured ICP_USDT candle.
const SAMPLE_START: i64 = 1_706_763_600_000;
const SAMPLE_SECONDS: i64 = 180;

pub fn sample_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample-icp.jsonl.gz")
}

/// One recorded trade of the sample: second, price, amount, taker side.
type SampleTrade = (i64, Decimal, Decimal, Side);

/// The sample's spot trades. Minute 0 reproduces the captured candle (open 11.357, high 11.367,
/// low 11.353, close 11.364, volume 3.36 in 12 trades of 0.28); the order of the prices inside
/// the minute is made up. Minutes 1 and 2 are a seeded random walk (synthetic).
fn sample_spot_trades() -> Vec<SampleTrade> {
    let real = [
        ("11.357", Side::Buy),
        ("11.355", Side::Sell),
        ("11.353", Side::Sell),
        ("11.356", Side::Buy),
        ("11.359", Side::Buy),
        ("11.362", Side::Buy),
        ("11.365", Side::Buy),
        ("11.367", Side::Buy),
        ("11.364", Side::Sell),
        ("11.362", Side::Sell),
        ("11.363", Side::Buy),
        ("11.364", Side::Buy),
    ];
    let mut out: Vec<SampleTrade> = real
        .iter()
        .enumerate()
        .map(|(k, (p, side))| (2 + 5 * k as i64, dec(p), dec("0.28"), *side))
        .collect();
    let mut rng = Rng::new(17);
    let mut price = dec("11.364");
    for sec in (62..SAMPLE_SECONDS).step_by(5) {
        let step = Decimal::new(rng.below(7) as i64 - 3, 3);
        let side = if step >= Decimal::ZERO {
            Side::Buy
        } else {
            Side::Sell
        };
        price += step;
        let amount = Decimal::new(5 + rng.below(96) as i64, 2);
        out.push((sec, price, amount, side));
    }
    out
}

/// The book's mid price at second `s` (synthetic): half a spread away from the trade price
/// (below it after a buy, above after a sell), linear between trades, rounded to the tick.
fn sample_mid(trades: &[SampleTrade], s: i64) -> Decimal {
    let anchor = |t: &SampleTrade| match t.3 {
        Side::Buy => t.1 - dec("0.001"),
        Side::Sell => t.1 + dec("0.001"),
    };
    let next = trades.iter().position(|t| t.0 >= s);
    let mid = match next {
        Some(0) => anchor(&trades[0]),
        None => anchor(&trades[trades.len() - 1]),
        Some(k) => {
            let (a, b) = (&trades[k - 1], &trades[k]);
            let f = Decimal::from(s - a.0) / Decimal::from(b.0 - a.0);
            anchor(a) + (anchor(b) - anchor(a)) * f
        }
    };
    mid.round_dp(3)
}

fn sample_levels(
    rng: &mut Rng,
    best: Decimal,
    step: Decimal,
    scale: u32,
) -> Vec<(Decimal, Decimal)> {
    (0..10i64)
        .map(|k| {
            let size = Decimal::new(500 + rng.below(20_000) as i64, 2) * Decimal::from(scale);
            (best + step * Decimal::from(k), size)
        })
        .collect()
}

/// Every record of the sample, in the order a recorder polling once a second writes them.
pub fn sample_records() -> (Header, Vec<Record>) {
    let header = Header {
        // The sample stays a version 1 file (as the REST recorder wrote it before version 2):
        // reading version 1 is checked on real bytes.
        version: 1,
        created_ms: Some(SAMPLE_START),
        source: Some(
            "sample: ICP_USDT 2024-02-01 05:00 UTC candle (core/tests/data/real/v3_kline_4.json) \
             and pair rules (v3_spot_symbols_2.json); books, minutes 1-2 and the whole swap \
             instrument are synthetic (sim/tests/data/SOURCES.md)"
                .into(),
        ),
        spot: vec![SpotPairInfo {
            symbol: "icp_usdt".into(),
            price_precision: 3,
            amount_precision: 2,
            min_amount: dec("0.01"),
            min_value: dec("2"),
        }],
        swap: vec![SwapInstrumentInfo {
            instrument_id: "ICPUSDTPERP".into(),
            base: "ICP".into(),
            quote: "USDT".into(),
            contract_value: dec("1"),
            price_precision: 3,
            tick_size: dec("0.001"),
            min_order_amount: dec("1"),
            funding_interval_hours: 8,
        }],
    };
    let trades = sample_spot_trades();
    let mut rng = Rng::new(42);
    let tick = dec("0.001");
    let mut recs = Vec::new();
    let mut swap_trades: Vec<Trade> = Vec::new();
    let (mut high, mut low, mut volume) = (Decimal::ZERO, Decimal::MAX, Decimal::ZERO);
    for s in 0..SAMPLE_SECONDS {
        let base = SAMPLE_START + s * 1000;
        let mid = sample_mid(&trades, s);
        let (bid, ask) = (mid - tick, mid + tick);
        recs.push(Record {
            t: base + 100,
            data: Data::SpotBook {
                symbol: "icp_usdt".into(),
                depth: Some(10),
                bids: sample_levels(&mut rng, bid, -tick, 1),
                asks: sample_levels(&mut rng, ask, tick, 1),
            },
        });
        // The perpetual: 2 ticks of basis over the spot mid (synthetic).
        let mark = mid + tick * Decimal::TWO;
        recs.push(Record {
            t: base + 150,
            data: Data::SwapBook {
                instrument: "ICPUSDTPERP".into(),
                depth: Some(10),
                bids: sample_levels(&mut rng, mark - tick, -tick, 10),
                asks: sample_levels(&mut rng, mark + tick, tick, 10),
            },
        });
        recs.push(Record {
            t: base + 200,
            data: Data::Mark {
                instrument: "ICPUSDTPERP".into(),
                mark,
                index: Some(mid),
            },
        });
        // Recent trades as a poll returns them: the last 10 seconds, newest first.
        let recent: Vec<Trade> = trades
            .iter()
            .filter(|t| t.0 <= s && t.0 > s - 10)
            .rev()
            .map(|t| Trade {
                id: format!("{}", 90_000 + t.0),
                time_ms: SAMPLE_START + t.0 * 1000,
                price: t.1,
                qty: t.2,
                side: t.3,
                direction: None,
            })
            .collect();
        for t in trades.iter().filter(|t| t.0 == s) {
            high = high.max(t.1);
            low = low.min(t.1);
            volume += t.2;
        }
        recs.push(Record {
            t: base + 300,
            data: Data::SpotTrades {
                symbol: "icp_usdt".into(),
                trades: recent,
            },
        });
        if s % 10 == 5 {
            let side = if rng.below(2) == 0 {
                Side::Buy
            } else {
                Side::Sell
            };
            let price = match side {
                Side::Buy => mark + tick,
                Side::Sell => mark - tick,
            };
            swap_trades.insert(
                0,
                Trade {
                    id: format!("{}", 7_000_000_000_000_000_000u64 + s as u64),
                    time_ms: base + 123,
                    price,
                    qty: Decimal::from(10 + rng.below(190)),
                    side,
                    direction: Some(if side == Side::Buy { 1 } else { 2 }),
                },
            );
            swap_trades.truncate(3);
        }
        recs.push(Record {
            t: base + 350,
            data: Data::SwapTrades {
                instrument: "ICPUSDTPERP".into(),
                trades: swap_trades.clone(),
            },
        });
        if s % 5 == 0 {
            let last = trades.iter().rev().find(|t| t.0 <= s).map(|t| t.1);
            recs.push(Record {
                t: base + 400,
                data: Data::SpotTicker {
                    symbol: "icp_usdt".into(),
                    ticker: Ticker {
                        last,
                        bid: Some(bid),
                        ask: Some(ask),
                        high: (volume > Decimal::ZERO).then_some(high),
                        low: (volume > Decimal::ZERO).then_some(low),
                        open: Some(dec("11.357")),
                        volume: Some(volume),
                        quote_volume: None,
                        change: None,
                        ..Ticker::default()
                    },
                },
            });
        }
        if s % 30 == 0 {
            recs.push(Record {
                t: base + 500,
                data: Data::Funding {
                    instrument: "ICPUSDTPERP".into(),
                    rate: dec("0.0001"),
                    // 08:00 UTC.
                    next_time: SAMPLE_START + 3 * 3_600_000,
                    next_rate: None,
                    last_rate: Some(dec("0.0001")),
                },
            });
        }
    }
    (header, recs)
}

fn sample_bytes() -> Vec<u8> {
    let (header, recs) = sample_records();
    let mut w = Writer::new(Vec::new(), &header).unwrap();
    for r in &recs {
        w.write(r).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn the_sample_recording_is_what_its_generator_writes() {
    // `DIGIFINEX_WRITE_SAMPLE=1 cargo test -p digifinex-sim --test integration sample` rewrites it.
    let bytes = sample_bytes();
    if std::env::var_os("DIGIFINEX_WRITE_SAMPLE").is_some() {
        std::fs::write(sample_path(), &bytes).unwrap();
    }
    // The text, not the gzip bytes: those depend on the deflate library and its version.
    let text = |gz: &[u8]| {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(gz), &mut out)
            .unwrap();
        out
    };
    let file = std::fs::read(sample_path()).unwrap();
    assert_eq!(&file[..2], &[0x1f, 0x8b], "gzip");
    assert_eq!(text(&file), text(&bytes));
}

#[test]
fn the_sample_replays_the_captured_candle() {
    let env = Env::with_config(SimConfig {
        start_time_ms: Some(SAMPLE_START + 100),
        market: Some(MarketConfig::file(sample_path())),
        ..SimConfig::default().without_flow().without_limits()
    });
    // The pair and the perpetual come from the header.
    let markets = env.get("/markets", &[]).json();
    let icp = markets["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["market"] == "icp_usdt")
        .unwrap()
        .clone();
    assert_eq!(icp["price_precision"], 3);
    assert_eq!(icp["volume_precision"], 2);
    // The first recorded book, as recorded.
    let Data::SpotBook { bids, asks, .. } = sample_records().1[0].data.clone() else {
        panic!("the sample starts with a spot book");
    };
    let b = env
        .get("/order_book", &[("symbol", "icp_usdt"), ("limit", "10")])
        .json();
    assert_eq!(dec_levels(&b["bids"]), bids);
    assert_eq!(
        levels(&b["asks"]).into_iter().rev().collect::<Vec<_>>(),
        asks
    );
    assert_eq!(bids[0].0, dec("11.355"));
    at(&env, SAMPLE_START + 61_000);
    let k = env
        .get(
            "/kline",
            &[
                ("symbol", "icp_usdt"),
                ("period", "1"),
                ("start_time", "1706763600"),
                ("end_time", "1706763659"),
            ],
        )
        .json();
    // Exactly the captured candle (core/tests/data/real/v3_kline_4.json).
    assert_eq!(
        k["data"],
        json!([[1706763600, 3.36, 11.364, 11.367, 11.353, 11.357]])
    );
    at(&env, SAMPLE_START + SAMPLE_SECONDS * 1000);
    let stats = env.ctl.replay_stats().unwrap();
    assert!(stats.ended);
    assert_eq!((stats.bad_lines, stats.unknown), (0, 0));
    assert_eq!(stats.records, sample_records().1.len() as u64);
    let t = env
        .get("/trades", &[("symbol", "icp_usdt"), ("limit", "500")])
        .json();
    assert_eq!(
        t["data"].as_array().unwrap().len(),
        sample_spot_trades().len()
    );
    let tk = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", "ICPUSDTPERP")]));
    let mid = sample_mid(&sample_spot_trades(), SAMPLE_SECONDS - 1);
    assert_eq!(num(&tk["index_price"]), mid);
    assert_eq!(num(&tk["mark_price"]), mid + dec("0.002"));
    let fr = Env::ok_data(&env.swget("/public/funding_rate", &[("instrument_id", "ICPUSDTPERP")]));
    assert_eq!(
        fr["funding_time"].as_i64(),
        Some(SAMPLE_START + 3 * 3_600_000)
    );
    assert_eq!(env.ctl.panics(), 0);
}

/// A recording with more records at one instant than a replay takes: the extra ones are
/// skipped and counted, the rest replays.
#[test]
fn records_beyond_the_batch_cap_are_skipped_and_counted() {
    let cap = digifinex_sim::market::MAX_BATCH;
    let mut records: Vec<Record> = (0..cap + 5)
        .map(|i| {
            book(
                T0,
                &[("29000", "1")],
                &[(&format!("{}", 31_000 + i % 7), "1")],
            )
        })
        .collect();
    records.push(book(T0 + 1000, &[("29500", "2")], &[("30500", "2")]));
    let env = replay(&records, T0 - 1, Latency::None);
    env.ctl.advance_clock(2_000);
    // `top` answers (best ask, best bid).
    assert_eq!(
        env.top(BTC),
        ((dec("30500"), dec("2")), (dec("29500"), dec("2")))
    );
    let stats = env.ctl.replay_stats().unwrap();
    assert_eq!(stats.over_batch, 5);
    assert_eq!(stats.records, cap + 1);
}

/// A gzip member (no trailer) of a header line then `unit` repeated `times` times: `unit` is
/// compressed once with a full flush and its bytes repeated, so a few MB inflate to GBs.
fn bomb(unit: &[u8], times: u64) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    fn full(c: &mut Compress, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len() + 1024);
        let before = c.total_in();
        c.compress_vec(data, &mut out, FlushCompress::Full).unwrap();
        assert_eq!(c.total_in() - before, data.len() as u64);
        out
    }
    // The best level: a run of repeated chunks compresses to a few bytes each whatever the
    // deflate library (zlib-rs's fastest level left the bomb twice the size).
    let mut c = Compress::new(Compression::best(), false);
    let mut file = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let mut head = Header::default().to_line().into_bytes();
    head.push(b'\n');
    file.extend(full(&mut c, &head));
    let per = (64 * 1024 / unit.len()).max(1) as u64;
    let chunk = full(&mut c, &unit.repeat(per as usize));
    for _ in 0..times / per {
        file.extend_from_slice(&chunk);
    }
    file.extend(full(&mut c, &unit.repeat((times % per) as usize)));
    file
}

/// Issue 36: 3.4 M records at one instant (a few MB of gzip). The simulator starts, replays
/// the first 10,000 and skips the rest unparsed until the reader's allowance of skipped lines
/// ends the replay; before, every record was parsed first (about a minute).
#[test]
fn records_at_one_instant_past_the_cap_are_skipped_unparsed() {
    let mut unit = book(T0, &[("29000", "1")], &[("31000", "1")])
        .to_line()
        .into_bytes();
    unit.push(b'\n');
    let file = bomb(&unit, 3_400_000);
    assert!(file.len() < 8 << 20, "{}", file.len());
    let config = SimConfig {
        start_time_ms: Some(T0 - 1),
        market: Some(MarketConfig::reader(std::io::Cursor::new(file))),
        ..SimConfig::default().without_flow().without_limits()
    };
    let env = Env::with_config(config);
    env.ctl.advance_clock(2_000);
    assert_eq!(
        env.top(BTC),
        ((dec("31000"), dec("1")), (dec("29000"), dec("1")))
    );
    let stats = env.ctl.replay_stats().unwrap();
    let cap = digifinex_sim::market::MAX_BATCH;
    assert_eq!(stats.records, cap);
    // The reader's allowance: a million skipped lines beyond the records read.
    let skipped = digifinex_sim::market::format::MAX_SKIPPED_LINES + cap + 1;
    assert_eq!(stats.over_batch, skipped);
    assert_eq!(stats.bad_lines, 1, "the cap's error");
    assert!(stats.ended);
}

/// Issue 36: 1.6 G short lines in a few MB of gzip. The simulator starts at once (the
/// reader stops at its cap on skipped lines) instead of reading them all (minutes).
#[test]
fn a_bomb_of_short_lines_does_not_hold_the_start() {
    let file = bomb(b"x\n", 1_600_000_000);
    assert!(file.len() < 16 << 20, "{}", file.len());
    let config = SimConfig {
        start_time_ms: Some(T0),
        market: Some(MarketConfig::reader(std::io::Cursor::new(file))),
        ..SimConfig::default().without_flow().without_limits()
    };
    let env = Env::with_config(config);
    env.ctl.advance_clock(1_000);
    let stats = env.ctl.replay_stats().unwrap();
    assert_eq!((stats.records, stats.ended), (0, true));
    assert_eq!(env.get("/ping", &[]).json()["msg"], "pong");
}
