//! Over loopback, against one keep-alive server in the same run:
//! * round-trip latency of a public GET: `raw_hyper_util` sends it and reads the body (no
//!   decoding); `raw_hyper_util_core` does the same by hand with the sans-IO core
//!   (`digifinex_core::build`, raw hyper-util, `digifinex_core::parse` into the typed book);
//!   `digifinex_hyper` is the client (build, send, read, parse, session, timeouts, span).
//!   client / raw is the whole cost of using the library, client / raw + core the transport
//!   crate's own cost;
//! * throughput with 32 requests in flight, client beside raw hyper-util.
//!
//! `cargo bench -p digifinex-hyper --bench roundtrip`
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use digifinex_core::spot::{OrderBook, OrderBookRequest};
use digifinex_core::{Clock, Config, SystemClock};
use digifinex_hyper::Client;
use futures_util::future::join_all;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::{connect::HttpConnector, Client as Hyper};
use hyper_util::rt::TokioExecutor;

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

type Raw = Hyper<HttpConnector, Full<Bytes>>;

async fn raw_get(raw: &Raw, url: &http::Uri) -> Bytes {
    let req = http::Request::get(url.clone())
        .body(Full::new(Bytes::new()))
        .unwrap();
    let resp = raw.request(req).await.unwrap();
    resp.into_body().collect().await.unwrap().to_bytes()
}

/// `build` with the core, send with raw hyper-util, `parse` with the core.
async fn raw_core_get(raw: &Raw, config: &Config, req: &OrderBookRequest) -> OrderBook {
    let request = digifinex_core::build(req, config, None, SystemClock.now()).unwrap();
    let (parts, body) = request.into_parts();
    let request = http::Request::from_parts(parts, Full::new(Bytes::from(body)));
    let (parts, body) = raw.request(request).await.unwrap().into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    digifinex_core::parse::<OrderBookRequest>(&http::Response::from_parts(parts, &body[..]))
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let base = server();
    let url: http::Uri = format!("{base}/v3/order_book?symbol=btc_usdt&limit=5")
        .parse()
        .unwrap();
    let (raw, client) = rt.block_on(async {
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        let raw: Raw = Hyper::builder(TokioExecutor::new()).build(http);
        let client = Client::builder()
            .spot_base_url(format!("{base}/v3"))
            .allow_http(true)
            .build()
            .unwrap();
        (raw, client)
    });
    let req = OrderBookRequest::new("btc_usdt").limit(5);

    let mut g = c.benchmark_group("public_get_roundtrip");
    g.bench_function("raw_hyper_util", |b| {
        b.to_async(&rt).iter(|| raw_get(&raw, &url))
    });
    let config = Config::default().with_spot_base_url(format!("{base}/v3"));
    g.bench_function("raw_hyper_util_core", |b| {
        b.to_async(&rt).iter(|| raw_core_get(&raw, &config, &req))
    });
    g.bench_function("digifinex_hyper", |b| {
        b.to_async(&rt)
            .iter(|| async { client.send(&req).await.unwrap() })
    });
    g.finish();

    let mut g = c.benchmark_group("public_get_32_in_flight");
    g.throughput(Throughput::Elements(32));
    g.bench_function("raw_hyper_util", |b| {
        b.to_async(&rt).iter(|| async {
            let tasks = (0..32).map(|_| {
                let (raw, url) = (raw.clone(), url.clone());
                tokio::spawn(async move { raw_get(&raw, &url).await })
            });
            join_all(tasks).await
        })
    });
    g.bench_function("digifinex_hyper", |b| {
        b.to_async(&rt).iter(|| async {
            let tasks = (0..32).map(|_| {
                let client = client.clone();
                tokio::spawn(async move {
                    let req = OrderBookRequest::new("btc_usdt").limit(5);
                    client.send(&req).await.unwrap()
                })
            });
            join_all(tasks).await
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
