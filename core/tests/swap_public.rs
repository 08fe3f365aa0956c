//! Public swap market data: instruments, trades, tickers, candles, funding rates.
//!
//! The response bodies below are hand-written from the field tables of the swap v2 API
//! documentation (resources and endpoints), the live venue's deviations (`docs/protocol.md`,
//! "The live venue") and the answers ccxt
//! publishes (ccxt/ccxt `ts/src/digifinex.ts`). They mix the documented strings with numbers,
//! placeholders (`""`, `"-"`, `null`), words in code fields, unknown enum values and missing
//! optional fields, as the real API is known to do.

mod support;
use support::*;

use digifinex_core::catalog;
use digifinex_core::swap::{
    ApiWeightRequest, Candle, CandlesHistoryRequest, CandlesRequest, ContractType, DepthRequest,
    FundingRateHistoryRequest, FundingRateRequest, Granularity, InstrumentKind, InstrumentRequest,
    InstrumentStatus, InstrumentType, InstrumentsRequest, OrderSide, ServerTimeRequest,
    TickerRequest, TickersRequest, TradesRequest,
};
use digifinex_core::{ApiCode, Endpoint, Error, SwapCode, TimestampMillis};

/// Asserts that the catalog builds, from `json`, exactly the request `typed` builds.
fn assert_catalog_same<E: Endpoint>(method: &str, path: &str, json: &str, typed: &E) {
    let from_catalog = build_from_json(method, path, json).unwrap();
    assert_eq!(
        render(&from_catalog),
        render(&build_req(typed).unwrap()),
        "{json}"
    );
}

/// Decodes a swap body (HTTP 200) for `E`, with the unreadable optional values it reported.
fn decode_swap_report<E: Endpoint>(
    body: &str,
) -> (Result<E::Output, Error>, Vec<digifinex_core::Unreadable>) {
    match digifinex_core::endpoint::parse_body_report::<E::Output>(
        &E::META,
        200,
        &http::HeaderMap::new(),
        body.as_bytes(),
    ) {
        Ok((v, u)) => (Ok(v), u),
        Err(e) => (Err(e), Vec::new()),
    }
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

// ------------------------------------------------------------------------------------------
// Catalog registration

#[test]
fn every_public_endpoint_is_in_the_catalog_unsigned() {
    for (path, type_name) in [
        ("/swap/v2/public/time", "ServerTimeRequest"),
        ("/swap/v2/public/api_weight", "ApiWeightRequest"),
        ("/swap/v2/public/instruments", "InstrumentsRequest"),
        ("/swap/v2/public/instrument", "InstrumentRequest"),
        ("/swap/v2/public/depth", "DepthRequest"),
        ("/swap/v2/public/trades", "TradesRequest"),
        ("/swap/v2/public/ticker", "TickerRequest"),
        ("/swap/v2/public/tickers", "TickersRequest"),
        ("/swap/v2/public/candles", "CandlesRequest"),
        ("/swap/v2/public/funding_rate", "FundingRateRequest"),
        ("/swap/v2/public/candles_history", "CandlesHistoryRequest"),
        (
            "/swap/v2/public/funding_rate_history",
            "FundingRateHistoryRequest",
        ),
    ] {
        let (entry, vars) = catalog::find("GET", path).unwrap_or_else(|| panic!("{path}"));
        assert!(vars.is_empty());
        assert!(
            (entry.request_type)().ends_with(&format!("::swap::public::{type_name}")),
            "{path}: {}",
            (entry.request_type)()
        );
        assert!(!entry.meta.signed, "{path}");
        assert!(entry.meta.idempotent, "{path}");
        assert_eq!(entry.meta.success_code, 0, "{path}");
        assert_eq!(entry.meta.display_path(), path);
        assert!(catalog::find("POST", path).is_none(), "{path}");
    }
}

#[test]
fn the_catalog_reports_the_route_weights_of_the_venue_notes() {
    // docs/protocol.md, "Route weights" (served by /swap/v2/public/api_weight).
    for (path, weight) in [
        ("/swap/v2/public/tickers", Some(1)),
        ("/swap/v2/public/ticker", Some(1)),
        ("/swap/v2/public/funding_rate", Some(1)),
        ("/swap/v2/public/instrument", Some(1)),
        ("/swap/v2/public/time", Some(1)),
        ("/swap/v2/public/trades", Some(1)),
        ("/swap/v2/public/candles", Some(1)),
        ("/swap/v2/public/depth", Some(2)),
        ("/swap/v2/public/instruments", Some(5)),
        ("/swap/v2/public/funding_rate_history", Some(10)),
        ("/swap/v2/public/candles_history", Some(10)),
        // Not published.
        ("/swap/v2/public/api_weight", None),
    ] {
        let (entry, _) = catalog::find("GET", path).unwrap();
        assert_eq!(entry.meta.weight, weight, "{path}");
    }
    assert_eq!(DepthRequest::META.weight, Some(2));
    assert_eq!(CandlesHistoryRequest::META.weight, Some(10));
}

#[test]
fn server_time_is_the_whole_answer() {
    assert_eq!(
        decode_swap::<ServerTimeRequest>(r#"{"code":0,"data":"1657522488402"}"#).unwrap(),
        TimestampMillis(1_657_522_488_402)
    );
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0,"data":""}"#,
        r#"{"code":0,"data":"-"}"#,
    ] {
        assert!(
            matches!(
                decode_swap::<ServerTimeRequest>(body),
                Err(Error::Decode { .. })
            ),
            "{body}"
        );
    }
}

