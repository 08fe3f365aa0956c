//! The outbox of account changes: what the private websocket pushes are made from.
//!
//! The engines note every order they create or change and every position they change in the
//! family's records (`SpotState::changed`, `SwapState::changed_orders` and
//! `SwapState::changed_positions`); the accounts note every balance touched
//! ([`crate::engine::accounts::Accounts`]). When the state lock is released
//! (after each input and each step of the exchange, [`crate::Exchange`]) the observer takes them all ([`take`]) and renders its
//! pushes from the state as it is at that instant: the values a REST read would answer. The
//! outbox therefore holds at most the changes of one request, or of one stretch of order flow.

use crate::engine::accounts::{AccountId, AccountType};
use crate::engine::state::State;

/// Changes since the state lock was taken.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Spot and margin orders created or changed, each once, in the order they first changed.
    pub spot_orders: Vec<(AccountId, String)>,
    /// Swap orders created or changed, each once.
    pub swap_orders: Vec<(AccountId, String)>,
    /// Swap positions changed: (account, instrument index), each once.
    pub swap_positions: Vec<(AccountId, usize)>,
    /// Balances touched per account: (account type, currency).
    pub balances: Vec<(AccountId, Vec<(AccountType, String)>)>,
}

impl Changes {}

/// Whether anything was noted since the changes were last taken.
pub fn pending(st: &State) -> bool {
    !st.spot.changed.is_empty()
        || !st.swap.changed_orders.is_empty()
        || !st.swap.changed_positions.is_empty()
        || st.accounts.any_touched()
}

/// Takes (and forgets) everything noted, each entry once in the order it first changed.
pub fn take(st: &mut State) -> Changes {
    Changes {
        spot_orders: dedup(std::mem::take(&mut st.spot.changed)),
        swap_orders: dedup(std::mem::take(&mut st.swap.changed_orders)),
        swap_positions: dedup(std::mem::take(&mut st.swap.changed_positions)),
        balances: st.accounts.take_changed(),
    }
}

fn dedup<T: PartialEq>(list: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(list.len());
    for x in list {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}
