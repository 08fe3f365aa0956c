use crate::common::*;
use crate::swap_trading::{info, place_ok, swap_env, top, BTC};
use digifinex_sim::{AccountType, SimConfig};
use rust_decimal::Decimal;
use serde_json::{json, Value};

#[test]
fn swap_leverage_and_margin_mode_conflicts() {
    let env = swap_env();
    let (_, (bid, _)) = top(&env, BTC);
    let post = |path: &str, body: serde_json::Value| env.swpost(path, &body);
    // Answers.
    let r = Env::ok_data(&post(
        "/account/leverage",
        json!({"instrument_id": BTC, "leverage": 20}),
    ));
    assert_eq!(r["instrument_id"], BTC);
    assert_eq!(r["margin_mode"], "crossed");
    assert_eq!(r["side"], "both");
    assert_eq!(
        post(
            "/account/leverage",
            json!({"instrument_id": BTC, "leverage": 20, "side": "long"})
        )
        .code(),
        400002
    );
    assert_eq!(
        post(
            "/account/leverage",
            json!({"instrument_id": BTC, "leverage": 101})
        )
        .code(),
        400002
    );
    assert_eq!(
        post("/account/leverage", json!({"instrument_id": BTC})).code(),
        400001
    );
    // An unfinished order blocks leverage and mode changes.
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1, "price": (bid - dec("300")).to_string()}),
    );
    assert_eq!(
        post(
            "/account/leverage",
            json!({"instrument_id": BTC, "leverage": 5})
        )
        .code(),
        401001
    );
    assert_eq!(
        post(
            "/account/position_mode",
            json!({"instrument_id": BTC, "margin_mode": "isolated"})
        )
        .code(),
        401001
    );
    // Same mode is fine.
    assert_eq!(
        post(
            "/account/position_mode",
            json!({"instrument_id": BTC, "margin_mode": "crossed"})
        )
        .code(),
        0
    );
    env.swpost(
        "/trade/cancel_order",
        &json!({"instrument_id": BTC, "order_id": id}),
    );
    // A position blocks the mode switch (not the leverage).
    place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 2, "order_type": 1, "size": 2}),
    );
    assert_eq!(
        post(
            "/account/position_mode",
            json!({"instrument_id": BTC, "margin_mode": "isolated"})
        )
        .code(),
        401016
    );
    assert_eq!(
        post(
            "/account/leverage",
            json!({"instrument_id": BTC, "leverage": 5})
        )
        .code(),
        0
    );
    let pos = Env::ok_data(&env.swsget("/account/positions", &[("instrument_id", BTC)]));
    assert_eq!(pos[0]["leverage"], "5");
    assert_eq!(pos[0]["side"], "short");
    // position_margin: crossed refuses.
    assert_eq!(
        post(
            "/account/position_margin",
            json!({"instrument_id": BTC, "side": "short", "type": 1, "amount": "10"})
        )
        .code(),
        401015
    );
    // Another instrument in isolated mode.
    let eth = "ETHUSDTPERP";
    let r = Env::ok_data(&post(
        "/account/position_mode",
        json!({"instrument_id": eth, "margin_mode": "isolated"}),
    ));
    assert_eq!(r, json!({"instrument_id": eth, "margin_mode": "isolated"}));
    let r = Env::ok_data(&post(
        "/account/leverage",
        json!({"instrument_id": eth, "leverage": 4, "side": "long", "margin_mode": "isolated"}),
    ));
    assert_eq!(r["side"], "long");
    assert_eq!(
        post(
            "/account/leverage",
            json!({"instrument_id": eth, "leverage": 4, "margin_mode": "crossed"})
        )
        .code(),
        400002
    );
    assert_eq!(
        post(
            "/account/position_margin",
            json!({"instrument_id": eth, "side": "long", "type": 1, "amount": "10"})
        )
        .code(),
        401017
    );
    place_ok(
        &env,
        json!({"instrument_id": eth, "type": 1, "order_type": 13, "size": 10}),
    );
    let before = Env::ok_data(&env.swsget("/account/positions", &[("instrument_id", eth)]));
    assert_eq!(before[0]["margin_mode"], "isolated");
    assert_eq!(before[0]["leverage"], "4");
    let posi = num(&before[0]["posi_balance"]);
    assert!(posi > Decimal::ZERO);
    let r = Env::ok_data(&post(
        "/account/position_margin",
        json!({"instrument_id": eth, "side": "long", "type": 1, "amount": "25"}),
    ));
    assert_eq!(
        r,
        json!({"instrument_id": eth, "side": "long", "type": 1, "amount": "25"})
    );
    let after = Env::ok_data(&env.swsget("/account/positions", &[("instrument_id", eth)]));
    assert_eq!(num(&after[0]["posi_balance"]), posi + dec("25"));
    assert_eq!(
        post(
            "/account/position_margin",
            json!({"instrument_id": eth, "side": "long", "type": 2, "amount": "26"})
        )
        .code(),
        401003
    );
    assert_eq!(
        post(
            "/account/position_margin",
            json!({"instrument_id": eth, "side": "long", "type": 2, "amount": "25"})
        )
        .code(),
        0
    );
    assert_eq!(
        post(
            "/account/position_margin",
            json!({"instrument_id": eth, "side": "long", "type": 1, "amount": "999999"})
        )
        .code(),
        401003
    );
    let bal = Env::ok_data(&env.swsget("/account/balance", &[]));
    assert!(num(&bal[0]["isolate_balance"]) > Decimal::ZERO);
    assert!(num(&bal[0]["cross_margin"]) > Decimal::ZERO);
    let views = env.ctl.swap_positions(env.account);
    assert_eq!(views.len(), 2);
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn swap_transfer_with_spot_and_records() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "1000");
    let t = |ty: i64, amount: &str| {
        env.swpost(
            "/account/transfer",
            &json!({"type": ty, "currency": "USDT", "transfer_amount": amount}),
        )
    };
    let r = Env::ok_data(&t(1, "600"));
    assert_eq!(
        r,
        json!({"type": 1, "currency": "USDT", "transfer_amount": "600"})
    );
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("400"));
    assert_eq!(env.free(AccountType::Swap, "USDT"), dec("600"));
    assert_eq!(t(2, "150").code(), 0);
    assert_eq!(env.free(AccountType::Swap, "USDT"), dec("450"));
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("550"));
    assert_eq!(t(2, "451").code(), 401003);
    assert_eq!(t(1, "551").code(), 401003);
    assert_eq!(t(3, "1").code(), 400002);
    assert_eq!(t(1, "-1").code(), 400002);
    assert_eq!(
        env.swpost(
            "/account/transfer",
            &json!({"type": 1, "currency": "NOPE", "transfer_amount": "1"})
        )
        .code(),
        401018
    );
    let rec = Env::ok_data(&env.swsget("/account/transfer_record", &[("currency", "USDT")]));
    let rec = rec.as_array().unwrap();
    assert_eq!(rec.len(), 2);
    assert_eq!(rec[0]["type"], 2);
    assert_eq!(rec[0]["amount"], "150");
    assert_eq!(rec[1]["type"], 1);
    assert!(
        rec[0]["transfer_id"].is_i64()
            && rec[0]["timestamp"].is_i64()
            && rec[0]["currency"] == "USDT"
    );
    let bills = Env::ok_data(&env.swsget("/account/finance_record", &[]));
    let types: Vec<i64> = bills
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["finance_type"].as_i64().unwrap())
        .collect();
    assert_eq!(types, [2, 1]);
    assert_eq!(bills[0]["change"], "-150");
    assert_eq!(
        Env::ok_data(&env.swsget("/account/transfer_record", &[("limit", "1")]))
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        env.swsget("/account/transfer_record", &[("limit", "0")])
            .code(),
        400002
    );
    assert_eq!(
        env.swsget(
            "/account/transfer_record",
            &[("start_timestamp", "5"), ("end_timestamp", "4")]
        )
        .code(),
        400002
    );
}

