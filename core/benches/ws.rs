//! Websocket frames (issue 19): inflate + decode a 20-level swap depth delta and a swap ticker
//! into the typed, exact input of the connection, beside the baseline of the same run:
//! `flate2` (`ZlibDecoder`) + `serde_json` into plain `f64` structs (lossy, the speed
//! reference). Aim: at most 1.2x the baseline.
//!
//! Run: `cargo bench -p digifinex-core --bench ws`.

use std::hint::black_box;
use std::io::Read;

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_core::__fuzz::decode_only;
use digifinex_core::ws::Frame;
use digifinex_core::Family;
use serde::{Deserialize, Deserializer};

fn zlib(json: &str) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 9)
}

/// A delta of 20 changed levels per side, as the venue writes it (price string, size number).
fn depth_delta() -> String {
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

const TICKER: &str = r#"{"event":"ticker.update","data":{"instrument_id":"BTCUSDTPERP","best_bid":"86658.0","best_bid_size":"124.000000","best_ask":"86658.1","best_ask_size":"2284.000000","high_24h":"87711.9","open_24h":"86102.2","low_24h":"85511.0","last":"86658.1","last_qty":"47.000000","volume_24h":"127958869","volume_token_24h":"127958.869","open_interest":"-","timestamp":1758598000000}}"#;

fn f64_text<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let s: &str = Deserialize::deserialize(d)?;
    Ok(s.parse().unwrap_or(f64::NAN))
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Level(#[serde(deserialize_with = "f64_text")] f64, f64);

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Depth<'a> {
    event: &'a str,
    data: F64DepthData<'a>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64DepthData<'a> {
    instrument_id: &'a str,
    level: u32,
    timestamp: i64,
    asks: Vec<F64Level>,
    bids: Vec<F64Level>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64TickerFrame<'a> {
    event: &'a str,
    #[serde(borrow)]
    data: F64Ticker<'a>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct F64Ticker<'a> {
    instrument_id: &'a str,
    #[serde(deserialize_with = "f64_text")]
    best_bid: f64,
    #[serde(deserialize_with = "f64_text")]
    best_bid_size: f64,
    #[serde(deserialize_with = "f64_text")]
    best_ask: f64,
    #[serde(deserialize_with = "f64_text")]
    best_ask_size: f64,
    #[serde(deserialize_with = "f64_text")]
    high_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    open_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    low_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    last: f64,
    #[serde(deserialize_with = "f64_text")]
    last_qty: f64,
    #[serde(deserialize_with = "f64_text")]
    volume_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    volume_token_24h: f64,
    #[serde(deserialize_with = "f64_text")]
    open_interest: f64,
    timestamp: i64,
}

fn inflate_flate2(z: &[u8], out: &mut Vec<u8>) {
    out.clear();
    flate2::read::ZlibDecoder::new(z)
        .read_to_end(out)
        .expect("zlib");
}

fn frames(c: &mut Criterion) {
    let depth = zlib(&depth_delta());
    let ticker = zlib(TICKER);
    assert!(decode_only(Family::Swap, Frame::Binary(&depth)));
    assert!(decode_only(Family::Swap, Frame::Binary(&ticker)));

    let mut g = c.benchmark_group("ws_depth_delta_20");
    g.bench_function("digifinex (exact)", |b| {
        b.iter(|| decode_only(Family::Swap, Frame::Binary(black_box(&depth))))
    });
    let mut buf = Vec::new();
    g.bench_function("flate2+serde_json f64 (baseline)", |b| {
        b.iter(|| {
            inflate_flate2(black_box(&depth), &mut buf);
            let d: F64Depth = serde_json::from_slice(&buf).expect("json");
            black_box(d.data.asks.len())
        })
    });
    g.finish();

    let mut g = c.benchmark_group("ws_ticker");
    g.bench_function("digifinex (exact)", |b| {
        b.iter(|| decode_only(Family::Swap, Frame::Binary(black_box(&ticker))))
    });
    g.bench_function("flate2+serde_json f64 (baseline)", |b| {
        b.iter(|| {
            inflate_flate2(black_box(&ticker), &mut buf);
            let t: F64TickerFrame = serde_json::from_slice(&buf).expect("json");
            black_box(t.data.last)
        })
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
