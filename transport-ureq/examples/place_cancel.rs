//! Places a small limit buy far below the market, then cancels it.
//!
//! Credentials come from `DIGIFINEX_API_KEY` and `DIGIFINEX_API_SECRET`; point it at the
//! simulator with `DIGIFINEX_SPOT_URL=http://127.0.0.1:PORT/v3`.
use digifinex_ureq::core::spot::{CancelOrdersRequest, LimitOrder, Market, PlaceOrderRequest};
use digifinex_ureq::core::{Credentials, Decimal, Error, Family};
use digifinex_ureq::Client;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let key = std::env::var("DIGIFINEX_API_KEY")?;
    let secret = std::env::var("DIGIFINEX_API_SECRET")?;
    let mut builder = Client::builder().credentials(Credentials::new(key, secret));
    if let Ok(url) = std::env::var("DIGIFINEX_SPOT_URL") {
        builder = builder.spot_base_url(url).allow_http(true);
    }
    let client = builder.build()?;
    // Spot accepts timestamps at most 5 s old and 1 s ahead: measure the offset first.
    let offset = client.sync_time(Family::Spot)?;
    println!("server clock offset {offset} ms");

    let order = PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(
            digifinex_ureq::core::Amount::new(Decimal::new(1, 3)),
            digifinex_ureq::core::Price::new(Decimal::new(1000, 0)),
        ),
    );
    let placed = match client.send(&order) {
        Ok(p) => p,
        Err(e @ Error::OutcomeUnknown { .. }) => {
            // Never re-send blindly: the order may exist. Look at open orders first.
            eprintln!("{e}: check open orders before retrying");
            return Err(e.into());
        }
        Err(e) => return Err(e.into()),
    };
    println!("placed {}", placed.order_id);

    let cancelled = client.send(&CancelOrdersRequest::new(Market::Spot, [placed.order_id]))?;
    println!("cancelled {cancelled:?}");
    Ok(())
}
