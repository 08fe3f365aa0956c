use crate::common::*;
use digifinex_sim::{AccountType, SimConfig};
use rust_decimal::Decimal;
use serde_json::{json, Value};

pub const BTC: &str = "BTCUSDTPERP";

pub fn swap_env() -> Env {
    let env = Env::new();
    env.fund(AccountType::Swap, "USDT", "100000");
    env
}

/// Best ask and bid (price, size).
pub fn top(env: &Env, inst: &str) -> ((Decimal, Decimal), (Decimal, Decimal)) {
    let d = Env::ok_data(&env.swget("/public/depth", &[("instrument_id", inst), ("limit", "20")]));
    let lvl = |v: &Value| (num(&v[0]), num(&v[1]));
    (lvl(&d["asks"][0]), lvl(&d["bids"][0]))
}

pub fn place(env: &Env, body: Value) -> Resp {
    env.swpost("/trade/order_place", &body)
}

pub fn place_ok(env: &Env, body: Value) -> String {
    let r = place(env, body);
    Env::ok_data(&r)
        .as_str()
        .expect("order id string")
        .to_owned()
}

pub fn info(env: &Env, id: &str) -> Value {
    Env::ok_data(&env.swsget("/trade/order_info", &[("order_id", id)]))
}

#[test]
fn swap_order_lifecycle_partial_fill_cancel_history() {
    let env = swap_env();
    let ((ask, ask_size), _) = top(&env, BTC);
    let size = ask_size + Decimal::from(5);
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": size.to_string().parse::<i64>().unwrap(), "price": ask.to_string()}),
    );
    assert!(id.len() >= 16 && id.chars().all(|c| c.is_ascii_digit()));
    let o = info(&env, &id);
    assert_eq!(o["state"], 1, "{o}");
    assert_eq!(num(&o["filled_qty"]), ask_size);
    assert_eq!(num(&o["size"]), size);
    assert_eq!(o["margin_mode"], "crossed");
    for k in [
        "order_id",
        "instrument_id",
        "contract_val",
        "price",
        "size",
        "filled_qty",
        "price_avg",
        "fee",
        "leverage",
        "turnover",
        "close_profit",
    ] {
        assert!(o[k].is_string(), "{k}: {o}");
    }
    for k in [
        "type",
        "order_type",
        "state",
        "has_stop",
        "insert_time",
        "time_stamp",
    ] {
        assert!(o[k].is_i64(), "{k}: {o}");
    }
    assert_eq!(num(&o["price_avg"]), ask);
    assert!(num(&o["fee"]) > Decimal::ZERO);
    // Open orders, with the status filter.
    let open = Env::ok_data(&env.swsget("/trade/open_orders", &[("instrument_id", BTC)]));
    assert_eq!(open.as_array().unwrap().len(), 1);
    let open0 = Env::ok_data(&env.swsget("/trade/open_orders", &[("order_status", "0")]));
    assert!(open0.as_array().unwrap().is_empty());
    assert_eq!(
        env.swsget("/trade/open_orders", &[("order_status", "2")])
            .code(),
        400002
    );
    // The rest rests as the best bid.
    let (_, (bid, bid_size)) = top(&env, BTC);
    assert_eq!(bid, ask);
    assert!(bid_size >= Decimal::from(5));
    // Position and balance.
    let pos = Env::ok_data(&env.swsget("/account/positions", &[]));
    let pos = pos.as_array().unwrap();
    assert_eq!(pos.len(), 1);
    assert_eq!(pos[0]["side"], "long");
    assert_eq!(num(&pos[0]["position"]), ask_size);
    assert_eq!(num(&pos[0]["avg_cost"]), ask);
    for k in [
        "instrument_id",
        "margin_mode",
        "posi_balance",
        "avail_position",
        "avg_cost",
        "last",
        "mark_price",
        "leverage",
        "liquidation_price",
        "maint_margin_ratio",
        "margin",
        "position",
        "realized_pnl",
        "unrealized_pnl",
        "unrealized_pnl_rate",
        "side",
        "open_outstanding",
        "risk_score",
        "margin_ratio",
    ] {
        assert!(pos[0][k].is_string(), "{k}");
    }
    let bal = Env::ok_data(&env.swsget("/account/balance", &[("currency", "USDT")]));
    let b = &bal[0];
    for k in [
        "currency",
        "equity",
        "margin",
        "cross_margin",
        "isolate_margin",
        "isolate_balance",
        "frozen_margin",
        "frozen_money",
        "margin_ratio",
        "realized_pnl",
        "avail_balance",
        "unrealized_pnl",
        "isolate_unrealized_pnl",
    ] {
        assert!(b[k].is_string(), "{k}: {b}");
    }
    assert!(b["time_stamp"].is_i64());
    assert!(num(&b["cross_margin"]) > Decimal::ZERO);
    assert!(num(&b["frozen_margin"]) > Decimal::ZERO);
    assert!(num(&b["avail_balance"]) < dec("100000"));
    // Cancel; then it is history.
    let r = env.swpost(
        "/trade/cancel_order",
        &json!({"instrument_id": BTC, "order_id": id}),
    );
    assert_eq!(Env::ok_data(&r), json!(id));
    assert_eq!(info(&env, &id)["state"], -1);
    assert_eq!(
        env.swpost(
            "/trade/cancel_order",
            &json!({"instrument_id": BTC, "order_id": id})
        )
        .code(),
        400002
    );
    let bal = Env::ok_data(&env.swsget("/account/balance", &[]));
    assert_eq!(num(&bal[0]["frozen_margin"]), Decimal::ZERO);
    let hist = Env::ok_data(&env.swsget("/trade/history_orders", &[("order_status", "-1")]));
    assert_eq!(hist[0]["order_id"], json!(id));
    assert!(
        Env::ok_data(&env.swsget("/trade/history_orders", &[("order_status", "2")]))
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Fills.
    let fills = Env::ok_data(&env.swsget("/trade/history_trades", &[("order_id", &id)]));
    let f = &fills[0];
    assert_eq!(f["match_role"], 1);
    assert_eq!(f["trade_type"], 0);
    assert_eq!(f["type"], 1);
    for k in [
        "trade_id",
        "instrument_id",
        "margin_mode",
        "order_id",
        "price",
        "size",
        "fee",
        "close_profit",
        "leverage",
    ] {
        assert!(f[k].is_string(), "{k}");
    }
    assert!(f["trade_time"].is_i64());
    // Close at market: realized pnl, close bills.
    let close = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 3, "order_type": 13, "size": ask_size.to_string().parse::<i64>().unwrap()}),
    );
    let c = info(&env, &close);
    assert_eq!(c["state"], 2, "{c}");
    assert!(Env::ok_data(&env.swsget("/account/positions", &[]))
        .as_array()
        .unwrap()
        .is_empty());
    let bills = Env::ok_data(&env.swsget("/account/finance_record", &[("limit", "100")]));
    let types: Vec<i64> = bills
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["finance_type"].as_i64().unwrap())
        .collect();
    assert!(types.contains(&3) && types.contains(&5), "{types:?}");
    assert!(
        bills[0]["change"].is_string()
            && bills[0]["currency"] == "USDT"
            && bills[0]["timestamp"].is_i64()
    );
    let only5 = Env::ok_data(&env.swsget("/account/finance_record", &[("finance_type", "5")]));
    assert!(only5
        .as_array()
        .unwrap()
        .iter()
        .all(|b| b["finance_type"] == 5));
    let fee = Env::ok_data(&env.swsget("/account/trading_fee_rate", &[("instrument_id", BTC)]));
    assert_eq!(fee["instrument_id"], BTC);
    assert!(fee["taker_fee_rate"].is_string() && fee["maker_fee_rate"].is_string());
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn swap_order_type_families() {
    let env = swap_env();
    let ((ask, ask_size), (bid, _)) = top(&env, BTC);
    // IOC opponent fills.
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 1, "size": 1}),
    );
    let o = info(&env, &id);
    assert_eq!(o["state"], 2);
    assert_eq!(num(&o["price_avg"]), ask);
    // FOK opponent that cannot fill is cancelled without fills.
    let ((_, ask_size2), _) = top(&env, BTC);
    let big: i64 = (ask_size2 + Decimal::ONE).to_string().parse().unwrap();
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 10, "size": big}),
    );
    let o = info(&env, &id);
    assert_eq!(o["state"], -1);
    assert_eq!(num(&o["filled_qty"]), Decimal::ZERO);
    // FOK custom price far enough fills.
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 9, "size": 2, "price": (ask + dec("100")).to_string()}),
    );
    assert_eq!(info(&env, &id)["state"], 2);
    // IOC custom price below the ask: cancelled, nothing filled.
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 4, "size": 1, "price": (bid - dec("50")).to_string()}),
    );
    let o = info(&env, &id);
    assert_eq!(
        (o["state"].as_i64(), num(&o["filled_qty"])),
        (Some(-1), Decimal::ZERO)
    );
    // GTC optimal 5 bigger than five levels: fills them and rests at the 5th level.
    let d = Env::ok_data(&env.swget("/public/depth", &[("instrument_id", BTC), ("limit", "5")]));
    let five: Decimal = d["asks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| num(&l[1]))
        .sum();
    let fifth = num(&d["asks"][4][0]);
    let size: i64 = (five + Decimal::from(3)).to_string().parse().unwrap();
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 7, "size": size}),
    );
    let o = info(&env, &id);
    assert_eq!(o["state"], 1, "{o}");
    assert_eq!(num(&o["filled_qty"]), five);
    assert_eq!(num(&o["price"]), fifth);
    assert_eq!(top(&env, BTC).1 .0, fifth);
    // Post-only that would take is cancelled.
    let ((ask, _), _) = top(&env, BTC);
    let id = place_ok(
        &env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1, "price": ask.to_string(), "post_only": true}),
    );
    assert_eq!(info(&env, &id)["state"], -1);
    // post_only only on limit orders.
    assert_eq!(
        place(
            &env,
            json!({"instrument_id": BTC, "type": 1, "order_type": 1, "size": 1, "post_only": true})
        )
        .code(),
        400002
    );
    let _ = ask_size;
}

