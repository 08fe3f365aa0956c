//! Routing through the route tables, over raw HTTP: the exact answers to unknown paths, wrong
//! methods and the path templates of each family and of the control API.

use crate::common::*;
use digifinex_sim::SimConfig;
use serde_json::json;

fn weight_headers(r: &Resp) -> Vec<(String, String)> {
    let mut h: Vec<(String, String)> = r
        .headers
        .iter()
        .filter(|(k, _)| k.contains("weight"))
        .cloned()
        .collect();
    h.sort();
    h
}

#[test]
fn spot_unknown_paths_and_wrong_methods() {
    let env = Env::new();
    let unknown = r#"{"code":10009,"msg":"endpoint unknown or ACCESS-KEY missing"}"#;
    let wrong = r#"{"code":10001,"msg":"wrong request method"}"#;
    for (method, path) in [
        ("GET", "/v3/nothing"),
        ("GET", "/v3/ping/"),
        ("GET", "/v3/PING"),
        ("POST", "/v3/spot/order/new/"),
        ("POST", "/v3/futures/order/new"),
        ("GET", "/v3/futures/order/new"),
        ("GET", "/v3/SPOT/order"),
        ("POST", "/v3/withdraw/cancel/"),
        ("POST", "/v3/withdraw/cancel/1/2"),
        ("GET", "/v3"),
    ] {
        let r = send(env.addr(), method, path, &[], "").unwrap();
        assert_eq!(
            (r.status, r.text().as_str()),
            (404, unknown),
            "{method} {path}"
        );
    }
    for (method, path) in [
        ("POST", "/v3/ping"),
        ("GET", "/v3/spot/order/new"),
        ("GET", "/v3/margin/order/cancel"),
        ("DELETE", "/v3/spot/order"),
        ("GET", "/v3/withdraw/cancel/7"),
    ] {
        let r = send(env.addr(), method, path, &[], "").unwrap();
        assert_eq!(
            (r.status, r.text().as_str()),
            (405, wrong),
            "{method} {path}"
        );
    }
    // Both `{market}` values reach the endpoint (the unsigned request is refused by auth).
    for path in ["/v3/spot/order/new", "/v3/margin/order/new"] {
        let r = send(env.addr(), "POST", path, &[], "").unwrap();
        assert_eq!((r.status, r.code()), (200, 10009), "{path}");
    }
    // Every known path answers (no 404) with its method.
    assert_eq!(env.get("/ping", &[]).json(), json!({"msg":"pong","code":0}));
    assert_eq!(env.sget("/margin/assets", &[]).code(), 0);
    assert_eq!(env.sget("/margin/financelog", &[]).code(), 0);
}

#[test]
fn spot_withdraw_cancel_takes_the_id_from_the_path_or_the_form() {
    let env = Env::new();
    // Unknown ids: 20033 either way (the path form and the parameter form reach one handler).
    let r = env.spost("/withdraw/cancel/12345", &[]);
    assert_eq!(r.json(), json!({"code":20033,"msg":"wrong withdrawal id"}));
    let r = env.spost("/withdraw/cancel", &[("withdraw_id", "12345")]);
    assert_eq!(r.json(), json!({"code":20033,"msg":"wrong withdrawal id"}));
}

#[test]
fn swap_wrong_method_is_charged_and_trailing_slash_ignored() {
    // A frozen clock: the minute's counters cannot roll over between the requests.
    let env = Env::with_config(SimConfig {
        start_time_ms: Some(1_800_000_001_000),
        ..SimConfig::default().without_flow()
    });
    let r = send(env.addr(), "POST", "/swap/v2/public/instruments", &[], "").unwrap();
    assert_eq!(r.status, 405);
    assert_eq!(r.text(), r#"{"code":400002,"msg":"wrong request method"}"#);
    assert_eq!(
        weight_headers(&r),
        [
            ("ip-weight-minute-remain".to_owned(), "5995".to_owned()),
            ("ip-weight-minute-use".to_owned(), "5".to_owned())
        ]
    );
    let r = send(env.addr(), "GET", "/swap/v2/public/time/", &[], "").unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.code(), 0);
    assert_eq!(
        weight_headers(&r),
        [
            ("ip-weight-minute-remain".to_owned(), "5994".to_owned()),
            ("ip-weight-minute-use".to_owned(), "6".to_owned())
        ]
    );
    let r = send(env.addr(), "GET", "/swap/v2/public/Time", &[], "").unwrap();
    assert_eq!((r.status, r.text().as_str()), (404, "404 page not found"));
    assert!(weight_headers(&r).is_empty());
}

#[test]
fn swap_api_weight_lists_the_table_in_order() {
    let env = Env::new();
    let table = Env::ok_data(&env.swget("/public/api_weight", &[]));
    let rows = table.as_array().unwrap();
    assert_eq!(rows.len(), 41);
    assert_eq!(rows[0], json!({"path":"/swap/v2/public/time","weight":1}));
    assert_eq!(
        rows[40],
        json!({"path":"/swap/v2/follow/instrument_list","weight":2})
    );
}

#[test]
fn control_routes_exact_answers() {
    let env = Env::new();
    let call = |m: &str, p: &str, b: &str| env.control(m, p, b);
    // Unknown routes and known paths with another method: 404 naming the request.
    for (m, p) in [
        ("GET", "/__sim/nope"),
        ("GET", "/__sim/faults/1"),
        ("PUT", "/__sim/clock"),
        ("DELETE", "/__sim/keys"),
        ("GET", "/__sim/swap"),
    ] {
        let r = call(m, p, "");
        assert_eq!(r.status, 404, "{m} {p}");
        assert_eq!(
            r.json(),
            json!({"error": format!("unknown control route {m} {p}")}),
            "{m} {p}"
        );
    }
    // The body is read before the route: not JSON is 400 even on an unknown route.
    let r = call("GET", "/__sim/nope", "{x");
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .starts_with("body is not JSON: "),
        "{}",
        r.text()
    );
    // Trailing slashes are ignored.
    assert_eq!(call("GET", "/__sim/", "").json()["ok"], true);
    assert_eq!(call("GET", "/__sim/health/", "").json()["ok"], true);
    assert_eq!(call("GET", "/__sim/clock/", "").status, 200);
    // Path arguments.
    let r = call("DELETE", "/__sim/faults/abc", "");
    assert_eq!(
        (r.status, r.json()),
        (400, json!({"error":"fault id must be an integer"}))
    );
    let r = call("DELETE", "/__sim/faults/clear", "");
    assert_eq!(r.status, 400);
    let r = call("DELETE", "/__sim/faults/99", "");
    assert_eq!((r.status, r.json()), (200, json!({"removed": false})));
    let rule = r#"{"method":"GET","path":"/v3/ping","fault":{"kind":"server_error","status":503},"count":1}"#;
    let id = call("POST", "/__sim/faults", rule).json()["id"]
        .as_u64()
        .unwrap();
    let r = call("DELETE", &format!("/__sim/faults/{id}"), "");
    assert_eq!(r.json(), json!({"removed": true}));
    call("POST", "/__sim/faults", rule);
    assert_eq!(
        call("POST", "/__sim/faults/clear", "").json(),
        json!({"ok": true})
    );
    assert_eq!(
        call("GET", "/__sim/faults", "").json(),
        json!({"faults": []})
    );
    let r = call("DELETE", &format!("/__sim/keys/{}", env.key), "");
    assert_eq!(r.json(), json!({"removed": true}));
    let r = call("DELETE", "/__sim/keys/no/such/key", "");
    assert_eq!(r.json(), json!({"removed": false}));
}
