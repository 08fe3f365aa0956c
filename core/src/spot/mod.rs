//! Spot and margin trading, REST v3 (`{base_url}` = `https://openapi.digifinex.com/v3`).
//!
//! One file per resource group:
//! * [`market`]: public market data (ping, time, markets, ticker, order book, trades, klines,
//!   symbol lists, margin currencies, currency settings);
//! * [`account`]: balances, finance log, margin positions, transfers, closing a margin position;
//! * [`order`]: placing, batch placing, cancelling and querying orders, own trades;
//! * [`wallet`]: deposit addresses and history, withdrawals.
//!
//! Requests take their required fields in the constructor and optional ones through setters.
//! Every documented limit is checked by [`crate::build`] before a request exists, with an error
//! naming the field.

pub mod account;
pub mod market;
pub mod order;
pub mod wallet;

pub use account::*;
pub use market::*;
pub use order::*;
pub use wallet::*;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The `{market}` path segment of private endpoints.
///
/// DESIGN: every `{market}` endpoint also sends it as its first parameter, `market=spot` or
/// `market=margin`, signed like any parameter: the official reference lists it as a required
/// parameter of those endpoints and ccxt sends it (docs/protocol.md). Path and parameter come from
/// this one value, so they cannot disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Market {
    /// The spot account.
    Spot,
    /// The margin account.
    Margin,
}

impl Market {
    /// `spot` or `margin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Market::Spot => "spot",
            Market::Margin => "margin",
        }
    }

    /// Parses `spot` or `margin`.
    pub fn parse(field: &'static str, text: &str) -> Result<Self, Error> {
        match text {
            "spot" => Ok(Market::Spot),
            "margin" => Ok(Market::Margin),
            other => Err(Error::validation(
                field,
                format!("must be spot or margin, not {other:?}"),
            )),
        }
    }
}

impl std::fmt::Display for Market {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Sent as `spot` or `margin` (a JSON string in a body); read from its text, anything else
/// refused on the field.
impl crate::request::Param for Market {
    fn put(&self, key: &'static str, p: &mut crate::Params) -> Result<(), Error> {
        p.push(key, self.as_str());
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut crate::json::JsonWriter) -> Result<(), Error> {
        w.str(key, self.as_str());
        Ok(())
    }
    fn take(p: &mut crate::params::ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        p.take_opt_str(key)?
            .map(|t| Market::parse(key, &t))
            .transpose()
    }
    #[inline]
    fn describe(info: &mut crate::request::ParamInfo) {
        info.type_name("word");
        info.value(crate::request::Choice::word("spot"));
        info.value(crate::request::Choice::word("margin"));
    }
}

/// The `{market}` segment: the path and the `market` parameter come from this one value.
impl crate::request::PathParam for Market {
    const MARKER: &'static str = "{market}";
    fn segment(&self) -> &str {
        self.as_str()
    }
    fn take_path(p: &mut crate::params::ParamMap) -> Result<Self, Error> {
        p.take_market()
    }
}

impl crate::params::ParamMap {
    /// Takes the `{market}` path variable.
    ///
    /// DESIGN: the `{market}` endpoints also send `market` as a parameter with the path's value
    /// (docs/protocol.md); a request never sends a path and a parameter that disagree, so a
    /// `market` parameter given beside the path variable must name the same market, and any
    /// other value is refused on field `market`.
    pub fn take_market(&mut self) -> Result<Market, Error> {
        let path = self.take_path_var("market");
        let param = self.take_opt_str("market")?;
        let text = match (path, param) {
            (Some(p), Some(q)) if !p.eq_ignore_ascii_case(&q) => {
                return Err(Error::validation(
                    "market",
                    format!("{q:?} disagrees with the path's market {p:?}"),
                ))
            }
            (Some(p), _) => p,
            (None, Some(q)) => q,
            (None, None) => return Err(Error::missing("market")),
        };
        Market::parse("market", &text)
    }
}

/// A check: the `<base>_<quote>` pair form, two non-empty alphanumeric parts joined by one `_`
/// (see [`pair_form`]).
#[allow(non_upper_case_globals)]
pub(crate) const check_symbol: crate::request::Rule<str> =
    crate::request::Rule::new(pair_form, "a pair base_quote").with_example("btc_usdt");

/// Checks the `<base>_<quote>` pair form: two non-empty alphanumeric parts joined by one `_`.
fn pair_form(field: &'static str, symbol: &str) -> Result<(), Error> {
    // Alphanumerics around exactly one `_`, neither side empty (no substring searcher).
    let bytes = symbol.as_bytes();
    let underscores = bytes.iter().filter(|&&b| b == b'_').count();
    let ok = underscores == 1
        && bytes.first() != Some(&b'_')
        && bytes.last() != Some(&b'_')
        && bytes
            .iter()
            .all(|&b| b == b'_' || b.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(Error::validation(
            field,
            format!("{symbol:?} is not a pair of the form base_quote (e.g. btc_usdt)"),
        ))
    }
}

/// Seconds in a day.
pub(crate) const DAY_SECS: i64 = 86_400;

/// Checks a `start_time`/`end_time` pair (seconds): `end >= start` when both are given
/// (error 20022), and, when `max_lookback_days` is set, that neither reaches further back than
/// that many days before `now`.
pub(crate) fn check_window(
    start: Option<i64>,
    end: Option<i64>,
    now: crate::types::TimestampMillis,
    max_lookback_days: Option<i64>,
) -> Result<(), Error> {
    if let (Some(s), Some(e)) = (start, end) {
        if e < s {
            return Err(Error::validation(
                "end_time",
                format!("{e} is before start_time {s}"),
            ));
        }
    }
    if let Some(days) = max_lookback_days {
        let oldest = now.as_secs().saturating_sub(days.saturating_mul(DAY_SECS));
        for (field, t) in [("start_time", start), ("end_time", end)] {
            if let Some(t) = t {
                if t < oldest {
                    return Err(Error::validation(
                        field,
                        format!(
                            "{t} is more than {days} days before now ({})",
                            now.as_secs()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    #[test]
    fn symbol_form() {
        for ok in ["btc_usdt", "BTC_USDT", "1inch_usdt"] {
            assert!(check_symbol("symbol", ok).is_ok(), "{ok}");
        }
        for bad in [
            "btcusdt",
            "_usdt",
            "btc_",
            "btc_usdt_x",
            "btc-usdt",
            "",
            "bt c_usdt",
        ] {
            let e = check_symbol("symbol", bad).unwrap_err();
            assert!(
                matches!(e, Error::Validation { ref field, .. } if field == "symbol"),
                "{bad}"
            );
        }
    }

    #[test]
    fn positive_and_range() {
        let positive = crate::request::positive;
        assert!(positive.check("price", &Decimal::new(1, 8)).is_ok());
        assert!(positive.check("price", &Decimal::ZERO).is_err());
        assert!(positive.check("price", &Decimal::new(-1, 0)).is_err());
        assert!(crate::request::range(1, 150).check("limit", &150).is_ok());
        assert!(crate::request::range(1, 150).check("limit", &0).is_err());
        assert!(crate::request::range(1, 150).check("limit", &151).is_err());
    }
}