#[test]
fn swap_order_errors() {
    let mut config = SimConfig::default().without_flow();
    config.swap_instruments[1].min_order_amount = dec("5");
    let env = Env::with_config(config);
    env.fund(AccountType::Swap, "USDT", "1000");
    let ((ask, _), (bid, _)) = top(&env, BTC);
    let p = |b: Value| place(&env, b).code();
    assert_eq!(
        p(json!({"type": 1, "order_type": 0, "size": 1, "price": "1"})),
        400001
    );
    assert_eq!(
        p(json!({"instrument_id": BTC, "type": 5, "order_type": 0, "size": 1, "price": "1"})),
        400002
    );
    assert_eq!(
        p(json!({"instrument_id": BTC, "type": 1, "order_type": 5, "size": 1, "price": "1"})),
        400002
    );
    assert_eq!(
        p(
            json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1.5, "price": bid.to_string()})
        ),
        400002
    );
    assert_eq!(
        p(json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1})),
        400001
    );
    assert_eq!(
        p(json!({"instrument_id": "ETHUSDTPERP", "type": 1, "order_type": 1, "size": 4})),
        401006
    );
    assert_eq!(
        p(
            json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1, "price": (bid - dec("0.05")).to_string()})
        ),
        401007
    );
    assert_eq!(
        p(
            json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1, "price": (ask * dec("1.2")).round().to_string()})
        ),
        401010
    );
    assert_eq!(
        p(
            json!({"instrument_id": BTC, "type": 2, "order_type": 0, "size": 1, "price": (bid * dec("0.8")).round().to_string()})
        ),
        401011
    );
    assert_eq!(
        p(json!({"instrument_id": BTC, "type": 3, "order_type": 1, "size": 1})),
        401012
    );
    assert_eq!(
        p(
            json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1000, "price": bid.to_string()})
        ),
        401003
    );
    assert_eq!(
        p(
            json!({"instrument_id": "LUNAUSDTPERP", "type": 1, "order_type": 0, "size": 1, "price": "1.2"})
        ),
        401004
    );
    // Open value cap: above 75x at most 50000 USDT.
    env.fund(AccountType::Swap, "USDT", "100000");
    let r = env.swpost(
        "/account/leverage",
        &json!({"instrument_id": BTC, "leverage": 100}),
    );
    assert_eq!(Env::ok_data(&r)["leverage"], 100);
    let price = (bid - dec("1000")).round();
    assert_eq!(
        p(
            json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 2000, "price": price.to_string()})
        ),
        401002
    );
    assert_eq!(
        p(
            json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1000, "price": price.to_string()})
        ),
        0
    );
    assert_eq!(
        p(
            json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1000, "price": price.to_string()})
        ),
        401002
    );
    assert_eq!(env.ctl.swap_order_count(env.account), 1);
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn swap_batch_order_and_cancel() {
    let env = swap_env();
    let (_, (bid, _)) = top(&env, BTC);
    let far = (bid - dec("500")).to_string();
    let el = |size: i64| json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": size, "price": far});
    let ids = Env::ok_data(&env.swpost("/trade/batch_order", &json!([el(1), el(2), el(3)])));
    let ids: Vec<String> = ids
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(env.ctl.swap_open_order_count(env.account), 3);
    // 21 elements: 401014; one bad element places nothing.
    let many: Vec<Value> = (0..21).map(|_| el(1)).collect();
    assert_eq!(
        env.swpost("/trade/batch_order", &Value::Array(many)).code(),
        401014
    );
    let mut bad = vec![el(1), el(1)];
    bad.push(json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1, "price": "1.23"}));
    assert_eq!(
        env.swpost("/trade/batch_order", &Value::Array(bad)).code(),
        401007
    );
    assert_eq!(env.swpost("/trade/batch_order", &json!([])).code(), 400002);
    assert_eq!(
        env.swpost("/trade/batch_order", &json!({"a": 1})).code(),
        400002
    );
    assert_eq!(env.ctl.swap_order_count(env.account), 3);
    let twenty: Vec<Value> = (0..20).map(|_| el(1)).collect();
    assert_eq!(
        Env::ok_data(&env.swpost("/trade/batch_order", &Value::Array(twenty)))
            .as_array()
            .unwrap()
            .len(),
        20
    );
    // Batch cancel.
    let cancels: Vec<Value> = ids
        .iter()
        .take(2)
        .map(|id| json!({"instrument_id": BTC, "order_id": id}))
        .collect();
    let done = Env::ok_data(&env.swpost("/trade/batch_cancel_order", &Value::Array(cancels)));
    assert_eq!(done, json!([ids[0], ids[1]]));
    assert_eq!(info(&env, &ids[0])["state"], -1);
    assert_eq!(info(&env, &ids[2])["state"], 0);
    let many: Vec<Value> = (0..21)
        .map(|_| json!({"instrument_id": BTC, "order_id": ids[2]}))
        .collect();
    assert_eq!(
        env.swpost("/trade/batch_cancel_order", &Value::Array(many))
            .code(),
        401014
    );
    assert_eq!(
        env.swpost(
            "/trade/batch_cancel_order",
            &json!([{"instrument_id": BTC}])
        )
        .code(),
        400001
    );
    assert_eq!(env.ctl.swap_open_order_count(env.account), 21);
}
