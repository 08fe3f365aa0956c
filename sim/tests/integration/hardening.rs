//! The simulator probed as an attacker would: slow and silent connections, out-of-range control
//! values, broken bodies, late answers, public bind addresses, signature comparison.

use crate::common::*;
use digifinex_sim::{AccountType, FaultKind, FaultRule, Sim, SimConfig};
use serde_json::Value;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Short connection timeouts, so the tests see them act.
fn short_timeouts(max_connections: usize) -> SimConfig {
    SimConfig {
        header_read_timeout: Some(Duration::from_millis(300)),
        idle_timeout: Some(Duration::from_millis(600)),
        max_connections,
        ..SimConfig::default().without_flow()
    }
}

/// Reads until the server closes the connection; the time that took (reset counts as closed).
fn time_to_close(mut s: TcpStream, limit: Duration) -> Duration {
    let t = Instant::now();
    s.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return t.elapsed(),
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("the server kept the connection open for {:?}", t.elapsed())
            }
            Err(_) => return t.elapsed(),
        }
    }
}

// ---- 1. connection timeouts and cap ----

#[test]
fn slowloris_does_not_starve_a_normal_request() {
    // Every slot of the cap taken by a client that sends half a request line and stalls.
    let env = Env::with_config(short_timeouts(8));
    let stalled: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut s = TcpStream::connect(env.addr()).unwrap();
            s.write_all(b"GET /v3/pi").unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(50));
    let t = Instant::now();
    let r = env.get("/ping", &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    // The stalled connections were closed by the header timeout.
    for s in stalled {
        assert!(time_to_close(s, Duration::from_secs(5)) < Duration::from_secs(3));
    }
    // Many more slow clients than the default cap would need: the default server still
    // answers at once.
    let env = Env::new();
    let _stalled: Vec<TcpStream> = (0..50)
        .map(|_| {
            let mut s = TcpStream::connect(env.addr()).unwrap();
            s.write_all(b"POST /v3/spot/order/new HTTP/1.1\r\nHost: x\r\nContent-Le")
                .unwrap();
            s
        })
        .collect();
    let t = Instant::now();
    assert_eq!(env.get("/ping", &[]).code(), 0);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn a_silent_connection_is_closed_after_the_header_timeout() {
    let env = Env::with_config(short_timeouts(1024));
    let s = TcpStream::connect(env.addr()).unwrap();
    let took = time_to_close(s, Duration::from_secs(5));
    assert!(
        took >= Duration::from_millis(250) && took < Duration::from_secs(3),
        "{took:?}"
    );
    // A keep-alive connection idle between requests is closed the same way.
    let mut s = TcpStream::connect(env.addr()).unwrap();
    s.write_all(b"GET /v3/ping HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 512];
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let n = s.read(&mut buf).unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    assert!(time_to_close(s, Duration::from_secs(5)) < Duration::from_secs(3));
}

#[test]
fn a_stalled_body_is_closed_after_the_idle_timeout() {
    let env = Env::with_config(short_timeouts(1024));
    let mut s = TcpStream::connect(env.addr()).unwrap();
    s.write_all(
        b"POST /v3/spot/order/new HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nsymbol=b",
    )
    .unwrap();
    let took = time_to_close(s, Duration::from_secs(5));
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(3),
        "{took:?}"
    );
    // A fault delay longer than the idle timeout is not idle time: the answer comes.
    env.ctl
        .add_fault(FaultRule::route("GET", "/v3/ping", FaultKind::Latency { ms: 1000 }).times(1));
    assert_eq!(env.get("/ping", &[]).code(), 0);
}

// ---- 2. control values out of range ----

fn call(addr: SocketAddr, method: &str, path: &str, body: &str) -> Resp {
    // The control API reads JSON whatever the content type says: none sent here.
    send(addr, method, path, &[], body).unwrap()
}

fn refused(r: &Resp, field: &str) {
    assert_eq!(r.status, 400, "{}", r.text());
    let msg = r.json()["error"].as_str().unwrap_or_default().to_owned();
    assert!(msg.contains(field), "{msg}");
}

#[test]
fn clock_values_out_of_range_are_refused_whole() {
    let env = Env::new();
    let a = env.addr();
    let before = call(
        a,
        "POST",
        "/__sim/clock",
        r#"{"freeze_at_ms": 1800000000000}"#,
    )
    .json();
    assert_eq!(before["now_ms"], 1_800_000_000_000i64);
    let funding = call(a, "GET", "/__sim/swap/funding", "").json()["next_funding_time"]
        .as_i64()
        .unwrap();
    for (body, field) in [
        (format!(r#"{{"advance_ms": {}}}"#, i64::MAX), "advance_ms"),
        (format!(r#"{{"advance_ms": {}}}"#, i64::MIN), "advance_ms"),
        (format!(r#"{{"advance_ms": "{}"}}"#, i64::MAX), "advance_ms"),
        (format!(r#"{{"offset_ms": {}}}"#, i64::MAX), "offset_ms"),
        (format!(r#"{{"offset_ms": {}}}"#, i64::MIN), "offset_ms"),
        (
            format!(r#"{{"freeze_at_ms": {}}}"#, i64::MIN),
            "freeze_at_ms",
        ),
        (
            format!(r#"{{"freeze_at_ms": {}}}"#, i64::MAX),
            "freeze_at_ms",
        ),
        ("{\"freeze_at_ms\": -1}".to_owned(), "freeze_at_ms"),
        (
            "{\"advance_ms\": 99999999999999999999}".to_owned(),
            "advance_ms",
        ),
    ] {
        refused(&call(a, "POST", "/__sim/clock", &body), field);
        // Nothing changed: the clock is where it was, still frozen.
        let c = call(a, "GET", "/__sim/clock", "").json();
        assert_eq!(c["now_ms"], 1_800_000_000_000i64, "after {body}");
        assert_eq!(c["frozen"], true);
    }
    // The simulator still answers correctly: server time, funding schedule, signed requests.
    assert_eq!(
        env.get("/time", &[]).json()["server_time"],
        1_800_000_000i64
    );
    let f = call(a, "GET", "/__sim/swap/funding", "").json();
    assert_eq!(f["next_funding_time"].as_i64().unwrap(), funding);
    let adv = call(a, "POST", "/__sim/swap/funding/advance", "").json();
    assert_eq!(adv["funding_time"].as_i64().unwrap(), funding);
    assert_eq!(adv["now_ms"].as_i64().unwrap(), funding);
    let next = call(a, "GET", "/__sim/swap/funding", "").json()["next_funding_time"]
        .as_i64()
        .unwrap();
    assert!(next > funding && next <= funding + 8 * 3_600_000, "{next}");
    env.ctl
        .set_balance(env.account, AccountType::Spot, "USDT", dec("5"))
        .unwrap();
    let r = env.sget("/spot/assets", &[]);
    assert_eq!(r.code(), 0, "{}", r.text());
    let r = env.swsget("/account/balance", &[]);
    assert_eq!(r.json()["code"], 0, "{}", r.text());
    // The ends of the range are accepted.
    let r = call(
        a,
        "POST",
        "/__sim/clock",
        r#"{"freeze_at_ms": 253402300799999}"#,
    );
    assert_eq!(r.json()["now_ms"], 253_402_300_799_999i64, "{}", r.text());
    refused(
        &call(a, "POST", "/__sim/clock", r#"{"advance_ms": 1}"#),
        "advance_ms",
    );
    assert_eq!(call(a, "GET", "/v3/ping", "").status, 200);
    let r = call(
        a,
        "POST",
        "/__sim/clock",
        r#"{"freeze_at_ms": 1800000000000}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(env.sget("/spot/assets", &[]).code(), 0);
    assert_eq!(env.ctl.panics(), 0);
    // The Rust API clamps instead.
    env.ctl.advance_clock(i64::MAX);
    assert_eq!(env.ctl.now_ms(), 253_402_300_799_999);
    env.ctl.freeze_clock(Some(i64::MIN));
    assert_eq!(env.ctl.now_ms(), 0);
    assert!(env.ctl.try_advance_clock(-1).is_err());
    assert_eq!(env.ctl.now_ms(), 0);
}

#[test]
fn a_running_clock_refuses_out_of_range_too() {
    let env = Env::new();
    let a = env.addr();
    let r = call(a, "POST", "/__sim/clock", r#"{"offset_ms": 60000}"#);
    assert_eq!(r.json()["frozen"], false, "{}", r.text());
    refused(
        &call(
            a,
            "POST",
            "/__sim/clock",
            &format!(r#"{{"advance_ms": {}}}"#, i64::MAX),
        ),
        "advance_ms",
    );
    let c = call(a, "GET", "/__sim/clock", "").json();
    assert_eq!(c["offset_ms"], 60_000, "{c}");
    assert_eq!(c["frozen"], false);
    let now = c["now_ms"].as_i64().unwrap();
    let f = call(a, "GET", "/__sim/swap/funding", "").json()["next_funding_time"]
        .as_i64()
        .unwrap();
    assert!(f > now && f <= now + 8 * 3_600_000, "{f} {now}");
}

#[test]
fn credit_past_the_decimal_maximum_is_refused_whole() {
    let env = Env::new();
    let a = env.addr();
    let account = env.account;
    env.fund(AccountType::Spot, "USDT", "100");
    let body = format!(
        r#"{{"account": {account}, "account_type": "spot", "currency": "USDT", "amount": 79228162514264337593543950335}}"#
    );
    for _ in 0..2 {
        refused(&call(a, "POST", "/__sim/credit", &body), "amount");
    }
    let as_text = body.replace(
        "79228162514264337593543950335",
        "\"79228162514264337593543950335\"",
    );
    refused(&call(a, "POST", "/__sim/credit", &as_text), "amount");
    let neg = body.replace(
        "79228162514264337593543950335",
        "-79228162514264337593543950335",
    );
    refused(&call(a, "POST", "/__sim/credit", &neg), "amount");
    // Past the decimal range altogether: not a decimal.
    let huge = body.replace(
        "79228162514264337593543950335",
        "792281625142643375935439503350",
    );
    refused(&call(a, "POST", "/__sim/credit", &huge), "amount");
    // Below zero.
    let under = body.replace("79228162514264337593543950335", "-100.01");
    refused(&call(a, "POST", "/__sim/credit", &under), "amount");
    let set = format!(
        r#"{{"account": {account}, "account_type": "spot", "currency": "USDT", "free": "79228162514264337593543950335"}}"#
    );
    refused(&call(a, "POST", "/__sim/balances", &set), "free");
    let dep = format!(
        r#"{{"account": {account}, "currency": "USDT", "chain": "ERC20", "amount": "79228162514264337593543950335"}}"#
    );
    refused(&call(a, "POST", "/__sim/deposits", &dep), "amount");
    // Nothing changed, and the balance reads correctly over the API.
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("100"));
    let assets = env.sget("/spot/assets", &[]).json();
    let usdt = assets["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["currency"]
                .as_str()
                .is_some_and(|c| c.eq_ignore_ascii_case("usdt"))
        })
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(num(&usdt["free"]), dec("100"), "{assets}");
    // A sane credit still works, and an order on the balance too.
    let ok = body.replace("79228162514264337593543950335", "\"0.5\"");
    assert_eq!(call(a, "POST", "/__sim/credit", &ok).status, 200);
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("100.5"));
    let r = env.spost(
        "/spot/order/new",
        &[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "20000"),
            ("amount", "0.001"),
        ],
    );
    assert_eq!(r.code(), 0, "{}", r.text());
    assert_eq!(env.ctl.panics(), 0);
}

#[test]
fn swap_prices_are_set_all_or_nothing() {
    let env = Env::new();
    let a = env.addr();
    let mark = |env: &Env| {
        let t = env
            .swget("/public/ticker", &[("instrument_id", "BTCUSDTPERP")])
            .json();
        num(&t["data"]["mark_price"])
    };
    let before = mark(&env);
    let r = call(
        a,
        "POST",
        "/__sim/swap/prices",
        r#"{"instrument_id": "BTCUSDTPERP", "mark_price": "30000", "index_price": "79228162514264337593543950335"}"#,
    );
    refused(&r, "index_price");
    assert_eq!(mark(&env), before);
    let r = call(
        a,
        "POST",
        "/__sim/swap/prices",
        r#"{"instrument_id": "NOPE", "mark_price": "30000"}"#,
    );
    refused(&r, "NOPE");
    assert_eq!(mark(&env), before);
}

// ---- 3. unreadable bodies ----

#[test]
fn an_unreadable_body_is_400_and_only_an_oversized_one_413() {
    let env = Env::new();
    // Malformed chunked encoding (a chunk size that is not hex), spot and swap.
    for (path, code) in [
        ("/v3/spot/order/new", 10004),
        ("/swap/v2/trade/order_place", 400002),
    ] {
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nsymbol=btc_usdt\r\n0\r\n\r\n"
        );
        let r = parse(&raw(env.addr(), req.as_bytes()).unwrap()).unwrap();
        assert_eq!(r.status, 400, "{path}: {}", r.text());
        assert_eq!(r.code(), code);
    }
    // A client that closes its sending side before the whole body arrived.
    let mut s = TcpStream::connect(env.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"POST /v3/spot/order/new HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nsymbol=btc_usdt")
        .unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let r = parse(&out).unwrap();
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.code(), 10004);
    // Over the limit: 413, declared or chunked.
    let big = format!(
        "POST /v3/spot/order/new HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        2 << 20
    );
    let r = parse(&raw(env.addr(), big.as_bytes()).unwrap()).unwrap();
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.code(), 10004);
    let mut s = TcpStream::connect(env.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"POST /swap/v2/trade/order_place HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    let chunk = vec![b'a'; 64 * 1024];
    for _ in 0..20 {
        if s.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .is_err()
            || s.write_all(&chunk).is_err()
            || s.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let r = parse(&out).unwrap();
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.code(), 400002);
    assert_eq!(env.get("/ping", &[]).code(), 0);
}

// ---- 4. the late answer ----

#[test]
fn a_late_answer_follows_an_applied_order() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "1000");
    env.ctl.add_fault(
        FaultRule::route(
            "POST",
            "/v3/spot/order/new",
            FaultKind::LateAnswer { delay_ms: 1500 },
        )
        .times(2),
    );
    // The venue's spelling: no Content-Type on a spot POST.
    let order = |price: &str| {
        let body = encode(&[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", price),
            ("amount", "0.001"),
        ]);
        format!(
            "POST /v3/spot/order/new HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\nACCESS-KEY: {}\r\nACCESS-SIGN: {}\r\nACCESS-TIMESTAMP: {}\r\n\r\n{}",
            body.len(),
            env.key,
            hmac_hex(&env.secret, &body),
            env.now_s(),
            body
        )
    };
    // A client that gives up after 300 ms sees no answer...
    let mut s = TcpStream::connect(env.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    s.write_all(order("20000").as_bytes()).unwrap();
    let mut buf = [0u8; 256];
    let e = s.read(&mut buf).expect_err("no answer within 300 ms");
    assert!(
        matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{e}"
    );
    drop(s);
    // ...yet the order exists: it is among the open orders.
    let open = env
        .sget("/spot/order/current", &[("symbol", "btc_usdt")])
        .json();
    let rows = open["data"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 1, "{open}");
    assert_eq!(num(&rows[0]["price"]), dec("20000"));
    assert_eq!(env.ctl.open_order_count(env.account), 1);
    // A patient client gets the normal answer, late.
    let t = Instant::now();
    let r = parse(&raw(env.addr(), order("20001").as_bytes()).unwrap()).unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(r.code(), 0, "{}", r.text());
    let id = r.json()["order_id"].as_str().unwrap().to_owned();
    let open = env
        .sget("/spot/order/current", &[("symbol", "btc_usdt")])
        .json();
    assert!(open["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["order_id"] == id.as_str()));
    // The same rule over the control API, by its JSON name.
    let r = env.control(
        "POST",
        "/__sim/faults",
        r#"{"method": "GET", "path": "/v3/ping", "fault": {"kind": "late_answer", "delay_ms": 200}, "count": 1}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let t = Instant::now();
    assert_eq!(env.get("/ping", &[]).code(), 0);
    assert!(t.elapsed() >= Duration::from_millis(200));
    assert_eq!(env.ctl.panics(), 0);
}

// ---- 5. public bind addresses ----

#[test]
fn a_public_address_needs_public() {
    let config = SimConfig {
        addr: "0.0.0.0:0".parse().unwrap(),
        ..SimConfig::default().without_flow()
    };
    let e = Sim::start(config).expect_err("0.0.0.0 refused without allow_public_bind");
    assert!(e.to_string().contains("--public"), "{e}");

    let bin = env!("CARGO_BIN_EXE_digifinex-sim");
    let out = std::process::Command::new(bin)
        .args(["--addr", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--public") && err.contains("0.0.0.0:0"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no secret printed");
    let help = std::process::Command::new(bin)
        .arg("--help")
        .output()
        .unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--public"));
}

// ---- 6. signatures ----

#[test]
fn signatures_of_either_case_pass_and_a_changed_byte_fails() {
    let env = Env::new();
    let now = env.now_s();
    let query = "symbol=btc_usdt";
    let good = hmac_hex(&env.secret, query);
    let target = format!("/v3/spot/order/current?{query}");
    let with = |sign: String| {
        send(
            env.addr(),
            "GET",
            &target,
            &[
                ("ACCESS-KEY", env.key.clone()),
                ("ACCESS-SIGN", sign),
                ("ACCESS-TIMESTAMP", now.to_string()),
            ],
            "",
        )
        .unwrap()
        .code()
    };
    assert_eq!(with(good.clone()), 0);
    assert_eq!(with(good.to_ascii_uppercase()), 0);
    let mut last = good.clone();
    last.replace_range(63..64, if good.ends_with('0') { "1" } else { "0" });
    assert_eq!(with(last), 10003);
    assert_eq!(with(good[..62].to_owned()), 10003);
    assert_eq!(with(format!("{good}0")), 10003);
    // Swap.
    let ts = env.ctl.now_ms().to_string();
    let path = "/swap/v2/account/balance";
    let sign = env.swap_sign(&env.secret, &ts, "GET", path, "");
    let swap = |sign: String| {
        send(
            env.addr(),
            "GET",
            path,
            &[
                ("ACCESS-KEY", env.key.clone()),
                ("ACCESS-SIGN", sign),
                ("ACCESS-TIMESTAMP", ts.clone()),
            ],
            "",
        )
        .unwrap()
        .json()["code"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(swap(sign.to_ascii_uppercase()), 0);
    let mut first = sign.clone();
    first.replace_range(0..1, if sign.starts_with('0') { "1" } else { "0" });
    assert_eq!(swap(first), 400004);
}

// ---- 6. a fast clock and long jumps (bounded catch-up) ----

/// One `Connection: close` request whose answer must come within `guard` (a hang guard, not a
/// timing assertion); `Err` when it did not.
fn within(addr: SocketAddr, target: &str, guard: Duration) -> std::io::Result<Resp> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(guard))?;
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    parse(&out)
}

/// Best bid and ask of a spot order book answer (asks are listed highest first).
fn spot_top(book: &Value) -> (rust_decimal::Decimal, rust_decimal::Decimal) {
    let prices = |side: &str| -> Vec<rust_decimal::Decimal> {
        book[side]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| num(&l[0]))
            .collect()
    };
    let bid = prices("bids").into_iter().max().expect("a bid");
    let ask = prices("asks").into_iter().min().expect("an ask");
    (bid, ask)
}

/// The clock at 10,000 times real time over markets four times as busy as the default ones
/// (about 2.6 million flow events a wall second): every request answers, from a market that
/// moved with the clock and is not crossed. Before the catch-up was bounded, each request ran
/// every event since the last one under the lock and took seconds.
#[test]
fn a_fast_clock_over_busy_markets_answers_every_request() {
    let mut config = SimConfig {
        clock_speed: 10_000.into(),
        ..SimConfig::default()
    };
    for m in &mut config.markets {
        m.flow = m.flow.take().map(|f| f.scaled(4.into()));
    }
    for i in &mut config.swap_instruments {
        i.flow = i.flow.take().map(|f| f.scaled(4.into()));
    }
    let env = Env::with_config(config);
    let guard = Duration::from_secs(5);
    let time = |env: &Env| {
        let r = within(env.addr(), "/v3/time", guard).expect("the time answers");
        r.json()["server_time"].as_i64().unwrap()
    };
    let first = time(&env);
    for _ in 0..5 {
        std::thread::sleep(Duration::from_millis(200));
        let r = within(env.addr(), "/v3/order_book?symbol=btc_usdt&limit=20", guard)
            .expect("the book answers");
        assert_eq!(r.status, 200, "{}", r.text());
        let (bid, ask) = spot_top(&r.json());
        assert!(bid < ask, "crossed: {bid} / {ask}");
        let r = within(
            env.addr(),
            "/swap/v2/public/depth?instrument_id=BTCUSDTPERP&limit=20",
            guard,
        )
        .expect("the swap book answers");
        assert_eq!(r.json()["code"], 0, "{}", r.text());
    }
    // A second of wall time is 10,000 simulated seconds.
    let last = time(&env);
    assert!(last - first >= 10_000, "{first} -> {last}");
    assert_eq!(env.ctl.panics(), 0);
}

/// A 30-day jump through the HTTP control API on a frozen clock: the next request answers
/// from the new time, with the flow's last stretch before it run (bounded: at most twice a
/// step's 25,000 events, not the hour of about 230,000 the jump used to cost), the books sane
/// and the last trades just before the new time.
#[test]
fn a_month_long_jump_costs_a_bounded_stretch_of_flow() {
    let start = 1_800_000_000_000i64;
    let env = Env::with_config(SimConfig {
        start_time_ms: Some(start),
        ..SimConfig::default()
    });
    let before = env.ctl.flow_events();
    let month = 30 * 86_400_000i64;
    let r = env.control(
        "POST",
        "/__sim/clock",
        &format!(r#"{{"advance_ms": {month}}}"#),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["now_ms"], start + month);
    let guard = Duration::from_secs(5);
    let r = within(env.addr(), "/v3/time", guard).expect("the time answers");
    assert_eq!(r.json()["server_time"], (start + month) / 1000);
    let r = within(env.addr(), "/v3/order_book?symbol=btc_usdt&limit=20", guard)
        .expect("the book answers");
    let (bid, ask) = spot_top(&r.json());
    assert!(bid < ask, "crossed: {bid} / {ask}");
    let r =
        within(env.addr(), "/v3/trades?symbol=btc_usdt&limit=1", guard).expect("the trades answer");
    let last = r.json()["data"][0]["date"].as_i64().unwrap();
    let now_s = (start + month) / 1000;
    assert!(last > now_s - 3600 && last <= now_s, "{last} vs {now_s}");
    let ran = env.ctl.flow_events() - before;
    assert!(ran > 0 && ran <= 50_000, "{ran} flow events for the jump");
    // Funding settled with the time: the next settlement is after the new time.
    let next = env.ctl.next_funding_time();
    assert!(next > start + month, "{next}");
    assert_eq!(env.ctl.panics(), 0);
}

// ---- 7. silent connections at the connection cap ----

/// The cap (16 here) filled with silent connections, and more waiting: a real request still
/// answers well within the header timeout (10 s), again and again, because the oldest silent
/// connection gives way to each newcomer. Before, every real request waited for a silent one to
/// time out.
#[test]
fn silent_connections_at_the_cap_give_way_to_real_requests() {
    let env = Env::with_config(SimConfig {
        max_connections: 16,
        header_read_timeout: Some(Duration::from_secs(10)),
        ..SimConfig::default().without_flow()
    });
    let silent: Vec<TcpStream> = (0..24)
        .map(|_| TcpStream::connect(env.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    for _ in 0..3 {
        let r = within(env.addr(), "/v3/ping", Duration::from_secs(5))
            .expect("a real request answers before the header timeout");
        assert_eq!(r.status, 200);
        assert_eq!(r.json()["code"], 0);
    }
    // The oldest silent connections were the ones closed.
    let closed = |s: &TcpStream| {
        let mut s = s.try_clone().unwrap();
        s.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        !matches!(
            s.read(&mut [0u8; 16]).map_err(|e| e.kind()),
            Err(ErrorKind::WouldBlock | ErrorKind::TimedOut)
        )
    };
    assert!(
        closed(&silent[0]),
        "the oldest silent connection is still open"
    );
    assert!(
        !closed(&silent[23]),
        "the newest silent connection was closed"
    );
    assert_eq!(env.ctl.panics(), 0);
}
