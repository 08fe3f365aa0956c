//! The sans-IO request cycle ([`Session`], [`Call`]) driven by a scripted fake transport: time
//! sync after 10008, retries of reads only, unknown outcomes of writes, budgets.

use std::sync::Arc;
use std::time::Duration;

use digifinex_core::session::{Action, Drive, Response, Session};
use digifinex_core::spot::{
    LimitOrder, Market, OrderBookRequest, PlaceOrderRequest, ServerTimeRequest,
};
use digifinex_core::{
    Config, Credentials, Decimal, Error, ErrorKind, Family, ManualClock, TimestampMillis,
    TransportErrorKind,
};

const T0: i64 = 1_700_000_000_000;

/// One scripted answer of the fake transport.
enum Answer {
    Http(u16, Vec<(&'static str, &'static str)>, &'static str),
    Fail(TransportErrorKind),
}

thread_local! {
    /// Whether [`drive`] hands answers over with `on_owned_response` (as both transports do)
    /// instead of lending them with `on_response`.
    static OWNED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// What a scripted drive returns: the result, the requests sent and the waits.
type Driven<T> = (
    Result<Response<T>, Error>,
    Vec<http::Request<Vec<u8>>>,
    Vec<Duration>,
);

/// Drives `call` through a scripted transport: each `Send` takes the next answer (after the
/// clock moves `rtt_ms`); each `Wait` advances the clock. Returns the result, the requests sent
/// and the waits.
fn drive<D: Drive + ?Sized>(
    clock: &ManualClock,
    call: &mut D,
    script: Vec<Answer>,
    rtt_ms: i64,
) -> Driven<D::Output> {
    let mut script = script.into_iter();
    let mut sent = Vec::new();
    let mut waits = Vec::new();
    loop {
        match call.next() {
            Action::Send(req) => {
                sent.push(req);
                clock.advance(rtt_ms);
                match script
                    .next()
                    .expect("script has an answer for every request")
                {
                    Answer::Http(status, headers, body) => {
                        let mut b = http::Response::builder().status(status);
                        for (k, v) in headers {
                            b = b.header(k, v);
                        }
                        let resp = b.body(body.as_bytes()).unwrap();
                        if OWNED.with(|o| o.get()) {
                            call.on_owned_response(resp);
                        } else {
                            call.on_response(&resp);
                        }
                    }
                    Answer::Fail(kind) => call.on_transport_error(kind, "scripted".into()),
                }
            }
            Action::Wait(d) => {
                waits.push(d);
                clock.advance(i64::try_from(d.as_millis()).unwrap());
            }
            Action::Done(r) => {
                assert!(script.next().is_none(), "unused script answers");
                return (r, sent, waits);
            }
        }
    }
}

fn session(clock: Arc<ManualClock>) -> Session {
    Session::builder()
        .config(Config::default())
        .credentials(Credentials::new("k", "s"))
        .clock(clock)
        .build()
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

const BOOK: &str = r#"{"bids":[[1,2]],"asks":[],"date":1700000000,"code":0}"#;

#[test]
fn a_read_succeeds_with_latency_and_one_attempt() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let req = OrderBookRequest::new("btc_usdt");
    let (r, sent, waits) = drive(
        &clock,
        &mut s.call(&req),
        vec![Answer::Http(
            200,
            vec![("ip-weight-minute-remain", "1188"), ("x-extra", "kept")],
            BOOK,
        )],
        40,
    );
    let r = r.unwrap();
    assert_eq!(r.value.bids.len(), 1);
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["x-extra"], "kept");
    assert_eq!(r.headers.len(), 2);
    assert_eq!(r.usage.min_remaining(), Some(1188));
    assert_eq!(r.attempts, 1);
    assert_eq!(r.latency, Duration::from_millis(40));
    assert_eq!(sent.len(), 1);
    assert!(waits.is_empty());
}

#[test]
fn clock_rejection_syncs_once_then_resigns_and_resends() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let o = order();
    // The server is 30 s ahead: its /v3/time answers T0/1000 + 30 (+ the round trips so far).
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&o),
        vec![
            Answer::Http(200, vec![], r#"{"code":10008}"#),
            Answer::Http(200, vec![], r#"{"server_time":1700000030,"code":0}"#),
            Answer::Http(200, vec![], r#"{"code":0,"order_id":"abc"}"#),
        ],
        20,
    );
    assert_eq!(r.unwrap().value.order_id, "abc");
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[1].uri(), "https://openapi.digifinex.com/v3/time");
    assert!(sent[1].headers().get("access-sign").is_none());
    // Offset: server 1700000030000 - midpoint(T0+20, T0+40) = 29970 ms.
    assert_eq!(s.offset_ms(), 29_970);
    assert_eq!(sent[0].headers()["access-timestamp"], "1700000000");
    assert_eq!(sent[2].headers()["access-timestamp"], "1700000030");
    assert_eq!(sent[0].body(), sent[2].body());
    // Spot signs the parameter text only, so the resent request's signature is unchanged.
    assert_eq!(
        sent[0].headers()["access-sign"],
        sent[2].headers()["access-sign"]
    );
}

