//! Round-trip latency of a public GET over loopback, on the same server in the same run:
//! * `raw_ureq`: raw ureq sends the request and reads the body (no decoding);
//! * `raw_ureq_core`: the same by hand with the sans-IO core: `digifinex_core::build`, raw ureq,
//!   `digifinex_core::parse` into the typed book (what the client does, minus the client);
//! * `digifinex_ureq`: the client (build, send, read, parse, session, tracing span).
//!
//! client / `raw_ureq` is the whole cost of using the library; client / `raw_ureq_core` is the
//! transport crate's own cost.
//!
//! `cargo bench -p digifinex-ureq --bench roundtrip`
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_core::spot::{OrderBook, OrderBookRequest};
use digifinex_core::{Clock, Config, SystemClock};
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
    let config = Config::default().with_spot_base_url(format!("{base}/v3"));
    g.bench_function("raw_ureq_core", |b| {
        b.iter(|| -> OrderBook {
            let request = digifinex_core::build(&req, &config, None, SystemClock.now()).unwrap();
            let (parts, _) = request.into_parts();
            let mut resp = raw.run(http::Request::from_parts(parts, ())).unwrap();
            let body = resp.body_mut().read_to_vec().unwrap();
            let (parts, _) = resp.into_parts();
            let resp = http::Response::from_parts(parts, body.as_slice());
            digifinex_core::parse::<OrderBookRequest>(&resp).unwrap()
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
