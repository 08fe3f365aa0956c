//! Request building from arbitrary wire parameters through every catalog entry.

use digifinex_core::catalog::ParamMap;
use digifinex_core::{Config, Credentials, Error, TimestampMillis};

use crate::entries;
use crate::verify::{check_request, Built};

/// Build times a flags byte selects (bits 3-4).
pub const NOWS: [i64; 4] = [
    1_700_000_000_000,
    1_589_872_188_402,
    4_102_444_800_999,
    86_400_000,
];

/// Key and secret pairs a flags byte selects (bits 5-6): ordinary, empty secret, a secret longer
/// than the SHA-256 block (hashed into the key), non-ASCII.
pub const CREDENTIALS: [(&str, &str); 4] = [
    ("test-key", "test-secret"),
    ("k", ""),
    (
        "0123456789abcdef0123456789abcdef",
        "a secret that is longer than the sixty-four bytes of one SHA-256 block, so it is hashed",
    ),
    ("key-\u{7f}", "s\u{e9}cr\u{e8}t \u{1f600}"),
];

/// Catalog-driven request building.
///
/// Input: `[entry, flags] ++ params`, where `entry` indexes [`crate::entries`] modulo its length
/// and `flags` bit 0 = no credentials, bit 1 = simulator-like base URLs, bit 2 = a receive
/// window, bits 3-4 index `NOWS`, bits 5-6 index `CREDENTIALS`. `params` (lossy UTF-8) is
/// `k=v` lines (text parameters, as on the CLI), then optionally a NUL byte and a JSON body
/// (object members, or an array for the swap batch endpoints).
///
/// The build must return a validation error, or a request that passes [`check_request`]: its
/// signature verifies against an HMAC recomputed here over the exact bytes sent.
pub fn catalog_build(data: &[u8]) {
    let [e, flags, params @ ..] = data else {
        return;
    };
    let all = entries();
    let entry = all[usize::from(*e) % all.len()];
    let text = String::from_utf8_lossy(params);
    let (kv, json) = match text.split_once('\0') {
        Some((kv, json)) => (kv, Some(json)),
        None => (&*text, None),
    };
    let mut map = ParamMap::new();
    for line in kv.split('\n').filter(|l| !l.is_empty()) {
        let (k, v) = line.split_once('=').unwrap_or((line, ""));
        map.insert_text(k, v);
    }
    if let Some(json) = json {
        if let Err(e) = map.insert_json(json) {
            assert!(matches!(e, Error::Validation { .. }), "{e:?}");
            return;
        }
    }
    let mut config = if flags & 2 != 0 {
        Config::default()
            .with_spot_base_url("http://127.0.0.1:9/v3")
            .with_swap_base_url("http://127.0.0.1:9")
    } else {
        Config::default()
    };
    if flags & 4 != 0 {
        config = config.with_recv_window(5000);
    }
    let now = TimestampMillis(NOWS[usize::from((flags >> 3) & 3)]);
    let pair = CREDENTIALS[usize::from((flags >> 5) & 3)];
    let credentials = (flags & 1 == 0).then(|| Credentials::new(pair.0, pair.1));
    let result = (entry.build)(map, &config, credentials.as_ref(), now);
    match result {
        Err(e) => {
            assert!(
                matches!(e, Error::Validation { .. }),
                "{}: build failed with a non-validation error: {e:?}",
                entry.meta.name
            );
            let _ = e.to_string();
        }
        Ok(req) => check_request(
            &Built {
                meta: &entry.meta,
                config: &config,
                credentials: credentials.as_ref().map(|_| pair),
                now,
            },
            &req,
        ),
    }
}
