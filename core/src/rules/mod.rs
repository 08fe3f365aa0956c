//! Market rules: what the venue accepts on each spot pair and swap instrument, checked and
//! rounded before anything is sent.
//!
//! Orders refused for price or amount precision are the most common refusal bot authors meet.
//! [`SpotRules`] (from the symbol lists) and [`SwapRules`] (from the instruments) carry each
//! market's rules; `check` refuses an order the venue would refuse, with a [`RuleError`] naming
//! the field, the rule, the venue's error code and the nearest valid values; `round_*` put a
//! price on the tick with an explicit [`Rounding`] and truncate amounts to the step.
//! [`RulesCache`] keeps both sets with their load time so a client reloads them on demand.
//!
//! DESIGN (the order of the checks, the same as the simulator's): spot: API trading allowed
//! (20042), pair trading (20002), order type offered (20012), price precision (20007), amount
//! precision (20008), base minimum (20009), order value minimum (20010). Swap: instrument
//! trading (401004), whole contracts (400002), minimum size (401006), price on the tick and
//! within the precision (401007), open-value cap at the leverage (401002). A rule the venue did
//! not send (a missing field) is not checked: the venue still decides.
//!
//! # Examples
//!
//! ```
//! use digifinex_core::rules::{Rounding, SpotRules};
//! use digifinex_core::spot::{LimitOrder, SymbolInfo};
//! use digifinex_core::{Amount, Price};
//! let info: SymbolInfo = serde_json::from_str(
//!     r#"{"symbol":"BTC_USDT","price_precision":2,"amount_precision":4,
//!         "minimum_amount":0.0001,"minimum_value":2,"status":"TRADING","is_allow":1}"#,
//! )?;
//! let rules = SpotRules::from_symbol(&info);
//! // 30000.125 has three places: a buy rounds down to the tick.
//! let order = LimitOrder::buy("0.01".parse::<Amount>()?, "30000.125".parse::<Price>()?);
//! let err = rules.check(&order.into(), None).expect_err("too precise");
//! assert_eq!(err.code(), Some(20007));
//! let rounded = rules.round_limit(LimitOrder::buy("0.012345".parse()?, "30000.125".parse()?), Rounding::Passive)?;
//! assert_eq!(rounded.price().to_string(), "30000.12");
//! assert_eq!(rounded.amount().to_string(), "0.0123");
//! rules.check(&rounded.into(), None)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// DESIGN: `RuleError` is returned by value (160 bytes) so that callers can match its public
// fields; checks run once per order before I/O, not in a hot loop, and `Error::Rule` boxes it.
#![allow(clippy::result_large_err)]

mod cache;
mod grid;
mod placement;
mod spot;
mod swap;

pub use crate::refusal::{Rule, RuleError};
pub use cache::RulesCache;
pub use grid::{Grid, Rounding};
pub use placement::{check_placement, placement_markets, Markets, Refused};
pub use spot::SpotRules;
pub use swap::{Exposure, SwapRules};

use rust_decimal::Decimal;

/// What a checked placement does besides checking: round (and how), and what it knows of the
/// market and the account.
///
/// # Examples
///
/// ```
/// use digifinex_core::rules::{Checks, Rounding};
/// let strict = Checks::strict();
/// assert_eq!(strict.round, None);
/// let lenient = Checks::rounding(Rounding::Passive);
/// assert_eq!(lenient.round, Some(Rounding::Passive));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Checks {
    /// Round prices (per the mode) and truncate amounts before checking; `None` refuses any
    /// value off the grid.
    pub round: Option<Rounding>,
    /// The price a market order is valued at (a spot market sell's best bid; a swap
    /// market-style order's mark or best price), for the value minimum and the open cap.
    pub reference: Option<crate::money::Price>,
    /// The swap position the order opens into (leverage and open value), for the open cap.
    pub exposure: Option<Exposure>,
}

impl Checks {
    /// Check only: a value off the grid is refused.
    pub fn strict() -> Checks {
        Checks::default()
    }

    /// Round per `mode` (amounts truncated), then check.
    pub fn rounding(mode: Rounding) -> Checks {
        Checks {
            round: Some(mode),
            ..Checks::default()
        }
    }

    /// With the reference price for market orders.
    pub fn reference(mut self, price: crate::money::Price) -> Checks {
        self.reference = Some(price);
        self
    }

    /// With the swap position the order opens into.
    pub fn exposure(mut self, exposure: Exposure) -> Checks {
        self.exposure = Some(exposure);
        self
    }
}

/// What a rules lookup found: the rules, the request that loads them, or that the fresh
/// rules do not list the market (a misspelt or delisted pair or instrument).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesLookup<T, R> {
    /// Fresh rules.
    Ready(T),
    /// The cache is empty or stale: send this request and load its answer.
    Load(R),
    /// Fresh rules do not list the market.
    Unlisted,
}

/// A placement made through the checked path: the request as sent (rounded when asked) and
/// the venue's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sent<R, O> {
    /// The request as sent.
    pub request: R,
    /// The answer.
    pub output: O,
}

impl<R, O> Sent<R, O> {
    /// The request as sent and its answer (what a client's checked placement returns).
    pub fn new(request: R, output: O) -> Self {
        Sent { request, output }
    }
}

