//! Round-trip latency of a public GET over loopback, on the same server in the same run:
//! * `raw_ureq`: raw ureq sends the request and reads the body (no decoding), on the client's
//!   own agent (same pool, same connection; see below);
//! * `raw_ureq_core`: the same by hand with the sans-IO core: `digifinex_core::build`, raw ureq,
//!   `digifinex_core::parse` into the typed book (what the client does, minus the client);
//! * `digifinex_ureq`: the client (build, send, read, parse, session, tracing span).
//!
//! client / `raw_ureq` is the whole cost of using the library; client / `raw_ureq_core` is the
//! transport crate's own cost.
//!
//! Loopback latency on a small shared machine drifts by more than the differences measured
//! here between one criterion function and the next, so the `paired` group runs the client and
//! a baseline alternately, in short blocks of requests, and prints the ratio of their totals
//! (`paired ...: ours/baseline = ...`); criterion's own figure there is the client's time.
//!
//! `cargo bench -p digifinex-ureq --bench roundtrip`
use std::cell::Cell;
use std::time::{Duration, Instant};

mod support;

use criterion::{criterion_group, criterion_main, Bencher, Criterion};
use digifinex_core::spot::{OrderBook, OrderBookRequest};
use digifinex_core::{Clock, Config, SystemClock};
use digifinex_ureq::Client;
use std::hint::black_box;

/// Runs `base` and `ours` alternately in blocks of [`BLOCK`] requests (which goes first
/// alternates too) over the same connection, returns the time of `ours` for criterion and adds both totals to `tally`.
///
fn paired(b: &mut Bencher, tally: &support::Tally, mut base: impl FnMut(), mut ours: impl FnMut()) {
    b.iter_custom(|iters| {
        let (mut tb, mut to) = (Duration::ZERO, Duration::ZERO);
        let mut done = 0;
        let mut flip = false;
        while done < iters {
            let n = BLOCK.min(iters - done);
            let time = |f: &mut dyn FnMut()| {
                let t = Instant::now();
                for _ in 0..n {
                    f();
                }
                t.elapsed()
            };
            if flip {
                to += time(&mut ours);
                tb += time(&mut base);
            } else {
                tb += time(&mut base);
                to += time(&mut ours);
            }
            flip = !flip;
            done += n;
        }
        let (b0, o0, n0) = tally.get();
        tally.set((b0 + tb, o0 + to, n0 + iters));
        to
    });
}

/// Requests per side before switching, in the `paired` group.
const BLOCK: u64 = 64;

fn bench(c: &mut Criterion) {
    let base = support::server();
    let url = format!("{base}/v3/order_book?symbol=btc_usdt&limit=5");
    // No weight budget (on by default since issue 11): the benchmark measures the round trip,
    // not waits for the per-minute budget, as it did when the budget was opt-in.
    let client = Client::builder()
        .spot_base_url(format!("{base}/v3"))
        .allow_http(true)
        .without_weight_budget()
        .build()
        .unwrap();
    // The baselines use raw ureq on the client's own agent: the same pooled keep-alive
    // connection and so the same server thread. With one connection per side, each side's
    // latency depends on whether its server thread happens to share the client thread's core
    // (a direct switch) or not (a cross-core wake-up, about twice as slow on this VM), which
    // swamps the differences measured here.
    let raw = client.agent().clone();
    let req = OrderBookRequest::new("btc_usdt").limit(5);

    let mut g = c.benchmark_group("public_get_roundtrip");
    let raw_get = || {
        let mut resp = raw.get(&url).call().unwrap();
        resp.body_mut().read_to_vec().unwrap()
    };
    let config = Config::default().with_spot_base_url(format!("{base}/v3"));
    let raw_core_get = || -> OrderBook {
        let request = digifinex_core::build(&req, &config, None, SystemClock.now()).unwrap();
        let (parts, _) = request.into_parts();
        let mut resp = raw.run(http::Request::from_parts(parts, ())).unwrap();
        let body = resp.body_mut().read_to_vec().unwrap();
        let (parts, _) = resp.into_parts();
        let resp = http::Response::from_parts(parts, body.as_slice());
        digifinex_core::parse::<OrderBookRequest>(&resp).unwrap()
    };
    let client_get = || client.send(&req).unwrap();
    g.bench_function("raw_ureq", |b| b.iter(raw_get));
    g.bench_function("raw_ureq_core", |b| b.iter(raw_core_get));
    g.bench_function("digifinex_ureq", |b| b.iter(client_get));
    g.finish();

    let mut g = c.benchmark_group("paired");
    let vs_raw = Cell::default();
    let vs_core = Cell::default();
    g.bench_function("digifinex_ureq_vs_raw_ureq", |b| {
        paired(
            b,
            &vs_raw,
            || drop(black_box(raw_get())),
            || drop(black_box(client_get())),
        )
    });
    g.bench_function("digifinex_ureq_vs_raw_ureq_core", |b| {
        paired(
            b,
            &vs_core,
            || drop(black_box(raw_core_get())),
            || drop(black_box(client_get())),
        )
    });
    g.finish();
    support::report("digifinex_ureq vs raw_ureq", &vs_raw);
    support::report("digifinex_ureq vs raw_ureq_core", &vs_core);
}

criterion_group!(benches, bench);
criterion_main!(benches);
