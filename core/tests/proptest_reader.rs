//! Differential property test of the single-pass success-path reader (core/src/tap.rs): for
//! bodies in and around the hot shapes (order books, klines, swap depth and candles), with
//! valid, unusual and malformed tokens, `parse` must agree with plain `serde_json` decoding the
//! same bytes into the same model: the same value when serde_json accepts the body, an error
//! when it refuses it.

use digifinex_core::endpoint::parse_body;
use digifinex_core::spot::{KlineRequest, Klines, OrderBook, OrderBookRequest};
use digifinex_core::swap::{Candles, CandlesRequest, Depth, DepthRequest};
use digifinex_core::Endpoint;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde::Deserialize;

/// One array element: valid numbers in many spellings, strings, and malformed tokens.
fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "-?(0|[1-9][0-9]{0,12})(\\.[0-9]{1,10})?([eE][-+]?[0-9]{1,2})?",
        2 => "\"-?[0-9]{1,8}(\\.[0-9]{1,8})?\"",
        1 => prop_oneof![
            Just("01".to_owned()),
            Just(".5".to_owned()),
            Just("1.".to_owned()),
            Just("+5".to_owned()),
            Just("1e".to_owned()),
            Just("--1".to_owned()),
            Just("tru".to_owned()),
            Just("null".to_owned()),
            Just("\"\"".to_owned()),
            Just("\"1\\u0030\"".to_owned()),
            Just("[]".to_owned()),
            Just("{}".to_owned()),
            Just("\"a\"".to_owned()),
            Just("1e400".to_owned()),
            Just("123456789012345678901234567890".to_owned()),
        ],
    ]
}

/// Whitespace, sometimes unusual.
fn ws() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => Just(String::new()),
        2 => "[ \\n\\t\\r]{1,2}",
        1 => Just("\u{b}".to_owned()),
    ]
}

/// A separator: usually a comma, sometimes missing or doubled.
fn sep() -> impl Strategy<Value = String> {
    prop_oneof![12 => Just(",".to_owned()), 1 => Just(String::new()), 1 => Just(",,".to_owned())]
}

/// A positional row of `n` cells (give or take one).
fn row(n: usize) -> impl Strategy<Value = String> {
    (
        proptest::collection::vec((cell(), ws(), sep()), n.saturating_sub(1)..=n + 1),
        ws(),
        prop_oneof![10 => Just("]".to_owned()), 1 => Just(",]".to_owned()), 1 => Just(String::new())],
    )
        .prop_map(|(cells, w, close)| {
            let mut s = String::from("[");
            let len = cells.len();
            for (i, (c, w1, sep)) in cells.into_iter().enumerate() {
                s.push_str(&w1);
                s.push_str(&c);
                if i + 1 < len {
                    s.push_str(&sep);
                }
            }
            s.push_str(&w);
            s.push_str(&close);
            s
        })
}

fn rows(n: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec((row(n), sep()), 0..6).prop_map(|rs| {
        let len = rs.len();
        let mut s = String::from("[");
        for (i, (r, sep)) in rs.into_iter().enumerate() {
            s.push_str(&r);
            if i + 1 < len {
                s.push_str(&sep);
            }
        }
        s.push(']');
        s
    })
}

fn agree<E: Endpoint, Plain: for<'de> Deserialize<'de>>(
    body: &str,
    plain: impl Fn(Plain) -> E::Output,
) where
    E::Output: PartialEq + std::fmt::Debug,
{
    let ours = parse_body::<E::Output>(&E::META, 200, &http::HeaderMap::new(), body.as_bytes());
    let reference = serde_json::from_str::<Plain>(body).map(plain);
    match (&ours, &reference) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{body}"),
        (Err(_), Err(_)) => {}
        _ => panic!("disagree on {body}: ours {ours:?}, serde_json {reference:?}"),
    }
}

#[derive(Deserialize)]
struct SwapEnvelope<T> {
    #[allow(dead_code)]
    code: i64,
    data: T,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn order_books_agree(bids in rows(2), asks in rows(2), w in ws()) {
        let body = format!(r#"{{"bids":{w}{bids},"asks":{asks},"date":1700000000,"code":0}}"#);
        agree::<OrderBookRequest, OrderBook>(&body, |b| b);
    }

    #[test]
    fn klines_agree(data in rows(6)) {
        let body = format!(r#"{{"data":{data},"code":0}}"#);
        agree::<KlineRequest, Klines>(&body, |k| k);
    }

    #[test]
    fn swap_depth_agrees(bids in rows(2), asks in rows(2)) {
        let body = format!(
            r#"{{"code":0,"data":{{"instrument_id":"BTCUSDTPERP","timestamp":1,"asks":{asks},"bids":{bids}}}}}"#
        );
        agree::<DepthRequest, SwapEnvelope<Depth>>(&body, |e| e.data);
    }

    #[test]
    fn swap_candles_agree(candles in rows(7)) {
        let body = format!(
            r#"{{"code":0,"data":{{"instrument_id":"BTCUSDTPERP","granularity":"1m","candles":{candles}}}}}"#
        );
        agree::<CandlesRequest, SwapEnvelope<Candles>>(&body, |e| e.data);
    }
}

#[test]
fn the_generators_reach_the_success_path() {
    // Guards the properties above against only ever comparing two errors.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut ok = 0;
    for _ in 0..200 {
        let bids = rows(2).new_tree(&mut runner).unwrap().current();
        let body = format!(r#"{{"bids":{bids},"asks":[],"date":1,"code":0}}"#);
        let r = parse_body::<OrderBook>(
            &OrderBookRequest::META,
            200,
            &http::HeaderMap::new(),
            body.as_bytes(),
        );
        if r.is_ok() {
            ok += 1;
        }
    }
    assert!(ok > 20, "only {ok} of 200 generated books decoded");
}
