//! Swap account endpoints: balance, transfers, positions, margin mode, position margin,
//! leverage, fee rates, bills, funding fees and transfer records.
//!
//! DESIGN:
//! - `balance` lists every currency the swap account has held (always USDT). `avail_balance` is
//!   the free balance lowered by crossed unrealized losses (never below 0); `equity` is the
//!   wallet balance plus all unrealized pnl; `margin_ratio` is crossed equity over crossed
//!   position margin ("0" without crossed positions); `isolate_margin` is the initial margin of
//!   isolated positions at their average cost, `isolate_balance` their `posi_balance`.
//! - `transfer`: the spot account is the framework's spot balance table. A type other than 1 or
//!   2 answers 400002, an amount that is not a positive number 400002, an unknown currency
//!   401018, more than the available balance 401003. Each side logs a bill/finance entry.
//! - `position_mode`: switching while the instrument has a position answers 401016, while it
//!   has unfinished orders 401001; switching to the current mode succeeds without change.
//! - `position_margin`: crossed mode 401015; no position on that side 401017; adding more than
//!   the available balance 401003; reducing below the initial margin at average cost 401003.
//!   The answer's `side` echoes the request's `long`/`short`.
//! - `leverage`: 1..=the instrument's maximum (400002 outside); unfinished orders on the
//!   instrument answer 401001; `side` is refused (400002) in crossed mode; without `side` an
//!   isolated change sets both sides. A given `margin_mode` that differs from the current one is
//!   refused with 400002 (switch with `position_mode`). Existing positions take the new leverage
//!   and their margin is re-locked at the new leverage (401003 when the balance cannot cover
//!   it). The answer's `side` is `both` unless one side was set.
//! - Bills: `change` is signed; control-API balance changes appear as finance_type 1 (credit)
//!   or 2 (debit). Fees are billed with the type of their trade (3-6).

use super::{err, err_msg, in_window, s, Ctx, SwapErr, R};
use crate::engine::accounts::{finance_type, AccountType};
use crate::engine::state::State;
use crate::engine::swap::engine::{bill, MarginMode, PosSide, SwapPosition};
use crate::json::J;
use crate::num::{places, round_dp};
use rust_decimal::Decimal;

/// Summary of an account's swap margin in one currency.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Wallet balance (free + frozen).
    pub wallet: Decimal,
    /// Free balance.
    pub free: Decimal,
    /// Crossed position margin.
    pub cross_margin: Decimal,
    /// Isolated initial margin at average cost.
    pub isolate_margin: Decimal,
    /// Isolated posi_balance.
    pub isolate_balance: Decimal,
    /// Frozen order margin.
    pub frozen_margin: Decimal,
    /// Frozen order fees.
    pub frozen_money: Decimal,
    /// Crossed unrealized pnl.
    pub cross_upnl: Decimal,
    /// Isolated unrealized pnl.
    pub isolate_upnl: Decimal,
}

impl Summary {
    /// Available balance.
    pub fn avail(&self) -> Decimal {
        (self.free + self.cross_upnl.min(Decimal::ZERO)).max(Decimal::ZERO)
    }
}

/// Margin summary of `user` in `currency`.
pub fn summary(st: &State, user: u64, currency: &str) -> Summary {
    let sw = &st.swap;
    let bal = st
        .accounts
        .get(&user)
        .map(|a| a.balance(AccountType::Swap, currency))
        .unwrap_or_default();
    let mut out = Summary {
        wallet: bal.total(),
        free: bal.free,
        ..Summary::default()
    };
    for ((u, i, side), p) in sw.positions.range((user, 0, PosSide::Long)..) {
        if *u != user {
            break;
        }
        let Some(m) = sw.instruments.get(*i) else {
            continue;
        };
        if m.quote != currency {
            continue;
        }
        let upnl = sw.upnl(*i, *side, p);
        match p.margin_mode {
            MarginMode::Crossed => {
                out.cross_margin += p.margin;
                out.cross_upnl += upnl;
            }
            MarginMode::Isolated => {
                let lev = p.leverage.max(Decimal::ONE);
                out.isolate_margin += p.size * m.contract_value * p.avg_cost / lev;
                out.isolate_balance += p.margin;
                out.isolate_upnl += upnl;
            }
        }
    }
    for o in sw.active_of(user) {
        if sw
            .instruments
            .get(o.inst)
            .is_some_and(|m| m.quote == currency)
        {
            out.frozen_margin += o.frozen_margin;
            out.frozen_money += o.frozen_fee;
        }
    }
    out
}

fn r8(d: Decimal) -> J {
    s(round_dp(d, 8))
}

