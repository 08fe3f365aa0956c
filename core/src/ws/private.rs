//! The private state as both sources tell it (open orders, balances, positions), a REST
//! snapshot of it, and the differences a reconciliation reports (the pushes are followed in
//! `seen.rs`), read after each socket's private subscriptions are acknowledged.
//!
//! Private pushes have no sequence numbers and no replay (`docs/protocol.md`, "Books, gaps and
//! recovery"): whatever happened while a socket was down, or in a lost push, is only visible over
//! REST. The connection keeps what its pushes said; the transport reads the same over REST when
//! [`crate::ws::Connection::reconcile_due`] says so (open orders, balances, positions) and hands it
//! to [`crate::ws::Connection::on_private_snapshot`], which reports the differences as
//! [`crate::ws::Event::Reconciled`] and takes the REST state as the new truth.

use rust_decimal::Decimal;
use serde::Serialize;

use crate::spot::{Asset, Order as SpotRestOrder};
use crate::swap::{
    Balance as SwapRestBalance, Order as SwapRestOrder, OrderState as SwapState, Position,
};

/// An order as both sources can tell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
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
#[non_exhaustive]
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
#[non_exhaustive]
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
    pub(crate) fn key(&self) -> String {
        format!(
            "{}/{}",
            self.instrument_id,
            self.side.as_deref().unwrap_or("")
        )
    }
}

/// What REST says now: open orders, balances, positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
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
