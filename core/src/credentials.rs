//! API credentials: the key is public, the secret never leaves this type in readable form.

use hmac::{Hmac, KeyInit};
use sha2::Sha256;
use zeroize::Zeroizing;

/// An API key pair. `Debug` shows the key and redacts the secret; the secret is zeroized on drop.
///
/// The HMAC-SHA256 key schedule of the secret (the inner and outer padded-key states) is
/// computed once here, so signing a request hashes only its text; like the secret, those states
/// are zeroized on drop (the `zeroize` features of `sha2` and `hmac`). The `ACCESS-KEY` header
/// value is made once too.
#[derive(Clone)]
pub struct Credentials {
    key: String,
    /// `key` as a header value; `None` when it is not one (refused when a request is built).
    key_header: Option<http::HeaderValue>,
    secret: Zeroizing<Vec<u8>>,
    /// HMAC-SHA256 keyed with `secret` (HMAC takes keys of any length, so this is always set).
    mac: Option<Hmac<Sha256>>,
}

impl Credentials {
    /// Creates credentials from the access key and the secret key.
    pub fn new(key: impl Into<String>, secret: impl Into<String>) -> Self {
        let secret: String = secret.into();
        let key: String = key.into();
        let secret = Zeroizing::new(secret.into_bytes());
        Credentials {
            // Sensitive: `http`'s Debug shows it as such, and the blocking client hands
            // sensitive values to ureq as stand-ins (its TRACE log dumps what it writes).
            key_header: http::HeaderValue::from_str(&key).ok().map(|mut v| {
                v.set_sensitive(true);
                v
            }),
            key,
            mac: Hmac::<Sha256>::new_from_slice(&secret).ok(),
            secret,
        }
    }

    /// The access key (sent in `ACCESS-KEY`).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The `ACCESS-KEY` header value.
    pub(crate) fn key_header(&self) -> Result<http::HeaderValue, crate::Error> {
        self.key_header
            .clone()
            .ok_or_else(|| crate::Error::validation("key", "not a valid header value"))
    }

    /// The secret, for the signing functions only.
    pub(crate) fn secret(&self) -> &[u8] {
        &self.secret
    }

    /// Lowercase hex HMAC-SHA256 of `parts` concatenated, keyed with the secret.
    pub(crate) fn sign_hex(&self, parts: &[&[u8]]) -> Result<[u8; 64], crate::Error> {
        match &self.mac {
            Some(mac) => Ok(crate::sign::hex_mac(mac.clone(), parts)),
            None => Err(crate::Error::validation(
                "secret",
                "not usable as an HMAC key",
            )),
        }
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("key", &self.key)
            .field("secret", &"<redacted>")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_redacts_the_secret() {
        let c = Credentials::new("my-key", "s3cr3t-value");
        let shown = format!("{c:?} {c:#?}");
        assert!(shown.contains("my-key"));
        assert!(!shown.contains("s3cr3t-value"));
        assert!(shown.contains("<redacted>"));
        assert_eq!(c.secret(), b"s3cr3t-value");
    }

    /// The key schedule kept in the credentials signs like a fresh HMAC of the secret.
    #[test]
    fn keyed_mac_signs_like_the_secret() {
        let c = Credentials::new("k", "01234567890123456789abcd");
        for text in [&b""[..], b"a=1", &[b'x'; 200]] {
            assert_eq!(
                c.sign_hex(&[text]).unwrap(),
                crate::sign::hmac_sha256_hex_bytes(b"01234567890123456789abcd", &[text]).unwrap()
            );
        }
        assert_eq!(c.key_header().unwrap(), "k");
        let bad = Credentials::new("line\nbreak", "s");
        assert!(matches!(
            bad.key_header(),
            Err(crate::Error::Validation { field, .. }) if field == "key"
        ));
    }

    /// The keyed states are wiped on drop: the hash cores and block buffers inside `Hmac`
    /// zeroize themselves (compiles only with the `zeroize` features on).
    #[test]
    fn keyed_states_zeroize_on_drop() {
        fn zeroizes<T: zeroize::ZeroizeOnDrop>() {}
        zeroizes::<sha2::block_api::Sha256VarCore>();
        use hmac::digest::{block_buffer, consts};
        zeroizes::<block_buffer::BlockBuffer<consts::U64, block_buffer::Eager>>();
    }
}
