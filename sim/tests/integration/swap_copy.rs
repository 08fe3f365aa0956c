use crate::common::*;
use crate::swap_trading::{info, swap_env, top, BTC};
use rust_decimal::Decimal;
use serde_json::{json, Value};

fn sponsor(env: &Env, extra: Value) -> Resp {
    let mut body = json!({"instrument_id": BTC, "margin_mode": 1, "type": 1, "leverage": 10, "order_type": 1, "order_num": 5});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    env.swpost("/follow/sponsor_order", &body)
}

#[test]
fn copy_sponsor_tp_sl_validation() {
    let env = swap_env();
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    let c = |extra: Value| sponsor(&env, extra).code();
    // Long at market (reference: mark 30000).
    assert_eq!(c(json!({"stop_earn_trigger_price": "29000"})), 404008);
    assert_eq!(c(json!({"stop_loss_trigger_price": "31000"})), 404010);
    // Short.
    assert_eq!(
        c(json!({"type": 2, "stop_earn_trigger_price": "31000"})),
        404009
    );
    assert_eq!(
        c(json!({"type": 2, "stop_loss_trigger_price": "29000"})),
        404011
    );
    // Limit price reference and deviation from the mark.
    assert_eq!(
        c(json!({"order_type": 0, "limit_price": "29000", "stop_earn_trigger_price": "29500"})),
        0
    );
    assert_eq!(
        c(json!({"order_type": 0, "limit_price": "29000", "stop_earn_trigger_price": "28900"})),
        404008
    );
    assert_eq!(c(json!({"order_type": 0, "limit_price": "20000"})), 404007);
    assert_eq!(c(json!({"order_type": 0})), 400001);
    assert_eq!(c(json!({"margin_mode": 3})), 400002);
    assert_eq!(c(json!({"type": 3})), 400002);
    assert_eq!(c(json!({"order_type": 13})), 400002);
    assert_eq!(c(json!({"instrument_id": "XRPUSDTPERP"})), 404003);
    assert_eq!(c(json!({"instrument_id": "NOPEPERP"})), 404003);
    // A pending order blocks a leverage change (404006); a position blocks it with 404004.
    assert_eq!(c(json!({"leverage": 20})), 404006);
    let r = sponsor(
        &env,
        json!({"stop_earn_trigger_price": "33000", "stop_loss_trigger_price": "27000"}),
    );
    assert_eq!(Env::ok_data(&r)["res"], 1);
    env.swpost("/trade/batch_cancel_order", &json!([]));
    let open: Vec<String> = env
        .ctl
        .swap_orders(env.account)
        .into_iter()
        .filter(|o| o.state == 0 || o.state == 1)
        .map(|o| o.order_id)
        .collect();
    for id in open {
        env.swpost(
            "/trade/cancel_order",
            &json!({"instrument_id": BTC, "order_id": id}),
        );
    }
    assert_eq!(c(json!({"leverage": 20})), 404004);
    assert_eq!(c(json!({"margin_mode": 2})), 404004);
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn copy_lifecycle_close_cancel_algos_listings() {
    let env = swap_env();
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    // A filled sponsor order is a current copy position.
    let r = Env::ok_data(&sponsor(&env, json!({"order_num": 3})));
    let filled_id = r["order_id"].as_str().unwrap().to_owned();
    assert_eq!(info(&env, &filled_id)["state"], 2);
    // A resting limit sponsor order is an expert open order.
    let (_, (bid, _)) = top(&env, BTC);
    let r = Env::ok_data(&sponsor(
        &env,
        json!({"order_type": 0, "limit_price": (bid - dec("100")).to_string(), "order_num": 2}),
    ));
    let open_id = r["order_id"].as_str().unwrap().to_owned();

    let cur = Env::ok_data(&env.swpost("/follow/user_center_current", &json!({"type": 1})));
    assert_eq!(cur["res"], 1);
    assert_eq!(
        cur["page"],
        json!({"page_size": 10, "cur_page": 1, "total_page": 1, "count": 1})
    );
    let p = &cur["list"][0];
    assert_eq!(p["order_id"], json!(filled_id));
    assert_eq!(p["direction"], 1);
    assert_eq!(p["margin_mode"], 1);
    assert_eq!(p["is_closing"], false);
    assert_eq!(num(&p["volume_total_original"]), dec("3"));
    for k in [
        "instrument_name",
        "leverage",
        "open_price",
        "open_fee",
        "expert_name",
        "unrealized_profit",
        "unrealized_profit_rate",
        "liquidate_price",
        "market_price",
        "margin_ratio",
        "posi_margin",
        "use_margin",
    ] {
        assert!(p[k].is_string(), "{k}: {p}");
    }
    assert!(p["open_time"].is_i64());
    assert_eq!(
        env.swpost("/follow/user_center_current", &json!({})).code(),
        400001
    );
    let summary = Env::ok_data(&env.swpost("/follow/user_center_current", &json!({"type": 2})));
    assert_eq!(summary["list"].as_array().unwrap().len(), 1);

    let exp = Env::ok_data(&env.swpost("/follow/expert_current_open_order", &json!({})));
    assert_eq!(exp["list"].as_array().unwrap().len(), 1);
    let o = &exp["list"][0];
    assert_eq!(o["order_id"], json!(open_id));
    assert_eq!(o["status"], 0);
    assert_eq!(o["order_price_type"], 0);
    assert!(o["order_price"].is_string() && o["order_time"].is_i64());

    // Algos on the filled position.
    let r = Env::ok_data(&env.swpost(
        "/follow/add_algo",
        &json!({"order_id": filled_id, "profit_trigger_type": 2, "profit_trigger_price": "35000"}),
    ));
    assert_eq!(r["result"], 1);
    assert_eq!(r["algos"].as_array().unwrap().len(), 1);
    assert!(r["algos"][0].is_string());
    assert_eq!(
        env.swpost(
            "/follow/add_algo",
            &json!({"order_id": filled_id, "profit_trigger_price": "36000"})
        )
        .code(),
        404014
    );
    assert_eq!(
        env.swpost(
            "/follow/add_algo",
            &json!({"order_id": filled_id, "stop_trigger_price": "36000"})
        )
        .code(),
        404010
    );
    assert_eq!(
        Env::ok_data(&env.swpost(
            "/follow/add_algo",
            &json!({"order_id": filled_id, "stop_trigger_type": 2, "stop_trigger_price": "25000"})
        ))["result"],
        1
    );
    assert_eq!(
        env.swpost(
            "/follow/add_algo",
            &json!({"order_id": filled_id, "stop_trigger_price": "24000"})
        )
        .code(),
        404015
    );
    assert_eq!(
        env.swpost(
            "/follow/add_algo",
            &json!({"order_id": "123", "stop_trigger_price": "24000"})
        )
        .code(),
        404013
    );
    assert_eq!(
        env.swpost("/follow/add_algo", &json!({"order_id": filled_id}))
            .code(),
        400001
    );
    let cur = Env::ok_data(&env.swpost("/follow/user_center_current", &json!({"type": 1})));
    assert_eq!(cur["list"][0]["stop_earn_trigger_price"], "35000");
    assert_eq!(cur["list"][0]["stop_loss_trigger_price"], "25000");
    assert_eq!(cur["list"][0]["stop_loss_trigger_price_type"], 2);
    let plans = Env::ok_data(&env.swpost("/follow/plan_task", &json!({"page": 1, "size": 10})));
    let list = plans["list"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["com_type"], 3);
    assert_eq!(list[0]["trigger_cond"], 2);
    assert_eq!(list[0]["direction"], 3);
    assert_eq!(list[0]["status"], 1);
    assert_eq!(list[1]["com_type"], 2);
    assert_eq!(plans["page"]["count"], 2);
    assert_eq!(
        env.swpost("/follow/plan_task", &json!({"page": 51, "size": 10}))
            .code(),
        400002
    );
    assert_eq!(
        env.swpost("/follow/plan_task", &json!({"size": 10})).code(),
        400001
    );
    // Cancel the take-profit; a second cancel finds nothing.
    let r = Env::ok_data(&env.swpost(
        "/follow/cancel_algo",
        &json!({"order_id": filled_id, "stop_profit": 1, "stop_loss": 0}),
    ));
    assert_eq!(r["result"], 1);
    let r = Env::ok_data(&env.swpost(
        "/follow/cancel_algo",
        &json!({"order_id": filled_id, "stop_profit": 1}),
    ));
    assert_eq!(r["result"], 2);
    assert_eq!(
        Env::ok_data(&env.swpost(
            "/follow/add_algo",
            &json!({"order_id": filled_id, "profit_trigger_price": "34000"})
        ))["result"],
        1
    );

    // Cancel the open sponsor order (spec's literal `order_i` parameter).
    assert_eq!(
        Env::ok_data(&env.swpost("/follow/cancel_order", &json!({"order_i": open_id})))["res"],
        1
    );
    assert_eq!(
        env.swpost("/follow/cancel_order", &json!({"order_id": open_id}))
            .code(),
        404012
    );
    assert_eq!(
        env.swpost("/follow/cancel_order", &json!({"order_id": "42"}))
            .code(),
        404013
    );
    assert!(
        Env::ok_data(&env.swpost("/follow/expert_current_open_order", &json!({})))["list"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Close the position manually.
    assert_eq!(
        Env::ok_data(&env.swpost("/follow/close_order", &json!({"open_order_id": filled_id})))
            ["res"],
        1
    );
    assert_eq!(
        env.swpost("/follow/close_order", &json!({"open_order_id": filled_id}))
            .code(),
        404012
    );
    assert_eq!(
        env.swpost("/follow/close_order", &json!({"open_order_id": "1"}))
            .code(),
        404013
    );
    assert!(env.ctl.swap_positions(env.account).is_empty());
    let hist = Env::ok_data(&env.swpost(
        "/follow/user_center_history",
        &json!({"page": 1, "size": 5}),
    ));
    assert_eq!(hist["res"], 1);
    let h = &hist["list"][0];
    assert_eq!(h["order_id"], json!(filled_id));
    assert_eq!(h["status"], 2);
    assert_eq!(num(&h["close_volume_traded"]), dec("3"));
    for k in [
        "close_price",
        "close_pnl",
        "close_fee",
        "profit",
        "open_price",
        "open_fee",
        "leverage",
    ] {
        assert!(h[k].is_string(), "{k}");
    }
    assert!(h["close_time"].is_i64());
    assert_eq!(hist["page"]["page_size"], 5);
    let plans = Env::ok_data(&env.swpost("/follow/plan_task", &json!({"page": 1, "size": 50})));
    assert!(plans["list"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["status"] == 3));

    let avail = Env::ok_data(&env.swpost("/follow/account_available", &json!({})));
    assert!(num(&avail["available"]) > Decimal::ZERO);
    let inst = Env::ok_data(&env.swpost("/follow/instrument_list", &json!({})));
    let inst = inst.as_array().unwrap();
    assert!(inst.iter().any(|i| i["instrument_id"] == BTC));
    assert!(inst.iter().all(|i| i["instrument_id"] != "XRPUSDTPERP"));
    for k in [
        "instrument_id",
        "instrument_name",
        "volume_multiple",
        "clear_currency",
        "taker_fee",
        "long_margin_ratio",
        "short_margin_ratio",
    ] {
        assert!(inst[0][k].is_string(), "{k}");
    }
    assert!(inst[0]["price_precision"].is_i64() && inst[0]["min_order_amount"].is_number());
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn copy_stop_loss_triggers_on_mark_price() {
    let env = swap_env();
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    let r = Env::ok_data(&sponsor(
        &env,
        json!({"stop_loss_trigger_price": "29000", "stop_earn_trigger_price": "31000"}),
    ));
    let id = r["order_id"].as_str().unwrap().to_owned();
    assert_eq!(env.ctl.swap_positions(env.account).len(), 1);
    env.ctl.set_mark_price(BTC, Some(dec("28900"))).unwrap();
    assert!(env.ctl.swap_positions(env.account).is_empty());
    let hist = Env::ok_data(&env.swpost("/follow/user_center_history", &json!({})));
    assert_eq!(hist["list"][0]["order_id"], json!(id));
    assert_eq!(hist["list"][0]["status"], 5);
    let plans = Env::ok_data(&env.swpost("/follow/plan_task", &json!({"page": 1, "size": 10})));
    let statuses: Vec<i64> = plans["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_i64().unwrap())
        .collect();
    assert_eq!(statuses.iter().filter(|s| **s == 2).count(), 1);
    assert_eq!(statuses.iter().filter(|s| **s == 3).count(), 1);
}

#[test]
fn a_liquidated_copy_position_ends_as_a_forced_close() {
    let env = swap_env();
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    // Isolated (margin_mode 2): the position risks its own margin only, so the liquidation is
    // near (a crossed one is carried by the whole account; see swap_account).
    let r = Env::ok_data(&sponsor(
        &env,
        json!({"margin_mode": 2, "stop_earn_trigger_price": "40000"}),
    ));
    let id = r["order_id"].as_str().unwrap().to_owned();
    let cur = Env::ok_data(&env.swpost("/follow/user_center_current", &json!({"type": 1})));
    let liq = num(&cur["list"][0]["liquidate_price"]);
    assert!(liq > dec("25000") && liq < dec("30000"), "{liq}");
    env.ctl.set_mark_price(BTC, Some(liq - dec("1"))).unwrap();
    assert!(env.ctl.swap_positions(env.account).is_empty());
    let hist = Env::ok_data(&env.swpost("/follow/user_center_history", &json!({})));
    assert_eq!(hist["list"][0]["order_id"], json!(id));
    assert_eq!(hist["list"][0]["status"], 3);
    assert_eq!(num(&hist["list"][0]["close_price"]), liq);
    assert!(num(&hist["list"][0]["close_pnl"]) < Decimal::ZERO);
    // The take-profit plan is cancelled with the position.
    let plans = Env::ok_data(&env.swpost("/follow/plan_task", &json!({"page": 1, "size": 10})));
    assert_eq!(plans["list"][0]["status"], 3);
    assert_eq!(env.ctl.panics(), 0);
}
