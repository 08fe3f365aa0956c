//! Swap account endpoints: balances, positions, margin mode, position margin, leverage, fee
//! rates, bills, funding fees and transfer records.
//!
//! The response bodies below are hand-written from the field tables of the swap v2 API
//! documentation (resources and endpoints), the live venue's deviations (`docs/protocol.md`,
//! "The live venue") and the answers ccxt
//! publishes (ccxt/ccxt `ts/src/digifinex.ts`). They mix the documented strings with numbers,
//! placeholders (`""`, `"-"`, `null`), words in code fields, unknown enum values, missing
//! optional fields and acknowledgements without `data`, as the real API is known to do.

mod support;
use support::*;

use digifinex_core::catalog;
use digifinex_core::swap::{
    BalanceRequest, FinanceRecordRequest, FinanceType, FundingFeeRequest, InstrumentType,
    LeverageRequest, MarginAdjustment, MarginMode, PositionMarginRequest, PositionMarginSide,
    PositionModeRequest, PositionSide, PositionsRequest, TradingFeeRateRequest,
    TransferRecordRequest, TransferRecordType, TransferRequest, TransferType,
};
use digifinex_core::{
    build, Amount, ApiCode, Config, Endpoint, Error, ErrorKind, SwapCode, TimestampMillis,
};

/// Asserts that the catalog builds, from `json`, exactly the request `typed` builds.
fn assert_catalog_same<E: Endpoint>(method: &str, path: &str, json: &str, typed: &E) {
    let from_catalog = build_from_json(method, path, json).unwrap();
    assert_eq!(
        render(&from_catalog),
        render(&build_req(typed).unwrap()),
        "{json}"
    );
}

fn catalog_invalid(method: &str, path: &str, json: &str, field: &str) {
    match build_from_json(method, path, json) {
        Err(Error::Validation { field: f, .. }) => assert_eq!(f, field, "{json}"),
        other => panic!("expected a validation error on {field}, got {other:?}"),
    }
}