#[test]
fn route_weights_decode_and_require_path_and_weight() {
    let w = decode_swap::<ApiWeightRequest>(
        r#"{"code":0,"data":[{"path":"/swap/v2/public/depth","weight":2},
        {"path":"/swap/v2/public/candles_history","weight":"10"}]}"#,
    )
    .unwrap();
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].path, "/swap/v2/public/depth");
    assert_eq!(w[0].weight, 2);
    assert_eq!(w[1].weight, 10);
    match decode_swap::<ApiWeightRequest>(r#"{"code":0,"data":[{"path":"/x","weight":"-"}]}"#) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data[0].weight"),
        other => panic!("{other:?}"),
    }
    match decode_swap::<ApiWeightRequest>(r#"{"code":0,"data":[{"path":"","weight":1}]}"#) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data[0].path"),
        other => panic!("{other:?}"),
    }
    assert!(decode_swap::<ApiWeightRequest>(r#"{"code":0}"#)
        .unwrap()
        .is_empty());
}

// ------------------------------------------------------------------------------------------
// Instruments

#[test]
fn instruments_request_shape() {
    assert_swap_public_get(&InstrumentsRequest::new(), "/swap/v2/public/instruments");
    assert_swap_public_get(
        &InstrumentsRequest::new().instrument_type(InstrumentType::Simulate),
        "/swap/v2/public/instruments?type=1",
    );
    assert_swap_public_get(
        &InstrumentRequest::new("BTCUSDTPERP"),
        "/swap/v2/public/instrument?instrument_id=BTCUSDTPERP",
    );
}

#[test]
fn instruments_validation() {
    assert_invalid(
        &InstrumentsRequest::new().instrument_type(InstrumentType::Unknown(3)),
        "type",
    );
    assert_invalid(&InstrumentRequest::new(""), "instrument_id");
    assert_invalid(&InstrumentRequest::new("BTC/USDT"), "instrument_id");
    catalog_invalid(
        "GET",
        "/swap/v2/public/instruments",
        r#"{"type":"x"}"#,
        "type",
    );
    catalog_invalid("GET", "/swap/v2/public/instrument", "{}", "instrument_id");
    catalog_invalid(
        "GET",
        "/swap/v2/public/instrument",
        r#"{"instrument_id":"BTCUSDTPERP","limit":5}"#,
        "limit",
    );
}

#[test]
fn instruments_catalog_round_trip() {
    assert_catalog_same(
        "GET",
        "/swap/v2/public/instruments",
        r#"{"type":2}"#,
        &InstrumentsRequest::new().instrument_type(InstrumentType::Real),
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/instruments",
        "{}",
        &InstrumentsRequest::new(),
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/instrument",
        r#"{"instrument_id":"ETHUSDTPERP"}"#,
        &InstrumentRequest::new("ETHUSDTPERP"),
    );
}

const INSTRUMENT_BTC: &str = r#"{"instrument_id":"BTCUSDTPERP","type":"REAL",
    "contract_type":"PERPETUAL","base_currency":"BTC","quote_currency":"USDT",
    "clear_currency":"USDT","contract_value":"0.001","contract_value_currency":"BTC",
    "is_inverse":false,"is_trading":true,"status":"ONLINE","price_precision":1,
    "tick_size":"0.1","min_order_amount":1,
    "open_max_limits":[{"leverage":"50","max_limit":"1000000"},{"leverage":"100","max_limit":"250000.5"}]}"#;

