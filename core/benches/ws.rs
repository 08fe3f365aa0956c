//! Websocket frames (issue 19): inflate + decode a 20-level swap depth delta and a swap ticker
//! into typed, exact events, beside the baseline of the same run: `flate2` (`ZlibDecoder`, into a
//! reused buffer) + `serde_json` into plain `f64` structs borrowing their strings (lossy, the
//! speed reference). Two entries are measured: the public `ws::decode_frame` (the events a tool
//! gets) and the connection's input alone (`decode_only`, no event handed out). Aim: at most
//! 1.0x the baseline.
//!
//! Run: `cargo bench -p digifinex-core --bench ws`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_core::__fuzz::decode_only;
use digifinex_core::ws::{decode_frame, Frame};
use digifinex_core::Family;

mod data;
use data::*;

fn frames(c: &mut Criterion) {
    let depth = zlib(&depth_delta());
    let ticker = zlib(TICKER);
    assert!(decode_only(Family::Swap, Frame::Binary(&depth)));
    assert!(decode_only(Family::Swap, Frame::Binary(&ticker)));
    assert_eq!(
        decode_frame(Family::Swap, Frame::Binary(&depth))
            .unwrap()
            .len(),
        1
    );
    let mut buf = Vec::new();

    let mut g = c.benchmark_group("ws_depth_delta_20");
    g.bench_function("decode_frame", |b| {
        b.iter(|| decode_frame(Family::Swap, Frame::Binary(black_box(&depth))))
    });
    g.bench_function("decode_only", |b| {
        b.iter(|| decode_only(Family::Swap, Frame::Binary(black_box(&depth))))
    });
    g.bench_function("flate2+serde_json f64 (baseline)", |b| {
        b.iter(|| black_box(ws_depth_f64(black_box(&depth), &mut buf)))
    });
    g.finish();

    let mut g = c.benchmark_group("ws_ticker");
    g.bench_function("decode_frame", |b| {
        b.iter(|| decode_frame(Family::Swap, Frame::Binary(black_box(&ticker))))
    });
    g.bench_function("decode_only", |b| {
        b.iter(|| decode_only(Family::Swap, Frame::Binary(black_box(&ticker))))
    });
    g.bench_function("flate2+serde_json f64 (baseline)", |b| {
        b.iter(|| black_box(ws_ticker_f64(black_box(&ticker), &mut buf)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = frames
}
criterion_main!(benches);
