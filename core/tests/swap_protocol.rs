//! Swap v2 protocol: golden signatures, request shapes, the `data` envelope, error mapping and
//! rate-limit headers.

mod support;
use support::*;

use digifinex_core::sign::{sign_swap, swap_signed_text};
use digifinex_core::swap::{DepthRequest, ServerTimeRequest, TransferRequest, TransferType};
use digifinex_core::{build, parse, ApiCode, Config, Error, ErrorKind, SwapCode, TimestampMillis};

#[test]
fn golden_prehash_from_the_documentation() {
    // The swap documentation's pre-hash example, signed with a fixed secret; the expected
    // signature was computed independently (Python: hmac.new(b"secret-key",
    // b"1657522488402GET/swap/v2/account/positions?instrument_id=BTCUSDTPERP",
    // hashlib.sha256).hexdigest()).
    let text = swap_signed_text(
        "1657522488402",
        "GET",
        "/swap/v2/account/positions?instrument_id=BTCUSDTPERP",
        b"",
    )
    .concat();
    assert_eq!(
        text,
        b"1657522488402GET/swap/v2/account/positions?instrument_id=BTCUSDTPERP"
    );
    assert_eq!(
        sign_swap(
            b"secret-key",
            "1657522488402",
            "GET",
            "/swap/v2/account/positions?instrument_id=BTCUSDTPERP",
            b""
        )
        .unwrap(),
        GOLDEN_POSITIONS_SIGN
    );
}

/// hmac-sha256("secret-key", "1657522488402GET/swap/v2/account/positions?instrument_id=BTCUSDTPERP").
const GOLDEN_POSITIONS_SIGN: &str =
    "452bb0c796283f075aa04c0758dfdcd5614d63e92077bc66d864c1bf5cfe6ea4";

#[test]
fn public_get_shape() {
    assert_swap_public_get(&ServerTimeRequest, "/swap/v2/public/time");
    assert_swap_public_get(
        &DepthRequest::new("BTCUSDTPERP").limit(100),
        "/swap/v2/public/depth?instrument_id=BTCUSDTPERP&limit=100",
    );
}

#[test]
fn signed_post_shape_json_body() {
    assert_swap_signed_post(
        &TransferRequest::new(
            TransferType::SpotToSwap,
            "USDT",
            digifinex_core::Amount::new(d("10.50")),
        ),
        "/swap/v2/account/transfer",
        r#"{"type":1,"currency":"USDT","transfer_amount":"10.50"}"#,
    );
}

#[test]
fn swap_base_url_is_configurable_and_the_signed_path_starts_at_swap_v2() {
    let config = Config::default().with_swap_base_url("http://127.0.0.1:8080/proxy/");
    let req = build(
        &TransferRequest::new(
            TransferType::SwapToSpot,
            "USDT",
            digifinex_core::Amount::new(d("1")),
        ),
        &config,
        Some(&creds()),
        NOW,
    )
    .unwrap();
    assert_eq!(
        req.uri(),
        "http://127.0.0.1:8080/proxy/swap/v2/account/transfer"
    );
    let body = r#"{"type":2,"currency":"USDT","transfer_amount":"1"}"#;
    assert_eq!(req.body(), body.as_bytes());
    assert_eq!(
        req.headers()["access-sign"],
        expected_swap_sign("POST", "/swap/v2/account/transfer", body).as_str()
    );
    // No recv-window header on swap requests, even when configured for spot.
    let req = build(
        &TransferRequest::new(
            TransferType::SwapToSpot,
            "USDT",
            digifinex_core::Amount::new(d("1")),
        ),
        &Config::default().with_recv_window(5000),
        Some(&creds()),
        NOW,
    )
    .unwrap();
    assert!(req.headers().get("access-recv-window").is_none());
}

