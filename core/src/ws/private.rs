//! The private state a stream has seen (open orders, balances, positions) and its
//! reconciliation with a REST read after each socket's private subscriptions are acknowledged.
//!
//! Private pushes have no sequence numbers and no replay (`docs/protocol.md`, "Books, gaps and
//! recovery"): whatever happened while a socket was down, or in a lost push, is only visible over
//! REST. The connection keeps what its pushes said; the transport reads the same over REST when
//! [`crate::ws::Connection::reconcile_due`] says so (open orders, balances, positions) and hands it
//! to [`crate::ws::Connection::on_private_snapshot`], which reports the differences as
//! [`crate::ws::Event::Reconciled`] and takes the REST state as the new truth.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::Serialize;

use crate::spot::{Asset, Order as SpotRestOrder, OrderStatus};
use crate::swap::{
    Balance as SwapRestBalance, Order as SwapRestOrder, OrderState as SwapState, Position,
};
use crate::ws::event::Event;
use crate::ws::model::{SpotBalance, SpotOrder, SwapAccount, SwapOrder, SwapPosition};

/// An order as both sources can tell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrderState {
    /// Order id.
    pub id: String,
    /// Pair or instrument, upper case.
    pub market: Option<String>,
    /// Cumulative filled amount (spot base) or contracts (swap).
    #[serde(with = "crate::de::opt_decimal")]
    pub filled: Option<Decimal>,
}

/// A balance as both sources can tell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BalanceState {
    /// Currency, upper case.
    pub currency: String,
    /// Available (spot `free`, swap `avail_balance`).
    #[serde(with = "crate::de::opt_decimal")]
    pub free: Option<Decimal>,
    /// Total (spot `total`, swap `equity`).
    #[serde(with = "crate::de::opt_decimal")]
    pub total: Option<Decimal>,
}

/// A swap position as both sources can tell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PositionState {
    /// Instrument.
    pub instrument_id: String,
    /// `long` or `short`, when told.
    pub side: Option<String>,
    /// Contracts.
    #[serde(with = "crate::de::opt_decimal")]
    pub size: Option<Decimal>,
}

impl PositionState {
    fn key(&self) -> String {
        format!(
            "{}/{}",
            self.instrument_id,
            self.side.as_deref().unwrap_or("")
        )
    }
}

/// What REST says now: open orders, balances, positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrivateSnapshot {
    /// Open orders.
    pub orders: Vec<OrderState>,
    /// Balances.
    pub balances: Vec<BalanceState>,
    /// Positions (swap).
    pub positions: Vec<PositionState>,
}

impl PrivateSnapshot {
    /// From the spot REST reads: open orders (`/{market}/order/current`) and assets
    /// (`/spot/assets`).
    pub fn spot(open: &[SpotRestOrder], assets: &[Asset]) -> Self {
        PrivateSnapshot {
            orders: open
                .iter()
                .filter(|o| o.is_open() != Some(false))
                .map(|o| OrderState {
                    id: o.order_id.clone(),
                    market: o.symbol.as_ref().map(|p| p.as_str().to_ascii_uppercase()),
                    filled: o.executed_amount,
                })
                .collect(),
            balances: assets
                .iter()
                .map(|a| BalanceState {
                    currency: a.currency.to_ascii_uppercase(),
                    free: a.free,
                    total: a.total,
                })
                .collect(),
            positions: Vec::new(),
        }
    }

    /// From the swap REST reads: open orders, balances, positions.
    pub fn swap(
        open: &[SwapRestOrder],
        balances: &[SwapRestBalance],
        positions: &[Position],
    ) -> Self {
        PrivateSnapshot {
            orders: open
                .iter()
                .filter(|o| !matches!(o.state, Some(SwapState::Filled | SwapState::Canceled)))
                .map(|o| OrderState {
                    id: o.order_id.clone(),
                    market: o.instrument_id.clone(),
                    filled: o.filled_qty,
                })
                .collect(),
            balances: balances
                .iter()
                .map(|b| BalanceState {
                    currency: b.currency.to_ascii_uppercase(),
                    free: b.avail_balance,
                    total: b.equity,
                })
                .collect(),
            positions: positions
                .iter()
                .filter(|p| p.position.is_some_and(|s| !s.is_zero()))
                .map(|p| PositionState {
                    instrument_id: p.instrument_id.clone(),
                    side: p.side.as_ref().map(|s| s.as_str().to_owned()),
                    size: p.position,
                })
                .collect(),
        }
    }
}

/// One difference between what the stream said and what REST says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Change {
    /// Open over REST, never pushed (placed, or pushed while the socket was down).
    OrderAppeared {
        /// The order.
        order: OrderState,
    },
    /// Open on both sides, with a different filled amount.
    OrderFilled {
        /// What the stream said.
        before: OrderState,
        /// What REST says.
        after: OrderState,
    },
    /// Open by the stream, no longer open over REST (filled or cancelled unseen; read the
    /// order's detail for which).
    OrderClosed {
        /// What the stream said last.
        order: OrderState,
    },
    /// A balance differs (or was never pushed).
    Balance {
        /// What the stream said, if anything.
        before: Option<BalanceState>,
        /// What REST says.
        after: BalanceState,
    },
    /// A position differs, appeared or went.
    Position {
        /// What the stream said, if anything.
        before: Option<PositionState>,
        /// What REST says (`None`: no position any more).
        after: Option<PositionState>,
    },
}

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
