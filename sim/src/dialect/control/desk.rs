//! The control operations over the exchange's parts: what the Rust handle
//! ([`crate::Control`]) and the HTTP control API ([`super::http`]) both call. A [`Desk`] borrows
//! the parts for one call; a change of the clock only moves the time ([`Time`]): the exchange
//! brings the markets and the sockets up to it after the call (the control API sits below the
//! exchange that drives them).

use super::{
    check_balance, clock_err, ApiKeyPair, BalanceView, BookView, ControlError, DemoAccount,
    FillView, FundingView, KeyOptions, OrderView, SwapOrderView, SwapPositionView, TradeView,
    WithdrawalView, MAX_CONTROL_AMOUNT, MAX_SWAP_PRICE,
};
use crate::clock::Time;
use crate::config::SimConfig;
use crate::dialect::ws::{Hub, WsFamily, WsFault};
use crate::drive::Drivers;
use crate::engine::accounts::{AccountId, AccountType, ApiKey, Balance, WhitelistEntry};
use crate::engine::spot::wallet::{self, StateError};
use crate::engine::state::State;
use crate::faults::{FaultRule, Faults};
use rust_decimal::Decimal;
use std::net::SocketAddr;

/// The exchange's parts one control call works on.
pub(crate) struct Desk<'a> {
    pub(crate) config: &'a SimConfig,
    pub(crate) st: &'a mut State,
    pub(crate) dr: &'a mut Drivers,
    pub(crate) faults: &'a mut Faults,
    pub(crate) hub: &'a mut Hub,
    pub(crate) time: &'a mut Time,
    /// The demo account, once made.
    pub(crate) demo: &'a mut Option<DemoAccount>,
    /// The address the URLs in answers name.
    pub(crate) addr: SocketAddr,
    /// Handler panics caught so far.
    pub(crate) panics: u64,
}

