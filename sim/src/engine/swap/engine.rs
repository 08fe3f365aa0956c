//! Swap books, the synthetic market maker, matching, positions, margin and funding.
//!
//! Books are the shared [`crate::engine::book`], as for spot: price levels of FIFO queues, price-time
//! priority, trades at the resting price, and synthetic maker orders from the seed
//! (`book_levels` per side, 5 basis points apart rounded down to the tick, at least one tick;
//! refilled beyond the worst synthetic price when a side drops below half). Quantities are
//! whole contracts.
//!
//! DESIGN (margin model, linear contracts settled in the quote currency, USDT):
//! - The swap wallet is the account's [`AccountType::Swap`] balance: `free + frozen` is the
//!   wallet balance (transfers, realized pnl, fees, funding); `frozen` holds open orders' margin
//!   and fee (`frozen_margin`, `frozen_money`) and positions' margin.
//! - An open order (type 1 or 2) freezes `size * contract_value * price / leverage` as margin plus
//!   the taker fee on that value, at its limit price (market-style types: the worst price they may
//!   reach). A fill releases the order's share and locks `qty * contract_value * fill_price /
//!   leverage` as position margin; the fee (maker or taker rate) is taken from the free balance.
//! - A close order (type 3 or 4) freezes nothing; its fill realizes
//!   `(price - avg_cost) * qty * contract_value` (negated for shorts) and releases the position
//!   margin share.
//! - Crossed and isolated positions hold margin the same way; isolated positions also accept
//!   margin added or removed by `position_margin` (`posi_balance`). A closing fill's profit is
//!   `(price - avg_cost) * size * contract_value` (the opposite for a short), rounded to 12
//!   places (the average cost is a quotient). Unrealized pnl uses the mark
//!   price (the book mid unless set through the control API). The liquidation price is
//!   `(avg*value - margin) / (value * (1 - mmr))` for longs and
//!   `(avg*value + margin) / (value * (1 + mmr))` for shorts, per unit of price.
//! - Liquidation: checked with funding, before every swap request and control call (so right
//!   after a control-API mark price change). A position whose mark price has reached its
//!   liquidation price (long: mark <= price, short: mark >= price; never for a price of 0) is
//!   force-closed by the exchange, not through the book: its unfinished close orders are
//!   cancelled, a filled system close order (type 3 or 4, `order_type` 0) and a fill with
//!   `trade_type` 1 (force close) at the liquidation price are recorded, and the whole position
//!   margin is lost (the pnl at that price less the maintenance margin, kept as the liquidation
//!   fee): `close_profit` and the close bill (finance_type 5 or 6) are `-margin`, the fee 0.
//!   Copy positions on it end with status 3 (forced close) and their TP/SL plans are cancelled.
//!   No auto-deleveraging runs (no counterparty positions exist to reduce), so `trade_type` 3
//!   and finance types 9/10 never occur.
//! - Funding: every 8 hours (00:00, 08:00, 16:00 UTC of the simulator clock; every 4 hours for
//!   instruments with [`SwapInstrumentSpec::funding_interval_hours`] 4) each position pays
//!   (long, positive rate) or receives `size * contract_value * mark * rate` to or from the free
//!   balance, recorded as a funding-fee record and a bill of finance_type 15. Settlement runs
//!   lazily before every swap request and control call, for every funding time passed.

pub use super::store::*;
use crate::config::SwapInstrumentSpec;
use crate::engine::accounts::{Account, AccountId, AccountType, Accounts};
use crate::engine::book::Demand;
pub use crate::engine::book::Side;
use crate::engine::latency::Pending;
use crate::engine::state::State;
use crate::engine::tape::Trade;
use crate::num::round_dp;
use rust_decimal::Decimal;

/// Reported liquidation price of a position (0 when it cannot be computed); see the module docs.
///
/// An isolated position is backed by its own margin only. A crossed position is backed by the
/// account's equity: its margin, the account's free balance in the settlement currency and the
/// unrealised profit or loss of the account's other crossed positions in that currency
/// ([`cross_backing`]); so a crossed position lives as long as the account can carry it, not
/// as if it were isolated.
pub fn liquidation_price(
    st: &State,
    account: AccountId,
    i: usize,
    side: PosSide,
    p: &SwapPosition,
) -> Decimal {
    let Some(spec) = st.swap.instruments.get(i) else {
        return Decimal::ZERO;
    };
    let backing = match p.margin_mode {
        MarginMode::Isolated => p.margin,
        MarginMode::Crossed => (p.margin + cross_backing(st, account, i, side)).max(Decimal::ZERO),
    };
    liquidation_at(spec, side, p, backing)
}

