//! Swap books, the synthetic market maker, matching, positions, margin and funding.
//!
//! Books are the shared [`crate::book`], as for spot: price levels of FIFO queues, price-time
//! priority, trades at the resting price, and synthetic maker orders from the seed
//! (`book_levels` per side, 5 basis points apart rounded down to the tick, at least one tick;
//! refilled beyond the worst synthetic price when a side drops below half). Quantities are
//! whole contracts.
//!
//! DESIGN (margin model, linear contracts settled in the quote currency, USDT):
//! - The swap wallet is the account's [`AccountType::Swap`] balance: `free + frozen` is the
//!   wallet balance (transfers, realized pnl, fees, funding); `frozen` holds open orders' margin
//!   and fee (`frozen_margin`, `frozen_money`) and positions' margin.
//! - An open order (type 1 or 2) freezes `size * contract_value * price / leverage` as margin plus
//!   the taker fee on that value, at its limit price (market-style types: the worst price they may
//!   reach). A fill releases the order's share and locks `qty * contract_value * fill_price /
//!   leverage` as position margin; the fee (maker or taker rate) is taken from the free balance.
//! - A close order (type 3 or 4) freezes nothing; its fill realizes
//!   `(price - avg_cost) * qty * contract_value` (negated for shorts) and releases the position
//!   margin share.
//! - Crossed and isolated positions hold margin the same way; isolated positions also accept
//!   margin added or removed by `position_margin` (`posi_balance`). Unrealized pnl uses the mark
//!   price (the book mid unless set through the control API). The liquidation price is
//!   `(avg*value - margin) / (value * (1 - mmr))` for longs and
//!   `(avg*value + margin) / (value * (1 + mmr))` for shorts, per unit of price.
//! - Liquidation: checked with funding, before every swap request and control call (so right
//!   after a control-API mark price change). A position whose mark price has reached its
//!   liquidation price (long: mark <= price, short: mark >= price; never for a price of 0) is
//!   force-closed by the exchange, not through the book: its unfinished close orders are
//!   cancelled, a filled system close order (type 3 or 4, `order_type` 0) and a fill with
//!   `trade_type` 1 (force close) at the liquidation price are recorded, and the whole position
//!   margin is lost (the pnl at that price less the maintenance margin, kept as the liquidation
//!   fee): `close_profit` and the close bill (finance_type 5 or 6) are `-margin`, the fee 0.
//!   Copy positions on it end with status 3 (forced close) and their TP/SL plans are cancelled.
//!   No auto-deleveraging runs (no counterparty positions exist to reduce), so `trade_type` 3
//!   and finance types 9/10 never occur.
//! - Funding: every 8 hours (00:00, 08:00, 16:00 UTC of the simulator clock; every 4 hours for
//!   instruments with [`SwapInstrumentSpec::funding_interval_hours`] 4) each position pays
//!   (long, positive rate) or receives `size * contract_value * mark * rate` to or from the free
//!   balance, recorded as a funding-fee record and a bill of finance_type 15. Settlement runs
//!   lazily before every swap request and control call, for every funding time passed.

use crate::accounts::{Account, AccountId, AccountType};
use crate::book::Demand;
pub use crate::book::{Book, Resting, Side};
use crate::config::{Retention, SimConfig, SwapInstrumentSpec};
use crate::history::{push_capped, OrderLog};
use crate::num::{floor_dp, round_dp};
use crate::rng::{mix, Rng};
use crate::state::State;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Default funding period (8 hours); see [`SwapInstrumentSpec::funding_period_ms`].
pub const FUNDING_PERIOD_MS: i64 = 8 * 3_600_000;

/// Swap finance_type codes of bills.
pub mod bill {
    /// Transfer in.
    pub const TRANSFER_IN: u32 = 1;
    /// Transfer out.
    pub const TRANSFER_OUT: u32 = 2;
    /// Open long (fee).
    pub const OPEN_LONG: u32 = 3;
    /// Open short (fee).
    pub const OPEN_SHORT: u32 = 4;
    /// Close long (pnl and fee).
    pub const CLOSE_LONG: u32 = 5;
    /// Close short (pnl and fee).
    pub const CLOSE_SHORT: u32 = 6;
    /// Funding fee.
    pub const FUNDING: u32 = 15;
}

/// Position side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PosSide {
    /// Long.
    Long,
    /// Short.
    Short,
}

impl PosSide {
    /// `long` or `short`.
    pub fn text(self) -> &'static str {
        match self {
            PosSide::Long => "long",
            PosSide::Short => "short",
        }
    }

    /// +1 for long, -1 for short.
    pub fn sign(self) -> Decimal {
        match self {
            PosSide::Long => Decimal::ONE,
            PosSide::Short => Decimal::NEGATIVE_ONE,
        }
    }
}

/// Margin mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarginMode {
    /// Crossed.
    Crossed,
    /// Isolated.
    Isolated,
}

impl MarginMode {
    /// `crossed` or `isolated`.
    pub fn text(self) -> &'static str {
        match self {
            MarginMode::Crossed => "crossed",
            MarginMode::Isolated => "isolated",
        }
    }

    /// Copy-trading number: 1 crossed, 2 isolated.
    pub fn code(self) -> i64 {
        match self {
            MarginMode::Crossed => 1,
            MarginMode::Isolated => 2,
        }
    }
}

/// Time in force of an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tif {
    /// Rests until filled or cancelled.
    Gtc,
    /// Immediate or cancel.
    Ioc,
    /// Fill or kill.
    Fok,
}

/// How an `order_type` code prices and lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderKind {
    /// Time in force.
    pub tif: Tif,
    /// `None`: the order's own price; `Some(n)`: the n-th best opposite level (1 = opponent).
    pub levels: Option<usize>,
}

