//! The websocket frame decoder and protocol machine (issue 19).

use digifinex_core::ws::{self, Action, Connection, Frame, WsConfig};
use digifinex_core::{Family, TimestampMillis};

/// `ws_frame`: `[flags] ++ payload`. Flag bit 0: swap (else spot); bit 1: sent as a text frame
/// (when the payload is UTF-8), else binary; bit 2: the payload is zlib-compressed first (so
/// that the JSON decoders are reached through the inflater).
///
/// Properties: `ws::decode_frame` and a [`Connection`] holding a depth, a ticker and a trades
/// subscription never panic on the frame; every event serializes to JSON; a zlib-wrapped
/// payload decodes exactly as the same payload in a text frame.
pub fn ws_frame(data: &[u8]) {
    let Some((&flags, payload)) = data.split_first() else {
        return;
    };
    let family = if flags & 1 == 1 {
        Family::Swap
    } else {
        Family::Spot
    };
    let compressed;
    let frame = if flags & 4 == 4 {
        compressed = miniz_oxide::deflate::compress_to_vec_zlib(payload, 6);
        Frame::Binary(&compressed)
    } else {
        match std::str::from_utf8(payload) {
            Ok(text) if flags & 2 == 2 => Frame::Text(text),
            _ => Frame::Binary(payload),
        }
    };
    let decoded = ws::decode_frame(family, frame);
    if let Ok(events) = &decoded {
        for e in events {
            serde_json::to_string(e).expect("an event serializes");
        }
    }
    if flags & 4 == 4 {
        if let Ok(text) = std::str::from_utf8(payload) {
            assert_eq!(
                decoded,
                ws::decode_frame(family, Frame::Text(text)),
                "zlib layer changed the decoding"
            );
        }
    }

    let mut conn = Connection::new(family, WsConfig::default(), None);
    let subs: &[&str] = match family {
        Family::Spot => &[
            "spot:depth:btc_usdt",
            "spot:ticker:btc_usdt",
            "spot:trades:btc_usdt",
        ],
        _ => &[
            "swap:depth:BTCUSDTPERP",
            "swap:ticker:BTCUSDTPERP",
            "swap:trades:BTCUSDTPERP",
        ],
    };
    for s in subs {
        conn.subscribe(s.parse().expect("a valid subscription"))
            .expect("accepted");
    }
    let t = TimestampMillis(1_700_000_000_000);
    let drain = |conn: &mut Connection| {
        for _ in 0..64 {
            match conn.poll(t) {
                Action::Event(e) => {
                    serde_json::to_string(&e).expect("an event serializes");
                }
                Action::Send(_) | Action::Close(_) => {}
                _ => return,
            }
        }
    };
    drain(&mut conn);
    conn.on_connected(t);
    drain(&mut conn);
    // The frame twice: as a snapshot-less first frame and again on a warm book.
    conn.on_frame(t, frame);
    drain(&mut conn);
    conn.on_frame(t, frame);
    drain(&mut conn);
}
