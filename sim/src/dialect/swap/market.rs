//! Public swap market data.
//!
//! DESIGN:
//! - `depth` levels are `[price, amount (contracts)]`, both JSON numbers as on the live venue
//!   (the documents show a string price; docs/protocol.md, "The live venue"), asks ascending and bids descending.
//! - Candles are aligned to multiples of the granularity since the Unix epoch (weeks start on
//!   Thursdays) and listed newest first. A period with trades takes its prices from them
//!   (volume in contracts, token volume = contracts * contract value), read from the
//!   instrument's tape ([`crate::engine::tape`]); a period without trades (or older than the tape
//!   keeps) is flat at the previous price (the earliest known price before any trade) with
//!   zero volume. `candles` lists the latest
//!   `limit` periods (the current one included); `candles_history` the latest `limit` periods
//!   starting within `[start_timestamp, end_timestamp]` (end defaults to now, start to no bound).
//! - Ticker 24-hour figures come from the public trades of the last 24 hours, at minute
//!   resolution ([`crate::engine::tape::Tape::day`]; for an instrument
//!   a recording drives, the last recorded ticker's, see [`crate::market`]);
//!   `price_change_percent` is a fraction rounded to 4 places; `volume_24h` is in contracts;
//!   `open_interest` is the long contracts held by all accounts. `max_buy_price` and
//!   `min_sell_price` are the mark price plus and minus 10% (orders beyond fail with 401010 and
//!   401011).
//! - Ticker `timestamp` (docs/protocol.md, "The live venue": one value shared by every row, 0.5-60 s stale, not the
//!   time of the prices): the tickers are taken to be refreshed every [`TICKER_REFRESH_MS`]
//!   (5 s) and published [`TICKER_LAG_MS`] (0.5 s) later, so `timestamp` is the latest multiple
//!   of 5 s at or before `now - 0.5 s` ([`ticker_timestamp`]): 0.5 s to 5.5 s behind the
//!   simulator clock, the same for `ticker` and every row of `tickers` read in the same
//!   instant. The figures themselves are computed at the request time.
//! - `funding_rate` follows the live venue (docs/protocol.md, "The live venue"): `funding_rate` is the **last
//!   settled** rate, labelled with the **next** funding time (`funding_time`); DESIGN (the notes
//!   leave the rest open): `next_funding_rate` is the rate that will be settled at
//!   `funding_time` (the forecast the control API sets) and `next_funding_time` is
//!   `funding_time` plus the instrument's funding interval (8 hours, or 4 for 4-hour contracts),
//!   so `next_funding_time - funding_time` is the interval, as ccxt derives it. History entries
//!   are settled rates, newest first.
//! - `type` on `instruments` and `tickers`: 2 (default) lists the real contracts, 1 the
//!   simulated-trading ones ([`crate::SwapInstrumentSpec::simulated`], `type` `SIMULATE`, such
//!   as `BTCUSDT2PERP` settled in `USDT2`). `instrument`, `ticker`, `depth` and the other
//!   single-instrument routes answer for either kind.

use super::{err_msg, in_window, s, Ctx, SwapErr, R};
use crate::config::SwapInstrumentSpec;
use crate::engine::state::State;
use crate::engine::swap::engine::Side;
use crate::json::J;
use rust_decimal::Decimal;

fn instrument_json(m: &SwapInstrumentSpec) -> J {
    let limits: Vec<J> = m
        .open_max_limits
        .iter()
        .map(|(l, v)| J::obj().with("leverage", s(*l)).with("max_limit", s(*v)))
        .collect();
    J::obj()
        .with("instrument_id", m.instrument_id.as_str())
        .with("type", if m.simulated { "SIMULATE" } else { "REAL" })
        .with("contract_type", "PERPETUAL")
        .with("base_currency", m.base.as_str())
        .with("quote_currency", m.quote.as_str())
        .with("clear_currency", m.quote.as_str())
        .with("contract_value", s(m.contract_value))
        .with("contract_value_currency", m.base.as_str())
        .with("is_inverse", false)
        .with("is_trading", m.is_trading)
        .with("status", m.status.text())
        .with("price_precision", m.price_precision)
        .with("tick_size", s(m.tick_size))
        .with("min_order_amount", J::Dec(m.min_order_amount))
        .with("open_max_limits", limits)
}

