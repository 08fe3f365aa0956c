//! Account endpoints: balances, finance log, margin positions, transfers, closing a position.

mod support;
use support::*;

use digifinex_core::catalog::{self, ParamMap};
use digifinex_core::spot::{
    Asset, ClosePositionAck, ClosePositionRequest, FinanceEntry, FinanceLog, FinanceLogRequest,
    FinanceType, MarginAssetsRequest, MarginPositionsRequest, Market, PositionSide,
    SpotAssetsRequest, TransferAccount, TransferAck, TransferRequest,
};
use digifinex_core::{Amount, Config, Endpoint, Error, ErrorKind, TimestampSecs};

const BASE: &str = "https://openapi.digifinex.com/v3";

fn amt(s: &str) -> Amount {
    s.parse().unwrap()
}

fn catalog_build(method: &str, path: &str, params: &[(&str, &str)]) -> Result<String, Error> {
    let (entry, vars) = catalog::find(method, path).expect("catalog entry");
    let mut map = ParamMap::new();
    for (k, v) in vars {
        map.insert_text(k, v);
    }
    for (k, v) in params {
        map.insert_text(*k, *v);
    }
    (entry.build)(map, &Config::default(), Some(&creds()), NOW).map(|r| render(&r))
}

fn catalog_invalid(method: &str, path: &str, params: &[(&str, &str)], field: &str) {
    match catalog_build(method, path, params) {
        Err(Error::Validation { field: f, .. }) => assert_eq!(f, field),
        other => panic!("expected a validation error on {field}, got {other:?}"),
    }
}

// ------------------------------------------------------------------------------------------
// Catalog registration

#[test]
fn every_endpoint_is_in_the_catalog_as_private() {
    for (method, path, type_name, idempotent) in [
        ("GET", "/v3/spot/assets", "SpotAssetsRequest", true),
        ("GET", "/v3/margin/assets", "MarginAssetsRequest", true),
        ("GET", "/v3/spot/financelog", "FinanceLogRequest", true),
        ("GET", "/v3/margin/financelog", "FinanceLogRequest", true),
        (
            "GET",
            "/v3/margin/positions",
            "MarginPositionsRequest",
            true,
        ),
        ("POST", "/v3/transfer", "TransferRequest", false),
        (
            "POST",
            "/v3/margin/position/close",
            "ClosePositionRequest",
            false,
        ),
    ] {
        let (entry, _) = catalog::find(method, path).unwrap_or_else(|| panic!("{method} {path}"));
        assert!(
            (entry.request_type)().ends_with(&format!("::{type_name}")),
            "{method} {path}: {}",
            (entry.request_type)()
        );
        assert!(entry.meta.signed, "{path}");
        assert_eq!(entry.meta.success_code, 0, "{path}");
        assert_eq!(entry.meta.idempotent, idempotent, "{path}");
        assert_eq!(entry.meta.method.as_str(), method);
    }
    assert_eq!(
        FinanceLogRequest::META.display_path(),
        "/v3/{market}/financelog"
    );
}

#[test]
fn catalog_financelog_matches_typed_builder() {
    let (entry, vars) = catalog::find("GET", "/v3/margin/financelog").unwrap();
    assert_eq!(vars, vec![("market".to_owned(), "margin".to_owned())]);
    let mut params = ParamMap::new();
    for (k, v) in vars {
        params.insert_text(k, v);
    }
    params.insert_text("limit", "5");
    let from_catalog = (entry.build)(params, &Config::default(), Some(&creds()), NOW).unwrap();
    let typed = build_req(&FinanceLogRequest::new(Market::Margin).limit(5)).unwrap();
    assert_eq!(render(&from_catalog), render(&typed));
    assert_eq!(
        from_catalog.uri(),
        "https://openapi.digifinex.com/v3/margin/financelog?market=margin&limit=5"
    );
}

#[test]
fn catalog_financelog_all_params_match_typed_builder() {
    let got = catalog_build(
        "GET",
        "/v3/spot/financelog",
        &[
            ("currency_mark", "btc"),
            ("start_time", "1699990000"),
            ("end_time", "1700000000"),
            ("limit", "1000"),
        ],
    )
    .unwrap();
    let typed = FinanceLogRequest::new(Market::Spot)
        .currency_mark("btc")
        .start_time(TimestampSecs(1_699_990_000))
        .end_time(TimestampSecs(1_700_000_000))
        .limit(1000);
    assert_eq!(got, render(&build_req(&typed).unwrap()));
}

#[test]
fn catalog_rejects_bad_financelog_params() {
    catalog_invalid("GET", "/v3/margin/financelog", &[("limit", "x")], "limit");
    catalog_invalid(
        "GET",
        "/v3/margin/financelog",
        &[("limit", "1001")],
        "limit",
    );
    catalog_invalid(
        "GET",
        "/v3/margin/financelog",
        &[("start_time", "1.5")],
        "start_time",
    );
    catalog_invalid(
        "GET",
        "/v3/margin/financelog",
        &[("symbol", "btc_usdt")],
        "symbol",
    );
    // Any segment matches the template; a market other than spot or margin is refused.
    catalog_invalid("GET", "/v3/otc/financelog", &[], "market");
}

