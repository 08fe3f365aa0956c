mod support;
use support::*;

use digifinex_core::catalog::{self, ParamMap};
use digifinex_core::spot::{
    BatchPlaceOrdersRequest, CancelOrdersRequest, CurrentOrdersRequest, LimitOrder, Market,
    MarketOrder, MyTradesRequest, OrderDetailRequest, OrderHistoryRequest, OrderKind, OrderSide,
    OrderSpec, OrderStatus, OrderType, OrdersRequest, PlaceOrderRequest,
};
use digifinex_core::{
    Amount, Config, Error, ErrorKind, Pair, Price, TimestampSecs, ValidationKind,
};

const BASE: &str = "https://openapi.digifinex.com/v3";
const NOW_SECS: i64 = 1_700_000_000;
const DAY: i64 = 86_400;

/// An exact amount.
fn amt(s: &str) -> Amount {
    s.parse().unwrap()
}

/// An exact price.
fn px(s: &str) -> Price {
    s.parse().unwrap()
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("id{i}")).collect()
}

// ---------------------------------------------------------------------------------------------
// Request shapes

#[test]
fn orders_request_shape_both_markets() {
    assert_signed_get(
        &OrdersRequest::new(Market::Spot, ["a1", "b2", "c3"]),
        &format!("{BASE}/spot/order?market=spot&order_id=a1%2Cb2%2Cc3"),
    );
    assert_signed_get(
        &OrdersRequest::new(
            Market::Margin,
            vec!["dd3164b333a4afa9d5730bb87f6db8b3".to_owned()],
        ),
        &format!("{BASE}/margin/order?market=margin&order_id=dd3164b333a4afa9d5730bb87f6db8b3"),
    );
    assert_signed_get(
        &OrdersRequest::new(Market::Spot, ids(20)),
        &format!(
            "{BASE}/spot/order?market=spot&order_id={}",
            ids(20).join("%2C")
        ),
    );
}

#[test]
fn order_detail_shape_both_markets() {
    assert_signed_get(
        &OrderDetailRequest::new(Market::Spot, "abc"),
        &format!("{BASE}/spot/order/detail?market=spot&order_id=abc"),
    );
    assert_signed_get(
        &OrderDetailRequest::new(Market::Margin, "abc"),
        &format!("{BASE}/margin/order/detail?market=margin&order_id=abc"),
    );
}

#[test]
fn current_orders_shape() {
    assert_signed_get(
        &CurrentOrdersRequest::new(Market::Spot),
        &format!("{BASE}/spot/order/current?market=spot"),
    );
    assert_signed_get(
        &CurrentOrdersRequest::new(Market::Margin).symbol("btc_usdt"),
        &format!("{BASE}/margin/order/current?market=margin&symbol=btc_usdt"),
    );
}

#[test]
fn order_history_shape() {
    assert_signed_get(
        &OrderHistoryRequest::new(Market::Spot),
        &format!("{BASE}/spot/order/history?market=spot"),
    );
    let start = NOW_SECS - 3 * DAY;
    assert_signed_get(
        &OrderHistoryRequest::new(Market::Margin)
            .end_time(TimestampSecs(NOW_SECS))
            .limit(100)
            .start_time(TimestampSecs(start))
            .symbol("eth_usdt"),
        &format!(
            "{BASE}/margin/order/history?market=margin&symbol=eth_usdt&limit=100&start_time={start}&end_time={NOW_SECS}"
        ),
    );
}

#[test]
fn my_trades_shape() {
    assert_signed_get(
        &MyTradesRequest::new(Market::Spot),
        &format!("{BASE}/spot/mytrades?market=spot"),
    );
    let start = NOW_SECS - 30 * DAY;
    assert_signed_get(
        &MyTradesRequest::new(Market::Margin)
            .symbol("btc_usdt")
            .limit(500)
            .start_time(TimestampSecs(start))
            .end_time(TimestampSecs(start)),
        &format!(
            "{BASE}/margin/mytrades?market=margin&symbol=btc_usdt&limit=500&start_time={start}&end_time={start}"
        ),
    );
}

#[test]
fn place_limit_order_shape() {
    assert_signed_post(
        &PlaceOrderRequest::new(
            Market::Spot,
            "btc_usdt",
            LimitOrder::buy(amt("0.01"), px("30000")),
        ),
        &format!("{BASE}/spot/order/new"),
        "market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy",
    );
    assert_signed_post(
        &PlaceOrderRequest::new(
            Market::Margin,
            "eth_usdt",
            LimitOrder::sell(amt("12.50"), px("0.0000001")).post_only(),
        ),
        &format!("{BASE}/margin/order/new"),
        "market=margin&symbol=eth_usdt&price=0.0000001&amount=12.50&type=sell&post_only=1",
    );
}

#[test]
fn place_market_order_shape() {
    assert_signed_post(
        &PlaceOrderRequest::new(Market::Spot, "btc_usdt", MarketOrder::buy(amt("10"))),
        &format!("{BASE}/spot/order/new"),
        "market=spot&symbol=btc_usdt&amount=10&type=buy_market",
    );
    assert_signed_post(
        &PlaceOrderRequest::new(Market::Margin, "btc_usdt", MarketOrder::sell(amt("0.5"))),
        &format!("{BASE}/margin/order/new"),
        "market=margin&symbol=btc_usdt&amount=0.5&type=sell_market",
    );
}

#[test]
fn margin_order_new_exact_signed_request_with_market_parameter() {
    // The expected ACCESS-SIGN was computed once, independently of this crate, with Python:
    //   hmac.new(b"test-secret",
    //            b"market=margin&symbol=btc_usdt&price=30000&amount=0.01&type=buy&post_only=1",
    //            hashlib.sha256).hexdigest()
    const SIGN: &str = "0e5014b44c1790e6b153a64d3f5a9c1baf026b88a64e530cec934a1660f542c4";
    const BODY: &str = "market=margin&symbol=btc_usdt&price=30000&amount=0.01&type=buy&post_only=1";
    let typed = build_req(&PlaceOrderRequest::new(
        Market::Margin,
        "btc_usdt",
        LimitOrder::buy(amt("0.01"), px("30000")).post_only(),
    ))
    .unwrap();
    assert_eq!(
        render(&typed),
        format!(
            "POST {BASE}/margin/order/new\ncontent-type: application/x-www-form-urlencoded\n\
             access-key: {KEY}\naccess-sign: {SIGN}\naccess-timestamp: 1700000000\n\n{BODY}"
        )
    );
    assert_eq!(typed.body().as_slice(), BODY.as_bytes());
    // The catalog builds the same bytes, with or without an explicit `market` equal to the path.
    for extra in [&[][..], &[("market", "margin")][..]] {
        let mut params = vec![
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "30000"),
            ("amount", "0.01"),
            ("post_only", "1"),
        ];
        params.extend_from_slice(extra);
        let got = from_catalog("POST", "/v3/margin/order/new", &params).unwrap();
        assert_eq!(got, render(&typed), "{extra:?}");
    }
}

