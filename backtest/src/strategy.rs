//! The bundled example strategies, written against the blocking client as any bot is: the
//! same function runs against the live venue, the socket simulator and a backtest.

use std::collections::BTreeMap;
use std::time::Duration;

use digifinex_core::spot::{
    CancelOrdersRequest, LimitOrder, Market, MarketsRequest, OrderBookRequest, OrderDetailRequest,
    PlaceOrderRequest,
};
use digifinex_core::swap::{
    CancelOrderRequest, DepthRequest, InstrumentsRequest, OrderInfoRequest, OrderPricing,
    OrderSide, OrderSpec, OrderState, PositionSide, PositionsRequest,
};
use digifinex_core::{Amount, Decimal, Error, Price, Size};
use rust_decimal::RoundingStrategy;

use crate::Bot;

/// The names `digifinex backtest --strategy` takes.
pub const NAMES: [&str; 1] = ["quote-touch"];

/// The guide's market maker: one post-only bid and one post-only ask at the touch of each
/// pair, checked every `requote` and moved when the touch moved (an order still at the touch
/// keeps its place in the queue). Each order is worth about `notional` of the quote currency
/// (at least the pair's minimums).
///
/// On a perpetual the same quotes trade a position: the bid closes a short when there is one
/// (else opens a long), the ask closes a long when there is one (else opens a short), so the
/// position moves between short and long by the quotes' size and never holds both sides.
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
    /// Runs in a backtest until time is over, then cancels what is left: on the run's spot
    /// pairs and perpetuals.
    pub fn run(&self, bot: &Bot) -> Result<(), Error> {
        self.run_markets(
            bot.client(),
            bot.spot_pairs(),
            bot.swap_instruments(),
            |d| bot.wait(d),
        )
    }

    /// Runs with `client` on `pairs` (against the venue, the socket simulator or a backtest),
    /// `wait` letting `requote` pass between checks (a sleep live; `false` ends the run), then
    /// cancels what is left.
    pub fn run_with(
        &self,
        client: &digifinex_ureq::Client,
        pairs: &[String],
        wait: impl FnMut(Duration) -> bool,
    ) -> Result<(), Error> {
        self.run_markets(client, pairs, &[], wait)
    }

    /// [`QuoteTouch::run_with`] on spot `pairs` and perpetuals `instruments` (`BTCUSDTPERP`).
    pub fn run_markets(
        &self,
        client: &digifinex_ureq::Client,
        pairs: &[String],
        instruments: &[String],
        mut wait: impl FnMut(Duration) -> bool,
    ) -> Result<(), Error> {
        let mut perps = Perps::new(client, instruments, self.notional)?;
        // The pairs' rules (none read without pairs).
        let markets = if pairs.is_empty() {
            Vec::new()
        } else {
            client.send(&MarketsRequest)?.data
        };
        let mut rules = BTreeMap::new();
        for pair in pairs {
            if let Some(m) = markets.iter().find(|m| m.market.as_str() == pair) {
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
            perps.check(client)?;
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
        perps.cancel_all(client);
        Ok(())
    }
}

/// The quotes on perpetuals: per instrument its contract value and minimum size, and the
/// [bid, ask] orders standing.
struct Perps {
    notional: Decimal,
    rules: BTreeMap<String, (Decimal, Decimal)>,
    quotes: BTreeMap<String, [Option<String>; 2]>,
}

impl Perps {
    fn new(
        client: &digifinex_ureq::Client,
        instruments: &[String],
        notional: Decimal,
    ) -> Result<Perps, Error> {
        let mut rules = BTreeMap::new();
        if !instruments.is_empty() {
            for i in client.send(&InstrumentsRequest::new())? {
                if instruments.contains(&i.instrument_id) {
                    let cv = i.contract_value.unwrap_or(Decimal::ONE);
                    let min = i.min_order_amount.unwrap_or(Decimal::ONE).max(Decimal::ONE);
                    rules.insert(i.instrument_id.clone(), (cv, min));
                }
            }
        }
        Ok(Perps {
            notional,
            rules,
            quotes: BTreeMap::new(),
        })
    }

    /// One check of every instrument: the touch, the position, each quote kept, moved or
    /// placed.
    fn check(&mut self, client: &digifinex_ureq::Client) -> Result<(), Error> {
        if self.rules.is_empty() {
            return Ok(());
        }
        let positions = client.send(&PositionsRequest::new())?;
        for (inst, (cv, min)) in &self.rules {
            let depth = client.send(&DepthRequest::new(inst).limit(5))?;
            let bid = depth.bids.iter().map(|l| l.price).max();
            let ask = depth.asks.iter().map(|l| l.price).min();
            let (Some(bid), Some(ask)) = (bid, ask) else {
                continue;
            };
            let held = |side: PositionSide| -> Decimal {
                positions
                    .iter()
                    .filter(|p| &p.instrument_id == inst && p.side.as_ref() == Some(&side))
                    .filter_map(|p| p.position)
                    .sum()
            };
            let (long, short) = (held(PositionSide::Long), held(PositionSide::Short));
            let slots = self.quotes.entry(inst.clone()).or_default();
            for (slot, touch) in [(0, bid), (1, ask)] {
                if touch <= Decimal::ZERO || *cv <= Decimal::ZERO {
                    continue;
                }
                let size = (self.notional / (touch * *cv)).floor().max(*min);
                let (side, size) = match slot {
                    0 if short > Decimal::ZERO => (OrderSide::CloseShort, size.min(short)),
                    0 => (OrderSide::OpenLong, size),
                    _ if long > Decimal::ZERO => (OrderSide::CloseLong, size.min(long)),
                    _ => (OrderSide::OpenShort, size),
                };
                if let Some(id) = slots[slot].take() {
                    let o = client.send(&OrderInfoRequest::new(id.as_str()).instrument_id(inst))?;
                    let open = matches!(
                        o.state,
                        Some(OrderState::Open) | Some(OrderState::PartFilled)
                    );
                    if open && o.price == Some(touch) && o.side.as_ref() == Some(&side) {
                        slots[slot] = Some(id);
                        continue;
                    }
                    if open {
                        client.send(&CancelOrderRequest::new(inst.as_str(), id.as_str()))?;
                    }
                }
                let order = OrderSpec::new(
                    inst.as_str(),
                    side,
                    Size::new(size),
                    OrderPricing::post_only(Price::new(touch)),
                );
                // A refusal (the market moved through it, margin short) is the venue's answer
                // to this quote, not the end of the run.
                match client.send(&digifinex_core::swap::PlaceOrderRequest::new(order)) {
                    Ok(placed) => slots[slot] = Some(placed.order_id),
                    Err(Error::Api(_)) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    fn cancel_all(&self, client: &digifinex_ureq::Client) {
        for (inst, slots) in &self.quotes {
            for id in slots.iter().flatten() {
                let _ = client.send(&CancelOrderRequest::new(inst.as_str(), id.as_str()));
            }
        }
    }
}
