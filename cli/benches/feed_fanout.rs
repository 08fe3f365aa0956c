//! Fan-out of one feed to many consumers on one machine (`cli/benches/feed/fanout.sh` runs it
//! beside a feed of the whole venue): `CONSUMERS` readers in this process, each the blocking
//! client's `FeedReader` with its own NATS connection and its own ordered JetStream consumers,
//! each reading the market streams `SUBS` for `DUR` seconds after a warm-up of 10 s. Prints the
//! events a second (all readers, and the slowest and fastest one), the latency from the feed's
//! stamp (`feed_ms`) to each reader, and every resync or gap the readers saw.
//!
//! ```sh
//! FEED_URL=nats://127.0.0.1:4222 CONSUMERS=50 DUR=60 SUBS=spot:depth:btc_usdt,... \
//!     cargo bench -p digifinex-cli --features feed --bench feed_fanout
//! ```
//!
//! Without `FEED_URL` it says so and does nothing (so `cargo bench` alone passes over it).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use digifinex_core::ws::Subscription;
use digifinex_ureq::feed::{FeedItem, FeedReader, FeedSource};

/// What one reader saw in the measured window.
#[derive(Default)]
struct Seen {
    events: u64,
    markers: u64,
    /// Latencies of every tenth event, ms.
    latency: Vec<i64>,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn main() {
    let Ok(url) = std::env::var("FEED_URL") else {
        println!("feed_fanout: set FEED_URL (and CONSUMERS, DUR, SUBS) to run it; see its docs");
        return;
    };
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_owned());
    let consumers: usize = env("CONSUMERS", "50").parse().expect("CONSUMERS");
    let dur = Duration::from_secs(env("DUR", "60").parse().expect("DUR"));
    let subs: Vec<Subscription> = env("SUBS", "spot:depth:btc_usdt")
        .split(',')
        .map(|s| s.parse().expect("SUBS"))
        .collect();
    let source = FeedSource::new(url);
    let warm = Duration::from_secs(10);
    let start = Instant::now() + Duration::from_secs(2);
    let measuring = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..consumers)
        .map(|_| {
            let (source, subs, measuring) = (source.clone(), subs.clone(), measuring.clone());
            std::thread::spawn(move || {
                let mut reader = FeedReader::open(&source, &subs).expect("open the feed");
                let mut seen = Seen::default();
                let end = start + warm + dur;
                while Instant::now() < end {
                    let Some(item) = reader.next_timeout(Duration::from_millis(100)) else {
                        continue;
                    };
                    if !measuring.load(Ordering::Relaxed) {
                        continue;
                    }
                    if let FeedItem::Line { line, feed_ms } = item {
                        if line.starts_with(r#"{"type":"resync""#)
                            || line.starts_with(r#"{"type":"gap""#)
                        {
                            seen.markers += 1;
                            continue;
                        }
                        seen.events += 1;
                        if seen.events % 10 == 0 {
                            if let Some(t) = feed_ms {
                                seen.latency.push(now_ms() - t);
                            }
                        }
                    }
                }
                seen
            })
        })
        .collect();
    std::thread::sleep(start.saturating_duration_since(Instant::now()) + warm);
    measuring.store(true, Ordering::Relaxed);
    println!(
        "measuring {consumers} readers of {} market streams",
        subs.len()
    );
    let seen: Vec<Seen> = threads
        .into_iter()
        .map(|t| t.join().expect("a reader"))
        .collect();
    let secs = dur.as_secs_f64();
    let total: u64 = seen.iter().map(|s| s.events).sum();
    let min = seen.iter().map(|s| s.events).min().unwrap_or(0);
    let max = seen.iter().map(|s| s.events).max().unwrap_or(0);
    let markers: u64 = seen.iter().map(|s| s.markers).sum();
    let mut lat: Vec<i64> = seen
        .iter()
        .flat_map(|s| s.latency.iter().copied())
        .collect();
    lat.sort_unstable();
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1)))
            .copied()
            .unwrap_or(-1)
    };
    println!(
        "events {total} in {secs:.0} s: {:.0}/s in all; per reader {:.0}-{:.0}/s",
        total as f64 / secs,
        min as f64 / secs,
        max as f64 / secs
    );
    println!(
        "feed->reader ms p50 {} p99 {} max {} (n={})",
        pct(0.5),
        pct(0.99),
        lat.last().copied().unwrap_or(-1),
        lat.len()
    );
    println!("resyncs and gaps seen: {markers}");
}
