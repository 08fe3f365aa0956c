//! Whole backtests per second of wall time: an hour of `btc_usdt` under the synthetic order flow
//! (about 7 events a second), with no bot (the baseline: the exchange alone, stepped a minute at
//! a time) and with the bundled market maker checking the touch every second (REST book reads,
//! order detail reads, cancels and placements, 20 ms each way of latency in virtual time).
//!
//! Then, over a recording of websocket-grade data (generated here: a depth delta every 10 ms
//! and a trade every 100 ms for an hour, about 396,000 records): the replay with no bot, in
//! recorded events per second, and a market maker that requotes on every change of the top
//! of book it reads from its depth stream, blocking and async.
//!
//! `cargo bench -p digifinex-backtest --bench backtest`. It also prints, once, each run's flow
//! events and the events per wall second, and the wall time of a whole day with the market
//! maker. Figures in docs/benchmarks.md.

#[path = "../tests/common/ws_maker.rs"]
mod ws_maker;

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_backtest::strategy::QuoteTouch;
use digifinex_backtest::{Backtest, BacktestConfig, Report};
use digifinex_sim::SimConfig;
use ws_maker::{maker_async, maker_blocking, over, ws_recording};

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

/// The replay with no bot (the exchange stepped a minute at a time); the records applied.
fn replay(recording: &[u8]) -> u64 {
    let backtest = Backtest::new(over(recording)).expect("backtest");
    let control = backtest.exchange().control();
    backtest
        .run(|b| {
            while b.wait(Duration::from_secs(60)) {}
            Ok::<(), digifinex_core::Error>(())
        })
        .expect("run");
    control.replay_stats().map_or(0, |s| s.records)
}

fn bench(c: &mut Criterion) {
    let t = Instant::now();
    let (each, _) = ws_recording(360_000, true);
    let each_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (recording, records) = ws_recording(360_000, false);
    let batched_s = t.elapsed().as_secs_f64();
    println!(
        "websocket-grade recording: {records} records; made and written flushing after every record in {each_s:.2} s ({:.1} us a record, {} bytes gzip), flushing every 64 KiB and second in {batched_s:.2} s ({:.1} us a record, {} bytes gzip)",
        each_s * 1e6 / records as f64,
        each.len(),
        batched_s * 1e6 / records as f64,
        recording.len()
    );
    let t = Instant::now();
    let applied = replay(&each);
    println!(
        "replay of the recording flushed after every record, no bot: {applied} records in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let applied = replay(&recording);
    let s = t.elapsed().as_secs_f64();
    println!(
        "replay, no bot: {applied} records in {s:.2} s ({:.0} recorded events per s)",
        applied as f64 / s
    );
    for (name, f) in [
        (
            "blocking",
            maker_blocking as fn(&[u8]) -> (Vec<String>, String),
        ),
        ("async", maker_async),
    ] {
        let t = Instant::now();
        let events = f(&recording).0.len();
        let s = t.elapsed().as_secs_f64();
        println!(
            "maker on every top change ({name}): {events} stream events in {s:.2} s ({:.0} per s; {:.0} recorded events per s)",
            events as f64 / s,
            records as f64 / s
        );
    }
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
    let mut g = c.benchmark_group("ws_recording_hour_btc_usdt");
    g.sample_size(10);
    g.throughput(criterion::Throughput::Elements(records));
    g.bench_function("replay_no_bot", |b| b.iter(|| replay(&recording)));
    g.bench_function("maker_every_top_change_blocking", |b| {
        b.iter(|| maker_blocking(&recording))
    });
    g.bench_function("maker_every_top_change_async", |b| {
        b.iter(|| maker_async(&recording))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
