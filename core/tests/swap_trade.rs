//! Swap trade endpoints: exact request shapes (URL, headers, JSON body bytes, independently
//! computed signatures), validation, catalog round-trips and decoding.
//!
//! The request bodies and response bodies below are hand-written from the tables of the swap v2
//! API documentation ("Order", "Fill", the states, "Private: trade"), not captured from the
//! library.

mod support;
use support::*;

use digifinex_core::swap::{
    BatchCancelOrdersRequest, BatchItem, BatchPlaceOrdersRequest, CancelOrderRequest,
    CancelledOrder, Fill, HistoryOrdersRequest, HistoryTradesRequest, MarginMode, MarketStyle,
    MatchRole, OpenOrdersRequest, Order, OrderIds, OrderInfoRequest, OrderPricing, OrderRef,
    OrderSide, OrderSpec, OrderState, OrderType, PlaceOrderRequest, PlacedOrder, TradeType,
    MAX_BATCH_ORDERS,
};
use digifinex_core::{ApiCode, Endpoint, Error, ErrorKind, Price, Size, SwapCode, TimestampMillis};

const I: &str = "BTCUSDTPERP";

/// A size in contracts, exactly.
fn sz(s: &str) -> Size {
    Size::new(d(s))
}

/// A price, exactly.
fn px(s: &str) -> Price {
    Price::new(d(s))
}

fn limit(side: OrderSide, size: &str, price: &str) -> OrderSpec {
    OrderSpec::limit(I, side, sz(size), px(price))
}

fn catalog_invalid(method: &str, path: &str, json: &str, field: &str) {
    match build_from_json(method, path, json) {
        Err(Error::Validation { field: f, .. }) => assert_eq!(f, field, "{json}"),
        other => panic!("expected a validation error on {field} for {json}, got {other:?}"),
    }
}

/// The typed request and the catalog request from `json` are the same bytes (URL, headers,
/// body, signature).
fn assert_round_trip<E: digifinex_core::Endpoint>(typed: &E, method: &str, path: &str, json: &str) {
    let a = render(&build_req(typed).unwrap());
    let b = render(&build_from_json(method, path, json).unwrap());
    assert_eq!(a, b, "{json}");
}

// ---------------------------------------------------------------------------------------------
// order_place

#[test]
fn order_place_limit_shape() {
    assert_swap_signed_post(
        &PlaceOrderRequest::new(limit(OrderSide::OpenLong, "1", "30000.50")),
        "/swap/v2/trade/order_place",
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"30000.50"}"#,
    );
}

#[test]
fn order_place_post_only_is_a_json_boolean_sent_only_when_set() {
    assert_swap_signed_post(
        &PlaceOrderRequest::new(OrderSpec::new(
            I,
            OrderSide::OpenShort,
            sz("2.5"),
            OrderPricing::post_only(px("31000")),
        )),
        "/swap/v2/trade/order_place",
        r#"{"instrument_id":"BTCUSDTPERP","type":2,"order_type":0,"size":2.5,"price":"31000","post_only":true}"#,
    );
    // An explicit `post_only: false` is the default and is not sent.
    assert_swap_signed_post(
        &PlaceOrderRequest::new(OrderSpec::new(
            I,
            OrderSide::OpenShort,
            sz("2.5"),
            OrderPricing::Limit {
                price: px("31000"),
                post_only: false,
            },
        )),
        "/swap/v2/trade/order_place",
        r#"{"instrument_id":"BTCUSDTPERP","type":2,"order_type":0,"size":2.5,"price":"31000"}"#,
    );
}

