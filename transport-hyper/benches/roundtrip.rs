//! Over loopback, against one keep-alive server in the same run:
//! * round-trip latency of a public GET: `raw_hyper_util` sends it and reads the body (no
//!   decoding); `raw_hyper_util_core` does the same by hand with the sans-IO core
//!   (`digifinex_core::build`, raw hyper-util, `digifinex_core::parse` into the typed book);
//!   `digifinex_hyper` is the client (build, send, read, parse, session, timeouts, span).
//!   client / raw is the whole cost of using the library, client / raw + core the transport
//!   crate's own cost. The baselines are raw hyper-util on the client's own hyper client (same
//!   connector, same pool, same connections: see `bench`);
//! * throughput with 32 requests in flight: the client beside the same two baselines, and
//!   beside `raw_hyper_util_core_timed`, raw + core inside one `tokio::time::timeout`: the floor
//!   of a client that bounds its waits, as ours must.
//!
//! Loopback latency on a small shared machine drifts by more than the differences measured
//! here between one criterion function and the next, so the `paired` groups run the client and
//! a baseline alternately, in short blocks, and print the ratio of their totals
//! (`paired ...: ours/baseline = ...`); criterion's own figure there is the client's time.
//!
//! `cargo bench -p digifinex-hyper --bench roundtrip`
use std::future::Future;
use std::hint::black_box;
use std::time::{Duration, Instant};

mod sides;
mod support;

use criterion::{criterion_group, criterion_main, Bencher, Criterion, Throughput};
use digifinex_core::spot::OrderBookRequest;
use futures_util::future::join_all;
use sides::{raw_core_get, raw_core_timed_get, raw_get, Sides};

/// Requests (or batches) per side before switching, in the `paired` groups.
const BLOCK: u64 = 64;

use support::Tally;

/// Runs `base` and `ours` alternately in blocks of [`BLOCK`] (which goes first alternates
/// too), returns the time of `ours` for criterion and adds both totals to `tally`.
fn paired<FB, FO, B, O>(
    b: &mut Bencher,
    rt: &tokio::runtime::Runtime,
    tally: &Tally,
    base: FB,
    ours: FO,
) where
    FB: Fn() -> B,
    FO: Fn() -> O,
    B: Future,
    O: Future,
{
    b.to_async(rt).iter_custom(|iters| {
        let (base, ours) = (&base, &ours);
        async move {
            let (mut tb, mut to) = (Duration::ZERO, Duration::ZERO);
            let (mut done, mut flip) = (0, false);
            while done < iters {
                let n = BLOCK.min(iters - done);
                for side in [flip, !flip] {
                    let t = Instant::now();
                    for _ in 0..n {
                        if side {
                            drop(black_box(ours().await));
                        } else {
                            drop(black_box(base().await));
                        }
                    }
                    if side {
                        to += t.elapsed();
                    } else {
                        tb += t.elapsed();
                    }
                }
                flip = !flip;
                done += n;
            }
            let (b0, o0, n0) = tally.get();
            tally.set((b0 + tb, o0 + to, n0 + iters));
            to
        }
    });
}

