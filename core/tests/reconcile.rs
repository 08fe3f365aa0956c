//! Reconciliation of unknown outcomes, for every write: the write is built and signed, failed
//! with a timeout (an unknown outcome), rebuilt from the error, and judged against canned
//! answers decoded through the real models (so these tests also pin the models).

use digifinex_core::policy::settle;
use digifinex_core::reconcile::{
    Options, Outcome, Read, Reconciler, Resolution, Unknown, Verdict, Write,
};
use digifinex_core::{
    build, spot, swap, Amount, ApiCode, ApiError, Config, Credentials, Decimal, Endpoint, Error,
    Family, Price, Size, TimestampMillis, TransportErrorKind,
};

/// Build time of every write: 2023-11-14 22:13:20 UTC.
const T0: i64 = 1_700_000_000_000;
/// The reads are made 2 s later.
const READ_AT: i64 = T0 + 2_000;

fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// The unknown outcome of `request`, built at `T0` and timed out.
fn unknown<E: Endpoint>(request: &E) -> Unknown {
    let creds = Credentials::new("key", "secret");
    let http = build(
        request,
        &Config::default(),
        Some(&creds),
        TimestampMillis(T0),
    )
    .unwrap();
    let timeout = Error::Transport {
        kind: TransportErrorKind::Timeout,
        message: "timed out".into(),
        source: None,
    };
    let e = settle(&E::META, &http, timeout);
    assert!(matches!(e, Error::OutcomeUnknown { .. }), "{e:?}");
    Unknown::from_error(&e).unwrap()
}

/// An answer to a read: a success body, or the venue's refusal with `code`.
enum Answer {
    Body(String),
    Refused(i64),
}

fn body(s: &str) -> Answer {
    Answer::Body(s.to_owned())
}

/// Runs the reconciler, answering each read with `answer`, and returns the outcome and the
/// reads' endpoint names.
fn run_with(
    u: Unknown,
    opts: Options,
    mut answer: impl FnMut(&Read) -> Answer,
) -> (Outcome, Vec<&'static str>) {
    let mut r = Reconciler::new(u, opts);
    let mut reads = Vec::new();
    while let Some(read) = r.next_read() {
        reads.push(read.endpoint());
        match answer(&read) {
            Answer::Body(b) => r.feed(read.decode(b.as_bytes()).unwrap()),
            Answer::Refused(code) => {
                let family = if read.endpoint().starts_with("spot.") {
                    Family::Spot
                } else {
                    Family::Swap
                };
                r.feed_error(Error::Api(ApiError::new(
                    family,
                    ApiCode::from_family(family, code),
                    200,
                )))
                .unwrap();
            }
        }
    }
    (r.verdict(TimestampMillis(READ_AT)), reads)
}

/// Runs with answers by endpoint name (`[]`-like empty answers for the others).
fn run(u: Unknown, opts: Options, answers: &[(&str, &str)]) -> Outcome {
    run_with(u, opts, |read| {
        let name = read.endpoint();
        match answers.iter().find(|(n, _)| *n == name) {
            Some((_, b)) => body(b),
            None => body(empty(name)),
        }
    })
    .0
}

fn empty(endpoint: &str) -> &'static str {
    if endpoint.starts_with("spot.withdraw") {
        r#"{"code":200,"data":[]}"#
    } else if endpoint.starts_with("spot.margin_positions") {
        r#"{"code":0,"positions":[]}"#
    } else if endpoint.starts_with("spot.financelog") {
        r#"{"code":0,"data":{"finance":[],"total":"0"}}"#
    } else if endpoint.starts_with("spot.") {
        r#"{"code":0,"data":[]}"#
    } else if endpoint.starts_with("swap.follow.") {
        r#"{"code":0,"data":{"list":[]}}"#
    } else {
        r#"{"code":0,"data":[]}"#
    }
}

/// What a complete snapshot taken before the write tells (here: that nothing of the evidence set
/// existed before it, plus the ids given): every unknown record was created after it.
fn snap() -> Options {
    Options::new().known_complete(true)
}

fn only(o: &Outcome) -> &Verdict {
    assert_eq!(o.verdicts.len(), 1, "{o:?}");
    &o.verdicts[0]
}

fn applied_id(o: &Outcome) -> Option<String> {
    match only(o) {
        Verdict::Applied { id, .. } => id.clone(),
        other => panic!("expected applied, got {other:?}"),
    }
}

fn assert_not_applied(o: &Outcome, why_contains: &str) {
    match only(o) {
        Verdict::NotApplied { why } => assert!(why.contains(why_contains), "{why}"),
        other => panic!("expected not applied, got {other:?}"),
    }
    assert_eq!(o.resolution(), Resolution::NotApplied);
}

fn assert_ambiguous(o: &Outcome, candidates: &[&str]) {
    match only(o) {
        Verdict::Ambiguous { candidates: c, .. } => {
            let mut c = c.clone();
            c.sort();
            assert_eq!(c, candidates);
        }
        other => panic!("expected ambiguous, got {other:?}"),
    }
    assert_eq!(o.resolution(), Resolution::Ambiguous);
}

// ---------------------------------------------------------------------------------------------
// Rebuilding the write

fn spot_buy() -> spot::PlaceOrderRequest {
    spot::PlaceOrderRequest::new(
        spot::Market::Spot,
        "btc_usdt",
        spot::LimitOrder::buy(Amount::new(dec("0.01")), Price::new(dec("10000"))),
    )
}

fn swap_long() -> swap::OrderSpec {
    swap::OrderSpec::limit(
        "BTCUSDTPERP",
        swap::OrderSide::OpenLong,
        Size::new(Decimal::ONE),
        Price::new(dec("29000")),
    )
}

fn sponsor() -> swap::SponsorOrderRequest {
    swap::SponsorOrderRequest::new(
        "BTCUSDTPERP",
        swap::CopyMarginMode::Crossed,
        swap::SponsorSide::OpenLong,
        Decimal::from(10),
        Size::new(Decimal::from(3)),
        swap::CopyPricing::Market(swap::CopyMarketStyle::OpponentIoc),
    )
}

