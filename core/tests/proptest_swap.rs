//! Property tests for swap v2 signing: for arbitrary query values and JSON bodies, the signature
//! is the HMAC of `timestamp + METHOD + path?query + body` over the exact bytes sent, and the
//! sent text decodes back to the values given. (Decoding arbitrary bytes and JSON through every
//! catalog entry, swap included, is covered by `proptest_spot.rs`.)
//!
//! Decoding of the trade and copy-trading answers: any value in an optional field (placeholders,
//! words, numbers, junk) never fails an order, fill or copy record; only the identity does; a
//! batch answer keeps every element in its place whatever the other elements are.

mod support;

use digifinex_core::swap::{
    BalanceRequest, BatchItem, BatchPlaceOrdersRequest, CopyCurrentRequest, HistoryTradesRequest,
    OpenOrdersRequest, OrderSide, OrderSpec, SponsorOrderRequest, TransferRequest, TransferType,
};
use digifinex_core::{build, Config, Decimal, Endpoint, Error};
use proptest::prelude::*;
use support::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Z0-9]{1,8}",
        "[&=+%?#/a-zA-Z0-9\\u{e9}\\u{4e2d}\\u{1f600}\"\\\\]{1,16}",
        any::<String>().prop_filter("non-empty", |s| !s.is_empty()),
    ]
}

fn decimal() -> impl Strategy<Value = Decimal> {
    (1i64..=i64::MAX, 0u32..=18).prop_map(|(m, s)| Decimal::new(m, s))
}

fn signature_of(req: &http::Request<Vec<u8>>) -> String {
    req.headers()["access-sign"].to_str().unwrap().to_owned()
}

fn path_and_query(req: &http::Request<Vec<u8>>) -> String {
    req.uri()
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn json_body_is_signed_verbatim_and_decodes_back(currency in text(), amount in decimal(), to_spot in any::<bool>()) {
        let kind = if to_spot { TransferType::SwapToSpot } else { TransferType::SpotToSwap };
        let req = build(&TransferRequest::new(kind, currency.clone(), digifinex_core::Amount::new(amount)), &Config::default(), Some(&creds()), NOW).unwrap();
        let body = std::str::from_utf8(req.body()).unwrap();
        prop_assert_eq!(signature_of(&req), expected_swap_sign("POST", "/swap/v2/account/transfer", body));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        prop_assert_eq!(v["currency"].as_str().unwrap(), currency.as_str());
        prop_assert_eq!(v["transfer_amount"].as_str().unwrap().parse::<Decimal>().unwrap(), amount);
        prop_assert_eq!(v["type"].as_i64().unwrap(), if to_spot { 2 } else { 1 });
    }

    #[test]
    fn query_is_signed_as_sent_and_decodes_back(currency in "[&=+%?#/a-zA-Z0-9\\u{e9}\\u{4e2d}\\u{1f600}]{1,16}") {
        let req = build(&BalanceRequest::new().currency(currency.clone()), &Config::default(), Some(&creds()), NOW).unwrap();
        let pq = path_and_query(&req);
        prop_assert_eq!(signature_of(&req), expected_swap_sign("GET", &pq, ""));
        let query = pq.split_once('?').map(|(_, q)| q).unwrap();
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        prop_assert_eq!(pairs, vec![("currency".to_owned(), currency)]);
    }

    #[test]
    fn array_body_is_signed_verbatim(orders in proptest::collection::vec((decimal(), decimal(), 1i64..=4), 1..=20)) {
        let specs: Vec<OrderSpec> = orders
            .iter()
            .map(|(size, price, side)| OrderSpec::limit("BTCUSDTPERP", OrderSide::from_code(*side), digifinex_core::Size::new(*size), digifinex_core::Price::new(*price)))
            .collect();
        let req = build(&BatchPlaceOrdersRequest::new(specs), &Config::default(), Some(&creds()), NOW).unwrap();
        let body = std::str::from_utf8(req.body()).unwrap();
        prop_assert_eq!(signature_of(&req), expected_swap_sign("POST", "/swap/v2/trade/batch_order", body));
        let v: Vec<serde_json::Value> = serde_json::from_str(body).unwrap();
        prop_assert_eq!(v.len(), orders.len());
        for (item, (size, price, side)) in v.iter().zip(&orders) {
            prop_assert_eq!(item["price"].as_str().unwrap().parse::<Decimal>().unwrap(), *price);
            prop_assert_eq!(item["type"].as_i64().unwrap(), *side);
            prop_assert!(item["size"].is_number());
            // `size` is a JSON number written from the decimal's exact text (checked on the
            // body text: `serde_json::Value` would read it through f64).
            let needle = format!("\"size\":{size},");
            prop_assert!(body.contains(&needle), "{} not in {}", needle, body);
        }
    }
}

/// Any JSON value the venue might put in a field: placeholders, numbers (huge, fractional,
/// exponents), words, numeric strings, booleans and containers.
fn any_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_owned()),
        Just("\"\"".to_owned()),
        Just("\"-\"".to_owned()),
        Just("\"--\"".to_owned()),
        Just("\"N/A\"".to_owned()),
        Just("true".to_owned()),
        Just("{\"x\":[1]}".to_owned()),
        Just("[1,2]".to_owned()),
        Just("1e-07".to_owned()),
        Just("123456789012345678901234567890".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        (any::<i32>(), 0u32..8).prop_map(|(m, s)| Decimal::new(i64::from(m), s).to_string()),
        "[a-zA-Z_ -]{1,12}".prop_map(|w| format!("\"{w}\"")),
        (0i64..20).prop_map(|n| format!("\"{n}\"")),
    ]
}