fn api_code<T: std::fmt::Debug>(r: Result<T, Error>) -> SwapCode {
    match r {
        Err(Error::Api(e)) => match e.code {
            ApiCode::Swap(c) => c,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// An exact amount from its text.
fn a(s: &str) -> Amount {
    s.parse().unwrap()
}

const T0: TimestampMillis = TimestampMillis(1_657_000_000_000);
const T1: TimestampMillis = TimestampMillis(1_657_522_488_402);

// ------------------------------------------------------------------------------------------
// Catalog registration

#[test]
fn every_account_endpoint_is_in_the_catalog_signed() {
    for (method, path, type_name) in [
        ("GET", "/swap/v2/account/balance", "BalanceRequest"),
        ("POST", "/swap/v2/account/transfer", "TransferRequest"),
        ("GET", "/swap/v2/account/positions", "PositionsRequest"),
        (
            "POST",
            "/swap/v2/account/position_mode",
            "PositionModeRequest",
        ),
        (
            "POST",
            "/swap/v2/account/position_margin",
            "PositionMarginRequest",
        ),
        ("POST", "/swap/v2/account/leverage", "LeverageRequest"),
        (
            "GET",
            "/swap/v2/account/trading_fee_rate",
            "TradingFeeRateRequest",
        ),
        (
            "GET",
            "/swap/v2/account/finance_record",
            "FinanceRecordRequest",
        ),
        ("GET", "/swap/v2/account/funding_fee", "FundingFeeRequest"),
        (
            "GET",
            "/swap/v2/account/transfer_record",
            "TransferRecordRequest",
        ),
    ] {
        let (entry, vars) =
            catalog::find(method, path).unwrap_or_else(|| panic!("{method} {path}"));
        assert!(vars.is_empty());
        assert!(
            (entry.request_type)().ends_with(&format!("::swap::account::{type_name}")),
            "{path}: {}",
            (entry.request_type)()
        );
        assert!(entry.meta.signed, "{path}");
        assert_eq!(entry.meta.idempotent, method == "GET", "{path}");
        assert_eq!(entry.meta.method.as_str(), method);
        assert_eq!(entry.meta.success_code, 0, "{path}");
        assert_eq!(entry.meta.display_path(), path);
    }
}

#[test]
fn private_requests_need_credentials() {
    for e in [
        build(&BalanceRequest::new(), &Config::default(), None, NOW),
        build(
            &LeverageRequest::new("BTCUSDTPERP", d("10")),
            &Config::default(),
            None,
            NOW,
        ),
    ] {
        assert!(matches!(e, Err(Error::Validation { ref field, .. }) if field == "credentials"));
    }
}

// ------------------------------------------------------------------------------------------
// Balance

#[test]
fn balance_request_shape_and_validation() {
    assert_swap_signed_get(&BalanceRequest::new(), "/swap/v2/account/balance");
    assert_swap_signed_get(
        &BalanceRequest::new()
            .instrument_type(InstrumentType::Real)
            .currency("USDT"),
        "/swap/v2/account/balance?type=2&currency=USDT",
    );
    assert_swap_signed_get(
        &BalanceRequest::new().instrument_type(InstrumentType::Simulate),
        "/swap/v2/account/balance?type=1",
    );
    assert_invalid(
        &BalanceRequest::new().instrument_type(InstrumentType::Unknown(3)),
        "type",
    );
    assert_invalid(&BalanceRequest::new().currency(""), "currency");
    assert_invalid(&BalanceRequest::new().currency("US DT"), "currency");
    catalog_invalid(
        "GET",
        "/swap/v2/account/balance",
        r#"{"type":"two"}"#,
        "type",
    );
    catalog_invalid("GET", "/swap/v2/account/balance", r#"{"type":0}"#, "type");
    catalog_invalid(
        "GET",
        "/swap/v2/account/balance",
        r#"{"curency":"USDT"}"#,
        "curency",
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/account/balance",
        r#"{"currency":"USDT","type":2}"#,
        &BalanceRequest::new()
            .instrument_type(InstrumentType::Real)
            .currency("USDT"),
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/account/balance",
        "{}",
        &BalanceRequest::new(),
    );
}

#[test]
fn balance_decode() {
    let list = decode_swap::<BalanceRequest>(
        r#"{"code":0,"data":[
        {"currency":"USDT","equity":"1025.3311","margin":"120.5","cross_margin":"100.5",
         "isolate_margin":"20","isolate_balance":"21.07","frozen_margin":"5.25",
         "frozen_money":"0.012","margin_ratio":"0.1175","realized_pnl":"-3.2",
         "avail_balance":"899.56","unrealized_pnl":"4.5611","isolate_unrealized_pnl":"1.07",
         "time_stamp":1657522488402},
        {"currency":"BTC","equity":0.5,"margin":"0","cross_margin":"","isolate_margin":"",
         "margin_ratio":"","avail_balance":"0.5","time_stamp":"1657522488402"}]}"#,
    )
    .unwrap();
    assert_eq!(list.len(), 2);
    let b = &list[0];
    assert_eq!(b.currency, "USDT");
    assert_eq!(b.equity, Some(d("1025.3311")));
    assert_eq!(b.margin, Some(d("120.5")));
    assert_eq!(b.cross_margin, Some(d("100.5")));
    assert_eq!(b.isolate_margin, Some(d("20")));
    assert_eq!(b.isolate_balance, Some(d("21.07")));
    assert_eq!(b.frozen_margin, Some(d("5.25")));
    assert_eq!(b.frozen_money, Some(d("0.012")));
    assert_eq!(b.margin_ratio, Some(d("0.1175")));
    assert_eq!(b.realized_pnl, Some(d("-3.2")));
    assert_eq!(b.avail_balance, Some(d("899.56")));
    assert_eq!(b.unrealized_pnl, Some(d("4.5611")));
    assert_eq!(b.isolate_unrealized_pnl, Some(d("1.07")));
    assert_eq!(b.time_stamp, Some(T1));
    // A number, empty strings and missing fields.
    let b = &list[1];
    assert_eq!(b.equity, Some(d("0.5")));
    assert_eq!(b.margin, Some(d("0")));
    assert_eq!(b.cross_margin, None);
    assert_eq!(b.isolate_margin, None);
    assert_eq!(b.margin_ratio, None);
    assert_eq!(b.isolate_balance, None);
    assert_eq!(b.unrealized_pnl, None);
    assert_eq!(b.time_stamp, Some(T1));
    let v = serde_json::to_value(&list[0]).unwrap();
    assert_eq!(v["equity"], "1025.3311");
    assert_eq!(v["time_stamp"], 1_657_522_488_402_i64);
    assert!(decode_swap::<BalanceRequest>(r#"{"code":0,"data":null}"#)
        .unwrap()
        .is_empty());
    assert!(decode_swap::<BalanceRequest>(r#"{"code":0}"#)
        .unwrap()
        .is_empty());
}

#[test]
fn balance_placeholders_are_absent_and_the_currency_is_required() {
    let list = decode_swap::<BalanceRequest>(
        r#"{"code":0,"data":[{"currency":"USDT","equity":"-","margin":null,"margin_ratio":"--",
        "avail_balance":"12.5","unrealized_pnl":"abc","time_stamp":"-"}]}"#,
    )
    .unwrap();
    let b = &list[0];
    assert_eq!(b.equity, None);
    assert_eq!(b.margin, None);
    assert_eq!(b.margin_ratio, None);
    assert_eq!(b.avail_balance, Some(d("12.5")));
    // Unreadable: absent, the row survives.
    assert_eq!(b.unrealized_pnl, None);
    assert_eq!(b.time_stamp, None);
    for (body, at) in [
        (
            r#"{"code":0,"data":[{"currency":"-","equity":"1"}]}"#,
            "data[0].currency",
        ),
        (
            r#"{"code":0,"data":[{"currency":null}]}"#,
            "data[0].currency",
        ),
        (r#"{"code":0,"data":[{"equity":"1"}]}"#, "data[0]"),
    ] {
        match decode_swap::<BalanceRequest>(body) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, at, "{body}"),
            other => panic!("{body}: {other:?}"),
        }
    }
}