#[test]
fn order_place_custom_price_and_market_styles() {
    assert_swap_signed_post(
        &PlaceOrderRequest::new(OrderSpec::new(
            I,
            OrderSide::CloseLong,
            sz("3"),
            OrderPricing::IocCustomPrice(px("29999.9")),
        )),
        "/swap/v2/trade/order_place",
        r#"{"instrument_id":"BTCUSDTPERP","type":3,"order_type":4,"size":3,"price":"29999.9"}"#,
    );
    assert_swap_signed_post(
        &PlaceOrderRequest::new(OrderSpec::new(
            I,
            OrderSide::CloseShort,
            sz("3"),
            OrderPricing::FokCustomPrice(px("30001")),
        )),
        "/swap/v2/trade/order_place",
        r#"{"instrument_id":"BTCUSDTPERP","type":4,"order_type":9,"size":3,"price":"30001"}"#,
    );
    // Market styles carry no price; every code of the table.
    for (style, code) in [
        (MarketStyle::IocOpponent, 1),
        (MarketStyle::IocOptimal5, 2),
        (MarketStyle::IocOptimal10, 3),
        (MarketStyle::IocOptimal20, 13),
        (MarketStyle::GtcOpponent, 6),
        (MarketStyle::GtcOptimal5, 7),
        (MarketStyle::GtcOptimal10, 8),
        (MarketStyle::GtcOptimal20, 14),
        (MarketStyle::FokOpponent, 10),
        (MarketStyle::FokOptimal5, 11),
        (MarketStyle::FokOptimal10, 12),
        (MarketStyle::FokOptimal20, 15),
    ] {
        assert_eq!(style.order_type().code(), Some(code));
        assert_swap_signed_post(
            &PlaceOrderRequest::new(OrderSpec::market(I, OrderSide::OpenLong, sz("10"), style)),
            "/swap/v2/trade/order_place",
            &format!(r#"{{"instrument_id":"BTCUSDTPERP","type":1,"order_type":{code},"size":10}}"#),
        );
    }
}

#[test]
fn order_place_size_is_an_exact_json_number() {
    // 28 fractional digits: an f64 would print 1e-28 or lose digits.
    assert_swap_signed_post(
        &PlaceOrderRequest::new(limit(
            OrderSide::OpenLong,
            "0.0000000000000000000000000001",
            "0.1000",
        )),
        "/swap/v2/trade/order_place",
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":0.0000000000000000000000000001,"price":"0.1000"}"#,
    );
}

#[test]
fn order_place_validation_names_the_field() {
    assert_invalid(
        &PlaceOrderRequest::new(OrderSpec::limit(
            "BTC USDT",
            OrderSide::OpenLong,
            sz("1"),
            px("1"),
        )),
        "instrument_id",
    );
    assert_invalid(
        &PlaceOrderRequest::new(limit(OrderSide::Unknown(5), "1", "1")),
        "type",
    );
    assert_invalid(
        &PlaceOrderRequest::new(limit(OrderSide::OpenLong, "0", "1")),
        "size",
    );
    assert_invalid(
        &PlaceOrderRequest::new(limit(OrderSide::OpenLong, "-1", "1")),
        "size",
    );
    assert_invalid(
        &PlaceOrderRequest::new(limit(OrderSide::OpenLong, "1", "0")),
        "price",
    );
    assert_invalid(
        &PlaceOrderRequest::new(OrderSpec::new(
            I,
            OrderSide::OpenLong,
            sz("1"),
            OrderPricing::FokCustomPrice(px("-2")),
        )),
        "price",
    );
}

#[test]
fn order_place_catalog_round_trips() {
    let p = "/swap/v2/trade/order_place";
    assert_round_trip(
        &PlaceOrderRequest::new(limit(OrderSide::OpenLong, "1", "30000.50")),
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"30000.50"}"#,
    );
    // Values may be strings or numbers; members in any order; post_only as true or 1.
    assert_round_trip(
        &PlaceOrderRequest::new(OrderSpec::new(
            I,
            OrderSide::OpenShort,
            sz("2.50"),
            OrderPricing::post_only(px("31000")),
        )),
        "POST",
        p,
        r#"{"post_only":1,"price":31000,"size":"2.50","order_type":"0","type":"2","instrument_id":"BTCUSDTPERP"}"#,
    );
    assert_round_trip(
        &PlaceOrderRequest::new(OrderSpec::market(
            I,
            OrderSide::CloseLong,
            sz("4"),
            MarketStyle::FokOptimal20,
        )),
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":3,"order_type":15,"size":4,"post_only":false}"#,
    );
    assert_round_trip(
        &PlaceOrderRequest::new(OrderSpec::new(
            I,
            OrderSide::OpenLong,
            sz("1"),
            OrderPricing::IocCustomPrice(px("5")),
        )),
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":4,"size":1,"price":"5"}"#,
    );
}

#[test]
fn order_place_catalog_refuses_inconsistent_orders() {
    let p = "/swap/v2/trade/order_place";
    // A price on a market-style type cannot be written with the typed API; the catalog path
    // refuses it by name.
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":1,"size":1,"price":"100"}"#,
        "price",
    );
    // A limit or custom-price order without a price.
    for t in [0, 4, 9] {
        catalog_invalid(
            "POST",
            p,
            &format!(r#"{{"instrument_id":"BTCUSDTPERP","type":1,"order_type":{t},"size":1}}"#),
            "price",
        );
    }
    // post_only outside limit orders.
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":4,"size":1,"price":"1","post_only":true}"#,
        "post_only",
    );
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":6,"size":1,"post_only":true}"#,
        "post_only",
    );
    // Unknown codes.
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":5,"size":1}"#,
        "order_type",
    );
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":7,"order_type":0,"size":1,"price":"1"}"#,
        "type",
    );
    // Missing members, malformed values, unknown members.
    catalog_invalid(
        "POST",
        p,
        r#"{"type":1,"order_type":0,"size":1,"price":"1"}"#,
        "instrument_id",
    );
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"price":"1"}"#,
        "size",
    );
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":"x","price":"1"}"#,
        "size",
    );
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"1","post_only":"maybe"}"#,
        "post_only",
    );
    catalog_invalid(
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"1","client_oid":"x"}"#,
        "client_oid",
    );
}

// ---------------------------------------------------------------------------------------------
// cancel_order

#[test]
fn cancel_order_shape_validation_and_round_trip() {
    let p = "/swap/v2/trade/cancel_order";
    let body = r#"{"instrument_id":"BTCUSDTPERP","order_id":"1590873693003714560"}"#;
    let typed = CancelOrderRequest::new(I, "1590873693003714560");
    assert_swap_signed_post(&typed, p, body);
    assert_round_trip(&typed, "POST", p, body);
    // A numeric order id keeps its digits.
    assert_round_trip(
        &typed,
        "POST",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","order_id":1590873693003714560}"#,
    );
    assert_invalid(&CancelOrderRequest::new(I, ""), "order_id");
    assert_invalid(&CancelOrderRequest::new(I, "12 34"), "order_id");
    assert_invalid(&CancelOrderRequest::new("", "1"), "instrument_id");
    catalog_invalid("POST", p, r#"{"instrument_id":"BTCUSDTPERP"}"#, "order_id");
}

// ---------------------------------------------------------------------------------------------
// batch_order

#[test]
fn batch_order_sends_a_signed_json_array() {
    let batch = BatchPlaceOrdersRequest::new([
        limit(OrderSide::OpenLong, "1", "30000"),
        OrderSpec::new(
            "ETHUSDTPERP",
            OrderSide::OpenShort,
            sz("0.5"),
            OrderPricing::post_only(px("2000.25")),
        ),
        OrderSpec::market(I, OrderSide::CloseLong, sz("2"), MarketStyle::IocOptimal5),
    ]);
    let body = concat!(
        r#"[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"30000"},"#,
        r#"{"instrument_id":"ETHUSDTPERP","type":2,"order_type":0,"size":0.5,"price":"2000.25","post_only":true},"#,
        r#"{"instrument_id":"BTCUSDTPERP","type":3,"order_type":2,"size":2}]"#
    );
    assert_swap_signed_post(&batch, "/swap/v2/trade/batch_order", body);
    // The signature covers the array text verbatim (computed independently here).
    let req = build_req(&batch).unwrap();
    assert_eq!(
        req.headers()["access-sign"],
        expected_sign(&format!(
            "1700000000000POST/swap/v2/trade/batch_order{body}"
        ))
        .as_str()
    );
    assert_round_trip(&batch, "POST", "/swap/v2/trade/batch_order", body);
}

#[test]
fn batch_order_of_one_and_twenty() {
    assert_swap_signed_post(
        &BatchPlaceOrdersRequest::new([limit(OrderSide::OpenLong, "1", "1")]),
        "/swap/v2/trade/batch_order",
        r#"[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"1"}]"#,
    );
    let twenty = BatchPlaceOrdersRequest::new(
        (0..MAX_BATCH_ORDERS).map(|_| limit(OrderSide::OpenLong, "1", "1")),
    );
    let one = r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"1"}"#;
    let body = format!("[{}]", vec![one; 20].join(","));
    assert_swap_signed_post(&twenty, "/swap/v2/trade/batch_order", &body);
}