#[test]
fn instrument_decodes_every_field() {
    let i = decode_swap::<InstrumentRequest>(&format!(r#"{{"code":0,"data":{INSTRUMENT_BTC}}}"#))
        .unwrap();
    assert_eq!(i.instrument_id, "BTCUSDTPERP");
    assert_eq!(i.kind, Some(InstrumentKind::Real));
    assert_eq!(i.contract_type, Some(ContractType::Perpetual));
    assert_eq!(i.base_currency.as_deref(), Some("BTC"));
    assert_eq!(i.quote_currency.as_deref(), Some("USDT"));
    assert_eq!(i.clear_currency.as_deref(), Some("USDT"));
    assert_eq!(i.contract_value, Some(d("0.001")));
    assert_eq!(i.contract_value_currency.as_deref(), Some("BTC"));
    assert_eq!(i.is_inverse, Some(false));
    assert_eq!(i.is_trading, Some(true));
    assert_eq!(i.status, Some(InstrumentStatus::Online));
    assert_eq!(i.price_precision, Some(1));
    assert_eq!(i.tick_size, Some(d("0.1")));
    assert_eq!(i.min_order_amount, Some(d("1")));
    assert_eq!(i.open_max_limits.len(), 2);
    assert_eq!(i.open_max_limits[0].leverage, d("50"));
    assert_eq!(i.open_max_limits[0].max_limit, Some(d("1000000")));
    assert_eq!(i.open_max_limits[1].leverage, d("100"));
    assert_eq!(i.open_max_limits[1].max_limit, Some(d("250000.5")));
    // Decimals render as exact strings for the CLI.
    let v = serde_json::to_value(&i).unwrap();
    assert_eq!(v["open_max_limits"][1]["max_limit"], "250000.5");
    assert_eq!(v["tick_size"], "0.1");
    assert_eq!(v["type"], "REAL");
    assert_eq!(v["status"], "ONLINE");
}

#[test]
fn instruments_decode_variants() {
    // Second instrument: unknown status and type values, booleans as 0/1 strings, empty and
    // missing optional values, a null list.
    let body = format!(
        r#"{{"code":0,"data":[{INSTRUMENT_BTC},
        {{"instrument_id":"ETHUSDTPERP","type":"DEMO","contract_type":"PERPETUAL",
          "base_currency":"ETH","quote_currency":"USDT","clear_currency":"USDT",
          "contract_value":0.01,"is_inverse":"0","is_trading":0,"status":"SUSPENDED",
          "price_precision":"2","tick_size":"","open_max_limits":null}}]}}"#
    );
    let list = decode_swap::<InstrumentsRequest>(&body).unwrap();
    assert_eq!(list.len(), 2);
    let e = &list[1];
    assert_eq!(e.kind, Some(InstrumentKind::Other("DEMO".into())));
    assert_eq!(e.status, Some(InstrumentStatus::Other("SUSPENDED".into())));
    assert_eq!(e.contract_value, Some(d("0.01")));
    assert_eq!(e.contract_value_currency, None);
    assert_eq!(e.is_inverse, Some(false));
    assert_eq!(e.is_trading, Some(false));
    assert_eq!(e.price_precision, Some(2));
    assert_eq!(e.tick_size, None);
    assert_eq!(e.min_order_amount, None);
    assert!(e.open_max_limits.is_empty());
    // Empty and null data.
    assert!(decode_swap::<InstrumentsRequest>(r#"{"code":0,"data":[]}"#)
        .unwrap()
        .is_empty());
    assert!(
        decode_swap::<InstrumentsRequest>(r#"{"code":0,"data":null}"#)
            .unwrap()
            .is_empty()
    );
    // A bad max_limit is absent (optional); a bad leverage (the entry's key) names its path.
    let i = decode_swap::<InstrumentRequest>(
        r#"{"code":0,"data":{"instrument_id":"X","open_max_limits":[{"leverage":"1","max_limit":"abc"}]}}"#,
    )
    .unwrap();
    assert_eq!(i.open_max_limits[0].max_limit, None);
    match decode_swap::<InstrumentRequest>(
        r#"{"code":0,"data":{"instrument_id":"X","open_max_limits":[{"leverage":"-","max_limit":"1"}]}}"#,
    ) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data.open_max_limits[0].leverage"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn instruments_placeholders_are_absent_and_the_id_is_required() {
    // Placeholders in every optional field of an instrument: `-` (even in enum and flag fields),
    // `""` and `null`.
    let list = decode_swap::<InstrumentsRequest>(
        r#"{"code":0,"data":[{"instrument_id":"BTCUSDT2PERP","type":"-","contract_type":"",
        "base_currency":"","quote_currency":null,"clear_currency":"USDT2","contract_value":"-",
        "contract_value_currency":"","is_inverse":"-","is_trading":null,"status":"--",
        "price_precision":"","tick_size":"-","min_order_amount":"","open_max_limits":"-"}]}"#,
    )
    .unwrap();
    let i = &list[0];
    assert_eq!(i.instrument_id, "BTCUSDT2PERP");
    assert_eq!(i.kind, None);
    assert_eq!(i.contract_type, None);
    assert_eq!(i.base_currency, None);
    assert_eq!(i.quote_currency, None);
    assert_eq!(i.clear_currency.as_deref(), Some("USDT2"));
    assert_eq!(i.contract_value, None);
    assert_eq!(i.contract_value_currency, None);
    assert_eq!(i.is_inverse, None);
    assert_eq!(i.is_trading, None);
    assert_eq!(i.status, None);
    assert_eq!(i.price_precision, None);
    assert_eq!(i.tick_size, None);
    assert_eq!(i.min_order_amount, None);
    assert!(i.open_max_limits.is_empty());
    // Simulated instruments (type=1): SIMULATE, settled in USDT2.
    let i = decode_swap::<InstrumentRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDT2PERP","type":"SIMULATE","clear_currency":"USDT2"}}"#,
    )
    .unwrap();
    assert_eq!(i.kind, Some(InstrumentKind::Simulate));
    // The id is the listing's key: a placeholder or a missing id fails naming its path.
    for (body, at) in [
        (
            r#"{"code":0,"data":[{"instrument_id":"-"}]}"#,
            "data[0].instrument_id",
        ),
        (
            r#"{"code":0,"data":[{"instrument_id":null}]}"#,
            "data[0].instrument_id",
        ),
        (r#"{"code":0,"data":[{"type":"REAL"}]}"#, "data[0]"),
    ] {
        match decode_swap::<InstrumentsRequest>(body) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, at, "{body}"),
            other => panic!("{body}: {other:?}"),
        }
    }
}

#[test]
fn instrument_api_error() {
    assert_eq!(
        api_code(decode_swap::<InstrumentRequest>(
            r#"{"code":400002,"msg":"instrument_id invalid"}"#
        )),
        SwapCode::ParamInvalid
    );
}

// ------------------------------------------------------------------------------------------
// Trades

#[test]
fn trades_request_shape_and_validation() {
    assert_swap_public_get(
        &TradesRequest::new("BTCUSDTPERP"),
        "/swap/v2/public/trades?instrument_id=BTCUSDTPERP",
    );
    assert_swap_public_get(
        &TradesRequest::new("BTCUSDTPERP").limit(1),
        "/swap/v2/public/trades?instrument_id=BTCUSDTPERP&limit=1",
    );
    assert_swap_public_get(
        &TradesRequest::new("BTCUSDTPERP").limit(100),
        "/swap/v2/public/trades?instrument_id=BTCUSDTPERP&limit=100",
    );
    assert_invalid(&TradesRequest::new("BTCUSDTPERP").limit(0), "limit");
    assert_invalid(&TradesRequest::new("BTCUSDTPERP").limit(101), "limit");
    assert_invalid(&TradesRequest::new("BTC USDT"), "instrument_id");
    catalog_invalid(
        "GET",
        "/swap/v2/public/trades",
        r#"{"instrument_id":"BTCUSDTPERP","limit":"-1"}"#,
        "limit",
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/trades",
        r#"{"instrument_id":"BTCUSDTPERP","limit":"50"}"#,
        &TradesRequest::new("BTCUSDTPERP").limit(50),
    );
}

