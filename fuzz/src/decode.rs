//! Response decoding targets: the whole catalog, and the hot types of each family.

use digifinex_core::catalog::CatalogEntry;
use digifinex_core::{parse_body, spot, swap, Endpoint, Family};

use crate::verify::check_decode_result;
use crate::{entries, headers_of, status_of};

/// Catalog-driven decoding.
///
/// Input: `[entry, status, headers] ++ body`; `entry` indexes [`crate::entries`] modulo its
/// length, `status` maps through [`status_of`], `headers` through [`headers_of`]. The entry's
/// `decode` must return `Ok` or `Err` without panicking, with the error variant consistent with
/// the status (see [`check_decode_result`]); its `decode_report` must give the same value or
/// error, each unreadable value named by a path and a problem.
pub fn catalog_decode(data: &[u8]) {
    let [e, s, h, body @ ..] = data else {
        return;
    };
    let all = entries();
    let entry = all[usize::from(*e) % all.len()];
    let status = status_of(*s);
    let headers = headers_of(*h);
    let result = (entry.decode)(status, &headers, body);
    check_decode_result(&entry.meta, status, body, &result);
    // The reporting decode gives the same answer, and names each value it took as absent.
    let reported = (entry.decode_report)(status, &headers, body);
    match (&result, &reported) {
        (Ok(a), Ok((b, unreadable))) => {
            assert_eq!(a, b, "{}: decode and decode_report differ", entry.meta.name);
            for u in unreadable {
                assert!(
                    !u.path.is_empty() && !u.problem.is_empty(),
                    "{}: unnamed unreadable value {u:?}",
                    entry.meta.name
                );
            }
        }
        (Err(a), Err(b)) => assert_eq!(
            a.to_string(),
            b.to_string(),
            "{}: decode and decode_report errors differ",
            entry.meta.name
        ),
        (a, b) => panic!(
            "{}: decode {:?} but decode_report {:?}",
            entry.meta.name,
            a.as_ref().map(|_| "Ok"),
            b.as_ref().map(|_| "Ok")
        ),
    }
}

/// One hot type: decodes through the typed [`parse_body`] and through the catalog, and checks
/// that both agree and that the rendered model decodes back to itself.
type HotFn = fn(u16, &http::HeaderMap, &[u8]);

fn hot<E: Endpoint, const ROUND_TRIP: bool>(status: u16, headers: &http::HeaderMap, body: &[u8]) {
    let meta = E::META;
    let typed = parse_body::<E::Output>(&meta, status, headers, body);
    let entry = catalog_entry(meta.name);
    let via_catalog = (entry.decode)(status, headers, body);
    check_decode_result(&meta, status, body, &via_catalog);
    let typed = match (typed, &via_catalog) {
        (Ok(t), Ok(v)) => {
            let rendered = serde_json::to_value(&t).expect("a decoded model renders as JSON");
            assert_eq!(
                &rendered, v,
                "{}: typed and catalog decode differ",
                meta.name
            );
            t
        }
        (Err(a), Err(b)) => {
            assert_eq!(
                a.to_string(),
                b.to_string(),
                "{}: typed and catalog errors differ",
                meta.name
            );
            return;
        }
        (a, b) => panic!(
            "{}: typed {:?} but catalog {:?}",
            meta.name,
            a.map(|_| "Ok"),
            b.as_ref().map(|_| "Ok")
        ),
    };
    if !ROUND_TRIP {
        return;
    }
    // The rendered model is wire-compatible (decimals as plain strings, ids as strings, levels
    // and candles positional): wrapped in a success envelope it decodes to the same model.
    let rendered = serde_json::to_value(&typed).expect("renders");
    let again = match meta.family {
        Family::Spot => {
            let serde_json::Value::Object(mut map) = rendered.clone() else {
                panic!("{}: a spot model renders as an object", meta.name)
            };
            map.insert("code".to_owned(), meta.success_code.into());
            serde_json::Value::Object(map)
        }
        _ => serde_json::json!({ "code": meta.success_code, "data": rendered }),
    };
    let bytes = serde_json::to_vec(&again).expect("serialises");
    let back =
        parse_body::<E::Output>(&meta, 200, &http::HeaderMap::new(), &bytes).unwrap_or_else(|e| {
            panic!(
                "{}: the rendered model does not decode back: {e}\n{}",
                meta.name,
                String::from_utf8_lossy(&bytes)
            )
        });
    assert_eq!(
        serde_json::to_value(&back).expect("renders"),
        rendered,
        "{}: re-decoding the rendered model changed it",
        meta.name
    );
}

macro_rules! h {
    ($t:ty) => {
        (<$t as Endpoint>::META.name, hot::<$t, true> as HotFn)
    };
    // Types rendered in a friendlier shape than the wire's (candles as objects): no round trip.
    ($t:ty, object) => {
        (<$t as Endpoint>::META.name, hot::<$t, false> as HotFn)
    };
}

fn catalog_entry(name: &str) -> &'static CatalogEntry {
    entries()
        .iter()
        .find(|e| e.meta.name == name)
        .unwrap_or_else(|| panic!("{name} is in the catalog"))
}

/// The hot spot types: order book, klines, orders, assets.
pub const SPOT_HOT: &[(&str, HotFn)] = &[
    h!(spot::OrderBookRequest),
    h!(spot::KlineRequest, object),
    h!(spot::OrdersRequest),
    h!(spot::OrderDetailRequest),
    h!(spot::CurrentOrdersRequest),
    h!(spot::OrderHistoryRequest),
    h!(spot::MyTradesRequest),
    h!(spot::PlaceOrderRequest),
    h!(spot::BatchPlaceOrdersRequest),
    h!(spot::CancelOrdersRequest),
    h!(spot::SpotAssetsRequest),
    h!(spot::MarginAssetsRequest),
];

/// The hot swap types: depth, candles, orders, balances, positions.
pub const SWAP_HOT: &[(&str, HotFn)] = &[
    h!(swap::DepthRequest),
    h!(swap::CandlesRequest, object),
    h!(swap::CandlesHistoryRequest, object),
    h!(swap::OpenOrdersRequest),
    h!(swap::OrderInfoRequest),
    h!(swap::HistoryOrdersRequest),
    h!(swap::HistoryTradesRequest),
    h!(swap::PlaceOrderRequest),
    h!(swap::BatchPlaceOrdersRequest),
    h!(swap::BalanceRequest),
    h!(swap::PositionsRequest),
];

fn run_hot(table: &[(&str, HotFn)], data: &[u8]) {
    let [t, s, body @ ..] = data else {
        return;
    };
    let (_, f) = table[usize::from(*t) % table.len()];
    // Hot targets use the retry-after selector of the status byte's low bits: no extra byte.
    f(status_of(*s), &headers_of(*s & 3), body);
}

/// Hot spot types. Input: `[type, status] ++ body`; `type` indexes [`SPOT_HOT`] modulo its
/// length.
pub fn spot_decode(data: &[u8]) {
    run_hot(SPOT_HOT, data);
}

/// Hot swap types. Input: `[type, status] ++ body`; `type` indexes [`SWAP_HOT`] modulo its
/// length.
pub fn swap_decode(data: &[u8]) {
    run_hot(SWAP_HOT, data);
}
