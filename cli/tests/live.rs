//! End-to-end tests of the live commands (`call`, `sim`, `demo`) against the embedded simulator:
//! no network beyond loopback.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const KEY_VAR: &str = "DIGIFINEX_API_KEY";
const SECRET_VAR: &str = "DIGIFINEX_API_SECRET";

/// The binary with the credential variables cleared (the caller's shell may have them).
fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_digifinex"));
    c.args(args)
        .env_remove(KEY_VAR)
        .env_remove(SECRET_VAR)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn run(args: &[&str]) -> Output {
    command(args).output().expect("run digifinex")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn json_out(o: &Output) -> Value {
    assert_eq!(code(o), 0, "stderr: {}", stderr(o));
    serde_json::from_str(&stdout(o)).expect("stdout is JSON")
}

/// A decimal as the CLI prints it: a JSON string in plain notation.
fn assert_plain_decimal(v: &Value) {
    let s = v.as_str().unwrap_or_else(|| panic!("{v} is not a string"));
    let digits = s.strip_prefix('-').unwrap_or(s);
    assert!(
        !digits.is_empty()
            && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
            && digits.matches('.').count() <= 1,
        "{s:?} is not a plain decimal"
    );
}

/// Waits for `child` at most `limit`; kills it and fails when it takes longer.
fn wait_bounded(mut child: Child, limit: Duration) -> Output {
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let o = child.wait_with_output().expect("output");
            panic!(
                "still running after {limit:?}; stdout: {}",
                String::from_utf8_lossy(&o.stdout)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn call_public_spot_prints_exact_decimals() {
    let v = json_out(&run(&[
        "call",
        "--sim",
        "GET",
        "/v3/ticker",
        "symbol=btc_usdt",
    ]));
    let ticker = &v["ticker"][0];
    assert_eq!(ticker["symbol"], "btc_usdt", "{v}");
    for field in ["last", "buy", "sell", "high", "low", "vol"] {
        assert_plain_decimal(&ticker[field]);
    }
}

#[test]
fn call_signed_spot_uses_the_demo_account() {
    let v = json_out(&run(&["call", "--sim", "GET", "/v3/spot/assets"]));
    let list = v["list"].as_array().expect("list");
    let usdt = list
        .iter()
        .find(|a| a["currency"] == "USDT")
        .unwrap_or_else(|| panic!("no USDT in {v}"));
    assert_eq!(usdt["free"], "100000", "{v}");
}

#[test]
fn call_swap_public_and_signed() {
    let v = json_out(&run(&[
        "call",
        "--sim",
        "GET",
        "/swap/v2/public/depth",
        "instrument_id=BTCUSDTPERP",
        "limit=5",
    ]));
    assert_eq!(v["instrument_id"], "BTCUSDTPERP", "{v}");
    let bids = v["bids"].as_array().expect("bids");
    assert!(!bids.is_empty() && bids.len() <= 5, "{v}");
    assert_plain_decimal(&bids[0][0]);
    assert_plain_decimal(&bids[0][1]);

    let v = json_out(&run(&["call", "--sim", "GET", "/swap/v2/account/balance"]));
    assert_eq!(v[0]["currency"], "USDT", "{v}");
    assert_eq!(v[0]["equity"], "10000", "{v}");
}

#[test]
fn call_swap_json_body_places_an_order() {
    let v = json_out(&run(&[
        "call",
        "--sim",
        "POST",
        "/swap/v2/trade/order_place",
        "--json",
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"price":"29000","size":5}"#,
    ]));
    assert!(
        v["order_id"].as_str().is_some_and(|id| !id.is_empty()),
        "{v}"
    );
}

#[test]
fn table_for_an_order_book() {
    let o = run(&[
        "call",
        "--sim",
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limit=3",
        "--format",
        "table",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first().copied(), Some("SIDE  PRICE  AMOUNT"), "{out}");
    assert_eq!(lines.len(), 7, "{out}");
    assert!(lines[1].starts_with("ask "), "{out}");
    assert!(lines[6].starts_with("bid "), "{out}");
    let cols: Vec<&str> = lines[6].split_whitespace().collect();
    assert_eq!(cols.len(), 3, "{out}");
    assert_plain_decimal(&Value::String(cols[1].to_owned()));
}

#[test]
fn table_for_balances_spot_and_swap() {
    let o = run(&[
        "call",
        "--sim",
        "GET",
        "/v3/spot/assets",
        "--format",
        "table",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let header: Vec<&str> = out
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(header, ["CURRENCY", "FREE", "TOTAL"], "{out}");
    let usdt = out
        .lines()
        .find(|l| l.starts_with("USDT "))
        .unwrap_or_else(|| panic!("no USDT row: {out}"));
    assert_eq!(
        usdt.split_whitespace().collect::<Vec<_>>(),
        ["USDT", "100000", "100000"]
    );

    let o = run(&[
        "call",
        "--sim",
        "GET",
        "/swap/v2/account/balance",
        "--format",
        "table",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("CURRENCY  EQUITY  AVAILABLE"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("USDT ")), "{out}");
}

#[test]
fn table_without_a_layout_exits_2_before_sending() {
    let o = run(&["call", "--sim", "GET", "/v3/markets", "--format", "table"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--format json"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

#[test]
fn call_validation_error_exits_2_naming_the_field() {
    let o = run(&[
        "call",
        "--sim",
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limit=151",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("`limit`"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

#[test]
fn call_api_error_exits_1_with_the_code_on_one_line() {
    let o = run(&[
        "call",
        "--sim",
        "POST",
        "/v3/spot/order/new",
        "symbol=btc_usdt",
        "type=buy",
        "price=20000",
        "amount=100",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("20011"), "{err}");
    assert!(err.contains("insufficient balance"), "{err}");
    assert!(err.contains("InsufficientFunds"), "{err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn private_endpoint_without_credentials_exits_2_naming_the_variables() {
    // Unroutable on purpose: the command must stop before connecting.
    let o = run(&[
        "call",
        "GET",
        "/v3/spot/assets",
        "--base-url",
        "http://127.0.0.1:9/v3",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(KEY_VAR) && err.contains(SECRET_VAR), "{err}");

    // One variable alone is a usage error too.
    let o = command(&[
        "call",
        "GET",
        "/v3/ping",
        "--base-url",
        "http://127.0.0.1:9/v3",
    ])
    .env(KEY_VAR, "k")
    .output()
    .expect("run");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains(SECRET_VAR), "{}", stderr(&o));
}

#[test]
fn environment_credentials_win_and_the_secret_stays_hidden() {
    let secret = "NOT-THE-DEMO-SECRET-0123456789";
    let o = command(&["call", "--sim", "GET", "/v3/spot/assets"])
        .env(KEY_VAR, "unknown-key")
        .env(SECRET_VAR, secret)
        .output()
        .expect("run");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("Auth"), "{}", stderr(&o));
    assert!(!stderr(&o).contains(secret) && !stdout(&o).contains(secret));
}

#[test]
fn call_usage_errors_exit_2() {
    for args in [
        &["call", "--sim", "GET", "/v3/no_such_endpoint"][..],
        &[
            "call",
            "--sim",
            "--base-url",
            "http://127.0.0.1:9/v3",
            "GET",
            "/v3/ping",
        ],
        &["call", "--sim", "GET", "/v3/ping", "--format", "xml"],
        &["call", "--sim", "GET", "/v3/ping", "--timeout", "0"],
        &["call", "--sim", "GET", "/v3/ticker?symbol=btc_usdt"],
        &["call", "--sim", "GET", "/v3/ticker", "symbol"],
        &[
            "call",
            "GET",
            "/v3/ping",
            "--base-url",
            "http://example.com/v3",
        ],
    ] {
        let o = run(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty(), "{args:?}");
    }
}

#[test]
fn transport_error_exits_1() {
    // Port 9 (discard) on loopback: nothing listens in a test environment.
    let o = run(&[
        "call",
        "GET",
        "/v3/ping",
        "--base-url",
        "http://127.0.0.1:9/v3",
        "--timeout",
        "5",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("Network"), "{}", stderr(&o));
}

#[test]
fn demo_walks_through_every_step_quickly() {
    let child = command(&["demo"]).spawn().expect("spawn demo");
    let o = wait_bounded(child, Duration::from_secs(60));
    assert_eq!(
        code(&o),
        0,
        "stderr: {}\nstdout: {}",
        stderr(&o),
        stdout(&o)
    );
    let out = stdout(&o);
    for heading in [
        "server time and clock offset",
        "markets and a ticker",
        "order book (top 3 levels)",
        "spot balances before trading",
        "limit order: place, query, cancel",
        "market rules: an off-grid order rounded before sending",
        "order updates over the websocket",
        "unknown outcome reconciled (answer lost after the order was applied)",
        "market order filled",
        "account state tracked: each fill once, with its fee",
        "spot balances after trading",
        "transfer to margin",
        "swap leverage change",
        "swap position opened and closed",
        "copy-trading order with TP/SL",
    ] {
        assert!(out.contains(heading), "missing `{heading}`:\n{out}");
    }
    assert!(out.contains("cancelled"), "{out}");
    // The tracker reports the market order's fills with their trade ids and fees (in BTC, the
    // currency bought).
    let fill = out
        .lines()
        .find(|l| l.trim_start().starts_with("fill "))
        .unwrap_or_else(|| panic!("no fill line:\n{out}"));
    assert!(
        fill.contains("trade ") && fill.contains(" BTC at "),
        "{fill}"
    );
    assert!(
        fill.trim_end().ends_with(" BTC") && fill.contains("fee 0.0"),
        "{fill}"
    );
    // The websocket step sees the order open, then cancelled.
    assert!(
        out.contains("status NotExecuted  filled 0 of 0.01"),
        "{out}"
    );
    assert!(out.contains("status Cancelled  filled 0 of 0.01"), "{out}");
    assert!(
        out.contains("refused, nothing sent: `price` off the grid (venue code 20007)"),
        "{out}"
    );
    assert!(
        out.contains("ambiguous: 1 identical order(s) in the window, none provably this one"),
        "{out}"
    );
    assert!(out.contains("(every older order excluded)"), "{out}");
    assert!(out.contains("open positions left 0"), "{out}");
    // The spot ticker's change is a percent and says so.
    let ticker = out
        .lines()
        .find(|l| l.contains("24h change"))
        .unwrap_or_else(|| panic!("no ticker line:\n{out}"));
    assert!(ticker.trim_end().ends_with(" %"), "{ticker}");
    // The best levels are found by price, not by position.
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("best ")
            && l.contains(" ask ")
            && l.contains(" spread ")),
        "{out}"
    );
    assert!(
        out.lines().last().is_some_and(|l| l.starts_with("done")),
        "{out}"
    );
    // Short readable lines, no JSON walls.
    assert!(
        out.lines().all(|l| l.len() < 120 && !l.starts_with('{')),
        "{out}"
    );
}

/// A `digifinex sim` process, killed when dropped, with the fields it printed.
struct SimProcess {
    child: Child,
    fields: std::collections::HashMap<String, String>,
}

impl SimProcess {
    fn start(args: &[&str]) -> SimProcess {
        let mut child = command(args).spawn().expect("spawn sim");
        let out = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut fields = std::collections::HashMap::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !fields.contains_key("note") {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = rx.recv_timeout(left) else {
                let _ = child.kill();
                panic!("sim printed only {fields:?}");
            };
            if let Some((k, v)) = line.split_once(": ") {
                fields.insert(k.to_owned(), v.to_owned());
            }
        }
        SimProcess { child, fields }
    }

    fn get(&self, k: &str) -> String {
        self.fields.get(k).cloned().unwrap_or_default()
    }

    /// `digifinex call ... --base-url .. --swap-base-url ..` with the demo key pair.
    fn call(&self, args: &[&str]) -> Output {
        let spot = self.get("spot_base_url");
        let swap = self.get("swap_base_url");
        let mut all = vec!["call"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--base-url", &spot, "--swap-base-url", &swap]);
        command(&all)
            .env(KEY_VAR, self.get("demo_key"))
            .env(SECRET_VAR, self.get("demo_secret"))
            .output()
            .expect("run call")
    }

    /// POSTs a JSON body to a control route (`/__sim/...`) with a plain HTTP/1.1 exchange.
    fn control_post(&self, route: &str, body: &str) -> String {
        use std::io::{Read, Write};
        let control = self.get("control_url");
        let host = control
            .strip_prefix("http://")
            .and_then(|r| r.split('/').next())
            .expect("control host");
        let mut stream = std::net::TcpStream::connect(host).expect("connect control");
        write!(
            stream,
            "POST /__sim/{route} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("write control request");
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("read control answer");
        answer
    }
}

impl Drop for SimProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn sim_prints_urls_and_a_demo_key_then_serves() {
    let sim = SimProcess::start(&["sim", "--addr", "127.0.0.1:0", "--seed", "7"]);
    let spot = sim.get("spot_base_url");
    let swap = sim.get("swap_base_url");
    assert!(
        spot.starts_with("http://127.0.0.1:") && spot.ends_with("/v3"),
        "{:?}",
        sim.fields
    );
    assert!(swap.starts_with("http://127.0.0.1:"), "{:?}", sim.fields);
    assert!(
        sim.get("control_url").ends_with("/__sim"),
        "{:?}",
        sim.fields
    );
    assert!(
        sim.get("note").contains("local simulator"),
        "{:?}",
        sim.fields
    );

    // The printed key pair works against the printed URLs while the simulator serves.
    let v = json_out(&sim.call(&["GET", "/swap/v2/account/balance"]));
    assert_eq!(v[0]["currency"], "USDT", "{v}");
}

/// One running simulator is one exchange for every door: `digifinex stream` attaches to the
/// websocket URL `digifinex sim` printed and sees the order that `digifinex call` places over
/// REST on the same simulator.
#[test]
fn a_stream_attaches_to_a_running_simulator_and_sees_a_calls_order() {
    let sim = SimProcess::start(&["sim"]);
    let spot_ws = sim.get("spot_ws_url");
    assert_eq!(
        spot_ws,
        format!(
            "ws://{}/ws/v1/",
            sim.get("spot_base_url")
                .trim_start_matches("http://")
                .trim_end_matches("/v3")
        )
    );
    assert!(sim.get("swap_ws_url").ends_with("/swap_ws/v2/"));
    let mut child = command(&[
        "stream",
        "--spot-ws-url",
        &spot_ws,
        "--limit",
        "200",
        "spot:order:btc_usdt",
    ])
    .env(KEY_VAR, sim.get("demo_key"))
    .env(SECRET_VAR, sim.get("demo_secret"))
    .spawn()
    .expect("spawn stream");
    let out = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<serde_json::Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            let Ok(v) = serde_json::from_str(&line) else {
                break;
            };
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let wait = |pred: &dyn Fn(&serde_json::Value) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = rx.recv_timeout(left).expect("a stream line in time");
            if pred(&v) {
                return v;
            }
        }
    };
    wait(&|v| v["type"] == "subscribed");
    let placed = json_out(&sim.call(&[
        "POST",
        "/v3/spot/order/new",
        "symbol=btc_usdt",
        "type=buy",
        "price=10000",
        "amount=0.001",
    ]));
    let id = placed["order_id"].as_str().expect("an order id").to_owned();
    let seen = wait(&|v| v["type"] == "spot_orders");
    assert_eq!(seen["orders"][0]["id"], id.as_str(), "{seen}");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn unknown_outcome_is_reconciled_at_once() {
    let sim = SimProcess::start(&["sim"]);
    let answer = sim.control_post(
        "faults",
        r#"{"method":"POST","path":"/v3/spot/order/new","fault":{"kind":"drop_after_apply"},"count":1}"#,
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let o = sim.call(&[
        "POST",
        "/v3/spot/order/new",
        "symbol=btc_usdt",
        "type=buy",
        "price=20000",
        "amount=0.01",
    ]);
    // Reconciled at once: exit 1 (a transport error, as the CLI contract says), the verdict
    // (applied) on stdout, what to do on stderr.
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("outcome unknown"), "{err}");
    assert!(err.contains("do not send it again"), "{err}");
    let verdict: Value = serde_json::from_str(&stdout(&o)).expect("verdict JSON");
    assert_eq!(verdict["resolution"], "applied", "{verdict}");
    // The order was applied: it is open, and the CLI did not send it twice.
    let v = json_out(&sim.call(&["GET", "/v3/spot/order/current", "symbol=btc_usdt"]));
    assert_eq!(v["data"].as_array().map(Vec::len), Some(1), "{v}");
}

/// A loopback spot URL does not let a remote swap URL go out in plain http: each URL is
/// decided on its own, before anything is sent.
#[test]
fn plain_http_is_allowed_per_url_only_for_loopback_or_with_the_flag() {
    // A listener that counts connections: nothing may reach it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let remote = "http://example.invalid".to_owned();
    let spot = format!("http://{}/v3", listener.local_addr().unwrap());
    let o = run(&[
        "call",
        "GET",
        "/swap/v2/public/ticker",
        "instrument_id=BTCUSDTPERP",
        "--base-url",
        &spot,
        "--swap-base-url",
        &remote,
    ]);
    assert_eq!(code(&o), 2, "stderr: {}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&format!("--swap-base-url {remote}")), "{err}");
    assert!(err.contains("--allow-http"), "{err}");
    assert!(listener.accept().is_err(), "nothing was sent");
    // The same for the spot URL.
    let o = run(&[
        "call",
        "GET",
        "/v3/ping",
        "--base-url",
        "http://example.invalid/v3",
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--base-url http://example.invalid/v3"),
        "{}",
        stderr(&o)
    );
    // With the flag the URL is accepted (and then fails to resolve: a transport error, exit 1).
    let o = run(&[
        "call",
        "GET",
        "/v3/ping",
        "--base-url",
        "http://example.invalid/v3",
        "--allow-http",
        "--timeout",
        "5",
    ]);
    assert_eq!(code(&o), 1, "stderr: {}", stderr(&o));
}

/// Issue 15: `call` takes the key pair as flags too, after the positional arguments (no
/// "to pass '--key' as a value" from the argument parser); the flags win over the variables.
#[test]
fn call_takes_key_and_secret_flags_anywhere() {
    let secret = "FLAG-SECRET-0123456789";
    // An unknown key reaches the simulator: the flags were read and used.
    let o = command(&[
        "call",
        "--sim",
        "GET",
        "/v3/spot/assets",
        "--key",
        "k",
        "--secret",
        secret,
    ])
    .env(KEY_VAR, "other")
    .env(SECRET_VAR, "other-secret")
    .output()
    .expect("run");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "error: spot API error 10002: invalid API key [HTTP 200] (kind: Auth); check the key \
         pair (--key and --secret, or DIGIFINEX_API_KEY and DIGIFINEX_API_SECRET), its \
         permissions and its IP whitelist\n"
    );
    assert!(!stderr(&o).contains(secret) && !stdout(&o).contains(secret));
    // Before the positional arguments too; one without the other is a usage error.
    let o = run(&[
        "call", "--key", "k", "--secret", "s", "--sim", "GET", "/v3/ping",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run(&["call", "--sim", "GET", "/v3/ping", "--key", "k"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!stderr(&o).contains("as a value"), "{}", stderr(&o));
}

/// Issue 15: the errors name this tool's flags and variables, never a library method.
#[test]
fn errors_name_flags_and_variables() {
    let o = run(&[
        "call",
        "GET",
        "/v3/spot/assets",
        "--base-url",
        "http://127.0.0.1:9/v3",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "error: `GET /v3/spot/assets` is a private endpoint and needs an API key: pass --key and \
         --secret, or set DIGIFINEX_API_KEY and DIGIFINEX_API_SECRET (or try it with --sim)\n"
    );
    for (flag, url) in [
        ("--base-url", "ftp://x/v3"),
        ("--swap-base-url", "openapi.digifinex.com"),
    ] {
        let o = run(&["call", "GET", "/v3/ping", flag, url]);
        assert_eq!(code(&o), 2);
        assert_eq!(
            stderr(&o),
            format!(
                "error: {flag} {url} is not an http(s) URL: give one like \
                 https://openapi.digifinex.com\n"
            )
        );
    }
    let o = run(&[
        "call",
        "GET",
        "/v3/ping",
        "--base-url",
        "http://example.invalid/v3",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--allow-http"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("allow_http("), "{}", stderr(&o));
}

/// Issue 15: a spot cancel whose ids failed prints the answer, then exits 1 naming them.
#[test]
fn a_spot_cancel_that_cancelled_nothing_exits_1_naming_the_ids() {
    let o = run(&[
        "call",
        "--sim",
        "POST",
        "/v3/spot/order/cancel",
        "order_id=abc,def",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("the answer is printed");
    assert_eq!(v["error"], serde_json::json!(["abc", "def"]));
    assert_eq!(
        stderr(&o),
        "error: not cancelled: abc, def (2 of 2 orders); they may be finished already or not \
         exist; `digifinex call GET /v3/spot/order order_id=abc,def` shows them\n"
    );
}

/// A cancel of one open order and one unknown id: the open one is cancelled, the unknown one
/// named, exit 1; cancelling an open order alone exits 0.
#[test]
fn a_partial_spot_cancel_names_only_the_failed_id() {
    let sim = SimProcess::start(&["sim"]);
    let place = |price: &str| {
        let v = json_out(&sim.call(&[
            "POST",
            "/v3/spot/order/new",
            "symbol=btc_usdt",
            "type=buy",
            &format!("price={price}"),
            "amount=0.01",
        ]));
        v["order_id"].as_str().expect("order id").to_owned()
    };
    let id = place("20000");
    let o = sim.call(&[
        "POST",
        "/v3/spot/order/cancel",
        &format!("order_id={id},nope"),
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "error: not cancelled: nope (1 of 2 orders); they may be finished already or not exist; \
         `digifinex call GET /v3/spot/order order_id=nope` shows them\n"
    );
    let id = place("20001");
    let o = sim.call(&["POST", "/v3/spot/order/cancel", &format!("order_id={id}")]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

/// A swap batch cancel answers the ids it cancelled: the others are named, exit 1.
#[test]
fn a_swap_batch_cancel_names_the_orders_it_did_not_cancel() {
    let sim = SimProcess::start(&["sim"]);
    let v = json_out(&sim.call(&[
        "POST",
        "/swap/v2/trade/order_place",
        "--json",
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"price":"20000","size":1}"#,
    ]));
    let id = v["order_id"].as_str().expect("order id").to_owned();
    let body = format!(
        r#"[{{"instrument_id":"BTCUSDTPERP","order_id":"{id}"}},{{"instrument_id":"BTCUSDTPERP","order_id":"123"}}]"#
    );
    let o = sim.call(&["POST", "/swap/v2/trade/batch_cancel_order", "--json", &body]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("the answer is printed");
    assert_eq!(v, serde_json::json!([id]));
    assert_eq!(
        stderr(&o),
        "error: not cancelled: 123 (1 of 2 orders); they may be finished already or not exist; \
         `digifinex call GET /swap/v2/trade/order_info order_id=123` shows one\n"
    );
}

/// Issue 15: `digifinex sim` takes every option of `digifinex-sim` (one definition).
#[test]
fn sim_takes_the_simulators_options() {
    let sim = SimProcess::start(&["sim", "--no-limits", "--seed=3", "--addr", "127.0.0.1:0"]);
    let v = json_out(&sim.call(&["GET", "/swap/v2/account/balance"]));
    assert_eq!(v[0]["currency"], "USDT", "{v}");

    let o = run(&["sim", "--help"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let help = stdout(&o);
    for option in ["--addr ADDR", "--public", "--seed N", "--no-limits"] {
        assert!(help.contains(option), "{help}");
    }
    assert!(help.contains("`digifinex-sim`"), "{help}");
    let o = run(&["sim", "--limits"]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "error: unknown argument \"--limits\" (see `digifinex sim --help`)\n"
    );
}
