//! Copy trading (`/swap/v2/follow/...`, all POST): the caller is an expert whose sponsored
//! orders are ordinary swap orders of its account, each tracked as one copy position.
//!
//! DESIGN (the spec leaves these open):
//! - `sponsor_order` maps the copy `order_type` numbering to the trade codes (0 limit, 1-3
//!   opponent/optimal 5/10 IOC, 4 IOC at `limit_price`, 5 GTC at `limit_price` (= limit),
//!   6-8 GTC, 9 FOK at `limit_price`, 10-12 FOK) and then applies every trade rule (401xxx).
//!   Before that: the instrument must be offered for copy trading, online and trading (404003);
//!   a priced order more than 10% from the mark price answers 404007; take-profit and stop-loss
//!   are checked against the order price (the mark price for market-style types): long TP above
//!   (404008), short TP below (404009), long SL below (404010), short SL above (404011). A
//!   margin mode or leverage different from the instrument's current settings is applied when
//!   the instrument has neither positions (404004) nor unfinished orders (404006).
//!   `data` is `{"res":1,"order_id":"..."}` (`order_id` is an addition, so that callers can
//!   close, cancel and attach TP/SL to what they sponsored).
//! - A copy position is the filled part of a sponsored order. `close_order` cancels the unfilled
//!   rest and closes the filled part at market (IOC across 20 levels); unknown ids (or another
//!   account's) answer 404013, a closed position 404012. `cancel_order` (parameter `order_id`,
//!   or the spec's literal `order_i`) cancels an unfinished sponsored order: 404013 when
//!   unknown, 404012 when already finished.
//! - TP/SL orders are plan commissions (plan_task) that trigger on the index (1), mark (2,
//!   default) or last (3) price, checked before every swap request and after control-API price
//!   changes. A triggered take-profit closes the position with status 1 (auto close), a
//!   stop-loss with status 5; the plan turns 2 (validated), the other plan 3 (canceled).
//!   Manual closes have status 2. Plan `order_price` is "1" (optimal 10, as the spec notes).
//!   A liquidation (see [`engine`]) ends the copy positions on the position with status 3
//!   (forced close) at the liquidation price, each with its volume's share of the loss; status
//!   4 (stop-out) never occurs.
//! - `add_algo` needs `order_id` (400001) and at least one trigger price (400001); TP/SL are
//!   checked against the position's open price with the same codes as `sponsor_order`; an
//!   existing take-profit answers 404014, an existing stop-loss 404015. `cancel_algo` answers
//!   `result` 2 when none of the requested orders existed.
//! - Listings take `page` (from 1, default 1) and `size` (1..=1000, default 10; 400002
//!   outside); `plan_task` needs both, `page` at most 50 (400002 beyond). `page` is
//!   `{page_size, cur_page, total_page, count}`. `user_center_current` type 2 (summary) merges
//!   positions of the same instrument, direction, margin mode and leverage (volume-weighted
//!   open price, summed amounts, the newest order id). `expert_name` is `sim-expert-{account}`;
//!   `total_order` (orders copied by followers) is 0: the simulator has no followers.
//! - A sponsored order that ends with nothing filled (cancelled through either API, or an IOC
//!   or FOK order that found nothing) ends its copy position with it: status 2, no volume, its
//!   plans cancelled; `close_order`, `cancel_order` and `add_algo` then answer 404012.
//! - Times are milliseconds.
//!
//! Retention ([`crate::config::Retention`]): a sponsored order is kept while its copy position
//! is open (an open position is never forgotten) and counts among its account's finished orders
//! from the moment the position closes; when it falls out, its closed copy position goes with
//! it. Validated and cancelled plans count like finished orders
//! (`finished_orders_per_account` per account); pending plans are kept.

use super::{err, err_msg, s, Ctx, SwapErr, R};
use crate::engine::state::State;
use crate::engine::swap::copy::{close_position, run_triggers, set_plan_status};
use crate::engine::swap::engine::{self, state, MarginMode, PosSide};
use crate::engine::swap::store::{is_sponsor, CopyKey, CopyPos, Plan};
use crate::json::J;
use crate::num::round_dp;
use rust_decimal::Decimal;

fn copy_to_trade(code: i64) -> Option<i64> {
    match code {
        5 => Some(0),
        0..=4 | 6..=12 => Some(code),
        _ => None,
    }
}

