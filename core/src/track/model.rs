//! What a [`Tracker`](super::Tracker) holds and reports: orders, fills, balances, positions, the
//! changes it emits and why it may be unsure.

use rust_decimal::Decimal;
use serde::Serialize;

use crate::reconcile::Outcome;
use crate::types::{Family, TimestampMillis};

/// Where an order stands. Only ever moves from [`OrderStatus::Open`] to one of the other two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    /// May still execute (spot status 0 or 1, swap state 0 or 1).
    Open,
    /// Fully executed (spot 2, swap 2).
    Filled,
    /// Cancelled, possibly after part of it executed (spot 3 or 4, swap -1).
    Cancelled,
}

/// An order of the account, as the tracker knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TrackedOrder {
    /// Order id.
    pub order_id: String,
    /// Pair (`btc_usdt`, lower case) or instrument (`BTCUSDTPERP`, upper case).
    pub market: String,
    /// Spot `type` (`buy`, `sell`, `buy_market`, `sell_market`) or swap kind (`open_long`,
    /// `close_short`, ...), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    /// Limit price, when known (none for market orders).
    #[serde(
        with = "crate::de::opt_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub price: Option<Decimal>,
    /// Amount (spot base currency; quote for a market buy) or contracts (swap), when known.
    #[serde(
        with = "crate::de::opt_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub amount: Option<Decimal>,
    /// Cumulative executed amount: the largest any source reported (it never decreases).
    #[serde(with = "crate::de::decimal")]
    pub filled: Decimal,
    /// The sum of the fills with a trade id seen for this order ([`Change::Filled`]),
    /// including fills from before the tracker started that it read but did not emit.
    #[serde(with = "crate::de::decimal")]
    pub traded: Decimal,
    /// Where it stands.
    pub status: OrderStatus,
}

/// One execution of an own order, identified by its trade id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Fill {
    /// Trade id (spot `id`, swap `trade_id`).
    pub trade_id: String,
    /// The order that executed, when the venue says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    /// Pair or instrument (as in [`TrackedOrder::market`]).
    pub market: String,
    /// Spot `type` of the order or swap kind, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    /// Execution price.
    #[serde(
        with = "crate::de::opt_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub price: Option<Decimal>,
    /// Executed amount (spot base) or contracts (swap).
    #[serde(
        with = "crate::de::opt_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub amount: Option<Decimal>,
    /// Execution time (ms; spot times are whole seconds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<TimestampMillis>,
    /// Whether the order was the maker, when the venue says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maker: Option<bool>,
}

/// The fee of a fill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Fee {
    /// Amount paid.
    #[serde(with = "crate::de::decimal")]
    pub amount: Decimal,
    /// Currency, when the venue says (spot `fee_currency`; swap fees are in the settlement
    /// currency and name none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
}

/// A balance of one currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Balance {
    /// Currency, upper case (`USDT`).
    pub currency: String,
    /// Available (spot `free`, swap `avail_balance`).
    #[serde(with = "crate::de::opt_decimal")]
    pub free: Option<Decimal>,
    /// Total (spot `total`, swap `equity`).
    #[serde(with = "crate::de::opt_decimal")]
    pub total: Option<Decimal>,
}

impl Balance {
    /// A balance of `currency` (upper-cased).
    pub fn new(currency: &str, free: Option<Decimal>, total: Option<Decimal>) -> Self {
        Balance {
            currency: currency.to_ascii_uppercase(),
            free,
            total,
        }
    }

    /// Whether both figures are zero or unknown (such a balance is not kept).
    pub fn is_empty(&self) -> bool {
        self.free.is_none_or(|v| v.is_zero()) && self.total.is_none_or(|v| v.is_zero())
    }

    fn same(&self, other: &Balance) -> bool {
        fn eq(a: Option<Decimal>, b: Option<Decimal>) -> bool {
            a.map(|v| v.normalize()) == b.map(|v| v.normalize())
        }
        eq(self.free, other.free) && eq(self.total, other.total)
    }
}

/// A swap position: one instrument and side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Position {
    /// Instrument (`BTCUSDTPERP`).
    pub instrument_id: String,
    /// `long` or `short` (empty when the venue did not say).
    pub side: String,
    /// Contracts.
    #[serde(with = "crate::de::decimal")]
    pub size: Decimal,
    /// Average entry price, when known.
    #[serde(with = "crate::de::opt_decimal")]
    pub avg_cost: Option<Decimal>,
    /// `crossed` or `isolated`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin_mode: Option<String>,
}

impl Position {
    pub(crate) fn key(&self) -> (String, String) {
        (self.instrument_id.clone(), self.side.clone())
    }

    fn same(&self, other: &Position) -> bool {
        self.size.normalize() == other.size.normalize()
            && (self.avg_cost.is_none()
                || other.avg_cost.is_none()
                || self.avg_cost.map(|v| v.normalize()) == other.avg_cost.map(|v| v.normalize()))
    }
}

