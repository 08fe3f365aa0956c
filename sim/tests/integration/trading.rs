use crate::common::*;
use digifinex_sim::{AccountType, KeyOptions};
use rust_decimal::Decimal;

fn order(env: &Env, market: &str, form: &[(&str, &str)]) -> serde_json::Value {
    env.spost(&format!("/{market}/order/new"), form).json()
}

#[test]
fn limit_order_lifecycle_partial_fill_query_cancel_history_trades_financelog() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "100000");
    let ((ask, ask_size), _) = env.top("btc_usdt");
    let amount = ask_size + dec("0.01");
    let r = order(
        &env,
        "spot",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &ask.to_string()),
            ("amount", &amount.to_string()),
        ],
    );
    assert_eq!(r["code"], 0, "{r}");
    let id = r["order_id"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32);

    let q = env.sget("/spot/order", &[("order_id", &id)]).json();
    let o = &q["data"][0];
    assert_eq!(o["status"], 1, "{o}");
    assert_eq!(num(&o["executed_amount"]), ask_size);
    assert_eq!(num(&o["avg_price"]), ask);
    assert_eq!(o["type"], "buy");
    assert_eq!(o["kind"], "spot");
    assert_eq!(o["finished_date"], 0);
    assert!(o["created_date"].as_i64().unwrap() < 10_000_000_000);

    // The remainder rests at the limit price at the top of the bid side.
    let (_, (bid, bid_size)) = env.top("btc_usdt");
    assert_eq!(bid, ask);
    assert_eq!(bid_size, dec("0.01"));

    let cur = env
        .sget("/spot/order/current", &[("symbol", "btc_usdt")])
        .json();
    assert_eq!(cur["data"].as_array().unwrap().len(), 1);
    assert_eq!(
        env.sget("/margin/order/current", &[]).json()["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );

    let d = env.sget("/spot/order/detail", &[("order_id", &id)]).json();
    assert_eq!(d["data"]["detail"].as_array().unwrap().len(), 1);
    assert_eq!(num(&d["data"]["detail"][0]["executed_price"]), ask);

    // Balances: quote spent for the fill and frozen for the rest; fee taken in base.
    let fee = ask_size * dec("0.002");
    assert_eq!(env.free(AccountType::Spot, "BTC"), ask_size - fee);
    assert_eq!(env.frozen(AccountType::Spot, "USDT"), dec("0.01") * ask);
    assert_eq!(
        env.free(AccountType::Spot, "USDT"),
        dec("100000") - amount * ask
    );

    let c = env
        .spost(
            "/spot/order/cancel",
            &[("order_id", &format!("{id},deadbeef"))],
        )
        .json();
    assert_eq!(c["code"], 0);
    assert_eq!(c["success"][0], id.as_str());
    assert_eq!(c["error"][0], "deadbeef");
    let c2 = env.spost("/spot/order/cancel", &[("order_id", &id)]).json();
    assert_eq!(c2["error"][0], id.as_str(), "already finished");
    assert_eq!(env.frozen(AccountType::Spot, "USDT"), Decimal::ZERO);
    assert_eq!(
        env.free(AccountType::Spot, "USDT"),
        dec("100000") - ask_size * ask
    );

    let h = env.sget("/spot/order/history", &[]).json();
    let o = &h["data"][0];
    assert_eq!(o["order_id"], id.as_str());
    assert_eq!(o["status"], 4);
    assert!(o["finished_date"].as_i64().unwrap() > 0);

    let t = env.sget("/spot/mytrades", &[("symbol", "btc_usdt")]).json();
    let tr = &t["list"][0];
    assert_eq!(tr["order_id"], id.as_str());
    assert_eq!(tr["is_maker"], false);
    assert_eq!(tr["side"], "buy");
    assert_eq!(tr["fee_currency"], "BTC");
    assert_eq!(num(&tr["fee"]), fee);
    assert_eq!(num(&tr["amount"]), ask_size);

    let f = env.sget("/spot/financelog", &[]).json();
    let entries = f["data"]["finance"].as_array().unwrap();
    // set balance, trade USDT out, trade BTC in, fee.
    assert_eq!(f["data"]["total"], "4", "{f}");
    assert!(entries
        .iter()
        .any(|e| e["currency_mark"] == "BTC" && num(&e["num"]) == -fee));
    let usdt = env
        .sget(
            "/spot/financelog",
            &[("currency_mark", "USDT"), ("limit", "1")],
        )
        .json();
    assert_eq!(usdt["data"]["finance"].as_array().unwrap().len(), 1);
    assert_eq!(num(&usdt["data"]["finance"][0]["num"]), -(ask_size * ask));

    let a = env.sget("/spot/assets", &[]).json();
    let btc = a["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["currency"] == "BTC")
        .unwrap();
    assert_eq!(num(&btc["free"]), ask_size - fee);
}

#[test]
fn market_buy_spends_quote_and_market_sell_sells_base() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "1000");
    let r = order(
        &env,
        "spot",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy_market"),
            ("amount", "100"),
        ],
    );
    assert_eq!(r["code"], 0, "{r}");
    let id = r["order_id"].as_str().unwrap();
    let o = env.sget("/spot/order", &[("order_id", id)]).json()["data"][0].clone();
    assert_eq!(o["type"], "buy_market");
    assert_eq!(num(&o["cash_amount"]), dec("100"));
    assert_eq!(num(&o["amount"]), Decimal::ZERO);
    assert_eq!(o["status"], 2);
    let spent = dec("1000") - env.free(AccountType::Spot, "USDT");
    assert!(spent <= dec("100") && spent > dec("99.5"), "{spent}");
    assert_eq!(env.frozen(AccountType::Spot, "USDT"), Decimal::ZERO);
    let got = env.free(AccountType::Spot, "BTC");
    assert!(got > Decimal::ZERO);

    let r = order(
        &env,
        "spot",
        &[
            ("symbol", "btc_usdt"),
            ("type", "sell_market"),
            ("amount", "0.001"),
        ],
    );
    assert_eq!(r["code"], 0, "{r}");
    assert_eq!(env.free(AccountType::Spot, "BTC"), got - dec("0.001"));
}

