//! Shared by the transports' `roundtrip` benches: the loopback server and the paired report.
//!
//! Both transport crates keep an identical copy of this file, so that each published package
//! builds its own benches; `tests/tests/copies.rs` in the workspace fails when they differ.
#![allow(dead_code)]

use std::cell::Cell;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

pub const BOOK: &str = r#"{"bids":[[30000.5,"0.25"],[30000,"1.5"]],"asks":[[30001,1e-07],[30002,"2"]],"date":1700000000,"code":0}"#;

/// A keep-alive loopback server answering every request with `BOOK`.
pub fn server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            thread::spawn(move || serve(conn));
        }
    });
    format!("http://{addr}")
}

fn serve(conn: TcpStream) {
    conn.set_nodelay(true).unwrap();
    let mut r = BufReader::new(conn.try_clone().unwrap());
    let mut w = conn;
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{BOOK}",
        BOOK.len()
    );
    loop {
        let mut len = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; len];
        if r.read_exact(&mut body).is_err() || w.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

/// Totals of a paired run: baseline time, client time, runs.
pub type Tally = Cell<(Duration, Duration, u64)>;

/// Prints `ours/baseline` for a paired run (nothing when it was filtered out).
pub fn report(name: &str, tally: &Tally) {
    let (base, ours, n) = tally.get();
    if n == 0 {
        return; // filtered out on the command line
    }
    println!(
        "paired {name}: ours/baseline = {:.3} over {n} runs ({:.1} us vs {:.1} us)",
        ours.as_secs_f64() / base.as_secs_f64(),
        ours.as_secs_f64() * 1e6 / n as f64,
        base.as_secs_f64() * 1e6 / n as f64,
    );
}
