//! `digifinex backtest`: the bundled market maker over the simulator's sample recording
//! (sim/tests/data/sample-icp.jsonl.gz; its SOURCES.md says what in it is real), the two
//! report files, and the usage errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../sim/tests/data/sample-icp.jsonl.gz"
);

fn backtest(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .arg("backtest")
        .args(args)
        .output()
        .unwrap()
}

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn writes_the_json_and_html_reports() {
    let out = dir("backtest-fifo");
    let o = backtest(&[
        "--market",
        SAMPLE,
        "--strategy",
        "quote-touch",
        "--fill-model",
        "prob-log",
        "--latency",
        "15:25",
        "--spot",
        "ICP_USDT",
        "--requote-ms",
        "2000",
        "--fees",
        "0.0005:0.001",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{}{}",
        stdout,
        String::from_utf8_lossy(&o.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["fill_model"], "prob-log");
    assert_eq!(json["markets"], serde_json::json!(["icp_usdt"]));
    assert_eq!(
        json["rest_latency_ms"],
        serde_json::json!({"model": "fixed", "entry": 15, "response": 25})
    );
    assert_eq!(
        json["fees"],
        serde_json::json!({
            "spot_maker": "0.0005",
            "spot_taker": "0.001",
            "swap_maker": "0.0003",
            "swap_taker": "0.0005"
        })
    );
    // Post-only quotes pay the maker rate on what each fill received.
    let rate: digifinex_core::Decimal = "0.0005".parse().unwrap();
    for f in json["fills"].as_array().unwrap() {
        let num = |k: &str| -> digifinex_core::Decimal { f[k].as_str().unwrap().parse().unwrap() };
        let expected = if f["side"] == "buy" {
            num("amount") * rate
        } else {
            num("price") * num("amount") * rate
        };
        assert_eq!(num("fee").normalize(), expected.normalize(), "{f}");
    }
    let fills = json["fills"].as_array().unwrap().len();
    assert!(fills > 0);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("report_json: {}", out.join("report.json").display())
    );
    assert_eq!(
        lines[1],
        format!("report_html: {}", out.join("report.html").display())
    );
    assert_eq!(
        lines[2],
        format!("pnl_total: {}", json["pnl"]["total"].as_str().unwrap())
    );
    assert_eq!(lines[3], format!("fills: {fills}"));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg"));
    // The same command again: the same report, byte for byte.
    let again = dir("backtest-fifo-again");
    let o = backtest(&[
        "--market",
        SAMPLE,
        "--strategy",
        "quote-touch",
        "--fill-model",
        "prob-log",
        "--latency",
        "15:25",
        "--spot",
        "icp_usdt",
        "--requote-ms",
        "2000",
        "--fees",
        "0.0005:0.001",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(
        std::fs::read(out.join("report.json")).unwrap()
            == std::fs::read(again.join("report.json")).unwrap(),
        "the two reports differ"
    );
}

#[test]
fn a_perpetual_of_the_recording_is_backtested_with_its_fees_and_funding() {
    let out = dir("backtest-swap");
    let o = backtest(&[
        "--market",
        SAMPLE,
        "--strategy",
        "quote-touch",
        "--swap",
        "icpusdtperp",
        "--requote-ms",
        "2000",
        "--swap-fees",
        "0.0002:0.0004",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{}{}",
        stdout,
        String::from_utf8_lossy(&o.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    // Named perpetuals only: the recording's spot pair is left out.
    assert_eq!(json["markets"], serde_json::json!([]));
    assert_eq!(json["swap_markets"], serde_json::json!(["ICPUSDTPERP"]));
    assert_eq!(json["fees"]["swap_maker"], "0.0002");
    let fills = json["fills"].as_array().unwrap();
    assert!(!fills.is_empty());
    // Post-only quotes pay the maker rate on each fill's value (contract value 1).
    let rate: digifinex_core::Decimal = "0.0002".parse().unwrap();
    for f in fills {
        let num = |k: &str| -> digifinex_core::Decimal { f[k].as_str().unwrap().parse().unwrap() };
        assert_eq!(f["market"], "ICPUSDTPERP");
        assert_eq!(
            num("fee").normalize(),
            (num("price") * num("amount") * rate).normalize(),
            "{f}"
        );
    }
    let d =
        |k: &str| -> digifinex_core::Decimal { json["pnl"][k].as_str().unwrap().parse().unwrap() };
    assert_eq!(
        d("total"),
        d("realized") + d("unrealized") - d("fees") + d("rebates") + d("funding")
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Inventory of ICPUSDTPERP (net contracts)"));
}

#[test]
fn usage_errors_exit_2_naming_the_flag() {
    let out = dir("backtest-usage");
    let o = out.to_str().unwrap();
    for (args, needle) in [
        (vec!["--strategy", "martingale"], "--strategy"),
        (
            vec!["--strategy", "quote-touch", "--fill-model", "lottery"],
            "--fill-model",
        ),
        (
            vec!["--strategy", "quote-touch", "--latency", "fast"],
            "--latency",
        ),
        (
            vec!["--strategy", "quote-touch", "--swap", "BTCUSDTPERP"],
            "BTCUSDTPERP",
        ),
        (
            vec!["--strategy", "quote-touch", "--swap-fees", "0.0003"],
            "--swap-fees",
        ),
        (
            vec!["--strategy", "quote-touch", "--fees", "0.5:0.5"],
            "--fees",
        ),
        (
            vec!["--strategy", "quote-touch", "--spot", "doge_usdt"],
            "doge_usdt",
        ),
    ] {
        let mut all = vec!["--market", SAMPLE, "--out", o];
        all.extend(args);
        let r = backtest(&all);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(needle), "{all:?}: {err}");
    }
    let r = backtest(&[
        "--market",
        "/nonexistent.jsonl.gz",
        "--strategy",
        "quote-touch",
        "--out",
        o,
    ]);
    assert_eq!(r.status.code(), Some(1));
}

#[test]
fn latency_from_a_round_trip_log_or_a_range() {
    let d = dir("backtest-latency");
    std::fs::create_dir_all(&d).unwrap();
    let log = d.join("roundtrips.jsonl");
    std::fs::write(
        &log,
        "{\"sent_ms\":1706763600000,\"venue_ms\":null,\"received_ms\":1706763600050,\"method\":\"POST\",\"path\":\"/v3/spot/order/new\",\"status\":200}\n\
         {\"sent_ms\":1706763660000,\"venue_ms\":1706763660010,\"received_ms\":1706763660030,\"method\":\"POST\",\"path\":\"/v3/spot/order/cancel\",\"status\":200}\n",
    )
    .unwrap();
    let file = format!("file:{}", log.display());
    for (latency, expected) in [
        (
            file.as_str(),
            serde_json::json!({"model": "recorded", "rows": 2}),
        ),
        (
            "uniform:5-15:20-30",
            serde_json::json!({"model": "uniform", "entry": [5, 15], "response": [20, 30], "seed": 1}),
        ),
    ] {
        let out = d.join("out");
        let o = backtest(&[
            "--market",
            SAMPLE,
            "--strategy",
            "quote-touch",
            "--latency",
            latency,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        assert_eq!(json["rest_latency_ms"], expected);
    }
    // A log that is not one, and an empty range: exit 2 naming the flag.
    std::fs::write(&log, "not json\n").unwrap();
    for bad in [file.as_str(), "uniform:9-3", "file:/nonexistent"] {
        let o = backtest(&[
            "--market",
            SAMPLE,
            "--strategy",
            "quote-touch",
            "--latency",
            bad,
            "--out",
            d.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--latency"), "{bad}: {err}");
    }
}
