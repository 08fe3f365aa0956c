//! The simulator's mutable state, behind one mutex: accounts, keys, balances, each family's
//! books and records, the market drivers (order flow, recorded market, order latency) and the
//! outbox of changes. Handlers lock it once per request, so every request is applied
//! atomically.

use crate::accounts::{Account, AccountId, Accounts, ApiKey};
use crate::config::SimConfig;
use crate::limiter::{Limiter, Policy};
use crate::market::feed::Feed;
use crate::rng::Rng;
use crate::spot::store::SpotState;
use crate::swap::store::SwapState;
use std::collections::HashMap;

/// All mutable state.
#[derive(Debug)]
pub struct State {
    /// Generator for ids, keys and addresses.
    pub rng: Rng,
    /// Accounts by id.
    pub accounts: Accounts,
    /// API keys by access key.
    pub keys: HashMap<String, ApiKey>,
    /// Next account id.
    pub next_account: AccountId,
    /// Spot/margin books, orders, trades, positions, deposits, withdrawals, risk state.
    pub spot: SpotState,
    /// Spot request weights.
    pub spot_limiter: Limiter,
    /// Swap books, orders, positions, funding, copy trading and request weights.
    pub swap: SwapState,
    /// What drives the markets besides the users: the order flow, a recorded market, and
    /// orders on their way to the engine.
    pub feed: Feed,
}

impl State {
    /// Fresh state for `config`, started at `now_ms`.
    pub fn new(config: &SimConfig, now_ms: i64) -> State {
        let mut rng = Rng::new(config.seed);
        let spot = SpotState::new(config, &mut rng, now_ms);
        let swap = SwapState::new(config, &mut rng, now_ms);
        State {
            rng,
            accounts: Accounts::default(),
            keys: HashMap::new(),
            next_account: 1001,
            spot,
            spot_limiter: Limiter::new(Policy::spot(config.limits.spot_weight_per_minute)),
            swap,
            feed: Feed::new(config),
        }
    }

    /// Creates an account and returns its id.
    pub fn create_account(&mut self) -> AccountId {
        let id = self.next_account;
        self.next_account += 1;
        self.accounts.insert(Account::new(id));
        id
    }

    /// The account `id` for a change, created on first use (ids come from keys, so it
    /// normally exists).
    pub fn account(&mut self, id: AccountId) -> &mut Account {
        self.accounts.entry_mut(id)
    }
}
