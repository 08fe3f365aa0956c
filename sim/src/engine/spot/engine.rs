//! Spot and margin orders on the books, matching and settlement.
//!
//! Each pair has one [`Book`] (the shared [`crate::engine::book`]: price levels of FIFO queues,
//! price-time priority, trades at the resting order's price, the synthetic maker) shared by spot
//! and margin orders; quantities are base amounts. Synthetic liquidity: at start each book gets
//! `book_levels` maker orders per side around the pair's mid price, spaced by 5 basis points (at
//! least one tick), sized from 0.2x to 2x of [`MarketSpec::maker_size`] by the seed, and is
//! topped up after trades. Synthetic orders have no owner or balance. The same seed and the same
//! request sequence give the same books.
//!
//! Fees: a taker pays the taker rate, a maker and every post-only order the maker rate, in the
//! currency received (spot buy: base; spot sell: quote; margin: quote).
//!
//! DESIGN (margin): margin positions are settled in the quote currency, like a contract for
//! difference. A margin order freezes `notional * (1/leverage + taker rate)` of quote from the
//! margin account; a fill that opens or grows a position locks `qty * price / leverage` as
//! position margin (kept in the quote balance's `frozen` part); a fill against an opposite
//! position closes it first, releasing margin and crediting the realised profit or loss. Base
//! currency in the margin account is collateral only. No liquidation engine runs.

pub use super::store::*;
use crate::config::MarketSpec;
use crate::engine::accounts::{finance_type, Account, AccountType};
use crate::engine::book::Demand;
pub use crate::engine::book::Side;
use crate::engine::history::push_capped;
use crate::engine::latency::Pending;
use crate::engine::state::State;
use crate::engine::tape::Trade;
use rust_decimal::Decimal;

/// Matches a stored order now, or at its arrival when a latency model delays it
/// ([`crate::config::SimConfig::latency`]).
pub fn submit(st: &mut State, id: &str, now: i64) {
    let delay = st.latency.draw_delay();
    if delay > 0 {
        st.latency
            .hold(now.saturating_add(delay), Pending::Spot(id.to_owned()));
    } else {
        execute(st, id, now);
    }
}

/// Matches an order that has just been stored (and frozen) against the book, settles every
/// fill, and rests or finishes the remainder.
pub fn execute(st: &mut State, order_id: &str, now_ms: i64) {
    let Some(o) = st.spot.orders.get(order_id) else {
        return;
    };
    let (m, side, otype, limit, post_only) = (o.market, o.side, o.otype, o.price, o.post_only);
    let cash_mode =
        o.otype == OrdType::Market && o.side == Side::Buy && o.cash_amount > Decimal::ZERO;
    let Some(dp) = st.spot.markets.get(m).map(|spec| spec.amount_precision) else {
        return;
    };
    let demand = if cash_mode {
        Demand::Value {
            value: o.cash_amount,
            dp,
        }
    } else {
        Demand::Quantity(o.amount)
    };

    if post_only && (otype == OrdType::Market || st.spot.would_take(m, side, limit)) {
        finish(st, order_id, now_ms, status::CANCELLED);
        return;
    }

    let limit_price = (otype == OrdType::Limit).then_some(limit);
    let (fills, exhausted) = match st.spot.books.get_mut(m) {
        Some(book) => {
            let walk = book.take(side, limit_price, demand);
            (walk.fills, walk.exhausted)
        }
        None => (Vec::new(), true),
    };

    let had_fills = !fills.is_empty();
    for f in fills {
        let tid = st.spot.next_trade_id;
        st.spot.next_trade_id += 1;
        settle(st, order_id, f.price, f.qty, false, tid, now_ms);
        if let Some(maker) = &f.maker {
            settle(st, maker, f.price, f.qty, true, tid, now_ms);
        }
        if let Some(tape) = st.spot.tapes.get_mut(m) {
            tape.push(Trade {
                id: tid,
                time_ms: now_ms,
                price: f.price,
                qty: f.qty,
                side,
                direction: 0,
            });
        }
    }

    // Rest or finish the remainder.
    let Some(o) = st.spot.orders.get(order_id) else {
        return;
    };
    if o.is_active() {
        match otype {
            OrdType::Limit => {
                let remaining = o.amount - o.executed;
                if let Some(book) = st.spot.books.get_mut(m) {
                    book.push(side, limit, Some(order_id.to_owned()), remaining);
                }
            }
            OrdType::Market => {
                let full = if cash_mode {
                    !exhausted && o.executed > Decimal::ZERO
                } else {
                    o.executed >= o.amount
                };
                let st_code = if full {
                    status::FILLED
                } else if o.executed > Decimal::ZERO {
                    status::PARTIAL_CANCELLED
                } else {
                    status::CANCELLED
                };
                finish(st, order_id, now_ms, st_code);
            }
        }
    }
    if had_fills {
        st.spot.replenish(m);
    }
    // Filed last, so the order a request finishes outlives the makers it finished.
    st.spot.archive(order_id);
}

