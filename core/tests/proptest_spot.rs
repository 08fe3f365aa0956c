//! Property tests: signing covers exactly the transmitted text, decoding never panics, decimals
//! decode exactly from numbers and strings in plain and exponent notation.

mod support;

use digifinex_core::catalog;
use digifinex_core::sign::sign_spot;
use digifinex_core::spot::{CancelOrdersRequest, Market, OrderBookRequest, OrdersRequest};
use digifinex_core::{Decimal, Params, TimestampMillis};
use proptest::prelude::*;
use support::*;

fn param_text() -> impl Strategy<Value = String> {
    // Unicode, the form delimiters and spaces, plus plain ASCII.
    prop_oneof![
        "[a-z0-9_]{1,12}",
        "[ &=+%?#/a-zA-Z0-9\\u{e9}\\u{4e2d}\\u{1f600}]{0,16}",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn signature_is_hmac_of_transmitted_text_and_text_round_trips(
        pairs in proptest::collection::vec((param_text(), param_text()), 0..8),
        in_query in any::<bool>(),
    ) {
        let mut p = Params::new(TimestampMillis(0));
        for (k, v) in &pairs {
            p.push(k, v);
        }
        let text = p.as_str().to_owned();
        let (query, body) = if in_query { (text.as_str(), "") } else { ("", text.as_str()) };
        prop_assert_eq!(sign_spot(SECRET.as_bytes(), query, body).unwrap(), expected_sign(&text));
        let decoded: Vec<(String, String)> = form_urlencoded::parse(text.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if pairs.is_empty() {
            prop_assert!(text.is_empty());
        } else {
            prop_assert_eq!(decoded, pairs);
        }
    }

    #[test]
    fn query_and_body_are_signed_joined_by_ampersand(q in "[a-z]{1,5}=[0-9]{1,5}", b in "[a-z]{1,5}=[0-9]{1,5}") {
        prop_assert_eq!(sign_spot(SECRET.as_bytes(), &q, &b).unwrap(), expected_sign(&format!("{q}&{b}")));
    }

    #[test]
    fn market_endpoints_send_the_path_market_first_and_sign_exactly_what_they_send(
        margin in any::<bool>(),
        ids in proptest::collection::vec("[0-9a-f]{1,32}", 1..=20),
        cancel in any::<bool>(),
    ) {
        let (market, name) = if margin { (Market::Margin, "margin") } else { (Market::Spot, "spot") };
        let req = if cancel {
            build_req(&CancelOrdersRequest::new(market, ids.clone())).unwrap()
        } else {
            build_req(&OrdersRequest::new(market, ids.clone())).unwrap()
        };
        let text = if cancel {
            String::from_utf8(req.body().clone()).unwrap()
        } else {
            req.uri().query().unwrap_or("").to_owned()
        };
        let path_market = req.uri().path().split('/').nth(2).unwrap_or("").to_owned();
        prop_assert_eq!(path_market, name);
        prop_assert_eq!(text.clone(), format!("market={name}&order_id={}", ids.join("%2C")));
        prop_assert_eq!(req.headers()["access-sign"].to_str().unwrap(), expected_sign(&text));
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(body in proptest::collection::vec(any::<u8>(), 0..256), status in 100u16..600) {
        let headers = http::HeaderMap::new();
        for e in catalog::all() {
            let _ = (e.decode)(status, &headers, &body);
        }
    }

    #[test]
    fn decoding_arbitrary_json_never_panics(json in arb_json(), status in prop_oneof![Just(200u16), 100u16..600]) {
        let headers = http::HeaderMap::new();
        let body = json.to_string();
        for e in catalog::all() {
            let _ = (e.decode)(status, &headers, body.as_bytes());
        }
        // Also with a success code spliced in, so the payload decoders run.
        if let serde_json::Value::Object(mut m) = json {
            for code in [0, 200] {
                m.insert("code".into(), code.into());
                let body = serde_json::Value::Object(m.clone()).to_string();
                for e in catalog::all() {
                    let _ = (e.decode)(status, &headers, body.as_bytes());
                }
            }
        }
    }

    #[test]
    fn decimals_decode_exactly_from_numbers_and_strings(
        mantissa in 0u128..10u128.pow(28),
        scale in 0u32..=28,
        negative in any::<bool>(),
        exponent_form in any::<bool>(),
    ) {
        let mut want = Decimal::from_i128_with_scale(i128::try_from(mantissa).unwrap(), scale);
        want.set_sign_negative(negative);
        let text = if exponent_form { exponent_text(&want) } else { want.to_string() };
        let body = format!(r#"{{"bids":[[{text},"{text}"]],"asks":[],"code":0}}"#);
        let book = decode::<OrderBookRequest>(&body).unwrap();
        prop_assert_eq!(book.bids[0].price, want);
        prop_assert_eq!(book.bids[0].amount, want);
        if !exponent_form {
            // Plain notation keeps its scale, so it is sent back exactly as received.
            prop_assert_eq!(book.bids[0].price.to_string(), text);
        }
    }
}

/// `d.ddddde-N` form of a decimal (every significant digit kept).
fn exponent_text(d: &Decimal) -> String {
    let digits = d.mantissa().unsigned_abs().to_string();
    let exp = i64::try_from(digits.len()).unwrap() - 1 - i64::from(d.scale());
    let (head, tail) = digits.split_at(1);
    let sign = if d.is_sign_negative() && !d.is_zero() {
        "-"
    } else {
        ""
    };
    if tail.is_empty() {
        format!("{sign}{head}e{exp}")
    } else {
        format!("{sign}{head}.{tail}E{exp:+}")
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "-?[0-9]{1,30}(\\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?"
            .prop_map(|s| serde_json::from_str::<Value>(&s).unwrap_or(Value::Null)),
        "[a-z_0-9.\\-]{0,12}".prop_map(Value::String),
    ];
    let keys = prop_oneof![
        Just("code".to_owned()),
        Just("data".to_owned()),
        Just("bids".to_owned()),
        Just("list".to_owned()),
        Just("symbol_list".to_owned()),
        Just("finance".to_owned()),
        Just("detail".to_owned()),
        Just("positions".to_owned()),
        Just("order_id".to_owned()),
        Just("price".to_owned()),
        Just("side".to_owned()),
        "[a-z_]{1,10}",
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(keys.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn exponent_text_examples() {
    assert_eq!(exponent_text(&d("0.0000001")), "1e-7");
    assert_eq!(exponent_text(&d("25.5")), "2.55E+1");
    assert_eq!(exponent_text(&d("-0.012")), "-1.2E-2");
}