fn trigger_type(c: &Ctx<'_>, k: &str) -> Result<i64, SwapErr> {
    match c.p.int(k)? {
        None => Ok(2),
        Some(t @ 1..=3) => Ok(t),
        Some(_) => Err(err_msg(400002, format!("{k} must be 1, 2 or 3"))),
    }
}

fn check_tp_sl(
    long: bool,
    reference: Decimal,
    tp: Option<Decimal>,
    sl: Option<Decimal>,
) -> Result<(), SwapErr> {
    for p in [tp, sl].into_iter().flatten() {
        if p <= Decimal::ZERO {
            return Err(err_msg(400002, "trigger prices must be positive"));
        }
    }
    if let Some(tp) = tp {
        if long && tp <= reference {
            return Err(err(404008));
        }
        if !long && tp >= reference {
            return Err(err(404009));
        }
    }
    if let Some(sl) = sl {
        if long && sl >= reference {
            return Err(err(404010));
        }
        if !long && sl <= reference {
            return Err(err(404011));
        }
    }
    Ok(())
}

/// Creates a pending plan on copy position `(account, order_seq)`; returns its number and id.
#[allow(clippy::too_many_arguments)]
fn new_plan(
    st: &mut State,
    (account, order_seq): CopyKey,
    order_id: &str,
    com_type: i64,
    trigger_type: i64,
    price: Decimal,
    now: i64,
) -> (u64, String) {
    st.swap.copy.next_plan += 1;
    let seq = st.swap.copy.next_plan;
    let id = (2_000_000_000_000u64 + seq)
        .saturating_mul(1_000_000)
        .saturating_add(st.swap.rng.below(1_000_000))
        .to_string();
    st.swap.copy.plans.entry(account).or_default().insert(
        seq,
        Plan {
            id: id.clone(),
            account,
            order_id: order_id.to_owned(),
            order_seq,
            com_type,
            trigger_type,
            price,
            status: 1,
            created_ms: now,
        },
    );
    (seq, id)
}