/// 32 requests in flight at once, each its own task.
async fn batch<F, Fut>(one: F) -> usize
where
    F: Fn() -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    join_all((0..32).map(|_| tokio::spawn(one()))).await.len()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let base = support::server();
    let Sides {
        url,
        client,
        raw,
        untimed,
        config,
        req,
    } = rt.block_on(async { sides::sides(&base) });

    let raw_one = || raw_get(&raw, &url);
    let core_one = || raw_core_get(&raw, &config, &req);
    let client_one = || async { client.send(&req).await.unwrap() };

    let mut g = c.benchmark_group("public_get_roundtrip");
    g.bench_function("raw_hyper_util", |b| b.to_async(&rt).iter(raw_one));
    g.bench_function("raw_hyper_util_core", |b| b.to_async(&rt).iter(core_one));
    g.bench_function("digifinex_hyper", |b| b.to_async(&rt).iter(client_one));
    g.finish();

    let mut g = c.benchmark_group("paired");
    let (vs_raw, vs_core) = (Tally::default(), Tally::default());
    g.bench_function("digifinex_hyper_vs_raw_hyper_util", |b| {
        paired(b, &rt, &vs_raw, raw_one, client_one)
    });
    g.bench_function("digifinex_hyper_vs_raw_hyper_util_core", |b| {
        paired(b, &rt, &vs_core, core_one, client_one)
    });
    g.finish();

    // 32 in flight: each task owns clones (the client shares its session; the config is shared
    // the same way, so neither side copies the URLs per request).
    let shared = std::sync::Arc::new(config.clone());
    let raw_32 = || {
        batch(|| {
            let (raw, url) = (raw.clone(), url.clone());
            async move { raw_get(&raw, &url).await }
        })
    };
    let core_32 = || {
        batch(|| {
            let (raw, config) = (raw.clone(), shared.clone());
            async move {
                let req = OrderBookRequest::new("btc_usdt").limit(5);
                raw_core_get(&raw, &config, &req).await
            }
        })
    };
    let timed_32 = || {
        batch(|| {
            let (raw, config) = (raw.clone(), shared.clone());
            async move {
                let req = OrderBookRequest::new("btc_usdt").limit(5);
                raw_core_timed_get(&raw, &config, &req).await
            }
        })
    };
    let client_32 = || {
        batch(|| {
            let client = client.clone();
            async move {
                let req = OrderBookRequest::new("btc_usdt").limit(5);
                client.send(&req).await.unwrap()
            }
        })
    };
    let untimed_32 = || {
        batch(|| {
            let client = untimed.clone();
            async move {
                let req = OrderBookRequest::new("btc_usdt").limit(5);
                client.send(&req).await.unwrap()
            }
        })
    };
    let mut g = c.benchmark_group("public_get_32_in_flight");
    g.throughput(Throughput::Elements(32));
    g.bench_function("raw_hyper_util", |b| b.to_async(&rt).iter(raw_32));
    g.bench_function("raw_hyper_util_core", |b| b.to_async(&rt).iter(core_32));
    g.bench_function("digifinex_hyper", |b| b.to_async(&rt).iter(client_32));
    g.finish();

    let mut g = c.benchmark_group("paired_32_in_flight");
    g.throughput(Throughput::Elements(32));
    let (vs_raw_32, vs_core_32, untimed_vs_core_32, vs_timed_32) = (
        Tally::default(),
        Tally::default(),
        Tally::default(),
        Tally::default(),
    );
    g.bench_function("digifinex_hyper_vs_raw_hyper_util", |b| {
        paired(b, &rt, &vs_raw_32, raw_32, client_32)
    });
    g.bench_function("digifinex_hyper_vs_raw_hyper_util_core", |b| {
        paired(b, &rt, &vs_core_32, core_32, client_32)
    });
    g.bench_function(
        "digifinex_hyper_without_timeouts_vs_raw_hyper_util_core",
        |b| paired(b, &rt, &untimed_vs_core_32, core_32, untimed_32),
    );
    g.bench_function("digifinex_hyper_vs_raw_hyper_util_core_timed", |b| {
        paired(b, &rt, &vs_timed_32, timed_32, client_32)
    });
    g.finish();

    support::report("digifinex_hyper vs raw_hyper_util (one GET)", &vs_raw);
    support::report("digifinex_hyper vs raw_hyper_util_core (one GET)", &vs_core);
    support::report(
        "digifinex_hyper vs raw_hyper_util (32 in flight)",
        &vs_raw_32,
    );
    support::report(
        "digifinex_hyper vs raw_hyper_util_core (32 in flight)",
        &vs_core_32,
    );
    support::report(
        "digifinex_hyper without_timeouts vs raw_hyper_util_core (32 in flight)",
        &untimed_vs_core_32,
    );
    support::report(
        "digifinex_hyper vs raw_hyper_util_core_timed (32 in flight)",
        &vs_timed_32,
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
