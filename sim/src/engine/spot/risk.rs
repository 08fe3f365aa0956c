//! Anti-manipulation risk control (FR, FW, CR) and the API trading ban.
//!
//! DESIGN: indicators are computed per account and pair over fixed 10-minute cycles of the
//! simulator clock (`floor(now_ms / 600000)`), from the orders created in the cycle. A cycle is
//! evaluated once it has ended, when the account next places an order (or creates a key), using
//! the orders' state at that moment. Indicators:
//! - FR = orders with any execution / orders; triggers below 0.01 when orders > 99;
//! - FW = executed base amount / ordered base amount (a market buy counts its executed amount, or
//!   its cash amount at the reference price when nothing executed); triggers below 0.01 when
//!   orders > 49;
//! - CR = orders cancelled by the user with nothing executed within 5 s of placement / orders;
//!   triggers above 0.95 when orders > 99.
//!
//! A triggering cycle starts a 30-minute ban at the cycle's end (error 20020 on new orders); when
//! that makes 3 or more bans starting within three hours, the ban lasts 24 hours instead (error
//! 20018). Bans stop order placement (single and batch) on every pair and the creation of API
//! keys; cancels, queries and position closes still work. Orders placed by
//! `/margin/position/close` are not counted.

use super::errors::{err, SpotErr};
use super::store::{OrdType, Side, SpotState};
use crate::engine::accounts::AccountId;
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// Cycle length (10 minutes).
pub const CYCLE_MS: i64 = 600_000;
/// Short ban (30 minutes).
pub const SHORT_BAN_MS: i64 = 1_800_000;
/// Long ban (24 hours).
pub const LONG_BAN_MS: i64 = 86_400_000;
const THREE_HOURS: i64 = 10_800_000;

#[derive(Default)]
struct Stats {
    orders: u32,
    filled_orders: u32,
    ordered: Decimal,
    filled: Decimal,
    invalid_cancels: u32,
}

impl Stats {
    fn triggers(&self) -> bool {
        let n = Decimal::from(self.orders);
        if n.is_zero() {
            return false;
        }
        let limit = Decimal::new(1, 2);
        let fr = Decimal::from(self.filled_orders) / n;
        let cr = Decimal::from(self.invalid_cancels) / n;
        let fw = if self.ordered.is_zero() {
            Decimal::ZERO
        } else {
            self.filled / self.ordered
        };
        (self.orders > 99 && fr < limit)
            || (self.orders > 49 && fw < limit)
            || (self.orders > 99 && cr > Decimal::new(95, 2))
    }
}

/// Evaluates finished cycles of `user` and records any ban they trigger.
pub fn evaluate(spot: &mut SpotState, user: AccountId, now_ms: i64) {
    let current = now_ms.div_euclid(CYCLE_MS);
    let from = match spot.risk.get(&user).and_then(|r| r.evaluated_through) {
        Some(c) => c + 1,
        None => {
            // First contact: earlier cycles cannot hold orders of this account's risk record
            // except those placed before it existed; evaluate from the oldest order.
            spot.order_ids(user)
                .next()
                .and_then(|id| spot.orders.get(id))
                .map_or(current, |o| o.created_ms.div_euclid(CYCLE_MS))
        }
    };
    if from >= current {
        spot.risk.entry(user).or_default().evaluated_through = Some(current - 1);
        return;
    }
    let start_ms = from * CYCLE_MS;
    let end_ms = current * CYCLE_MS;
    let mut stats: BTreeMap<(i64, usize), Stats> = BTreeMap::new();
    for id in spot.order_ids(user).rev() {
        let Some(o) = spot.orders.get(id) else {
            continue;
        };
        if o.created_ms < start_ms {
            break;
        }
        if o.created_ms >= end_ms || o.close {
            continue;
        }
        let s = stats
            .entry((o.created_ms.div_euclid(CYCLE_MS), o.market))
            .or_default();
        s.orders += 1;
        if o.executed > Decimal::ZERO {
            s.filled_orders += 1;
        }
        let ordered = if o.otype == OrdType::Market && o.side == Side::Buy {
            if o.executed > Decimal::ZERO || o.ref_price.is_zero() {
                o.executed
            } else {
                o.cash_amount / o.ref_price
            }
        } else {
            o.amount
        };
        s.ordered += ordered;
        s.filled += o.executed;
        if o.user_cancelled && o.executed.is_zero() && o.finished_ms - o.created_ms <= 5_000 {
            s.invalid_cancels += 1;
        }
    }
    let mut triggered: Vec<i64> = stats
        .iter()
        .filter(|(_, s)| s.triggers())
        .map(|((cycle, _), _)| *cycle)
        .collect();
    triggered.dedup();
    let risk = spot.risk.entry(user).or_default();
    for cycle in triggered {
        let start = (cycle + 1) * CYCLE_MS;
        risk.bans.push(start);
        let recent = risk
            .bans
            .iter()
            .filter(|t| **t > start - THREE_HOURS && **t <= start)
            .count();
        let (len, long) = if recent >= 3 {
            (LONG_BAN_MS, true)
        } else {
            (SHORT_BAN_MS, false)
        };
        if start + len > risk.banned_until {
            risk.banned_until = start + len;
            risk.long_ban = long;
        }
    }
    risk.evaluated_through = Some(current - 1);
}

/// Refuses new orders while `user` is banned (20020, or 20018 for the 24-hour ban).
pub fn check(spot: &mut SpotState, user: AccountId, now_ms: i64) -> Result<(), SpotErr> {
    evaluate(spot, user, now_ms);
    match spot.risk.get(&user) {
        Some(r) if r.banned_until > now_ms => Err(err(if r.long_ban { 20018 } else { 20020 })),
        _ => Ok(()),
    }
}
