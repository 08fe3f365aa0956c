//! The bundled example strategies, written against the blocking client as any bot is: the
//! same function runs against the live venue, the socket simulator and a backtest.

use std::collections::BTreeMap;
use std::time::Duration;

use digifinex_core::spot::{
    CancelOrdersRequest, LimitOrder, Market, MarketsRequest, OrderBookRequest, OrderDetailRequest,
    PlaceOrderRequest,
};
use digifinex_core::{Amount, Decimal, Error, Price};
use rust_decimal::RoundingStrategy;

use crate::Bot;

/// The names `digifinex backtest --strategy` takes.
pub const NAMES: [&str; 1] = ["quote-touch"];

/// The guide's market maker: one post-only bid and one post-only ask at the touch of each
/// pair, checked every `requote` and moved when the touch moved (an order still at the touch
/// keeps its place in the queue). Each order is worth about `notional` of the quote currency
/// (at least the pair's minimums).
#[derive(Debug, Clone)]
pub struct QuoteTouch {
    /// Time between two checks.
    pub requote: Duration,
    /// Value of each order in the quote currency.
    pub notional: Decimal,
}

impl Default for QuoteTouch {
    fn default() -> Self {
        QuoteTouch {
            requote: Duration::from_secs(10),
            notional: Decimal::from(20),
        }
    }
}

impl QuoteTouch {
    /// Runs in a backtest until time is over, then cancels what is left.
    pub fn run(&self, bot: &Bot) -> Result<(), Error> {
        self.run_with(bot.client(), bot.spot_pairs(), |d| bot.wait(d))
    }

    /// Runs with `client` on `pairs` (against the venue, the socket simulator or a backtest),
    /// `wait` letting `requote` pass between checks (a sleep live; `false` ends the run), then
    /// cancels what is left.
    pub fn run_with(
        &self,
        client: &digifinex_ureq::Client,
        pairs: &[String],
        mut wait: impl FnMut(Duration) -> bool,
    ) -> Result<(), Error> {
        let markets = client.send(&MarketsRequest)?;
        let mut rules = BTreeMap::new();
        for pair in pairs {
            if let Some(m) = markets.data.iter().find(|m| m.market.as_str() == pair) {
                rules.insert(
                    pair.clone(),
                    (
                        m.volume_precision.unwrap_or(8),
                        m.min_volume.unwrap_or_default(),
                        m.min_amount.unwrap_or_default(),
                    ),
                );
            }
        }
        // [bid, ask] per pair.
        let mut quotes: BTreeMap<String, [Option<String>; 2]> = BTreeMap::new();
        while wait(self.requote) {
            for (pair, (precision, min_volume, min_amount)) in &rules {
                let book = client.send(&OrderBookRequest::new(pair).limit(5))?;
                let (Some(bid), Some(ask)) = (book.best_bid(), book.best_ask()) else {
                    continue;
                };
                let slots = quotes.entry(pair.clone()).or_default();
                for (side, touch) in [(0, bid.price), (1, ask.price)] {
                    if let Some(id) = slots[side].take() {
                        let o = client
                            .send(&OrderDetailRequest::new(Market::Spot, &id))?
                            .data;
                        let open = o.status.as_ref().is_some_and(|s| s.is_open());
                        if open && o.price == Some(touch) {
                            slots[side] = Some(id);
                            continue;
                        }
                        if open {
                            client.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))?;
                        }
                    }
                    if touch <= Decimal::ZERO {
                        continue;
                    }
                    let wanted = (self.notional.max(*min_amount * Decimal::TWO)) / touch;
                    let amount = wanted
                        .max(*min_volume)
                        .round_dp_with_strategy(*precision, RoundingStrategy::AwayFromZero);
                    let (amount, price) = (Amount::new(amount), Price::new(touch));
                    let order = if side == 0 {
                        LimitOrder::buy(amount, price).post_only()
                    } else {
                        LimitOrder::sell(amount, price).post_only()
                    };
                    // A refusal (the market moved through it, funds short) is the venue's
                    // answer to this quote, not the end of the run.
                    match client.send(&PlaceOrderRequest::new(Market::Spot, pair, order)) {
                        Ok(placed) => slots[side] = Some(placed.order_id),
                        Err(Error::Api(_)) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        for id in quotes.values().flatten().flatten() {
            let _ = client.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]));
        }
        Ok(())
    }
}
