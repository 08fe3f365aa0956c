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

/// The three minutes of `icp_usdt` of the simulator's sample recording (its SOURCES.md says
/// what is real in it), with `model`.
fn over_the_sample(model: &str) -> Report {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sim/tests/data/sample-icp.jsonl.gz"
    );
    let sim = SimConfig {
        market: Some(digifinex_sim::MarketConfig::file(path)),
        fill_model: digifinex_backtest::fill_model(model).unwrap(),
        ..SimConfig::default()
    };
    let mut config = BacktestConfig::new(sim);
    config.spot = Some(vec!["icp_usdt".to_owned()]);
    config.sample_every_ms = 10_000;
    let backtest = Backtest::new(config).unwrap();
    let strategy = QuoteTouch {
        requote: std::time::Duration::from_secs(2),
        notional: Decimal::from(20),
    };
    backtest.run(|bot| strategy.run(bot)).unwrap()
}

#[test]
fn a_recording_is_replayed_to_its_end_under_each_fill_model() {
    let fifo = over_the_sample("fifo");
    let j = &fifo.json;
    // The recording's first and last instants bound the run (2024-02-01 05:00 to 05:03 UTC).
    assert!(j["start_ms"].as_i64().unwrap() <= 1_706_763_600_100);
    let end = j["end_ms"].as_i64().unwrap();
    assert!(
        (1_706_763_779_350..1_706_763_800_000).contains(&end),
        "{end}"
    );
    assert_eq!(j["markets"], serde_json::json!(["icp_usdt"]));
    for model in ["prob-log", "prob-power:2"] {
        let r = over_the_sample(model);
        assert_eq!(r.json["fill_model"], model);
        let d = |name: &str| r.pnl(name).unwrap();
        assert_eq!(
            d("total"),
            d("realized") + d("unrealized") - d("fees") + d("rebates")
        );
        // Each model is deterministic too.
        assert_eq!(r.to_json(), over_the_sample(model).to_json());
    }
    // A queue model never fills a resting quote later than the conservative FIFO does: it
    // fills at least as much.
    let count = |r: &Report| r.json["fills"].as_array().unwrap().len();
    assert!(count(&fifo) > 0);
    assert!(count(&over_the_sample("prob-power:2")) >= count(&fifo));
    // The log model moves a quote up the queue faster than FIFO here: more of it fills.
    assert!(count(&over_the_sample("prob-log")) > count(&fifo));
}

#[test]
fn the_html_page_stands_alone_and_shows_each_run() {
    let a = over_the_sample("fifo");
    let b = over_the_sample("prob-log");
    let page = digifinex_backtest::html::page(&[("fifo", &a), ("prob-log", &b)]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    // Nothing fetched: no script, no external reference.
    assert!(!page.contains("<script"));
    assert!(!page
        .replace("http://www.w3.org/2000/svg", "")
        .contains("http"));
    // Both runs' figures, the equity, inventory and price plots with the fills.
    assert!(page.contains(">fifo<") && page.contains(">prob-log<"));
    assert!(page.contains(&format!(
        "<td>{}</td>",
        a.json["pnl"]["total"].as_str().unwrap()
    )));
    assert_eq!(page.matches("<svg").count(), 3);
    let fills =
        a.json["fills"].as_array().unwrap().len() + b.json["fills"].as_array().unwrap().len();
    assert_eq!(
        page.matches("<circle").count() + page.matches("<rect x=\"").count() - 3,
        fills
    );
    assert_eq!(a.to_html().matches("<polyline").count(), 3);
}

#[test]
fn a_bot_that_fails_or_panics_ends_the_run_with_a_partial_report() {
    let mut sim = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default()
    };
    sim.markets.retain(|m| m.symbol() == "btc_usdt");
    sim.swap_instruments.clear();
    let mut config = BacktestConfig::new(sim);
    config.end_ms = Some(T0 + 3_600_000);
    let backtest = Backtest::new(config).unwrap();
    let err = backtest
        .run(|bot| -> Result<(), digifinex_core::Error> {
            let strategy = QuoteTouch::default();
            let mut checks = 0;
            strategy.run_with(bot.client(), bot.spot_pairs(), |d| {
                checks += 1;
                assert!(checks < 60, "the bot's own bug after ten minutes");
                bot.wait(d)
            })
        })
        .unwrap_err();
    let digifinex_backtest::BacktestError::Bot {
        error,
        panicked,
        report,
    } = err
    else {
        panic!("not the bot's error")
    };
    assert!(panicked);
    assert_eq!(error.to_string(), "the bot's own bug after ten minutes");
    // The report covers the ten minutes the bot ran (59 waits of 10 s, and its calls' latency).
    let end = report.json["end_ms"].as_i64().unwrap();
    assert!((T0 + 590_000..T0 + 610_000).contains(&end), "{end}");
    assert!(!report.json["fills"].as_array().unwrap().is_empty());
    let d = |name: &str| report.pnl(name).unwrap();
    assert_eq!(
        d("total"),
        d("realized") + d("unrealized") - d("fees") + d("rebates")
    );
}