#[test]
fn post_only_that_would_take_is_cancelled() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "100000");
    let ((ask, _), (bid, _)) = env.top("btc_usdt");
    let r = order(
        &env,
        "spot",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &ask.to_string()),
            ("amount", "0.01"),
            ("post_only", "1"),
        ],
    );
    assert_eq!(r["code"], 0);
    let id = r["order_id"].as_str().unwrap();
    let o = &env.sget("/spot/order", &[("order_id", id)]).json()["data"][0];
    assert_eq!(o["status"], 3);
    assert_eq!(num(&o["executed_amount"]), Decimal::ZERO);
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("100000"));
    assert_eq!(env.free(AccountType::Spot, "BTC"), Decimal::ZERO);
    // A post-only order that can rest does rest.
    let r = order(
        &env,
        "spot",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &bid.to_string()),
            ("amount", "0.01"),
            ("post_only", "1"),
        ],
    );
    let id = r["order_id"].as_str().unwrap();
    assert_eq!(
        env.sget("/spot/order", &[("order_id", id)]).json()["data"][0]["status"],
        0
    );
}

#[test]
fn maker_and_taker_between_accounts() {
    let env = Env::new();
    env.fund(AccountType::Spot, "BTC", "1");
    let ((ask, _), (bid, _)) = env.top("btc_usdt");
    let mid = ((ask + bid) / dec("2")).round_dp(2);
    let r = order(
        &env,
        "spot",
        &[
            ("symbol", "btc_usdt"),
            ("type", "sell"),
            ("price", &mid.to_string()),
            ("amount", "0.1"),
        ],
    );
    let maker_id = r["order_id"].as_str().unwrap().to_owned();
    // Another account takes it.
    let other = env.ctl.create_account();
    let keys = env.ctl.create_api_key(other, KeyOptions::all()).unwrap();
    env.ctl
        .set_balance(other, AccountType::Spot, "USDT", dec("10000"))
        .unwrap();
    let body = encode(&[
        ("symbol", "btc_usdt"),
        ("type", "buy"),
        ("price", &mid.to_string()),
        ("amount", "0.1"),
    ]);
    let r = env.signed_with(
        "POST",
        "/spot/order/new",
        "",
        &body,
        &keys.key,
        &keys.secret,
        env.now_s(),
        &[],
    );
    assert_eq!(r.code(), 0);
    let o = &env.sget("/spot/order", &[("order_id", &maker_id)]).json()["data"][0];
    assert_eq!(o["status"], 2);
    let value = mid * dec("0.1");
    assert_eq!(
        env.free(AccountType::Spot, "USDT"),
        value - value * dec("0.001")
    );
    let t = env.sget("/spot/mytrades", &[]).json();
    assert_eq!(t["list"][0]["is_maker"], true);
    assert_eq!(
        env.ctl
            .balance(other, AccountType::Spot, "BTC")
            .unwrap()
            .free,
        dec("0.1") - dec("0.1") * dec("0.002")
    );
}

