//! Bounded history (`SimConfig::retention`), through real HTTP as a client sends it: the
//! earliest finished orders fall out of listings and detail (answered as unknown ids), the
//! newest are all kept in order, open orders are never dropped, and own and public trades keep
//! the newest within their caps.

use crate::common::*;
use crate::swap_trading::{place_ok, BTC};
use digifinex_sim::{AccountType, Retention, SimConfig};
use serde_json::{json, Value};

/// Start of the frozen clock (ms; a whole second).
const START: i64 = 1_800_000_000_000;

/// A simulator with small caps: 3 finished orders, 2 own trades, 4 public trades.
fn small() -> Env {
    let env = Env::with_config(
        SimConfig {
            start_time_ms: Some(START),
            retention: Retention {
                finished_orders_per_account: 3,
                own_trades_per_account: 2,
                public_trades_per_market: 4,
                ..Retention::default()
            },
            ..SimConfig::default().without_flow()
        }
        .without_limits(),
    );
    env.fund(AccountType::Spot, "USDT", "100000");
    env.fund(AccountType::Swap, "USDT", "100000");
    env
}

fn ok(r: &Resp) -> Value {
    let j = r.json();
    assert_eq!(j["code"], 0, "{}", r.text());
    j
}

fn strings(list: &Value, key: &str) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|x| match &x[key] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

fn ints(list: &Value, key: &str) -> Vec<i64> {
    strings(list, key)
        .iter()
        .map(|s| s.parse().unwrap())
        .collect()
}

// ---- spot ----

fn spot_buy(env: &Env, price: &str) -> String {
    let r = env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", price),
            ("amount", "0.001"),
        ],
    );
    ok(&r)["order_id"].as_str().unwrap().to_owned()
}

fn spot_detail(env: &Env, id: &str) -> Resp {
    env.sget("/spot/order/detail", &[("order_id", id)])
}

#[test]
fn spot_finished_orders_beyond_the_cap_fall_out_and_open_orders_stay() {
    let env = small();
    // The oldest order stays open throughout.
    let open = spot_buy(&env, "10000");
    env.ctl.advance_clock(60_000);
    // Five orders placed and cancelled 10 s apart: they finish in placement order.
    let mut done = Vec::new();
    for i in 1..=5 {
        let id = spot_buy(&env, &format!("1000{i}"));
        let r = env.spost("/spot/order/cancel", &[("order_id", &id)]);
        assert_eq!(ok(&r)["success"], json!([id]));
        done.push(id);
        env.ctl.advance_clock(10_000);
    }
    // The two that finished first are unknown ids now (20013), everywhere.
    for id in &done[..2] {
        assert_eq!(spot_detail(&env, id).code(), 20013, "{id}");
        assert_eq!(env.sget("/spot/order", &[("order_id", id)]).code(), 20013);
        let r = env.spost("/spot/order/cancel", &[("order_id", id)]);
        assert_eq!(ok(&r)["error"], json!([id]));
    }
    // The three newest are all kept, cancelled (status 3), with their prices.
    for (i, id) in done.iter().enumerate().skip(2) {
        let d = ok(&spot_detail(&env, id));
        assert_eq!(d["data"]["order_id"], json!(id));
        assert_eq!(d["data"]["status"], 3);
        assert_eq!(num(&d["data"]["price"]), dec(&format!("1000{}", i + 1)));
    }
    // History: exactly the kept orders, newest first, the open one included however old.
    let h = ok(&env.sget("/spot/order/history", &[("limit", "100")]));
    let expected: Vec<String> = [&done[4], &done[3], &done[2], &open]
        .into_iter()
        .cloned()
        .collect();
    assert_eq!(strings(&h["data"], "order_id"), expected);
    // A time window still selects by creation time among the kept orders: from the fourth
    // order's second on.
    let from = (START + 60_000 + 3 * 10_000) / 1000;
    let h = ok(&env.sget(
        "/spot/order/history",
        &[("start_time", &from.to_string()), ("limit", "100")],
    ));
    assert_eq!(
        strings(&h["data"], "order_id"),
        vec![done[4].clone(), done[3].clone()]
    );
    // A limit takes the newest.
    let h = ok(&env.sget("/spot/order/history", &[("limit", "2")]));
    assert_eq!(
        strings(&h["data"], "order_id"),
        vec![done[4].clone(), done[3].clone()]
    );
    // The open order: listed, readable, cancellable.
    let cur = ok(&env.sget("/spot/order/current", &[]));
    assert_eq!(strings(&cur["data"], "order_id"), vec![open.clone()]);
    assert_eq!(ok(&spot_detail(&env, &open))["data"]["status"], 0);
    // Cancelling it makes it the newest finished order: the earliest kept one falls out.
    let r = env.spost("/spot/order/cancel", &[("order_id", &open)]);
    assert_eq!(ok(&r)["success"], json!([open]));
    assert_eq!(spot_detail(&env, &done[2]).code(), 20013);
    let h = ok(&env.sget("/spot/order/history", &[("limit", "100")]));
    assert_eq!(
        strings(&h["data"], "order_id"),
        vec![done[4].clone(), done[3].clone(), open.clone()]
    );
    assert_eq!(env.ctl.order_count(env.account), 3);
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn spot_own_and_public_trades_keep_the_newest() {
    let env = small();
    // The synthetic day of trades made at start is capped too: btc_usdt had ids 1..=48.
    let t = env.get("/trades", &[("symbol", "btc_usdt"), ("limit", "500")]);
    assert_eq!(ints(&t.json()["data"], "id"), vec![48, 47, 46, 45]);
    // Five market buys of 10 USDT, each one fill at the best ask: trade ids 289..=293 (six
    // pairs made 48 trades each at start).
    let mut orders = Vec::new();
    for _ in 0..5 {
        let r = env.spost(
            "/spot/order/new",
            &[
                ("symbol", "btc_usdt"),
                ("type", "buy_market"),
                ("amount", "10"),
            ],
        );
        orders.push(ok(&r)["order_id"].as_str().unwrap().to_owned());
    }
    let t = env.get("/trades", &[("symbol", "btc_usdt"), ("limit", "500")]);
    assert_eq!(ints(&t.json()["data"], "id"), vec![293, 292, 291, 290]);
    // Own trades: the newest two, newest first, of the last two orders.
    let mine = ok(&env.sget("/spot/mytrades", &[("limit", "500")]));
    assert_eq!(ints(&mine["list"], "id"), vec![293, 292]);
    assert_eq!(
        strings(&mine["list"], "order_id"),
        vec![orders[4].clone(), orders[3].clone()]
    );
    // Order detail shows the kept fills only: the third order is kept (3 finished orders) but
    // its fill (291) is not; the fourth shows its fill.
    let d = ok(&spot_detail(&env, &orders[2]));
    assert_eq!(d["data"]["status"], 2);
    assert_eq!(d["data"]["detail"], json!([]));
    let d = ok(&spot_detail(&env, &orders[3]));
    assert_eq!(ints(&d["data"]["detail"], "tid"), vec![292]);
    // The first two orders fell out.
    assert_eq!(spot_detail(&env, &orders[0]).code(), 20013);
    assert_eq!(spot_detail(&env, &orders[1]).code(), 20013);
    assert_eq!(env.ctl.panics(), 0);
}

// ---- swap ----

fn swap_buy(env: &Env, price: &str) -> String {
    place_ok(
        env,
        json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1, "price": price}),
    )
}

