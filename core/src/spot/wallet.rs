//! Deposits and withdrawals: deposit addresses, deposit and withdrawal history, creating and
//! cancelling withdrawals.
//!
//! DESIGN decisions where the spec is silent or ambiguous:
//!
//! * **Signing.** The spec does not say whether `/deposit/*` and `/withdraw/*` need a signature.
//!   They act on the caller's account, so they are private: every endpoint here is
//!   `signed: true`.
//! * **Success code.** Their envelope's success code is `200`, not `0` (`success_code: 200`); a
//!   body with `"code":0` is therefore an API error for these endpoints.
//! * **Cancel path.** For `/withdraw/cancel` the spec says the id is "described as carried in the
//!   path", but gives no path form and lists `withdraw_id` as a parameter. We send it as the form
//!   parameter `withdraw_id` of `POST /v3/withdraw/cancel`: that is the documented parameter form
//!   and, unlike a path segment, it is covered by the spot signature (which signs only the
//!   parameter text).
//! * **Withdrawal chain.** For USDT (any case) the chain is required and must be `ERC20` or
//!   `OMNI`. The spec says "empty for others", but the exchange adds chains over time, so a chain
//!   given for another currency is passed through unchanged rather than refused. An empty chain or
//!   memo counts as not given and is not sent.
//! * **History direction** ([`HistoryDirection`]) is a closed enum: it is only ever sent, and a
//!   value the server does not document would be refused by it anyway.
//! * **Older field names.** Deposit and withdrawal records accept the older names `hash` (for
//!   `hashId`) and `finished_date` (for `update_date`); when an answer carries both names, the
//!   current one wins unless it is empty or a placeholder.
//! * **Required fields** (the rule of [`crate::de`]): a record's `id` (its identity and the
//!   `from` of the next page), a deposit address's `address`, and the `withdraw_id` of a new
//!   withdrawal (the whole answer). Everything else is optional: missing, a placeholder or
//!   unreadable, it is `None`, and the other records of the answer are kept.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[cfg(feature = "catalog")]
use crate::catalog::{entry, CatalogEntry};
use crate::endpoint::{Endpoint, Family, Meta, Method, Params};
use crate::error::Error;
use crate::params::{FromParams, ParamMap};
use crate::spot::{check_non_empty, check_positive, check_range};
use crate::types::int_enum;

#[cfg(feature = "catalog")]
pub(crate) const ENTRIES: &[CatalogEntry] = &[
    entry::<DepositAddressRequest>(),
    entry::<DepositHistoryRequest>(),
    entry::<WithdrawHistoryRequest>(),
    entry::<Withdraw>(),
    entry::<CancelWithdraw>(),
];

/// Meta of a wallet endpoint: signed, success code 200; GETs are idempotent, POSTs are not.
const fn private(name: &'static str, method: Method, path: &'static str) -> Meta {
    Meta {
        name,
        family: Family::Spot,
        method,
        path,
        signed: true,
        idempotent: matches!(method, Method::Get),
        success_code: 200,
        weight: None,
    }
}

/// Largest page of deposit or withdrawal history.
const MAX_HISTORY_SIZE: u32 = 500;

// ---------------------------------------------------------------------------------------------

/// `GET /v3/deposit/address`: the deposit addresses of one currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepositAddressRequest {
    currency: String,
}

impl DepositAddressRequest {
    /// The deposit addresses of `currency` (`usdt`).
    pub fn new(currency: impl Into<String>) -> Self {
        DepositAddressRequest {
            currency: currency.into(),
        }
    }
}

impl Endpoint for DepositAddressRequest {
    type Output = DepositAddresses;
    const META: Meta = private("spot.deposit_address", Method::Get, "/deposit/address");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_non_empty("currency", &self.currency)?;
        p.push("currency", &self.currency);
        Ok(())
    }
}

impl FromParams for DepositAddressRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(DepositAddressRequest {
            currency: p.take_str("currency")?,
        })
    }
}

/// Answer of [`DepositAddressRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepositAddresses {
    /// One entry per address (a currency may have one per chain).
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<DepositAddress>,
}