/// `GET account/balance`.
pub fn balance(c: &mut Ctx<'_>) -> R {
    let currency = c.p.text("currency")?.map(|x| x.to_ascii_uppercase());
    if currency.is_none() && !super::market::real_type(c)? {
        return Ok(J::Arr(Vec::new()));
    }
    let mut currencies: Vec<String> = vec!["USDT".to_owned()];
    if let Some(a) = c.st.accounts.get(&c.user) {
        for (at, cur) in a.balances.keys() {
            if *at == AccountType::Swap && !currencies.contains(cur) {
                currencies.push(cur.clone());
            }
        }
    }
    if let Some(cur) = &currency {
        currencies.retain(|x| x == cur);
    }
    let list: Vec<J> = currencies
        .iter()
        .map(|cur| balance_row(c.st, c.user, cur, c.now_ms))
        .collect();
    Ok(J::Arr(list))
}

/// The `account/balance` row of `currency` for account `user` at `now_ms` (also the
/// websocket's `account.update` row).
pub fn balance_row(st: &State, user: u64, cur: &str, now_ms: i64) -> J {
    let realized = st.swap.realized.get(&user).copied().unwrap_or_default();
    let m = summary(st, user, cur);
    let cross_equity =
        m.wallet - m.isolate_balance - m.frozen_margin - m.frozen_money + m.cross_upnl;
    let ratio = if m.cross_margin.is_zero() {
        Decimal::ZERO
    } else {
        round_dp(cross_equity / m.cross_margin, 4)
    };
    J::obj()
        .with("currency", cur)
        .with("equity", r8(m.wallet + m.cross_upnl + m.isolate_upnl))
        .with("margin", r8(m.cross_margin + m.isolate_balance))
        .with("cross_margin", r8(m.cross_margin))
        .with("isolate_margin", r8(m.isolate_margin))
        .with("isolate_balance", r8(m.isolate_balance))
        .with("frozen_margin", r8(m.frozen_margin))
        .with("frozen_money", r8(m.frozen_money))
        .with("margin_ratio", s(ratio))
        .with(
            "realized_pnl",
            r8(if cur == "USDT" {
                realized
            } else {
                Decimal::ZERO
            }),
        )
        .with("avail_balance", r8(m.avail()))
        .with("unrealized_pnl", r8(m.cross_upnl + m.isolate_upnl))
        .with("isolate_unrealized_pnl", r8(m.isolate_upnl))
        .with("time_stamp", now_ms)
}

fn known_currency(c: &Ctx<'_>, cur: &str) -> bool {
    c.st.swap.instruments.iter().any(|m| m.quote == cur)
        || c.config.currencies.iter().any(|x| x.currency == cur)
        || c.config
            .markets
            .iter()
            .any(|m| m.base == cur || m.quote == cur)
}

/// `POST account/transfer`.
pub fn transfer(c: &mut Ctx<'_>) -> R {
    let kind = c.p.req_int("type")?;
    let cur = c.p.req("currency")?.to_ascii_uppercase();
    let amount = c.p.req_dec("transfer_amount")?;
    if kind != 1 && kind != 2 {
        return Err(err_msg(
            400002,
            "type must be 1 (spot to swap) or 2 (swap to spot)",
        ));
    }
    if amount <= Decimal::ZERO || places(amount) > 8 || amount > Decimal::from(1_000_000_000_000i64)
    {
        return Err(err_msg(400002, "transfer_amount must be a positive number"));
    }
    if !known_currency(c, &cur) {
        return Err(err_msg(401018, "currency not transferable"));
    }
    let now = c.now_ms;
    if kind == 2 {
        let avail = summary(c.st, c.user, &cur).avail();
        if amount > avail {
            return Err(err(401003));
        }
    }
    let acct = c.st.account(c.user);
    let (from, to, from_kind, to_kind) = if kind == 1 {
        (
            AccountType::Spot,
            AccountType::Swap,
            finance_type::TRANSFER_OUT,
            bill::TRANSFER_IN,
        )
    } else {
        (
            AccountType::Swap,
            AccountType::Spot,
            bill::TRANSFER_OUT,
            finance_type::TRANSFER_IN,
        )
    };
    if acct.debit(from, &cur, amount, from_kind, now).is_err() {
        return Err(err(401003));
    }
    acct.credit(to, &cur, amount, to_kind, now);
    let id = c.st.swap.next_transfer_id;
    c.st.swap.next_transfer_id += 1;
    c.st.swap
        .transfers
        .entry(c.user)
        .or_default()
        .push(crate::engine::swap::engine::TransferRec {
            id,
            kind,
            currency: cur.clone(),
            amount,
            time_ms: now,
        });
    Ok(J::obj()
        .with("type", kind)
        .with("currency", cur)
        .with("transfer_amount", s(amount)))
}