#[test]
fn with_zero_latency_the_socket_simulator_gives_the_backtests_fills() {
    use digifinex_core::{Clock, Credentials, TimestampMillis};
    use std::sync::Arc;
    use std::time::Duration;

    let end = T0 + 20 * 60_000;
    let config = || {
        let mut sim = SimConfig {
            start_time_ms: Some(T0),
            ..SimConfig::default()
        };
        sim.markets.retain(|m| m.symbol() == "btc_usdt");
        sim.swap_instruments.clear();
        sim
    };
    let fills = |j: &serde_json::Value| -> Vec<String> {
        j["fills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                format!(
                    "{} {} {} {} {}",
                    f["time_ms"], f["side"], f["price"], f["amount"], f["fee"]
                )
            })
            .collect()
    };
    // The backtest, with no latency.
    let mut bt = BacktestConfig::new(config());
    bt.latency = digifinex_backtest::RestLatency::Fixed {
        entry_ms: 0,
        response_ms: 0,
    };
    bt.end_ms = Some(end);
    let report = Backtest::new(bt)
        .unwrap()
        .run(|bot| QuoteTouch::default().run(bot))
        .unwrap();

    // The same strategy against the server, its clock frozen and stepped by the control API.
    struct SimTime(digifinex_sim::Control);
    impl Clock for SimTime {
        fn now(&self) -> TimestampMillis {
            TimestampMillis(self.0.now_ms())
        }
    }
    let sim = digifinex_sim::Sim::start(config()).unwrap();
    let control = sim.control();
    control.freeze_clock(Some(T0));
    let demo = control.demo_account();
    let client = digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .clock(Arc::new(SimTime(control.clone())))
        .build()
        .unwrap();
    QuoteTouch::default()
        .run_with(&client, &["btc_usdt".to_owned()], |d: Duration| {
            if control.now_ms() >= end {
                return false;
            }
            control.advance_clock(i64::try_from(d.as_millis()).unwrap());
            true
        })
        .unwrap();
    let live: Vec<String> = control
        .fills(demo.account)
        .iter()
        .map(|f| {
            format!(
                "{} \"{}\" \"{}\" \"{}\" \"{}\"",
                f.time_ms,
                if f.buy { "buy" } else { "sell" },
                f.price,
                f.amount,
                f.fee
            )
        })
        .collect();
    assert!(!live.is_empty());
    assert_eq!(fills(&report.json), live);
}

/// An hour of a perpetual around a funding time (`T0` is one: 00:00, 08:00 and 16:00 UTC).
fn swap_config(start: i64, end: i64) -> BacktestConfig {
    let mut sim = SimConfig {
        start_time_ms: Some(start),
        ..SimConfig::default()
    };
    sim.markets.clear();
    sim.swap_instruments
        .retain(|i| i.instrument_id == "BTCUSDTPERP");
    let mut config = BacktestConfig::new(sim);
    config.end_ms = Some(end);
    config
}