/// The error for a spot pair the fresh symbol list does not list.
pub fn unlisted_pair(pair: &str) -> crate::error::Error {
    crate::error::Error::validation(
        "symbol",
        format!(
            "{pair:?} is not listed by GET /v3/trades/symbols: check the spelling (pairs look like btc_usdt)"
        ),
    )
}

/// The error for a spot pair that `listed` (the fresh symbol list's pairs) does not hold: "not
/// listed", with the listed pair it most likely meant ([`suggest_market`]).
///
/// ```
/// use digifinex_core::rules::unlisted_pair_among;
/// let e = unlisted_pair_among("btc_usdd", ["eth_usdt", "btc_usdt"]);
/// assert_eq!(
///     e.to_string(),
///     "invalid `symbol`: \"btc_usdd\" is not listed by GET /v3/trades/symbols (did you mean \
///      btc_usdt?)"
/// );
/// ```
pub fn unlisted_pair_among<'a, I: IntoIterator<Item = &'a str>>(
    pair: &str,
    listed: I,
) -> crate::error::Error {
    let reason = match suggest_market(pair, listed) {
        Some(near) => format!(
            "{pair:?} is not listed by GET /v3/trades/symbols (did you mean {}?)",
            near.to_ascii_lowercase()
        ),
        None => format!(
            "{pair:?} is not listed by GET /v3/trades/symbols: check the spelling (pairs look \
             like btc_usdt)"
        ),
    };
    crate::error::Error::validation("symbol", reason)
}

/// The error for a swap instrument that `listed` (the fresh instrument list's ids) does not
/// hold: "not listed", with the listed instrument it most likely meant ([`suggest_market`]).
pub fn unlisted_instrument_among<'a, I: IntoIterator<Item = &'a str>>(
    instrument_id: &str,
    listed: I,
) -> crate::error::Error {
    let reason = match suggest_market(instrument_id, listed) {
        Some(near) => format!(
            "{instrument_id:?} is not listed by GET /swap/v2/public/instruments (did you mean \
             {}?)",
            near.to_ascii_uppercase()
        ),
        None => format!(
            "{instrument_id:?} is not listed by GET /swap/v2/public/instruments: check the \
             spelling (instruments look like BTCUSDTPERP)"
        ),
    };
    crate::error::Error::validation("instrument_id", reason)
}

/// The market of `listed` most like `name`: the same letters without separators and case
/// (`BTCUSDT`, `btc-usdt` for `btc_usdt`), base and quote swapped (`usdt_btc`), or the closest
/// within two edits; `None` when nothing is that close.
///
/// ```
/// use digifinex_core::rules::suggest_market;
/// let listed = ["btc_usdt", "eth_usdt", "eth_btc"];
/// assert_eq!(suggest_market("BTC-USDT", listed), Some("btc_usdt"));
/// assert_eq!(suggest_market("usdt_eth", listed), Some("eth_usdt"));
/// assert_eq!(suggest_market("eth_usdd", listed), Some("eth_usdt"));
/// assert_eq!(suggest_market("doge_eur", listed), None);
/// ```
pub fn suggest_market<'a, I: IntoIterator<Item = &'a str>>(
    name: &str,
    listed: I,
) -> Option<&'a str> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let swapped = |s: &str| -> Option<String> {
        let (a, b) = s.split_once(['_', '-', '/'])?;
        Some(format!("{}{}", squash(b), squash(a)))
    };
    let want = squash(name);
    let want_swapped = swapped(name);
    let mut best: Option<(usize, &'a str)> = None;
    for m in listed {
        let have = squash(m);
        let d = if have == want || want_swapped.as_deref() == Some(have.as_str()) {
            0
        } else {
            crate::text::edit_distance(&want, &have)
        };
        if d <= 2 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, m));
        }
    }
    best.map(|(_, m)| m)
}

/// The error for a swap instrument the fresh instrument list does not list.
pub fn unlisted_instrument(instrument_id: &str) -> crate::error::Error {
    crate::error::Error::validation(
        "instrument_id",
        format!(
            "{instrument_id:?} is not listed by GET /swap/v2/public/instruments: check the spelling (instruments look like BTCUSDTPERP)"
        ),
    )
}

/// The side an order trades on, as rounding sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// Buying (spot buy; swap open long or close short).
    Buy,
    /// Selling (spot sell; swap open short or close long).
    Sell,
}

/// Rounds `price` on `grid` for an order on `side`.
fn round_price(
    grid: &Grid,
    price: Decimal,
    side: Side,
    mode: Rounding,
    field: &'static str,
    market: &str,
    code: i64,
) -> Result<Decimal, RuleError> {
    let off = |g: &Grid| {
        let mut e =
            RuleError::new(field, market, Rule::Price { step: g.step() }, code).value(price);
        if let Some((below, above)) = g.around(price) {
            e = e.nearest((below > Decimal::ZERO).then_some(below), above);
        }
        e
    };
    let rounded = match mode {
        Rounding::Passive => match side {
            Side::Buy => grid.down(price),
            Side::Sell => grid.up(price),
        },
        Rounding::Nearest => grid.nearest(price, side == Side::Sell),
        Rounding::Exact => {
            if grid.contains(price) {
                Some(price)
            } else {
                return Err(off(grid));
            }
        }
    };
    match rounded {
        Some(p) if p > Decimal::ZERO => Ok(p),
        _ => Err(off(grid)),
    }
}
