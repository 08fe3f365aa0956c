use crate::common::*;
use crate::swap_trading::BTC;
use digifinex_sim::{AccountType, FaultKind, FaultRule, SimConfig};
use serde_json::json;

fn limited(weight: u32) -> Env {
    let mut config = SimConfig::default().without_flow();
    config.limits.swap_weight_per_minute = weight;
    config.start_time_ms = Some(1_800_000_000_000);
    Env::with_config(config)
}

fn header_i64(r: &Resp, name: &str) -> i64 {
    r.header(name)
        .unwrap_or_else(|| panic!("{name} missing"))
        .parse()
        .unwrap()
}

#[test]
fn swap_usage_headers_decrease_then_429_then_403_ban() {
    let env = limited(10);
    let mut remains = Vec::new();
    for _ in 0..10 {
        let r = env.swget("/public/time", &[]);
        assert_eq!(r.status, 200);
        remains.push(header_i64(&r, "ip-weight-minute-remain"));
    }
    assert_eq!(remains, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    // Weighted routes count their weight.
    env.ctl.advance_clock(60_000);
    let r = env.swget("/public/instruments", &[]);
    assert_eq!(header_i64(&r, "ip-weight-minute-use"), 5);
    for _ in 0..5 {
        assert_eq!(env.swget("/public/time", &[]).status, 200);
    }
    // Over the limit: 429 with retry-after (end of the minute) and 403001.
    let r = env.swget("/public/time", &[]);
    assert_eq!(r.status, 429);
    assert_eq!(r.code(), 403001);
    let retry = header_i64(&r, "retry-after");
    assert!((1..=60).contains(&retry), "{retry}");
    assert!(r.header("ip-weight-minute-use").is_some());
    assert_eq!(env.swget("/public/time", &[]).status, 429);
    // The third violation within 10 minutes bans for 2 minutes: 403 with 403002.
    let r = env.swget("/public/time", &[]);
    assert_eq!(r.status, 403);
    assert_eq!(r.code(), 403002);
    assert_eq!(header_i64(&r, "retry-after"), 120);
    env.ctl.advance_clock(61_000);
    assert_eq!(env.swget("/public/time", &[]).status, 403);
    env.ctl.advance_clock(60_000);
    assert_eq!(env.swget("/public/time", &[]).status, 200);
    // Repeat offenders: the next ban is longer (10 minutes).
    for _ in 0..9 {
        env.swget("/public/time", &[]);
    }
    assert_eq!(env.swget("/public/time", &[]).status, 429);
    assert_eq!(env.swget("/public/time", &[]).status, 429);
    let r = env.swget("/public/time", &[]);
    assert_eq!(r.status, 403);
    assert_eq!(header_i64(&r, "retry-after"), 600);
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn swap_private_weights_per_account_and_key() {
    let env = limited(20);
    env.fund(AccountType::Swap, "USDT", "1000");
    let r1 = env.swsget("/account/balance", &[]);
    let r2 = env.swsget("/account/balance", &[]);
    assert_eq!(header_i64(&r1, "account-weight-minute-use"), 2);
    assert_eq!(header_i64(&r2, "account-weight-minute-use"), 4);
    assert_eq!(header_i64(&r2, "apikey-weight-minute-remain"), 16);
    assert!(r2.header("ip-weight-minute-use").is_none());
    // A second key of the same account shares the account counter, not the key counter.
    let k2 = env
        .ctl
        .create_api_key(env.account, digifinex_sim::KeyOptions::default())
        .unwrap();
    let r = env.swap_signed_with(
        "GET",
        "/swap/v2/account/balance",
        "",
        &k2.key,
        &k2.secret,
        env.ctl.now_ms(),
        None,
    );
    assert_eq!(header_i64(&r, "account-weight-minute-use"), 6);
    assert_eq!(header_i64(&r, "apikey-weight-minute-use"), 2);
    // Public requests are counted per IP, separately.
    let r = env.swget("/public/time", &[]);
    assert_eq!(header_i64(&r, "ip-weight-minute-use"), 1);
    // Errors carry the headers too.
    let r = env.swpost("/trade/order_place", &json!({"instrument_id": BTC}));
    assert_eq!(r.code(), 400001);
    assert_eq!(header_i64(&r, "account-weight-minute-use"), 8);
}

#[test]
fn swap_drop_after_apply_leaves_exactly_one_order() {
    let env = Env::new();
    env.fund(AccountType::Swap, "USDT", "10000");
    env.ctl.add_fault(
        FaultRule::route(
            "POST",
            "/swap/v2/trade/order_place",
            FaultKind::DropAfterApply,
        )
        .times(1),
    );
    let body =
        json!({"instrument_id": BTC, "type": 1, "order_type": 0, "size": 1, "price": "25000"})
            .to_string();
    let ts = env.ctl.now_ms().to_string();
    let sign = env.swap_sign(
        &env.secret,
        &ts,
        "POST",
        "/swap/v2/trade/order_place",
        &body,
    );
    let req = format!(
        "POST /swap/v2/trade/order_place HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\nACCESS-KEY: {}\r\nACCESS-SIGN: {}\r\nACCESS-TIMESTAMP: {}\r\n\r\n{}",
        body.len(), env.key, sign, ts, body
    );
    let out = raw(env.addr(), req.as_bytes()).unwrap_or_default();
    assert!(parse(&out).is_err(), "expected no response");
    let orders = env.ctl.swap_orders(env.account);
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].state, 0);
    let r = env.control(
        "GET",
        &format!("/__sim/swap/orders?account={}", env.account),
        "",
    );
    assert_eq!(r.json()["count"], 1);
    assert_eq!(r.json()["open"], 1);
    // Dropped before apply: nothing more.
    env.ctl.add_fault(
        FaultRule::route(
            "POST",
            "/swap/v2/trade/order_place",
            FaultKind::DropBeforeApply,
        )
        .times(1),
    );
    let out = raw(env.addr(), req.as_bytes()).unwrap_or_default();
    assert!(parse(&out).is_err());
    assert_eq!(env.ctl.swap_order_count(env.account), 1);
    // Injected 429 and 5xx use swap codes.
    env.ctl.add_fault(
        FaultRule::route(
            "GET",
            "/swap/v2/*",
            FaultKind::TooManyRequests { retry_after_s: 3 },
        )
        .times(1),
    );
    let r = env.swget("/public/time", &[]);
    assert_eq!((r.status, r.code()), (429, 403001));
    assert_eq!(r.header("retry-after"), Some("3"));
}

