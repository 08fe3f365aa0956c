//! Public market data: markets, tickers, order books, trades, candles, symbol lists.
//!
//! DESIGN: `/order_book` and `/trades` refuse a `limit` outside the documented range with 10004
//! rather than clamping. `/kline` aligns candles to multiples of the period since the Unix epoch
//! (weeks therefore start on Thursdays), returns at most the latest 500 candles of the range, and
//! fills periods without trades with the previous close and zero volume. Unknown or malformed pairs
//! answer 20019.
//!
//! As the live venue answers (docs/protocol.md, "The live venue", which wins over the documents):
//! - `/ticker`'s `change` is the 24-hour change in **percent** (`-1.91` is -1.91 %), not the
//!   fraction the retired v2 documentation describes: `(last - open) / open * 100`, where `open`
//!   is the first trade of the last 24 hours. DESIGN: rounded to 2 places, as published values
//!   show (`-1.91`). For a pair a recording drives, `vol`, `base_vol`, `high`, `low` and
//!   `change` are the last recorded ticker's ([`crate::market`]).
//! - Pair case: `/ticker` and `/markets` write pairs in lower case (`btc_usdt`); the symbol lists
//!   (`/spot/symbols`, `/margin/symbols`, `/trades/symbols`) in upper case (`BTC_USDT`), like
//!   order, own-trade and margin-position records ([`super::pair_upper`]). `/order_book`,
//!   `/trades` and `/kline` carry no pair. Requests accept either case ([`lookup`]).
//! - `/order_book` lists asks highest price first (the best ask last) and bids highest price
//!   first (the best bid first), as published answers do; `limit` counts levels from the best
//!   price on each side, so the asks are the `limit` lowest, listed in descending order.

use super::{err, err_msg, ok0, Ctx, SpotErr, R};
use crate::config::MarketStatus;
use crate::engine::spot::engine::Side;
use crate::json::J;
use crate::num::round_dp;
use rust_decimal::Decimal;

/// Index of the pair named by the required `symbol` parameter.
pub fn symbol_index(c: &Ctx<'_>) -> Result<usize, SpotErr> {
    let s = c.p.req("symbol")?;
    lookup(c, s)
}

/// Index of pair `s` (20019 when malformed or unknown).
pub fn lookup(c: &Ctx<'_>, s: &str) -> Result<usize, SpotErr> {
    let s = s.trim().to_ascii_lowercase();
    c.st.spot
        .by_symbol
        .get(&s)
        .copied()
        .ok_or_else(|| err(20019))
}

/// `GET /markets`.
pub fn markets(c: &mut Ctx<'_>) -> R {
    let data: Vec<J> =
        c.st.spot
            .markets
            .iter()
            .map(|m| {
                J::obj()
                    .with("volume_precision", m.amount_precision)
                    .with("price_precision", m.price_precision)
                    .with("market", m.symbol())
                    .with("min_amount", m.min_value)
                    .with("min_volume", m.min_amount)
            })
            .collect();
    Ok(J::obj()
        .with("data", data)
        .with("date", c.now_s())
        .with("code", 0))
}

fn ticker_entry(c: &Ctx<'_>, i: usize) -> J {
    let (Some(m), Some(q)) = (c.st.spot.markets.get(i), c.st.spot_quote(i, c.now_ms)) else {
        return J::Null;
    };
    J::obj()
        .with("vol", q.volume)
        .with("change", q.change)
        .with("base_vol", round_dp(q.turnover, 8))
        .with("sell", q.ask.0)
        .with("last", q.last)
        .with("symbol", m.symbol())
        .with("low", q.low)
        .with("buy", q.bid.0)
        .with("high", q.high)
}

/// `GET /ticker`.
pub fn ticker(c: &mut Ctx<'_>) -> R {
    let list: Vec<J> = match c.p.get("symbol") {
        Some(s) => vec![ticker_entry(c, lookup(c, s)?)],
        None => (0..c.st.spot.markets.len())
            .map(|i| ticker_entry(c, i))
            .collect(),
    };
    Ok(J::obj()
        .with("ticker", list)
        .with("date", c.now_s())
        .with("code", 0))
}

/// `GET /order_book`.
pub fn order_book(c: &mut Ctx<'_>) -> R {
    let i = symbol_index(c)?;
    let limit = c.p.limit("limit", 10, 150)?;
    let levels = |side: Side| {
        c.st.spot
            .books
            .get(i)
            .map(|book| book.levels(side, limit))
            .unwrap_or_default()
    };
    let side = |list: Vec<(Decimal, Decimal)>| -> J {
        J::Arr(
            list.into_iter()
                .map(|(p, a)| J::Arr(vec![J::Dec(p), J::Dec(a)]))
                .collect(),
        )
    };
    // Both sides highest price first: bids best first, asks best last ([`Book::levels`]
    // answers best first).
    let bids = levels(Side::Buy);
    let mut asks = levels(Side::Sell);
    asks.reverse();
    Ok(J::obj()
        .with("bids", side(bids))
        .with("asks", side(asks))
        .with("date", c.now_s())
        .with("code", 0))
}

/// `GET /trades`.
pub fn trades(c: &mut Ctx<'_>) -> R {
    let i = symbol_index(c)?;
    let limit = c.p.limit("limit", 100, 500)?;
    let list: Vec<J> =
        c.st.spot
            .tapes
            .get(i)
            .into_iter()
            .flat_map(|tape| tape.trades().iter().rev())
            .take(limit)
            .map(|t| {
                J::obj()
                    .with("date", t.time_ms.div_euclid(1000))
                    .with("id", t.id)
                    .with("amount", t.qty)
                    .with(
                        "type",
                        match t.side {
                            Side::Buy => "buy",
                            Side::Sell => "sell",
                        },
                    )
                    .with("price", t.price)
            })
            .collect();
    Ok(J::obj()
        .with("data", list)
        .with("date", c.now_s())
        .with("code", 0))
}