#[test]
fn catalog_accepts_an_explicit_market_equal_to_the_path() {
    // The path variable and an explicit `market` parameter of the same value are one parameter.
    let got = catalog_build(
        "GET",
        "/v3/margin/financelog",
        &[("market", "margin"), ("limit", "5")],
    )
    .unwrap();
    let typed = FinanceLogRequest::new(Market::Margin).limit(5);
    assert_eq!(got, render(&build_req(&typed).unwrap()));
    assert!(
        got.contains("/v3/margin/financelog?market=margin&limit=5"),
        "{got}"
    );
}

#[test]
fn catalog_transfer_matches_typed_builder() {
    let got = catalog_build(
        "POST",
        "/v3/transfer",
        &[
            ("currency_mark", "usdt"),
            ("num", "1.50"),
            ("from", "1"),
            ("to", "2"),
        ],
    )
    .unwrap();
    let typed = TransferRequest::new(
        "usdt",
        amt("1.50"),
        TransferAccount::Spot,
        TransferAccount::Margin,
    );
    assert_eq!(got, render(&build_req(&typed).unwrap()));
}

#[test]
fn catalog_transfer_refuses_unknown_account_codes() {
    let base = [("currency_mark", "usdt"), ("num", "1")];
    for (from, to, field) in [
        ("0", "2", "from"),
        ("4", "2", "from"),
        ("spotty", "2", "from"),
        ("1", "", "to"),
        ("1", "x", "to"),
        ("1", "-1", "to"),
    ] {
        let mut params = base.to_vec();
        params.push(("from", from));
        params.push(("to", to));
        catalog_invalid("POST", "/v3/transfer", &params, field);
    }
    catalog_invalid(
        "POST",
        "/v3/transfer",
        &[("currency_mark", "usdt"), ("num", "1"), ("from", "1")],
        "to",
    );
    catalog_invalid(
        "POST",
        "/v3/transfer",
        &[
            ("currency_mark", "usdt"),
            ("num", "abc"),
            ("from", "1"),
            ("to", "2"),
        ],
        "num",
    );
    // Rules of the typed request apply to catalog builds too.
    catalog_invalid(
        "POST",
        "/v3/transfer",
        &[
            ("currency_mark", "usdt"),
            ("num", "1"),
            ("from", "2"),
            ("to", "3"),
        ],
        "to",
    );
}

#[test]
fn catalog_positions_and_close_match_typed_builders() {
    let got = catalog_build("GET", "/v3/margin/positions", &[("symbol", "btc_usdt")]).unwrap();
    let typed = MarginPositionsRequest::new().symbol("btc_usdt");
    assert_eq!(got, render(&build_req(&typed).unwrap()));
    let got = catalog_build(
        "POST",
        "/v3/margin/position/close",
        &[("symbol", "eth_usdt")],
    )
    .unwrap();
    assert_eq!(
        got,
        render(&build_req(&ClosePositionRequest::new("eth_usdt")).unwrap())
    );
    catalog_invalid("POST", "/v3/margin/position/close", &[], "symbol");
    let got = catalog_build("GET", "/v3/spot/assets", &[]).unwrap();
    assert_eq!(got, render(&build_req(&SpotAssetsRequest).unwrap()));
    let got = catalog_build("GET", "/v3/margin/assets", &[]).unwrap();
    assert_eq!(got, render(&build_req(&MarginAssetsRequest).unwrap()));
    catalog_invalid("GET", "/v3/spot/assets", &[("limit", "5")], "limit");
}

// ------------------------------------------------------------------------------------------
// Request shapes

#[test]
fn spot_assets_request_shape() {
    assert_signed_get(&SpotAssetsRequest, &format!("{BASE}/spot/assets"));
}

#[test]
fn margin_assets_request_shape() {
    assert_signed_get(&MarginAssetsRequest, &format!("{BASE}/margin/assets"));
}

#[test]
fn financelog_request_shape_minimal() {
    assert_signed_get(
        &FinanceLogRequest::new(Market::Spot),
        &format!("{BASE}/spot/financelog?market=spot"),
    );
    assert_signed_get(
        &FinanceLogRequest::new(Market::Margin),
        &format!("{BASE}/margin/financelog?market=margin"),
    );
}

#[test]
fn financelog_request_shape_all_params_in_spec_order() {
    // Setters called out of order; parameters still travel in documented order.
    let req = FinanceLogRequest::new(Market::Margin)
        .limit(1000)
        .end_time(TimestampSecs(1_700_000_000))
        .start_time(TimestampSecs(1_699_990_000))
        .currency_mark("usdt");
    assert_signed_get(
        &req,
        &format!(
            "{BASE}/margin/financelog?market=margin&currency_mark=usdt&start_time=1699990000&end_time=1700000000&limit=1000"
        ),
    );
}

#[test]
fn financelog_request_escapes_currency() {
    assert_signed_get(
        &FinanceLogRequest::new(Market::Spot).currency_mark("a b&c"),
        &format!("{BASE}/spot/financelog?market=spot&currency_mark=a+b%26c"),
    );
}

#[test]
fn financelog_equal_start_and_end_is_allowed() {
    assert_signed_get(
        &FinanceLogRequest::new(Market::Spot)
            .start_time(TimestampSecs(1_600_000_000))
            .end_time(TimestampSecs(1_600_000_000))
            .limit(1),
        &format!(
            "{BASE}/spot/financelog?market=spot&start_time=1600000000&end_time=1600000000&limit=1"
        ),
    );
}

