//! Swap trading: placing and cancelling orders (single and batch) and order/fill queries.
//!
//! Validation order for a new order: instrument (400002 when unknown), `type` 1-4, `order_type`
//! from the code table, `size` (a whole positive number of contracts, 400002 otherwise),
//! `post_only` (a boolean; only with `order_type` 0, 400002 otherwise), trading switch (401004),
//! status (401005 unless ONLINE), market-style types on an instrument that denies them (401008),
//! minimum size (401006), price (priced types: required, 401007 for precision or tick, 401010
//! above `max_buy_price` for buys, 401011 below `min_sell_price` for sells; market-style types
//! ignore a price and need an opposite side, 401009), closing more than the closable position
//! (401012), a priced close order beyond the position's liquidation price (401013: a close-long
//! sell below it, a close-short buy above it), the open-value cap of `open_max_limits` for the position's leverage (401002), and
//! the balance for margin plus taker fee (401003).
//!
//! DESIGN:
//! - Market-style types are priced at the best opposite level (opponent) or the 5th/10th/20th
//!   best level (optimal N; the worst level when fewer exist); that price is the order's
//!   `price`, its IOC/GTC/FOK rule applies from there: GTC rests the remainder at that price.
//! - A post-only order that would take is created and cancelled at once (state -1), like spot.
//! - FOK that cannot fill completely is cancelled without fills (state -1).
//! - Batch: 1..=20 elements (401014 beyond, 400002 for an empty array); every element is
//!   validated (with the balance, close sizes and open caps of the whole batch) before any is
//!   placed, so one bad element places none.
//! - `cancel_order` of an unknown order (or one of another account or instrument) and of a
//!   finished order answers 400002. `batch_cancel_order` validates every element (400001 for a
//!   missing field) and cancels the open orders among them; the answer lists the ids cancelled.
//! - `order_info` of an unknown order answers 400002.
//! - `open_orders` lists state 0/1 orders, `history_orders` state -1/2 orders, newest first by
//!   creation time; `start_timestamp`/`end_timestamp` filter the creation time (fills: the trade
//!   time).

use super::{err, err_msg, in_window, s, Ctx, Params, SwapErr, R};
use crate::engine::state::State;
use crate::engine::swap::engine::{self, order_kind, state, PosSide, Prepared, SwapOrder, Tif};
use crate::json::J;
use crate::num::places;
use rust_decimal::Decimal;
use serde_json::Value;
use std::collections::HashMap;

/// Amounts reserved by earlier elements of a batch.
#[derive(Debug, Default)]
pub struct Reserved {
    money: Decimal,
    open_value: HashMap<(usize, PosSide), Decimal>,
    close: HashMap<(usize, PosSide), Decimal>,
}

/// The open-value cap at `lev`: the smallest `max_limit` among entries below it.
pub fn open_cap(limits: &[(Decimal, Decimal)], lev: Decimal) -> Option<Decimal> {
    limits
        .iter()
        .filter(|(l, _)| lev > *l)
        .map(|(_, v)| *v)
        .min()
}

/// A new order's parameters in trade numbering.
#[derive(Debug, Clone)]
pub struct NewOrder {
    /// Instrument index.
    pub inst: usize,
    /// 1-4.
    pub kind: i64,
    /// Trade `order_type` code.
    pub order_type: i64,
    /// Contracts.
    pub size: Decimal,
    /// Price when given.
    pub price: Option<Decimal>,
    /// Post-only.
    pub post_only: bool,
}

fn parse(c: &Ctx<'_>, p: &Params) -> Result<NewOrder, SwapErr> {
    let id = p.req("instrument_id")?;
    let inst = c.lookup(&id)?;
    let kind = p.req_int("type")?;
    if !(1..=4).contains(&kind) {
        return Err(err_msg(400002, "type must be 1-4"));
    }
    let order_type = p.req_int("order_type")?;
    let size = p.req_dec("size")?;
    if size <= Decimal::ZERO || !size.fract().is_zero() || size > Decimal::from(1_000_000_000i64) {
        return Err(err_msg(
            400002,
            "size must be a whole positive number of contracts",
        ));
    }
    let price = p.dec("price")?;
    let post_only = p.bool("post_only")?.unwrap_or(false);
    Ok(NewOrder {
        inst,
        kind,
        order_type,
        size,
        price,
        post_only,
    })
}

