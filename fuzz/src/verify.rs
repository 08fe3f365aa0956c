//! Property checks shared by the targets, written independently of the core's own code paths
//! (the HMAC here uses `hmac`/`sha2` directly, never `digifinex_core::sign`).

use digifinex_core::{Config, Error, Family, Meta, Method, TimestampMillis};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Lowercase hex HMAC-SHA256 of `text` keyed with `secret`.
pub fn hmac_hex(secret: &[u8], text: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(text);
    hex::encode(mac.finalize().into_bytes())
}

/// Checks a decode outcome against the documented order of decisions: `Ok` only for a JSON
/// object with a `code` (the envelope, which wins over the HTTP status); `RateLimited` only on 429, `Banned` only on 403, `HttpStatus`
/// only on other non-2xx statuses, `Decode` only on 2xx; never a validation or transport error.
/// Every error renders and classifies without panicking.
pub fn check_decode_result(
    meta: &Meta,
    status: u16,
    body: &[u8],
    result: &Result<serde_json::Value, Error>,
) {
    let ok_status = (200..300).contains(&status);
    // A 3xx is never a result, whatever its body says (core: `Error::Redirect`).
    let redirect = (300..400).contains(&status);
    assert!(
        !redirect || matches!(result, Err(Error::Redirect { status: s, .. }) if *s == status),
        "{}: HTTP {status} is not a redirect error: {result:?}",
        meta.name
    );
    match result {
        Ok(v) => {
            // JSON syntax, as serde_json checks it when skipping (ignored strings keep invalid
            // UTF-8 and lone surrogate escapes unchecked), with a `code` member.
            serde_json::from_slice::<serde::de::IgnoredAny>(body)
                .expect("an accepted body is JSON");
            assert!(
                body.trim_ascii_start().starts_with(b"{")
                    && body.windows(6).any(|w| w == b"\"code\""),
                "{}: accepted a body that is not an envelope",
                meta.name
            );
            // The envelope wins over the HTTP status: a success code is a success even on an
            // error status (only a body that is not an envelope falls back to the status).
            serde_json::to_vec(v).expect("the rendered value serialises");
        }
        Err(e) => {
            let _ = e.to_string();
            let _ = format!("{e:?}");
            let _ = e.kind();
            let _ = e.is_retryable();
            let _ = e.retry_after();
            match e {
                Error::Api(_) => {}
                Error::RateLimited { status: s, .. } => {
                    assert_eq!((*s, status), (429, 429), "{}: {e}", meta.name)
                }
                Error::Banned { status: s, .. } => {
                    assert_eq!((*s, status), (403, 403), "{}: {e}", meta.name)
                }
                Error::HttpStatus { status: s, .. } => {
                    assert_eq!(*s, status, "{}: {e}", meta.name);
                    assert!(
                        !ok_status && status != 429 && status != 403,
                        "{}: {e}",
                        meta.name
                    );
                }
                Error::Redirect { status: s, .. } => {
                    assert!(redirect && *s == status, "{}: {e}", meta.name)
                }
                Error::Decode { status: s, .. } => {
                    assert_eq!(*s, status, "{}: {e}", meta.name);
                    assert!(
                        ok_status,
                        "{}: decode error on HTTP {status}: {e}",
                        meta.name
                    );
                }
                other => panic!(
                    "{}: unexpected error kind from decode: {other:?}",
                    meta.name
                ),
            }
        }
    }
}

/// The request as built, and what it was built from.
pub struct Built<'a> {
    /// The endpoint.
    pub meta: &'a Meta,
    /// The configuration it was built with.
    pub config: &'a Config,
    /// Key and secret, when given.
    pub credentials: Option<(&'a str, &'a str)>,
    /// The build time.
    pub now: TimestampMillis,
}

/// Whether `path` matches the template (`{var}` is any non-empty segment).
fn matches_template(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    t.len() == p.len()
        && t.iter().zip(&p).all(|(t, p)| {
            if t.starts_with('{') && t.ends_with('}') {
                !p.is_empty()
            } else {
                t == p
            }
        })
}

/// Re-encodes form text from its decoded pairs: equal to the input when every key and value
/// was percent-encoded canonically.
fn canonical_form(text: &str) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form_urlencoded::parse(text.as_bytes()))
        .finish()
}