/// The trade `order_type` code table.
pub fn order_kind(code: i64) -> Option<OrderKind> {
    let (tif, levels) = match code {
        0 => (Tif::Gtc, None),
        1 => (Tif::Ioc, Some(1)),
        2 => (Tif::Ioc, Some(5)),
        3 => (Tif::Ioc, Some(10)),
        13 => (Tif::Ioc, Some(20)),
        4 => (Tif::Ioc, None),
        6 => (Tif::Gtc, Some(1)),
        7 => (Tif::Gtc, Some(5)),
        8 => (Tif::Gtc, Some(10)),
        14 => (Tif::Gtc, Some(20)),
        10 => (Tif::Fok, Some(1)),
        11 => (Tif::Fok, Some(5)),
        12 => (Tif::Fok, Some(10)),
        15 => (Tif::Fok, Some(20)),
        9 => (Tif::Fok, None),
        _ => return None,
    };
    Some(OrderKind { tif, levels })
}

/// Order states.
pub mod state {
    /// Open.
    pub const OPEN: i64 = 0;
    /// Partially filled.
    pub const PARTIAL: i64 = 1;
    /// Filled.
    pub const FILLED: i64 = 2;
    /// Cancelled.
    pub const CANCELED: i64 = -1;
}

/// A swap order.
#[derive(Debug, Clone, PartialEq)]
pub struct SwapOrder {
    /// Id (decimal digits).
    pub id: String,
    /// Creation number in the family ([`SwapState::order_seq`] when created); orders are kept
    /// and listed per account in this order.
    pub seq: u64,
    /// Owner.
    pub account: AccountId,
    /// Instrument index.
    pub inst: usize,
    /// Margin mode at placement.
    pub margin_mode: MarginMode,
    /// 1 open long, 2 open short, 3 close long, 4 close short.
    pub kind: i64,
    /// `order_type` code.
    pub order_type: i64,
    /// Limit price (market-style types: the worst price they may reach).
    pub price: Decimal,
    /// Size in contracts.
    pub size: Decimal,
    /// Filled contracts.
    pub filled: Decimal,
    /// Filled value (contracts * contract value * price).
    pub turnover: Decimal,
    /// Fees paid.
    pub fee: Decimal,
    /// State (see [`state`]).
    pub state: i64,
    /// Leverage.
    pub leverage: Decimal,
    /// Realized profit of close fills.
    pub close_profit: Decimal,
    /// Whether TP/SL orders are attached (copy trading).
    pub has_stop: bool,
    /// Created (ms).
    pub insert_ms: i64,
    /// Last update (ms).
    pub update_ms: i64,
    /// Post-only.
    pub post_only: bool,
    /// Time in force.
    pub tif: Tif,
    /// Margin still frozen for it.
    pub frozen_margin: Decimal,
    /// Fee still frozen for it.
    pub frozen_fee: Decimal,
    /// Placed by copy trading (`sponsor_order`).
    pub copy: bool,
}

impl SwapOrder {
    /// Book side.
    pub fn side(&self) -> Side {
        match self.kind {
            1 | 4 => Side::Buy,
            _ => Side::Sell,
        }
    }

    /// Position side it opens or closes.
    pub fn pos_side(&self) -> PosSide {
        match self.kind {
            1 | 3 => PosSide::Long,
            _ => PosSide::Short,
        }
    }

    /// Opens (type 1 or 2) rather than closes.
    pub fn is_open_kind(&self) -> bool {
        self.kind == 1 || self.kind == 2
    }

    /// Still open (state 0 or 1).
    pub fn is_active(&self) -> bool {
        self.state == state::OPEN || self.state == state::PARTIAL
    }

    /// Average fill price (0 without fills).
    pub fn avg_price(&self, cv: Decimal) -> Decimal {
        if self.filled.is_zero() || cv.is_zero() {
            Decimal::ZERO
        } else {
            self.turnover / (self.filled * cv)
        }
    }
}

/// A fill of one account's order.
#[derive(Debug, Clone, PartialEq)]
pub struct SwapFill {
    /// Trade id.
    pub trade_id: u64,
    /// Instrument index.
    pub inst: usize,
    /// Order id.
    pub order_id: String,
    /// Margin mode.
    pub margin_mode: MarginMode,
    /// Price.
    pub price: Decimal,
    /// Contracts.
    pub size: Decimal,
    /// Fee.
    pub fee: Decimal,
    /// Realized pnl (close fills).
    pub close_profit: Decimal,
    /// Leverage.
    pub leverage: Decimal,
    /// Order kind 1-4.
    pub kind: i64,
    /// `order_type`.
    pub order_type: i64,
    /// 1 taker, 2 maker.
    pub match_role: i64,
    /// [`trade_type`] code.
    pub trade_type: i64,
    /// Time (ms).
    pub time_ms: i64,
}

/// `trade_type` codes of fills.
pub mod trade_type {
    /// An ordinary fill.
    pub const NORMAL: i64 = 0;
    /// A force close (liquidation).
    pub const FORCE_CLOSE: i64 = 1;
}

/// A public trade.
#[derive(Debug, Clone, PartialEq)]
pub struct PubTrade {
    /// Id.
    pub id: u64,
    /// Time (ms).
    pub time_ms: i64,
    /// Price.
    pub price: Decimal,
    /// Contracts.
    pub size: Decimal,
    /// Taker's order kind 1-4.
    pub direction: i64,
}

/// A position.
#[derive(Debug, Clone, PartialEq)]
pub struct SwapPosition {
    /// Contracts held.
    pub size: Decimal,
    /// Average entry price.
    pub avg_cost: Decimal,
    /// Margin locked (isolated: `posi_balance`).
    pub margin: Decimal,
    /// Margin mode.
    pub margin_mode: MarginMode,
    /// Leverage.
    pub leverage: Decimal,
    /// Realized pnl of this position.
    pub realized_pnl: Decimal,
    /// Opened (ms).
    pub opened_ms: i64,
}

/// Per-account settings of an instrument.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setting {
    /// Margin mode.
    pub margin_mode: MarginMode,
    /// Leverage in crossed mode.
    pub cross_leverage: Decimal,
    /// Long leverage in isolated mode.
    pub long_leverage: Decimal,
    /// Short leverage in isolated mode.
    pub short_leverage: Decimal,
}

impl Default for Setting {
    fn default() -> Self {
        Setting {
            margin_mode: MarginMode::Crossed,
            cross_leverage: Decimal::from(10),
            long_leverage: Decimal::from(10),
            short_leverage: Decimal::from(10),
        }
    }
}

