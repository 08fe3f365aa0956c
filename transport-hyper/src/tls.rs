//! The TLS settings the REST client and the websocket sockets share: the rustls provider the
//! cargo features choose and the caller's roots.

use std::sync::Arc;

use digifinex_core::Error;

/// The rustls provider chosen by the cargo features.
fn provider() -> Result<rustls::crypto::CryptoProvider, Error> {
    #[cfg(feature = "ring")]
    {
        Ok(rustls::crypto::ring::default_provider())
    }
    #[cfg(all(feature = "aws-lc-rs", not(feature = "ring")))]
    {
        Ok(rustls::crypto::aws_lc_rs::default_provider())
    }
    #[cfg(not(any(feature = "ring", feature = "aws-lc-rs")))]
    {
        Err(Error::validation(
            "tls",
            "no TLS provider: enable the `ring` or `aws-lc-rs` feature, or give a hyper client",
        ))
    }
}

/// rustls with the feature-chosen provider, and the caller's roots or else the feature-chosen
/// ones (webpki, or native with `native-roots`).
pub(crate) fn tls_config(roots: Option<&[Vec<u8>]>) -> Result<rustls::ClientConfig, Error> {
    let tls_err = |e: &dyn std::fmt::Display| Error::validation("tls", e.to_string());
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(provider()?))
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_err(&e))?;
    if let Some(ders) = roots {
        if ders.is_empty() {
            return Err(Error::validation(
                "trust_only_roots",
                "no certificate: every https connection would fail",
            ));
        }
        let mut store = rustls::RootCertStore::empty();
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
        return Ok(builder.with_root_certificates(store).with_no_client_auth());
    }
    #[cfg(feature = "native-roots")]
    let builder = {
        use hyper_rustls::ConfigBuilderExt;
        builder.with_native_roots().map_err(|e| tls_err(&e))?
    };
    #[cfg(not(feature = "native-roots"))]
    let builder = {
        use hyper_rustls::ConfigBuilderExt;
        builder.with_webpki_roots()
    };
    Ok(builder.with_no_client_auth())
}