/// `POST follow/sponsor_order`.
pub fn sponsor_order(c: &mut Ctx<'_>) -> R {
    let id = c.p.req("instrument_id")?;
    let inst = c.st.swap.index(&id).ok_or_else(|| err(404003))?;
    let m = c.st.swap.instruments[inst].clone();
    if !m.copy_trading || !m.is_trading || m.status != crate::config::SwapStatus::Online {
        return Err(err(404003));
    }
    let mode = match c.p.req_int("margin_mode")? {
        1 => MarginMode::Crossed,
        2 => MarginMode::Isolated,
        _ => return Err(err_msg(400002, "margin_mode must be 1 or 2")),
    };
    let direction = c.p.req_int("type")?;
    if direction != 1 && direction != 2 {
        return Err(err_msg(
            400002,
            "type must be 1 (open long) or 2 (open short)",
        ));
    }
    let lev = c.p.req_dec("leverage")?;
    if lev < Decimal::ONE || lev > Decimal::from(m.max_leverage) || !lev.fract().is_zero() {
        return Err(err_msg(400002, "leverage out of range"));
    }
    let price_type = c.p.req_int("order_type")?;
    let trade_type =
        copy_to_trade(price_type).ok_or_else(|| err_msg(400002, "order_type must be 0-12"))?;
    let priced = engine::order_kind(trade_type).is_some_and(|k| k.levels.is_none());
    let price = c.p.dec("limit_price")?;
    if priced && price.is_none() {
        return Err(err_msg(400001, "missing parameter limit_price"));
    }
    let size = c.p.req_dec("order_num")?;
    let tp_type = trigger_type(c, "order_earn_trigger_price_type")?;
    let sl_type = trigger_type(c, "order_loss_trigger_price_type")?;
    let tp = c.p.dec("stop_earn_trigger_price")?;
    let sl = c.p.dec("stop_loss_trigger_price")?;
    let mark = c.st.swap.mark(inst);
    let reference = match (priced, price) {
        (true, Some(p)) => {
            if !mark.is_zero() && ((p - mark).abs() / mark) > Decimal::new(1, 1) {
                return Err(err(404007));
            }
            p
        }
        _ => mark,
    };
    check_tp_sl(direction == 1, reference, tp, sl)?;
    // Margin mode and leverage.
    let side = if direction == 1 {
        PosSide::Long
    } else {
        PosSide::Short
    };
    let mut setting = c.st.swap.setting(c.user, inst);
    let mut wanted = setting;
    wanted.margin_mode = mode;
    match mode {
        MarginMode::Crossed => wanted.cross_leverage = lev,
        MarginMode::Isolated => match side {
            PosSide::Long => wanted.long_leverage = lev,
            PosSide::Short => wanted.short_leverage = lev,
        },
    }
    if wanted != setting {
        let has_pos = [PosSide::Long, PosSide::Short]
            .iter()
            .any(|sd| c.st.swap.positions.contains_key(&(c.user, inst, *sd)));
        if has_pos {
            return Err(err(404004));
        }
        if c.st.swap.open_orders_on(c.user, inst) > 0 {
            return Err(err(404006));
        }
        setting = wanted;
    }
    let previous = c.st.swap.setting(c.user, inst);
    c.st.swap.settings.insert((c.user, inst), setting);
    let n = super::trade::NewOrder {
        inst,
        kind: direction,
        order_type: trade_type,
        size,
        price: if priced { price } else { None },
        post_only: false,
    };
    if size <= Decimal::ZERO || !size.fract().is_zero() || size > Decimal::from(1_000_000_000i64) {
        c.st.swap.settings.insert((c.user, inst), previous);
        return Err(err_msg(400002, "order_num must be a whole positive number"));
    }
    let prepared = match super::trade::validate(c, &n, &mut Default::default()) {
        Ok(p) => p,
        Err(e) => {
            c.st.swap.settings.insert((c.user, inst), previous);
            return Err(e);
        }
    };
    let now = c.now_ms;
    let user = c.user;
    let order_id = engine::place(c.st, user, &prepared, true, now);
    let seq = c.st.swap.order_seq;
    let key = (user, seq);
    let tp_id = tp.map(|p| new_plan(c.st, key, &order_id, 2, tp_type, p, now).0);
    let sl_id = sl.map(|p| new_plan(c.st, key, &order_id, 3, sl_type, p, now).0);
    if let Some(o) = c.st.swap.orders.get_mut(&order_id) {
        o.has_stop = tp_id.is_some() || sl_id.is_some();
    }
    c.st.swap.copy.positions.entry(user).or_default().insert(
        seq,
        CopyPos {
            order_id: order_id.clone(),
            account: user,
            inst,
            direction,
            margin_mode: mode,
            leverage: lev,
            price_type,
            tp: tp_id,
            sl: sl_id,
            closed: None,
        },
    );
    c.st.swap.copy.open.insert(key);
    // An order that already ended unfilled ends its copy position now.
    c.st.swap.archive(&order_id);
    run_triggers(c.st, now);
    Ok(J::obj().with("res", 1).with("order_id", order_id))
}

/// The caller's copy position of sponsored order `id` (404013 when unknown or forgotten).
fn find(c: &Ctx<'_>, id: &str) -> Result<CopyKey, SwapErr> {
    let sw = &c.st.swap;
    sw.orders
        .get(id)
        .filter(|o| o.account == c.user && is_sponsor(o))
        .map(|o| (o.account, o.seq))
        .filter(|key| sw.copy.get(*key).is_some())
        .ok_or_else(|| err(404013))
}

/// `POST follow/close_order`.
pub fn close_order(c: &mut Ctx<'_>) -> R {
    let id = c.p.req("open_order_id")?;
    let key = find(c, &id)?;
    close_position(c.st, key, 2, None, c.now_ms)?;
    Ok(J::obj().with("res", 1))
}

/// `POST follow/cancel_order`.
pub fn cancel_order(c: &mut Ctx<'_>) -> R {
    let id = match c.p.text("order_id")? {
        Some(x) => x,
        None => c.p.req("order_i")?,
    };
    let key = find(c, &id)?;
    let active =
        c.st.swap
            .orders
            .get(&id)
            .is_some_and(engine::SwapOrder::is_active);
    let closed = c.st.swap.copy.get(key).is_some_and(|p| p.closed.is_some());
    if !active || closed {
        return Err(err(404012));
    }
    // Nothing filled: the copy position ends with the order, and its plans with it (see
    // `SwapState::archive`); otherwise the filled part stays open.
    engine::finish(c.st, &id, c.now_ms);
    Ok(J::obj().with("res", 1))
}