/// A market order of the order flow ([`crate::drive::flow`]; no account): walks the book of
/// market `m` with price-time priority and settles the users' orders it reaches as makers.
/// Every fill is a public trade of the taker's `side`.
pub fn flow_take(st: &mut State, m: usize, side: Side, qty: Decimal, now_ms: i64) {
    let fills = match st.spot.books.get_mut(m) {
        Some(book) => book.take(side, None, Demand::Quantity(qty)).fills,
        None => return,
    };
    for f in fills {
        let tid = st.spot.next_trade_id;
        st.spot.next_trade_id += 1;
        if let Some(maker) = &f.maker {
            settle(st, maker, f.price, f.qty, true, tid, now_ms);
        }
        if let Some(tape) = st.spot.tapes.get_mut(m) {
            tape.push(Trade {
                id: tid,
                time_ms: now_ms,
                price: f.price,
                qty: f.qty,
                side,
                direction: 0,
            });
        }
    }
}

/// Fills resting order `order_id` as a maker at `price` for `qty` outside a matching walk (a
/// replayed market reached it, [`crate::market`]); its book entry is already reduced.
pub fn fill_resting(st: &mut State, order_id: &str, price: Decimal, qty: Decimal, now_ms: i64) {
    if qty <= Decimal::ZERO || !st.spot.orders.get(order_id).is_some_and(Order::is_active) {
        return;
    }
    let tid = st.spot.next_trade_id;
    st.spot.next_trade_id += 1;
    settle(st, order_id, price, qty, true, tid, now_ms);
}

/// Finishes an order: sets the status and finish time, removes it from the book and releases
/// whatever is still frozen for it.
pub fn finish(st: &mut State, order_id: &str, now_ms: i64, code: u8) {
    let Some(o) = st.spot.orders.get_mut(order_id) else {
        return;
    };
    if !o.is_active() {
        return;
    }
    o.status = code;
    o.finished_ms = now_ms;
    st.spot.changed.push((o.account, o.id.clone()));
    let (m, side, price, account, kind, frozen) =
        (o.market, o.side, o.price, o.account, o.kind, o.frozen);
    o.frozen = Decimal::ZERO;
    if o.otype == OrdType::Limit {
        if let Some(book) = st.spot.books.get_mut(m) {
            book.remove_order(side, price, order_id);
        }
    }
    if frozen > Decimal::ZERO {
        if let Some(spec) = st.spot.markets.get(m) {
            let (at, cur) = frozen_currency(spec, kind, side);
            let cur = cur.to_owned();
            st.account(account).unfreeze(at, &cur, frozen);
        }
    }
    st.spot.archive(order_id);
}

/// Account type and currency an order freezes.
pub fn frozen_currency(spec: &MarketSpec, kind: Kind, side: Side) -> (AccountType, &str) {
    match (kind, side) {
        (Kind::Spot, Side::Buy) => (AccountType::Spot, &spec.quote),
        (Kind::Spot, Side::Sell) => (AccountType::Spot, &spec.base),
        (Kind::Margin, _) => (AccountType::Margin, &spec.quote),
    }
}

