//! Catalog coverage: every endpoint of the spot/margin v3 and swap v2 specs is in the catalog,
//! exactly once, with the documented method, signing and success code.

use digifinex_core::catalog;
use std::collections::BTreeSet;

/// The 31 spot/margin endpoints of `shared/spec/spot-margin-v3.md` §4 (METHOD, path, signed,
/// success code).
const SPEC: &[(&str, &str, bool, i64)] = &[
    ("GET", "/v3/ping", false, 0),
    ("GET", "/v3/time", false, 0),
    ("GET", "/v3/markets", false, 0),
    ("GET", "/v3/ticker", false, 0),
    ("GET", "/v3/order_book", false, 0),
    ("GET", "/v3/trades", false, 0),
    ("GET", "/v3/kline", false, 0),
    ("GET", "/v3/spot/symbols", false, 0),
    ("GET", "/v3/margin/currencies", false, 0),
    ("GET", "/v3/margin/symbols", false, 0),
    ("GET", "/v3/trades/symbols", false, 0),
    ("GET", "/v3/currencies", false, 200),
    ("GET", "/v3/spot/assets", true, 0),
    ("GET", "/v3/margin/assets", true, 0),
    ("GET", "/v3/{market}/financelog", true, 0),
    ("GET", "/v3/{market}/order", true, 0),
    ("GET", "/v3/{market}/order/detail", true, 0),
    ("GET", "/v3/{market}/order/current", true, 0),
    ("GET", "/v3/{market}/order/history", true, 0),
    ("GET", "/v3/{market}/mytrades", true, 0),
    ("GET", "/v3/margin/positions", true, 0),
    ("GET", "/v3/deposit/address", true, 200),
    ("GET", "/v3/deposit/history", true, 200),
    ("GET", "/v3/withdraw/history", true, 200),
    ("POST", "/v3/{market}/order/new", true, 0),
    ("POST", "/v3/{market}/order/batch_new", true, 0),
    ("POST", "/v3/{market}/order/cancel", true, 0),
    ("POST", "/v3/transfer", true, 0),
    ("POST", "/v3/margin/position/close", true, 0),
    ("POST", "/v3/withdraw/new", true, 200),
    ("POST", "/v3/withdraw/cancel", true, 200),
];

