//! `digifinex record --source ws` against a running simulator: the recording's depth frames,
//! applied in order, give the simulator's book, and its trades are the simulator's trades, each
//! once (issue 30).

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use digifinex_core::Decimal;
use digifinex_market::{Data, Reader};
use digifinex_sim::{Sim, SimConfig, WsFamily};

/// A book rebuilt from depth frames: snapshots replace it, deltas set levels (0 deletes).
#[derive(Default)]
struct Book {
    bids: BTreeMap<Decimal, Decimal>,
    asks: BTreeMap<Decimal, Decimal>,
}

impl Book {
    fn apply(&mut self, snapshot: bool, bids: &[(Decimal, Decimal)], asks: &[(Decimal, Decimal)]) {
        if snapshot {
            self.bids.clear();
            self.asks.clear();
        }
        for (side, levels) in [(&mut self.bids, bids), (&mut self.asks, asks)] {
            for (p, q) in levels {
                if q.is_zero() {
                    side.remove(p);
                } else {
                    side.insert(*p, *q);
                }
            }
        }
    }
}

#[test]
fn a_websocket_recording_is_the_simulators_market() {
    let mut config = SimConfig::default().without_limits();
    for m in &mut config.markets {
        m.flow = m.flow.take().map(|f| f.scaled(Decimal::from(40)));
    }
    let sim = Sim::start(config).expect("simulator");
    let dir = std::env::temp_dir().join(format!("digifinex-record-ws-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("ticks.jsonl.gz");
    let _ = std::fs::remove_file(&out);
    let child = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args([
            "record",
            "--source",
            "ws",
            "--base-url",
            &sim.spot_base_url(),
            "--swap-base-url",
            &sim.swap_base_url(),
            "--spot",
            "btc_usdt",
            "--swap",
            "BTCUSDTPERP",
            "--duration-s",
            "6",
            "--out",
            out.to_str().unwrap(),
        ])
        .spawn()
        .expect("the binary runs");
    // Let the market move, then hold it still for the last seconds of the recording.
    std::thread::sleep(Duration::from_secs(3));
    sim.control().pause_flow(true);
    let status = child.wait_with_output().expect("record ends").status;
    assert_eq!(status.code(), Some(0));

    let mut book = Book::default();
    let (mut snapshots, mut deltas, mut swap_frames) = (0, 0, 0);
    let mut trade_ids: Vec<u64> = Vec::new();
    for record in Reader::open(&out).expect("a recording") {
        match record.expect("a record").data {
            Data::SpotDepth {
                symbol,
                snapshot,
                bids,
                asks,
                ..
            } if symbol == "btc_usdt" => {
                if snapshot {
                    snapshots += 1;
                } else {
                    deltas += 1;
                }
                book.apply(snapshot, &bids, &asks);
            }
            Data::SwapDepth { .. } => swap_frames += 1,
            Data::SpotTrades { trades, .. } => {
                trade_ids.extend(trades.iter().map(|t| t.id.parse::<u64>().unwrap()));
            }
            _ => {}
        }
    }
    assert!(
        snapshots >= 1 && deltas >= 1 && swap_frames >= 1,
        "{snapshots} {deltas} {swap_frames}"
    );
    // The book as the simulator holds it now (the socket sends 30 levels a side).
    let view = sim.control().book(WsFamily::Spot, "btc_usdt", 30).unwrap();
    let bids: Vec<(Decimal, Decimal)> = book
        .bids
        .iter()
        .rev()
        .take(30)
        .map(|(p, q)| (*p, *q))
        .collect();
    let asks: Vec<(Decimal, Decimal)> = book.asks.iter().take(30).map(|(p, q)| (*p, *q)).collect();
    assert_eq!(bids, view.bids, "bids");
    assert_eq!(asks, view.asks, "asks");
    // Every trade once, and every trade the simulator made since the first one recorded.
    let mut sorted = trade_ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), trade_ids.len(), "a trade recorded twice");
    if let Some(first) = sorted.first() {
        let want: Vec<u64> = sim
            .control()
            .trades(WsFamily::Spot, "btc_usdt")
            .unwrap()
            .iter()
            .map(|t| t.id)
            .filter(|id| id >= first)
            .collect();
        assert_eq!(sorted, want);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