#[test]
fn financelog_has_no_lookback_limit() {
    // Far in the past: only end >= start is checked.
    assert_signed_get(
        &FinanceLogRequest::new(Market::Spot).start_time(TimestampSecs(0)),
        &format!("{BASE}/spot/financelog?market=spot&start_time=0"),
    );
}

#[test]
fn margin_positions_request_shape() {
    assert_signed_get(
        &MarginPositionsRequest::new(),
        &format!("{BASE}/margin/positions"),
    );
    assert_signed_get(
        &MarginPositionsRequest::new().symbol("btc_usdt"),
        &format!("{BASE}/margin/positions?symbol=btc_usdt"),
    );
}

#[test]
fn transfer_request_shape() {
    assert_signed_post(
        &TransferRequest::new(
            "usdt",
            amt("1.5"),
            TransferAccount::Spot,
            TransferAccount::Margin,
        ),
        &format!("{BASE}/transfer"),
        "currency_mark=usdt&num=1.5&from=1&to=2",
    );
}

#[test]
fn transfer_request_shape_other_directions() {
    assert_signed_post(
        &TransferRequest::new(
            "btc",
            amt("0.00000001"),
            TransferAccount::Margin,
            TransferAccount::Spot,
        ),
        &format!("{BASE}/transfer"),
        "currency_mark=btc&num=0.00000001&from=2&to=1",
    );
    assert_signed_post(
        &TransferRequest::new(
            "usdt",
            amt("100"),
            TransferAccount::Spot,
            TransferAccount::Otc,
        ),
        &format!("{BASE}/transfer"),
        "currency_mark=usdt&num=100&from=1&to=3",
    );
    assert_signed_post(
        &TransferRequest::new(
            "usdt",
            amt("2.50"),
            TransferAccount::Otc,
            TransferAccount::Spot,
        ),
        &format!("{BASE}/transfer"),
        "currency_mark=usdt&num=2.50&from=3&to=1",
    );
}

#[test]
fn close_position_request_shape() {
    assert_signed_post(
        &ClosePositionRequest::new("btc_usdt"),
        &format!("{BASE}/margin/position/close"),
        "symbol=btc_usdt",
    );
}

#[test]
fn private_endpoints_need_credentials() {
    let e = digifinex_core::build(&SpotAssetsRequest, &Config::default(), None, NOW).unwrap_err();
    assert!(matches!(e, Error::Validation { ref field, .. } if field == "credentials"));
    let e = digifinex_core::build(
        &ClosePositionRequest::new("btc_usdt"),
        &Config::default(),
        None,
        NOW,
    )
    .unwrap_err();
    assert!(matches!(e, Error::Validation { ref field, .. } if field == "credentials"));
}

#[test]
fn transfer_account_codes() {
    assert_eq!(TransferAccount::Spot.code(), 1);
    assert_eq!(TransferAccount::Margin.code(), 2);
    assert_eq!(TransferAccount::Otc.code(), 3);
    assert_eq!(
        TransferAccount::parse("from", " 3 ").unwrap(),
        TransferAccount::Otc
    );
    // The name describe lists beside the code is read too, without case; nothing else is.
    assert_eq!(
        TransferAccount::parse("from", "otc").unwrap(),
        TransferAccount::Otc
    );
    let e = TransferAccount::parse("from", "4").unwrap_err();
    assert_eq!(e.field(), Some("from"));
    assert!(
        e.to_string()
            .contains(r#""4" is not one of 1 (spot), 2 (margin), 3 (OTC)"#),
        "{e}"
    );
    assert_eq!(TransferAccount::ALL.len(), 3);
}

// ------------------------------------------------------------------------------------------
// Validation

#[test]
fn financelog_limit_range() {
    assert_invalid(&FinanceLogRequest::new(Market::Spot).limit(0), "limit");
    assert_invalid(&FinanceLogRequest::new(Market::Margin).limit(1001), "limit");
    assert!(build_req(&FinanceLogRequest::new(Market::Spot).limit(1)).is_ok());
    assert!(build_req(&FinanceLogRequest::new(Market::Spot).limit(1000)).is_ok());
}

#[test]
fn financelog_end_before_start() {
    assert_invalid(
        &FinanceLogRequest::new(Market::Spot)
            .start_time(TimestampSecs(1_700_000_000))
            .end_time(TimestampSecs(1_699_999_999)),
        "end_time",
    );
}

#[test]
fn financelog_empty_currency() {
    assert_invalid(
        &FinanceLogRequest::new(Market::Spot).currency_mark(""),
        "currency_mark",
    );
    assert_invalid(
        &FinanceLogRequest::new(Market::Spot).currency_mark("  "),
        "currency_mark",
    );
}

#[test]
fn margin_positions_symbol_form() {
    for bad in ["btcusdt", "", "btc-usdt", "_usdt"] {
        assert_invalid(&MarginPositionsRequest::new().symbol(bad), "symbol");
    }
}

#[test]
fn transfer_num_must_be_positive() {
    for bad in ["0", "-1", "0.000"] {
        assert_invalid(
            &TransferRequest::new(
                "usdt",
                amt(bad),
                TransferAccount::Spot,
                TransferAccount::Margin,
            ),
            "num",
        );
    }
}

#[test]
fn transfer_same_account_refused() {
    for a in [
        TransferAccount::Spot,
        TransferAccount::Margin,
        TransferAccount::Otc,
    ] {
        assert_invalid(&TransferRequest::new("usdt", amt("1"), a, a), "to");
    }
}

#[test]
fn transfer_margin_otc_refused_both_ways() {
    assert_invalid(
        &TransferRequest::new(
            "usdt",
            amt("1"),
            TransferAccount::Margin,
            TransferAccount::Otc,
        ),
        "to",
    );
    assert_invalid(
        &TransferRequest::new(
            "usdt",
            amt("1"),
            TransferAccount::Otc,
            TransferAccount::Margin,
        ),
        "to",
    );
}

#[test]
fn transfer_currency_required() {
    for bad in ["", " "] {
        assert_invalid(
            &TransferRequest::new(
                bad,
                amt("1"),
                TransferAccount::Spot,
                TransferAccount::Margin,
            ),
            "currency_mark",
        );
    }
}

#[test]
fn close_position_symbol_form() {
    for bad in ["", "btc", "btc_usdt_x", "btc/usdt"] {
        assert_invalid(&ClosePositionRequest::new(bad), "symbol");
    }
}

// ------------------------------------------------------------------------------------------
// Decoding: balances

/// Decodes through the catalog, returning the rendered model and the JSON paths of the optional
/// values that could not be read.
fn decode_report(method: &str, path: &str, body: &str) -> (serde_json::Value, Vec<String>) {
    let (entry, _) = catalog::find(method, path).expect("catalog entry");
    let (v, unreadable) =
        (entry.decode_report)(200, &http::HeaderMap::new(), body.as_bytes()).unwrap();
    (v, unreadable.into_iter().map(|u| u.path).collect())
}

fn asset(currency: &str, free: Option<&str>, total: Option<&str>, rate: Option<&str>) -> Asset {
    answer!(Asset {
        currency: currency.into(),
        free: free.map(d),
        total: total.map(d),
        valuation_rate: rate.map(d),
    })
}

#[test]
fn spot_assets_decode_numbers_and_strings() {
    let out = decode::<SpotAssetsRequest>(
        r#"{"code":0,"list":[
            {"currency":"BTC","free":4723846.89208129,"total":0},
            {"currency":"USDT","free":"12.5","total":"25.999999999999996"},
            {"currency":"DOGE","free":1e-07,"total":"1E-7","extra":"ignored"}
        ]}"#,
    )
    .unwrap();
    assert_eq!(
        out.list,
        vec![
            asset("BTC", Some("4723846.89208129"), Some("0"), None),
            asset("USDT", Some("12.5"), Some("25.999999999999996"), None),
            asset("DOGE", Some("0.0000001"), Some("0.0000001"), None),
        ]
    );
    // A zero the server sends is kept; only an absent value is None.
    assert_eq!(out.list[0].total, Some(d("0")));
}