#[test]
fn swap_control_http_routes() {
    let env = Env::new();
    env.fund(AccountType::Swap, "USDT", "10000");
    let r = env.control(
        "POST",
        "/__sim/swap/prices",
        &json!({"instrument_id": BTC, "mark_price": "31000", "index_price": "30990"}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let t = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", BTC)]));
    assert_eq!(t["mark_price"], "31000");
    assert_eq!(t["index_price"], "30990");
    let r = env.control(
        "POST",
        "/__sim/swap/prices",
        &json!({"instrument_id": BTC, "mark_price": null}).to_string(),
    );
    assert_eq!(r.status, 200);
    let t = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", BTC)]));
    assert_ne!(t["mark_price"], "31000");
    assert_eq!(
        env.control(
            "POST",
            "/__sim/swap/prices",
            &json!({"instrument_id": "X", "mark_price": "1"}).to_string()
        )
        .status,
        400
    );
    let r = env.control(
        "POST",
        "/__sim/swap/funding_rate",
        &json!({"instrument_id": BTC, "rate": "-0.0005"}).to_string(),
    );
    assert_eq!(r.status, 200);
    let f = Env::ok_data(&env.swget("/public/funding_rate", &[("instrument_id", BTC)]));
    assert_eq!(f["next_funding_rate"], "-0.0005");
    let r = env.control("GET", "/__sim/swap/funding", "");
    // The earliest next funding of all contracts: the 4-hourly XRPUSDTPERP's.
    let xrp = Env::ok_data(&env.swget("/public/funding_rate", &[("instrument_id", "XRPUSDTPERP")]));
    assert_eq!(r.json()["next_funding_time"], xrp["funding_time"]);
    let r = env.control(
        "POST",
        "/__sim/swap/trading",
        &json!({"instrument_id": BTC, "is_trading": false}).to_string(),
    );
    assert_eq!(r.status, 200);
    let place = json!({"instrument_id": BTC, "type": 1, "order_type": 1, "size": 1});
    assert_eq!(env.swpost("/trade/order_place", &place).code(), 401004);
    env.control(
        "POST",
        "/__sim/swap/trading",
        &json!({"instrument_id": BTC, "is_trading": true}).to_string(),
    );
    assert_eq!(env.swpost("/trade/order_place", &place).code(), 0);
    let r = env.control(
        "GET",
        &format!("/__sim/swap/positions?account={}", env.account),
        "",
    );
    let p = &r.json()["positions"][0];
    assert_eq!(p["instrument_id"], BTC);
    assert_eq!(p["side"], "long");
    assert_eq!(p["size"], "1");
    // The demo account is funded for swap.
    let d = env.control("POST", "/__sim/demo", "").json();
    let acct = d["account"].as_u64().unwrap();
    assert_eq!(
        env.ctl
            .balance(acct, AccountType::Swap, "USDT")
            .unwrap()
            .free,
        dec("10000")
    );
}

#[test]
fn swap_garbage_inputs_never_panic() {
    let mut config = SimConfig::default().without_flow().without_limits();
    config.start_time_ms = Some(1_800_000_000_000);
    let env = Env::with_config(config);
    env.fund(AccountType::Swap, "USDT", "100000");
    let weights = Env::ok_data(&env.swget("/public/api_weight", &[]));
    let odd = [
        "",
        "-1",
        "0",
        "1",
        "2",
        "9223372036854775807",
        "-9223372036854775808",
        "1e300",
        "abc",
        "0.5",
        "BTCUSDTPERP",
        "long",
        "crossed",
        "true",
        "[]",
        "{}",
        "null",
        "99999999999999999999999999999",
    ];
    let keys = [
        "instrument_id",
        "type",
        "order_type",
        "size",
        "price",
        "limit",
        "granularity",
        "start_timestamp",
        "end_timestamp",
        "currency",
        "transfer_amount",
        "margin_mode",
        "side",
        "amount",
        "leverage",
        "order_id",
        "order_status",
        "finance_type",
        "page",
        "post_only",
        "limit_price",
        "order_num",
        "open_order_id",
        "order_i",
        "stop_earn_trigger_price",
        "stop_loss_trigger_price",
        "profit_trigger_price",
        "stop_trigger_price",
        "stop_profit",
        "stop_loss",
    ];
    for route in weights.as_array().unwrap() {
        let path = route["path"]
            .as_str()
            .unwrap()
            .trim_start_matches("/swap/v2");
        let post = path.starts_with("/follow/")
            || [
                "/account/transfer",
                "/account/position_mode",
                "/account/position_margin",
                "/account/leverage",
            ]
            .contains(&path)
            || (path.starts_with("/trade/")
                && ![
                    "/trade/open_orders",
                    "/trade/order_info",
                    "/trade/history_orders",
                    "/trade/history_trades",
                ]
                .contains(&path));
        for (n, v) in odd.iter().enumerate() {
            let mut pairs: Vec<(&str, &str)> = keys.iter().map(|k| (*k, *v)).collect();
            pairs[0] = ("instrument_id", if n % 2 == 0 { "BTCUSDTPERP" } else { v });
            pairs[6] = ("granularity", "1m");
            let r = if post {
                let mut obj = serde_json::Map::new();
                for (k, val) in &pairs {
                    let jv = serde_json::from_str::<serde_json::Value>(val)
                        .unwrap_or(serde_json::Value::String((*val).to_owned()));
                    obj.insert((*k).to_owned(), jv);
                }
                let body = serde_json::Value::Object(obj);
                let r = env.swpost(path, &body);
                env.swpost(path, &json!([body.clone(), body]));
                r
            } else if path.starts_with("/public/") {
                env.swget(path, &pairs)
            } else {
                env.swsget(path, &pairs)
            };
            assert_ne!(r.status, 500, "{path} {v}: {}", r.text());
            assert!(r.json()["code"].is_i64());
        }
    }
    env.ctl.advance_clock(40 * 86_400_000);
    assert_eq!(env.swget("/public/time", &[]).status, 200);
    assert_eq!(env.ctl.panics(), 0);
}