#[test]
fn balance_auth_errors() {
    let e =
        decode_status::<BalanceRequest>(200, r#"{"code":400006,"msg":"invalid key"}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Auth);
    assert_eq!(api_code(Err::<(), _>(e)), SwapCode::InvalidApiKey);
    assert_eq!(
        api_code(decode_swap::<BalanceRequest>(r#"{"code":400005}"#)),
        SwapCode::PermissionDeny
    );
}

// ------------------------------------------------------------------------------------------
// Positions

#[test]
fn positions_request_shape_and_validation() {
    assert_swap_signed_get(&PositionsRequest::new(), "/swap/v2/account/positions");
    // The documentation's own example query.
    assert_swap_signed_get(
        &PositionsRequest::new().instrument_id("BTCUSDTPERP"),
        "/swap/v2/account/positions?instrument_id=BTCUSDTPERP",
    );
    assert_swap_signed_get(
        &PositionsRequest::new()
            .instrument_type(InstrumentType::Simulate)
            .instrument_id("ETHUSDTPERP"),
        "/swap/v2/account/positions?type=1&instrument_id=ETHUSDTPERP",
    );
    assert_invalid(
        &PositionsRequest::new().instrument_id("BTC USDT"),
        "instrument_id",
    );
    assert_invalid(
        &PositionsRequest::new().instrument_type(InstrumentType::Unknown(-1)),
        "type",
    );
    catalog_invalid(
        "GET",
        "/swap/v2/account/positions",
        r#"{"instrument_id":""}"#,
        "instrument_id",
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/account/positions",
        r#"{"instrument_id":"BTCUSDTPERP","type":"1"}"#,
        &PositionsRequest::new()
            .instrument_type(InstrumentType::Simulate)
            .instrument_id("BTCUSDTPERP"),
    );
}

#[test]
fn positions_decode() {
    let list = decode_swap::<PositionsRequest>(
        r#"{"code":0,"data":[
        {"instrument_id":"BTCUSDTPERP","margin_mode":"isolated","posi_balance":"150.5",
         "avail_position":"100","avg_cost":"29800.5","last":"29875.8","mark_price":"29875.9",
         "leverage":"20","liquidation_price":"28400.1","maint_margin_ratio":"0.005",
         "margin":"149.4","position":"100","realized_pnl":"-0.9","unrealized_pnl":"7.54",
         "unrealized_pnl_rate":"0.0505","side":"long","open_outstanding":"10",
         "risk_score":"0.2","margin_ratio":"0.033","timestamp":1657522488402},
        {"instrument_id":"ETHUSDTPERP","margin_mode":"cross","posi_balance":"",
         "avail_position":5,"avg_cost":"1200","leverage":10,"side":"short",
         "unrealized_pnl":"-1.5e-2","timestamp":"1657522488402"},
        {"instrument_id":"XRPUSDTPERP","margin_mode":"portfolio","side":"both"}]}"#,
    )
    .unwrap();
    assert_eq!(list.len(), 3);
    let p = &list[0];
    assert_eq!(p.instrument_id, "BTCUSDTPERP");
    assert_eq!(p.margin_mode, Some(MarginMode::Isolated));
    assert_eq!(p.posi_balance, Some(d("150.5")));
    assert_eq!(p.avail_position, Some(d("100")));
    assert_eq!(p.avg_cost, Some(d("29800.5")));
    assert_eq!(p.last, Some(d("29875.8")));
    assert_eq!(p.mark_price, Some(d("29875.9")));
    assert_eq!(p.leverage, Some(d("20")));
    assert_eq!(p.liquidation_price, Some(d("28400.1")));
    assert_eq!(p.maint_margin_ratio, Some(d("0.005")));
    assert_eq!(p.margin, Some(d("149.4")));
    assert_eq!(p.position, Some(d("100")));
    assert_eq!(p.realized_pnl, Some(d("-0.9")));
    assert_eq!(p.unrealized_pnl, Some(d("7.54")));
    assert_eq!(p.unrealized_pnl_rate, Some(d("0.0505")));
    assert_eq!(p.side, Some(PositionSide::Long));
    assert_eq!(p.open_outstanding, Some(d("10")));
    assert_eq!(p.risk_score, Some(d("0.2")));
    assert_eq!(p.margin_ratio, Some(d("0.033")));
    assert_eq!(p.timestamp, Some(T1));
    // Crossed mode spelled `cross`, empty isolated balance, numbers, exponent notation.
    let p = &list[1];
    assert_eq!(p.margin_mode, Some(MarginMode::Crossed));
    assert_eq!(p.posi_balance, None);
    assert_eq!(p.avail_position, Some(d("5")));
    assert_eq!(p.leverage, Some(d("10")));
    assert_eq!(p.side, Some(PositionSide::Short));
    assert_eq!(p.unrealized_pnl, Some(d("-0.015")));
    assert_eq!(p.mark_price, None);
    assert_eq!(p.timestamp, Some(T1));
    // Unknown values land in the open arms; missing values are None.
    let p = &list[2];
    assert_eq!(p.margin_mode, Some(MarginMode::Other("portfolio".into())));
    assert_eq!(p.side, Some(PositionSide::Other("both".into())));
    assert_eq!(p.position, None);
    assert_eq!(p.timestamp, None);
    let v = serde_json::to_value(&list[1]).unwrap();
    assert_eq!(v["margin_mode"], "crossed");
    assert_eq!(v["unrealized_pnl"], "-0.015");
}

#[test]
fn positions_placeholders_are_absent_and_the_instrument_is_required() {
    let list = decode_swap::<PositionsRequest>(
        r#"{"code":0,"data":[{"instrument_id":"BTCUSDTPERP","margin_mode":"-","side":"",
        "position":"-","leverage":null,"avg_cost":"--","timestamp":""}]}"#,
    )
    .unwrap();
    let p = &list[0];
    assert_eq!(p.margin_mode, None);
    assert_eq!(p.side, None);
    assert_eq!(p.position, None);
    assert_eq!(p.leverage, None);
    assert_eq!(p.avg_cost, None);
    assert_eq!(p.timestamp, None);
    for (body, at) in [
        (
            r#"{"code":0,"data":[{"instrument_id":"","side":"long"}]}"#,
            "data[0].instrument_id",
        ),
        (r#"{"code":0,"data":[{"side":"long"}]}"#, "data[0]"),
    ] {
        match decode_swap::<PositionsRequest>(body) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, at, "{body}"),
            other => panic!("{body}: {other:?}"),
        }
    }
    assert!(decode_swap::<PositionsRequest>(r#"{"code":0}"#)
        .unwrap()
        .is_empty());
}

// ------------------------------------------------------------------------------------------
// Position mode