impl Setting {
    /// Leverage applying to `side` in the current mode.
    pub fn leverage(&self, side: PosSide) -> Decimal {
        match (self.margin_mode, side) {
            (MarginMode::Crossed, _) => self.cross_leverage,
            (MarginMode::Isolated, PosSide::Long) => self.long_leverage,
            (MarginMode::Isolated, PosSide::Short) => self.short_leverage,
        }
    }
}

/// A funding-fee record.
#[derive(Debug, Clone, PartialEq)]
pub struct FundingFee {
    /// Instrument index.
    pub inst: usize,
    /// Signed amount (negative: paid).
    pub amount: Decimal,
    /// Time (ms).
    pub time_ms: i64,
}

/// A spot<->swap transfer record.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferRec {
    /// Id.
    pub id: u64,
    /// 1 in, 2 out.
    pub kind: i64,
    /// Currency.
    pub currency: String,
    /// Amount.
    pub amount: Decimal,
    /// Time (ms).
    pub time_ms: i64,
}

/// Funding state of an instrument.
#[derive(Debug, Clone, PartialEq)]
pub struct Funding {
    /// Rate applied at `next_time`.
    pub rate: Decimal,
    /// Forecast for the settlement after.
    pub next_rate: Decimal,
    /// Next settlement (ms).
    pub next_time: i64,
    /// Past settlements `(time, rate)`, oldest first.
    pub history: Vec<(i64, Decimal)>,
}

/// All swap state.
#[derive(Debug)]
pub struct SwapState {
    /// Instruments.
    pub instruments: Vec<SwapInstrumentSpec>,
    /// Instrument id -> index.
    pub by_id: HashMap<String, usize>,
    /// Books by index.
    pub books: Vec<Book>,
    /// Public trades by index, oldest first (the newest
    /// [`Retention::public_trades_per_market`] kept).
    pub trades: Vec<VecDeque<PubTrade>>,
    /// Mark price overrides.
    pub marks: Vec<Option<Decimal>>,
    /// Index price overrides.
    pub indexes: Vec<Option<Decimal>>,
    /// Funding by index.
    pub funding: Vec<Funding>,
    /// Kept orders by id: open ones and the finished ones [`SwapState::user_orders`] keeps.
    pub orders: HashMap<String, SwapOrder>,
    /// Ids of each account's kept orders by creation ([`SwapOrder::seq`]), the finished ones
    /// capped at [`Retention::finished_orders_per_account`]; the keys of [`SwapState::orders`].
    pub user_orders: HashMap<AccountId, OrderLog<String>>,
    /// Ids of each account's active (open or partially filled) orders by creation: an order
    /// enters when placed and leaves when it finishes, so the margin and cap checks of a new
    /// order walk the open orders, not the history: a placement costs the same after 100,000
    /// orders as after 10.
    pub active_orders: HashMap<AccountId, BTreeMap<u64, String>>,
    /// Fills per account, oldest first (the newest [`Retention::own_trades_per_account`] kept).
    pub fills: HashMap<AccountId, VecDeque<SwapFill>>,
    /// Positions by (account, instrument, side).
    pub positions: BTreeMap<(AccountId, usize, PosSide), SwapPosition>,
    /// Settings by (account, instrument).
    pub settings: HashMap<(AccountId, usize), Setting>,
    /// Funding fees per account, oldest first.
    pub funding_fees: HashMap<AccountId, Vec<FundingFee>>,
    /// Transfers per account, oldest first.
    pub transfers: HashMap<AccountId, Vec<TransferRec>>,
    /// Realized pnl per account.
    pub realized: HashMap<AccountId, Decimal>,
    /// Copy-trading state.
    pub copy: super::copy::CopyState,
    /// Request weights.
    pub limiter: crate::limiter::Limiter,
    /// Maker fee rate.
    pub maker_fee: Decimal,
    /// Taker fee rate.
    pub taker_fee: Decimal,
    /// Synthetic levels per side.
    pub levels: usize,
    /// Generator for the synthetic maker and ids.
    pub rng: Rng,
    /// Seed (funding rate forecasts, historical candles).
    pub seed: u64,
    /// Simulator time at start (ms).
    pub start_ms: i64,
    /// Next trade id.
    pub next_trade_id: u64,
    /// Orders created so far.
    pub order_seq: u64,
    /// Next transfer id.
    pub next_transfer_id: u64,
    /// How much history is kept.
    pub retention: Retention,
    /// Per instrument: whether a recording drives it ([`crate::market`]; no synthetic maker).
    pub replayed: Vec<bool>,
}

fn gap(m: &SwapInstrumentSpec) -> Decimal {
    let g = round_dp(m.mid_price * Decimal::new(5, 4), m.price_precision);
    let g = (g / m.tick_size).floor() * m.tick_size;
    g.max(m.tick_size)
}

fn maker_size(m: &SwapInstrumentSpec, rng: &mut Rng) -> Decimal {
    let r = Decimal::from(rng.below(1000)) / Decimal::from(1000);
    let size = floor_dp(
        m.maker_size * (Decimal::new(2, 1) + Decimal::new(18, 1) * r),
        0,
    );
    size.max(m.min_order_amount).max(Decimal::ONE)
}

/// A deterministic funding rate for period `n` of instrument `i`: the base rate plus up to
/// ±50% of it.
pub fn synthetic_rate(seed: u64, spec: &SwapInstrumentSpec, i: usize, n: i64) -> Decimal {
    let h = mix(seed ^ mix(i as u64 + 1) ^ (n as u64).wrapping_mul(0x9E37));
    let r = Decimal::from(h % 1001) - Decimal::from(500);
    round_dp(
        spec.funding_rate * (Decimal::ONE + r / Decimal::from(1000)),
        8,
    )
}

