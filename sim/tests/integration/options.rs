//! The command-line options (`digifinex_sim::options`) as a started simulator serves them.

use crate::common::Env;
use digifinex_sim::options::{Parsed, SimOptions};
use digifinex_sim::SimConfig;

/// `--synthetic 3,2`: the added pairs and instruments are listed beside the default ones,
/// each with a two-sided book.
#[test]
fn synthetic_markets_are_listed_with_books() {
    let Ok(Parsed::Run(options)) = SimOptions::parse(["--synthetic", "3,2", "--no-limits"]) else {
        panic!("--synthetic 3,2 parses");
    };
    let env = Env::with_config(options.config().unwrap());
    let defaults = SimConfig::default();

    let symbols = env.get("/spot/symbols", &[]).json();
    let listed: Vec<&str> = symbols["symbol_list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), defaults.markets.len() + 3, "{listed:?}");
    for name in ["BTC_USDT", "S0_USDT", "S1_USDT", "S2_USDT"] {
        assert!(listed.contains(&name), "{name}: {listed:?}");
    }
    let s1 = symbols["symbol_list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["symbol"] == "S1_USDT")
        .unwrap();
    assert_eq!(s1["base_asset"], "S1");
    assert_eq!(s1["quote_asset"], "USDT");
    assert_eq!(s1["status"], "TRADING");

    let instruments = Env::ok_data(&env.swget("/public/instruments", &[]));
    let ids: Vec<&str> = instruments
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["instrument_id"].as_str().unwrap())
        .collect();
    for id in ["BTCUSDTPERP", "S0USDTPERP", "S1USDTPERP"] {
        assert!(ids.contains(&id), "{id}: {ids:?}");
    }
    assert!(!ids.contains(&"S2USDTPERP"), "{ids:?}");

    // Each added market has a two-sided book around its price.
    for pair in ["s0_usdt", "s1_usdt", "s2_usdt"] {
        let ((ask, _), (bid, _)) = env.top(pair);
        assert!(
            bid > rust_decimal::Decimal::ZERO && bid < ask,
            "{pair}: {bid} {ask}"
        );
    }
    let depth = Env::ok_data(&env.swget(
        "/public/depth",
        &[("instrument_id", "S1USDTPERP"), ("limit", "5")],
    ));
    assert_eq!(depth["bids"].as_array().unwrap().len(), 5);
    assert_eq!(depth["asks"].as_array().unwrap().len(), 5);
}