#[test]
fn private_without_key_and_invalid_values_are_refused() {
    let t = TransferRequest::new(
        TransferType::SpotToSwap,
        "USDT",
        digifinex_core::Amount::new(d("1")),
    );
    assert!(matches!(
        build(&t, &Config::default(), None, NOW),
        Err(Error::Validation { ref field, .. }) if field == "credentials"
    ));
    assert_invalid(
        &TransferRequest::new(
            TransferType::Unknown(3),
            "USDT",
            digifinex_core::Amount::new(d("1")),
        ),
        "type",
    );
    assert_invalid(
        &TransferRequest::new(
            TransferType::SpotToSwap,
            "USDT",
            digifinex_core::Amount::new(d("0")),
        ),
        "transfer_amount",
    );
    assert_invalid(&DepthRequest::new("BTCUSDTPERP").limit(0), "limit");
    assert_invalid(&DepthRequest::new("BTCUSDTPERP").limit(101), "limit");
    assert_invalid(&DepthRequest::new("BTC USDT"), "instrument_id");
}

#[test]
fn data_envelope_decodes_the_payload() {
    assert_eq!(
        decode_swap::<ServerTimeRequest>(r#"{"code":0,"data":1657522488402}"#).unwrap(),
        TimestampMillis(1_657_522_488_402)
    );
    let depth = decode_swap::<DepthRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","timestamp":1657522488402,
            "asks":[["20000.5",12],["20001","1e-3"]],"bids":[["19999.9",3.25]]}}"#,
    )
    .unwrap();
    assert_eq!(depth.instrument_id.as_deref(), Some("BTCUSDTPERP"));
    assert_eq!(depth.timestamp, Some(TimestampMillis(1_657_522_488_402)));
    assert_eq!(depth.asks[0].price, d("20000.5"));
    assert_eq!(depth.asks[0].amount, d("12"));
    assert_eq!(depth.asks[1].amount, d("0.001"));
    assert_eq!(depth.bids[0].amount, d("3.25"));
}

#[test]
fn rest_depth_levels_accept_numbers_for_price_and_amount() {
    // docs/protocol.md: the live REST depth sends price and amount as JSON numbers (the documents
    // say the price is a string); both forms decode exactly, trailing zeros kept.
    let depth = decode_swap::<DepthRequest>(
        r#"{"code":0,"data":{"instrument_id":"BTCUSDTPERP","timestamp":1667975290425,
            "asks":[[18384.70,3492],[1e-7,"5000"]],"bids":[["18366.2",4395],[18364.3,30.50]]}}"#,
    )
    .unwrap();
    assert_eq!(depth.asks[0].price.to_string(), "18384.70");
    assert_eq!(depth.asks[0].amount, d("3492"));
    assert_eq!(depth.asks[1].price, d("0.0000001"));
    assert_eq!(depth.asks[1].amount, d("5000"));
    assert_eq!(depth.bids[0].price, d("18366.2"));
    assert_eq!(depth.bids[1].price, d("18364.3"));
    assert_eq!(depth.bids[1].amount.to_string(), "30.50");
    // The echoes are optional: placeholders are absent; an answer without `data` is an empty
    // book.
    let depth = decode_swap::<DepthRequest>(
        r#"{"code":0,"data":{"instrument_id":"","timestamp":"-","asks":[[1,2]],"bids":null}}"#,
    )
    .unwrap();
    assert_eq!(depth.instrument_id, None);
    assert_eq!(depth.timestamp, None);
    assert_eq!(depth.asks.len(), 1);
    assert!(depth.bids.is_empty());
    let empty = decode_swap::<DepthRequest>(r#"{"code":0}"#).unwrap();
    assert!(empty.asks.is_empty() && empty.bids.is_empty());
    // A level's price and amount are required.
    for body in [
        r#"{"code":0,"data":{"asks":[[null,1]],"bids":[]}}"#,
        r#"{"code":0,"data":{"asks":[["-",1]],"bids":[]}}"#,
        r#"{"code":0,"data":{"asks":[[1,""]],"bids":[]}}"#,
        r#"{"code":0,"data":{"asks":[[1]],"bids":[]}}"#,
    ] {
        match decode_swap::<DepthRequest>(body) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, "data.asks[0]", "{body}"),
            other => panic!("{body}: {other:?}"),
        }
    }
}