fn decodes<E: Endpoint>(body: &str) -> Result<E::Output, Error> {
    digifinex_core::parse_body::<E::Output>(&E::META, 200, &http::HeaderMap::new(), body.as_bytes())
}

const ORDER_FIELDS: &[&str] = &[
    "instrument_id",
    "margin_mode",
    "contract_val",
    "type",
    "order_type",
    "price",
    "size",
    "filled_qty",
    "price_avg",
    "fee",
    "state",
    "leverage",
    "turnover",
    "close_profit",
    "has_stop",
    "insert_time",
    "time_stamp",
];

const FILL_FIELDS: &[&str] = &[
    "instrument_id",
    "margin_mode",
    "order_id",
    "price",
    "size",
    "fee",
    "close_profit",
    "leverage",
    "type",
    "order_type",
    "trade_type",
    "match_role",
    "trade_time",
];

const COPY_POSITION_FIELDS: &[&str] = &[
    "instrument_name",
    "leverage",
    "direction",
    "open_price",
    "open_time",
    "open_fee",
    "expert_name",
    "unrealized_profit",
    "unrealized_profit_rate",
    "volume_total_original",
    "liquidate_price",
    "market_price",
    "is_closing",
    "stop_earn_trigger_price_type",
    "stop_earn_trigger_price",
    "stop_loss_trigger_price_type",
    "stop_loss_trigger_price",
    "margin_mode",
    "margin_ratio",
    "posi_margin",
    "use_margin",
];

fn record(id_key: &str, fields: &[&str], values: &[String]) -> String {
    let mut members = vec![format!("\"{id_key}\":\"1590873693003714560\"")];
    members.extend(
        fields
            .iter()
            .zip(values)
            .map(|(k, v)| format!("\"{k}\":{v}")),
    );
    format!("{{{}}}", members.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn optional_fields_never_fail_an_order_or_a_fill(
        order in proptest::collection::vec(any_value(), ORDER_FIELDS.len()),
        fill in proptest::collection::vec(any_value(), FILL_FIELDS.len()),
    ) {
        let body = format!(r#"{{"code":0,"data":[{}]}}"#, record("order_id", ORDER_FIELDS, &order));
        let orders = decodes::<OpenOrdersRequest>(&body);
        prop_assert!(orders.is_ok(), "{}: {:?}", body, orders.err());
        prop_assert_eq!(orders.unwrap()[0].order_id.clone(), "1590873693003714560");
        let body = format!(r#"{{"code":0,"data":[{}]}}"#, record("trade_id", FILL_FIELDS, &fill));
        let fills = decodes::<HistoryTradesRequest>(&body);
        prop_assert!(fills.is_ok(), "{}: {:?}", body, fills.err());
        prop_assert_eq!(fills.unwrap()[0].trade_id.clone(), "1590873693003714560");
    }

    #[test]
    fn optional_fields_never_fail_a_copy_position_or_an_ack(
        values in proptest::collection::vec(any_value(), COPY_POSITION_FIELDS.len()),
        res in any_value(),
        page in any_value(),
    ) {
        let body = format!(
            r#"{{"code":0,"data":{{"res":{res},"list":[{}],"page":{page}}}}}"#,
            record("order_id", COPY_POSITION_FIELDS, &values)
        );
        let got = decodes::<CopyCurrentRequest>(&body);
        prop_assert!(got.is_ok(), "{}: {:?}", body, got.err());
        prop_assert_eq!(got.unwrap().list[0].order_id.clone(), "1590873693003714560");
        for body in [
            format!(r#"{{"code":0,"data":{{"res":{res}}}}}"#),
            format!(r#"{{"code":0,"data":{res}}}"#),
        ] {
            let ack = decodes::<SponsorOrderRequest>(&body);
            prop_assert!(ack.is_ok(), "{}: {:?}", body, ack.err());
            // A failure code is never a success.
            let ack = ack.unwrap();
            prop_assert!(!(ack.is_success() && ack.is_failure()));
        }
    }

    #[test]
    fn batch_answers_keep_every_element_in_its_place(
        elements in proptest::collection::vec(
            prop_oneof![
                (1u64..u64::MAX).prop_map(|n| (n.to_string(), Some(n.to_string()))),
                (1u64..u64::MAX).prop_map(|n| (format!("\"{n}\""), Some(n.to_string()))),
                "[0-9a-f]{8,32}".prop_map(|h| (format!("\"{h}\""), Some(h))),
                prop_oneof![
                    Just("null"), Just("\"\""), Just("\"-\""), Just("1.5"), Just("false"),
                    Just("{\"code\":401003}"), Just("[]"),
                ].prop_map(|j| (j.to_owned(), None)),
            ],
            0..=20,
        ),
    ) {
        let body = format!(
            r#"{{"code":0,"data":[{}]}}"#,
            elements.iter().map(|(j, _)| j.as_str()).collect::<Vec<_>>().join(",")
        );
        let got = decodes::<BatchPlaceOrdersRequest>(&body);
        prop_assert!(got.is_ok(), "{}: {:?}", body, got.err());
        let got = got.unwrap();
        prop_assert_eq!(got.len(), elements.len());
        for (item, (_, want)) in got.0.iter().zip(&elements) {
            prop_assert_eq!(item.id(), want.as_deref());
            prop_assert_eq!(matches!(item, BatchItem::Failed { .. }), want.is_none());
        }
    }
}
