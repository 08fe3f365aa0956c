//! Balances, finance log, transfers and margin positions.
//!
//! DESIGN:
//! - `/spot/assets` and `/margin/assets` list every currency the account holds in that account
//!   (including zero balances it has held).
//! - `/margin/assets` top-level `total`, `free` and `unrealized_pnl` are valued in USDT at mid
//!   prices; `valuation_rate` is the USDT price of the currency.
//! - `/{market}/financelog` lists entries of that account type, newest first; `total` is the
//!   count matching the filters before `limit` is applied.
//! - `/transfer`: codes other than 1, 2, 3, equal codes, and margin<->OTC answer 20023; an amount
//!   that is not a positive number 20024; an unknown currency 20021; more than the free balance
//!   20026.
//! - `/margin/positions`: `margin` is the quote margin locked by positions, `margin_rate` the
//!   margin account's USDT equity divided by locked margin (0 without positions), both strings.
//!   Liquidation price is `entry * (1 - 1/leverage)` for longs and `entry * (1 + 1/leverage)`
//!   for shorts. Pairs are written in upper case (`BTC_USDT`), as the live venue does.
//! - `/margin/position/close` closes at market with a market order of kind margin (not counted
//!   by risk control and allowed during an API trading ban); 20030 without a position.

use super::market::lookup;
use super::orders::close_position;
use super::{err, err_msg, known_currency, ok0, Ctx, Kind, R};
use crate::engine::accounts::{finance_type, AccountType};
use crate::engine::spot::engine::Position;
use crate::json::J;
use crate::num::{parse_dec, round_dp};
use rust_decimal::Decimal;

fn asset_list(c: &Ctx<'_>, at: AccountType, valuation: bool) -> Vec<J> {
    let Some(acct) = c.st.accounts.get(&c.user) else {
        return Vec::new();
    };
    acct.balances
        .iter()
        .filter(|((t, _), _)| *t == at)
        .map(|((_, cur), b)| {
            let mut j = J::obj()
                .with("currency", cur.as_str())
                .with("free", b.free)
                .with("total", b.total());
            if valuation {
                j = j.with("valuation_rate", c.st.spot.usdt_rate(cur));
            }
            j
        })
        .collect()
}

/// `GET /spot/assets`.
pub fn spot_assets(c: &mut Ctx<'_>) -> R {
    Ok(ok0().with("list", asset_list(c, AccountType::Spot, false)))
}

fn unrealized(c: &Ctx<'_>, m: usize, p: &Position) -> Decimal {
    (c.st.spot.mid(m) - p.entry) * p.amount
}

fn total_unrealized(c: &Ctx<'_>) -> Decimal {
    c.st.spot
        .positions
        .iter()
        .filter(|((u, _), p)| *u == c.user && !p.amount.is_zero())
        .map(|((_, m), p)| unrealized(c, *m, p))
        .sum()
}

/// `GET /margin/assets`.
pub fn margin_assets(c: &mut Ctx<'_>) -> R {
    let (mut total, mut free) = (Decimal::ZERO, Decimal::ZERO);
    if let Some(acct) = c.st.accounts.get(&c.user) {
        for ((t, cur), b) in &acct.balances {
            if *t == AccountType::Margin {
                let rate = c.st.spot.usdt_rate(cur);
                total += b.total() * rate;
                free += b.free * rate;
            }
        }
    }
    Ok(ok0()
        .with("total", round_dp(total, 8))
        .with("free", round_dp(free, 8))
        .with("unrealized_pnl", round_dp(total_unrealized(c), 8))
        .with("list", asset_list(c, AccountType::Margin, true)))
}

/// `GET /{market}/financelog`.
pub fn finance_log(c: &mut Ctx<'_>) -> R {
    let at = match c.kind {
        Kind::Spot => AccountType::Spot,
        Kind::Margin => AccountType::Margin,
    };
    let cur = c.p.get("currency_mark").map(str::to_ascii_uppercase);
    let start = super::market::seconds(c.p.int("start_time")?)?;
    let end = super::market::seconds(c.p.int("end_time")?)?;
    if let (Some(s), Some(e)) = (start, end) {
        if e < s {
            return Err(err(20022));
        }
    }
    let limit = c.p.limit("limit", 100, 1000)?;
    let entries: Vec<_> =
        c.st.accounts
            .get(&c.user)
            .map(|a| a.finance.as_slice())
            .unwrap_or(&[])
            .iter()
            .rev()
            .filter(|e| {
                let t = e.time_ms.div_euclid(1000);
                e.account_type == at
                    && cur.as_ref().is_none_or(|x| &e.currency == x)
                    && start.is_none_or(|s| t >= s)
                    && end.is_none_or(|x| t <= x)
            })
            .collect();
    let total = entries.len();
    let finance: Vec<J> = entries
        .into_iter()
        .take(limit)
        .map(|e| {
            J::obj()
                .with("currency_mark", e.currency.as_str())
                .with("type", e.kind)
                .with("num", e.num)
                .with("balance", e.balance)
                .with("time", e.time_ms.div_euclid(1000))
        })
        .collect();
    Ok(ok0().with(
        "data",
        J::obj()
            .with("total", total.to_string())
            .with("finance", finance),
    ))
}

