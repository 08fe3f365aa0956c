//! The websockets' framing and signature, written here from the protocol (not from the client):
//! zlib at level 9 (`78 DA`, one stream per frame), standard base64, and the `server.auth`
//! signature `base64(HMAC-SHA256(secret, timestamp text))`.

use crate::json::J;
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// One zlib stream at level 9 (`78 DA`).
pub fn zlib(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(bytes, 9)
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |n: u32, shift: u32| {
        let i = u8::try_from((n >> shift) & 63)
            .map(usize::from)
            .unwrap_or(0);
        char::from(A.get(i).copied().unwrap_or(b'='))
    };
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let b = |i: usize| u32::from(c.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(n, 18));
        out.push(sym(n, 12));
        out.push(if c.len() > 1 { sym(n, 6) } else { '=' });
        out.push(if c.len() > 2 { sym(n, 0) } else { '=' });
    }
    out
}

/// The websocket signature: base64 of HMAC-SHA256(secret, timestamp text).
pub fn ws_signature(secret: &str, timestamp: &str) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    match Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mut mac) => {
            mac.update(timestamp.as_bytes());
            base64(&mac.finalize().into_bytes())
        }
        Err(_) => String::new(),
    }
}

/// A decimal as a JSON string in plain notation.
pub fn dec(d: Decimal) -> J {
    J::Str(crate::json::fmt_dec(d))
}

/// A book side's window: price to size.
pub type Window = BTreeMap<Decimal, Decimal>;

/// The changes from `old` to `new`: changed or new levels with their size, removed levels with
/// size 0, in ascending price order.
pub fn diff(old: &Window, new: &Window) -> Vec<(Decimal, Decimal)> {
    let mut out: Vec<(Decimal, Decimal)> = old
        .keys()
        .filter(|p| !new.contains_key(p))
        .map(|p| (*p, Decimal::ZERO))
        .collect();
    out.extend(
        new.iter()
            .filter(|(p, s)| old.get(p) != Some(s))
            .map(|(p, s)| (*p, *s)),
    );
    out.sort_by_key(|l| l.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::d;

    #[test]
    fn spec_vectors() {
        assert_eq!(
            ws_signature("01234567890123456789abcd", "1583135616239"),
            "tzcVcUbbxJ7fzsNURTvDD42uAs9jDTV67ObUJKQ+QHk="
        );
        assert_eq!(
            ws_signature("secret", "123"),
            "d9445LUOYYoOu5XbYeL0Jpc5FlnYLAZKX4G59I2FzNU="
        );
        assert_eq!(base64(b"fo"), "Zm8=");
        let z = zlib(br#"{"event":"server.ping","id":7,"code":1,"msg":"success","data":"pong"}"#);
        assert_eq!(&z[..2], &[0x78, 0xda]);
    }

    #[test]
    fn a_diff_rebuilds_the_new_window() {
        let old: Window = [(d("1"), d("2")), (d("2"), d("3")), (d("4"), d("1"))].into();
        let new: Window = [(d("1"), d("2")), (d("2"), d("5")), (d("3"), d("1"))].into();
        let delta = diff(&old, &new);
        assert_eq!(
            delta,
            vec![(d("2"), d("5")), (d("3"), d("1")), (d("4"), d("0"))]
        );
        let mut rebuilt = old.clone();
        for (p, s) in delta {
            if s.is_zero() {
                rebuilt.remove(&p);
            } else {
                rebuilt.insert(p, s);
            }
        }
        assert_eq!(rebuilt, new);
    }
}
