//! The seam between the recording format's two readers: a websocket recording exported by
//! `digifinex-export` (the top of every book, record by record) and replayed by the simulator
//! (`digifinex-sim`, its books read through the control handle at each record's time) give the
//! same books and count the same dropped deltas.

use digifinex_export::{export, Format, Options};
use digifinex_market::decimal::parse_dec;
use digifinex_market::{Data, Family, Header, MarketId, Record, Side, Trade, Writer};
use digifinex_sim::market::MarketConfig;
use digifinex_sim::{Sim, SimConfig, WsFamily};
use rust_decimal::Decimal;
use std::path::PathBuf;

/// 2024-02-01 05:00:00 UTC.
const T0: i64 = 1_706_763_600_000;

fn d(s: &str) -> Decimal {
    parse_dec(s).unwrap()
}

fn lv(levels: &[(&str, &str)]) -> Vec<(Decimal, Decimal)> {
    levels.iter().map(|(p, q)| (d(p), d(q))).collect()
}

fn dir(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("dfx-export-replay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// A websocket-only recording: deltas before a snapshot, trades, a resync and a reconnect.
fn ws_recording() -> Vec<u8> {
    let spot = MarketId::Spot("btc_usdt".into());
    let swap = MarketId::Swap("BTCUSDTPERP".into());
    let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
    let mut rng = 7u64;
    let mut next = |n: u64| {
        rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (rng >> 33) % n
    };
    w.write_depth(T0, &spot, false, &lv(&[("99", "1")]), &[], None)
        .unwrap();
    for step in 0..400i64 {
        let t = T0 + 1 + step;
        let market = if step % 3 == 0 { &swap } else { &spot };
        let (bid, ask) = match market {
            MarketId::Spot(_) => (100, 101),
            MarketId::Swap(_) => (50_000, 50_001),
        };
        match step {
            0 | 1 | 150 | 301 => {
                let bids: Vec<(Decimal, Decimal)> = (0..5i64)
                    .map(|k| (Decimal::from(bid - k), Decimal::from(1 + k)))
                    .collect();
                let asks: Vec<(Decimal, Decimal)> = (0..5i64)
                    .map(|k| (Decimal::from(ask + k), Decimal::from(2 + k)))
                    .collect();
                w.write_depth(t, market, true, &bids, &asks, None).unwrap();
            }
            100 => w.write_resync(t, &spot, "crossed").unwrap(),
            200 => w
                .write_reconnect(t, Family::Swap, Some(0), Some(t - 5), None, &[])
                .unwrap(),
            _ if step % 7 == 0 => w
                .write(&Record {
                    t,
                    data: Data::SpotTrades {
                        symbol: "btc_usdt".into(),
                        trades: vec![Trade {
                            id: step.to_string(),
                            time_ms: t,
                            price: Decimal::from(ask),
                            qty: Decimal::ONE,
                            side: Side::Buy,
                            direction: None,
                        }],
                    },
                })
                .unwrap(),
            _ => {
                let k = i64::try_from(next(8)).unwrap();
                let qty = Decimal::from(next(4));
                if next(2) == 0 {
                    w.write_depth(
                        t,
                        market,
                        false,
                        &[(Decimal::from(bid - k), qty)],
                        &[],
                        None,
                    )
                } else {
                    w.write_depth(
                        t,
                        market,
                        false,
                        &[],
                        &[(Decimal::from(ask + k), qty)],
                        None,
                    )
                }
                .unwrap();
            }
        }
    }
    w.finish().unwrap()
}

#[test]
fn the_simulators_replay_and_the_export_agree_book_by_book() {
    let dir = dir("agree");
    let input = dir.join("ws.jsonl.gz");
    let bytes = ws_recording();
    std::fs::write(&input, &bytes).unwrap();
    let out = dir.join("out");
    let opts = Options {
        format: Format::Csv,
        float: false,
        top: Some(20),
    };
    let summary = export(&input, &out, &opts).unwrap();
    assert!(summary.dropped_deltas > 3, "{summary:?}");
    let sim = Sim::start(SimConfig {
        start_time_ms: Some(T0 - 1),
        market: Some(MarketConfig::reader(std::io::Cursor::new(bytes))),
        ..SimConfig::default().without_flow().without_limits()
    })
    .unwrap();
    let ctl = sim.control();
    let mut r = csv::Reader::from_path(out.join("book_top.csv")).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 171);
    for row in &rows {
        // `time` is the receive time in ISO 8601: each record has its own millisecond here.
        let seq: i64 = row[1].parse().unwrap();
        let t = T0 + seq; // record n (from 0) was written at T0 + n
        ctl.advance_clock(t - ctl.now_ms());
        let family = if &row[2] == "spot" {
            WsFamily::Spot
        } else {
            WsFamily::Swap
        };
        let book = ctl.book(family, &row[3], 20).unwrap();
        // Columns from `from`: price and quantity of levels 1 to 20.
        let side = |from: usize| -> Vec<(Decimal, Decimal)> {
            (0..20)
                .filter_map(|l| {
                    let p = row.get(from + 2 * l).filter(|s| !s.is_empty())?;
                    let q = row.get(from + 2 * l + 1)?;
                    Some((d(p), d(q)))
                })
                .collect()
        };
        assert_eq!(book.bids, side(5), "bids at record {seq}");
        assert_eq!(book.asks, side(45), "asks at record {seq}");
    }
    assert_eq!(
        ctl.replay_stats().unwrap().dropped_deltas,
        summary.dropped_deltas
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
