//! The live venue where it differs from the API documents (`docs/protocol.md`, "Where the live
//! venue differs from its documents"):
//! error shapes, unreadable values reported with their path, the real captures.

// Reads its fixtures from files: the core's no-I/O lint (`core/clippy.toml`) is for the library.
#![allow(clippy::disallowed_methods)]

use std::sync::{Arc, Mutex};

use digifinex_core::swap::{DepthRequest, TickersRequest};
use digifinex_core::{parse, parse_body_report, spot, Endpoint, Error, ErrorKind};

fn response(status: u16, body: &str) -> http::Response<&[u8]> {
    http::Response::builder()
        .status(status)
        .body(body.as_bytes())
        .unwrap()
}

#[test]
fn a_swap_error_with_http_400_keeps_its_code_and_message() {
    // The live swap API answers errors with HTTP 400 and `msg` (docs/protocol.md).
    let body = r#"{"code":400002,"msg":"invalid InstrumentId"}"#;
    match parse::<DepthRequest>(&response(400, body)) {
        Err(Error::Api(e)) => {
            assert_eq!(e.code.code(), 400002);
            assert_eq!(e.message.as_deref(), Some("invalid InstrumentId"));
            assert_eq!(e.status, 400);
        }
        other => panic!("expected an API error, got {other:?}"),
    }
    let e = parse::<DepthRequest>(&response(400, r#"{"code":400002,"msg":"invalid Limit"}"#))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert_eq!(e.api_code(), Some(400002));
    assert_eq!(e.status(), Some(400));
}

#[test]
fn a_swap_unknown_path_is_a_plain_text_404_not_a_decode_error() {
    let e = parse::<TickersRequest>(&response(404, "404 page not found")).unwrap_err();
    match &e {
        Error::HttpStatus { status, snippet } => {
            assert_eq!(*status, 404);
            assert_eq!(snippet, "404 page not found");
        }
        other => panic!("expected an HTTP status error, got {other:?}"),
    }
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(!e.is_retryable());
    // An empty 404 body too.
    let e = parse::<spot::OrderBookRequest>(&response(404, "")).unwrap_err();
    assert!(matches!(e, Error::HttpStatus { status: 404, .. }), "{e:?}");
}

/// A ticker listing whose rows hold an unreadable optional value.
const TICKERS: &str = r#"{"ticker":[
    {"symbol":"btc_usdt","vol":10,"last":"abc","sell":1,"buy":1,"high":1,"low":1,"change":1,"base_vol":1},
    {"symbol":"eth_usdt","vol":{"x":1},"last":2000.5}],"date":1589874294,"code":0}"#;

#[test]
fn one_unreadable_value_does_not_hide_the_other_rows_and_is_reported_by_path() {
    let meta = spot::TickerRequest::META;
    let (t, unreadable) =
        parse_body_report::<spot::Tickers>(&meta, 200, &http::HeaderMap::new(), TICKERS.as_bytes())
            .unwrap();
    assert_eq!(t.ticker.len(), 2);
    assert_eq!(t.ticker[0].last, None);
    assert_eq!(t.ticker[1].vol, None);
    assert_eq!(t.ticker[1].last.unwrap().to_string(), "2000.5");
    let paths: Vec<&str> = unreadable.iter().map(|u| u.path.as_str()).collect();
    assert_eq!(paths, ["ticker[0].last", "ticker[1].vol"]);
    assert_eq!(unreadable[0].problem, "expected a decimal, found `abc`");
}

#[derive(Clone, Default)]
struct LogBuf(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn unreadable_values_are_logged_as_warnings_naming_the_endpoint_and_path() {
    let buf = LogBuf::default();
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let t = tracing::subscriber::with_default(subscriber, || {
        parse::<spot::TickerRequest>(&response(200, TICKERS)).unwrap()
    });
    assert_eq!(t.ticker.len(), 2);
    let log = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    let warnings: Vec<&str> = log.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 2, "{log}");
    assert!(warnings[0].contains("endpoint=\"spot.ticker\""), "{log}");
    assert!(warnings[0].contains("path=ticker[0].last"), "{log}");
    assert!(warnings[1].contains("path=ticker[1].vol"), "{log}");
    // A clean answer logs nothing.
    let buf = LogBuf::default();
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        parse::<spot::TickerRequest>(&response(
            200,
            r#"{"ticker":[{"symbol":"btc_usdt","last":"-"}],"code":0}"#,
        ))
        .unwrap()
    });
    assert!(buf.0.lock().unwrap().is_empty());
}

#[test]
fn every_real_capture_says_where_it_came_from() {
    // core/tests/spot_market.rs decodes tests/data/real/* with exact values; SOURCES.md there
    // names the request and the public source of each file. A file without a row (or a row
    // without its file) fails here: the captures are the crate's own data.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real");
    let sources = std::fs::read_to_string(format!("{dir}/SOURCES.md")).unwrap();
    let rows: std::collections::BTreeSet<String> = sources
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .filter(|f| f.ends_with(".json"))
        .map(str::to_owned)
        .collect();
    let files: std::collections::BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    assert_eq!(files, rows);
    assert_eq!(files.len(), 4);
}

#[test]
fn a_market_parameter_must_agree_with_the_path() {
    use digifinex_core::catalog::{self, ParamMap};
    use digifinex_core::{Config, Credentials, TimestampMillis};
    let creds = Credentials::new("k", "s");
    let build = |market: Option<&str>| {
        let (entry, vars) = catalog::find("POST", "/v3/margin/order/new").unwrap();
        let mut p = ParamMap::new();
        for (k, v) in vars {
            p.insert_path_var(k, v);
        }
        if let Some(m) = market {
            p.insert_text("market", m);
        }
        for (k, v) in [
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "1"),
            ("amount", "2"),
        ] {
            p.insert_text(k, v);
        }
        (entry.build)(
            p,
            &Config::default(),
            Some(&creds),
            TimestampMillis(1_700_000_000_000),
        )
    };
    let plain = build(None).unwrap();
    assert_eq!(plain.uri().path(), "/v3/margin/order/new");
    assert!(
        plain.body().starts_with(b"market=margin&"),
        "{:?}",
        plain.body()
    );
    let same = build(Some("margin")).unwrap();
    assert_eq!(same.body(), plain.body());
    match build(Some("spot")) {
        Err(Error::Validation { field, reason, .. }) => {
            assert_eq!(field, "market");
            assert!(reason.contains("disagrees"), "{reason}");
        }
        other => panic!("expected a validation error, got {other:?}"),
    }
}
