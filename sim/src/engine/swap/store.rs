//! Swap and copy-trading records: instruments, books, orders, fills, positions, settings,
//! funding, transfers and copy positions ([`SwapState`]), and the synthetic maker's quotes for
//! a still market. The matching, margin, funding and liquidation that change them are
//! [`super::engine`]'s.

use crate::config::{Retention, SimConfig, SwapInstrumentSpec};
use crate::engine::accounts::AccountId;
use crate::engine::book::Book;
pub use crate::engine::book::Side;
use crate::engine::history::{push_capped, OrderLog};
use crate::engine::tape::{Tape, TapeLimits, Trade};
use crate::num::{floor_dp, round_dp};
use crate::rng::{mix, Rng};
use rust_decimal::Decimal;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

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

/// The taker's book side of a swap trade `direction` (1 open long and 4 close short buy; 2
/// open short and 3 close long sell).
pub fn direction_side(direction: i64) -> Side {
    if direction == 1 || direction == 4 {
        Side::Buy
    } else {
        Side::Sell
    }
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
    /// The tape of each instrument: its public trades, candles and 24-hour figures.
    pub tapes: Vec<Tape>,
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
    pub copy: CopyState,
    /// Request weights.
    pub limiter: crate::engine::limiter::Limiter,
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
    /// Next trade id.
    pub next_trade_id: u64,
    /// Orders created so far.
    pub order_seq: u64,
    /// Next transfer id.
    pub next_transfer_id: u64,
    /// How much history is kept.
    pub retention: Retention,
    /// Orders created or changed since the state lock was taken, in order (the outbox of the
    /// private pushes; see [`crate::engine::changes`]).
    pub changed_orders: Vec<(AccountId, String)>,
    /// Positions changed since the state lock was taken: (account, instrument).
    pub changed_positions: Vec<(AccountId, usize)>,
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
        let mut tapes = Vec::new();
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
            let mut tape = Tape::new(TapeLimits::of(&config.retention));
            for k in 0..48i64 {
                let r = Decimal::from(mm.below(2001)) - Decimal::from(1000);
                let price = m.mid_price * (Decimal::ONE + r / Decimal::from(100_000));
                let price = (price / m.tick_size).round() * m.tick_size;
                let size =
                    floor_dp(maker_size(m, &mut mm) / Decimal::from(10), 0).max(Decimal::ONE);
                let direction = i64::try_from(mm.below(4)).unwrap_or(0) + 1;
                tape.push(Trade {
                    id: next_trade_id,
                    time_ms: now_ms - 86_400_000 + (k + 1) * 1_800_000 - 60_000,
                    price,
                    qty: size,
                    side: direction_side(direction),
                    direction,
                });
                next_trade_id += 1;
            }
            tapes.push(tape);
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
            tapes,
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
            copy: CopyState::default(),
            limiter: crate::engine::limiter::Limiter::new(crate::engine::limiter::Policy::swap(
                config.limits.swap_weight_per_minute,
                config.limits.swap_violations_before_ban,
            )),
            maker_fee: config.swap_maker_fee_rate,
            taker_fee: config.swap_taker_fee_rate,
            levels: config.book_levels,
            rng: mm,
            seed,
            next_trade_id,
            order_seq: 0,
            next_transfer_id: 1,
            retention: config.retention,
            replayed: vec![false; count],
            changed_orders: Vec::new(),
            changed_positions: Vec::new(),
        }
    }

    /// Stores a new (open) order, lists it under its account and among its active orders.
    pub fn add_order(&mut self, order: SwapOrder) {
        self.changed_orders.push((order.account, order.id.clone()));
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
        if is_sponsor(o) {
            let key = (account, seq);
            if o.filled.is_zero() && self.copy.get(key).is_some_and(|p| p.closed.is_none()) {
                // Nothing filled: the copy position ends with its order.
                let closed = Closed {
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
                if is_sponsor(&o) {
                    copy.forget(account, o.seq);
                }
            }
        });
    }

    /// Appends a fill to its account's fills (the oldest beyond the retention dropped).
    /// Appends a fill (see [`Retention::own_trades_per_account`]).
    pub fn record_fill(&mut self, account: AccountId, fill: SwapFill) {
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
        self.tapes
            .get(i)
            .and_then(Tape::last)
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

    /// Tops up the synthetic maker of a still market after trades ([`Book::replenish`]); a
    /// market the order flow or a recording drives keeps its own liquidity.
    pub fn replenish(&mut self, i: usize) {
        // A recording or the order flow keeps the market's liquidity instead.
        let flow = self.instruments.get(i).is_some_and(|x| x.flow.is_some());
        if flow || self.replayed.get(i).copied().unwrap_or(false) {
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

/// A TP or SL plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Plan id.
    pub id: String,
    /// Owner.
    pub account: AccountId,
    /// Sponsored order id.
    pub order_id: String,
    /// The sponsored order's [`SwapOrder::seq`] (its copy position's key).
    pub order_seq: u64,
    /// 2 stop profit, 3 stop loss.
    pub com_type: i64,
    /// 1 index, 2 mark, 3 last.
    pub trigger_type: i64,
    /// Trigger price.
    pub price: Decimal,
    /// 1 to be validated, 2 validated, 3 canceled.
    pub status: i64,
    /// Created (ms).
    pub created_ms: i64,
}

/// How a copy position ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Closed {
    /// Time (ms).
    pub time_ms: i64,
    /// Average close price.
    pub price: Decimal,
    /// Realized pnl.
    pub pnl: Decimal,
    /// Close fee.
    pub fee: Decimal,
    /// Close reason 1-5.
    pub reason: i64,
    /// Contracts closed.
    pub volume: Decimal,
}

/// One sponsored order and the copy position it opened.
#[derive(Debug, Clone, PartialEq)]
pub struct CopyPos {
    /// Sponsored order id.
    pub order_id: String,
    /// Owner.
    pub account: AccountId,
    /// Instrument index.
    pub inst: usize,
    /// 1 long, 2 short.
    pub direction: i64,
    /// Margin mode.
    pub margin_mode: MarginMode,
    /// Leverage.
    pub leverage: Decimal,
    /// Copy `order_type` numbering.
    pub price_type: i64,
    /// Pending take-profit plan (its number in the account's [`CopyState::plans`]).
    pub tp: Option<u64>,
    /// Pending stop-loss plan (its number in the account's [`CopyState::plans`]).
    pub sl: Option<u64>,
    /// Set when closed.
    pub closed: Option<Closed>,
}

/// A copy position's key: its account and its sponsored order's [`SwapOrder::seq`].
pub type CopyKey = (AccountId, u64);

/// Whether `o` is a sponsored order (placed by `sponsor_order`: a copy-trading order that opens;
/// the copy-trading orders that close are not).
pub fn is_sponsor(o: &SwapOrder) -> bool {
    o.copy && o.is_open_kind()
}

/// Copy-trading state.
#[derive(Debug, Default, Clone)]
pub struct CopyState {
    /// Copy positions per account by their sponsored order's [`SwapOrder::seq`] (oldest first);
    /// a closed one is forgotten with its sponsored order (see the module docs).
    pub positions: HashMap<AccountId, BTreeMap<u64, CopyPos>>,
    /// The open copy positions (the TP/SL triggers walk these, not the history).
    pub open: BTreeSet<CopyKey>,
    /// Plans per account by creation number, oldest first; validated and cancelled ones are
    /// capped like finished orders.
    pub plans: HashMap<AccountId, OrderLog<Plan>>,
    /// Plans created so far (the last plan's number).
    pub next_plan: u64,
}

impl CopyState {
    /// The copy position `key`.
    pub fn get(&self, (account, seq): CopyKey) -> Option<&CopyPos> {
        self.positions.get(&account)?.get(&seq)
    }

    /// The copy position `key`, to change it.
    pub fn get_mut(&mut self, (account, seq): CopyKey) -> Option<&mut CopyPos> {
        self.positions.get_mut(&account)?.get_mut(&seq)
    }

    /// Whether copy position `(account, seq)` exists and has closed.
    pub fn is_closed(&self, account: AccountId, seq: u64) -> bool {
        self.get((account, seq)).is_some_and(|p| p.closed.is_some())
    }

    /// The account's copy positions, oldest first.
    pub fn of(&self, account: AccountId) -> impl DoubleEndedIterator<Item = &CopyPos> + '_ {
        self.positions
            .get(&account)
            .into_iter()
            .flat_map(BTreeMap::values)
    }

    /// Plan number `seq` of `account`.
    pub fn plan(&self, account: AccountId, seq: u64) -> Option<&Plan> {
        self.plans.get(&account)?.get(seq)
    }

    /// Sets a plan's status; a plan that is no longer pending (2 validated, 3 cancelled) joins
    /// the account's finished plans, of which the earliest beyond `keep` are forgotten.
    pub fn set_plan_status(&mut self, account: AccountId, seq: u64, status: i64, keep: usize) {
        let Some(log) = self.plans.get_mut(&account) else {
            return;
        };
        if let Some(p) = log.get_mut(seq) {
            p.status = status;
        }
        if status != 1 {
            log.finish(seq, keep.max(1), |_| {});
        }
    }

    /// Ends copy position `key` as `closed`: its pending plans end (`fired` validated, the
    /// others cancelled) and it leaves the open positions. Returns its sponsored order id.
    pub fn end(
        &mut self,
        key: CopyKey,
        closed: Closed,
        fired: Option<u64>,
        keep: usize,
    ) -> Option<String> {
        let p = self.get_mut(key)?;
        p.closed = Some(closed);
        let plans = [p.tp.take(), p.sl.take()];
        let order_id = p.order_id.clone();
        for plan in plans.into_iter().flatten() {
            let status = if Some(plan) == fired { 2 } else { 3 };
            self.set_plan_status(key.0, plan, status, keep);
        }
        self.open.remove(&key);
        Some(order_id)
    }

    /// Forgets copy position `(account, seq)` (its sponsored order fell out of the history).
    pub fn forget(&mut self, account: AccountId, seq: u64) {
        if let Some(map) = self.positions.get_mut(&account) {
            map.remove(&seq);
            if map.is_empty() {
                self.positions.remove(&account);
            }
        }
        self.open.remove(&(account, seq));
    }
}
