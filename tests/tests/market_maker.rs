//! A market maker against the simulator's order flow, through the blocking client: it quotes
//! one bid and one ask at the touch of `btc_usdt` and requotes every 10 s for an hour of
//! simulated time (the control API advances the clock; the client's clock reads the
//! simulator's). The flow's market orders fill it on both sides. Then the invariants: the
//! balances are the opening balances plus every fill of `/mytrades` less its fee, and the
//! ticker's 24-hour figures are those of the trades that happened.

use std::sync::Arc;

use digifinex_core::spot::{
    CancelOrdersRequest, LimitOrder, Market, MyTradesRequest, OrderBookRequest, OrderDetailRequest,
    OrderStatus, OrderType, PlaceOrderRequest, SpotAssetsRequest, TickerRequest,
};
use digifinex_core::{Amount, Clock, Credentials, Decimal, Price, TimestampMillis};
use digifinex_sim::{AccountType, Control, Sim, SimConfig, WsFamily};

/// The simulator's clock as the client's: signatures carry the simulated time.
struct SimTime(Control);

impl Clock for SimTime {
    fn now(&self) -> TimestampMillis {
        TimestampMillis(self.0.now_ms())
    }
}

const T0: i64 = 1_800_000_000_000;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[test]
fn a_market_maker_at_the_touch_is_filled_on_both_sides_within_an_hour() {
    let mut config = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default()
    };
    // One pair keeps the hour of flow quick in a debug build.
    config.markets.retain(|m| m.symbol() == "btc_usdt");
    config.swap_instruments.clear();
    let sim = Sim::start(config).unwrap();
    let control = sim.control();
    let demo = control.demo_account();
    let account = demo.account;
    let client = digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .clock(Arc::new(SimTime(control.clone())))
        .build()
        .unwrap();
    let usdt0 = control.balance(account, AccountType::Spot, "USDT").unwrap();
    let btc0 = control.balance(account, AccountType::Spot, "BTC").unwrap();
    let size = Amount::new(d("0.002"));

    let mut bid: Option<String> = None;
    let mut ask: Option<String> = None;
    let (mut bought, mut sold) = (Decimal::ZERO, Decimal::ZERO);
    for _ in 0..360 {
        control.advance_clock(10_000);
        let book = client
            .send(&OrderBookRequest::new("btc_usdt").limit(5))
            .unwrap();
        let (best_bid, best_ask) = (
            book.best_bid().unwrap().price,
            book.best_ask().unwrap().price,
        );
        for (slot, buy, filled) in [(&mut bid, true, &mut bought), (&mut ask, false, &mut sold)] {
            let touch = if buy { best_bid } else { best_ask };
            // Keep a live order at the touch; count what executed of the ones that went.
            if let Some(id) = slot.clone() {
                let o = client
                    .send(&OrderDetailRequest::new(Market::Spot, &id))
                    .unwrap()
                    .data;
                let open = o.status.as_ref().is_some_and(OrderStatus::is_open);
                if open && o.price == Some(touch) {
                    continue;
                }
                if open {
                    client
                        .send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))
                        .unwrap();
                }
                let o = client
                    .send(&OrderDetailRequest::new(Market::Spot, &id))
                    .unwrap()
                    .data;
                *filled += o.executed_amount.unwrap_or_default();
                *slot = None;
            }
            let order = if buy {
                LimitOrder::buy(size, Price::new(touch)).post_only()
            } else {
                LimitOrder::sell(size, Price::new(touch)).post_only()
            };
            let placed = client
                .send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
                .unwrap();
            *slot = Some(placed.order_id);
        }
    }
    for id in [bid, ask].into_iter().flatten() {
        client
            .send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))
            .unwrap();
    }
    assert!(bought > Decimal::ZERO, "the bids were never filled");
    assert!(sold > Decimal::ZERO, "the asks were never filled");

    // Balances: the opening ones plus every fill, less its fee (the fee is taken in the
    // currency received), nothing frozen once every order is cancelled.
    let fills = client
        .send(
            &MyTradesRequest::new(Market::Spot)
                .symbol("btc_usdt")
                .limit(500),
        )
        .unwrap()
        .list;
    assert!(fills.len() < 500, "read every fill");
    let (mut usdt, mut btc) = (usdt0.total(), btc0.total());
    let (mut fills_bought, mut fills_sold) = (Decimal::ZERO, Decimal::ZERO);
    for f in &fills {
        let (price, amount, fee) = (
            f.price.unwrap(),
            f.amount.unwrap(),
            f.fee.unwrap_or_default(),
        );
        if matches!(f.side, Some(OrderType::Buy | OrderType::BuyMarket)) {
            fills_bought += amount;
            usdt -= price * amount;
            btc += amount - fee;
        } else {
            fills_sold += amount;
            usdt += price * amount - fee;
            btc -= amount;
        }
    }
    assert_eq!((fills_bought, fills_sold), (bought, sold));
    let assets = client.send(&SpotAssetsRequest).unwrap();
    let total = |c: &str| {
        assets
            .list
            .iter()
            .find(|a| a.currency == c)
            .and_then(|a| a.total)
            .unwrap()
    };
    assert_eq!(total("USDT"), usdt);
    assert_eq!(total("BTC"), btc);
    assert!(control
        .balance(account, AccountType::Spot, "USDT")
        .unwrap()
        .frozen
        .is_zero());

    // The ticker is the trades that happened: every trade of the run (and of the warm-up) is
    // within the 24-hour window.
    let trades = control.trades(WsFamily::Spot, "btc_usdt").unwrap();
    let t = client
        .send(&TickerRequest::new().symbol("btc_usdt"))
        .unwrap()
        .ticker
        .remove(0);
    let volume: Decimal = trades.iter().map(|t| t.qty).sum();
    let turnover: Decimal = trades.iter().map(|t| t.qty * t.price).sum();
    assert_eq!(t.vol, Some(volume));
    assert_eq!(t.base_vol, Some(turnover.round_dp(8)));
    assert_eq!(t.high, trades.iter().map(|t| t.price).max());
    assert_eq!(t.low, trades.iter().map(|t| t.price).min());
    assert_eq!(t.last, trades.last().map(|t| t.price));
    let (low, high) = (t.low.unwrap(), t.high.unwrap());
    let vwap = turnover / volume;
    assert!(low <= vwap && vwap <= high);
}
