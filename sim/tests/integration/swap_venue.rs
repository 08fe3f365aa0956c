//! The swap API as the live venue answers where it differs from the documents
//! (docs/protocol.md, "The live venue", "Swap and copy trading"), driven over raw HTTP.

use crate::common::*;
use crate::swap_trading::{place_ok, BTC};
use digifinex_sim::{AccountType, SimConfig};
use serde_json::{json, Value};

const XRP: &str = "XRPUSDTPERP";
const SIM_BTC: &str = "BTCUSDT2PERP";
const HOUR: i64 = 3_600_000;
/// An 8-hour (and so 4-hour) funding boundary.
const BOUNDARY: i64 = 1_800_000_000_000;

fn frozen(at: i64) -> Env {
    Env::with_config(SimConfig {
        start_time_ms: Some(at),
        ..SimConfig::default().without_flow()
    })
}

fn weight_headers(r: &Resp) -> Vec<&str> {
    r.headers
        .iter()
        .filter(|(k, _)| k.contains("weight"))
        .map(|(k, _)| k.as_str())
        .collect()
}

/// Query pairs of a request.
type Query<'a> = &'a [(&'a str, &'a str)];

fn header_i64(r: &Resp, name: &str) -> i64 {
    r.header(name)
        .unwrap_or_else(|| panic!("{name} missing"))
        .parse()
        .unwrap()
}

#[test]
fn swap_errors_answer_http_400_with_code_and_msg() {
    let env = Env::new();
    // Unknown instrument (percent-encoded value): the live body, exactly.
    let r = send(
        env.addr(),
        "GET",
        "/swap/v2/public/depth?instrument_id=NOPE%2DPERP",
        &[],
        "",
    )
    .unwrap();
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json(),
        json!({"code": 400002, "msg": "invalid InstrumentId"})
    );
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    // Errors are charged and carry the usage headers.
    assert_eq!(header_i64(&r, "ip-weight-minute-use"), 2);
    // A percent-encoded known id is fine; a bad limit is `invalid Limit`.
    let r = send(
        env.addr(),
        "GET",
        "/swap/v2/public/depth?instrument_id=%42TCUSDTPERP&limit=0",
        &[],
        "",
    )
    .unwrap();
    assert_eq!(r.status, 400);
    assert_eq!(r.json(), json!({"code": 400002, "msg": "invalid Limit"}));
    let r = send(
        env.addr(),
        "GET",
        "/swap/v2/public/depth?instrument_id=%42TCUSDTPERP",
        &[],
        "",
    )
    .unwrap();
    assert_eq!((r.status, r.code()), (200, 0));
    // Missing parameter.
    let r = env.swget("/public/ticker", &[]);
    assert_eq!((r.status, r.code()), (400, 400001));
    assert!(r.json()["msg"].is_string());
    // Authentication errors: HTTP 400 too.
    let now = env.ctl.now_ms();
    let r = env.swap_signed_with(
        "GET",
        "/swap/v2/account/balance",
        "",
        "nokey",
        &env.secret,
        now,
        None,
    );
    assert_eq!((r.status, r.code()), (400, 400006));
    // A business error on a signed POST whose JSON has spaces and no Content-Type: HTTP 400.
    let body = r#"{"instrument_id": "BTCUSDTPERP", "type": 1, "order_type": 1, "size": 1, "price": "25000"}"#;
    let r = env.swap_signed_with(
        "POST",
        "/swap/v2/trade/order_place",
        body,
        &env.key,
        &env.secret,
        now,
        None,
    );
    assert_eq!((r.status, r.code()), (400, 401003), "{}", r.text());
    assert!(r.json()["msg"].is_string());
    assert!(r.header("account-weight-minute-use").is_some());
    // Success stays HTTP 200.
    env.fund(AccountType::Swap, "USDT", "10000");
    let r = env.swap_signed_with(
        "POST",
        "/swap/v2/trade/order_place",
        body,
        &env.key,
        &env.secret,
        env.ctl.now_ms(),
        None,
    );
    assert_eq!((r.status, r.code()), (200, 0), "{}", r.text());
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn swap_unknown_path_is_plain_text_404_without_weight() {
    let env = Env::new();
    for (method, target) in [
        ("GET", "/swap/v2/public/nothing"),
        (
            "GET",
            "/swap/v2/public/tickers/extra?instrument_id=BTCUSDTPERP",
        ),
        ("POST", "/swap/v2/trade/nothing"),
        ("GET", "/swap"),
    ] {
        let r = send(env.addr(), method, target, &[], "").unwrap();
        assert_eq!(r.status, 404, "{method} {target}");
        assert!(
            r.header("content-type").unwrap().starts_with("text/plain"),
            "{method} {target}"
        );
        assert!(
            serde_json::from_slice::<Value>(&r.body).is_err(),
            "{}",
            r.text()
        );
        assert!(!r.text().is_empty());
        assert_eq!(weight_headers(&r), Vec::<&str>::new(), "{method} {target}");
    }
    // A signed request to an unknown private path: the same.
    let r = env.swap_signed_with(
        "GET",
        "/swap/v2/account/nothing",
        "",
        &env.key,
        &env.secret,
        env.ctl.now_ms(),
        None,
    );
    assert_eq!(r.status, 404);
    assert!(weight_headers(&r).is_empty());
    // Nothing was charged.
    let r = env.swget("/public/time", &[]);
    assert_eq!(header_i64(&r, "ip-weight-minute-use"), 1);
    let r = env.swsget("/account/trading_fee_rate", &[("instrument_id", BTC)]);
    assert_eq!(header_i64(&r, "account-weight-minute-use"), 1);
}

