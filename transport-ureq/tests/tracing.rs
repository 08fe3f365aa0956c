//! The blocking client's tracing: one span per request, with its outcome, and never a secret.
//!
//! A test binary of its own: tracing caches whether a call site is wanted the first time any
//! thread reaches it. Had another test (without a subscriber) reached the request span's call
//! site at the moment this test installed its subscriber, the site could stay switched off, and
//! the span would go missing. Here no other test runs beside it.

mod common;
mod support;

use common::{client, order, SECRET};
use support::{Reply, TestServer};

/// Collects what a `fmt` subscriber writes (span closes included) while `f` runs.
fn traced<R>(f: impl FnOnce() -> R) -> (R, String) {
    let buf = support::LogBuf::default();
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .finish();
    let r = tracing::subscriber::with_default(subscriber, f);
    (r, buf.text())
}

#[test]
fn each_request_has_a_span_with_its_outcome_and_never_the_secret_or_signature() {
    let server = TestServer::scripted(vec![
        Reply::ok(r#"{"code":0,"order_id":"abc"}"#),
        Reply::ok(r#"{"code":20002}"#),
    ]);
    let c = client(&server).build().unwrap();
    let (results, out) = traced(|| (c.send(&order()), c.send(&order())));
    assert_eq!(results.0.unwrap().order_id, "abc");
    assert_eq!(results.1.unwrap_err().api_code(), Some(20002));
    let closes: Vec<&str> = out.lines().filter(|l| l.contains("close")).collect();
    assert_eq!(closes.len(), 2, "{out}");
    for line in &closes {
        for field in [
            "digifinex.request{",
            "endpoint=\"spot.order_new\"",
            "method=\"POST\"",
            "path=\"/{market}/order/new\"",
            "status=200",
        ] {
            assert!(line.contains(field), "{field} missing: {line}");
        }
    }
    assert!(closes[0].contains("latency_ms=") && closes[0].contains("attempts=1"));
    assert!(closes[1].contains("code=20002") && closes[1].contains("error="));
    for sent in server.seen() {
        let sign = sent.header("access-sign").unwrap();
        assert!(!out.contains(sign), "the signature leaked: {out}");
    }
    assert!(!out.contains(SECRET), "the secret leaked: {out}");
}