/// One deposit address. `address` is required (it is what the caller uses); everything else is
/// optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepositAddress {
    /// Currency (the request's currency; the venue writes it upper case).
    #[serde(default, with = "crate::de::opt_string")]
    pub currency: Option<String>,
    /// The address. Required.
    #[serde(with = "crate::de::text")]
    pub address: String,
    /// Address tag (memo) for currencies that need one; `None` when empty.
    #[serde(rename = "addressTag", default, with = "crate::de::opt_string")]
    pub address_tag: Option<String>,
    /// Chain (`ERC20`, `TRC20`, ...); `None` when empty.
    #[serde(default, with = "crate::de::opt_string")]
    pub chain: Option<String>,
}

// ---------------------------------------------------------------------------------------------

/// Direction of a deposit or withdrawal history listing.
///
/// With [`Prev`](HistoryDirection::Prev) and no `from`, listing starts at record id 1 in
/// ascending order; with [`Next`](HistoryDirection::Next) and no `from`, it starts at the newest
/// record and descends. The server's default is `prev`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HistoryDirection {
    /// `prev`.
    Prev,
    /// `next`.
    Next,
}

impl HistoryDirection {
    /// `prev` or `next`.
    pub fn as_str(self) -> &'static str {
        match self {
            HistoryDirection::Prev => "prev",
            HistoryDirection::Next => "next",
        }
    }

    /// Parses `prev` or `next`; anything else is a validation error on `field`.
    pub fn parse(field: &'static str, text: &str) -> Result<Self, Error> {
        match text {
            "prev" => Ok(HistoryDirection::Prev),
            "next" => Ok(HistoryDirection::Next),
            other => Err(Error::validation(
                field,
                format!("must be prev or next, not {other:?}"),
            )),
        }
    }
}

impl std::fmt::Display for HistoryDirection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The parameters shared by the deposit and withdrawal history requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct HistoryQuery {
    currency: Option<String>,
    from: Option<u64>,
    size: Option<u32>,
    direct: Option<HistoryDirection>,
}

impl HistoryQuery {
    /// Validates and writes `currency`, `from`, `size`, `direct` in that order.
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        if let Some(c) = &self.currency {
            check_non_empty("currency", c)?;
        }
        if let Some(s) = self.size {
            check_range("size", s, 1, MAX_HISTORY_SIZE)?;
        }
        p.push_opt("currency", self.currency.as_deref());
        p.push_opt_display("from", self.from);
        p.push_opt_display("size", self.size);
        p.push_opt("direct", self.direct.map(HistoryDirection::as_str));
        Ok(())
    }

    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        let currency = p.take_opt_str("currency")?;
        let from = p.take_opt_int("from")?;
        let size = p.take_opt_int("size")?;
        let direct = match p.take_opt_str("direct")? {
            None => None,
            Some(text) => Some(HistoryDirection::parse("direct", text.trim())?),
        };
        Ok(HistoryQuery {
            currency,
            from,
            size,
            direct,
        })
    }
}

