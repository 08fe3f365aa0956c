//! The control API: what tests, the CLI and users call to set the simulator up and inspect it.
//!
//! The same operations are served over HTTP under `/__sim/` (see [`http`]), a prefix the real
//! API never uses.

pub mod http;

use crate::accounts::{AccountId, AccountType, ApiKey, Balance, Permissions, WhitelistEntry};
use crate::exchange::Exchange;
use crate::faults::FaultRule;
use crate::spot::engine::Order;
use crate::spot::wallet::{self, StateError};
use crate::state::State;
use crate::ws::{SharedHub, WsFamily, WsFault};
use rust_decimal::Decimal;
use std::net::IpAddr;
use std::sync::Arc;

/// Options of a new API key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyOptions {
    /// Permissions (read and trade by default).
    pub permissions: Permissions,
    /// Allowed caller IPs; empty allows any.
    pub ip_whitelist: Vec<IpAddr>,
    /// Expiry time (simulator clock, ms); `None` never expires.
    pub expires_at_ms: Option<i64>,
}

impl KeyOptions {
    /// Read, trade and withdraw permissions, no IP restriction, no expiry.
    pub fn all() -> KeyOptions {
        KeyOptions {
            permissions: Permissions {
                read: true,
                trade: true,
                withdraw: true,
            },
            ..KeyOptions::default()
        }
    }
}

/// A created key pair.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKeyPair {
    /// Access key (`ACCESS-KEY`).
    pub key: String,
    /// Secret key (HMAC key).
    pub secret: String,
}

impl std::fmt::Debug for ApiKeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKeyPair")
            .field("key", &self.key)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// A funded account with a key holding every permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoAccount {
    /// Account id.
    pub account: AccountId,
    /// Its key pair.
    pub keys: ApiKeyPair,
}

/// One balance row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceView {
    /// Account type.
    pub account_type: AccountType,
    /// Currency.
    pub currency: String,
    /// Free and frozen amounts.
    pub balance: Balance,
}

/// An order as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderView {
    /// Order id.
    pub order_id: String,
    /// Pair.
    pub symbol: String,
    /// `spot` or `margin`.
    pub kind: &'static str,
    /// `buy`, `sell`, `buy_market`, `sell_market`.
    pub order_type: &'static str,
    /// Limit price (0 for market).
    pub price: Decimal,
    /// Base amount.
    pub amount: Decimal,
    /// Quote amount of a market buy.
    pub cash_amount: Decimal,
    /// Executed base amount.
    pub executed_amount: Decimal,
    /// Status code (0-4).
    pub status: u8,
    /// Creation time (ms).
    pub created_ms: i64,
}

impl OrderView {
    fn of(o: &Order) -> OrderView {
        OrderView {
            order_id: o.id.clone(),
            symbol: o.symbol.clone(),
            kind: o.kind.name(),
            order_type: o.type_text(),
            price: o.price,
            amount: o.amount,
            cash_amount: o.cash_amount,
            executed_amount: o.executed,
            status: o.status,
            created_ms: o.created_ms,
        }
    }
}

/// A swap order as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapOrderView {
    /// Order id.
    pub order_id: String,
    /// Instrument id.
    pub instrument_id: String,
    /// 1 open long, 2 open short, 3 close long, 4 close short.
    pub kind: i64,
    /// `order_type` code.
    pub order_type: i64,
    /// Price (market-style types: the worst price they could reach).
    pub price: Decimal,
    /// Size in contracts.
    pub size: Decimal,
    /// Filled contracts.
    pub filled: Decimal,
    /// State: 0 open, 1 part filled, 2 filled, -1 cancelled.
    pub state: i64,
    /// `crossed` or `isolated`.
    pub margin_mode: &'static str,
    /// Placed through copy trading.
    pub copy: bool,
    /// Creation time (ms).
    pub created_ms: i64,
}

/// A swap position as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapPositionView {
    /// Instrument id.
    pub instrument_id: String,
    /// `long` or `short`.
    pub side: &'static str,
    /// `crossed` or `isolated`.
    pub margin_mode: &'static str,
    /// Contracts.
    pub size: Decimal,
    /// Average entry price.
    pub avg_cost: Decimal,
    /// Margin locked.
    pub margin: Decimal,
    /// Leverage.
    pub leverage: Decimal,
}

