//! The Rust control handle ([`Control`]): the control API's operations on a running server's
//! exchange, or on an in-process one.

use super::shared::Shared;
use crate::dialect::control::desk::Desk;
use crate::dialect::control::{
    ApiKeyPair, BalanceView, BookView, ControlError, DemoAccount, FillView, FundingView,
    KeyOptions, OrderView, SwapOrderView, SwapPositionView, TradeView, WithdrawalView,
};
use crate::dialect::ws::{WsFamily, WsFault};
use crate::engine::accounts::{AccountId, AccountType, Balance, WhitelistEntry};
use crate::exchange::Exchange;
use crate::faults::FaultRule;
use rust_decimal::Decimal;
use std::sync::{Arc, Mutex};

/// Handle on a simulator's exchange (cheap to clone): a server's ([`crate::SimHandle::control`],
/// [`crate::Sim::control`]) or one in the same process ([`Control::of`]).
///
/// On a server, every call sees the state with everything due by the simulator time of the
/// call applied (the order flow, a recording's events, delayed orders), however much that is:
/// after a long clock jump through a recording a call takes as long as that catch-up, done in
/// bounded steps between which the server goes on answering. (The HTTP control API under
/// `/__sim` does one bounded step per call instead, as requests do.) On an in-process exchange
/// a call runs at its current time, and a clock operation runs everything up to the new time
/// ([`Exchange::advance_to`]).
#[derive(Debug, Clone)]
pub struct Control {
    backend: Backend,
}

#[derive(Debug, Clone)]
enum Backend {
    Server(Arc<Shared>),
    Local(Arc<Mutex<Exchange>>),
}

impl Control {
    pub(crate) fn server(shared: Arc<Shared>) -> Control {
        Control {
            backend: Backend::Server(shared),
        }
    }

    /// The handle of an in-process exchange (the one the in-process adapters share).
    pub fn of(exchange: Arc<Mutex<Exchange>>) -> Control {
        Control {
            backend: Backend::Local(exchange),
        }
    }

    /// Runs one operation: on a server after the whole catch-up, and until the markets have
    /// caught up with the time it leaves (see the type's docs).
    fn with<R>(&self, f: impl FnOnce(&mut Desk<'_>) -> R) -> R {
        match &self.backend {
            Backend::Server(shared) => {
                let mut ex = shared.settled();
                let r = ex.control(f);
                if ex.behind() {
                    drop(ex);
                    drop(shared.settled());
                }
                r
            }
            Backend::Local(ex) => {
                let mut ex = ex.lock().unwrap_or_else(|p| p.into_inner());
                ex.control(f)
            }
        }
    }

    // ---- websockets and the market ----

    /// Arms a websocket fault for the next `count` events it applies to.
    pub fn ws_fault(&self, fault: WsFault, count: u32) {
        self.with(|d| d.ws_fault(fault, count))
    }

    /// Drops every open websocket now (no close frame).
    pub fn ws_disconnect_all(&self) {
        self.with(|d| d.ws_disconnect_all())
    }

    /// Open websockets.
    pub fn ws_connections(&self) -> usize {
        self.with(|d| d.ws_connections())
    }

    /// Websocket upgrades accepted so far.
    pub fn ws_accepted(&self) -> u64 {
        self.with(|d| d.ws_accepted())
    }

    /// The JSON type (`number` or `string`) of each swap `server.auth` timestamp received, the
    /// latest 64.
    pub fn ws_auth_timestamp_kinds(&self) -> Vec<&'static str> {
        self.with(|d| d.ws_auth_timestamp_kinds())
    }

    /// Pauses the order flow (`true`) or resumes it: while paused the markets change only
    /// through the users' orders (a recorded market still replays).
    pub fn pause_flow(&self, paused: bool) {
        self.with(|d| d.pause_flow(paused))
    }

    /// Whether the order flow is paused.
    pub fn flow_paused(&self) -> bool {
        self.with(|d| d.flow_paused())
    }

    /// Events of the order flow applied so far.
    pub fn flow_events(&self) -> u64 {
        self.with(|d| d.flow_events())
    }

    /// The best `depth` levels of a spot pair (`btc_usdt`, any case) or swap instrument
    /// (`BTCUSDTPERP`) as REST and the websockets show them now: bids and asks, each best
    /// first; `None` for an unknown market.
    pub fn book(&self, family: WsFamily, target: &str, depth: usize) -> Option<BookView> {
        self.with(|d| d.book(family, target, depth))
    }