/// Validates a new order for `c.user` given what earlier batch elements reserved.
pub fn validate(c: &Ctx<'_>, n: &NewOrder, reserved: &mut Reserved) -> Result<Prepared, SwapErr> {
    let sw = &c.st.swap;
    let Some(m) = sw.instruments.get(n.inst) else {
        return Err(err_msg(400002, "unknown instrument_id"));
    };
    let Some(ok) = order_kind(n.order_type) else {
        return Err(err_msg(400002, "order_type is not in the code table"));
    };
    if n.post_only && n.order_type != 0 {
        return Err(err_msg(400002, "post_only needs order_type 0"));
    }
    if !m.is_trading {
        return Err(err(401004));
    }
    if m.status != crate::config::SwapStatus::Online {
        return Err(err(401005));
    }
    if ok.levels.is_some() && !m.market_orders {
        return Err(err(401008));
    }
    if n.size < m.min_order_amount {
        return Err(err(401006));
    }
    let probe = SwapOrder {
        kind: n.kind,
        ..blank()
    };
    let side = probe.side();
    let pos_side = probe.pos_side();
    let price = match ok.levels {
        None => {
            let price = n
                .price
                .ok_or_else(|| err_msg(400001, "missing parameter price"))?;
            if price <= Decimal::ZERO || price > Decimal::from(1_000_000_000_000i64) {
                return Err(err_msg(400002, "price must be positive"));
            }
            if places(price) > m.price_precision
                || m.tick_size.is_zero()
                || !(price / m.tick_size).fract().is_zero()
            {
                return Err(err(401007));
            }
            match side {
                engine::Side::Buy if price > sw.max_buy(n.inst) => return Err(err(401010)),
                engine::Side::Sell if price < sw.min_sell(n.inst) => return Err(err(401011)),
                _ => {}
            }
            price
        }
        Some(levels) => sw
            .reach_price(n.inst, side, levels)
            .ok_or_else(|| err(401009))?,
    };
    let setting = sw.setting(c.user, n.inst);
    let lev = setting.leverage(pos_side);
    let key = (n.inst, pos_side);
    let (margin, fee) = if n.kind == 3 || n.kind == 4 {
        let held = sw
            .positions
            .get(&(c.user, n.inst, pos_side))
            .map_or(Decimal::ZERO, |p| p.size);
        let pending = sw.pending_close(c.user, n.inst, pos_side);
        let earlier = reserved.close.get(&key).copied().unwrap_or_default();
        if n.size > held - pending - earlier {
            return Err(err(401012));
        }
        if ok.levels.is_none() {
            if let Some(p) = sw.positions.get(&(c.user, n.inst, pos_side)) {
                let liq = engine::liquidation_price(c.st, c.user, n.inst, pos_side, p);
                let beyond = match pos_side {
                    PosSide::Long => price < liq,
                    PosSide::Short => price > liq,
                };
                if liq > Decimal::ZERO && beyond {
                    return Err(err(401013));
                }
            }
        }
        *reserved.close.entry(key).or_default() += n.size;
        (Decimal::ZERO, Decimal::ZERO)
    } else {
        let value = n.size * m.contract_value * price;
        if let Some(cap) = open_cap(&m.open_max_limits, lev) {
            let earlier = reserved.open_value.get(&key).copied().unwrap_or_default();
            if sw.open_value(c.user, n.inst, pos_side) + earlier + value > cap {
                return Err(err(401002));
            }
        }
        let margin = value / lev.max(Decimal::ONE);
        let fee = value * sw.taker_fee;
        let avail = super::account::summary(c.st, c.user, &m.quote).avail();
        if reserved.money + margin + fee > avail {
            return Err(err(401003));
        }
        reserved.money += margin + fee;
        *reserved.open_value.entry(key).or_default() += value;
        (margin, fee)
    };
    Ok(Prepared {
        inst: n.inst,
        kind: n.kind,
        order_type: n.order_type,
        price,
        size: n.size,
        post_only: n.post_only,
        tif: ok.tif,
        margin_mode: setting.margin_mode,
        leverage: lev,
        margin,
        fee,
    })
}