#[test]
fn spot_order_query_exact_signed_request_with_market_parameter() {
    // The expected ACCESS-SIGN was computed once, independently of this crate, with Python:
    //   hmac.new(b"test-secret", b"market=spot&order_id=a1%2Cb2", hashlib.sha256).hexdigest()
    const SIGN: &str = "3af07e828fb8abe826b382b38609bdb9ba55caee9309dea939992c9c233019ff";
    let req = build_req(&OrdersRequest::new(Market::Spot, ["a1", "b2"])).unwrap();
    assert_eq!(
        render(&req),
        format!(
            "GET {BASE}/spot/order?market=spot&order_id=a1%2Cb2\naccess-key: {KEY}\n\
             access-sign: {SIGN}\naccess-timestamp: 1700000000\n\n"
        )
    );
}

/// The parameter text a catalog build of `METHOD PATH` with `params` transmits: the query of a
/// GET, the body of a POST.
fn sent_params(method: &str, path: &str, params: &[(&str, &str)]) -> String {
    let (entry, vars) = catalog::find(method, path).expect("endpoint in catalog");
    let mut map = ParamMap::new();
    for (k, v) in vars {
        map.insert_text(k, v);
    }
    for (k, v) in params {
        map.insert_text(*k, *v);
    }
    let req = (entry.build)(map, &Config::default(), Some(&creds()), NOW).unwrap();
    if method == "GET" {
        req.uri().query().unwrap_or("").to_owned()
    } else {
        String::from_utf8(req.body().clone()).unwrap()
    }
}

/// Method, path after `/v3/{market}/`, parameters given, and the parameter text expected after
/// `market=...`.
type MarketCase<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], String);

