//! Property tests of the websocket frame decoder and protocol machine (issue 19): no input
//! bytes make them panic, and every event they give serializes.
#![cfg(feature = "ws")]

use digifinex_core::ws::{self, Action, Connection, Frame, WsConfig};
use digifinex_core::{Family, TimestampMillis};
use proptest::prelude::*;

const SAMPLES: &[&str] = &[
    r#"{"method":"depth.update","params":[true,{"asks":[["11800.2","0.5"]],"bids":[["11780.1","0.3"]]},"BTC_USDT"],"id":null}"#,
    r#"{"method":"trades.update","params":[true,[{"id":7172173,"time":1523339279.761838,"price":"398.59","amount":"0.027","type":"buy"}],"ETH_USDT"],"id":null}"#,
    r#"{"method":"ticker.update","params":[[{"symbol":"BTC_USDT","last":"6795.07","timestamp":1523338956129}]],"id":null}"#,
    r#"{"method":"order.update","params":[{"id":"198361cecdc65f9c8c9bb2fa68faec40","filled":"0.004","status":1}],"id":null}"#,
    r#"{"id":1,"result":null,"error":{"code":1,"message":"invalid argument"}}"#,
    r#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":1,"asks":[["86658.1",2284]],"bids":[["86658.0",5]]},"full_data":true}"#,
    r#"{"event":"fund_rate.update","data":{"instrument_id":"BTCUSDTPERP","next_funding_rate":"-3e-05"}}"#,
    r#"{"event":"order.update","data":[{"order_id":"1557071302651875328","state":1,"filled_qty":"4"}]}"#,
    r#"{"event":"cur_candle.update","data":{"instrument_id":"BTCUSDTPERP","granularity":"1m","candle":[1,"1","2","0.5","1.5","3","0.003"]}}"#,
    r#"[{"instrument_id":"BTCUSDTPERP","best_bid_size":"124.000000","open_interest":"-"}]"#,
];

fn feed(family: Family, frame: Frame<'_>) {
    if let Ok(events) = ws::decode_frame(family, frame) {
        for e in events {
            serde_json::to_string(&e).unwrap();
        }
    }
    let mut c = Connection::new(family, WsConfig::default(), None);
    let sub = match family {
        Family::Spot => "spot:depth:btc_usdt",
        _ => "swap:depth:BTCUSDTPERP",
    };
    c.subscribe(sub.parse().unwrap()).unwrap();
    let t = TimestampMillis(1_700_000_000_000);
    let drain = |c: &mut Connection| {
        for _ in 0..32 {
            match c.poll(t) {
                Action::Event(e) => {
                    serde_json::to_string(&e).unwrap();
                }
                Action::Send(_) | Action::Close(_) => {}
                _ => return,
            }
        }
    };
    drain(&mut c);
    c.on_connected(t);
    drain(&mut c);
    c.on_frame(t, frame);
    c.on_frame(t, frame);
    drain(&mut c);
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(bytes, 6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300), swap in any::<bool>()) {
        let family = if swap { Family::Swap } else { Family::Spot };
        feed(family, Frame::Binary(&bytes));
        feed(family, Frame::Binary(&zlib(&bytes)));
        if let Ok(text) = std::str::from_utf8(&bytes) {
            feed(family, Frame::Text(text));
        }
    }

    #[test]
    fn mutated_samples(
        which in 0..SAMPLES.len(),
        at in any::<prop::sample::Index>(),
        len in 0usize..12,
        with in proptest::collection::vec(prop::sample::select(&b"0123456789.-e\"[]{},:tfnul x"[..]), 0..12),
    ) {
        let sample = SAMPLES[which].as_bytes();
        let start = at.index(sample.len());
        let end = (start + len).min(sample.len());
        let mut bytes = sample[..start].to_vec();
        bytes.extend_from_slice(&with);
        bytes.extend_from_slice(&sample[end..]);
        for family in [Family::Spot, Family::Swap] {
            feed(family, Frame::Binary(&zlib(&bytes)));
            // A truncated zlib stream.
            let z = zlib(&bytes);
            feed(family, Frame::Binary(&z[..z.len() / 2]));
        }
    }
}