/// `page` and `size` of a listing.
fn paging(c: &Ctx<'_>, required: bool, max_page: i64) -> Result<(usize, usize), SwapErr> {
    let (page, size) = if required {
        (c.p.req_int("page")?, c.p.req_int("size")?)
    } else {
        (
            c.p.int("page")?.unwrap_or(1),
            c.p.int("size")?.unwrap_or(10),
        )
    };
    if page < 1 || page > max_page {
        return Err(err_msg(
            400002,
            format!("page must be within 1..={max_page}"),
        ));
    }
    if !(1..=1000).contains(&size) {
        return Err(err_msg(400002, "size must be within 1..=1000"));
    }
    Ok((
        usize::try_from(page).unwrap_or(1),
        usize::try_from(size).unwrap_or(10),
    ))
}

fn page_of(list: Vec<J>, page: usize, size: usize) -> (J, J) {
    let count = list.len();
    let total_page = count.div_ceil(size);
    let items: Vec<J> = list
        .into_iter()
        .skip((page - 1).saturating_mul(size))
        .take(size)
        .collect();
    (
        J::Arr(items),
        J::obj()
            .with("page_size", size)
            .with("cur_page", page)
            .with("total_page", total_page)
            .with("count", count),
    )
}

fn instrument_filter(c: &Ctx<'_>) -> Result<Option<usize>, SwapErr> {
    match c.p.text("instrument_id")? {
        Some(id) => c.st.swap.index(&id).map(Some).ok_or_else(|| err(404003)),
        None => Ok(None),
    }
}

fn plan_fields(c: &Ctx<'_>, cp: &CopyPos, j: J) -> J {
    let plan = |seq: Option<u64>| seq.and_then(|seq| c.st.swap.copy.plan(cp.account, seq));
    let (tp, sl) = (plan(cp.tp), plan(cp.sl));
    j.with(
        "stop_earn_trigger_price_type",
        tp.map(|p| J::Int(p.trigger_type)),
    )
    .with(
        "stop_earn_trigger_price",
        tp.map_or(J::Str(String::new()), |p| s(p.price)),
    )
    .with(
        "stop_loss_trigger_price_type",
        sl.map(|p| J::Int(p.trigger_type)),
    )
    .with(
        "stop_loss_trigger_price",
        sl.map_or(J::Str(String::new()), |p| s(p.price)),
    )
}

struct Current {
    cp: CopyPos,
    volume: Decimal,
    open_price: Decimal,
    open_time: i64,
    open_fee: Decimal,
    upnl: Decimal,
    use_margin: Decimal,
}

fn current_rows(c: &Ctx<'_>, only: Option<usize>) -> Vec<Current> {
    let sw = &c.st.swap;
    sw.copy
        .of(c.user)
        .rev()
        .filter(|cp| cp.closed.is_none() && only.is_none_or(|i| i == cp.inst))
        .filter_map(|cp| {
            let o = sw.orders.get(&cp.order_id)?;
            let m = sw.instruments.get(cp.inst)?;
            if o.filled.is_zero() {
                return None;
            }
            let open_price = o.avg_price(m.contract_value);
            let sign = if cp.direction == 1 {
                Decimal::ONE
            } else {
                Decimal::NEGATIVE_ONE
            };
            let upnl = (sw.mark(cp.inst) - open_price) * o.filled * m.contract_value * sign;
            Some(Current {
                cp: cp.clone(),
                volume: o.filled,
                open_price,
                open_time: o.insert_ms,
                open_fee: o.fee,
                upnl,
                use_margin: o.filled * m.contract_value * open_price
                    / cp.leverage.max(Decimal::ONE),
            })
        })
        .collect()
}

