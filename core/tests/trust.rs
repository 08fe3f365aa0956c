//! Trust boundaries in the core: a redirect is never an answer, and errors keep their causes.

use std::error::Error as _;
use std::sync::Arc;

use digifinex_core::session::{Action, Drive, Session};
use digifinex_core::spot::{LimitOrder, Market, OrderBookRequest, PlaceOrderRequest};
use digifinex_core::{
    parse, Credentials, Decimal, Error, ErrorKind, ManualClock, TimestampMillis, TransportErrorKind,
};

fn redirect(
    status: u16,
    location: Option<&str>,
    body: &'static str,
) -> http::Response<&'static [u8]> {
    let mut b = http::Response::builder().status(status);
    if let Some(l) = location {
        b = b.header("location", l);
    }
    b.body(body.as_bytes()).unwrap()
}

fn order() -> PlaceOrderRequest {
    PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(
            digifinex_core::Amount::new(Decimal::new(1, 2)),
            digifinex_core::Price::new(Decimal::new(30000, 0)),
        ),
    )
}

#[test]
fn a_redirect_is_an_error_with_its_location_even_with_a_success_body() {
    for status in [301, 302, 303, 307, 308] {
        for body in ["", r#"{"code":0,"order_id":"made-up"}"#] {
            let e =
                parse::<PlaceOrderRequest>(&redirect(status, Some("https://evil.example/x"), body))
                    .unwrap_err();
            match &e {
                Error::Redirect {
                    status: s,
                    location,
                } => {
                    assert_eq!(*s, status);
                    assert_eq!(location.as_deref(), Some("https://evil.example/x"));
                }
                other => panic!("{status}: expected a redirect, got {other:?}"),
            }
            assert_eq!(e.kind(), ErrorKind::Redirect);
            assert!(!e.is_retryable());
            assert_eq!(e.status(), Some(status));
            assert_eq!(
                e.to_string(),
                format!("HTTP {status} redirect to https://evil.example/x not followed")
            );
        }
    }
    let e = parse::<OrderBookRequest>(&redirect(302, None, "")).unwrap_err();
    assert!(matches!(e, Error::Redirect { location: None, .. }), "{e:?}");
}

/// Drives a call through one scripted answer (a single send).
fn drive_once<D: Drive>(call: &mut D, answer: http::Response<&[u8]>) -> (Result<(), Error>, usize) {
    let mut sends = 0;
    loop {
        match call.next() {
            Action::Send(_) => {
                sends += 1;
                call.on_response(&answer);
            }
            Action::Wait(_) => {}
            Action::Done(r) => return (r.map(|_| ()), sends),
        }
    }
}

#[test]
fn a_redirect_answering_an_order_is_an_unknown_outcome_and_a_read_is_not_retried() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(1_700_000_000_000)));
    let s = Session::builder()
        .credentials(Credentials::new("k", "s"))
        .clock(clock)
        .build();
    let (r, sends) = drive_once(&mut s.call(&order()), redirect(303, Some("/v3/x"), ""));
    assert_eq!(sends, 1);
    match r {
        Err(e @ Error::OutcomeUnknown { .. }) => {
            let cause = e.source().and_then(|c| c.downcast_ref::<Error>());
            assert!(
                matches!(cause, Some(Error::Redirect { status: 303, .. })),
                "{e:?}"
            );
        }
        other => panic!("expected an unknown outcome, got {other:?}"),
    }
    let (r, sends) = drive_once(
        &mut s.call(&OrderBookRequest::new("btc_usdt")),
        redirect(301, Some("http://elsewhere/"), ""),
    );
    assert_eq!(sends, 1, "a redirect is not retried");
    assert!(
        matches!(r, Err(Error::Redirect { status: 301, .. })),
        "{r:?}"
    );
}

#[test]
fn errors_keep_their_causes() {
    // The transport's own error is the source of a transport error.
    let clock = Arc::new(ManualClock::new(TimestampMillis(1_700_000_000_000)));
    let s = Session::builder()
        .credentials(Credentials::new("k", "s"))
        .clock(clock)
        .retry_policy(digifinex_core::policy::RetryPolicy::never())
        .build();
    let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
    let book = OrderBookRequest::new("btc_usdt");
    let mut call = s.call(&book);
    let mut result = None;
    while result.is_none() {
        match call.next() {
            Action::Send(_) => call.on_transport_error(
                TransportErrorKind::ConnectionLost,
                Box::new(std::io::Error::new(io.kind(), io.to_string())),
            ),
            Action::Wait(_) => {}
            Action::Done(r) => result = Some(r),
        }
    }
    let e = result.unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "transport error (connection lost): reset by peer"
    );
    let source = e.source().expect("a source");
    assert_eq!(
        source.downcast_ref::<std::io::Error>().map(|e| e.kind()),
        Some(std::io::ErrorKind::ConnectionReset)
    );
    // An order's unknown outcome has its cause as its source, and displays on one line.
    let placed = order();
    let mut call = s.call(&placed);
    let mut result = None;
    while result.is_none() {
        match call.next() {
            Action::Send(_) => {
                call.on_transport_error(TransportErrorKind::Timeout, "read timed out".into())
            }
            Action::Wait(_) => {}
            Action::Done(r) => result = Some(r),
        }
    }
    let e = result.unwrap().unwrap_err();
    let text = e.to_string();
    assert!(!text.contains('\n'), "{text}");
    assert!(text.starts_with("outcome unknown for POST "), "{text}");
    let cause = e
        .source()
        .and_then(|c| c.downcast_ref::<Error>())
        .expect("cause");
    assert!(matches!(
        cause,
        Error::Transport {
            kind: TransportErrorKind::Timeout,
            ..
        }
    ));
    assert_eq!(
        cause.source().map(|s| s.to_string()).as_deref(),
        Some("read timed out")
    );
    // An API error is a std error too, and the source of nothing.
    let api = parse::<OrderBookRequest>(
        &http::Response::builder()
            .status(200)
            .body(&br#"{"code":10003}"#[..])
            .unwrap(),
    )
    .unwrap_err();
    let Error::Api(inner) = api else { panic!() };
    let as_std: &dyn std::error::Error = &inner;
    assert!(as_std.to_string().contains("10003"));
    assert!(as_std.source().is_none());
}