impl SwapState {
    /// Builds books, a day of synthetic trades and 30 days of funding history.
    pub fn new(config: &SimConfig, rng: &mut Rng, now_ms: i64) -> SwapState {
        let instruments = config.swap_instruments.clone();
        let mut mm = Rng::new(rng.next_u64());
        let seed = config.seed;
        let mut books = Vec::new();
        let mut trades = Vec::new();
        let mut funding = Vec::new();
        let mut next_trade_id = 1;
        for (i, m) in instruments.iter().enumerate() {
            let period = m.funding_period_ms();
            let next_time = (now_ms.div_euclid(period) + 1) * period;
            books.push(Book::seeded(
                config.book_levels,
                m.mid_price,
                gap(m),
                || maker_size(m, &mut mm),
            ));
            let mut list = VecDeque::new();
            for k in 0..48i64 {
                let r = Decimal::from(mm.below(2001)) - Decimal::from(1000);
                let price = m.mid_price * (Decimal::ONE + r / Decimal::from(100_000));
                let price = (price / m.tick_size).round() * m.tick_size;
                let size =
                    floor_dp(maker_size(m, &mut mm) / Decimal::from(10), 0).max(Decimal::ONE);
                push_capped(
                    &mut list,
                    PubTrade {
                        id: next_trade_id,
                        time_ms: now_ms - 86_400_000 + (k + 1) * 1_800_000 - 60_000,
                        price,
                        size,
                        direction: i64::try_from(mm.below(4)).unwrap_or(0) + 1,
                    },
                    config.retention.public_trades_per_market,
                );
                next_trade_id += 1;
            }
            trades.push(list);
            let n = next_time.div_euclid(period);
            let history = (1..=90)
                .rev()
                .map(|k| (next_time - k * period, synthetic_rate(seed, m, i, n - k)))
                .collect();
            funding.push(Funding {
                rate: synthetic_rate(seed, m, i, n),
                next_rate: synthetic_rate(seed, m, i, n + 1),
                next_time,
                history,
            });
        }
        let by_id = instruments
            .iter()
            .enumerate()
            .map(|(i, m)| (m.instrument_id.clone(), i))
            .collect();
        let count = instruments.len();
        SwapState {
            instruments,
            by_id,
            books,
            trades,
            marks: vec![None; count],
            indexes: vec![None; count],
            funding,
            orders: HashMap::new(),
            user_orders: HashMap::new(),
            active_orders: HashMap::new(),
            fills: HashMap::new(),
            positions: BTreeMap::new(),
            settings: HashMap::new(),
            funding_fees: HashMap::new(),
            transfers: HashMap::new(),
            realized: HashMap::new(),
            copy: super::copy::CopyState::default(),
            limiter: crate::limiter::Limiter::new(crate::limiter::Policy::swap(
                config.limits.swap_weight_per_minute,
                config.limits.swap_violations_before_ban,
            )),
            maker_fee: config.swap_maker_fee_rate,
            taker_fee: config.swap_taker_fee_rate,
            levels: config.book_levels,
            rng: mm,
            seed,
            start_ms: now_ms,
            next_trade_id,
            order_seq: 0,
            next_transfer_id: 1,
            retention: config.retention,
            replayed: vec![false; count],
        }
    }

    /// Stores a new (open) order, lists it under its account and among its active orders.
    pub fn add_order(&mut self, order: SwapOrder) {
        self.user_orders
            .entry(order.account)
            .or_default()
            .insert(order.seq, order.id.clone());
        if order.is_active() {
            self.active_orders
                .entry(order.account)
                .or_default()
                .insert(order.seq, order.id.clone());
        }
        self.orders.insert(order.id.clone(), order);
    }