fn swap_info(env: &Env, id: &str) -> Resp {
    env.swsget("/trade/order_info", &[("order_id", id)])
}

fn swap_cancel(env: &Env, id: &str) -> Resp {
    env.swpost(
        "/trade/cancel_order",
        &json!({"instrument_id": BTC, "order_id": id}),
    )
}

fn not_found(r: &Resp) {
    assert_eq!((r.status, r.code()), (400, 400002), "{}", r.text());
    assert_eq!(r.json()["msg"], "order not found");
}

#[test]
fn swap_finished_orders_beyond_the_cap_fall_out_and_open_orders_stay() {
    let env = small();
    let open = swap_buy(&env, "25000");
    env.ctl.advance_clock(60_000);
    let mut done = Vec::new();
    for i in 1..=5 {
        let id = swap_buy(&env, &format!("2500{i}"));
        Env::ok_data(&swap_cancel(&env, &id));
        done.push(id);
        env.ctl.advance_clock(10_000);
    }
    for id in &done[..2] {
        not_found(&swap_info(&env, id));
        not_found(&swap_cancel(&env, id));
    }
    for (i, id) in done.iter().enumerate().skip(2) {
        let o = Env::ok_data(&swap_info(&env, id));
        assert_eq!(o["order_id"], json!(id));
        assert_eq!(o["state"], -1);
        assert_eq!(o["price"], json!(format!("2500{}", i + 1)));
    }
    let h = Env::ok_data(&env.swsget("/trade/history_orders", &[("limit", "100")]));
    assert_eq!(
        strings(&h, "order_id"),
        vec![done[4].clone(), done[3].clone(), done[2].clone()]
    );
    // Time windows and limits work among the kept orders.
    let from = (START + 60_000 + 3 * 10_000).to_string();
    let h = Env::ok_data(&env.swsget(
        "/trade/history_orders",
        &[("start_timestamp", &from), ("limit", "100")],
    ));
    assert_eq!(
        strings(&h, "order_id"),
        vec![done[4].clone(), done[3].clone()]
    );
    let h = Env::ok_data(&env.swsget("/trade/history_orders", &[("limit", "1")]));
    assert_eq!(strings(&h, "order_id"), vec![done[4].clone()]);
    let open_list = Env::ok_data(&env.swsget("/trade/open_orders", &[]));
    assert_eq!(strings(&open_list, "order_id"), vec![open.clone()]);
    assert_eq!(Env::ok_data(&swap_info(&env, &open))["state"], 0);
    // The open order still counts in the margin checks: its margin stays frozen, and
    // cancelling it releases everything.
    assert!(env.frozen(AccountType::Swap, "USDT") > dec("0"));
    Env::ok_data(&swap_cancel(&env, &open));
    assert_eq!(env.frozen(AccountType::Swap, "USDT"), dec("0"));
    not_found(&swap_info(&env, &done[2]));
    assert_eq!(env.ctl.swap_order_count(env.account), 3);
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn swap_fills_and_public_trades_keep_the_newest() {
    let env = small();
    let t = Env::ok_data(&env.swget(
        "/public/trades",
        &[("instrument_id", BTC), ("limit", "100")],
    ));
    assert_eq!(ints(&t, "trade_id"), vec![48, 47, 46, 45]);
    // Five 1-contract opponent IOC buys, one fill each: trade ids 241..=245 (five instruments
    // made 48 trades each at start).
    let orders: Vec<String> = (0..5)
        .map(|_| {
            place_ok(
                &env,
                json!({"instrument_id": BTC, "type": 1, "order_type": 1, "size": 1}),
            )
        })
        .collect();
    let t = Env::ok_data(&env.swget(
        "/public/trades",
        &[("instrument_id", BTC), ("limit", "100")],
    ));
    assert_eq!(ints(&t, "trade_id"), vec![245, 244, 243, 242]);
    let fills = Env::ok_data(&env.swsget("/trade/history_trades", &[("limit", "100")]));
    assert_eq!(ints(&fills, "trade_id"), vec![245, 244]);
    assert_eq!(
        strings(&fills, "order_id"),
        vec![orders[4].clone(), orders[3].clone()]
    );
    // Filled orders are finished orders: the first two fell out, the last three are kept.
    not_found(&swap_info(&env, &orders[0]));
    not_found(&swap_info(&env, &orders[1]));
    for id in &orders[2..] {
        assert_eq!(Env::ok_data(&swap_info(&env, id))["state"], 2);
    }
    let h = Env::ok_data(&env.swsget("/trade/history_orders", &[("limit", "100")]));
    assert_eq!(
        strings(&h, "order_id"),
        vec![orders[4].clone(), orders[3].clone(), orders[2].clone()]
    );
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn a_copy_position_keeps_its_sponsored_order_until_it_closes() {
    let env = small();
    env.ctl.set_mark_price(BTC, Some(dec("30000"))).unwrap();
    let sponsor = |n: i64| {
        let r = env.swpost(
            "/follow/sponsor_order",
            &json!({"instrument_id": BTC, "margin_mode": 1, "type": 1, "leverage": 10, "order_type": 1, "order_num": n}),
        );
        Env::ok_data(&r)["order_id"].as_str().unwrap().to_owned()
    };
    // A filled sponsored order: finished, but its copy position is open.
    let held = sponsor(3);
    assert_eq!(Env::ok_data(&swap_info(&env, &held))["state"], 2);
    // Five more finished orders do not push it out.
    for i in 1..=5 {
        let id = swap_buy(&env, &format!("2500{i}"));
        Env::ok_data(&swap_cancel(&env, &id));
    }
    assert_eq!(Env::ok_data(&swap_info(&env, &held))["state"], 2);
    let cur = Env::ok_data(&env.swpost("/follow/user_center_current", &json!({"type": 1})));
    assert_eq!(strings(&cur["list"], "order_id"), vec![held.clone()]);
    // Closed, it joins the finished orders (with its closing order) and shows in the history.
    let r = env.swpost("/follow/close_order", &json!({"open_order_id": held}));
    assert_eq!(Env::ok_data(&r)["res"], 1);
    let hist = Env::ok_data(&env.swpost("/follow/user_center_history", &json!({})));
    assert_eq!(strings(&hist["list"], "order_id"), vec![held.clone()]);
    // Three more finished orders push it out, and its closed copy position with it.
    for i in 6..=8 {
        let id = swap_buy(&env, &format!("2500{i}"));
        Env::ok_data(&swap_cancel(&env, &id));
    }
    not_found(&swap_info(&env, &held));
    let hist = Env::ok_data(&env.swpost("/follow/user_center_history", &json!({})));
    assert_eq!(hist["list"], json!([]));
    assert_eq!(hist["page"]["count"], 0);
    let r = env.swpost("/follow/close_order", &json!({"open_order_id": held}));
    assert_eq!(r.code(), 404013);
    // A sponsored order that ends unfilled ends its copy position: nothing stays behind.
    let (_, (bid, _)) = crate::swap_trading::top(&env, BTC);
    let r = env.swpost(
        "/follow/sponsor_order",
        &json!({"instrument_id": BTC, "margin_mode": 1, "type": 1, "leverage": 10, "order_type": 0, "limit_price": (bid - dec("100")).to_string(), "order_num": 1}),
    );
    let resting = Env::ok_data(&r)["order_id"].as_str().unwrap().to_owned();
    Env::ok_data(&swap_cancel(&env, &resting));
    let r = env.swpost("/follow/close_order", &json!({"open_order_id": resting}));
    assert_eq!(r.code(), 404012);
    let cur = Env::ok_data(&env.swpost("/follow/user_center_current", &json!({"type": 1})));
    assert_eq!(cur["list"], json!([]));
    assert_eq!(env.ctl.panics(), 0);
}