fn blank() -> SwapOrder {
    SwapOrder {
        id: String::new(),
        seq: 0,
        account: 0,
        inst: 0,
        margin_mode: engine::MarginMode::Crossed,
        kind: 1,
        order_type: 0,
        price: Decimal::ZERO,
        size: Decimal::ZERO,
        filled: Decimal::ZERO,
        turnover: Decimal::ZERO,
        fee: Decimal::ZERO,
        state: state::OPEN,
        leverage: Decimal::ONE,
        close_profit: Decimal::ZERO,
        has_stop: false,
        insert_ms: 0,
        update_ms: 0,
        post_only: false,
        tif: Tif::Gtc,
        frozen_margin: Decimal::ZERO,
        frozen_fee: Decimal::ZERO,
        copy: false,
    }
}

/// `POST trade/order_place`.
pub fn order_place(c: &mut Ctx<'_>) -> R {
    let n = parse(c, &c.p)?;
    let prepared = validate(c, &n, &mut Reserved::default())?;
    let id = engine::place(c.st, c.user, &prepared, false, c.now_ms);
    Ok(J::Str(id))
}

fn batch_elements(c: &Ctx<'_>) -> Result<Vec<Params>, SwapErr> {
    let Value::Array(items) = &c.body else {
        return Err(err_msg(400002, "body must be a JSON array"));
    };
    if items.is_empty() {
        return Err(err_msg(400002, "body must not be empty"));
    }
    if items.len() > 20 {
        return Err(err(401014));
    }
    items
        .iter()
        .map(|v| {
            if v.is_object() {
                Ok(Params::from_json(v))
            } else {
                Err(err_msg(400002, "each element must be an object"))
            }
        })
        .collect()
}

/// `POST trade/batch_order`.
pub fn batch_order(c: &mut Ctx<'_>) -> R {
    let items = batch_elements(c)?;
    let mut reserved = Reserved::default();
    let mut prepared = Vec::new();
    for p in &items {
        let n = parse(c, p)?;
        prepared.push(validate(c, &n, &mut reserved)?);
    }
    let ids: Vec<J> = prepared
        .iter()
        .map(|p| J::Str(engine::place(c.st, c.user, p, false, c.now_ms)))
        .collect();
    Ok(J::Arr(ids))
}

fn own_order<'a>(c: &'a Ctx<'_>, id: &str, inst: Option<usize>) -> Option<&'a SwapOrder> {
    c.st.swap
        .orders
        .get(id)
        .filter(|o| o.account == c.user && inst.is_none_or(|i| i == o.inst))
}

/// `POST trade/cancel_order`.
pub fn cancel_order(c: &mut Ctx<'_>) -> R {
    let inst = c.instrument()?;
    let id = c.p.req("order_id")?;
    let Some(o) = own_order(c, &id, Some(inst)) else {
        return Err(err_msg(400002, "order not found"));
    };
    if !o.is_active() {
        return Err(err_msg(400002, "order already finished"));
    }
    engine::finish(c.st, &id, c.now_ms);
    Ok(J::Str(id))
}

/// `POST trade/batch_cancel_order`.
pub fn batch_cancel_order(c: &mut Ctx<'_>) -> R {
    let items = batch_elements(c)?;
    let mut targets = Vec::new();
    for p in &items {
        let inst = c.lookup(&p.req("instrument_id")?)?;
        let id = p.req("order_id")?;
        targets.push((inst, id));
    }
    let mut done = Vec::new();
    for (inst, id) in targets {
        if own_order(c, &id, Some(inst)).is_some_and(SwapOrder::is_active) {
            engine::finish(c.st, &id, c.now_ms);
            done.push(J::Str(id));
        }
    }
    Ok(J::Arr(done))
}

/// JSON of an order.
pub fn order_json(st: &State, o: &SwapOrder) -> J {
    let Some(m) = st.swap.instruments.get(o.inst) else {
        return J::Null;
    };
    J::obj()
        .with("order_id", o.id.as_str())
        .with("instrument_id", m.instrument_id.as_str())
        .with("margin_mode", o.margin_mode.text())
        .with("contract_val", s(m.contract_value))
        .with("type", o.kind)
        .with("order_type", o.order_type)
        .with("price", s(o.price))
        .with("size", s(o.size))
        .with("filled_qty", s(o.filled))
        .with(
            "price_avg",
            s(crate::num::round_dp(
                o.avg_price(m.contract_value),
                m.price_precision + 2,
            )),
        )
        .with("fee", s(crate::num::round_dp(o.fee, 8)))
        .with("state", o.state)
        .with("leverage", s(o.leverage))
        .with("turnover", s(crate::num::round_dp(o.turnover, 8)))
        .with("close_profit", s(crate::num::round_dp(o.close_profit, 8)))
        .with("has_stop", i64::from(o.has_stop))
        .with("insert_time", o.insert_ms)
        .with("time_stamp", o.update_ms)
}

