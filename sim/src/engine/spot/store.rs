//! Spot and margin records: pairs, books, orders, trades, positions, deposits and withdrawals
//! ([`SpotState`]), and the synthetic maker's quotes for a still market. The matching and
//! settlement that change them are [`super::engine`]'s.

use crate::config::{MarketSpec, Retention, SimConfig};
use crate::engine::accounts::AccountId;
use crate::engine::book::Book;
pub use crate::engine::book::Side;
use crate::engine::history::OrderLog;
use crate::engine::tape::{Tape, TapeLimits, Trade};
use crate::num::{floor_dp, round_dp, step};
use crate::rng::Rng;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// `spot` or `margin`, the `{market}` path segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Spot.
    Spot,
    /// Margin.
    Margin,
}

impl Kind {
    /// `spot` or `margin`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Spot => "spot",
            Kind::Margin => "margin",
        }
    }
}

/// Limit or market.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrdType {
    /// Limit.
    Limit,
    /// Market.
    Market,
}

/// Order status codes.
pub mod status {
    /// Not executed.
    pub const NEW: u8 = 0;
    /// Partially executed.
    pub const PARTIAL: u8 = 1;
    /// Fully executed.
    pub const FILLED: u8 = 2;
    /// Cancelled with nothing executed.
    pub const CANCELLED: u8 = 3;
    /// Cancelled after partial execution.
    pub const PARTIAL_CANCELLED: u8 = 4;
}

/// An order.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// Id (32 hex digits).
    pub id: String,
    /// Creation number in the family ([`SpotState::order_seq`] when created); orders are kept
    /// and listed per account in this order.
    pub seq: u64,
    /// Owner.
    pub account: AccountId,
    /// Spot or margin.
    pub kind: Kind,
    /// Market index.
    pub market: usize,
    /// Pair name.
    pub symbol: String,
    /// Side.
    pub side: Side,
    /// Limit or market.
    pub otype: OrdType,
    /// Limit price (0 for market orders).
    pub price: Decimal,
    /// Base amount (0 for a market buy, which has a cash amount).
    pub amount: Decimal,
    /// Quote amount of a market buy (0 otherwise).
    pub cash_amount: Decimal,
    /// Executed base amount.
    pub executed: Decimal,
    /// Executed quote value.
    pub executed_value: Decimal,
    /// Status code.
    pub status: u8,
    /// Creation time (ms).
    pub created_ms: i64,
    /// Finish time (ms; 0 while unfinished).
    pub finished_ms: i64,
    /// Post-only.
    pub post_only: bool,
    /// Trade ids of its fills.
    pub fills: Vec<u64>,
    /// Amount still frozen for it (quote for buys and margin orders, base for spot sells).
    pub frozen: Decimal,
    /// Reference price used to size a margin market sell's freeze.
    pub ref_price: Decimal,
    /// Cancelled by the user (not by the system).
    pub user_cancelled: bool,
    /// Placed by `/margin/position/close` (not an API placement for risk control).
    pub close: bool,
}

impl Order {
    /// `buy`, `sell`, `buy_market` or `sell_market`.
    pub fn type_text(&self) -> &'static str {
        match (self.side, self.otype) {
            (Side::Buy, OrdType::Limit) => "buy",
            (Side::Sell, OrdType::Limit) => "sell",
            (Side::Buy, OrdType::Market) => "buy_market",
            (Side::Sell, OrdType::Market) => "sell_market",
        }
    }

    /// Still open (status 0 or 1).
    pub fn is_active(&self) -> bool {
        self.status <= status::PARTIAL
    }

    /// Average execution price (0 without fills).
    pub fn avg_price(&self) -> Decimal {
        if self.executed.is_zero() {
            Decimal::ZERO
        } else {
            self.executed_value / self.executed
        }
    }
}

