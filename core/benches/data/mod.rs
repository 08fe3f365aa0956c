//! The benchmark documents and their baselines, shared by the criterion benches (`spot`, `swap`,
//! `ws`) and the instruction counter (`instructions`), so that both measure the same bytes.
//!
//! Baselines: serde_json decoding the same bytes into plain `f64` structs (lossy, the speed
//! reference), flate2 inflating the same frames, and bare HMAC-SHA256 + hex of the same signed
//! text.

// Reads its fixtures from files: the core's no-I/O lint (`core/clippy.toml`) is for the library.
#![allow(clippy::disallowed_methods)]
#![allow(dead_code)]

use std::io::Read;

use digifinex_core::{build, Config, Credentials, Decimal, TimestampMillis};
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Deserializer};
use sha2::Sha256;

pub const KEY: &str = "0123456789abcd";
pub const SECRET: &str = "01234567890123456789abcd";

/// The spot order signed by the benches and the text it signs.
pub fn spot_order() -> digifinex_core::spot::PlaceOrderRequest {
    use digifinex_core::spot::{LimitOrder, Market, PlaceOrderRequest};
    PlaceOrderRequest::new(
        Market::Spot,
        "trx_usdt",
        LimitOrder::buy(
            digifinex_core::Amount::new(Decimal::new(1, 0)),
            digifinex_core::Price::new(Decimal::new(1, 2)),
        ),
    )
}
pub const SPOT_NOW: TimestampMillis = TimestampMillis(1_589_872_188_000);
/// The text the spot order signs: its form body (a POST without query). Checked against the
/// built request by [`spot_text`].
pub const SPOT_TEXT: &str = "market=spot&symbol=trx_usdt&price=0.01&amount=1&type=buy";

/// [`SPOT_TEXT`], checked: the body of the built order.
pub fn spot_text() -> &'static [u8] {
    let creds = Credentials::new(KEY, SECRET);
    let req = build(&spot_order(), &Config::default(), Some(&creds), SPOT_NOW).unwrap();
    assert_eq!(req.body().as_slice(), SPOT_TEXT.as_bytes());
    assert!(req.uri().query().is_none());
    SPOT_TEXT.as_bytes()
}

/// The swap order signed by the benches.
pub fn swap_order() -> digifinex_core::swap::PlaceOrderRequest {
    use digifinex_core::swap::{OrderSide, OrderSpec, PlaceOrderRequest};
    PlaceOrderRequest::new(OrderSpec::limit(
        "BTCUSDTPERP",
        OrderSide::OpenLong,
        digifinex_core::Size::new(Decimal::new(1, 0)),
        digifinex_core::Price::new(Decimal::new(200_005, 1)),
    ))
}
pub const SWAP_NOW: TimestampMillis = TimestampMillis(1_657_522_488_402);

/// The text the swap order signs: `timestamp + METHOD + path + body`.
pub fn swap_text() -> Vec<u8> {
    let creds = Credentials::new(KEY, SECRET);
    let req = build(&swap_order(), &Config::default(), Some(&creds), SWAP_NOW).unwrap();
    [
        b"1657522488402POST/swap/v2/trade/order_place".as_slice(),
        req.body().as_slice(),
    ]
    .concat()
}

/// The baseline of signing: HMAC-SHA256 keyed with the secret, then lowercase hex.
#[inline(never)]
pub fn hmac_hex(secret: &[u8], text: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).unwrap();
    mac.update(text);
    hex::encode(mac.finalize().into_bytes())
}

/// The same with the key schedule done once (`keyed` is `Hmac::new_from_slice(secret)`), as
/// a client holding its credentials can: the floor of signing one text.
#[inline(never)]
pub fn hmac_hex_keyed(keyed: &Hmac<Sha256>, text: &[u8]) -> String {
    let mut mac = keyed.clone();
    mac.update(text);
    hex::encode(mac.finalize().into_bytes())
}

pub fn keyed() -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap()
}