fn current_json(c: &Ctx<'_>, r: &Current) -> J {
    let sw = &c.st.swap;
    let Some(m) = sw.instruments.get(r.cp.inst) else {
        return J::Null;
    };
    let value = r.volume * m.contract_value;
    let mmr = m.maint_margin_ratio;
    let side = if r.cp.direction == 1 {
        PosSide::Long
    } else {
        PosSide::Short
    };
    // The exchange liquidates the whole position, so a copy position's liquidation price is the
    // position's (for a crossed one, backed by the account's equity).
    let position = sw.positions.get(&(r.cp.account, r.cp.inst, side));
    let liq = if let Some(p) = position {
        engine::liquidation_price(c.st, r.cp.account, r.cp.inst, side, p)
    } else if value.is_zero() {
        Decimal::ZERO
    } else if r.cp.direction == 1 {
        (r.open_price * value - r.use_margin)
            .checked_div(value * (Decimal::ONE - mmr))
            .unwrap_or_default()
    } else {
        (r.open_price * value + r.use_margin)
            .checked_div(value * (Decimal::ONE + mmr))
            .unwrap_or_default()
    }
    .max(Decimal::ZERO);
    let rate = if r.use_margin.is_zero() {
        Decimal::ZERO
    } else {
        round_dp(r.upnl / r.use_margin, 4)
    };
    let maint = value * sw.mark(r.cp.inst) * mmr;
    let margin_ratio = if maint.is_zero() {
        Decimal::ZERO
    } else {
        round_dp((r.use_margin + r.upnl) / maint, 4)
    };
    let j = J::obj()
        .with("instrument_name", m.instrument_id.as_str())
        .with("leverage", s(r.cp.leverage))
        .with("direction", r.cp.direction)
        .with(
            "open_price",
            s(round_dp(r.open_price, m.price_precision + 2)),
        )
        .with("open_time", r.open_time)
        .with("open_fee", s(round_dp(r.open_fee, 8)))
        .with("expert_name", format!("sim-expert-{}", r.cp.account))
        .with("unrealized_profit", s(round_dp(r.upnl, 8)))
        .with("unrealized_profit_rate", s(rate))
        .with("order_id", r.cp.order_id.as_str())
        .with("volume_total_original", s(r.volume))
        .with("liquidate_price", s(round_dp(liq, m.price_precision)))
        .with("market_price", s(sw.mark(r.cp.inst)))
        .with("is_closing", false);
    plan_fields(c, &r.cp, j)
        .with("margin_mode", r.cp.margin_mode.code())
        .with("margin_ratio", s(margin_ratio))
        .with("posi_margin", s(round_dp(r.use_margin, 8)))
        .with("use_margin", s(round_dp(r.use_margin, 8)))
}

/// `POST follow/user_center_current`.
pub fn user_center_current(c: &mut Ctx<'_>) -> R {
    let (page, size) = paging(c, false, i64::MAX)?;
    let kind = c.p.req_int("type")?;
    if kind != 1 && kind != 2 {
        return Err(err_msg(400002, "type must be 1 (detailed) or 2 (summary)"));
    }
    let only = instrument_filter(c)?;
    let rows = current_rows(c, only);
    let rows = if kind == 1 {
        rows
    } else {
        let mut merged: Vec<Current> = Vec::new();
        for r in rows {
            if let Some(m) = merged.iter_mut().find(|m| {
                m.cp.inst == r.cp.inst
                    && m.cp.direction == r.cp.direction
                    && m.cp.margin_mode == r.cp.margin_mode
                    && m.cp.leverage == r.cp.leverage
            }) {
                let total = m.volume + r.volume;
                if !total.is_zero() {
                    m.open_price = (m.open_price * m.volume + r.open_price * r.volume) / total;
                }
                m.volume = total;
                m.open_fee += r.open_fee;
                m.upnl += r.upnl;
                m.use_margin += r.use_margin;
                m.open_time = m.open_time.min(r.open_time);
            } else {
                merged.push(r);
            }
        }
        merged
    };
    let list: Vec<J> = rows.iter().map(|r| current_json(c, r)).collect();
    let (list, page) = page_of(list, page, size);
    Ok(J::obj()
        .with("res", 1)
        .with("list", list)
        .with("page", page))
}

/// `POST follow/user_center_history`.
pub fn user_center_history(c: &mut Ctx<'_>) -> R {
    let (page, size) = paging(c, false, i64::MAX)?;
    let only = instrument_filter(c)?;
    let sw = &c.st.swap;
    let list: Vec<J> = sw
        .copy
        .of(c.user)
        .rev()
        .filter(|cp| only.is_none_or(|i| i == cp.inst))
        .filter_map(|cp| {
            let closed = cp.closed.as_ref().filter(|x| x.volume > Decimal::ZERO)?;
            let o = sw.orders.get(&cp.order_id)?;
            let m = sw.instruments.get(cp.inst)?;
            Some(
                J::obj()
                    .with("instrument_name", m.instrument_id.as_str())
                    .with("leverage", s(cp.leverage))
                    .with("direction", cp.direction)
                    .with(
                        "open_price",
                        s(round_dp(
                            o.avg_price(m.contract_value),
                            m.price_precision + 2,
                        )),
                    )
                    .with("open_time", o.insert_ms)
                    .with("open_fee", s(round_dp(o.fee, 8)))
                    .with("expert_name", format!("sim-expert-{}", cp.account))
                    .with("close_time", closed.time_ms)
                    .with(
                        "close_price",
                        s(round_dp(closed.price, m.price_precision + 2)),
                    )
                    .with("close_pnl", s(round_dp(closed.pnl, 8)))
                    .with("status", closed.reason)
                    .with("close_fee", s(round_dp(closed.fee, 8)))
                    .with("profit", s(round_dp(closed.pnl - closed.fee - o.fee, 8)))
                    .with("order_id", cp.order_id.as_str())
                    .with("close_volume_traded", s(closed.volume))
                    .with("margin_mode", cp.margin_mode.code()),
            )
        })
        .collect();
    let (list, page) = page_of(list, page, size);
    Ok(J::obj()
        .with("res", 1)
        .with("list", list)
        .with("page", page))
}

