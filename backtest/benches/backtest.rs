//! Whole backtests per second of wall time: an hour of `btc_usdt` under the synthetic order flow
//! (about 7 events a second), with no bot (the baseline: the exchange alone, stepped a minute at
//! a time) and with the bundled market maker checking the touch every second (REST book reads,
//! order detail reads, cancels and placements, 20 ms each way of latency in virtual time).
//!
//! `cargo bench -p digifinex-backtest --bench backtest`. It also prints, once, each run's flow
//! events and the events per wall second, and the wall time of a whole day with the market
//! maker. Figures in docs/benchmarks.md.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_backtest::strategy::QuoteTouch;
use digifinex_backtest::{Backtest, BacktestConfig, Report};
use digifinex_sim::SimConfig;

const T0: i64 = 1_800_000_000_000;
const HOUR: i64 = 3_600_000;

fn config() -> BacktestConfig {
    config_for(HOUR)
}

fn config_for(span_ms: i64) -> BacktestConfig {
    let mut sim = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default()
    };
    sim.markets.retain(|m| m.symbol() == "btc_usdt");
    sim.swap_instruments.clear();
    let mut c = BacktestConfig::new(sim);
    c.end_ms = Some(T0 + span_ms);
    c
}

/// One hour with `bot`; the flow events the exchange ran.
fn run(bot: Option<QuoteTouch>) -> (Report, u64) {
    run_for(config(), bot)
}

fn run_for(config: BacktestConfig, bot: Option<QuoteTouch>) -> (Report, u64) {
    let backtest = Backtest::new(config).expect("backtest");
    let control = backtest.exchange().control();
    let report = backtest
        .run(|b| match &bot {
            Some(q) => q.run(b),
            None => {
                while b.wait(Duration::from_secs(60)) {}
                Ok(())
            }
        })
        .expect("run");
    (report, control.flow_events())
}

fn bench(c: &mut Criterion) {
    let maker = QuoteTouch {
        requote: Duration::from_secs(1),
        ..QuoteTouch::default()
    };
    for (name, bot) in [
        ("no bot", None),
        ("quote-touch every 1 s", Some(maker.clone())),
    ] {
        let t = Instant::now();
        let (report, events) = run(bot);
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name}: one hour in {s:.2} s ({:.0} x real time), {events} flow events ({:.0} per s), {} fills",
            3600.0 / s,
            events as f64 / s,
            report.json["fills_count"]
        );
    }
    // A whole day of the flow with the market maker, once.
    let t = Instant::now();
    let (report, events) = run_for(config_for(24 * HOUR), Some(maker.clone()));
    println!(
        "a day with quote-touch every 1 s: {:.2} s, {events} flow events, {} fills",
        t.elapsed().as_secs_f64(),
        report.json["fills_count"]
    );
    let mut g = c.benchmark_group("backtest_hour_btc_usdt");
    g.sample_size(10);
    g.bench_function("no_bot", |b| b.iter(|| run(None)));
    g.bench_function("quote_touch_1s", |b| b.iter(|| run(Some(maker.clone()))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
