//! Accounts, API keys and balances shared by both families.
//!
//! Every account has one balance table per [`AccountType`] (spot, margin, OTC, swap). Each change
//! of a total balance (free + frozen) appends a [`FinanceEntry`]; freezing and unfreezing move
//! value between `free` and `frozen` and are not logged.
//!
//! DESIGN (finance `type` codes, not shown in the spec): 1 deposit, 2 withdrawal, 3 transfer in,
//! 4 transfer out, 5 trade (bought/sold currency), 6 trade fee, 7 margin realised profit/loss,
//! 8 balance set by the control API.

use rust_decimal::Decimal;
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

/// Account (user) id.
pub type AccountId = u64;

/// The balance tables of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccountType {
    /// Spot account (transfer code 1).
    Spot,
    /// Margin account (transfer code 2).
    Margin,
    /// OTC account (transfer code 3).
    Otc,
    /// Perpetual swap account.
    Swap,
}

impl AccountType {
    /// Parses `spot`, `margin`, `otc` or `swap` (any case).
    pub fn parse(s: &str) -> Option<AccountType> {
        match s.to_ascii_lowercase().as_str() {
            "spot" => Some(AccountType::Spot),
            "margin" => Some(AccountType::Margin),
            "otc" => Some(AccountType::Otc),
            "swap" => Some(AccountType::Swap),
            _ => None,
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            AccountType::Spot => "spot",
            AccountType::Margin => "margin",
            AccountType::Otc => "otc",
            AccountType::Swap => "swap",
        }
    }
}

/// Finance log type codes (see the module docs).
pub mod finance_type {
    /// Deposit credited.
    pub const DEPOSIT: u32 = 1;
    /// Withdrawal completed.
    pub const WITHDRAW: u32 = 2;
    /// Transfer into this account.
    pub const TRANSFER_IN: u32 = 3;
    /// Transfer out of this account.
    pub const TRANSFER_OUT: u32 = 4;
    /// Trade settlement.
    pub const TRADE: u32 = 5;
    /// Trade fee.
    pub const FEE: u32 = 6;
    /// Margin realised profit or loss.
    pub const MARGIN_PNL: u32 = 7;
    /// Set or credited by the control API.
    pub const CONTROL: u32 = 8;
}

/// Free and frozen amounts of one currency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Balance {
    /// Available.
    pub free: Decimal,
    /// Held by open orders, pending withdrawals or margin positions.
    pub frozen: Decimal,
}

impl Balance {
    /// `free + frozen`.
    pub fn total(&self) -> Decimal {
        self.free + self.frozen
    }
}

/// One balance change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinanceEntry {
    /// Account type whose balance changed.
    pub account_type: AccountType,
    /// Time in ms.
    pub time_ms: i64,
    /// Currency.
    pub currency: String,
    /// Signed change.
    pub num: Decimal,
    /// Total balance after the change.
    pub balance: Decimal,
    /// Type code (see [`finance_type`]).
    pub kind: u32,
}

/// Permissions of an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Permissions {
    /// Reading (GET endpoints).
    pub read: bool,
    /// Trading (orders, transfers, position close).
    pub trade: bool,
    /// Withdrawing.
    pub withdraw: bool,
}

impl Default for Permissions {
    fn default() -> Self {
        Permissions {
            read: true,
            trade: true,
            withdraw: false,
        }
    }
}

/// A permission an endpoint requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Reading.
    Read,
    /// Trading.
    Trade,
    /// Withdrawing.
    Withdraw,
}

impl Permissions {
    /// Whether the key holds `p`.
    pub fn allows(&self, p: Permission) -> bool {
        match p {
            Permission::Read => self.read,
            Permission::Trade => self.trade,
            Permission::Withdraw => self.withdraw,
        }
    }
}

/// An API key as the simulator stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// Access key (sent in `ACCESS-KEY`).
    pub key: String,
    /// Secret key (HMAC key).
    pub secret: String,
    /// Owner.
    pub account: AccountId,
    /// Permissions.
    pub permissions: Permissions,
    /// Allowed caller IPs; empty allows any.
    pub ip_whitelist: Vec<IpAddr>,
    /// Expiry time in ms; `None` never expires.
    pub expires_at_ms: Option<i64>,
}

/// A whitelisted withdrawal address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhitelistEntry {
    /// Currency, upper case.
    pub currency: String,
    /// Chain (empty for single-chain currencies).
    pub chain: String,
    /// Address.
    pub address: String,
    /// Memo/tag (empty when none).
    pub memo: String,
}

/// One user.
#[derive(Debug, Clone, Default)]
pub struct Account {
    /// Id.
    pub id: AccountId,
    /// Balances by (account type, currency).
    pub balances: BTreeMap<(AccountType, String), Balance>,
    /// Balance change log, oldest first.
    pub finance: Vec<FinanceEntry>,
    /// Withdrawal address whitelist.
    pub withdraw_whitelist: Vec<WhitelistEntry>,
    /// Balances touched since the last [`Accounts::take_changed`] (for the private pushes).
    changed: BTreeSet<(AccountType, String)>,
}

