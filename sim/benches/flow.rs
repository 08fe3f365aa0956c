//! The order flow's cost per simulated hour, and what it makes of a market.
//!
//! `cargo bench -p digifinex-sim --bench flow`. The criterion group runs one simulated hour of
//! the state: `still` (no flow: the fixed cost of building the state and bringing it up to the
//! hour, the baseline), `btc_usdt` (the flow of one pair) and `default_markets` (every pair
//! and instrument of the default configuration that has a flow: 5 pairs, 4 instruments). It
//! also prints, once, the flow events per simulated hour, the simulated hours per wall second,
//! and for `btc_usdt` over a simulated day: the daily volatility of the mid price (from
//! 5-minute returns), the mean spread in the flow's ticks, and the trades per hour.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use digifinex_sim::market;
use digifinex_sim::state::State;
use digifinex_sim::SimConfig;
use std::hint::black_box;
use std::time::Instant;

const START: i64 = 1_800_000_000_000;
const HOUR: i64 = 3_600_000;

fn config(which: &str) -> SimConfig {
    let mut c = SimConfig {
        flow_warmup_ms: 0,
        flow_catch_up_ms: 48 * HOUR,
        ..SimConfig::default()
    };
    match which {
        "still" => c.without_flow(),
        "btc_usdt" => {
            c.markets.retain(|m| m.symbol() == "btc_usdt");
            c.swap_instruments.clear();
            c
        }
        _ => c,
    }
}

fn opened(which: &str) -> State {
    let c = config(which);
    let mut st = State::new(&c, START);
    market::open(&mut st, 0, START);
    st
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("flow_one_hour");
    g.sample_size(10);
    for which in ["still", "btc_usdt", "default_markets"] {
        g.bench_function(which, |b| {
            b.iter_batched(
                || opened(which),
                |mut st| {
                    market::sync(&mut st, START + HOUR);
                    black_box(st.feed.flow.events)
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

/// Prints the figures the docs quote.
fn figures() {
    for which in ["btc_usdt", "default_markets"] {
        let mut st = opened(which);
        let t = Instant::now();
        market::sync(&mut st, START + HOUR);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{which}: {} flow events per simulated hour, {:.0} simulated hours per wall second",
            st.feed.flow.events,
            1.0 / secs
        );
    }
    // A simulated day of btc_usdt, the mid every 5 minutes.
    let mut st = opened("btc_usdt");
    let tick = st
        .feed
        .flow
        .tick(digifinex_sim::market::target::Target::Spot(0))
        .expect("a flow");
    let mid = |st: &State| {
        let b = &st.spot.books[0];
        let (bid, ask) = (b.best_bid().expect("bid"), b.best_ask().expect("ask"));
        let m: f64 = ((bid + ask) / rust_decimal::Decimal::TWO)
            .to_string()
            .parse()
            .expect("mid");
        let spread: f64 = ((ask - bid) / tick).to_string().parse().expect("spread");
        (m, spread)
    };
    let (mut mids, mut spreads) = (vec![mid(&st).0], Vec::new());
    for k in 1..=288 {
        market::sync(&mut st, START + k * 300_000);
        let (m, s) = mid(&st);
        mids.push(m);
        spreads.push(s);
    }
    let returns: Vec<f64> = mids.windows(2).map(|w| (w[1] / w[0]).ln()).collect();
    let mean = returns.iter().sum::<f64>() / returns.len() as f64;
    let var = returns.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / returns.len() as f64;
    let daily = (var * 288.0).sqrt();
    let trades = st.spot.tapes[0].trades().len();
    println!(
        "btc_usdt over a simulated day: daily volatility {:.2} %, mean spread {:.2} ticks of {tick}, \
         {:.0} trades per hour, mid {:.2} -> {:.2}",
        daily * 100.0,
        spreads.iter().sum::<f64>() / spreads.len() as f64,
        trades as f64 / 24.0,
        mids[0],
        mids[mids.len() - 1]
    );
}

fn all(c: &mut Criterion) {
    figures();
    bench(c);
}

criterion_group!(benches, all);
criterion_main!(benches);
