//! The spot API as the live venue answers it (docs/protocol.md, "The live venue"), through raw HTTP with the venue's
//! spellings: signed POSTs without a Content-Type, percent-encoded values, JSON with spaces.

use crate::common::*;
use digifinex_sim::AccountType;
use rust_decimal::Decimal;
use serde_json::Value;

/// A signed spot POST with the form `body` exactly as given and no Content-Type header.
fn post_raw(env: &Env, path: &str, body: &str) -> Resp {
    let headers = [
        ("ACCESS-KEY", env.key.clone()),
        ("ACCESS-SIGN", hmac_hex(&env.secret, body)),
        ("ACCESS-TIMESTAMP", env.now_s().to_string()),
    ];
    send(env.addr(), "POST", &format!("/v3{path}"), &headers, body).unwrap()
}

/// A signed spot GET with the query exactly as given.
fn get_raw(env: &Env, path: &str, query: &str) -> Resp {
    let headers = [
        ("ACCESS-KEY", env.key.clone()),
        ("ACCESS-SIGN", hmac_hex(&env.secret, query)),
        ("ACCESS-TIMESTAMP", env.now_s().to_string()),
    ];
    let target = if query.is_empty() {
        format!("/v3{path}")
    } else {
        format!("/v3{path}?{query}")
    };
    send(env.addr(), "GET", &target, &headers, "").unwrap()
}

fn ok(r: &Resp) -> Value {
    let j = r.json();
    assert_eq!(j["code"], 0, "{}", r.text());
    j
}

fn funded() -> Env {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "1000000");
    env.fund(AccountType::Spot, "BTC", "10");
    env.fund(AccountType::Margin, "USDT", "1000000");
    env
}

