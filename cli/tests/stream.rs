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
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    // `--limit` counts data events (market and account pushes), not connection states.
    let states = [
        "connecting",
        "connected",
        "disconnected",
        "authenticated",
        "clock_measured",
        "auth_refused",
        "subscribed",
        "unsubscribed",
        "refused",
        "server_time",
        "resync",
        "switched",
        "undecodable",
    ];
    let data = types.iter().filter(|t| !states.contains(t)).count();
    assert_eq!(data, 12, "{types:?}");
    assert!(lines.len() > 12, "{types:?}");
    assert!(!states.contains(types.last().unwrap()), "{types:?}");
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

/// A reader that never reads: the stream blocks (bounded queues all the way to the sockets)
/// instead of holding what it cannot print.
#[cfg(target_os = "linux")]
#[test]
fn an_unread_stdout_does_not_grow_the_process() {
    use std::process::Stdio;
    use std::time::Duration;
    let rss_kib = |pid: u32| -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args([
            "stream",
            "--sim",
            "swap:depth:BTCUSDTPERP:100",
            "swap:trades:BTCUSDTPERP",
            "spot:depth:btc_usdt",
            "spot:trades:btc_usdt",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    std::thread::sleep(Duration::from_secs(4));
    let early = rss_kib(child.id());
    std::thread::sleep(Duration::from_secs(6));
    let late = rss_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        late < early + 20 * 1024,
        "grew from {early} KiB to {late} KiB while nobody read"
    );
    assert!(late < 300 * 1024, "{late} KiB");
}
