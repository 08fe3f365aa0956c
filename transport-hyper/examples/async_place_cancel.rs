//! Places a small limit buy far below the market (0.001 BTC at 10,000 USDT: a value of 10 USDT,
//! above the pair's minimum), then cancels it.
//!
//! Against a running simulator (`cargo run -p digifinex-sim -- --addr 127.0.0.1:8080`), set
//! only `DIGIFINEX_SIM_URL=http://127.0.0.1:8080`: the example asks the simulator's control API
//! for a funded demo key pair (unless `DIGIFINEX_API_KEY` and `DIGIFINEX_API_SECRET` are set).
//! Without `DIGIFINEX_SIM_URL` the order goes to the real exchange, with the key pair from
//! `DIGIFINEX_API_KEY` and `DIGIFINEX_API_SECRET`.
use digifinex_hyper::core::spot::{CancelOrdersRequest, LimitOrder, Market, PlaceOrderRequest};
use digifinex_hyper::core::{Amount, Credentials, Error, Family, Price};
use digifinex_hyper::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim_url = std::env::var("DIGIFINEX_SIM_URL").ok();
    let (key, secret) = match (
        std::env::var("DIGIFINEX_API_KEY"),
        std::env::var("DIGIFINEX_API_SECRET"),
        &sim_url,
    ) {
        (Ok(k), Ok(s), _) => (k, s),
        (_, _, Some(sim)) => demo_keys(sim).await?,
        _ => {
            return Err(
                "set DIGIFINEX_API_KEY and DIGIFINEX_API_SECRET, or DIGIFINEX_SIM_URL".into(),
            )
        }
    };
    let mut builder = Client::builder().credentials(Credentials::new(key, secret));
    if let Some(sim) = sim_url {
        // The simulator serves spot under `/v3` and swap at its root, over plain HTTP.
        builder = builder
            .spot_base_url(format!("{sim}/v3"))
            .swap_base_url(sim)
            .allow_http(true);
    }
    let client = builder.build()?;
    // Spot accepts timestamps at most 5 s old and 1 s ahead: measure the offset first.
    let offset = client.sync_time(Family::Spot).await?;
    println!("server clock offset {offset} ms");

    let order = PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy("0.001".parse::<Amount>()?, "10000".parse::<Price>()?),
    );
    let placed = match client.send(&order).await {
        Ok(p) => p,
        Err(e @ Error::OutcomeUnknown { .. }) => {
            // Never re-send blindly: the order may exist. Look at open orders first.
            eprintln!("{e}: check open orders before retrying");
            return Err(e.into());
        }
        Err(e) => return Err(e.into()),
    };
    println!("placed {}", placed.order_id);

    let cancel = CancelOrdersRequest::new(Market::Spot, [placed.order_id]);
    let cancelled = client.send(&cancel).await?;
    println!("cancelled {cancelled:?}");
    Ok(())
}

/// A funded demo key pair from the simulator's control API (`POST /__sim/demo`), over a plain
/// HTTP/1.1 exchange (the simulator listens on loopback without TLS).
async fn demo_keys(sim: &str) -> Result<(String, String), Box<dyn std::error::Error>> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = sim
        .strip_prefix("http://")
        .ok_or("DIGIFINEX_SIM_URL must start with http://")?;
    let mut tcp = tokio::net::TcpStream::connect(host).await?;
    let ask = format!(
        "POST /__sim/demo HTTP/1.1\r\nhost: {host}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    );
    tcp.write_all(ask.as_bytes()).await?;
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).await?;
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .ok_or("no answer body")?;
    let demo: serde_json::Value = serde_json::from_str(body)?;
    match (demo["key"].as_str(), demo["secret"].as_str()) {
        (Some(k), Some(s)) => Ok((k.to_owned(), s.to_owned())),
        _ => Err(format!("no demo key pair in {body}").into()),
    }
}
