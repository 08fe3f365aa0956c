//! The engine's state: accounts, keys, balances, each family's books and records, the orders
//! on their way to the engine, the recorded tickers and the outbox of changes. The exchange
//! applies every input to it whole, so every request is applied atomically.

use crate::config::SimConfig;
use crate::engine::accounts::{Account, AccountId, Accounts, ApiKey};
use crate::engine::latency::LatencyQueue;
use crate::engine::limiter::{Limiter, Policy};
use crate::engine::spot::store::SpotState;
use crate::engine::swap::store::SwapState;
use crate::engine::ticker::{quote, Quote, RecordedTickers};
use crate::rng::Rng;
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
    /// Orders on their way to the matching engine.
    pub latency: LatencyQueue,
    /// The last recorded tickers of replayed markets.
    pub recorded: RecordedTickers,
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
            latency: LatencyQueue::new(config),
            recorded: RecordedTickers::default(),
        }
    }

    /// Creates an account and returns its id.
    pub fn create_account(&mut self) -> AccountId {
        let id = self.next_account;
        self.next_account += 1;
        self.accounts.insert(Account::new(id));
        id
    }

    /// The ticker of spot pair `m` at `now_ms` (`None` for an unknown index).
    pub fn spot_quote(&self, m: usize, now_ms: i64) -> Option<Quote> {
        self.spot.markets.get(m)?;
        Some(quote(
            self.spot.books.get(m),
            self.spot.tapes.get(m),
            self.spot.last_price(m),
            self.recorded.spot.get(&m),
            now_ms,
            true,
        ))
    }

    /// The ticker of swap instrument `i` at `now_ms` (`None` for an unknown index).
    pub fn swap_quote(&self, i: usize, now_ms: i64) -> Option<Quote> {
        self.swap.instruments.get(i)?;
        Some(quote(
            self.swap.books.get(i),
            self.swap.tapes.get(i),
            self.swap.last_price(i),
            self.recorded.swap.get(&i),
            now_ms,
            false,
        ))
    }

    /// The account `id` for a change, created on first use (ids come from keys, so it
    /// normally exists).
    pub fn account(&mut self, id: AccountId) -> &mut Account {
        self.accounts.entry_mut(id)
    }
}