#[test]
fn batch_is_all_or_nothing() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "100000");
    let bad = r#"[{"type":"buy","amount":"0.01","price":"20000"},{"type":"buy","amount":0.01,"price":20000.123},{"type":"sell","amount":"0.01","price":"40000"}]"#;
    let r = env
        .spost(
            "/spot/order/batch_new",
            &[("symbol", "btc_usdt"), ("list", bad)],
        )
        .json();
    assert_eq!(r["code"], 20007, "{r}");
    assert_eq!(env.ctl.order_count(env.account), 0);
    // Enough quote for each order alone but not for all together: nothing placed.
    env.fund(AccountType::Spot, "USDT", "300");
    let big = r#"[{"type":"buy","amount":"0.01","price":"20000"},{"type":"buy","amount":"0.01","price":"20000"}]"#;
    let r = env
        .spost(
            "/spot/order/batch_new",
            &[("symbol", "btc_usdt"), ("list", big)],
        )
        .json();
    assert_eq!(r["code"], 20011);
    assert_eq!(env.ctl.order_count(env.account), 0);
    env.fund(AccountType::Spot, "USDT", "100000");
    let good = r#"[{"type":"buy","amount":"0.01","price":"20000","post_only":1},{"type":"buy","amount":0.02,"price":20001}]"#;
    let r = env
        .spost(
            "/spot/order/batch_new",
            &[("symbol", "btc_usdt"), ("list", good)],
        )
        .json();
    assert_eq!(r["code"], 0, "{r}");
    assert_eq!(r["order_ids"].as_array().unwrap().len(), 2);
    assert_eq!(env.ctl.order_count(env.account), 2);
    let eleven = format!(
        "[{}]",
        [r#"{"type":"buy","amount":"0.01","price":"20000"}"#; 11].join(",")
    );
    let r = env
        .spost(
            "/spot/order/batch_new",
            &[("symbol", "btc_usdt"), ("list", &eleven)],
        )
        .json();
    assert_eq!(r["code"], 20031);
    let r = env
        .spost(
            "/spot/order/batch_new",
            &[("symbol", "btc_usdt"), ("list", "not json")],
        )
        .json();
    assert_eq!(r["code"], 10004);
    assert_eq!(env.ctl.order_count(env.account), 2);
}

#[test]
fn order_validation_codes() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "100");
    let place = |sym: &str, ty: &str, price: &str, amount: &str| -> i64 {
        let mut f = vec![("symbol", sym), ("type", ty), ("amount", amount)];
        if !price.is_empty() {
            f.push(("price", price));
        }
        order(&env, "spot", &f)["code"].as_i64().unwrap()
    };
    assert_eq!(place("btc_usdt", "buy", "20000.001", "0.001"), 20007);
    assert_eq!(place("btc_usdt", "buy", "20000", "0.000001"), 20008);
    assert_eq!(place("btc_usdt", "buy", "20000", "0.00005"), 20009);
    assert_eq!(place("btc_usdt", "buy", "10000", "0.0001"), 20010);
    assert_eq!(place("btc_usdt", "buy", "20000", "0.01"), 20011);
    assert_eq!(place("btc_usdt", "sell", "40000", "0.01"), 20011);
    assert_eq!(place("btc_usdt", "hold", "20000", "0.001"), 20012);
    assert_eq!(place("usdt_btc", "buy", "20000", "0.001"), 20019);
    assert_eq!(place("btcusdt", "buy", "20000", "0.001"), 20019);
    assert_eq!(place("dft_usdt", "buy", "0.05", "100"), 20042);
    assert_eq!(place("luna_usdt", "buy", "1.2", "10"), 20002);
    assert_eq!(place("btc_usdt", "buy", "", "0.001"), 10004);
    assert_eq!(place("btc_usdt", "buy_market", "", "1"), 20010);
    let r = order(
        &env,
        "margin",
        &[
            ("symbol", "xrp_usdt"),
            ("type", "buy"),
            ("price", "0.5"),
            ("amount", "10"),
        ],
    );
    assert_eq!(r["code"], 20019);
    assert_eq!(
        env.sget("/spot/order", &[("order_id", "ffff")]).code(),
        20013
    );
    assert_eq!(
        env.sget("/spot/order/detail", &[("order_id", "ffff")])
            .code(),
        20013
    );
    let many: Vec<String> = (0..21).map(|i| format!("id{i}")).collect();
    assert_eq!(
        env.sget("/spot/order", &[("order_id", &many.join(","))])
            .code(),
        10004
    );
    assert_eq!(env.ctl.order_count(env.account), 0);
}