#[test]
fn every_write_is_rebuilt_from_its_error() {
    fn check<E: Endpoint + Clone>(req: E, wrap: fn(E) -> Write) {
        let u = unknown(&req);
        assert_eq!(u.write, wrap(req), "{}", E::META.name);
        assert_eq!(u.write.endpoint(), E::META.name);
        // Spot headers carry seconds, swap milliseconds: T0 is a whole second.
        assert_eq!(u.built_at, Some(TimestampMillis(T0)));
    }
    check(spot_buy(), Write::SpotOrder);
    check(
        spot::PlaceOrderRequest::new(
            spot::Market::Margin,
            "eth_usdt",
            spot::MarketOrder::buy(Amount::new(dec("25.5"))),
        ),
        Write::SpotOrder,
    );
    check(
        spot::BatchPlaceOrdersRequest::new(
            spot::Market::Spot,
            "btc_usdt",
            [
                spot::OrderSpec::from(spot::LimitOrder::buy(
                    Amount::new(dec("0.01")),
                    Price::new(dec("10000")),
                )),
                spot::LimitOrder::sell(Amount::new(dec("0.02")), Price::new(dec("40000")))
                    .post_only()
                    .into(),
            ],
        ),
        Write::SpotBatch,
    );
    check(
        spot::CancelOrdersRequest::new(spot::Market::Margin, ["a1", "b2"]),
        Write::SpotCancel,
    );
    check(
        spot::TransferRequest::new(
            "usdt",
            Amount::new(dec("100")),
            spot::TransferAccount::Spot,
            spot::TransferAccount::Margin,
        ),
        Write::SpotTransfer,
    );
    check(
        spot::ClosePositionRequest::new("btc_usdt"),
        Write::MarginClose,
    );
    check(
        spot::WithdrawRequest::new("usdt", "0xabc", Amount::new(dec("50"))).chain("ERC20"),
        Write::Withdraw,
    );
    check(
        spot::CancelWithdrawRequest::new("123"),
        Write::WithdrawCancel,
    );
    check(swap::PlaceOrderRequest::new(swap_long()), Write::SwapOrder);
    check(
        swap::BatchPlaceOrdersRequest::new([swap_long(), swap_long()]),
        Write::SwapBatch,
    );
    check(
        swap::CancelOrderRequest::new("BTCUSDTPERP", "123456789012345678"),
        Write::SwapCancel,
    );
    check(
        swap::BatchCancelOrdersRequest::new([("BTCUSDTPERP", "1"), ("ETHUSDTPERP", "2")]),
        Write::SwapBatchCancel,
    );
    check(
        swap::TransferRequest::new(
            swap::TransferType::SpotToSwap,
            "USDT",
            Amount::new(dec("250")),
        ),
        Write::SwapTransfer,
    );
    check(
        swap::LeverageRequest::new("BTCUSDTPERP", Decimal::from(20))
            .margin_mode(swap::MarginMode::Isolated)
            .side(swap::PositionSide::Long),
        Write::Leverage,
    );
    check(
        swap::PositionModeRequest::new("BTCUSDTPERP", swap::MarginMode::Isolated),
        Write::PositionMode,
    );
    check(
        swap::PositionMarginRequest::new(
            "BTCUSDTPERP",
            swap::PositionSide::Long,
            swap::MarginAdjustment::Add,
            Amount::new(dec("5")),
        ),
        Write::PositionMargin,
    );
    check(
        sponsor()
            .take_profit_trigger(swap::TriggerPriceType::Mark)
            .take_profit_price(Price::new(dec("33000"))),
        Write::Sponsor,
    );
    check(swap::CloseCopyOrderRequest::new("c1"), Write::CopyClose);
    check(swap::CancelCopyOrderRequest::new("c1"), Write::CopyCancel);
    check(
        swap::AddAlgoRequest::new()
            .order_id("c1")
            .profit_trigger_type(swap::TriggerPriceType::Mark)
            .profit_trigger_price(Price::new(dec("33000"))),
        Write::AddAlgo,
    );
    check(
        swap::CancelAlgoRequest::new()
            .order_id("c1")
            .cancel_take_profit(true),
        Write::CancelAlgo,
    );
}

#[test]
fn only_unknown_outcomes_of_writes_are_reconciled() {
    let e = Unknown::from_error(&Error::validation("symbol", "bad")).unwrap_err();
    assert!(
        matches!(e, Error::Validation { ref field, .. } if field == "error"),
        "{e:?}"
    );
    let e =
        Unknown::from_parts("spot.order_book", "https://h/v3/order_book", "", None).unwrap_err();
    assert!(
        matches!(e, Error::Validation { ref field, .. } if field == "error"),
        "{e:?}"
    );
    // A body that does not rebuild the request names the field.
    let e = Unknown::from_parts(
        "spot.order_new",
        "https://h/v3/spot/order/new",
        "market=spot&symbol=btc_usdt&amount=1",
        None,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::Validation { ref field, .. } if field == "type"),
        "{e:?}"
    );
    // The path's market wins over nothing: a margin path gives a margin order.
    let u = Unknown::from_parts(
        "spot.order_new",
        "http://127.0.0.1:1/v3/margin/order/new",
        "symbol=btc_usdt&amount=1&type=sell_market",
        None,
    )
    .unwrap();
    match u.write {
        Write::SpotOrder(r) => assert_eq!(
            r,
            spot::PlaceOrderRequest::new(
                spot::Market::Margin,
                "btc_usdt",
                spot::MarketOrder::sell(Amount::ONE)
            )
        ),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Spot orders

fn spot_order(id: &str, created: i64, status: i64, executed: &str) -> String {
    format!(
        r#"{{"order_id":"{id}","symbol":"BTC_USDT","created_date":{created},"finished_date":0,
        "price":10000,"amount":0.01,"cash_amount":0,"executed_amount":{executed},"avg_price":0,
        "status":{status},"type":"buy","kind":"spot"}}"#
    )
}

fn orders(list: &[String]) -> String {
    format!(r#"{{"code":0,"data":[{}]}}"#, list.join(","))
}

const S0: i64 = T0 / 1000;

#[test]
fn spot_order_verdicts() {
    let u = || unknown(&spot_buy());
    // Reads: open orders and the history of the pair from the window start.
    let (o, reads) = run_with(u(), Options::new(), |r| {
        if let Read::SpotOrderHistory(h) = r {
            let http = build(
                h,
                &Config::default(),
                Some(&Credentials::new("k", "s")),
                TimestampMillis(READ_AT),
            )
            .unwrap();
            assert_eq!(
                http.uri().query(),
                Some("market=spot&symbol=btc_usdt&limit=100&start_time=1699999995")
            );
        }
        body(empty(r.endpoint()))
    });
    assert_eq!(reads, ["spot.order_current", "spot.order_history"]);
    assert_not_applied(&o, "no order of this pair");
    assert_eq!(
        o.what_to_do(),
        "It did not take effect: sending it again is safe.\n  not applied: no order of this \
         pair, type, price and amount was created in the window"
    );

    // Applied: the open order, created after a complete snapshot.
    let open = orders(&[spot_order("a1", S0 + 1, 0, "0")]);
    let o = run(
        u(),
        snap(),
        &[("spot.order_current", &open), ("spot.order_history", &open)],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("a1"));
    assert_eq!(o.resolution(), Resolution::Applied);
    assert_eq!(
        o.summary(),
        "spot.order_new: applied: a1 (buy btc_usdt open, created 1700000001)"
    );

    // Filled at once: only in the history.
    let filled = orders(&[spot_order("a1", S0, 2, "0.01")]);
    let o = run(u(), snap(), &[("spot.order_history", &filled)]);
    assert_eq!(applied_id(&o).as_deref(), Some("a1"));
    assert!(format!("{o:?}").contains("filled, executed 0.01"), "{o:?}");

    // Partly filled, still open; and partly filled then cancelled.
    for status in [1, 4] {
        let part = orders(&[spot_order("a1", S0, status, "0.004")]);
        let o = run(u(), snap(), &[("spot.order_history", &part)]);
        assert_eq!(applied_id(&o).as_deref(), Some("a1"), "{status}");
    }

    // Two identical orders in the window: ambiguous; one known before: the other.
    let two = orders(&[
        spot_order("a1", S0 - 2, 0, "0"),
        spot_order("a2", S0 + 1, 0, "0"),
    ]);
    let o = run(u(), Options::new(), &[("spot.order_current", &two)]);
    assert_ambiguous(&o, &["a1", "a2"]);
    // Knowing a1 is not enough without a snapshot: a2 was created within the clock uncertainty
    // of the build, so an older write (not known) may have made it.
    let o = run(
        u(),
        Options::new().known_ids(["a1"]),
        &[("spot.order_current", &two)],
    );
    assert_ambiguous(&o, &["a2"]);
    let o = run(
        u(),
        snap().known_ids(["a1"]),
        &[("spot.order_current", &two)],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("a2"));
    // Both created after a complete snapshot: another program placed the same order.
    assert_ambiguous(
        &run(u(), snap(), &[("spot.order_current", &two)]),
        &["a1", "a2"],
    );

    // Outside the window (more than 5 s before the build), another price, another pair: none.
    let old = orders(&[spot_order("a0", S0 - 6, 0, "0")]);
    assert_not_applied(
        &run(u(), Options::new(), &[("spot.order_current", &old)]),
        "no order",
    );
    // A wider uncertainty takes it in.
    let o = run(
        u(),
        snap().clock_uncertainty(std::time::Duration::from_secs(10)),
        &[("spot.order_current", &old)],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("a0"));
    let other = spot_order("a3", S0, 0, "0").replace("\"price\":10000", "\"price\":10001");
    assert_not_applied(
        &run(
            u(),
            Options::new(),
            &[("spot.order_current", &orders(&[other]))],
        ),
        "no order",
    );
    let other = spot_order("a3", S0, 0, "0").replace("BTC_USDT", "ETH_USDT");
    assert_not_applied(
        &run(
            u(),
            Options::new(),
            &[("spot.order_current", &orders(&[other]))],
        ),
        "no order",
    );
    // A record without a creation time can only make it ambiguous.
    let untimed = spot_order("a4", S0, 0, "0").replace("\"created_date\":1700000000,", "");
    assert_ambiguous(
        &run(
            u(),
            Options::new(),
            &[("spot.order_current", &orders(&[untimed]))],
        ),
        &["a4"],
    );
}

#[test]
fn spot_market_buy_is_matched_on_its_quote_amount() {
    let req = spot::PlaceOrderRequest::new(
        spot::Market::Spot,
        "btc_usdt",
        spot::MarketOrder::buy(Amount::new(dec("25"))),
    );
    let rec = format!(
        r#"{{"code":0,"data":[{{"order_id":"m1","symbol":"BTC_USDT","created_date":{S0},"price":0,
        "amount":0,"cash_amount":25.0,"executed_amount":0.0008,"status":2,"type":"buy_market"}}]}}"#
    );
    let o = run(unknown(&req), snap(), &[("spot.order_history", &rec)]);
    assert_eq!(applied_id(&o).as_deref(), Some("m1"));
}