/// A withdrawal as the control API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithdrawalView {
    /// Id.
    pub id: u64,
    /// Currency.
    pub currency: String,
    /// Chain.
    pub chain: String,
    /// Amount (fee included).
    pub amount: Decimal,
    /// Fee.
    pub fee: Decimal,
    /// Address.
    pub address: String,
    /// State 1-4.
    pub state: u8,
}

/// Control API errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ControlError {
    /// No such account.
    #[error("unknown account {0}")]
    UnknownAccount(AccountId),
    /// No such deposit, withdrawal or other record.
    #[error("{0} {1} not found")]
    NotFound(&'static str, u64),
    /// The state change is not allowed from the record's current state.
    #[error("state transition not allowed")]
    InvalidTransition,
    /// The account is under an API trading ban (no new keys).
    #[error("API trading banned: no new API keys until the ban ends")]
    ApiTradingBanned,
    /// A parameter is invalid.
    #[error("invalid parameter: {0}")]
    Invalid(String),
}

/// Largest amount the control API puts into a balance or a deposit (10^15): far above any
/// real balance, and small enough that the engines' products (amount times price, price up to
/// 10^12) stay within `Decimal`'s range.
///
/// DESIGN: the notes leave control input open; a value past this is refused with a message
/// naming the field instead of overflowing later in a handler.
pub const MAX_CONTROL_AMOUNT: Decimal = Decimal::from_parts(2_764_472_320, 232_830, 0, false, 0);

/// Largest mark or index price the control API sets (10^12).
pub const MAX_SWAP_PRICE: Decimal = Decimal::from_parts(3_567_587_328, 232, 0, false, 0);

fn clock_err(e: crate::clock::OutOfRange) -> ControlError {
    ControlError::Invalid(e.to_string())
}

/// A free balance the control API may set: `0..=MAX_CONTROL_AMOUNT`, free plus frozen within it.
fn check_balance(free: Decimal, frozen: Decimal) -> Result<(), ControlError> {
    if free < Decimal::ZERO {
        return Err(ControlError::Invalid(
            "the free balance would become negative".to_owned(),
        ));
    }
    match free.checked_add(frozen) {
        Some(total) if total <= MAX_CONTROL_AMOUNT => Ok(()),
        _ => Err(ControlError::Invalid(format!(
            "the balance (free plus frozen) would exceed {MAX_CONTROL_AMOUNT}"
        ))),
    }
}

/// A book as [`Control::book`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookView {
    /// Bids, best (highest) first: (price, quantity).
    pub bids: Vec<(Decimal, Decimal)>,
    /// Asks, best (lowest) first.
    pub asks: Vec<(Decimal, Decimal)>,
}

/// A public trade as [`Control::trades`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradeView {
    /// Trade id (REST's and the websockets').
    pub id: u64,
    /// Time (ms).
    pub time_ms: i64,
    /// Price.
    pub price: Decimal,
    /// Quantity (spot base, swap contracts).
    pub qty: Decimal,
    /// Whether the taker bought.
    pub buy: bool,
}

/// Handle on a running simulator's state (cheap to clone).
///
/// Every call sees the state with everything due by the simulator time of the call applied
/// (the order flow, a recording's events, delayed orders), however much that is: after a long
/// clock jump through a recording a call takes as long as that catch-up, done in bounded
/// steps between which the server goes on answering. (The HTTP control API under `/__sim` does
/// one bounded step per call instead, as requests do.)
#[derive(Debug, Clone)]
pub struct Control {
    shared: Arc<Exchange>,
    hub: SharedHub,
    /// Whether each call waits for the whole catch-up (the Rust handle) or does one step (the
    /// HTTP control API, on the server's own thread).
    settle: bool,
}

impl Control {
    pub(crate) fn new(shared: Arc<Exchange>, hub: SharedHub) -> Control {
        Control {
            shared,
            hub,
            settle: true,
        }
    }

    /// The handle the HTTP control API uses: one bounded step per call.
    pub(crate) fn stepping(shared: Arc<Exchange>, hub: SharedHub) -> Control {
        Control {
            shared,
            hub,
            settle: false,
        }
    }