#[test]
fn trades_decode() {
    let trades = decode_swap::<TradesRequest>(
        r#"{"code":0,"data":[
        {"instrument_id":"BTCUSDTPERP","trade_id":"1531786120358391808","direction":"1",
         "volume":"12","price":"29870.5","trade_time":1657522488402},
        {"instrument_id":"BTCUSDTPERP","trade_id":1531786120358391809,"direction":4,
         "volume":0.5,"price":"2.987e4","trade_time":"1657522488403"},
        {"trade_id":"7","direction":"9","volume":"1","price":"1","trade_time":1}]}"#,
    )
    .unwrap();
    assert_eq!(trades.len(), 3);
    let t = &trades[0];
    assert_eq!(t.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(t.trade_id, "1531786120358391808");
    assert_eq!(t.direction, Some(OrderSide::OpenLong));
    assert_eq!(t.volume, Some(d("12")));
    assert_eq!(t.price, Some(d("29870.5")));
    assert_eq!(t.trade_time, Some(TimestampMillis(1_657_522_488_402)));
    // Numbers for an id (above 2^53), a direction and a volume; exponent notation.
    let t = &trades[1];
    assert_eq!(t.trade_id, "1531786120358391809");
    assert_eq!(t.direction, Some(OrderSide::CloseShort));
    assert_eq!(t.volume, Some(d("0.5")));
    assert_eq!(t.price, Some(d("29870")));
    assert_eq!(t.trade_time, Some(TimestampMillis(1_657_522_488_403)));
    // Unknown direction, missing instrument id.
    assert_eq!(trades[2].direction, Some(OrderSide::Unknown(9)));
    assert_eq!(trades[2].instrument_id, None);
    let v = serde_json::to_value(&trades[0]).unwrap();
    assert_eq!(v["direction"], 1);
    assert_eq!(v["trade_id"], "1531786120358391808");
    assert_eq!(v["price"], "29870.5");
    // Only the trade id is required: a trade without it is a decode error naming the path.
    match decode_swap::<TradesRequest>(
        r#"{"code":0,"data":[{"direction":"1","volume":"1","price":"1","trade_time":1}]}"#,
    ) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data[0]"),
        other => panic!("{other:?}"),
    }
    match decode_swap::<TradesRequest>(r#"{"code":0,"data":[{"trade_id":"-"}]}"#) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data[0].trade_id"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn trades_placeholders_words_and_unknown_codes() {
    let trades = decode_swap::<TradesRequest>(
        r#"{"code":0,"data":[
        {"instrument_id":"","trade_id":"11","direction":"-","volume":"","price":null,"trade_time":"-"},
        {"instrument_id":"BTCUSDTPERP","trade_id":12,"direction":"open_short","volume":"1","price":"2","trade_time":3},
        {"trade_id":"13","direction":"CLOSE-LONG"},
        {"trade_id":"14","direction":"liquidation"},
        {"trade_id":"15","direction":"17","price":"abc"}]}"#,
    )
    .unwrap();
    let t = &trades[0];
    assert_eq!(
        (
            t.instrument_id.as_deref(),
            &t.direction,
            t.volume,
            t.price,
            t.trade_time
        ),
        (None, &None, None, None, None)
    );
    // Words in the code field: the documented names, any case and separator.
    assert_eq!(trades[1].direction, Some(OrderSide::OpenShort));
    assert_eq!(trades[2].direction, Some(OrderSide::CloseLong));
    // An unknown word and an unknown code are kept.
    assert_eq!(
        trades[3].direction,
        Some(OrderSide::Other("liquidation".into()))
    );
    assert_eq!(trades[4].direction, Some(OrderSide::Unknown(17)));
    // An unreadable optional value is absent and reported with its path.
    assert_eq!(trades[4].price, None);
    let (_, unreadable) = decode_swap_report::<TradesRequest>(
        r#"{"code":0,"data":[{"trade_id":"1","price":"abc"},{"trade_id":"2","volume":[1]}]}"#,
    );
    let paths: Vec<&str> = unreadable.iter().map(|u| u.path.as_str()).collect();
    assert_eq!(paths, ["data[0].price", "data[1].volume"]);
}

// ------------------------------------------------------------------------------------------
// Tickers

