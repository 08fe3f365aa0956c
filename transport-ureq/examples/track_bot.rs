//! One account state for a bot: quotes one bid and one ask at the touch of `btc_usdt` against
//! the simulator's order flow and lets a `Tracker` say what happened: each order placed, each
//! fill once with its trade id and fee (from `mytrades`, which pushes lack), the balances that
//! changed. The bot hands the tracker its writes' answers and calls `sync()`; the tracker picks
//! the reads (a resync each simulated minute, the fills of an order that executed further).
//! The simulator's clock is advanced 30 s at a time, so half an hour of market runs in seconds.
//!
//! Run: `cargo run -p digifinex-ureq --example track_bot`
use std::sync::Arc;
use std::time::Duration;

use digifinex_sim::{Control, Sim, SimConfig};
use digifinex_ureq::core::reconcile::Write;
use digifinex_ureq::core::spot::{
    CancelOrdersRequest, LimitOrder, Market, OrderBookRequest, PlaceOrderRequest,
};
use digifinex_ureq::core::track::{Answer, Change, TrackConfig, Tracker};
use digifinex_ureq::core::{Amount, Clock, Credentials, Family, Price, TimestampMillis};
use digifinex_ureq::Client;

/// The simulator's clock as the client's, so that signatures and the tracker's timers run on
/// simulated time.
struct SimTime(Control);

impl Clock for SimTime {
    fn now(&self) -> TimestampMillis {
        TimestampMillis(self.0.now_ms())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim = Sim::start(SimConfig::default())?;
    let control = sim.control();
    let keys = control.demo_account().keys;
    let client = Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(Credentials::new(keys.key, keys.secret))
        .clock(Arc::new(SimTime(control.clone())))
        .build()?;

    let config = TrackConfig::new().resync_interval(Duration::from_secs(60));
    let now = client.session().now();
    let mut tracking = client.tracker(Tracker::new(Family::Spot, ["btc_usdt"], config, now));
    tracking.sync(); // the opening state: open orders, balances

    let amount = "0.001".parse::<Amount>()?;
    let mut quotes: [Option<String>; 2] = [None, None]; // [bid, ask]
    let mut fills = 0;
    for _ in 0..60 {
        control.advance_clock(30_000); // the market moves for 30 s
        let book = client.send(&OrderBookRequest::new("btc_usdt").limit(5))?;
        let (Some(bid), Some(ask)) = (book.best_bid(), book.best_ask()) else {
            continue;
        };
        for (side, touch) in [(0, bid.price), (1, ask.price)] {
            // Requote: cancel the old quote (whatever it filled, the tracker reports), place
            // a new one at the touch, post-only.
            if let Some(id) = quotes[side].take() {
                let cancel = CancelOrdersRequest::new(Market::Spot, [id.as_str()]);
                let answer = client.send(&cancel)?;
                tracking.on_answer(&Write::SpotCancel(cancel), &Answer::SpotCancelled(answer));
            }
            let order = if side == 0 {
                LimitOrder::buy(amount, Price::new(touch)).post_only()
            } else {
                LimitOrder::sell(amount, Price::new(touch)).post_only()
            };
            let request = PlaceOrderRequest::new(Market::Spot, "btc_usdt", order);
            let placed = client.send(&request)?;
            quotes[side] = Some(placed.order_id.clone());
            tracking.on_answer(&Write::SpotOrder(request), &Answer::SpotPlaced(placed));
        }
        tracking.sync();
        while let Some(change) = tracking.poll_change() {
            match &change {
                Change::Filled { trade, fee } => {
                    fills += 1;
                    let fee = fee.as_ref().map_or("unknown".to_owned(), |f| {
                        format!("{} {}", f.amount, f.currency.as_deref().unwrap_or(""))
                    });
                    println!(
                        "filled: {} {:?} BTC at {:?} (trade {}), fee {fee}",
                        trade.side.as_deref().unwrap_or("?"),
                        trade.amount,
                        trade.price,
                        trade.trade_id,
                    );
                }
                Change::BalanceChanged {
                    currency, after, ..
                } => {
                    println!("balance: {currency} now {after:?}");
                }
                _ => {}
            }
        }
        if fills >= 2 {
            break;
        }
    }
    for id in quotes.iter().flatten() {
        let cancel = CancelOrdersRequest::new(Market::Spot, [id.as_str()]);
        let answer = client.send(&cancel)?;
        tracking.on_answer(&Write::SpotCancel(cancel), &Answer::SpotCancelled(answer));
    }
    tracking.sync();
    println!("{fills} fills, each reported once with its fee");
    let state = tracking.state();
    println!("{}", serde_json::to_string(&state)?);
    Ok(())
}
