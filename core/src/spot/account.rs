//! Private account functions: spot and margin balances, the finance log, margin positions,
//! transfers between accounts and closing a margin position.
//!
//! Every endpoint here is signed and answers `code` 0 on success.

use rust_decimal::Decimal;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::codes::{input_enum, str_enum};
use crate::endpoint::{Family, Meta, Method, Params};
use crate::error::Error;
use crate::money::Amount;
use crate::request;
use crate::request::{example, non_empty, positive, range, server_default};
use crate::spot::{check_symbol, check_window, Market};
use crate::types::{Pair, TimestampSecs};

/// Meta of a signed endpoint; reads (GET) are idempotent, POSTs are not.
const fn private(name: &'static str, method: Method, path: &'static str) -> Meta {
    Meta::new(Family::Spot, method, name, path).signed()
}

// ---------------------------------------------------------------------------------------------

/// One currency balance, as listed by `/spot/assets` and `/margin/assets`.
///
/// DESIGN: `currency` is the key of the row and required (see [decoding](crate#decoding)); every
/// amount is optional: a balance the server leaves out, or sends as `""`, `"-"` or `null`, is
/// `None`, never a made-up zero.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Asset {
    /// Currency, as the server writes it (`BTC`, `usdt`).
    #[serde(with = "crate::de::text")]
    pub currency: String,
    /// Available amount.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub free: Option<Decimal>,
    /// Total amount (available plus frozen).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub total: Option<Decimal>,
    /// Valuation rate; sent by `/margin/assets` only, and not always.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub valuation_rate: Option<Decimal>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/spot/assets`: the balances of the spot account.
    pub struct SpotAssetsRequest => SpotAssets;
    meta = private("spot.spot_assets", Method::Get, "/spot/assets");
    /// The request (it takes no parameters).
    new;
    fields {}
}

/// Answer of [`SpotAssetsRequest`].
///
/// An answer without `list` (`{"code":0}`), or with `null` or a placeholder there, decodes to an
/// empty list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct SpotAssets {
    /// One entry per currency.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub list: Vec<Asset>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/margin/assets`: the balances of the margin account and its totals.
    pub struct MarginAssetsRequest => MarginAssets;
    meta = private("spot.margin_assets", Method::Get, "/margin/assets");
    /// The request (it takes no parameters).
    new;
    fields {}
}

