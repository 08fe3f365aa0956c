//! How fast a recording exports, in book rows per second: the same file to Parquet
//! (`DECIMAL(38, 18)`), to CSV and to Tardis.dev's CSV layout, beside the baseline of reading
//! it (inflating and decoding every record, as every export does first), in one run.
//!
//! The recording is generated here from a seed: an hour of one pair as the websocket recorder
//! writes it (a 20-level snapshot, then a depth delta of one or two levels every 10 ms and a
//! trade every 100 ms, flushed every 64 KiB and every second), 396,001 records and about
//! 400,000 book rows. `cargo bench -p digifinex-export --bench export`; figures in
//! docs/benchmarks.md.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use digifinex_export::{export, tardis, Format, Options};
use digifinex_market::{Codec, Data, Header, Reader, Record, Side, SpotPairInfo, Trade, Writer};
use rust_decimal::Decimal;

const T0: i64 = 1_800_000_000_000;

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

/// Writes the recording to `path` compressed with `codec`; the records written.
fn write_recording(path: &Path, codec: Codec) -> u64 {
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
    let file = std::fs::File::create(path).expect("create");
    let mut w = Writer::with_codec(file, &header, codec)
        .expect("writer")
        .flush_every(64 << 10);
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
    let mut n = 1u64;
    w.write(&Record {
        t: T0,
        data: Data::SpotDepth {
            symbol: "btc_usdt".into(),
            snapshot: true,
            bids,
            asks,
            ts: Some(T0),
        },
    })
    .expect("write");
    for step in 1..=360_000i64 {
        let t = T0 + step * 10;
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
        w.write(&Record {
            t,
            data: Data::SpotDepth {
                symbol: "btc_usdt".into(),
                snapshot: false,
                bids: b,
                asks: a,
                ts: Some(t),
            },
        })
        .expect("write");
        n += 1;
        if step % 100 == 0 {
            w.flush().expect("flush");
        }
        if step % 10 == 0 {
            let buy = rng.below(2) == 0;
            w.write(&Record {
                t,
                data: Data::SpotTrades {
                    symbol: "btc_usdt".into(),
                    trades: vec![Trade {
                        id: step.to_string(),
                        time_ms: t,
                        price: if buy { bid + tick } else { bid },
                        qty: Decimal::new(1 + rng.below(1000) as i64, 5),
                        side: if buy { Side::Buy } else { Side::Sell },
                        direction: None,
                    }],
                },
            })
            .expect("write");
            n += 1;
        }
    }
    w.finish().expect("finish");
    n
}

/// The baseline: every record read and decoded; the book rows among them.
fn read(path: &Path) -> u64 {
    let mut rows = 0u64;
    for r in Reader::open(path).expect("open") {
        if let Ok(Record {
            data: Data::SpotDepth { bids, asks, .. },
            ..
        }) = r
        {
            rows += (bids.len() + asks.len()) as u64;
        }
    }
    rows
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("digifinex-export-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("hour.jsonl.gz");
    let records = write_recording(&file, Codec::Gzip);
    let rows = read(&file);
    let size = std::fs::metadata(&file).map_or(0, |m| m.len());
    println!("recording: {records} records, {rows} book rows, {size} bytes gzip");
    let zst = dir.join("hour.jsonl.zst");
    write_recording(&zst, Codec::Zstd);
    assert_eq!(read(&zst), rows);
    let zsize = std::fs::metadata(&zst).map_or(0, |m| m.len());
    println!("the same recording: {zsize} bytes zstd");

    // The recorder's writing (encoding every record, compressing, flushing every 64 KiB and
    // every second), gzip against zstd, in records per second.
    let mut g = c.benchmark_group("record_hour_btc_usdt");
    g.sample_size(10);
    g.throughput(Throughput::Elements(records));
    g.bench_function("write_gzip", |b| {
        b.iter(|| write_recording(&dir.join("w.jsonl.gz"), Codec::Gzip))
    });
    g.bench_function("write_zstd", |b| {
        b.iter(|| write_recording(&dir.join("w.jsonl.zst"), Codec::Zstd))
    });
    g.finish();
    let opts = |format| Options {
        format,
        float: false,
        top: None,
    };
    let mut g = c.benchmark_group("export_hour_btc_usdt");
    g.sample_size(10);
    g.throughput(Throughput::Elements(rows));
    g.bench_function("read_baseline", |b| b.iter(|| read(&file)));
    g.bench_function("read_zstd", |b| b.iter(|| read(&zst)));
    g.bench_function("parquet", |b| {
        b.iter(|| export(&file, &dir.join("parquet"), &opts(Format::Parquet)).expect("export"))
    });
    g.bench_function("csv", |b| {
        b.iter(|| export(&file, &dir.join("csv"), &opts(Format::Csv)).expect("export"))
    });
    g.bench_function("tardis_csv", |b| {
        b.iter(|| {
            let out = dir.join("tardis");
            let _ = std::fs::remove_dir_all(&out);
            tardis::export(&file, &out, &tardis::Options::default()).expect("export")
        })
    });
    // What hftbacktest reads: trades and the incremental book only.
    g.bench_function("tardis_csv_trades_l2", |b| {
        let opts = tardis::Options {
            data_types: tardis::DataTypes::only(&[
                tardis::DataType::Trades,
                tardis::DataType::IncrementalBookL2,
            ]),
            ..tardis::Options::default()
        };
        b.iter(|| {
            let out = dir.join("tardis_l2");
            let _ = std::fs::remove_dir_all(&out);
            tardis::export(&file, &out, &opts).expect("export")
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