/// The optional instrument-type filter: `Ok(true)` to list real instruments (type 2, the
/// default), `Ok(false)` for simulated ones (type 1).
pub fn real_type(c: &Ctx<'_>) -> Result<bool, SwapErr> {
    match c.p.int("type")? {
        None | Some(2) => Ok(true),
        Some(1) => Ok(false),
        Some(_) => Err(err_msg(400002, "type must be 1 or 2")),
    }
}

/// `GET public/instruments`.
pub fn instruments(c: &mut Ctx<'_>) -> R {
    let real = real_type(c)?;
    Ok(J::Arr(
        c.st.swap
            .instruments
            .iter()
            .filter(|m| m.simulated != real)
            .map(instrument_json)
            .collect(),
    ))
}

/// `GET public/instrument`.
pub fn instrument(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    Ok(c.st
        .swap
        .instruments
        .get(i)
        .map_or(J::Null, instrument_json))
}

fn level_json(levels: Vec<(Decimal, Decimal)>) -> J {
    J::Arr(
        levels
            .into_iter()
            .map(|(p, a)| J::Arr(vec![J::Dec(p), J::Dec(a)]))
            .collect(),
    )
}

/// `GET public/depth`.
pub fn depth(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    let limit = c.p.limit()?;
    let levels = |side: Side| {
        c.st.swap
            .books
            .get(i)
            .map(|book| book.levels(side, limit))
            .unwrap_or_default()
    };
    Ok(J::obj()
        .with(
            "instrument_id",
            c.st.swap.instruments[i].instrument_id.as_str(),
        )
        .with("timestamp", c.now_ms)
        .with("asks", level_json(levels(Side::Sell)))
        .with("bids", level_json(levels(Side::Buy))))
}

/// `GET public/trades`.
pub fn trades(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    let limit = c.p.limit()?;
    let id = c.st.swap.instruments[i].instrument_id.clone();
    let list = c.st.swap.tapes.get(i);
    Ok(J::Arr(
        list.into_iter()
            .flat_map(|l| l.trades().iter().rev())
            .take(limit)
            .map(|t| {
                J::obj()
                    .with("instrument_id", id.as_str())
                    .with("trade_id", t.id.to_string())
                    .with("direction", t.direction.to_string())
                    .with("volume", s(t.qty))
                    .with("price", s(t.price))
                    .with("trade_time", t.time_ms)
            })
            .collect(),
    ))
}

/// How often the tickers are refreshed (ms).
pub const TICKER_REFRESH_MS: i64 = 5_000;
/// Delay between a refresh and its publication (ms).
pub const TICKER_LAG_MS: i64 = 500;

/// The ticker `timestamp` at `now_ms`: the last refresh published by then (see the module docs).
pub fn ticker_timestamp(now_ms: i64) -> i64 {
    (now_ms - TICKER_LAG_MS).div_euclid(TICKER_REFRESH_MS) * TICKER_REFRESH_MS
}

fn ticker_json(c: &Ctx<'_>, i: usize, with_oi: bool) -> J {
    let sw = &c.st.swap;
    let (Some(m), Some(q)) = (sw.instruments.get(i), c.st.swap_quote(i, c.now_ms)) else {
        return J::Null;
    };
    let mut j = J::obj()
        .with("instrument_id", m.instrument_id.as_str())
        .with("index_price", s(sw.index_price(i)))
        .with("mark_price", s(sw.mark(i)))
        .with("max_buy_price", s(sw.max_buy(i)))
        .with("min_sell_price", s(sw.min_sell(i)))
        .with("best_bid", s(q.bid.0))
        .with("best_bid_size", s(q.bid.1))
        .with("best_ask", s(q.ask.0))
        .with("best_ask_size", s(q.ask.1))
        .with("high_24h", s(q.high))
        .with("open_24h", s(q.open))
        .with("low_24h", s(q.low))
        .with("last", s(q.last))
        .with("last_qty", s(q.last_qty))
        .with("volume_24h", s(q.volume))
        .with("price_change_percent", s(q.change));
    if with_oi {
        let oi: Decimal = sw
            .positions
            .iter()
            .filter(|((_, inst, side), _)| {
                *inst == i && *side == crate::engine::swap::engine::PosSide::Long
            })
            .map(|(_, p)| p.size)
            .sum();
        j = j.with("open_interest", s(oi));
    }
    j.with("timestamp", ticker_timestamp(c.now_ms))
}