impl Desk<'_> {
    // ---- websockets and the market ----

    /// Arms a websocket fault for the next `count` events it applies to.
    pub(crate) fn ws_fault(&mut self, fault: WsFault, count: u32) {
        self.hub.fault(fault, count);
    }

    /// Drops every open websocket now (no close frame).
    pub(crate) fn ws_disconnect_all(&mut self) {
        self.hub.disconnect_all();
    }

    /// Open websockets.
    pub(crate) fn ws_connections(&mut self) -> usize {
        self.hub.connections()
    }

    /// Websocket upgrades accepted so far.
    pub(crate) fn ws_accepted(&mut self) -> u64 {
        self.hub.accepted()
    }

    /// The JSON type (`number` or `string`) of each swap `server.auth` timestamp received, the
    /// latest 64.
    pub(crate) fn ws_auth_timestamp_kinds(&mut self) -> Vec<&'static str> {
        self.hub.auth_timestamp_kinds()
    }

    /// Pauses the order flow (`true`) or resumes it: while paused the markets change only
    /// through the users' orders (a recorded market still replays).
    pub(crate) fn pause_flow(&mut self, paused: bool) {
        let now = self.time.now();
        let State { spot, swap, .. } = &mut *self.st;
        self.dr.flow.set_paused(paused, now, |t| match t {
            crate::engine::target::Target::Spot(m) => spot.books.get(m),
            crate::engine::target::Target::Swap(i) => swap.books.get(i),
        });
    }

    /// Whether the order flow is paused.
    pub(crate) fn flow_paused(&mut self) -> bool {
        self.dr.flow.paused()
    }

    /// Events of the order flow applied so far.
    pub(crate) fn flow_events(&mut self) -> u64 {
        self.dr.flow.events
    }

    /// The best `depth` levels of a spot pair (`btc_usdt`, any case) or swap instrument
    /// (`BTCUSDTPERP`) as REST and the websockets show them now: bids and asks, each best
    /// first; `None` for an unknown market.
    pub(crate) fn book(
        &mut self,
        family: WsFamily,
        target: &str,
        depth: usize,
    ) -> Option<BookView> {
        let st = &*self.st;
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
            bids: book.levels(crate::engine::book::Side::Buy, depth),
            asks: book.levels(crate::engine::book::Side::Sell, depth),
        })
    }

    /// The public trades of a spot pair or swap instrument that the simulator keeps, oldest
    /// first: `(id, time ms, price, quantity, taker buys)`; `None` for an unknown market.
    pub(crate) fn trades(&mut self, family: WsFamily, target: &str) -> Option<Vec<TradeView>> {
        let st = &*self.st;
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
                    buy: t.side == crate::engine::book::Side::Buy,
                })
                .collect(),
        )
    }

    /// Listening address of the simulator.
    pub(crate) fn addr(&mut self) -> std::net::SocketAddr {
        self.addr
    }

    // ---- clock ----

    /// Simulator time (ms since the Unix epoch).
    pub(crate) fn now_ms(&mut self) -> i64 {
        self.time.now()
    }

    pub(crate) fn advance_clock(&mut self, ms: i64) {
        self.time.advance(ms);
    }

    pub(crate) fn try_advance_clock(&mut self, ms: i64) -> Result<i64, ControlError> {
        self.time.try_advance(ms).map_err(clock_err)
    }

    pub(crate) fn set_clock_offset(&mut self, ms: i64) {
        self.time.set_offset(ms);
    }

    pub(crate) fn try_set_clock_offset(&mut self, ms: i64) -> Result<i64, ControlError> {
        self.time.try_set_offset(ms).map_err(ControlError::Invalid)
    }

    pub(crate) fn clock_offset(&mut self) -> i64 {
        self.time.offset()
    }

    pub(crate) fn freeze_clock(&mut self, at_ms: Option<i64>) {
        self.time.freeze(at_ms);
    }

    pub(crate) fn try_freeze_clock(&mut self, at_ms: Option<i64>) -> Result<i64, ControlError> {
        self.time.try_freeze(at_ms).map_err(clock_err)
    }

    pub(crate) fn unfreeze_clock(&mut self) {
        self.time.unfreeze();
    }

    /// At least 0 and at most 10,000 (`None` otherwise, nothing changed).
    pub(crate) fn set_clock_speed(&mut self, speed: Decimal) -> Option<Decimal> {
        if speed < Decimal::ZERO || speed > Decimal::from(10_000) {
            return None;
        }
        self.time.set_speed(speed);
        Some(speed)
    }

    pub(crate) fn clock_speed(&mut self) -> Decimal {
        self.time.speed()
    }

    pub(crate) fn clock_frozen(&mut self) -> bool {
        self.time.frozen()
    }

    // ---- accounts and keys ----

    /// Creates an empty account.
    pub(crate) fn create_account(&mut self) -> AccountId {
        self.st.create_account()
    }

    fn require(&mut self, account: AccountId) -> Result<(), ControlError> {
        if self.st.accounts.contains_key(&account) {
            Ok(())
        } else {
            Err(ControlError::UnknownAccount(account))
        }
    }

    /// Creates an API key for `account` (refused while the account is under an API trading ban).
    pub(crate) fn create_api_key(
        &mut self,
        account: AccountId,
        opts: KeyOptions,
    ) -> Result<ApiKeyPair, ControlError> {
        let now = self.time.now();
        let st = &mut *self.st;
        if !st.accounts.contains_key(&account) {
            return Err(ControlError::UnknownAccount(account));
        }
        if self.config.limits.risk_control {
            crate::engine::spot::risk::evaluate(&mut st.spot, account, now);
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
    pub(crate) fn revoke_api_key(&mut self, key: &str) -> bool {
        self.st.keys.remove(key).is_some()
    }

    /// Sets the free balance of a currency (frozen amounts stay). Refused, changing nothing,
    /// unless `0 <= free <= `[`MAX_CONTROL_AMOUNT`] and the total stays within it too.
    pub(crate) fn set_balance(
        &mut self,
        account: AccountId,
        at: AccountType,
        currency: &str,
        free: Decimal,
    ) -> Result<(), ControlError> {
        let now = self.time.now();
        let currency = currency.to_ascii_uppercase();
        let st = &mut *self.st;
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
    pub(crate) fn credit(
        &mut self,
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
        let now = self.time.now();
        let currency = currency.to_ascii_uppercase();
        let st = &mut *self.st;
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
            crate::engine::accounts::finance_type::CONTROL,
            now,
        );
        Ok(())
    }

    /// Balance of one currency.
    pub(crate) fn balance(
        &mut self,
        account: AccountId,
        at: AccountType,
        currency: &str,
    ) -> Result<Balance, ControlError> {
        let st = &*self.st;
        let a = st
            .accounts
            .get(&account)
            .ok_or(ControlError::UnknownAccount(account))?;
        Ok(a.balance(at, &currency.to_ascii_uppercase()))
    }

    /// Every balance of an account.
    pub(crate) fn balances(
        &mut self,
        account: AccountId,
    ) -> Result<Vec<BalanceView>, ControlError> {
        let st = &*self.st;
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
    pub(crate) fn whitelist_address(
        &mut self,
        account: AccountId,
        mut entry: WhitelistEntry,
    ) -> Result<(), ControlError> {
        self.require(account)?;
        entry.currency = entry.currency.to_ascii_uppercase();
        self.st.account(account).withdraw_whitelist.push(entry);
        Ok(())
    }

    // ---- deposits and withdrawals ----

    /// Creates a deposit in `state` (3 credits the spot account at once; 1 or 2 wait for
    /// [`Control::set_deposit_state`]).
    pub(crate) fn credit_deposit(
        &mut self,
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
        let now = self.time.now();
        let seed = self.config.seed;
        let st = &mut *self.st;
        Ok(wallet::create_deposit(
            st,
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
    pub(crate) fn set_deposit_state(&mut self, id: u64, state: u8) -> Result<(), ControlError> {
        let now = self.time.now();
        wallet::set_deposit_state(&mut *self.st, id, state, now).map_err(|e| match e {
            StateError::NotFound => ControlError::NotFound("deposit", id),
            StateError::Transition => ControlError::InvalidTransition,
        })
    }

    /// Moves a withdrawal to `state` (2 to be confirmed, 3 completed, 4 rejected).
    pub(crate) fn set_withdrawal_state(&mut self, id: u64, state: u8) -> Result<(), ControlError> {
        let now = self.time.now();
        wallet::set_withdrawal_state(&mut *self.st, id, state, now).map_err(|e| match e {
            StateError::NotFound => ControlError::NotFound("withdrawal", id),
            StateError::Transition => ControlError::InvalidTransition,
        })
    }

    /// Withdrawals of an account, oldest first.
    pub(crate) fn withdrawals(&mut self, account: AccountId) -> Vec<WithdrawalView> {
        self.st
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
    pub(crate) fn set_market_status(&mut self, symbol: &str, status: crate::MarketStatus) -> bool {
        let st = &mut *self.st;
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
    pub(crate) fn set_api_tradable(&mut self, symbol: &str, allowed: bool) -> bool {
        let st = &mut *self.st;
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

    fn swap_index(&mut self, instrument: &str) -> Result<usize, ControlError> {
        self.st
            .swap
            .index(instrument)
            .ok_or_else(|| ControlError::Invalid(format!("unknown instrument {instrument}")))
    }

    /// The account and secret of an API key that is usable now (the websocket `server.auth`).
    pub(crate) fn key_account(&mut self, key: &str) -> Option<(AccountId, String)> {
        let now = self.time.now();
        let state = &*self.st;
        let k = state.keys.get(key)?;
        if k.expires_at_ms.is_some_and(|t| t <= now) {
            return None;
        }
        Some((k.account, k.secret.clone()))
    }

    /// Whether a spot market exists (`BTC_USDT` or `btc_usdt`).
    pub(crate) fn has_spot_market(&mut self, symbol: &str) -> bool {
        self.config
            .markets
            .iter()
            .any(|m| format!("{}_{}", m.base, m.quote).eq_ignore_ascii_case(symbol))
    }

    /// Whether a swap instrument exists.
    pub(crate) fn has_swap_instrument(&mut self, instrument: &str) -> bool {
        self.st.swap.index(instrument).is_some()
    }

    /// Runs funding settlements and TP/SL triggers due at the current simulator time.
    fn swap_tick(&mut self) {
        let now = self.time.now();
        crate::engine::swap::timed::tick(&mut *self.st, now);
    }

    /// Sets the mark price of a swap instrument (`None`: follow the book mid again). Copy-trading
    /// TP/SL plans on the mark price are checked at once.
    pub(crate) fn set_mark_price(
        &mut self,
        instrument: &str,
        price: Option<Decimal>,
    ) -> Result<(), ControlError> {
        let i = self.swap_index(instrument)?;
        if price.is_some_and(|p| p <= Decimal::ZERO || p > MAX_SWAP_PRICE) {
            return Err(ControlError::Invalid(
                "price must be positive and at most 1e12".to_owned(),
            ));
        }
        if let Some(m) = self.st.swap.marks.get_mut(i) {
            *m = price;
        }
        self.swap_tick();
        Ok(())
    }

    /// Sets the index price of a swap instrument (`None`: equal to the mark price again).
    pub(crate) fn set_index_price(
        &mut self,
        instrument: &str,
        price: Option<Decimal>,
    ) -> Result<(), ControlError> {
        let i = self.swap_index(instrument)?;
        if price.is_some_and(|p| p <= Decimal::ZERO || p > MAX_SWAP_PRICE) {
            return Err(ControlError::Invalid(
                "price must be positive and at most 1e12".to_owned(),
            ));
        }
        if let Some(m) = self.st.swap.indexes.get_mut(i) {
            *m = price;
        }
        self.swap_tick();
        Ok(())
    }

    /// Sets the funding rate applied at the instrument's next funding time.
    pub(crate) fn set_funding_rate(
        &mut self,
        instrument: &str,
        rate: Decimal,
    ) -> Result<(), ControlError> {
        let i = self.swap_index(instrument)?;
        if rate.abs() >= Decimal::ONE {
            return Err(ControlError::Invalid(
                "rate must be within (-1, 1)".to_owned(),
            ));
        }
        if let Some(f) = self.st.swap.funding.get_mut(i) {
            f.rate = rate;
        }
        Ok(())
    }

    /// Next funding time (ms) of the swap instruments.
    pub(crate) fn next_funding_time(&mut self) -> i64 {
        self.swap_tick();
        let st = &*self.st;
        st.swap
            .funding
            .iter()
            .map(|f| f.next_time)
            .min()
            .unwrap_or_else(|| self.time.now())
    }

    /// Moves the simulator clock to the next funding time and settles funding there; returns
    /// that time.
    pub(crate) fn advance_to_funding(&mut self) -> i64 {
        let next = self.next_funding_time();
        let now = self.time.now();
        if next > now {
            self.advance_clock(next - now);
        }
        self.swap_tick();
        next
    }

    /// Opens or suspends trading of a swap instrument (401004 while suspended); `false` for an
    /// unknown instrument.
    pub(crate) fn set_swap_trading(&mut self, instrument: &str, trading: bool) -> bool {
        let st = &mut *self.st;
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
    pub(crate) fn swap_orders(&mut self, account: AccountId) -> Vec<SwapOrderView> {
        self.swap_tick();
        let st = &*self.st;
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
    pub(crate) fn swap_order_count(&mut self, account: AccountId) -> usize {
        self.st
            .swap
            .user_orders
            .get(&account)
            .map_or(0, |log| log.len())
    }

    /// Number of unfinished (state 0 or 1) swap orders of an account.
    pub(crate) fn swap_open_order_count(&mut self, account: AccountId) -> usize {
        self.swap_orders(account)
            .iter()
            .filter(|o| o.state == 0 || o.state == 1)
            .count()
    }

    /// Swap positions of an account.
    pub(crate) fn swap_positions(&mut self, account: AccountId) -> Vec<SwapPositionView> {
        self.swap_tick();
        let st = &*self.st;
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
    pub(crate) fn add_fault(&mut self, rule: FaultRule) -> u64 {
        self.faults.add(rule)
    }

    /// Removes a fault rule; whether it existed.
    pub(crate) fn remove_fault(&mut self, id: u64) -> bool {
        self.faults.remove(id)
    }

    /// Removes every fault rule.
    pub(crate) fn clear_faults(&mut self) {
        self.faults.clear();
    }

    /// Active fault rules with their ids.
    pub(crate) fn faults(&mut self) -> Vec<(u64, FaultRule)> {
        self.faults.list()
    }

    // ---- inspection ----

    /// Counters of the recorded market being replayed (records read, events applied, lines
    /// skipped, whether the recording has ended); `None` without a replay
    /// ([`crate::SimConfig::market`]).
    pub(crate) fn replay_stats(&mut self) -> Option<crate::market::ReplayStats> {
        self.dr.stats()
    }

    /// Orders placed but still on their way to the matching engine ([`crate::Latency`]).
    pub(crate) fn pending_orders(&mut self) -> usize {
        self.st.latency.len()
    }

    /// Number of handler panics the server caught (0 unless the simulator has a bug; tests
    /// assert it stays 0).
    pub(crate) fn panics(&mut self) -> u64 {
        self.panics
    }

    /// Kept spot and margin orders of an account, oldest first.
    /// The account's kept fills, spot and margin then swap, each oldest first.
    pub(crate) fn fills(&mut self, account: AccountId) -> Vec<FillView> {
        self.swap_tick();
        let st = &*self.st;
        let spot = st
            .spot
            .my_trades
            .get(&account)
            .into_iter()
            .flatten()
            .map(|t| FillView {
                kind: t.kind.name(),
                market: t.symbol.clone(),
                trade_id: t.id,
                order_id: t.order_id.clone(),
                time_ms: t.time_ms,
                buy: t.side.starts_with("buy"),
                open: false,
                price: t.price,
                amount: t.amount,
                fee: t.fee,
                fee_currency: t.fee_currency.clone(),
                maker: t.is_maker,
                realized: Decimal::ZERO,
            });
        let sw = &st.swap;
        let swap = sw.fills.get(&account).into_iter().flatten().map(|f| {
            let spec = sw.instruments.get(f.inst);
            FillView {
                kind: "swap",
                market: spec.map(|m| m.instrument_id.clone()).unwrap_or_default(),
                trade_id: f.trade_id,
                order_id: f.order_id.clone(),
                time_ms: f.time_ms,
                buy: matches!(f.kind, 1 | 4),
                open: matches!(f.kind, 1 | 2),
                price: f.price,
                amount: f.size,
                fee: f.fee,
                fee_currency: spec.map(|m| m.quote.clone()).unwrap_or_default(),
                maker: f.match_role == 2,
                realized: f.close_profit,
            }
        });
        spot.chain(swap).collect()
    }

    /// The funding settlements of an account's swap positions, oldest first.
    pub(crate) fn funding_fees(&mut self, account: AccountId) -> Vec<FundingView> {
        self.swap_tick();
        let sw = &self.st.swap;
        sw.funding_fees
            .get(&account)
            .into_iter()
            .flatten()
            .map(|f| FundingView {
                instrument_id: sw
                    .instruments
                    .get(f.inst)
                    .map(|m| m.instrument_id.clone())
                    .unwrap_or_default(),
                amount: f.amount,
                time_ms: f.time_ms,
            })
            .collect()
    }

    pub(crate) fn orders(&mut self, account: AccountId) -> Vec<OrderView> {
        let st = &*self.st;
        st.spot
            .order_ids(account)
            .filter_map(|id| st.spot.orders.get(id))
            .map(OrderView::of)
            .collect()
    }

    /// Number of spot and margin orders kept for an account: its open orders and the finished
    /// ones within [`crate::Retention`] (every order it placed while that bound is not reached).
    pub(crate) fn order_count(&mut self, account: AccountId) -> usize {
        self.st
            .spot
            .user_orders
            .get(&account)
            .map_or(0, |log| log.len())
    }

    /// Number of open (status 0 or 1) orders of an account.
    pub(crate) fn open_order_count(&mut self, account: AccountId) -> usize {
        self.orders(account)
            .iter()
            .filter(|o| o.status <= 1)
            .count()
    }

    /// Forgets request-weight counters, weight bans (spot and swap) and API trading bans.
    pub(crate) fn reset_limits(&mut self) {
        let st = &mut *self.st;
        st.spot_limiter.reset();
        st.swap.limiter.reset();
        for r in st.spot.risk.values_mut() {
            r.banned_until = 0;
            r.long_ban = false;
            r.bans.clear();
        }
    }

    /// The exchange's demo account: created by the first call ([`Desk::funded_account`]), the
    /// same account and key on every later call.
    pub(crate) fn demo_account(&mut self) -> DemoAccount {
        if let Some(demo) = self.demo.as_ref() {
            return demo.clone();
        }
        let demo = self.funded_account();
        *self.demo = Some(demo.clone());
        demo
    }

    /// Creates a funded account with a key holding every permission.
    ///
    /// Spot: 100000 USDT, 2 BTC, 20 ETH, 50000 XRP; margin: 10000 USDT; OTC: 1000 USDT; swap:
    /// 10000 USDT. Whitelisted withdrawal addresses: its own USDT ERC20, BTC and ETH deposit
    /// addresses.
    pub(crate) fn funded_account(&mut self) -> DemoAccount {
        let account = self.create_account();
        let seed = self.config.seed;
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
