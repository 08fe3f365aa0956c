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
//!   `hashId`) and `finished_date` (for `update_date`) as serde aliases.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::catalog::{entry, CatalogEntry, FromParams, ParamMap};
use crate::endpoint::{Endpoint, Family, Meta, Method, Params};
use crate::error::Error;
use crate::spot::{check_non_empty, check_positive, check_range};
use crate::types::int_enum;

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

/// Answer of [`DepositAddressRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepositAddresses {
    /// One entry per address (a currency may have one per chain).
    #[serde(default)]
    pub data: Vec<DepositAddress>,
}

/// One deposit address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepositAddress {
    /// Currency.
    #[serde(default, with = "crate::de::string")]
    pub currency: String,
    /// The address.
    #[serde(default, with = "crate::de::string")]
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
    /// State of a deposit.
    pub enum DepositState {
        /// 1: deposit in progress.
        InDeposit = 1,
        /// 2: to be confirmed.
        ToBeConfirmed = 2,
        /// 3: successfully deposited.
        Deposited = 3,
        /// 4: stopped.
        Stopped = 4,
    }
}

/// Answer of [`DepositHistoryRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepositHistory {
    /// The records of this page.
    #[serde(default)]
    pub data: Vec<DepositRecord>,
}

/// One deposit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepositRecord {
    /// Record id (the `from` of the next page).
    #[serde(with = "crate::de::id")]
    pub id: String,
    /// Currency.
    #[serde(default, with = "crate::de::string")]
    pub currency: String,
    /// Transaction hash (wire `hashId`, older `hash`); `None` when empty.
    #[serde(
        rename = "hashId",
        alias = "hash",
        default,
        with = "crate::de::opt_string"
    )]
    pub hash_id: Option<String>,
    /// Chain; `None` when empty.
    #[serde(default, with = "crate::de::opt_string")]
    pub chain: Option<String>,
    /// Amount deposited (string or number on the wire).
    #[serde(with = "crate::de::decimal")]
    pub amount: Decimal,
    /// Deposit address.
    #[serde(default, with = "crate::de::string")]
    pub address: String,
    /// State.
    pub state: DepositState,
    /// Creation time as date-time text (format not documented).
    #[serde(default, with = "crate::de::string")]
    pub created_date: String,
    /// Last update time as date-time text (wire `update_date`, older `finished_date`).
    #[serde(alias = "finished_date", default, with = "crate::de::string")]
    pub update_date: String,
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
    /// State of a withdrawal.
    pub enum WithdrawState {
        /// 1: application in progress.
        Applying = 1,
        /// 2: to be confirmed.
        ToBeConfirmed = 2,
        /// 3: completed.
        Completed = 3,
        /// 4: rejected.
        Rejected = 4,
    }
}

/// Answer of [`WithdrawHistoryRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawHistory {
    /// The records of this page.
    #[serde(default)]
    pub data: Vec<WithdrawRecord>,
}

/// One withdrawal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawRecord {
    /// Withdrawal id (the `from` of the next page, the id [`CancelWithdraw`] takes).
    #[serde(with = "crate::de::id")]
    pub id: String,
    /// Currency.
    #[serde(default, with = "crate::de::string")]
    pub currency: String,
    /// Transaction hash (wire `hashId`, older `hash`); `None` when empty (not yet sent).
    #[serde(
        rename = "hashId",
        alias = "hash",
        default,
        with = "crate::de::opt_string"
    )]
    pub hash_id: Option<String>,
    /// Chain; `None` when empty.
    #[serde(default, with = "crate::de::opt_string")]
    pub chain: Option<String>,
    /// Amount withdrawn (string or number on the wire).
    #[serde(with = "crate::de::decimal")]
    pub amount: Decimal,
    /// Destination address.
    #[serde(default, with = "crate::de::string")]
    pub address: String,
    /// Address tag; `None` when empty.
    #[serde(default, with = "crate::de::opt_string")]
    pub memo: Option<String>,
    /// Fee charged (string or number on the wire).
    #[serde(with = "crate::de::decimal")]
    pub fee: Decimal,
    /// State.
    pub state: WithdrawState,
    /// Creation time as date-time text (format not documented).
    #[serde(default, with = "crate::de::string")]
    pub created_date: String,
    /// Last update time as date-time text (wire `update_date`, older `finished_date`).
    #[serde(alias = "finished_date", default, with = "crate::de::string")]
    pub update_date: String,
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

/// Answer of [`Withdraw`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawCreated {
    /// The new withdrawal's id (a long on the wire, integer or string).
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

/// Answer of [`CancelWithdraw`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawCancelled {
    /// The cancelled withdrawal's id (a long on the wire, integer or string).
    #[serde(with = "crate::de::id")]
    pub withdraw_id: String,
}