/// The equity a crossed position draws on beyond its own margin: the account's free balance in
/// the instrument's settlement currency plus the unrealised pnl of its other crossed positions
/// in that currency.
pub fn cross_backing(st: &State, account: AccountId, i: usize, side: PosSide) -> Decimal {
    let Some(quote) = st.swap.instruments.get(i).map(|m| m.quote.as_str()) else {
        return Decimal::ZERO;
    };
    let free = st
        .accounts
        .get(&account)
        .map_or(Decimal::ZERO, |a| a.balance(AccountType::Swap, quote).free);
    let others: Decimal = st
        .swap
        .positions
        .range((account, 0, PosSide::Long)..)
        .take_while(|((a, _, _), _)| *a == account)
        .filter(|((_, j, s), q)| {
            (*j, *s) != (i, side)
                && q.margin_mode == MarginMode::Crossed
                && st
                    .swap
                    .instruments
                    .get(*j)
                    .is_some_and(|m| m.quote == quote)
        })
        .map(|((_, j, s), q)| st.swap.upnl(*j, *s, q))
        .sum();
    free + others
}

/// The price at which `backing` (the margin a position may lose) is used up down to the
/// maintenance margin.
fn liquidation_at(
    spec: &SwapInstrumentSpec,
    side: PosSide,
    p: &SwapPosition,
    backing: Decimal,
) -> Decimal {
    let value = p.size * spec.contract_value;
    if value.is_zero() {
        return Decimal::ZERO;
    }
    let mmr = spec.maint_margin_ratio;
    let liq = match side {
        PosSide::Long => (p.avg_cost * value - backing)
            .checked_div(value * (Decimal::ONE - mmr))
            .unwrap_or_default(),
        PosSide::Short => (p.avg_cost * value + backing)
            .checked_div(value * (Decimal::ONE + mmr))
            .unwrap_or_default(),
    };
    round_dp(liq.max(Decimal::ZERO), spec.price_precision)
}

/// The account `id` for a change, created on first use.
pub fn account_mut(accounts: &mut Accounts, id: AccountId) -> &mut Account {
    accounts.entry_mut(id)
}

/// A validated order ready to be stored.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Instrument index.
    pub inst: usize,
    /// Kind 1-4.
    pub kind: i64,
    /// `order_type`.
    pub order_type: i64,
    /// Price (limit or reach price).
    pub price: Decimal,
    /// Contracts.
    pub size: Decimal,
    /// Post-only.
    pub post_only: bool,
    /// Time in force.
    pub tif: Tif,
    /// Margin mode.
    pub margin_mode: MarginMode,
    /// Leverage.
    pub leverage: Decimal,
    /// Margin to freeze.
    pub margin: Decimal,
    /// Fee to freeze.
    pub fee: Decimal,
}

/// Stores, freezes and matches a validated order; returns its id.
pub fn place(st: &mut State, account: AccountId, p: &Prepared, copy: bool, now: i64) -> String {
    let id = st.swap.new_order_id();
    let seq = st.swap.order_seq;
    let quote = st
        .swap
        .instruments
        .get(p.inst)
        .map(|m| m.quote.clone())
        .unwrap_or_default();
    let acct = account_mut(&mut st.accounts, account);
    let (fm, ff) = if acct
        .freeze(AccountType::Swap, &quote, p.margin + p.fee)
        .is_ok()
    {
        (p.margin, p.fee)
    } else {
        (Decimal::ZERO, Decimal::ZERO)
    };
    let order = SwapOrder {
        id: id.clone(),
        seq,
        account,
        inst: p.inst,
        margin_mode: p.margin_mode,
        kind: p.kind,
        order_type: p.order_type,
        price: p.price,
        size: p.size,
        filled: Decimal::ZERO,
        turnover: Decimal::ZERO,
        fee: Decimal::ZERO,
        state: state::OPEN,
        leverage: p.leverage,
        close_profit: Decimal::ZERO,
        has_stop: false,
        insert_ms: now,
        update_ms: now,
        post_only: p.post_only,
        tif: p.tif,
        frozen_margin: fm,
        frozen_fee: ff,
        copy,
    };
    st.swap.add_order(order);
    if copy {
        execute(st, &id, now);
    } else {
        // API placements reach the engine after the configured latency.
        submit(st, &id, now);
    }
    id
}

/// Matches a stored order now, or at its arrival when a latency model delays it
/// ([`crate::config::SimConfig::latency`]).
pub fn submit(st: &mut State, id: &str, now: i64) {
    let delay = st.latency.draw_delay();
    if delay > 0 {
        st.latency
            .hold(now.saturating_add(delay), Pending::Swap(id.to_owned()));
    } else {
        execute(st, id, now);
    }
}

