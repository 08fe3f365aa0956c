//! Spot hot paths, each beside a baseline measured in the same run:
//! * build + sign a limit order vs bare HMAC-SHA256 + hex of the same text (keyed per call, and
//!   with the key schedule done once, the floor of signing), beside the floor of the output
//!   type (`baseline_request_floor`: the same `http::Request` from parts at hand) and the keyed
//!   HMAC plus that request (the least a signed request costs);
//! * decode a 150+150 order book, 500 klines and the 716-symbol `spot/symbols` capture vs
//!   serde_json decoding the same bytes into plain `f64` structs (lossy, the speed reference).
//!
//! Run: `cargo bench -p digifinex-core --bench spot`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use digifinex_core::spot::{KlineRequest, OrderBookRequest, SpotSymbolsRequest};
use digifinex_core::{build, parse, Config, Credentials};
use std::hint::black_box;

mod data;
use data::*;

fn bench_sign(c: &mut Criterion) {
    let creds = Credentials::new(KEY, SECRET);
    let cfg = Config::default();
    let order = spot_order();
    let keyed = keyed();
    let text = spot_text();
    let mut g = c.benchmark_group("spot_sign");
    g.bench_function("baseline_hmac_hex", |b| {
        b.iter(|| black_box(hmac_hex(black_box(SECRET.as_bytes()), black_box(text))))
    });
    g.bench_function("baseline_hmac_hex_keyed", |b| {
        b.iter(|| black_box(hmac_hex_keyed(&keyed, black_box(text))))
    });
    // The floor of the output type, and the least a signed request costs: the keyed HMAC
    // plus that request (see `data::Floor`).
    let floor = Floor::spot();
    g.bench_function("baseline_request_floor", |b| {
        b.iter(|| black_box(floor.request()))
    });
    g.bench_function("baseline_hmac_hex_keyed_plus_request_floor", |b| {
        b.iter(|| {
            black_box(hmac_hex_keyed(&keyed, black_box(text)));
            black_box(floor.request())
        })
    });
    g.bench_function("build_signed_limit_order", |b| {
        b.iter(|| black_box(build(black_box(&order), &cfg, Some(&creds), SPOT_NOW).unwrap()))
    });
    g.finish();
}

fn bench_decode(c: &mut Criterion) {
    let book = order_book_body(150);
    let klines = kline_body(500);
    let symbols = symbols_body();

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