#[test]
fn position_mode_request_shape_and_validation() {
    assert_swap_signed_post(
        &PositionModeRequest::new("BTCUSDTPERP", MarginMode::Isolated),
        "/swap/v2/account/position_mode",
        r#"{"instrument_id":"BTCUSDTPERP","margin_mode":"isolated"}"#,
    );
    assert_swap_signed_post(
        &PositionModeRequest::new("BTCUSDTPERP", MarginMode::Crossed),
        "/swap/v2/account/position_mode",
        r#"{"instrument_id":"BTCUSDTPERP","margin_mode":"crossed"}"#,
    );
    assert_invalid(
        &PositionModeRequest::new("BTCUSDTPERP", MarginMode::Other("portfolio".into())),
        "margin_mode",
    );
    assert_invalid(
        &PositionModeRequest::new("", MarginMode::Crossed),
        "instrument_id",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/position_mode",
        r#"{"instrument_id":"BTCUSDTPERP"}"#,
        "margin_mode",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/position_mode",
        r#"{"instrument_id":"BTCUSDTPERP","margin_mode":"hedge"}"#,
        "margin_mode",
    );
    // The catalog accepts the aliases and sends the documented spelling.
    assert_catalog_same(
        "POST",
        "/swap/v2/account/position_mode",
        r#"{"instrument_id":"BTCUSDTPERP","margin_mode":"isolate"}"#,
        &PositionModeRequest::new("BTCUSDTPERP", MarginMode::Isolated),
    );
    assert_catalog_same(
        "POST",
        "/swap/v2/account/position_mode",
        r#"{"margin_mode":"crossed","instrument_id":"ETHUSDTPERP"}"#,
        &PositionModeRequest::new("ETHUSDTPERP", MarginMode::Crossed),
    );
}