/// Matches a stored order against the book, settles fills, and rests or finishes the rest.
pub fn execute(st: &mut State, order_id: &str, now: i64) {
    let Some(o) = st.swap.orders.get(order_id) else {
        return;
    };
    let (i, side, limit, tif, post_only, size, kind) = (
        o.inst,
        o.side(),
        o.price,
        o.tif,
        o.post_only,
        o.size,
        o.kind,
    );
    let would_take = st
        .swap
        .books
        .get(i)
        .is_some_and(|b| b.would_take(side, limit));
    if post_only && would_take {
        finish(st, order_id, now);
        return;
    }
    if tif == Tif::Fok && st.swap.available_to(i, side, limit) < size {
        finish(st, order_id, now);
        return;
    }
    let fills = st
        .swap
        .books
        .get_mut(i)
        .map(|book| book.take(side, Some(limit), Demand::Quantity(size)).fills)
        .unwrap_or_default();
    let had = !fills.is_empty();
    for f in fills {
        let tid = st.swap.next_trade_id;
        st.swap.next_trade_id += 1;
        settle(st, order_id, f.price, f.qty, false, tid, now);
        if let Some(m) = &f.maker {
            settle(st, m, f.price, f.qty, true, tid, now);
        }
        if let Some(tape) = st.swap.tapes.get_mut(i) {
            tape.push(Trade {
                id: tid,
                time_ms: now,
                price: f.price,
                qty: f.qty,
                side,
                direction: kind,
            });
        }
    }
    if let Some(o) = st.swap.orders.get(order_id) {
        if o.is_active() {
            if tif == Tif::Gtc {
                let remaining = o.size - o.filled;
                if let Some(book) = st.swap.books.get_mut(i) {
                    book.push(side, limit, Some(order_id.to_owned()), remaining);
                }
            } else {
                finish(st, order_id, now);
            }
        }
    }
    if had {
        st.swap.replenish(i);
    }
    // Filed last, so the order a request finishes outlives the makers it finished.
    st.swap.archive(order_id);
}

/// A market order of the order flow ([`crate::drive::flow`]; no account): walks the book of
/// instrument `i` with price-time priority and settles the users' orders it reaches as makers.
/// Every fill is a public trade of the taker's `side` and order kind `direction`.
pub fn flow_take(st: &mut State, i: usize, side: Side, qty: Decimal, direction: i64, now: i64) {
    let fills = match st.swap.books.get_mut(i) {
        Some(book) => book.take(side, None, Demand::Quantity(qty)).fills,
        None => return,
    };
    for f in fills {
        let tid = st.swap.next_trade_id;
        st.swap.next_trade_id += 1;
        if let Some(maker) = &f.maker {
            settle(st, maker, f.price, f.qty, true, tid, now);
        }
        if let Some(tape) = st.swap.tapes.get_mut(i) {
            tape.push(Trade {
                id: tid,
                time_ms: now,
                price: f.price,
                qty: f.qty,
                side,
                direction,
            });
        }
    }
}

/// Fills resting order `order_id` as a maker at `price` for `qty` outside a matching walk (a
/// replayed market reached it, [`crate::market`]); its book entry is already reduced.
pub fn fill_resting(st: &mut State, order_id: &str, price: Decimal, qty: Decimal, now: i64) {
    if qty <= Decimal::ZERO
        || !st
            .swap
            .orders
            .get(order_id)
            .is_some_and(SwapOrder::is_active)
    {
        return;
    }
    let tid = st.swap.next_trade_id;
    st.swap.next_trade_id += 1;
    settle(st, order_id, price, qty, true, tid, now);
}

/// Cancels (finishes) an active order: state -1, out of the book, frozen amounts released.
pub fn finish(st: &mut State, order_id: &str, now: i64) {
    let Some(o) = st.swap.orders.get_mut(order_id) else {
        return;
    };
    if !o.is_active() {
        return;
    }
    o.state = state::CANCELED;
    o.update_ms = now;
    let (i, side, price, account) = (o.inst, o.side(), o.price, o.account);
    st.swap.changed_orders.push((account, order_id.to_owned()));
    let release = o.frozen_margin + o.frozen_fee;
    o.frozen_margin = Decimal::ZERO;
    o.frozen_fee = Decimal::ZERO;
    if let Some(book) = st.swap.books.get_mut(i) {
        book.remove_order(side, price, order_id);
    }
    if release > Decimal::ZERO {
        if let Some(m) = st.swap.instruments.get(i) {
            let q = m.quote.clone();
            account_mut(&mut st.accounts, account).unfreeze(AccountType::Swap, &q, release);
        }
    }
    st.swap.archive(order_id);
}

