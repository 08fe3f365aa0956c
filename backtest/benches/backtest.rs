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

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_backtest::strategy::QuoteTouch;
use digifinex_backtest::{Backtest, BacktestConfig, Report};
use digifinex_core::spot::{CancelOrdersRequest, LimitOrder, Market, PlaceOrderRequest};
use digifinex_core::ws::Event;
use digifinex_core::{Amount, Family, Price};
use digifinex_market::{Data, Header, Record, Side, SpotPairInfo, Trade, Writer};
use digifinex_sim::{MarketConfig, SimConfig};
use rust_decimal::Decimal;

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

/// splitmix64, the bench's own generator of test data.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// An hour of `btc_usdt` as the websocket recorder writes it: a 20-level snapshot, then a
/// delta of one or two levels every 10 ms (the touch moves now and then) and a trade every
/// 100 ms; gzip, flushed as `digifinex record` flushes (every 64 KiB of lines, and once a
/// second; `every_record`: after every record, as the recorder did before). The number of
/// records.
fn ws_recording(every_record: bool) -> (Vec<u8>, u64) {
    let header = Header {
        spot: vec![SpotPairInfo {
            symbol: "btc_usdt".into(),
            price_precision: 2,
            amount_precision: 5,
            min_amount: Decimal::new(1, 5),
            min_value: Decimal::ONE,
        }],
        ..Header::default()
    };
    let mut w = Writer::new(Vec::new(), &header)
        .expect("writer")
        .flush_every(if every_record { 0 } else { 64 << 10 });
    let mut rng = Rng(7);
    let tick = Decimal::new(1, 2);
    let mut bid = Decimal::from(30_000);
    let size = |rng: &mut Rng| Decimal::new(1 + rng.below(100_000) as i64, 5);
    let (bids, asks) = (0..20i64)
        .map(|k| {
            (
                (bid - tick * Decimal::from(k), size(&mut rng)),
                (bid + tick * Decimal::from(k + 1), size(&mut rng)),
            )
        })
        .unzip();
    let mut n = 0u64;
    let mut put = |w: &mut Writer<Vec<u8>>, r: Record| {
        w.write(&r).expect("write");
        n += 1;
    };
    put(
        &mut w,
        Record {
            t: T0,
            data: Data::SpotDepth {
                symbol: "btc_usdt".into(),
                snapshot: true,
                bids,
                asks,
                ts: Some(T0),
            },
        },
    );
    let mut id = 1u64;
    for step in 1..=360_000i64 {
        let t = T0 + step * 10;
        // One time in twenty the touch moves a tick (the old level emptied, a new one
        // filled); else a size changes at one of the first five levels.
        let (mut b, mut a) = (Vec::new(), Vec::new());
        match rng.below(20) {
            0 => {
                b.push((bid + tick, size(&mut rng)));
                a.push((bid + tick, Decimal::ZERO));
                bid += tick;
            }
            1 => {
                b.push((bid, Decimal::ZERO));
                a.push((bid, size(&mut rng)));
                bid -= tick;
            }
            k if k % 2 == 0 => b.push((bid - tick * Decimal::from(rng.below(5)), size(&mut rng))),
            _ => a.push((bid + tick * Decimal::from(1 + rng.below(5)), size(&mut rng))),
        }
        put(
            &mut w,
            Record {
                t,
                data: Data::SpotDepth {
                    symbol: "btc_usdt".into(),
                    snapshot: false,
                    bids: b,
                    asks: a,
                    ts: Some(t),
                },
            },
        );
        if step % 100 == 0 {
            w.flush().expect("flush");
        }
        if step % 10 == 0 {
            let buy = rng.below(2) == 0;
            put(
                &mut w,
                Record {
                    t,
                    data: Data::SpotTrades {
                        symbol: "btc_usdt".into(),
                        trades: vec![Trade {
                            id: id.to_string(),
                            time_ms: t,
                            price: if buy { bid + tick } else { bid },
                            qty: Decimal::new(1 + rng.below(1000) as i64, 5),
                            side: if buy { Side::Buy } else { Side::Sell },
                            direction: None,
                        }],
                    },
                },
            );
            id += 1;
        }
    }
    (w.finish().expect("finish"), n)
}