#[test]
fn spot_assets_placeholders_are_absent_and_empty_lists() {
    let out = decode::<SpotAssetsRequest>(
        r#"{"list":[{"currency":"ETH","free":"","total":null},{"currency":"BTC","free":"-","total":"--"},{"currency":"XRP"}],"code":0}"#,
    )
    .unwrap();
    assert_eq!(
        out.list,
        vec![
            asset("ETH", None, None, None),
            asset("BTC", None, None, None),
            asset("XRP", None, None, None),
        ]
    );
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"list":null}"#,
        r#"{"code":0,"list":[]}"#,
        r#"{"code":0,"list":""}"#,
        r#"{"code":0,"list":"-"}"#,
    ] {
        assert!(
            decode::<SpotAssetsRequest>(body).unwrap().list.is_empty(),
            "{body}"
        );
    }
}

#[test]
fn spot_assets_unreadable_amount_is_absent_and_reported() {
    let (v, unreadable) = decode_report(
        "GET",
        "/v3/spot/assets",
        r#"{"code":0,"list":[{"currency":"BTC","free":"abc","total":"1"},{"currency":"ETH","free":{"x":1},"total":2}]}"#,
    );
    assert_eq!(v["list"][0]["free"], serde_json::Value::Null);
    assert_eq!(v["list"][0]["total"], "1");
    assert_eq!(v["list"][1]["total"], "2");
    assert_eq!(unreadable, vec!["list[0].free", "list[1].free"]);
}

#[test]
fn spot_assets_currency_is_required() {
    for row in [
        r#"{"free":"1"}"#,
        r#"{"currency":"","free":"1"}"#,
        r#"{"currency":"-","free":"1"}"#,
        r#"{"currency":null,"free":"1"}"#,
        r#"{"currency":{"a":1},"free":"1"}"#,
    ] {
        let body = format!(r#"{{"code":0,"list":[{{"currency":"BTC"}},{row}]}}"#);
        match decode::<SpotAssetsRequest>(&body).unwrap_err() {
            Error::Decode { path, .. } => assert!(path.starts_with("list[1]"), "{row}: {path}"),
            other => panic!("{row}: {other:?}"),
        }
    }
}

#[test]
fn margin_assets_decode() {
    let out = decode::<MarginAssetsRequest>(
        r#"{"code":0,"free":7.8,"total":"7.80","unrealized_pnl":-0.5,"equity":"7.30",
            "list":[{"currency":"USDT","free":"7.8","total":7.8,"valuation_rate":1},
                    {"currency":"BTC","free":0,"total":1e-07,"valuation_rate":"9700.12"}]}"#,
    )
    .unwrap();
    assert_eq!(out.free, Some(d("7.8")));
    assert_eq!(out.total, Some(d("7.80")));
    assert_eq!(out.total.unwrap().to_string(), "7.80");
    assert_eq!(out.unrealized_pnl, Some(d("-0.5")));
    assert_eq!(out.equity.unwrap().to_string(), "7.30");
    assert_eq!(
        out.list,
        vec![
            asset("USDT", Some("7.8"), Some("7.8"), Some("1")),
            asset("BTC", Some("0"), Some("0.0000001"), Some("9700.12")),
        ]
    );
}