#[test]
fn position_mode_decode_and_errors() {
    let a = decode_swap::<PositionModeRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","margin_mode":"isolated"}}"#,
    )
    .unwrap();
    assert_eq!(a.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(a.margin_mode, Some(MarginMode::Isolated));
    let a = decode_swap::<PositionModeRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","margin_mode":"hedged"}}"#,
    )
    .unwrap();
    assert_eq!(a.margin_mode, Some(MarginMode::Other("hedged".into())));
    // An answer without `data` is an acknowledgement without fields; placeholders are absent.
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0,"data":{"instrument_id":"","margin_mode":"-"}}"#,
    ] {
        let a = decode_swap::<PositionModeRequest>(body).unwrap();
        assert_eq!((a.instrument_id, a.margin_mode), (None, None), "{body}");
    }
    assert_eq!(
        api_code(decode_swap::<PositionModeRequest>(r#"{"code":401016}"#)),
        SwapCode::PositionExist
    );
}

// ------------------------------------------------------------------------------------------
// Position margin

#[test]
fn position_margin_request_shape_and_validation() {
    assert_swap_signed_post(
        &PositionMarginRequest::new(
            "BTCUSDTPERP",
            PositionSide::Long,
            MarginAdjustment::Add,
            a("25.50"),
        ),
        "/swap/v2/account/position_margin",
        r#"{"instrument_id":"BTCUSDTPERP","side":"long","type":1,"amount":"25.50"}"#,
    );
    assert_swap_signed_post(
        &PositionMarginRequest::new(
            "BTCUSDTPERP",
            PositionSide::Short,
            MarginAdjustment::Reduce,
            a("0.000000001"),
        ),
        "/swap/v2/account/position_margin",
        r#"{"instrument_id":"BTCUSDTPERP","side":"short","type":2,"amount":"0.000000001"}"#,
    );
    let ok =
        |side, adj, amount: &str| PositionMarginRequest::new("BTCUSDTPERP", side, adj, a(amount));
    assert_invalid(
        &ok(
            PositionSide::Other("both".into()),
            MarginAdjustment::Add,
            "1",
        ),
        "side",
    );
    assert_invalid(
        &ok(PositionSide::Long, MarginAdjustment::Unknown(3), "1"),
        "type",
    );
    assert_invalid(
        &ok(PositionSide::Long, MarginAdjustment::Add, "0"),
        "amount",
    );
    assert_invalid(
        &ok(PositionSide::Long, MarginAdjustment::Add, "-1"),
        "amount",
    );
    assert_invalid(
        &PositionMarginRequest::new("", PositionSide::Long, MarginAdjustment::Add, a("1")),
        "instrument_id",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/position_margin",
        r#"{"instrument_id":"BTCUSDTPERP","side":"long","type":1}"#,
        "amount",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/position_margin",
        r#"{"instrument_id":"BTCUSDTPERP","side":"isolated","type":1,"amount":"1"}"#,
        "side",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/position_margin",
        r#"{"instrument_id":"BTCUSDTPERP","side":"long","type":"add","amount":"1"}"#,
        "type",
    );
    assert_catalog_same(
        "POST",
        "/swap/v2/account/position_margin",
        r#"{"amount":12.5,"type":"2","side":"short","instrument_id":"BTCUSDTPERP"}"#,
        &ok(PositionSide::Short, MarginAdjustment::Reduce, "12.5"),
    );
}

#[test]
fn position_margin_decode_accepts_a_side_or_a_mode() {
    // The spec describes the answer's `side` as the margin mode; the request sent long/short and
    // a published answer echoes `long` (ccxt/ccxt ts/src/digifinex.ts). Both readings decode.
    let a = decode_swap::<PositionMarginRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","side":"isolated","type":1,"amount":"25.50"}}"#,
    )
    .unwrap();
    assert_eq!(a.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(a.side, Some(PositionMarginSide::Isolated));
    assert_eq!(a.adjustment, Some(MarginAdjustment::Add));
    assert_eq!(a.amount, Some(d("25.50")));
    assert_eq!(a.amount.unwrap().to_string(), "25.50");
    let a = decode_swap::<PositionMarginRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","side":"short","type":"2","amount":3}}"#,
    )
    .unwrap();
    assert_eq!(a.side, Some(PositionMarginSide::Short));
    assert_eq!(a.adjustment, Some(MarginAdjustment::Reduce));
    assert_eq!(a.amount, Some(d("3")));
    for (side, want) in [
        ("long", PositionMarginSide::Long),
        ("crossed", PositionMarginSide::Crossed),
        ("cross", PositionMarginSide::Crossed),
        ("isolate", PositionMarginSide::Isolated),
        ("both", PositionMarginSide::Other("both".into())),
    ] {
        let a = decode_swap::<PositionMarginRequest>(&format!(
            r#"{{"code":0,"data":{{"side":"{side}"}}}}"#
        ))
        .unwrap();
        assert_eq!(a.side, Some(want), "{side}");
    }
    // A word in the code field; an unknown code is kept.
    let a = decode_swap::<PositionMarginRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","type":"reduce","amount":"1"}}"#,
    )
    .unwrap();
    assert_eq!(a.adjustment, Some(MarginAdjustment::Reduce));
    let a = decode_swap::<PositionMarginRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","type":5,"amount":"1"}}"#,
    )
    .unwrap();
    assert_eq!(a.side, None);
    assert_eq!(a.adjustment, Some(MarginAdjustment::Unknown(5)));
    let v = serde_json::to_value(&a).unwrap();
    assert_eq!(v["type"], 5);
    assert_eq!(v["amount"], "1");
    // An answer without `data` is an acknowledgement without fields; placeholders are absent.
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"data":{"instrument_id":null,"side":"-","type":"","amount":"-"}}"#,
    ] {
        let a = decode_swap::<PositionMarginRequest>(body).unwrap();
        assert_eq!(a.instrument_id, None, "{body}");
        assert_eq!(a.side, None, "{body}");
        assert_eq!(a.adjustment, None, "{body}");
        assert_eq!(a.amount, None, "{body}");
    }
    assert_eq!(
        api_code(decode_swap::<PositionMarginRequest>(r#"{"code":401015}"#)),
        SwapCode::PositionNotIsolated
    );
}

// ------------------------------------------------------------------------------------------
// Leverage

#[test]
fn leverage_request_shape() {
    assert_swap_signed_post(
        &LeverageRequest::new("BTCUSDTPERP", d("20")),
        "/swap/v2/account/leverage",
        r#"{"instrument_id":"BTCUSDTPERP","leverage":20}"#,
    );
    assert_swap_signed_post(
        &LeverageRequest::new("BTCUSDTPERP", d("12.5"))
            .margin_mode(MarginMode::Isolated)
            .side(PositionSide::Short),
        "/swap/v2/account/leverage",
        r#"{"instrument_id":"BTCUSDTPERP","leverage":12.5,"margin_mode":"isolated","side":"short"}"#,
    );
    assert_swap_signed_post(
        &LeverageRequest::new("BTCUSDTPERP", d("5")).margin_mode(MarginMode::Crossed),
        "/swap/v2/account/leverage",
        r#"{"instrument_id":"BTCUSDTPERP","leverage":5,"margin_mode":"crossed"}"#,
    );
    // Without a margin mode the side is sent: the server knows the current mode.
    assert_swap_signed_post(
        &LeverageRequest::new("BTCUSDTPERP", d("3")).side(PositionSide::Long),
        "/swap/v2/account/leverage",
        r#"{"instrument_id":"BTCUSDTPERP","leverage":3,"side":"long"}"#,
    );
}

#[test]
fn leverage_validation() {
    assert_invalid(&LeverageRequest::new("BTCUSDTPERP", d("0")), "leverage");
    assert_invalid(&LeverageRequest::new("BTCUSDTPERP", d("-5")), "leverage");
    assert_invalid(&LeverageRequest::new("", d("5")), "instrument_id");
    assert_invalid(
        &LeverageRequest::new("BTCUSDTPERP", d("5")).margin_mode(MarginMode::Other("x".into())),
        "margin_mode",
    );
    assert_invalid(
        &LeverageRequest::new("BTCUSDTPERP", d("5")).side(PositionSide::Other("both".into())),
        "side",
    );
    // A side is an isolated-mode parameter: refused with crossed.
    assert_invalid(
        &LeverageRequest::new("BTCUSDTPERP", d("5"))
            .margin_mode(MarginMode::Crossed)
            .side(PositionSide::Long),
        "side",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/leverage",
        r#"{"instrument_id":"BTCUSDTPERP","leverage":10,"margin_mode":"cross","side":"short"}"#,
        "side",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/leverage",
        r#"{"instrument_id":"BTCUSDTPERP","leverage":"ten"}"#,
        "leverage",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/leverage",
        r#"{"instrument_id":"BTCUSDTPERP"}"#,
        "leverage",
    );
}

#[test]
fn leverage_catalog_round_trip() {
    assert_catalog_same(
        "POST",
        "/swap/v2/account/leverage",
        r#"{"instrument_id":"BTCUSDTPERP","leverage":"20"}"#,
        &LeverageRequest::new("BTCUSDTPERP", d("20")),
    );
    assert_catalog_same(
        "POST",
        "/swap/v2/account/leverage",
        r#"{"side":"long","margin_mode":"isolated","leverage":50,"instrument_id":"BTCUSDTPERP"}"#,
        &LeverageRequest::new("BTCUSDTPERP", d("50"))
            .margin_mode(MarginMode::Isolated)
            .side(PositionSide::Long),
    );
}

#[test]
fn leverage_decode() {
    let a = decode_swap::<LeverageRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","leverage":"20","margin_mode":"isolated","side":"long"}}"#,
    )
    .unwrap();
    assert_eq!(a.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(a.leverage, Some(d("20")));
    assert_eq!(a.margin_mode, Some(MarginMode::Isolated));
    assert_eq!(a.side, Some(PositionSide::Long));
    // `both` for crossed mode (docs/protocol.md; the answer ccxt publishes), a numeric leverage.
    let a = decode_swap::<LeverageRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","leverage":30,"margin_mode":"crossed","side":"both"}}"#,
    )
    .unwrap();
    assert_eq!(a.leverage, Some(d("30")));
    assert_eq!(a.margin_mode, Some(MarginMode::Crossed));
    assert_eq!(a.side, Some(PositionSide::Other("both".into())));
    // Empty and missing optional values.
    let a = decode_swap::<LeverageRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","leverage":"7.5","side":""}}"#,
    )
    .unwrap();
    assert_eq!(a.leverage, Some(d("7.5")));
    assert_eq!(a.margin_mode, None);
    assert_eq!(a.side, None);
    let v = serde_json::to_value(&a).unwrap();
    assert_eq!(v["leverage"], "7.5");
    assert_eq!(v["side"], serde_json::Value::Null);
    // An answer without `data` is an acknowledgement without fields; placeholders are absent.
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"data":{"instrument_id":"","leverage":"-","margin_mode":null,"side":"--"}}"#,
    ] {
        let a = decode_swap::<LeverageRequest>(body).unwrap();
        assert_eq!(a.instrument_id, None, "{body}");
        assert_eq!(a.leverage, None, "{body}");
        assert_eq!(a.margin_mode, None, "{body}");
        assert_eq!(a.side, None, "{body}");
    }
    assert_eq!(
        api_code(decode_swap::<LeverageRequest>(
            r#"{"code":401001,"msg":"order exist"}"#
        )),
        SwapCode::OrderExist
    );
}