/// Declares the setters shared by the two history requests.
macro_rules! history_setters {
    ($t:ident) => {
        impl $t {
            /// Every currency, default page (100 records, direction `prev`).
            pub fn new() -> Self {
                Self::default()
            }
            /// Only records of `currency` (`usdt`); omitted means all currencies.
            pub fn currency(mut self, currency: impl Into<String>) -> Self {
                self.query.currency = Some(currency.into());
                self
            }
            /// Start listing at this record id.
            pub fn from(mut self, id: u64) -> Self {
                self.query.from = Some(id);
                self
            }
            /// Records per page, 1..=500 (server default 100).
            pub fn size(mut self, size: u32) -> Self {
                self.query.size = Some(size);
                self
            }
            /// Listing direction (server default [`HistoryDirection::Prev`]).
            pub fn direct(mut self, direct: HistoryDirection) -> Self {
                self.query.direct = Some(direct);
                self
            }
        }

        impl FromParams for $t {
            fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
                Ok($t {
                    query: HistoryQuery::from_params(p)?,
                })
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/deposit/history`: the caller's deposits, one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DepositHistoryRequest {
    query: HistoryQuery,
}

history_setters!(DepositHistoryRequest);

impl Endpoint for DepositHistoryRequest {
    type Output = DepositHistory;
    const META: Meta = private("spot.deposit_history", Method::Get, "/deposit/history");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        self.query.encode(p)
    }
}

int_enum! {
    /// State of a deposit: the code (`3`, `"3"`) or a word (the documented names below, or the
    /// variant's name in any case and separators, such as `"TO_BE_CONFIRMED"`). An unknown code
    /// is kept in `Unknown`, an unknown word in `Other`: ccxt/ccxt `js/digifinex.js`
    /// (`fetchTransactionsByType`) shows a record with `"state": "safe"`, whose meaning is not
    /// documented, so it stays `Other("safe")`.
    pub enum DepositState {
        /// 1: deposit in progress.
        InDeposit = 1 | "in deposit",
        /// 2: to be confirmed.
        ToBeConfirmed = 2 | "to be confirmed",
        /// 3: successfully deposited.
        Deposited = 3 | "successfully deposited",
        /// 4: stopped.
        Stopped = 4 | "stopped",
    }
}

/// Answer of [`DepositHistoryRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepositHistory {
    /// The records of this page.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<DepositRecord>,
}

/// One deposit. `id` is required (the record's identity, the `from` of the next page);
/// everything else is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RecordWire<DepositState>")]
pub struct DepositRecord {
    /// Record id (the `from` of the next page). Required.
    pub id: String,
    /// Currency.
    pub currency: Option<String>,
    /// Transaction hash (wire `hashId`, older `hash`); `None` when empty or a placeholder.
    #[serde(rename = "hashId")]
    pub hash_id: Option<String>,
    /// Chain; `None` when empty.
    pub chain: Option<String>,
    /// Amount deposited (string or number on the wire).
    #[serde(with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
    /// Deposit address.
    pub address: Option<String>,
    /// Address tag. Not in the spec; the deposit record sampled in ccxt/ccxt
    /// `js/digifinex.js` (`fetchTransactionsByType`, `parseTransaction`) carries it.
    pub memo: Option<String>,
    /// Fee charged. Not in the spec; the same ccxt sample carries it (`"fee": 0`).
    #[serde(with = "crate::de::opt_decimal")]
    pub fee: Option<Decimal>,
    /// State.
    #[serde(with = "crate::de::opt")]
    pub state: Option<DepositState>,
    /// Creation time as date-time text (format not documented).
    pub created_date: Option<String>,
    /// Last update time as date-time text (wire `update_date`, older `finished_date`).
    pub update_date: Option<String>,
}

/// The wire form shared by deposit and withdrawal records: both spellings of the renamed
/// fields, decoded each by the rule of [`crate::de`]; `S` is the state enum.
#[derive(Deserialize)]
#[serde(bound(deserialize = "S: crate::de::Scalar"))]
struct RecordWire<S> {
    #[serde(with = "crate::de::id")]
    id: String,
    #[serde(default, with = "crate::de::opt_string")]
    currency: Option<String>,
    #[serde(rename = "hashId", default, with = "crate::de::opt_id")]
    hash_id: Option<String>,
    #[serde(default, with = "crate::de::opt_id")]
    hash: Option<String>,
    #[serde(default, with = "crate::de::opt_string")]
    chain: Option<String>,
    #[serde(default, with = "crate::de::opt_decimal")]
    amount: Option<Decimal>,
    #[serde(default, with = "crate::de::opt_string")]
    address: Option<String>,
    #[serde(default, with = "crate::de::opt_string")]
    memo: Option<String>,
    #[serde(default, with = "crate::de::opt_decimal")]
    fee: Option<Decimal>,
    #[serde(default, with = "crate::de::opt")]
    state: Option<S>,
    #[serde(default, with = "crate::de::opt_string")]
    created_date: Option<String>,
    #[serde(default, with = "crate::de::opt_string")]
    update_date: Option<String>,
    #[serde(default, with = "crate::de::opt_string")]
    finished_date: Option<String>,
}

impl From<RecordWire<DepositState>> for DepositRecord {
    fn from(w: RecordWire<DepositState>) -> Self {
        DepositRecord {
            id: w.id,
            currency: w.currency,
            hash_id: w.hash_id.or(w.hash),
            chain: w.chain,
            amount: w.amount,
            address: w.address,
            memo: w.memo,
            fee: w.fee,
            state: w.state,
            created_date: w.created_date,
            update_date: w.update_date.or(w.finished_date),
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// `GET /v3/withdraw/history`: the caller's withdrawals, one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WithdrawHistoryRequest {
    query: HistoryQuery,
}

history_setters!(WithdrawHistoryRequest);

impl Endpoint for WithdrawHistoryRequest {
    type Output = WithdrawHistory;
    const META: Meta = private("spot.withdraw_history", Method::Get, "/withdraw/history");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        self.query.encode(p)
    }
}

int_enum! {
    /// State of a withdrawal: the code (`3`, `"3"`) or a word (the documented names below, or
    /// the variant's name in any case and separators). An unknown code is kept in `Unknown`, an
    /// unknown word in `Other`.
    pub enum WithdrawState {
        /// 1: application in progress.
        Applying = 1 | "application in progress",
        /// 2: to be confirmed.
        ToBeConfirmed = 2 | "to be confirmed",
        /// 3: completed.
        Completed = 3 | "completed",
        /// 4: rejected.
        Rejected = 4 | "rejected",
    }
}

/// Answer of [`WithdrawHistoryRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawHistory {
    /// The records of this page.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<WithdrawRecord>,
}

/// One withdrawal. `id` is required (the withdrawal's identity, the `from` of the next page,
/// the id [`CancelWithdraw`] takes); everything else is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RecordWire<WithdrawState>")]
pub struct WithdrawRecord {
    /// Withdrawal id (the `from` of the next page, the id [`CancelWithdraw`] takes). Required.
    pub id: String,
    /// Currency.
    pub currency: Option<String>,
    /// Transaction hash (wire `hashId`, older `hash`); `None` when empty or a placeholder (not
    /// yet sent).
    #[serde(rename = "hashId")]
    pub hash_id: Option<String>,
    /// Chain; `None` when empty.
    pub chain: Option<String>,
    /// Amount withdrawn (string or number on the wire).
    #[serde(with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
    /// Destination address.
    pub address: Option<String>,
    /// Address tag; `None` when empty.
    pub memo: Option<String>,
    /// Fee charged (string or number on the wire).
    #[serde(with = "crate::de::opt_decimal")]
    pub fee: Option<Decimal>,
    /// State.
    #[serde(with = "crate::de::opt")]
    pub state: Option<WithdrawState>,
    /// Creation time as date-time text (format not documented).
    pub created_date: Option<String>,
    /// Last update time as date-time text (wire `update_date`, older `finished_date`).
    pub update_date: Option<String>,
}

impl From<RecordWire<WithdrawState>> for WithdrawRecord {
    fn from(w: RecordWire<WithdrawState>) -> Self {
        WithdrawRecord {
            id: w.id,
            currency: w.currency,
            hash_id: w.hash_id.or(w.hash),
            chain: w.chain,
            amount: w.amount,
            address: w.address,
            memo: w.memo,
            fee: w.fee,
            state: w.state,
            created_date: w.created_date,
            update_date: w.update_date.or(w.finished_date),
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// The chains a USDT withdrawal may name.
const USDT_CHAINS: [&str; 2] = ["ERC20", "OMNI"];

/// `POST /v3/withdraw/new`: withdraws to a whitelisted address.
///
/// For USDT the chain is required and must be `ERC20` or `OMNI`; for other currencies a chain is
/// optional and passed through unchanged. Withdrawals are limited to 3 per minute and 100 per day
/// (error 20040).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withdraw {
    currency: String,
    address: String,
    amount: Decimal,
    chain: Option<String>,
    memo: Option<String>,
}

impl Withdraw {
    /// Withdraws `amount` of `currency` to `address` (which must be on the withdrawal whitelist).
    pub fn new(currency: impl Into<String>, address: impl Into<String>, amount: Decimal) -> Self {
        Withdraw {
            currency: currency.into(),
            address: address.into(),
            amount,
            chain: None,
            memo: None,
        }
    }
    /// The chain (`ERC20`, `OMNI` for USDT).
    pub fn chain(mut self, chain: impl Into<String>) -> Self {
        self.chain = Some(chain.into());
        self
    }
    /// The address tag some currencies need.
    pub fn memo(mut self, memo: impl Into<String>) -> Self {
        self.memo = Some(memo.into());
        self
    }
}

/// `Some(text)` unless `text` is absent or blank.
fn given(text: &Option<String>) -> Option<&str> {
    text.as_deref().filter(|s| !s.trim().is_empty())
}

impl Endpoint for Withdraw {
    type Output = WithdrawCreated;
    const META: Meta = private("spot.withdraw_new", Method::Post, "/withdraw/new");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        check_non_empty("currency", &self.currency)?;
        let chain = given(&self.chain);
        if self.currency.trim().eq_ignore_ascii_case("usdt") {
            match chain {
                None => {
                    return Err(Error::validation(
                        "chain",
                        "is required for USDT (ERC20 or OMNI)",
                    ))
                }
                Some(c) if !USDT_CHAINS.contains(&c) => {
                    return Err(Error::validation(
                        "chain",
                        format!("{c:?} is not a USDT chain (ERC20 or OMNI)"),
                    ))
                }
                Some(_) => {}
            }
        }
        check_non_empty("address", &self.address)?;
        check_positive("amount", &self.amount)?;
        p.push("currency", &self.currency);
        p.push_opt("chain", chain);
        p.push("address", &self.address);
        p.push_display("amount", self.amount);
        p.push_opt("memo", given(&self.memo));
        Ok(())
    }
}

impl FromParams for Withdraw {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(Withdraw {
            currency: p.take_str("currency")?,
            chain: p.take_opt_str("chain")?,
            address: p.take_str("address")?,
            amount: p.take_decimal("amount")?,
            memo: p.take_opt_str("memo")?,
        })
    }
}

/// Answer of [`Withdraw`]. `withdraw_id` is the whole answer, so it is required: an answer
/// without it (`{"code":200}`) is a decode error naming `withdraw_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawCreated {
    /// The new withdrawal's id (a long on the wire, integer or string). Required.
    #[serde(with = "crate::de::id")]
    pub withdraw_id: String,
}

// ---------------------------------------------------------------------------------------------

/// `POST /v3/withdraw/cancel`: cancels a withdrawal that has not been processed yet.
///
/// The id is sent as the form parameter `withdraw_id` (see the module documentation). Some
/// statuses cannot be cancelled (error 20039).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelWithdraw {
    withdraw_id: String,
}

impl CancelWithdraw {
    /// Cancels withdrawal `withdraw_id` (as returned in [`WithdrawCreated::withdraw_id`]).
    pub fn new(withdraw_id: impl Into<String>) -> Self {
        CancelWithdraw {
            withdraw_id: withdraw_id.into(),
        }
    }
}

impl Endpoint for CancelWithdraw {
    type Output = WithdrawCancelled;
    const META: Meta = private("spot.withdraw_cancel", Method::Post, "/withdraw/cancel");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let id = self.withdraw_id.trim();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::validation(
                "withdraw_id",
                format!("{:?} is not a withdrawal id (digits)", self.withdraw_id),
            ));
        }
        p.push("withdraw_id", id);
        Ok(())
    }
}

impl FromParams for CancelWithdraw {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(CancelWithdraw {
            withdraw_id: p.take_str("withdraw_id")?,
        })
    }
}

/// Answer of [`CancelWithdraw`]: an acknowledgement. An answer without `withdraw_id`
/// (`{"code":200}`) decodes to `withdraw_id: None`; the success code is the answer.
///
/// DESIGN: the id only echoes the one the caller sent, so it is optional (the rule of
/// [`crate::de`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawCancelled {
    /// The cancelled withdrawal's id (a long on the wire, integer or string), when sent.
    #[serde(default, with = "crate::de::opt_id")]
    pub withdraw_id: Option<String>,
}