#[test]
fn a_second_clock_rejection_is_returned() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let o = order();
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&o),
        vec![
            Answer::Http(200, vec![], r#"{"code":10008}"#),
            Answer::Http(200, vec![], r#"{"server_time":1700000000,"code":0}"#),
            Answer::Http(200, vec![], r#"{"code":10008}"#),
        ],
        10,
    );
    assert_eq!(r.unwrap_err().kind(), ErrorKind::Clock);
    assert_eq!(sent.len(), 3);
}

#[test]
fn reads_are_retried_after_5xx_and_network_errors() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let req = OrderBookRequest::new("btc_usdt");
    let (r, sent, waits) = drive(
        &clock,
        &mut s.call(&req),
        vec![
            Answer::Http(502, vec![], "<html>bad gateway</html>"),
            Answer::Fail(TransportErrorKind::ConnectionLost),
            Answer::Http(200, vec![], BOOK),
        ],
        5,
    );
    let r = r.unwrap();
    assert_eq!(r.attempts, 3);
    assert_eq!(sent.len(), 3);
    assert_eq!(waits.len(), 2);
    assert!(waits[0] >= Duration::from_millis(100) && waits[0] <= Duration::from_millis(200));
    assert!(waits[1] >= Duration::from_millis(200) && waits[1] <= Duration::from_millis(400));
}

#[test]
fn retry_after_is_honoured_for_reads() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let req = OrderBookRequest::new("btc_usdt");
    let (r, _, waits) = drive(
        &clock,
        &mut s.call(&req),
        vec![
            Answer::Http(429, vec![("retry-after", "2")], "slow down"),
            Answer::Http(200, vec![], BOOK),
        ],
        5,
    );
    assert!(r.is_ok());
    assert_eq!(waits, vec![Duration::from_secs(2)]);
}

#[test]
fn reads_give_up_after_the_policy_limit() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let req = OrderBookRequest::new("btc_usdt");
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&req),
        (0..4)
            .map(|_| Answer::Fail(TransportErrorKind::Timeout))
            .collect(),
        5,
    );
    assert_eq!(r.unwrap_err().kind(), ErrorKind::Network);
    assert_eq!(sent.len(), 4);
}

