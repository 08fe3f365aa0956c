//! The sides the async client's benches compare, shared by `roundtrip` and `instructions`: the
//! client, raw hyper-util on the client's own hyper client (bytes only, with the core by hand,
//! and with the core and one timeout), and the client without its timeouts, all against the
//! loopback server of `support`.
#![allow(dead_code)]

use bytes::Bytes;
use digifinex_core::spot::{OrderBook, OrderBookRequest};
use digifinex_core::{Clock, Config, SystemClock};
use digifinex_hyper::{Client, DefaultConnector, HyperClient};
use http_body_util::{BodyExt, Full};

/// Raw hyper-util, as the client uses it.
pub type Raw = HyperClient<DefaultConnector>;

/// Everything a bench needs against one server.
pub struct Sides {
    /// The order-book URL the raw baseline requests.
    pub url: http::Uri,
    /// The client (no weight budget: the benches measure the round trip, not waits for the
    /// per-minute budget).
    pub client: Client,
    /// Raw hyper-util on the client's own hyper client: the same connector and pool, so the
    /// same keep-alive connections and server threads. With separate pools, each side's latency
    /// depends on whether its server thread happens to share a core with the thread polling its
    /// connection (a direct switch) or not (a cross-core wake-up, about twice as slow on this
    /// VM), which swamps the differences measured here.
    pub raw: Raw,
    /// The same client without its per-request timer (`without_timeouts`), on the same pool.
    pub untimed: Client,
    /// The core's configuration for the by-hand baseline.
    pub config: Config,
    /// The request every side sends.
    pub req: OrderBookRequest,
}

/// The sides against the server at `base`; call it inside the runtime.
pub fn sides(base: &str) -> Sides {
    let client = Client::builder()
        .spot_base_url(format!("{base}/v3"))
        .allow_http(true)
        .without_weight_budget()
        .build()
        .unwrap();
    let raw: Raw = client.hyper_client().clone();
    let untimed = Client::builder()
        .spot_base_url(format!("{base}/v3"))
        .allow_http(true)
        .hyper_client(raw.clone())
        .without_timeouts()
        .without_weight_budget()
        .build()
        .unwrap();
    Sides {
        url: format!("{base}/v3/order_book?symbol=btc_usdt&limit=5")
            .parse()
            .unwrap(),
        client,
        raw,
        untimed,
        config: Config::default().with_spot_base_url(format!("{base}/v3")),
        req: OrderBookRequest::new("btc_usdt").limit(5),
    }
}

/// Raw hyper-util: sends the GET and reads the body (no decoding).
pub async fn raw_get(raw: &Raw, url: &http::Uri) -> Bytes {
    let req = http::Request::get(url.clone())
        .body(Full::new(Bytes::new()))
        .unwrap();
    let resp = raw.request(req).await.unwrap();
    resp.into_body().collect().await.unwrap().to_bytes()
}

/// `build` with the core, send with raw hyper-util, `parse` with the core.
pub async fn raw_core_get(raw: &Raw, config: &Config, req: &OrderBookRequest) -> OrderBook {
    let request = digifinex_core::build(req, config, None, SystemClock.now()).unwrap();
    let (parts, body) = request.into_parts();
    let request = http::Request::from_parts(parts, Full::new(Bytes::from(body)));
    let (parts, body) = raw.request(request).await.unwrap().into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    digifinex_core::parse::<OrderBookRequest>(&http::Response::from_parts(parts, &body[..]))
        .unwrap()
}

/// [`raw_core_get`] with its wait bounded by one `tokio::time::timeout` of the client's read
/// limit (10 s): the least a client must add to raw + core to meet "every wait has a limit". It
/// is the floor of a bounded client; the client's own timer is per attempt and also bounds the
/// connection and the total.
pub async fn raw_core_timed_get(raw: &Raw, config: &Config, req: &OrderBookRequest) -> OrderBook {
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        raw_core_get(raw, config, req),
    )
    .await
    .unwrap()
}