/// JSON of a position.
pub fn position_json(
    st: &State,
    user: u64,
    i: usize,
    side: PosSide,
    p: &SwapPosition,
    now_ms: i64,
) -> J {
    let sw = &st.swap;
    let Some(m) = sw.instruments.get(i) else {
        return J::Null;
    };
    let mark = sw.mark(i);
    let upnl = sw.upnl(i, side, p);
    let value = p.size * m.contract_value;
    let liq = crate::engine::swap::engine::liquidation_price(st, user, i, side, p);
    let rate = if p.margin.is_zero() {
        Decimal::ZERO
    } else {
        round_dp(upnl / p.margin, 4)
    };
    let maint = value * mark * m.maint_margin_ratio;
    let margin_ratio = if maint.is_zero() {
        Decimal::ZERO
    } else {
        round_dp((p.margin + upnl) / maint, 4)
    };
    let pending = sw.pending_close(user, i, side);
    let posi_balance = match p.margin_mode {
        MarginMode::Isolated => r8(p.margin),
        MarginMode::Crossed => s(Decimal::ZERO),
    };
    J::obj()
        .with("instrument_id", m.instrument_id.as_str())
        .with("margin_mode", p.margin_mode.text())
        .with("posi_balance", posi_balance)
        .with("avail_position", s((p.size - pending).max(Decimal::ZERO)))
        .with("avg_cost", r8(p.avg_cost))
        .with("last", s(sw.last_price(i)))
        .with("mark_price", s(mark))
        .with("leverage", s(p.leverage))
        .with("liquidation_price", s(liq))
        .with("maint_margin_ratio", s(m.maint_margin_ratio))
        .with("margin", r8(p.margin))
        .with("position", s(p.size))
        .with("realized_pnl", r8(p.realized_pnl))
        .with("unrealized_pnl", r8(upnl))
        .with("unrealized_pnl_rate", s(rate))
        .with("side", side.text())
        .with("open_outstanding", s(pending))
        .with("risk_score", "0")
        .with("margin_ratio", s(margin_ratio))
        .with("timestamp", now_ms)
}

/// `GET account/positions`.
pub fn positions(c: &mut Ctx<'_>) -> R {
    let only = match c.p.text("instrument_id")? {
        Some(id) => Some(c.lookup(&id)?),
        None => {
            if !super::market::real_type(c)? {
                return Ok(J::Arr(Vec::new()));
            }
            None
        }
    };
    let list: Vec<J> =
        c.st.swap
            .positions
            .iter()
            .filter(|((u, i, _), p)| {
                *u == c.user && only.is_none_or(|x| x == *i) && p.size > Decimal::ZERO
            })
            .map(|((_, i, side), p)| position_json(c.st, c.user, *i, *side, p, c.now_ms))
            .collect();
    Ok(J::Arr(list))
}

fn has_position(c: &Ctx<'_>, i: usize) -> bool {
    [PosSide::Long, PosSide::Short]
        .iter()
        .any(|s| c.st.swap.positions.contains_key(&(c.user, i, *s)))
}

fn parse_mode(v: &str) -> Result<MarginMode, SwapErr> {
    match v.to_ascii_lowercase().as_str() {
        "crossed" => Ok(MarginMode::Crossed),
        "isolated" => Ok(MarginMode::Isolated),
        _ => Err(err_msg(400002, "margin_mode must be crossed or isolated")),
    }
}

fn parse_side(v: &str) -> Result<PosSide, SwapErr> {
    match v.to_ascii_lowercase().as_str() {
        "long" => Ok(PosSide::Long),
        "short" => Ok(PosSide::Short),
        _ => Err(err_msg(400002, "side must be long or short")),
    }
}

/// `POST account/position_mode`.
pub fn position_mode(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    let mode = parse_mode(&c.p.req("margin_mode")?)?;
    let mut setting = c.st.swap.setting(c.user, i);
    if setting.margin_mode != mode {
        if has_position(c, i) {
            return Err(err(401016));
        }
        if c.st.swap.open_orders_on(c.user, i) > 0 {
            return Err(err_msg(401001, "unfinished orders exist"));
        }
        setting.margin_mode = mode;
        c.st.swap.settings.insert((c.user, i), setting);
    }
    Ok(J::obj()
        .with(
            "instrument_id",
            c.st.swap.instruments[i].instrument_id.as_str(),
        )
        .with("margin_mode", mode.text()))
}