#[test]
fn an_order_that_may_have_reached_the_server_is_never_resent() {
    for failure in [
        Answer::Fail(TransportErrorKind::ConnectionLost),
        Answer::Fail(TransportErrorKind::Timeout),
        Answer::Http(500, vec![], "oops"),
        Answer::Http(200, vec![], r#"{"code":0,"order_id""#),
    ] {
        let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
        let s = session(clock.clone());
        let o = order();
        let (r, sent, waits) = drive(&clock, &mut s.call(&o), vec![failure], 5);
        match r.unwrap_err() {
            Error::OutcomeUnknown {
                method,
                url,
                body,
                endpoint,
                built_at,
                ..
            } => {
                assert_eq!(method, "POST");
                assert_eq!(endpoint, "spot.order_new");
                // The build time survives (whole seconds for spot), for reconciliation.
                assert_eq!(built_at, Some(TimestampMillis(T0 / 1000 * 1000)));
                assert_eq!(url, "https://openapi.digifinex.com/v3/spot/order/new");
                assert_eq!(
                    body,
                    "market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(sent.len(), 1);
        assert!(waits.is_empty());
    }
    // A connect failure is definite (nothing was sent) and is not retried either.
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let o = order();
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&o),
        vec![Answer::Fail(TransportErrorKind::Connect)],
        5,
    );
    assert_eq!(r.unwrap_err().kind(), ErrorKind::Network);
    assert_eq!(sent.len(), 1);
}

#[test]
fn validation_errors_end_the_call_before_anything_is_sent() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let req = OrderBookRequest::new("btc_usdt").limit(151);
    let (r, sent, _) = drive(&clock, &mut s.call(&req), vec![], 5);
    assert!(matches!(r, Err(Error::Validation { ref field, .. }) if field == "limit"));
    assert!(sent.is_empty());
}

#[test]
fn the_weight_budget_makes_calls_wait_instead_of_crossing_the_limit() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = Session::builder()
        .clock(clock.clone())
        .weight_budget(2, 100)
        .max_budget_wait(Duration::from_secs(60))
        .build();
    let req = ServerTimeRequest;
    let ok = || {
        vec![Answer::Http(
            200,
            vec![],
            r#"{"server_time":1700000000,"code":0}"#,
        )]
    };
    for _ in 0..2 {
        let (_, _, waits) = drive(&clock, &mut s.call(&req), ok(), 10);
        assert!(waits.is_empty());
    }
    let (r, _, waits) = drive(&clock, &mut s.call(&req), ok(), 10);
    assert!(r.is_ok());
    // The first call was sent at T0; the third asks at T0+20: wait until T0+60000.
    assert_eq!(waits, vec![Duration::from_millis(59_980)]);
}

#[test]
fn on_demand_sync_for_swap_uses_milliseconds() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let (r, sent, _) = drive(
        &clock,
        &mut s.sync_call(Family::Swap),
        vec![Answer::Http(
            200,
            vec![],
            r#"{"code":0,"data":1699999995123}"#,
        )],
        100,
    );
    assert_eq!(
        sent[0].uri(),
        "https://openapi.digifinex.com/swap/v2/public/time"
    );
    // 1699999995123 - (T0 + 50) = -4927.
    assert_eq!(r.unwrap().value, -4_927);
    assert_eq!(s.offset_ms(), -4_927);
    assert_eq!(s.now(), TimestampMillis(T0 + 100 - 4_927));
}

#[test]
fn session_debug_hides_the_secret() {
    let s = Session::builder()
        .credentials(Credentials::new("key", "SUPERSECRET"))
        .build();
    assert!(!format!("{s:?}").contains("SUPERSECRET"));
}

