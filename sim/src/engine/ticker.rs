//! The ticker of a pair or instrument at an instant: top of book, last trade and 24-hour
//! figures. The REST tickers (spot `/ticker`, swap `public/ticker` and `tickers`) and the
//! websocket ticker channels (`ticker`, `all_ticker`) are all rendered from [`spot`] and
//! [`swap`], so every door shows the same figures at the same instant.
//!
//! The 24-hour figures come from the market's tape ([`crate::engine::tape::Tape::day`]); a market a
//! recording drives answers the last recorded ticker's figures instead where it recorded them
//! (see [`crate::market`]). Without a trade in the window, open, high and low are the last
//! price and the volumes zero.

use crate::engine::book::{Book, Side};
use crate::market::Ticker;
use crate::num::round_dp;
use rust_decimal::Decimal;
use std::collections::HashMap;

/// One market's ticker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quote {
    /// Best bid price and size (zero when the side is empty).
    pub bid: (Decimal, Decimal),
    /// Best ask price and size (zero when the side is empty).
    pub ask: (Decimal, Decimal),
    /// Last trade price (the configured mid before any trade).
    pub last: Decimal,
    /// Last trade quantity (zero before any trade).
    pub last_qty: Decimal,
    /// First trade price of the window.
    pub open: Decimal,
    /// Highest price of the window.
    pub high: Decimal,
    /// Lowest price of the window.
    pub low: Decimal,
    /// Quantity traded in the window (spot base, swap contracts).
    pub volume: Decimal,
    /// Quote turnover of the window (swap: contracts times price; see the swap renderer).
    pub turnover: Decimal,
    /// Change over the window: spot in percent rounded to 2 places, swap as a fraction rounded
    /// to 4 places (as the venue reports them).
    pub change: Decimal,
}

fn top(book: Option<&Book>, side: Side) -> (Decimal, Decimal) {
    book.and_then(|b| b.levels(side, 1).first().copied())
        .unwrap_or_default()
}

/// The ticker of a market from its book, tape, last price and last recorded ticker, at
/// `now_ms`; `percent`: the change in percent (spot) or as a fraction (swap).
pub fn quote(
    book: Option<&Book>,
    tape: Option<&crate::engine::tape::Tape>,
    last: Decimal,
    recorded: Option<&Ticker>,
    now_ms: i64,
    percent: bool,
) -> Quote {
    let day = tape.and_then(|t| t.day(now_ms));
    let (open, high, low, volume, turnover) = match day {
        Some(d) => (d.open, d.high, d.low, d.volume, d.turnover),
        None => (last, last, last, Decimal::ZERO, Decimal::ZERO),
    };
    let change = match (open.is_zero(), percent) {
        (true, _) => Decimal::ZERO,
        (false, true) => round_dp((last - open) / open * Decimal::ONE_HUNDRED, 2),
        (false, false) => round_dp((last - open) / open, 4),
    };
    let pick =
        |f: fn(&Ticker) -> Option<Decimal>, own: Decimal| recorded.and_then(f).unwrap_or(own);
    Quote {
        bid: top(book, Side::Buy),
        ask: top(book, Side::Sell),
        last,
        last_qty: tape
            .and_then(crate::engine::tape::Tape::last)
            .map_or(Decimal::ZERO, |t| t.qty),
        open: pick(|t| t.open, open),
        high: pick(|t| t.high, high),
        low: pick(|t| t.low, low),
        volume: pick(|t| t.volume, volume),
        turnover: pick(|t| t.quote_volume, turnover),
        change: pick(|t| t.change, change),
    }
}

/// The last recorded ticker of each replayed pair and instrument (by index): the 24-hour
/// figures a recording carries ([`crate::market`], "Ticker").
#[derive(Debug, Default)]
pub struct RecordedTickers {
    /// Spot pairs.
    pub spot: HashMap<usize, Ticker>,
    /// Swap instruments.
    pub swap: HashMap<usize, Ticker>,
}