#[test]
fn spot_batch_verdicts() {
    let a = spot::LimitOrder::buy(Amount::new(dec("0.01")), Price::new(dec("10000")));
    let b = spot::LimitOrder::buy(Amount::new(dec("0.01")), Price::new(dec("10001.5")));
    let req = spot::BatchPlaceOrdersRequest::new(spot::Market::Spot, "btc_usdt", [a, a, b]);
    let rec_b = spot_order("b1", S0, 0, "0").replace("\"price\":10000", "\"price\":10001.50");
    let all = orders(&[
        spot_order("a2", S0 + 1, 0, "0"),
        spot_order("a1", S0, 2, "0.01"),
        rec_b.clone(),
    ]);
    let o = run(unknown(&req), snap(), &[("spot.order_history", &all)]);
    let ids: Vec<_> = o
        .verdicts
        .iter()
        .map(|v| match v {
            Verdict::Applied { id, .. } => id.clone().unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    // Identical elements take the records in creation order.
    assert_eq!(ids, ["a1", "a2", "b1"]);
    assert_eq!(o.resolution(), Resolution::Applied);
    assert_eq!(
        o.summary(),
        "spot.order_batch_new: 3 elements: 3 applied, 0 not applied, 0 ambiguous"
    );
    // Nothing: every element not applied.
    let o = run(unknown(&req), Options::new(), &[]);
    assert!(o.verdicts.iter().all(Verdict::is_not_applied), "{o:?}");
    assert_eq!(o.resolution(), Resolution::NotApplied);
    // Only one of two identical records: the pair is ambiguous; the batch rule makes the
    // missing third element ambiguous too.
    let part = orders(&[spot_order("a1", S0, 0, "0")]);
    let o = run(unknown(&req), snap(), &[("spot.order_current", &part)]);
    assert!(o.verdicts.iter().all(Verdict::is_ambiguous), "{o:?}");
    assert!(format!("{:?}", o.verdicts[2]).contains("all-or-nothing"));
    // Without a snapshot, the records found are ambiguous (they may be older).
    let o = run(
        unknown(&req),
        Options::new(),
        &[("spot.order_history", &all)],
    );
    assert!(o.verdicts.iter().all(Verdict::is_ambiguous), "{o:?}");
}

#[test]
fn spot_cancel_verdicts() {
    let req = spot::CancelOrdersRequest::new(spot::Market::Spot, ["c1", "o1", "f1", "x1"]);
    let list = orders(&[
        spot_order("c1", S0 - 100, 3, "0"),
        spot_order("o1", S0 - 100, 1, "0.002"),
        spot_order("f1", S0 - 100, 2, "0.01"),
    ]);
    let (o, reads) = run_with(unknown(&req), Options::new(), |_| body(&list));
    assert_eq!(reads, ["spot.order"]);
    assert!(o.verdicts[0].is_applied());
    assert!(matches!(&o.verdicts[1], Verdict::NotApplied { why } if why.contains("still open")));
    assert!(
        matches!(&o.verdicts[2], Verdict::NotApplied { why } if why == "already filled: nothing to cancel (f1)")
    );
    assert!(
        matches!(&o.verdicts[3], Verdict::NotApplied { why } if why.contains("does not know order x1"))
    );
    assert_eq!(o.resolution(), Resolution::Mixed);
    // None found: the venue answers 20013.
    let (o, _) = run_with(unknown(&req), Options::new(), |_| Answer::Refused(20013));
    assert!(o.verdicts.iter().all(Verdict::is_not_applied), "{o:?}");
}

#[test]
fn spot_transfer_verdicts() {
    let req = spot::TransferRequest::new(
        "usdt",
        Amount::new(dec("100")),
        spot::TransferAccount::Spot,
        spot::TransferAccount::Margin,
    );
    let log = |entries: &[(i64, &str)]| {
        let e: Vec<String> = entries
            .iter()
            .map(|(t, n)| {
                format!(r#"{{"time":{t},"num":{n},"balance":900,"currency_mark":"USDT","type":4}}"#)
            })
            .collect();
        format!(
            r#"{{"code":0,"data":{{"finance":[{}],"total":"{}"}}}}"#,
            e.join(","),
            e.len()
        )
    };
    let (o, reads) = run_with(unknown(&req), snap(), |r| {
        assert!(matches!(r, Read::SpotFinanceLog(_)));
        body(&log(&[(S0 + 1, "-100.00")]))
    });
    assert_eq!(reads, ["spot.financelog"]);
    match only(&o) {
        Verdict::Applied { id: None, record } => {
            assert_eq!(record, "spot finance log: -100 usdt at 1700000001 (type 4)")
        }
        other => panic!("{other:?}"),
    }
    // The same amount in, another amount, or outside the window: none.
    let o = run(
        unknown(&req),
        Options::new(),
        &[(
            "spot.financelog",
            &log(&[(S0, "100"), (S0, "-99"), (S0 - 60, "-100")]),
        )],
    );
    assert_not_applied(&o, "no change of -100 usdt");
    let o = run(
        unknown(&req),
        Options::new(),
        &[("spot.financelog", &log(&[(S0, "-100"), (S0 + 1, "-100")]))],
    );
    assert!(only(&o).is_ambiguous());
    // Without a snapshot, one entry in the window may still be an older transfer's.
    let o = run(
        unknown(&req),
        Options::new(),
        &[("spot.financelog", &log(&[(S0 + 1, "-100")]))],
    );
    assert!(only(&o).is_ambiguous(), "{o:?}");
}

#[test]
fn margin_close_verdicts() {
    let req = spot::ClosePositionRequest::new("btc_usdt");
    let close = format!(
        r#"{{"code":0,"data":[{{"order_id":"z1","symbol":"BTC_USDT","created_date":{S0},"price":0,
        "amount":0.01,"executed_amount":0.01,"status":2,"type":"sell_market","kind":"margin"}}]}}"#
    );
    let (o, reads) = run_with(unknown(&req), snap(), |r| match r {
        Read::SpotOrderHistory(_) => body(&close),
        other => body(empty(other.endpoint())),
    });
    assert_eq!(reads, ["spot.margin_positions", "spot.order_history"]);
    assert_eq!(applied_id(&o).as_deref(), Some("z1"));
    let position = r#"{"code":0,"positions":[{"symbol":"BTC_USDT","side":"long","amount":0.01,
        "leverage_ratio":3}]}"#;
    let o = run(
        unknown(&req),
        Options::new(),
        &[("spot.margin_positions", position)],
    );
    assert_not_applied(&o, "still open (long 0.01)");
    let o = run(unknown(&req), Options::new(), &[]);
    assert_not_applied(&o, "nothing is left to close");
}

