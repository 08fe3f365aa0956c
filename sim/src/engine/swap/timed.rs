//! What happens to swap accounts as time passes: funding settlements, liquidations (force
//! closes at the liquidation price) and the copy-trading TP/SL triggers ([`tick`]), run before
//! every swap request and control call and as the market moves (see the module docs of
//! [`super::engine`] for the rules).

use super::engine::*;
use crate::config::SwapInstrumentSpec;
use crate::engine::accounts::{AccountId, AccountType};
use crate::engine::state::State;
use crate::num::round_dp;
use rust_decimal::Decimal;

/// Funding periods one instrument settles at once at most (100: 33 days of 8-hour periods,
/// 16 days of 4-hour ones). A clock jump over more settles the first 100 and skips the rest
/// without settling them (they pay nothing and are not in the funding history): the work a
/// jump implies stays bounded (each settlement visits every position of the instrument).
pub(crate) const MAX_FUNDING_CATCH_UP: u32 = 100;

/// Runs the funding settlements due at `now` (at most 100 periods per instrument at once, the
/// rest of a longer jump skipped) and the copy-trading TP/SL triggers.
pub fn tick(st: &mut State, now: i64) {
    for i in 0..st.swap.funding.len() {
        let period = st
            .swap
            .instruments
            .get(i)
            .map_or(FUNDING_PERIOD_MS, SwapInstrumentSpec::funding_period_ms);
        let mut settled = 0;
        while st.swap.funding.get(i).is_some_and(|f| f.next_time <= now) {
            settled += 1;
            if settled > MAX_FUNDING_CATCH_UP {
                // A long jump: skip to the latest period without settling.
                if let Some(f) = st.swap.funding.get_mut(i) {
                    f.next_time = now
                        .div_euclid(period)
                        .saturating_add(1)
                        .saturating_mul(period);
                }
                break;
            }
            settle_funding(st, i);
        }
    }
    after_move(st, now);
}

/// Settles the next funding period of instrument `i`.
pub(crate) fn settle_one(st: &mut State, i: usize) {
    settle_funding(st, i);
}

/// Skips instrument `i`'s funding periods due by `now` without settling them (a long jump).
pub(crate) fn skip_funding(st: &mut State, i: usize, now: i64) {
    let period = st
        .swap
        .instruments
        .get(i)
        .map_or(FUNDING_PERIOD_MS, SwapInstrumentSpec::funding_period_ms);
    if let Some(f) = st.swap.funding.get_mut(i) {
        f.next_time = now
            .div_euclid(period)
            .saturating_add(1)
            .saturating_mul(period);
    }
}

/// The copy-trading TP/SL triggers and the liquidations at `now` (after the prices or the
/// balances moved).
pub(crate) fn after_move(st: &mut State, now: i64) {
    super::copy::run_triggers(st, now);
    liquidate_due(st, now);
}

/// Force-closes every position whose liquidation price the mark price has reached (see the
/// module docs).
pub fn liquidate_due(st: &mut State, now: i64) {
    let due: Vec<((AccountId, usize, PosSide), Decimal)> = st
        .swap
        .positions
        .iter()
        .filter_map(|(&(account, i, side), p)| {
            let price = liquidation_price(st, account, i, side, p);
            let mark = st.swap.mark(i);
            let reached = match side {
                PosSide::Long => mark <= price,
                PosSide::Short => mark >= price,
            };
            (p.size > Decimal::ZERO && price > Decimal::ZERO && reached)
                .then_some(((account, i, side), price))
        })
        .collect();
    for (key, price) in due {
        force_close(st, key, price, now);
    }
}