#[test]
fn every_market_endpoint_sends_market_first_and_nothing_unset() {
    let list = r#"[{"type":"buy_market","amount":"10"}]"#;
    let list_enc = "%5B%7B%22type%22%3A%22buy_market%22%2C%22amount%22%3A%2210%22%7D%5D";
    let cases: &[MarketCase] = &[
        ("GET", "financelog", &[], String::new()),
        ("GET", "order", &[("order_id", "a")], "&order_id=a".into()),
        (
            "GET",
            "order/detail",
            &[("order_id", "a")],
            "&order_id=a".into(),
        ),
        ("GET", "order/current", &[], String::new()),
        ("GET", "order/history", &[], String::new()),
        ("GET", "mytrades", &[], String::new()),
        (
            "POST",
            "order/new",
            &[
                ("symbol", "btc_usdt"),
                ("type", "sell_market"),
                ("amount", "1"),
            ],
            "&symbol=btc_usdt&amount=1&type=sell_market".into(),
        ),
        (
            "POST",
            "order/batch_new",
            &[("symbol", "btc_usdt"), ("list", list)],
            format!("&symbol=btc_usdt&list={list_enc}"),
        ),
        (
            "POST",
            "order/cancel",
            &[("order_id", "a")],
            "&order_id=a".into(),
        ),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (method, rest, params, tail) in cases {
        for market in ["spot", "margin"] {
            let path = format!("/v3/{market}/{rest}");
            let got = sent_params(method, &path, params);
            assert_eq!(got, format!("market={market}{tail}"), "{method} {path}");
        }
        seen.insert(format!("/{{market}}/{rest}"));
    }
    // Every `{market}` endpoint of the catalog is covered.
    let templated: std::collections::BTreeSet<String> = catalog::all()
        .filter(|e| e.meta.path.contains("{market}"))
        .map(|e| e.meta.path.to_owned())
        .collect();
    assert_eq!(seen, templated);
}

#[test]
fn market_parameter_and_path_cannot_disagree() {
    // Typed requests take the market once: path and parameter are written from that one value.
    for (market, name) in [(Market::Spot, "spot"), (Market::Margin, "margin")] {
        let req = build_req(&CancelOrdersRequest::new(market, ["a"])).unwrap();
        assert_eq!(
            req.uri().path(),
            format!("/v3/{name}/order/cancel"),
            "{name}"
        );
        assert_eq!(
            req.body().as_slice(),
            format!("market={name}&order_id=a").as_bytes()
        );
    }
    // A market other than spot or margin is refused, naming `market`.
    assert_field(from_catalog("GET", "/v3/otc/order/current", &[]), "market");
}

#[test]
fn exponent_input_is_written_in_plain_notation() {
    // A decimal parsed from `1e-07` is sent as 0.0000001, never in exponent form.
    let amount = amt("1e-07");
    assert_signed_post(
        &PlaceOrderRequest::new(Market::Spot, "btc_usdt", MarketOrder::sell(amount)),
        &format!("{BASE}/spot/order/new"),
        "market=spot&symbol=btc_usdt&amount=0.0000001&type=sell_market",
    );
}

#[test]
fn batch_place_shape_with_encoded_json() {
    let orders = vec![
        OrderSpec::from(LimitOrder::buy(amt("1"), px("0.01")).post_only()),
        MarketOrder::sell(amt("2.5")).into(),
        LimitOrder::sell(amt("0.001"), px("30000.10")).into(),
        MarketOrder::buy(amt("10")).into(),
    ];
    let json = r#"[{"type":"buy","price":"0.01","amount":"1","post_only":1},{"type":"sell_market","amount":"2.5"},{"type":"sell","price":"30000.10","amount":"0.001"},{"type":"buy_market","amount":"10"}]"#;
    let encoded = "%5B%7B%22type%22%3A%22buy%22%2C%22price%22%3A%220.01%22%2C%22amount%22%3A%221%22%2C%22post_only%22%3A1%7D%2C%7B%22type%22%3A%22sell_market%22%2C%22amount%22%3A%222.5%22%7D%2C%7B%22type%22%3A%22sell%22%2C%22price%22%3A%2230000.10%22%2C%22amount%22%3A%220.001%22%7D%2C%7B%22type%22%3A%22buy_market%22%2C%22amount%22%3A%2210%22%7D%5D";
    let body = format!("market=spot&symbol=btc_usdt&list={encoded}");
    assert_signed_post(
        &BatchPlaceOrdersRequest::new(Market::Spot, "btc_usdt", orders.clone()),
        &format!("{BASE}/spot/order/batch_new"),
        &body,
    );
    assert_signed_post(
        &BatchPlaceOrdersRequest::new(Market::Margin, "btc_usdt", orders),
        &format!("{BASE}/margin/order/batch_new"),
        &format!("market=margin&symbol=btc_usdt&list={encoded}"),
    );
    // The form value decodes back to the exact JSON text.
    let decoded: Vec<(String, String)> = form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(decoded[0], ("market".to_owned(), "spot".to_owned()));
    assert_eq!(decoded[2], ("list".to_owned(), json.to_owned()));
}

#[test]
fn batch_accepts_limit_orders_directly() {
    assert_signed_post(
        &BatchPlaceOrdersRequest::new(
            Market::Spot,
            "btc_usdt",
            [LimitOrder::buy(amt("2"), px("1"))],
        ),
        &format!("{BASE}/spot/order/batch_new"),
        "market=spot&symbol=btc_usdt&list=%5B%7B%22type%22%3A%22buy%22%2C%22price%22%3A%221%22%2C%22amount%22%3A%222%22%7D%5D",
    );
}

#[test]
fn cancel_shape_both_markets() {
    assert_signed_post(
        &CancelOrdersRequest::new(Market::Spot, ["a", "b"]),
        &format!("{BASE}/spot/order/cancel"),
        "market=spot&order_id=a%2Cb",
    );
    assert_signed_post(
        &CancelOrdersRequest::new(Market::Margin, ["a"]),
        &format!("{BASE}/margin/order/cancel"),
        "market=margin&order_id=a",
    );
}

#[test]
fn order_spec_accessors() {
    let l = OrderSpec::from(LimitOrder::sell(amt("3"), px("2")).post_only());
    assert_eq!(l.wire_type(), "sell");
    assert_eq!(l.order_type(), OrderType::Sell);
    assert_eq!(l.side(), OrderSide::Sell);
    assert_eq!(l.price(), Some(px("2")));
    assert_eq!(l.amount(), amt("3"));
    assert!(l.is_post_only());
    let m = OrderSpec::from(MarketOrder::buy(amt("5")));
    assert_eq!(m.wire_type(), "buy_market");
    assert_eq!(m.order_type(), OrderType::BuyMarket);
    assert_eq!(m.price(), None);
    assert!(!m.is_post_only());
}

// ---------------------------------------------------------------------------------------------
// Validation

#[test]
fn order_id_count_and_form() {
    assert_invalid(
        &OrdersRequest::new(Market::Spot, Vec::<String>::new()),
        "order_id",
    );
    assert_invalid(&OrdersRequest::new(Market::Spot, ids(21)), "order_id");
    assert_invalid(&OrdersRequest::new(Market::Spot, ["a", ""]), "order_id");
    assert_invalid(&OrdersRequest::new(Market::Spot, ["a,b"]), "order_id");
    assert_invalid(
        &CancelOrdersRequest::new(Market::Spot, Vec::<String>::new()),
        "order_id",
    );
    assert_invalid(
        &CancelOrdersRequest::new(Market::Margin, ids(21)),
        "order_id",
    );
    assert_invalid(&CancelOrdersRequest::new(Market::Spot, ["x,y"]), "order_id");
    assert_invalid(&OrderDetailRequest::new(Market::Spot, ""), "order_id");
    assert_invalid(&OrderDetailRequest::new(Market::Spot, "a,b"), "order_id");
    assert!(build_req(&CancelOrdersRequest::new(Market::Spot, ids(20))).is_ok());
}

#[test]
fn limits_out_of_range() {
    assert_invalid(&OrderHistoryRequest::new(Market::Spot).limit(0), "limit");
    assert_invalid(&OrderHistoryRequest::new(Market::Spot).limit(101), "limit");
    assert!(build_req(&OrderHistoryRequest::new(Market::Spot).limit(1)).is_ok());
    assert_invalid(&MyTradesRequest::new(Market::Spot).limit(0), "limit");
    assert_invalid(&MyTradesRequest::new(Market::Spot).limit(501), "limit");
    assert!(build_req(&MyTradesRequest::new(Market::Spot).limit(500)).is_ok());
}

#[test]
fn time_window_rules() {
    let too_old = NOW_SECS - 30 * DAY - 1;
    assert_invalid(
        &OrderHistoryRequest::new(Market::Spot).start_time(TimestampSecs(too_old)),
        "start_time",
    );
    assert_invalid(
        &MyTradesRequest::new(Market::Margin).start_time(TimestampSecs(too_old)),
        "start_time",
    );
    assert_invalid(
        &OrderHistoryRequest::new(Market::Spot).end_time(TimestampSecs(too_old)),
        "end_time",
    );
    assert_invalid(
        &OrderHistoryRequest::new(Market::Spot)
            .start_time(TimestampSecs(NOW_SECS - DAY))
            .end_time(TimestampSecs(NOW_SECS - 2 * DAY)),
        "end_time",
    );
    assert_invalid(
        &MyTradesRequest::new(Market::Spot)
            .start_time(TimestampSecs(NOW_SECS))
            .end_time(TimestampSecs(NOW_SECS - 1)),
        "end_time",
    );
    // Exactly 30 days back is allowed.
    assert!(build_req(
        &MyTradesRequest::new(Market::Spot).start_time(TimestampSecs(NOW_SECS - 30 * DAY))
    )
    .is_ok());
}

#[test]
fn bad_symbols() {
    assert_invalid(
        &PlaceOrderRequest::new(Market::Spot, "btcusdt", MarketOrder::buy(amt("1"))),
        "symbol",
    );
    assert_invalid(
        &BatchPlaceOrdersRequest::new(Market::Spot, "btc-usdt", [MarketOrder::buy(amt("1"))]),
        "symbol",
    );
    assert_invalid(
        &CurrentOrdersRequest::new(Market::Spot).symbol("btc"),
        "symbol",
    );
    assert_invalid(
        &OrderHistoryRequest::new(Market::Spot).symbol("_usdt"),
        "symbol",
    );
    assert_invalid(&MyTradesRequest::new(Market::Spot).symbol("btc_"), "symbol");
}

#[test]
fn non_positive_price_and_amount() {
    let place = |o: OrderSpec| PlaceOrderRequest::new(Market::Spot, "btc_usdt", o);
    assert_invalid(&place(LimitOrder::buy(amt("1"), px("0")).into()), "price");
    assert_invalid(&place(LimitOrder::sell(amt("1"), px("-1")).into()), "price");
    assert_invalid(&place(LimitOrder::buy(amt("0"), px("1")).into()), "amount");
    assert_invalid(
        &place(LimitOrder::buy(amt("-0.1"), px("1")).into()),
        "amount",
    );
    assert_invalid(&place(MarketOrder::buy(amt("0")).into()), "amount");
    assert_invalid(&place(MarketOrder::sell(amt("-2")).into()), "amount");
}

#[test]
fn batch_count_and_element_fields() {
    let ok = || OrderSpec::from(LimitOrder::buy(amt("1"), px("1")));
    assert_invalid(
        &BatchPlaceOrdersRequest::new(Market::Spot, "btc_usdt", Vec::<OrderSpec>::new()),
        "list",
    );
    assert_invalid(
        &BatchPlaceOrdersRequest::new(Market::Spot, "btc_usdt", vec![ok(); 11]),
        "list",
    );
    assert!(build_req(&BatchPlaceOrdersRequest::new(
        Market::Spot,
        "btc_usdt",
        vec![ok(); 10]
    ))
    .is_ok());
    let mut orders = vec![ok(); 3];
    orders.push(LimitOrder::sell(amt("1"), px("0")).into());
    assert_invalid(
        &BatchPlaceOrdersRequest::new(Market::Spot, "btc_usdt", orders),
        "list[3].price",
    );
    assert_invalid(
        &BatchPlaceOrdersRequest::new(
            Market::Margin,
            "btc_usdt",
            [OrderSpec::from(MarketOrder::buy(amt("0"))), ok()],
        ),
        "list[0].amount",
    );
}

#[test]
fn validation_error_message_names_field() {
    let e = build_req(&OrdersRequest::new(Market::Spot, ids(21))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.to_string().contains("order_id"), "{e}");
    assert!(e.to_string().contains("21"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Decoding

const ORDER: &str = r#"{"symbol":"BTC_USDT","order_id":"dd3164b333a4afa9d5730bb87f6db8b3","created_date":1562303547,"finished_date":0,"price":0.1,"avg_price":0,"amount":1,"cash_amount":0,"executed_amount":0,"status":0,"type":"buy","kind":"spot"}"#;

/// Decodes through the catalog, returning the rendered model and the JSON paths of the optional
/// values that could not be read.
fn decode_report(method: &str, path: &str, body: &str) -> (serde_json::Value, Vec<String>) {
    let (entry, _) = catalog::find(method, path).expect("catalog entry");
    let (v, unreadable) =
        (entry.decode_report)(200, &http::HeaderMap::new(), body.as_bytes()).unwrap();
    (v, unreadable.into_iter().map(|u| u.path).collect())
}

fn decode_path(e: Error) -> String {
    match e {
        Error::Decode { path, .. } => path,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[test]
fn decode_orders_spec_shape() {
    let body = format!(r#"{{"code":0,"data":[{ORDER}]}}"#);
    let out = decode::<OrdersRequest>(&body).unwrap();
    assert_eq!(out.data.len(), 1);
    let o = &out.data[0];
    assert_eq!(o.order_id, "dd3164b333a4afa9d5730bb87f6db8b3");
    // Upper case on the wire, one pair in any case.
    let symbol = o.symbol.as_ref().unwrap();
    assert_eq!(symbol.as_str(), "btc_usdt");
    assert_eq!(*symbol, "BTC_USDT");
    assert_eq!(*symbol, Pair::new("btc_usdt"));
    assert_eq!(o.created_date, Some(TimestampSecs(1_562_303_547)));
    assert_eq!(o.finished_date, None);
    assert_eq!(o.price, Some(d("0.1")));
    assert_eq!(o.amount, Some(d("1")));
    // Zeros the server sends are kept.
    assert_eq!(o.cash_amount, Some(d("0")));
    assert_eq!(o.executed_amount, Some(d("0")));
    assert_eq!(o.avg_price, Some(d("0")));
    assert_eq!(o.status, Some(OrderStatus::NotExecuted));
    assert!(o.status.as_ref().unwrap().is_open());
    assert_eq!(o.is_open(), Some(true));
    assert_eq!(o.order_type, Some(OrderType::Buy));
    assert_eq!(o.kind, Some(OrderKind::Spot));
    assert!(o.detail.is_empty());
    // The same shape answers current orders and history.
    assert_eq!(decode::<CurrentOrdersRequest>(&body).unwrap(), out);
    assert_eq!(decode::<OrderHistoryRequest>(&body).unwrap(), out);
}

#[test]
fn decode_order_variants() {
    let body = r#"{"code":0,"data":[{"symbol":"eth_usdt","order_id":"a1","created_date":"1562303547","finished_date":1562303600,"price":"25.999999999999996","avg_price":"","amount":"1e-07","cash_amount":null,"executed_amount":"0.5","status":"4","type":"sell_market","kind":"margin","extra":{"x":[1]}},{"order_id":7,"created_date":1,"status":9,"type":"stop_limit","kind":"otc"}]}"#;
    let out = decode::<OrdersRequest>(body).unwrap();
    let a = &out.data[0];
    assert_eq!(a.created_date, Some(TimestampSecs(1_562_303_547)));
    assert_eq!(a.finished_date, Some(TimestampSecs(1_562_303_600)));
    assert_eq!(a.price.unwrap().to_string(), "25.999999999999996");
    assert_eq!(a.avg_price, None);
    assert_eq!(a.amount.unwrap().to_string(), "0.0000001");
    assert_eq!(a.cash_amount, None);
    assert_eq!(a.executed_amount, Some(d("0.5")));
    assert_eq!(a.status, Some(OrderStatus::CancelledPartially));
    assert_eq!(a.is_open(), Some(false));
    assert_eq!(a.order_type, Some(OrderType::SellMarket));
    assert_eq!(a.kind, Some(OrderKind::Margin));
    let b = &out.data[1];
    assert_eq!(b.order_id, "7");
    assert_eq!(b.symbol, None);
    assert_eq!(b.finished_date, None);
    assert_eq!(b.price, None);
    assert_eq!(b.amount, None);
    // Unknown codes and words are kept.
    assert_eq!(b.status, Some(OrderStatus::Unknown(9)));
    assert_eq!(b.status.as_ref().and_then(OrderStatus::code), Some(9));
    assert_eq!(b.is_open(), Some(false));
    assert_eq!(b.order_type, Some(OrderType::Other("stop_limit".into())));
    assert_eq!(b.kind, Some(OrderKind::Other("otc".into())));
}

#[test]
fn order_status_reads_codes_and_words() {
    for (wire, want) in [
        ("0", OrderStatus::NotExecuted),
        ("\"1\"", OrderStatus::PartiallyExecuted),
        ("2.0", OrderStatus::FullyExecuted),
        // Words read by the variant's name in any case or separator style.
        ("\"PARTIALLY_EXECUTED\"", OrderStatus::PartiallyExecuted),
        ("\"not executed\"", OrderStatus::NotExecuted),
        ("\"fully-executed\"", OrderStatus::FullyExecuted),
        ("\"Cancelled\"", OrderStatus::Cancelled),
        ("\"cancelled_partially\"", OrderStatus::CancelledPartially),
        // Unknown codes and words are kept, and are not open.
        ("17", OrderStatus::Unknown(17)),
        ("\"filled\"", OrderStatus::Other("filled".into())),
    ] {
        let body = format!(r#"{{"code":0,"data":[{{"order_id":"x","status":{wire}}}]}}"#);
        let out = decode::<OrdersRequest>(&body).unwrap();
        assert_eq!(out.data[0].status.as_ref(), Some(&want), "{wire}");
    }
    assert!(OrderStatus::PartiallyExecuted.is_open());
    assert!(!OrderStatus::FullyExecuted.is_open());
    assert!(!OrderStatus::Other("open".into()).is_open());
    assert!(!OrderStatus::Unknown(0).is_open());
}

#[test]
fn decode_order_placeholders_are_absent() {
    for placeholder in [r#""""#, r#""-""#, "null", r#""--""#] {
        let order = format!(
            r#"{{"order_id":"a","symbol":{p},"created_date":{p},"finished_date":{p},"price":{p},"amount":{p},"cash_amount":{p},"executed_amount":{p},"avg_price":{p},"status":{p},"type":{p},"kind":{p},"detail":{p}}}"#,
            p = placeholder
        );
        let body = format!(r#"{{"code":0,"data":[{order}]}}"#);
        let (v, unreadable) = decode_report("GET", "/v3/spot/order", &body);
        assert!(unreadable.is_empty(), "{placeholder}: {unreadable:?}");
        let o = &decode::<OrdersRequest>(&body).unwrap().data[0];
        assert_eq!(o.order_id, "a");
        assert_eq!(
            (o.symbol.as_ref(), o.created_date, o.finished_date),
            (None, None, None),
            "{placeholder}"
        );
        assert_eq!(
            (
                o.price,
                o.amount,
                o.cash_amount,
                o.executed_amount,
                o.avg_price
            ),
            (None, None, None, None, None),
            "{placeholder}"
        );
        assert_eq!(
            (&o.status, &o.order_type, &o.kind),
            (&None, &None, &None),
            "{placeholder}"
        );
        assert!(o.detail.is_empty());
        assert_eq!(v["data"][0]["price"], serde_json::Value::Null);
    }
    // An order with nothing but its id is an order.
    let o = &decode::<OrdersRequest>(r#"{"code":0,"data":[{"order_id":"only"}]}"#)
        .unwrap()
        .data[0];
    assert_eq!(o.order_id, "only");
    assert_eq!(o.is_open(), None);
}

#[test]
fn decode_order_unreadable_values_are_absent_and_reported() {
    let (v, unreadable) = decode_report(
        "GET",
        "/v3/spot/order/history",
        r#"{"code":0,"data":[{"order_id":"a","price":"abc","created_date":"soon","finished_date":{"t":1},"status":[2],"symbol":12,"detail":7},{"order_id":"b","amount":"2"}]}"#,
    );
    assert_eq!(
        unreadable,
        vec![
            "data[0].price",
            "data[0].created_date",
            "data[0].finished_date",
            "data[0].status",
            "data[0].symbol",
            "data[0].detail"
        ]
    );
    assert_eq!(v["data"][0]["order_id"], "a");
    assert_eq!(v["data"][0]["symbol"], serde_json::Value::Null);
    assert_eq!(v["data"][1]["amount"], "2");
}

#[test]
fn decode_order_id_is_required() {
    for (order, path) in [
        (r#"{"symbol":"btc_usdt"}"#, "data[1]"),
        (r#"{"order_id":""}"#, "data[1].order_id"),
        (r#"{"order_id":"-"}"#, "data[1].order_id"),
        (r#"{"order_id":null}"#, "data[1].order_id"),
        (r#"{"order_id":{"x":1}}"#, "data[1].order_id"),
        (r#"{"order_id":1.5}"#, "data[1].order_id"),
    ] {
        let body = format!(r#"{{"code":0,"data":[{ORDER},{order}]}}"#);
        let got = decode_path(decode::<OrdersRequest>(&body).unwrap_err());
        assert!(got.starts_with(path), "{order}: {got}");
    }
}

#[test]
fn decode_empty_or_null_lists() {
    for body in [
        r#"{"code":0,"data":[]}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0,"data":""}"#,
        r#"{"code":0}"#,
    ] {
        assert!(
            decode::<OrdersRequest>(body).unwrap().data.is_empty(),
            "{body}"
        );
    }
    for body in [
        r#"{"code":0,"list":null}"#,
        r#"{"code":0,"list":"-"}"#,
        r#"{"code":0}"#,
    ] {
        assert!(
            decode::<MyTradesRequest>(body).unwrap().list.is_empty(),
            "{body}"
        );
    }
}

fn detail_body(detail: &str) -> String {
    let order = ORDER.trim_end_matches('}');
    format!(r#"{{"code":0,"data":{order},"detail":{detail}}}}}"#)
}

#[test]
fn decode_detail_object_with_int_tid() {
    let out = decode::<OrderDetailRequest>(&detail_body(
        r#"{"tid":33,"date":1562303547,"executed_amount":1,"executed_price":0.1}"#,
    ))
    .unwrap();
    assert_eq!(out.data.order_id, "dd3164b333a4afa9d5730bb87f6db8b3");
    assert_eq!(out.data.detail.len(), 1);
    let f = &out.data.detail[0];
    assert_eq!(f.tid, "33");
    assert_eq!(f.date, Some(TimestampSecs(1_562_303_547)));
    assert_eq!(f.executed_amount, Some(d("1")));
    assert_eq!(f.executed_price, Some(d("0.1")));
}

#[test]
fn decode_detail_array_with_string_tid() {
    let out = decode::<OrderDetailRequest>(&detail_body(
        r#"[{"tid":"t-1","date":"1562303547","executed_amount":"0.4","executed_price":"30000.5"},{"tid":2,"date":1562303548,"executed_amount":0.6,"executed_price":30001,"fee":1},{"tid":3,"date":"","executed_amount":"-","executed_price":null}]"#,
    ))
    .unwrap();
    let fills = &out.data.detail;
    assert_eq!(fills.len(), 3);
    assert_eq!(fills[0].tid, "t-1");
    assert_eq!(fills[0].executed_amount, Some(d("0.4")));
    assert_eq!(fills[0].executed_price, Some(d("30000.5")));
    assert_eq!(fills[1].tid, "2");
    assert_eq!(fills[1].date, Some(TimestampSecs(1_562_303_548)));
    // Placeholders in a fill's optional fields are absent.
    assert_eq!(fills[2].tid, "3");
    assert_eq!(
        (
            fills[2].date,
            fills[2].executed_amount,
            fills[2].executed_price
        ),
        (None, None, None)
    );
}

#[test]
fn decode_detail_absent_forms() {
    for detail in ["null", "{}", "[]", r#""""#, r#""-""#, r#"{"tid":null}"#] {
        let out = decode::<OrderDetailRequest>(&detail_body(detail)).unwrap();
        assert!(out.data.detail.is_empty(), "{detail}");
    }
    let without = format!(r#"{{"code":0,"data":{ORDER}}}"#);
    assert!(decode::<OrderDetailRequest>(&without)
        .unwrap()
        .data
        .detail
        .is_empty());
}

#[test]
fn decode_detail_fill_without_tid_names_path() {
    let e = decode::<OrderDetailRequest>(&detail_body(r#"{"date":1,"executed_amount":1}"#))
        .unwrap_err();
    match e {
        Error::Decode { path, message, .. } => {
            assert!(path.starts_with("data"), "{path}");
            assert!(message.contains("tid"), "{message}");
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    for fill in [r#"{"date":1}"#, r#"{"tid":"","date":1}"#, r#"{"tid":null}"#] {
        let e = decode::<OrderDetailRequest>(&detail_body(&format!("[{fill}]"))).unwrap_err();
        assert!(decode_path(e).starts_with("data.detail[0]"), "{fill}");
    }
    let e = decode::<OrderDetailRequest>(&detail_body(r#"{"tid":{"x":1},"date":1}"#)).unwrap_err();
    assert!(decode_path(e).starts_with("data.detail"));
}

#[test]
fn decode_detail_without_data_is_an_error() {
    for body in [r#"{"code":0}"#, r#"{"code":0,"data":null}"#] {
        let e = decode::<OrderDetailRequest>(body).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Decode, "{body}");
    }
}

#[test]
fn decode_my_trades() {
    let body = r#"{"code":0,"list":[{"timestamp":1562303547,"is_maker":true,"id":"1562303547123","amount":0.1,"fee":0.00002,"fee_currency":"btc","price":7000.5,"side":"buy","order_id":"dd3164b333a4afa9d5730bb87f6db8b3","symbol":"BTC_USDT"},{"timestamp":"1562303548","is_maker":0,"id":98765,"amount":"2","fee":"","fee_currency":"usdt","price":"1e-07","side":"sell_market","order_id":"x","symbol":"btc_usdt"},{"timestamp":1,"is_maker":"1","id":1,"amount":1,"price":1,"side":"short","order_id":"y"},{"id":2}]}"#;
    let out = decode::<MyTradesRequest>(body).unwrap();
    assert_eq!(out.list.len(), 4);
    let a = &out.list[0];
    assert_eq!(a.id, "1562303547123");
    assert_eq!(a.timestamp, Some(TimestampSecs(1_562_303_547)));
    assert_eq!(a.is_maker, Some(true));
    assert_eq!(a.amount, Some(d("0.1")));
    assert_eq!(a.fee.unwrap().to_string(), "0.00002");
    assert_eq!(a.fee_currency.as_deref(), Some("btc"));
    assert_eq!(a.price, Some(d("7000.5")));
    assert_eq!(a.side, Some(OrderType::Buy));
    assert_eq!(
        a.order_id.as_deref(),
        Some("dd3164b333a4afa9d5730bb87f6db8b3")
    );
    assert_eq!(a.symbol, Some(Pair::new("btc_usdt")));
    let b = &out.list[1];
    assert_eq!(b.id, "98765");
    assert_eq!(b.is_maker, Some(false));
    assert_eq!(b.fee, None);
    assert_eq!(b.price.unwrap().to_string(), "0.0000001");
    assert_eq!(b.side, Some(OrderType::SellMarket));
    assert_eq!(b.symbol, a.symbol);
    assert_eq!(out.list[2].is_maker, Some(true));
    assert_eq!(out.list[2].side, Some(OrderType::Other("short".into())));
    // A trade with nothing but its id is a trade; an absent flag is unknown, not false.
    let d4 = &out.list[3];
    assert_eq!(d4.id, "2");
    assert_eq!(d4.is_maker, None);
    assert_eq!(d4.order_id, None);
    assert_eq!(d4.timestamp, None);
    assert_eq!(d4.price, None);
}

#[test]
fn decode_my_trades_placeholders_and_unreadable_values() {
    let (v, unreadable) = decode_report(
        "GET",
        "/v3/margin/mytrades",
        r#"{"code":0,"list":[{"id":1,"order_id":"-","symbol":"","price":"--","amount":null,"fee":"-","fee_currency":"","timestamp":"","side":"","is_maker":""},{"id":2,"price":"x","is_maker":"maybe","timestamp":{"t":1},"order_id":[1]}]}"#,
    );
    assert_eq!(
        unreadable,
        vec![
            "list[1].price",
            "list[1].is_maker",
            "list[1].timestamp",
            "list[1].order_id"
        ]
    );
    let t = &v["list"][0];
    for field in [
        "order_id",
        "symbol",
        "price",
        "amount",
        "fee",
        "fee_currency",
        "timestamp",
        "side",
        "is_maker",
    ] {
        assert_eq!(t[field], serde_json::Value::Null, "{field}");
    }
    assert_eq!(t["id"], "1");
}

#[test]
fn decode_my_trades_id_is_required() {
    for trade in [
        r#"{"price":1}"#,
        r#"{"id":""}"#,
        r#"{"id":null}"#,
        r#"{"id":"-"}"#,
    ] {
        let body = format!(r#"{{"code":0,"list":[{{"id":1}},{trade}]}}"#);
        let got = decode_path(decode::<MyTradesRequest>(&body).unwrap_err());
        assert!(got.starts_with("list[1]"), "{trade}: {got}");
    }
}

#[test]
fn decode_placed_and_batch_placed() {
    let p =
        decode::<PlaceOrderRequest>(r#"{"code":0,"order_id":"198361cecdc65f9c8c9bb2fa68faec40"}"#)
            .unwrap();
    assert_eq!(p.order_id, "198361cecdc65f9c8c9bb2fa68faec40");
    let b =
        decode::<BatchPlaceOrdersRequest>(r#"{"order_ids":["a1",12345678901234567890],"code":0}"#)
            .unwrap();
    assert_eq!(
        b.order_ids,
        vec!["a1".to_owned(), "12345678901234567890".to_owned()]
    );
}

#[test]
fn placed_order_ids_are_required() {
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"order_id":""}"#,
        r#"{"code":0,"order_id":null}"#,
        r#"{"code":0,"order_id":"-"}"#,
    ] {
        let e = decode::<PlaceOrderRequest>(body).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Decode, "{body}");
    }
    for (body, path) in [
        (r#"{"code":0}"#, "."),
        (r#"{"code":0,"order_ids":null}"#, "order_ids"),
        (r#"{"code":0,"order_ids":""}"#, "order_ids"),
        (r#"{"code":0,"order_ids":["a",null]}"#, "order_ids[1]"),
        (r#"{"code":0,"order_ids":["a","-"]}"#, "order_ids[1]"),
    ] {
        let got = decode_path(decode::<BatchPlaceOrdersRequest>(body).unwrap_err());
        assert_eq!(got, path, "{body}");
    }
}

#[test]
fn decode_cancel_result() {
    let r = decode::<CancelOrdersRequest>(
        r#"{"code":0,"date":1589872188,"success":["a",7],"error":["b"]}"#,
    )
    .unwrap();
    assert_eq!(r.success, vec!["a".to_owned(), "7".to_owned()]);
    assert_eq!(r.error, vec!["b".to_owned()]);
    assert_eq!(r.date, Some(TimestampSecs(1_589_872_188)));
    let r = decode::<CancelOrdersRequest>(r#"{"code":0,"success":["a"]}"#).unwrap();
    assert_eq!(r.success, vec!["a".to_owned()]);
    assert!(r.error.is_empty());
    assert_eq!(r.date, None);
    let r = decode::<CancelOrdersRequest>(r#"{"code":0,"success":null,"error":null,"date":""}"#)
        .unwrap();
    assert!(r.success.is_empty() && r.error.is_empty());
    assert_eq!(r.date, None);
    // An acknowledgement without the lists decodes to empty lists.
    let r = decode::<CancelOrdersRequest>(r#"{"code":0}"#).unwrap();
    assert!(r.success.is_empty() && r.error.is_empty() && r.date.is_none());
    // A listed id that is not an id fails, naming it.
    let got = decode_path(
        decode::<CancelOrdersRequest>(r#"{"code":0,"success":["a",null],"error":[]}"#).unwrap_err(),
    );
    assert_eq!(got, "success[1]");
    // An unreadable date is absent and reported.
    let (_, unreadable) = decode_report(
        "POST",
        "/v3/spot/order/cancel",
        r#"{"code":0,"success":["a"],"date":"today"}"#,
    );
    assert_eq!(unreadable, vec!["date"]);
}

#[test]
fn api_error_order_not_found() {
    for status in [200, 400] {
        let e = decode_status::<OrderDetailRequest>(
            status,
            r#"{"code":20013,"msg":"order not found"}"#,
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        match e {
            Error::Api(a) => {
                assert_eq!(a.code.code(), 20013);
                assert_eq!(a.message.as_deref(), Some("order not found"));
                assert_eq!(a.status, status);
            }
            other => panic!("expected an API error, got {other:?}"),
        }
    }
    let e = decode::<CancelOrdersRequest>(r#"{"code":20013,"msg":"order not found"}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
}

#[test]
fn models_serialize_decimals_as_strings() {
    let body = detail_body(r#"{"tid":33,"date":1,"executed_amount":1,"executed_price":0.10}"#);
    let out = decode::<OrderDetailRequest>(&body).unwrap();
    let json = serde_json::to_string(&out).unwrap();
    assert!(json.contains(r#""type":"buy""#), "{json}");
    assert!(json.contains(r#""symbol":"btc_usdt""#), "{json}");
    assert!(json.contains(r#""price":"0.1""#), "{json}");
    assert!(json.contains(r#""status":0"#), "{json}");
    assert!(json.contains(r#""finished_date":null"#), "{json}");
    assert!(
        json.contains(
            r#""detail":[{"tid":"33","date":1,"executed_amount":"1","executed_price":"0.10"}]"#
        ),
        "{json}"
    );
}

// ---------------------------------------------------------------------------------------------
// Catalog

fn from_catalog(method: &str, path: &str, params: &[(&str, &str)]) -> Result<String, Error> {
    let (entry, vars) = catalog::find(method, path).expect("endpoint in catalog");
    let mut map = ParamMap::new();
    for (k, v) in vars {
        map.insert_text(k, v);
    }
    for (k, v) in params {
        map.insert_text(*k, *v);
    }
    (entry.build)(map, &Config::default(), Some(&creds()), NOW).map(|r| render(&r))
}

#[test]
fn catalog_margin_market_buy_matches_builder() {
    let (entry, vars) = catalog::find("POST", "/v3/margin/order/new").unwrap();
    assert_eq!(entry.meta.path, "/{market}/order/new");
    assert!(entry.meta.signed);
    assert!(!entry.meta.idempotent);
    assert_eq!(entry.meta.success_code, 0);
    assert_eq!(vars, vec![("market".to_owned(), "margin".to_owned())]);
    let mut map = ParamMap::new();
    for (k, v) in vars {
        map.insert_text(k, v);
    }
    map.insert_text("symbol", "btc_usdt");
    map.insert_text("type", "buy_market");
    map.insert_text("amount", "10");
    let got = (entry.build)(map, &Config::default(), Some(&creds()), NOW).unwrap();
    let want = build_req(&PlaceOrderRequest::new(
        Market::Margin,
        "btc_usdt",
        MarketOrder::buy(amt("10")),
    ))
    .unwrap();
    assert_eq!(render(&got), render(&want));
}

#[test]
fn catalog_has_every_order_endpoint() {
    for (method, path, template) in [
        ("GET", "/v3/spot/order", "/{market}/order"),
        ("GET", "/v3/margin/order/detail", "/{market}/order/detail"),
        ("GET", "/v3/spot/order/current", "/{market}/order/current"),
        ("GET", "/v3/spot/order/history", "/{market}/order/history"),
        ("GET", "/v3/margin/mytrades", "/{market}/mytrades"),
        ("POST", "/v3/spot/order/new", "/{market}/order/new"),
        (
            "POST",
            "/v3/spot/order/batch_new",
            "/{market}/order/batch_new",
        ),
        ("POST", "/v3/margin/order/cancel", "/{market}/order/cancel"),
    ] {
        let (entry, _) = catalog::find(method, path).unwrap_or_else(|| panic!("{method} {path}"));
        assert_eq!(entry.meta.path, template);
        assert!(entry.meta.signed, "{path}");
        assert_eq!(entry.meta.idempotent, method == "GET", "{path}");
        assert_eq!(entry.meta.success_code, 0);
    }
}

#[test]
fn catalog_builds_queries_and_limit_orders() {
    assert_eq!(
        from_catalog("GET", "/v3/spot/order", &[("order_id", "a,b")]).unwrap(),
        render(&build_req(&OrdersRequest::new(Market::Spot, ["a", "b"])).unwrap())
    );
    assert_eq!(
        from_catalog("POST", "/v3/margin/order/cancel", &[("order_id", "a,b")]).unwrap(),
        render(&build_req(&CancelOrdersRequest::new(Market::Margin, ["a", "b"])).unwrap())
    );
    assert_eq!(
        from_catalog(
            "GET",
            "/v3/spot/mytrades",
            &[
                ("symbol", "btc_usdt"),
                ("limit", "5"),
                ("end_time", "1700000000")
            ]
        )
        .unwrap(),
        render(
            &build_req(
                &MyTradesRequest::new(Market::Spot)
                    .symbol("btc_usdt")
                    .limit(5)
                    .end_time(TimestampSecs(NOW_SECS))
            )
            .unwrap()
        )
    );
    assert_eq!(
        from_catalog(
            "POST",
            "/v3/spot/order/new",
            &[
                ("symbol", "btc_usdt"),
                ("type", "sell"),
                ("price", "30000.50"),
                ("amount", "0.01"),
                ("post_only", "1")
            ]
        )
        .unwrap(),
        render(
            &build_req(&PlaceOrderRequest::new(
                Market::Spot,
                "btc_usdt",
                LimitOrder::sell(amt("0.01"), px("30000.50")).post_only()
            ))
            .unwrap()
        )
    );
    // post_only=0 is the default and changes nothing.
    assert_eq!(
        from_catalog(
            "POST",
            "/v3/spot/order/new",
            &[
                ("symbol", "btc_usdt"),
                ("type", "sell_market"),
                ("amount", "1"),
                ("post_only", "0")
            ]
        )
        .unwrap(),
        render(
            &build_req(&PlaceOrderRequest::new(
                Market::Spot,
                "btc_usdt",
                MarketOrder::sell(amt("1"))
            ))
            .unwrap()
        )
    );
}

fn assert_field(r: Result<String, Error>, field: &str) {
    match r {
        Err(Error::Validation { field: f, .. }) => assert_eq!(f, field),
        other => panic!("expected a validation error on {field}, got {other:?}"),
    }
}

#[test]
fn catalog_refuses_inconsistent_orders() {
    let new = |params: &[(&str, &str)]| from_catalog("POST", "/v3/spot/order/new", params);
    assert_field(
        new(&[
            ("symbol", "btc_usdt"),
            ("type", "buy_market"),
            ("amount", "1"),
            ("price", "5"),
        ]),
        "price",
    );
    assert_field(
        new(&[
            ("symbol", "btc_usdt"),
            ("type", "sell_market"),
            ("amount", "1"),
            ("post_only", "1"),
        ]),
        "post_only",
    );
    assert_field(
        new(&[("symbol", "btc_usdt"), ("type", "buy"), ("amount", "1")]),
        "price",
    );
    assert_field(
        new(&[("symbol", "btc_usdt"), ("type", "limit"), ("amount", "1")]),
        "type",
    );
    assert_field(new(&[("symbol", "btc_usdt"), ("amount", "1")]), "type");
    assert_field(
        new(&[("symbol", "btc_usdt"), ("type", "buy"), ("price", "1")]),
        "amount",
    );
    assert_field(
        new(&[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "x"),
            ("amount", "1"),
        ]),
        "price",
    );
    assert_field(
        new(&[
            ("symbol", "btc_usdt"),
            ("type", "buy"),
            ("price", "0"),
            ("amount", "1"),
        ]),
        "price",
    );
    assert_field(
        from_catalog("POST", "/v3/futures/order/new", &[("symbol", "btc_usdt")]),
        "market",
    );
}

#[test]
fn catalog_batch_from_list_text() {
    let list = r#"[{"type":"buy","price":"0.01","amount":1,"post_only":1},{"type":"sell_market","amount":2.50},{"type":"sell","price":30000.10,"amount":"0.001","post_only":"0"}]"#;
    let got = from_catalog(
        "POST",
        "/v3/spot/order/batch_new",
        &[("symbol", "btc_usdt"), ("list", list)],
    )
    .unwrap();
    let want = build_req(&BatchPlaceOrdersRequest::new(
        Market::Spot,
        "btc_usdt",
        [
            OrderSpec::from(LimitOrder::buy(amt("1"), px("0.01")).post_only()),
            MarketOrder::sell(amt("2.50")).into(),
            LimitOrder::sell(amt("0.001"), px("30000.10")).into(),
        ],
    ))
    .unwrap();
    assert_eq!(got, render(&want));
}

#[test]
fn catalog_batch_from_json_object() {
    // `--json` style: the list as a JSON array, or as a string holding the array's text.
    let (entry, vars) = catalog::find("POST", "/v3/margin/order/batch_new").unwrap();
    let want = render(
        &build_req(&BatchPlaceOrdersRequest::new(
            Market::Margin,
            "btc_usdt",
            [MarketOrder::buy(amt("10"))],
        ))
        .unwrap(),
    );
    for json in [
        r#"{"symbol":"btc_usdt","list":[{"type":"buy_market","amount":10}]}"#,
        r#"{"symbol":"btc_usdt","list":"[{\"type\":\"buy_market\",\"amount\":\"10\"}]"}"#,
    ] {
        let mut map = ParamMap::new();
        for (k, v) in vars.clone() {
            map.insert_text(k, v);
        }
        map.insert_json_object(json).unwrap();
        let got = (entry.build)(map, &Config::default(), Some(&creds()), NOW).unwrap();
        assert_eq!(render(&got), want, "{json}");
    }
}

#[test]
fn catalog_batch_element_errors_name_the_element() {
    let batch = |list: &str| {
        from_catalog(
            "POST",
            "/v3/spot/order/batch_new",
            &[("symbol", "btc_usdt"), ("list", list)],
        )
    };
    assert_field(
        batch(
            r#"[{"type":"buy","price":1,"amount":1},{"type":"buy_market","price":1,"amount":1}]"#,
        ),
        "list[1].price",
    );
    assert_field(
        batch(r#"[{"type":"sell_market","amount":1,"post_only":1}]"#),
        "list[0].post_only",
    );
    assert_field(batch(r#"[{"type":"buy","amount":1}]"#), "list[0].price");
    assert_field(batch(r#"[{"type":"buy","price":1}]"#), "list[0].amount");
    let hold = batch(r#"[{"type":"hold","price":1,"amount":1}]"#);
    assert!(
        matches!(&hold, Err(Error::Validation { reason, .. })
            if reason == r#""hold" is not one of buy, sell, buy_market, sell_market"#),
        "{hold:?}"
    );
    assert_field(hold, "list[0].type");
    assert_field(
        batch(
            r#"[{"type":"buy","price":1,"amount":1},{"type":"buy","price":1,"amount":1},{"type":"buy","price":"-1","amount":1}]"#,
        ),
        "list[2].price",
    );
    assert_field(batch("[]"), "list");
    assert_field(batch("not json"), "list");
    // A member the order does not have is refused, naming it in its element.
    let unknown = batch(r#"[{"type":"buy","price":1,"amount":1,"prce":2}]"#);
    assert!(
        matches!(&unknown, Err(e) if e.validation_kind() == Some(ValidationKind::Unknown)),
        "{unknown:?}"
    );
    assert_field(unknown, "list[0].prce");
    assert_field(
        batch(r#"[{"type":"buy","price":1,"amount":1},7]"#),
        "list[1]",
    );
    assert_field(
        from_catalog(
            "POST",
            "/v3/spot/order/batch_new",
            &[("symbol", "btc_usdt")],
        ),
        "list",
    );
}

#[test]
fn catalog_refuses_unknown_parameters() {
    assert_field(
        from_catalog("GET", "/v3/spot/order/current", &[("symbl", "btc_usdt")]),
        "symbl",
    );
}

#[test]
fn catalog_decode_renders_json() {
    let (entry, _) = catalog::find("POST", "/v3/spot/order/cancel").unwrap();
    let v = (entry.decode)(
        200,
        &http::HeaderMap::new(),
        br#"{"code":0,"success":[1],"error":[]}"#,
    )
    .unwrap();
    assert_eq!(v["success"][0], "1");
    assert_eq!(v["date"], serde_json::Value::Null);
}