#[test]
fn swap_funding_fee_after_clock_advance() {
    let config = SimConfig {
        // 5 h past an 8-hour boundary: the next funding of every contract (8-hourly BTC,
        // 4-hourly XRP) is the same instant.
        start_time_ms: Some(1_800_000_000_000 + 5 * 3_600_000),
        ..SimConfig::default().without_flow()
    };
    let env = Env::with_config(config);
    env.fund(AccountType::Swap, "USDT", "100000");
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 13, "size": 100}),
    );
    assert_eq!(info(&env, &id)["state"], 2);
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    env.ctl.set_funding_rate(BTC, dec("0.001")).unwrap();
    let f = Env::ok_data(&env.swget("/public/funding_rate", &[("instrument_id", BTC)]));
    assert_eq!(f["next_funding_rate"], "0.001");
    let next = f["funding_time"].as_i64().unwrap();
    let free_before = env.free(AccountType::Swap, "USDT");
    // Over HTTP: advance to the funding time.
    let r = env.control("POST", "/__sim/swap/funding/advance", "");
    assert_eq!(r.json()["funding_time"].as_i64().unwrap(), next);
    assert_eq!(env.ctl.now_ms(), next);
    // 100 contracts * 0.001 BTC * 30000 * 0.001 = 3 USDT paid by the long.
    let fees = Env::ok_data(&env.swsget("/account/funding_fee", &[("instrument_id", BTC)]));
    assert_eq!(fees.as_array().unwrap().len(), 1);
    assert_eq!(fees[0]["amount"], "-3");
    assert_eq!(fees[0]["currency"], "USDT");
    assert_eq!(fees[0]["timestamp"].as_i64().unwrap(), next);
    assert_eq!(env.free(AccountType::Swap, "USDT"), free_before - dec("3"));
    let bills = Env::ok_data(&env.swsget("/account/finance_record", &[("finance_type", "15")]));
    assert_eq!(bills[0]["change"], "-3");
    let h = Env::ok_data(&env.swget(
        "/public/funding_rate_history",
        &[("instrument_id", BTC), ("limit", "1")],
    ));
    assert_eq!(
        h["funding_rates"][0],
        json!({"rate": "0.001", "time": next})
    );
    let f = Env::ok_data(&env.swget("/public/funding_rate", &[("instrument_id", BTC)]));
    assert_eq!(f["funding_time"].as_i64().unwrap(), next + 8 * 3_600_000);
    // Advancing the clock by a day settles three more times.
    env.ctl.advance_clock(24 * 3_600_000);
    let fees = Env::ok_data(&env.swsget("/account/funding_fee", &[]));
    assert_eq!(fees.as_array().unwrap().len(), 4);
}

