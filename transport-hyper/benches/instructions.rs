//! Instructions per request (callgrind), which stay exact on a busy machine where the
//! round-trip benches' wall-clock ratios drift:
//!
//! ```sh
//! cargo bench -p digifinex-hyper --bench instructions --no-run   # prints the binary's path
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p BINARY OP N
//! ```
//!
//! runs `N` public GETs one after another through `OP`: `raw` (raw hyper-util, bytes only),
//! `raw_core` (raw hyper-util with the core's `build` and `parse` by hand), `client` (the
//! client) or `client_untimed` (the client without its read and total limits), on a
//! current-thread runtime against the loopback server of the `roundtrip` bench. The per-request
//! cost is the difference between `N` and `0` requests, divided by `N` (the server's threads
//! are counted too, the same for every `OP`). Without arguments (as `cargo bench` runs it)
//! each runs once, as a check that it still works.
use std::hint::black_box;

mod support;

use bytes::Bytes;
use digifinex_core::spot::OrderBookRequest;
use digifinex_core::{Clock, Config, SystemClock};
use digifinex_hyper::{Client, DefaultConnector, HyperClient};
use http_body_util::{BodyExt, Full};

const OPS: [&str; 4] = ["raw", "raw_core", "client", "client_untimed"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (ops, n): (Vec<&str>, u64) = match (args.first(), args.get(1)) {
        (Some(op), Some(n)) if !op.starts_with('-') => {
            (vec![op.as_str()], n.parse().expect("N is a count"))
        }
        _ => (OPS.to_vec(), 1),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let base = support::server();
    let url: http::Uri = format!("{base}/v3/order_book?symbol=btc_usdt&limit=5")
        .parse()
        .unwrap();
    rt.block_on(async {
        let client = Client::builder()
            .spot_base_url(format!("{base}/v3"))
            .allow_http(true)
            .without_weight_budget()
            .build()
            .unwrap();
        let raw: HyperClient<DefaultConnector> = client.hyper_client().clone();
        let untimed = Client::builder()
            .spot_base_url(format!("{base}/v3"))
            .allow_http(true)
            .hyper_client(raw.clone())
            .without_timeouts()
            .without_weight_budget()
            .build()
            .unwrap();
        let config = Config::default().with_spot_base_url(format!("{base}/v3"));
        let req = OrderBookRequest::new("btc_usdt").limit(5);
        for op in ops {
            // One request first, outside the count: the connection is opened and pooled.
            let _ = raw_get(&raw, &url).await;
            for _ in 0..n {
                match op {
                    "raw" => drop(black_box(raw_get(&raw, &url).await)),
                    "raw_core" => {
                        let r =
                            digifinex_core::build(&req, &config, None, SystemClock.now()).unwrap();
                        let (parts, body) = r.into_parts();
                        let r = http::Request::from_parts(parts, Full::new(Bytes::from(body)));
                        let (parts, body) = raw.request(r).await.unwrap().into_parts();
                        let body = body.collect().await.unwrap().to_bytes();
                        let answer = http::Response::from_parts(parts, &body[..]);
                        drop(black_box(
                            digifinex_core::parse::<OrderBookRequest>(&answer).unwrap(),
                        ));
                    }
                    "client" => drop(black_box(client.send(&req).await.unwrap())),
                    "client_untimed" => drop(black_box(untimed.send(&req).await.unwrap())),
                    other => panic!("unknown op {other}; ops: {OPS:?}"),
                }
            }
        }
    });
}

async fn raw_get(raw: &HyperClient<DefaultConnector>, url: &http::Uri) -> Bytes {
    let req = http::Request::get(url.clone())
        .body(Full::new(Bytes::new()))
        .unwrap();
    let resp = raw.request(req).await.unwrap();
    resp.into_body().collect().await.unwrap().to_bytes()
}