/// Answer of [`MarginAssetsRequest`].
///
/// DESIGN: the spec lists the top-level `total`, `free` and `unrealized_pnl` without types or a
/// promise that they are always sent; they are `Option<Decimal>` (number or string; `""` is
/// `None`), so an absent summary is not mistaken for a zero balance. An answer without any of
/// them and without `list` (`{"code":0}`) decodes to every summary `None` and an empty list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct MarginAssets {
    /// Total value of the margin account.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub total: Option<Decimal>,
    /// Available value of the margin account.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub free: Option<Decimal>,
    /// Unrealised profit and loss of open positions.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_pnl: Option<Decimal>,
    /// Equity of the margin account. Not in the documents; real answers carry it beside `total`
    /// and `free` (docs/protocol.md; the captured answer in ccxt/ccxt `ts/src/digifinex.ts`,
    /// `fetchCrossBorrowRate`, and `js/digifinex.js`, `fetchBorrowRate`).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub equity: Option<Decimal>,
    /// One entry per currency.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub list: Vec<Asset>,
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/{market}/financelog`: the financial log (balance changes) of the spot or margin
    /// account.
    ///
    /// Parameters, in this order: `market` (the path's value, `spot` or `margin`: the official
    /// reference lists it as a required parameter, and ccxt sends it; docs/protocol.md), then
    /// `currency_mark`, `start_time`, `end_time` and `limit`, each only when set.
    pub struct FinanceLogRequest => FinanceLog;
    meta = private("spot.financelog", Method::Get, "/{market}/financelog");
    /// The log of `market`'s account, all currencies, default 100 records.
    new;
    fields {
        /// The account whose log is read (the `{market}` segment, also sent as `market`).
        path market: Market,
        /// Only records of this currency (`btc`); must not be empty.
        opt currency_mark: String [non_empty],
        /// Records from this time on.
        opt start_time: TimestampSecs,
        /// Records up to this time; must not be before `start_time`.
        opt end_time: TimestampSecs,
        /// Records per call, 1..=1000 (default 100).
        opt limit: u32 [range(1, 1000), server_default(100)],
    }
    window = check_finance_window(start_time, end_time);
}

/// `end_time` not before `start_time`; no lookback limit.
fn check_finance_window(
    start: Option<TimestampSecs>,
    end: Option<TimestampSecs>,
    p: &Params,
) -> Result<(), Error> {
    check_window(start.map(|t| t.0), end.map(|t| t.0), p.now(), None)
}

/// The `type` code of a finance log record.
///
/// DESIGN: the spec does not give the meaning of any code, and new codes occur, so this is a
/// plain newtype over the wire integer instead of an enum with named variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FinanceType(pub i64);

impl FinanceType {
    /// The wire code.
    pub fn code(self) -> i64 {
        self.0
    }
}

impl<'de> Deserialize<'de> for FinanceType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::int::deserialize::<D, i64>(d).map(FinanceType)
    }
}

impl Serialize for FinanceType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

/// One finance log record, in either documented shape: the current one
/// (`time`, `num`, `balance`, `currency_mark`, `type`) or the older asset-entry one
/// (`currency`, `free`, `total`). Fields of the other shape are `None`.
///
/// DESIGN: `currency` is read from `currency_mark`, falling back to `currency` (the older
/// shape); when both are sent, `currency_mark` wins. A log is not a keyed listing and its
/// records have no id, so every field is optional (see [decoding](crate#decoding)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(from = "RawFinanceEntry")]
#[non_exhaustive]
pub struct FinanceEntry {
    /// Currency of the record (`currency_mark`, or `currency` in the older shape).
    #[serde(with = "crate::de::opt_string")]
    pub currency: Option<String>,
    /// Time of the record (seconds).
    #[serde(with = "crate::de::opt")]
    pub time: Option<TimestampSecs>,
    /// Amount of the change (signed).
    #[serde(with = "crate::de::opt_decimal")]
    pub num: Option<Decimal>,
    /// Balance after the change.
    #[serde(with = "crate::de::opt_decimal")]
    pub balance: Option<Decimal>,
    /// Available amount (older shape only).
    #[serde(with = "crate::de::opt_decimal")]
    pub free: Option<Decimal>,
    /// Total amount (older shape only).
    #[serde(with = "crate::de::opt_decimal")]
    pub total: Option<Decimal>,
    /// Kind of record (wire name `type`); the codes' meanings are not documented.
    #[serde(rename = "type")]
    pub finance_type: Option<FinanceType>,
}

/// The union of both entry shapes, read in one pass.
#[derive(Deserialize)]
struct RawFinanceEntry {
    #[serde(default, with = "crate::de::opt_string")]
    currency_mark: Option<String>,
    #[serde(default, with = "crate::de::opt_string")]
    currency: Option<String>,
    #[serde(default, with = "crate::de::opt")]
    time: Option<TimestampSecs>,
    #[serde(default, with = "crate::de::opt_decimal")]
    num: Option<Decimal>,
    #[serde(default, with = "crate::de::opt_decimal")]
    balance: Option<Decimal>,
    #[serde(default, with = "crate::de::opt_decimal")]
    free: Option<Decimal>,
    #[serde(default, with = "crate::de::opt_decimal")]
    total: Option<Decimal>,
    #[serde(default, rename = "type", with = "crate::de::opt_int")]
    finance_type: Option<i64>,
}

impl From<RawFinanceEntry> for FinanceEntry {
    fn from(r: RawFinanceEntry) -> Self {
        FinanceEntry {
            currency: r.currency_mark.or(r.currency),
            time: r.time,
            num: r.num,
            balance: r.balance,
            free: r.free,
            total: r.total,
            finance_type: r.finance_type.map(FinanceType),
        }
    }
}

/// Answer of [`FinanceLogRequest`].
///
/// DESIGN: `data` is read in either documented form: an object `{"finance":[..],"total":"12"}`
/// (`total` a string or an integer), or directly a list of entries (older description; `total`
/// is then `None`). An answer without `data` (`{"code":0}`), or with `null` or a placeholder
/// there, decodes to an empty log with `total` `None`; any other `data` (a number, a word) is
/// an empty log too, reported as unreadable (see [decoding](crate#decoding)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(from = "RawFinanceLog")]
#[non_exhaustive]
pub struct FinanceLog {
    /// The records.
    pub entries: Vec<FinanceEntry>,
    /// Count of matching records, when the server sends it.
    #[serde(with = "crate::de::opt_int")]
    pub total: Option<u64>,
}

#[derive(Deserialize)]
struct RawFinanceLog {
    #[serde(default)]
    data: FinanceData,
}

impl From<RawFinanceLog> for FinanceLog {
    fn from(r: RawFinanceLog) -> Self {
        FinanceLog {
            entries: r.data.entries,
            total: r.data.total,
        }
    }
}

/// The `data` member of a finance log answer, object or list.
#[derive(Default)]
struct FinanceData {
    entries: Vec<FinanceEntry>,
    total: Option<u64>,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum FinanceField {
    Finance,
    Total,
    #[serde(other)]
    Other,
}

/// An optional count (`total`): a string or an integer; placeholders are `None`.
struct OptCount(Option<u64>);

impl<'de> Deserialize<'de> for OptCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::opt_int::deserialize::<D, u64>(d).map(OptCount)
    }
}

/// The `finance` list, read by the list rule ([`crate::de::vec`]).
struct EntryList(Vec<FinanceEntry>);

impl<'de> Deserialize<'de> for EntryList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::vec(d).map(EntryList)
    }
}

impl<'de> Deserialize<'de> for FinanceData {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn unreadable<E: serde::de::Error>(text: &str) -> Result<FinanceData, E> {
                crate::de::unreadable::note::<E>("a finance log", text)
                    .map(|()| FinanceData::default())
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = FinanceData;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a finance log: an object with `finance` and `total`, or a list")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<FinanceData, E> {
                Ok(FinanceData::default())
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<FinanceData, E> {
                Ok(FinanceData::default())
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<FinanceData, E> {
                if crate::de::is_placeholder(v) {
                    Ok(FinanceData::default())
                } else {
                    Self::unreadable(v)
                }
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<FinanceData, E> {
                Self::unreadable(if v { "true" } else { "false" })
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<FinanceData, E> {
                Self::unreadable(&v.to_string())
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<FinanceData, E> {
                Self::unreadable(&v.to_string())
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<FinanceData, E> {
                Self::unreadable(&v.to_string())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FinanceData, A::Error> {
                let mut out = FinanceData::default();
                while let Some(key) = map.next_key::<FinanceField>()? {
                    match key {
                        FinanceField::Finance => out.entries = map.next_value::<EntryList>()?.0,
                        FinanceField::Total => out.total = map.next_value::<OptCount>()?.0,
                        FinanceField::Other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FinanceData, A::Error> {
                let mut entries = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(256));
                while let Some(e) = seq.next_element::<FinanceEntry>()? {
                    entries.push(e);
                }
                Ok(FinanceData {
                    entries,
                    total: None,
                })
            }
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------

request! {
    /// `GET /v3/margin/positions`: open margin positions and the account's margin summary.
    #[derive(Default)]
    pub struct MarginPositionsRequest => MarginPositions;
    meta = private("spot.margin_positions", Method::Get, "/margin/positions");
    /// Positions on every pair; [`MarginPositionsRequest::symbol`] narrows to one.
    new;
    fields {
        /// Only the position on `symbol` (`btc_usdt`).
        opt symbol: String [check_symbol],
    }
}

str_enum! {
    /// Direction of a margin position.
    ///
    /// DESIGN: one description spells the values `go_long`/`go_short` (and captured answers use
    /// them: ccxt/ccxt `ts/src/digifinex.ts`, `fetchPosition`); both spellings map to the same
    /// variant. `empty` (and `""`) means no position and reads as a `side` of `None` (see
    /// [`MarginPosition::side`]), so it has no variant.
    pub enum PositionSide {
        /// A long position (`long`, also `go_long`).
        Long = "long" | "go_long",
        /// A short position (`short`, also `go_short`).
        Short = "short" | "go_short",
    }
}

/// `side` of a margin position: the optional rule ([`crate::de::opt`]), with the word `empty`
/// (no position) read as `None` too.
mod position_side {
    use super::*;

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<PositionSide>, D::Error> {
        let side: Option<PositionSide> = crate::de::opt::deserialize(d)?;
        Ok(
            side.filter(
                |s| !matches!(s, PositionSide::Other(w) if w.eq_ignore_ascii_case("empty")),
            ),
        )
    }

    pub(super) fn serialize<S: serde::Serializer>(
        v: &Option<PositionSide>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        crate::de::opt::serialize(v, s)
    }
}

/// One margin position.
///
/// DESIGN: the pair is the key of the row and required; everything else is optional. The spec
/// types the numbers as numbers, but a position whose `side` is `empty` may carry blank values,
/// so every number is `Option<Decimal>` (number or string; `""`, `"-"` and `null` are `None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct MarginPosition {
    /// Pair (`BTC_USDT` on the wire; compares with text in any case).
    pub symbol: Pair,
    /// Leverage.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub leverage_ratio: Option<Decimal>,
    /// Direction; `None` when there is no position (`empty`, `""`, or no `side`).
    #[serde(default, with = "position_side")]
    pub side: Option<PositionSide>,
    /// Position size.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub amount: Option<Decimal>,
    /// Average entry price.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub entry_price: Option<Decimal>,
    /// Unrealised profit and loss.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_pnl: Option<Decimal>,
    /// Unrealised return on equity, a fraction (`-0.0077` = -0.77 %). Not in the documents;
    /// real answers carry it (docs/protocol.md; the captured answers in ccxt/ccxt
    /// `ts/src/digifinex.ts`, `fetchPosition` and `fetchBorrowInterest`).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_roe: Option<Decimal>,
    /// Price at which the position is liquidated.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub liquidation_price: Option<Decimal>,
    /// Margin rate at which the position is liquidated.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub liquidation_rate: Option<Decimal>,
}