    /// Ids of the account's kept orders, oldest first.
    pub fn order_ids(&self, account: AccountId) -> impl DoubleEndedIterator<Item = &String> + '_ {
        self.user_orders
            .get(&account)
            .into_iter()
            .flat_map(OrderLog::iter)
    }

    /// Bookkeeping of order `id` once finished: it leaves the active orders, and is filed among
    /// its account's finished orders, forgetting the orders that finished earliest beyond
    /// [`Retention::finished_orders_per_account`] (at least one is kept). A copy-trading
    /// sponsored order is filed only once its copy position has closed (the position reads
    /// it), and a sponsored order forgotten takes its closed copy position with it. Nothing for
    /// an open or unknown order; filing twice is harmless.
    pub fn archive(&mut self, id: &str) {
        let Some(o) = self.orders.get(id) else {
            return;
        };
        if o.is_active() {
            return;
        }
        let (account, seq) = (o.account, o.seq);
        let keep = self.retention.finished_orders_per_account.max(1);
        if let Some(active) = self.active_orders.get_mut(&account) {
            active.remove(&seq);
            if active.is_empty() {
                self.active_orders.remove(&account);
            }
        }
        if super::copy::is_sponsor(o) {
            let key = (account, seq);
            if o.filled.is_zero() && self.copy.get(key).is_some_and(|p| p.closed.is_none()) {
                // Nothing filled: the copy position ends with its order.
                let closed = super::copy::Closed {
                    time_ms: o.update_ms,
                    price: Decimal::ZERO,
                    pnl: Decimal::ZERO,
                    fee: Decimal::ZERO,
                    reason: 2,
                    volume: Decimal::ZERO,
                };
                self.copy.end(key, closed, None, keep);
            }
            if !self.copy.is_closed(account, seq) {
                return;
            }
        }
        let Some(log) = self.user_orders.get_mut(&account) else {
            return;
        };
        let (orders, copy) = (&mut self.orders, &mut self.copy);
        log.finish(seq, keep, |old| {
            if let Some(o) = orders.remove(&old) {
                if super::copy::is_sponsor(&o) {
                    copy.forget(account, o.seq);
                }
            }
        });
    }

    /// Appends a fill to its account's fills (the oldest beyond the retention dropped).
    fn record_fill(&mut self, account: AccountId, fill: SwapFill) {
        push_capped(
            self.fills.entry(account).or_default(),
            fill,
            self.retention.own_trades_per_account,
        );
    }

    /// Instrument index of `id` (exact, or any case).
    pub fn index(&self, id: &str) -> Option<usize> {
        let id = id.trim();
        self.by_id
            .get(id)
            .or_else(|| self.by_id.get(&id.to_ascii_uppercase()))
            .copied()
    }

    /// Last trade price (configured mid when none).
    pub fn last_price(&self, i: usize) -> Decimal {
        self.trades
            .get(i)
            .and_then(|t| t.back())
            .map(|t| t.price)
            .or_else(|| self.instruments.get(i).map(|m| m.mid_price))
            .unwrap_or_default()
    }

    /// Mark price: the control override, else the book mid, else the last price.
    pub fn mark(&self, i: usize) -> Decimal {
        if let Some(Some(m)) = self.marks.get(i) {
            return *m;
        }
        let Some(book) = self.books.get(i) else {
            return Decimal::ZERO;
        };
        let Some(spec) = self.instruments.get(i) else {
            return Decimal::ZERO;
        };
        match (book.best_bid(), book.best_ask()) {
            (Some(b), Some(a)) => round_dp((a + b) / Decimal::TWO, spec.price_precision),
            _ => self.last_price(i),
        }
    }

    /// Index price: the control override, else the mark price.
    pub fn index_price(&self, i: usize) -> Decimal {
        match self.indexes.get(i) {
            Some(Some(x)) => *x,
            _ => self.mark(i),
        }
    }

    /// Highest accepted buy price (mark + 10%, rounded down to the tick).
    pub fn max_buy(&self, i: usize) -> Decimal {
        let tick = self
            .instruments
            .get(i)
            .map_or(Decimal::ONE, |m| m.tick_size);
        ((self.mark(i) * Decimal::new(11, 1)) / tick).floor() * tick
    }

    /// Lowest accepted sell price (mark - 10%, rounded up to the tick).
    pub fn min_sell(&self, i: usize) -> Decimal {
        let tick = self
            .instruments
            .get(i)
            .map_or(Decimal::ONE, |m| m.tick_size);
        ((self.mark(i) * Decimal::new(9, 1)) / tick).ceil() * tick
    }

    /// The account's settings for an instrument.
    pub fn setting(&self, account: AccountId, i: usize) -> Setting {
        self.settings
            .get(&(account, i))
            .copied()
            .unwrap_or_default()
    }

    /// A new order id: 19 decimal digits.
    pub fn new_order_id(&mut self) -> String {
        self.order_seq += 1;
        let v = (1_000_000_000_000u64 + self.order_seq)
            .saturating_mul(1_000_000)
            .saturating_add(self.rng.below(1_000_000));
        v.to_string()
    }

    /// Unrealized pnl of a position at the mark price.
    pub fn upnl(&self, i: usize, side: PosSide, p: &SwapPosition) -> Decimal {
        let cv = self
            .instruments
            .get(i)
            .map_or(Decimal::ZERO, |m| m.contract_value);
        (self.mark(i) - p.avg_cost) * p.size * cv * side.sign()
    }

    /// The account's active orders, oldest first (see [`SwapState::active_orders`]).
    pub fn active_of(&self, account: AccountId) -> impl Iterator<Item = &SwapOrder> + '_ {
        self.active_orders
            .get(&account)
            .into_iter()
            .flat_map(BTreeMap::values)
            .filter_map(|id| self.orders.get(id))
    }

    /// Open orders of an account on an instrument.
    pub fn open_orders_on(&self, account: AccountId, i: usize) -> usize {
        self.active_of(account).filter(|o| o.inst == i).count()
    }

    /// Contracts of unfinished close orders on a position.
    pub fn pending_close(&self, account: AccountId, i: usize, side: PosSide) -> Decimal {
        self.active_of(account)
            .filter(|o| o.inst == i && !o.is_open_kind() && o.pos_side() == side)
            .map(|o| o.size - o.filled)
            .sum()
    }

    /// Position value (at average cost) plus unfilled open orders of a side, per the open cap.
    pub fn open_value(&self, account: AccountId, i: usize, side: PosSide) -> Decimal {
        let cv = self
            .instruments
            .get(i)
            .map_or(Decimal::ZERO, |m| m.contract_value);
        let pos = self
            .positions
            .get(&(account, i, side))
            .map_or(Decimal::ZERO, |p| p.size * p.avg_cost * cv);
        let orders: Decimal = self
            .active_of(account)
            .filter(|o| o.inst == i && o.is_open_kind() && o.pos_side() == side)
            .map(|o| (o.size - o.filled) * cv * o.price)
            .sum();
        pos + orders
    }

    /// The price an order of `side` may reach: its own price, or the `levels`-th best opposite
    /// level (the worst level when fewer exist); `None` when the opposite side is empty.
    pub fn reach_price(&self, i: usize, side: Side, levels: usize) -> Option<Decimal> {
        let book = self.books.get(i)?;
        book.levels(side.opposite(), levels.max(1))
            .last()
            .map(|(p, _)| *p)
    }

    /// Contracts available to `side` up to `limit` (for FOK).
    pub fn available_to(&self, i: usize, side: Side, limit: Decimal) -> Decimal {
        self.books
            .get(i)
            .map_or(Decimal::ZERO, |book| book.available(side, limit))
    }

    fn replenish(&mut self, i: usize) {
        if self.replayed.get(i).copied().unwrap_or(false) {
            return;
        }
        let SwapState {
            instruments,
            books,
            levels,
            rng,
            ..
        } = self;
        let (Some(spec), Some(book)) = (instruments.get(i), books.get_mut(i)) else {
            return;
        };
        book.replenish(*levels, spec.mid_price, gap(spec), || maker_size(spec, rng));
    }
}

/// Reported liquidation price of a position (0 when it cannot be computed); see the module docs.
///
/// An isolated position is backed by its own margin only. A crossed position is backed by the
/// account's equity: its margin, the account's free balance in the settlement currency and the
/// unrealised profit or loss of the account's other crossed positions in that currency
/// ([`cross_backing`]); so a crossed position lives as long as the account can carry it, not
/// as if it were isolated.
pub fn liquidation_price(
    st: &State,
    account: AccountId,
    i: usize,
    side: PosSide,
    p: &SwapPosition,
) -> Decimal {
    let Some(spec) = st.swap.instruments.get(i) else {
        return Decimal::ZERO;
    };
    let backing = match p.margin_mode {
        MarginMode::Isolated => p.margin,
        MarginMode::Crossed => (p.margin + cross_backing(st, account, i, side)).max(Decimal::ZERO),
    };
    liquidation_at(spec, side, p, backing)
}