// ------------------------------------------------------------------------------------------
// Trading fee rate

#[test]
fn trading_fee_rate_request_and_decode() {
    assert_swap_signed_get(
        &TradingFeeRateRequest::new("BTCUSDTPERP"),
        "/swap/v2/account/trading_fee_rate?instrument_id=BTCUSDTPERP",
    );
    assert_invalid(&TradingFeeRateRequest::new(""), "instrument_id");
    catalog_invalid(
        "GET",
        "/swap/v2/account/trading_fee_rate",
        "{}",
        "instrument_id",
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/account/trading_fee_rate",
        r#"{"instrument_id":"BTCUSDTPERP"}"#,
        &TradingFeeRateRequest::new("BTCUSDTPERP"),
    );
    let f = decode_swap::<TradingFeeRateRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","taker_fee_rate":"0.0005","maker_fee_rate":"-0.0001"}}"#,
    )
    .unwrap();
    assert_eq!(f.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(f.taker_fee_rate, Some(d("0.0005")));
    assert_eq!(f.maker_fee_rate, Some(d("-0.0001")));
    let f = decode_swap::<TradingFeeRateRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","taker_fee_rate":6e-4,"maker_fee_rate":0.0002}}"#,
    )
    .unwrap();
    assert_eq!(f.taker_fee_rate, Some(d("0.0006")));
    assert_eq!(f.maker_fee_rate, Some(d("0.0002")));
    // Every field is optional: placeholders are absent, no `data` is a record without values.
    let f = decode_swap::<TradingFeeRateRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","taker_fee_rate":"","maker_fee_rate":"-"}}"#,
    )
    .unwrap();
    assert_eq!((f.taker_fee_rate, f.maker_fee_rate), (None, None));
    let f = decode_swap::<TradingFeeRateRequest>(r#"{"code":0}"#).unwrap();
    assert_eq!(f.instrument_id, None);
    assert_eq!((f.taker_fee_rate, f.maker_fee_rate), (None, None));
}

// ------------------------------------------------------------------------------------------
// Finance record (bills)

#[test]
fn finance_record_request_shape_and_validation() {
    assert_swap_signed_get(
        &FinanceRecordRequest::new(),
        "/swap/v2/account/finance_record",
    );
    assert_swap_signed_get(
        &FinanceRecordRequest::new()
            .currency("USDT")
            .finance_type(FinanceType::FundingFee)
            .start_timestamp(T0)
            .end_timestamp(T1)
            .limit(100),
        "/swap/v2/account/finance_record?currency=USDT&finance_type=15\
         &start_timestamp=1657000000000&end_timestamp=1657522488402&limit=100",
    );
    assert_swap_signed_get(
        &FinanceRecordRequest::new().limit(1),
        "/swap/v2/account/finance_record?limit=1",
    );
    assert_invalid(&FinanceRecordRequest::new().limit(0), "limit");
    assert_invalid(&FinanceRecordRequest::new().limit(101), "limit");
    assert_invalid(&FinanceRecordRequest::new().currency(""), "currency");
    assert_invalid(
        &FinanceRecordRequest::new().finance_type(FinanceType::Unknown(7)),
        "finance_type",
    );
    assert_invalid(
        &FinanceRecordRequest::new()
            .start_timestamp(T1)
            .end_timestamp(T0),
        "end_timestamp",
    );
    assert_invalid(
        &FinanceRecordRequest::new()
            .start_timestamp(T1)
            .end_timestamp(T1),
        "end_timestamp",
    );
    catalog_invalid(
        "GET",
        "/swap/v2/account/finance_record",
        r#"{"finance_type":8}"#,
        "finance_type",
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/account/finance_record",
        r#"{"currency":"USDT","finance_type":"3","start_timestamp":1657000000000,
            "end_timestamp":1657522488402,"limit":"10"}"#,
        &FinanceRecordRequest::new()
            .currency("USDT")
            .finance_type(FinanceType::OpenLong)
            .start_timestamp(T0)
            .end_timestamp(T1)
            .limit(10),
    );
}

