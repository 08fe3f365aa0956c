use crate::common::*;
use digifinex_sim::{AccountType, Sim, SimConfig};

#[test]
fn http_control_round_trip() {
    let sim = Sim::start(SimConfig::default().without_flow()).unwrap();
    let addr = sim.addr();
    let call = |m: &str, p: &str, b: &str| {
        send(
            addr,
            m,
            p,
            &[("Content-Type", "application/json".to_owned())],
            b,
        )
        .unwrap()
    };
    let h = call("GET", "/__sim/health", "").json();
    assert_eq!(h["spot_base_url"], sim.spot_base_url());
    assert_eq!(h["swap_base_url"], sim.swap_base_url());
    assert!(sim.spot_base_url().ends_with("/v3"));
    assert!(sim.control_url().ends_with("/__sim"));

    let account = call("POST", "/__sim/accounts", "").json()["account"]
        .as_u64()
        .unwrap();
    let k = call(
        "POST",
        "/__sim/keys",
        &format!(r#"{{"account":{account},"withdraw":true}}"#),
    )
    .json();
    let (key, secret) = (
        k["key"].as_str().unwrap().to_owned(),
        k["secret"].as_str().unwrap().to_owned(),
    );
    assert_eq!(key.len(), 32);
    assert_eq!(secret.len(), 64);
    let r = call(
        "POST",
        "/__sim/balances",
        &format!(
            r#"{{"account":{account},"account_type":"spot","currency":"usdt","free":"123.45"}}"#
        ),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    call(
        "POST",
        "/__sim/credit",
        &format!(r#"{{"account":{account},"account_type":"swap","currency":"USDT","amount":10}}"#),
    );
    let b = call("GET", &format!("/__sim/balances?account={account}"), "").json();
    let rows = b["balances"].as_array().unwrap();
    assert!(rows
        .iter()
        .any(|r| r["account_type"] == "spot" && r["free"] == "123.45"));
    assert!(rows
        .iter()
        .any(|r| r["account_type"] == "swap" && r["free"] == "10"));
    assert_eq!(
        sim.control()
            .balance(account, AccountType::Spot, "USDT")
            .unwrap()
            .free,
        dec("123.45")
    );

    // Signed request with the new key.
    let ts = sim.control().now_ms() / 1000;
    let r = send(
        addr,
        "GET",
        "/v3/spot/assets",
        &[
            ("ACCESS-KEY", key.clone()),
            ("ACCESS-SIGN", hmac_hex(&secret, "")),
            ("ACCESS-TIMESTAMP", ts.to_string()),
        ],
        "",
    )
    .unwrap();
    assert_eq!(r.code(), 0);

    let c0 = call("GET", "/__sim/clock", "").json()["now_ms"]
        .as_i64()
        .unwrap();
    let c1 = call("POST", "/__sim/clock", r#"{"advance_ms":3600000}"#).json()["now_ms"]
        .as_i64()
        .unwrap();
    assert!(c1 - c0 >= 3_600_000);
    let fr = call("POST", "/__sim/clock", r#"{"freeze_at_ms":1800000000000}"#).json();
    assert_eq!(fr["now_ms"], 1_800_000_000_000i64);
    assert_eq!(fr["frozen"], true);

    let d = call(
        "POST",
        "/__sim/deposits",
        &format!(r#"{{"account":{account},"currency":"BTC","amount":"0.5"}}"#),
    )
    .json();
    assert!(d["id"].is_u64());
    call(
        "POST",
        "/__sim/whitelist",
        &format!(r#"{{"account":{account},"currency":"BTC","address":"1abc"}}"#),
    );
    let orders = call("GET", &format!("/__sim/orders?account={account}"), "").json();
    assert_eq!(orders["count"], 0);

    let demo = call("POST", "/__sim/demo", "").json();
    assert!(demo["key"].is_string() && demo["secret"].is_string());
    // One demo account: the same on every call; `/demo/new` makes another, funded alike.
    assert_eq!(call("POST", "/__sim/demo", "").json(), demo);
    let other = call("POST", "/__sim/demo/new", "").json();
    assert_ne!(other["account"], demo["account"]);
    assert_ne!(other["key"], demo["key"]);
    let balances = call(
        "GET",
        &format!("/__sim/balances?account={}", other["account"]),
        "",
    )
    .json();
    assert!(balances["balances"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["account_type"] == "spot" && b["currency"] == "USDT" && b["free"] == "100000"));
    assert_eq!(call("POST", "/__sim/demo", "").json(), demo);
    assert_eq!(call("GET", "/__sim/nope", "").status, 404);
    assert_eq!(
        call("POST", "/__sim/keys", r#"{"account":999999}"#).status,
        404
    );
    assert_eq!(call("POST", "/__sim/keys", "{not json").status, 400);
}

#[test]
fn demo_account_can_trade_and_withdraw() {
    let env = Env::new();
    let demo = env.ctl.demo_account();
    // The simulator has one demo account (the README reads it as a getter); more come from
    // `funded_account`.
    let again = env.ctl.demo_account();
    assert_eq!(
        (again.account, &again.keys.key),
        (demo.account, &demo.keys.key)
    );
    let more = env.ctl.funded_account();
    assert_ne!(more.account, demo.account);
    assert_eq!(
        env.ctl
            .balance(more.account, AccountType::Swap, "USDT")
            .unwrap()
            .free,
        dec("10000")
    );
    assert!(
        env.ctl
            .balance(demo.account, AccountType::Spot, "USDT")
            .unwrap()
            .free
            > dec("0")
    );
    let body = encode(&[
        ("symbol", "btc_usdt"),
        ("type", "buy_market"),
        ("amount", "50"),
    ]);
    let r = env.signed_with(
        "POST",
        "/spot/order/new",
        "",
        &body,
        &demo.keys.key,
        &demo.keys.secret,
        env.now_s(),
        &[],
    );
    assert_eq!(r.code(), 0);
    let addr = env
        .signed_with(
            "GET",
            "/deposit/address",
            "currency=BTC",
            "",
            &demo.keys.key,
            &demo.keys.secret,
            env.now_s(),
            &[],
        )
        .json();
    let address = addr["data"][0]["address"].as_str().unwrap().to_owned();
    let body = encode(&[
        ("currency", "BTC"),
        ("address", &address),
        ("amount", "0.01"),
    ]);
    let r = env.signed_with(
        "POST",
        "/withdraw/new",
        "",
        &body,
        &demo.keys.key,
        &demo.keys.secret,
        env.now_s(),
        &[],
    );
    assert_eq!(r.code(), 200, "{}", r.text());
}

#[test]
fn async_serve_on_callers_runtime() {
    let rt = tokio_rt();
    rt.block_on(async {
        let sim = Sim::bind(SimConfig::default().without_flow())
            .await
            .unwrap();
        let addr = sim.addr();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(sim.serve(async {
            let _ = rx.await;
        }));
        let r =
            tokio::task::spawn_blocking(move || send(addr, "GET", "/v3/ping", &[], "").unwrap())
                .await
                .unwrap();
        assert_eq!(r.code(), 0);
        let _ = tx.send(());
        task.await.unwrap().unwrap();
    });
}

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn dropping_the_handle_stops_the_server() {
    let sim = Sim::start(SimConfig::default().without_flow()).unwrap();
    let addr = sim.addr();
    assert_eq!(send(addr, "GET", "/v3/ping", &[], "").unwrap().code(), 0);
    drop(sim);
    assert!(send(addr, "GET", "/v3/ping", &[], "").is_err());
}

#[test]
fn garbage_requests_never_break_the_server() {
    let env = Env::new();
    for req in [
        &b"GARBAGE\r\n\r\n"[..],
        b"GET /v3/order_book?symbol=%ff%fe&limit=-1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"POST /v3/spot/order/new HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\nACCESS-KEY: \xff\xfe\r\n\r\n\xff\xfe\x00\x01\x02",
        b"GET /v3/kline?symbol=btc_usdt&period=1&start_time=-9223372036854775808&end_time=9223372036854775807 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ] {
        let _ = raw(env.addr(), req);
    }
    let body = "symbol=btc_usdt&type=buy&price=1e400&amount=NaN";
    let r = env.signed_with(
        "POST",
        "/spot/order/new",
        "",
        body,
        &env.key,
        &env.secret,
        env.now_s(),
        &[],
    );
    assert_eq!(r.code(), 10004);
    let body = "symbol=btc_usdt&type=buy&price=79000000000000000000000000000&amount=79000000000000000000000000000";
    let r = env.signed_with(
        "POST",
        "/spot/order/new",
        "",
        body,
        &env.key,
        &env.secret,
        env.now_s(),
        &[],
    );
    assert_eq!(r.code(), 10004);
    for q in [
        "start_time=-9223372036854775808",
        "end_time=9223372036854775807",
        "limit=99999999999999999999",
    ] {
        let r = env.signed_with(
            "GET",
            "/spot/order/history",
            q,
            "",
            &env.key,
            &env.secret,
            env.now_s(),
            &[],
        );
        assert_ne!(r.code(), 0, "{q}");
        let r = env.signed_with(
            "GET",
            "/spot/mytrades",
            q,
            "",
            &env.key,
            &env.secret,
            env.now_s(),
            &[],
        );
        assert_ne!(r.code(), 0, "{q}");
        let r = env.signed_with(
            "GET",
            "/spot/financelog",
            q,
            "",
            &env.key,
            &env.secret,
            env.now_s(),
            &[],
        );
        assert_ne!(r.code(), 0, "{q}");
        let r = env.get(&format!("/kline?symbol=btc_usdt&period=1&{q}"), &[]);
        assert_ne!(r.status, 500, "{q}");
        let r = env.signed_with(
            "GET",
            "/deposit/history",
            &q.replace("start_time", "from"),
            "",
            &env.key,
            &env.secret,
            env.now_s(),
            &[],
        );
        assert_ne!(r.status, 500, "{q}");
    }
    assert_eq!(env.get("/ping", &[]).code(), 0);
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn unknown_swap_and_other_paths_answer_json() {
    let env = Env::new();
    let r = send(env.addr(), "GET", "/swap/v2/public/nothing", &[], "").unwrap();
    assert_eq!(r.status, 404);
    // Plain text without usage headers, as on the live venue (docs/protocol.md, "The live venue").
    assert!(r.header("content-type").unwrap().starts_with("text/plain"));
    assert!(r.header("ip-weight-minute-use").is_none());
    let r = send(env.addr(), "POST", "/swap/v2/public/time", &[], "").unwrap();
    assert_eq!(r.status, 405);
    assert_eq!(r.code(), 400002);
    let r = send(env.addr(), "GET", "/swap/v2/public/time", &[], "").unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.code(), 0);
    let r = send(env.addr(), "GET", "/elsewhere", &[], "").unwrap();
    assert_eq!(r.code(), 10009);
}