#[test]
fn batch_order_validation_names_the_element() {
    assert_invalid(&BatchPlaceOrdersRequest::new([]), "body");
    assert_invalid(
        &BatchPlaceOrdersRequest::new((0..21).map(|_| limit(OrderSide::OpenLong, "1", "1"))),
        "body",
    );
    assert_invalid(
        &BatchPlaceOrdersRequest::new([
            limit(OrderSide::OpenLong, "1", "1"),
            limit(OrderSide::OpenLong, "1", "0"),
        ]),
        "[1].price",
    );
    assert_invalid(
        &BatchPlaceOrdersRequest::new([limit(OrderSide::Unknown(9), "1", "1")]),
        "[0].type",
    );
    assert_invalid(
        &BatchPlaceOrdersRequest::new([
            limit(OrderSide::OpenLong, "1", "1"),
            limit(OrderSide::OpenLong, "1", "1"),
            OrderSpec::limit("", OrderSide::OpenLong, sz("1"), px("1")),
        ]),
        "[2].instrument_id",
    );
}

#[test]
fn batch_order_catalog_reads_the_array_and_names_elements() {
    let p = "/swap/v2/trade/batch_order";
    let ok = r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"1"}"#;
    catalog_invalid("POST", p, "[]", "body");
    catalog_invalid("POST", p, &format!("[{}]", vec![ok; 21].join(",")), "body");
    assert!(build_from_json("POST", p, &format!("[{}]", vec![ok; 20].join(","))).is_ok());
    // Price on a market style in element 1; missing price on a limit in element 0.
    catalog_invalid(
        "POST",
        p,
        &format!(
            r#"[{ok},{{"instrument_id":"BTCUSDTPERP","type":1,"order_type":10,"size":1,"price":"2"}}]"#
        ),
        "[1].price",
    );
    catalog_invalid(
        "POST",
        p,
        r#"[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1}]"#,
        "[0].price",
    );
    catalog_invalid(
        "POST",
        p,
        &format!(
            r#"[{ok},{ok},{{"instrument_id":"BTCUSDTPERP","type":1,"order_type":99,"size":1}}]"#
        ),
        "[2].order_type",
    );
    catalog_invalid(
        "POST",
        p,
        &format!(
            r#"[{ok},{{"instrument_id":"BTCUSDTPERP","type":8,"order_type":0,"size":1,"price":"1"}}]"#
        ),
        "[1].type",
    );
    catalog_invalid(
        "POST",
        p,
        r#"[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"1","extra":1}]"#,
        "[0].extra",
    );
    // Elements must be objects; the body must be an array.
    catalog_invalid("POST", p, r#"[1]"#, "[0].json");
    catalog_invalid("POST", p, ok, "body");
}

// ---------------------------------------------------------------------------------------------
// batch_cancel_order

#[test]
fn batch_cancel_order_sends_a_signed_json_array() {
    let batch = BatchCancelOrdersRequest::new([
        (I, "1590873693003714560"),
        ("ETHUSDTPERP", "1590873693003714561"),
    ]);
    let body = concat!(
        r#"[{"instrument_id":"BTCUSDTPERP","order_id":"1590873693003714560"},"#,
        r#"{"instrument_id":"ETHUSDTPERP","order_id":"1590873693003714561"}]"#
    );
    assert_swap_signed_post(&batch, "/swap/v2/trade/batch_cancel_order", body);
    let req = build_req(&batch).unwrap();
    assert_eq!(
        req.headers()["access-sign"],
        expected_sign(&format!(
            "1700000000000POST/swap/v2/trade/batch_cancel_order{body}"
        ))
        .as_str()
    );
    assert_round_trip(&batch, "POST", "/swap/v2/trade/batch_cancel_order", body);
    // OrderRef values work as well as pairs.
    assert_eq!(
        BatchCancelOrdersRequest::new([OrderRef::new(I, "1")]),
        BatchCancelOrdersRequest::new([(I, "1")])
    );
}

