//! The sides the blocking client's benches compare, shared by `roundtrip` and `instructions`:
//! the client, and raw ureq on the client's own agent (bytes only, and with the core's `build`
//! and `parse` by hand), all against the loopback server of `support`.
#![allow(dead_code)]

use digifinex_core::spot::{OrderBook, OrderBookRequest};
use digifinex_core::{Clock, Config, SystemClock};
use digifinex_ureq::Client;

/// Everything a bench needs against one server.
pub struct Sides {
    /// The order-book URL the raw baseline requests.
    pub url: String,
    /// The client (no weight budget: the benches measure the round trip, not waits for the
    /// per-minute budget).
    pub client: Client,
    /// Raw ureq on the client's own agent: the same pooled keep-alive connection and so the
    /// same server thread. With one connection per side, each side's latency depends on
    /// whether its server thread happens to share the client thread's core (a direct switch)
    /// or not (a cross-core wake-up, about twice as slow on this VM), which swamps the
    /// differences measured here.
    pub raw: ureq::Agent,
    /// The core's configuration for the by-hand baseline.
    pub config: Config,
    /// The request every side sends.
    pub req: OrderBookRequest,
}

/// The sides against the server at `base`.
pub fn sides(base: &str) -> Sides {
    let client = Client::builder()
        .spot_base_url(format!("{base}/v3"))
        .allow_http(true)
        .without_weight_budget()
        .build()
        .unwrap();
    let raw = client.agent().clone();
    Sides {
        url: format!("{base}/v3/order_book?symbol=btc_usdt&limit=5"),
        client,
        raw,
        config: Config::default().with_spot_base_url(format!("{base}/v3")),
        req: OrderBookRequest::new("btc_usdt").limit(5),
    }
}

/// Raw ureq: sends the GET and reads the body (no decoding).
pub fn raw_get(raw: &ureq::Agent, url: &str) -> Vec<u8> {
    let mut resp = raw.get(url).call().unwrap();
    resp.body_mut().read_to_vec().unwrap()
}

/// `build` with the core, send with raw ureq, `parse` with the core.
pub fn raw_core_get(raw: &ureq::Agent, config: &Config, req: &OrderBookRequest) -> OrderBook {
    let request = digifinex_core::build(req, config, None, SystemClock.now()).unwrap();
    let (parts, _) = request.into_parts();
    let mut resp = raw.run(http::Request::from_parts(parts, ())).unwrap();
    let body = resp.body_mut().read_to_vec().unwrap();
    let (parts, _) = resp.into_parts();
    let resp = http::Response::from_parts(parts, body.as_slice());
    digifinex_core::parse::<OrderBookRequest>(&resp).unwrap()
}
