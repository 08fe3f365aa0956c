//! What a connection's private pushes said (open orders, balances, positions), compared with a
//! REST snapshot ([`crate::ws::private`]) after each socket's private subscriptions are
//! acknowledged.

use std::collections::BTreeMap;

use crate::spot::OrderStatus;
use crate::swap::OrderState as SwapState;
use crate::ws::event::Event;
use crate::ws::model::{SpotBalance, SpotOrder, SwapAccount, SwapOrder, SwapPosition};
use crate::ws::private::{BalanceState, Change, OrderState, PositionState, PrivateSnapshot};

/// The private state a connection has seen.
#[derive(Debug, Clone, Default)]
pub(crate) struct PrivateState {
    orders: BTreeMap<String, OrderState>,
    balances: BTreeMap<String, BalanceState>,
    positions: BTreeMap<String, PositionState>,
}

fn spot_open(status: Option<&OrderStatus>) -> bool {
    status.is_none_or(OrderStatus::is_open)
}

impl PrivateState {
    /// Follows a push.
    pub(crate) fn observe(&mut self, event: &Event) {
        match event {
            Event::SpotOrders { orders } => {
                for o in orders {
                    self.order(spot_order_state(o), spot_open(o.status.as_ref()));
                }
            }
            Event::SwapOrders { orders } => {
                for o in orders {
                    let open = !matches!(o.state, Some(SwapState::Filled | SwapState::Canceled));
                    self.order(swap_order_state(o), open);
                }
            }
            Event::SpotBalances { balances } => {
                for b in balances {
                    self.balance(spot_balance_state(b));
                }
            }
            Event::SwapAccounts { accounts } => {
                for a in accounts {
                    self.balance(swap_balance_state(a));
                }
            }
            Event::SwapPositions { positions } => {
                for p in positions {
                    let s = swap_position_state(p);
                    if s.size.is_some_and(|v| v.is_zero()) {
                        self.positions.remove(&s.key());
                    } else {
                        self.positions.insert(s.key(), s);
                    }
                }
            }
            _ => {}
        }
    }

    fn order(&mut self, state: OrderState, open: bool) {
        if open {
            self.orders.insert(state.id.clone(), state);
        } else {
            self.orders.remove(&state.id);
        }
    }

    fn balance(&mut self, state: BalanceState) {
        self.balances.insert(state.currency.clone(), state);
    }

    /// The differences with `snap` (restricted by the filters), then `snap` becomes the state.
    pub(crate) fn reconcile(
        &mut self,
        snap: PrivateSnapshot,
        order_in_scope: impl Fn(&OrderState) -> bool,
        balance_in_scope: impl Fn(&BalanceState) -> bool,
        position_in_scope: impl Fn(&PositionState) -> bool,
    ) -> Vec<Change> {
        let mut changes = Vec::new();
        let orders: BTreeMap<String, OrderState> = snap
            .orders
            .into_iter()
            .filter(|o| order_in_scope(o))
            .map(|o| (o.id.clone(), o))
            .collect();
        for (id, after) in &orders {
            match self.orders.get(id) {
                None => changes.push(Change::OrderAppeared {
                    order: after.clone(),
                }),
                Some(before) if before.filled != after.filled => {
                    changes.push(Change::OrderFilled {
                        before: before.clone(),
                        after: after.clone(),
                    })
                }
                Some(_) => {}
            }
        }
        for (id, before) in &self.orders {
            if !orders.contains_key(id) {
                changes.push(Change::OrderClosed {
                    order: before.clone(),
                });
            }
        }
        let balances: BTreeMap<String, BalanceState> = snap
            .balances
            .into_iter()
            .filter(|b| balance_in_scope(b))
            .map(|b| (b.currency.clone(), b))
            .collect();
        for (cur, after) in &balances {
            let before = self.balances.get(cur);
            if before != Some(after) {
                changes.push(Change::Balance {
                    before: before.cloned(),
                    after: after.clone(),
                });
            }
        }
        let positions: BTreeMap<String, PositionState> = snap
            .positions
            .into_iter()
            .filter(|p| position_in_scope(p))
            .map(|p| (p.key(), p))
            .collect();
        for (key, after) in &positions {
            let before = self.positions.get(key);
            if before != Some(after) {
                changes.push(Change::Position {
                    before: before.cloned(),
                    after: Some(after.clone()),
                });
            }
        }
        for (key, before) in &self.positions {
            if !positions.contains_key(key) {
                changes.push(Change::Position {
                    before: Some(before.clone()),
                    after: None,
                });
            }
        }
        self.orders = orders;
        self.balances = balances;
        self.positions = positions;
        changes
    }
}