#[test]
fn the_market_maker_on_a_perpetual_is_filled_and_its_report_adds_up() {
    let run = || {
        Backtest::new(swap_config(T0 - 1_800_000, T0 + 1_800_000))
            .unwrap()
            .run(|bot| QuoteTouch::default().run(bot))
            .unwrap()
    };
    let r = run();
    let j = &r.json;
    assert_eq!(j["markets"], serde_json::json!([]));
    assert_eq!(j["swap_markets"], serde_json::json!(["BTCUSDTPERP"]));
    assert_eq!(j["fees"]["swap_maker"], "0.0003");
    assert_eq!(j["fees"]["swap_taker"], "0.0005");
    let fills = j["fills"].as_array().unwrap();
    assert!(!fills.is_empty(), "no fill in an hour");
    assert!(fills.iter().all(|f| f["market"] == "BTCUSDTPERP"));
    assert!(fills.iter().any(|f| f["kind"] == "open"));
    // Post-only quotes: maker fills, each charged the venue's maker rate on its value.
    let cv: Decimal = "0.001".parse().unwrap();
    for f in fills {
        assert_eq!(f["maker"], true);
        let price: Decimal = f["price"].as_str().unwrap().parse().unwrap();
        let amount: Decimal = f["amount"].as_str().unwrap().parse().unwrap();
        let fee: Decimal = f["fee"].as_str().unwrap().parse().unwrap();
        let expected = price * amount * cv * Decimal::new(3, 4);
        assert!((fee - expected).abs() < Decimal::new(1, 8), "{f}");
    }
    let d = |name: &str| r.pnl(name).unwrap();
    assert_eq!(
        d("total"),
        d("realized") + d("unrealized") - d("fees") + d("rebates") + d("funding")
    );
    let e0: Decimal = j["equity_start"].as_str().unwrap().parse().unwrap();
    let e1: Decimal = j["equity_end"].as_str().unwrap().parse().unwrap();
    assert_eq!(d("total"), e1 - e0);
    assert_eq!(e0, Decimal::from(10_000), "the demo account's swap wallet");
    // The funding list is the funding figure, settled at the 08:00 time only.
    let paid: Decimal = j["funding"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["time_ms"], T0);
            p["amount"].as_str().unwrap().parse::<Decimal>().unwrap()
        })
        .sum();
    assert_eq!(paid, d("funding"));
    // Inventory in contracts at every sample.
    assert!(j["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .all(|row| row["contracts"]["BTCUSDTPERP"].is_string()));
    assert_eq!(r.to_json(), run().to_json());
}

#[test]
fn a_position_held_over_a_funding_time_pays_the_rate_on_its_value() {
    use digifinex_core::swap::{OrderPricing, OrderSide, OrderSpec, PlaceOrderRequest};
    use digifinex_core::{Price, Size};
    use std::time::Duration;

    let backtest = Backtest::new(swap_config(T0 - 600_000, T0 + 600_000)).unwrap();
    let control = backtest.exchange().control();
    let mark: Decimal = "30000".parse().unwrap();
    let rate: Decimal = "0.0001".parse().unwrap();
    control.set_mark_price("BTCUSDTPERP", Some(mark)).unwrap();
    control.set_funding_rate("BTCUSDTPERP", rate).unwrap();
    let report = backtest
        .run(|bot| -> Result<(), digifinex_core::Error> {
            // A long of 10 contracts bought through the book (a limit 1 % above it).
            let order = OrderSpec::new(
                "BTCUSDTPERP",
                OrderSide::OpenLong,
                Size::new(Decimal::from(10)),
                OrderPricing::limit(Price::new("30300".parse().unwrap())),
            );
            bot.client().send(&PlaceOrderRequest::new(order))?;
            while bot.wait(Duration::from_secs(60)) {}
            Ok(())
        })
        .unwrap();
    let j = &report.json;
    let payments = j["funding"].as_array().unwrap();
    assert_eq!(payments.len(), 1, "{payments:?}");
    assert_eq!(payments[0]["time_ms"], T0);
    // A long pays size * contract value * mark * rate: 10 * 0.001 * 30000 * 0.0001.
    let amount: Decimal = payments[0]["amount"].as_str().unwrap().parse().unwrap();
    assert_eq!(amount, "-0.03".parse::<Decimal>().unwrap());
    assert_eq!(report.pnl("funding").unwrap(), "-0.03".parse().unwrap());
    let fills = j["fills"].as_array().unwrap();
    assert!(fills
        .iter()
        .all(|f| f["maker"] == false && f["kind"] == "open"));
    let d = |name: &str| report.pnl(name).unwrap();
    assert_eq!(
        d("total"),
        d("realized") + d("unrealized") - d("fees") + d("rebates") + d("funding")
    );
    let last = j["inventory"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["contracts"]["BTCUSDTPERP"], "10");
}

#[test]
fn over_a_recording_the_run_covers_its_markets_unless_named() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sim/tests/data/sample-icp.jsonl.gz"
    );
    let config = |spot: Option<Vec<String>>, swap: Option<Vec<String>>| {
        // The default configuration's synthetic markets stand beside the recording's.
        let mut c = BacktestConfig::new(SimConfig {
            market: Some(digifinex_sim::MarketConfig::file(path)),
            ..SimConfig::default()
        });
        c.spot = spot;
        c.swap = swap;
        c
    };
    let markets = |c: BacktestConfig| {
        let r = Backtest::new(c)
            .unwrap()
            .run(|bot| {
                while bot.wait(std::time::Duration::from_secs(30)) {}
                Ok::<(), digifinex_core::Error>(())
            })
            .unwrap();
        (r.json["markets"].clone(), r.json["swap_markets"].clone())
    };
    assert_eq!(
        markets(config(None, None)),
        (
            serde_json::json!(["icp_usdt"]),
            serde_json::json!(["ICPUSDTPERP"])
        )
    );
    assert_eq!(
        markets(config(Some(vec!["btc_usdt".into()]), None)),
        (serde_json::json!(["btc_usdt"]), serde_json::json!([]))
    );
    assert_eq!(
        markets(config(None, Some(vec!["ICPUSDTPERP".into()]))),
        (serde_json::json!([]), serde_json::json!(["ICPUSDTPERP"]))
    );
    let err = Backtest::new(config(None, Some(vec!["NOPEUSDTPERP".into()])))
        .unwrap()
        .run(|_| Ok::<(), digifinex_core::Error>(()))
        .unwrap_err();
    assert!(err.to_string().contains("NOPEUSDTPERP"), "{err}");
}
