use crate::common::*;
use digifinex_sim::{KeyOptions, Permissions};

fn assets(env: &Env, key: &str, secret: &str, ts: i64, extra: &[(&str, String)]) -> i64 {
    env.signed_with("GET", "/spot/assets", "", "", key, secret, ts, extra)
        .code()
}

#[test]
fn public_endpoints_need_no_auth() {
    let env = Env::new();
    assert_eq!(env.get("/ping", &[]).code(), 0);
    assert_eq!(env.get("/currencies", &[]).code(), 200);
    assert_eq!(env.get("/markets", &[]).code(), 0);
}

#[test]
fn valid_signature_passes_and_is_case_insensitive() {
    let env = Env::new();
    let ts = env.now_s();
    assert_eq!(assets(&env, &env.key, &env.secret, ts, &[]), 0);
    // Upper-case hex signature.
    let sig = hmac_hex(&env.secret, "").to_ascii_uppercase();
    let r = send(
        env.addr(),
        "GET",
        "/v3/spot/assets",
        &[
            ("ACCESS-KEY", env.key.clone()),
            ("ACCESS-SIGN", sig),
            ("ACCESS-TIMESTAMP", ts.to_string()),
        ],
        "",
    )
    .unwrap();
    assert_eq!(r.code(), 0);
}

#[test]
fn missing_key_is_10009_unknown_key_10002() {
    let env = Env::new();
    let r = send(env.addr(), "GET", "/v3/spot/assets", &[], "").unwrap();
    assert_eq!(r.code(), 10009);
    assert_eq!(
        assets(&env, "nosuchkey", &env.secret, env.now_s(), &[]),
        10002
    );
}

#[test]
fn tampered_signature_is_10003() {
    let env = Env::new();
    let body = encode(&[
        ("symbol", "btc_usdt"),
        ("type", "buy"),
        ("price", "20000"),
        ("amount", "0.001"),
    ]);
    let text = body.replace("0.001", "0.002");
    let r = send(
        env.addr(),
        "POST",
        "/v3/spot/order/new",
        &[
            ("ACCESS-KEY", env.key.clone()),
            ("ACCESS-SIGN", hmac_hex(&env.secret, &body)),
            ("ACCESS-TIMESTAMP", env.now_s().to_string()),
            (
                "Content-Type",
                "application/x-www-form-urlencoded".to_owned(),
            ),
        ],
        &text,
    )
    .unwrap();
    assert_eq!(r.code(), 10003);
    assert_eq!(env.ctl.order_count(env.account), 0);
    // Wrong secret, and a missing signature.
    assert_eq!(assets(&env, &env.key, "wrong", env.now_s(), &[]), 10003);
    let r = send(
        env.addr(),
        "GET",
        "/v3/spot/assets",
        &[
            ("ACCESS-KEY", env.key.clone()),
            ("ACCESS-TIMESTAMP", env.now_s().to_string()),
        ],
        "",
    )
    .unwrap();
    assert_eq!(r.code(), 10003);
}

#[test]
fn query_and_body_are_signed_together_and_query_wins() {
    let env = Env::new();
    env.fund(digifinex_sim::AccountType::Spot, "USDT", "1000");
    // symbol in the query (wins over the body's), the rest in the body.
    let query = "symbol=btc_usdt";
    let body = "symbol=eth_usdt&type=buy&price=20000&amount=0.001";
    let r = env.signed_with(
        "POST",
        "/spot/order/new",
        query,
        body,
        &env.key,
        &env.secret,
        env.now_s(),
        &[],
    );
    assert_eq!(r.code(), 0, "{}", r.text());
    let orders = env.ctl.orders(env.account);
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].symbol, "btc_usdt");
    // Signing only the body while a query is sent fails.
    let mut headers = vec![
        ("ACCESS-KEY", env.key.clone()),
        ("ACCESS-SIGN", hmac_hex(&env.secret, body)),
        ("ACCESS-TIMESTAMP", env.now_s().to_string()),
    ];
    headers.push((
        "Content-Type",
        "application/x-www-form-urlencoded".to_owned(),
    ));
    let r = send(
        env.addr(),
        "POST",
        &format!("/v3/spot/order/new?{query}"),
        &headers,
        body,
    )
    .unwrap();
    assert_eq!(r.code(), 10003);
}

