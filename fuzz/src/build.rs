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

/// Extreme build times a flags byte selects instead of `NOWS` when bit 7 is set (bits 3-4).
pub const EXTREME_NOWS: [i64; 4] = [i64::MIN, -1, 0, i64::MAX];

/// The receive window of a flags byte with bits 2 and 7 set (5000 with bit 2 alone).
pub const EXTREME_RECV_WINDOW: u64 = u64::MAX;

/// The byte that, in `params`, stands for the extreme value [`EXTREMES`] indexes with the next
/// byte (modulo its length): one mutated byte moves a parameter to an integer or decimal limit.
pub const EXTREME_MARK: u8 = 0x01;

/// Extreme integer and decimal texts: 0, -1, the 32- and 64-bit limits and one past
/// them, 10^28, the largest `Decimal` and one past it, 28- and 29-digit fractions, exponents at
/// and past the range.
pub const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1",
    "-0",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "2147483647",
    "-2147483648",
    "4294967295",
    "4294967296",
    "10000000000000000000000000000",
    "-10000000000000000000000000000",
    "79228162514264337593543950335",
    "79228162514264337593543950336",
    "340282366920938463463374607431768211456",
    "0.0000000000000000000000000001",
    "-0.0000000000000000000000000001",
    "0.00000000000000000000000000001",
    "0.1234567890123456789012345678",
    "9.9999999999999999999999999999",
    "7922816251426433759354395033.5",
    "1e28",
    "1e-28",
    "1e29",
    "1e-29",
    "1e999999999999999999999",
];

/// `params` with every [`EXTREME_MARK`] and the byte after it replaced by the extreme value
/// that byte selects (a mark at the end selects the first).
pub fn expand_extremes(params: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !params.contains(&EXTREME_MARK) {
        return params.into();
    }
    let mut out = Vec::with_capacity(params.len().saturating_add(64));
    let mut bytes = params.iter();
    while let Some(&b) = bytes.next() {
        if b == EXTREME_MARK {
            let sel = bytes.next().copied().unwrap_or(0);
            out.extend_from_slice(EXTREMES[usize::from(sel) % EXTREMES.len()].as_bytes());
        } else {
            out.push(b);
        }
    }
    out.into()
}

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
/// window, bits 3-4 index `NOWS` (`EXTREME_NOWS` with bit 7), bits 5-6 index `CREDENTIALS`,
/// bit 7 = extreme build time and receive window (`EXTREME_RECV_WINDOW`). `params` (lossy UTF-8,
/// after [`expand_extremes`]: `\x01 s` is `EXTREMES[s]`) is `k=v` lines (text parameters, as on
/// the CLI), then optionally a NUL byte and a JSON body (object members, or an array for the swap
/// batch endpoints).
///
/// The build must return a validation error, or a request that passes [`check_request`]: its
/// signature verifies against an HMAC recomputed here over the exact bytes sent.
pub fn catalog_build(data: &[u8]) {
    let [e, flags, params @ ..] = data else {
        return;
    };
    let all = entries();
    let entry = all[usize::from(*e) % all.len()];
    let params = expand_extremes(params);
    let text = String::from_utf8_lossy(&params);
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
    let extreme = flags & 0x80 != 0;
    if flags & 4 != 0 {
        config = config.with_recv_window(if extreme { EXTREME_RECV_WINDOW } else { 5000 });
    }
    let nows = if extreme { EXTREME_NOWS } else { NOWS };
    let now = TimestampMillis(nows[usize::from((flags >> 3) & 3)]);
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