#[test]
fn swap_close_beyond_liquidation_price_refused() {
    let env = swap_env();
    isolated(&env);
    assert_eq!(
        env.swpost(
            "/account/leverage",
            &json!({"instrument_id": BTC, "leverage": 100})
        )
        .code(),
        0
    );
    place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 1, "size": 10}),
    );
    let pos = Env::ok_data(&env.swsget("/account/positions", &[("instrument_id", BTC)]));
    let liq = num(&pos[0]["liquidation_price"]);
    let avg = num(&pos[0]["avg_cost"]);
    assert!(liq > avg * dec("0.98") && liq < avg, "{liq} {avg}");
    let below = (liq - dec("100")).round();
    let r = env.swpost("/trade/order_place", &json!({"instrument_id": BTC, "type": 3, "order_type": 0, "size": 10, "price": below.to_string()}));
    assert_eq!(r.code(), 401013);
    let above = (avg + dec("200")).round();
    let r = env.swpost("/trade/order_place", &json!({"instrument_id": BTC, "type": 3, "order_type": 0, "size": 10, "price": above.to_string()}));
    assert_eq!(r.code(), 0, "{}", r.text());
    let pos = Env::ok_data(&env.swsget("/account/positions", &[("instrument_id", BTC)]));
    assert_eq!(pos[0]["open_outstanding"], "10");
    assert_eq!(pos[0]["avail_position"], "0");
}

#[test]
fn a_long_reached_by_the_mark_is_force_closed_and_loses_its_margin() {
    let env = swap_env();
    isolated(&env);
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    assert_eq!(
        env.swpost(
            "/account/leverage",
            &json!({"instrument_id": BTC, "leverage": 50})
        )
        .code(),
        0
    );
    place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 13, "size": 10}),
    );
    let pos = Env::ok_data(&env.swsget("/account/positions", &[("instrument_id", BTC)]));
    let liq = num(&pos[0]["liquidation_price"]);
    let margin = num(&pos[0]["margin"]);
    assert!(margin > Decimal::ZERO);
    // A close order resting far above the market: cancelled by the liquidation.
    let resting = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 3, "order_type": 0, "size": 5, "price": "40000"}),
    );
    let wallet = |env: &Env| {
        let b = Env::ok_data(&env.swsget("/account/balance", &[]));
        num(&b[0]["equity"]) - num(&b[0]["unrealized_pnl"])
    };
    let before = wallet(&env);
    // One tick above the liquidation price: nothing happens.
    env.ctl.set_mark_price(BTC, Some(liq + dec("0.1"))).unwrap();
    assert_eq!(env.ctl.swap_positions(env.account).len(), 1);
    // At the liquidation price: force-closed.
    env.ctl.set_mark_price(BTC, Some(liq)).unwrap();
    assert!(env.ctl.swap_positions(env.account).is_empty());
    assert_eq!(info(&env, &resting)["state"], -1);
    let trades = Env::ok_data(&env.swsget("/trade/history_trades", &[("instrument_id", BTC)]));
    let forced: Vec<&Value> = trades
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["trade_type"] == 1)
        .collect();
    assert_eq!(forced.len(), 1, "{trades}");
    assert_eq!(forced[0]["type"], 3);
    assert_eq!(num(&forced[0]["price"]), liq);
    assert_eq!(num(&forced[0]["size"]), dec("10"));
    assert_eq!(num(&forced[0]["close_profit"]), -margin);
    let order = info(&env, forced[0]["order_id"].as_str().unwrap());
    assert_eq!(order["state"], 2);
    // The wallet lost exactly the position margin, recorded as a close-long bill.
    assert_eq!(wallet(&env), before - margin);
    let bills = Env::ok_data(&env.swsget("/account/finance_record", &[("finance_type", "5")]));
    assert_eq!(num(&bills[0]["change"]), -margin, "{bills}");
    // A later mark move changes nothing more.
    env.ctl.set_mark_price(BTC, Some(dec("20000"))).unwrap();
    assert_eq!(wallet(&env), before - margin);
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn a_short_is_force_closed_when_the_mark_rises_to_its_liquidation_price() {
    let env = swap_env();
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 2, "order_type": 13, "size": 4}),
    );
    let pos = Env::ok_data(&env.swsget("/account/positions", &[("instrument_id", BTC)]));
    assert_eq!(pos[0]["side"], "short");
    let liq = num(&pos[0]["liquidation_price"]);
    assert!(liq > dec("30000"), "{liq}");
    env.ctl.set_mark_price(BTC, Some(liq - dec("0.1"))).unwrap();
    assert_eq!(env.ctl.swap_positions(env.account).len(), 1);
    env.ctl.set_mark_price(BTC, Some(liq + dec("50"))).unwrap();
    assert!(env.ctl.swap_positions(env.account).is_empty());
    let trades = Env::ok_data(&env.swsget("/trade/history_trades", &[("instrument_id", BTC)]));
    let forced = trades
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["trade_type"] == 1)
        .expect("a force-close fill");
    assert_eq!(forced["type"], 4);
    assert_eq!(num(&forced["price"]), liq);
}

