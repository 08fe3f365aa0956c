//! The async runner: the same bot written for the async client and for the blocking one gives
//! the same report, byte for byte; a panic in an async bot ends the run with a partial report.

use std::time::Duration;

use digifinex_backtest::{Backtest, BacktestConfig, BacktestError, Report};
use digifinex_core::spot::{
    CancelOrdersRequest, LimitOrder, Market, OrderBookRequest, OrderDetailRequest,
    PlaceOrderRequest,
};
use digifinex_core::{Amount, Error, Price};
use digifinex_sim::SimConfig;

const T0: i64 = 1_800_000_000_000;

fn backtest() -> Backtest {
    let mut sim = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default()
    };
    sim.markets.retain(|m| m.symbol() == "btc_usdt");
    sim.swap_instruments.clear();
    let mut config = BacktestConfig::new(sim);
    config.end_ms = Some(T0 + 30 * 60_000);
    Backtest::new(config).unwrap()
}

fn bid(price: rust_decimal::Decimal) -> PlaceOrderRequest {
    PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(Amount::new("0.001".parse().unwrap()), Price::new(price)).post_only(),
    )
}

/// Every 5 s: one post-only bid at the best bid, moved when the touch moved.
fn blocking(bot: &digifinex_backtest::Bot) -> Result<(), Error> {
    let c = bot.client();
    let mut quote: Option<(String, rust_decimal::Decimal)> = None;
    while bot.wait(Duration::from_secs(5)) {
        let book = c.send(&OrderBookRequest::new("btc_usdt").limit(5))?;
        let Some(touch) = book.best_bid().map(|l| l.price) else {
            continue;
        };
        if let Some((id, at)) = quote.take() {
            let open = c
                .send(&OrderDetailRequest::new(Market::Spot, &id))?
                .data
                .status
                .is_some_and(|s| s.is_open());
            if open && at == touch {
                quote = Some((id, at));
                continue;
            }
            if open {
                c.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))?;
            }
        }
        if let Ok(p) = c.send(&bid(touch)) {
            quote = Some((p.order_id, touch));
        }
    }
    Ok(())
}

/// The same bot, for the async client.
async fn asynchronous(bot: digifinex_backtest::AsyncBot) -> Result<(), Error> {
    let c = bot.client();
    let mut quote: Option<(String, rust_decimal::Decimal)> = None;
    while bot.wait(Duration::from_secs(5)) {
        let book = c.send(&OrderBookRequest::new("btc_usdt").limit(5)).await?;
        let Some(touch) = book.best_bid().map(|l| l.price) else {
            continue;
        };
        if let Some((id, at)) = quote.take() {
            let open = c
                .send(&OrderDetailRequest::new(Market::Spot, &id))
                .await?
                .data
                .status
                .is_some_and(|s| s.is_open());
            if open && at == touch {
                quote = Some((id, at));
                continue;
            }
            if open {
                c.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))
                    .await?;
            }
        }
        if let Ok(p) = c.send(&bid(touch)).await {
            quote = Some((p.order_id, touch));
        }
    }
    Ok(())
}

#[test]
fn the_same_bot_on_either_client_gives_the_same_report() {
    let a: Report = backtest().run(blocking).unwrap();
    let b: Report = backtest().run_async(asynchronous).unwrap();
    assert!(
        !a.json["fills"].as_array().unwrap().is_empty(),
        "no fill in half an hour"
    );
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn an_async_bot_that_panics_ends_the_run_with_a_partial_report() {
    let err = backtest()
        .run_async(|bot| async move {
            bot.wait(Duration::from_secs(60));
            bot.client()
                .send(&OrderBookRequest::new("btc_usdt"))
                .await?;
            if bot.now_ms() > T0 {
                panic!("the async bot's own bug");
            }
            Ok::<(), Error>(())
        })
        .unwrap_err();
    let BacktestError::Bot {
        error,
        panicked,
        report,
    } = err
    else {
        panic!("not the bot's error")
    };
    assert!(panicked);
    assert_eq!(error.to_string(), "the async bot's own bug");
    let end = report.json["end_ms"].as_i64().unwrap();
    assert_eq!(end, T0 + 60_000 + 40, "a minute and one round trip");
}