#[test]
fn withdraw_verdicts() {
    let req = spot::WithdrawRequest::new("eth", "0xc0ffee", Amount::new(dec("2")));
    let rec = |id: u64, date: &str| {
        format!(
            r#"{{"id":{id},"currency":"ETH","hashId":"","chain":"","amount":2.0,"address":"0xc0ffee",
            "memo":"","fee":"0.005","state":1,"created_date":"{date}","update_date":"{date}"}}"#
        )
    };
    let list = |r: &[String]| format!(r#"{{"code":200,"data":[{}]}}"#, r.join(","));
    let now = rec(7, "2023-11-14 22:13:21");
    let o = run(
        unknown(&req),
        snap(),
        &[("spot.withdraw_history", &list(std::slice::from_ref(&now)))],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("7"));
    let two = list(&[now.clone(), rec(6, "2023-11-14 22:13:19")]);
    assert_ambiguous(
        &run(
            unknown(&req),
            Options::new(),
            &[("spot.withdraw_history", &two)],
        ),
        &["6", "7"],
    );
    let o = run(
        unknown(&req),
        snap().known_ids(["6"]),
        &[("spot.withdraw_history", &two)],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("7"));
    let old = list(&[rec(5, "2023-11-14 22:10:00")]);
    assert_not_applied(
        &run(
            unknown(&req),
            Options::new(),
            &[("spot.withdraw_history", &old)],
        ),
        "no withdrawal",
    );

    // Cancelling: state 4 applied, 1 pending, 3 too late.
    let cancel = spot::CancelWithdrawRequest::new("7");
    let state = |s: i64| {
        list(&[rec(7, "2023-11-14 22:00:00").replace("\"state\":1", &format!("\"state\":{s}"))])
    };
    let (o, reads) = run_with(unknown(&cancel), Options::new(), |_| body(&state(4)));
    assert_eq!(reads, ["spot.withdraw_history"]);
    assert_eq!(applied_id(&o).as_deref(), Some("7"));
    assert_not_applied(
        &run(
            unknown(&cancel),
            Options::new(),
            &[("spot.withdraw_history", &state(1))],
        ),
        "still pending",
    );
    assert_not_applied(
        &run(
            unknown(&cancel),
            Options::new(),
            &[("spot.withdraw_history", &state(3))],
        ),
        "too late",
    );
    assert_not_applied(
        &run(unknown(&cancel), Options::new(), &[]),
        "no withdrawal 7",
    );
}

// ---------------------------------------------------------------------------------------------
// Swap

fn swap_order(id: &str, insert: i64, state: i64, filled: &str) -> String {
    format!(
        r#"{{"order_id":"{id}","instrument_id":"BTCUSDTPERP","type":1,"order_type":0,
        "price":"29000","size":"1","filled_qty":"{filled}","state":{state},"insert_time":{insert}}}"#
    )
}

