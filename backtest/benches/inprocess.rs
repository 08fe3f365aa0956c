//! A signed spot order placed and answered, then cancelled, through the blocking client: in
//! the same process ([`InProcess`]) against the same exchange over loopback HTTP (the
//! server, the baseline), in one run.
//!
//! `cargo bench -p digifinex-backtest --bench inprocess`. Both paths sign, encode, decode and
//! check the same requests with the same client code; only the transport differs (the
//! server's clock is frozen, the in-process exchange's does not move: no order flow runs
//! between the calls). Figures in docs/benchmarks.md.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use digifinex_backtest::InProcess;
use digifinex_core::spot::{CancelOrdersRequest, LimitOrder, Market, PlaceOrderRequest};
use digifinex_core::{Amount, Clock, Credentials, Price, TimestampMillis};
use digifinex_sim::{Control, Sim, SimConfig};

const T0: i64 = 1_800_000_000_000;

fn config() -> SimConfig {
    let mut config = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default()
    };
    config.markets.retain(|m| m.symbol() == "btc_usdt");
    config.swap_instruments.clear();
    // Thousands of orders a second on one account: no weight limit, no cancel-ratio ban.
    config.limits.weight_enabled = false;
    config.limits.risk_control = false;
    config
}

struct SimTime(Control);

impl Clock for SimTime {
    fn now(&self) -> TimestampMillis {
        TimestampMillis(self.0.now_ms())
    }
}

/// Places a resting bid far below the market and cancels it; both answers checked.
fn round(client: &digifinex_ureq::Client) {
    let order = LimitOrder::buy(
        Amount::new("0.001".parse().expect("amount")),
        Price::new("20000".parse().expect("price")),
    );
    let placed = client
        .send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
        .expect("placed");
    client
        .send(&CancelOrdersRequest::new(
            Market::Spot,
            [placed.order_id.as_str()],
        ))
        .expect("cancelled");
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("order_round_trip");
    g.throughput(Throughput::Elements(2));

    let sim = Sim::start(config()).expect("server");
    let control = sim.control();
    control.freeze_clock(Some(T0));
    let demo = control.demo_account();
    let over_http = digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .clock(Arc::new(SimTime(control.clone())))
        .without_weight_budget()
        .build()
        .expect("client");
    g.bench_function("loopback_http", |b| b.iter(|| round(&over_http)));

    let ex = InProcess::new(config()).expect("exchange");
    let demo = ex.control().demo_account();
    let local = ex
        .ureq_client()
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .without_weight_budget()
        .build()
        .expect("client");
    g.bench_function("in_process", |b| b.iter(|| round(&local)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
