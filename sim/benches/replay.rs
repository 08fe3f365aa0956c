//! How fast a recorded market replays: one pair (`btc_usdt`) for an hour, a 20-level book
//! snapshot every second, the recent trades every second (0-4 new trades each, lists
//! overlapping as polls do) and a ticker every 5 seconds, generated here from a seed.
//!
//! `cargo bench -p digifinex-sim --bench replay`. The criterion group measures replaying the
//! whole hour (reading the gzip recording, applying every event to the simulator state) the way
//! a client polling once a second drives it (the state brought up to each second in turn). It
//! also prints, once, the factor over real time (3600 s / time taken) and the resident memory
//! (Linux `/proc/self/status`) after replaying one hour and after four hours, which stays flat:
//! the reader streams and the history the state keeps is bounded ([`digifinex_sim::Retention`]).
//! The aim is at least 100 times real time on one core.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use digifinex_sim::book::Side;
use digifinex_sim::market::format::{Data, Header, Record, Ticker, Trade, Writer};
use digifinex_sim::market::MarketConfig;
use digifinex_sim::{Exchange, SimConfig};
use rust_decimal::Decimal;
use std::hint::black_box;
use std::time::Instant;

const START: i64 = 1_800_000_000_000;

/// splitmix64, the bench's own generator of test data.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// `hours` of one pair's 1-second polls, gzip-compressed.
fn recording(hours: i64) -> Vec<u8> {
    let mut rng = Rng::new(5);
    let mut w = Writer::new(Vec::new(), &Header::default()).expect("writer");
    let tick = Decimal::new(1, 2);
    let mut mid = Decimal::from(30_000);
    let mut recent: Vec<Trade> = Vec::new();
    let mut next_id = 1u64;
    for s in 0..hours * 3600 {
        let base = START + s * 1000;
        mid += tick * Decimal::from(rng.below(11) as i64 - 5);
        let level = |rng: &mut Rng, k: i64, dir: Decimal| {
            (
                mid + dir * tick * Decimal::from(k + 1),
                Decimal::new(1 + rng.below(200_000) as i64, 5),
            )
        };
        let bids = (0..20).map(|k| level(&mut rng, k, -Decimal::ONE)).collect();
        let asks = (0..20).map(|k| level(&mut rng, k, Decimal::ONE)).collect();
        w.write(&Record {
            t: base + 100,
            data: Data::SpotBook {
                symbol: "btc_usdt".into(),
                depth: Some(20),
                bids,
                asks,
            },
        })
        .expect("write");
        for _ in 0..rng.below(5) {
            let side = if rng.below(2) == 0 {
                Side::Buy
            } else {
                Side::Sell
            };
            let price = match side {
                Side::Buy => mid + tick,
                Side::Sell => mid - tick,
            };
            recent.insert(
                0,
                Trade {
                    id: next_id.to_string(),
                    time_ms: base + 50,
                    price,
                    qty: Decimal::new(1 + rng.below(50_000) as i64, 5),
                    side,
                    direction: None,
                },
            );
            next_id += 1;
        }
        recent.truncate(20);
        w.write(&Record {
            t: base + 200,
            data: Data::SpotTrades {
                symbol: "btc_usdt".into(),
                trades: recent.clone(),
            },
        })
        .expect("write");
        if s % 5 == 0 {
            w.write(&Record {
                t: base + 300,
                data: Data::SpotTicker {
                    symbol: "btc_usdt".into(),
                    ticker: Ticker {
                        last: recent.first().map(|t| t.price),
                        bid: Some(mid - tick),
                        ask: Some(mid + tick),
                        ..Ticker::default()
                    },
                },
            })
            .expect("write");
        }
    }
    w.finish().expect("finish")
}

/// A fresh in-process exchange with the recording attached.
fn state(bytes: &[u8]) -> Exchange {
    let config = SimConfig {
        start_time_ms: Some(START),
        market: Some(MarketConfig::reader(std::io::Cursor::new(bytes.to_vec()))),
        ..SimConfig::default().without_limits().without_flow()
    };
    Exchange::new(config).expect("recording")
}

/// Replays `hours`, bringing the exchange up to each second in turn.
fn replay(ex: &mut Exchange, hours: i64) {
    for s in 0..=hours * 3600 {
        ex.advance_to(START + s * 1000 + 999);
    }
}

fn rss_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn figures(one_hour: &[u8]) {
    let four_hours = recording(4);
    eprintln!(
        "recording: 1 h = {} KiB gzip, 4 h = {} KiB gzip",
        one_hour.len() / 1024,
        four_hours.len() / 1024
    );
    let before = rss_kib("VmRSS:");
    let mut st = state(one_hour);
    let t = Instant::now();
    replay(&mut st, 1);
    let took = t.elapsed();
    let stats = st.replay_stats().expect("replay");
    let after_one = rss_kib("VmRSS:");
    drop(st);
    let mut st = state(&four_hours);
    let t4 = Instant::now();
    replay(&mut st, 4);
    let took4 = t4.elapsed();
    let after_four = rss_kib("VmRSS:");
    eprintln!(
        "replay of 1 h: {:.1} ms, {:.0}x real time ({} records, {} events); 4 h: {:.1} ms, {:.0}x",
        took.as_secs_f64() * 1000.0,
        3600.0 / took.as_secs_f64(),
        stats.records,
        stats.applied,
        took4.as_secs_f64() * 1000.0,
        4.0 * 3600.0 / took4.as_secs_f64(),
    );
    eprintln!(
        "resident memory: {before} KiB before, {after_one} KiB after 1 h, {after_four} KiB after 4 h (recordings held in memory included), peak {} KiB",
        rss_kib("VmHWM:")
    );
    black_box(st);
}

fn bench(c: &mut Criterion) {
    let bytes = recording(1);
    figures(&bytes);
    let mut g = c.benchmark_group("replay");
    g.sample_size(10);
    g.bench_function("one pair, 1 h of 1-second polls", |b| {
        b.iter_batched(
            || state(&bytes),
            |mut st| {
                replay(&mut st, 1);
                st
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
