//! From the simulator to your bot: starts the exchange simulator in this process (its markets
//! move on their own: other traders' limit orders, market orders and cancellations), points
//! the blocking client at it, and quotes one bid and one ask at the touch of `btc_usdt`,
//! requoting as the market moves, until the flow's market orders fill it. The simulator's
//! clock is advanced 30 s at a time, so half an hour of market runs in a second or two; a bot
//! against the real exchange runs the same loop in real time. No network, no keys, no money.
//!
//! Run: `cargo run -p digifinex-ureq --example sim_bot`
use std::sync::Arc;

use digifinex_sim::{Control, Sim, SimConfig};
use digifinex_ureq::core::spot::{
    CancelOrdersRequest, LimitOrder, Market, MarketsRequest, OrderBookRequest, OrderDetailRequest,
    PlaceOrderRequest, SpotAssetsRequest,
};
use digifinex_ureq::core::{Amount, Clock, Credentials, Decimal, Price, TimestampMillis};
use digifinex_ureq::Client;

/// The simulator's clock as the client's, so that signatures carry the simulated time.
struct SimTime(Control);

impl Clock for SimTime {
    fn now(&self) -> TimestampMillis {
        TimestampMillis(self.0.now_ms())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The simulator serves REST and both websockets on 127.0.0.1 (a free port) until `sim` is
    // dropped; its demo account is funded (100,000 USDT, 2 BTC, ...) and its key may trade.
    let sim = Sim::start(SimConfig::default())?;
    let control = sim.control();
    let keys = control.demo_account().keys;

    // For the real exchange, leave out the two URLs, `allow_http` and the clock.
    let client = Client::builder()
        .spot_base_url(sim.spot_base_url()) // http://127.0.0.1:PORT/v3
        .swap_base_url(sim.swap_base_url()) // http://127.0.0.1:PORT
        .allow_http(true) // the simulator speaks plain HTTP; only https is accepted otherwise
        .credentials(Credentials::new(keys.key, keys.secret))
        .clock(Arc::new(SimTime(control.clone())))
        .build()?;

    // 0.001 BTC a side: about 30 USDT, above both btc_usdt minimums (`min_volume` is the least
    // amount in BTC, `min_amount` the least value in USDT; below either: errors 20009, 20010).
    let amount = "0.001".parse::<Amount>()?;
    let markets = client.send(&MarketsRequest)?;
    let btc = markets
        .data
        .iter()
        .find(|m| m.market == "btc_usdt")
        .ok_or("btc_usdt is not listed")?;
    println!(
        "btc_usdt minimums: {:?} BTC, {:?} USDT",
        btc.min_volume, btc.min_amount
    );

    let mut quotes: [Option<String>; 2] = [None, None]; // [bid, ask]
    let mut filled = [Decimal::ZERO; 2];
    for minute in 0..60 {
        control.advance_clock(30_000); // the market moves for 30 s
        let book = client.send(&OrderBookRequest::new("btc_usdt").limit(5))?;
        let (Some(bid), Some(ask)) = (book.best_bid(), book.best_ask()) else {
            continue;
        };
        for (side, touch) in [(0, bid.price), (1, ask.price)] {
            if let Some(id) = quotes[side].take() {
                let o = client
                    .send(&OrderDetailRequest::new(Market::Spot, &id))?
                    .data;
                let open = o.status.as_ref().is_some_and(|s| s.is_open());
                if open && o.price == Some(touch) {
                    quotes[side] = Some(id); // still at the touch: keep its place in the queue
                    continue;
                }
                if open {
                    client.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))?;
                }
                let done = client
                    .send(&OrderDetailRequest::new(Market::Spot, &id))?
                    .data;
                let executed = done.executed_amount.unwrap_or_default();
                if let (false, Some(price)) = (executed.is_zero(), done.price) {
                    let what = if side == 0 { "bought" } else { "sold" };
                    println!("{:>4} s: {what} {executed} BTC at {price}", minute * 30);
                }
                filled[side] += executed;
            }
            // Post-only: refused rather than taking liquidity if the market moved through it.
            let order = if side == 0 {
                LimitOrder::buy(amount, Price::new(touch)).post_only()
            } else {
                LimitOrder::sell(amount, Price::new(touch)).post_only()
            };
            let placed = client.send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))?;
            quotes[side] = Some(placed.order_id);
        }
    }
    for id in quotes.iter().flatten() {
        client.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))?;
    }
    println!(
        "in 30 simulated minutes: bought {} BTC, sold {} BTC",
        filled[0], filled[1]
    );

    let assets = client.send(&SpotAssetsRequest)?;
    for asset in assets
        .list
        .iter()
        .filter(|a| a.currency == "BTC" || a.currency == "USDT")
    {
        println!(
            "{}: free {:?}, total {:?}",
            asset.currency, asset.free, asset.total
        );
    }
    Ok(())
}
