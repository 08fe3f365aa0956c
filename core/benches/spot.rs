//! Spot hot paths, each beside a baseline measured in the same run:
//! * build + sign a limit order vs bare HMAC-SHA256 + hex of the same text;
//! * decode a 150+150 order book, 500 klines and the 716-symbol `spot/symbols` capture vs
//!   serde_json decoding the same bytes into plain `f64` structs (lossy, the speed reference).
//!
//! Run: `cargo bench -p digifinex-core --bench spot`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use digifinex_core::spot::{
    KlineRequest, LimitOrder, Market, OrderBookRequest, PlaceOrderRequest, SpotSymbolsRequest,
};
use digifinex_core::{build, parse, Config, Credentials, Decimal, TimestampMillis};
use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use sha2::Sha256;
use std::hint::black_box;

fn order_book_body(levels: usize) -> Vec<u8> {
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

fn kline_body(n: usize) -> Vec<u8> {
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

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Book {
    bids: Vec<[f64; 2]>,
    asks: Vec<[f64; 2]>,
    date: i64,
    code: i64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Klines {
    data: Vec<(i64, f64, f64, f64, f64, f64)>,
    code: i64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Symbol {
    symbol: String,
    status: String,
    base_asset: String,
    quote_asset: String,
    amount_precision: u32,
    price_precision: u32,
    minimum_amount: f64,
    minimum_value: f64,
    zone: String,
    order_types: Vec<String>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Symbols {
    symbol_list: Vec<F64Symbol>,
    code: i64,
}

fn response(body: &[u8]) -> http::Response<&[u8]> {
    let mut r = http::Response::new(body);
    *r.status_mut() = http::StatusCode::OK;
    r
}

fn bench_sign(c: &mut Criterion) {
    let creds = Credentials::new("0123456789abcd", "01234567890123456789abcd");
    let cfg = Config::default();
    let now = TimestampMillis(1_589_872_188_000);
    let order = PlaceOrderRequest::new(
        Market::Spot,
        "trx_usdt",
        LimitOrder::buy(
            digifinex_core::Amount::new(Decimal::new(1, 0)),
            digifinex_core::Price::new(Decimal::new(1, 2)),
        ),
    );
    let text = "symbol=trx_usdt&price=0.01&amount=1&type=buy";
    let mut g = c.benchmark_group("spot_sign");
    g.bench_function("baseline_hmac_hex", |b| {
        b.iter(|| {
            let mut mac =
                Hmac::<Sha256>::new_from_slice(black_box(b"01234567890123456789abcd")).unwrap();
            mac.update(black_box(text.as_bytes()));
            black_box(hex::encode(mac.finalize().into_bytes()))
        })
    });
    g.bench_function("build_signed_limit_order", |b| {
        b.iter(|| black_box(build(black_box(&order), &cfg, Some(&creds), now).unwrap()))
    });
    g.finish();
}

fn bench_decode(c: &mut Criterion) {
    let book = order_book_body(150);
    let klines = kline_body(500);
    let symbols = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/real/v3_spot_symbols_2.json"
    ))
    .unwrap();

    let mut g = c.benchmark_group("spot_decode");
    g.throughput(Throughput::Bytes(book.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("baseline_f64", "book_150x2"),
        &book,
        |b, body| b.iter(|| black_box(serde_json::from_slice::<F64Book>(black_box(body)).unwrap())),
    );
    g.bench_with_input(BenchmarkId::new("exact", "book_150x2"), &book, |b, body| {
        b.iter(|| black_box(parse::<OrderBookRequest>(&response(black_box(body))).unwrap()))
    });
    g.throughput(Throughput::Bytes(klines.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("baseline_f64", "kline_500"),
        &klines,
        |b, body| {
            b.iter(|| black_box(serde_json::from_slice::<F64Klines>(black_box(body)).unwrap()))
        },
    );
    g.bench_with_input(
        BenchmarkId::new("exact", "kline_500"),
        &klines,
        |b, body| b.iter(|| black_box(parse::<KlineRequest>(&response(black_box(body))).unwrap())),
    );
    g.throughput(Throughput::Bytes(symbols.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("baseline_f64", "symbols_716"),
        &symbols,
        |b, body| {
            b.iter(|| black_box(serde_json::from_slice::<F64Symbols>(black_box(body)).unwrap()))
        },
    );
    g.bench_with_input(
        BenchmarkId::new("exact", "symbols_716"),
        &symbols,
        |b, body| {
            b.iter(|| black_box(parse::<SpotSymbolsRequest>(&response(black_box(body))).unwrap()))
        },
    );
    g.finish();
}

criterion_group!(benches, bench_sign, bench_decode);
criterion_main!(benches);