/// A spot book of `levels` bids and asks, numbers as JSON numbers.
pub fn order_book_body(levels: usize) -> Vec<u8> {
    let mut s = String::from("{\"bids\":[");
    for i in 0..levels {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "[{}.{:02},{}.{:04}]",
            9559 - i / 100,
            99 - i % 100,
            i % 7,
            (i * 37) % 10000
        ));
    }
    s.push_str("],\"asks\":[");
    for i in 0..levels {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "[{}.{:02},{}.{:04}]",
            9560 + i / 100,
            i % 100,
            i % 5,
            (i * 53) % 10000
        ));
    }
    s.push_str("],\"date\":1589874294,\"code\":0}");
    s.into_bytes()
}

/// `n` spot klines `[time, volume, close, high, low, open]`.
pub fn kline_body(n: usize) -> Vec<u8> {
    let mut s = String::from("{\"data\":[");
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        let base = 11_000 + (i * 7) % 500;
        s.push_str(&format!(
            "[{},{}.{},{}.{:03},{}.{:03},{}.{:03},{}.{:03}]",
            1_706_763_600 + i * 60,
            i % 40,
            i % 100,
            base / 1000,
            base % 1000,
            (base + 3) / 1000,
            (base + 3) % 1000,
            (base - 4) / 1000,
            (base - 4) % 1000,
            (base + 1) / 1000,
            (base + 1) % 1000
        ));
    }
    s.push_str("],\"code\":0}");
    s.into_bytes()
}

/// The 716-symbol `spot/symbols` capture.
pub fn symbols_body() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/real/v3_spot_symbols_2.json"
    ))
    .unwrap()
}

/// A swap depth as the swap API writes it: prices as strings, amounts as numbers.
pub fn depth_body(levels: usize) -> Vec<u8> {
    let mut s = String::from(
        "{\"code\":0,\"data\":{\"instrument_id\":\"BTCUSDTPERP\",\"timestamp\":1657522488402,\"asks\":[",
    );
    for i in 0..levels {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "[\"{}.{}\",{}]",
            20_000 + i,
            i % 10,
            1 + (i * 37) % 5000
        ));
    }
    s.push_str("],\"bids\":[");
    for i in 0..levels {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "[\"{}.{}\",{}]",
            19_999 - i,
            i % 10,
            1 + (i * 53) % 5000
        ));
    }
    s.push_str("]}}");
    s.into_bytes()
}

/// Swap candles: `[ms, open, high, low, close, volume, token volume]`, values as strings.
pub fn candles_body(n: usize) -> Vec<u8> {
    let mut s = String::from(
        "{\"code\":0,\"data\":{\"instrument_id\":\"BTCUSDTPERP\",\"granularity\":\"1m\",\"candles\":[",
    );
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        let base = 20_000 + (i * 7) % 500;
        s.push_str(&format!(
            "[{},\"{}.5\",\"{}.9\",\"{}.1\",\"{}.4\",\"{}\",\"{}.{:04}\"]",
            1_657_522_440_000u64 + (i as u64) * 60_000,
            base,
            base + 3,
            base - 4,
            base + 1,
            100 + i * 13,
            i % 40,
            (i * 37) % 10_000
        ));
    }
    s.push_str("]}}");
    s.into_bytes()
}

#[derive(Deserialize)]
pub struct F64Book {
    pub bids: Vec<[f64; 2]>,
    pub asks: Vec<[f64; 2]>,
    pub date: i64,
    pub code: i64,
}

#[derive(Deserialize)]
pub struct F64Klines {
    pub data: Vec<(i64, f64, f64, f64, f64, f64)>,
    pub code: i64,
}

#[derive(Deserialize)]
pub struct F64Symbol {
    pub symbol: String,
    pub status: String,
    pub base_asset: String,
    pub quote_asset: String,
    pub amount_precision: u32,
    pub price_precision: u32,
    pub minimum_amount: f64,
    pub minimum_value: f64,
    pub zone: String,
    pub order_types: Vec<String>,
}

