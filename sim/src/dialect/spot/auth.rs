//! Spot/margin request authentication.
//!
//! Checks, in this order (the spec does not fix the order): `ACCESS-KEY` missing -> 10009; unknown
//! key -> 10002; expired key -> 10011; caller IP outside a non-empty whitelist -> 10007;
//! `ACCESS-SIGN` missing or not the HMAC-SHA256 (hex, any case) of the transmitted parameter
//! text -> 10003; `ACCESS-TIMESTAMP` missing, not an integer or outside the window -> 10008;
//! permission missing -> 10006.
//!
//! Signed text: the raw query string, the raw form body, or `query + "&" + body` when both are
//! non-empty, exactly as transmitted.
//!
//! DESIGN (window): the timestamp is in seconds and is compared with the simulator clock in
//! milliseconds: invalid when `now - ts*1000 > behind` or `ts*1000 - now > 1000`, where `behind`
//! is 5000 ms, or the `ACCESS-RECV-WINDOW` value (read as milliseconds, matching the CLI's
//! `--recv-window MS`) when that is larger. A recv window that is not a non-negative integer is
//! ignored.
//!
//! DESIGN (comparison): a signature is checked with [`verify_hex`], which decodes the hex text
//! (either case) and compares the bytes with `hmac`'s `verify_slice`, a constant-time comparison
//! (the `subtle` crate underneath): the time taken does not tell an attacker how many leading
//! bytes of a forged signature were right. Only the length and the hex validity of the caller's
//! own text decide early.

use super::{err, SpotErr};
use crate::dialect::wire::SimRequest;
use crate::engine::accounts::{AccountId, Permission};
use crate::engine::state::State;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Milliseconds a timestamp may lag behind the server clock by default.
pub const BEHIND_MS: i64 = 5_000;
/// Milliseconds a timestamp may run ahead of the server clock.
pub const AHEAD_MS: i64 = 1_000;

/// The text a spot signature covers.
pub fn signed_text(query: &str, body: &str) -> String {
    match (query.is_empty(), body.is_empty()) {
        (false, false) => format!("{query}&{body}"),
        (false, true) => query.to_owned(),
        (true, false) => body.to_owned(),
        (true, true) => String::new(),
    }
}

/// Lower-case hex HMAC-SHA256 of `text` keyed with `secret`.
#[cfg(test)]
pub fn hmac_hex(secret: &str, text: &str) -> String {
    match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mut mac) => {
            mac.update(text.as_bytes());
            hex::encode(mac.finalize().into_bytes())
        }
        Err(_) => String::new(),
    }
}

/// Whether `sign` (hex, either case, surrounding spaces ignored) is the HMAC-SHA256 of `text`
/// keyed with `secret`, compared in constant time.
pub fn verify_hex(secret: &str, text: &str, sign: &str) -> bool {
    let Ok(given) = hex::decode(sign.trim()) else {
        return false;
    };
    if given.len() != 32 {
        return false;
    }
    match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mut mac) => {
            mac.update(text.as_bytes());
            mac.verify_slice(&given).is_ok()
        }
        Err(_) => false,
    }
}

/// Authenticates a private spot request; returns the account.
pub fn authenticate(
    st: &State,
    req: &SimRequest,
    body: &str,
    need: Permission,
    now_ms: i64,
) -> Result<AccountId, SpotErr> {
    let key = match req.header("ACCESS-KEY").map(str::trim) {
        Some(k) if !k.is_empty() => k,
        _ => return Err(err(10009)),
    };
    let Some(k) = st.keys.get(key) else {
        return Err(err(10002));
    };
    if k.expires_at_ms.is_some_and(|t| now_ms >= t) {
        return Err(err(10011));
    }
    if !k.ip_whitelist.is_empty() && !k.ip_whitelist.contains(&req.peer) {
        return Err(err(10007));
    }
    let sign = req.header("ACCESS-SIGN").map(str::trim).unwrap_or("");
    if sign.is_empty() || !verify_hex(&k.secret, &signed_text(&req.query, body), sign) {
        return Err(err(10003));
    }
    let ts = req
        .header("ACCESS-TIMESTAMP")
        .and_then(|t| t.trim().parse::<i64>().ok())
        .ok_or_else(|| err(10008))?;
    let behind = req
        .header("ACCESS-RECV-WINDOW")
        .and_then(|w| w.trim().parse::<i64>().ok())
        .filter(|w| *w >= 0)
        .map_or(BEHIND_MS, |w| w.max(BEHIND_MS));
    let ts_ms = ts.saturating_mul(1000);
    if now_ms.saturating_sub(ts_ms) > behind || ts_ms.saturating_sub(now_ms) > AHEAD_MS {
        return Err(err(10008));
    }
    if !k.permissions.allows(need) {
        return Err(err(10006));
    }
    Ok(k.account)
}

#[cfg(test)]
mod tests {
    use super::{hmac_hex, verify_hex};

    #[test]
    fn verify_hex_accepts_only_the_signature() {
        let good = hmac_hex("secret", "a=1&b=2");
        assert_eq!(good.len(), 64);
        assert!(verify_hex("secret", "a=1&b=2", &good));
        assert!(verify_hex("secret", "a=1&b=2", &good.to_ascii_uppercase()));
        assert!(verify_hex("secret", "a=1&b=2", &format!(" {good} ")));
        assert!(!verify_hex("secret", "a=1&b=3", &good));
        assert!(!verify_hex("other", "a=1&b=2", &good));
        // One changed byte, first or last.
        let mut first = good.clone();
        first.replace_range(0..2, if &good[0..2] == "00" { "01" } else { "00" });
        assert!(!verify_hex("secret", "a=1&b=2", &first));
        let mut last = good.clone();
        last.replace_range(62..64, if &good[62..64] == "00" { "01" } else { "00" });
        assert!(!verify_hex("secret", "a=1&b=2", &last));
        // Wrong lengths and non-hex text.
        assert!(!verify_hex("secret", "a=1&b=2", &good[..62]));
        assert!(!verify_hex("secret", "a=1&b=2", &format!("{good}00")));
        assert!(!verify_hex("secret", "a=1&b=2", &good[..63]));
        assert!(!verify_hex("secret", "a=1&b=2", ""));
        assert!(!verify_hex("secret", "a=1&b=2", &"zz".repeat(32)));
    }
}
