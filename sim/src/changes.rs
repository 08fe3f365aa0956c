//! The outbox of account changes: what the private websocket pushes are made from.
//!
//! The engines note here every order they create or change and every position they change;
//! balance changes are noted by the accounts themselves ([`crate::accounts::Accounts`]). The
//! outbox is emptied each time the state lock is released ([`crate::exchange::StateGuard`]),
//! after the observer has read it, so it holds at most the changes of one request (or of one
//! stretch of order flow), and a push is rendered from the state as it is at that instant: the
//! values a REST read would answer.

use crate::accounts::AccountId;

/// Changes since the state lock was taken.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Spot and margin orders created or changed, in the order they changed (an order may
    /// appear more than once).
    pub spot_orders: Vec<(AccountId, String)>,
    /// Swap orders created or changed.
    pub swap_orders: Vec<(AccountId, String)>,
    /// Swap positions changed: (account, instrument index).
    pub swap_positions: Vec<(AccountId, usize)>,
}

impl Changes {
    /// Whether nothing was noted.
    pub fn is_empty(&self) -> bool {
        self.spot_orders.is_empty() && self.swap_orders.is_empty() && self.swap_positions.is_empty()
    }

    /// Forgets everything noted.
    pub fn clear(&mut self) {
        self.spot_orders.clear();
        self.swap_orders.clear();
        self.swap_positions.clear();
    }
}