/// The equity a crossed position draws on beyond its own margin: the account's free balance in
/// the instrument's settlement currency plus the unrealised pnl of its other crossed positions
/// in that currency.
pub fn cross_backing(st: &State, account: AccountId, i: usize, side: PosSide) -> Decimal {
    let Some(quote) = st.swap.instruments.get(i).map(|m| m.quote.as_str()) else {
        return Decimal::ZERO;
    };
    let free = st
        .accounts
        .get(&account)
        .map_or(Decimal::ZERO, |a| a.balance(AccountType::Swap, quote).free);
    let others: Decimal = st
        .swap
        .positions
        .range((account, 0, PosSide::Long)..)
        .take_while(|((a, _, _), _)| *a == account)
        .filter(|((_, j, s), q)| {
            (*j, *s) != (i, side)
                && q.margin_mode == MarginMode::Crossed
                && st
                    .swap
                    .instruments
                    .get(*j)
                    .is_some_and(|m| m.quote == quote)
        })
        .map(|((_, j, s), q)| st.swap.upnl(*j, *s, q))
        .sum();
    free + others
}

/// The price at which `backing` (the margin a position may lose) is used up down to the
/// maintenance margin.
fn liquidation_at(
    spec: &SwapInstrumentSpec,
    side: PosSide,
    p: &SwapPosition,
    backing: Decimal,
) -> Decimal {
    let value = p.size * spec.contract_value;
    if value.is_zero() {
        return Decimal::ZERO;
    }
    let mmr = spec.maint_margin_ratio;
    let liq = match side {
        PosSide::Long => (p.avg_cost * value - backing)
            .checked_div(value * (Decimal::ONE - mmr))
            .unwrap_or_default(),
        PosSide::Short => (p.avg_cost * value + backing)
            .checked_div(value * (Decimal::ONE + mmr))
            .unwrap_or_default(),
    };
    round_dp(liq.max(Decimal::ZERO), spec.price_precision)
}

fn account_mut(accounts: &mut BTreeMap<AccountId, Account>, id: AccountId) -> &mut Account {
    accounts.entry(id).or_insert_with(|| Account::new(id))
}

/// A validated order ready to be stored.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Instrument index.
    pub inst: usize,
    /// Kind 1-4.
    pub kind: i64,
    /// `order_type`.
    pub order_type: i64,
    /// Price (limit or reach price).
    pub price: Decimal,
    /// Contracts.
    pub size: Decimal,
    /// Post-only.
    pub post_only: bool,
    /// Time in force.
    pub tif: Tif,
    /// Margin mode.
    pub margin_mode: MarginMode,
    /// Leverage.
    pub leverage: Decimal,
    /// Margin to freeze.
    pub margin: Decimal,
    /// Fee to freeze.
    pub fee: Decimal,
}

/// Stores, freezes and matches a validated order; returns its id.
pub fn place(st: &mut State, account: AccountId, p: &Prepared, copy: bool, now: i64) -> String {
    let id = st.swap.new_order_id();
    let seq = st.swap.order_seq;
    let quote = st
        .swap
        .instruments
        .get(p.inst)
        .map(|m| m.quote.clone())
        .unwrap_or_default();
    let acct = account_mut(&mut st.accounts, account);
    let (fm, ff) = if acct
        .freeze(AccountType::Swap, &quote, p.margin + p.fee)
        .is_ok()
    {
        (p.margin, p.fee)
    } else {
        (Decimal::ZERO, Decimal::ZERO)
    };
    let order = SwapOrder {
        id: id.clone(),
        seq,
        account,
        inst: p.inst,
        margin_mode: p.margin_mode,
        kind: p.kind,
        order_type: p.order_type,
        price: p.price,
        size: p.size,
        filled: Decimal::ZERO,
        turnover: Decimal::ZERO,
        fee: Decimal::ZERO,
        state: state::OPEN,
        leverage: p.leverage,
        close_profit: Decimal::ZERO,
        has_stop: false,
        insert_ms: now,
        update_ms: now,
        post_only: p.post_only,
        tif: p.tif,
        frozen_margin: fm,
        frozen_fee: ff,
        copy,
    };
    st.swap.add_order(order);
    if copy {
        execute(st, &id, now);
    } else {
        // API placements reach the engine after the configured latency.
        crate::market::submit_swap(st, &id, now);
    }
    id
}

/// Matches a stored order against the book, settles fills, and rests or finishes the rest.
pub fn execute(st: &mut State, order_id: &str, now: i64) {
    let Some(o) = st.swap.orders.get(order_id) else {
        return;
    };
    let (i, side, limit, tif, post_only, size, kind) = (
        o.inst,
        o.side(),
        o.price,
        o.tif,
        o.post_only,
        o.size,
        o.kind,
    );
    let would_take = st
        .swap
        .books
        .get(i)
        .is_some_and(|b| b.would_take(side, limit));
    if post_only && would_take {
        finish(st, order_id, now);
        return;
    }
    if tif == Tif::Fok && st.swap.available_to(i, side, limit) < size {
        finish(st, order_id, now);
        return;
    }
    let fills = st
        .swap
        .books
        .get_mut(i)
        .map(|book| book.take(side, Some(limit), Demand::Quantity(size)).fills)
        .unwrap_or_default();
    let had = !fills.is_empty();
    for f in fills {
        let tid = st.swap.next_trade_id;
        st.swap.next_trade_id += 1;
        settle(st, order_id, f.price, f.qty, false, tid, now);
        if let Some(m) = &f.maker {
            settle(st, m, f.price, f.qty, true, tid, now);
        }
        let keep = st.swap.retention.public_trades_per_market;
        if let Some(list) = st.swap.trades.get_mut(i) {
            push_capped(
                list,
                PubTrade {
                    id: tid,
                    time_ms: now,
                    price: f.price,
                    size: f.qty,
                    direction: kind,
                },
                keep,
            );
        }
    }
    if let Some(o) = st.swap.orders.get(order_id) {
        if o.is_active() {
            if tif == Tif::Gtc {
                let remaining = o.size - o.filled;
                if let Some(book) = st.swap.books.get_mut(i) {
                    book.push(side, limit, Some(order_id.to_owned()), remaining);
                }
            } else {
                finish(st, order_id, now);
            }
        }
    }
    if had {
        st.swap.replenish(i);
    }
    // Filed last, so the order a request finishes outlives the makers it finished.
    st.swap.archive(order_id);
}

