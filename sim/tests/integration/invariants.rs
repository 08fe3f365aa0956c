//! Invariants over a long simulated run of the order flow: books never crossed and on their
//! grid, every door's book the same, the tickers the trades that happened, the swap mark the
//! book's mid, and a resting order's fills exactly what REST reports of it.

use crate::common::*;
use digifinex_sim::{AccountType, SimConfig, WsFamily};
use rust_decimal::Decimal;

#[test]
fn two_hours_of_flow_keep_every_view_consistent() {
    let mut config = SimConfig {
        start_time_ms: Some(1_800_000_000_000),
        ..SimConfig::default()
    };
    config.markets.retain(|m| m.symbol() == "btc_usdt");
    config
        .swap_instruments
        .retain(|i| i.instrument_id == "BTCUSDTPERP");
    let env = Env::with_config(config);
    env.fund(AccountType::Spot, "USDT", "100000");
    env.fund(AccountType::Swap, "USDT", "100000");
    let usdt0 = env.free(AccountType::Spot, "USDT");
    // A bid 0.2 % under the market: the random walk comes down to it (with this seed).
    let ((ask, _), _) = env.top("btc_usdt");
    let price = (ask * Decimal::new(998, 3)).round_dp(0);
    let placed = env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &price.to_string()),
            ("amount", "0.5"),
        ],
    );
    let id = placed.json()["order_id"].as_str().unwrap().to_owned();
    let mut last_trade = 0;
    for step in 0..24 {
        env.ctl.advance_clock(300_000);
        // Spot: REST = the control view, never crossed, on the price grid.
        let rest = env
            .get("/order_book", &[("symbol", "btc_usdt"), ("limit", "150")])
            .json();
        let view = env.ctl.book(WsFamily::Spot, "btc_usdt", 150).unwrap();
        let bids: Vec<_> = rest["bids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (num(&l[0]), num(&l[1])))
            .collect();
        assert_eq!(bids, view.bids, "step {step}");
        let (bb, ba) = (view.bids[0].0, view.asks[0].0);
        assert!(bb < ba, "crossed at step {step}: {bb} / {ba}");
        for (p, q) in view.bids.iter().chain(view.asks.iter()) {
            assert!(p.scale() <= 2 && *q > Decimal::ZERO, "{p} {q}");
        }
        // The tape: ids grow, REST's trades are the kept ones.
        let trades = env.ctl.trades(WsFamily::Spot, "btc_usdt").unwrap();
        assert!(trades
            .windows(2)
            .all(|w| w[0].id < w[1].id && w[0].time_ms <= w[1].time_ms));
        assert!(trades.last().unwrap().id >= last_trade);
        last_trade = trades.last().unwrap().id;
        let t = env.get("/ticker", &[("symbol", "btc_usdt")]).json();
        let t = &t["ticker"][0];
        assert_eq!(num(&t["last"]), trades.last().unwrap().price);
        assert_eq!(
            num(&t["vol"]),
            trades.iter().map(|t| t.qty).sum::<Decimal>(),
            "step {step}"
        );
        assert_eq!(num(&t["buy"]), bb);
        assert_eq!(num(&t["sell"]), ba);
        // Swap: the mark is the book's mid.
        let sv = env.ctl.book(WsFamily::Swap, "BTCUSDTPERP", 1).unwrap();
        let mid = ((sv.bids[0].0 + sv.asks[0].0) / Decimal::TWO).round_dp(1);
        let r = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", "BTCUSDTPERP")]));
        assert_eq!(num(&r["mark_price"]), mid, "step {step}");
    }
    // The resting bid: what it executed, REST reports, and the balances follow it exactly.
    let o = env.sget("/spot/order", &[("order_id", id.as_str())]).json();
    let executed = num(&o["data"][0]["executed_amount"]);
    let fills = env
        .sget(
            "/spot/mytrades",
            &[("symbol", "btc_usdt"), ("limit", "500")],
        )
        .json();
    let list = fills["list"].as_array().unwrap();
    let filled: Decimal = list.iter().map(|f| num(&f["amount"])).sum();
    assert_eq!(filled, executed);
    assert!(executed > Decimal::ZERO, "the bid was reached");
    let spent: Decimal = list
        .iter()
        .map(|f| num(&f["amount"]) * num(&f["price"]))
        .sum();
    let usdt = env.free(AccountType::Spot, "USDT") + env.frozen(AccountType::Spot, "USDT");
    assert_eq!(usdt, usdt0 - spent);
}
