//! Swap hot paths, each beside a baseline measured in the same run:
//! * build + sign a swap limit order (JSON body, ms timestamp) vs bare HMAC-SHA256 + hex of the
//!   same signed text;
//! * decode a 100+100-level depth and 100 candles vs serde_json decoding the same bytes into
//!   plain `f64` structs (lossy, the speed reference).
//!
//! Run: `cargo bench -p digifinex-core --bench swap`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use digifinex_core::swap::{CandlesRequest, DepthRequest, OrderSide, OrderSpec, PlaceOrderRequest};
use digifinex_core::{build, parse, Config, Credentials, Decimal, TimestampMillis};
use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use sha2::Sha256;
use std::hint::black_box;

/// A depth body as the swap API writes it: prices as strings, amounts as numbers.
fn depth_body(levels: usize) -> Vec<u8> {
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

/// A candles body: `[ms, open, high, low, close, volume, token volume]`, values as strings.
fn candles_body(n: usize) -> Vec<u8> {
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
#[allow(dead_code)]
struct F64Depth {
    instrument_id: String,
    timestamp: i64,
    asks: Vec<(StrF64, f64)>,
    bids: Vec<(StrF64, f64)>,
}

/// A number sent as a JSON string, parsed lossily (the baseline does the same work as ours:
/// read the string, turn it into a number).
struct StrF64(#[allow(dead_code)] f64);

impl<'de> Deserialize<'de> for StrF64 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s: &str = Deserialize::deserialize(d)?;
        s.parse().map(StrF64).map_err(serde::de::Error::custom)
    }
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Envelope<T> {
    code: i64,
    data: T,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Candles {
    instrument_id: String,
    granularity: String,
    candles: Vec<(i64, StrF64, StrF64, StrF64, StrF64, StrF64, StrF64)>,
}

fn response(body: &[u8]) -> http::Response<&[u8]> {
    http::Response::new(body)
}

fn bench_sign(c: &mut Criterion) {
    let creds = Credentials::new("0123456789abcd", "01234567890123456789abcd");
    let cfg = Config::default();
    let now = TimestampMillis(1_657_522_488_402);
    let order = PlaceOrderRequest::new(OrderSpec::limit(
        "BTCUSDTPERP",
        OrderSide::OpenLong,
        digifinex_core::Size::new(Decimal::new(1, 0)),
        digifinex_core::Price::new(Decimal::new(200_005, 1)),
    ));
    let req = build(&order, &cfg, Some(&creds), now).unwrap();
    let text = [
        b"1657522488402POST/swap/v2/trade/order_place".as_slice(),
        req.body().as_slice(),
    ]
    .concat();
    let mut g = c.benchmark_group("swap_sign");
    g.bench_function("baseline_hmac_hex", |b| {
        b.iter(|| {
            let mut mac =
                Hmac::<Sha256>::new_from_slice(black_box(b"01234567890123456789abcd")).unwrap();
            mac.update(black_box(&text));
            black_box(hex::encode(mac.finalize().into_bytes()))
        })
    });
    g.bench_function("build_signed_limit_order", |b| {
        b.iter(|| black_box(build(black_box(&order), &cfg, Some(&creds), now).unwrap()))
    });
    g.finish();
}

fn bench_decode(c: &mut Criterion) {
    let depth = depth_body(100);
    let candles = candles_body(100);
    let mut g = c.benchmark_group("swap_decode");
    g.throughput(Throughput::Bytes(depth.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("baseline_f64", "depth_100x2"),
        &depth,
        |b, body| {
            b.iter(|| {
                black_box(serde_json::from_slice::<F64Envelope<F64Depth>>(black_box(body)).unwrap())
            })
        },
    );
    g.bench_with_input(
        BenchmarkId::new("exact", "depth_100x2"),
        &depth,
        |b, body| b.iter(|| black_box(parse::<DepthRequest>(&response(black_box(body))).unwrap())),
    );
    g.throughput(Throughput::Bytes(candles.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("baseline_f64", "candles_100"),
        &candles,
        |b, body| {
            b.iter(|| {
                black_box(
                    serde_json::from_slice::<F64Envelope<F64Candles>>(black_box(body)).unwrap(),
                )
            })
        },
    );
    g.bench_with_input(
        BenchmarkId::new("exact", "candles_100"),
        &candles,
        |b, body| {
            b.iter(|| black_box(parse::<CandlesRequest>(&response(black_box(body))).unwrap()))
        },
    );
    g.finish();
}

criterion_group!(benches, bench_sign, bench_decode);
criterion_main!(benches);