#[test]
fn every_spot_endpoint_is_in_the_catalog_once() {
    let listed: Vec<(String, String)> = catalog::all()
        .filter(|e| e.meta.family == digifinex_core::Family::Spot)
        .map(|e| (e.meta.method.as_str().to_owned(), e.meta.display_path()))
        .collect();
    let unique: BTreeSet<_> = listed.iter().cloned().collect();
    assert_eq!(unique.len(), listed.len(), "duplicate catalog entries");
    let want: BTreeSet<(String, String)> = SPEC
        .iter()
        .map(|(m, p, _, _)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(unique, want);
    for (method, path, signed, success) in SPEC {
        let concrete = path.replace("{market}", "margin");
        let (entry, vars) = catalog::find(method, &concrete).unwrap();
        assert_eq!(entry.meta.display_path(), *path);
        assert_eq!(entry.meta.signed, *signed, "{path}");
        assert_eq!(entry.meta.success_code, *success, "{path}");
        // Every spot POST changes state.
        assert_eq!(entry.meta.idempotent, *method == "GET", "{path}");
        if path.contains("{market}") {
            assert_eq!(vars, vec![("market".to_owned(), "margin".to_owned())]);
        }
    }
}

#[test]
fn the_spec_lists_no_endpoint_we_miss() {
    // Cross-check against the spec text itself when it is beside the checkout (as in CI).
    let spec = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/spec/spot-margin-v3.md"
    );
    let Ok(text) = std::fs::read_to_string(spec) else {
        eprintln!("spec not found at {spec}; the hard-coded list above still applies");
        return;
    };
    let ours: BTreeSet<String> = SPEC
        .iter()
        .map(|(_, p, _, _)| p.trim_start_matches("/v3").to_owned())
        .collect();
    let section = text
        .split("## 4. Endpoints")
        .nth(1)
        .unwrap()
        .split("## 5.")
        .next()
        .unwrap();
    let mut seen = 0;
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let first = line
            .trim_start_matches("| ")
            .split(" |")
            .next()
            .unwrap_or("");
        let path = first
            .trim_start_matches("GET ")
            .trim_start_matches("POST ")
            .trim();
        if path.starts_with('/') {
            assert!(
                ours.contains(path),
                "spec endpoint {path} missing from the catalog list"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, SPEC.len());
}

/// The 41 swap v2 and copy-trading endpoints of `shared/spec/swap-v2-copy-trading.md` §4
/// (METHOD, path, signed). Public endpoints are GETs; copy trading is all POST.
const SWAP_SPEC: &[(&str, &str, bool)] = &[
    ("GET", "/swap/v2/public/time", false),
    ("GET", "/swap/v2/public/api_weight", false),
    ("GET", "/swap/v2/public/instruments", false),
    ("GET", "/swap/v2/public/instrument", false),
    ("GET", "/swap/v2/public/depth", false),
    ("GET", "/swap/v2/public/trades", false),
    ("GET", "/swap/v2/public/ticker", false),
    ("GET", "/swap/v2/public/tickers", false),
    ("GET", "/swap/v2/public/candles", false),
    ("GET", "/swap/v2/public/funding_rate", false),
    ("GET", "/swap/v2/public/candles_history", false),
    ("GET", "/swap/v2/public/funding_rate_history", false),
    ("GET", "/swap/v2/account/balance", true),
    ("POST", "/swap/v2/account/transfer", true),
    ("GET", "/swap/v2/account/positions", true),
    ("POST", "/swap/v2/account/position_mode", true),
    ("POST", "/swap/v2/account/position_margin", true),
    ("POST", "/swap/v2/account/leverage", true),
    ("GET", "/swap/v2/account/trading_fee_rate", true),
    ("GET", "/swap/v2/account/finance_record", true),
    ("GET", "/swap/v2/account/funding_fee", true),
    ("GET", "/swap/v2/account/transfer_record", true),
    ("POST", "/swap/v2/trade/order_place", true),
    ("POST", "/swap/v2/trade/cancel_order", true),
    ("POST", "/swap/v2/trade/batch_order", true),
    ("POST", "/swap/v2/trade/batch_cancel_order", true),
    ("GET", "/swap/v2/trade/open_orders", true),
    ("GET", "/swap/v2/trade/order_info", true),
    ("GET", "/swap/v2/trade/history_orders", true),
    ("GET", "/swap/v2/trade/history_trades", true),
    ("POST", "/swap/v2/follow/sponsor_order", true),
    ("POST", "/swap/v2/follow/close_order", true),
    ("POST", "/swap/v2/follow/cancel_order", true),
    ("POST", "/swap/v2/follow/user_center_current", true),
    ("POST", "/swap/v2/follow/user_center_history", true),
    ("POST", "/swap/v2/follow/expert_current_open_order", true),
    ("POST", "/swap/v2/follow/add_algo", true),
    ("POST", "/swap/v2/follow/cancel_algo", true),
    ("POST", "/swap/v2/follow/account_available", true),
    ("POST", "/swap/v2/follow/plan_task", true),
    ("POST", "/swap/v2/follow/instrument_list", true),
];

/// The copy-trading endpoints that are POST but only read (venue-notes.md): safe to repeat.
const COPY_READS: &[&str] = &[
    "/swap/v2/follow/user_center_current",
    "/swap/v2/follow/user_center_history",
    "/swap/v2/follow/expert_current_open_order",
    "/swap/v2/follow/account_available",
    "/swap/v2/follow/plan_task",
    "/swap/v2/follow/instrument_list",
];

#[test]
fn every_swap_endpoint_is_in_the_catalog_once() {
    assert_eq!(SWAP_SPEC.len(), 41);
    let listed: Vec<(String, String)> = catalog::all()
        .filter(|e| e.meta.family == digifinex_core::Family::Swap)
        .map(|e| (e.meta.method.as_str().to_owned(), e.meta.display_path()))
        .collect();
    let unique: BTreeSet<_> = listed.iter().cloned().collect();
    assert_eq!(unique.len(), listed.len(), "duplicate catalog entries");
    let want: BTreeSet<(String, String)> = SWAP_SPEC
        .iter()
        .map(|(m, p, _)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(unique, want);
    for (method, path, signed) in SWAP_SPEC {
        let (entry, vars) = catalog::find(method, path).unwrap();
        assert_eq!(entry.meta.display_path(), *path);
        assert_eq!(entry.meta.signed, *signed, "{path}");
        assert_eq!(entry.meta.success_code, 0, "{path}");
        // Idempotency is declared per endpoint, not inferred from the method: the six
        // copy-trading reads are POST but read only (venue-notes.md).
        let idempotent = *method == "GET" || COPY_READS.contains(path);
        assert_eq!(entry.meta.idempotent, idempotent, "{path}");
        assert!(vars.is_empty());
    }
}

#[test]
fn the_swap_spec_lists_no_endpoint_we_miss() {
    let spec = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/spec/swap-v2-copy-trading.md"
    );
    let Ok(text) = std::fs::read_to_string(spec) else {
        eprintln!("spec not found at {spec}; the hard-coded list above still applies");
        return;
    };
    let section = text
        .split("## 4. Endpoints")
        .nth(1)
        .unwrap()
        .split("## 5.")
        .next()
        .unwrap();
    let mut seen = BTreeSet::new();
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let first = line
            .trim_start_matches("| ")
            .split(" |")
            .next()
            .unwrap_or("");
        let path = first
            .trim_start_matches("GET ")
            .trim_start_matches("POST ")
            .trim();
        if path.starts_with("/swap/v2/") {
            assert!(
                SWAP_SPEC.iter().any(|(_, p, _)| *p == path),
                "spec endpoint {path} missing from the catalog list"
            );
            seen.insert(path.to_owned());
        }
    }
    assert_eq!(seen.len(), SWAP_SPEC.len());
}
