//! Swap hot paths, each beside a baseline measured in the same run:
//! * build + sign a swap limit order (JSON body, ms timestamp) vs bare HMAC-SHA256 + hex of the
//!   same signed text (keyed per call, and with the key schedule done once), beside the floor
//!   of the output type and the keyed HMAC plus that request (as in `spot`);
//! * decode a 100+100-level depth and 100 candles vs serde_json decoding the same bytes into
//!   plain `f64` structs (lossy, the speed reference).
//!
//! Run: `cargo bench -p digifinex-core --bench swap`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use digifinex_core::swap::{CandlesRequest, DepthRequest};
use digifinex_core::{build, parse, Config, Credentials};
use std::hint::black_box;

mod data;
use data::*;

fn bench_sign(c: &mut Criterion) {
    let creds = Credentials::new(KEY, SECRET);
    let cfg = Config::default();
    let order = swap_order();
    let text = swap_text();
    let keyed = keyed();
    let mut g = c.benchmark_group("swap_sign");
    g.bench_function("baseline_hmac_hex", |b| {
        b.iter(|| black_box(hmac_hex(black_box(SECRET.as_bytes()), black_box(&text))))
    });
    g.bench_function("baseline_hmac_hex_keyed", |b| {
        b.iter(|| black_box(hmac_hex_keyed(&keyed, black_box(&text))))
    });
    // The floor of the output type, and the least a signed request costs: the keyed HMAC
    // plus that request (see `data::Floor`).
    let floor = Floor::swap();
    g.bench_function("baseline_request_floor", |b| {
        b.iter(|| black_box(floor.request()))
    });
    g.bench_function("baseline_hmac_hex_keyed_plus_request_floor", |b| {
        b.iter(|| {
            black_box(hmac_hex_keyed(&keyed, black_box(&text[..])));
            black_box(floor.request())
        })
    });
    g.bench_function("build_signed_limit_order", |b| {
        b.iter(|| black_box(build(black_box(&order), &cfg, Some(&creds), SWAP_NOW).unwrap()))
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