#[test]
fn ticker_request_shape_and_validation() {
    assert_swap_public_get(
        &TickerRequest::new("BTCUSDTPERP"),
        "/swap/v2/public/ticker?instrument_id=BTCUSDTPERP",
    );
    assert_swap_public_get(&TickersRequest::new(), "/swap/v2/public/tickers");
    assert_swap_public_get(
        &TickersRequest::new().instrument_type(InstrumentType::Real),
        "/swap/v2/public/tickers?type=2",
    );
    assert_invalid(&TickerRequest::new(""), "instrument_id");
    assert_invalid(
        &TickersRequest::new().instrument_type(InstrumentType::Unknown(0)),
        "type",
    );
    catalog_invalid("GET", "/swap/v2/public/tickers", r#"{"type":7}"#, "type");
    catalog_invalid("GET", "/swap/v2/public/ticker", "{}", "instrument_id");
    assert_catalog_same(
        "GET",
        "/swap/v2/public/ticker",
        r#"{"instrument_id":"BTCUSDTPERP"}"#,
        &TickerRequest::new("BTCUSDTPERP"),
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/tickers",
        r#"{"type":"1"}"#,
        &TickersRequest::new().instrument_type(InstrumentType::Simulate),
    );
}

#[test]
fn ticker_decodes_every_field() {
    let t = decode_swap::<TickerRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","index_price":"29876.21",
        "mark_price":"29875.9","max_buy_price":"30772.2","min_sell_price":"28979.6",
        "best_bid":"29875.5","best_bid_size":"120","best_ask":"29876.0","best_ask_size":95,
        "high_24h":"30500","open_24h":"29001.5","low_24h":"28800.1","last":"29875.8",
        "last_qty":"3","volume_24h":"1520334","price_change_percent":"0.0301",
        "open_interest":"88412","timestamp":1657522488402}}"#,
    )
    .unwrap();
    assert_eq!(t.instrument_id, "BTCUSDTPERP");
    assert_eq!(t.index_price, Some(d("29876.21")));
    assert_eq!(t.mark_price, Some(d("29875.9")));
    assert_eq!(t.max_buy_price, Some(d("30772.2")));
    assert_eq!(t.min_sell_price, Some(d("28979.6")));
    assert_eq!(t.best_bid, Some(d("29875.5")));
    assert_eq!(t.best_bid_size, Some(d("120")));
    assert_eq!(t.best_ask, Some(d("29876.0")));
    assert_eq!(t.best_ask.unwrap().to_string(), "29876.0");
    assert_eq!(t.best_ask_size, Some(d("95")));
    assert_eq!(t.high_24h, Some(d("30500")));
    assert_eq!(t.open_24h, Some(d("29001.5")));
    assert_eq!(t.low_24h, Some(d("28800.1")));
    assert_eq!(t.last, Some(d("29875.8")));
    assert_eq!(t.last_qty, Some(d("3")));
    assert_eq!(t.volume_24h, Some(d("1520334")));
    assert_eq!(t.price_change_percent, Some(d("0.0301")));
    assert_eq!(t.open_interest, Some(d("88412")));
    assert_eq!(t.timestamp, Some(TimestampMillis(1_657_522_488_402)));
}

#[test]
fn tickers_decode_without_open_interest_and_with_blanks() {
    let list = decode_swap::<TickersRequest>(
        r#"{"code":0,"data":[
        {"instrument_id":"BTCUSDTPERP","index_price":"29876.21","mark_price":"29875.9",
         "best_bid":"29875.5","best_ask":"29876","last":"29875.8","volume_24h":"1520334",
         "price_change_percent":"-0.0012","timestamp":1657522488402},
        {"instrument_id":"NEWUSDTPERP","best_bid":"","best_bid_size":"","best_ask":null,
         "last":"0.5","timestamp":"1657522488402"}]}"#,
    )
    .unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].open_interest, None);
    assert_eq!(list[0].price_change_percent, Some(d("-0.0012")));
    assert_eq!(list[0].best_ask, Some(d("29876")));
    assert_eq!(list[0].high_24h, None);
    assert_eq!(list[1].best_bid, None);
    assert_eq!(list[1].best_bid_size, None);
    assert_eq!(list[1].best_ask, None);
    assert_eq!(list[1].last, Some(d("0.5")));
    assert_eq!(list[1].timestamp, Some(TimestampMillis(1_657_522_488_402)));
    let v = serde_json::to_value(&list[1]).unwrap();
    assert_eq!(v["best_bid"], serde_json::Value::Null);
    assert_eq!(v["last"], "0.5");
}

#[test]
fn tickers_survive_placeholders_and_odd_open_interest() {
    // docs/protocol.md: `open_interest` in the listing is not always a number; published answers
    // write `"-"` (ccxt/ccxt ts/src/digifinex.ts). The shared `timestamp` is kept as sent.
    let (list, unreadable) = decode_swap_report::<TickersRequest>(
        r#"{"code":0,"data":[
        {"instrument_id":"BTCUSDTPERP","last":"20140.0999","open_interest":"-",
         "price_change_percent":"-0.0366","timestamp":1663221614998},
        {"instrument_id":"ETHUSDTPERP","last":"1500","open_interest":"n/a","timestamp":1663221614998},
        {"instrument_id":"XRPUSDTPERP","last":"-","open_interest":{"long":1,"short":2},
         "index_price":"--","timestamp":""},
        {"instrument_id":"DOGEUSDTPERP","last":null,"open_interest":"12x","mark_price":"0.06"}]}"#,
    );
    let list = list.unwrap();
    assert_eq!(list.len(), 4);
    assert_eq!(list[0].open_interest, None);
    // A fraction: -0.0366 is -3.66 %.
    assert_eq!(list[0].price_change_percent, Some(d("-0.0366")));
    assert_eq!(list[1].open_interest, None);
    assert_eq!(list[1].last, Some(d("1500")));
    assert_eq!(list[0].timestamp, list[1].timestamp);
    assert_eq!(list[2].open_interest, None);
    assert_eq!(list[2].last, None);
    assert_eq!(list[2].index_price, None);
    assert_eq!(list[2].timestamp, None);
    assert_eq!(list[3].open_interest, None);
    assert_eq!(list[3].mark_price, Some(d("0.06")));
    // Placeholders are silent; unreadable values are reported.
    let paths: Vec<&str> = unreadable.iter().map(|u| u.path.as_str()).collect();
    assert_eq!(paths, ["data[2].open_interest", "data[3].open_interest"]);
    // The instrument id is the row key: required.
    for (body, at) in [
        (
            r#"{"code":0,"data":[{"instrument_id":"","last":"1"}]}"#,
            "data[0].instrument_id",
        ),
        (r#"{"code":0,"data":[{"last":"1"}]}"#, "data[0]"),
    ] {
        match decode_swap::<TickersRequest>(body) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, at, "{body}"),
            other => panic!("{body}: {other:?}"),
        }
    }
}