#[test]
fn history_windows() {
    let env = Env::new();
    let now = env.now_s();
    let old = (now - 31 * 86_400).to_string();
    assert_eq!(
        env.sget("/spot/order/history", &[("start_time", &old)])
            .code(),
        20015
    );
    assert_eq!(
        env.sget("/spot/mytrades", &[("start_time", &old)]).code(),
        20015
    );
    let (s, e) = ((now - 10).to_string(), (now - 20).to_string());
    assert_eq!(
        env.sget(
            "/spot/order/history",
            &[("start_time", &s), ("end_time", &e)]
        )
        .code(),
        20022
    );
    assert_eq!(
        env.sget("/spot/order/history", &[("start_time", "2024-01-01")])
            .code(),
        20014
    );
    assert_eq!(
        env.sget("/spot/order/history", &[("limit", "101")]).code(),
        10004
    );
    // Orders older than the default 3-day window drop out of the default listing.
    env.fund(AccountType::Spot, "USDT", "1000");
    order(
        &env,
        "spot",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "20000"),
            ("amount", "0.001"),
        ],
    );
    assert_eq!(
        env.sget("/spot/order/history", &[]).json()["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    env.ctl.advance_clock(4 * 86_400_000);
    assert_eq!(
        env.sget("/spot/order/history", &[]).json()["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let start = (env.now_s() - 5 * 86_400).to_string();
    assert_eq!(
        env.sget("/spot/order/history", &[("start_time", &start)])
            .json()["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn transfers() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "100");
    let t = |from: &str, to: &str, num: &str, cur: &str| -> i64 {
        env.spost(
            "/transfer",
            &[
                ("currency_mark", cur),
                ("num", num),
                ("from", from),
                ("to", to),
            ],
        )
        .code()
    };
    assert_eq!(t("1", "2", "40", "USDT"), 0);
    assert_eq!(t("1", "3", "10", "usdt"), 0);
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("50"));
    assert_eq!(env.free(AccountType::Margin, "USDT"), dec("40"));
    assert_eq!(env.free(AccountType::Otc, "USDT"), dec("10"));
    assert_eq!(t("2", "3", "1", "USDT"), 20023, "margin -> OTC");
    assert_eq!(t("3", "2", "1", "USDT"), 20023, "OTC -> margin");
    assert_eq!(t("1", "1", "1", "USDT"), 20023);
    assert_eq!(t("1", "4", "1", "USDT"), 20023);
    assert_eq!(t("1", "2", "1000", "USDT"), 20026);
    assert_eq!(t("1", "2", "-1", "USDT"), 20024);
    assert_eq!(t("1", "2", "1", "NOPE"), 20021);
    assert_eq!(t("2", "1", "40", "USDT"), 0);
    let f = env.sget("/margin/financelog", &[]).json();
    assert_eq!(f["data"]["total"], "2");
}

#[test]
fn margin_position_and_close() {
    let env = Env::new();
    env.fund(AccountType::Margin, "USDT", "1000");
    assert_eq!(
        env.spost("/margin/position/close", &[("symbol", "btc_usdt")])
            .code(),
        20030
    );
    let ((ask, _), _) = env.top("btc_usdt");
    let r = order(
        &env,
        "margin",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &ask.to_string()),
            ("amount", "0.01"),
        ],
    );
    assert_eq!(r["code"], 0, "{r}");
    let p = env.sget("/margin/positions", &[]).json();
    let pos = &p["positions"][0];
    assert_eq!(pos["side"], "long", "{p}");
    assert_eq!(num(&pos["amount"]), dec("0.01"));
    assert_eq!(num(&pos["entry_price"]), ask);
    assert!(p["margin"].is_string());
    let margin = ask * dec("0.01") / dec("3");
    assert_eq!(env.frozen(AccountType::Margin, "USDT"), margin);
    let a = env.sget("/margin/assets", &[]).json();
    assert!(
        a["total"].is_number() && a["list"][0]["valuation_rate"].is_number(),
        "{a}"
    );

    // Too large for the margin balance.
    let r = order(
        &env,
        "margin",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &ask.to_string()),
            ("amount", "1"),
        ],
    );
    assert_eq!(r["code"], 20011);

    assert_eq!(
        env.spost("/margin/position/close", &[("symbol", "btc_usdt")])
            .code(),
        0
    );
    let p = env.sget("/margin/positions", &[]).json();
    assert_eq!(p["positions"].as_array().unwrap().len(), 0, "{p}");
    assert_eq!(env.frozen(AccountType::Margin, "USDT"), Decimal::ZERO);
    let free = env.free(AccountType::Margin, "USDT");
    assert!(free < dec("1000") && free > dec("990"), "{free}");
    let orders = env.sget("/margin/order/history", &[]).json();
    assert_eq!(orders["data"][0]["type"], "sell_market");
    assert_eq!(orders["data"][0]["kind"], "margin");
    let trades = env.sget("/margin/mytrades", &[]).json();
    assert_eq!(trades["list"].as_array().unwrap().len(), 2);
    assert_eq!(trades["list"][0]["fee_currency"], "USDT");
    // Short position.
    let (_, (bid, _)) = env.top("btc_usdt");
    let r = order(
        &env,
        "margin",
        &[
            ("symbol", "btc_usdt"),
            ("type", "sell"),
            ("price", &bid.to_string()),
            ("amount", "0.01"),
        ],
    );
    assert_eq!(r["code"], 0);
    assert_eq!(
        env.sget("/margin/positions", &[("symbol", "btc_usdt")])
            .json()["positions"][0]["side"],
        "short"
    );
    assert_eq!(
        env.spost("/margin/position/close", &[("symbol", "btc_usdt")])
            .code(),
        0
    );
    assert_eq!(env.frozen(AccountType::Margin, "USDT"), Decimal::ZERO);
}

