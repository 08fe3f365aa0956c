//! Regressions found by the fuzz targets (`fuzz/`, issue 7); the minimised inputs also live in
//! `fuzz/regressions/TARGET/` and are replayed by `fuzz/tests/replay.rs`.

use digifinex_core::__fuzz::parse_decimal;
use serde::Deserialize;

#[derive(Deserialize)]
struct Int {
    #[serde(with = "digifinex_core::__fuzz::int")]
    v: i64,
}

/// `decimal` target, input `"3\x0b"`: the integer helper trimmed Unicode whitespace
/// (`str::trim`, which includes the vertical tab and no-break spaces) while `parse_decimal`
/// trims ASCII whitespace only, so `"3\u000b"` was the integer 3 but not a decimal. Both now
/// accept the same surrounding whitespace.
#[test]
fn integers_and_decimals_trim_the_same_whitespace() {
    for text in ["3\\u000b", "\\u00a03", "3\\u3000", "\\u00853"] {
        let json = format!(r#"{{"v":"{text}"}}"#);
        let unescaped: String = serde_json::from_str(&format!("\"{text}\"")).unwrap();
        assert!(parse_decimal(&unescaped).is_err(), "{text}");
        assert!(serde_json::from_str::<Int>(&json).is_err(), "{text}");
    }
    for text in [" 3", "3 ", "\\t3\\n", "\\r3\\u000c"] {
        let json = format!(r#"{{"v":"{text}"}}"#);
        let unescaped: String = serde_json::from_str(&format!("\"{text}\"")).unwrap();
        assert_eq!(parse_decimal(&unescaped).unwrap(), 3.into(), "{text}");
        assert_eq!(serde_json::from_str::<Int>(&json).unwrap().v, 3, "{text}");
    }
}

/// `catalog_decode` target, a 429 with `retry-after: 99999999999999999999999999`: converting
/// the seconds to milliseconds overflowed the decimal and panicked. A value beyond any duration
/// is now no retry-after at all.
#[test]
fn huge_retry_after_is_ignored_not_a_panic() {
    use digifinex_core::spot::PingRequest;
    use digifinex_core::{parse, Error};
    for v in [
        "99999999999999999999999999",
        "79228162514264337593543950335",
        "7922816251426433759354395.0335",
        "1e28",
    ] {
        let resp = http::Response::builder()
            .status(429)
            .header("retry-after", v)
            .body(&b""[..])
            .unwrap();
        match parse::<PingRequest>(&resp) {
            Err(Error::RateLimited { retry_after, .. }) => assert_eq!(retry_after, None, "{v}"),
            other => panic!("{v}: {other:?}"),
        }
    }
    let resp = http::Response::builder()
        .status(429)
        .header("retry-after", "1.5")
        .body(&b""[..])
        .unwrap();
    assert_eq!(
        parse::<PingRequest>(&resp).unwrap_err().retry_after(),
        Some(std::time::Duration::from_millis(1500))
    );
}

/// `spot_decode` target, `[0]` for `spot.margin_assets` on HTTP 200: the envelope reader also
/// accepted a JSON array positionally, so `[0]` was a success with code 0 (and the model was read
/// from the array too). Only an object is an envelope now; `[0]` is a decode error.
#[test]
fn an_array_is_not_an_envelope() {
    use digifinex_core::spot::{MarginAssetsRequest, OrderBookRequest};
    use digifinex_core::{parse, Error};
    for body in [&b"[0]"[..], b" [0,\"ok\"]", b"[10001,\"x\"]"] {
        let resp = http::Response::builder().status(200).body(body).unwrap();
        assert!(
            matches!(
                parse::<MarginAssetsRequest>(&resp),
                Err(Error::Decode { .. })
            ),
            "{}",
            String::from_utf8_lossy(body)
        );
        assert!(matches!(
            parse::<OrderBookRequest>(&resp),
            Err(Error::Decode { .. })
        ));
    }
    let resp = http::Response::builder()
        .status(200)
        .body(&br#"{"code":0,"list":[]}"#[..])
        .unwrap();
    assert!(parse::<MarginAssetsRequest>(&resp).is_ok());
}
