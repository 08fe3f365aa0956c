//! End-to-end tests of the `digifinex` binary: its output and exit codes are a contract.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

const SECRET: &str = "SUPERSECRETVALUE";

fn run(args: &[&str]) -> Output {
    run_with_stdin(args, b"")
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn digifinex");
    // The binary may exit (usage error) before reading stdin: a closed pipe is not a failure.
    if let Err(e) = child.stdin.take().expect("stdin").write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    child.wait_with_output().expect("wait")
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

fn endpoint_lines() -> Vec<String> {
    let o = run(&["endpoints"]);
    assert_eq!(code(&o), 0, "stderr: {}", stderr(&o));
    stdout(&o).lines().map(str::to_owned).collect()
}

fn hmac_hex(secret: &str, text: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("hmac key");
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// A signed GET the catalog has, with parameters that pass validation: the order list when it
/// exists, else the spot balances.
fn signed_get() -> Vec<&'static str> {
    let lines = endpoint_lines();
    let has = |l: &str| lines.iter().any(|x| x == l);
    if has("GET /v3/{market}/order/current") || has("GET /v3/spot/order/current") {
        vec!["GET", "/v3/spot/order/current", "symbol=btc_usdt"]
    } else {
        assert!(
            has("GET /v3/spot/assets"),
            "no signed endpoint in {lines:?}"
        );
        vec!["GET", "/v3/spot/assets"]
    }
}

/// The spot v3 signed text: query, body, or `query&body`.
fn signed_text(request: &Value) -> String {
    let url = request["url"].as_str().expect("url");
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let body = request["body"].as_str().unwrap_or("");
    match (query.is_empty(), body.is_empty()) {
        (false, false) => format!("{query}&{body}"),
        (true, _) => body.to_owned(),
        (false, true) => query.to_owned(),
    }
}

#[test]
fn endpoints_lists_unique_method_path_lines() {
    let lines = endpoint_lines();
    assert!(lines.iter().any(|l| l == "GET /v3/ping"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "GET /v3/order_book"), "{lines:?}");
    for l in &lines {
        let (method, path) = l.split_once(' ').expect("METHOD PATH");
        assert!(method == "GET" || method == "POST", "{l}");
        assert!(path.starts_with('/') && path.len() > 1, "{l}");
        assert!(!path.chars().any(char::is_whitespace), "{l}");
    }
    let mut unique = lines.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), lines.len(), "duplicate lines in {lines:?}");
}

#[test]
fn request_public_get() {
    let o = run(&[
        "request",
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limit=5",
    ]);
    assert_eq!(
        json_out(&o),
        json!({
            "method": "GET",
            "url": "https://openapi.digifinex.com/v3/order_book?symbol=btc_usdt&limit=5",
            "headers": {},
            "body": null
        })
    );
    assert_eq!(stdout(&o).lines().count(), 1);
}

#[test]
fn request_honours_base_url_and_lowercase_method() {
    let o = run(&[
        "request",
        "get",
        "/v3/order_book/",
        "symbol=btc_usdt",
        "--base-url",
        "http://127.0.0.1:8080/v3/",
    ]);
    assert_eq!(
        json_out(&o)["url"],
        "http://127.0.0.1:8080/v3/order_book?symbol=btc_usdt"
    );
}

#[test]
fn json_members_are_parameters() {
    let o = run(&[
        "request",
        "GET",
        "/v3/order_book",
        "--json",
        r#"{"symbol":"btc_usdt","limit":7}"#,
    ]);
    assert_eq!(
        json_out(&o)["url"],
        "https://openapi.digifinex.com/v3/order_book?symbol=btc_usdt&limit=7"
    );
}

