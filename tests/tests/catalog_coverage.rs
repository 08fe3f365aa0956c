//! Catalog coverage: every endpoint of the spot/margin v3 spec is in the catalog, exactly once,
//! with the documented method, signing and success code.

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