#[test]
fn catalog_calls_run_the_same_cycle_and_render_json() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let (entry, vars) = digifinex_core::catalog::find("POST", "/v3/spot/order/new").unwrap();
    let mut params = digifinex_core::catalog::ParamMap::new();
    for (k, v) in vars {
        params.insert_path_var(k, v);
    }
    for (k, v) in [
        ("symbol", "btc_usdt"),
        ("type", "buy"),
        ("price", "30000"),
        ("amount", "0.01"),
    ] {
        params.insert_text(k, v);
    }
    let mut call = (entry.call)(&s, params).unwrap();
    let (r, sent, _) = drive(
        &clock,
        &mut call,
        vec![
            Answer::Http(200, vec![], r#"{"code":10008}"#),
            Answer::Http(200, vec![], r#"{"server_time":1700000000,"code":0}"#),
            Answer::Http(200, vec![], r#"{"code":0,"order_id":"abc"}"#),
        ],
        10,
    );
    assert_eq!(r.unwrap().value, serde_json::json!({"order_id": "abc"}));
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[0].body(),
        b"market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy"
    );
    // Wire-parameter errors end the call before it starts.
    let mut params = digifinex_core::catalog::ParamMap::new();
    params.insert_text("market", "spot");
    params.insert_text("symbol", "btc_usdt");
    params.insert_text("typo", "1");
    assert!(matches!(
        (entry.call)(&s, params),
        Err(Error::Validation { .. })
    ));
}

#[test]
fn a_swap_signature_rejection_resyncs_and_resends_only_if_the_clock_moved() {
    use digifinex_core::swap::{OrderSide, OrderSpec, PlaceOrderRequest as SwapOrder};
    let order = SwapOrder::new(OrderSpec::limit(
        "BTCUSDTPERP",
        OrderSide::OpenLong,
        digifinex_core::Size::new(Decimal::ONE),
        digifinex_core::Price::new(Decimal::new(20000, 0)),
    ));
    // The server is 40 s ahead: the resync moves the offset, so the order is re-signed and sent.
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&order),
        vec![
            Answer::Http(200, vec![], r#"{"code":400004}"#),
            Answer::Http(200, vec![], r#"{"code":0,"data":1700000040030}"#),
            Answer::Http(200, vec![], r#"{"code":0,"data":"1234567890123456789"}"#),
        ],
        10,
    );
    assert_eq!(r.unwrap().value.order_id, "1234567890123456789");
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[1].uri(),
        "https://openapi.digifinex.com/swap/v2/public/time"
    );
    assert_eq!(s.offset_ms(), 40_015);
    assert_eq!(sent[0].headers()["access-timestamp"], "1700000000000");
    assert_eq!(sent[2].headers()["access-timestamp"], "1700000040035");
    assert_eq!(sent[0].body(), sent[2].body());

    // The clock was right: the signature really is wrong, and the original error comes back.
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&order),
        vec![
            Answer::Http(200, vec![], r#"{"code":400004}"#),
            Answer::Http(200, vec![], r#"{"code":0,"data":1700000000200}"#),
        ],
        10,
    );
    let e = r.unwrap_err();
    assert_eq!(e.api_code(), Some(400004));
    assert_eq!(e.kind(), ErrorKind::Auth);
    assert_eq!(sent.len(), 2);
}

fn swap_ok(body: &'static str, headers: Vec<(&'static str, &'static str)>) -> Vec<Answer> {
    vec![Answer::Http(200, headers, body)]
}

const DEPTH: &str = r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","asks":[],"bids":[]}}"#;
const TICKERS: &str = r#"{"code":0,"data":[]}"#;
const BALANCE: &str = r#"{"code":0,"data":[]}"#;

#[test]
fn budgets_are_on_by_default_at_the_venues_limits() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let ok = || {
        vec![Answer::Http(
            200,
            vec![],
            r#"{"server_time":1700000000,"code":0}"#,
        )]
    };
    // Spot: 1200 per minute, each call weight 1.
    for _ in 0..1200 {
        let (r, _, waits) = drive(&clock, &mut s.call(&ServerTimeRequest), ok(), 0);
        assert!(r.is_ok() && waits.is_empty());
    }
    // A minute is longer than a call waits by default: it ends without sending anything.
    let (r, sent, waits) = drive(&clock, &mut s.call(&ServerTimeRequest), vec![], 0);
    match r {
        Err(e @ Error::BudgetExhausted { .. }) => {
            assert_eq!(e.retry_after(), Some(Duration::from_millis(60_000)));
            assert_eq!(e.kind(), ErrorKind::RateLimit);
            assert!(e.is_retryable());
        }
        other => panic!("expected an exhausted budget, got {other:?}"),
    }
    assert!(sent.is_empty() && waits.is_empty());
    // An order is never sent late either.
    let (r, sent, _) = drive(&clock, &mut s.call(&order()), vec![], 0);
    assert!(matches!(r, Err(Error::BudgetExhausted { .. })), "{r:?}");
    assert!(sent.is_empty());
    // Swap public routes: 6000 per minute; depth weighs 2 (docs/protocol.md), so 3000 calls fill
    // it, and the spot budget is apart.
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let depth = digifinex_core::swap::DepthRequest::new("BTCUSDTPERP");
    for _ in 0..3000 {
        let (r, _, waits) = drive(&clock, &mut s.call(&depth), swap_ok(DEPTH, vec![]), 0);
        assert!(r.is_ok() && waits.is_empty());
    }
    let (r, sent, _) = drive(&clock, &mut s.call(&depth), vec![], 0);
    assert!(matches!(r, Err(Error::BudgetExhausted { .. })), "{r:?}");
    assert!(sent.is_empty());
    let (_, _, waits) = drive(&clock, &mut s.call(&ServerTimeRequest), ok(), 0);
    assert!(waits.is_empty());
    // Turned off, nothing waits.
    let s = Session::builder()
        .clock(clock.clone())
        .without_weight_budget()
        .build();
    for _ in 0..1300 {
        let (_, _, waits) = drive(&clock, &mut s.call(&ServerTimeRequest), ok(), 0);
        assert!(waits.is_empty());
    }
}