#[test]
fn margin_assets_captured_answer_with_equity() {
    // The answer captured in ccxt/ccxt ts/src/digifinex.ts (fetchCrossBorrowRate).
    let out = decode::<MarginAssetsRequest>(
        r#"{"list":[{"valuation_rate":1,"total":1.92012186174,"free":1.92012186174,"currency":"USDT"}],
            "total":45.133305540922,"code":0,"unrealized_pnl":0,"free":45.133305540922,
            "equity":45.133305540922}"#,
    )
    .unwrap();
    assert_eq!(out.equity, Some(d("45.133305540922")));
    assert_eq!(out.unrealized_pnl, Some(d("0")));
    assert_eq!(out.list[0].free, Some(d("1.92012186174")));
}

#[test]
fn margin_assets_missing_summary_is_none() {
    for body in [
        r#"{"code":0,"list":[],"unrealized_pnl":"","equity":"-","total":null}"#,
        r#"{"code":0}"#,
    ] {
        let out = decode::<MarginAssetsRequest>(body).unwrap();
        assert_eq!(out.total, None, "{body}");
        assert_eq!(out.free, None, "{body}");
        assert_eq!(out.unrealized_pnl, None, "{body}");
        assert_eq!(out.equity, None, "{body}");
        assert!(out.list.is_empty(), "{body}");
    }
}

// ------------------------------------------------------------------------------------------
// Decoding: finance log

fn entry(
    currency: &str,
    time: Option<i64>,
    num: Option<&str>,
    balance: Option<&str>,
    finance_type: Option<i64>,
) -> FinanceEntry {
    answer!(FinanceEntry {
        currency: Some(currency.into()),
        time: time.map(TimestampSecs),
        num: num.map(d),
        balance: balance.map(d),
        free: None,
        total: None,
        finance_type: finance_type.map(FinanceType),
    })
}

#[test]
fn financelog_current_shape_total_string() {
    let out = decode::<FinanceLogRequest>(
        r#"{"data":{"finance":[
              {"time":1589872188,"num":-0.00072,"balance":0.0285,"currency_mark":"btc","type":13},
              {"time":"1589872100","num":"12.5","balance":"1e-07","currency_mark":"usdt","type":"31"}
            ],"total":"12"},"code":0}"#,
    )
    .unwrap();
    assert_eq!(
        out,
        answer!(FinanceLog {
            entries: vec![
                entry(
                    "btc",
                    Some(1_589_872_188),
                    Some("-0.00072"),
                    Some("0.0285"),
                    Some(13)
                ),
                entry(
                    "usdt",
                    Some(1_589_872_100),
                    Some("12.5"),
                    Some("0.0000001"),
                    Some(31)
                ),
            ],
            total: Some(12),
        })
    );
}

#[test]
fn financelog_total_as_int_and_code_first() {
    let out = decode::<FinanceLogRequest>(
        r#"{"code":0,"data":{"total":2,"finance":[
              {"time":1700000000,"num":1,"balance":2,"currency_mark":"eth","type":4}
            ],"page":1}}"#,
    )
    .unwrap();
    assert_eq!(out.total, Some(2));
    assert_eq!(
        out.entries,
        vec![entry(
            "eth",
            Some(1_700_000_000),
            Some("1"),
            Some("2"),
            Some(4)
        )]
    );
}

#[test]
fn financelog_total_absent_or_blank() {
    for body in [
        r#"{"code":0,"data":{"finance":[]}}"#,
        r#"{"code":0,"data":{"finance":[],"total":""}}"#,
        r#"{"code":0,"data":{"finance":[],"total":"-"}}"#,
        r#"{"code":0,"data":{"finance":null,"total":null}}"#,
        r#"{"code":0,"data":{"finance":"","total":"--"}}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0,"data":""}"#,
        r#"{"code":0}"#,
        r#"{"code":0,"data":{}}"#,
        r#"{"code":0,"data":[]}"#,
    ] {
        let out = decode::<FinanceLogRequest>(body).unwrap();
        assert_eq!(
            out,
            answer!(FinanceLog {
                entries: vec![],
                total: None
            }),
            "{body}"
        );
    }
}

#[test]
fn financelog_older_asset_shape_as_list() {
    let out = decode::<FinanceLogRequest>(
        r#"{"code":0,"data":[
              {"currency":"BTC","free":4723846.89208129,"total":"0.5"},
              {"currency":"USDT","free":"1e-07","total":0}
            ]}"#,
    )
    .unwrap();
    assert_eq!(out.total, None);
    assert_eq!(
        out.entries,
        vec![
            answer!(FinanceEntry {
                currency: Some("BTC".into()),
                time: None,
                num: None,
                balance: None,
                free: Some(d("4723846.89208129")),
                total: Some(d("0.5")),
                finance_type: None,
            }),
            answer!(FinanceEntry {
                currency: Some("USDT".into()),
                time: None,
                num: None,
                balance: None,
                free: Some(d("0.0000001")),
                total: Some(d("0")),
                finance_type: None,
            }),
        ]
    );
}