fn period_secs(p: &str) -> Option<i64> {
    Some(match p {
        "1" => 60,
        "5" => 300,
        "15" => 900,
        "30" => 1800,
        "60" => 3600,
        "240" => 14_400,
        "720" => 43_200,
        "1D" | "1d" => 86_400,
        "1W" | "1w" => 604_800,
        _ => return None,
    })
}

/// Latest accepted time parameter (seconds; year 5138).
pub const MAX_SECONDS: i64 = 100_000_000_000;

/// Checks a time parameter in seconds is within `0..=MAX_SECONDS` (10004 otherwise).
pub fn seconds(v: Option<i64>) -> Result<Option<i64>, SpotErr> {
    match v {
        Some(t) if !(0..=MAX_SECONDS).contains(&t) => {
            Err(err_msg(10004, "time parameter out of range"))
        }
        other => Ok(other),
    }
}

/// `GET /kline`.
pub fn kline(c: &mut Ctx<'_>) -> R {
    let i = symbol_index(c)?;
    let period = period_secs(c.p.req("period")?).ok_or_else(|| {
        err_msg(
            10004,
            "period must be one of 1, 5, 15, 30, 60, 240, 720, 1D, 1W",
        )
    })?;
    let end = seconds(c.p.int("end_time")?)?.unwrap_or(c.now_s());
    let start = seconds(c.p.int("start_time")?)?.unwrap_or(end - 200 * period);
    if end <= start {
        return Err(err(20022));
    }
    let first = start.div_euclid(period) * period;
    let last = end.div_euclid(period) * period;
    let count = (last - first) / period + 1;
    let first = if count > 500 {
        last - 499 * period
    } else {
        first
    };
    let tape = c.st.spot.tapes.get(i);
    let mut prev_close = tape
        .and_then(|t| t.close_before(first * 1000).or_else(|| t.first_price()))
        .unwrap_or_else(|| {
            c.st.spot
                .markets
                .get(i)
                .map_or(Decimal::ZERO, |m| m.mid_price)
        });
    let mut out = Vec::new();
    let mut t0 = first;
    while t0 <= last {
        let candle = tape.and_then(|t| t.candle(t0 * 1000, period * 1000));
        let (o, h, l, cl, v) = match candle {
            Some(k) => (k.open, k.high, k.low, k.close, k.volume),
            None => (
                prev_close,
                prev_close,
                prev_close,
                prev_close,
                Decimal::ZERO,
            ),
        };
        prev_close = cl;
        out.push(J::Arr(vec![
            J::Int(t0),
            J::Dec(v),
            J::Dec(cl),
            J::Dec(h),
            J::Dec(l),
            J::Dec(o),
        ]));
        t0 += period;
    }
    Ok(ok0().with("data", out))
}

/// Which symbol list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolList {
    /// `/spot/symbols`.
    Spot,
    /// `/margin/symbols`.
    Margin,
    /// `/trades/symbols`.
    Api,
}

/// `GET /spot/symbols`, `/margin/symbols`, `/trades/symbols` (pairs in upper case).
pub fn symbols(c: &mut Ctx<'_>, which: SymbolList) -> R {
    let list: Vec<J> =
        c.st.spot
            .markets
            .iter()
            .filter(|m| which != SymbolList::Margin || m.margin)
            .map(|m| {
                let mut j = J::obj()
                    .with(
                        "status",
                        match m.status {
                            MarketStatus::Trading => "TRADING",
                            MarketStatus::Suspended => "SUSPEND",
                        },
                    )
                    .with("symbol", super::pair_upper(&m.symbol()))
                    .with("quote_asset", m.quote.as_str())
                    .with("base_asset", m.base.as_str())
                    .with("amount_precision", m.amount_precision)
                    .with("price_precision", m.price_precision)
                    .with("minimum_amount", m.min_amount)
                    .with("minimum_value", m.min_value)
                    .with("zone", m.zone.as_str())
                    .with("order_types", vec!["LIMIT", "MARKET"]);
                if which == SymbolList::Margin {
                    j = j.with("liquidation_rate", m.liquidation_rate);
                }
                if which == SymbolList::Api {
                    j = j.with("is_allow", i64::from(m.api_tradable));
                }
                j
            })
            .collect();
    Ok(J::obj().with("symbol_list", list).with("code", 0))
}

/// `GET /margin/currencies`.
pub fn margin_currencies(c: &mut Ctx<'_>) -> R {
    let mut currencies: Vec<String> = Vec::new();
    for m in c.st.spot.markets.iter().filter(|m| m.margin) {
        for cur in [&m.base, &m.quote] {
            if !currencies.contains(cur) {
                currencies.push(cur.clone());
            }
        }
    }
    let fees: Vec<J> = currencies
        .iter()
        .flat_map(|cur| {
            [
                (1, "0-10000", Decimal::new(2, 4)),
                (2, "10000-100000", Decimal::new(3, 4)),
            ]
            .into_iter()
            .map(move |(level, range, fee)| {
                J::obj()
                    .with("currency_mark", cur.as_str())
                    .with("level", level)
                    .with("range", range)
                    .with("loan_fees", fee)
            })
        })
        .collect();
    Ok(J::obj()
        .with("currencys", currencies)
        .with("margin_fees", fees)
        .with("funding_time", "every hour")
        .with("code", 0))
}
