//! The wallet's records as they change: deposit addresses, deposits and withdrawals moving
//! between states (the `/deposit` and `/withdraw` endpoints are the REST dialect's; the state
//! changes come from the control API).

use super::engine::Deposit;
use crate::engine::accounts::{finance_type, AccountId, AccountType};
use crate::engine::state::State;
use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

/// The deposit address of `account` for a currency and chain.
pub fn address_for(seed: u64, account: AccountId, currency: &str, chain: &str) -> String {
    let mut h = Sha256::new();
    h.update(seed.to_be_bytes());
    h.update(account.to_be_bytes());
    h.update(currency.as_bytes());
    h.update([0]);
    h.update(chain.as_bytes());
    let digest = hex::encode(h.finalize());
    match (currency, chain) {
        ("BTC", _) | ("USDT", "OMNI") => format!("1Sim{}", &digest[..30]),
        _ => format!("0x{}", &digest[..40]),
    }
}

/// Why a state change was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateError {
    /// No such record.
    NotFound,
    /// The transition is not allowed from the current state.
    Transition,
}

/// Moves a withdrawal to `state` (1 -> 2 -> 3, 1/2 -> 4); 3 spends the frozen amount, 4
/// returns it.
pub fn set_withdrawal_state(
    st: &mut State,
    id: u64,
    state: u8,
    now_ms: i64,
) -> Result<(), StateError> {
    let w = st
        .spot
        .withdrawals
        .iter_mut()
        .find(|w| w.id == id)
        .ok_or(StateError::NotFound)?;
    let ok = matches!((w.state, state), (1, 2) | (1, 3) | (2, 3) | (1, 4) | (2, 4));
    if !ok {
        return Err(StateError::Transition);
    }
    w.state = state;
    w.updated_ms = now_ms;
    let (account, cur, amount) = (w.account, w.currency.clone(), w.amount);
    if state == 3 {
        w.hash = format!(
            "0x{}",
            hex::encode(Sha256::digest(format!("wd{id}{now_ms}")))
        );
    }
    let acct = st.account(account);
    match state {
        3 => acct.spend_frozen(
            AccountType::Spot,
            &cur,
            amount,
            finance_type::WITHDRAW,
            now_ms,
        ),
        4 => acct.unfreeze(AccountType::Spot, &cur, amount),
        _ => {}
    }
    Ok(())
}

/// Creates a deposit record; state 3 credits the spot account at once.
#[allow(clippy::too_many_arguments)]
pub fn create_deposit(
    st: &mut State,
    seed: u64,
    account: AccountId,
    currency: &str,
    chain: &str,
    amount: Decimal,
    state: u8,
    now_ms: i64,
) -> u64 {
    let id = st.spot.next_wallet_id;
    st.spot.next_wallet_id += 1;
    let hash = format!(
        "0x{}",
        hex::encode(Sha256::digest(format!("dep{seed}:{id}")))
    );
    st.spot.deposits.push(Deposit {
        id,
        account,
        currency: currency.to_owned(),
        chain: chain.to_owned(),
        amount,
        address: address_for(seed, account, currency, chain),
        hash,
        state: 1,
        created_ms: now_ms,
        updated_ms: now_ms,
    });
    if state != 1 {
        let _ = set_deposit_state(st, id, state, now_ms);
    }
    id
}

/// Moves a deposit to `state` (forward only among 1 -> 2 -> 3, or to 4 before 3); reaching 3
/// credits the spot account.
pub fn set_deposit_state(
    st: &mut State,
    id: u64,
    state: u8,
    now_ms: i64,
) -> Result<(), StateError> {
    let d = st
        .spot
        .deposits
        .iter_mut()
        .find(|d| d.id == id)
        .ok_or(StateError::NotFound)?;
    let ok = matches!((d.state, state), (1, 2) | (1, 3) | (2, 3) | (1, 4) | (2, 4));
    if !ok {
        return Err(StateError::Transition);
    }
    d.state = state;
    d.updated_ms = now_ms;
    if state == 3 {
        let (account, cur, amount) = (d.account, d.currency.clone(), d.amount);
        st.account(account).credit(
            AccountType::Spot,
            &cur,
            amount,
            finance_type::DEPOSIT,
            now_ms,
        );
    }
    Ok(())
}
