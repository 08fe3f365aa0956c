//! Signing: small pure functions over the exact bytes that are sent.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::error::Error;

/// Lowercase hex HMAC-SHA256 of `parts` concatenated, keyed with `secret`.
pub fn hmac_sha256_hex(secret: &[u8], parts: &[&[u8]]) -> Result<String, Error> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret)
        .map_err(|_| Error::validation("secret", "not usable as an HMAC key"))?;
    for p in parts {
        mac.update(p);
    }
    Ok(hex::encode(mac.finalize().into_bytes()))
}

/// The text a spot v3 request signs: the transmitted parameter text, that is the query string,
/// the form body, or `query + "&" + body` when both carry parameters.
pub fn spot_signed_text<'a>(query: &'a str, body: &'a str) -> [&'a str; 3] {
    match (query.is_empty(), body.is_empty()) {
        (false, false) => [query, "&", body],
        (true, _) => [body, "", ""],
        (false, true) => [query, "", ""],
    }
}

/// The spot v3 `ACCESS-SIGN` value: hex HMAC-SHA256 of [`spot_signed_text`].
pub fn sign_spot(secret: &[u8], query: &str, body: &str) -> Result<String, Error> {
    let [a, b, c] = spot_signed_text(query, body);
    hmac_sha256_hex(secret, &[a.as_bytes(), b.as_bytes(), c.as_bytes()])
}

#[cfg(test)]
mod tests {
    use super::*;

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