/// `GET public/ticker`.
pub fn ticker(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    Ok(ticker_json(c, i, true))
}

/// `GET public/tickers`.
pub fn tickers(c: &mut Ctx<'_>) -> R {
    let real = real_type(c)?;
    Ok(J::Arr(
        (0..c.st.swap.instruments.len())
            .filter(|&i| c.st.swap.instruments[i].simulated != real)
            .map(|i| ticker_json(c, i, false))
            .collect(),
    ))
}

/// Granularity in ms.
pub fn granularity_ms(g: &str) -> Option<i64> {
    let m = 60_000;
    Some(match g {
        "1m" => m,
        "5m" => 5 * m,
        "15m" => 15 * m,
        "30m" => 30 * m,
        "1h" => 60 * m,
        "4h" => 240 * m,
        "12h" => 720 * m,
        "1d" => 1440 * m,
        "1w" => 10_080 * m,
        _ => return None,
    })
}

/// The candle of instrument `i` for the period of `len` ms starting at `start` (also the
/// websocket's `cur_candle`).
pub fn candle(st: &State, i: usize, start: i64, len: i64) -> J {
    let sw = &st.swap;
    let Some(m) = sw.instruments.get(i) else {
        return J::Null;
    };
    let tape = sw.tapes.get(i);
    let (o, h, l, cl, v) = match tape.and_then(|t| t.candle(start, len)) {
        Some(k) => (k.open, k.high, k.low, k.close, k.volume),
        None => {
            let prev = tape
                .and_then(|t| t.close_before(start).or_else(|| t.first_price()))
                .unwrap_or(m.mid_price);
            (prev, prev, prev, prev, Decimal::ZERO)
        }
    };
    J::Arr(vec![
        J::Int(start),
        s(o),
        s(h),
        s(l),
        s(cl),
        s(v),
        s(v * m.contract_value),
    ])
}

/// `GET public/candles` and `public/candles_history`.
pub fn candles(c: &mut Ctx<'_>, history: bool) -> R {
    let i = c.instrument()?;
    let g = c.p.req("granularity")?;
    let len = granularity_ms(&g).ok_or_else(|| {
        err_msg(
            400002,
            "granularity must be 1m, 5m, 15m, 30m, 1h, 4h, 12h, 1d or 1w",
        )
    })?;
    let limit = c.p.limit()?;
    let (start, end) = if history { c.p.window()? } else { (None, None) };
    let end = end.unwrap_or(c.now_ms).clamp(0, c.now_ms.max(0));
    let mut t = end.div_euclid(len) * len;
    let mut list = Vec::new();
    while list.len() < limit && t >= 0 && start.is_none_or(|s| t >= s) {
        list.push(candle(c.st, i, t, len));
        t -= len;
    }
    Ok(J::obj()
        .with(
            "instrument_id",
            c.st.swap.instruments[i].instrument_id.as_str(),
        )
        .with("granularity", g)
        .with("candles", list))
}

/// `GET public/funding_rate`.
pub fn funding_rate(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    let sw = &c.st.swap;
    let f = &sw.funding[i];
    let m = &sw.instruments[i];
    // The last settled rate (the history starts with 90 synthetic settlements).
    let last = f.history.last().map_or(f.rate, |(_, r)| *r);
    Ok(J::obj()
        .with("instrument_id", m.instrument_id.as_str())
        .with("funding_rate", s(last))
        .with("funding_time", f.next_time)
        .with("next_funding_rate", s(f.rate))
        .with("next_funding_time", f.next_time + m.funding_period_ms()))
}

/// `GET public/funding_rate_history`.
pub fn funding_rate_history(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    let w = c.p.window()?;
    let limit = c.p.limit()?;
    let sw = &c.st.swap;
    let list: Vec<J> = sw.funding[i]
        .history
        .iter()
        .rev()
        .filter(|(t, _)| in_window(*t, w))
        .take(limit)
        .map(|(t, r)| J::obj().with("rate", s(*r)).with("time", *t))
        .collect();
    Ok(J::obj()
        .with("instrument_id", sw.instruments[i].instrument_id.as_str())
        .with("funding_rates", list))
}
