//! Shared helpers for the request-shape and decode tests.
#![allow(dead_code)]

use digifinex_core::{build, parse, Config, Credentials, Endpoint, Error, TimestampMillis};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The fixed build time of every request-shape test: 2023-11-14T22:13:20Z.
pub const NOW: TimestampMillis = TimestampMillis(1_700_000_000_000);
pub const KEY: &str = "test-key";
pub const SECRET: &str = "test-secret";

pub fn creds() -> Credentials {
    Credentials::new(KEY, SECRET)
}

/// Builds `e` with the default config, the test key and [`NOW`].
pub fn build_req<E: Endpoint>(e: &E) -> Result<http::Request<Vec<u8>>, Error> {
    build(e, &Config::default(), Some(&creds()), NOW)
}

/// Independent HMAC-SHA256 (lowercase hex) of `text` with the test secret.
pub fn expected_sign(text: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Renders a request as `METHOD URL`, one `name: value` line per header, a blank line, the body.
pub fn render(req: &http::Request<Vec<u8>>) -> String {
    let mut s = format!("{} {}\n", req.method(), req.uri());
    for (k, v) in req.headers() {
        s.push_str(&format!("{}: {}\n", k, v.to_str().unwrap()));
    }
    s.push('\n');
    s.push_str(std::str::from_utf8(req.body()).unwrap());
    s
}

/// Asserts the exact shape of a public GET: URL, no headers at all, empty body.
pub fn assert_public_get<E: Endpoint>(e: &E, url: &str) {
    let req = build_req(e).unwrap();
    assert_eq!(render(&req), format!("GET {url}\n\n"));
}

/// Asserts the exact shape of a signed GET: URL with query, the three auth headers with an
/// independently computed signature over the query, empty body.
pub fn assert_signed_get<E: Endpoint>(e: &E, url: &str) {
    let req = build_req(e).unwrap();
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    let want = format!(
        "GET {url}\naccess-key: {KEY}\naccess-sign: {}\naccess-timestamp: 1700000000\n\n",
        expected_sign(query)
    );
    assert_eq!(render(&req), want);
}

/// Asserts the exact shape of a signed POST: URL, form content type, auth headers with an
/// independently computed signature over the body, and the exact body.
pub fn assert_signed_post<E: Endpoint>(e: &E, url: &str, body: &str) {
    let req = build_req(e).unwrap();
    let want = format!(
        "POST {url}\ncontent-type: application/x-www-form-urlencoded\naccess-key: {KEY}\naccess-sign: {}\naccess-timestamp: 1700000000\n\n{body}",
        expected_sign(body)
    );
    assert_eq!(render(&req), want);
}

/// Asserts that building fails validation on `field`.
pub fn assert_invalid<E: Endpoint>(e: &E, field: &str) {
    match build_req(e) {
        Err(Error::Validation { field: f, .. }) => assert_eq!(f, field),
        other => panic!("expected a validation error on {field}, got {other:?}"),
    }
}

/// Decodes `body` (HTTP 200) for endpoint `E`.
pub fn decode<E: Endpoint>(body: &str) -> Result<E::Output, Error> {
    decode_status::<E>(200, body)
}

/// Decodes `body` with `status` for endpoint `E`.
pub fn decode_status<E: Endpoint>(status: u16, body: &str) -> Result<E::Output, Error> {
    let resp = http::Response::builder()
        .status(status)
        .body(body.as_bytes())
        .unwrap();
    parse::<E>(&resp)
}

/// Exact decimal from text.
pub fn d(s: &str) -> digifinex_core::Decimal {
    s.parse().unwrap()
}

/// The swap host of the default config.
pub const SWAP_HOST: &str = "https://openapi.digifinex.com";

/// Independent swap signature: HMAC-SHA256 (hex) of `1700000000000 + METHOD + path?query + body`
/// with the test secret.
pub fn expected_swap_sign(method: &str, path_and_query: &str, body: &str) -> String {
    expected_sign(&format!("1700000000000{method}{path_and_query}{body}"))
}

/// Asserts the exact shape of a public swap GET: URL (`/swap/v2/...?query` on [`SWAP_HOST`]), no
/// headers, empty body.
pub fn assert_swap_public_get<E: Endpoint>(e: &E, path_and_query: &str) {
    let req = build_req(e).unwrap();
    assert_eq!(render(&req), format!("GET {SWAP_HOST}{path_and_query}\n\n"));
}

/// Asserts the exact shape of a signed swap GET: URL, the three auth headers (timestamp in ms)
/// with an independently computed signature, empty body.
pub fn assert_swap_signed_get<E: Endpoint>(e: &E, path_and_query: &str) {
    let req = build_req(e).unwrap();
    let want = format!(
        "GET {SWAP_HOST}{path_and_query}\naccess-key: {KEY}\naccess-sign: {}\naccess-timestamp: 1700000000000\n\n",
        expected_swap_sign("GET", path_and_query, "")
    );
    assert_eq!(render(&req), want);
}

/// Asserts the exact shape of a signed swap POST: URL, JSON content type, auth headers with an
/// independently computed signature over `timestamp + POST + path + body`, and the exact body.
pub fn assert_swap_signed_post<E: Endpoint>(e: &E, path: &str, body: &str) {
    let req = build_req(e).unwrap();
    let want = format!(
        "POST {SWAP_HOST}{path}\ncontent-type: application/json\naccess-key: {KEY}\naccess-sign: {}\naccess-timestamp: 1700000000000\n\n{body}",
        expected_swap_sign("POST", path, body)
    );
    assert_eq!(render(&req), want);
}

/// Decodes a swap body (HTTP 200) for endpoint `E` (same as [`decode`]; named for readability).
pub fn decode_swap<E: Endpoint>(body: &str) -> Result<E::Output, Error> {
    decode_status::<E>(200, body)
}

/// Builds `E` from catalog-style wire parameters (a JSON object or array body) and returns the
/// request, for catalog round-trip tests.
pub fn build_from_json(
    method: &str,
    path: &str,
    json: &str,
) -> Result<http::Request<Vec<u8>>, Error> {
    let (entry, vars) = digifinex_core::catalog::find(method, path).expect("endpoint in catalog");
    let mut params = digifinex_core::catalog::ParamMap::new();
    for (k, v) in vars {
        params.insert_path_var(k, v);
    }
    params.insert_json(json)?;
    (entry.build)(params, &Config::default(), Some(&creds()), NOW)
}

/// An answer built from the fields a test names, the others at their `Default` (answers are
/// `#[non_exhaustive]`, so a struct expression is refused outside the crate):
/// `answer!(Level { price: d("1"), amount })`.
#[allow(unused_macros)]
macro_rules! answer {
    ($t:ident { $($f:ident $(: $v:expr)?),* $(,)? }) => {{
        #[allow(unused_mut)]
        let mut a = <$t>::default();
        $( a.$f = answer!(@value $f $($v)?); )*
        a
    }};
    (@value $f:ident $v:expr) => { $v };
    (@value $f:ident) => { $f };
}
#[allow(unused_imports)]
pub(crate) use answer;