fn account_code(v: i64) -> Option<AccountType> {
    match v {
        1 => Some(AccountType::Spot),
        2 => Some(AccountType::Margin),
        3 => Some(AccountType::Otc),
        _ => None,
    }
}

/// `POST /transfer`.
pub fn transfer(c: &mut Ctx<'_>) -> R {
    let cur_text = c.p.req("currency_mark")?.to_owned();
    let num_text = c.p.req("num")?.to_owned();
    let from =
        c.p.int("from")?
            .ok_or_else(|| err_msg(10004, "missing parameter from"))?;
    let to =
        c.p.int("to")?
            .ok_or_else(|| err_msg(10004, "missing parameter to"))?;
    let (Some(from), Some(to)) = (account_code(from), account_code(to)) else {
        return Err(err(20023));
    };
    let margin_otc = matches!(
        (from, to),
        (AccountType::Margin, AccountType::Otc) | (AccountType::Otc, AccountType::Margin)
    );
    if from == to || margin_otc {
        return Err(err(20023));
    }
    let num = parse_dec(&num_text)
        .filter(|n| *n > Decimal::ZERO)
        .ok_or_else(|| err(20024))?;
    let cur = known_currency(c.config, &cur_text).ok_or_else(|| err(20021))?;
    let now = c.now_ms;
    let acct = c.st.account(c.user);
    acct.debit(from, &cur, num, finance_type::TRANSFER_OUT, now)
        .map_err(|_| err(20026))?;
    acct.credit(to, &cur, num, finance_type::TRANSFER_IN, now);
    Ok(ok0())
}

/// `GET /margin/positions`.
pub fn margin_positions(c: &mut Ctx<'_>) -> R {
    let only = match c.p.get("symbol") {
        Some(s) => Some(lookup(c, s)?),
        None => None,
    };
    let mut margin = Decimal::ZERO;
    let mut list = Vec::new();
    for ((u, m), p) in &c.st.spot.positions {
        if *u != c.user || p.amount.is_zero() || only.is_some_and(|o| o != *m) {
            continue;
        }
        let Some(spec) = c.st.spot.markets.get(*m) else {
            continue;
        };
        margin += p.margin;
        let lev = spec.leverage.max(Decimal::ONE);
        let long = p.amount > Decimal::ZERO;
        let liq = if long {
            p.entry * (Decimal::ONE - Decimal::ONE / lev)
        } else {
            p.entry * (Decimal::ONE + Decimal::ONE / lev)
        };
        list.push(
            J::obj()
                .with("symbol", super::pair_upper(&spec.symbol()))
                .with("leverage_ratio", spec.leverage)
                .with("side", if long { "long" } else { "short" })
                .with("amount", p.amount.abs())
                .with("entry_price", round_dp(p.entry, 12))
                .with("unrealized_pnl", round_dp(unrealized(c, *m, p), 8))
                .with("liquidation_price", round_dp(liq, spec.price_precision))
                .with("liquidation_rate", spec.liquidation_rate),
        );
    }
    let equity: Decimal =
        c.st.accounts
            .get(&c.user)
            .map(|a| {
                a.balances
                    .iter()
                    .filter(|((t, _), _)| *t == AccountType::Margin)
                    .map(|((_, cur), b)| b.total() * c.st.spot.usdt_rate(cur))
                    .sum::<Decimal>()
            })
            .unwrap_or_default()
            + total_unrealized(c);
    let rate = if margin.is_zero() {
        Decimal::ZERO
    } else {
        round_dp(equity / margin, 4)
    };
    Ok(ok0()
        .with("margin", J::dec_str(round_dp(margin, 8)))
        .with("margin_rate", J::dec_str(rate))
        .with(
            "unrealized_pnl",
            J::dec_str(round_dp(total_unrealized(c), 8)),
        )
        .with("positions", list))
}

/// `POST /margin/position/close`.
pub fn position_close(c: &mut Ctx<'_>) -> R {
    let m = lookup(c, c.p.req("symbol")?)?;
    if !close_position(c.st, c.user, m, c.now_ms) {
        return Err(err(20030));
    }
    Ok(ok0())
}