/// A trade of one account.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnTrade {
    /// Trade id.
    pub id: u64,
    /// Order id.
    pub order_id: String,
    /// Pair.
    pub symbol: String,
    /// Spot or margin.
    pub kind: Kind,
    /// Price.
    pub price: Decimal,
    /// Base amount.
    pub amount: Decimal,
    /// Fee.
    pub fee: Decimal,
    /// Fee currency.
    pub fee_currency: String,
    /// Time (ms).
    pub time_ms: i64,
    /// Order type text.
    pub side: &'static str,
    /// Maker.
    pub is_maker: bool,
}

/// A margin position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Position {
    /// Signed base amount: positive long, negative short.
    pub amount: Decimal,
    /// Average entry price.
    pub entry: Decimal,
    /// Quote margin locked.
    pub margin: Decimal,
}

/// Deposit record.
#[derive(Debug, Clone, PartialEq)]
pub struct Deposit {
    /// Id.
    pub id: u64,
    /// Owner.
    pub account: AccountId,
    /// Currency.
    pub currency: String,
    /// Chain.
    pub chain: String,
    /// Amount.
    pub amount: Decimal,
    /// Address.
    pub address: String,
    /// Transaction hash.
    pub hash: String,
    /// State 1-4.
    pub state: u8,
    /// Created (ms).
    pub created_ms: i64,
    /// Updated (ms).
    pub updated_ms: i64,
}

/// Withdrawal record.
#[derive(Debug, Clone, PartialEq)]
pub struct Withdrawal {
    /// Id.
    pub id: u64,
    /// Owner.
    pub account: AccountId,
    /// Currency.
    pub currency: String,
    /// Chain.
    pub chain: String,
    /// Amount debited (fee included).
    pub amount: Decimal,
    /// Fee.
    pub fee: Decimal,
    /// Address.
    pub address: String,
    /// Memo.
    pub memo: String,
    /// Transaction hash (set on completion).
    pub hash: String,
    /// State 1-4.
    pub state: u8,
    /// Created (ms).
    pub created_ms: i64,
    /// Updated (ms).
    pub updated_ms: i64,
}

/// All spot/margin state.
#[derive(Debug)]
pub struct SpotState {
    /// Pairs.
    pub markets: Vec<MarketSpec>,
    /// Pair name -> index.
    pub by_symbol: HashMap<String, usize>,
    /// Books by market index.
    pub books: Vec<Book>,
    /// The tape of each market: its public trades, candles and 24-hour figures.
    pub tapes: Vec<Tape>,
    /// Kept orders by id: open ones and the finished ones [`SpotState::user_orders`] keeps.
    pub orders: HashMap<String, Order>,
    /// Ids of each account's kept orders by creation ([`Order::seq`]), the finished ones capped
    /// at [`Retention::finished_orders_per_account`]; the keys of [`SpotState::orders`].
    pub user_orders: HashMap<AccountId, OrderLog<String>>,
    /// Own trades per account, oldest first (the newest [`Retention::own_trades_per_account`]
    /// kept).
    pub my_trades: HashMap<AccountId, VecDeque<OwnTrade>>,
    /// Margin positions by (account, market index).
    pub positions: BTreeMap<(AccountId, usize), Position>,
    /// Deposits, oldest first.
    pub deposits: Vec<Deposit>,
    /// Withdrawals, oldest first.
    pub withdrawals: Vec<Withdrawal>,
    /// Risk-control state per account.
    pub risk: HashMap<AccountId, RiskState>,
    /// Next trade id.
    pub next_trade_id: u64,
    /// Next deposit/withdrawal id.
    pub next_wallet_id: u64,
    /// Orders created so far.
    pub order_seq: u64,
    /// Maker fee rate.
    pub maker_fee: Decimal,
    /// Taker fee rate.
    pub taker_fee: Decimal,
    /// Synthetic levels per side.
    pub levels: usize,
    /// Generator for the synthetic maker.
    pub mm_rng: Rng,
    /// How much history is kept.
    pub retention: Retention,
    /// Orders created or changed since the state lock was taken, in order (the outbox of the
    /// private pushes; see [`crate::engine::changes`]).
    pub changed: Vec<(AccountId, String)>,
    /// Per market: whether a recording drives it ([`crate::market`]; no synthetic maker).
    pub replayed: Vec<bool>,
}

