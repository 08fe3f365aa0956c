//! Brings its own hyper client: an HTTP CONNECT proxy from `DIGIFINEX_PROXY`
//! (`http://host:3128`), a short connect timeout, rustls with webpki roots, a small pool.
use std::sync::Arc;
use std::time::Duration;

use digifinex_hyper::core::spot::TickerRequest;
use digifinex_hyper::hyper_rustls::ConfigBuilderExt;
use digifinex_hyper::hyper_util::client::legacy::connect::proxy::Tunnel;
use digifinex_hyper::hyper_util::client::legacy::connect::HttpConnector;
use digifinex_hyper::hyper_util::client::legacy::Client as Hyper;
use digifinex_hyper::hyper_util::rt::{TokioExecutor, TokioTimer};
use digifinex_hyper::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proxy: http::Uri = std::env::var("DIGIFINEX_PROXY")
        .unwrap_or_else(|_| "http://127.0.0.1:3128".to_owned())
        .parse()?;
    let mut tcp = HttpConnector::new();
    tcp.set_connect_timeout(Some(Duration::from_secs(3)));
    tcp.enforce_http(false);
    let tunnel = Tunnel::new(proxy, tcp);
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_webpki_roots()
    .with_no_client_auth();
    let https = digifinex_hyper::hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_only()
        .enable_http1()
        .wrap_connector(tunnel);
    let hyper = Hyper::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .pool_max_idle_per_host(4)
        .build(https);

    let client = Client::builder()
        .hyper_client(hyper)
        .read_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(8))
        .build()?;
    let ticker = client
        .send(&TickerRequest::new().symbol("btc_usdt"))
        .await?;
    println!("{ticker:?}");
    Ok(())
}
