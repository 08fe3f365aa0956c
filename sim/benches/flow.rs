//! The order flow's cost per simulated hour, and what it makes of a market.
//!
//! `cargo bench -p digifinex-sim --bench flow`. The criterion group runs one simulated hour of
//! an in-process exchange ([`Exchange::advance_to`]): `still` (no flow: the fixed cost of building the state and bringing it up to the
//! hour, the baseline), `btc_usdt` (the flow of one pair) and `default_markets` (every pair
//! and instrument of the default configuration that has a flow: 5 pairs, 4 instruments). It
//! also prints, once, the flow events per simulated hour, the simulated hours per wall second,
//! and for `btc_usdt` over a simulated day: the daily volatility of the mid price (from
//! 5-minute returns), the mean spread in the flow's ticks, and the trades per hour.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use digifinex_sim::{Control, Exchange, SimConfig, WsFamily};
use rust_decimal::Decimal;
use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::Instant;

const START: i64 = 1_800_000_000_000;
const HOUR: i64 = 3_600_000;

fn config(which: &str) -> SimConfig {
    let mut c = SimConfig {
        flow_warmup_ms: 0,
        flow_catch_up_ms: 48 * HOUR,
        start_time_ms: Some(START),
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

/// An exchange of `which` opened at `START`, and its control handle.
fn opened(which: &str) -> (Arc<Mutex<Exchange>>, Control) {
    let ex = Arc::new(Mutex::new(Exchange::new(config(which)).expect("exchange")));
    let control = Control::of(ex.clone());
    (ex, control)
}

fn advance(ex: &Mutex<Exchange>, t: i64) {
    ex.lock().expect("exchange").advance_to(t);
}

/// The flow's tick of a spot pair (as the flow computes it: `tick_bps` of the mid price,
/// rounded to the price step, at least one step).
fn spot_tick(c: &SimConfig, symbol: &str) -> Decimal {
    let m = c
        .markets
        .iter()
        .find(|m| m.symbol() == symbol)
        .expect("pair");
    let f = m.flow.as_ref().expect("a flow");
    let step = Decimal::new(1, m.price_precision);
    (m.mid_price * f.tick_bps / Decimal::from(10_000))
        .round_dp(m.price_precision)
        .max(step)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("flow_one_hour");
    g.sample_size(10);
    for which in ["still", "btc_usdt", "default_markets"] {
        g.bench_function(which, |b| {
            b.iter_batched(
                || opened(which),
                |(ex, control)| {
                    advance(&ex, START + HOUR);
                    black_box(control.flow_events())
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
        let (ex, control) = opened(which);
        let before = control.flow_events();
        let t = Instant::now();
        advance(&ex, START + HOUR);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{which}: {} flow events per simulated hour, {:.0} simulated hours per wall second",
            control.flow_events() - before,
            1.0 / secs
        );
    }
    // A simulated day of btc_usdt, the mid every 5 minutes.
    let (ex, control) = opened("btc_usdt");
    let tick = spot_tick(&config("btc_usdt"), "btc_usdt");
    let first_trade = |control: &Control| {
        control
            .trades(WsFamily::Spot, "btc_usdt")
            .expect("pair")
            .iter()
            .map(|t| t.id)
            .max()
            .unwrap_or(0)
    };
    let trades_before = first_trade(&control);
    let mid = |control: &Control| {
        let b = control.book(WsFamily::Spot, "btc_usdt", 1).expect("pair");
        let (bid, ask) = (b.bids[0].0, b.asks[0].0);
        let m: f64 = ((bid + ask) / Decimal::TWO)
            .to_string()
            .parse()
            .expect("mid");
        let spread: f64 = ((ask - bid) / tick).to_string().parse().expect("spread");
        (m, spread)
    };
    let (mut mids, mut spreads) = (vec![mid(&control).0], Vec::new());
    for k in 1..=288 {
        advance(&ex, START + k * 300_000);
        let (m, s) = mid(&control);
        mids.push(m);
        spreads.push(s);
    }
    let returns: Vec<f64> = mids.windows(2).map(|w| (w[1] / w[0]).ln()).collect();
    let mean = returns.iter().sum::<f64>() / returns.len() as f64;
    let var = returns.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / returns.len() as f64;
    let daily = (var * 288.0).sqrt();
    // Trade ids count up: the day's trades are the ids past the first instant's.
    let trades = first_trade(&control) - trades_before;
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