/// Fills resting order `order_id` as a maker at `price` for `qty` outside a matching walk (a
/// replayed market reached it, [`crate::market`]); its book entry is already reduced.
pub fn fill_resting(st: &mut State, order_id: &str, price: Decimal, qty: Decimal, now: i64) {
    if qty <= Decimal::ZERO
        || !st
            .swap
            .orders
            .get(order_id)
            .is_some_and(SwapOrder::is_active)
    {
        return;
    }
    let tid = st.swap.next_trade_id;
    st.swap.next_trade_id += 1;
    settle(st, order_id, price, qty, true, tid, now);
}

/// Cancels (finishes) an active order: state -1, out of the book, frozen amounts released.
pub fn finish(st: &mut State, order_id: &str, now: i64) {
    let Some(o) = st.swap.orders.get_mut(order_id) else {
        return;
    };
    if !o.is_active() {
        return;
    }
    o.state = state::CANCELED;
    o.update_ms = now;
    let (i, side, price, account) = (o.inst, o.side(), o.price, o.account);
    let release = o.frozen_margin + o.frozen_fee;
    o.frozen_margin = Decimal::ZERO;
    o.frozen_fee = Decimal::ZERO;
    if let Some(book) = st.swap.books.get_mut(i) {
        book.remove_order(side, price, order_id);
    }
    if release > Decimal::ZERO {
        if let Some(m) = st.swap.instruments.get(i) {
            let q = m.quote.clone();
            account_mut(&mut st.accounts, account).unfreeze(AccountType::Swap, &q, release);
        }
    }
    st.swap.archive(order_id);
}

fn settle(
    st: &mut State,
    order_id: &str,
    price: Decimal,
    qty: Decimal,
    maker: bool,
    tid: u64,
    now: i64,
) {
    let State { swap, accounts, .. } = st;
    let (maker_fee, taker_fee) = (swap.maker_fee, swap.taker_fee);
    let Some(o) = swap.orders.get_mut(order_id) else {
        return;
    };
    let Some(spec) = swap.instruments.get(o.inst) else {
        return;
    };
    let cv = spec.contract_value;
    let quote = spec.quote.clone();
    let value = qty * cv * price;
    let rate = if maker { maker_fee } else { taker_fee };
    let fee = value * rate;
    let acct = account_mut(accounts, o.account);
    let unfilled = o.size - o.filled;
    let side = o.pos_side();
    let key = (o.account, o.inst, side);
    let mut profit = Decimal::ZERO;
    if o.is_open_kind() {
        if unfilled > Decimal::ZERO {
            let share_m = (o.frozen_margin * qty / unfilled).min(o.frozen_margin);
            let share_f = (o.frozen_fee * qty / unfilled).min(o.frozen_fee);
            o.frozen_margin -= share_m;
            o.frozen_fee -= share_f;
            acct.unfreeze(AccountType::Swap, &quote, share_m + share_f);
        }
        let lev = if o.leverage > Decimal::ZERO {
            o.leverage
        } else {
            Decimal::ONE
        };
        let need = value / lev;
        let free = acct
            .balance(AccountType::Swap, &quote)
            .free
            .max(Decimal::ZERO);
        let lock = need.min(free);
        let _ = acct.freeze(AccountType::Swap, &quote, lock);
        let pos = swap.positions.entry(key).or_insert_with(|| SwapPosition {
            size: Decimal::ZERO,
            avg_cost: Decimal::ZERO,
            margin: Decimal::ZERO,
            margin_mode: o.margin_mode,
            leverage: lev,
            realized_pnl: Decimal::ZERO,
            opened_ms: now,
        });
        pos.avg_cost = (pos.avg_cost * pos.size + price * qty) / (pos.size + qty);
        pos.size += qty;
        pos.margin += lock;
        pos.margin_mode = o.margin_mode;
        pos.leverage = lev;
        pos.realized_pnl -= fee;
        let code = if side == PosSide::Long {
            bill::OPEN_LONG
        } else {
            bill::OPEN_SHORT
        };
        acct.credit(AccountType::Swap, &quote, -fee, code, now);
    } else {
        let code = if side == PosSide::Long {
            bill::CLOSE_LONG
        } else {
            bill::CLOSE_SHORT
        };
        if let Some(pos) = swap.positions.get_mut(&key) {
            let close = qty.min(pos.size);
            if close > Decimal::ZERO {
                profit = (price - pos.avg_cost) * close * cv * side.sign();
                let released = pos.margin * close / pos.size;
                pos.margin -= released;
                pos.size -= close;
                pos.realized_pnl += profit - fee;
                acct.unfreeze(AccountType::Swap, &quote, released);
                acct.credit(AccountType::Swap, &quote, profit, code, now);
                if pos.size <= Decimal::ZERO {
                    let rest = pos.margin;
                    acct.unfreeze(AccountType::Swap, &quote, rest);
                    swap.positions.remove(&key);
                }
            }
        }
        acct.credit(AccountType::Swap, &quote, -fee, code, now);
        *swap.realized.entry(o.account).or_default() += profit;
        o.close_profit += profit;
    }
    o.filled += qty;
    o.turnover += value;
    o.fee += fee;
    o.update_ms = now;
    if o.filled >= o.size {
        o.state = state::FILLED;
        let rest = o.frozen_margin + o.frozen_fee;
        o.frozen_margin = Decimal::ZERO;
        o.frozen_fee = Decimal::ZERO;
        if rest > Decimal::ZERO {
            acct.unfreeze(AccountType::Swap, &quote, rest);
        }
    } else {
        o.state = state::PARTIAL;
    }
    let fill = SwapFill {
        trade_id: tid,
        inst: o.inst,
        order_id: o.id.clone(),
        margin_mode: o.margin_mode,
        price,
        size: qty,
        fee,
        close_profit: profit,
        leverage: o.leverage,
        kind: o.kind,
        order_type: o.order_type,
        match_role: if maker { 2 } else { 1 },
        trade_type: trade_type::NORMAL,
        time_ms: now,
    };
    let (account, done) = (o.account, !o.is_active());
    swap.record_fill(account, fill);
    if done && maker {
        // A taker is filed at the end of its execution.
        swap.archive(order_id);
    }
}

