//! Signing: small pure functions over the exact bytes that are sent.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::error::Error;

/// Lowercase hex HMAC-SHA256 of `parts` concatenated, keyed with `secret`.
pub fn hmac_sha256_hex(secret: &[u8], parts: &[&[u8]]) -> Result<String, Error> {
    let hex = hmac_sha256_hex_bytes(secret, parts)?;
    Ok(hex.iter().copied().map(char::from).collect())
}

/// [`hmac_sha256_hex`] into a stack buffer (the header value is made from these bytes).
pub(crate) fn hmac_sha256_hex_bytes(secret: &[u8], parts: &[&[u8]]) -> Result<[u8; 64], Error> {
    let mac = Hmac::<Sha256>::new_from_slice(secret)
        .map_err(|_| Error::validation("secret", "not usable as an HMAC key"))?;
    Ok(hex_mac(mac, parts))
}

/// Lowercase hex of `mac` (already keyed) over `parts` concatenated.
#[inline]
pub(crate) fn hex_mac(mut mac: Hmac<Sha256>, parts: &[&[u8]]) -> [u8; 64] {
    for p in parts {
        mac.update(p);
    }
    let digest = mac.finalize().into_bytes();
    let mut out = [0u8; 64];
    for (pair, &byte) in out.chunks_exact_mut(2).zip(digest.iter()) {
        if let ([hi, lo], Some([h, l])) = (pair, HEX_PAIRS.get(usize::from(byte))) {
            (*hi, *lo) = (*h, *l);
        }
    }
    out
}

/// The two lowercase hex digits of every byte.
// Bound: `i < 256`, so `i >> 4` and `i & 0x0F` are below 16.
#[allow(clippy::indexing_slicing)]
const HEX_PAIRS: [[u8; 2]; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut table = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = [HEX[i >> 4], HEX[i & 0x0F]];
        i += 1;
    }
    table
};

/// The text a spot v3 request signs: the transmitted parameter text, that is the query string,
/// the form body, or `query + "&" + body` when both carry parameters.
pub fn spot_signed_text<'a>(query: &'a str, body: &'a str) -> [&'a str; 3] {
    spot_parts(query, body, "&", "")
}

/// [`spot_signed_text`] over bytes (the form `build` writes is bytes).
#[inline]
pub(crate) fn spot_signed_bytes<'a>(query: &'a [u8], body: &'a [u8]) -> [&'a [u8]; 3] {
    spot_parts(query, body, b"&".as_slice(), b"".as_slice())
}

/// The rule of [`spot_signed_text`] for text or bytes: `amp` and `none` are `"&"` and `""`.
#[inline]
fn spot_parts<'a, T: AsRef<[u8]> + ?Sized>(
    query: &'a T,
    body: &'a T,
    amp: &'a T,
    none: &'a T,
) -> [&'a T; 3] {
    match (query.as_ref().is_empty(), body.as_ref().is_empty()) {
        (false, false) => [query, amp, body],
        (true, _) => [body, none, none],
        (false, true) => [query, none, none],
    }
}

/// The spot v3 `ACCESS-SIGN` value: hex HMAC-SHA256 of [`spot_signed_text`].
pub fn sign_spot(secret: &[u8], query: &str, body: &str) -> Result<String, Error> {
    let [a, b, c] = spot_signed_text(query, body);
    hmac_sha256_hex(secret, &[a.as_bytes(), b.as_bytes(), c.as_bytes()])
}

/// The text a swap v2 request signs: `timestamp_ms + METHOD + path?query + body`, where the
/// timestamp is the exact `ACCESS-TIMESTAMP` header value, the method is upper case, the path is
/// the request path after the host (`/swap/v2/...`) including any query string, and the body is
/// the exact JSON bytes sent (empty for GET).
pub fn swap_signed_text<'a>(
    timestamp_ms: &'a str,
    method: &'a str,
    path_and_query: &'a str,
    body: &'a [u8],
) -> [&'a [u8]; 4] {
    [
        timestamp_ms.as_bytes(),
        method.as_bytes(),
        path_and_query.as_bytes(),
        body,
    ]
}