fn data(list: &[String]) -> String {
    format!(r#"{{"code":0,"data":[{}]}}"#, list.join(","))
}

#[test]
fn swap_order_verdicts() {
    let u = || unknown(&swap::PlaceOrderRequest::new(swap_long()));
    let (o, reads) = run_with(u(), Options::new(), |r| body(empty(r.endpoint())));
    assert_eq!(reads, ["swap.open_orders", "swap.history_orders"]);
    assert_not_applied(&o, "no order of this instrument");
    let open = data(&[swap_order("111", T0 + 300, 0, "0")]);
    assert_eq!(
        applied_id(&run(u(), snap(), &[("swap.open_orders", &open)])).as_deref(),
        Some("111")
    );
    // Without a snapshot, 300 ms after the build is within the clock uncertainty: ambiguous;
    // after build + uncertainty, certainly this write's.
    assert_ambiguous(
        &run(u(), Options::new(), &[("swap.open_orders", &open)]),
        &["111"],
    );
    let after = data(&[swap_order("116", T0 + 5_001, 0, "0")]);
    assert_eq!(
        applied_id(&run(u(), Options::new(), &[("swap.open_orders", &after)])).as_deref(),
        Some("116")
    );
    // Filled at once: in the history only; partly filled: open.
    let filled = data(&[swap_order("112", T0 + 300, 2, "1")]);
    assert_eq!(
        applied_id(&run(u(), snap(), &[("swap.history_orders", &filled)])).as_deref(),
        Some("112")
    );
    let part = data(&[swap_order("113", T0 + 300, 1, "0.5")]);
    assert_eq!(
        applied_id(&run(u(), snap(), &[("swap.open_orders", &part)])).as_deref(),
        Some("113")
    );
    let two = data(&[
        swap_order("111", T0 - 1000, 0, "0"),
        swap_order("114", T0 + 300, 0, "0"),
    ]);
    assert_ambiguous(
        &run(u(), Options::new(), &[("swap.open_orders", &two)]),
        &["111", "114"],
    );
    let o = run(
        u(),
        snap().known_ids(["111"]),
        &[("swap.open_orders", &two)],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("114"));
    let old = data(&[swap_order("110", T0 - 5_001, 0, "0")]);
    assert_not_applied(
        &run(u(), Options::new(), &[("swap.open_orders", &old)]),
        "no order",
    );
    // After the reads plus the uncertainty: not this write's either.
    let late = data(&[swap_order("115", READ_AT + 5_001, 0, "0")]);
    assert_not_applied(
        &run(u(), Options::new(), &[("swap.open_orders", &late)]),
        "no order",
    );
}

#[test]
fn swap_batch_order_verdicts() {
    let other = swap::OrderSpec::limit(
        "BTCUSDTPERP",
        swap::OrderSide::OpenShort,
        Size::new(Decimal::from(2)),
        Price::new(dec("31000")),
    );
    let req = swap::BatchPlaceOrdersRequest::new([swap_long(), other]);
    let list = data(&[swap_order("1", T0 + 10, 0, "0")]);
    let (o, reads) = run_with(unknown(&req), snap(), |r| match r {
        Read::SwapOpenOrders(_) => body(&list),
        other => body(empty(other.endpoint())),
    });
    // One instrument: read once.
    assert_eq!(reads, ["swap.open_orders", "swap.history_orders"]);
    assert!(matches!(&o.verdicts[0], Verdict::Applied { id: Some(id), .. } if id == "1"));
    assert!(o.verdicts[1].is_not_applied());
    assert_eq!(o.resolution(), Resolution::Mixed);
    assert!(o.what_to_do().starts_with("Some elements took effect"));
}

#[test]
fn swap_cancel_verdicts() {
    let req = swap::CancelOrderRequest::new("BTCUSDTPERP", "9");
    let info = |state: i64, filled: &str| {
        format!(
            r#"{{"code":0,"data":{}}}"#,
            swap_order("9", T0 - 60_000, state, filled)
        )
    };
    let (o, reads) = run_with(unknown(&req), Options::new(), |_| body(&info(-1, "0")));
    assert_eq!(reads, ["swap.order_info"]);
    assert_eq!(applied_id(&o).as_deref(), Some("9"));
    let o = run(
        unknown(&req),
        Options::new(),
        &[("swap.order_info", &info(2, "1"))],
    );
    assert_not_applied(&o, "already filled: nothing to cancel");
    let o = run(
        unknown(&req),
        Options::new(),
        &[("swap.order_info", &info(0, "0"))],
    );
    assert_not_applied(&o, "still open");
    let (o, _) = run_with(unknown(&req), Options::new(), |_| Answer::Refused(400002));
    assert_not_applied(&o, "does not know order 9");

    // Batch: one read per element.
    let batch = swap::BatchCancelOrdersRequest::new([("BTCUSDTPERP", "1"), ("BTCUSDTPERP", "2")]);
    let (o, reads) = run_with(unknown(&batch), Options::new(), |r| match r {
        Read::SwapOrderInfo(q)
            if q.clone() == swap::OrderInfoRequest::new("1").instrument_id("BTCUSDTPERP") =>
        {
            body(&format!(
                r#"{{"code":0,"data":{}}}"#,
                swap_order("1", T0, -1, "0")
            ))
        }
        _ => body(&format!(
            r#"{{"code":0,"data":{}}}"#,
            swap_order("2", T0, 2, "1")
        )),
    });
    assert_eq!(reads, ["swap.order_info", "swap.order_info"]);
    assert!(o.verdicts[0].is_applied());
    assert!(o.verdicts[1].is_not_applied());
}

#[test]
fn swap_transfer_verdicts() {
    let req = swap::TransferRequest::new(
        swap::TransferType::SpotToSwap,
        "USDT",
        Amount::new(dec("250")),
    );
    let rec = |id: &str, ty: i64, at: i64| {
        format!(
            r#"{{"transfer_id":{id},"type":{ty},"currency":"USDT","amount":"250.0","timestamp":{at}}}"#
        )
    };
    let o = run(
        unknown(&req),
        snap(),
        &[("swap.transfer_record", &data(&[rec("77", 1, T0 + 5)]))],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("77"));
    // Out instead of in, or known: none.
    let o = run(
        unknown(&req),
        Options::new().known_ids(["78"]),
        &[(
            "swap.transfer_record",
            &data(&[rec("76", 2, T0), rec("78", 1, T0)]),
        )],
    );
    assert_not_applied(&o, "no transfer of 250 USDT");
    let o = run(
        unknown(&req),
        Options::new(),
        &[(
            "swap.transfer_record",
            &data(&[rec("78", 1, T0), rec("79", 1, T0 + 1)]),
        )],
    );
    assert_ambiguous(&o, &["78", "79"]);
}

fn position(side: &str, mode: &str, lev: &str, posi_balance: &str) -> String {
    format!(
        r#"{{"instrument_id":"BTCUSDTPERP","margin_mode":"{mode}","side":"{side}","leverage":"{lev}",
        "position":"2","posi_balance":"{posi_balance}","margin":"{posi_balance}"}}"#
    )
}

#[test]
fn leverage_and_margin_mode_verdicts() {
    let req = swap::LeverageRequest::new("BTCUSDTPERP", Decimal::from(20));
    let (o, reads) = run_with(unknown(&req), Options::new(), |r| match r {
        Read::SwapPositions(_) => body(&data(&[position("short", "crossed", "20.0", "")])),
        other => body(empty(other.endpoint())),
    });
    assert_eq!(reads, ["swap.positions", "swap.open_orders"]);
    assert!(only(&o).is_applied(), "{o:?}");
    assert!(o.resend_is_harmless);
    assert!(o.what_to_do().contains("harmless"));
    let o = run(
        unknown(&req),
        Options::new(),
        &[(
            "swap.positions",
            &data(&[position("short", "crossed", "10", "")]),
        )],
    );
    assert_not_applied(&o, "shows leverage 10, not 20");
    let o = run(unknown(&req), Options::new(), &[]);
    assert_not_applied(&o, "setting it again is harmless");
    // An open order shows the leverage too.
    let order =
        data(&[swap_order("5", T0 - 100_000, 0, "0")
            .replace("\"state\"", "\"leverage\":\"20\",\"state\"")]);
    assert!(only(&run(
        unknown(&req),
        Options::new(),
        &[("swap.open_orders", &order)]
    ))
    .is_applied());

    let mode = swap::PositionModeRequest::new("BTCUSDTPERP", swap::MarginMode::Isolated);
    let o = run(
        unknown(&mode),
        Options::new(),
        &[(
            "swap.positions",
            &data(&[position("long", "isolated", "5", "10")]),
        )],
    );
    assert!(only(&o).is_applied(), "{o:?}");
    let o = run(
        unknown(&mode),
        Options::new(),
        &[(
            "swap.positions",
            &data(&[position("long", "crossed", "5", "")]),
        )],
    );
    assert_not_applied(&o, "shows margin mode crossed, not isolated");
    assert_not_applied(&run(unknown(&mode), Options::new(), &[]), "cannot be read");
}

#[test]
fn position_margin_verdicts() {
    let req = swap::PositionMarginRequest::new(
        "BTCUSDTPERP",
        swap::PositionSide::Long,
        swap::MarginAdjustment::Add,
        Amount::new(dec("5")),
    );
    let pos = |m: &str| data(&[position("long", "isolated", "10", m)]);
    let before = Options::new().position_margin_before(dec("10"));
    let o = run(
        unknown(&req),
        before.clone(),
        &[("swap.positions", &pos("15.00"))],
    );
    assert!(only(&o).is_applied(), "{o:?}");
    assert_not_applied(
        &run(
            unknown(&req),
            before.clone(),
            &[("swap.positions", &pos("10"))],
        ),
        "still 10",
    );
    assert!(only(&run(
        unknown(&req),
        before,
        &[("swap.positions", &pos("12"))]
    ))
    .is_ambiguous());
    // Without the margin before: ambiguous.
    assert!(only(&run(
        unknown(&req),
        Options::new(),
        &[("swap.positions", &pos("15"))]
    ))
    .is_ambiguous());
    assert_not_applied(&run(unknown(&req), Options::new(), &[]), "no long position");
}