/// Balance operation failed for lack of funds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insufficient;

impl Account {
    /// A fresh account.
    pub fn new(id: AccountId) -> Account {
        Account {
            id,
            ..Account::default()
        }
    }

    /// Balance of `currency` in `at` (zero when absent).
    pub fn balance(&self, at: AccountType, currency: &str) -> Balance {
        self.balances
            .get(&(at, currency.to_owned()))
            .copied()
            .unwrap_or_default()
    }

    fn entry(&mut self, at: AccountType, currency: &str) -> &mut Balance {
        self.changed.insert((at, currency.to_owned()));
        self.balances.entry((at, currency.to_owned())).or_default()
    }

    fn log(&mut self, at: AccountType, currency: &str, num: Decimal, kind: u32, now_ms: i64) {
        if num.is_zero() {
            return;
        }
        let balance = self.balance(at, currency).total();
        self.finance.push(FinanceEntry {
            account_type: at,
            time_ms: now_ms,
            currency: currency.to_owned(),
            num,
            balance,
            kind,
        });
    }

    /// Adds `delta` (may be negative) to the free balance and logs it.
    pub fn credit(&mut self, at: AccountType, currency: &str, delta: Decimal, kind: u32, now: i64) {
        self.entry(at, currency).free += delta;
        self.log(at, currency, delta, kind, now);
    }

    /// Takes `amount` from the free balance (fails without change when short) and logs it.
    pub fn debit(
        &mut self,
        at: AccountType,
        currency: &str,
        amount: Decimal,
        kind: u32,
        now: i64,
    ) -> Result<(), Insufficient> {
        let b = self.entry(at, currency);
        if b.free < amount {
            return Err(Insufficient);
        }
        b.free -= amount;
        self.log(at, currency, -amount, kind, now);
        Ok(())
    }

    /// Moves `amount` from free to frozen.
    pub fn freeze(
        &mut self,
        at: AccountType,
        currency: &str,
        amount: Decimal,
    ) -> Result<(), Insufficient> {
        let b = self.entry(at, currency);
        if b.free < amount {
            return Err(Insufficient);
        }
        b.free -= amount;
        b.frozen += amount;
        Ok(())
    }

    /// Moves up to `amount` from frozen back to free.
    pub fn unfreeze(&mut self, at: AccountType, currency: &str, amount: Decimal) {
        let b = self.entry(at, currency);
        let amount = amount.min(b.frozen).max(Decimal::ZERO);
        b.frozen -= amount;
        b.free += amount;
    }

    /// Removes `amount` from the frozen balance (it leaves the account) and logs it.
    pub fn spend_frozen(
        &mut self,
        at: AccountType,
        currency: &str,
        amount: Decimal,
        kind: u32,
        now: i64,
    ) {
        let b = self.entry(at, currency);
        b.frozen -= amount;
        if b.frozen < Decimal::ZERO {
            // Never expected; keep totals consistent by taking the shortfall from free.
            b.free += b.frozen;
            b.frozen = Decimal::ZERO;
        }
        self.log(at, currency, -amount, kind, now);
    }

    /// Sets the free balance (frozen stays) and logs the difference.
    pub fn set_free(&mut self, at: AccountType, currency: &str, free: Decimal, now: i64) {
        let b = self.entry(at, currency);
        let delta = free - b.free;
        b.free = free;
        self.log(at, currency, delta, finance_type::CONTROL, now);
    }
}

/// Every account by id, remembering which ones had a balance touched since the changes were
/// last taken: the private pushes read them ([`Accounts::take_changed`]) instead of comparing
/// every balance after every request.
#[derive(Debug, Clone, Default)]
pub struct Accounts {
    map: BTreeMap<AccountId, Account>,
    touched: BTreeSet<AccountId>,
}

impl Accounts {
    /// The account `id`, if it exists.
    pub fn get(&self, id: &AccountId) -> Option<&Account> {
        self.map.get(id)
    }

    /// Whether account `id` exists.
    pub fn contains_key(&self, id: &AccountId) -> bool {
        self.map.contains_key(id)
    }

    /// Adds (or replaces) an account.
    pub fn insert(&mut self, account: Account) {
        self.touched.insert(account.id);
        self.map.insert(account.id, account);
    }

    /// The account `id` for a change, created on first use.
    pub fn entry_mut(&mut self, id: AccountId) -> &mut Account {
        self.touched.insert(id);
        self.map.entry(id).or_insert_with(|| Account::new(id))
    }

    /// Whether any balance may have changed since the last [`Accounts::take_changed`].
    pub fn any_touched(&self) -> bool {
        !self.touched.is_empty()
    }

    /// The balances touched since the last call, per account (each once), and forgets them.
    pub fn take_changed(&mut self) -> Vec<(AccountId, Vec<(AccountType, String)>)> {
        let touched = std::mem::take(&mut self.touched);
        touched
            .into_iter()
            .filter_map(|id| {
                let a = self.map.get_mut(&id)?;
                let changed = std::mem::take(&mut a.changed);
                (!changed.is_empty()).then(|| (id, changed.into_iter().collect()))
            })
            .collect()
    }
}
