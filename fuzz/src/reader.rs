//! The `reader` target: the single-pass reader of the core (`core/src/de/reader.rs`) against plain
//! serde_json, on the hot types.

use digifinex_core::{spot, swap, Endpoint, Family};

/// Checks one body; true when the reader and serde_json decoded it to the same value (false:
/// both refused it).
pub type ReaderFn = fn(&[u8]) -> bool;

fn check<E: Endpoint>(body: &[u8]) -> bool
where
    E::Output: PartialEq + std::fmt::Debug,
{
    match digifinex_core::__fuzz::check_reader::<E::Output>(body, E::META.family == Family::Swap) {
        Ok(fast) => fast,
        Err(why) => panic!(
            "{}: {why}\nbody: {}",
            E::META.name,
            String::from_utf8_lossy(body)
        ),
    }
}

/// The types checked, spot's hot types then swap's (the same as `spot_decode` and
/// `swap_decode`).
pub const READER_TYPES: &[(&str, ReaderFn)] = &[
    (
        spot::OrderBookRequest::META.name,
        check::<spot::OrderBookRequest>,
    ),
    (spot::KlineRequest::META.name, check::<spot::KlineRequest>),
    (spot::OrdersRequest::META.name, check::<spot::OrdersRequest>),
    (
        spot::OrderDetailRequest::META.name,
        check::<spot::OrderDetailRequest>,
    ),
    (
        spot::CurrentOrdersRequest::META.name,
        check::<spot::CurrentOrdersRequest>,
    ),
    (
        spot::OrderHistoryRequest::META.name,
        check::<spot::OrderHistoryRequest>,
    ),
    (
        spot::MyTradesRequest::META.name,
        check::<spot::MyTradesRequest>,
    ),
    (
        spot::PlaceOrderRequest::META.name,
        check::<spot::PlaceOrderRequest>,
    ),
    (
        spot::BatchPlaceOrdersRequest::META.name,
        check::<spot::BatchPlaceOrdersRequest>,
    ),
    (
        spot::CancelOrdersRequest::META.name,
        check::<spot::CancelOrdersRequest>,
    ),
    (
        spot::SpotAssetsRequest::META.name,
        check::<spot::SpotAssetsRequest>,
    ),
    (
        spot::MarginAssetsRequest::META.name,
        check::<spot::MarginAssetsRequest>,
    ),
    (swap::DepthRequest::META.name, check::<swap::DepthRequest>),
    (
        swap::CandlesRequest::META.name,
        check::<swap::CandlesRequest>,
    ),
    (
        swap::CandlesHistoryRequest::META.name,
        check::<swap::CandlesHistoryRequest>,
    ),
    (
        swap::OpenOrdersRequest::META.name,
        check::<swap::OpenOrdersRequest>,
    ),
    (
        swap::OrderInfoRequest::META.name,
        check::<swap::OrderInfoRequest>,
    ),
    (
        swap::HistoryOrdersRequest::META.name,
        check::<swap::HistoryOrdersRequest>,
    ),
    (
        swap::HistoryTradesRequest::META.name,
        check::<swap::HistoryTradesRequest>,
    ),
    (
        swap::PlaceOrderRequest::META.name,
        check::<swap::PlaceOrderRequest>,
    ),
    (
        swap::BatchPlaceOrdersRequest::META.name,
        check::<swap::BatchPlaceOrdersRequest>,
    ),
    (
        swap::BalanceRequest::META.name,
        check::<swap::BalanceRequest>,
    ),
    (
        swap::PositionsRequest::META.name,
        check::<swap::PositionsRequest>,
    ),
];

/// Differential check of the single-pass reader. Input: `[type] ++ body`; `type` indexes
/// [`READER_TYPES`] modulo its length. Property: whenever the reader decodes the body itself
/// (instead of handing it to serde_json), serde_json decodes the same value and sees the same
/// top-level `code`.
pub fn reader(data: &[u8]) {
    let [t, body @ ..] = data else {
        return;
    };
    let (_, f) = READER_TYPES[usize::from(*t) % READER_TYPES.len()];
    f(body);
}
