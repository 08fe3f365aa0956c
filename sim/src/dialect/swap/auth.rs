//! Swap request authentication (spec §5).
//!
//! Checks, in this order: `ACCESS-KEY` missing, unknown or expired -> 400006; caller IP outside a
//! non-empty whitelist -> 400003; `ACCESS-SIGN` missing or not the hex (any case) HMAC-SHA256 of
//! `ACCESS-TIMESTAMP + METHOD + path[?query] + body` -> 400004; `ACCESS-TIMESTAMP` missing, not
//! an integer, or outside the window -> 400004; permission missing -> 400005.
//!
//! The signed path is the path as received (starting `/swap/v2`), followed by `?` and the raw
//! query text when there is one; the body is the raw body text (empty for GET).
//!
//! DESIGN (window, "not shown" in the spec): the timestamp is in milliseconds and may differ
//! from the simulator clock by at most 30 seconds either way ([`WINDOW_MS`]); outside it the
//! request is refused with 400004 (the spec has no timestamp code, and the timestamp is part of
//! the signed text) and the message names the timestamp.
//!
//! The signature is compared in constant time ([`crate::dialect::spot::auth::verify_hex`]).

use super::{err, err_msg, SwapErr};
use crate::dialect::spot::auth::verify_hex;
use crate::dialect::wire::SimRequest;
use crate::engine::accounts::{AccountId, Permission};
use crate::engine::state::State;

/// Largest accepted difference between `ACCESS-TIMESTAMP` and the simulator clock (ms).
pub const WINDOW_MS: i64 = 30_000;

/// The text a swap signature covers.
pub fn signed_text(ts: &str, method: &str, path: &str, query: &str, body: &str) -> String {
    if query.is_empty() {
        format!("{ts}{method}{path}{body}")
    } else {
        format!("{ts}{method}{path}?{query}{body}")
    }
}

/// Authenticates a private swap request; returns the account.
pub fn authenticate(
    st: &State,
    req: &SimRequest,
    body: &str,
    need: Permission,
    now_ms: i64,
) -> Result<AccountId, SwapErr> {
    let key = req.header("ACCESS-KEY").map(str::trim).unwrap_or("");
    if key.is_empty() {
        return Err(err_msg(400006, "ACCESS-KEY missing"));
    }
    let Some(k) = st.keys.get(key) else {
        return Err(err(400006));
    };
    if k.expires_at_ms.is_some_and(|t| now_ms >= t) {
        return Err(err_msg(400006, "API key expired"));
    }
    if !k.ip_whitelist.is_empty() && !k.ip_whitelist.contains(&req.peer) {
        return Err(err(400003));
    }
    let ts = req.header("ACCESS-TIMESTAMP").map(str::trim).unwrap_or("");
    let sign = req.header("ACCESS-SIGN").map(str::trim).unwrap_or("");
    let text = signed_text(ts, req.method.as_str(), &req.path, &req.query, body);
    if sign.is_empty() || !verify_hex(&k.secret, &text, sign) {
        return Err(err(400004));
    }
    let Ok(ts_ms) = ts.parse::<i64>() else {
        return Err(err_msg(400004, "ACCESS-TIMESTAMP must be milliseconds"));
    };
    if now_ms.saturating_sub(ts_ms).saturating_abs() > WINDOW_MS {
        return Err(err_msg(
            400004,
            "ACCESS-TIMESTAMP outside the 30 s window of the server time",
        ));
    }
    if !k.permissions.allows(need) {
        return Err(err(400005));
    }
    Ok(k.account)
}

#[cfg(test)]
mod tests {
    use super::signed_text;
    use crate::dialect::spot::auth::{hmac_hex, verify_hex};

    #[test]
    fn swap_signature_checked_in_constant_time_form() {
        let text = signed_text(
            "1700000000000",
            "POST",
            "/swap/v2/trade/order_place",
            "",
            "{}",
        );
        let good = hmac_hex("s3cret", &text);
        assert!(verify_hex("s3cret", &text, &good));
        assert!(verify_hex("s3cret", &text, &good.to_ascii_uppercase()));
        let mut bad = good.clone();
        bad.replace_range(10..12, if &good[10..12] == "ff" { "fe" } else { "ff" });
        assert!(!verify_hex("s3cret", &text, &bad));
        assert!(!verify_hex("s3cret", &text, &good[..32]));
    }
}