#[test]
fn swap_weights_follow_the_venue_and_6000_per_minute() {
    let env = frozen(BOUNDARY + 1_000);
    // The notes' example: one call of weight 5 leaves 5995 of 6000.
    let r = env.swget("/public/instruments", &[]);
    assert_eq!(header_i64(&r, "ip-weight-minute-use"), 5);
    assert_eq!(header_i64(&r, "ip-weight-minute-remain"), 5995);
    // The route table served by api_weight.
    let table = Env::ok_data(&env.swget("/public/api_weight", &[]));
    let weight = |path: &str| {
        table
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == path)
            .unwrap_or_else(|| panic!("{path} not listed"))["weight"]
            .as_i64()
            .unwrap()
    };
    let expected: [(&str, i64, Query); 11] = [
        ("tickers", 1, &[]),
        ("ticker", 1, &[("instrument_id", BTC)]),
        ("funding_rate", 1, &[("instrument_id", BTC)]),
        ("instrument", 1, &[("instrument_id", BTC)]),
        ("time", 1, &[]),
        ("trades", 1, &[("instrument_id", BTC)]),
        (
            "candles",
            1,
            &[("instrument_id", BTC), ("granularity", "1m")],
        ),
        ("depth", 2, &[("instrument_id", BTC)]),
        ("instruments", 5, &[]),
        ("funding_rate_history", 10, &[("instrument_id", BTC)]),
        (
            "candles_history",
            10,
            &[("instrument_id", BTC), ("granularity", "1h")],
        ),
    ];
    // Each route is charged its listed weight.
    let mut used = header_i64(&env.swget("/public/time", &[]), "ip-weight-minute-use");
    for (route, w, query) in expected {
        assert_eq!(weight(&format!("/swap/v2/public/{route}")), w, "{route}");
        let r = env.swget(&format!("/public/{route}"), query);
        assert_eq!((r.status, r.code()), (200, 0), "{route}: {}", r.text());
        let now_used = header_i64(&r, "ip-weight-minute-use");
        assert_eq!(now_used - used, w, "{route}");
        assert_eq!(header_i64(&r, "ip-weight-minute-remain"), 6000 - now_used);
        assert!(r.header("account-weight-minute-use").is_none());
        used = now_used;
    }
    // Private routes: account and apikey headers against the same 6000, no IP headers.
    let r = env.swsget("/account/balance", &[]);
    let w = weight("/swap/v2/account/balance");
    assert_eq!(header_i64(&r, "account-weight-minute-use"), w);
    assert_eq!(header_i64(&r, "account-weight-minute-remain"), 6000 - w);
    assert_eq!(header_i64(&r, "apikey-weight-minute-use"), w);
    assert_eq!(header_i64(&r, "apikey-weight-minute-remain"), 6000 - w);
    assert!(r.header("ip-weight-minute-use").is_none());
    // The budget is per minute: 6000 of weight 10, then 429.
    env.ctl.advance_clock(60_000);
    for _ in 0..600 {
        let r = env.swget("/public/funding_rate_history", &[("instrument_id", BTC)]);
        assert_eq!(r.status, 200);
    }
    let r = env.swget("/public/time", &[]);
    assert_eq!((r.status, r.code()), (429, 403001));
    assert_eq!(header_i64(&r, "ip-weight-minute-remain"), 0);
}