#[derive(Deserialize)]
pub struct F64Symbols {
    pub symbol_list: Vec<F64Symbol>,
    pub code: i64,
}

#[derive(Deserialize)]
pub struct F64Depth {
    pub instrument_id: String,
    pub timestamp: i64,
    pub asks: Vec<(StrF64, f64)>,
    pub bids: Vec<(StrF64, f64)>,
}

/// A number sent as a JSON string, parsed lossily (the baseline does the same work as ours:
/// read the string, turn it into a number).
pub struct StrF64(pub f64);

impl<'de> Deserialize<'de> for StrF64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s: &str = Deserialize::deserialize(d)?;
        s.parse().map(StrF64).map_err(serde::de::Error::custom)
    }
}

#[derive(Deserialize)]
pub struct F64Envelope<T> {
    pub code: i64,
    pub data: T,
}

#[derive(Deserialize)]
pub struct F64Candles {
    pub instrument_id: String,
    pub granularity: String,
    pub candles: Vec<(i64, StrF64, StrF64, StrF64, StrF64, StrF64, StrF64)>,
}

/// An answer with status 200 around `body`.
pub fn response(body: &[u8]) -> http::Response<&[u8]> {
    http::Response::new(body)
}

// ---- websocket frames ----

/// A zlib stream at level 9 (`78 DA`), as the venue sends.
pub fn zlib(json: &str) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 9)
}

/// A delta of 20 changed levels per side, as the venue writes it (price string, size number).
pub fn depth_delta() -> String {
    let side = |base: u32, up: bool| {
        (0..20)
            .map(|i| {
                let p = if up { base + i } else { base - i };
                format!("[\"{p}.{}\",{}]", i % 10, 1 + (i * 37) % 5000)
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        r#"{{"event":"depth.update","data":{{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":1758598000100,"asks":[{}],"bids":[{}]}}}}"#,
        side(86_660, true),
        side(86_640, true)
    )
}

pub const TICKER: &str = r#"{"event":"ticker.update","data":{"instrument_id":"BTCUSDTPERP","best_bid":"86658.0","best_bid_size":"124.000000","best_ask":"86658.1","best_ask_size":"2284.000000","high_24h":"87711.9","open_24h":"86102.2","low_24h":"85511.0","last":"86658.1","last_qty":"47.000000","volume_24h":"127958869","volume_token_24h":"127958.869","open_interest":"-","timestamp":1758598000000}}"#;

fn f64_text<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let s: &str = Deserialize::deserialize(d)?;
    Ok(s.parse().unwrap_or(f64::NAN))
}

#[derive(Deserialize)]
pub struct F64Level(#[serde(deserialize_with = "f64_text")] pub f64, pub f64);

#[derive(Deserialize)]
pub struct F64WsDepth<'a> {
    pub event: &'a str,
    #[serde(borrow)]
    pub data: F64WsDepthData<'a>,
}

#[derive(Deserialize)]
pub struct F64WsDepthData<'a> {
    pub instrument_id: &'a str,
    pub level: u32,
    pub timestamp: i64,
    pub asks: Vec<F64Level>,
    pub bids: Vec<F64Level>,
}

#[derive(Deserialize)]
pub struct F64TickerFrame<'a> {
    pub event: &'a str,
    #[serde(borrow)]
    pub data: F64Ticker<'a>,
}

#[derive(Deserialize)]
pub struct F64Ticker<'a> {
    pub instrument_id: &'a str,
    #[serde(deserialize_with = "f64_text")]
    pub best_bid: f64,
    #[serde(deserialize_with = "f64_text")]
    pub best_bid_size: f64,
    #[serde(deserialize_with = "f64_text")]
    pub best_ask: f64,
    #[serde(deserialize_with = "f64_text")]
    pub best_ask_size: f64,
    #[serde(deserialize_with = "f64_text")]
    pub high_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    pub open_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    pub low_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    pub last: f64,
    #[serde(deserialize_with = "f64_text")]
    pub last_qty: f64,
    #[serde(deserialize_with = "f64_text")]
    pub volume_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    pub volume_token_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    pub open_interest: f64,
    pub timestamp: i64,
}