/// Switches BTC to isolated margin (a position then risks only its own margin).
fn isolated(env: &Env) {
    let r = env.swpost(
        "/account/position_mode",
        &json!({"instrument_id": BTC, "margin_mode": "isolated"}),
    );
    assert_eq!(r.code(), 0, "{}", r.text());
}

#[test]
fn a_crossed_position_is_backed_by_the_account_equity() {
    let env = swap_env();
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    assert_eq!(
        env.swpost(
            "/account/leverage",
            &json!({"instrument_id": BTC, "leverage": 50})
        )
        .code(),
        0
    );
    place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 13, "size": 10}),
    );
    let position = |env: &Env| {
        let pos = Env::ok_data(&env.swsget("/account/positions", &[("instrument_id", BTC)]));
        pos[0].clone()
    };
    let p = position(&env);
    assert_eq!(p["margin_mode"], "crossed", "{p}");
    let (avg, margin, liq) = (
        num(&p["avg_cost"]),
        num(&p["margin"]),
        num(&p["liquidation_price"]),
    );
    // As if isolated, 50x would be liquidated about 2% under the entry; crossed, the account's
    // free balance carries it much further.
    assert!(liq < avg * dec("0.9"), "liq {liq} avg {avg}");
    // Less free balance, a nearer liquidation price.
    let free = {
        let b = Env::ok_data(&env.swsget("/account/balance", &[]));
        num(&b[0]["avail_balance"])
    };
    let out = (free - dec("50")).round_dp(2);
    let r = env.swpost(
        "/account/transfer",
        &json!({"type": 2, "currency": "USDT", "transfer_amount": out.to_string()}),
    );
    assert_eq!(r.code(), 0, "{}", r.text());
    let nearer = num(&position(&env)["liquidation_price"]);
    assert!(
        nearer > liq && nearer < avg,
        "{nearer} after moving {out} out, was {liq}"
    );
    // At that price it is force-closed and the wallet loses what the price took.
    let wallet = |env: &Env| {
        let b = Env::ok_data(&env.swsget("/account/balance", &[]));
        num(&b[0]["equity"]) - num(&b[0]["unrealized_pnl"])
    };
    let before = wallet(&env);
    env.ctl
        .set_mark_price(BTC, Some(nearer + dec("0.1")))
        .unwrap();
    assert_eq!(env.ctl.swap_positions(env.account).len(), 1);
    env.ctl.set_mark_price(BTC, Some(nearer)).unwrap();
    assert!(env.ctl.swap_positions(env.account).is_empty());
    // The margin and most of the 50 USDT left free (all but the maintenance margin).
    let lost = before - wallet(&env);
    assert!(
        lost > margin + dec("40") && lost < margin + dec("50"),
        "lost {lost}, margin {margin}"
    );
    assert_eq!(env.ctl.panics(), 0);
}