#[test]
fn ticker_api_error_wins_over_http_status() {
    match decode_status::<TickerRequest>(500, r#"{"code":500002}"#) {
        Err(Error::Api(e)) => {
            assert_eq!(e.code, ApiCode::Swap(SwapCode::SystemException));
            assert_eq!(e.status, 500);
        }
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------------------------------------
// Candles

#[test]
fn candles_request_shape() {
    // `limit` is documented as required with a default of 20, but live clients omit it
    // (docs/protocol.md): it is sent only when the caller sets it.
    assert_swap_public_get(
        &CandlesRequest::new("BTCUSDTPERP", Granularity::M1),
        "/swap/v2/public/candles?instrument_id=BTCUSDTPERP&granularity=1m",
    );
    assert_swap_public_get(
        &CandlesRequest::new("BTCUSDTPERP", Granularity::M1).limit(20),
        "/swap/v2/public/candles?instrument_id=BTCUSDTPERP&granularity=1m&limit=20",
    );
    assert_swap_public_get(
        &CandlesRequest::new("BTCUSDTPERP", Granularity::W1).limit(100),
        "/swap/v2/public/candles?instrument_id=BTCUSDTPERP&granularity=1w&limit=100",
    );
    assert_swap_public_get(
        &CandlesHistoryRequest::new("BTCUSDTPERP", Granularity::H4),
        "/swap/v2/public/candles_history?instrument_id=BTCUSDTPERP&granularity=4h",
    );
    assert_swap_public_get(
        &CandlesHistoryRequest::new("BTCUSDTPERP", Granularity::D1)
            .start_timestamp(TimestampMillis(1_657_000_000_000))
            .end_timestamp(TimestampMillis(1_657_522_488_402))
            .limit(30),
        "/swap/v2/public/candles_history?instrument_id=BTCUSDTPERP&granularity=1d\
         &start_timestamp=1657000000000&end_timestamp=1657522488402&limit=30",
    );
    assert_swap_public_get(
        &CandlesHistoryRequest::new("BTCUSDTPERP", Granularity::M15)
            .end_timestamp(TimestampMillis(1_657_522_488_402)),
        "/swap/v2/public/candles_history?instrument_id=BTCUSDTPERP&granularity=15m\
         &end_timestamp=1657522488402",
    );
}

#[test]
fn candles_validation() {
    assert_invalid(&CandlesRequest::new("", Granularity::M1), "instrument_id");
    assert_invalid(
        &CandlesRequest::new("BTCUSDTPERP", Granularity::Other("2m".into())),
        "granularity",
    );
    assert_invalid(
        &CandlesRequest::new("BTCUSDTPERP", Granularity::M1).limit(0),
        "limit",
    );
    assert_invalid(
        &CandlesRequest::new("BTCUSDTPERP", Granularity::M1).limit(101),
        "limit",
    );
    assert_invalid(
        &CandlesHistoryRequest::new("BTCUSDTPERP", Granularity::Other("3d".into())),
        "granularity",
    );
    assert_invalid(
        &CandlesHistoryRequest::new("BTCUSDTPERP", Granularity::H1).limit(101),
        "limit",
    );
    assert_invalid(
        &CandlesHistoryRequest::new("BTCUSDTPERP", Granularity::H1)
            .start_timestamp(TimestampMillis(2_000))
            .end_timestamp(TimestampMillis(2_000)),
        "end_timestamp",
    );
    assert_invalid(
        &CandlesHistoryRequest::new("BTCUSDTPERP", Granularity::H1)
            .start_timestamp(TimestampMillis(2_000))
            .end_timestamp(TimestampMillis(1_000)),
        "end_timestamp",
    );
    catalog_invalid(
        "GET",
        "/swap/v2/public/candles",
        r#"{"instrument_id":"BTCUSDTPERP"}"#,
        "granularity",
    );
    catalog_invalid(
        "GET",
        "/swap/v2/public/candles",
        r#"{"instrument_id":"BTCUSDTPERP","granularity":"60"}"#,
        "granularity",
    );
    catalog_invalid(
        "GET",
        "/swap/v2/public/candles_history",
        r#"{"instrument_id":"BTCUSDTPERP","granularity":"1h","start_timestamp":"soon"}"#,
        "start_timestamp",
    );
}

#[test]
fn candles_catalog_round_trip() {
    // The catalog sends `limit` only when it is given, too.
    let req = build_from_json(
        "GET",
        "/swap/v2/public/candles",
        r#"{"instrument_id":"BTCUSDTPERP","granularity":"5m"}"#,
    )
    .unwrap();
    assert_eq!(
        req.uri(),
        "https://openapi.digifinex.com/swap/v2/public/candles?instrument_id=BTCUSDTPERP&granularity=5m"
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/candles",
        r#"{"instrument_id":"BTCUSDTPERP","granularity":"5m"}"#,
        &CandlesRequest::new("BTCUSDTPERP", Granularity::M5),
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/candles",
        r#"{"instrument_id":"BTCUSDTPERP","granularity":"12h","limit":7}"#,
        &CandlesRequest::new("BTCUSDTPERP", Granularity::H12).limit(7),
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/candles_history",
        r#"{"instrument_id":"BTCUSDTPERP","granularity":"30m","start_timestamp":1657000000000,
            "end_timestamp":"1657522488402","limit":"100"}"#,
        &CandlesHistoryRequest::new("BTCUSDTPERP", Granularity::M30)
            .start_timestamp(TimestampMillis(1_657_000_000_000))
            .end_timestamp(TimestampMillis(1_657_522_488_402))
            .limit(100),
    );
}

#[test]
fn candles_decode_positional_arrays() {
    let c = decode_swap::<CandlesRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","granularity":"1m","candles":[
        [1657522440000,"29870.5","29880","29865.1","29875.8","1520","45.41"],
        [1657522500000,29875.8,"29890.0",29870,"29889.9",12,""],
        ["1657522560000","29889.9","29889.9","29889.9","29889.9","0"],
        [1657522620000,"1","2","0.5","1.5","3",null,"extra"]]}}"#,
    )
    .unwrap();
    assert_eq!(c.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(c.granularity, Some(Granularity::M1));
    assert_eq!(c.candles.len(), 4);
    assert_eq!(
        c.candles[0],
        answer!(Candle {
            time: TimestampMillis(1_657_522_440_000),
            open: d("29870.5"),
            high: d("29880"),
            low: d("29865.1"),
            close: d("29875.8"),
            volume: d("1520"),
            token_volume: Some(d("45.41")),
        })
    );
    // Numbers instead of strings; an empty token volume is absent.
    assert_eq!(c.candles[1].open, d("29875.8"));
    assert_eq!(c.candles[1].high.to_string(), "29890.0");
    assert_eq!(c.candles[1].low, d("29870"));
    assert_eq!(c.candles[1].volume, d("12"));
    assert_eq!(c.candles[1].token_volume, None);
    // A missing token volume, a string time.
    assert_eq!(c.candles[2].time, TimestampMillis(1_657_522_560_000));
    assert_eq!(c.candles[2].token_volume, None);
    // `null` token volume; extra columns are ignored.
    assert_eq!(c.candles[3].token_volume, None);
    assert_eq!(c.candles[3].close, d("1.5"));
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v["candles"][0]["time"], 1_657_522_440_000_i64);
    assert_eq!(v["candles"][0]["token_volume"], "45.41");
    assert_eq!(v["candles"][1]["token_volume"], serde_json::Value::Null);
    assert_eq!(v["candles"][1]["open"], "29875.8");
    assert_eq!(v["granularity"], "1m");
}

