//! Catalog coverage: every endpoint of the spot/margin v3 and swap v2 documents
//! (`tests/data/endpoints.txt`, sources in `tests/data/SOURCES.md`) is in the catalog, exactly
//! once, with the documented method, signing, success code and idempotency, and the catalog
//! holds nothing else.

use digifinex_core::{catalog, Family};
use std::collections::BTreeSet;

/// One documented endpoint.
#[derive(Debug)]
struct Documented {
    method: String,
    path: String,
    signed: bool,
    success: i64,
    read: bool,
}

/// `tests/data/endpoints.txt`, parsed; a missing file or a malformed line fails the test.
fn documented() -> Vec<Documented> {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/data/endpoints.txt");
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 5, "METHOD PATH AUTH SUCCESS KIND: {l}");
            assert!(matches!(f[0], "GET" | "POST"), "{l}");
            assert!(matches!(f[2], "signed" | "public"), "{l}");
            assert!(matches!(f[4], "read" | "write"), "{l}");
            Documented {
                method: f[0].to_owned(),
                path: f[1].to_owned(),
                signed: f[2] == "signed",
                success: f[3].parse().unwrap_or_else(|_| panic!("success code: {l}")),
                read: f[4] == "read",
            }
        })
        .collect()
}

fn of_family(family: Family) -> Vec<Documented> {
    let prefix = match family {
        Family::Spot => "/v3/",
        _ => "/swap/v2/",
    };
    documented()
        .into_iter()
        .filter(|d| d.path.starts_with(prefix))
        .collect()
}

fn catalog_paths(family: Family) -> Vec<(String, String)> {
    catalog::all()
        .filter(|e| e.meta.family == family)
        .map(|e| (e.meta.method.as_str().to_owned(), e.meta.display_path()))
        .collect()
}

#[test]
fn the_list_holds_both_documents() {
    let all = documented();
    assert_eq!(all.len(), 72);
    assert_eq!(of_family(Family::Spot).len(), 31);
    assert_eq!(of_family(Family::Swap).len(), 41);
    let unique: BTreeSet<_> = all.iter().map(|d| (&d.method, &d.path)).collect();
    assert_eq!(unique.len(), all.len(), "a line twice");
}

#[test]
fn every_spot_endpoint_is_in_the_catalog_once() {
    let spec = of_family(Family::Spot);
    let listed = catalog_paths(Family::Spot);
    let unique: BTreeSet<_> = listed.iter().cloned().collect();
    assert_eq!(unique.len(), listed.len(), "duplicate catalog entries");
    let want: BTreeSet<(String, String)> = spec
        .iter()
        .map(|d| (d.method.clone(), d.path.clone()))
        .collect();
    assert_eq!(unique, want);
    for d in &spec {
        let concrete = d.path.replace("{market}", "margin");
        let (entry, vars) = catalog::find(&d.method, &concrete).unwrap();
        assert_eq!(entry.meta.display_path(), d.path);
        assert_eq!(entry.meta.signed, d.signed, "{}", d.path);
        assert_eq!(entry.meta.success_code, d.success, "{}", d.path);
        // Every spot POST changes state.
        assert_eq!(entry.meta.idempotent, d.read, "{}", d.path);
        assert_eq!(d.read, d.method == "GET", "{}", d.path);
        if d.path.contains("{market}") {
            assert_eq!(vars, vec![("market".to_owned(), "margin".to_owned())]);
        } else {
            assert!(vars.is_empty());
        }
    }
}

#[test]
fn every_swap_endpoint_is_in_the_catalog_once() {
    let spec = of_family(Family::Swap);
    let listed = catalog_paths(Family::Swap);
    let unique: BTreeSet<_> = listed.iter().cloned().collect();
    assert_eq!(unique.len(), listed.len(), "duplicate catalog entries");
    let want: BTreeSet<(String, String)> = spec
        .iter()
        .map(|d| (d.method.clone(), d.path.clone()))
        .collect();
    assert_eq!(unique, want);
    for d in &spec {
        let (entry, vars) = catalog::find(&d.method, &d.path).unwrap();
        assert_eq!(entry.meta.display_path(), d.path);
        assert_eq!(entry.meta.signed, d.signed, "{}", d.path);
        assert_eq!(entry.meta.success_code, d.success, "{}", d.path);
        // Idempotency is declared per endpoint, not inferred from the method: the six
        // copy-trading reads are POST but read only.
        assert_eq!(entry.meta.idempotent, d.read, "{}", d.path);
        assert!(vars.is_empty());
    }
    let copy_reads: Vec<&str> = spec
        .iter()
        .filter(|d| d.method == "POST" && d.read)
        .map(|d| d.path.as_str())
        .collect();
    assert_eq!(
        copy_reads,
        [
            "/swap/v2/follow/user_center_current",
            "/swap/v2/follow/user_center_history",
            "/swap/v2/follow/expert_current_open_order",
            "/swap/v2/follow/account_available",
            "/swap/v2/follow/plan_task",
            "/swap/v2/follow/instrument_list",
        ]
    );
}