#[test]
fn transfer_ack_without_data_decodes_to_no_fields() {
    for body in [
        r#"{"code":0}"#,
        r#"{"code":0,"data":null}"#,
        r#"{"code":0,"data":{}}"#,
    ] {
        let a = decode_swap::<TransferRequest>(body).unwrap();
        assert_eq!(a.transfer_type, None, "{body}");
        assert_eq!(a.currency, None, "{body}");
        assert_eq!(a.transfer_amount, None, "{body}");
    }
    let a = decode_swap::<TransferRequest>(
        r#"{"code":0,"data":{"type":"swap_to_spot","currency":"USDT","transfer_amount":"10.50"}}"#,
    )
    .unwrap();
    assert_eq!(a.transfer_type, Some(TransferType::SwapToSpot));
    assert_eq!(a.currency.as_deref(), Some("USDT"));
    assert_eq!(
        a.transfer_amount.map(|v| v.to_string()).as_deref(),
        Some("10.50")
    );
    let a = decode_swap::<TransferRequest>(
        r#"{"code":0,"data":{"type":3,"currency":null,"transfer_amount":"-"}}"#,
    )
    .unwrap();
    assert_eq!(a.transfer_type, Some(TransferType::Unknown(3)));
    assert_eq!(a.currency, None);
    assert_eq!(a.transfer_amount, None);
}

#[test]
fn decode_errors_name_the_path_under_data() {
    match decode_swap::<DepthRequest>(r#"{"code":0,"data":{"asks":[["1",2],["x",1]],"bids":[]}}"#) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data.asks[1]"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn swap_error_codes_win_over_http_status() {
    for status in [200, 400, 429, 500] {
        match decode_status::<DepthRequest>(status, r#"{"code":401003,"msg":"no money"}"#) {
            Err(Error::Api(e)) => {
                assert_eq!(e.code, ApiCode::Swap(SwapCode::NotEnoughMoney));
                assert_eq!(e.status, status);
                assert_eq!(e.message.as_deref(), Some("no money"));
            }
            other => panic!("{other:?}"),
        }
    }
    let e = decode_swap::<DepthRequest>(r#"{"code":400004}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Auth);
    assert_eq!(e.api_code(), Some(400004));
}

#[test]
fn http_429_403_and_non_json_bodies() {
    let resp = http::Response::builder()
        .status(429)
        .header("retry-after", "3")
        .body(&b"Too Many Requests"[..])
        .unwrap();
    match parse::<DepthRequest>(&resp) {
        Err(Error::RateLimited {
            status: 429,
            retry_after,
            snippet,
        }) => {
            assert_eq!(retry_after, Some(std::time::Duration::from_secs(3)));
            assert_eq!(snippet, "Too Many Requests");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        decode_status::<DepthRequest>(403, "<html>banned</html>"),
        Err(Error::Banned { status: 403, .. })
    ));
    for body in ["", "<html>502</html>", r#"{"code":0,"data":{"asks":[["1""#] {
        match decode_status::<DepthRequest>(502, body) {
            Err(Error::HttpStatus {
                status: 502,
                snippet,
            }) => assert_eq!(snippet, body),
            other => panic!("{body:?}: {other:?}"),
        }
    }
    // A truncated body with HTTP 200 is a decode error.
    assert!(matches!(
        decode_swap::<DepthRequest>(r#"{"code":0,"data":{"asks":[["1""#),
        Err(Error::Decode { .. })
    ));
}

#[test]
fn catalog_builds_swap_requests_from_json() {
    let req = build_from_json(
        "POST",
        "/swap/v2/account/transfer",
        r#"{"type":2,"currency":"USDT","transfer_amount":"0.1"}"#,
    )
    .unwrap();
    assert_eq!(
        req.body(),
        br#"{"type":2,"currency":"USDT","transfer_amount":"0.1"}"#
    );
    // An object endpoint refuses an array body (its required members are missing).
    assert!(matches!(
        build_from_json("POST", "/swap/v2/account/transfer", r#"[{"type":2}]"#),
        Err(Error::Validation { ref field, .. }) if field == "type"
    ));
}