fn spot_order_state(o: &SpotOrder) -> OrderState {
    OrderState {
        id: o.id.clone(),
        market: o.symbol.as_ref().map(|s| s.to_ascii_uppercase()),
        filled: o.filled,
    }
}

fn swap_order_state(o: &SwapOrder) -> OrderState {
    OrderState {
        id: o.order_id.clone(),
        market: o.instrument_id.clone(),
        filled: o.filled_qty,
    }
}

fn spot_balance_state(b: &SpotBalance) -> BalanceState {
    BalanceState {
        currency: b.currency.to_ascii_uppercase(),
        free: b.free,
        total: b.total,
    }
}

fn swap_balance_state(a: &SwapAccount) -> BalanceState {
    BalanceState {
        currency: a.currency.to_ascii_uppercase(),
        free: a.avail_balance,
        total: a.equity,
    }
}

fn swap_position_state(p: &SwapPosition) -> PositionState {
    PositionState {
        instrument_id: p.instrument_id.clone(),
        side: p.side.as_ref().map(|s| s.as_str().to_owned()),
        size: p.position,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    fn o(id: &str, filled: i64) -> OrderState {
        OrderState {
            id: id.into(),
            market: Some("BTC_USDT".into()),
            filled: Some(Decimal::from(filled)),
        }
    }

    #[test]
    fn differences_then_rest_is_the_truth() {
        let mut s = PrivateState::default();
        s.order(o("a", 0), true);
        s.order(o("b", 1), true);
        s.order(o("c", 0), true);
        s.balance(BalanceState {
            currency: "USDT".into(),
            free: Some(Decimal::from(10)),
            total: Some(Decimal::from(10)),
        });
        let snap = PrivateSnapshot {
            orders: vec![o("a", 0), o("b", 2), o("d", 0), {
                let mut x = o("e", 0);
                x.market = Some("ETH_USDT".into());
                x
            }],
            balances: vec![BalanceState {
                currency: "USDT".into(),
                free: Some(Decimal::from(7)),
                total: Some(Decimal::from(10)),
            }],
            positions: Vec::new(),
        };
        let changes = s.reconcile(
            snap,
            |o| o.market.as_deref() == Some("BTC_USDT"),
            |_| true,
            |_| true,
        );
        assert_eq!(
            changes,
            vec![
                Change::OrderFilled {
                    before: o("b", 1),
                    after: o("b", 2)
                },
                Change::OrderAppeared { order: o("d", 0) },
                Change::OrderClosed { order: o("c", 0) },
                Change::Balance {
                    before: Some(BalanceState {
                        currency: "USDT".into(),
                        free: Some(Decimal::from(10)),
                        total: Some(Decimal::from(10)),
                    }),
                    after: BalanceState {
                        currency: "USDT".into(),
                        free: Some(Decimal::from(7)),
                        total: Some(Decimal::from(10)),
                    }
                },
            ]
        );
        // Nothing differs the second time.
        let again = PrivateSnapshot {
            orders: vec![o("a", 0), o("b", 2), o("d", 0)],
            balances: Vec::new(),
            positions: Vec::new(),
        };
        assert_eq!(s.reconcile(again, |_| true, |_| false, |_| true), vec![]);
    }
}