fn list_orders(c: &Ctx<'_>, open: bool) -> R {
    let only = match c.p.text("instrument_id")? {
        Some(id) => Some(c.lookup(&id)?),
        None => None,
    };
    let kind = c.p.int("type")?;
    let otype = c.p.int("order_type")?;
    let status = c.p.int("order_status")?;
    let allowed: &[i64] = if open { &[0, 1] } else { &[-1, 2] };
    if let Some(s) = status {
        if !allowed.contains(&s) {
            return Err(err_msg(
                400002,
                if open {
                    "order_status must be 0 or 1"
                } else {
                    "order_status must be -1 or 2"
                },
            ));
        }
    }
    let w = c.p.window()?;
    let limit = c.p.limit()?;
    let sw = &c.st.swap;
    let list: Vec<J> = sw
        .order_ids(c.user)
        .rev()
        .filter_map(|id| sw.orders.get(id))
        .filter(|o| {
            o.is_active() == open
                && only.is_none_or(|i| i == o.inst)
                && kind.is_none_or(|k| k == o.kind)
                && otype.is_none_or(|t| t == o.order_type)
                && status.is_none_or(|s| s == o.state)
                && in_window(o.insert_ms, w)
        })
        .take(limit)
        .map(|o| order_json(c.st, o))
        .collect();
    Ok(J::Arr(list))
}

/// `GET trade/open_orders`.
pub fn open_orders(c: &mut Ctx<'_>) -> R {
    list_orders(c, true)
}

/// `GET trade/history_orders`.
pub fn history_orders(c: &mut Ctx<'_>) -> R {
    list_orders(c, false)
}

/// `GET trade/order_info`.
pub fn order_info(c: &mut Ctx<'_>) -> R {
    let id = c.p.req("order_id")?;
    let inst = match c.p.text("instrument_id")? {
        Some(x) => Some(c.lookup(&x)?),
        None => None,
    };
    match own_order(c, &id, inst) {
        Some(o) => Ok(order_json(c.st, o)),
        None => Err(err_msg(400002, "order not found")),
    }
}

/// `GET trade/history_trades`.
pub fn history_trades(c: &mut Ctx<'_>) -> R {
    let only = match c.p.text("instrument_id")? {
        Some(id) => Some(c.lookup(&id)?),
        None => None,
    };
    let kind = c.p.int("type")?;
    let otype = c.p.int("order_type")?;
    let oid = c.p.text("order_id")?;
    let w = c.p.window()?;
    let limit = c.p.limit()?;
    let sw = &c.st.swap;
    let list: Vec<J> = sw
        .fills
        .get(&c.user)
        .into_iter()
        .flat_map(|list| list.iter().rev())
        .filter(|f| {
            only.is_none_or(|i| i == f.inst)
                && kind.is_none_or(|k| k == f.kind)
                && otype.is_none_or(|t| t == f.order_type)
                && oid.as_ref().is_none_or(|x| *x == f.order_id)
                && in_window(f.time_ms, w)
        })
        .take(limit)
        .filter_map(|f| {
            let m = sw.instruments.get(f.inst)?;
            Some(
                J::obj()
                    .with("trade_id", f.trade_id.to_string())
                    .with("instrument_id", m.instrument_id.as_str())
                    .with("margin_mode", f.margin_mode.text())
                    .with("order_id", f.order_id.as_str())
                    .with("price", s(f.price))
                    .with("size", s(f.size))
                    .with("fee", s(crate::num::round_dp(f.fee, 8)))
                    .with("close_profit", s(crate::num::round_dp(f.close_profit, 8)))
                    .with("leverage", s(f.leverage))
                    .with("type", f.kind)
                    .with("order_type", f.order_type)
                    .with("trade_type", f.trade_type)
                    .with("match_role", f.match_role)
                    .with("trade_time", f.time_ms),
            )
        })
        .collect();
    Ok(J::Arr(list))
}
