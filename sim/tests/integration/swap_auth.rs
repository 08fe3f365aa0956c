use crate::common::*;
use digifinex_sim::{KeyOptions, Permissions};
use serde_json::json;

#[test]
fn swap_signed_get_and_post_succeed() {
    let env = Env::new();
    let r = env.swsget("/account/balance", &[]);
    let d = Env::ok_data(&r);
    assert!(d.is_array());
    assert!(r.header("account-weight-minute-use").is_some());
    assert!(r.header("apikey-weight-minute-remain").is_some());
    assert!(r.header("ip-weight-minute-use").is_none());
    // Query string is part of the signed text.
    let r = env.swsget("/account/positions", &[("instrument_id", "BTCUSDTPERP")]);
    assert_eq!(r.code(), 0, "{}", r.text());
    // Missing content type is accepted; a form content type is not.
    let body = json!({"instrument_id":"BTCUSDTPERP"}).to_string();
    let now = env.ctl.now_ms();
    let r = env.swap_signed_with(
        "POST",
        "/swap/v2/follow/account_available",
        &body,
        &env.key,
        &env.secret,
        now,
        None,
    );
    assert_eq!(r.code(), 0, "{}", r.text());
    let r = env.swap_signed_with(
        "POST",
        "/swap/v2/follow/account_available",
        &body,
        &env.key,
        &env.secret,
        now,
        Some("application/x-www-form-urlencoded"),
    );
    assert_eq!(r.code(), 400002);
    // Malformed JSON.
    let r = env.swap_signed_with(
        "POST",
        "/swap/v2/follow/account_available",
        "{nope",
        &env.key,
        &env.secret,
        now,
        Some("application/json"),
    );
    assert_eq!(r.code(), 400002);
}

#[test]
fn swap_auth_error_codes() {
    let env = Env::new();
    let now = env.ctl.now_ms();
    let t = "/swap/v2/account/balance";
    // Unknown and missing key.
    let r = env.swap_signed_with("GET", t, "", "nokey", &env.secret, now, None);
    assert_eq!(r.code(), 400006);
    assert!(r.header("ip-weight-minute-use").is_some());
    let r = send(env.addr(), "GET", t, &[], "").unwrap();
    assert_eq!(r.code(), 400006);
    // Tampered signature: signed another path.
    let ts = now.to_string();
    let sign = env.swap_sign(&env.secret, &ts, "GET", "/swap/v2/account/positions", "");
    let r = send(
        env.addr(),
        "GET",
        t,
        &[
            ("ACCESS-KEY", env.key.clone()),
            ("ACCESS-SIGN", sign),
            ("ACCESS-TIMESTAMP", ts.clone()),
        ],
        "",
    )
    .unwrap();
    assert_eq!(r.code(), 400004);
    // Wrong secret.
    let r = env.swap_signed_with("GET", t, "", &env.key, "0000", now, None);
    assert_eq!(r.code(), 400004);
    // Tampered body.
    let body = json!({"type":1,"currency":"USDT","transfer_amount":"1"}).to_string();
    let sign = env.swap_sign(&env.secret, &ts, "POST", "/swap/v2/account/transfer", &body);
    let r = send(
        env.addr(),
        "POST",
        "/swap/v2/account/transfer",
        &[
            ("ACCESS-KEY", env.key.clone()),
            ("ACCESS-SIGN", sign),
            ("ACCESS-TIMESTAMP", ts),
            ("Content-Type", "application/json".to_owned()),
        ],
        &body.replace("\"1\"", "\"100\""),
    )
    .unwrap();
    assert_eq!(r.code(), 400004);
    // Stale and future timestamps (window 30 s), seconds instead of ms.
    assert_eq!(
        env.swap_signed_with("GET", t, "", &env.key, &env.secret, now - 31_000, None)
            .code(),
        400004
    );
    assert_eq!(
        env.swap_signed_with("GET", t, "", &env.key, &env.secret, now + 31_000, None)
            .code(),
        400004
    );
    assert_eq!(
        env.swap_signed_with("GET", t, "", &env.key, &env.secret, now - 29_000, None)
            .code(),
        0
    );
    assert_eq!(
        env.swap_signed_with("GET", t, "", &env.key, &env.secret, now / 1000, None)
            .code(),
        400004
    );
    // IP whitelist.
    let k = env
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
        env.swap_signed_with("GET", t, "", &k.key, &k.secret, now, None)
            .code(),
        400003
    );
    // Permission: read-only key cannot trade.
    let ro = env
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
        env.swap_signed_with("GET", t, "", &ro.key, &ro.secret, now, None)
            .code(),
        0
    );
    let body =
        json!({"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"20000"})
            .to_string();
    let r = env.swap_signed_with(
        "POST",
        "/swap/v2/trade/order_place",
        &body,
        &ro.key,
        &ro.secret,
        now,
        Some("application/json"),
    );
    assert_eq!(r.code(), 400005);
    // Expired key.
    let ex = env
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
        env.swap_signed_with("GET", t, "", &ex.key, &ex.secret, now, None)
            .code(),
        400006
    );
    assert_eq!(env.ctl.panics(), 0);
}
