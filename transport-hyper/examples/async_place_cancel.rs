//! Places a small limit buy far below the market (0.001 BTC at 10,000 USDT: a value of 10 USDT,
//! above the pair's minimum), then cancels it.
//!
//! Credentials come from `DIGIFINEX_API_KEY` and `DIGIFINEX_API_SECRET`. Against a running
//! simulator (`cargo run -p digifinex-sim -- --addr 127.0.0.1:8080` prints a funded demo key
//! and secret), also set `DIGIFINEX_SIM_URL=http://127.0.0.1:8080`; without it the order goes
//! to the real exchange.
use digifinex_hyper::core::spot::{CancelOrdersRequest, LimitOrder, Market, PlaceOrderRequest};
use digifinex_hyper::core::{Amount, Credentials, Error, Family, Price};
use digifinex_hyper::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let key = std::env::var("DIGIFINEX_API_KEY")?;
    let secret = std::env::var("DIGIFINEX_API_SECRET")?;
    let mut builder = Client::builder().credentials(Credentials::new(key, secret));
    if let Ok(sim) = std::env::var("DIGIFINEX_SIM_URL") {
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
