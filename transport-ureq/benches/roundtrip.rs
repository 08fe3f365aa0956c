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

mod sides;
mod support;

use criterion::{criterion_group, criterion_main, Bencher, Criterion};
use sides::{raw_core_get, raw_get, Sides};
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
    let Sides {
        url,
        client,
        raw,
        config,
        req,
    } = sides::sides(&base);

    let mut g = c.benchmark_group("public_get_roundtrip");
    let raw_get = || raw_get(&raw, &url);
    let raw_core_get = || raw_core_get(&raw, &config, &req);
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