// ---------------------------------------------------------------------------------------------
// Copy trading

fn copy_position(id: &str, open: i64, volume: &str, tp: &str) -> String {
    format!(
        r#"{{"instrument_name":"BTCUSDTPERP","leverage":"10","direction":1,"open_time":{open},
        "order_id":"{id}","volume_total_original":"{volume}","margin_mode":1,"is_closing":false,
        "stop_earn_trigger_price_type":2,"stop_earn_trigger_price":"{tp}","stop_loss_trigger_price":""}}"#
    )
}

fn page(list: &[String]) -> String {
    format!(
        r#"{{"code":0,"data":{{"res":1,"list":[{}]}}}}"#,
        list.join(",")
    )
}

#[test]
fn sponsor_verdicts() {
    let u = || unknown(&sponsor());
    let (o, reads) = run_with(u(), Options::new(), |r| body(empty(r.endpoint())));
    assert_eq!(
        reads,
        [
            "swap.follow.expert_current_open_order",
            "swap.follow.user_center_current",
            "swap.follow.user_center_history"
        ]
    );
    assert_not_applied(&o, "no sponsored order");
    // Filled at once: a copy position.
    let cur = page(&[copy_position("c1", T0 + 200, "3", "")]);
    let o = run(u(), snap(), &[("swap.follow.user_center_current", &cur)]);
    assert_eq!(applied_id(&o).as_deref(), Some("c1"));
    // Still open (resting), with the same id partly filled as a position: one candidate.
    let open = format!(
        r#"{{"code":0,"data":{{"list":[{{"instrument_name":"BTCUSDTPERP","leverage":"10","direction":1,
        "order_price":"0","commission_amount":"3","status":1,"order_price_type":1,"order_time":{},
        "order_id":"c1","margin_mode":1}}]}}}}"#,
        T0 + 200
    );
    let part = page(&[copy_position("c1", T0 + 200, "1", "")]);
    let o = run(
        u(),
        snap(),
        &[
            ("swap.follow.expert_current_open_order", &open),
            ("swap.follow.user_center_current", &part),
        ],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("c1"));
    // Two positions: ambiguous; the known one excluded; another leverage: none.
    let two = page(&[
        copy_position("c1", T0 + 200, "3", ""),
        copy_position("c2", T0 - 2000, "3", ""),
    ]);
    assert_ambiguous(
        &run(
            u(),
            Options::new(),
            &[("swap.follow.user_center_current", &two)],
        ),
        &["c1", "c2"],
    );
    let o = run(
        u(),
        snap().known_ids(["c2"]),
        &[("swap.follow.user_center_current", &two)],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("c1"));
    let other = page(&[
        copy_position("c3", T0, "3", "").replace("\"leverage\":\"10\"", "\"leverage\":\"5\"")
    ]);
    assert_not_applied(
        &run(
            u(),
            Options::new(),
            &[("swap.follow.user_center_current", &other)],
        ),
        "no sponsored",
    );
}

#[test]
fn copy_close_and_cancel_verdicts() {
    let close = swap::CloseCopyOrderRequest::new("c1");
    let hist = |status: i64, at: i64| {
        format!(
            r#"{{"code":0,"data":{{"list":[{{"instrument_name":"BTCUSDTPERP","order_id":"c1","status":{status},
            "close_time":{at},"open_time":{},"direction":1}}]}}}}"#,
            T0 - 60_000
        )
    };
    let o = run(
        unknown(&close),
        Options::new(),
        &[("swap.follow.user_center_history", &hist(2, T0 + 100))],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("c1"));
    let o = run(
        unknown(&close),
        Options::new(),
        &[("swap.follow.user_center_history", &hist(1, T0 + 100))],
    );
    assert_not_applied(&o, "already closed");
    let o = run(
        unknown(&close),
        Options::new(),
        &[("swap.follow.user_center_history", &hist(2, T0 - 60_000))],
    );
    assert_not_applied(&o, "closed before this request");
    let cur = page(&[copy_position("c1", T0 - 60_000, "3", "")]);
    assert_not_applied(
        &run(
            unknown(&close),
            Options::new(),
            &[("swap.follow.user_center_current", &cur)],
        ),
        "still open",
    );

    let cancel = swap::CancelCopyOrderRequest::new("c1");
    let info = |state: i64| {
        format!(
            r#"{{"code":0,"data":{}}}"#,
            swap_order("c1", T0 - 60_000, state, "0")
        )
    };
    let (o, reads) = run_with(unknown(&cancel), Options::new(), |r| match r {
        Read::SwapOrderInfo(_) => body(&info(-1)),
        other => body(empty(other.endpoint())),
    });
    assert_eq!(
        reads,
        ["swap.follow.expert_current_open_order", "swap.order_info"]
    );
    assert_eq!(applied_id(&o).as_deref(), Some("c1"));
    assert_not_applied(
        &run(
            unknown(&cancel),
            Options::new(),
            &[("swap.order_info", &info(2))],
        ),
        "already filled",
    );
    assert_not_applied(
        &run(
            unknown(&cancel),
            Options::new(),
            &[("swap.order_info", &info(0))],
        ),
        "still open",
    );
}

#[test]
fn algo_verdicts() {
    let add = swap::AddAlgoRequest::new()
        .order_id("c1")
        .profit_trigger_type(swap::TriggerPriceType::Mark)
        .profit_trigger_price(Price::new(dec("33000")));
    let plans = format!(
        r#"{{"code":0,"data":{{"list":[{{"order_id":"p9","instrument_name":"BTCUSDTPERP","order_time":{},
        "trigger_price":"33000","com_type":2,"status":1}}]}}}}"#,
        T0 + 50
    );
    let with_tp = page(&[copy_position("c1", T0 - 60_000, "3", "33000.0")]);
    let (o, reads) = run_with(unknown(&add), Options::new(), |r| match r {
        Read::CopyCurrent(_) => body(&with_tp),
        Read::PlanTasks(_) => body(&plans),
        other => body(empty(other.endpoint())),
    });
    assert_eq!(
        reads,
        [
            "swap.follow.user_center_current",
            "swap.follow.expert_current_open_order",
            "swap.follow.plan_task"
        ]
    );
    assert_eq!(applied_id(&o).as_deref(), Some("p9"));
    let without = page(&[copy_position("c1", T0 - 60_000, "3", "")]);
    assert_not_applied(
        &run(
            unknown(&add),
            Options::new(),
            &[("swap.follow.user_center_current", &without)],
        ),
        "does not show",
    );

    let cancel = swap::CancelAlgoRequest::new()
        .order_id("c1")
        .cancel_take_profit(true);
    let (o, reads) = run_with(unknown(&cancel), Options::new(), |r| match r {
        Read::CopyCurrent(_) => body(&without),
        other => body(empty(other.endpoint())),
    });
    assert_eq!(
        reads,
        [
            "swap.follow.user_center_current",
            "swap.follow.expert_current_open_order"
        ]
    );
    assert!(only(&o).is_applied(), "{o:?}");
    assert!(o.resend_is_harmless);
    assert_not_applied(
        &run(
            unknown(&cancel),
            Options::new(),
            &[("swap.follow.user_center_current", &with_tp)],
        ),
        "still shows the take-profit at 33000",
    );
}

// ---------------------------------------------------------------------------------------------
// The verdict rule: never applied on a record that may be older than the write