#[test]
fn declared_route_weights_count_until_the_servers_table_replaces_them() {
    use digifinex_core::ratelimit::WeightTable;
    use digifinex_core::swap::RouteWeight;
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = Session::builder()
        .credentials(Credentials::new("k", "s"))
        .clock(clock.clone())
        .weight_budget(1200, 4)
        .max_budget_wait(Duration::from_secs(60))
        .build();
    let depth = digifinex_core::swap::DepthRequest::new("BTCUSDTPERP");
    // Depth weighs 2 before /public/api_weight was ever called: two calls fill a budget of 4.
    for _ in 0..2 {
        let (_, _, waits) = drive(&clock, &mut s.call(&depth), swap_ok(DEPTH, vec![]), 0);
        assert!(waits.is_empty());
    }
    let (_, _, waits) = drive(&clock, &mut s.call(&depth), swap_ok(DEPTH, vec![]), 0);
    assert_eq!(waits.len(), 1);
    // The server's table wins over the declared weight.
    clock.advance(60_000);
    s.set_swap_weights(WeightTable::new(&[RouteWeight::new(
        "/swap/v2/public/depth",
        1,
    )]));
    for _ in 0..4 {
        let (_, _, waits) = drive(&clock, &mut s.call(&depth), swap_ok(DEPTH, vec![]), 0);
        assert!(waits.is_empty());
    }
    // Private routes have their own budget: the public one is full, a balance call still goes.
    let balance = digifinex_core::swap::BalanceRequest::new();
    let (r, _, waits) = drive(&clock, &mut s.call(&balance), swap_ok(BALANCE, vec![]), 0);
    assert!(r.is_ok(), "{r:?}");
    assert!(waits.is_empty());
}

#[test]
fn the_servers_remaining_weight_lowers_only_the_budget_it_reports() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = Session::builder()
        .credentials(Credentials::new("k", "s"))
        .clock(clock.clone())
        .weight_budget(1200, 100)
        .max_budget_wait(Duration::from_secs(60))
        .build();
    let tickers = digifinex_core::swap::TickersRequest::new();
    // The IP limit says only 1 remains: the next public call may go, the one after waits.
    let (_, _, waits) = drive(
        &clock,
        &mut s.call(&tickers),
        swap_ok(TICKERS, vec![("ip-weight-minute-remain", "1")]),
        0,
    );
    assert!(waits.is_empty());
    let (_, _, waits) = drive(&clock, &mut s.call(&tickers), swap_ok(TICKERS, vec![]), 0);
    assert!(waits.is_empty());
    let (_, _, waits) = drive(&clock, &mut s.call(&tickers), swap_ok(TICKERS, vec![]), 0);
    assert_eq!(waits.len(), 1);
    // Private calls are unaffected by the IP count.
    let balance = digifinex_core::swap::BalanceRequest::new();
    let (_, _, waits) = drive(&clock, &mut s.call(&balance), swap_ok(BALANCE, vec![]), 0);
    assert!(waits.is_empty());
}

/// Both transports hand answers over (`on_owned_response`, which moves the headers into the
/// result instead of copying them): every scenario above gives the same results that way.
#[test]
fn every_scenario_gives_the_same_results_with_owned_answers() {
    OWNED.with(|o| o.set(true));
    a_read_succeeds_with_latency_and_one_attempt();
    clock_rejection_syncs_once_then_resigns_and_resends();
    a_second_clock_rejection_is_returned();
    reads_are_retried_after_5xx_and_network_errors();
    retry_after_is_honoured_for_reads();
    reads_give_up_after_the_policy_limit();
    an_order_that_may_have_reached_the_server_is_never_resent();
    validation_errors_end_the_call_before_anything_is_sent();
    the_weight_budget_makes_calls_wait_instead_of_crossing_the_limit();
    on_demand_sync_for_swap_uses_milliseconds();
    catalog_calls_run_the_same_cycle_and_render_json();
    a_swap_signature_rejection_resyncs_and_resends_only_if_the_clock_moved();
    OWNED.with(|o| o.set(false));
}

