//! A backtest of the bundled market maker over an hour of the synthetic order flow: it is
//! filled, its report adds up exactly, and the same run gives the same report byte for byte.

use digifinex_backtest::strategy::QuoteTouch;
use digifinex_backtest::{Backtest, BacktestConfig, Report};
use digifinex_core::Decimal;
use digifinex_sim::SimConfig;

const T0: i64 = 1_800_000_000_000;

fn run() -> Report {
    let mut sim = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default()
    };
    sim.markets.retain(|m| m.symbol() == "btc_usdt");
    sim.swap_instruments.clear();
    let mut config = BacktestConfig::new(sim);
    config.end_ms = Some(T0 + 3_600_000);
    let backtest = Backtest::new(config).unwrap();
    backtest.run(|bot| QuoteTouch::default().run(bot)).unwrap()
}

#[test]
fn the_market_maker_is_filled_and_its_report_adds_up() {
    let r = run();
    let j = &r.json;
    assert_eq!(j["start_ms"], T0);
    assert_eq!(j["end_ms"], T0 + 3_600_000);
    assert_eq!(j["fill_model"], "fifo");
    let fills = j["fills"].as_array().unwrap();
    assert!(!fills.is_empty(), "no fill in an hour");
    assert!(fills.iter().any(|f| f["side"] == "buy"));
    assert!(fills.iter().any(|f| f["side"] == "sell"));
    // Post-only quotes: every fill is a maker fill, and waited in the queue.
    assert!(fills.iter().all(|f| f["maker"] == true));
    assert!(fills
        .iter()
        .all(|f| f["queue_wait_ms"].as_i64().unwrap() >= 0));
    let d = |name: &str| r.pnl(name).unwrap();
    // The split adds up exactly, and is the equity's change.
    assert_eq!(
        d("total"),
        d("realized") + d("unrealized") - d("fees") + d("rebates")
    );
    let e0: Decimal = j["equity_start"].as_str().unwrap().parse().unwrap();
    let e1: Decimal = j["equity_end"].as_str().unwrap().parse().unwrap();
    assert_eq!(d("total"), e1 - e0);
    assert!(d("fees") > Decimal::ZERO);
    // A sample a minute, and the last at the end.
    let curve = j["equity"].as_array().unwrap();
    assert_eq!(curve.len(), 61, "{}", curve.len());
    assert_eq!(curve.last().unwrap()["equity"], j["equity_end"]);
    let ratio: Decimal = j["fill_ratio"].as_str().unwrap().parse().unwrap();
    assert!(ratio > Decimal::ZERO && ratio <= Decimal::ONE);
}

#[test]
fn the_same_run_gives_the_same_report() {
    assert_eq!(run().to_json(), run().to_json());
}
