//! Brings its own `ureq::Agent`: short timeouts, a small connection pool, and a proxy when
//! `DIGIFINEX_PROXY` names one (HTTP(S) or SOCKS: `http://user:pass@host:3128`); without it
//! the connection is direct.
//!
//! Asks the exchange for a ticker (needs the network); against a running simulator
//! (`cargo run -p digifinex-sim -- --addr 127.0.0.1:8080`), set
//! `DIGIFINEX_SIM_URL=http://127.0.0.1:8080`.
use std::time::Duration;

use digifinex_ureq::core::spot::TickerRequest;
use digifinex_ureq::ureq;
use digifinex_ureq::Client;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proxy = match std::env::var("DIGIFINEX_PROXY") {
        Ok(p) => Some(ureq::Proxy::new(&p)?),
        Err(_) => None,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .proxy(proxy)
        .timeout_connect(Some(Duration::from_secs(3)))
        .timeout_global(Some(Duration::from_secs(8)))
        .max_idle_connections_per_host(4)
        .build()
        .into();
    // The agent's timeouts are kept; 4xx/5xx still reach the core as answers.
    let mut builder = Client::builder().agent(agent);
    if let Ok(sim) = std::env::var("DIGIFINEX_SIM_URL") {
        // The simulator serves spot under `/v3` and swap at its root, over plain HTTP.
        builder = builder
            .spot_base_url(format!("{sim}/v3"))
            .swap_base_url(sim)
            .allow_http(true);
    }
    let client = builder.build()?;
    let ticker = client.send(&TickerRequest::new().symbol("btc_usdt"))?;
    println!("{ticker:?}");
    Ok(())
}