#[test]
fn finance_record_decode() {
    let bills = decode_swap::<FinanceRecordRequest>(
        r#"{"code":0,"data":[
        {"currency":"USDT","finance_type":15,"change":"-0.0123","timestamp":1657526400000},
        {"currency":"USDT","finance_type":"1","change":100,"timestamp":"1657522488402"},
        {"currency":"USDT","finance_type":17,"change":"0.5","timestamp":1657522488402},
        {"currency":"USDT","finance_type":"funding_fee","change":"0.1","timestamp":1657522488402},
        {"currency":"USDT","finance_type":"ADL close long","change":"1","timestamp":1657522488402},
        {"currency":"USDT","finance_type":"rebate","change":"2","timestamp":1657522488402},
        {"currency":"","finance_type":"-","change":"-","timestamp":""}]}"#,
    )
    .unwrap();
    assert_eq!(bills.len(), 7);
    assert_eq!(bills[0].currency.as_deref(), Some("USDT"));
    assert_eq!(bills[0].finance_type, Some(FinanceType::FundingFee));
    assert_eq!(bills[0].change, Some(d("-0.0123")));
    assert_eq!(bills[0].timestamp, Some(TimestampMillis(1_657_526_400_000)));
    assert_eq!(bills[1].finance_type, Some(FinanceType::TransferIn));
    assert_eq!(bills[1].change, Some(d("100")));
    assert_eq!(bills[1].timestamp, Some(T1));
    // A code beyond the spec (17, seen live) decodes into the open arm.
    assert_eq!(bills[2].finance_type, Some(FinanceType::Unknown(17)));
    // Words: the documented names in any case and separator; an unknown word is kept.
    assert_eq!(bills[3].finance_type, Some(FinanceType::FundingFee));
    assert_eq!(bills[4].finance_type, Some(FinanceType::AdlCloseLong));
    assert_eq!(
        bills[5].finance_type,
        Some(FinanceType::Other("rebate".into()))
    );
    // Every field of a bill is optional: placeholders are absent.
    let b = &bills[6];
    assert_eq!(
        (&b.currency, &b.finance_type, b.change, b.timestamp),
        (&None, &None, None, None)
    );
    let v = serde_json::to_value(&bills[0]).unwrap();
    assert_eq!(v["finance_type"], 15);
    assert_eq!(v["change"], "-0.0123");
    assert_eq!(
        api_code(decode_swap::<FinanceRecordRequest>(r#"{"code":400004}"#)),
        SwapCode::InvalidSign
    );
}

// ------------------------------------------------------------------------------------------
// Funding fee

#[test]
fn funding_fee_request_shape_and_validation() {
    assert_swap_signed_get(&FundingFeeRequest::new(), "/swap/v2/account/funding_fee");
    assert_swap_signed_get(
        &FundingFeeRequest::new()
            .instrument_id("BTCUSDTPERP")
            .start_timestamp(T0)
            .end_timestamp(T1)
            .limit(50),
        "/swap/v2/account/funding_fee?instrument_id=BTCUSDTPERP\
         &start_timestamp=1657000000000&end_timestamp=1657522488402&limit=50",
    );
    assert_swap_signed_get(
        &FundingFeeRequest::new().end_timestamp(T1),
        "/swap/v2/account/funding_fee?end_timestamp=1657522488402",
    );
    assert_invalid(
        &FundingFeeRequest::new().instrument_id("a b"),
        "instrument_id",
    );
    assert_invalid(&FundingFeeRequest::new().limit(101), "limit");
    assert_invalid(
        &FundingFeeRequest::new()
            .start_timestamp(T1)
            .end_timestamp(T0),
        "end_timestamp",
    );
    catalog_invalid(
        "GET",
        "/swap/v2/account/funding_fee",
        r#"{"start_timestamp":1657522488402,"end_timestamp":1657000000000}"#,
        "end_timestamp",
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/account/funding_fee",
        r#"{"instrument_id":"BTCUSDTPERP","limit":5}"#,
        &FundingFeeRequest::new()
            .instrument_id("BTCUSDTPERP")
            .limit(5),
    );
}

#[test]
fn funding_fee_decode() {
    let fees = decode_swap::<FundingFeeRequest>(
        r#"{"code":0,"data":[
        {"instrument_id":"BTCUSDTPERP","currency":"USDT","amount":"-0.02988","timestamp":1657526400000},
        {"instrument_id":"ETHUSDTPERP","currency":"USDT","amount":0.0041,"timestamp":"1657497600000"}]}"#,
    )
    .unwrap();
    assert_eq!(fees.len(), 2);
    assert_eq!(fees[0].instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(fees[0].currency.as_deref(), Some("USDT"));
    assert_eq!(fees[0].amount, Some(d("-0.02988")));
    assert_eq!(fees[0].timestamp, Some(TimestampMillis(1_657_526_400_000)));
    assert_eq!(fees[1].amount, Some(d("0.0041")));
    assert_eq!(fees[1].timestamp, Some(TimestampMillis(1_657_497_600_000)));
    // Every field is optional: placeholders are absent.
    let fees = decode_swap::<FundingFeeRequest>(
        r#"{"code":0,"data":[{"instrument_id":null,"currency":"","amount":"-","timestamp":"-"}]}"#,
    )
    .unwrap();
    let f = &fees[0];
    assert_eq!(
        (&f.instrument_id, &f.currency, f.amount, f.timestamp),
        (&None, &None, None, None)
    );
    assert!(decode_swap::<FundingFeeRequest>(r#"{"code":0,"data":[]}"#)
        .unwrap()
        .is_empty());
    assert!(decode_swap::<FundingFeeRequest>(r#"{"code":0}"#)
        .unwrap()
        .is_empty());
}

// ------------------------------------------------------------------------------------------
// Transfer record

#[test]
fn transfer_record_request_shape_and_validation() {
    assert_swap_signed_get(
        &TransferRecordRequest::new(),
        "/swap/v2/account/transfer_record",
    );
    assert_swap_signed_get(
        &TransferRecordRequest::new()
            .currency("USDT")
            .start_timestamp(T0)
            .end_timestamp(T1)
            .limit(20),
        "/swap/v2/account/transfer_record?currency=USDT\
         &start_timestamp=1657000000000&end_timestamp=1657522488402&limit=20",
    );
    assert_invalid(&TransferRecordRequest::new().currency(" "), "currency");
    assert_invalid(&TransferRecordRequest::new().limit(0), "limit");
    assert_invalid(
        &TransferRecordRequest::new()
            .start_timestamp(T0)
            .end_timestamp(T0),
        "end_timestamp",
    );
    catalog_invalid(
        "GET",
        "/swap/v2/account/transfer_record",
        r#"{"limit":"all"}"#,
        "limit",
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/account/transfer_record",
        r#"{"currency":"BTC","start_timestamp":"1657000000000"}"#,
        &TransferRecordRequest::new()
            .currency("BTC")
            .start_timestamp(T0),
    );
}

#[test]
fn transfer_record_decode() {
    let list = decode_swap::<TransferRecordRequest>(
        r#"{"code":0,"data":[
        {"transfer_id":9007199254740993123,"type":1,"currency":"USDT","amount":"100.5","timestamp":1657522488402},
        {"transfer_id":"77","type":"2","currency":"USDT","amount":20,"timestamp":"1657000000000"},
        {"transfer_id":78,"type":3,"currency":"BTC","amount":"0.001","timestamp":1657000000000}]}"#,
    )
    .unwrap();
    assert_eq!(list.len(), 3);
    // An id beyond 2^53 keeps every digit.
    assert_eq!(list[0].transfer_id, "9007199254740993123");
    assert_eq!(list[0].transfer_type, Some(TransferRecordType::TransferIn));
    assert_eq!(list[0].currency.as_deref(), Some("USDT"));
    assert_eq!(list[0].amount, Some(d("100.5")));
    assert_eq!(list[0].timestamp, Some(T1));
    assert_eq!(list[1].transfer_id, "77");
    assert_eq!(list[1].transfer_type, Some(TransferRecordType::TransferOut));
    assert_eq!(list[1].amount, Some(d("20")));
    assert_eq!(list[1].timestamp, Some(T0));
    assert_eq!(list[2].transfer_type, Some(TransferRecordType::Unknown(3)));
    let v = serde_json::to_value(&list[0]).unwrap();
    assert_eq!(v["transfer_id"], "9007199254740993123");
    assert_eq!(v["type"], 1);
    assert_eq!(v["amount"], "100.5");
    // Only the transfer id (identity) is required: an unreadable amount is absent, a word in
    // the code field is read by name, placeholders are absent.
    let list = decode_swap::<TransferRecordRequest>(
        r#"{"code":0,"data":[{"transfer_id":1,"type":"transfer_out","currency":"USDT","amount":"x","timestamp":1},
        {"transfer_id":2,"type":"-","currency":null,"amount":"","timestamp":"-"}]}"#,
    )
    .unwrap();
    assert_eq!(list[0].amount, None);
    assert_eq!(list[0].transfer_type, Some(TransferRecordType::TransferOut));
    assert_eq!(list[1].transfer_type, None);
    assert_eq!(list[1].currency, None);
    assert_eq!(list[1].amount, None);
    assert_eq!(list[1].timestamp, None);
    for (body, at) in [
        (
            r#"{"code":0,"data":[{"transfer_id":"-","type":1}]}"#,
            "data[0].transfer_id",
        ),
        (
            r#"{"code":0,"data":[{"transfer_id":null,"type":1}]}"#,
            "data[0].transfer_id",
        ),
        (r#"{"code":0,"data":[{"type":1}]}"#, "data[0]"),
    ] {
        match decode_swap::<TransferRecordRequest>(body) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, at, "{body}"),
            other => panic!("{body}: {other:?}"),
        }
    }
    match decode_status::<TransferRecordRequest>(403, r#"{"code":403002}"#) {
        Err(Error::Api(e)) => {
            assert_eq!(e.code, ApiCode::Swap(SwapCode::RequestForbidden));
            assert_eq!(e.status, 403);
        }
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------------------------------------
// Transfer

#[test]
fn transfer_request_shape_and_validation() {
    assert_swap_signed_post(
        &TransferRequest::new(TransferType::SpotToSwap, "USDT", a("10.50")),
        "/swap/v2/account/transfer",
        r#"{"type":1,"currency":"USDT","transfer_amount":"10.50"}"#,
    );
    assert_invalid(
        &TransferRequest::new(TransferType::Unknown(3), "USDT", a("1")),
        "type",
    );
    assert_invalid(
        &TransferRequest::new(TransferType::SwapToSpot, "", a("1")),
        "currency",
    );
    assert_invalid(
        &TransferRequest::new(TransferType::SwapToSpot, "USDT", a("0")),
        "transfer_amount",
    );
    catalog_invalid(
        "POST",
        "/swap/v2/account/transfer",
        r#"{"type":2,"currency":"USDT"}"#,
        "transfer_amount",
    );
    assert_catalog_same(
        "POST",
        "/swap/v2/account/transfer",
        r#"{"transfer_amount":"1.5","currency":"USDT","type":"2"}"#,
        &TransferRequest::new(TransferType::SwapToSpot, "USDT", a("1.5")),
    );
}

// ------------------------------------------------------------------------------------------
// Transfer acknowledgement

#[test]
fn transfer_ack_decodes_with_or_without_data() {
    let a = decode_swap::<TransferRequest>(
        r#"{"code":0,"data":{"type":1,"currency":"USDT","transfer_amount":"10.5"}}"#,
    )
    .unwrap();
    assert_eq!(a.transfer_type, Some(TransferType::SpotToSwap));
    assert_eq!(a.currency.as_deref(), Some("USDT"));
    assert_eq!(a.transfer_amount, Some(d("10.5")));
    let a = decode_swap::<TransferRequest>(r#"{"code":0}"#).unwrap();
    assert_eq!(
        (a.transfer_type, a.currency, a.transfer_amount),
        (None, None, None)
    );
    assert_eq!(
        api_code(decode_swap::<TransferRequest>(r#"{"code":401018}"#)),
        SwapCode::TransferNotAllow
    );
}