#[test]
fn validation_error_exits_2_naming_the_field() {
    let o = run(&[
        "request",
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limit=151",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("limit"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

/// Issue 12: `end_time - start_time` overflowed in the kline range check (a panic, exit 101, in
/// a debug build; a wrapped count that skipped the 500-candle check in release).
#[test]
fn extreme_kline_range_exits_2_naming_the_field() {
    let o = run(&[
        "request",
        "GET",
        "/v3/kline",
        "symbol=btc_usdt",
        "period=1",
        "start_time=-1",
        "end_time=9223372036854775807",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("start_time"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

/// Issue 12: extreme build times and receive windows give a request or a usage error, never a
/// panic.
#[test]
fn extreme_time_and_receive_window_never_panic() {
    for time in ["-9223372036854775808", "-1", "0", "9223372036854775807"] {
        for window in ["0", "18446744073709551615"] {
            let mut args = vec!["request"];
            args.extend(signed_get());
            args.extend(["--key", "k", "--secret", SECRET, "--time-ms", time]);
            args.extend(["--recv-window", window]);
            let o = run(&args);
            assert!(
                [0, 2].contains(&code(&o)),
                "--time-ms {time} --recv-window {window}: {}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn unknown_parameter_exits_2() {
    let o = run(&[
        "request",
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limt=5",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("limt"), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["request", "GET", "/v3/no_such_endpoint"][..],
        &["decode", "GET", "/v3/no_such_endpoint"],
        &["request", "POST", "/v3/order_book", "symbol=btc_usdt"],
        &["request", "GET", "/v3/order_book", "symbol"],
        &["request", "GET", "/v3/order_book", "=btc_usdt"],
        &[
            "request",
            "GET",
            "/v3/order_book",
            "symbol=a_b",
            "symbol=c_d",
        ],
        &["request", "GET", "/v3/order_book?symbol=btc_usdt"],
        &["request", "GET", "/v3/order_book", "--json", "[1]"],
        &["no-such-command"],
        &[],
    ] {
        let o = run(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty(), "{args:?}");
    }
}

#[test]
fn value_may_contain_equals() {
    // Split at the first `=`: the symbol keeps its `=` and fails validation by name.
    let o = run(&["request", "GET", "/v3/order_book", "symbol=a=b"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("symbol") && err.contains("a=b"), "{err}");
}

#[test]
fn signed_request_headers_and_signature() {
    let mut args = vec!["request"];
    args.extend(signed_get());
    args.extend([
        "--key",
        "k",
        "--secret",
        SECRET,
        "--time-ms",
        "1700000000000",
    ]);
    let o = run(&args);
    let req = json_out(&o);
    assert_eq!(req["method"], "GET");
    let headers = req["headers"].as_object().expect("headers");
    assert_eq!(headers["access-key"], "k");
    assert_eq!(headers["access-timestamp"], "1700000000");
    assert!(!headers.contains_key("access-recv-window"));
    assert_eq!(
        headers["access-sign"].as_str().expect("sign"),
        hmac_hex(SECRET, &signed_text(&req))
    );
    assert!(!stdout(&o).contains(SECRET));
    assert!(!stderr(&o).contains(SECRET));
}

#[test]
fn recv_window_header_on_signed_requests() {
    let mut args = vec!["request"];
    args.extend(signed_get());
    args.extend([
        "--key",
        "k",
        "--secret",
        SECRET,
        "--time-ms",
        "1700000000000",
    ]);
    args.extend(["--recv-window", "5000"]);
    let req = json_out(&run(&args));
    assert_eq!(req["headers"]["access-recv-window"], "5000");
    // A public request carries no authentication headers at all.
    let o = run(&[
        "request",
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "--key",
        "k",
        "--secret",
        SECRET,
        "--recv-window",
        "5000",
    ]);
    assert_eq!(json_out(&o)["headers"], json!({}));
}

#[test]
fn private_endpoint_without_key_exits_2() {
    let mut args = vec!["request"];
    args.extend(signed_get());
    let o = run(&args);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        format!(
            "error: `{} {}` is a private endpoint and needs an API key: pass --key and --secret\n",
            args[1], args[2]
        )
    );
}

#[test]
fn key_and_secret_go_together_and_the_secret_stays_hidden() {
    for args in [
        &["request", "GET", "/v3/ping", "--secret", SECRET][..],
        &["request", "GET", "/v3/ping", "--key", "k"],
        &[
            "request", "GET", "/v3/ping", "--secret", SECRET, "--secret", SECRET, "--key", "k",
        ],
        &["request", "GET", "/v3/ping", "--secret", SECRET, "oops"],
    ] {
        let o = run(args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(!stdout(&o).contains(SECRET), "{args:?}");
        assert!(!stderr(&o).contains(SECRET), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn decode_prints_exact_decimals() {
    let body = br#"{"bids":[[1e-07,"2.50"]],"asks":[],"date":1700000000,"code":0}"#;
    let o = run_with_stdin(&["decode", "GET", "/v3/order_book"], body);
    let v = json_out(&o);
    assert_eq!(v["bids"], json!([["0.0000001", "2.50"]]));
    assert_eq!(v["asks"], json!([]));
}

#[test]
fn decode_api_error_exits_1_with_the_code() {
    let o = run_with_stdin(&["decode", "GET", "/v3/order_book"], br#"{"code":10003}"#);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("10003"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

#[test]
fn decode_error_exits_1_naming_the_path() {
    let o = run_with_stdin(
        &["decode", "GET", "/v3/order_book"],
        br#"{"code":0,"bids":[["x",1]],"asks":[]}"#,
    );
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains("bids[0]"), "{err}");
    assert!(err.contains("OrderBook"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn decode_uses_the_status() {
    let o = run_with_stdin(
        &["decode", "GET", "/v3/ping", "--status", "502"],
        b"<html>bad gateway</html>",
    );
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("502"), "{}", stderr(&o));
    let o = run_with_stdin(&["decode", "GET", "/v3/ping", "--status", "99"], b"{}");
    assert_eq!(code(&o), 2);
}

#[test]
fn path_variables_come_from_the_path() {
    assert!(endpoint_lines()
        .iter()
        .any(|l| l == "GET /v3/{market}/order/current"));
    let o = run(&[
        "request",
        "GET",
        "/v3/margin/order/current",
        "symbol=btc_usdt",
        "--key",
        "k",
        "--secret",
        SECRET,
        "--time-ms",
        "1700000000000",
    ]);
    let req = json_out(&o);
    // The `{market}` path segment is also sent as the first (signed) parameter.
    assert_eq!(
        req["url"],
        "https://openapi.digifinex.com/v3/margin/order/current?market=margin&symbol=btc_usdt"
    );
    assert_eq!(
        req["headers"]["access-sign"].as_str().expect("sign"),
        hmac_hex(SECRET, "market=margin&symbol=btc_usdt")
    );
    // A path variable cannot be overridden by a parameter.
    let o = run(&[
        "request",
        "GET",
        "/v3/margin/order/current",
        "market=spot",
        "--key",
        "k",
        "--secret",
        SECRET,
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("market"), "{}", stderr(&o));
}

#[test]
fn signed_post_signs_the_form_body() {
    assert!(endpoint_lines()
        .iter()
        .any(|l| l == "POST /v3/{market}/order/new"));
    let common = [
        "request",
        "POST",
        "/v3/spot/order/new",
        "--key",
        "k",
        "--secret",
        SECRET,
        "--time-ms",
        "1700000000000",
    ];
    let mut kv = common.to_vec();
    kv.extend(["symbol=btc_usdt", "price=30000", "amount=0.01", "type=buy"]);
    let mut js = common.to_vec();
    js.extend([
        "--json",
        r#"{"symbol":"btc_usdt","price":30000,"amount":0.01,"type":"buy"}"#,
    ]);
    for args in [kv, js] {
        let req = json_out(&run(&args));
        let body = "market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy";
        assert_eq!(req["method"], "POST");
        assert_eq!(
            req["url"],
            "https://openapi.digifinex.com/v3/spot/order/new"
        );
        assert_eq!(req["body"], body);
        let headers = req["headers"].as_object().expect("headers");
        assert_eq!(headers["content-type"], "application/x-www-form-urlencoded");
        assert_eq!(
            headers["access-sign"].as_str().expect("sign"),
            hmac_hex(SECRET, body)
        );
    }
}

#[test]
fn swap_signed_get_matches_the_documented_prehash() {
    // Independently computed: HMAC-SHA256("s",
    // "1657522488402GET/swap/v2/account/positions?instrument_id=BTCUSDTPERP").
    let o = run(&[
        "request",
        "GET",
        "/swap/v2/account/positions",
        "instrument_id=BTCUSDTPERP",
        "--key",
        "k",
        "--secret",
        "s",
        "--time-ms",
        "1657522488402",
    ]);
    let req = json_out(&o);
    assert_eq!(
        req["url"],
        "https://openapi.digifinex.com/swap/v2/account/positions?instrument_id=BTCUSDTPERP"
    );
    assert_eq!(req["headers"]["access-timestamp"], "1657522488402");
    assert_eq!(
        req["headers"]["access-sign"],
        "da509ca4ad267ad3deff6cbb08c51c94ea666f482b76d0f97d98b650d8c3985e"
    );
}

#[test]
fn swap_batch_body_is_the_json_array_signed_verbatim() {
    let body = r#"[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"20000.5"},{"instrument_id":"BTCUSDTPERP","type":2,"order_type":1,"size":2}]"#;
    let o = run(&[
        "request",
        "POST",
        "/swap/v2/trade/batch_order",
        "--json",
        body,
        "--key",
        "k",
        "--secret",
        "s",
        "--time-ms",
        "1657522488402",
    ]);
    let req = json_out(&o);
    assert_eq!(req["body"], body);
    assert_eq!(req["headers"]["content-type"], "application/json");
    // Independently computed: HMAC-SHA256("s", "1657522488402POST/swap/v2/trade/batch_order" + body).
    assert_eq!(
        req["headers"]["access-sign"],
        "76a39a9ccf5133da57e12add4b23d049243f9d37589fb5f96979efa8e18b9d4b"
    );
    // A price on a market-style order type is refused, naming the element's field.
    let o = run(&[
        "request",
        "POST",
        "/swap/v2/trade/batch_order",
        "--json",
        r#"[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":1,"size":1,"price":"1"}]"#,
        "--key",
        "k",
        "--secret",
        "s",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("[0].price"), "{}", stderr(&o));
}

#[test]
fn swap_decode_reads_the_data_envelope() {
    let o = run_with_stdin(
        &["decode", "GET", "/swap/v2/public/depth"],
        br#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","timestamp":1,"asks":[["1.5",2e-3]],"bids":[]}}"#,
    );
    let v = json_out(&o);
    assert_eq!(v["asks"][0][0], "1.5");
    assert_eq!(v["asks"][0][1], "0.002");
    let o = run_with_stdin(
        &["decode", "POST", "/swap/v2/trade/order_place"],
        br#"{"code":401003}"#,
    );
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("401003"), "{}", stderr(&o));
}

#[test]
fn decode_names_unreadable_optional_values_and_still_succeeds() {
    let body = br#"{"code":0,"date":1700000000,"ticker":[
        {"symbol":"btc_usdt","last":"abc","buy":"29990","sell":"30010","vol":"12.5","change":"-1.91"},
        {"symbol":"eth_usdt","last":"2000.5","buy":"2000","sell":"2001","vol":"3","change":"0.5"}
    ]}"#;
    let o = run_with_stdin(&["decode", "GET", "/v3/ticker"], body);
    let v = json_out(&o);
    let rows = v["ticker"].as_array().expect("ticker rows");
    assert_eq!(rows.len(), 2, "{v}");
    assert_eq!(rows[0]["symbol"], "btc_usdt");
    assert_eq!(rows[0]["last"], Value::Null, "{v}");
    assert_eq!(rows[0]["buy"], "29990");
    assert_eq!(rows[1]["last"], "2000.5");
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].starts_with("warning: unreadable value at ticker[0].last: "),
        "{err}"
    );
    assert!(lines[0].ends_with(" (taken as absent)"), "{err}");
    // A clean answer says nothing on stderr.
    let clean = br#"{"code":0,"ticker":[{"symbol":"btc_usdt","last":"1"}]}"#;
    let o = run_with_stdin(&["decode", "GET", "/v3/ticker"], clean);
    assert_eq!(json_out(&o)["ticker"][0]["last"], "1");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn market_parameter_must_match_the_path_variable() {
    let args = |market: &'static str| {
        vec![
            "request",
            "POST",
            "/v3/margin/order/new",
            market,
            "symbol=btc_usdt",
            "type=buy",
            "price=1",
            "amount=1",
            "--key",
            "k",
            "--secret",
            "s",
            "--time-ms",
            "1700000000000",
        ]
    };
    let o = run(&args("market=spot"));
    assert_eq!(code(&o), 2, "stdout: {}", stdout(&o));
    assert!(stderr(&o).contains("market"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));

    let req = json_out(&run(&args("market=margin")));
    assert_eq!(
        req["url"],
        "https://openapi.digifinex.com/v3/margin/order/new"
    );
    let body = req["body"].as_str().expect("form body");
    assert!(body.starts_with("market=margin&"), "{body}");
    assert_eq!(
        req["headers"]["access-sign"].as_str().expect("sign"),
        hmac_hex("s", body)
    );
}

/// Issue 15: `describe` prints every parameter from the declarations: type, required or not,
/// allowed values, range, default, meaning, and a sample call. A spot endpoint with allowed
/// values (and a path variable).
#[test]
fn describe_a_spot_endpoint_with_allowed_values() {
    let o = run(&["describe", "POST", "/v3/spot/order/new"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "\
POST /v3/{market}/order/new
  spot v3; a write: never retried automatically
  signed: needs an API key, --key and --secret or DIGIFINEX_API_KEY and DIGIFINEX_API_SECRET
  request type:  digifinex_core::spot::order::PlaceOrderRequest
  response type: digifinex_core::spot::order::PlacedOrder
  parameters (form body, in this order):
    market     word; required, given by the path; one of: spot, margin
               Spot or margin: the path segment, also sent first as `market`.
    symbol     string; required; a pair base_quote
               The pair (`btc_usdt`).
    price      price (decimal); required when type buy or sell; > 0; refused for buy_market and sell_market
               The limit price (buy and sell orders only).
    amount     amount (decimal); required; > 0
               The amount: quote currency for buy_market, base currency otherwise.
    type       word; required; one of: buy, sell, buy_market, sell_market
               The order type.
    post_only  flag (1 or 0, true or false); optional; refused for buy_market and sell_market; default 0
               Maker only (buy and sell orders only).
  example (add --sim to try it against a local simulator):
    digifinex call POST /v3/spot/order/new symbol=btc_usdt price=1 amount=5 type=buy
"
    );
    // The path variable given is the one of the sample; the template names the endpoint too.
    let o = run(&["describe", "post", "/v3/margin/order/new"]);
    assert!(
        stdout(&o).ends_with(
            "    digifinex call POST /v3/margin/order/new symbol=btc_usdt price=1 amount=5 type=buy\n"
        ),
        "{}",
        stdout(&o)
    );
    let o = run(&["describe", "POST", "/v3/{market}/order/new"]);
    assert!(stdout(&o).starts_with("POST /v3/{market}/order/new\n"));
}

/// A swap endpoint with a range and the venue's default.
#[test]
fn describe_a_swap_endpoint_with_a_range_and_a_default() {
    let o = run(&["describe", "GET", "/swap/v2/public/depth"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "\
GET /swap/v2/public/depth
  swap v2; a read: retried after a network or server failure; weight 2
  public: no API key
  request type:  digifinex_core::swap::public::DepthRequest
  response type: digifinex_core::swap::public::Depth
  parameters (query string, in this order):
    instrument_id  string; required; an instrument id: upper-case letters and digits ending in PERP
                   The instrument (`BTCUSDTPERP`).
    limit          integer; optional; 1..=100; default 20
                   Levels per side, 1..=100.
  example (add --sim to try it against a local simulator):
    digifinex call GET /swap/v2/public/depth instrument_id=BTCUSDTPERP
"
    );
}

/// A copy-trading endpoint (a POST that only reads, with page defaults and a coded `type`).
#[test]
fn describe_a_copy_trading_endpoint() {
    let o = run(&["describe", "POST", "/swap/v2/follow/user_center_current"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "\
POST /swap/v2/follow/user_center_current
  swap v2; a read: retried after a network or server failure
  signed: needs an API key, --key and --secret or DIGIFINEX_API_KEY and DIGIFINEX_API_SECRET
  request type:  digifinex_core::swap::copy::CopyCurrentRequest
  response type: digifinex_core::swap::copy::CopyPositions
  parameters (JSON body members, given as KEY=VALUE or with --json):
    page           integer; optional; >= 1; default 1
                   Page number, from 1.
    size           integer; optional; >= 1; default 10
                   Entries per page, from 1.
    instrument_id  string; optional; an instrument id: upper-case letters and digits ending in PERP
                   Only `instrument_id`.
    type           code; required; one of: 1 detailed, 2 summary
                   1 detailed or 2 summary (wire `type`).
  example (add --sim to try it against a local simulator):
    digifinex call POST /swap/v2/follow/user_center_current type=1
"
    );
}

/// Every endpoint `endpoints` lists is describable, and `endpoints --verbose` is every
/// description (types included), in the same order.
#[test]
fn every_endpoint_is_describable_and_verbose_endpoints_describes_them_all() {
    let lines = endpoint_lines();
    assert_eq!(lines.len(), 72);
    let mut all = Vec::new();
    for line in &lines {
        let (method, path) = line.split_once(' ').expect("METHOD PATH");
        let o = run(&["describe", method, path]);
        assert_eq!(code(&o), 0, "{line}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(text.starts_with(&format!("{line}\n")), "{text}");
        assert!(
            text.contains("\n  request type:  digifinex_core::"),
            "{text}"
        );
        assert!(text.contains("\n  response type: "), "{text}");
        assert!(!text.contains("alloc::"), "{text}");
        assert!(
            text.contains(&format!("\n    digifinex call {method} ")),
            "{text}"
        );
        assert!(
            !text.contains("; value;") && !text.contains("  value;"),
            "{text}"
        );
        all.push(text);
    }
    let o = run(&["endpoints", "--verbose"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), all.join("\n"));
    // The plain list is unchanged: one `METHOD PATH` per line.
    assert!(lines.iter().all(|l| l.split(' ').count() == 2));
}

#[test]
fn describe_an_unknown_endpoint_exits_2() {
    let o = run(&["describe", "GET", "/v3/nope"]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "error: unknown endpoint `GET /v3/nope` (see `digifinex endpoints`)\n"
    );
}

/// Issue 15: an unknown parameter is named with the endpoint's parameters (and the closest for
/// a typo); a missing one reads naturally; both point at `describe`.
#[test]
fn parameter_errors_list_the_parameters_and_point_at_describe() {
    let o = run(&[
        "request",
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limt=5",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "error: unknown parameter `limt`: did you mean `limit`? (this endpoint takes: symbol, \
         limit); see `digifinex describe GET /v3/order_book`\n"
    );
    let o = run(&["request", "GET", "/v3/order_book"]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "error: missing required parameter `symbol`; see `digifinex describe GET \
         /v3/order_book`\n"
    );
    let o = run(&["request", "GET", "/v3/time", "symbol=btc_usdt"]);
    assert_eq!(
        stderr(&o),
        "error: unknown parameter `symbol`: this endpoint takes no parameters; see `digifinex \
         describe GET /v3/time`\n"
    );
}

/// Issue 15: swap instrument typos are refused before sending, with a hint.
#[test]
fn swap_instrument_typos_are_refused_with_a_hint() {
    for typo in ["btc_usdt", "BTCUSDT", "BTC-USDT-PERP", "btcusdtperp"] {
        let arg = format!("instrument_id={typo}");
        let o = run(&["request", "GET", "/swap/v2/public/ticker", &arg]);
        assert_eq!(code(&o), 2, "{typo}");
        assert_eq!(
            stderr(&o),
            format!(
                "error: invalid `instrument_id`: {typo:?} is not a swap instrument id: did you \
                 mean BTCUSDTPERP? (ids are upper-case letters and digits ending in PERP); see \
                 `digifinex describe GET /swap/v2/public/ticker`\n"
            )
        );
    }
}

/// Issue 15: a venue message that repeats the code's meaning is printed once.
#[test]
fn an_api_error_says_its_meaning_once() {
    let o = run_with_stdin(
        &["decode", "GET", "/v3/spot/assets"],
        br#"{"code":10003,"msg":"signature mismatch"}"#,
    );
    assert_eq!(code(&o), 1);
    assert_eq!(
        stderr(&o),
        "error: spot API error 10003: signature mismatch [HTTP 200] (kind: Auth)\n"
    );
}
