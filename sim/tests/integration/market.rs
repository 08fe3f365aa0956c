use crate::common::*;
use digifinex_sim::{Sim, SimConfig};

#[test]
fn public_shapes() {
    let env = Env::new();
    let t = env.get("/time", &[]).json();
    assert!(t["server_time"].as_i64().unwrap() > 1_600_000_000);
    assert!(
        t["server_time"].as_i64().unwrap() < 10_000_000_000,
        "seconds"
    );
    assert_eq!(env.get("/ping", &[]).json()["msg"], "pong");

    let m = env.get("/markets", &[]).json();
    let btc = m["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["market"] == "btc_usdt")
        .unwrap();
    assert_eq!(btc["price_precision"], 2);
    assert_eq!(btc["volume_precision"], 5);
    assert!(btc["min_amount"].is_number() && btc["min_volume"].is_number());
    assert!(m["date"].is_i64());

    let tk = env.get("/ticker", &[("symbol", "btc_usdt")]).json();
    let e = &tk["ticker"][0];
    for f in [
        "vol", "base_vol", "change", "last", "sell", "buy", "high", "low",
    ] {
        assert!(e[f].is_number(), "{f}: {e}");
    }
    assert!(num(&e["sell"]) > num(&e["buy"]));
    assert_eq!(
        env.get("/ticker", &[]).json()["ticker"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
    assert_eq!(env.get("/ticker", &[("symbol", "usdt_btc")]).code(), 20019);

    let ob = env.get("/order_book", &[("symbol", "btc_usdt")]).json();
    assert_eq!(ob["asks"].as_array().unwrap().len(), 10);
    assert_eq!(ob["bids"].as_array().unwrap().len(), 10);
    assert!(
        num(&ob["asks"][0][0]) > num(&ob["asks"][1][0]),
        "asks highest first"
    );
    assert!(num(&ob["bids"][0][0]) > num(&ob["bids"][1][0]));
    assert_eq!(
        env.get("/order_book", &[("symbol", "btc_usdt"), ("limit", "151")])
            .code(),
        10004
    );
    assert_eq!(env.get("/order_book", &[]).code(), 10004);

    let tr = env
        .get("/trades", &[("symbol", "btc_usdt"), ("limit", "5")])
        .json();
    let list = tr["data"].as_array().unwrap();
    assert_eq!(list.len(), 5);
    assert!(list[0]["id"].is_i64() && list[0]["date"].is_i64());
    assert!(list[0]["type"] == "buy" || list[0]["type"] == "sell");

    let k = env
        .get("/kline", &[("symbol", "btc_usdt"), ("period", "60")])
        .json();
    let c = k["data"].as_array().unwrap();
    assert!(c.len() >= 200 && c.len() <= 201, "{}", c.len());
    assert_eq!(c[0].as_array().unwrap().len(), 6);
    let now = env.now_s();
    let r = env.get(
        "/kline",
        &[
            ("symbol", "btc_usdt"),
            ("period", "1"),
            ("start_time", &(now - 86_400).to_string()),
            ("end_time", &now.to_string()),
        ],
    );
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 500);
    assert_eq!(
        env.get("/kline", &[("symbol", "btc_usdt"), ("period", "2")])
            .code(),
        10004
    );

    let s = env.get("/spot/symbols", &[]).json();
    let first = &s["symbol_list"][0];
    for f in [
        "symbol",
        "status",
        "base_asset",
        "quote_asset",
        "amount_precision",
        "price_precision",
        "minimum_amount",
        "minimum_value",
        "zone",
        "order_types",
    ] {
        assert!(!first[f].is_null(), "{f}");
    }
    let ms = env.get("/margin/symbols", &[]).json();
    assert_eq!(ms["symbol_list"].as_array().unwrap().len(), 2);
    assert!(ms["symbol_list"][0]["liquidation_rate"].is_number());
    let ts = env.get("/trades/symbols", &[]).json();
    let dft = ts["symbol_list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["symbol"] == "DFT_USDT")
        .unwrap();
    assert_eq!(dft["is_allow"], 0);
    let mc = env.get("/margin/currencies", &[]).json();
    assert!(mc["currencys"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c == "BTC"));
    assert!(mc["margin_fees"][0]["loan_fees"].is_number());

    let cur = env.get("/currencies", &[("currency", "USDT")]).json();
    assert_eq!(cur["code"], 200);
    let chains: Vec<_> = cur["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["chain"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(chains, ["ERC20", "OMNI"]);
}

/// With the order flow on a frozen clock, the same seed gives the same market, before and
/// after the clock runs ten minutes of flow; another seed another one.
#[test]
fn same_seed_same_book() {
    let frozen = |seed| SimConfig {
        start_time_ms: Some(1_800_000_000_000),
        ..SimConfig::with_seed(seed)
    };
    let a = Sim::start(frozen(42)).unwrap();
    let b = Sim::start(frozen(42)).unwrap();
    let c = Sim::start(frozen(43)).unwrap();
    let get = |s: &digifinex_sim::SimHandle, path: &str| {
        send(s.addr(), "GET", path, &[], "").unwrap().json()
    };
    let market = |s: &digifinex_sim::SimHandle| {
        (
            get(s, "/v3/order_book?symbol=btc_usdt&limit=150"),
            get(s, "/v3/trades?symbol=btc_usdt&limit=500"),
            get(
                s,
                "/swap/v2/public/depth?instrument_id=BTCUSDTPERP&limit=100",
            ),
        )
    };
    assert_eq!(market(&a), market(&b));
    assert_ne!(market(&a).0, market(&c).0);
    for s in [&a, &b] {
        s.control().advance_clock(600_000);
    }
    let (book, trades, _) = market(&a);
    assert_eq!((book.clone(), trades.clone()), {
        let (b2, t2, _) = market(&b);
        (b2, t2)
    });
    // Ten minutes of flow traded.
    assert!(trades["data"].as_array().unwrap().len() > 20, "{trades}");
}
