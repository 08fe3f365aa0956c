use crate::common::*;
use serde_json::Value;

const BTC: &str = "BTCUSDTPERP";

#[test]
fn swap_time_weights_instruments() {
    let env = Env::new();
    let r = env.swget("/public/time", &[]);
    assert_eq!(r.status, 200);
    let t = Env::ok_data(&r).as_i64().unwrap();
    assert!((t - env.ctl.now_ms()).abs() < 5_000);
    assert!(r.header("ip-weight-minute-use").is_some());
    assert!(r.header("ip-weight-minute-remain").is_some());

    let w = Env::ok_data(&env.swget("/public/api_weight", &[]));
    let w = w.as_array().unwrap();
    assert_eq!(w.len(), 41);
    assert!(w
        .iter()
        .all(|e| e["path"].as_str().unwrap().starts_with("/swap/v2/")
            && e["weight"].as_i64().unwrap() >= 1));

    let list = Env::ok_data(&env.swget("/public/instruments", &[]));
    let btc = list
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["instrument_id"] == BTC)
        .unwrap()
        .clone();
    for k in [
        "type",
        "contract_type",
        "base_currency",
        "quote_currency",
        "clear_currency",
        "contract_value",
        "contract_value_currency",
        "status",
        "tick_size",
    ] {
        assert!(btc[k].is_string(), "{k}: {btc}");
    }
    assert_eq!(btc["contract_type"], "PERPETUAL");
    assert_eq!(btc["type"], "REAL");
    assert!(btc["is_inverse"].is_boolean() && btc["is_trading"].is_boolean());
    assert!(btc["price_precision"].is_number() && btc["min_order_amount"].is_number());
    let lims = btc["open_max_limits"].as_array().unwrap();
    assert!(!lims.is_empty());
    assert!(lims[0]["leverage"].is_string() && lims[0]["max_limit"].is_string());
    let simulated = Env::ok_data(&env.swget("/public/instruments", &[("type", "1")]));
    assert!(simulated
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["type"] == "SIMULATE"));
    let one = Env::ok_data(&env.swget("/public/instrument", &[("instrument_id", BTC)]));
    assert_eq!(one, btc);
    assert_eq!(env.swget("/public/instrument", &[]).code(), 400001);
    assert_eq!(
        env.swget("/public/instrument", &[("instrument_id", "NOPE")])
            .code(),
        400002
    );
}

#[test]
fn swap_depth_trades_tickers() {
    let env = Env::new();
    let d = Env::ok_data(&env.swget("/public/depth", &[("instrument_id", BTC), ("limit", "5")]));
    assert_eq!(d["instrument_id"], BTC);
    assert!(d["timestamp"].is_i64());
    let asks = d["asks"].as_array().unwrap();
    let bids = d["bids"].as_array().unwrap();
    assert_eq!(asks.len(), 5);
    assert_eq!(bids.len(), 5);
    assert!(asks[0][0].is_number() && asks[0][1].is_number());
    assert!(num(&asks[0][0]) < num(&asks[1][0]));
    assert!(num(&bids[0][0]) > num(&bids[1][0]));
    assert!(num(&bids[0][0]) < num(&asks[0][0]));
    assert_eq!(
        env.swget("/public/depth", &[("instrument_id", BTC), ("limit", "101")])
            .code(),
        400002
    );

    let t = Env::ok_data(&env.swget("/public/trades", &[("instrument_id", BTC)]));
    let t = t.as_array().unwrap();
    assert_eq!(t.len(), 20);
    for k in ["instrument_id", "trade_id", "direction", "volume", "price"] {
        assert!(t[0][k].is_string(), "{k}");
    }
    assert!(t[0]["trade_time"].as_i64().unwrap() >= t[1]["trade_time"].as_i64().unwrap());

    let tk = Env::ok_data(&env.swget("/public/ticker", &[("instrument_id", BTC)]));
    for k in [
        "instrument_id",
        "index_price",
        "mark_price",
        "max_buy_price",
        "min_sell_price",
        "best_bid",
        "best_bid_size",
        "best_ask",
        "best_ask_size",
        "high_24h",
        "open_24h",
        "low_24h",
        "last",
        "last_qty",
        "volume_24h",
        "price_change_percent",
        "open_interest",
    ] {
        assert!(tk[k].is_string(), "{k}: {tk}");
    }
    assert!(tk["timestamp"].is_i64());
    let all = Env::ok_data(&env.swget("/public/tickers", &[]));
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 4);
    assert!(all[0].get("open_interest").is_none());
}

#[test]
fn swap_candles_and_funding() {
    let env = Env::new();
    let c = Env::ok_data(&env.swget(
        "/public/candles",
        &[
            ("instrument_id", BTC),
            ("granularity", "1h"),
            ("limit", "30"),
        ],
    ));
    assert_eq!(c["instrument_id"], BTC);
    assert_eq!(c["granularity"], "1h");
    let list = c["candles"].as_array().unwrap();
    assert_eq!(list.len(), 30);
    let first = list[0].as_array().unwrap();
    assert_eq!(first.len(), 7);
    assert!(first[0].is_i64());
    assert!(first[1..].iter().all(Value::is_string));
    assert_eq!(
        first[0].as_i64().unwrap() - list[1][0].as_i64().unwrap(),
        3_600_000
    );
    for k in list {
        assert!(num(&k[2]) >= num(&k[3]));
    }
    assert_eq!(
        env.swget(
            "/public/candles",
            &[("instrument_id", BTC), ("granularity", "2h")]
        )
        .code(),
        400002
    );

    let end = env.ctl.now_ms() - 10 * 86_400_000;
    let start = end - 86_400_000;
    let (s, e) = (start.to_string(), end.to_string());
    let h = Env::ok_data(&env.swget(
        "/public/candles_history",
        &[
            ("instrument_id", BTC),
            ("granularity", "1h"),
            ("start_timestamp", &s),
            ("end_timestamp", &e),
            ("limit", "100"),
        ],
    ));
    let hl = h["candles"].as_array().unwrap();
    assert!(hl.len() == 24 || hl.len() == 25, "{}", hl.len());
    assert!(hl
        .iter()
        .all(|k| (start..=end).contains(&k[0].as_i64().unwrap())));

    let f = Env::ok_data(&env.swget("/public/funding_rate", &[("instrument_id", BTC)]));
    assert!(f["funding_rate"].is_string() && f["next_funding_rate"].is_string());
    let ft = f["funding_time"].as_i64().unwrap();
    assert_eq!(ft % (8 * 3_600_000), 0);
    assert_eq!(f["next_funding_time"].as_i64().unwrap(), ft + 8 * 3_600_000);
    let fh = Env::ok_data(&env.swget(
        "/public/funding_rate_history",
        &[("instrument_id", BTC), ("limit", "10")],
    ));
    assert_eq!(fh["instrument_id"], BTC);
    let rates = fh["funding_rates"].as_array().unwrap();
    assert_eq!(rates.len(), 10);
    assert!(rates[0]["rate"].is_string() && rates[0]["time"].is_i64());
    assert!(rates[0]["time"].as_i64().unwrap() > rates[1]["time"].as_i64().unwrap());
}
