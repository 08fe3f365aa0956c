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
//! * **Required fields** (the rule of [decoding](crate#decoding)): a record's `id` (its identity and the
//!   `from` of the next page), a deposit address's `address`, and the `withdraw_id` of a new
//!   withdrawal (the whole answer). Everything else is optional: missing, a placeholder or
//!   unreadable, it is `None`, and the other records of the answer are kept.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::codes::{input_enum, int_enum};
use crate::endpoint::{Family, Meta, Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;
use crate::money::Amount;
use crate::params::ParamMap;
use crate::request;
use crate::request::{non_empty, positive, range, server_default, IntoArg, Param};

/// Meta of a wallet endpoint: signed, success code 200; GETs are idempotent, POSTs are not.
const fn private(name: &'static str, method: Method, path: &'static str) -> Meta {
    Meta::new(Family::Spot, method, name, path)
        .signed()
        .success_code(200)
}

/// Largest page of deposit or withdrawal history.
const MAX_HISTORY_SIZE: u32 = 500;

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/deposit/address`: the deposit addresses of one currency.
    pub struct DepositAddressRequest => DepositAddresses;
    meta = private("spot.deposit_address", Method::Get, "/deposit/address");
    /// The deposit addresses of `currency` (`usdt`).
    new;
    fields {
        /// The currency (`usdt`).
        req currency: String [non_empty],
    }
}

/// Answer of [`DepositAddressRequest`]. A missing or `null` list is empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct DepositAddresses {
    /// One entry per address (a currency may have one per chain).
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<DepositAddress>,
}

/// One deposit address. `address` is required (it is what the caller uses); everything else is
/// optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
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

input_enum! {
    /// Direction of a deposit or withdrawal history listing.
    ///
    /// With [`Prev`](HistoryDirection::Prev) and no `from`, listing starts at record id 1 in
    /// ascending order; with [`Next`](HistoryDirection::Next) and no `from`, it starts at the
    /// newest record and descends. The server's default is `prev`.
    pub enum HistoryDirection: word {
        /// `prev`.
        Prev = "prev",
        /// `next`.
        Next = "next",
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/deposit/history`: the caller's deposits, one page.
    #[derive(Default)]
    pub struct DepositHistoryRequest => DepositHistory;
    meta = private("spot.deposit_history", Method::Get, "/deposit/history");
    /// Every currency, default page (100 records, direction `prev`).
    new;
    fields {
        /// Only records of `currency` (`usdt`); omitted means all currencies.
        opt currency: String [non_empty],
        /// Start listing at this record id.
        opt from: u64,
        /// Records per page, 1..=500 (server default 100).
        opt size: u32 [range(1, MAX_HISTORY_SIZE), server_default(100)],
        /// Listing direction (server default [`HistoryDirection::Prev`]).
        opt direct: HistoryDirection [server_default(HistoryDirection::Prev)],
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct DepositHistory {
    /// The records of this page.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<DepositRecord>,
}

/// One deposit. `id` is required (the record's identity, the `from` of the next page);
/// everything else is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(from = "RecordWire<DepositState>")]
#[non_exhaustive]
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
/// fields, decoded each by the rule of [decoding](crate#decoding); `S` is the state enum.
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

request! {
    /// `GET /v3/withdraw/history`: the caller's withdrawals, one page.
    #[derive(Default)]
    pub struct WithdrawHistoryRequest => WithdrawHistory;
    meta = private("spot.withdraw_history", Method::Get, "/withdraw/history");
    /// Every currency, default page (100 records, direction `prev`).
    new;
    fields {
        /// Only records of `currency` (`usdt`); omitted means all currencies.
        opt currency: String [non_empty],
        /// Start listing at this record id.
        opt from: u64,
        /// Records per page, 1..=500 (server default 100).
        opt size: u32 [range(1, MAX_HISTORY_SIZE), server_default(100)],
        /// Listing direction (server default [`HistoryDirection::Prev`]).
        opt direct: HistoryDirection [server_default(HistoryDirection::Prev)],
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct WithdrawHistory {
    /// The records of this page.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub data: Vec<WithdrawRecord>,
}

/// One withdrawal. `id` is required (the withdrawal's identity, the `from` of the next page,
/// the id [`CancelWithdrawRequest`] takes); everything else is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(from = "RecordWire<WithdrawState>")]
#[non_exhaustive]
pub struct WithdrawRecord {
    /// Withdrawal id (the `from` of the next page, the id [`CancelWithdrawRequest`] takes). Required.
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

request! {
    /// `POST /v3/withdraw/new`: withdraws to a whitelisted address.
    ///
    /// For USDT the chain is required and must be `ERC20` or `OMNI`; for other currencies a chain
    /// is optional and passed through unchanged. Withdrawals are limited to 3 per minute and 100
    /// per day (error 20040).
    pub struct WithdrawRequest => WithdrawCreated;
    meta = private("spot.withdraw_new", Method::Post, "/withdraw/new");
    /// Withdraws `amount` of `currency` to `address` (which must be on the withdrawal whitelist).
    new;
    fields {
        /// The currency (`usdt`).
        req currency: String [non_empty],
        /// The chain (`ERC20`, `OMNI` for USDT); empty counts as not given.
        opt chain: OmitBlank,
        /// The destination address, on the withdrawal whitelist.
        req address: String [non_empty],
        /// The amount to withdraw, positive.
        req amount: Amount [positive],
        /// The address tag some currencies need; empty counts as not given.
        opt memo: OmitBlank,
    }
    validate = check_usdt_chain;
}

/// For USDT (any case), a chain that is given and is `ERC20` or `OMNI`.
fn check_usdt_chain(r: &WithdrawRequest, _: &Params) -> Result<(), Error> {
    if !r.currency.trim().eq_ignore_ascii_case("usdt") {
        return Ok(());
    }
    match r.chain.as_ref().and_then(OmitBlank::given) {
        None => Err(Error::missing_when("chain", "for USDT (ERC20 or OMNI)")),
        Some(c) if !USDT_CHAINS.contains(&c) => Err(Error::validation(
            "chain",
            format!("{c:?} is not a USDT chain (ERC20 or OMNI)"),
        )),
        Some(_) => Ok(()),
    }
}

/// A text parameter that is not sent when it is empty or blank (the chain and memo of a
/// [`WithdrawRequest`]): an empty chain or memo counts as not given. Given text is sent
/// unchanged. Setters taking it accept a `&str`, a `&String` or a `String`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OmitBlank(String);

impl OmitBlank {
    /// The text, as given.
    pub fn new(text: impl Into<String>) -> Self {
        OmitBlank(text.into())
    }

    /// The text, as given (possibly blank).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text unless it is empty or blank.
    pub fn given(&self) -> Option<&str> {
        Some(self.0.as_str()).filter(|s| !s.trim().is_empty())
    }
}

impl IntoArg<OmitBlank> for &str {
    fn into_arg(self) -> OmitBlank {
        OmitBlank::new(self)
    }
}

impl IntoArg<OmitBlank> for &String {
    fn into_arg(self) -> OmitBlank {
        OmitBlank::new(self.as_str())
    }
}

impl IntoArg<OmitBlank> for String {
    fn into_arg(self) -> OmitBlank {
        OmitBlank(self)
    }
}

/// Sent unchanged when not blank; nothing is sent for empty or blank text.
impl Param for OmitBlank {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        if let Some(text) = self.given() {
            p.push(key, text);
        }
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        if let Some(text) = self.given() {
            w.str(key, text);
        }
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        Ok(p.take_opt_str(key)?.map(OmitBlank))
    }
    #[inline]
    fn describe(info: &mut crate::request::ParamInfo) {
        info.type_name("string (not sent when blank)");
    }
}

/// Answer of [`WithdrawRequest`]. `withdraw_id` is the whole answer, so it is required: an answer
/// without it (`{"code":200}`) is a decode error naming `withdraw_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct WithdrawCreated {
    /// The new withdrawal's id (a long on the wire, integer or string). Required.
    #[serde(with = "crate::de::id")]
    pub withdraw_id: String,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /v3/withdraw/cancel`: cancels a withdrawal that has not been processed yet.
    ///
    /// The id is sent as the form parameter `withdraw_id` (see the module documentation). Some
    /// statuses cannot be cancelled (error 20039).
    pub struct CancelWithdrawRequest => CancelWithdrawAck;
    meta = private("spot.withdraw_cancel", Method::Post, "/withdraw/cancel");
    /// Cancels withdrawal `withdraw_id` (as returned in [`WithdrawCreated::withdraw_id`]).
    new;
    fields {
        /// The withdrawal's id (digits).
        req withdraw_id: WithdrawId [check_withdraw_id],
    }
}

/// A withdrawal id (digits, as returned in [`WithdrawCreated::withdraw_id`]), sent without
/// surrounding whitespace. Constructors taking it accept a `&str`, a `&String` or a `String`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct WithdrawId(String);

impl WithdrawId {
    /// The id `text`, as given (checked when the request is built).
    pub fn new(text: impl Into<String>) -> Self {
        WithdrawId(text.into())
    }

    /// The id, as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl IntoArg<WithdrawId> for &str {
    fn into_arg(self) -> WithdrawId {
        WithdrawId::new(self)
    }
}

impl IntoArg<WithdrawId> for &String {
    fn into_arg(self) -> WithdrawId {
        WithdrawId::new(self.as_str())
    }
}

impl IntoArg<WithdrawId> for String {
    fn into_arg(self) -> WithdrawId {
        WithdrawId(self)
    }
}

/// A check: the id is digits once surrounding whitespace is removed.
#[allow(non_upper_case_globals)]
const check_withdraw_id: crate::request::Rule<WithdrawId> =
    crate::request::Rule::new(withdraw_id_form, "digits").with_example("1");

fn withdraw_id_form(field: &'static str, id: &WithdrawId) -> Result<(), Error> {
    let digits = id.0.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::validation(
            field,
            format!("{:?} is not a withdrawal id (digits)", id.0),
        ));
    }
    Ok(())
}

/// Sent trimmed of surrounding whitespace.
impl Param for WithdrawId {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push(key, self.0.trim());
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.str(key, self.0.trim());
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        Ok(p.take_opt_str(key)?.map(WithdrawId))
    }
    #[inline]
    fn describe(info: &mut crate::request::ParamInfo) {
        info.type_name("withdrawal id");
    }
}

/// Answer of [`CancelWithdrawRequest`]: an acknowledgement. An answer without `withdraw_id`
/// (`{"code":200}`) decodes to `withdraw_id: None`; the success code is the answer.
///
/// DESIGN: the id only echoes the one the caller sent, so it is optional (the rule of
/// [decoding](crate#decoding)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct CancelWithdrawAck {
    /// The cancelled withdrawal's id (a long on the wire, integer or string), when sent.
    #[serde(default, with = "crate::de::opt_id")]
    pub withdraw_id: Option<String>,
}