/// Runs every funding settlement due at `now` and the copy-trading TP/SL triggers.
pub fn tick(st: &mut State, now: i64) {
    for i in 0..st.swap.funding.len() {
        let period = st
            .swap
            .instruments
            .get(i)
            .map_or(FUNDING_PERIOD_MS, SwapInstrumentSpec::funding_period_ms);
        let mut guard = 0;
        while st.swap.funding.get(i).is_some_and(|f| f.next_time <= now) {
            guard += 1;
            if guard > 3 * 365 * 3 {
                // The clock jumped years ahead: skip to the latest period without settling.
                if let Some(f) = st.swap.funding.get_mut(i) {
                    f.next_time = now
                        .div_euclid(period)
                        .saturating_add(1)
                        .saturating_mul(period);
                }
                break;
            }
            settle_funding(st, i);
        }
    }
    super::copy::run_triggers(st, now);
    liquidate_due(st, now);
}

/// Force-closes every position whose liquidation price the mark price has reached (see the
/// module docs).
pub fn liquidate_due(st: &mut State, now: i64) {
    let due: Vec<((AccountId, usize, PosSide), Decimal)> = st
        .swap
        .positions
        .iter()
        .filter_map(|(&(account, i, side), p)| {
            let price = liquidation_price(st, account, i, side, p);
            let mark = st.swap.mark(i);
            let reached = match side {
                PosSide::Long => mark <= price,
                PosSide::Short => mark >= price,
            };
            (p.size > Decimal::ZERO && price > Decimal::ZERO && reached)
                .then_some(((account, i, side), price))
        })
        .collect();
    for (key, price) in due {
        force_close(st, key, price, now);
    }
}

fn force_close(
    st: &mut State,
    (account, i, side): (AccountId, usize, PosSide),
    price: Decimal,
    now: i64,
) {
    // The position's unfinished close orders have nothing left to close.
    let closing: Vec<String> = st
        .swap
        .active_orders
        .get(&account)
        .map(|ids| {
            ids.values()
                .filter(|id| {
                    st.swap.orders.get(*id).is_some_and(|o| {
                        o.is_active() && o.inst == i && !o.is_open_kind() && o.pos_side() == side
                    })
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    for id in &closing {
        finish(st, id, now);
    }
    let id = st.swap.new_order_id();
    let seq = st.swap.order_seq;
    let tid = st.swap.next_trade_id;
    st.swap.next_trade_id += 1;
    let State { swap, accounts, .. } = st;
    let Some(spec) = swap.instruments.get(i) else {
        return;
    };
    let Some(p) = swap.positions.remove(&(account, i, side)) else {
        return;
    };
    let quote = spec.quote.clone();
    let (kind, code) = match side {
        PosSide::Long => (3, bill::CLOSE_LONG),
        PosSide::Short => (4, bill::CLOSE_SHORT),
    };
    // Isolated: the position's margin is lost. Crossed: the loss at the liquidation price, which
    // the account's equity carried beyond the margin.
    let loss = match p.margin_mode {
        MarginMode::Isolated => p.margin,
        MarginMode::Crossed => {
            let value = p.size * spec.contract_value;
            let at_price = match side {
                PosSide::Long => (p.avg_cost - price) * value,
                PosSide::Short => (price - p.avg_cost) * value,
            };
            at_price.max(p.margin)
        }
    };
    let acct = account_mut(accounts, account);
    acct.unfreeze(AccountType::Swap, &quote, p.margin);
    acct.credit(AccountType::Swap, &quote, -loss, code, now);
    *swap.realized.entry(account).or_default() -= loss;
    swap.add_order(SwapOrder {
        id: id.clone(),
        seq,
        account,
        inst: i,
        margin_mode: p.margin_mode,
        kind,
        order_type: 0,
        price,
        size: p.size,
        filled: p.size,
        turnover: p.size * spec.contract_value * price,
        fee: Decimal::ZERO,
        state: state::FILLED,
        leverage: p.leverage,
        close_profit: -loss,
        has_stop: false,
        insert_ms: now,
        update_ms: now,
        post_only: false,
        tif: Tif::Ioc,
        frozen_margin: Decimal::ZERO,
        frozen_fee: Decimal::ZERO,
        copy: false,
    });
    swap.archive(&id);
    swap.record_fill(
        account,
        SwapFill {
            trade_id: tid,
            inst: i,
            order_id: id,
            margin_mode: p.margin_mode,
            price,
            size: p.size,
            fee: Decimal::ZERO,
            close_profit: -loss,
            leverage: p.leverage,
            kind,
            order_type: 0,
            match_role: 1,
            trade_type: trade_type::FORCE_CLOSE,
            time_ms: now,
        },
    );
    super::copy::force_closed(st, account, i, side, price, -loss, p.size, now);
}

fn settle_funding(st: &mut State, i: usize) {
    let State { swap, accounts, .. } = st;
    let mark = swap.mark(i);
    let Some(spec) = swap.instruments.get(i) else {
        return;
    };
    let Some(f) = swap.funding.get_mut(i) else {
        return;
    };
    let period = spec.funding_period_ms();
    let (time, rate) = (f.next_time, f.rate);
    f.history.push((time, rate));
    f.rate = f.next_rate;
    f.next_time = time.saturating_add(period);
    if f.next_time == time {
        return;
    }
    let n = f.next_time.div_euclid(period);
    f.next_rate = synthetic_rate(swap.seed, spec, i, n + 1);
    let cv = spec.contract_value;
    let quote = spec.quote.clone();
    for ((account, inst, side), p) in swap.positions.iter() {
        if *inst != i || p.size.is_zero() {
            continue;
        }
        let amount = -(p.size * cv * mark * rate * side.sign());
        let amount = round_dp(amount, 8);
        account_mut(accounts, *account).credit(
            AccountType::Swap,
            &quote,
            amount,
            bill::FUNDING,
            time,
        );
        swap.funding_fees
            .entry(*account)
            .or_default()
            .push(FundingFee {
                inst: i,
                amount,
                time_ms: time,
            });
    }
}
