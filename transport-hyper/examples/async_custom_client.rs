//! Brings its own hyper client: a short connect timeout, rustls with the webpki roots, a small
//! pool, and an HTTP CONNECT proxy when `DIGIFINEX_PROXY` names one (`http://host:3128`);
//! without it the connection is direct.
//!
//! Asks the exchange for a ticker (needs the network); against a running simulator
//! (`cargo run -p digifinex-sim -- --addr 127.0.0.1:8080`), set
//! `DIGIFINEX_SIM_URL=http://127.0.0.1:8080`.
use std::sync::Arc;
use std::time::Duration;

use digifinex_hyper::core::spot::TickerRequest;
use digifinex_hyper::hyper_rustls::{ConfigBuilderExt, HttpsConnectorBuilder};
use digifinex_hyper::hyper_util::client::legacy::connect::proxy::Tunnel;
use digifinex_hyper::hyper_util::client::legacy::connect::{Connect, HttpConnector};
use digifinex_hyper::hyper_util::client::legacy::Client as Hyper;
use digifinex_hyper::hyper_util::rt::{TokioExecutor, TokioTimer};
use digifinex_hyper::{Client, HyperClient};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim = std::env::var("DIGIFINEX_SIM_URL").ok();
    let mut tcp = HttpConnector::new();
    tcp.set_connect_timeout(Some(Duration::from_secs(3)));
    tcp.enforce_http(false); // https URLs go through it to the TLS layer
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_webpki_roots()
    .with_no_client_auth();
    let https = HttpsConnectorBuilder::new().with_tls_config(tls);
    // The exchange is https only; the simulator speaks plain HTTP.
    let https = match sim {
        Some(_) => https.https_or_http(),
        None => https.https_only(),
    }
    .enable_http1();

    // The connector's type depends on the proxy, so the rest is generic over it.
    match std::env::var("DIGIFINEX_PROXY") {
        Ok(proxy) => {
            let tunnel = Tunnel::new(proxy.parse()?, tcp);
            ticker(pooled(https.wrap_connector(tunnel)), sim).await
        }
        Err(_) => ticker(pooled(https.wrap_connector(tcp)), sim).await,
    }
}

/// A hyper client on `connector` with a small pool.
fn pooled<C: Connect + Clone>(connector: C) -> HyperClient<C> {
    Hyper::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .pool_max_idle_per_host(4)
        .build(connector)
}

/// The DigiFinex client on `hyper`, and one request.
async fn ticker<C>(
    hyper: HyperClient<C>,
    sim: Option<String>,
) -> Result<(), Box<dyn std::error::Error>>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    let mut builder = Client::builder()
        .hyper_client(hyper)
        .read_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(8));
    if let Some(sim) = sim {
        // The simulator serves spot under `/v3` and swap at its root, over plain HTTP.
        builder = builder
            .spot_base_url(format!("{sim}/v3"))
            .swap_base_url(sim)
            .allow_http(true);
    }
    let client = builder.build()?;
    let ticker = client
        .send(&TickerRequest::new().symbol("btc_usdt"))
        .await?;
    println!("{ticker:?}");
    Ok(())
}