fn symbols_of(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|x| x["symbol"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn symbol_lists_are_upper_case_ticker_and_markets_lower_case() {
    let env = Env::new();
    for path in ["/spot/symbols", "/margin/symbols", "/trades/symbols"] {
        let list = symbols_of(&env.get(path, &[]).json()["symbol_list"]);
        assert!(!list.is_empty(), "{path}");
        for s in &list {
            assert_eq!(s, &s.to_ascii_uppercase(), "{path}: {s}");
            assert!(s.contains('_'), "{path}: {s}");
        }
        assert!(list.iter().any(|s| s == "BTC_USDT"), "{path}: {list:?}");
    }
    let markets: Vec<String> = env.get("/markets", &[]).json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["market"].as_str().unwrap().to_owned())
        .collect();
    assert!(markets.iter().any(|m| m == "btc_usdt"), "{markets:?}");
    assert!(markets.iter().all(|m| *m == m.to_ascii_lowercase()));
    let tickers = symbols_of(&env.get("/ticker", &[]).json()["ticker"]);
    assert!(tickers.iter().all(|m| *m == m.to_ascii_lowercase()));
    // Requests take either case; the ticker still answers lower case.
    for asked in ["BTC_USDT", "btc_usdt", "Btc_Usdt"] {
        let t = env.get("/ticker", &[("symbol", asked)]).json();
        assert_eq!(t["ticker"][0]["symbol"], "btc_usdt", "{asked}");
        assert_eq!(
            env.get("/order_book", &[("symbol", asked)]).code(),
            0,
            "{asked}"
        );
    }
}

#[test]
fn order_and_trade_records_write_the_pair_upper_case() {
    let env = funded();
    let ((ask, _), _) = env.top("btc_usdt");
    // Upper case in the request, no Content-Type: a filled buy.
    let r = post_raw(
        &env,
        "/spot/order/new",
        &format!("symbol=BTC_USDT&type=buy&price={ask}&amount=0.001"),
    );
    let id = ok(&r)["order_id"].as_str().unwrap().to_owned();
    // A resting buy far below the market, lower case in the request.
    let r = post_raw(
        &env,
        "/spot/order/new",
        "symbol=btc_usdt&type=buy&price=10000&amount=0.001",
    );
    let resting = ok(&r)["order_id"].as_str().unwrap().to_owned();

    let q = ok(&get_raw(
        &env,
        "/spot/order",
        &format!("order_id={id}%2C{resting}"),
    ));
    for o in q["data"].as_array().unwrap() {
        assert_eq!(o["symbol"], "BTC_USDT", "{o}");
    }
    let d = ok(&get_raw(
        &env,
        "/spot/order/detail",
        &format!("order_id={id}"),
    ));
    assert_eq!(d["data"]["symbol"], "BTC_USDT");
    for asked in ["BTC_USDT", "btc_usdt"] {
        let cur = ok(&get_raw(
            &env,
            "/spot/order/current",
            &format!("symbol={asked}"),
        ));
        let list = cur["data"].as_array().unwrap();
        assert_eq!(list.len(), 1, "{asked}: {cur}");
        assert_eq!(list[0]["symbol"], "BTC_USDT");
        assert_eq!(list[0]["order_id"], resting.as_str());
        let hist = ok(&get_raw(
            &env,
            "/spot/order/history",
            &format!("symbol={asked}"),
        ));
        let list = hist["data"].as_array().unwrap();
        assert_eq!(list.len(), 2, "{asked}: {hist}");
        assert!(list.iter().all(|o| o["symbol"] == "BTC_USDT"), "{hist}");
        let mine = ok(&get_raw(&env, "/spot/mytrades", &format!("symbol={asked}")));
        let list = mine["list"].as_array().unwrap();
        assert!(!list.is_empty(), "{asked}: {mine}");
        assert!(list.iter().all(|t| t["symbol"] == "BTC_USDT"), "{mine}");
    }
    // Margin position records.
    let r = post_raw(
        &env,
        "/margin/order/new",
        &format!("symbol=btc_usdt&type=buy&price={ask}&amount=0.001&market=margin"),
    );
    ok(&r);
    let p = ok(&get_raw(&env, "/margin/positions", "symbol=BTC_USDT"));
    assert_eq!(p["positions"][0]["symbol"], "BTC_USDT", "{p}");
    let p = ok(&get_raw(&env, "/margin/positions", ""));
    assert_eq!(p["positions"][0]["symbol"], "BTC_USDT", "{p}");
}

#[test]
fn ticker_change_is_a_percent() {
    let env = funded();
    // Let the synthetic day of trades age out: the last 24 hours then hold only our trades.
    env.ctl.advance_clock(25 * 3_600_000);
    let ((ask, _), (bid, _)) = env.top("btc_usdt");
    ok(&post_raw(
        &env,
        "/spot/order/new",
        &format!("symbol=btc_usdt&type=sell&price={bid}&amount=0.001"),
    ));
    ok(&post_raw(
        &env,
        "/spot/order/new",
        &format!("symbol=btc_usdt&type=buy&price={ask}&amount=0.001"),
    ));
    let t = env.get("/ticker", &[("symbol", "btc_usdt")]).json();
    let e = &t["ticker"][0];
    assert_eq!(num(&e["last"]), ask, "{e}");
    assert_eq!(num(&e["low"]), bid, "{e}");
    let want = ((ask - bid) / bid * Decimal::ONE_HUNDRED).round_dp(2);
    assert!(want > Decimal::ZERO);
    assert_eq!(num(&e["change"]), want, "percent, not fraction: {e}");
    // 30000 +- 15: about +0.10 %, so the answer is 0.1, never the fraction 0.001.
    assert_eq!(want, dec("0.10"));
}

#[test]
fn order_book_lists_asks_and_bids_highest_first() {
    let env = Env::new();
    let full = env
        .get("/order_book", &[("symbol", "btc_usdt"), ("limit", "150")])
        .json();
    let prices =
        |v: &Value| -> Vec<Decimal> { v.as_array().unwrap().iter().map(|l| num(&l[0])).collect() };
    let asks = prices(&full["asks"]);
    let bids = prices(&full["bids"]);
    assert!(asks.len() > 3 && bids.len() > 3);
    assert!(
        asks.windows(2).all(|w| w[0] > w[1]),
        "asks descending: {asks:?}"
    );
    assert!(
        bids.windows(2).all(|w| w[0] > w[1]),
        "bids descending: {bids:?}"
    );
    let best_ask = *asks.last().unwrap();
    let best_bid = bids[0];
    assert_eq!(best_ask, asks.iter().copied().min().unwrap());
    assert!(best_bid < best_ask);
    let t = env.get("/ticker", &[("symbol", "btc_usdt")]).json();
    assert_eq!(num(&t["ticker"][0]["sell"]), best_ask);
    assert_eq!(num(&t["ticker"][0]["buy"]), best_bid);
    // `limit` keeps the levels nearest the market on each side, still highest first.
    let three = env
        .get("/order_book", &[("symbol", "BTC_USDT"), ("limit", "3")])
        .json();
    assert_eq!(prices(&three["asks"]), asks[asks.len() - 3..].to_vec());
    assert_eq!(prices(&three["bids"]), bids[..3].to_vec());
}

/// The path decides the market, whatever the `market` parameter says: a live client sends
/// `market=spot` to margin paths, and the venue's answer to a disagreement is unknown.
#[test]
fn the_path_decides_the_market_whatever_the_parameter_says() {
    let env = funded();
    let form = "symbol=btc_usdt&type=buy&price=10000&amount=0.001";
    for (path, extra, kind) in [
        ("/spot/order/new", "", "spot"),
        ("/spot/order/new", "&market=spot", "spot"),
        ("/spot/order/new", "&market=SPOT", "spot"),
        ("/spot/order/new", "&market=margin", "spot"),
        ("/spot/order/new", "&market=swap", "spot"),
        ("/margin/order/new", "&market=margin", "margin"),
        ("/margin/order/new", "&market=spot", "margin"),
    ] {
        let r = post_raw(&env, path, &format!("{form}{extra}"));
        let j = r.json();
        assert_eq!(j["code"], 0, "{path}{extra}: {j}");
        let id = j["order_id"].as_str().unwrap().to_owned();
        let o = env
            .ctl
            .orders(env.account)
            .into_iter()
            .find(|o| o.order_id == id)
            .unwrap();
        assert_eq!(o.kind, kind, "{path}{extra}");
    }
    // Reads and cancels too: the margin listing lists margin orders only.
    let r = get_raw(&env, "/margin/order/current", "market=spot").json();
    assert_eq!(r["code"], 0);
    assert_eq!(r["data"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(get_raw(&env, "/spot/mytrades", "market=margin").code(), 0);
    assert_eq!(
        get_raw(&env, "/margin/order/history", "market=spot").code(),
        0
    );
    let batch = "symbol=btc_usdt&market=margin&list=%5B%7B%22type%22%3A%20%22buy%22%2C%20%22price%22%3A%2010000%2C%20%22amount%22%3A%200.001%7D%5D";
    assert_eq!(post_raw(&env, "/spot/order/batch_new", batch).code(), 0);
    assert_eq!(get_raw(&env, "/spot/assets", "market=margin").code(), 0);
}

#[test]
fn order_numbers_follow_the_decimal_grammar() {
    let env = funded();
    let ((ask, _), _) = env.top("btc_usdt");
    let refused = [
        "amount=%2B5",      // a literal leading plus
        "amount=+5",        // a form plus is a space: " 5"
        "amount=%205",      // leading space
        "amount=0.001%20",  // trailing space
        "amount=1_000",     // separators
        "amount=.5",        // bare fraction
        "amount=5.",        // bare dot
        "amount=1e",        // incomplete exponent
        "amount=0x10",      // hexadecimal
        "amount=NaN",       // not a number
        "amount=%EF%BC%95", // a full-width digit
    ];
    for bad in refused {
        let body = format!("symbol=btc_usdt&type=buy&price={ask}&{bad}");
        let r = post_raw(&env, "/spot/order/new", &body);
        assert_eq!(r.code(), 10004, "{bad}: {}", r.text());
    }
    for bad in [
        "price=.5",
        "price=%2B30000",
        "price=30_000",
        "price=30000.",
        "price=%2030000",
    ] {
        let body = format!("symbol=btc_usdt&type=buy&{bad}&amount=0.001");
        let r = post_raw(&env, "/spot/order/new", &body);
        assert_eq!(r.code(), 10004, "{bad}: {}", r.text());
    }
    assert_eq!(env.ctl.order_count(env.account), 0);
    // Exponents are numbers: 1e-2 BTC at the ask fills; 1E-3 at 1.5E+4 rests.
    let r = post_raw(
        &env,
        "/spot/order/new",
        &format!("symbol=btc_usdt&type=buy&price={ask}&amount=1e-2"),
    );
    let id = ok(&r)["order_id"].as_str().unwrap().to_owned();
    let o = ok(&get_raw(&env, "/spot/order", &format!("order_id={id}")));
    assert_eq!(num(&o["data"][0]["amount"]), dec("0.01"), "{o}");
    let r = post_raw(
        &env,
        "/spot/order/new",
        "symbol=btc_usdt&type=buy&price=1.5E%2B4&amount=1E-3",
    );
    let id = ok(&r)["order_id"].as_str().unwrap().to_owned();
    let o = ok(&get_raw(&env, "/spot/order", &format!("order_id={id}")));
    assert_eq!(num(&o["data"][0]["price"]), dec("15000"), "{o}");
    assert_eq!(num(&o["data"][0]["amount"]), dec("0.001"), "{o}");
}

#[test]
fn batch_order_numbers_follow_the_decimal_grammar() {
    let env = funded();
    let list = |items: &str| format!("symbol=btc_usdt&list={}", encode_value(items));
    // JSON strings that are not in the grammar: refused, nothing placed.
    for bad in [r#"".5""#, r#""+5""#, r#"" 0.001""#, r#""1_000""#] {
        let items = format!(r#"[{{"type": "buy", "price": "10000", "amount": {bad}}}]"#);
        let r = post_raw(&env, "/spot/order/batch_new", &list(&items));
        assert_eq!(r.code(), 10004, "{bad}: {}", r.text());
    }
    assert_eq!(env.ctl.order_count(env.account), 0);
    // JSON numbers with exponents and strings in the grammar: accepted.
    let items = r#"[{"type": "buy", "price": 1e4, "amount": 1e-3}, {"type": "buy", "price": "10000", "amount": "1E-3"}]"#;
    let r = post_raw(&env, "/spot/order/batch_new", &list(items));
    assert_eq!(ok(&r)["order_ids"].as_array().unwrap().len(), 2);
}

#[test]
fn transfer_amount_follows_the_grammar_with_its_documented_code() {
    let env = funded();
    for bad in ["num=.5", "num=%2B5", "num=1_0", "num=%205"] {
        let body = format!("currency_mark=USDT&{bad}&from=1&to=2");
        let r = post_raw(&env, "/transfer", &body);
        assert_eq!(r.code(), 20024, "{bad}: {}", r.text());
    }
    ok(&post_raw(
        &env,
        "/transfer",
        "currency_mark=USDT&num=1e1&from=1&to=2",
    ));
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("999990"));
}

/// Percent-encodes a form value (everything outside the unreserved set).
fn encode_value(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn integer_parameters_follow_the_integer_grammar() {
    let env = funded();
    let book = |limit: &str| {
        let target = format!("/v3/order_book?symbol=btc_usdt&limit={limit}");
        send(env.addr(), "GET", &target, &[], "").unwrap()
    };
    // Checked on the decoded value: a form `+` is a space, `%2B` a plus.
    for bad in [
        "+5",        // " 5"
        "%2B5",      // "+5"
        "%205",      // " 5"
        "5%20",      // "5 "
        "1_000",     // separators
        "5.0",       // a fraction
        "1e1",       // an exponent
        "0x5",       // hexadecimal
        "-",         // a sign alone
        "%EF%BC%95", // a full-width digit
    ] {
        let r = book(bad);
        assert_eq!(
            (r.status, r.json()),
            (
                200,
                serde_json::json!({"code":10004,"msg":"limit must be an integer"})
            ),
            "limit={bad}"
        );
    }
    for good in ["5", "%35", "005"] {
        let j = ok(&book(good));
        assert_eq!(j["asks"].as_array().unwrap().len(), 5, "limit={good}: {j}");
        assert_eq!(j["bids"].as_array().unwrap().len(), 5, "limit={good}: {j}");
    }
    // A negative integer is in the grammar; the range check refuses it.
    let r = book("-5");
    assert_eq!(r.json()["msg"], "limit must be within 1..=150");
    // The history window's times keep their documented code (20014, invalid date format).
    let now = env.now_s();
    for bad in [format!("%2B{now}"), format!("%20{now}"), format!("{now}.0")] {
        let r = get_raw(&env, "/spot/order/history", &format!("start_time={bad}"));
        assert_eq!(r.code(), 20014, "start_time={bad}: {}", r.text());
    }
    ok(&get_raw(
        &env,
        "/spot/order/history",
        &format!("start_time={now}"),
    ));
    // The withdrawal id of `/withdraw/cancel` (20033 for anything that is not an id).
    for bad in ["%2B1", "1_0", "%201"] {
        let r = post_raw(&env, "/withdraw/cancel", &format!("withdraw_id={bad}"));
        assert_eq!(r.code(), 20033, "withdraw_id={bad}: {}", r.text());
    }
}
