//! Brings its own `ureq::Agent`: an HTTP(S) or SOCKS proxy from `DIGIFINEX_PROXY`
//! (`http://user:pass@host:3128`), short timeouts, a small connection pool.
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
    let client = Client::builder().agent(agent).build()?;
    let ticker = client.send(&TickerRequest::new().symbol("btc_usdt"))?;
    println!("{ticker:?}");
    Ok(())
}