/// `POST follow/expert_current_open_order`.
pub fn expert_open_orders(c: &mut Ctx<'_>) -> R {
    let (page, size) = paging(c, false, i64::MAX)?;
    let only = instrument_filter(c)?;
    let sw = &c.st.swap;
    let list: Vec<J> = sw
        .copy
        .of(c.user)
        .rev()
        .filter(|cp| only.is_none_or(|i| i == cp.inst))
        .filter_map(|cp| {
            let o = sw.orders.get(&cp.order_id).filter(|o| o.is_active())?;
            let m = sw.instruments.get(cp.inst)?;
            let j = J::obj()
                .with("instrument_name", m.instrument_id.as_str())
                .with("leverage", s(cp.leverage))
                .with("direction", cp.direction)
                .with("order_price", s(o.price))
                .with("commission_amount", s(o.size))
                .with("profit_rate", "0")
                .with("total_order", 0)
                .with("status", if o.state == state::PARTIAL { 1 } else { 0 })
                .with("order_price_type", cp.price_type)
                .with("order_time", o.insert_ms)
                .with("order_id", cp.order_id.as_str());
            Some(plan_fields(c, cp, j).with("margin_mode", cp.margin_mode.code()))
        })
        .collect();
    let (list, page) = page_of(list, page, size);
    Ok(J::obj().with("list", list).with("page", page))
}

/// `POST follow/add_algo`.
pub fn add_algo(c: &mut Ctx<'_>) -> R {
    let id = c.p.req("order_id")?;
    let key = find(c, &id)?;
    let tp = c.p.dec("profit_trigger_price")?;
    let sl = c.p.dec("stop_trigger_price")?;
    let tp_type = trigger_type(c, "profit_trigger_type")?;
    let sl_type = trigger_type(c, "stop_trigger_type")?;
    if tp.is_none() && sl.is_none() {
        return Err(err_msg(
            400001,
            "give profit_trigger_price or stop_trigger_price",
        ));
    }
    let Some(cp) = c.st.swap.copy.get(key).cloned() else {
        return Err(err(404013));
    };
    if cp.closed.is_some() {
        return Err(err(404012));
    }
    if tp.is_some() && cp.tp.is_some() {
        return Err(err(404014));
    }
    if sl.is_some() && cp.sl.is_some() {
        return Err(err(404015));
    }
    let reference = match c.st.swap.orders.get(&id) {
        Some(o) if o.filled > Decimal::ZERO => {
            let cv =
                c.st.swap
                    .instruments
                    .get(cp.inst)
                    .map_or(Decimal::ONE, |m| m.contract_value);
            o.avg_price(cv)
        }
        Some(o) => o.price,
        None => c.st.swap.mark(cp.inst),
    };
    check_tp_sl(cp.direction == 1, reference, tp, sl)?;
    let now = c.now_ms;
    let mut algos = Vec::new();
    if let Some(p) = tp {
        let (seq, pid) = new_plan(c.st, key, &id, 2, tp_type, p, now);
        algos.push(J::Str(pid));
        if let Some(x) = c.st.swap.copy.get_mut(key) {
            x.tp = Some(seq);
        }
    }
    if let Some(p) = sl {
        let (seq, pid) = new_plan(c.st, key, &id, 3, sl_type, p, now);
        algos.push(J::Str(pid));
        if let Some(x) = c.st.swap.copy.get_mut(key) {
            x.sl = Some(seq);
        }
    }
    if let Some(o) = c.st.swap.orders.get_mut(&id) {
        o.has_stop = true;
    }
    run_triggers(c.st, now);
    Ok(J::obj().with("result", 1).with("algos", algos))
}