    /// The public trades of a spot pair or swap instrument that the simulator keeps, oldest
    /// first: `(id, time ms, price, quantity, taker buys)`; `None` for an unknown market.
    pub fn trades(&self, family: WsFamily, target: &str) -> Option<Vec<TradeView>> {
        self.with(|d| d.trades(family, target))
    }

    /// Listening address of the simulator.
    pub fn addr(&self) -> std::net::SocketAddr {
        self.with(|d| d.addr())
    }

    /// Simulator time (ms since the Unix epoch).
    pub fn now_ms(&self) -> i64 {
        self.with(|d| d.now_ms())
    }

    /// Moves the simulator clock by `ms` (negative moves back), stopping at the ends of the
    /// clock's range ([`crate::clock::MIN_MS`]..=[`crate::clock::MAX_MS`]); returns once the
    /// markets have caught up with the new time.
    pub fn advance_clock(&self, ms: i64) {
        self.with(|d| d.advance_clock(ms))
    }

    /// Moves the simulator clock by `ms`; a move out of the clock's range is refused and changes
    /// nothing. Returns the new simulator time.
    pub fn try_advance_clock(&self, ms: i64) -> Result<i64, ControlError> {
        self.with(|d| d.try_advance_clock(ms))
    }

    /// Sets the clock's offset from the wall clock (and lets it run), clamped so that the time
    /// stays in the clock's range.
    pub fn set_clock_offset(&self, ms: i64) {
        self.with(|d| d.set_clock_offset(ms))
    }

    /// Sets the clock's offset from the wall clock (and lets it run); an offset that puts the
    /// time out of the clock's range is refused and changes nothing. Returns the new time.
    pub fn try_set_clock_offset(&self, ms: i64) -> Result<i64, ControlError> {
        self.with(|d| d.try_set_clock_offset(ms))
    }

    /// Current offset from the wall clock (ms).
    pub fn clock_offset(&self) -> i64 {
        self.with(|d| d.clock_offset())
    }

    /// Freezes the clock at `at_ms` (clamped into the clock's range), or at the current simulator
    /// time when `None`.
    pub fn freeze_clock(&self, at_ms: Option<i64>) {
        self.with(|d| d.freeze_clock(at_ms))
    }

    /// Freezes the clock at `at_ms`, or at the current simulator time when `None`; an instant out
    /// of the clock's range is refused and changes nothing. Returns the frozen time.
    pub fn try_freeze_clock(&self, at_ms: Option<i64>) -> Result<i64, ControlError> {
        self.with(|d| d.try_freeze_clock(at_ms))
    }

    /// Lets a frozen clock run again.
    pub fn unfreeze_clock(&self) {
        self.with(|d| d.unfreeze_clock())
    }

    /// Runs the clock at `speed` simulator milliseconds per wall millisecond (1: real time;
    /// 60: a simulated minute each second, so the order flow runs an hour a minute). At least
    /// 0 and at most 10,000 (`None` otherwise, nothing changed). A frozen clock stays frozen.
    pub fn set_clock_speed(&self, speed: Decimal) -> Option<Decimal> {
        self.with(|d| d.set_clock_speed(speed))
    }

    /// The clock's speed (simulator milliseconds per wall millisecond).
    pub fn clock_speed(&self) -> Decimal {
        self.with(|d| d.clock_speed())
    }

    /// Whether the clock is frozen.
    pub fn clock_frozen(&self) -> bool {
        self.with(|d| d.clock_frozen())
    }

    /// Creates an empty account.
    pub fn create_account(&self) -> AccountId {
        self.with(|d| d.create_account())
    }

    /// Creates an API key for `account` (refused while the account is under an API trading ban).
    pub fn create_api_key(
        &self,
        account: AccountId,
        opts: KeyOptions,
    ) -> Result<ApiKeyPair, ControlError> {
        self.with(|d| d.create_api_key(account, opts))
    }

    /// Deletes a key; whether it existed.
    pub fn revoke_api_key(&self, key: &str) -> bool {
        self.with(|d| d.revoke_api_key(key))
    }

    /// Sets the free balance of a currency (frozen amounts stay). Refused, changing nothing,
    /// unless `0 <= free <= `[`crate::MAX_CONTROL_AMOUNT`] and the total stays within it too.
    pub fn set_balance(
        &self,
        account: AccountId,
        at: AccountType,
        currency: &str,
        free: Decimal,
    ) -> Result<(), ControlError> {
        self.with(|d| d.set_balance(account, at, currency, free))
    }