#[test]
fn a_spot_rate_limit_violation_bans_spot_calls_locally_as_scheduled() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let book = OrderBookRequest::new("btc_usdt");
    let limited = r#"{"code":10005}"#;
    // Reads are retried on a rate limit; without `retry-after` the retry meets the ban.
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&book),
        vec![Answer::Http(200, vec![], limited)],
        0,
    );
    assert_eq!(sent.len(), 1);
    let until = T0 + 120_000;
    match r.unwrap_err() {
        Error::BanActive { family, until: u } => {
            assert_eq!(family, Family::Spot);
            assert_eq!(u, TimestampMillis(until));
        }
        other => panic!("expected BanActive, got {other:?}"),
    }
    // Nothing is sent while the ban runs; the error says until when.
    clock.advance(60_000);
    let (r, sent, _) = drive(&clock, &mut s.call(&book), vec![], 0);
    assert!(sent.is_empty());
    let e = r.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Ban);
    assert!(e.to_string().contains(&until.to_string()), "{e}");
    assert_eq!(
        s.spot_banned_until(TimestampMillis(T0 + 60_000)),
        Some(TimestampMillis(until))
    );
    // Swap routes are not banned.
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&digifinex_core::swap::ServerTimeRequest),
        vec![Answer::Http(
            200,
            vec![],
            r#"{"code":0,"data":1700000060000}"#,
        )],
        0,
    );
    assert!(r.is_ok());
    assert_eq!(sent.len(), 1);
    // After the ban, spot calls go again.
    clock.advance(60_000);
    assert_eq!(s.spot_banned_until(TimestampMillis(until)), None);
    let (r, sent, _) = drive(
        &clock,
        &mut s.call(&book),
        vec![Answer::Http(200, vec![], BOOK)],
        0,
    );
    assert!(r.is_ok());
    assert_eq!(sent.len(), 1);
}

#[test]
fn spot_bans_escalate_and_a_server_retry_after_wins() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = session(clock.clone());
    let order = order();
    let mut bans = Vec::new();
    for _ in 0..4 {
        let start = digifinex_core::Clock::now(&*clock);
        let (r, sent, _) = drive(
            &clock,
            &mut s.call(&order),
            vec![Answer::Http(200, vec![], r#"{"code":10005}"#)],
            0,
        );
        assert_eq!(sent.len(), 1);
        assert!(matches!(r, Err(Error::Api(_))), "{r:?}");
        let until = s.spot_banned_until(start).unwrap();
        bans.push((until.0 - start.0) / 60_000);
        clock.advance(until.0 - start.0);
    }
    // Within 24 hours: 2, 2, 2, then 10 minutes.
    assert_eq!(bans, vec![2, 2, 2, 10]);
    // A `retry-after` from the server sets the ban's end instead of the schedule.
    let start = digifinex_core::Clock::now(&*clock);
    let (_, _, _) = drive(
        &clock,
        &mut s.call(&order),
        vec![Answer::Http(429, vec![("retry-after", "7")], "slow down")],
        0,
    );
    assert_eq!(
        s.spot_banned_until(start),
        Some(TimestampMillis(start.0 + 7000))
    );
}

#[test]
fn a_budget_wait_that_does_not_pass_ends_the_call_after_the_longest_wait_in_all() {
    // A clock that does not move while the call waits (an exchange in virtual time whose
    // time is over): the waits add up to the bound, then the call ends without sending.
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let s = Session::builder()
        .clock(clock.clone())
        .max_budget_wait(Duration::from_secs(30))
        .build();
    let ok = || {
        vec![Answer::Http(
            200,
            vec![],
            r#"{"server_time":1700000000,"code":0}"#,
        )]
    };
    for _ in 0..1200 {
        let (r, _, _) = drive(&clock, &mut s.call(&ServerTimeRequest), ok(), 0);
        assert!(r.is_ok());
    }
    // Half a minute later the budget is still spent (the whole minute's weight).
    clock.advance(30_000);
    let mut call = s.call(&ServerTimeRequest);
    let mut waits = Vec::new();
    let result = loop {
        match call.next() {
            Action::Wait(d) => {
                waits.push(d);
                assert!(waits.len() < 10, "the call waits forever: {waits:?}");
            }
            Action::Done(r) => break r,
            Action::Send(_) => panic!("sent without budget"),
        }
    };
    assert!(
        matches!(result, Err(Error::BudgetExhausted { .. })),
        "{result:?}"
    );
    // One wait of 30 s was handed out; the second would make 60 s in all.
    assert_eq!(waits, vec![Duration::from_millis(30_000)]);
}