/// The swap v2 `ACCESS-SIGN` value: hex HMAC-SHA256 of [`swap_signed_text`].
pub fn sign_swap(
    secret: &[u8],
    timestamp_ms: &str,
    method: &str,
    path_and_query: &str,
    body: &[u8],
) -> Result<String, Error> {
    hmac_sha256_hex(
        secret,
        &swap_signed_text(timestamp_ms, method, path_and_query, body),
    )
}

/// The websocket `server.auth` signature of both sockets (`docs/protocol.md`, "Websocket
/// authentication"): standard base64 (with padding) of HMAC-SHA256 keyed with the secret over
/// the decimal millisecond timestamp.
/// Unlike the REST signatures, it is base64, not hex.
pub fn sign_ws(secret: &[u8], timestamp_ms: &str) -> Result<String, Error> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret)
        .map_err(|_| Error::validation("secret", "not usable as an HMAC key"))?;
    mac.update(timestamp_ms.as_bytes());
    Ok(base64(&mac.finalize().into_bytes()))
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |i: u32| {
        let index = u8::try_from(i & 63).map(usize::from).unwrap_or(0);
        char::from(ALPHABET.get(index).copied().unwrap_or(b'='))
    };
    let mut out = String::with_capacity(bytes.len().div_ceil(3).saturating_mul(4));
    for chunk in bytes.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(n >> 18));
        out.push(sym(n >> 12));
        out.push(if chunk.len() > 1 { sym(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(n) } else { '=' });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `server.auth` vectors of `docs/protocol.md` ("Websocket authentication"), computed
    /// independently with Python's `hmac` and `base64`.
    #[test]
    fn ws_signature_vectors() {
        for (secret, ts, want) in [
            (
                "secret",
                "123",
                "d9445LUOYYoOu5XbYeL0Jpc5FlnYLAZKX4G59I2FzNU=",
            ),
            (
                "01234567890123456789abcd",
                "1583135616239",
                "tzcVcUbbxJ7fzsNURTvDD42uAs9jDTV67ObUJKQ+QHk=",
            ),
            (
                "ffd4e900015bdfaf5a72aa06f5612290df25c23a78",
                "1662346006093",
                "RYJ9f9tXUnR454vNaOcEis+ZGWL3FzOseRtLpM6wPyg=",
            ),
        ] {
            assert_eq!(sign_ws(secret.as_bytes(), ts).unwrap(), want);
        }
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn rfc4231_case_2() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        let got = hmac_sha256_hex(b"Jefe", &[b"what do ya want ", b"for nothing?"]).unwrap();
        assert_eq!(
            got,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn stack_hex_matches_the_hex_crate() {
        for (key, text) in [
            (&b"k"[..], &b""[..]),
            (b"Jefe", b"x"),
            (b"\xff\x00", b"abc"),
        ] {
            let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
            mac.update(text);
            let want = hex::encode(mac.finalize().into_bytes());
            assert_eq!(hmac_sha256_hex(key, &[text]).unwrap(), want);
            assert_eq!(
                &hmac_sha256_hex_bytes(key, &[text]).unwrap()[..],
                want.as_bytes()
            );
        }
    }

    #[test]
    fn swap_text_is_timestamp_method_path_body() {
        let text = swap_signed_text(
            "1657522488402",
            "GET",
            "/swap/v2/account/positions?instrument_id=BTCUSDTPERP",
            b"",
        )
        .concat();
        assert_eq!(
            text,
            b"1657522488402GET/swap/v2/account/positions?instrument_id=BTCUSDTPERP"
        );
        assert_eq!(
            sign_swap(b"k", "1", "POST", "/p", b"{}").unwrap(),
            hmac_sha256_hex(b"k", &[b"1POST/p{}"]).unwrap()
        );
    }

    #[test]
    fn spot_text_joins_query_and_body() {
        assert_eq!(spot_signed_text("a=1", "b=2").concat(), "a=1&b=2");
        assert_eq!(spot_signed_text("", "b=2").concat(), "b=2");
        assert_eq!(spot_signed_text("a=1", "").concat(), "a=1");
        assert_eq!(spot_signed_text("", "").concat(), "");
        assert_eq!(
            sign_spot(b"k", "a=1", "b=2").unwrap(),
            hmac_sha256_hex(b"k", &[b"a=1&b=2"]).unwrap()
        );
    }
}