#[test]
fn candles_history_decode_and_errors() {
    let c = decode_swap::<CandlesHistoryRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","granularity":"2h","candles":[
        [1657000000000,"1","2","0.5","1.5","3","4"]]}}"#,
    )
    .unwrap();
    // An unknown granularity echo decodes into the open arm.
    assert_eq!(c.granularity, Some(Granularity::Other("2h".into())));
    assert_eq!(c.candles[0].token_volume, Some(d("4")));
    let c = decode_swap::<CandlesHistoryRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","granularity":"","candles":null}}"#,
    )
    .unwrap();
    assert_eq!(c.granularity, None);
    assert!(c.candles.is_empty());
    // Placeholders in the echoes; an answer without `data` has no candles.
    let c = decode_swap::<CandlesHistoryRequest>(
        r#"{"code":0,"data":{"instrument_id":"","granularity":"-","candles":"-"}}"#,
    )
    .unwrap();
    assert_eq!(c.granularity, None);
    assert_eq!(c.instrument_id, None);
    assert!(c.candles.is_empty());
    let c = decode_swap::<CandlesRequest>(r#"{"code":0}"#).unwrap();
    assert_eq!(c.instrument_id, None);
    assert!(c.candles.is_empty());
    // A placeholder in a leading column fails; in the token volume it is absent.
    assert!(matches!(
        decode_swap::<CandlesRequest>(
            r#"{"code":0,"data":{"candles":[[1,"1","-","0.5","1.5","1"]]}}"#
        ),
        Err(Error::Decode { .. })
    ));
    let c = decode_swap::<CandlesRequest>(
        r#"{"code":0,"data":{"candles":[[1,"1","2","0.5","1.5","1","-"]]}}"#,
    )
    .unwrap();
    assert_eq!(c.candles[0].token_volume, None);
    // A candle short of its volume is a decode error naming the element.
    match decode_swap::<CandlesRequest>(
        r#"{"code":0,"data":{"candles":[[1,"1","2","0.5","1.5"]]}}"#,
    ) {
        Err(Error::Decode { path, message, .. }) => {
            assert_eq!(path, "data.candles[0]");
            assert!(message.contains("no element 5"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    match decode_swap::<CandlesRequest>(
        r#"{"code":0,"data":{"candles":[[1,"1","x","0.5","1.5","1"]]}}"#,
    ) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data.candles[0]"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        api_code(decode_swap::<CandlesHistoryRequest>(r#"{"code":400001}"#)),
        SwapCode::ParamMissing
    );
}

// ------------------------------------------------------------------------------------------
// Funding rates

#[test]
fn funding_rate_request_shape_and_validation() {
    assert_swap_public_get(
        &FundingRateRequest::new("BTCUSDTPERP"),
        "/swap/v2/public/funding_rate?instrument_id=BTCUSDTPERP",
    );
    assert_swap_public_get(
        &FundingRateHistoryRequest::new("BTCUSDTPERP"),
        "/swap/v2/public/funding_rate_history?instrument_id=BTCUSDTPERP",
    );
    assert_swap_public_get(
        &FundingRateHistoryRequest::new("BTCUSDTPERP")
            .start_timestamp(TimestampMillis(1_656_000_000_000))
            .end_timestamp(TimestampMillis(1_657_000_000_000))
            .limit(100),
        "/swap/v2/public/funding_rate_history?instrument_id=BTCUSDTPERP\
         &start_timestamp=1656000000000&end_timestamp=1657000000000&limit=100",
    );
    assert_swap_public_get(
        &FundingRateHistoryRequest::new("BTCUSDTPERP")
            .start_timestamp(TimestampMillis(1_656_000_000_000)),
        "/swap/v2/public/funding_rate_history?instrument_id=BTCUSDTPERP\
         &start_timestamp=1656000000000",
    );
    assert_invalid(&FundingRateRequest::new("BTC USDT PERP"), "instrument_id");
    assert_invalid(&FundingRateHistoryRequest::new(""), "instrument_id");
    assert_invalid(
        &FundingRateHistoryRequest::new("BTCUSDTPERP").limit(0),
        "limit",
    );
    assert_invalid(
        &FundingRateHistoryRequest::new("BTCUSDTPERP")
            .start_timestamp(TimestampMillis(5))
            .end_timestamp(TimestampMillis(4)),
        "end_timestamp",
    );
    catalog_invalid(
        "GET",
        "/swap/v2/public/funding_rate_history",
        r#"{"instrument_id":"BTCUSDTPERP","limit":1000}"#,
        "limit",
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/funding_rate",
        r#"{"instrument_id":"BTCUSDTPERP"}"#,
        &FundingRateRequest::new("BTCUSDTPERP"),
    );
    assert_catalog_same(
        "GET",
        "/swap/v2/public/funding_rate_history",
        r#"{"instrument_id":"BTCUSDTPERP","start_timestamp":"1656000000000",
            "end_timestamp":1657000000000,"limit":3}"#,
        &FundingRateHistoryRequest::new("BTCUSDTPERP")
            .start_timestamp(TimestampMillis(1_656_000_000_000))
            .end_timestamp(TimestampMillis(1_657_000_000_000))
            .limit(3),
    );
}

#[test]
fn funding_rate_decode() {
    let f = decode_swap::<FundingRateRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","funding_rate":"0.0001",
        "funding_time":1657526400000,"next_funding_rate":"-0.00005","next_funding_time":1657555200000}}"#,
    )
    .unwrap();
    assert_eq!(f.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(f.funding_rate, Some(d("0.0001")));
    assert_eq!(f.funding_time, Some(TimestampMillis(1_657_526_400_000)));
    assert_eq!(f.next_funding_rate, Some(d("-0.00005")));
    assert_eq!(
        f.next_funding_time,
        Some(TimestampMillis(1_657_555_200_000))
    );
    // Exponent notation as a number; an empty forecast; a missing next time.
    let f = decode_swap::<FundingRateRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","funding_rate":1e-4,
        "funding_time":"1657526400000","next_funding_rate":""}}"#,
    )
    .unwrap();
    assert_eq!(f.funding_rate, Some(d("0.0001")));
    assert_eq!(f.funding_time, Some(TimestampMillis(1_657_526_400_000)));
    assert_eq!(f.next_funding_rate, None);
    assert_eq!(f.next_funding_time, None);
    let v = serde_json::to_value(&f).unwrap();
    assert_eq!(v["funding_rate"], "0.0001");
    assert_eq!(v["next_funding_rate"], serde_json::Value::Null);
    // A 4-hourly contract: the interval is next_funding_time - funding_time.
    let f = decode_swap::<FundingRateRequest>(
        r#"{"code":0,"data":{"instrument_id":"XYZUSDTPERP","funding_rate":"0.0003",
        "funding_time":1662710400000,"next_funding_rate":"0.0002","next_funding_time":1662724800000}}"#,
    )
    .unwrap();
    assert_eq!(
        f.next_funding_time.unwrap().0 - f.funding_time.unwrap().0,
        4 * 3_600_000
    );
    // Every field is optional: placeholders are absent, and an answer without `data` is a
    // FundingRate with every field `None`.
    let f = decode_swap::<FundingRateRequest>(
        r#"{"code":0,"data":{"instrument_id":"","funding_rate":"-","funding_time":null,
        "next_funding_rate":"--","next_funding_time":""}}"#,
    )
    .unwrap();
    let none = decode_swap::<FundingRateRequest>(r#"{"code":0}"#).unwrap();
    assert_eq!(f, none);
    assert_eq!(
        (none.instrument_id, none.funding_rate, none.funding_time),
        (None, None, None)
    );
    assert_eq!(
        (none.next_funding_rate, none.next_funding_time),
        (None, None)
    );
}

