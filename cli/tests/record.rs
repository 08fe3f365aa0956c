//! `call --record`, `decode --from` and `replay` end to end: record against the embedded
//! simulator, re-decode the recording, serve it and get the same answers from it.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_digifinex"));
    c.args(args)
        .env_remove("DIGIFINEX_API_KEY")
        .env_remove("DIGIFINEX_API_SECRET")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn run(args: &[&str]) -> Output {
    command(args).output().expect("run digifinex")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

/// Kills the replay server when the test ends, however it ends.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn record_decode_and_replay() {
    let dir = std::env::temp_dir().join(format!("digifinex-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("session.jsonl");
    let file_s = file.to_str().expect("path");
    let _ = std::fs::remove_file(&file);

    let book = run(&[
        "call",
        "--sim",
        "--record",
        file_s,
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limit=2",
    ]);
    assert_eq!(book.status.code(), Some(0), "{}", text(&book.stderr));
    let order = run(&[
        "call",
        "--sim",
        "--record",
        file_s,
        "POST",
        "/v3/spot/order/new",
        "symbol=btc_usdt",
        "type=buy",
        "price=20000",
        "amount=0.001",
    ]);
    assert_eq!(order.status.code(), Some(0), "{}", text(&order.stderr));
    let recorded = std::fs::read_to_string(&file).expect("recording");
    // Every request `call` made is recorded: the book; for the order, the rules it was checked
    // against, the server's clock (measured before the snapshot's time window), the snapshot of
    // its evidence (open orders, history) and the order itself.
    let lines: Vec<&str> = recorded.lines().collect();
    assert_eq!(lines.len(), 6, "{recorded}");
    for (line, want) in lines.iter().zip([
        "\"GET\",\"url\":\"http://127.0.0.1:",
        "/v3/trades/symbols\"",
        "/v3/time\"",
        "/v3/spot/order/current?market=spot&symbol=btc_usdt\"",
        "/v3/spot/order/history?",
        "\"POST\",\"url\":\"http://127.0.0.1:",
    ]) {
        assert!(line.contains(want), "{want} in {line}");
    }
    assert!(
        recorded.contains("\"url\":\"http://127.0.0.1:"),
        "{recorded}"
    );

    // Every recorded answer decodes with this release.
    let decoded = run(&["decode", "--from", file_s]);
    assert_eq!(decoded.status.code(), Some(0), "{}", text(&decoded.stderr));
    let out = text(&decoded.stdout);
    assert!(
        out.starts_with("#0 GET /v3/order_book: ok\n#1 GET /v3/trades/symbols: ok\n"),
        "{out}"
    );
    assert!(out.contains("#5 POST /v3/spot/order/new: ok\n"), "{out}");
    assert!(out.ends_with("6 decoded, 0 failed, 0 skipped\n"), "{out}");

    // An answer the models cannot read is reported, and the exit code says so.
    let broken = dir.join("broken.jsonl");
    let first = recorded.lines().next().expect("a line");
    let mut record: serde_json::Value = serde_json::from_str(first).expect("json");
    record["body"] = serde_json::Value::String(r#"{"code":0,"bids":[["x","1"]],"asks":[]}"#.into());
    std::fs::write(&broken, format!("{record}\n")).expect("write");
    let bad = run(&["decode", "--from", broken.to_str().expect("path")]);
    assert_eq!(bad.status.code(), Some(1));
    let out = text(&bad.stdout);
    assert!(
        out.starts_with("#0 GET /v3/order_book: DECODE FAILED: cannot decode"),
        "{out}"
    );
    assert!(
        text(&bad.stderr).contains("1 recorded answer(s) do not decode"),
        "{}",
        text(&bad.stderr)
    );

    // A crash cut the last line: the lines before it decode, the cut is reported.
    let cut = dir.join("cut.jsonl");
    std::fs::write(&cut, format!("{recorded}{}", &first[..40])).expect("write");
    let cut_s = cut.to_str().expect("path");
    let decoded = run(&["decode", "--from", cut_s]);
    assert_eq!(decoded.status.code(), Some(0), "{}", text(&decoded.stderr));
    let whole = recorded.lines().count();
    assert!(text(&decoded.stdout).ends_with(&format!("{whole} decoded, 0 failed, 0 skipped\n")));
    assert!(
        text(&decoded.stderr)
            .contains(&format!("line {}, the last, was cut by a crash", whole + 1)),
        "{}",
        text(&decoded.stderr)
    );

    // Appending to it (the next call after the crash) cuts the cut line off first and says
    // so: every line reads, the appended one last.
    let again = run(&[
        "call",
        "--sim",
        "--record",
        cut_s,
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limit=2",
    ]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains(&format!(
            "the recording {cut_s} ended in a line cut by a crash: cut 40 byte(s) back to the \
             last whole line before appending"
        )),
        "{}",
        text(&again.stderr)
    );
    let decoded = run(&["decode", "--from", cut_s]);
    assert_eq!(decoded.status.code(), Some(0), "{}", text(&decoded.stderr));
    let out = text(&decoded.stdout);
    assert!(
        out.ends_with(&format!(
            "#{whole} GET /v3/order_book: ok\n{} decoded, 0 failed, 0 skipped\n",
            whole + 1
        )),
        "{out}"
    );
    assert!(!text(&decoded.stderr).contains("cut by a crash"));

    // Served over HTTP: the same call against the replay gives the same answer.
    let mut child = command(&["replay", "--matching", file_s])
        .spawn()
        .expect("spawn replay");
    let stdout = child.stdout.take().expect("stdout");
    let server = Server(child);
    let mut lines = BufReader::new(stdout).lines();
    let spot = lines.next().expect("spot line").expect("line");
    let spot_url = spot
        .strip_prefix("spot_base_url: ")
        .expect("spot url")
        .to_owned();
    let swap = lines.next().expect("swap line").expect("line");
    assert_eq!(
        swap.strip_prefix("swap_base_url: "),
        spot_url.strip_suffix("/v3")
    );
    assert_eq!(
        lines.next().expect("records line").expect("line"),
        "records: 6"
    );
    let again = run(&[
        "call",
        "--base-url",
        &spot_url,
        "GET",
        "/v3/order_book",
        "symbol=btc_usdt",
        "limit=2",
    ]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), text(&book.stdout));
    // Not in the recording: a clear refusal naming the difference.
    let other = run(&[
        "call",
        "--base-url",
        &spot_url,
        "GET",
        "/v3/order_book",
        "symbol=eth_usdt",
        "limit=2",
    ]);
    assert_ne!(other.status.code(), Some(0));
    assert!(
        text(&other.stderr).contains("replay mismatch"),
        "{}",
        text(&other.stderr)
    );
    // A request naming another host (a web page through DNS rebinding) is refused.
    let host = spot_url
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .expect("host");
    let ask = |name: &str| {
        use std::io::{Read, Write};
        let mut tcp = std::net::TcpStream::connect(host).expect("connect");
        write!(
            tcp,
            "GET /v3/trades/symbols HTTP/1.1\r\nHost: {name}\r\n\
             Connection: close\r\n\r\n"
        )
        .expect("write");
        let mut answer = String::new();
        tcp.read_to_string(&mut answer).expect("read");
        answer
    };
    assert!(ask("rebind.example:80").starts_with("HTTP/1.1 403"));
    // (A record not yet used: the book's was, by the call above.)
    let answer = ask(host);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    drop(server);

    let refused = run(&["replay", "--addr", "0.0.0.0:0", file_s]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("not a loopback address"),
        "{}",
        text(&refused.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
