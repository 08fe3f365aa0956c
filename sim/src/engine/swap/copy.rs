//! Copy positions over time: ending them, closing them at market, the liquidation's share,
//! and the TP/SL plans that fire ([`run_triggers`]). The `follow/...` endpoints that open and
//! list them are [`crate::dialect::swap::follow`]'s; the records are in [`super::store`].

use super::engine::{self, PosSide, Prepared, Tif};
use super::errors::{err, SwapErr};
use super::store::{Closed, CopyKey};
use crate::engine::accounts::AccountId;
use crate::engine::state::State;
use crate::num::round_dp;
use rust_decimal::Decimal;

fn keep_of(st: &State) -> usize {
    st.swap.retention.finished_orders_per_account
}

/// Ends copy position `key` (see [`crate::engine::swap::store::CopyState::end`]) and files its
/// sponsored order among the account's finished orders.
fn end_position(st: &mut State, key: CopyKey, closed: Closed, fired: Option<u64>) {
    let keep = keep_of(st);
    if let Some(order_id) = st.swap.copy.end(key, closed, fired, keep) {
        st.swap.archive(&order_id);
    }
}

/// Sets plan `seq`'s status (see [`crate::engine::swap::store::CopyState`]).
pub fn set_plan_status(st: &mut State, account: AccountId, seq: u64, status: i64) {
    let keep = keep_of(st);
    st.swap.copy.set_plan_status(account, seq, status, keep);
}

/// Closes copy position `key`: cancels the unfilled rest, closes the filled part at market;
/// `fired` is the plan that triggered the close, if any.
pub fn close_position(
    st: &mut State,
    key: CopyKey,
    reason: i64,
    fired: Option<u64>,
    now: i64,
) -> Result<(), SwapErr> {
    let Some(cp) = st.swap.copy.get(key).cloned() else {
        return Err(err(404013));
    };
    if cp.closed.is_some() {
        return Err(err(404012));
    }
    engine::finish(st, &cp.order_id, now);
    let filled = st
        .swap
        .orders
        .get(&cp.order_id)
        .map_or(Decimal::ZERO, |o| o.filled);
    let side = if cp.direction == 1 {
        PosSide::Long
    } else {
        PosSide::Short
    };
    let held = st
        .swap
        .positions
        .get(&(cp.account, cp.inst, side))
        .map_or(Decimal::ZERO, |p| p.size);
    let closable = (held - st.swap.pending_close(cp.account, cp.inst, side)).max(Decimal::ZERO);
    let size = filled.min(closable);
    let mut closed = Closed {
        time_ms: now,
        price: Decimal::ZERO,
        pnl: Decimal::ZERO,
        fee: Decimal::ZERO,
        reason,
        volume: Decimal::ZERO,
    };
    if size > Decimal::ZERO {
        let Some(reach) = st.swap.reach_price(
            cp.inst,
            if side == PosSide::Long {
                engine::Side::Sell
            } else {
                engine::Side::Buy
            },
            20,
        ) else {
            return Err(err(401009));
        };
        let prepared = Prepared {
            inst: cp.inst,
            kind: cp.direction + 2,
            order_type: 13,
            price: reach,
            size,
            post_only: false,
            tif: Tif::Ioc,
            margin_mode: cp.margin_mode,
            leverage: cp.leverage,
            margin: Decimal::ZERO,
            fee: Decimal::ZERO,
        };
        let id = engine::place(st, cp.account, &prepared, true, now);
        if let Some(o) = st.swap.orders.get(&id) {
            let cv = st
                .swap
                .instruments
                .get(cp.inst)
                .map_or(Decimal::ONE, |m| m.contract_value);
            closed.price = o.avg_price(cv);
            closed.pnl = o.close_profit;
            closed.fee = o.fee;
            closed.volume = o.filled;
        }
    } else if filled > Decimal::ZERO {
        return Err(err(404012));
    }
    end_position(st, key, closed, fired);
    Ok(())
}

/// Ends the open copy positions on a position the exchange force-closed (liquidated) at
/// `price`: status 3, each with its share (by filled volume) of the position's `pnl`.
#[allow(clippy::too_many_arguments)]
pub fn force_closed(
    st: &mut State,
    account: AccountId,
    inst: usize,
    side: PosSide,
    price: Decimal,
    pnl: Decimal,
    size: Decimal,
    now: i64,
) {
    let direction = if side == PosSide::Long { 1 } else { 2 };
    let copy = &st.swap.copy;
    let open: Vec<(CopyKey, String, Decimal)> = copy
        .open
        .range((account, 0)..=(account, u64::MAX))
        .filter_map(|key| copy.get(*key).map(|cp| (*key, cp)))
        .filter(|(_, cp)| cp.inst == inst && cp.direction == direction)
        .map(|(key, cp)| {
            let filled = st
                .swap
                .orders
                .get(&cp.order_id)
                .map_or(Decimal::ZERO, |o| o.filled);
            (key, cp.order_id.clone(), filled)
        })
        .filter(|(_, _, filled)| *filled > Decimal::ZERO)
        .collect();
    for (key, order_id, volume) in open {
        engine::finish(st, &order_id, now);
        let share = if size > Decimal::ZERO {
            round_dp(pnl * volume / size, 8)
        } else {
            Decimal::ZERO
        };
        let closed = Closed {
            time_ms: now,
            price,
            pnl: share,
            fee: Decimal::ZERO,
            reason: 3,
            volume,
        };
        end_position(st, key, closed, None);
    }
}

/// Checks every pending TP/SL plan against its trigger price and closes what fired.
pub fn run_triggers(st: &mut State, now: i64) {
    let mut fire = Vec::new();
    let copy = &st.swap.copy;
    for key in &copy.open {
        let Some(cp) = copy.get(*key) else {
            continue;
        };
        if cp.closed.is_some() || (cp.tp.is_none() && cp.sl.is_none()) {
            continue;
        }
        let filled = st
            .swap
            .orders
            .get(&cp.order_id)
            .map_or(Decimal::ZERO, |o| o.filled);
        if filled.is_zero() {
            continue;
        }
        let long = cp.direction == 1;
        for (plan_seq, is_tp) in [(cp.tp, true), (cp.sl, false)] {
            let Some((seq, plan)) =
                plan_seq.and_then(|seq| Some((seq, copy.plan(cp.account, seq)?)))
            else {
                continue;
            };
            let price = match plan.trigger_type {
                1 => st.swap.index_price(cp.inst),
                3 => st.swap.last_price(cp.inst),
                _ => st.swap.mark(cp.inst),
            };
            let hit = match (long, is_tp) {
                (true, true) | (false, false) => price >= plan.price,
                (true, false) | (false, true) => price <= plan.price,
            };
            if hit {
                fire.push((*key, seq, is_tp));
                break;
            }
        }
    }
    for (key, plan, is_tp) in fire {
        let reason = if is_tp { 1 } else { 5 };
        let _ = close_position(st, key, reason, Some(plan), now);
    }
}
