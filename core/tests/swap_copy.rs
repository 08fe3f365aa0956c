//! Swap copy-trading endpoints (`POST /swap/v2/follow/...`): exact request shapes (URL,
//! headers, JSON body bytes, independently computed signatures), validation, catalog
//! round-trips and decoding.
//!
//! The request bodies and response bodies below are hand-written from the tables of the swap v2
//! API documentation ("Enumerations", "Copy-trading records", the states, "Private: copy
//! trading"), not captured from the library.

mod support;
use support::*;

use digifinex_core::swap::{
    AddAlgoRequest, AlgoAdded, AlgoCancelled, CancelAlgoRequest, CancelCopyOrderRequest,
    CloseCopyOrderRequest, CopyAvailable, CopyAvailableRequest, CopyCloseReason,
    CopyCurrentRequest, CopyCurrentView, CopyHistoryRequest, CopyInstrument,
    CopyInstrumentsRequest, CopyMarginMode, CopyMarketStyle, CopyOrderPriceType, CopyPage,
    CopyPosition, CopyPricing, CopyResult, ExpertOpenOrdersRequest, ExpertOrderStatus, OrderSide,
    PlanComType, PlanStatus, PlanTaskRequest, SponsorOrderAck, SponsorOrderRequest, SponsorSide,
    TriggerCondition, TriggerPriceType, MAX_PLAN_TASK_PAGE,
};
use digifinex_core::{
    ApiCode, Endpoint, Error, ErrorKind, Method, Price, Size, SwapCode, TimestampMillis,
};

const I: &str = "BTCUSDTPERP";
const SPONSOR: &str = "/swap/v2/follow/sponsor_order";
/// An order id above 2^53 and one above u64::MAX.
const BIG_ID: &str = "1590873693003714560";
const HUGE_ID: &str = "123456789012345678901234567890";

fn catalog_invalid(path: &str, json: &str, field: &str) {
    match build_from_json("POST", path, json) {
        Err(Error::Validation { field: f, .. }) => assert_eq!(f, field, "{json}"),
        other => panic!("expected a validation error on {field} for {json}, got {other:?}"),
    }
}

/// The typed request and the catalog request from `json` are the same bytes.
fn assert_round_trip<E: Endpoint>(typed: &E, path: &str, json: &str) {
    let a = render(&build_req(typed).unwrap());
    let b = render(&build_from_json("POST", path, json).unwrap());
    assert_eq!(a, b, "{json}");
}

/// A price from its text.
fn px(s: &str) -> Price {
    Price::new(d(s))
}

/// A number of contracts from its text.
fn sz(s: &str) -> Size {
    Size::new(d(s))
}

fn sponsor(pricing: CopyPricing) -> SponsorOrderRequest {
    SponsorOrderRequest::new(
        I,
        CopyMarginMode::Crossed,
        SponsorSide::OpenLong,
        d("20"),
        sz("5"),
        pricing,
    )
}

// ---------------------------------------------------------------------------------------------
// sponsor_order

#[test]
fn sponsor_order_limit_with_take_profit_and_stop_loss() {
    let req = SponsorOrderRequest::new(
        I,
        CopyMarginMode::Isolated,
        SponsorSide::OpenShort,
        d("12.5"),
        sz("0.25"),
        CopyPricing::Limit(px("30000.10")),
    )
    .take_profit_trigger(TriggerPriceType::Mark)
    .stop_loss_trigger(TriggerPriceType::Index)
    .take_profit_price(px("28000"))
    .stop_loss_price(px("31000.5"));
    let body = concat!(
        r#"{"instrument_id":"BTCUSDTPERP","margin_mode":2,"type":2,"leverage":12.5,"order_num":0.25,"#,
        r#""order_type":0,"limit_price":"30000.10","order_earn_trigger_price_type":2,"#,
        r#""order_loss_trigger_price_type":1,"stop_earn_trigger_price":"28000","#,
        r#""stop_loss_trigger_price":"31000.5"}"#
    );
    assert_swap_signed_post(&req, SPONSOR, body);
    assert_round_trip(&req, SPONSOR, body);
    // Strings for numbers and any member order give the same request.
    assert_round_trip(
        &req,
        SPONSOR,
        r#"{"stop_loss_trigger_price":31000.5,"stop_earn_trigger_price":"28000","order_loss_trigger_price_type":"1","order_earn_trigger_price_type":2,"order_num":"0.25","limit_price":30000.10,"order_type":"0","leverage":"12.5","type":"2","margin_mode":"2","instrument_id":"BTCUSDTPERP"}"#,
    );
}

#[test]
fn sponsor_order_uses_the_copy_trading_numbering() {
    // Priced types: 0 limit, 4 ioc, 5 gtc, 9 fok carry limit_price.
    for (pricing, code) in [
        (CopyPricing::Limit(px("100")), 0),
        (CopyPricing::Ioc(px("100")), 4),
        (CopyPricing::Gtc(px("100")), 5),
        (CopyPricing::Fok(px("100")), 9),
    ] {
        assert_eq!(pricing.price_type().code(), Some(code));
        let body = format!(
            r#"{{"instrument_id":"BTCUSDTPERP","margin_mode":1,"type":1,"leverage":20,"order_num":5,"order_type":{code},"limit_price":"100"}}"#
        );
        assert_swap_signed_post(&sponsor(pricing), SPONSOR, &body);
        assert_round_trip(&sponsor(pricing), SPONSOR, &body);
    }
    // Market styles carry no limit_price.
    for (style, code) in [
        (CopyMarketStyle::OpponentIoc, 1),
        (CopyMarketStyle::Optimal5Ioc, 2),
        (CopyMarketStyle::Optimal10Ioc, 3),
        (CopyMarketStyle::OpponentGtc, 6),
        (CopyMarketStyle::Optimal5Gtc, 7),
        (CopyMarketStyle::Optimal10Gtc, 8),
        (CopyMarketStyle::OpponentFok, 10),
        (CopyMarketStyle::Optimal5Fok, 11),
        (CopyMarketStyle::Optimal10Fok, 12),
    ] {
        assert_eq!(style.price_type(), CopyOrderPriceType::from_code(code));
        let body = format!(
            r#"{{"instrument_id":"BTCUSDTPERP","margin_mode":1,"type":1,"leverage":20,"order_num":5,"order_type":{code}}}"#
        );
        assert_swap_signed_post(&sponsor(CopyPricing::Market(style)), SPONSOR, &body);
        assert_round_trip(&sponsor(CopyPricing::Market(style)), SPONSOR, &body);
    }
    // Code 4 means "ioc at the price" here (copy numbering), not the trade table's
    // IOC_custom_price; codes 13-15 exist only in the trade table and are refused.
    for code in [13, 14, 15, 16, -1] {
        catalog_invalid(
            SPONSOR,
            &format!(
                r#"{{"instrument_id":"BTCUSDTPERP","margin_mode":1,"type":1,"leverage":20,"order_type":{code},"order_num":5}}"#
            ),
            "order_type",
        );
    }
}

