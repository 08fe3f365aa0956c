//! API credentials: the key is public, the secret never leaves this type in readable form.

use zeroize::Zeroizing;

/// An API key pair. `Debug` shows the key and redacts the secret; the secret is zeroized on drop.
#[derive(Clone)]
pub struct Credentials {
    key: String,
    secret: Zeroizing<Vec<u8>>,
}

impl Credentials {
    /// Creates credentials from the access key and the secret key.
    pub fn new(key: impl Into<String>, secret: impl Into<String>) -> Self {
        let secret: String = secret.into();
        Credentials {
            key: key.into(),
            secret: Zeroizing::new(secret.into_bytes()),
        }
    }

    /// The access key (sent in `ACCESS-KEY`).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The secret, for the signing functions only.
    pub(crate) fn secret(&self) -> &[u8] {
        &self.secret
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
}