#[test]
fn timestamp_window_and_recv_window() {
    let env = Env::new();
    env.ctl.freeze_clock(Some(1_800_000_000_500));
    let now = env.now_s();
    assert_eq!(assets(&env, &env.key, &env.secret, now - 4, &[]), 0);
    assert_eq!(
        assets(&env, &env.key, &env.secret, now - 6, &[]),
        10008,
        "stale"
    );
    assert_eq!(assets(&env, &env.key, &env.secret, now + 1, &[]), 0);
    assert_eq!(
        assets(&env, &env.key, &env.secret, now + 2, &[]),
        10008,
        "ahead"
    );
    let rw = [("ACCESS-RECV-WINDOW", "10000".to_owned())];
    assert_eq!(
        assets(&env, &env.key, &env.secret, now - 9, &rw),
        0,
        "widened"
    );
    assert_eq!(assets(&env, &env.key, &env.secret, now - 11, &rw), 10008);
    assert_eq!(
        assets(&env, &env.key, &env.secret, now + 2, &rw),
        10008,
        "ahead stays 1 s"
    );
    let r = send(
        env.addr(),
        "GET",
        "/v3/spot/assets",
        &[
            ("ACCESS-KEY", env.key.clone()),
            ("ACCESS-SIGN", hmac_hex(&env.secret, "")),
        ],
        "",
    )
    .unwrap();
    assert_eq!(r.code(), 10008, "missing timestamp");
}

#[test]
fn expired_key_ip_whitelist_and_permissions() {
    let env = Env::new();
    let now = env.ctl.now_ms();
    let expired = env
        .ctl
        .create_api_key(
            env.account,
            KeyOptions {
                expires_at_ms: Some(now - 1),
                ..KeyOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        assets(&env, &expired.key, &expired.secret, env.now_s(), &[]),
        10011
    );

    let foreign_ip = env
        .ctl
        .create_api_key(
            env.account,
            KeyOptions {
                ip_whitelist: vec!["10.1.2.3".parse().unwrap()],
                ..KeyOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        assets(&env, &foreign_ip.key, &foreign_ip.secret, env.now_s(), &[]),
        10007
    );
    let local_ip = env
        .ctl
        .create_api_key(
            env.account,
            KeyOptions {
                ip_whitelist: vec!["127.0.0.1".parse().unwrap()],
                ..KeyOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        assets(&env, &local_ip.key, &local_ip.secret, env.now_s(), &[]),
        0
    );

    let read_only = env
        .ctl
        .create_api_key(
            env.account,
            KeyOptions {
                permissions: Permissions {
                    read: true,
                    trade: false,
                    withdraw: false,
                },
                ..KeyOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        assets(&env, &read_only.key, &read_only.secret, env.now_s(), &[]),
        0
    );
    let body = encode(&[
        ("symbol", "btc_usdt"),
        ("type", "buy"),
        ("price", "20000"),
        ("amount", "0.001"),
    ]);
    let r = env.signed_with(
        "POST",
        "/spot/order/new",
        "",
        &body,
        &read_only.key,
        &read_only.secret,
        env.now_s(),
        &[],
    );
    assert_eq!(r.code(), 10006);
    // Default keys (read + trade) cannot withdraw.
    let trader = env
        .ctl
        .create_api_key(env.account, KeyOptions::default())
        .unwrap();
    let body = encode(&[("currency", "BTC"), ("address", "x"), ("amount", "1")]);
    let r = env.signed_with(
        "POST",
        "/withdraw/new",
        "",
        &body,
        &trader.key,
        &trader.secret,
        env.now_s(),
        &[],
    );
    assert_eq!(r.code(), 10006);
    let no_read = env
        .ctl
        .create_api_key(
            env.account,
            KeyOptions {
                permissions: Permissions {
                    read: false,
                    trade: true,
                    withdraw: false,
                },
                ..KeyOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        assets(&env, &no_read.key, &no_read.secret, env.now_s(), &[]),
        10006
    );
}

#[test]
fn unknown_endpoint_and_wrong_method() {
    let env = Env::new();
    let r = env.get("/no/such/endpoint", &[]);
    assert_eq!(r.status, 404);
    assert_eq!(r.code(), 10009);
    let r = send(env.addr(), "POST", "/v3/ping", &[], "").unwrap();
    assert_eq!(r.code(), 10001);
    let r = send(env.addr(), "GET", "/v3/spot/order/new", &[], "").unwrap();
    assert_eq!(r.code(), 10001);
}