#[test]
fn funding_rate_history_decode() {
    let h = decode_swap::<FundingRateHistoryRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","funding_rates":[
        {"rate":"0.0001","time":1657526400000},
        {"rate":-0.000075,"time":"1657497600000"}]}}"#,
    )
    .unwrap();
    assert_eq!(h.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(h.funding_rates.len(), 2);
    assert_eq!(h.funding_rates[0].rate, Some(d("0.0001")));
    assert_eq!(h.funding_rates[0].time, TimestampMillis(1_657_526_400_000));
    assert_eq!(h.funding_rates[1].rate, Some(d("-0.000075")));
    assert_eq!(h.funding_rates[1].time, TimestampMillis(1_657_497_600_000));
    let empty = decode_swap::<FundingRateHistoryRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP"}}"#,
    )
    .unwrap();
    assert!(empty.funding_rates.is_empty());
    // The rate is optional; the time is the entry's key (required).
    let h = decode_swap::<FundingRateHistoryRequest>(
        r#"{"code":0,"data":{"funding_rates":[{"rate":"","time":1},{"rate":"-","time":"2"}]}}"#,
    )
    .unwrap();
    assert_eq!(h.instrument_id, None);
    assert_eq!(h.funding_rates[0].rate, None);
    assert_eq!(h.funding_rates[1].rate, None);
    assert_eq!(h.funding_rates[1].time, TimestampMillis(2));
    match decode_swap::<FundingRateHistoryRequest>(
        r#"{"code":0,"data":{"funding_rates":[{"rate":"0.1","time":"-"}]}}"#,
    ) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data.funding_rates[0].time"),
        other => panic!("{other:?}"),
    }
    assert!(decode_swap::<FundingRateHistoryRequest>(r#"{"code":0}"#)
        .unwrap()
        .funding_rates
        .is_empty());
    assert_eq!(
        api_code(decode_status::<FundingRateHistoryRequest>(
            429,
            r#"{"code":403001}"#
        )),
        SwapCode::FrequencyLimit
    );
}
