//! `digifinex record` against the embedded simulator (the live venue cannot be reached from
//! here; the code path is the same): every kind of observation is written, a second session
//! appends to the same file, and the simulator replays the recording.

use std::process::{Command, Stdio};

use digifinex_market::{Data, Reader};
use digifinex_sim::market::MarketConfig;
use digifinex_sim::{Sim, SimConfig};

fn record(file: &str, seconds: &str) -> std::process::Output {
    record_with(file, seconds, &[])
}

fn record_with(file: &str, seconds: &str, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args([
            "record",
            "--sim",
            "--spot",
            "btc_usdt",
            "--swap",
            "BTCUSDTPERP",
            "--interval-ms",
            "200",
            "--duration-s",
            seconds,
            "--depth",
            "5",
            "--out",
            file,
        ])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("run digifinex record")
}

fn kinds(file: &str) -> (Vec<&'static str>, usize) {
    let reader = Reader::open(file).expect("a recording");
    assert!(reader.header().spot.iter().any(|p| p.symbol == "btc_usdt"));
    assert!(reader
        .header()
        .swap
        .iter()
        .any(|i| i.instrument_id == "BTCUSDTPERP"));
    let mut kinds = Vec::new();
    let mut n = 0;
    for r in reader {
        let r = r.expect("a record");
        n += 1;
        let k = match r.data {
            Data::SpotBook {
                depth, bids, asks, ..
            } => {
                assert_eq!(depth, Some(5));
                assert!(bids.len() <= 5 && !bids.is_empty() && !asks.is_empty());
                assert!(bids.windows(2).all(|w| w[0].0 > w[1].0), "bids best first");
                assert!(asks.windows(2).all(|w| w[0].0 < w[1].0), "asks best first");
                "spot_book"
            }
            Data::SpotTrades { .. } => "spot_trades",
            Data::SpotTicker { ticker, .. } => {
                assert!(ticker.last.is_some());
                "spot_ticker"
            }
            Data::SwapBook { .. } => "swap_book",
            Data::SwapTrades { .. } => "swap_trades",
            Data::SwapTicker { .. } => "swap_ticker",
            Data::Funding { .. } => "funding",
            Data::Mark { .. } => "mark",
            other => panic!("the REST recorder wrote {}", other.kind()),
        };
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds.sort_unstable();
    (kinds, n)
}

#[test]
fn records_every_kind_appends_and_replays() {
    let dir = std::env::temp_dir().join(format!("digifinex-market-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("m.jsonl.gz");
    let file_s = file.to_str().expect("path");
    let _ = std::fs::remove_file(&file);

    let first = record(file_s, "1");
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let progress = String::from_utf8_lossy(&first.stderr);
    assert!(progress.starts_with("round 1: 8 records, "), "{progress}");
    assert!(
        progress.contains(", weight used 10, 0 failed requests"),
        "{progress}"
    );
    let (k, n) = kinds(file_s);
    assert_eq!(
        k,
        [
            "funding",
            "mark",
            "spot_book",
            "spot_ticker",
            "spot_trades",
            "swap_book",
            "swap_ticker",
            "swap_trades"
        ]
    );
    assert_eq!(n % 8, 0);

    // A second session appends: the first session's records stay.
    let second = record(file_s, "1");
    assert_eq!(
        second.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let (_, m) = kinds(file_s);
    assert!(m > n, "{m} records after appending to {n}");

    // A crash cut the file inside its last gzip member: the next session says so, cuts that
    // member back to its whole lines and appends; the file reads to the end.
    let bytes = std::fs::read(&file).expect("read");
    std::fs::write(&file, &bytes[..bytes.len() - 30]).expect("cut");
    let third = record(file_s, "1");
    let stderr = String::from_utf8_lossy(&third.stderr);
    assert_eq!(third.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "the recording {file_s} ended in an unfinished or damaged gzip member (a crash): cut it at byte "
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(" before appending\nround 1: 8 records, "),
        "{stderr}"
    );
    let (_, l) = kinds(file_s);
    assert!(l > n, "{l} records after the repaired append");
    // A clean end: nothing to say.
    let fourth = record(file_s, "1");
    let stderr = String::from_utf8_lossy(&fourth.stderr);
    assert!(stderr.starts_with("round 1: 8 records, "), "{stderr}");

    // The simulator replays it.
    let cfg = SimConfig {
        market: Some(MarketConfig::file(&file)),
        ..SimConfig::default()
    };
    let sim = Sim::start(cfg).expect("the simulator replays the recording");
    drop(sim);

    let none = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(["record", "--sim", "--out", file_s])
        .output()
        .expect("run");
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("nothing to record"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zstd_recordings_are_written_appended_and_mended() {
    let dir = std::env::temp_dir().join(format!("digifinex-market-zst-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let ok = |o: &std::process::Output| {
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // By the name, and by the flag.
    let named = dir.join("m.jsonl.zst");
    let flagged = dir.join("f.jsonl");
    let _ = std::fs::remove_file(&named);
    let _ = std::fs::remove_file(&flagged);
    let (named_s, flagged_s) = (named.to_str().unwrap(), flagged.to_str().unwrap());
    ok(&record(named_s, "1"));
    ok(&record(flagged_s, "1"));
    assert_eq!(
        std::fs::read(&named).unwrap()[..4],
        [0x28, 0xb5, 0x2f, 0xfd]
    );
    assert_eq!(
        std::fs::read(&flagged).unwrap()[..2],
        [0x1f, 0x8b],
        "gzip by default"
    );
    let z = dir.join("z.jsonl");
    let _ = std::fs::remove_file(&z);
    ok(&record_with(
        z.to_str().unwrap(),
        "1",
        &["--compression", "zstd"],
    ));
    assert_eq!(std::fs::read(&z).unwrap()[..4], [0x28, 0xb5, 0x2f, 0xfd]);
    // Asked for zstd, a gzip recording is appended to in gzip (and told so).
    let told = ok(&record_with(flagged_s, "1", &["--compression", "zstd"]));
    assert!(
        told.contains("is a Gzip recording: appending in Gzip"),
        "{told}"
    );
    assert_eq!(std::fs::read(&flagged).unwrap()[..2], [0x1f, 0x8b]);
    assert_eq!(kinds(flagged_s).0.len(), 8);
    let (k, n) = kinds(named_s);
    assert_eq!(k.len(), 8, "{k:?}");
    // Appended to, then cut inside its last frame and mended by the next session.
    ok(&record(named_s, "1"));
    let (_, m) = kinds(named_s);
    assert!(m > n, "{m} after {n}");
    let bytes = std::fs::read(&named).unwrap();
    std::fs::write(&named, &bytes[..bytes.len() - 30]).unwrap();
    let stderr = ok(&record(named_s, "1"));
    assert!(
        stderr.starts_with(&format!(
            "the recording {named_s} ended in an unfinished or damaged zstd frame (a crash): cut it at byte "
        )),
        "{stderr}"
    );
    let (_, after) = kinds(named_s);
    assert!(after > n, "{after}");
    assert_eq!(
        std::fs::read(&named).unwrap()[..4],
        [0x28, 0xb5, 0x2f, 0xfd]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
