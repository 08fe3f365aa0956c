//! Round-trip latency of a public GET over loopback: the client (build, send, read, parse)
//! beside raw ureq doing the same request (send, read) on the same server in the same run.
//!
//! `cargo bench -p digifinex-ureq --bench roundtrip`
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_core::spot::OrderBookRequest;
use digifinex_ureq::Client;

const BOOK: &str = r#"{"bids":[[30000.5,"0.25"],[30000,"1.5"]],"asks":[[30001,1e-07],[30002,"2"]],"date":1700000000,"code":0}"#;

/// A keep-alive loopback server answering every request with `BOOK`.
fn server() -> String {
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

fn bench(c: &mut Criterion) {
    let base = server();
    let url = format!("{base}/v3/order_book?symbol=btc_usdt&limit=5");
    let raw = ureq::Agent::new_with_defaults();
    let client = Client::builder()
        .spot_base_url(format!("{base}/v3"))
        .allow_http(true)
        .build()
        .unwrap();
    let req = OrderBookRequest::new("btc_usdt").limit(5);
    let byo = Client::builder()
        .spot_base_url(format!("{base}/v3"))
        .allow_http(true)
        .agent(ureq::Agent::new_with_defaults())
        .build()
        .unwrap();

    let mut g = c.benchmark_group("public_get_roundtrip");
    g.bench_function("raw_ureq", |b| {
        b.iter(|| {
            let mut resp = raw.get(&url).call().unwrap();
            resp.body_mut().read_to_vec().unwrap()
        })
    });
    g.bench_function("digifinex_ureq", |b| b.iter(|| client.send(&req).unwrap()));
    g.bench_function("digifinex_ureq_default_agent", |b| {
        b.iter(|| byo.send(&req).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