pub(crate) fn same_balance(a: &Balance, b: &Balance) -> bool {
    a.same(b)
}

pub(crate) fn same_position(a: &Position, b: &Position) -> bool {
    a.same(b)
}

/// A read the venue refused because of the key (its key, signature, permission, IP whitelist
/// or expiry: [`crate::ErrorKind::Auth`]): no retry can help until the key is fixed (see
/// [`crate::track::Tracker::refused`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Refusal {
    /// The read's endpoint (`spot.spot_assets`).
    pub endpoint: &'static str,
    /// The exchange's code.
    pub code: i64,
    /// Whether the code names a permission (spot 10006, swap 400005) rather than the key.
    pub permission: bool,
    /// The error, as displayed.
    pub message: String,
}

/// Why the tracker is not sure that its state is the account's.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Unsure {
    /// No resync has completed yet.
    Starting,
    /// The socket went down: pushes may have been lost until the next resync after the private
    /// channels are acknowledged again.
    Gap,
    /// A write's outcome is unknown and not yet reconciled.
    Unknown {
        /// The write's endpoint (`spot.order_new`).
        endpoint: String,
    },
    /// An order's executed amount rose without the fills (trade ids and fees) having been read.
    FillsPending {
        /// The pair or instrument.
        market: String,
    },
    /// A read failed; the resync is tried again after [`super::TrackConfig::retry_delay`].
    ReadFailed,
    /// A bound was reached (orders remembered, changes queued): something was dropped.
    Overflow,
}

/// A change of the account, emitted once ([`super::Tracker::poll_change`]).
///
/// Serialized as one JSON object tagged by `change` (`{"change":"filled",...}`), decimals as
/// strings in plain notation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Change {
    /// An order became known (from a write's answer, a push or a read).
    Placed {
        /// The order when first known.
        order: TrackedOrder,
    },
    /// An order's cumulative executed amount rose (from a push or a read).
    Progress {
        /// Order id.
        order_id: String,
        /// Pair or instrument.
        market: String,
        /// Executed amount before.
        #[serde(with = "crate::de::decimal")]
        before: Decimal,
        /// Executed amount now.
        #[serde(with = "crate::de::decimal")]
        filled: Decimal,
    },
    /// One fill with its trade id and fee (from `mytrades` or swap `history_trades`).
    Filled {
        /// The fill.
        trade: Fill,
        /// Its fee, when the venue says.
        fee: Option<Fee>,
    },
    /// An order executed fully.
    Completed {
        /// Order id.
        order_id: String,
        /// Pair or instrument.
        market: String,
    },
    /// An order was cancelled.
    Cancelled {
        /// Order id.
        order_id: String,
        /// Pair or instrument.
        market: String,
        /// What had executed.
        #[serde(with = "crate::de::decimal")]
        filled: Decimal,
    },
    /// A balance changed (`None`: none before, or none any more).
    BalanceChanged {
        /// Currency, upper case.
        currency: String,
        /// Before.
        before: Option<Balance>,
        /// After.
        after: Option<Balance>,
    },
    /// A position changed, appeared (`before` none) or went (`after` none).
    PositionChanged {
        /// Instrument.
        instrument_id: String,
        /// `long` or `short`.
        side: String,
        /// Before.
        before: Option<Position>,
        /// After.
        after: Option<Position>,
    },
    /// A write whose outcome was unknown has been reconciled.
    Settled {
        /// The write's endpoint.
        endpoint: String,
        /// One line per element (`applied: 1a2b (...)`, `not applied: ...`).
        verdicts: Vec<String>,
        /// The verdicts.
        #[serde(skip)]
        outcome: Outcome,
    },
    /// The reconciliation of an unknown write failed (a read failed); the resync that follows
    /// still brings the state up to date.
    Unsettled {
        /// The write's endpoint.
        endpoint: String,
        /// What failed.
        error: String,
    },
    /// A resync completed: from here the state is the venue's as of its reads.
    Resynced {
        /// Server time when it completed.
        at: TimestampMillis,
        /// Reads it took.
        reads: u32,
    },
    /// A read failed; the resync is abandoned and tried again later.
    ReadFailed {
        /// The read's endpoint.
        endpoint: String,
        /// What failed.
        error: String,
    },
}

/// The tracker's state: a consistent snapshot to print or compare.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct State {
    /// The family tracked.
    pub family: Family,
    /// Open orders, by id.
    pub open_orders: Vec<TrackedOrder>,
    /// Balances, by currency (empty ones are not kept).
    pub balances: Vec<Balance>,
    /// Positions (swap), by instrument and side.
    pub positions: Vec<Position>,
    /// Why it may differ from the account's (empty: as of the last resync plus every push since).
    pub unsure: Vec<Unsure>,
    /// When the last resync completed (server time).
    pub last_resync: Option<TimestampMillis>,
}