/// Answer of [`MarginPositionsRequest`].
///
/// An answer without `positions` (`{"code":0}`), or with `null` or a placeholder there, decodes
/// to no positions, and a summary the server leaves out to `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct MarginPositions {
    /// Margin of the account.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub margin: Option<Decimal>,
    /// Margin rate (sent as a string or an integer).
    #[serde(default, with = "crate::de::opt_decimal")]
    pub margin_rate: Option<Decimal>,
    /// Unrealised profit and loss of all positions.
    #[serde(default, with = "crate::de::opt_decimal")]
    pub unrealized_pnl: Option<Decimal>,
    /// The positions.
    #[serde(default, deserialize_with = "crate::de::vec")]
    pub positions: Vec<MarginPosition>,
}

// ---------------------------------------------------------------------------------------------

input_enum! {
    /// An account that [`TransferRequest`] moves funds between.
    pub enum TransferAccount: code u8 {
        /// The spot account (code 1).
        Spot = 1 "spot",
        /// The margin account (code 2).
        Margin = 2 "margin",
        /// The OTC account (code 3).
        Otc = 3 "OTC",
    }
}

request! {
    /// `POST /v3/transfer`: moves funds between the spot, margin and OTC accounts.
    ///
    /// Refused before sending: an empty currency, a non-positive amount, the same account on both
    /// sides (field `to`), and margin <-> OTC in either direction (field `to`; the exchange does not
    /// support it).
    ///
    /// DESIGN: `num` is sent as the amount's plain text, exactly as given (scale kept).
    pub struct TransferRequest => TransferAck;
    meta = private("spot.transfer", Method::Post, "/transfer");
    /// Moves `num` of `currency_mark` (`usdt`) from account `from` to account `to`.
    new;
    fields {
        /// The currency (`usdt`); must not be empty.
        req currency_mark: String [non_empty],
        /// The amount to move; must be positive.
        req num: Amount [positive],
        /// The account the funds leave.
        req from: TransferAccount,
        /// The account the funds enter; not `from`, and not margin <-> OTC.
        req to: TransferAccount [example(TransferAccount::Margin)],
    }
    validate = check_transfer_accounts;
}