/// The case of issue 25: the same order placed a second before, then this one dropped before
/// it was applied. The older order fits and is in the window: it must never be named applied.
#[test]
fn an_older_identical_order_is_never_taken_for_the_write() {
    let u = || unknown(&spot_buy());
    let older = orders(&[spot_order("a1", S0 - 1, 0, "0")]);
    let o = run(u(), Options::new(), &[("spot.order_current", &older)]);
    assert_ambiguous(&o, &["a1"]);
    match only(&o) {
        Verdict::Ambiguous { why, .. } => assert!(
            why.contains("created before the request can have been built")
                && why.contains("whole-second times"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
    // A snapshot read before the write listed it: not applied, exactly.
    let o = run(
        u(),
        snap().known_ids(["a1"]),
        &[("spot.order_current", &older)],
    );
    assert_not_applied(&o, "no order of this pair");
    // The client's memory (a placed id) excludes it too: not applied.
    let o = run(
        u(),
        Options::new().known_ids(["a1"]),
        &[("spot.order_current", &older)],
    );
    assert_not_applied(&o, "no order of this pair");
    // Spot seconds: a record of second S0 + 6 may still be the build second plus 5 s of
    // uncertainty (T0 + 999 + 5000 = S0 + 5.999); second S0 + 6 is certainly after.
    let edge = orders(&[spot_order("a5", S0 + 5, 0, "0")]);
    assert_ambiguous(
        &run(u(), Options::new(), &[("spot.order_current", &edge)]),
        &["a5"],
    );
    let after = orders(&[spot_order("a6", S0 + 6, 0, "0")]);
    assert_eq!(
        applied_id(&run(u(), Options::new(), &[("spot.order_current", &after)])).as_deref(),
        Some("a6")
    );
}

/// The error carries what the client knew; the reconciler merges it into the options.
#[test]
fn the_prior_travels_with_the_error() {
    let creds = Credentials::new("key", "secret");
    let req = spot_buy();
    let http = build(&req, &Config::default(), Some(&creds), TimestampMillis(T0)).unwrap();
    let timeout = Error::Transport {
        kind: TransportErrorKind::Timeout,
        message: "timed out".into(),
        source: None,
    };
    let mut prior = digifinex_core::reconcile::Prior::new().with_known_ids(["a1"]);
    prior.complete = true;
    let e = settle(&spot::PlaceOrderRequest::META, &http, timeout).with_prior(prior.clone());
    assert_eq!(e.prior(), Some(&prior));
    let u = Unknown::from_error(&e).unwrap();
    assert_eq!(u.prior, prior);
    let both = orders(&[
        spot_order("a1", S0 - 1, 0, "0"),
        spot_order("a2", S0, 0, "0"),
    ]);
    let o = run(u, Options::new(), &[("spot.order_current", &both)]);
    assert_eq!(applied_id(&o).as_deref(), Some("a2"));
    // Other errors carry none and ignore it.
    let v = Error::validation("x", "y").with_prior(prior);
    assert!(v.prior().is_none());
}

/// A list that comes back full may hide the record: "not applied" becomes ambiguous.
#[test]
fn a_full_page_never_gives_not_applied() {
    let other: Vec<String> = (0..100)
        .map(|i| {
            spot_order(&format!("x{i}"), S0, 0, "0").replace("\"price\":10000", "\"price\":9000")
        })
        .collect();
    let o = run(
        unknown(&spot_buy()),
        snap(),
        &[("spot.order_history", &orders(&other))],
    );
    match only(&o) {
        Verdict::Ambiguous { candidates, why } => {
            assert!(candidates.is_empty());
            assert!(why.contains("came back full (100 records)"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    // 99 records: complete, not applied.
    let o = run(
        unknown(&spot_buy()),
        snap(),
        &[("spot.order_history", &orders(&other[..99]))],
    );
    assert_not_applied(&o, "no order");
}

/// Swap batch elements succeed one by one: of two identical elements, one record found after
/// a complete snapshot means one applied and one not.
#[test]
fn identical_swap_batch_elements_found_in_part() {
    let req = swap::BatchPlaceOrdersRequest::new([swap_long(), swap_long()]);
    let one = data(&[swap_order("1", T0 + 10, 0, "0")]);
    let o = run(unknown(&req), snap(), &[("swap.open_orders", &one)]);
    assert!(matches!(&o.verdicts[0], Verdict::Applied { id: Some(id), .. } if id == "1"));
    assert!(
        matches!(&o.verdicts[1], Verdict::NotApplied { why } if why.contains("1 of 2 identical")),
        "{o:?}"
    );
    let two = data(&[
        swap_order("2", T0 + 20, 0, "0"),
        swap_order("1", T0 + 10, 0, "0"),
    ]);
    let o = run(unknown(&req), snap(), &[("swap.open_orders", &two)]);
    let ids: Vec<_> = o
        .verdicts
        .iter()
        .map(|v| match v {
            Verdict::Applied { id, .. } => id.clone().unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, ["1", "2"]);
}

// ---------------------------------------------------------------------------------------------
// The snapshot and the memory

#[test]
fn snapshot_of_a_spot_order_lists_the_evidence_and_knows_when_it_is_complete() {
    use digifinex_core::reconcile::Snapshot;
    let write = Write::SpotOrder(spot_buy());
    let mut s = Snapshot::new(&write, TimestampMillis(T0), &Options::new());
    assert_eq!((s.planned(), s.weight()), (2, 2));
    let mut names = Vec::new();
    while let Some(read) = s.next_read() {
        names.push(read.endpoint());
        if let Read::SpotOrderHistory(h) = &read {
            // The history from the window start the reconciliation will use.
            let http = build(
                h,
                &Config::default(),
                Some(&Credentials::new("k", "s")),
                TimestampMillis(T0),
            )
            .unwrap();
            assert!(
                http.uri()
                    .query()
                    .unwrap()
                    .ends_with("start_time=1699999995"),
                "{:?}",
                http.uri()
            );
        }
        let b = orders(&[spot_order("a1", S0 - 1, 0, "0")]);
        s.feed(read.decode(b.as_bytes()).unwrap());
    }
    assert_eq!(names, ["spot.order_current", "spot.order_history"]);
    let prior = s.finish();
    assert!(prior.complete);
    assert_eq!(prior.known_ids.iter().collect::<Vec<_>>(), ["a1"]);
    assert_eq!((prior.snapshot_reads, prior.snapshot_weight), (2, 2));

    // A full page: not complete.
    let mut s = Snapshot::new(&write, TimestampMillis(T0), &Options::new());
    let full: Vec<String> = (0..100)
        .map(|i| spot_order(&format!("x{i}"), S0, 0, "0"))
        .collect();
    while let Some(read) = s.next_read() {
        s.feed(read.decode(orders(&full).as_bytes()).unwrap());
    }
    let prior = s.finish();
    assert!(!prior.complete);
    assert_eq!(prior.known_ids.len(), 100);
    // Unanswered: not complete.
    let s = Snapshot::new(&write, TimestampMillis(T0), &Options::new());
    assert!(!s.finish().complete);

    // A swap order: open orders and history, the venue's weights 2 and 5.
    let swap_write = Write::SwapOrder(swap::PlaceOrderRequest::new(swap_long()));
    let s = Snapshot::new(&swap_write, TimestampMillis(T0), &Options::new());
    assert_eq!((s.planned(), s.weight()), (2, 7));
    // Cancels and settings need none.
    let cancel = Write::SpotCancel(spot::CancelOrdersRequest::new(spot::Market::Spot, ["a"]));
    let s = Snapshot::new(&cancel, TimestampMillis(T0), &Options::new());
    assert_eq!(s.planned(), 0);
    assert!(!s.finish().complete);
}

/// The finance log has no ids: a snapshot lists its entries by key and rank, so a second
/// identical entry is told from the first.
#[test]
fn snapshot_of_a_spot_transfer_counts_identical_entries() {
    use digifinex_core::reconcile::Snapshot;
    let req = spot::TransferRequest::new(
        "usdt",
        Amount::new(dec("100")),
        spot::TransferAccount::Spot,
        spot::TransferAccount::Margin,
    );
    let entry =
        format!(r#"{{"time":{S0},"num":-100,"balance":900,"currency_mark":"USDT","type":4}}"#);
    let log = |n: usize| {
        format!(
            r#"{{"code":0,"data":{{"finance":[{}],"total":"{n}"}}}}"#,
            vec![entry.clone(); n].join(",")
        )
    };
    let mut s = Snapshot::new(
        &Write::SpotTransfer(req.clone()),
        TimestampMillis(T0 - 500),
        &Options::new(),
    );
    while let Some(read) = s.next_read() {
        s.feed(read.decode(log(1).as_bytes()).unwrap());
    }
    let prior = s.finish();
    assert!(prior.complete);
    let opts = Options::new().prior(&prior);
    // The same single entry: it was there before; not applied.
    assert_not_applied(
        &run(unknown(&req), opts.clone(), &[("spot.financelog", &log(1))]),
        "no change of -100 usdt",
    );
    // A second identical entry in the same second: this write's.
    let o = run(unknown(&req), opts, &[("spot.financelog", &log(2))]);
    assert!(only(&o).is_applied(), "{o:?}");
}

#[test]
fn snapshot_of_a_position_margin_write_reads_the_margin_before() {
    use digifinex_core::reconcile::Snapshot;
    let req = swap::PositionMarginRequest::new(
        "BTCUSDTPERP",
        swap::PositionSide::Long,
        swap::MarginAdjustment::Add,
        Amount::new(dec("5")),
    );
    let mut s = Snapshot::new(
        &Write::PositionMargin(req.clone()),
        TimestampMillis(T0),
        &Options::new(),
    );
    while let Some(read) = s.next_read() {
        assert!(matches!(read, Read::SwapPositions(_)));
        let b = data(&[position("long", "isolated", "10", "10")]);
        s.feed(read.decode(b.as_bytes()).unwrap());
    }
    let prior = s.finish();
    assert_eq!(prior.position_margin, Some(dec("10")));
    let pos = data(&[position("long", "isolated", "10", "15")]);
    let o = run(
        unknown(&req),
        Options::new().prior(&prior),
        &[("swap.positions", &pos)],
    );
    assert!(only(&o).is_applied(), "{o:?}");
}

#[test]
fn created_ids_of_answers() {
    use serde_json::json;
    assert_eq!(
        Write::created_ids_json("spot.order_new", &json!({"order_id": "a1"})),
        ["a1"]
    );
    assert_eq!(
        Write::created_ids_json("spot.order_batch_new", &json!({"order_ids": ["a1", "a2"]})),
        ["a1", "a2"]
    );
    assert_eq!(
        Write::created_ids_json("swap.batch_order", &json!(["1", null, "3"])),
        ["1", "3"]
    );
    assert_eq!(
        Write::created_ids_json("spot.withdraw_new", &json!({"withdraw_id": 7})),
        ["7"]
    );
    assert!(Write::created_ids_json("spot.order_cancel", &json!({"success": ["a1"]})).is_empty());
}

/// A snapshot is complete only for the window it covered: reconciled with a wider clock
/// uncertainty than it was read with, its window starts earlier than its history reads did,
/// and a record there is early again (ambiguous).
#[test]
fn a_snapshot_covers_only_the_window_it_read() {
    use digifinex_core::reconcile::Snapshot;
    let write = Write::SpotOrder(spot_buy());
    let mut s = Snapshot::new(&write, TimestampMillis(T0 - 300), &Options::new());
    while let Some(read) = s.next_read() {
        s.feed(read.decode(orders(&[]).as_bytes()).unwrap());
    }
    let prior = s.finish();
    assert_eq!(
        prior.complete_from,
        Some(TimestampMillis((S0 - 6) * 1000)),
        "the second of now - 5 s"
    );
    let older = orders(&[spot_order("a1", S0 - 8, 0, "0")]);
    let wide = || Options::new().clock_uncertainty(std::time::Duration::from_secs(10));
    let o = run(
        unknown(&spot_buy()),
        wide().prior(&prior),
        &[("spot.order_history", &older)],
    );
    assert_ambiguous(&o, &["a1"]);
    // The same uncertainty as the snapshot's: complete, and a record it did not list is this
    // write's.
    let mine = orders(&[spot_order("a2", S0, 0, "0")]);
    let o = run(
        unknown(&spot_buy()),
        Options::new().prior(&prior),
        &[("spot.order_history", &mine)],
    );
    assert_eq!(applied_id(&o).as_deref(), Some("a2"));
}

/// A write sent through a session carries its typed request: reconciliation takes the write
/// from it, not from the URL and body (which it needs only for errors built without one).
#[test]
fn the_session_hands_the_typed_write_to_reconciliation() {
    use std::sync::Arc;
    let session = digifinex_core::session::Session::builder()
        .credentials(Credentials::new("key", "secret"))
        .clock(Arc::new(digifinex_core::FixedClock(TimestampMillis(T0))))
        .build();
    let req = spot_buy();
    let e = digifinex_core::exchange::send_with(&session, &req, |_: http::Request<Vec<u8>>| {
        Err::<http::Response<Vec<u8>>, _>("connection reset")
    })
    .unwrap_err();
    let Error::OutcomeUnknown {
        method,
        url,
        body,
        endpoint,
        built_at,
        cause,
        prior,
        request,
    } = e
    else {
        panic!("not an unknown outcome: {e:?}")
    };
    let typed = *request.clone().expect("the typed request");
    assert_eq!(
        typed.downcast_ref::<spot::PlaceOrderRequest>(),
        Some(&req),
        "{typed:?}"
    );
    assert_eq!(
        Write::from_request(&typed),
        Some(Write::SpotOrder(req.clone()))
    );
    // The URL and body are not read back when the typed request is there.
    let garbled = Error::OutcomeUnknown {
        method,
        url: "not a url".into(),
        body: "neither form nor JSON".into(),
        endpoint,
        built_at,
        cause: Box::new(Error::validation("x", "the cause")),
        prior: prior.clone(),
        request,
    };
    let u = Unknown::from_error(&garbled).unwrap();
    assert_eq!(u.write, Write::SpotOrder(req.clone()));
    assert_eq!(u.built_at, built_at);
    // Without it, they are.
    let untyped = Error::OutcomeUnknown {
        method: "POST".into(),
        url: "not a url".into(),
        body: String::new(),
        endpoint,
        built_at,
        cause,
        prior,
        request: None,
    };
    assert!(Unknown::from_error(&untyped).is_err());
    // A typed request that is not a write is not taken for one.
    let read = digifinex_core::TypedRequest::new(spot::ServerTimeRequest::new());
    assert_eq!(Write::from_request(&read), None);
    let _ = (url, body);
}