#[test]
fn financelog_older_asset_shape_inside_finance_object() {
    let out = decode::<FinanceLogRequest>(
        r#"{"code":0,"data":{"finance":[{"currency":"BTC","free":"1.5","total":2}],"total":1}}"#,
    )
    .unwrap();
    assert_eq!(out.total, Some(1));
    assert_eq!(out.entries.len(), 1);
    assert_eq!(out.entries[0].currency.as_deref(), Some("BTC"));
    assert_eq!(out.entries[0].free, Some(d("1.5")));
    assert_eq!(out.entries[0].total, Some(d("2")));
    assert_eq!(out.entries[0].num, None);
}

#[test]
fn financelog_currency_mark_wins_over_currency() {
    let out = decode::<FinanceLogRequest>(
        r#"{"code":0,"data":[{"currency":"old","currency_mark":"new","num":"1"},{"currency_mark":"","currency":"fallback"},{"num":"2"}]}"#,
    )
    .unwrap();
    assert_eq!(out.entries[0].currency.as_deref(), Some("new"));
    assert_eq!(out.entries[1].currency.as_deref(), Some("fallback"));
    assert_eq!(out.entries[2].currency, None);
    assert_eq!(out.entries[2].num, Some(d("2")));
}

#[test]
fn financelog_unknown_type_codes_kept() {
    let out = decode::<FinanceLogRequest>(
        r#"{"code":0,"data":{"finance":[{"currency_mark":"btc","type":987654,"num":25.999999999999996}],"total":"1"}}"#,
    )
    .unwrap();
    assert_eq!(out.entries[0].finance_type, Some(FinanceType(987_654)));
    assert_eq!(out.entries[0].finance_type.unwrap().code(), 987_654);
    assert_eq!(out.entries[0].num, Some(d("25.999999999999996")));
    assert_eq!(out.entries[0].time, None);
}

#[test]
fn financelog_placeholders_in_every_field_are_absent() {
    let out = decode::<FinanceLogRequest>(
        r#"{"code":0,"data":{"finance":[{"time":"","num":"-","balance":null,"currency_mark":"--","type":""}],"total":"1"}}"#,
    )
    .unwrap();
    let e = &out.entries[0];
    assert_eq!(e.time, None);
    assert_eq!(e.num, None);
    assert_eq!(e.balance, None);
    assert_eq!(e.finance_type, None);
    assert_eq!(out.total, Some(1));
}

#[test]
fn financelog_unreadable_values_are_absent_and_reported() {
    for (body, path) in [
        (
            r#"{"code":0,"data":{"finance":[{"num":"x","currency_mark":"btc"}]}}"#,
            "data.finance[0].num",
        ),
        (
            r#"{"code":0,"data":{"finance":[],"total":"many"}}"#,
            "data.total",
        ),
        (
            r#"{"code":0,"data":{"finance":[],"total":-1}}"#,
            "data.total",
        ),
        (r#"{"code":0,"data":"text"}"#, "data"),
        (r#"{"code":0,"data":7}"#, "data"),
        (r#"{"code":0,"data":[{"type":1.5}]}"#, "data[0].type"),
        // A word where the integer `type` is documented: absent, reported.
        (
            r#"{"code":0,"data":{"finance":[{"type":"deposit"}]}}"#,
            "data.finance[0].type",
        ),
        (
            r#"{"code":0,"data":{"finance":{"a":1},"total":1}}"#,
            "data.finance",
        ),
    ] {
        let (_, unreadable) = decode_report("GET", "/v3/margin/financelog", body);
        assert_eq!(unreadable, vec![path.to_owned()], "{body}");
        assert!(decode::<FinanceLogRequest>(body).is_ok(), "{body}");
    }
}

#[test]
fn financelog_renders_as_json_through_catalog() {
    let (entry, _) = catalog::find("GET", "/v3/spot/financelog").unwrap();
    let v = (entry.decode)(
        200,
        &http::HeaderMap::new(),
        br#"{"data":{"finance":[{"time":1589872188,"num":1e-07,"balance":"2.50","currency_mark":"btc","type":13}],"total":"12"},"code":0}"#,
    )
    .unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "entries": [{
                "currency": "btc",
                "time": 1589872188,
                "num": "0.0000001",
                "balance": "2.50",
                "free": null,
                "total": null,
                "type": 13
            }],
            "total": 12
        })
    );
}

// ------------------------------------------------------------------------------------------
// Decoding: margin positions

#[test]
fn margin_positions_decode_documented_shape() {
    let out = decode::<MarginPositionsRequest>(
        r#"{"margin":"45.71246418952618","margin_rate":"7.5","unrealized_pnl":"-0.0008",
            "positions":[{"symbol":"BTC_USDT","leverage_ratio":3,"side":"long","amount":0.01,
                          "entry_price":9735.89,"unrealized_pnl":-0.0008,
                          "liquidation_price":6000.12,"liquidation_rate":0.3}],
            "code":0}"#,
    )
    .unwrap();
    assert_eq!(out.margin, Some(d("45.71246418952618")));
    assert_eq!(out.margin_rate, Some(d("7.5")));
    assert_eq!(out.unrealized_pnl, Some(d("-0.0008")));
    assert_eq!(out.positions.len(), 1);
    let p = &out.positions[0];
    assert_eq!(p.symbol, "BTC_USDT");
    assert_eq!(p.symbol, "btc_usdt");
    assert_eq!(p.symbol.as_str(), "btc_usdt");
    assert_eq!(p.leverage_ratio, Some(d("3")));
    assert_eq!(p.side, Some(PositionSide::Long));
    assert_eq!(p.amount, Some(d("0.01")));
    assert_eq!(p.entry_price, Some(d("9735.89")));
    assert_eq!(p.unrealized_pnl, Some(d("-0.0008")));
    assert_eq!(p.unrealized_roe, None);
    assert_eq!(p.liquidation_price, Some(d("6000.12")));
    assert_eq!(p.liquidation_rate, Some(d("0.3")));
}