#[test]
fn sponsor_order_validation_names_the_field() {
    let limit = CopyPricing::Limit(px("100"));
    assert_invalid(
        &SponsorOrderRequest::new(
            "BTC USDT",
            CopyMarginMode::Crossed,
            SponsorSide::OpenLong,
            d("1"),
            sz("1"),
            limit,
        ),
        "instrument_id",
    );
    assert_invalid(
        &SponsorOrderRequest::new(
            I,
            CopyMarginMode::Unknown(3),
            SponsorSide::OpenLong,
            d("1"),
            sz("1"),
            limit,
        ),
        "margin_mode",
    );
    for lev in ["0", "-5"] {
        assert_invalid(
            &SponsorOrderRequest::new(
                I,
                CopyMarginMode::Crossed,
                SponsorSide::OpenLong,
                d(lev),
                sz("1"),
                limit,
            ),
            "leverage",
        );
    }
    assert_invalid(&sponsor(CopyPricing::Gtc(px("0"))), "limit_price");
    assert_invalid(
        &SponsorOrderRequest::new(
            I,
            CopyMarginMode::Crossed,
            SponsorSide::OpenLong,
            d("1"),
            sz("0"),
            limit,
        ),
        "order_num",
    );
    assert_invalid(
        &sponsor(limit).take_profit_trigger(TriggerPriceType::Unknown(4)),
        "order_earn_trigger_price_type",
    );
    assert_invalid(
        &sponsor(limit).stop_loss_trigger(TriggerPriceType::Unknown(0)),
        "order_loss_trigger_price_type",
    );
    assert_invalid(
        &sponsor(limit).take_profit_price(px("0")),
        "stop_earn_trigger_price",
    );
    assert_invalid(
        &sponsor(limit).stop_loss_price(px("-1")),
        "stop_loss_trigger_price",
    );
}