fn gap(m: &MarketSpec) -> Decimal {
    let g = round_dp(m.mid_price * Decimal::new(5, 4), m.price_precision);
    g.max(step(m.price_precision))
}

fn maker_size(m: &MarketSpec, rng: &mut Rng) -> Decimal {
    let r = Decimal::from(rng.below(1000)) / Decimal::from(1000);
    let size = floor_dp(
        m.maker_size * (Decimal::new(2, 1) + Decimal::new(18, 1) * r),
        m.amount_precision,
    );
    size.max(m.min_amount)
}

impl SpotState {
    /// Builds books and a day of synthetic trade history from the seed.
    pub fn new(config: &SimConfig, rng: &mut Rng, now_ms: i64) -> SpotState {
        let markets = config.markets.clone();
        let mut mm_rng = Rng::new(rng.next_u64());
        let mut books = Vec::new();
        let mut tapes = Vec::new();
        let mut next_trade_id = 1;
        for m in &markets {
            books.push(Book::seeded(
                config.book_levels,
                m.mid_price,
                gap(m),
                || maker_size(m, &mut mm_rng),
            ));
            // 48 synthetic trades over the last day, one every 30 minutes.
            let mut tape = Tape::new(TapeLimits::of(&config.retention));
            for i in 0..48i64 {
                let r = Decimal::from(mm_rng.below(2001)) - Decimal::from(1000);
                let price = round_dp(
                    m.mid_price * (Decimal::ONE + r / Decimal::from(100_000)),
                    m.price_precision,
                );
                let amount = floor_dp(
                    maker_size(m, &mut mm_rng) / Decimal::from(10),
                    m.amount_precision,
                )
                .max(m.min_amount);
                let side = if mm_rng.below(2) == 0 {
                    Side::Buy
                } else {
                    Side::Sell
                };
                tape.push(Trade {
                    id: next_trade_id,
                    time_ms: now_ms - 86_400_000 + (i + 1) * 1_800_000 - 60_000,
                    price,
                    qty: amount,
                    side,
                    direction: 0,
                });
                next_trade_id += 1;
            }
            tapes.push(tape);
        }
        let by_symbol = markets
            .iter()
            .enumerate()
            .map(|(i, m)| (m.symbol(), i))
            .collect();
        let count = markets.len();
        SpotState {
            markets,
            by_symbol,
            books,
            tapes,
            orders: HashMap::new(),
            user_orders: HashMap::new(),
            my_trades: HashMap::new(),
            positions: BTreeMap::new(),
            deposits: Vec::new(),
            withdrawals: Vec::new(),
            risk: HashMap::new(),
            next_trade_id,
            next_wallet_id: 1,
            order_seq: 0,
            maker_fee: config.maker_fee_rate,
            taker_fee: config.taker_fee_rate,
            levels: config.book_levels,
            mm_rng,
            retention: config.retention,
            replayed: vec![false; count],
            changed: Vec::new(),
        }
    }

    /// Stores a new order and lists it under its account.
    pub fn add_order(&mut self, order: Order) {
        self.changed.push((order.account, order.id.clone()));
        self.user_orders
            .entry(order.account)
            .or_default()
            .insert(order.seq, order.id.clone());
        self.orders.insert(order.id.clone(), order);
    }

