//! The sockets' TLS settings: the rustls provider the cargo features choose and the caller's
//! roots, or the webpki roots.

#[cfg(any(feature = "ring", feature = "aws-lc-rs"))]
use std::sync::Arc;

use digifinex_core::Error;

/// rustls for the websocket: the feature-chosen provider and the caller's roots, or the
/// webpki roots.
pub(crate) fn ws_tls_config(roots: Option<&[Vec<u8>]>) -> Result<rustls::ClientConfig, Error> {
    #[cfg(feature = "ring")]
    let provider = rustls::crypto::ring::default_provider();
    #[cfg(all(feature = "aws-lc-rs", not(feature = "ring")))]
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    #[cfg(not(any(feature = "ring", feature = "aws-lc-rs")))]
    return Err(Error::validation(
        "tls",
        "no TLS provider: enable the `ring` or `aws-lc-rs` feature, or give a tls_config",
    ));
    #[cfg(any(feature = "ring", feature = "aws-lc-rs"))]
    {
        let builder = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::validation("tls", e.to_string()))?;
        let mut store = rustls::RootCertStore::empty();
        match roots {
            Some(ders) => {
                for (i, der) in ders.iter().enumerate() {
                    store
                        .add(rustls::pki_types::CertificateDer::from(der.as_slice()).into_owned())
                        .map_err(|e| {
                            Error::validation(
                                "trust_only_roots",
                                format!("certificate {i} is not a usable root: {e}"),
                            )
                        })?;
                }
            }
            None => store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        }
        Ok(builder.with_root_certificates(store).with_no_client_auth())
    }
}
