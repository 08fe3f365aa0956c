use crate::common::*;
use digifinex_sim::{AccountType, FaultKind, FaultRule};
use std::time::Instant;

fn order_body() -> String {
    encode(&[
        ("symbol", "btc_usdt"),
        ("type", "buy"),
        ("price", "20000"),
        ("amount", "0.001"),
    ])
}

fn signed_order_request(env: &Env) -> Vec<u8> {
    let body = order_body();
    format!(
        "POST /v3/spot/order/new HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nACCESS-KEY: {}\r\nACCESS-SIGN: {}\r\nACCESS-TIMESTAMP: {}\r\n\r\n{}",
        body.len(),
        env.key,
        hmac_hex(&env.secret, &body),
        env.now_s(),
        body
    )
    .into_bytes()
}

#[test]
fn latency_then_normal() {
    let env = Env::new();
    env.ctl
        .add_fault(FaultRule::route("GET", "/v3/ping", FaultKind::Latency { ms: 300 }).times(1));
    let t = Instant::now();
    assert_eq!(env.get("/ping", &[]).code(), 0);
    assert!(t.elapsed().as_millis() >= 300);
    let t = Instant::now();
    assert_eq!(env.get("/ping", &[]).code(), 0);
    assert!(t.elapsed().as_millis() < 300);
}

#[test]
fn too_many_requests_server_error_html() {
    let env = Env::new();
    env.ctl.add_fault(
        FaultRule::route(
            "GET",
            "/v3/time",
            FaultKind::TooManyRequests { retry_after_s: 7 },
        )
        .times(1),
    );
    let r = env.get("/time", &[]);
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("7"));
    assert_eq!(r.code(), 10005);
    assert_eq!(env.get("/time", &[]).status, 200);

    env.ctl
        .add_fault(FaultRule::global(FaultKind::ServerError { status: 503 }).times(1));
    let r = env.get("/markets", &[]);
    assert_eq!(r.status, 503);
    assert_eq!(env.get("/markets", &[]).status, 200);

    env.ctl
        .add_fault(FaultRule::route("GET", "/v3/*", FaultKind::HtmlError { status: 502 }).times(2));
    let r = env.get("/ticker", &[]);
    assert_eq!(r.status, 502);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(r.text().contains("<html>"));
    let r = env.get("/ping", &[]);
    assert_eq!(r.status, 502);
    assert_eq!(env.get("/ping", &[]).status, 200);
}

#[test]
fn malformed_and_truncated_bodies() {
    let env = Env::new();
    env.ctl
        .add_fault(FaultRule::route("GET", "/v3/markets", FaultKind::MalformedJson).times(1));
    let r = env.get("/markets", &[]);
    assert_eq!(r.status, 200);
    assert!(serde_json::from_slice::<serde_json::Value>(&r.body).is_err());

    env.ctl
        .add_fault(FaultRule::route("GET", "/v3/markets", FaultKind::TruncatedBody).times(1));
    let bytes = raw(
        env.addr(),
        b"GET /v3/markets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let err = parse(&bytes).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    assert_eq!(env.get("/markets", &[]).code(), 0);
}

#[test]
fn dropped_before_apply_leaves_no_order() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "1000");
    env.ctl.add_fault(
        FaultRule::route("POST", "/v3/spot/order/new", FaultKind::DropBeforeApply).times(1),
    );
    let bytes = raw(env.addr(), &signed_order_request(&env)).unwrap_or_default();
    assert!(
        bytes.is_empty(),
        "no response expected: {:?}",
        String::from_utf8_lossy(&bytes)
    );
    assert_eq!(env.ctl.order_count(env.account), 0);
}

#[test]
fn dropped_after_apply_leaves_exactly_one_order() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "1000");
    env.ctl.add_fault(
        FaultRule::route("POST", "/v3/spot/order/new", FaultKind::DropAfterApply).times(1),
    );
    let bytes = raw(env.addr(), &signed_order_request(&env)).unwrap_or_default();
    assert!(
        bytes.is_empty(),
        "no response expected: {:?}",
        String::from_utf8_lossy(&bytes)
    );
    assert_eq!(env.ctl.order_count(env.account), 1);
    assert_eq!(env.ctl.open_order_count(env.account), 1);
    // The rule was used up: the next request is answered.
    let r = env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "20000"),
            ("amount", "0.001"),
        ],
    );
    assert_eq!(r.code(), 0);
    assert_eq!(env.ctl.order_count(env.account), 2);
}

#[test]
fn faults_over_the_http_control_api() {
    let env = Env::new();
    let r = env.control(
        "POST",
        "/__sim/faults",
        r#"{"method":"GET","path":"/v3/ping","fault":{"kind":"server_error","status":500},"count":1}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let list = env.control("GET", "/__sim/faults", "").json();
    assert_eq!(list["faults"].as_array().unwrap().len(), 1);
    assert_eq!(env.get("/ping", &[]).status, 500);
    assert_eq!(env.get("/ping", &[]).status, 200);
    env.control(
        "POST",
        "/__sim/faults",
        r#"{"fault":{"kind":"drop_before_apply"}}"#,
    );
    assert!(raw(env.addr(), b"GET /v3/ping HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap_or_default()
        .is_empty());
    // Control routes never fault, so the rules can be cleared.
    assert_eq!(env.control("DELETE", "/__sim/faults", "").status, 200);
    assert_eq!(env.get("/ping", &[]).code(), 0);
}