#[test]
fn sponsor_order_catalog_refuses_what_the_types_cannot_express() {
    let base = r#""instrument_id":"BTCUSDTPERP","margin_mode":1,"leverage":20,"order_num":5"#;
    // Only opening directions.
    for t in [3, 4, 0] {
        catalog_invalid(
            SPONSOR,
            &format!(r#"{{{base},"type":{t},"order_type":0,"limit_price":"1"}}"#),
            "type",
        );
    }
    // limit_price on a market style; missing for a priced type.
    catalog_invalid(
        SPONSOR,
        &format!(r#"{{{base},"type":1,"order_type":1,"limit_price":"1"}}"#),
        "limit_price",
    );
    for t in [0, 4, 5, 9] {
        catalog_invalid(
            SPONSOR,
            &format!(r#"{{{base},"type":1,"order_type":{t}}}"#),
            "limit_price",
        );
    }
    // Unknown numbered values are refused at build time.
    catalog_invalid(
        SPONSOR,
        r#"{"instrument_id":"BTCUSDTPERP","margin_mode":3,"type":1,"leverage":20,"order_type":1,"order_num":5}"#,
        "margin_mode",
    );
    catalog_invalid(
        SPONSOR,
        &format!(r#"{{{base},"type":1,"order_type":1,"order_earn_trigger_price_type":4}}"#),
        "order_earn_trigger_price_type",
    );
    catalog_invalid(
        SPONSOR,
        &format!(r#"{{{base},"type":1,"order_type":1,"order_loss_trigger_price_type":"x"}}"#),
        "order_loss_trigger_price_type",
    );
    // Required members.
    for missing in ["instrument_id", "margin_mode", "leverage", "order_num"] {
        let json = format!(
            r#"{{{}}}"#,
            [
                r#""instrument_id":"BTCUSDTPERP""#,
                r#""margin_mode":1"#,
                r#""type":1"#,
                r#""leverage":20"#,
                r#""order_type":1"#,
                r#""order_num":5"#,
            ]
            .iter()
            .filter(|m| !m.contains(&format!("\"{missing}\"")))
            .copied()
            .collect::<Vec<_>>()
            .join(",")
        );
        catalog_invalid(SPONSOR, &json, missing);
    }
    catalog_invalid(SPONSOR, &format!(r#"{{{base},"order_type":1}}"#), "type");
    catalog_invalid(SPONSOR, &format!(r#"{{{base},"type":1}}"#), "order_type");
}

// ---------------------------------------------------------------------------------------------
// close_order, cancel_order

#[test]
fn close_order_shape_validation_round_trip() {
    let p = "/swap/v2/follow/close_order";
    let body = format!(r#"{{"open_order_id":"{BIG_ID}"}}"#);
    assert_swap_signed_post(&CloseCopyOrderRequest::new(BIG_ID), p, &body);
    assert_round_trip(&CloseCopyOrderRequest::new(BIG_ID), p, &body);
    assert_round_trip(
        &CloseCopyOrderRequest::new(BIG_ID),
        p,
        &format!(r#"{{"open_order_id":{BIG_ID}}}"#),
    );
    assert_invalid(&CloseCopyOrderRequest::new(""), "open_order_id");
    catalog_invalid(p, "{}", "open_order_id");
    // The wrong name is the news: it is refused, naming the one this endpoint takes.
    catalog_invalid(p, r#"{"order_id":"1"}"#, "order_id");
    let e = build_from_json("POST", p, r#"{"order_id":"1"}"#).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown parameter `order_id`: this endpoint takes: open_order_id"
    );
}

#[test]
fn cancel_order_sends_order_id_and_accepts_the_spec_spelling_order_i() {
    let p = "/swap/v2/follow/cancel_order";
    let body = format!(r#"{{"order_id":"{BIG_ID}"}}"#);
    assert_swap_signed_post(&CancelCopyOrderRequest::new(BIG_ID), p, &body);
    assert_round_trip(&CancelCopyOrderRequest::new(BIG_ID), p, &body);
    // The spec writes the parameter `order_i`; the catalog accepts it and still sends
    // `order_id`, byte for byte the same request.
    assert_round_trip(
        &CancelCopyOrderRequest::new(BIG_ID),
        p,
        &format!(r#"{{"order_i":"{BIG_ID}"}}"#),
    );
    let req = build_from_json("POST", p, &format!(r#"{{"order_i":{BIG_ID}}}"#)).unwrap();
    assert_eq!(req.body(), body.as_bytes());
    // Both spellings with the same value are fine; with different values, refused.
    assert_round_trip(
        &CancelCopyOrderRequest::new(BIG_ID),
        p,
        &format!(r#"{{"order_id":"{BIG_ID}","order_i":"{BIG_ID}"}}"#),
    );
    catalog_invalid(p, r#"{"order_id":"1","order_i":"2"}"#, "order_i");
    catalog_invalid(p, "{}", "order_id");
    assert_invalid(&CancelCopyOrderRequest::new(""), "order_id");
    assert_invalid(&CancelCopyOrderRequest::new("1 2"), "order_id");
}

// ---------------------------------------------------------------------------------------------
// user_center_current, user_center_history, expert_current_open_order

#[test]
fn user_center_current_shapes() {
    let p = "/swap/v2/follow/user_center_current";
    // Defaults (page 1, size 10) are the server's: not sent.
    let min = CopyCurrentRequest::new(CopyCurrentView::Detailed);
    assert_swap_signed_post(&min, p, r#"{"type":1}"#);
    assert_round_trip(&min, p, r#"{"type":1}"#);
    let full = CopyCurrentRequest::new(CopyCurrentView::Summary)
        .page(2)
        .size(50)
        .instrument_id(I);
    let body = r#"{"page":2,"size":50,"instrument_id":"BTCUSDTPERP","type":2}"#;
    assert_swap_signed_post(&full, p, body);
    assert_round_trip(
        &full,
        p,
        r#"{"type":"2","instrument_id":"BTCUSDTPERP","size":"50","page":2}"#,
    );
    // No upper bound on size (the spec states none).
    assert!(build_req(&CopyCurrentRequest::new(CopyCurrentView::Detailed).size(1000)).is_ok());
}

#[test]
fn user_center_current_validation() {
    let p = "/swap/v2/follow/user_center_current";
    assert_invalid(
        &CopyCurrentRequest::new(CopyCurrentView::Detailed).page(0),
        "page",
    );
    assert_invalid(
        &CopyCurrentRequest::new(CopyCurrentView::Detailed).size(0),
        "size",
    );
    assert_invalid(
        &CopyCurrentRequest::new(CopyCurrentView::Detailed).instrument_id("x y"),
        "instrument_id",
    );
    catalog_invalid(p, "{}", "type");
    catalog_invalid(p, r#"{"type":3}"#, "type");
    catalog_invalid(p, r#"{"type":0}"#, "type");
    catalog_invalid(p, r#"{"type":1,"page":0}"#, "page");
    catalog_invalid(p, r#"{"type":1,"page":-1}"#, "page");
    catalog_invalid(p, r#"{"type":1,"size":0}"#, "size");
    catalog_invalid(p, r#"{"type":1,"limit":5}"#, "limit");
}

#[test]
fn user_center_history_and_expert_open_orders_shapes() {
    for p in [
        "/swap/v2/follow/user_center_history",
        "/swap/v2/follow/expert_current_open_order",
    ] {
        let full = r#"{"page":3,"size":1,"instrument_id":"ETHUSDTPERP"}"#;
        if p.ends_with("history") {
            assert_swap_signed_post(&CopyHistoryRequest::new(), p, "{}");
            assert_round_trip(&CopyHistoryRequest::new(), p, "{}");
            let typed = CopyHistoryRequest::new()
                .page(3)
                .size(1)
                .instrument_id("ETHUSDTPERP");
            assert_swap_signed_post(&typed, p, full);
            assert_round_trip(&typed, p, full);
            assert_swap_signed_post(&CopyHistoryRequest::new().size(20), p, r#"{"size":20}"#);
            assert_invalid(&CopyHistoryRequest::new().page(0), "page");
            assert_invalid(&CopyHistoryRequest::new().size(0), "size");
        } else {
            assert_swap_signed_post(&ExpertOpenOrdersRequest::new(), p, "{}");
            assert_round_trip(&ExpertOpenOrdersRequest::new(), p, "{}");
            let typed = ExpertOpenOrdersRequest::new()
                .page(3)
                .size(1)
                .instrument_id("ETHUSDTPERP");
            assert_swap_signed_post(&typed, p, full);
            assert_round_trip(&typed, p, full);
            assert_swap_signed_post(&ExpertOpenOrdersRequest::new().page(7), p, r#"{"page":7}"#);
            assert_invalid(&ExpertOpenOrdersRequest::new().page(0), "page");
            assert_invalid(&ExpertOpenOrdersRequest::new().size(0), "size");
            assert_invalid(
                &ExpertOpenOrdersRequest::new().instrument_id(""),
                "instrument_id",
            );
        }
        catalog_invalid(p, r#"{"page":0}"#, "page");
        catalog_invalid(p, r#"{"size":"0"}"#, "size");
        catalog_invalid(p, r#"{"type":1}"#, "type");
    }
}

// ---------------------------------------------------------------------------------------------
// add_algo, cancel_algo

#[test]
fn add_algo_shapes_and_validation() {
    let p = "/swap/v2/follow/add_algo";
    assert_swap_signed_post(&AddAlgoRequest::new(), p, "{}");
    assert_round_trip(&AddAlgoRequest::new(), p, "{}");
    let full = AddAlgoRequest::new()
        .order_id(BIG_ID)
        .profit_trigger_type(TriggerPriceType::Market)
        .profit_trigger_price(px("35000.00"))
        .stop_trigger_type(TriggerPriceType::Index)
        .stop_trigger_price(px("25000"));
    let body = format!(
        r#"{{"order_id":"{BIG_ID}","profit_trigger_type":3,"profit_trigger_price":"35000.00","stop_trigger_type":1,"stop_trigger_price":"25000"}}"#
    );
    assert_swap_signed_post(&full, p, &body);
    assert_round_trip(&full, p, &body);
    let tp_only = AddAlgoRequest::new()
        .order_id("7")
        .profit_trigger_type(TriggerPriceType::Mark)
        .profit_trigger_price(px("1"));
    assert_swap_signed_post(
        &tp_only,
        p,
        r#"{"order_id":"7","profit_trigger_type":2,"profit_trigger_price":"1"}"#,
    );
    assert_invalid(
        &AddAlgoRequest::new().profit_trigger_type(TriggerPriceType::Unknown(4)),
        "profit_trigger_type",
    );
    assert_invalid(
        &AddAlgoRequest::new().stop_trigger_type(TriggerPriceType::Unknown(0)),
        "stop_trigger_type",
    );
    assert_invalid(
        &AddAlgoRequest::new().profit_trigger_price(px("0")),
        "profit_trigger_price",
    );
    assert_invalid(
        &AddAlgoRequest::new().stop_trigger_price(px("-1")),
        "stop_trigger_price",
    );
    assert_invalid(&AddAlgoRequest::new().order_id(""), "order_id");
    catalog_invalid(p, r#"{"profit_trigger_type":4}"#, "profit_trigger_type");
    catalog_invalid(p, r#"{"stop_trigger_type":0}"#, "stop_trigger_type");
    catalog_invalid(p, r#"{"stop_trigger_price":"abc"}"#, "stop_trigger_price");
}

#[test]
fn cancel_algo_shapes_and_validation() {
    let p = "/swap/v2/follow/cancel_algo";
    assert_swap_signed_post(&CancelAlgoRequest::new(), p, "{}");
    assert_round_trip(&CancelAlgoRequest::new(), p, "{}");
    let full = CancelAlgoRequest::new()
        .order_id(BIG_ID)
        .cancel_take_profit(true)
        .cancel_stop_loss(false);
    let body = format!(r#"{{"order_id":"{BIG_ID}","stop_profit":1,"stop_loss":0}}"#);
    assert_swap_signed_post(&full, p, &body);
    assert_round_trip(&full, p, &body);
    assert_round_trip(
        &full,
        p,
        &format!(r#"{{"order_id":{BIG_ID},"stop_profit":true,"stop_loss":"0"}}"#),
    );
    assert_swap_signed_post(
        &CancelAlgoRequest::new().cancel_stop_loss(true),
        p,
        r#"{"stop_loss":1}"#,
    );
    catalog_invalid(p, r#"{"stop_profit":2}"#, "stop_profit");
    catalog_invalid(p, r#"{"stop_loss":-1}"#, "stop_loss");
    assert_invalid(&CancelAlgoRequest::new().order_id(" "), "order_id");
}

// ---------------------------------------------------------------------------------------------
// account_available, plan_task, instrument_list

#[test]
fn parameterless_endpoints_send_an_empty_object() {
    for (p, typed) in [
        (
            "/swap/v2/follow/account_available",
            render(&build_req(&CopyAvailableRequest).unwrap()),
        ),
        (
            "/swap/v2/follow/instrument_list",
            render(&build_req(&CopyInstrumentsRequest).unwrap()),
        ),
    ] {
        let want = format!(
            "POST {SWAP_HOST}{p}\ncontent-type: application/json\naccess-key: {KEY}\naccess-sign: {}\naccess-timestamp: 1700000000000\n\n{{}}",
            expected_swap_sign("POST", p, "{}")
        );
        assert_eq!(typed, want);
        assert_eq!(render(&build_from_json("POST", p, "{}").unwrap()), want);
        catalog_invalid(p, r#"{"currency":"USDT"}"#, "currency");
    }
    assert_swap_signed_post(
        &CopyAvailableRequest,
        "/swap/v2/follow/account_available",
        "{}",
    );
    assert_swap_signed_post(
        &CopyInstrumentsRequest,
        "/swap/v2/follow/instrument_list",
        "{}",
    );
}

#[test]
fn plan_task_shapes_and_validation() {
    let p = "/swap/v2/follow/plan_task";
    assert_swap_signed_post(&PlanTaskRequest::new(1, 10), p, r#"{"page":1,"size":10}"#);
    assert_round_trip(&PlanTaskRequest::new(1, 10), p, r#"{"page":"1","size":10}"#);
    assert_swap_signed_post(
        &PlanTaskRequest::new(MAX_PLAN_TASK_PAGE, 200),
        p,
        r#"{"page":50,"size":200}"#,
    );
    assert_invalid(&PlanTaskRequest::new(0, 10), "page");
    assert_invalid(&PlanTaskRequest::new(51, 10), "page");
    assert_invalid(&PlanTaskRequest::new(1, 0), "size");
    catalog_invalid(p, r#"{"size":10}"#, "page");
    catalog_invalid(p, r#"{"page":1}"#, "size");
    catalog_invalid(p, r#"{"page":51,"size":10}"#, "page");
    catalog_invalid(p, "{}", "page");
}

#[test]
fn copy_endpoints_are_signed_posts_that_declare_their_idempotency() {
    /// `idempotent`: the endpoint only reads (docs/protocol.md, "Copy-trading reads"): retried,
    /// and its failures are ordinary errors, never an unknown outcome.
    fn check<E: Endpoint>(path: &str, idempotent: bool) {
        assert_eq!(E::META.method, Method::Post, "{path}");
        assert_eq!(E::META.path, path);
        assert!(E::META.signed, "{path}");
        assert_eq!(E::META.idempotent, idempotent, "{path}");
        assert_eq!(E::META.success_code, 0);
        let (entry, _) = digifinex_core::catalog::find("POST", path).unwrap();
        assert_eq!(entry.meta, E::META);
    }
    check::<SponsorOrderRequest>("/swap/v2/follow/sponsor_order", false);
    check::<CloseCopyOrderRequest>("/swap/v2/follow/close_order", false);
    check::<CancelCopyOrderRequest>("/swap/v2/follow/cancel_order", false);
    check::<CopyCurrentRequest>("/swap/v2/follow/user_center_current", true);
    check::<CopyHistoryRequest>("/swap/v2/follow/user_center_history", true);
    check::<ExpertOpenOrdersRequest>("/swap/v2/follow/expert_current_open_order", true);
    check::<AddAlgoRequest>("/swap/v2/follow/add_algo", false);
    check::<CancelAlgoRequest>("/swap/v2/follow/cancel_algo", false);
    check::<CopyAvailableRequest>("/swap/v2/follow/account_available", true);
    check::<PlanTaskRequest>("/swap/v2/follow/plan_task", true);
    check::<CopyInstrumentsRequest>("/swap/v2/follow/instrument_list", true);
    // The trade and copy-trading cancel_order are distinct entries.
    assert_ne!(
        digifinex_core::catalog::find("POST", "/swap/v2/follow/cancel_order")
            .unwrap()
            .0
            .meta
            .name,
        digifinex_core::catalog::find("POST", "/swap/v2/trade/cancel_order")
            .unwrap()
            .0
            .meta
            .name
    );
}

// ---------------------------------------------------------------------------------------------
// Decoding

/// Decodes a swap body for `E`, returning the JSON paths of unreadable optional values.
fn decode_report<E: Endpoint>(body: &str) -> (E::Output, Vec<String>) {
    let (v, unreadable) = digifinex_core::parse_body_report::<E::Output>(
        &E::META,
        200,
        &http::HeaderMap::new(),
        body.as_bytes(),
    )
    .unwrap();
    (v, unreadable.into_iter().map(|u| u.path).collect())
}

#[test]
fn res_answers_decode_from_objects_and_bare_codes() {
    for (body, want) in [
        (r#"{"code":0,"data":{"res":1}}"#, Some(CopyResult::Success)),
        (r#"{"code":0,"data":{"res":"2"}}"#, Some(CopyResult::Fail)),
        (
            r#"{"code":0,"data":{"result":1}}"#,
            Some(CopyResult::Success),
        ),
        (
            r#"{"code":0,"data":{"res":"fail"}}"#,
            Some(CopyResult::Fail),
        ),
        (
            r#"{"code":0,"data":{"res":"SUCCESS"}}"#,
            Some(CopyResult::Success),
        ),
        (r#"{"code":0,"data":1}"#, Some(CopyResult::Success)),
        (r#"{"code":0,"data":"2"}"#, Some(CopyResult::Fail)),
        (
            r#"{"code":0,"data":{"res":3,"extra":"x"}}"#,
            Some(CopyResult::Unknown(3)),
        ),
        (
            r#"{"code":0,"data":{"res":"pending"}}"#,
            Some(CopyResult::Other("pending".into())),
        ),
        // Acknowledgements without data, or with a placeholder `res`: no `res`.
        (r#"{"code":0}"#, None),
        (r#"{"code":0,"data":null}"#, None),
        (r#"{"code":0,"data":{}}"#, None),
        (r#"{"code":0,"data":""}"#, None),
        (r#"{"code":0,"data":{"res":"-"}}"#, None),
        (r#"{"code":0,"data":{"res":null}}"#, None),
    ] {
        let ack = decode_swap::<SponsorOrderRequest>(body).unwrap();
        assert_eq!(ack, SponsorOrderAck { res: want.clone() }, "{body}");
        assert_eq!(
            decode_swap::<CloseCopyOrderRequest>(body).unwrap().res,
            want
        );
        assert_eq!(
            decode_swap::<CancelCopyOrderRequest>(body).unwrap().res,
            want
        );
    }
    assert_eq!(
        serde_json::to_value(SponsorOrderAck {
            res: Some(CopyResult::Fail)
        })
        .unwrap(),
        serde_json::json!({"res": 2})
    );
    assert_eq!(
        serde_json::to_value(SponsorOrderAck { res: None }).unwrap(),
        serde_json::json!({"res": null})
    );
    // An unreadable `res` is absent and reported at its path.
    let (ack, unreadable) =
        decode_report::<SponsorOrderRequest>(r#"{"code":0,"data":{"res":{"x":1}}}"#);
    assert_eq!(ack.res, None);
    assert_eq!(unreadable, ["data.res"]);
}

#[test]
fn a_failed_res_is_never_taken_for_success() {
    let failed = decode_swap::<SponsorOrderRequest>(r#"{"code":0,"data":{"res":2}}"#).unwrap();
    assert!(!failed.is_success());
    assert!(failed.is_failure());
    let ok = decode_swap::<CloseCopyOrderRequest>(r#"{"code":0,"data":{"res":1}}"#).unwrap();
    assert!(ok.is_success());
    assert!(!ok.is_failure());
    // Code 0 without a `res` is the venue's success signal.
    let bare = decode_swap::<CancelCopyOrderRequest>(r#"{"code":0}"#).unwrap();
    assert!(bare.is_success());
    assert!(!bare.is_failure());
    // An unknown `res` is neither.
    let odd = decode_swap::<SponsorOrderRequest>(r#"{"code":0,"data":{"res":3}}"#).unwrap();
    assert!(!odd.is_success());
    assert!(!odd.is_failure());
    // The same for the algo answers.
    let added = decode_swap::<AddAlgoRequest>(r#"{"code":0,"data":{"result":2}}"#).unwrap();
    assert!(!added.is_success() && added.is_failure());
    let cancelled = decode_swap::<CancelAlgoRequest>(r#"{"code":0,"data":{"result":2}}"#).unwrap();
    assert!(!cancelled.is_success() && cancelled.is_failure());
    let cancelled = decode_swap::<CancelAlgoRequest>(r#"{"code":0,"data":{"result":1}}"#).unwrap();
    assert!(cancelled.is_success() && !cancelled.is_failure());
}

#[test]
fn user_center_current_decodes_every_field() {
    let body = format!(
        r#"{{"code":0,"data":{{"res":1,"list":[
        {{"instrument_name":"BTCUSDTPERP","leverage":"20","direction":1,"open_price":"30000.5",
          "open_time":1668134664828,"open_fee":"0.012","expert_name":"alice",
          "unrealized_profit":"-1.25","unrealized_profit_rate":"-0.0125","order_id":"{BIG_ID}",
          "volume_total_original":"10","liquidate_price":"25000","market_price":"29999.9",
          "is_closing":false,"stop_earn_trigger_price_type":2,"stop_earn_trigger_price":"35000",
          "stop_loss_trigger_price_type":1,"stop_loss_trigger_price":"28000","margin_mode":1,
          "margin_ratio":"0.05","posi_margin":"15.5","use_margin":"15.5"}},
        {{"instrument_name":"","leverage":10,"direction":"open_short","open_price":2000,
          "open_time":"1668134664","open_fee":"","expert_name":null,
          "unrealized_profit":0.5,"unrealized_profit_rate":"-","order_id":{HUGE_ID},
          "volume_total_original":"","liquidate_price":"--","market_price":"",
          "is_closing":1,"stop_earn_trigger_price_type":"","stop_earn_trigger_price":"",
          "stop_loss_trigger_price_type":"mark_price","stop_loss_trigger_price":"","margin_mode":"isolate",
          "margin_ratio":"","posi_margin":"","use_margin":""}}
        ],"page":{{"page_size":10,"cur_page":1,"total_page":"1","count":2}}}}}}"#
    );
    let (got, unreadable) = decode_report::<CopyCurrentRequest>(&body);
    assert!(unreadable.is_empty(), "{unreadable:?}");
    assert_eq!(got.res, Some(CopyResult::Success));
    assert_eq!(
        got.page,
        Some(answer!(CopyPage {
            page_size: Some(10),
            cur_page: Some(1),
            total_page: Some(1),
            count: Some(2)
        }))
    );
    assert_eq!(
        got.list[0],
        answer!(CopyPosition {
            instrument_name: Some(I.to_owned()),
            leverage: Some(d("20")),
            direction: Some(OrderSide::OpenLong),
            open_price: Some(d("30000.5")),
            open_time: Some(TimestampMillis(1_668_134_664_828)),
            open_fee: Some(d("0.012")),
            expert_name: Some("alice".to_owned()),
            unrealized_profit: Some(d("-1.25")),
            unrealized_profit_rate: Some(d("-0.0125")),
            order_id: BIG_ID.to_owned(),
            volume_total_original: Some(d("10")),
            liquidate_price: Some(d("25000")),
            market_price: Some(d("29999.9")),
            is_closing: Some(false),
            stop_earn_trigger_price_type: Some(TriggerPriceType::Mark),
            stop_earn_trigger_price: Some(d("35000")),
            stop_loss_trigger_price_type: Some(TriggerPriceType::Index),
            stop_loss_trigger_price: Some(d("28000")),
            margin_mode: Some(CopyMarginMode::Crossed),
            margin_ratio: Some(d("0.05")),
            posi_margin: Some(d("15.5")),
            use_margin: Some(d("15.5")),
        })
    );
    let p = &got.list[1];
    assert_eq!(p.instrument_name, None);
    assert_eq!(p.leverage, Some(d("10")));
    assert_eq!(p.direction, Some(OrderSide::OpenShort));
    assert_eq!(p.open_price, Some(d("2000")));
    // A 10-digit time is seconds; converted to the same instant in ms.
    assert_eq!(p.open_time, Some(TimestampMillis(1_668_134_664_000)));
    // Issue 12: the `i64` limits decode (`abs` of the server's `i64::MIN` overflowed).
    for (sent, want) in [
        ("-9223372036854775808", i64::MIN),
        ("9223372036854775807", i64::MAX),
        ("-99999999999", -99_999_999_999_000),
        ("99999999999", 99_999_999_999_000),
        ("100000000000", 100_000_000_000),
    ] {
        let got = decode_swap::<CopyCurrentRequest>(&format!(
            r#"{{"code":0,"data":{{"list":[{{"order_id":"1","open_time":{sent}}}]}}}}"#
        ))
        .unwrap();
        assert_eq!(got.list[0].open_time, Some(TimestampMillis(want)), "{sent}");
    }
    assert_eq!(p.open_fee, None);
    assert_eq!(p.expert_name, None);
    assert_eq!(p.unrealized_profit, Some(d("0.5")));
    assert_eq!(p.unrealized_profit_rate, None);
    assert_eq!(p.order_id, HUGE_ID);
    assert_eq!(p.liquidate_price, None);
    assert_eq!(p.is_closing, Some(true));
    assert_eq!(p.stop_earn_trigger_price_type, None);
    assert_eq!(p.stop_loss_trigger_price_type, Some(TriggerPriceType::Mark));
    assert_eq!(p.margin_mode, Some(CopyMarginMode::Isolated));
    assert_eq!(p.use_margin, None);
    // Unknown codes are kept.
    let got = decode_swap::<CopyCurrentRequest>(
        r#"{"code":0,"data":{"list":[{"order_id":"1","stop_loss_trigger_price_type":7,"margin_mode":3}]}}"#,
    )
    .unwrap();
    assert_eq!(
        got.list[0].stop_loss_trigger_price_type,
        Some(TriggerPriceType::Unknown(7))
    );
    assert_eq!(got.list[0].margin_mode, Some(CopyMarginMode::Unknown(3)));
    // Rendered for the CLI.
    let got = decode_swap::<CopyCurrentRequest>(&body).unwrap();
    let v = serde_json::to_value(&got).unwrap();
    assert_eq!(v["list"][0]["order_id"], BIG_ID);
    assert_eq!(v["list"][0]["open_price"], "30000.5");
    assert_eq!(v["list"][1]["order_id"], HUGE_ID);
    assert_eq!(v["page"]["count"], 2);
    // Empty forms, including an answer without data and placeholder pages.
    for empty in [
        r#"{"code":0,"data":{"res":1,"list":[],"page":{"page_size":10,"cur_page":1,"total_page":0,"count":0}}}"#,
        r#"{"code":0,"data":{"list":null,"page":""}}"#,
        r#"{"code":0,"data":{"list":"-","page":null}}"#,
        r#"{"code":0,"data":{}}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0}"#,
    ] {
        let (got, unreadable) = decode_report::<CopyCurrentRequest>(empty);
        assert!(got.list.is_empty(), "{empty}");
        assert!(unreadable.is_empty(), "{empty}: {unreadable:?}");
    }
    let got = decode_swap::<CopyCurrentRequest>(r#"{"code":0}"#).unwrap();
    assert_eq!(got.res, None);
    assert_eq!(got.page, None);
    // A page that is not an object is absent and reported; its unreadable members too.
    let (got, unreadable) =
        decode_report::<CopyCurrentRequest>(r#"{"code":0,"data":{"page":[1,2]}}"#);
    assert_eq!(got.page, None);
    assert_eq!(unreadable, ["data.page"]);
    let (got, unreadable) = decode_report::<CopyCurrentRequest>(
        r#"{"code":0,"data":{"page":{"count":"x","cur_page":"-"}}}"#,
    );
    assert_eq!(got.page, Some(CopyPage::default()));
    assert_eq!(unreadable, ["data.page.count"]);
    // The position's identity is required.
    match decode_swap::<CopyCurrentRequest>(
        r#"{"code":0,"data":{"list":[{"order_id":"1"},{"order_id":""}]}}"#,
    ) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data.list[1].order_id"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn user_center_history_decodes_close_reasons() {
    let body = format!(
        r#"{{"code":0,"data":{{"res":1,"list":[
        {{"instrument_name":"BTCUSDTPERP","leverage":"20","direction":2,"open_price":"30000",
          "open_time":1668134664828,"open_fee":"0.01","expert_name":"bob",
          "close_time":1668134999000,"close_price":"29000","close_pnl":"10","status":3,
          "close_fee":"0.02","profit":"9.97","order_id":{BIG_ID},"close_volume_traded":"1",
          "margin_mode":"2"}},
        {{"instrument_name":"BTCUSDTPERP","status":9,"close_time":0,"order_id":"7",
          "close_pnl":"","profit":-3.5}}
        ],"page":{{"page_size":"10","cur_page":"1","total_page":"1","count":"2"}}}}}}"#
    );
    let got = decode_swap::<CopyHistoryRequest>(&body).unwrap();
    let h = &got.list[0];
    assert_eq!(h.direction, Some(OrderSide::OpenShort));
    assert_eq!(h.open_time, Some(TimestampMillis(1_668_134_664_828)));
    assert_eq!(h.close_time, Some(TimestampMillis(1_668_134_999_000)));
    assert_eq!(h.close_price, Some(d("29000")));
    assert_eq!(h.close_pnl, Some(d("10")));
    assert_eq!(h.status, Some(CopyCloseReason::Forced));
    assert_eq!(h.close_fee, Some(d("0.02")));
    assert_eq!(h.profit, Some(d("9.97")));
    assert_eq!(h.order_id, BIG_ID);
    assert_eq!(h.close_volume_traded, Some(d("1")));
    assert_eq!(h.margin_mode, Some(CopyMarginMode::Isolated));
    assert_eq!(h.expert_name.as_deref(), Some("bob"));
    let h = &got.list[1];
    assert_eq!(h.status, Some(CopyCloseReason::Unknown(9)));
    assert_eq!(h.close_time, None);
    assert_eq!(h.order_id, "7");
    assert_eq!(h.close_pnl, None);
    assert_eq!(h.profit, Some(d("-3.5")));
    assert_eq!(h.leverage, None);
    assert_eq!(got.page.unwrap().count, Some(2));
    for (status, reason) in [
        ("1", CopyCloseReason::Auto),
        ("2", CopyCloseReason::Manual),
        ("3", CopyCloseReason::Forced),
        ("4", CopyCloseReason::StopOut),
        ("5", CopyCloseReason::StopLoss),
        (r#""auto_close""#, CopyCloseReason::Auto),
        (r#""manual close""#, CopyCloseReason::Manual),
        (r#""forced_close""#, CopyCloseReason::Forced),
        (r#""STOP_OUT_CLOSE""#, CopyCloseReason::StopOut),
        (r#""stop_loss_close""#, CopyCloseReason::StopLoss),
        (
            r#""liquidated""#,
            CopyCloseReason::Other("liquidated".into()),
        ),
    ] {
        let body =
            format!(r#"{{"code":0,"data":{{"list":[{{"order_id":"1","status":{status}}}]}}}}"#);
        assert_eq!(
            decode_swap::<CopyHistoryRequest>(&body).unwrap().list[0].status,
            Some(reason),
            "{status}"
        );
    }
    let got = decode_swap::<CopyHistoryRequest>(r#"{"code":0}"#).unwrap();
    assert!(got.list.is_empty() && got.res.is_none() && got.page.is_none());
}

#[test]
fn expert_open_orders_use_the_copy_price_type_numbering() {
    let body = format!(
        r#"{{"code":0,"data":{{"list":[
        {{"instrument_name":"BTCUSDTPERP","leverage":"50","direction":1,"order_price":"30000",
          "commission_amount":"3","profit_rate":"0.1","total_order":"5","status":-1,
          "order_price_type":4,"order_time":1668134664828,"order_id":"{BIG_ID}",
          "stop_earn_trigger_price_type":3,"stop_earn_trigger_price":"33000",
          "stop_loss_trigger_price_type":2,"stop_loss_trigger_price":"27000","margin_mode":1}},
        {{"order_price_type":13,"status":5,"order_id":{HUGE_ID},"order_price":""}}
        ],"page":{{"page_size":10,"cur_page":2,"total_page":3,"count":25}}}}}}"#
    );
    let got = decode_swap::<ExpertOpenOrdersRequest>(&body).unwrap();
    let o = &got.list[0];
    assert_eq!(o.instrument_name.as_deref(), Some(I));
    assert_eq!(o.leverage, Some(d("50")));
    assert_eq!(o.direction, Some(OrderSide::OpenLong));
    assert_eq!(o.order_price, Some(d("30000")));
    assert_eq!(o.commission_amount, Some(d("3")));
    assert_eq!(o.profit_rate, Some(d("0.1")));
    assert_eq!(o.total_order, Some(d("5")));
    assert_eq!(o.status, Some(ExpertOrderStatus::Canceled));
    // 4 is "ioc" in the copy-trading numbering.
    assert_eq!(o.order_price_type, Some(CopyOrderPriceType::Ioc));
    assert_eq!(o.order_time, Some(TimestampMillis(1_668_134_664_828)));
    assert_eq!(o.order_id, BIG_ID);
    assert_eq!(
        o.stop_earn_trigger_price_type,
        Some(TriggerPriceType::Market)
    );
    assert_eq!(o.stop_earn_trigger_price, Some(d("33000")));
    assert_eq!(o.stop_loss_trigger_price_type, Some(TriggerPriceType::Mark));
    assert_eq!(o.stop_loss_trigger_price, Some(d("27000")));
    assert_eq!(o.margin_mode, Some(CopyMarginMode::Crossed));
    let o = &got.list[1];
    assert_eq!(o.order_price_type, Some(CopyOrderPriceType::Unknown(13)));
    assert_eq!(o.status, Some(ExpertOrderStatus::Unknown(5)));
    assert_eq!(o.order_id, HUGE_ID);
    assert_eq!(o.order_price, None);
    assert_eq!(
        got.page,
        Some(answer!(CopyPage {
            page_size: Some(10),
            cur_page: Some(2),
            total_page: Some(3),
            count: Some(25)
        }))
    );
    // The spec's order_price_type names and trigger price type names are read as words.
    for (word, want) in [
        ("limit", CopyOrderPriceType::Limit),
        ("opponent_ioc", CopyOrderPriceType::OpponentIoc),
        ("optimal_5_ioc", CopyOrderPriceType::Optimal5Ioc),
        ("optimal_10_ioc", CopyOrderPriceType::Optimal10Ioc),
        ("ioc", CopyOrderPriceType::Ioc),
        ("gtc", CopyOrderPriceType::Gtc),
        ("opponent_gtc", CopyOrderPriceType::OpponentGtc),
        ("optimal_5_gtc", CopyOrderPriceType::Optimal5Gtc),
        ("optimal_10_gtc", CopyOrderPriceType::Optimal10Gtc),
        ("fok", CopyOrderPriceType::Fok),
        ("opponent_fok", CopyOrderPriceType::OpponentFok),
        ("optimal_5_fok", CopyOrderPriceType::Optimal5Fok),
        ("optimal_10_fok", CopyOrderPriceType::Optimal10Fok),
        ("post_only", CopyOrderPriceType::Other("post_only".into())),
    ] {
        let body = format!(
            r#"{{"code":0,"data":{{"list":[{{"order_id":"1","order_price_type":"{word}","stop_earn_trigger_price_type":"index_price","status":"part_filled"}}]}}}}"#
        );
        let o = &decode_swap::<ExpertOpenOrdersRequest>(&body).unwrap().list[0];
        assert_eq!(o.order_price_type, Some(want), "{word}");
        assert_eq!(
            o.stop_earn_trigger_price_type,
            Some(TriggerPriceType::Index)
        );
        assert_eq!(o.status, Some(ExpertOrderStatus::PartFilled));
    }
    assert!(decode_swap::<ExpertOpenOrdersRequest>(r#"{"code":0}"#)
        .unwrap()
        .list
        .is_empty());
}

#[test]
fn algo_answers_decode() {
    let got = decode_swap::<AddAlgoRequest>(&format!(
        r#"{{"code":0,"data":{{"result":1,"algos":["{BIG_ID}",{HUGE_ID}]}}}}"#
    ))
    .unwrap();
    assert_eq!(
        got,
        answer!(AlgoAdded {
            result: Some(CopyResult::Success),
            algos: vec![BIG_ID.to_owned(), HUGE_ID.to_owned()],
        })
    );
    let got =
        decode_swap::<AddAlgoRequest>(r#"{"code":0,"data":{"result":2,"algos":null}}"#).unwrap();
    assert_eq!(got.result, Some(CopyResult::Fail));
    assert!(got.algos.is_empty());
    assert_eq!(
        decode_swap::<CancelAlgoRequest>(r#"{"code":0,"data":{"result":"1"}}"#).unwrap(),
        answer!(AlgoCancelled {
            result: Some(CopyResult::Success)
        })
    );
    assert_eq!(
        decode_swap::<CancelAlgoRequest>(r#"{"code":0,"data":{"res":9}}"#)
            .unwrap()
            .result,
        Some(CopyResult::Unknown(9))
    );
    // Answers without data: every field absent.
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0,"data":{}}"#,
    ] {
        assert_eq!(
            decode_swap::<AddAlgoRequest>(body).unwrap(),
            AlgoAdded::default()
        );
        assert_eq!(
            decode_swap::<CancelAlgoRequest>(body).unwrap(),
            AlgoCancelled::default()
        );
    }
    // Placeholders in `result` are absent; an algo id is required.
    assert_eq!(
        decode_swap::<AddAlgoRequest>(r#"{"code":0,"data":{"result":"","algos":"-"}}"#).unwrap(),
        AlgoAdded::default()
    );
    match decode_swap::<AddAlgoRequest>(r#"{"code":0,"data":{"result":1,"algos":["1",""]}}"#) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data.algos[1]"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn account_available_decodes_exactly() {
    for (body, want) in [
        (
            r#"{"code":0,"data":{"available":"1234.567890123456789"}}"#,
            "1234.567890123456789",
        ),
        (r#"{"code":0,"data":{"available":1234.50}}"#, "1234.50"),
    ] {
        let got = decode_swap::<CopyAvailableRequest>(body).unwrap();
        assert_eq!(got, answer!(CopyAvailable { available: d(want) }));
        assert_eq!(got.available.to_string(), want);
    }
    // The balance is the whole answer: required.
    for body in [
        r#"{"code":0,"data":{"available":""}}"#,
        r#"{"code":0,"data":{}}"#,
        r#"{"code":0}"#,
    ] {
        assert!(
            matches!(
                decode_swap::<CopyAvailableRequest>(body),
                Err(Error::Decode { .. })
            ),
            "{body}"
        );
    }
}

#[test]
fn plan_task_decodes_plan_commissions() {
    let body = format!(
        r#"{{"code":0,"data":{{"list":[
        {{"order_id":"{BIG_ID}","instrument_name":"BTCUSDTPERP","leverage":"20","direction":3,
          "order_time":1668134664828,"trigger_cond":1,"trigger_price":"35000","com_type":2,
          "order_price":"1","com_num":"2","status":2,"margin_mode":2}},
        {{"order_id":{HUGE_ID},"direction":4,"trigger_cond":3,"com_type":4,"status":6,
          "order_price":"30000.5","margin_mode":""}}
        ],"page":{{"page_size":10,"cur_page":1,"total_page":1,"count":2}}}}}}"#
    );
    let got = decode_swap::<PlanTaskRequest>(&body).unwrap();
    let c = &got.list[0];
    assert_eq!(c.order_id, BIG_ID);
    assert_eq!(c.instrument_name.as_deref(), Some(I));
    assert_eq!(c.leverage, Some(d("20")));
    assert_eq!(c.direction, Some(OrderSide::CloseLong));
    assert_eq!(c.order_time, Some(TimestampMillis(1_668_134_664_828)));
    assert_eq!(c.trigger_cond, Some(TriggerCondition::PriceUp));
    assert_eq!(c.trigger_price, Some(d("35000")));
    assert_eq!(c.com_type, Some(PlanComType::StopProfit));
    assert_eq!(c.order_price, Some(d("1")));
    assert!(c.is_optimal10());
    assert_eq!(c.com_num, Some(d("2")));
    assert_eq!(c.status, Some(PlanStatus::Validated));
    assert_eq!(c.margin_mode, Some(CopyMarginMode::Isolated));
    let c = &got.list[1];
    assert_eq!(c.order_id, HUGE_ID);
    assert_eq!(c.direction, Some(OrderSide::CloseShort));
    assert_eq!(c.trigger_cond, Some(TriggerCondition::Unknown(3)));
    assert_eq!(c.com_type, Some(PlanComType::Unknown(4)));
    assert_eq!(c.status, Some(PlanStatus::Unknown(6)));
    assert!(!c.is_optimal10());
    assert_eq!(c.margin_mode, None);
    assert_eq!(got.page.unwrap().total_page, Some(1));
    // Documented names as words.
    let got = decode_swap::<PlanTaskRequest>(
        r#"{"code":0,"data":{"list":[{"order_id":"1","status":"to be validated","trigger_cond":"price-down","com_type":"stop loss","margin_mode":"cross","direction":"close short"},
        {"order_id":"2","status":"fail","trigger_cond":"PRICE_UP","com_type":"stop_profit","margin_mode":"isolate"}]}}"#,
    )
    .unwrap();
    let c = &got.list[0];
    assert_eq!(c.status, Some(PlanStatus::Pending));
    assert_eq!(c.trigger_cond, Some(TriggerCondition::PriceDown));
    assert_eq!(c.com_type, Some(PlanComType::StopLoss));
    assert_eq!(c.margin_mode, Some(CopyMarginMode::Crossed));
    assert_eq!(c.direction, Some(OrderSide::CloseShort));
    let c = &got.list[1];
    assert_eq!(c.status, Some(PlanStatus::Failed));
    assert_eq!(c.trigger_cond, Some(TriggerCondition::PriceUp));
    assert_eq!(c.com_type, Some(PlanComType::StopProfit));
    assert_eq!(c.margin_mode, Some(CopyMarginMode::Isolated));
    assert!(decode_swap::<PlanTaskRequest>(r#"{"code":0}"#)
        .unwrap()
        .list
        .is_empty());
}

#[test]
fn instrument_list_decodes() {
    let body = r#"{"code":0,"data":[
        {"instrument_id":"BTCUSDTPERP","instrument_name":"BTCUSDT","volume_multiple":"0.001",
         "price_precision":1,"clear_currency":"USDT","taker_fee":"0.0006",
         "long_margin_ratio":"0.01","short_margin_ratio":"0.01","min_order_amount":1},
        {"instrument_id":"ETHUSDTPERP","instrument_name":"","volume_multiple":0.01,
         "price_precision":"2","clear_currency":null,"taker_fee":"",
         "long_margin_ratio":"-","short_margin_ratio":null,"min_order_amount":"0.5"}
    ]}"#;
    let got = decode_swap::<CopyInstrumentsRequest>(body).unwrap();
    assert_eq!(
        got[0],
        answer!(CopyInstrument {
            instrument_id: I.to_owned(),
            instrument_name: Some("BTCUSDT".to_owned()),
            volume_multiple: Some(d("0.001")),
            price_precision: Some(1),
            clear_currency: Some("USDT".to_owned()),
            taker_fee: Some(d("0.0006")),
            long_margin_ratio: Some(d("0.01")),
            short_margin_ratio: Some(d("0.01")),
            min_order_amount: Some(d("1")),
        })
    );
    assert_eq!(got[1].instrument_name, None);
    assert_eq!(got[1].volume_multiple, Some(d("0.01")));
    assert_eq!(got[1].price_precision, Some(2));
    assert_eq!(got[1].clear_currency, None);
    assert_eq!(got[1].taker_fee, None);
    assert_eq!(got[1].long_margin_ratio, None);
    assert_eq!(got[1].short_margin_ratio, None);
    assert_eq!(got[1].min_order_amount, Some(d("0.5")));
    for empty in [r#"{"code":0,"data":null}"#, r#"{"code":0}"#] {
        assert!(decode_swap::<CopyInstrumentsRequest>(empty)
            .unwrap()
            .is_empty());
    }
    // The instrument is the row's key: required.
    match decode_swap::<CopyInstrumentsRequest>(r#"{"code":0,"data":[{"instrument_id":""}]}"#) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data[0].instrument_id"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn copy_trading_api_errors_are_typed() {
    let e = decode_swap::<CancelCopyOrderRequest>(r#"{"code":404013,"msg":"order not exist"}"#)
        .unwrap_err();
    match &e {
        Error::Api(a) => {
            assert_eq!(a.code, ApiCode::Swap(SwapCode::FollowOrderNotExist));
            assert_eq!(a.message.as_deref(), Some("order not exist"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert_eq!(e.api_code(), Some(404013));
    for (code, want, kind) in [
        (404001, SwapCode::FollowExpertLocked, ErrorKind::Suspended),
        (
            404007,
            SwapCode::FollowOrderPriceOffsetOverLimit,
            ErrorKind::InvalidRequest,
        ),
        (
            404008,
            SwapCode::FollowOrderStopEarnTriggerPriceLarge,
            ErrorKind::InvalidRequest,
        ),
        (
            404014,
            SwapCode::FollowStopProfitExist,
            ErrorKind::InvalidRequest,
        ),
        (
            401003,
            SwapCode::NotEnoughMoney,
            ErrorKind::InsufficientFunds,
        ),
    ] {
        match decode_status::<SponsorOrderRequest>(200, &format!(r#"{{"code":{code}}}"#)) {
            Err(e @ Error::Api(_)) => {
                assert_eq!(e.kind(), kind, "{code}");
                match e {
                    Error::Api(a) => assert_eq!(a.code, ApiCode::Swap(want)),
                    _ => unreachable!(),
                }
            }
            other => panic!("{code}: {other:?}"),
        }
    }
    // An error envelope wins over HTTP 200 for list endpoints too.
    assert!(matches!(
        decode_swap::<PlanTaskRequest>(r#"{"code":400001,"data":null}"#),
        Err(Error::Api(_))
    ));
}

// ---------------------------------------------------------------------------------------------
// The session: copy-trading reads are retried like reads, writes end in an unknown outcome.

mod session_cycle {
    use super::*;
    use digifinex_core::session::{Action, Drive, Session};
    use digifinex_core::{Clock, Config, Credentials, ManualClock, TransportErrorKind};
    use std::sync::Arc;

    const T0: i64 = 1_700_000_000_000;

    enum Answer {
        Http(&'static str),
        Fail(TransportErrorKind),
    }

    /// Drives `call` through a scripted transport (one answer per request sent); returns the
    /// result and the number of requests sent. A clock sync (`/public/time`) is answered with
    /// the local time and not counted.
    fn drive<D: Drive + ?Sized>(
        clock: &ManualClock,
        call: &mut D,
        script: Vec<Answer>,
    ) -> (Result<D::Output, Error>, usize) {
        let mut script = script.into_iter();
        let mut sent = 0;
        loop {
            match call.next() {
                Action::Send(req) => {
                    clock.advance(5);
                    if req.uri().path().ends_with("/public/time") {
                        let body = format!(r#"{{"code":0,"data":{}}}"#, clock.now().0);
                        let resp = http::Response::builder()
                            .status(200)
                            .body(body.as_bytes())
                            .unwrap();
                        call.on_response(&resp);
                        continue;
                    }
                    sent += 1;
                    match script.next().expect("an answer for every request") {
                        Answer::Http(body) => {
                            let resp = http::Response::builder()
                                .status(200)
                                .body(body.as_bytes())
                                .unwrap();
                            call.on_response(&resp);
                        }
                        Answer::Fail(kind) => call.on_transport_error(kind, "scripted".into()),
                    }
                }
                Action::Wait(d) => clock.advance(i64::try_from(d.as_millis()).unwrap()),
                Action::Done(r) => {
                    assert!(script.next().is_none(), "unused script answers");
                    return (r.map(|r| r.value), sent);
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

    /// Every copy-trading read: a timeout is retried, and the retry's answer is the result.
    #[test]
    fn copy_trading_reads_are_retried_after_a_timeout() {
        fn check<E: Endpoint>(req: &E, ok: &'static str) -> usize {
            let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
            let s = session(clock.clone());
            let (r, sent) = drive(
                &clock,
                &mut s.call(req),
                vec![
                    Answer::Fail(TransportErrorKind::Timeout),
                    Answer::Fail(TransportErrorKind::ConnectionLost),
                    Answer::Http(ok),
                ],
            );
            assert!(r.is_ok(), "{}: {:?}", E::META.name, r.err());
            sent
        }
        let list = r#"{"code":0,"data":{"list":[],"page":{"count":0}}}"#;
        assert_eq!(
            check(&CopyCurrentRequest::new(CopyCurrentView::Detailed), list),
            3
        );
        assert_eq!(check(&CopyHistoryRequest::new(), list), 3);
        assert_eq!(check(&ExpertOpenOrdersRequest::new(), list), 3);
        assert_eq!(check(&PlanTaskRequest::new(1, 10), list), 3);
        assert_eq!(
            check(
                &CopyAvailableRequest,
                r#"{"code":0,"data":{"available":"5"}}"#
            ),
            3
        );
        assert_eq!(check(&CopyInstrumentsRequest, r#"{"code":0,"data":[]}"#), 3);
    }

    /// A copy-trading read that keeps timing out ends as an ordinary transport error after the
    /// retry policy's attempts, never as an unknown outcome.
    #[test]
    fn a_copy_trading_read_that_keeps_failing_is_an_ordinary_transport_error() {
        let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
        let s = session(clock.clone());
        let req = PlanTaskRequest::new(1, 10);
        let (r, sent) = drive(
            &clock,
            &mut s.call(&req),
            (0..4)
                .map(|_| Answer::Fail(TransportErrorKind::Timeout))
                .collect(),
        );
        match r {
            Err(e @ Error::Transport { .. }) => assert_eq!(e.kind(), ErrorKind::Network),
            other => panic!("{other:?}"),
        }
        assert_eq!(sent, 4);
    }

    /// A copy-trading write whose answer is lost is never re-sent: its outcome is unknown.
    #[test]
    fn a_copy_trading_write_that_times_out_has_an_unknown_outcome() {
        let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
        let s = session(clock.clone());
        let req = sponsor(CopyPricing::Market(CopyMarketStyle::OpponentIoc));
        let (r, sent) = drive(
            &clock,
            &mut s.call(&req),
            vec![Answer::Fail(TransportErrorKind::Timeout)],
        );
        match r {
            Err(Error::OutcomeUnknown { method, url, .. }) => {
                assert_eq!(method, "POST");
                assert!(url.ends_with("/swap/v2/follow/sponsor_order"), "{url}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(sent, 1);
        // The other writes too.
        for kind in [
            TransportErrorKind::Timeout,
            TransportErrorKind::ConnectionLost,
        ] {
            let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
            let s = session(clock.clone());
            let req = CloseCopyOrderRequest::new(BIG_ID);
            let (r, sent) = drive(&clock, &mut s.call(&req), vec![Answer::Fail(kind)]);
            assert!(matches!(r, Err(Error::OutcomeUnknown { .. })), "{r:?}");
            assert_eq!(sent, 1);
        }
    }
}
