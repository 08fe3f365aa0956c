//! From the simulator to your bot: starts the exchange simulator in this process, points the
//! blocking client at it, places a limit order that passes the pair's minimums, queries it,
//! cancels it and reads the balances. No network, no keys, no money.
//!
//! Run: `cargo run -p digifinex-ureq --example sim_bot`
use digifinex_sim::{Sim, SimConfig};
use digifinex_ureq::core::spot::{
    CancelOrdersRequest, LimitOrder, Market, MarketsRequest, OrderDetailRequest, PlaceOrderRequest,
    SpotAssetsRequest,
};
use digifinex_ureq::core::{Amount, Credentials, Family, Price};
use digifinex_ureq::Client;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The simulator serves both APIs on 127.0.0.1 (a free port) until `sim` is dropped;
    // its demo account is funded (100,000 USDT, 2 BTC, ...) and its key may read and trade.
    let sim = Sim::start(SimConfig::default())?;
    let keys = sim.control().demo_account().keys;

    // For the real exchange, leave out the two URLs and `allow_http`, and pass your own keys.
    let client = Client::builder()
        .spot_base_url(sim.spot_base_url()) // http://127.0.0.1:PORT/v3
        .swap_base_url(sim.swap_base_url()) // http://127.0.0.1:PORT
        .allow_http(true) // the simulator speaks plain HTTP; only https is accepted otherwise
        .credentials(Credentials::new(keys.key, keys.secret))
        .build()?;
    let offset_ms = client.sync_time(Family::Spot)?; // spot accepts timestamps -5 s..+1 s
    println!("clock offset {offset_ms} ms");

    // 0.001 BTC at 10,000 USDT: 10 USDT, far below the market so that the order rests.
    let (amount, price) = ("0.001".parse::<Amount>()?, "10000".parse::<Price>()?);
    let markets = client.send(&MarketsRequest)?;
    let btc = markets
        .data
        .iter()
        .find(|m| m.market == "btc_usdt")
        .ok_or("btc_usdt is not listed")?;
    // `min_volume` is the least amount (BTC), `min_amount` the least value (USDT): an order
    // below either is refused (errors 20009, 20010).
    println!(
        "btc_usdt minimums: {:?} BTC, {:?} USDT",
        btc.min_volume, btc.min_amount
    );
    let value = amount.get() * price.get();
    if btc.min_volume.is_some_and(|min| amount.get() < min)
        || btc.min_amount.is_some_and(|min| value < min)
    {
        return Err(format!("{amount} BTC at {price} is below the btc_usdt minimums").into());
    }

    let order = PlaceOrderRequest::new(Market::Spot, "btc_usdt", LimitOrder::buy(amount, price));
    let placed = client.send(&order)?;
    println!("placed {} ({value} USDT)", placed.order_id);

    let detail = client.send(&OrderDetailRequest::new(Market::Spot, &placed.order_id))?;
    println!(
        "status {:?}, executed {:?} of {:?}",
        detail.data.status, detail.data.executed_amount, detail.data.amount
    );

    let cancel = CancelOrdersRequest::new(Market::Spot, [placed.order_id.as_str()]);
    let cancelled = client.send(&cancel)?;
    println!(
        "cancelled {:?}, failed {:?}",
        cancelled.success, cancelled.error
    );

    let assets = client.send(&SpotAssetsRequest)?;
    for asset in &assets.list {
        println!(
            "{}: free {:?}, total {:?}",
            asset.currency, asset.free, asset.total
        );
    }
    Ok(())
}