fn settle(
    st: &mut State,
    order_id: &str,
    price: Decimal,
    qty: Decimal,
    is_maker: bool,
    tid: u64,
    now: i64,
) {
    let maker_fee = st.spot.maker_fee;
    let taker_fee = st.spot.taker_fee;
    let State { spot, accounts, .. } = st;
    let Some(o) = spot.orders.get_mut(order_id) else {
        return;
    };
    let Some(spec) = spot.markets.get(o.market) else {
        return;
    };
    let rate = if is_maker || o.post_only {
        maker_fee
    } else {
        taker_fee
    };
    let value = qty * price;
    o.executed += qty;
    o.executed_value += value;
    o.fills.push(tid);
    let acct = accounts.entry_mut(o.account);
    let (fee, fee_currency) = match o.kind {
        Kind::Spot => match o.side {
            Side::Buy => {
                let spend = value.min(o.frozen);
                o.frozen -= spend;
                acct.spend_frozen(
                    AccountType::Spot,
                    &spec.quote,
                    spend,
                    finance_type::TRADE,
                    now,
                );
                acct.credit(AccountType::Spot, &spec.base, qty, finance_type::TRADE, now);
                let fee = qty * rate;
                acct.credit(AccountType::Spot, &spec.base, -fee, finance_type::FEE, now);
                (fee, spec.base.clone())
            }
            Side::Sell => {
                let spend = qty.min(o.frozen);
                o.frozen -= spend;
                acct.spend_frozen(
                    AccountType::Spot,
                    &spec.base,
                    spend,
                    finance_type::TRADE,
                    now,
                );
                acct.credit(
                    AccountType::Spot,
                    &spec.quote,
                    value,
                    finance_type::TRADE,
                    now,
                );
                let fee = value * rate;
                acct.credit(AccountType::Spot, &spec.quote, -fee, finance_type::FEE, now);
                (fee, spec.quote.clone())
            }
        },
        Kind::Margin => {
            let pos = spot.positions.entry((o.account, o.market)).or_default();
            let fee = margin_fill(acct, pos, o, spec, taker_fee, price, qty, rate, now);
            (fee, spec.quote.clone())
        }
    };
    let done = match o.otype {
        OrdType::Limit => o.executed >= o.amount,
        OrdType::Market => false,
    };
    o.status = if done {
        status::FILLED
    } else {
        status::PARTIAL
    };
    spot.changed.push((o.account, o.id.clone()));
    let trade = OwnTrade {
        id: tid,
        order_id: o.id.clone(),
        symbol: o.symbol.clone(),
        kind: o.kind,
        price,
        amount: qty,
        fee,
        fee_currency,
        time_ms: now,
        side: o.type_text(),
        is_maker,
    };
    let account = o.account;
    if done {
        o.finished_ms = now;
        let (at, cur) = frozen_currency(spec, o.kind, o.side);
        let left = o.frozen;
        o.frozen = Decimal::ZERO;
        if left > Decimal::ZERO {
            acct.unfreeze(at, cur, left);
        }
    }
    push_capped(
        spot.my_trades.entry(account).or_default(),
        trade,
        spot.retention.own_trades_per_account,
    );
    if done && is_maker {
        // A taker is filed at the end of its execution.
        spot.archive(order_id);
    }
}

#[allow(clippy::too_many_arguments)]
fn margin_fill(
    acct: &mut Account,
    pos: &mut Position,
    o: &mut Order,
    spec: &MarketSpec,
    taker: Decimal,
    price: Decimal,
    qty: Decimal,
    fee_rate: Decimal,
    now: i64,
) -> Decimal {
    let quote = spec.quote.as_str();
    let lev = if spec.leverage > Decimal::ZERO {
        spec.leverage
    } else {
        Decimal::ONE
    };
    let notional = qty * price;
    // Release this fill's share of the order's freeze.
    if !o.close {
        let unit = match (o.otype, o.side) {
            (OrdType::Limit, _) => o.price,
            (OrdType::Market, Side::Buy) => price,
            (OrdType::Market, Side::Sell) => o.ref_price,
        };
        let release = (qty * unit * margin_rate(spec, taker)).min(o.frozen);
        o.frozen -= release;
        acct.unfreeze(AccountType::Margin, quote, release);
    }
    let sign = match o.side {
        Side::Buy => Decimal::ONE,
        Side::Sell => Decimal::NEGATIVE_ONE,
    };
    let mut open_qty = qty;
    if !pos.amount.is_zero() && pos.amount.is_sign_negative() != sign.is_sign_negative() {
        let held = pos.amount.abs();
        let close_qty = qty.min(held);
        let dir = if pos.amount > Decimal::ZERO {
            Decimal::ONE
        } else {
            Decimal::NEGATIVE_ONE
        };
        let pnl = (price - pos.entry) * close_qty * dir;
        let released = pos.margin * close_qty / held;
        pos.margin -= released;
        acct.unfreeze(AccountType::Margin, quote, released);
        pos.amount += sign * close_qty;
        acct.credit(
            AccountType::Margin,
            quote,
            pnl,
            finance_type::MARGIN_PNL,
            now,
        );
        open_qty = qty - close_qty;
        if pos.amount.is_zero() {
            acct.unfreeze(AccountType::Margin, quote, pos.margin);
            *pos = Position::default();
        }
    }
    if open_qty > Decimal::ZERO {
        let need = open_qty * price / lev;
        let free = acct
            .balance(AccountType::Margin, quote)
            .free
            .max(Decimal::ZERO);
        let lock = need.min(free);
        let _ = acct.freeze(AccountType::Margin, quote, lock);
        let held = pos.amount.abs();
        pos.entry = (pos.entry * held + price * open_qty) / (held + open_qty);
        pos.amount += sign * open_qty;
        pos.margin += lock;
    }
    let fee = notional * fee_rate;
    acct.credit(AccountType::Margin, quote, -fee, finance_type::FEE, now);
    fee
}