fn force_close(
    st: &mut State,
    (account, i, side): (AccountId, usize, PosSide),
    price: Decimal,
    now: i64,
) {
    // The position's unfinished close orders have nothing left to close.
    let closing: Vec<String> = st
        .swap
        .active_orders
        .get(&account)
        .map(|ids| {
            ids.values()
                .filter(|id| {
                    st.swap.orders.get(*id).is_some_and(|o| {
                        o.is_active() && o.inst == i && !o.is_open_kind() && o.pos_side() == side
                    })
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    for id in &closing {
        finish(st, id, now);
    }
    let id = st.swap.new_order_id();
    let seq = st.swap.order_seq;
    let tid = st.swap.next_trade_id;
    st.swap.next_trade_id += 1;
    let State { swap, accounts, .. } = st;
    let Some(spec) = swap.instruments.get(i) else {
        return;
    };
    swap.changed_positions.push((account, i));
    let Some(p) = swap.positions.remove(&(account, i, side)) else {
        return;
    };
    let quote = spec.quote.clone();
    let (kind, code) = match side {
        PosSide::Long => (3, bill::CLOSE_LONG),
        PosSide::Short => (4, bill::CLOSE_SHORT),
    };
    // Isolated: the position's margin is lost. Crossed: the loss at the liquidation price, which
    // the account's equity carried beyond the margin.
    let loss = match p.margin_mode {
        MarginMode::Isolated => p.margin,
        MarginMode::Crossed => {
            let value = p.size * spec.contract_value;
            let at_price = match side {
                PosSide::Long => (p.avg_cost - price) * value,
                PosSide::Short => (price - p.avg_cost) * value,
            };
            at_price.max(p.margin)
        }
    };
    let acct = account_mut(accounts, account);
    acct.unfreeze(AccountType::Swap, &quote, p.margin);
    acct.credit(AccountType::Swap, &quote, -loss, code, now);
    *swap.realized.entry(account).or_default() -= loss;
    swap.add_order(SwapOrder {
        id: id.clone(),
        seq,
        account,
        inst: i,
        margin_mode: p.margin_mode,
        kind,
        order_type: 0,
        price,
        size: p.size,
        filled: p.size,
        turnover: p.size * spec.contract_value * price,
        fee: Decimal::ZERO,
        state: state::FILLED,
        leverage: p.leverage,
        close_profit: -loss,
        has_stop: false,
        insert_ms: now,
        update_ms: now,
        post_only: false,
        tif: Tif::Ioc,
        frozen_margin: Decimal::ZERO,
        frozen_fee: Decimal::ZERO,
        copy: false,
    });
    swap.archive(&id);
    swap.record_fill(
        account,
        SwapFill {
            trade_id: tid,
            inst: i,
            order_id: id,
            margin_mode: p.margin_mode,
            price,
            size: p.size,
            fee: Decimal::ZERO,
            close_profit: -loss,
            leverage: p.leverage,
            kind,
            order_type: 0,
            match_role: 1,
            trade_type: trade_type::FORCE_CLOSE,
            time_ms: now,
        },
    );
    super::copy::force_closed(st, account, i, side, price, -loss, p.size, now);
}

fn settle_funding(st: &mut State, i: usize) {
    let State { swap, accounts, .. } = st;
    let mark = swap.mark(i);
    let Some(spec) = swap.instruments.get(i) else {
        return;
    };
    let Some(f) = swap.funding.get_mut(i) else {
        return;
    };
    let period = spec.funding_period_ms();
    let (time, rate) = (f.next_time, f.rate);
    f.history.push((time, rate));
    f.rate = f.next_rate;
    f.next_time = time.saturating_add(period);
    if f.next_time == time {
        return;
    }
    let n = f.next_time.div_euclid(period);
    f.next_rate = synthetic_rate(swap.seed, spec, i, n + 1);
    let cv = spec.contract_value;
    let quote = spec.quote.clone();
    for ((account, inst, side), p) in swap.positions.iter() {
        if *inst != i || p.size.is_zero() {
            continue;
        }
        let amount = -(p.size * cv * mark * rate * side.sign());
        let amount = round_dp(amount, 8);
        account_mut(accounts, *account).credit(
            AccountType::Swap,
            &quote,
            amount,
            bill::FUNDING,
            time,
        );
        swap.funding_fees
            .entry(*account)
            .or_default()
            .push(FundingFee {
                inst: i,
                amount,
                time_ms: time,
            });
    }
}