fn settle(
    st: &mut State,
    order_id: &str,
    price: Decimal,
    qty: Decimal,
    maker: bool,
    tid: u64,
    now: i64,
) {
    let State { swap, accounts, .. } = st;
    let (maker_fee, taker_fee) = (swap.maker_fee, swap.taker_fee);
    let Some(o) = swap.orders.get_mut(order_id) else {
        return;
    };
    let Some(spec) = swap.instruments.get(o.inst) else {
        return;
    };
    let cv = spec.contract_value;
    let quote = spec.quote.clone();
    let value = qty * cv * price;
    let rate = if maker { maker_fee } else { taker_fee };
    let fee = value * rate;
    let acct = account_mut(accounts, o.account);
    let unfilled = o.size - o.filled;
    let side = o.pos_side();
    let key = (o.account, o.inst, side);
    let mut profit = Decimal::ZERO;
    if o.is_open_kind() {
        if unfilled > Decimal::ZERO {
            let share_m = (o.frozen_margin * qty / unfilled).min(o.frozen_margin);
            let share_f = (o.frozen_fee * qty / unfilled).min(o.frozen_fee);
            o.frozen_margin -= share_m;
            o.frozen_fee -= share_f;
            acct.unfreeze(AccountType::Swap, &quote, share_m + share_f);
        }
        let lev = if o.leverage > Decimal::ZERO {
            o.leverage
        } else {
            Decimal::ONE
        };
        let need = value / lev;
        let free = acct
            .balance(AccountType::Swap, &quote)
            .free
            .max(Decimal::ZERO);
        let lock = need.min(free);
        let _ = acct.freeze(AccountType::Swap, &quote, lock);
        let pos = swap.positions.entry(key).or_insert_with(|| SwapPosition {
            size: Decimal::ZERO,
            avg_cost: Decimal::ZERO,
            margin: Decimal::ZERO,
            margin_mode: o.margin_mode,
            leverage: lev,
            realized_pnl: Decimal::ZERO,
            opened_ms: now,
        });
        pos.avg_cost = (pos.avg_cost * pos.size + price * qty) / (pos.size + qty);
        pos.size += qty;
        pos.margin += lock;
        pos.margin_mode = o.margin_mode;
        pos.leverage = lev;
        pos.realized_pnl -= fee;
        let code = if side == PosSide::Long {
            bill::OPEN_LONG
        } else {
            bill::OPEN_SHORT
        };
        acct.credit(AccountType::Swap, &quote, -fee, code, now);
    } else {
        let code = if side == PosSide::Long {
            bill::CLOSE_LONG
        } else {
            bill::CLOSE_SHORT
        };
        if let Some(pos) = swap.positions.get_mut(&key) {
            let close = qty.min(pos.size);
            if close > Decimal::ZERO {
                // Rounded to 12 places: the average cost is a quotient (up to 28 digits), and
                // the wallet must hold every profit exactly.
                profit = round_dp((price - pos.avg_cost) * close * cv * side.sign(), 12);
                let released = pos.margin * close / pos.size;
                pos.margin -= released;
                pos.size -= close;
                pos.realized_pnl += profit - fee;
                acct.unfreeze(AccountType::Swap, &quote, released);
                acct.credit(AccountType::Swap, &quote, profit, code, now);
                if pos.size <= Decimal::ZERO {
                    let rest = pos.margin;
                    acct.unfreeze(AccountType::Swap, &quote, rest);
                    swap.positions.remove(&key);
                }
            }
        }
        acct.credit(AccountType::Swap, &quote, -fee, code, now);
        *swap.realized.entry(o.account).or_default() += profit;
        o.close_profit += profit;
    }
    o.filled += qty;
    o.turnover += value;
    o.fee += fee;
    o.update_ms = now;
    if o.filled >= o.size {
        o.state = state::FILLED;
        let rest = o.frozen_margin + o.frozen_fee;
        o.frozen_margin = Decimal::ZERO;
        o.frozen_fee = Decimal::ZERO;
        if rest > Decimal::ZERO {
            acct.unfreeze(AccountType::Swap, &quote, rest);
        }
    } else {
        o.state = state::PARTIAL;
    }
    swap.changed_orders.push((o.account, o.id.clone()));
    swap.changed_positions.push((o.account, o.inst));
    let fill = SwapFill {
        trade_id: tid,
        inst: o.inst,
        order_id: o.id.clone(),
        margin_mode: o.margin_mode,
        price,
        size: qty,
        fee,
        close_profit: profit,
        leverage: o.leverage,
        kind: o.kind,
        order_type: o.order_type,
        match_role: if maker { 2 } else { 1 },
        trade_type: trade_type::NORMAL,
        time_ms: now,
    };
    let (account, done) = (o.account, !o.is_active());
    swap.record_fill(account, fill);
    if done && maker {
        // A taker is filed at the end of its execution.
        swap.archive(order_id);
    }
}