#[test]
fn batch_cancel_order_validation() {
    let p = "/swap/v2/trade/batch_cancel_order";
    assert_invalid(
        &BatchCancelOrdersRequest::new(Vec::<OrderRef>::new()),
        "body",
    );
    assert_invalid(
        &BatchCancelOrdersRequest::new((0..21).map(|i| (I, i.to_string()))),
        "body",
    );
    assert!(build_req(&BatchCancelOrdersRequest::new(
        (0..20).map(|i| (I, i.to_string()))
    ))
    .is_ok());
    assert_invalid(
        &BatchCancelOrdersRequest::new([(I, "1"), (I, "")]),
        "[1].order_id",
    );
    assert_invalid(
        &BatchCancelOrdersRequest::new([("BTC/USDT", "1")]),
        "[0].instrument_id",
    );
    let one = r#"{"instrument_id":"BTCUSDTPERP","order_id":"1"}"#;
    catalog_invalid("POST", p, "[]", "body");
    catalog_invalid("POST", p, &format!("[{}]", vec![one; 21].join(",")), "body");
    catalog_invalid(
        "POST",
        p,
        &format!(r#"[{one},{{"instrument_id":"BTCUSDTPERP"}}]"#),
        "[1].order_id",
    );
    catalog_invalid("POST", p, r#"[{"order_id":"1"}]"#, "[0].instrument_id");
}

// ---------------------------------------------------------------------------------------------
// open_orders, history_orders

#[test]
fn open_orders_shapes() {
    assert_swap_signed_get(&OpenOrdersRequest::new(), "/swap/v2/trade/open_orders");
    let full = OpenOrdersRequest::new()
        .instrument_id(I)
        .side(OrderSide::OpenLong)
        .order_type(OrderType::Limit)
        .order_status(OrderState::PartFilled)
        .start_timestamp(TimestampMillis(1_657_522_488_402))
        .end_timestamp(TimestampMillis(1_657_522_488_403))
        .limit(100);
    let url = "/swap/v2/trade/open_orders?instrument_id=BTCUSDTPERP&type=1&order_type=0&order_status=1&start_timestamp=1657522488402&end_timestamp=1657522488403&limit=100";
    assert_swap_signed_get(&full, url);
    assert_round_trip(
        &full,
        "GET",
        "/swap/v2/trade/open_orders",
        r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":"0","order_status":1,"start_timestamp":1657522488402,"end_timestamp":"1657522488403","limit":100}"#,
    );
    assert_swap_signed_get(
        &OpenOrdersRequest::new()
            .order_status(OrderState::Open)
            .limit(1),
        "/swap/v2/trade/open_orders?order_status=0&limit=1",
    );
}

#[test]
fn open_orders_validation() {
    let p = "/swap/v2/trade/open_orders";
    for s in [
        OrderState::Filled,
        OrderState::Canceled,
        OrderState::Unknown(3),
    ] {
        assert_invalid(&OpenOrdersRequest::new().order_status(s), "order_status");
    }
    assert_invalid(&OpenOrdersRequest::new().limit(0), "limit");
    assert_invalid(&OpenOrdersRequest::new().limit(101), "limit");
    assert_invalid(
        &OpenOrdersRequest::new()
            .start_timestamp(TimestampMillis(2))
            .end_timestamp(TimestampMillis(2)),
        "end_timestamp",
    );
    assert_invalid(
        &OpenOrdersRequest::new().side(OrderSide::Unknown(0)),
        "type",
    );
    assert_invalid(
        &OpenOrdersRequest::new().order_type(OrderType::Unknown(5)),
        "order_type",
    );
    assert_invalid(
        &OpenOrdersRequest::new().instrument_id("a b"),
        "instrument_id",
    );
    catalog_invalid("GET", p, r#"{"order_status":2}"#, "order_status");
    catalog_invalid("GET", p, r#"{"order_status":-1}"#, "order_status");
    catalog_invalid("GET", p, r#"{"order_type":16}"#, "order_type");
    catalog_invalid("GET", p, r#"{"type":5}"#, "type");
    catalog_invalid("GET", p, r#"{"limit":"x"}"#, "limit");
    catalog_invalid(
        "GET",
        p,
        r#"{"start_timestamp":5,"end_timestamp":4}"#,
        "end_timestamp",
    );
}

#[test]
fn history_orders_shapes_and_validation() {
    let p = "/swap/v2/trade/history_orders";
    assert_swap_signed_get(&HistoryOrdersRequest::new(), p);
    let full = HistoryOrdersRequest::new()
        .instrument_id(I)
        .side(OrderSide::CloseShort)
        .order_type(OrderType::FokOptimal20)
        .order_status(OrderState::Canceled)
        .start_timestamp(TimestampMillis(1))
        .end_timestamp(TimestampMillis(2))
        .limit(20);
    assert_swap_signed_get(
        &full,
        "/swap/v2/trade/history_orders?instrument_id=BTCUSDTPERP&type=4&order_type=15&order_status=-1&start_timestamp=1&end_timestamp=2&limit=20",
    );
    assert_round_trip(
        &full,
        "GET",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","type":4,"order_type":15,"order_status":-1,"start_timestamp":1,"end_timestamp":2,"limit":20}"#,
    );
    assert_swap_signed_get(
        &HistoryOrdersRequest::new().order_status(OrderState::Filled),
        "/swap/v2/trade/history_orders?order_status=2",
    );
    for s in [
        OrderState::Open,
        OrderState::PartFilled,
        OrderState::Unknown(-2),
    ] {
        assert_invalid(&HistoryOrdersRequest::new().order_status(s), "order_status");
    }
    assert_invalid(&HistoryOrdersRequest::new().limit(101), "limit");
    assert_invalid(
        &HistoryOrdersRequest::new()
            .start_timestamp(TimestampMillis(3))
            .end_timestamp(TimestampMillis(1)),
        "end_timestamp",
    );
    catalog_invalid("GET", p, r#"{"order_status":0}"#, "order_status");
    catalog_invalid("GET", p, r#"{"order_status":1}"#, "order_status");
    catalog_invalid("GET", p, r#"{"limit":0}"#, "limit");
}

// ---------------------------------------------------------------------------------------------
// order_info, history_trades

#[test]
fn order_info_shapes_and_validation() {
    let p = "/swap/v2/trade/order_info";
    let typed = OrderInfoRequest::new("1590873693003714560");
    assert_swap_signed_get(
        &typed,
        "/swap/v2/trade/order_info?order_id=1590873693003714560",
    );
    assert_round_trip(&typed, "GET", p, r#"{"order_id":1590873693003714560}"#);
    let with_instrument = OrderInfoRequest::new("1590873693003714560").instrument_id(I);
    assert_swap_signed_get(
        &with_instrument,
        "/swap/v2/trade/order_info?order_id=1590873693003714560&instrument_id=BTCUSDTPERP",
    );
    assert_round_trip(
        &with_instrument,
        "GET",
        p,
        r#"{"instrument_id":"BTCUSDTPERP","order_id":"1590873693003714560"}"#,
    );
    assert_invalid(&OrderInfoRequest::new(""), "order_id");
    assert_invalid(
        &OrderInfoRequest::new("1").instrument_id(""),
        "instrument_id",
    );
    catalog_invalid("GET", p, r#"{"instrument_id":"BTCUSDTPERP"}"#, "order_id");
}

#[test]
fn history_trades_shapes_and_validation() {
    let p = "/swap/v2/trade/history_trades";
    assert_swap_signed_get(&HistoryTradesRequest::new(), p);
    let full = HistoryTradesRequest::new()
        .instrument_id(I)
        .side(OrderSide::OpenShort)
        .order_type(OrderType::IocOptimal20)
        .order_id("1590873693003714560")
        .start_timestamp(TimestampMillis(1_657_522_488_000))
        .end_timestamp(TimestampMillis(1_657_522_489_000))
        .limit(50);
    assert_swap_signed_get(
        &full,
        "/swap/v2/trade/history_trades?instrument_id=BTCUSDTPERP&type=2&order_type=13&order_id=1590873693003714560&start_timestamp=1657522488000&end_timestamp=1657522489000&limit=50",
    );
    assert_round_trip(
        &full,
        "GET",
        p,
        r#"{"limit":50,"end_timestamp":1657522489000,"start_timestamp":1657522488000,"order_id":"1590873693003714560","order_type":13,"type":2,"instrument_id":"BTCUSDTPERP"}"#,
    );
    assert_invalid(&HistoryTradesRequest::new().order_id(""), "order_id");
    assert_invalid(&HistoryTradesRequest::new().limit(0), "limit");
    assert_invalid(
        &HistoryTradesRequest::new().side(OrderSide::Unknown(5)),
        "type",
    );
    assert_invalid(
        &HistoryTradesRequest::new().order_type(OrderType::Unknown(-1)),
        "order_type",
    );
    assert_invalid(
        &HistoryTradesRequest::new()
            .start_timestamp(TimestampMillis(9))
            .end_timestamp(TimestampMillis(8)),
        "end_timestamp",
    );
    catalog_invalid("GET", p, r#"{"order_status":1}"#, "order_status");
}

// ---------------------------------------------------------------------------------------------
// Decoding

/// An order id above 2^53 (9007199254740992) and above u64::MAX, as JSON numbers: they must
/// keep every digit.
const BIG_ID: &str = "1590873693003714560";
const HUGE_ID: &str = "123456789012345678901234567890";

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
fn order_place_and_cancel_return_the_id_string_or_number() {
    for body in [
        format!(r#"{{"code":0,"data":"{BIG_ID}"}}"#),
        format!(r#"{{"code":0,"data":{BIG_ID}}}"#),
    ] {
        let placed = decode_swap::<PlaceOrderRequest>(&body).unwrap();
        assert_eq!(
            placed,
            answer!(PlacedOrder {
                order_id: BIG_ID.to_owned()
            })
        );
        assert_eq!(
            serde_json::to_string(&placed).unwrap(),
            format!(r#"{{"order_id":"{BIG_ID}"}}"#)
        );
        assert_eq!(
            decode_swap::<CancelOrderRequest>(&body).unwrap(),
            answer!(CancelledOrder {
                order_id: BIG_ID.to_owned()
            })
        );
    }
    assert_eq!(
        decode_swap::<PlaceOrderRequest>(&format!(r#"{{"code":0,"data":{HUGE_ID}}}"#))
            .unwrap()
            .order_id,
        HUGE_ID
    );
    // The id is the whole answer: required. A fractional number, a placeholder, null or a
    // missing data is an error (never an empty id).
    for body in [
        r#"{"code":0,"data":1.5}"#,
        r#"{"code":0,"data":""}"#,
        r#"{"code":0,"data":"-"}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0}"#,
    ] {
        assert!(
            matches!(
                decode_swap::<PlaceOrderRequest>(body),
                Err(Error::Decode { .. })
            ),
            "{body}"
        );
        assert!(
            matches!(
                decode_swap::<CancelOrderRequest>(body),
                Err(Error::Decode { .. })
            ),
            "{body}"
        );
    }
}

#[test]
fn batch_endpoints_return_the_list_of_ids() {
    let body = format!(r#"{{"code":0,"data":["{BIG_ID}",{BIG_ID},{HUGE_ID},"1"]}}"#);
    let want = OrderIds(vec![
        BatchItem::Id(BIG_ID.to_owned()),
        BatchItem::Id(BIG_ID.to_owned()),
        BatchItem::Id(HUGE_ID.to_owned()),
        BatchItem::Id("1".to_owned()),
    ]);
    assert_eq!(decode_swap::<BatchPlaceOrdersRequest>(&body).unwrap(), want);
    assert_eq!(
        decode_swap::<BatchCancelOrdersRequest>(&body).unwrap(),
        want
    );
    assert_eq!(want.len(), 4);
    assert!(!want.has_failures());
    assert_eq!(
        want.ids().collect::<Vec<_>>(),
        [BIG_ID, BIG_ID, HUGE_ID, "1"]
    );
    assert_eq!(
        serde_json::to_string(&want).unwrap(),
        format!(r#"["{BIG_ID}","{BIG_ID}","{HUGE_ID}","1"]"#)
    );
    // An explicit empty list is an empty answer (a batch cancel that cancelled nothing).
    assert!(
        decode_swap::<BatchCancelOrdersRequest>(r#"{"code":0,"data":[]}"#)
            .unwrap()
            .is_empty()
    );
    // The list is the whole answer: missing, null, a placeholder or not a list is an error.
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0,"data":""}"#,
        r#"{"code":0,"data":"-"}"#,
        r#"{"code":0,"data":"1"}"#,
        r#"{"code":0,"data":{"a":1}}"#,
    ] {
        match decode_swap::<BatchPlaceOrdersRequest>(body) {
            Err(Error::Decode { .. }) => {}
            other => panic!("{body}: {other:?}"),
        }
        assert!(
            decode_swap::<BatchCancelOrdersRequest>(body).is_err(),
            "{body}"
        );
    }
}

#[test]
fn batch_answers_keep_elements_without_an_id_in_their_place() {
    let body = r#"{"code":0,"data":[
        "1720297963537829888", null, "", "-", 1.5, true,
        {"code":401003,"msg":"account balance not enough"},
        {"order_id":1720297963537829890},
        {"message":"x"},
        1720297963537829891
    ]}"#;
    let got = decode_swap::<BatchPlaceOrdersRequest>(body).unwrap();
    let none = BatchItem::Failed {
        code: None,
        message: None,
    };
    assert_eq!(
        got.0,
        vec![
            BatchItem::Id("1720297963537829888".to_owned()),
            none.clone(),
            none.clone(),
            none.clone(),
            none.clone(),
            none,
            BatchItem::Failed {
                code: Some(401003),
                message: Some("account balance not enough".to_owned()),
            },
            BatchItem::Id("1720297963537829890".to_owned()),
            BatchItem::Failed {
                code: None,
                message: Some("x".to_owned()),
            },
            BatchItem::Id("1720297963537829891".to_owned()),
        ]
    );
    assert!(got.has_failures());
    assert_eq!(got.ids().count(), 3);
    assert_eq!(got.0[1].id(), None);
    assert_eq!(got.0[0].id(), Some("1720297963537829888"));
    // Rendered: ids as strings, failures as null or {code,msg}.
    let v = serde_json::to_value(&got).unwrap();
    assert_eq!(v[0], "1720297963537829888");
    assert!(v[1].is_null());
    assert_eq!(
        v[6],
        serde_json::json!({"code":401003,"msg":"account balance not enough"})
    );
    assert_eq!(v[9], "1720297963537829891");
}

/// The spec's Order with every field, strings as the API sends them.
const ORDER_STRINGS: &str = r#"{
    "order_id": "1590873693003714560",
    "instrument_id": "BTCUSDTPERP",
    "margin_mode": "crossed",
    "contract_val": "0.001",
    "type": 1,
    "order_type": 0,
    "price": "20000.50",
    "size": "6",
    "filled_qty": "2",
    "price_avg": "20000.25",
    "fee": "0.0012",
    "state": 1,
    "leverage": "20",
    "turnover": "40.0005",
    "close_profit": "0",
    "has_stop": 0,
    "insert_time": 1668134664828,
    "time_stamp": 1668134664829
}"#;

#[test]
fn order_info_decodes_every_field_exactly() {
    let o = decode_swap::<OrderInfoRequest>(&format!(r#"{{"code":0,"data":{ORDER_STRINGS}}}"#))
        .unwrap();
    assert_eq!(
        o,
        answer!(Order {
            order_id: BIG_ID.to_owned(),
            instrument_id: Some(I.to_owned()),
            margin_mode: Some(MarginMode::Crossed),
            contract_val: Some(d("0.001")),
            side: Some(OrderSide::OpenLong),
            order_type: Some(OrderType::Limit),
            price: Some(d("20000.50")),
            size: Some(d("6")),
            filled_qty: Some(d("2")),
            price_avg: Some(d("20000.25")),
            fee: Some(d("0.0012")),
            state: Some(OrderState::PartFilled),
            leverage: Some(d("20")),
            turnover: Some(d("40.0005")),
            close_profit: Some(d("0")),
            has_stop: Some(false),
            insert_time: Some(TimestampMillis(1_668_134_664_828)),
            time_stamp: Some(TimestampMillis(1_668_134_664_829)),
        })
    );
    // The scale is kept (20000.50, not 20000.5).
    assert_eq!(o.price.unwrap().to_string(), "20000.50");
    // Rendered for the CLI: `type` on the wire name, decimals as strings, ids as strings.
    let v = serde_json::to_value(&o).unwrap();
    assert_eq!(v["type"], 1);
    assert_eq!(v["order_id"], BIG_ID);
    assert_eq!(v["price"], "20000.50");
    assert_eq!(v["margin_mode"], "crossed");
    assert_eq!(v["has_stop"], false);
    assert_eq!(v["insert_time"], 1_668_134_664_828_i64);
}

#[test]
fn order_decodes_numbers_placeholders_words_and_unknown_codes() {
    let body = format!(
        r#"{{"code":0,"data":{{
            "order_id": {BIG_ID},
            "instrument_id": "",
            "margin_mode": "portfolio",
            "contract_val": 0.01,
            "type": "close_short",
            "order_type": "IOC_Optimal_20",
            "price": "",
            "size": 1e-3,
            "filled_qty": "-",
            "price_avg": "",
            "fee": null,
            "state": 7,
            "leverage": 25,
            "turnover": "--",
            "close_profit": "",
            "has_stop": "1",
            "insert_time": "1668134664828",
            "time_stamp": "",
            "new_field": {{"x": 1}}
        }}}}"#
    );
    let (o, unreadable) = decode_report::<OrderInfoRequest>(&body);
    assert!(unreadable.is_empty(), "{unreadable:?}");
    assert_eq!(o.order_id, BIG_ID);
    assert_eq!(o.instrument_id, None);
    assert_eq!(o.margin_mode, Some(MarginMode::Other("portfolio".into())));
    assert_eq!(o.contract_val, Some(d("0.01")));
    assert_eq!(o.side, Some(OrderSide::CloseShort));
    assert_eq!(o.order_type, Some(OrderType::IocOptimal20));
    assert_eq!(o.price, None);
    assert_eq!(o.size, Some(d("0.001")));
    assert_eq!(o.filled_qty, None);
    assert_eq!(o.price_avg, None);
    assert_eq!(o.fee, None);
    assert_eq!(o.state, Some(OrderState::Unknown(7)));
    assert_eq!(o.leverage, Some(d("25")));
    assert_eq!(o.turnover, None);
    assert_eq!(o.close_profit, None);
    assert_eq!(o.has_stop, Some(true));
    assert_eq!(o.insert_time, Some(TimestampMillis(1_668_134_664_828)));
    assert_eq!(o.time_stamp, None);
    // A huge numeric id keeps every digit.
    let huge = ORDER_STRINGS.replace("\"1590873693003714560\"", HUGE_ID);
    let o = decode_swap::<OrderInfoRequest>(&format!(r#"{{"code":0,"data":{huge}}}"#)).unwrap();
    assert_eq!(o.order_id, HUGE_ID);
    // Minimal order: only the identity.
    let o = decode_swap::<OrderInfoRequest>(r#"{"code":0,"data":{"order_id":"1"}}"#).unwrap();
    assert_eq!(o.order_id, "1");
    assert_eq!(o.state, None);
    assert_eq!(o.side, None);
    assert_eq!(o.size, None);
    assert_eq!(o.has_stop, None);
    assert_eq!(o.insert_time, None);
    // Words for every documented order_type name; an unknown word is kept.
    for (word, want) in [
        ("limit_price", OrderType::Limit),
        ("IOC_opponent", OrderType::IocOpponent),
        ("IOC_Optimal_5", OrderType::IocOptimal5),
        ("IOC_Optimal_10", OrderType::IocOptimal10),
        ("IOC_Optimal_20", OrderType::IocOptimal20),
        ("IOC_custom_price", OrderType::IocCustomPrice),
        ("GTC_opponent", OrderType::GtcOpponent),
        ("GTC_Optimal_5", OrderType::GtcOptimal5),
        ("GTC_Optimal_10", OrderType::GtcOptimal10),
        ("GTC_Optimal_20", OrderType::GtcOptimal20),
        ("FOK_opponent", OrderType::FokOpponent),
        ("FOK_Optimal_5", OrderType::FokOptimal5),
        ("FOK_Optimal_10", OrderType::FokOptimal10),
        ("FOK_Optimal_20", OrderType::FokOptimal20),
        ("FOK_custom_price", OrderType::FokCustomPrice),
        ("iceberg", OrderType::Other("iceberg".into())),
    ] {
        let body = format!(r#"{{"code":0,"data":{{"order_id":"1","order_type":"{word}"}}}}"#);
        assert_eq!(
            decode_swap::<OrderInfoRequest>(&body).unwrap().order_type,
            Some(want),
            "{word}"
        );
    }
    // State, side and margin-mode words; numeric margin modes (copy-trading numbering).
    let o = decode_swap::<OrderInfoRequest>(
        r#"{"code":0,"data":{"order_id":"1","state":"part_filled","type":"OPEN_LONG","margin_mode":2}}"#,
    )
    .unwrap();
    assert_eq!(o.state, Some(OrderState::PartFilled));
    assert_eq!(o.side, Some(OrderSide::OpenLong));
    assert_eq!(o.margin_mode, Some(MarginMode::Isolated));
    let o = decode_swap::<OrderInfoRequest>(
        r#"{"code":0,"data":{"order_id":"1","state":"canceled","margin_mode":"1"}}"#,
    )
    .unwrap();
    assert_eq!(o.state, Some(OrderState::Canceled));
    assert_eq!(o.margin_mode, Some(MarginMode::Crossed));
}

#[test]
fn unreadable_order_fields_are_absent_and_reported() {
    let body = r#"{"code":0,"data":[{"order_id":"1","size":"abc","state":{"x":1},"has_stop":"maybe","insert_time":[1]}]}"#;
    let (list, unreadable) = decode_report::<OpenOrdersRequest>(body);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].size, None);
    assert_eq!(list[0].state, None);
    assert_eq!(list[0].has_stop, None);
    assert_eq!(list[0].insert_time, None);
    assert_eq!(
        unreadable,
        [
            "data[0].size",
            "data[0].state",
            "data[0].has_stop",
            "data[0].insert_time"
        ]
    );
}

#[test]
fn order_lists_decode_and_null_is_empty() {
    let body = format!(r#"{{"code":0,"data":[{ORDER_STRINGS},{ORDER_STRINGS}]}}"#);
    let list = decode_swap::<OpenOrdersRequest>(&body).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1].state, Some(OrderState::PartFilled));
    let list = decode_swap::<HistoryOrdersRequest>(&body).unwrap();
    assert_eq!(list.len(), 2);
    for empty in [
        r#"{"code":0,"data":[]}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0}"#,
    ] {
        assert!(decode_swap::<OpenOrdersRequest>(empty).unwrap().is_empty());
        assert!(decode_swap::<HistoryOrdersRequest>(empty)
            .unwrap()
            .is_empty());
        assert!(decode_swap::<HistoryTradesRequest>(empty)
            .unwrap()
            .is_empty());
    }
    // A missing or placeholder identity fails the answer, naming its path.
    for bad in [
        r#"{"code":0,"data":[{"order_id":"1"},{"order_id":""}]}"#,
        r#"{"code":0,"data":[{"order_id":"1"},{"order_id":null}]}"#,
    ] {
        match decode_swap::<OpenOrdersRequest>(bad) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, "data[1].order_id"),
            other => panic!("{other:?}"),
        }
    }
    match decode_swap::<OpenOrdersRequest>(r#"{"code":0,"data":[{"state":0}]}"#) {
        Err(Error::Decode { message, .. }) => assert!(message.contains("order_id"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn history_trades_decodes_fills() {
    let body = format!(
        r#"{{"code":0,"data":[
        {{"trade_id":"1590873693003714999","instrument_id":"BTCUSDTPERP","margin_mode":"isolated",
          "order_id":"{BIG_ID}","price":"20000.5","size":"2","fee":"0.004","close_profit":"1.25",
          "leverage":"10","type":3,"order_type":4,"trade_type":1,"match_role":2,
          "trade_time":1668134664828}},
        {{"trade_id":{HUGE_ID},"instrument_id":"","margin_mode":"-",
          "order_id":{BIG_ID},"price":20000,"size":0.5,"fee":"","close_profit":"",
          "leverage":"","type":"1","order_type":"13","trade_type":4,"match_role":"maker",
          "trade_time":"1668134664900"}},
        {{"trade_id":"7","order_id":"","trade_type":"force_close","match_role":"taker"}}
    ]}}"#
    );
    let (fills, unreadable) = decode_report::<HistoryTradesRequest>(&body);
    assert!(unreadable.is_empty(), "{unreadable:?}");
    assert_eq!(
        fills[0],
        answer!(Fill {
            trade_id: "1590873693003714999".to_owned(),
            instrument_id: Some(I.to_owned()),
            margin_mode: Some(MarginMode::Isolated),
            order_id: Some(BIG_ID.to_owned()),
            price: Some(d("20000.5")),
            size: Some(d("2")),
            fee: Some(d("0.004")),
            close_profit: Some(d("1.25")),
            leverage: Some(d("10")),
            side: Some(OrderSide::CloseLong),
            order_type: Some(OrderType::IocCustomPrice),
            trade_type: Some(TradeType::ForceClose),
            match_role: Some(MatchRole::Maker),
            trade_time: Some(TimestampMillis(1_668_134_664_828)),
        })
    );
    let f = &fills[1];
    assert_eq!(f.trade_id, HUGE_ID);
    assert_eq!(f.order_id.as_deref(), Some(BIG_ID));
    assert_eq!(f.instrument_id, None);
    assert_eq!(f.margin_mode, None);
    assert_eq!(f.price, Some(d("20000")));
    assert_eq!(f.size, Some(d("0.5")));
    assert_eq!(f.fee, None);
    assert_eq!(f.close_profit, None);
    assert_eq!(f.leverage, None);
    assert_eq!(f.side, Some(OrderSide::OpenLong));
    assert_eq!(f.order_type, Some(OrderType::IocOptimal20));
    assert_eq!(f.trade_type, Some(TradeType::Unknown(4)));
    assert_eq!(f.match_role, Some(MatchRole::Maker));
    assert_eq!(f.trade_time, Some(TimestampMillis(1_668_134_664_900)));
    let v = serde_json::to_value(f).unwrap();
    assert_eq!(v["trade_id"], HUGE_ID);
    assert_eq!(v["type"], 1);
    assert_eq!(v["trade_type"], 4);
    // A fill without its order id or time is kept: only `trade_id` is required.
    let f = &fills[2];
    assert_eq!(f.trade_id, "7");
    assert_eq!(f.order_id, None);
    assert_eq!(f.trade_time, None);
    assert_eq!(f.trade_type, Some(TradeType::ForceClose));
    assert_eq!(f.match_role, Some(MatchRole::Taker));
    // The trade id is required.
    match decode_swap::<HistoryTradesRequest>(
        r#"{"code":0,"data":[{"trade_id":"-","order_id":"1"}]}"#,
    ) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data[0].trade_id"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn trade_api_errors_are_typed() {
    let e = decode_swap::<BatchPlaceOrdersRequest>(r#"{"code":401014,"msg":"batch over 20"}"#)
        .unwrap_err();
    match &e {
        Error::Api(a) => {
            assert_eq!(a.code, ApiCode::Swap(SwapCode::OrderCountOverLimit));
            assert_eq!(a.message.as_deref(), Some("batch over 20"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.api_code(), Some(401014));
    assert!(!e.is_retryable());
    for (code, want) in [
        (401003, SwapCode::NotEnoughMoney),
        (401006, SwapCode::InstrumentMinSizeLimit),
        (401008, SwapCode::MarketTradingNotSupport),
        (401009, SwapCode::MarketNoOrder),
    ] {
        match decode_status::<PlaceOrderRequest>(200, &format!(r#"{{"code":{code}}}"#)) {
            Err(Error::Api(a)) => assert_eq!(a.code, ApiCode::Swap(want)),
            other => panic!("{code}: {other:?}"),
        }
    }
    let e = decode_status::<OrderInfoRequest>(400, r#"{"code":400002}"#).unwrap_err();
    assert_eq!(e.api_code(), Some(400002));
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
}

#[test]
fn trade_endpoints_are_signed_and_declare_their_idempotency() {
    use digifinex_core::Method;
    /// `idempotent`: the endpoint only reads (retried; failures are ordinary errors).
    fn check<E: Endpoint>(method: Method, path: &str, idempotent: bool) {
        assert_eq!(E::META.method, method, "{path}");
        assert_eq!(E::META.path, path);
        assert!(E::META.signed, "{path}");
        assert_eq!(E::META.idempotent, idempotent, "{path}");
        assert_eq!(E::META.success_code, 0);
        let (entry, _) = digifinex_core::catalog::find(method.as_str(), path).unwrap();
        assert_eq!(entry.meta, E::META);
    }
    check::<PlaceOrderRequest>(Method::Post, "/swap/v2/trade/order_place", false);
    check::<CancelOrderRequest>(Method::Post, "/swap/v2/trade/cancel_order", false);
    check::<BatchPlaceOrdersRequest>(Method::Post, "/swap/v2/trade/batch_order", false);
    check::<BatchCancelOrdersRequest>(Method::Post, "/swap/v2/trade/batch_cancel_order", false);
    check::<OpenOrdersRequest>(Method::Get, "/swap/v2/trade/open_orders", true);
    check::<OrderInfoRequest>(Method::Get, "/swap/v2/trade/order_info", true);
    check::<HistoryOrdersRequest>(Method::Get, "/swap/v2/trade/history_orders", true);
    check::<HistoryTradesRequest>(Method::Get, "/swap/v2/trade/history_trades", true);
}