/// Two different accounts, and not margin <-> OTC (unsupported by the exchange); errors name `to`.
fn check_transfer_accounts(r: &TransferRequest, _: &Params) -> Result<(), Error> {
    use TransferAccount::{Margin, Otc};
    if r.from == r.to {
        return Err(Error::validation(
            "to",
            format!("is the same account as from ({})", r.from.code()),
        ));
    }
    if matches!((r.from, r.to), (Margin, Otc) | (Otc, Margin)) {
        return Err(Error::validation(
            "to",
            "transfers between the margin and OTC accounts are not supported",
        ));
    }
    Ok(())
}

/// Answer of [`TransferRequest`]: its success carries nothing but the code.
///
/// The success answer `{"code":0}` decodes to `TransferAck {}`; any other member is ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TransferAck {}

// ---------------------------------------------------------------------------------------------

request! {
    /// `POST /v3/margin/position/close`: closes the margin position on one pair at market price.
    pub struct ClosePositionRequest => ClosePositionAck;
    meta = private(
        "spot.margin_position_close",
        Method::Post,
        "/margin/position/close",
    );
    /// Closes the position on `symbol` (`btc_usdt`).
    new;
    fields {
        /// The pair (`btc_usdt`).
        req symbol: String [check_symbol],
    }
}

/// Answer of [`ClosePositionRequest`]: its success carries nothing but the code.
///
/// The success answer `{"code":0}` decodes to `ClosePositionAck {}`; any other member is ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClosePositionAck {}