/// The baseline's inflater: flate2's `ZlibDecoder` into a reused buffer.
pub fn inflate_flate2(z: &[u8], out: &mut Vec<u8>) {
    out.clear();
    flate2::read::ZlibDecoder::new(z)
        .read_to_end(out)
        .expect("zlib");
}

/// The baseline of one depth frame: inflate, then serde_json into `f64`.
pub fn ws_depth_f64(z: &[u8], buf: &mut Vec<u8>) -> usize {
    inflate_flate2(z, buf);
    let d: F64WsDepth = serde_json::from_slice(buf).expect("json");
    d.data.asks.len()
}

/// The baseline of one ticker frame.
pub fn ws_ticker_f64(z: &[u8], buf: &mut Vec<u8>) -> f64 {
    inflate_flate2(z, buf);
    let t: F64TickerFrame = serde_json::from_slice(buf).expect("json");
    t.data.last
}

/// The floor of `build`'s output type: the same `http::Request` as a signed order's (URL
/// parsed, four headers, the body) made from parts already at hand, without encoding or
/// signing, in as few allocations as `build` makes (the URL, signature and timestamp in one
/// shared buffer that the `Uri` and two header values share).
pub struct Floor {
    /// The URL, a 64-character signature and the timestamp.
    text: Vec<u8>,
    url_end: usize,
    content_type: http::HeaderValue,
    key: http::HeaderValue,
    body: Vec<u8>,
}

impl Floor {
    /// The spot order's request (its form body, a timestamp in seconds).
    pub fn spot() -> Floor {
        let url = "https://openapi.digifinex.com/v3/spot/order/new";
        Floor {
            text: format!("{url}{}1589872188", "a".repeat(64)).into_bytes(),
            url_end: url.len(),
            content_type: http::HeaderValue::from_static("application/x-www-form-urlencoded"),
            key: http::HeaderValue::from_static(KEY),
            body: spot_text().to_vec(),
        }
    }

    /// The swap order's request (its JSON body, a timestamp in milliseconds).
    pub fn swap() -> Floor {
        let url = "https://openapi.digifinex.com/swap/v2/trade/order_place";
        let body = build(
            &swap_order(),
            &Config::default(),
            Some(&Credentials::new(KEY, SECRET)),
            SWAP_NOW,
        )
        .unwrap()
        .into_body();
        Floor {
            text: format!("{url}{}1657522488402", "a".repeat(64)).into_bytes(),
            url_end: url.len(),
            content_type: http::HeaderValue::from_static("application/json"),
            key: http::HeaderValue::from_static(KEY),
            body,
        }
    }

    /// The request, made anew.
    #[inline(never)]
    pub fn request(&self) -> http::Request<Vec<u8>> {
        use http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
        use std::hint::black_box;
        let end = self.url_end;
        let text = bytes::Bytes::from(black_box(&self.text[..]).to_vec());
        let uri = http::Uri::from_maybe_shared(text.slice(..end)).unwrap();
        let mut headers = http::HeaderMap::with_capacity(5);
        headers.append(CONTENT_TYPE, self.content_type.clone());
        headers.append(HeaderName::from_static("access-key"), self.key.clone());
        headers.append(
            HeaderName::from_static("access-sign"),
            HeaderValue::from_maybe_shared(text.slice(end..end + 64)).unwrap(),
        );
        headers.append(
            HeaderName::from_static("access-timestamp"),
            HeaderValue::from_maybe_shared(text.slice(end + 64..)).unwrap(),
        );
        let mut req = http::Request::new(black_box(&self.body[..]).to_vec());
        *req.method_mut() = http::Method::POST;
        *req.uri_mut() = uri;
        *req.headers_mut() = headers;
        req
    }
}
