use crate::common::*;
use digifinex_sim::{AccountType, KeyOptions, SimConfig};

#[test]
fn weight_limit_10005_and_ban() {
    let config = SimConfig {
        start_time_ms: Some(1_800_000_000_000),
        ..SimConfig::default().without_flow()
    };
    let env = Env::with_config(config);
    for i in 0..1200 {
        let r = env.get("/ping", &[]);
        assert_eq!(r.status, 200, "request {i}");
    }
    let r = env.get("/ping", &[]);
    assert_eq!(r.status, 429);
    assert_eq!(r.code(), 10005);
    assert_eq!(r.header("retry-after"), Some("120"));
    // Still banned in the next minute; free after two minutes.
    env.ctl.advance_clock(61_000);
    assert_eq!(env.get("/ping", &[]).code(), 10005);
    env.ctl.advance_clock(60_000);
    assert_eq!(env.get("/ping", &[]).code(), 0);
}

#[test]
fn ban_schedule_escalates() {
    let mut config = SimConfig::default().without_flow();
    config.limits.spot_weight_per_minute = 5;
    config.start_time_ms = Some(1_800_000_000_000);
    let env = Env::with_config(config);
    let mut bans = Vec::new();
    for _ in 0..8 {
        for _ in 0..5 {
            assert_eq!(env.get("/time", &[]).code(), 0);
        }
        let r = env.get("/time", &[]);
        assert_eq!(r.code(), 10005);
        let secs: i64 = r.header("retry-after").unwrap().parse().unwrap();
        bans.push(secs);
        env.ctl.advance_clock(secs * 1000 + 60_000);
    }
    assert_eq!(bans, [120, 120, 120, 600, 600, 600, 1800, 1800]);
    // Signed requests count per key and user as well.
    env.ctl.reset_limits();
    for _ in 0..5 {
        assert_eq!(env.sget("/spot/assets", &[]).code(), 0);
    }
    assert_eq!(env.sget("/spot/assets", &[]).code(), 10005);
}

const T0: i64 = 1_800_000_000_000; // a multiple of the 10-minute cycle

fn risk_env() -> Env {
    let config = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default().without_flow()
    };
    let env = Env::with_config(config);
    env.fund(AccountType::Spot, "USDT", "1000000");
    env
}

fn far_buy(env: &Env) -> serde_json::Value {
    env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "20000"),
            ("amount", "0.0001"),
        ],
    )
    .json()
}

#[test]
fn fill_weight_triggers_30_minute_ban_then_24_hours() {
    let env = risk_env();
    for _ in 0..50 {
        assert_eq!(far_buy(&env)["code"], 0);
    }
    // Still inside the cycle: no ban yet.
    env.ctl.advance_clock(9 * 60_000);
    assert_eq!(far_buy(&env)["code"], 0);
    // The cycle ended with FW = 0 over 51 orders: banned for 30 minutes from its end.
    env.ctl.advance_clock(60_000);
    assert_eq!(far_buy(&env)["code"], 20020);
    let batch = r#"[{"type":"buy","amount":"0.0001","price":"20000"}]"#;
    assert_eq!(
        env.spost(
            "/spot/order/batch_new",
            &[("symbol", "btc_usdt"), ("list", batch)]
        )
        .code(),
        20020
    );
    // Cancels and reads still work; new keys are refused.
    let id = env.ctl.orders(env.account)[0].order_id.clone();
    assert_eq!(
        env.spost("/spot/order/cancel", &[("order_id", &id)]).json()["success"][0],
        id.as_str()
    );
    assert!(env
        .ctl
        .create_api_key(env.account, KeyOptions::default())
        .is_err());
    env.ctl.advance_clock(29 * 60_000);
    assert_eq!(far_buy(&env)["code"], 20020);
    env.ctl.advance_clock(60_000 + 1);
    // Second and third violations within three hours: the third bans for 24 hours.
    for round in 2..=3 {
        for _ in 0..50 {
            assert_eq!(far_buy(&env)["code"], 0, "round {round}");
        }
        env.ctl.advance_clock(10 * 60_000);
        let code = far_buy(&env)["code"].as_i64().unwrap();
        if round == 2 {
            assert_eq!(code, 20020);
            env.ctl.advance_clock(30 * 60_000);
        } else {
            assert_eq!(code, 20018);
        }
    }
    env.ctl.advance_clock(23 * 3_600_000);
    assert_eq!(far_buy(&env)["code"], 20018);
    env.ctl.advance_clock(3_600_000);
    assert_eq!(far_buy(&env)["code"], 0);
}

#[test]
fn fill_ratio_triggers_with_100_orders() {
    let env = risk_env();
    // 100 orders: one fully filled large one keeps FW up, but FR = 1/100 is not below 0.01...
    // so use 101 orders with one fill: FR = 1/101 < 0.01, FW high.
    let ((ask, _), _) = env.top("btc_usdt");
    let r = env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &ask.to_string()),
            ("amount", "0.05"),
        ],
    );
    assert_eq!(r.code(), 0);
    for _ in 0..100 {
        assert_eq!(far_buy(&env)["code"], 0);
    }
    env.ctl.advance_clock(10 * 60_000);
    assert_eq!(far_buy(&env)["code"], 20020);
}

#[test]
fn fill_ratio_at_threshold_does_not_trigger() {
    let env = risk_env();
    // 99 orders, none filled: FR and CR need more than 99 orders; FW (more than 49) would
    // trigger, so fill one order large enough to keep FW above 0.01 and FR = 1/99 >= 0.01.
    let ((ask, _), _) = env.top("btc_usdt");
    env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", &ask.to_string()),
            ("amount", "0.05"),
        ],
    );
    for _ in 0..98 {
        assert_eq!(far_buy(&env)["code"], 0);
    }
    env.ctl.advance_clock(10 * 60_000);
    assert_eq!(far_buy(&env)["code"], 0);
}

#[test]
fn cancel_ratio_triggers() {
    let env = risk_env();
    let ((ask, _), _) = env.top("btc_usdt");
    // Two filled orders (FR = 2/100, FW high), 98 cancelled at once (CR = 0.98).
    for _ in 0..2 {
        let r = env.spost(
            "/spot/order/new",
            &[
                ("symbol", "btc_usdt"),
                ("type", "buy"),
                ("price", &ask.to_string()),
                ("amount", "0.01"),
            ],
        );
        assert_eq!(r.code(), 0);
    }
    for _ in 0..98 {
        let id = far_buy(&env)["order_id"].as_str().unwrap().to_owned();
        assert_eq!(
            env.spost("/spot/order/cancel", &[("order_id", &id)]).code(),
            0
        );
    }
    env.ctl.advance_clock(10 * 60_000);
    assert_eq!(far_buy(&env)["code"], 20020);
}

#[test]
fn slow_cancels_do_not_count() {
    let env = risk_env();
    let ((ask, _), _) = env.top("btc_usdt");
    for _ in 0..2 {
        env.spost(
            "/spot/order/new",
            &[
                ("symbol", "btc_usdt"),
                ("type", "buy"),
                ("price", &ask.to_string()),
                ("amount", "0.01"),
            ],
        );
    }
    let mut ids = Vec::new();
    for _ in 0..98 {
        ids.push(far_buy(&env)["order_id"].as_str().unwrap().to_owned());
    }
    env.ctl.advance_clock(6_000);
    for id in ids {
        assert_eq!(
            env.spost("/spot/order/cancel", &[("order_id", &id)]).code(),
            0
        );
    }
    env.ctl.advance_clock(10 * 60_000);
    assert_eq!(far_buy(&env)["code"], 0);
}