    /// Adds `delta` (negative to remove) to the free balance of a currency. Refused, changing
    /// nothing, when `|delta|` exceeds [`crate::MAX_CONTROL_AMOUNT`] or the free balance would end
    /// below zero or above [`crate::MAX_CONTROL_AMOUNT`] (free plus frozen too).
    pub fn credit(
        &self,
        account: AccountId,
        at: AccountType,
        currency: &str,
        delta: Decimal,
    ) -> Result<(), ControlError> {
        self.with(|d| d.credit(account, at, currency, delta))
    }

    /// Balance of one currency.
    pub fn balance(
        &self,
        account: AccountId,
        at: AccountType,
        currency: &str,
    ) -> Result<Balance, ControlError> {
        self.with(|d| d.balance(account, at, currency))
    }

    /// Every balance of an account.
    pub fn balances(&self, account: AccountId) -> Result<Vec<BalanceView>, ControlError> {
        self.with(|d| d.balances(account))
    }

    /// Adds a withdrawal address to the account's whitelist.
    pub fn whitelist_address(
        &self,
        account: AccountId,
        entry: WhitelistEntry,
    ) -> Result<(), ControlError> {
        self.with(|d| d.whitelist_address(account, entry))
    }

    /// Creates a deposit in `state` (3 credits the spot account at once; 1 or 2 wait for
    /// [`Control::set_deposit_state`]).
    pub fn credit_deposit(
        &self,
        account: AccountId,
        currency: &str,
        chain: &str,
        amount: Decimal,
        state: u8,
    ) -> Result<u64, ControlError> {
        self.with(|d| d.credit_deposit(account, currency, chain, amount, state))
    }

    /// Moves a deposit to `state` (reaching 3 credits it).
    pub fn set_deposit_state(&self, id: u64, state: u8) -> Result<(), ControlError> {
        self.with(|d| d.set_deposit_state(id, state))
    }

    /// Moves a withdrawal to `state` (2 to be confirmed, 3 completed, 4 rejected).
    pub fn set_withdrawal_state(&self, id: u64, state: u8) -> Result<(), ControlError> {
        self.with(|d| d.set_withdrawal_state(id, state))
    }

    /// Withdrawals of an account, oldest first.
    pub fn withdrawals(&self, account: AccountId) -> Vec<WithdrawalView> {
        self.with(|d| d.withdrawals(account))
    }

    /// Suspends or resumes trading of a pair (20002 while suspended); `false` for an unknown pair.
    pub fn set_market_status(&self, symbol: &str, status: crate::MarketStatus) -> bool {
        self.with(|d| d.set_market_status(symbol, status))
    }

    /// Allows or forbids API trading of a pair (20042 when forbidden); `false` for an unknown
    /// pair.
    pub fn set_api_tradable(&self, symbol: &str, allowed: bool) -> bool {
        self.with(|d| d.set_api_tradable(symbol, allowed))
    }

    /// The account and secret of an API key that is usable now (the websocket `server.auth`).
    pub fn key_account(&self, key: &str) -> Option<(AccountId, String)> {
        self.with(|d| d.key_account(key))
    }

    /// Whether a spot market exists (`BTC_USDT` or `btc_usdt`).
    pub fn has_spot_market(&self, symbol: &str) -> bool {
        self.with(|d| d.has_spot_market(symbol))
    }

    /// Whether a swap instrument exists.
    pub fn has_swap_instrument(&self, instrument: &str) -> bool {
        self.with(|d| d.has_swap_instrument(instrument))
    }

    /// Sets the mark price of a swap instrument (`None`: follow the book mid again). Copy-trading
    /// TP/SL plans on the mark price are checked at once.
    pub fn set_mark_price(
        &self,
        instrument: &str,
        price: Option<Decimal>,
    ) -> Result<(), ControlError> {
        self.with(|d| d.set_mark_price(instrument, price))
    }

    /// Sets the index price of a swap instrument (`None`: equal to the mark price again).
    pub fn set_index_price(
        &self,
        instrument: &str,
        price: Option<Decimal>,
    ) -> Result<(), ControlError> {
        self.with(|d| d.set_index_price(instrument, price))
    }

    /// Sets the funding rate applied at the instrument's next funding time.
    pub fn set_funding_rate(&self, instrument: &str, rate: Decimal) -> Result<(), ControlError> {
        self.with(|d| d.set_funding_rate(instrument, rate))
    }

    /// Next funding time (ms) of the swap instruments.
    pub fn next_funding_time(&self) -> i64 {
        self.with(|d| d.next_funding_time())
    }

    /// Moves the simulator clock to the next funding time and settles funding there; returns
    /// that time.
    pub fn advance_to_funding(&self) -> i64 {
        self.with(|d| d.advance_to_funding())
    }