#[test]
fn market_switches_from_control() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "1000");
    let f = [
        ("symbol", "btc_usdt"),
        ("type", "buy"),
        ("price", "20000"),
        ("amount", "0.001"),
    ];
    assert!(env
        .ctl
        .set_market_status("BTC_USDT", digifinex_sim::MarketStatus::Suspended));
    assert_eq!(order(&env, "spot", &f)["code"], 20002);
    env.ctl
        .set_market_status("btc_usdt", digifinex_sim::MarketStatus::Trading);
    assert!(env.ctl.set_api_tradable("btc_usdt", false));
    assert_eq!(order(&env, "spot", &f)["code"], 20042);
    let s = env.get("/trades/symbols", &[]).json();
    let btc = s["symbol_list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["symbol"] == "BTC_USDT")
        .unwrap()
        .clone();
    assert_eq!(btc["is_allow"], 0);
    env.ctl.set_api_tradable("btc_usdt", true);
    assert_eq!(order(&env, "spot", &f)["code"], 0);
    assert!(!env.ctl.set_api_tradable("nope_usdt", true));
}

#[test]
fn price_time_priority() {
    let env = Env::new();
    let ((ask, _), (bid, _)) = env.top("btc_usdt");
    let inside = ((ask + bid) / dec("2")).round_dp(2);
    let better = inside - dec("0.01");
    let mut makers = Vec::new();
    for _ in 0..3 {
        let a = env.ctl.create_account();
        env.ctl
            .set_balance(a, AccountType::Spot, "BTC", dec("1"))
            .unwrap();
        makers.push((a, env.ctl.create_api_key(a, KeyOptions::all()).unwrap()));
    }
    let sell = |i: usize, price: Decimal| {
        let (_, k) = &makers[i];
        let body = encode(&[
            ("symbol", "btc_usdt"),
            ("type", "sell"),
            ("price", &price.to_string()),
            ("amount", "0.1"),
        ]);
        let r = env.signed_with(
            "POST",
            "/spot/order/new",
            "",
            &body,
            &k.key,
            &k.secret,
            env.now_s(),
            &[],
        );
        assert_eq!(r.code(), 0);
    };
    // Maker 0 and 1 at the same price (0 first), maker 2 at a better price but later.
    sell(0, inside);
    sell(1, inside);
    sell(2, better);
    env.fund(AccountType::Spot, "USDT", "100000");
    let r = order(
        &env,
        "spot",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &inside.to_string()),
            ("amount", "0.15"),
        ],
    );
    assert_eq!(r["code"], 0);
    let executed = |i: usize| env.ctl.orders(makers[i].0)[0].executed_amount;
    assert_eq!(executed(2), dec("0.1"), "best price first");
    assert_eq!(
        executed(0),
        dec("0.05"),
        "then the oldest at the next price"
    );
    assert_eq!(executed(1), Decimal::ZERO);
    let t = env.sget("/spot/mytrades", &[]).json();
    let prices: Vec<Decimal> = t["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| num(&x["price"]))
        .collect();
    assert_eq!(
        prices,
        [inside, better],
        "newest first; trades at the maker's price"
    );
}