    /// Ids of the account's kept orders, oldest first.
    pub fn order_ids(&self, account: AccountId) -> impl DoubleEndedIterator<Item = &String> + '_ {
        self.user_orders
            .get(&account)
            .into_iter()
            .flat_map(OrderLog::iter)
    }

    /// Files order `id`, once finished, among its account's finished orders and forgets the
    /// orders that finished earliest beyond [`Retention::finished_orders_per_account`] (at
    /// least one is kept). Nothing for an open or unknown order; filing twice is harmless.
    pub fn archive(&mut self, id: &str) {
        let Some(o) = self.orders.get(id) else {
            return;
        };
        if o.is_active() {
            return;
        }
        let (account, seq) = (o.account, o.seq);
        let keep = self.retention.finished_orders_per_account.max(1);
        let orders = &mut self.orders;
        if let Some(log) = self.user_orders.get_mut(&account) {
            log.finish(seq, keep, |old| {
                orders.remove(&old);
            });
        }
    }

    /// The account's own trades of order `o` (its kept fills), oldest first.
    pub fn fills_of(&self, o: &Order) -> Vec<&OwnTrade> {
        let Some(list) = self.my_trades.get(&o.account) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        // Trade ids grow with time, so each list is sorted by id (an account trading with
        // itself holds both sides of one trade id).
        for tid in &o.fills {
            let from = list.partition_point(|t| t.id < *tid);
            out.extend(
                list.range(from..)
                    .take_while(|t| t.id == *tid)
                    .filter(|t| t.order_id == o.id),
            );
        }
        out
    }

    /// Mid price: between best bid and ask, else the last trade, else the configured mid.
    pub fn mid(&self, m: usize) -> Decimal {
        let Some(book) = self.books.get(m) else {
            return Decimal::ZERO;
        };
        match (book.best_bid(), book.best_ask()) {
            (Some(b), Some(a)) => (a + b) / Decimal::TWO,
            _ => self.last_price(m),
        }
    }

    /// Last trade price (configured mid when no trade).
    pub fn last_price(&self, m: usize) -> Decimal {
        self.tapes
            .get(m)
            .and_then(Tape::last)
            .map(|t| t.price)
            .or_else(|| self.markets.get(m).map(|x| x.mid_price))
            .unwrap_or_default()
    }

    /// Value of one unit of `currency` in USDT (1 for USDT; via a `_usdt` pair; else 0).
    pub fn usdt_rate(&self, currency: &str) -> Decimal {
        if currency == "USDT" {
            return Decimal::ONE;
        }
        let sym = format!("{}_usdt", currency.to_ascii_lowercase());
        self.by_symbol
            .get(&sym)
            .map_or(Decimal::ZERO, |m| self.mid(*m))
    }

    /// Tops up the synthetic maker of a still market after trades ([`Book::replenish`]); a
    /// market the order flow or a recording drives keeps its own liquidity.
    pub fn replenish(&mut self, m: usize) {
        // A recording or the order flow keeps the market's liquidity instead.
        let flow = self.markets.get(m).is_some_and(|x| x.flow.is_some());
        if flow || self.replayed.get(m).copied().unwrap_or(false) {
            return;
        }
        let SpotState {
            markets,
            books,
            levels,
            mm_rng,
            ..
        } = self;
        let (Some(spec), Some(book)) = (markets.get(m), books.get_mut(m)) else {
            return;
        };
        book.replenish(*levels, spec.mid_price, gap(spec), || {
            maker_size(spec, mm_rng)
        });
    }

    /// Whether a limit order at `price` would take liquidity.
    pub fn would_take(&self, m: usize, side: Side, price: Decimal) -> bool {
        self.books
            .get(m)
            .is_some_and(|book| book.would_take(side, price))
    }

    /// A new order id.
    pub fn new_order_id(&mut self, rng: &mut Rng) -> String {
        self.order_seq += 1;
        format!("{:016x}{:016x}", rng.next_u64(), self.order_seq)
    }
}

/// Freeze needed by a margin order per quote unit of notional.
pub fn margin_rate(spec: &MarketSpec, taker: Decimal) -> Decimal {
    let lev = if spec.leverage > Decimal::ZERO {
        spec.leverage
    } else {
        Decimal::ONE
    };
    Decimal::ONE / lev + taker
}

/// Spot risk control ([`super::risk`]).
/// Risk-control state of one account (see [`super::risk`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RiskState {
    /// Last evaluated cycle index.
    pub evaluated_through: Option<i64>,
    /// Start times of bans (ms).
    pub bans: Vec<i64>,
    /// End of the current ban (ms).
    pub banned_until: i64,
    /// Whether the current ban is the 24-hour one.
    pub long_ban: bool,
}
