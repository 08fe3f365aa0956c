//! `digifinex stream` (issue 19): JSON lines from the embedded simulator, `--limit`, usage
//! errors.

use std::process::Command;

fn digifinex(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(args)
        .env_remove("DIGIFINEX_API_KEY")
        .env_remove("DIGIFINEX_API_SECRET")
        .output()
        .expect("the binary runs")
}

#[test]
fn streams_json_lines_from_the_simulator_and_stops_at_the_limit() {
    let out = digifinex(&[
        "stream",
        "--sim",
        "--limit",
        "12",
        "swap:depth:BTCUSDTPERP:10",
        "spot:order",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 12);
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert!(types.contains(&"authenticated"), "{types:?}");
    let book = lines
        .iter()
        .find(|l| l["type"] == "book" && l["snapshot"] == true)
        .expect("a snapshot");
    assert_eq!(book["subscription"]["target"], "BTCUSDTPERP");
    assert_eq!(book["subscription"]["level"], 10);
    assert_eq!(book["bids"].as_array().unwrap().len(), 10);
    // Decimals print as strings.
    assert!(book["best_bid"][0].is_string());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["stream", "--sim", "spot:depth"][..],
        &["stream", "--sim", "swap:balance:USDT"],
        &[
            "stream",
            "--base-url",
            "ws://example.com/ws/v1/",
            "spot:ticker:btc_usdt",
        ],
        &["stream", "spot:order:btc_usdt"],
    ] {
        let out = digifinex(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}
