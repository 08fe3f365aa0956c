//! Websocket frames (issue 19): inflate + decode a 20-level swap depth delta and a swap ticker
//! into typed, exact events, beside the baseline of the same run: `flate2` (`ZlibDecoder`, into a
//! reused buffer) + `serde_json` into plain `f64` structs borrowing their strings (lossy, the
//! speed reference). Two entries are measured: the public `ws::decode_frame` (the events a tool
//! gets) and the connection's input alone (`decode_only`, no event handed out). Aim: at most
//! 1.0x the baseline.
//!
//! The stream machine with 100 swap depth subscriptions (`ws_streams_100`): frames spread over
//! the four sockets that `Streams` opens for them, each applied to its book and handed out as
//! an event, beside the same frames through one bare `Connection` of 30 subscriptions (what a
//! stream was before sharding, at its 30-channel ceiling) and through `decode_frame` alone.
//! Frames per second per core = 1 / the time per frame.
//!
//! Run: `cargo bench -p digifinex-core --bench ws`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_core::__fuzz::decode_only;
use digifinex_core::ws::{
    decode_frame, Action, Connection, Frame, SocketReport, StreamAction, Streams, WsConfig,
};
use digifinex_core::{Family, TimestampMillis};

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

/// A snapshot (`full`) or a delta of instrument `i`'s 20-level book; `k` varies the sizes.
fn book_frame(i: usize, full: bool, k: usize) -> Vec<u8> {
    let side = |base: usize, up: bool| {
        (0..20)
            .map(|j| {
                let p = if up { base + j } else { base - j };
                format!("[\"{p}\",{}]", 1 + (j * 37 + k) % 5000)
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    zlib(&format!(
        r#"{{"event":"depth.update","data":{{"instrument_id":"C{i}USDTPERP","level":20,"timestamp":1758598000100,"asks":[{}],"bids":[{}]}},"full_data":{full}}}"#,
        side(1001, true),
        side(1000, false)
    ))
}

/// The request id in a frame the machine sent.
fn request_id(text: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    v["id"].as_u64().unwrap()
}

/// `Streams` of `n` swap depth subscriptions, every socket open and every subscription
/// acknowledged, every book snapshotted.
fn ready_streams(n: usize) -> Streams {
    let t = TimestampMillis(1_700_000_000_000);
    let mut s = digifinex_core::ws::StreamBuilder::<NoTransport>::new(Family::Swap)
        .open_interval(std::time::Duration::ZERO)
        .seed(1);
    for i in 0..n {
        s = s.subscribe(format!("swap:depth:C{i}USDTPERP:20").parse().unwrap());
    }
    let mut streams = s.settings().streams().unwrap();
    let mut generations = std::collections::HashMap::new();
    loop {
        match streams.poll(t) {
            StreamAction::Connect(id) => {
                let g = streams.started(id);
                generations.insert(id, g);
                streams.report(id, g, SocketReport::Opened, t);
            }
            StreamAction::Send(id, text) => {
                let reply = format!(r#"{{"id":{},"code":1}}"#, request_id(&text));
                streams.report(
                    id,
                    generations[&id],
                    SocketReport::Frame(reply.into_bytes(), true),
                    t,
                );
            }
            StreamAction::Event(_) => {}
            StreamAction::Wait(_) | StreamAction::Close(..) | StreamAction::Stopped => break,
        }
    }
    assert_eq!(streams.sockets(), n.div_ceil(30));
    for i in 0..n {
        let socket = u32::try_from(i / 30).unwrap();
        streams.on_frame(socket, t, Frame::Binary(&book_frame(i, true, 0)));
    }
    while let StreamAction::Event(_) = streams.poll(t) {}
    streams
}

/// A transport that is never built (the bench drives the machine by hand).
struct NoTransport;

impl digifinex_core::ws::StreamTransport for NoTransport {
    type Stream = ();
    type Tls = ();
    type Rest = digifinex_core::session::Session;
    type Connector = ();
    type Tracked = ();
    fn build(_: digifinex_core::ws::StreamBuilder<Self>) -> Result<(), digifinex_core::Error> {
        Ok(())
    }
    fn track(
        _: digifinex_core::ws::StreamBuilder<Self>,
        _: digifinex_core::track::Tracker,
    ) -> Result<(), digifinex_core::Error> {
        Ok(())
    }
    fn session(rest: &Self::Rest) -> &digifinex_core::session::Session {
        rest
    }
}

fn streams(c: &mut Criterion) {
    let t = TimestampMillis(1_700_000_000_000);
    let deltas: Vec<Vec<u8>> = (0..100).map(|i| book_frame(i, false, i * 7 + 1)).collect();
    let mut streams = ready_streams(100);
    let mut conn = Connection::new(Family::Swap, WsConfig::default(), None);
    for i in 0..30 {
        conn.subscribe(format!("swap:depth:C{i}USDTPERP:20").parse().unwrap())
            .unwrap();
    }
    let _ = conn.poll(t);
    let _ = conn.poll(t);
    conn.on_connected(t);
    loop {
        match conn.poll(t) {
            Action::Send(text) => {
                let reply = format!(r#"{{"id":{},"code":1}}"#, request_id(&text));
                conn.on_frame(t, Frame::Text(&reply));
            }
            Action::Event(_) => {}
            _ => break,
        }
    }
    for i in 0..30 {
        conn.on_frame(t, Frame::Binary(&book_frame(i, true, 0)));
    }
    while let Action::Event(_) = conn.poll(t) {}
    // Every frame gives its book event.
    let mut k = 0usize;
    let mut g = c.benchmark_group("ws_streams_100");
    g.bench_function("Streams, 100 subscriptions on 4 sockets", |b| {
        b.iter(|| {
            k = (k + 1) % 100;
            let socket = u32::try_from(k / 30).unwrap();
            streams.on_frame(socket, t, Frame::Binary(black_box(&deltas[k])));
            match streams.poll(t) {
                StreamAction::Event(e) => black_box(e),
                other => panic!("{other:?}"),
            };
        })
    });
    g.bench_function("Connection, 30 subscriptions (before sharding)", |b| {
        b.iter(|| {
            k = (k + 1) % 30;
            conn.on_frame(t, Frame::Binary(black_box(&deltas[k])));
            match conn.poll(t) {
                Action::Event(e) => black_box(e),
                other => panic!("{other:?}"),
            };
        })
    });
    g.bench_function("decode_frame (baseline)", |b| {
        b.iter(|| {
            k = (k + 1) % 100;
            black_box(decode_frame(
                Family::Swap,
                Frame::Binary(black_box(&deltas[k])),
            ))
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
    targets = frames, streams
}
criterion_main!(benches);