#[test]
fn swap_depth_levels_are_json_numbers() {
    let env = Env::new();
    let r = send(
        env.addr(),
        "GET",
        "/swap/v2/public/depth?instrument_id=BTCUSDTPERP&limit=5",
        &[],
        "",
    )
    .unwrap();
    let d = Env::ok_data(&r);
    for side in ["asks", "bids"] {
        let levels = d[side].as_array().unwrap();
        assert_eq!(levels.len(), 5);
        for l in levels {
            assert_eq!(l.as_array().unwrap().len(), 2, "{l}");
            assert!(l[0].is_number() && l[1].is_number(), "{side}: {l}");
        }
    }
    // No quoted number anywhere in the levels.
    let text = r.text();
    assert!(!text.contains("[\""), "{text}");
    // Ascending asks, descending bids, not crossed.
    let p = |side: &str, k: usize| d[side][k][0].as_f64().unwrap();
    assert!(p("asks", 0) < p("asks", 1));
    assert!(p("bids", 0) > p("bids", 1));
    assert!(p("bids", 0) < p("asks", 0));
}

#[test]
fn swap_ticker_timestamp_is_shared_and_stale() {
    let start = BOUNDARY + 12_345;
    let env = frozen(start);
    let check = |env: &Env| -> i64 {
        let now = env.ctl.now_ms();
        let list = Env::ok_data(&env.swget("/public/tickers", &[]));
        let rows = list.as_array().unwrap();
        assert!(rows.len() >= 2);
        let ts = rows[0]["timestamp"].as_i64().unwrap();
        assert!(rows.iter().all(|t| t["timestamp"] == ts), "{list}");
        let lag = now - ts;
        assert!((500..=60_000).contains(&lag), "lag {lag}");
        // The single ticker read at the same instant carries the same timestamp.
        let one = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", XRP)]));
        assert_eq!(one["timestamp"].as_i64().unwrap(), ts);
        ts
    };
    let t0 = check(&env);
    // Deterministic: the same clock gives the same timestamp.
    assert_eq!(check(&env), t0);
    // Within a refresh period it does not move; later it follows the clock, still stale.
    env.ctl.advance_clock(1_000);
    assert_eq!(check(&env), t0);
    env.ctl.advance_clock(20_000);
    let t1 = check(&env);
    assert!(t1 > t0);
    // Never the request time itself, whatever the millisecond.
    for step in [1, 499, 500, 501, 4_999] {
        env.ctl.advance_clock(step);
        let ts = check(&env);
        assert_ne!(ts, env.ctl.now_ms());
    }
}

fn funding(env: &Env, inst: &str) -> Value {
    Env::ok_data(&env.swget("/public/funding_rate", &[("instrument_id", inst)]))
}

fn last_settled(env: &Env, inst: &str) -> Value {
    let h = Env::ok_data(&env.swget(
        "/public/funding_rate_history",
        &[("instrument_id", inst), ("limit", "1")],
    ));
    h["funding_rates"][0].clone()
}