    /// Opens or suspends trading of a swap instrument (401004 while suspended); `false` for an
    /// unknown instrument.
    pub fn set_swap_trading(&self, instrument: &str, trading: bool) -> bool {
        self.with(|d| d.set_swap_trading(instrument, trading))
    }

    /// Kept swap orders of an account (copy-trading orders included), oldest first.
    pub fn swap_orders(&self, account: AccountId) -> Vec<SwapOrderView> {
        self.with(|d| d.swap_orders(account))
    }

    /// Number of swap orders kept for an account: its open orders and the finished ones within
    /// [`crate::Retention`] (every order it placed while that bound is not reached).
    pub fn swap_order_count(&self, account: AccountId) -> usize {
        self.with(|d| d.swap_order_count(account))
    }

    /// Number of unfinished (state 0 or 1) swap orders of an account.
    pub fn swap_open_order_count(&self, account: AccountId) -> usize {
        self.with(|d| d.swap_open_order_count(account))
    }

    /// Swap positions of an account.
    pub fn swap_positions(&self, account: AccountId) -> Vec<SwapPositionView> {
        self.with(|d| d.swap_positions(account))
    }

    /// Adds a fault rule; returns its id.
    pub fn add_fault(&self, rule: FaultRule) -> u64 {
        self.with(|d| d.add_fault(rule))
    }

    /// Removes a fault rule; whether it existed.
    pub fn remove_fault(&self, id: u64) -> bool {
        self.with(|d| d.remove_fault(id))
    }

    /// Removes every fault rule.
    pub fn clear_faults(&self) {
        self.with(|d| d.clear_faults())
    }

    /// Active fault rules with their ids.
    pub fn faults(&self) -> Vec<(u64, FaultRule)> {
        self.with(|d| d.faults())
    }

    /// Counters of the recorded market being replayed (records read, events applied, lines
    /// skipped, whether the recording has ended); `None` without a replay
    /// ([`crate::SimConfig::market`]).
    pub fn replay_stats(&self) -> Option<crate::market::ReplayStats> {
        self.with(|d| d.replay_stats())
    }

    /// Orders placed but still on their way to the matching engine ([`crate::Latency`]).
    pub fn pending_orders(&self) -> usize {
        self.with(|d| d.pending_orders())
    }

    /// Number of handler panics the server caught (0 unless the simulator has a bug; tests
    /// assert it stays 0).
    pub fn panics(&self) -> u64 {
        self.with(|d| d.panics())
    }

    /// The fills of an account's orders that the exchange keeps (spot and margin, then swap;
    /// each oldest first, within [`crate::Retention`]): what a backtest's report is made of.
    pub fn fills(&self, account: AccountId) -> Vec<FillView> {
        self.with(|d| d.fills(account))
    }

    /// The funding settlements of an account's swap positions, oldest first (each instrument
    /// at its own interval, at the rate and mark price of the time).
    pub fn funding_fees(&self, account: AccountId) -> Vec<FundingView> {
        self.with(|d| d.funding_fees(account))
    }

    /// Kept spot and margin orders of an account, oldest first.
    pub fn orders(&self, account: AccountId) -> Vec<OrderView> {
        self.with(|d| d.orders(account))
    }

    /// Number of spot and margin orders kept for an account: its open orders and the finished
    /// ones within [`crate::Retention`] (every order it placed while that bound is not reached).
    pub fn order_count(&self, account: AccountId) -> usize {
        self.with(|d| d.order_count(account))
    }

    /// Number of open (status 0 or 1) orders of an account.
    pub fn open_order_count(&self, account: AccountId) -> usize {
        self.with(|d| d.open_order_count(account))
    }

    /// Forgets request-weight counters, weight bans (spot and swap) and API trading bans.
    pub fn reset_limits(&self) {
        self.with(|d| d.reset_limits())
    }

    /// The simulator's demo account: a funded account with a key holding every permission
    /// ([`Control::funded_account`]), made by the first call; every later call (and
    /// `POST /__sim/demo`) gives the same account and key. For more accounts:
    /// [`Control::funded_account`], or [`Control::create_account`] with
    /// [`Control::create_api_key`] and balances of your own.
    pub fn demo_account(&self) -> DemoAccount {
        self.with(|d| d.demo_account())
    }

    /// Creates a new funded account with a key holding every permission, on every call.
    ///
    /// Spot: 100000 USDT, 2 BTC, 20 ETH, 50000 XRP; margin: 10000 USDT; OTC: 1000 USDT; swap:
    /// 10000 USDT. Whitelisted withdrawal addresses: its own USDT ERC20, BTC and ETH deposit
    /// addresses.
    pub fn funded_account(&self) -> DemoAccount {
        self.with(|d| d.funded_account())
    }
}