/// `POST follow/cancel_algo`.
pub fn cancel_algo(c: &mut Ctx<'_>) -> R {
    let id = c.p.req("order_id")?;
    let key = find(c, &id)?;
    let flag = |k: &str| -> Result<bool, SwapErr> {
        match c.p.int(k)? {
            None | Some(0) => Ok(false),
            Some(1) => Ok(true),
            Some(_) => Err(err_msg(400002, format!("{k} must be 0 or 1"))),
        }
    };
    let (cancel_tp, cancel_sl) = (flag("stop_profit")?, flag("stop_loss")?);
    let Some(cp) = c.st.swap.copy.get(key).cloned() else {
        return Err(err(404013));
    };
    let mut cancelled = false;
    if cancel_tp {
        if let Some(p) = cp.tp {
            set_plan_status(c.st, key.0, p, 3);
            cancelled = true;
        }
    }
    if cancel_sl {
        if let Some(p) = cp.sl {
            set_plan_status(c.st, key.0, p, 3);
            cancelled = true;
        }
    }
    if let Some(x) = c.st.swap.copy.get_mut(key) {
        if cancel_tp {
            x.tp = None;
        }
        if cancel_sl {
            x.sl = None;
        }
        let has = x.tp.is_some() || x.sl.is_some();
        if let Some(o) = c.st.swap.orders.get_mut(&id) {
            o.has_stop = has;
        }
    }
    Ok(J::obj().with("result", if cancelled { 1 } else { 2 }))
}

/// `POST follow/account_available`.
pub fn account_available(c: &mut Ctx<'_>) -> R {
    let avail = super::account::summary(c.st, c.user, "USDT").avail();
    Ok(J::obj().with("available", s(round_dp(avail, 8))))
}

/// `POST follow/plan_task`.
pub fn plan_task(c: &mut Ctx<'_>) -> R {
    let (page, size) = paging(c, true, 50)?;
    let sw = &c.st.swap;
    let list: Vec<J> = sw
        .copy
        .plans
        .get(&c.user)
        .into_iter()
        .flat_map(|log| log.iter().rev())
        .filter_map(|p| {
            let cp = sw.copy.get((p.account, p.order_seq))?;
            let m = sw.instruments.get(cp.inst)?;
            let volume = sw.orders.get(&cp.order_id).map_or(Decimal::ZERO, |o| {
                if o.filled.is_zero() {
                    o.size
                } else {
                    o.filled
                }
            });
            let long = cp.direction == 1;
            let up = (p.com_type == 2) == long;
            Some(
                J::obj()
                    .with("order_id", p.id.as_str())
                    .with("instrument_name", m.instrument_id.as_str())
                    .with("leverage", s(cp.leverage))
                    .with("direction", cp.direction + 2)
                    .with("order_time", p.created_ms)
                    .with("trigger_cond", if up { 1 } else { 2 })
                    .with("trigger_price", s(p.price))
                    .with("com_type", p.com_type)
                    .with("order_price", "1")
                    .with("com_num", s(volume))
                    .with("status", p.status)
                    .with("margin_mode", cp.margin_mode.code()),
            )
        })
        .collect();
    let (list, page) = page_of(list, page, size);
    Ok(J::obj().with("list", list).with("page", page))
}

/// `POST follow/instrument_list`.
pub fn instrument_list(c: &mut Ctx<'_>) -> R {
    let taker = c.st.swap.taker_fee;
    Ok(J::Arr(
        c.st.swap
            .instruments
            .iter()
            .filter(|m| m.copy_trading)
            .map(|m| {
                J::obj()
                    .with("instrument_id", m.instrument_id.as_str())
                    .with("instrument_name", m.instrument_id.as_str())
                    .with("volume_multiple", s(m.contract_value))
                    .with("price_precision", m.price_precision)
                    .with("clear_currency", m.quote.as_str())
                    .with("taker_fee", s(taker))
                    .with("long_margin_ratio", s(m.maint_margin_ratio))
                    .with("short_margin_ratio", s(m.maint_margin_ratio))
                    .with("min_order_amount", J::Dec(m.min_order_amount))
            })
            .collect(),
    ))
}