#[test]
fn margin_positions_captured_answer_with_unrealized_roe() {
    // The answer captured in ccxt/ccxt ts/src/digifinex.ts (fetchPosition).
    let out = decode::<MarginPositionsRequest>(
        r#"{"margin":"77.71534772983289","code":0,"margin_rate":"10.284503769497306",
            "positions":[{"amount":0.0010605,"side":"go_long","entry_price":18321.39,
              "liquidation_rate":0.3,"liquidation_price":-52754.371758471,
              "unrealized_roe":-0.002784390267332,"symbol":"BTC_USDT",
              "unrealized_pnl":-0.010820048189999,"leverage_ratio":5}],
            "unrealized_pnl":"-0.10681600018999979"}"#,
    )
    .unwrap();
    let p = &out.positions[0];
    assert_eq!(p.unrealized_roe, Some(d("-0.002784390267332")));
    assert_eq!(p.side, Some(PositionSide::Long));
    assert_eq!(p.liquidation_price, Some(d("-52754.371758471")));
    assert_eq!(out.unrealized_pnl, Some(d("-0.10681600018999979")));
}

#[test]
fn margin_positions_margin_rate_int() {
    let out = decode::<MarginPositionsRequest>(
        r#"{"code":0,"margin":"0","margin_rate":0,"unrealized_pnl":"0","positions":[]}"#,
    )
    .unwrap();
    assert_eq!(out.margin_rate, Some(d("0")));
    assert_eq!(out.margin, Some(d("0")));
    assert!(out.positions.is_empty());
    let out = decode::<MarginPositionsRequest>(r#"{"code":0,"margin_rate":150}"#).unwrap();
    assert_eq!(out.margin_rate, Some(d("150")));
    assert_eq!(out.margin, None);
    assert!(out.positions.is_empty());
}

#[test]
fn margin_positions_amounts_as_strings_and_exponents() {
    let out = decode::<MarginPositionsRequest>(
        r#"{"code":0,"positions":[{"symbol":"eth_usdt","leverage_ratio":"5","side":"short",
              "amount":"1e-07","entry_price":"25.999999999999996","unrealized_pnl":"1.20",
              "unrealized_roe":"4967.000000","liquidation_price":"300","liquidation_rate":"0.1"}]}"#,
    )
    .unwrap();
    let p = &out.positions[0];
    assert_eq!(p.side, Some(PositionSide::Short));
    assert_eq!(p.leverage_ratio, Some(d("5")));
    assert_eq!(p.amount, Some(d("0.0000001")));
    assert_eq!(p.entry_price, Some(d("25.999999999999996")));
    assert_eq!(p.unrealized_pnl, Some(d("1.20")));
    assert_eq!(p.unrealized_pnl.unwrap().to_string(), "1.20");
    assert_eq!(p.unrealized_roe.unwrap().to_string(), "4967.000000");
    assert_eq!(p.liquidation_price, Some(d("300")));
    assert_eq!(p.liquidation_rate, Some(d("0.1")));
}