fn over(recording: &[u8]) -> BacktestConfig {
    let sim = SimConfig {
        market: Some(MarketConfig::reader(std::io::Cursor::new(
            recording.to_vec(),
        ))),
        markets: Vec::new(),
        swap_instruments: Vec::new(),
        ..SimConfig::default()
    };
    BacktestConfig::new(sim)
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

/// A market maker on the depth stream: at every change of the best bid or ask it cancels its
/// quote on that side and places a post-only one at the new touch (blocking client). The
/// stream events it read.
fn maker_blocking(recording: &[u8]) -> u64 {
    let mut events = 0u64;
    Backtest::new(over(recording))
        .expect("backtest")
        .run(|bot| -> Result<(), digifinex_core::Error> {
            let c = bot.client();
            let mut stream = c
                .stream(Family::Spot)
                .subscribe("spot:depth:btc_usdt".parse().expect("sub"))
                .build()?;
            let mut touch = [None, None];
            let mut ids: [Option<String>; 2] = [None, None];
            for event in stream.by_ref() {
                events += 1;
                let Event::Book(update) = event else { continue };
                let now = [update.best_bid, update.best_ask];
                for side in 0..2 {
                    let Some(level) = now[side] else { continue };
                    if touch[side] == Some(level.price) {
                        continue;
                    }
                    touch[side] = Some(level.price);
                    if let Some(id) = ids[side].take() {
                        let _ = c.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]));
                    }
                    let amount = Amount::new(Decimal::new(1, 3));
                    let price = Price::new(level.price);
                    let order = if side == 0 {
                        LimitOrder::buy(amount, price).post_only()
                    } else {
                        LimitOrder::sell(amount, price).post_only()
                    };
                    if let Ok(p) = c.send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
                    {
                        ids[side] = Some(p.order_id);
                    }
                }
            }
            Ok(())
        })
        .expect("run");
    events
}

/// [`maker_blocking`] with the async client.
fn maker_async(recording: &[u8]) -> u64 {
    let events = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = events.clone();
    Backtest::new(over(recording))
        .expect("backtest")
        .run_async(|bot| async move {
            let c = bot.client();
            let mut stream = c
                .stream(Family::Spot)
                .subscribe("spot:depth:btc_usdt".parse().expect("sub"))
                .build()?;
            let mut touch = [None, None];
            let mut ids: [Option<String>; 2] = [None, None];
            while let Some(event) = stream.next_event().await {
                counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Event::Book(update) = event else { continue };
                let now = [update.best_bid, update.best_ask];
                for side in 0..2 {
                    let Some(level) = now[side] else { continue };
                    if touch[side] == Some(level.price) {
                        continue;
                    }
                    touch[side] = Some(level.price);
                    if let Some(id) = ids[side].take() {
                        let _ = c
                            .send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))
                            .await;
                    }
                    let amount = Amount::new(Decimal::new(1, 3));
                    let price = Price::new(level.price);
                    let order = if side == 0 {
                        LimitOrder::buy(amount, price).post_only()
                    } else {
                        LimitOrder::sell(amount, price).post_only()
                    };
                    if let Ok(p) = c
                        .send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
                        .await
                    {
                        ids[side] = Some(p.order_id);
                    }
                }
            }
            Ok::<(), digifinex_core::Error>(())
        })
        .expect("run");
    events.load(std::sync::atomic::Ordering::Relaxed)
}

fn bench(c: &mut Criterion) {
    let t = Instant::now();
    let (each, _) = ws_recording(true);
    let each_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (recording, records) = ws_recording(false);
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
        ("blocking", maker_blocking as fn(&[u8]) -> u64),
        ("async", maker_async),
    ] {
        let t = Instant::now();
        let events = f(&recording);
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