    /// The locked state, caught up (see the type's docs).
    fn state(&self) -> crate::exchange::StateGuard<'_> {
        if self.settle {
            self.shared.settled_state()
        } else {
            self.shared.state()
        }
    }

    // ---- websockets and the market ----

    /// Arms a websocket fault for the next `count` events it applies to.
    pub fn ws_fault(&self, fault: WsFault, count: u32) {
        crate::ws::lock(&self.hub).fault(fault, count);
    }

    /// Drops every open websocket now (no close frame).
    pub fn ws_disconnect_all(&self) {
        crate::ws::lock(&self.hub).disconnect_all();
    }

    /// Open websockets.
    pub fn ws_connections(&self) -> usize {
        crate::ws::lock(&self.hub).connections()
    }

    /// Websocket upgrades accepted so far.
    pub fn ws_accepted(&self) -> u64 {
        crate::ws::lock(&self.hub).accepted()
    }

    /// The JSON type (`number` or `string`) of each swap `server.auth` timestamp received, the
    /// latest 64.
    pub fn ws_auth_timestamp_kinds(&self) -> Vec<&'static str> {
        crate::ws::lock(&self.hub).auth_timestamp_kinds()
    }

    /// Pauses the order flow (`true`) or resumes it: while paused the markets change only
    /// through the users' orders (a recorded market still replays).
    pub fn pause_flow(&self, paused: bool) {
        let now = self.now_ms();
        let mut st = self.state();
        let State {
            feed, spot, swap, ..
        } = &mut *st;
        feed.flow.set_paused(paused, now, |t| match t {
            crate::market::target::Target::Spot(m) => spot.books.get(m),
            crate::market::target::Target::Swap(i) => swap.books.get(i),
        });
    }

    /// Whether the order flow is paused.
    pub fn flow_paused(&self) -> bool {
        self.state().feed.flow.paused()
    }

    /// Events of the order flow applied so far.
    pub fn flow_events(&self) -> u64 {
        self.state().feed.flow.events
    }

    /// The best `depth` levels of a spot pair (`btc_usdt`, any case) or swap instrument
    /// (`BTCUSDTPERP`) as REST and the websockets show them now: bids and asks, each best
    /// first; `None` for an unknown market.
    pub fn book(&self, family: WsFamily, target: &str, depth: usize) -> Option<BookView> {
        let st = self.state();
        let book = match family {
            WsFamily::Spot => {
                let m = st
                    .spot
                    .by_symbol
                    .get(&target.to_ascii_lowercase())
                    .copied()?;
                st.spot.books.get(m)?
            }
            WsFamily::Swap => st.swap.books.get(st.swap.index(target)?)?,
        };
        Some(BookView {
            bids: book.levels(crate::book::Side::Buy, depth),
            asks: book.levels(crate::book::Side::Sell, depth),
        })
    }

    /// The public trades of a spot pair or swap instrument that the simulator keeps, oldest
    /// first: `(id, time ms, price, quantity, taker buys)`; `None` for an unknown market.
    pub fn trades(&self, family: WsFamily, target: &str) -> Option<Vec<TradeView>> {
        let st = self.state();
        let tape = match family {
            WsFamily::Spot => {
                let m = st
                    .spot
                    .by_symbol
                    .get(&target.to_ascii_lowercase())
                    .copied()?;
                st.spot.tapes.get(m)?
            }
            WsFamily::Swap => st.swap.tapes.get(st.swap.index(target)?)?,
        };
        Some(
            tape.trades()
                .iter()
                .map(|t| TradeView {
                    id: t.id,
                    time_ms: t.time_ms,
                    price: t.price,
                    qty: t.qty,
                    buy: t.side == crate::book::Side::Buy,
                })
                .collect(),
        )
    }

    /// Listening address of the simulator.
    pub fn addr(&self) -> std::net::SocketAddr {
        self.shared.addr
    }

    // ---- clock ----

    /// Simulator time (ms since the Unix epoch).
    pub fn now_ms(&self) -> i64 {
        self.shared.clock.now_ms()
    }

    /// After a change of the clock: the markets are brought up to the new time (the Rust
    /// handle waits for all of it; the HTTP API starts it with one step, see the type's docs).
    fn moved(&self) {
        drop(self.state());
    }

    /// Moves the simulator clock by `ms` (negative moves back), stopping at the ends of the
    /// clock's range ([`crate::clock::MIN_MS`]..=[`crate::clock::MAX_MS`]); returns once the
    /// markets have caught up with the new time.
    pub fn advance_clock(&self, ms: i64) {
        self.shared.clock.advance_ms(ms);
        self.moved();
    }

    /// Moves the simulator clock by `ms`; a move out of the clock's range is refused and changes
    /// nothing. Returns the new simulator time.
    pub fn try_advance_clock(&self, ms: i64) -> Result<i64, ControlError> {
        let t = self.shared.clock.try_advance_ms(ms).map_err(clock_err)?;
        self.moved();
        Ok(t)
    }

    /// Sets the clock's offset from the wall clock (and lets it run), clamped so that the time
    /// stays in the clock's range.
    pub fn set_clock_offset(&self, ms: i64) {
        self.shared.clock.set_offset_ms(ms);
        self.moved();
    }

    /// Sets the clock's offset from the wall clock (and lets it run); an offset that puts the
    /// time out of the clock's range is refused and changes nothing. Returns the new time.
    pub fn try_set_clock_offset(&self, ms: i64) -> Result<i64, ControlError> {
        let t = self.shared.clock.try_set_offset_ms(ms).map_err(clock_err)?;
        self.moved();
        Ok(t)
    }

    /// Current offset from the wall clock (ms).
    pub fn clock_offset(&self) -> i64 {
        self.shared.clock.offset_ms()
    }

    /// Freezes the clock at `at_ms` (clamped into the clock's range), or at the current simulator
    /// time when `None`.
    pub fn freeze_clock(&self, at_ms: Option<i64>) {
        match at_ms {
            Some(at) => self.shared.clock.freeze_at(at),
            None => {
                self.shared.clock.freeze_now();
            }
        }
        self.moved();
    }

    /// Freezes the clock at `at_ms`, or at the current simulator time when `None`; an instant out
    /// of the clock's range is refused and changes nothing. Returns the frozen time.
    pub fn try_freeze_clock(&self, at_ms: Option<i64>) -> Result<i64, ControlError> {
        let t = match at_ms {
            Some(at) => self.shared.clock.try_freeze_at(at).map_err(clock_err)?,
            None => self.shared.clock.freeze_now(),
        };
        self.moved();
        Ok(t)
    }

    /// Lets a frozen clock run again.
    pub fn unfreeze_clock(&self) {
        self.shared.clock.unfreeze();
    }

    /// Runs the clock at `speed` simulator milliseconds per wall millisecond (1: real time;
    /// 60: a simulated minute each second, so the order flow runs an hour a minute). At least
    /// 0 and at most 10,000 (`None` otherwise, nothing changed). A frozen clock stays frozen.
    pub fn set_clock_speed(&self, speed: Decimal) -> Option<Decimal> {
        if speed < Decimal::ZERO || speed > Decimal::from(10_000) {
            return None;
        }
        self.shared.clock.set_speed(speed);
        Some(speed)
    }

    /// The clock's speed (simulator milliseconds per wall millisecond).
    pub fn clock_speed(&self) -> Decimal {
        self.shared.clock.speed()
    }

    /// Whether the clock is frozen.
    pub fn clock_frozen(&self) -> bool {
        self.shared.clock.is_frozen()
    }

    // ---- accounts and keys ----

    /// Creates an empty account.
    pub fn create_account(&self) -> AccountId {
        self.state().create_account()
    }

    fn require(&self, account: AccountId) -> Result<(), ControlError> {
        if self.state().accounts.contains_key(&account) {
            Ok(())
        } else {
            Err(ControlError::UnknownAccount(account))
        }
    }

    /// Creates an API key for `account` (refused while the account is under an API trading ban).
    pub fn create_api_key(
        &self,
        account: AccountId,
        opts: KeyOptions,
    ) -> Result<ApiKeyPair, ControlError> {
        let now = self.now_ms();
        let mut st = self.state();
        if !st.accounts.contains_key(&account) {
            return Err(ControlError::UnknownAccount(account));
        }
        if self.shared.config.limits.risk_control {
            crate::spot::risk::evaluate(&mut st.spot, account, now);
            if st
                .spot
                .risk
                .get(&account)
                .is_some_and(|r| r.banned_until > now)
            {
                return Err(ControlError::ApiTradingBanned);
            }
        }
        let key = st.rng.hex(16);
        let secret = st.rng.hex(32);
        st.keys.insert(
            key.clone(),
            ApiKey {
                key: key.clone(),
                secret: secret.clone(),
                account,
                permissions: opts.permissions,
                ip_whitelist: opts.ip_whitelist,
                expires_at_ms: opts.expires_at_ms,
            },
        );
        Ok(ApiKeyPair { key, secret })
    }

    /// Deletes a key; whether it existed.
    pub fn revoke_api_key(&self, key: &str) -> bool {
        self.state().keys.remove(key).is_some()
    }

    /// Sets the free balance of a currency (frozen amounts stay). Refused, changing nothing,
    /// unless `0 <= free <= `[`MAX_CONTROL_AMOUNT`] and the total stays within it too.
    pub fn set_balance(
        &self,
        account: AccountId,
        at: AccountType,
        currency: &str,
        free: Decimal,
    ) -> Result<(), ControlError> {
        let now = self.now_ms();
        let currency = currency.to_ascii_uppercase();
        let mut st = self.state();
        let a = st
            .accounts
            .get(&account)
            .ok_or(ControlError::UnknownAccount(account))?;
        let frozen = a.balance(at, &currency).frozen;
        check_balance(free, frozen)?;
        st.account(account).set_free(at, &currency, free, now);
        Ok(())
    }

    /// Adds `delta` (negative to remove) to the free balance of a currency. Refused, changing
    /// nothing, when `|delta|` exceeds [`MAX_CONTROL_AMOUNT`] or the free balance would end
    /// below zero or above [`MAX_CONTROL_AMOUNT`] (free plus frozen too).
    pub fn credit(
        &self,
        account: AccountId,
        at: AccountType,
        currency: &str,
        delta: Decimal,
    ) -> Result<(), ControlError> {
        if delta.abs() > MAX_CONTROL_AMOUNT {
            return Err(ControlError::Invalid(format!(
                "amount must be within -{MAX_CONTROL_AMOUNT}..={MAX_CONTROL_AMOUNT}"
            )));
        }
        let now = self.now_ms();
        let currency = currency.to_ascii_uppercase();
        let mut st = self.state();
        let a = st
            .accounts
            .get(&account)
            .ok_or(ControlError::UnknownAccount(account))?;
        let b = a.balance(at, &currency);
        let free = b
            .free
            .checked_add(delta)
            .ok_or_else(|| ControlError::Invalid("amount overflows the free balance".to_owned()))?;
        check_balance(free, b.frozen)?;
        st.account(account).credit(
            at,
            &currency,
            delta,
            crate::accounts::finance_type::CONTROL,
            now,
        );
        Ok(())
    }

    /// Balance of one currency.
    pub fn balance(
        &self,
        account: AccountId,
        at: AccountType,
        currency: &str,
    ) -> Result<Balance, ControlError> {
        let st = self.state();
        let a = st
            .accounts
            .get(&account)
            .ok_or(ControlError::UnknownAccount(account))?;
        Ok(a.balance(at, &currency.to_ascii_uppercase()))
    }

    /// Every balance of an account.
    pub fn balances(&self, account: AccountId) -> Result<Vec<BalanceView>, ControlError> {
        let st = self.state();
        let a = st
            .accounts
            .get(&account)
            .ok_or(ControlError::UnknownAccount(account))?;
        Ok(a.balances
            .iter()
            .map(|((at, cur), b)| BalanceView {
                account_type: *at,
                currency: cur.clone(),
                balance: *b,
            })
            .collect())
    }

    /// Adds a withdrawal address to the account's whitelist.
    pub fn whitelist_address(
        &self,
        account: AccountId,
        mut entry: WhitelistEntry,
    ) -> Result<(), ControlError> {
        self.require(account)?;
        entry.currency = entry.currency.to_ascii_uppercase();
        self.shared
            .state()
            .account(account)
            .withdraw_whitelist
            .push(entry);
        Ok(())
    }

    // ---- deposits and withdrawals ----

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
        self.require(account)?;
        if !(1..=4).contains(&state) {
            return Err(ControlError::Invalid("state must be 1-4".to_owned()));
        }
        if amount <= Decimal::ZERO || amount > MAX_CONTROL_AMOUNT {
            return Err(ControlError::Invalid(format!(
                "amount must be positive and at most {MAX_CONTROL_AMOUNT}"
            )));
        }
        let now = self.now_ms();
        let seed = self.shared.config.seed;
        let mut st = self.state();
        Ok(wallet::create_deposit(
            &mut st,
            seed,
            account,
            &currency.to_ascii_uppercase(),
            chain,
            amount,
            state,
            now,
        ))
    }

    /// Moves a deposit to `state` (reaching 3 credits it).
    pub fn set_deposit_state(&self, id: u64, state: u8) -> Result<(), ControlError> {
        let now = self.now_ms();
        wallet::set_deposit_state(&mut self.state(), id, state, now).map_err(|e| match e {
            StateError::NotFound => ControlError::NotFound("deposit", id),
            StateError::Transition => ControlError::InvalidTransition,
        })
    }

    /// Moves a withdrawal to `state` (2 to be confirmed, 3 completed, 4 rejected).
    pub fn set_withdrawal_state(&self, id: u64, state: u8) -> Result<(), ControlError> {
        let now = self.now_ms();
        wallet::set_withdrawal_state(&mut self.state(), id, state, now).map_err(|e| match e {
            StateError::NotFound => ControlError::NotFound("withdrawal", id),
            StateError::Transition => ControlError::InvalidTransition,
        })
    }

    /// Withdrawals of an account, oldest first.
    pub fn withdrawals(&self, account: AccountId) -> Vec<WithdrawalView> {
        self.shared
            .state()
            .spot
            .withdrawals
            .iter()
            .filter(|w| w.account == account)
            .map(|w| WithdrawalView {
                id: w.id,
                currency: w.currency.clone(),
                chain: w.chain.clone(),
                amount: w.amount,
                fee: w.fee,
                address: w.address.clone(),
                state: w.state,
            })
            .collect()
    }

    // ---- markets ----

    /// Suspends or resumes trading of a pair (20002 while suspended); `false` for an unknown pair.
    pub fn set_market_status(&self, symbol: &str, status: crate::MarketStatus) -> bool {
        let mut st = self.state();
        let sym = symbol.to_ascii_lowercase();
        match st.spot.by_symbol.get(&sym).copied() {
            Some(i) => st
                .spot
                .markets
                .get_mut(i)
                .map(|m| m.status = status)
                .is_some(),
            None => false,
        }
    }

    /// Allows or forbids API trading of a pair (20042 when forbidden); `false` for an unknown
    /// pair.
    pub fn set_api_tradable(&self, symbol: &str, allowed: bool) -> bool {
        let mut st = self.state();
        let sym = symbol.to_ascii_lowercase();
        match st.spot.by_symbol.get(&sym).copied() {
            Some(i) => st
                .spot
                .markets
                .get_mut(i)
                .map(|m| m.api_tradable = allowed)
                .is_some(),
            None => false,
        }
    }

    // ---- swap ----

    fn swap_index(&self, instrument: &str) -> Result<usize, ControlError> {
        self.shared
            .state()
            .swap
            .index(instrument)
            .ok_or_else(|| ControlError::Invalid(format!("unknown instrument {instrument}")))
    }

    /// The account and secret of an API key that is usable now (the websocket `server.auth`).
    pub fn key_account(&self, key: &str) -> Option<(AccountId, String)> {
        let now = self.now_ms();
        let state = self.state();
        let k = state.keys.get(key)?;
        if k.expires_at_ms.is_some_and(|t| t <= now) {
            return None;
        }
        Some((k.account, k.secret.clone()))
    }

    /// Whether a spot market exists (`BTC_USDT` or `btc_usdt`).
    pub fn has_spot_market(&self, symbol: &str) -> bool {
        self.shared
            .config
            .markets
            .iter()
            .any(|m| format!("{}_{}", m.base, m.quote).eq_ignore_ascii_case(symbol))
    }

    /// Whether a swap instrument exists.
    pub fn has_swap_instrument(&self, instrument: &str) -> bool {
        self.state().swap.index(instrument).is_some()
    }

    /// Runs funding settlements and TP/SL triggers due at the current simulator time.
    fn swap_tick(&self) {
        let now = self.now_ms();
        crate::swap::timed::tick(&mut self.state(), now);
    }

    /// Sets the mark price of a swap instrument (`None`: follow the book mid again). Copy-trading
    /// TP/SL plans on the mark price are checked at once.
    pub fn set_mark_price(
        &self,
        instrument: &str,
        price: Option<Decimal>,
    ) -> Result<(), ControlError> {
        let i = self.swap_index(instrument)?;
        if price.is_some_and(|p| p <= Decimal::ZERO || p > MAX_SWAP_PRICE) {
            return Err(ControlError::Invalid(
                "price must be positive and at most 1e12".to_owned(),
            ));
        }
        if let Some(m) = self.state().swap.marks.get_mut(i) {
            *m = price;
        }
        self.swap_tick();
        Ok(())
    }

    /// Sets the index price of a swap instrument (`None`: equal to the mark price again).
    pub fn set_index_price(
        &self,
        instrument: &str,
        price: Option<Decimal>,
    ) -> Result<(), ControlError> {
        let i = self.swap_index(instrument)?;
        if price.is_some_and(|p| p <= Decimal::ZERO || p > MAX_SWAP_PRICE) {
            return Err(ControlError::Invalid(
                "price must be positive and at most 1e12".to_owned(),
            ));
        }
        if let Some(m) = self.state().swap.indexes.get_mut(i) {
            *m = price;
        }
        self.swap_tick();
        Ok(())
    }

    /// Sets the funding rate applied at the instrument's next funding time.
    pub fn set_funding_rate(&self, instrument: &str, rate: Decimal) -> Result<(), ControlError> {
        let i = self.swap_index(instrument)?;
        if rate.abs() >= Decimal::ONE {
            return Err(ControlError::Invalid(
                "rate must be within (-1, 1)".to_owned(),
            ));
        }
        if let Some(f) = self.state().swap.funding.get_mut(i) {
            f.rate = rate;
        }
        Ok(())
    }

    /// Next funding time (ms) of the swap instruments.
    pub fn next_funding_time(&self) -> i64 {
        self.swap_tick();
        let st = self.state();
        st.swap
            .funding
            .iter()
            .map(|f| f.next_time)
            .min()
            .unwrap_or_else(|| self.now_ms())
    }

    /// Moves the simulator clock to the next funding time and settles funding there; returns
    /// that time.
    pub fn advance_to_funding(&self) -> i64 {
        let next = self.next_funding_time();
        let now = self.now_ms();
        if next > now {
            self.advance_clock(next - now);
        }
        self.swap_tick();
        next
    }

    /// Opens or suspends trading of a swap instrument (401004 while suspended); `false` for an
    /// unknown instrument.
    pub fn set_swap_trading(&self, instrument: &str, trading: bool) -> bool {
        let mut st = self.state();
        match st.swap.index(instrument) {
            Some(i) => st
                .swap
                .instruments
                .get_mut(i)
                .map(|m| m.is_trading = trading)
                .is_some(),
            None => false,
        }
    }

    /// Kept swap orders of an account (copy-trading orders included), oldest first.
    pub fn swap_orders(&self, account: AccountId) -> Vec<SwapOrderView> {
        self.swap_tick();
        let st = self.state();
        let sw = &st.swap;
        sw.order_ids(account)
            .filter_map(|id| sw.orders.get(id))
            .map(|o| SwapOrderView {
                order_id: o.id.clone(),
                instrument_id: sw
                    .instruments
                    .get(o.inst)
                    .map(|m| m.instrument_id.clone())
                    .unwrap_or_default(),
                kind: o.kind,
                order_type: o.order_type,
                price: o.price,
                size: o.size,
                filled: o.filled,
                state: o.state,
                margin_mode: o.margin_mode.text(),
                copy: o.copy,
                created_ms: o.insert_ms,
            })
            .collect()
    }

    /// Number of swap orders kept for an account: its open orders and the finished ones within
    /// [`crate::Retention`] (every order it placed while that bound is not reached).
    pub fn swap_order_count(&self, account: AccountId) -> usize {
        self.shared
            .state()
            .swap
            .user_orders
            .get(&account)
            .map_or(0, |log| log.len())
    }

    /// Number of unfinished (state 0 or 1) swap orders of an account.
    pub fn swap_open_order_count(&self, account: AccountId) -> usize {
        self.swap_orders(account)
            .iter()
            .filter(|o| o.state == 0 || o.state == 1)
            .count()
    }

    /// Swap positions of an account.
    pub fn swap_positions(&self, account: AccountId) -> Vec<SwapPositionView> {
        self.swap_tick();
        let st = self.state();
        let sw = &st.swap;
        sw.positions
            .iter()
            .filter(|((u, _, _), p)| *u == account && p.size > Decimal::ZERO)
            .map(|((_, i, side), p)| SwapPositionView {
                instrument_id: sw
                    .instruments
                    .get(*i)
                    .map(|m| m.instrument_id.clone())
                    .unwrap_or_default(),
                side: side.text(),
                margin_mode: p.margin_mode.text(),
                size: p.size,
                avg_cost: p.avg_cost,
                margin: p.margin,
                leverage: p.leverage,
            })
            .collect()
    }

    // ---- faults ----

    /// Adds a fault rule; returns its id.
    pub fn add_fault(&self, rule: FaultRule) -> u64 {
        self.shared.faults().add(rule)
    }

    /// Removes a fault rule; whether it existed.
    pub fn remove_fault(&self, id: u64) -> bool {
        self.shared.faults().remove(id)
    }

    /// Removes every fault rule.
    pub fn clear_faults(&self) {
        self.shared.faults().clear();
    }

    /// Active fault rules with their ids.
    pub fn faults(&self) -> Vec<(u64, FaultRule)> {
        self.shared.faults().list()
    }

    // ---- inspection ----

    /// Counters of the recorded market being replayed (records read, events applied, lines
    /// skipped, whether the recording has ended); `None` without a replay
    /// ([`crate::SimConfig::market`]).
    pub fn replay_stats(&self) -> Option<crate::market::ReplayStats> {
        self.state().feed.stats()
    }

    /// Orders placed but still on their way to the matching engine ([`crate::Latency`]).
    pub fn pending_orders(&self) -> usize {
        self.state().feed.pending_orders()
    }

    /// Number of handler panics the server caught (0 unless the simulator has a bug; tests
    /// assert it stays 0).
    pub fn panics(&self) -> u64 {
        self.shared
            .panics
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Kept spot and margin orders of an account, oldest first.
    pub fn orders(&self, account: AccountId) -> Vec<OrderView> {
        let st = self.state();
        st.spot
            .order_ids(account)
            .filter_map(|id| st.spot.orders.get(id))
            .map(OrderView::of)
            .collect()
    }

    /// Number of spot and margin orders kept for an account: its open orders and the finished
    /// ones within [`crate::Retention`] (every order it placed while that bound is not reached).
    pub fn order_count(&self, account: AccountId) -> usize {
        self.shared
            .state()
            .spot
            .user_orders
            .get(&account)
            .map_or(0, |log| log.len())
    }

    /// Number of open (status 0 or 1) orders of an account.
    pub fn open_order_count(&self, account: AccountId) -> usize {
        self.orders(account)
            .iter()
            .filter(|o| o.status <= 1)
            .count()
    }

    /// Forgets request-weight counters, weight bans (spot and swap) and API trading bans.
    pub fn reset_limits(&self) {
        let mut st = self.state();
        st.spot_limiter.reset();
        st.swap.limiter.reset();
        for r in st.spot.risk.values_mut() {
            r.banned_until = 0;
            r.long_ban = false;
            r.bans.clear();
        }
    }

    /// Creates a funded account with a key holding every permission.
    ///
    /// Spot: 100000 USDT, 2 BTC, 20 ETH, 50000 XRP; margin: 10000 USDT; OTC: 1000 USDT; swap:
    /// 10000 USDT. Whitelisted withdrawal addresses: its own USDT ERC20, BTC and ETH deposit
    /// addresses.
    pub fn demo_account(&self) -> DemoAccount {
        let account = self.create_account();
        let seed = self.shared.config.seed;
        let funds: [(AccountType, &str, i64); 8] = [
            (AccountType::Spot, "USDT", 100_000),
            (AccountType::Spot, "BTC", 2),
            (AccountType::Spot, "ETH", 20),
            (AccountType::Spot, "XRP", 50_000),
            (AccountType::Margin, "USDT", 10_000),
            (AccountType::Otc, "USDT", 1_000),
            (AccountType::Swap, "USDT", 10_000),
            (AccountType::Margin, "BTC", 0),
        ];
        for (at, cur, v) in funds {
            let _ = self.credit(account, at, cur, Decimal::from(v));
        }
        for (cur, chain) in [("USDT", "ERC20"), ("BTC", ""), ("ETH", "")] {
            let _ = self.whitelist_address(
                account,
                WhitelistEntry {
                    currency: cur.to_owned(),
                    chain: chain.to_owned(),
                    address: wallet::address_for(seed, account, cur, chain),
                    memo: String::new(),
                },
            );
        }
        let keys = self
            .create_api_key(account, KeyOptions::all())
            .unwrap_or_else(|_| ApiKeyPair {
                key: String::new(),
                secret: String::new(),
            });
        DemoAccount { account, keys }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_powers_of_ten() {
        assert_eq!(MAX_CONTROL_AMOUNT, Decimal::from(1_000_000_000_000_000i64));
        assert_eq!(MAX_SWAP_PRICE, Decimal::from(1_000_000_000_000i64));
    }

    #[test]
    fn balance_checks() {
        assert!(check_balance(MAX_CONTROL_AMOUNT, Decimal::ZERO).is_ok());
        assert!(check_balance(MAX_CONTROL_AMOUNT, Decimal::ONE).is_err());
        assert!(check_balance(-Decimal::ONE, Decimal::ZERO).is_err());
        assert!(check_balance(Decimal::MAX, Decimal::MAX).is_err());
    }
}