/// Checks a built request: method, URL under the configured base, content type, body shape,
/// and for signed endpoints the key, the timestamp in the family's unit, the receive window and
/// a signature recomputed here over the exact bytes sent.
pub fn check_request(b: &Built<'_>, req: &http::Request<Vec<u8>>) {
    let meta = b.meta;
    let name = meta.name;
    let method = match meta.method {
        Method::Get => http::Method::GET,
        Method::Post => http::Method::POST,
    };
    assert_eq!(req.method(), method, "{name}");

    // URL: configured base + the concrete path (+ query).
    let base = match meta.family {
        Family::Spot => &b.config.spot_base_url,
        _ => &b.config.swap_base_url,
    };
    let uri = req.uri().to_string();
    let rest = uri
        .strip_prefix(base.as_str())
        .unwrap_or_else(|| panic!("{name}: {uri} is not under {base}"));
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    assert!(
        matches_template(meta.path, path),
        "{name}: path {path} does not match {}",
        meta.path
    );
    if let Some(q) = query {
        assert!(!q.is_empty(), "{name}: empty query after `?`");
        assert_eq!(
            canonical_form(q),
            q,
            "{name}: query not canonically encoded"
        );
    }

    // Content type and body.
    let content_type = req.headers().get(http::header::CONTENT_TYPE);
    let body = req.body().as_slice();
    match (meta.method, meta.family) {
        (Method::Get, _) => {
            assert!(content_type.is_none(), "{name}: GET with a content type");
            assert!(body.is_empty(), "{name}: GET with a body");
        }
        (Method::Post, Family::Spot) => {
            assert_eq!(
                content_type.map(|v| v.as_bytes()),
                Some(&b"application/x-www-form-urlencoded"[..]),
                "{name}"
            );
            assert!(query.is_none(), "{name}: spot POST with a query");
            let text = std::str::from_utf8(body).expect("a spot form body is UTF-8");
            assert_eq!(
                canonical_form(text),
                text,
                "{name}: body not canonically encoded"
            );
        }
        (Method::Post, _) => {
            assert_eq!(
                content_type.map(|v| v.as_bytes()),
                Some(&b"application/json"[..]),
                "{name}"
            );
            let v: serde_json::Value =
                serde_json::from_slice(body).expect("a swap POST body is JSON");
            assert!(
                v.is_object() || v.is_array(),
                "{name}: swap body is neither object nor array"
            );
        }
    }

    // Authentication.
    let header = |n: &str| {
        req.headers()
            .get(n)
            .map(|v| v.to_str().expect("auth headers are ASCII").to_owned())
    };
    let (Some((key, secret)), true) = (b.credentials, meta.signed) else {
        for h in [
            "access-key",
            "access-sign",
            "access-timestamp",
            "access-recv-window",
        ] {
            assert!(
                req.headers().get(h).is_none(),
                "{name}: public request carries {h}"
            );
        }
        assert!(
            !meta.signed,
            "{name}: signed endpoint built without credentials"
        );
        return;
    };
    assert_eq!(header("access-key").as_deref(), Some(key), "{name}");
    let sign = header("access-sign").unwrap_or_else(|| panic!("{name}: no access-sign"));
    let ts = header("access-timestamp").unwrap_or_else(|| panic!("{name}: no timestamp"));
    let expected = match meta.family {
        Family::Spot => {
            assert_eq!(ts, b.now.as_secs().to_string(), "{name}: spot timestamp");
            assert_eq!(
                header("access-recv-window"),
                b.config.recv_window.map(|w| w.to_string()),
                "{name}: receive window"
            );
            // Query, form body, or `query&body`.
            let q = query.unwrap_or("").as_bytes();
            let text: Vec<u8> = match (q.is_empty(), body.is_empty()) {
                (false, false) => [q, b"&", body].concat(),
                (true, _) => body.to_vec(),
                (false, true) => q.to_vec(),
            };
            hmac_hex(secret.as_bytes(), &text)
        }
        _ => {
            assert_eq!(ts, b.now.as_millis().to_string(), "{name}: swap timestamp");
            // `timestamp_ms + METHOD + path?query + body`, the path as sent after the host.
            let pq = req
                .uri()
                .path_and_query()
                .map(|p| p.as_str())
                .unwrap_or("/");
            let text = [
                ts.as_bytes(),
                method.as_str().as_bytes(),
                pq.as_bytes(),
                body,
            ]
            .concat();
            hmac_hex(secret.as_bytes(), &text)
        }
    };
    assert_eq!(sign, expected, "{name}: signature does not verify");
}
