//! Property tests for swap v2 signing: for arbitrary query values and JSON bodies, the signature
//! is the HMAC of `timestamp + METHOD + path?query + body` over the exact bytes sent, and the
//! sent text decodes back to the values given. (Decoding arbitrary bytes and JSON through every
//! catalog entry, swap included, is covered by `proptest_spot.rs`.)

mod support;

use digifinex_core::swap::{
    BalanceRequest, BatchPlaceOrders, OrderSide, OrderSpec, TransferRequest, TransferType,
};
use digifinex_core::{build, Config, Decimal};
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
        let req = build(&TransferRequest::new(kind, currency.clone(), amount), &Config::default(), Some(&creds()), NOW).unwrap();
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
            .map(|(size, price, side)| OrderSpec::limit("BTCUSDTPERP", OrderSide::from_code(*side), *size, *price))
            .collect();
        let req = build(&BatchPlaceOrders::new(specs), &Config::default(), Some(&creds()), NOW).unwrap();
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