/// `POST account/position_margin`.
pub fn position_margin(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    let side = parse_side(&c.p.req("side")?)?;
    let kind = c.p.req_int("type")?;
    let amount = c.p.req_dec("amount")?;
    if kind != 1 && kind != 2 {
        return Err(err_msg(400002, "type must be 1 (add) or 2 (reduce)"));
    }
    if amount <= Decimal::ZERO || amount > Decimal::from(1_000_000_000_000i64) {
        return Err(err_msg(400002, "amount must be a positive number"));
    }
    if c.st.swap.setting(c.user, i).margin_mode != MarginMode::Isolated {
        return Err(err(401015));
    }
    let Some(p) = c.st.swap.positions.get(&(c.user, i, side)).cloned() else {
        return Err(err(401017));
    };
    let m = c.st.swap.instruments[i].clone();
    let user = c.user;
    if kind == 1 {
        if amount > summary(c.st, user, &m.quote).avail() {
            return Err(err(401003));
        }
        if c.st
            .account(user)
            .freeze(AccountType::Swap, &m.quote, amount)
            .is_err()
        {
            return Err(err(401003));
        }
        if let Some(p) = c.st.swap.positions.get_mut(&(user, i, side)) {
            p.margin += amount;
        }
        c.st.swap.changed_positions.push((user, i));
    } else {
        let initial = p.size * m.contract_value * p.avg_cost / p.leverage.max(Decimal::ONE);
        if p.margin - amount < initial {
            return Err(err_msg(
                401003,
                "position margin cannot go below the initial margin",
            ));
        }
        c.st.account(user)
            .unfreeze(AccountType::Swap, &m.quote, amount);
        if let Some(p) = c.st.swap.positions.get_mut(&(user, i, side)) {
            p.margin -= amount;
        }
        c.st.swap.changed_positions.push((user, i));
    }
    Ok(J::obj()
        .with("instrument_id", m.instrument_id.as_str())
        .with("side", side.text())
        .with("type", kind)
        .with("amount", s(amount)))
}

/// `POST account/leverage`.
pub fn leverage(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    let lev = c.p.req_dec("leverage")?;
    let m = c.st.swap.instruments[i].clone();
    if lev < Decimal::ONE || lev > Decimal::from(m.max_leverage) || !lev.fract().is_zero() {
        return Err(err_msg(
            400002,
            format!(
                "leverage must be a whole number within 1..={}",
                m.max_leverage
            ),
        ));
    }
    let mut setting = c.st.swap.setting(c.user, i);
    if let Some(mode) = c.p.text("margin_mode")? {
        if parse_mode(&mode)? != setting.margin_mode {
            return Err(err_msg(
                400002,
                "margin_mode differs from the position mode; switch it with position_mode",
            ));
        }
    }
    let side = match c.p.text("side")? {
        Some(x) => Some(parse_side(&x)?),
        None => None,
    };
    if side.is_some() && setting.margin_mode == MarginMode::Crossed {
        return Err(err_msg(400002, "side applies to isolated mode only"));
    }
    if c.st.swap.open_orders_on(c.user, i) > 0 {
        return Err(err(401001));
    }
    let sides: Vec<PosSide> = match side {
        Some(x) => vec![x],
        None => vec![PosSide::Long, PosSide::Short],
    };
    // Re-lock position margin at the new leverage.
    let user = c.user;
    let mut delta = Decimal::ZERO;
    for sd in &sides {
        if let Some(p) = c.st.swap.positions.get(&(user, i, *sd)) {
            let initial_new = p.size * m.contract_value * p.avg_cost / lev;
            let initial_old = p.size * m.contract_value * p.avg_cost / p.leverage.max(Decimal::ONE);
            delta += initial_new - initial_old;
        }
    }
    if delta > Decimal::ZERO && delta > summary(c.st, user, &m.quote).avail() {
        return Err(err(401003));
    }
    for sd in &sides {
        let Some(p) = c.st.swap.positions.get(&(user, i, *sd)).cloned() else {
            continue;
        };
        let initial_new = p.size * m.contract_value * p.avg_cost / lev;
        let initial_old = p.size * m.contract_value * p.avg_cost / p.leverage.max(Decimal::ONE);
        let d = initial_new - initial_old;
        let acct = c.st.account(user);
        let applied = if d > Decimal::ZERO {
            if acct.freeze(AccountType::Swap, &m.quote, d).is_ok() {
                d
            } else {
                Decimal::ZERO
            }
        } else {
            let give = (-d).min(p.margin);
            acct.unfreeze(AccountType::Swap, &m.quote, give);
            -give
        };
        if let Some(p) = c.st.swap.positions.get_mut(&(user, i, *sd)) {
            p.margin += applied;
            p.leverage = lev;
            c.st.swap.changed_positions.push((user, i));
        }
    }
    match (setting.margin_mode, side) {
        (MarginMode::Crossed, _) => setting.cross_leverage = lev,
        (MarginMode::Isolated, Some(PosSide::Long)) => setting.long_leverage = lev,
        (MarginMode::Isolated, Some(PosSide::Short)) => setting.short_leverage = lev,
        (MarginMode::Isolated, None) => {
            setting.long_leverage = lev;
            setting.short_leverage = lev;
        }
    }
    c.st.swap.settings.insert((user, i), setting);
    Ok(J::obj()
        .with("instrument_id", m.instrument_id.as_str())
        .with("leverage", J::Dec(lev))
        .with("margin_mode", setting.margin_mode.text())
        .with("side", side.map_or("both", PosSide::text)))
}