#[test]
fn swap_funding_every_4_or_8_hours_last_settled_rate() {
    let env = frozen(BOUNDARY + HOUR);
    env.fund(AccountType::Swap, "USDT", "100000");
    // BTC funds every 8 hours, XRP every 4: the interval is next_funding_time - funding_time.
    let btc = funding(&env, BTC);
    assert_eq!(btc["funding_time"].as_i64().unwrap(), BOUNDARY + 8 * HOUR);
    assert_eq!(
        btc["next_funding_time"].as_i64().unwrap(),
        BOUNDARY + 16 * HOUR
    );
    let xrp = funding(&env, XRP);
    assert_eq!(xrp["funding_time"].as_i64().unwrap(), BOUNDARY + 4 * HOUR);
    assert_eq!(
        xrp["next_funding_time"].as_i64().unwrap(),
        BOUNDARY + 8 * HOUR
    );
    // `funding_rate` is the last settled rate (the newest history entry), labelled with the next
    // funding time.
    for (inst, f) in [(BTC, &btc), (XRP, &xrp)] {
        let last = last_settled(&env, inst);
        assert_eq!(last["time"].as_i64().unwrap(), BOUNDARY, "{inst}");
        assert_eq!(f["funding_rate"], last["rate"], "{inst}");
    }
    // The forecast for the coming settlement is `next_funding_rate`.
    env.ctl.set_funding_rate(XRP, dec("0.002")).unwrap();
    env.ctl.set_funding_rate(BTC, dec("0.001")).unwrap();
    assert_eq!(funding(&env, XRP)["next_funding_rate"], "0.002");
    // An XRP long: 100 contracts of 10 XRP.
    env.ctl.set_mark_price(XRP, Some(dec("0.5"))).unwrap();
    place_ok(
        &env,
        json!({"instrument_id": XRP, "type": 1, "order_type": 13, "size": 100}),
    );
    // At BOUNDARY + 4 h only XRP settles.
    env.ctl.advance_clock(3 * HOUR);
    let xrp = funding(&env, XRP);
    assert_eq!(xrp["funding_rate"], "0.002");
    assert_eq!(xrp["funding_time"].as_i64().unwrap(), BOUNDARY + 8 * HOUR);
    assert_eq!(
        last_settled(&env, XRP),
        json!({"rate": "0.002", "time": BOUNDARY + 4 * HOUR})
    );
    assert_eq!(last_settled(&env, BTC)["time"].as_i64().unwrap(), BOUNDARY);
    let btc = funding(&env, BTC);
    assert_eq!(btc["funding_time"].as_i64().unwrap(), BOUNDARY + 8 * HOUR);
    assert_eq!(btc["next_funding_rate"], "0.001");
    // 100 * 10 XRP * 0.5 * 0.002 = 1 USDT paid by the long.
    let fees = Env::ok_data(&env.swsget("/account/funding_fee", &[("instrument_id", XRP)]));
    let fees = fees.as_array().unwrap();
    assert_eq!(fees.len(), 1);
    assert_eq!(fees[0]["amount"], "-1");
    assert_eq!(fees[0]["timestamp"].as_i64().unwrap(), BOUNDARY + 4 * HOUR);
    // At BOUNDARY + 8 h both settle; a day later XRP has settled 6 more times, BTC 3.
    env.ctl.advance_clock(4 * HOUR);
    assert_eq!(funding(&env, BTC)["funding_rate"], "0.001");
    assert_eq!(
        last_settled(&env, BTC)["time"].as_i64().unwrap(),
        BOUNDARY + 8 * HOUR
    );
    let fees = Env::ok_data(&env.swsget("/account/funding_fee", &[("instrument_id", XRP)]));
    assert_eq!(fees.as_array().unwrap().len(), 2);
    env.ctl.advance_clock(24 * HOUR);
    let fees = Env::ok_data(&env.swsget("/account/funding_fee", &[("instrument_id", XRP)]));
    assert_eq!(fees.as_array().unwrap().len(), 8);
    // The history of a 4-hour contract is 4 hours apart.
    let h = Env::ok_data(&env.swget(
        "/public/funding_rate_history",
        &[("instrument_id", XRP), ("limit", "3")],
    ));
    let times: Vec<i64> = h["funding_rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["time"].as_i64().unwrap())
        .collect();
    assert_eq!(
        times,
        [
            BOUNDARY + 32 * HOUR,
            BOUNDARY + 28 * HOUR,
            BOUNDARY + 24 * HOUR
        ]
    );
}

#[test]
fn swap_instruments_type_1_lists_simulated_contracts() {
    let env = Env::new();
    let ids = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["instrument_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let simulated = Env::ok_data(&env.swget("/public/instruments", &[("type", "1")]));
    assert_eq!(ids(&simulated), [SIM_BTC]);
    let s = &simulated[0];
    assert_eq!(s["type"], "SIMULATE");
    assert_eq!(s["base_currency"], "BTC");
    assert_eq!(s["quote_currency"], "USDT2");
    assert_eq!(s["clear_currency"], "USDT2");
    // Default and type=2: the real contracts only.
    let default = Env::ok_data(&env.swget("/public/instruments", &[]));
    let real = Env::ok_data(&env.swget("/public/instruments", &[("type", "2")]));
    assert_eq!(default, real);
    assert!(ids(&real).contains(&BTC.to_owned()));
    assert!(!ids(&real).contains(&SIM_BTC.to_owned()));
    assert!(real.as_array().unwrap().iter().all(|i| i["type"] == "REAL"));
    // Tickers follow the same split.
    let t1 = Env::ok_data(&env.swget("/public/tickers", &[("type", "1")]));
    assert_eq!(ids(&t1), [SIM_BTC]);
    let t2 = Env::ok_data(&env.swget("/public/tickers", &[]));
    assert_eq!(ids(&t2), ids(&real));
    // The single-instrument routes answer for a simulated contract.
    let one = Env::ok_data(&env.swget("/public/instrument", &[("instrument_id", SIM_BTC)]));
    assert_eq!(&one, s);
    let r = env.swget("/public/ticker", &[("instrument_id", SIM_BTC)]);
    assert_eq!((r.status, r.code()), (200, 0));
    // Any other type is invalid.
    let r = env.swget("/public/instruments", &[("type", "3")]);
    assert_eq!((r.status, r.code()), (400, 400002));
}

#[test]
fn swap_integer_parameters_follow_the_integer_grammar() {
    let env = Env::new();
    let depth = |limit: &str| {
        let target = format!("/swap/v2/public/depth?instrument_id={BTC}&limit={limit}");
        send(env.addr(), "GET", &target, &[], "").unwrap()
    };
    for bad in [
        "+5",
        "%2B5",
        "%205",
        "5%20",
        "1_000",
        "5.0",
        "1e1",
        "0x5",
        "-",
        "%EF%BC%95",
    ] {
        let r = depth(bad);
        assert_eq!(
            (r.status, r.json()),
            (400, json!({"code":400002,"msg":"limit must be an integer"})),
            "limit={bad}"
        );
    }
    for good in ["5", "%35", "005"] {
        let d = Env::ok_data(&depth(good));
        assert_eq!(d["asks"].as_array().unwrap().len(), 5, "limit={good}: {d}");
        assert_eq!(d["bids"].as_array().unwrap().len(), 5, "limit={good}: {d}");
    }
    // In a JSON body: strings follow the grammar, integers are taken as they are.
    for bad in [
        json!("+1"),
        json!(" 1"),
        json!("1_0"),
        json!(1.5),
        json!("1.0"),
    ] {
        let r = env.swpost(
            "/trade/order_place",
            &json!({"instrument_id": BTC, "type": bad, "order_type": 0, "size": 1, "price": "20000"}),
        );
        assert_eq!(
            (r.status, r.json()),
            (400, json!({"code":400002,"msg":"type must be an integer"})),
            "type {bad}"
        );
    }
    assert_eq!(env.ctl.swap_order_count(env.account), 0);
}