#[test]
fn margin_position_side_spellings() {
    for (wire, want) in [
        ("\"long\"", Some(PositionSide::Long)),
        ("\"go_long\"", Some(PositionSide::Long)),
        ("\"short\"", Some(PositionSide::Short)),
        ("\"go_short\"", Some(PositionSide::Short)),
        ("\"GO_SHORT\"", Some(PositionSide::Short)),
        ("\"LONG\"", Some(PositionSide::Long)),
        // No position.
        ("\"empty\"", None),
        ("\"EMPTY\"", None),
        ("\"\"", None),
        ("\"-\"", None),
        ("null", None),
        // Unknown words are kept.
        ("\"both\"", Some(PositionSide::Other("both".into()))),
    ] {
        let body = format!(r#"{{"code":0,"positions":[{{"symbol":"btc_usdt","side":{wire}}}]}}"#);
        let out = decode::<MarginPositionsRequest>(&body).unwrap();
        assert_eq!(out.positions[0].side, want, "{wire}");
    }
    let out = decode::<MarginPositionsRequest>(r#"{"code":0,"positions":[{"symbol":"btc_usdt"}]}"#)
        .unwrap();
    assert_eq!(out.positions[0].side, None);
    assert_eq!(PositionSide::Other("both".into()).as_str(), "both");
    assert_eq!(PositionSide::Long.as_str(), "long");
}

#[test]
fn margin_position_empty_with_blank_values() {
    let out = decode::<MarginPositionsRequest>(
        r#"{"code":0,"margin":"","margin_rate":"","unrealized_pnl":null,
            "positions":[{"symbol":"btc_usdt","leverage_ratio":"","side":"empty","amount":0,
                          "entry_price":"","unrealized_pnl":null,"unrealized_roe":"-",
                          "liquidation_price":"","liquidation_rate":"--"}]}"#,
    )
    .unwrap();
    assert_eq!(out.margin, None);
    assert_eq!(out.margin_rate, None);
    assert_eq!(out.unrealized_pnl, None);
    let p = &out.positions[0];
    assert_eq!(p.side, None);
    assert_eq!(p.amount, Some(d("0")));
    assert_eq!(p.leverage_ratio, None);
    assert_eq!(p.entry_price, None);
    assert_eq!(p.unrealized_pnl, None);
    assert_eq!(p.unrealized_roe, None);
    assert_eq!(p.liquidation_price, None);
    assert_eq!(p.liquidation_rate, None);
}

#[test]
fn margin_position_symbol_is_required_and_bad_numbers_reported() {
    for bad in [r#""""#, "null", r#""-""#] {
        let body = format!(r#"{{"code":0,"positions":[{{"symbol":{bad},"amount":1}}]}}"#);
        match decode::<MarginPositionsRequest>(&body).unwrap_err() {
            Error::Decode { path, .. } => assert_eq!(path, "positions[0].symbol", "{bad}"),
            other => panic!("{other:?}"),
        }
    }
    let e =
        decode::<MarginPositionsRequest>(r#"{"code":0,"positions":[{"amount":1}]}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Decode);
    let (v, unreadable) = decode_report(
        "GET",
        "/v3/margin/positions",
        r#"{"code":0,"margin":"lots","positions":[{"symbol":"BTC_USDT","amount":"x","side":7}]}"#,
    );
    assert_eq!(
        unreadable,
        vec!["margin", "positions[0].amount"],
        "a number where a side word belongs is read as its text"
    );
    assert_eq!(v["positions"][0]["symbol"], "btc_usdt");
    assert_eq!(v["positions"][0]["side"], "7");
}

#[test]
fn margin_positions_null_list() {
    for body in [
        r#"{"code":0,"positions":null}"#,
        r#"{"code":0,"positions":""}"#,
        r#"{"code":0}"#,
    ] {
        let out = decode::<MarginPositionsRequest>(body).unwrap();
        assert!(out.positions.is_empty(), "{body}");
    }
}

#[test]
fn margin_positions_render_side_as_documented_spelling() {
    let (entry, _) = catalog::find("GET", "/v3/margin/positions").unwrap();
    let v = (entry.decode)(
        200,
        &http::HeaderMap::new(),
        br#"{"code":0,"margin_rate":3,"positions":[{"symbol":"BTC_USDT","side":"go_short","amount":1e-07},{"symbol":"eth_usdt","side":"empty"}]}"#,
    )
    .unwrap();
    assert_eq!(v["margin_rate"], "3");
    assert_eq!(v["positions"][0]["symbol"], "btc_usdt");
    assert_eq!(v["positions"][0]["side"], "short");
    assert_eq!(v["positions"][0]["amount"], "0.0000001");
    assert_eq!(v["positions"][1]["side"], serde_json::Value::Null);
}

// ------------------------------------------------------------------------------------------
// Decoding: acknowledgements and errors

#[test]
fn transfer_and_close_ack() {
    let t = TransferRequest::new(
        "usdt",
        amt("1"),
        TransferAccount::Spot,
        TransferAccount::Margin,
    );
    assert_eq!(
        decode_on(&t, r#"{"code":0}"#).unwrap(),
        answer!(TransferAck {})
    );
    assert_eq!(
        decode::<ClosePositionRequest>(r#"{"code":0,"extra":1}"#).unwrap(),
        answer!(ClosePositionAck {})
    );
}

fn decode_on<E: Endpoint>(_: &E, body: &str) -> Result<E::Output, Error> {
    decode::<E>(body)
}

#[test]
fn transfer_insufficient_balance_is_api_error() {
    let e = decode::<TransferRequest>(r#"{"code":20011}"#).unwrap_err();
    assert!(matches!(e, Error::Api(_)), "{e:?}");
    assert_eq!(e.kind(), ErrorKind::InsufficientFunds);
    assert_eq!(e.api_code(), Some(20011));
}

#[test]
fn api_errors_on_every_endpoint() {
    let body = r#"{"code":20011,"msg":"insufficient balance"}"#;
    for e in [
        decode::<SpotAssetsRequest>(body).map(|_| ()).unwrap_err(),
        decode::<MarginAssetsRequest>(body).map(|_| ()).unwrap_err(),
        decode::<FinanceLogRequest>(body).map(|_| ()).unwrap_err(),
        decode::<MarginPositionsRequest>(body)
            .map(|_| ())
            .unwrap_err(),
        decode::<ClosePositionRequest>(body)
            .map(|_| ())
            .unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::InsufficientFunds);
        assert_eq!(e.api_code(), Some(20011));
        match e {
            Error::Api(a) => assert_eq!(a.message.as_deref(), Some("insufficient balance")),
            other => panic!("{other:?}"),
        }
    }
    let e = decode::<ClosePositionRequest>(r#"{"code":20030}"#).unwrap_err();
    assert_eq!(e.api_code(), Some(20030));
    let e = decode_status::<TransferRequest>(400, r#"{"code":20023}"#).unwrap_err();
    assert_eq!(e.api_code(), Some(20023));
    assert_eq!(e.status(), Some(400));
}