/// `GET account/trading_fee_rate`.
pub fn trading_fee_rate(c: &mut Ctx<'_>) -> R {
    let i = c.instrument()?;
    Ok(J::obj()
        .with(
            "instrument_id",
            c.st.swap.instruments[i].instrument_id.as_str(),
        )
        .with("taker_fee_rate", s(c.st.swap.taker_fee))
        .with("maker_fee_rate", s(c.st.swap.maker_fee)))
}

/// `GET account/finance_record`.
pub fn finance_record(c: &mut Ctx<'_>) -> R {
    let cur = c.p.text("currency")?.map(|x| x.to_ascii_uppercase());
    let ft = c.p.int("finance_type")?;
    let w = c.p.window()?;
    let limit = c.p.limit()?;
    let entries =
        c.st.accounts
            .get(&c.user)
            .map(|a| a.finance.as_slice())
            .unwrap_or(&[]);
    let list: Vec<J> = entries
        .iter()
        .rev()
        .filter(|e| e.account_type == AccountType::Swap)
        .map(|e| {
            let kind = if e.kind == finance_type::CONTROL {
                if e.num >= Decimal::ZERO {
                    i64::from(bill::TRANSFER_IN)
                } else {
                    i64::from(bill::TRANSFER_OUT)
                }
            } else {
                i64::from(e.kind)
            };
            (e, kind)
        })
        .filter(|(e, kind)| {
            cur.as_ref().is_none_or(|x| &e.currency == x)
                && ft.is_none_or(|f| f == *kind)
                && in_window(e.time_ms, w)
        })
        .take(limit)
        .map(|(e, kind)| {
            J::obj()
                .with("currency", e.currency.as_str())
                .with("finance_type", kind)
                .with("change", r8(e.num))
                .with("timestamp", e.time_ms)
        })
        .collect();
    Ok(J::Arr(list))
}

/// `GET account/funding_fee`.
pub fn funding_fee(c: &mut Ctx<'_>) -> R {
    let only = match c.p.text("instrument_id")? {
        Some(id) => Some(c.lookup(&id)?),
        None => None,
    };
    let w = c.p.window()?;
    let limit = c.p.limit()?;
    let sw = &c.st.swap;
    let list: Vec<J> = sw
        .funding_fees
        .get(&c.user)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .rev()
        .filter(|f| only.is_none_or(|i| i == f.inst) && in_window(f.time_ms, w))
        .take(limit)
        .filter_map(|f| {
            let m = sw.instruments.get(f.inst)?;
            Some(
                J::obj()
                    .with("instrument_id", m.instrument_id.as_str())
                    .with("currency", m.quote.as_str())
                    .with("amount", r8(f.amount))
                    .with("timestamp", f.time_ms),
            )
        })
        .collect();
    Ok(J::Arr(list))
}

/// `GET account/transfer_record`.
pub fn transfer_record(c: &mut Ctx<'_>) -> R {
    let cur = c.p.text("currency")?.map(|x| x.to_ascii_uppercase());
    let w = c.p.window()?;
    let limit = c.p.limit()?;
    let list: Vec<J> =
        c.st.swap
            .transfers
            .get(&c.user)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .rev()
            .filter(|t| cur.as_ref().is_none_or(|x| &t.currency == x) && in_window(t.time_ms, w))
            .take(limit)
            .map(|t| {
                J::obj()
                    .with("transfer_id", t.id)
                    .with("type", t.kind)
                    .with("currency", t.currency.as_str())
                    .with("amount", s(t.amount))
                    .with("timestamp", t.time_ms)
            })
            .collect();
    Ok(J::Arr(list))
}
