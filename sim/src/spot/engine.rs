//! Spot and margin orders on the books, matching and settlement.
//!
//! Each pair has one [`Book`] (the shared [`crate::book`]: price levels of FIFO queues,
//! price-time priority, trades at the resting order's price, the synthetic maker) shared by spot
//! and margin orders; quantities are base amounts. Synthetic liquidity: at start each book gets
//! `book_levels` maker orders per side around the pair's mid price, spaced by 5 basis points (at
//! least one tick), sized from 0.2x to 2x of [`MarketSpec::maker_size`] by the seed, and is
//! topped up after trades. Synthetic orders have no owner or balance. The same seed and the same
//! request sequence give the same books.
//!
//! Fees: a taker pays the taker rate, a maker and every post-only order the maker rate, in the
//! currency received (spot buy: base; spot sell: quote; margin: quote).
//!
//! DESIGN (margin): margin positions are settled in the quote currency, like a contract for
//! difference. A margin order freezes `notional * (1/leverage + taker rate)` of quote from the
//! margin account; a fill that opens or grows a position locks `qty * price / leverage` as
//! position margin (kept in the quote balance's `frozen` part); a fill against an opposite
//! position closes it first, releasing margin and crediting the realised profit or loss. Base
//! currency in the margin account is collateral only. No liquidation engine runs.

use super::Kind;
use crate::accounts::{finance_type, Account, AccountId, AccountType};
use crate::book::Demand;
pub use crate::book::{Book, Resting, Side};
use crate::config::{MarketSpec, Retention, SimConfig};
use crate::history::{push_capped, OrderLog};
use crate::num::{floor_dp, round_dp, step};
use crate::rng::Rng;
use crate::state::State;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap, VecDeque};

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

/// A public trade.
#[derive(Debug, Clone, PartialEq)]
pub struct PublicTrade {
    /// Trade id.
    pub id: u64,
    /// Time (ms).
    pub time_ms: i64,
    /// Price.
    pub price: Decimal,
    /// Base amount.
    pub amount: Decimal,
    /// Taker side.
    pub side: Side,
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
    /// Public trades by market index, oldest first (the newest
    /// [`Retention::public_trades_per_market`] kept).
    pub trades: Vec<VecDeque<PublicTrade>>,
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
    pub risk: HashMap<AccountId, super::risk::RiskState>,
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
        let mut trades = Vec::new();
        let mut next_trade_id = 1;
        for m in &markets {
            books.push(Book::seeded(
                config.book_levels,
                m.mid_price,
                gap(m),
                || maker_size(m, &mut mm_rng),
            ));
            // 48 synthetic trades over the last day, one every 30 minutes.
            let mut list = VecDeque::new();
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
                push_capped(
                    &mut list,
                    PublicTrade {
                        id: next_trade_id,
                        time_ms: now_ms - 86_400_000 + (i + 1) * 1_800_000 - 60_000,
                        price,
                        amount,
                        side,
                    },
                    config.retention.public_trades_per_market,
                );
                next_trade_id += 1;
            }
            trades.push(list);
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
            trades,
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
        }
    }

    /// Stores a new order and lists it under its account.
    pub fn add_order(&mut self, order: Order) {
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
        self.trades
            .get(m)
            .and_then(|t| t.back())
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

    fn replenish(&mut self, m: usize) {
        if self.replayed.get(m).copied().unwrap_or(false) {
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

/// Matches an order that has just been stored (and frozen) against the book, settles every
/// fill, and rests or finishes the remainder.
pub fn execute(st: &mut State, order_id: &str, now_ms: i64) {
    let Some(o) = st.spot.orders.get(order_id) else {
        return;
    };
    let (m, side, otype, limit, post_only) = (o.market, o.side, o.otype, o.price, o.post_only);
    let cash_mode =
        o.otype == OrdType::Market && o.side == Side::Buy && o.cash_amount > Decimal::ZERO;
    let Some(dp) = st.spot.markets.get(m).map(|spec| spec.amount_precision) else {
        return;
    };
    let demand = if cash_mode {
        Demand::Value {
            value: o.cash_amount,
            dp,
        }
    } else {
        Demand::Quantity(o.amount)
    };

    if post_only && (otype == OrdType::Market || st.spot.would_take(m, side, limit)) {
        finish(st, order_id, now_ms, status::CANCELLED);
        return;
    }

    let limit_price = (otype == OrdType::Limit).then_some(limit);
    let (fills, exhausted) = match st.spot.books.get_mut(m) {
        Some(book) => {
            let walk = book.take(side, limit_price, demand);
            (walk.fills, walk.exhausted)
        }
        None => (Vec::new(), true),
    };

    let had_fills = !fills.is_empty();
    for f in fills {
        let tid = st.spot.next_trade_id;
        st.spot.next_trade_id += 1;
        settle(st, order_id, f.price, f.qty, false, tid, now_ms);
        if let Some(maker) = &f.maker {
            settle(st, maker, f.price, f.qty, true, tid, now_ms);
        }
        let keep = st.spot.retention.public_trades_per_market;
        if let Some(list) = st.spot.trades.get_mut(m) {
            push_capped(
                list,
                PublicTrade {
                    id: tid,
                    time_ms: now_ms,
                    price: f.price,
                    amount: f.qty,
                    side,
                },
                keep,
            );
        }
    }

    // Rest or finish the remainder.
    let Some(o) = st.spot.orders.get(order_id) else {
        return;
    };
    if o.is_active() {
        match otype {
            OrdType::Limit => {
                let remaining = o.amount - o.executed;
                if let Some(book) = st.spot.books.get_mut(m) {
                    book.push(side, limit, Some(order_id.to_owned()), remaining);
                }
            }
            OrdType::Market => {
                let full = if cash_mode {
                    !exhausted && o.executed > Decimal::ZERO
                } else {
                    o.executed >= o.amount
                };
                let st_code = if full {
                    status::FILLED
                } else if o.executed > Decimal::ZERO {
                    status::PARTIAL_CANCELLED
                } else {
                    status::CANCELLED
                };
                finish(st, order_id, now_ms, st_code);
            }
        }
    }
    if had_fills {
        st.spot.replenish(m);
    }
    // Filed last, so the order a request finishes outlives the makers it finished.
    st.spot.archive(order_id);
}

/// Fills resting order `order_id` as a maker at `price` for `qty` outside a matching walk (a
/// replayed market reached it, [`crate::market`]); its book entry is already reduced.
pub fn fill_resting(st: &mut State, order_id: &str, price: Decimal, qty: Decimal, now_ms: i64) {
    if qty <= Decimal::ZERO || !st.spot.orders.get(order_id).is_some_and(Order::is_active) {
        return;
    }
    let tid = st.spot.next_trade_id;
    st.spot.next_trade_id += 1;
    settle(st, order_id, price, qty, true, tid, now_ms);
}

/// Finishes an order: sets the status and finish time, removes it from the book and releases
/// whatever is still frozen for it.
pub fn finish(st: &mut State, order_id: &str, now_ms: i64, code: u8) {
    let Some(o) = st.spot.orders.get_mut(order_id) else {
        return;
    };
    if !o.is_active() {
        return;
    }
    o.status = code;
    o.finished_ms = now_ms;
    let (m, side, price, account, kind, frozen) =
        (o.market, o.side, o.price, o.account, o.kind, o.frozen);
    o.frozen = Decimal::ZERO;
    if o.otype == OrdType::Limit {
        if let Some(book) = st.spot.books.get_mut(m) {
            book.remove_order(side, price, order_id);
        }
    }
    if frozen > Decimal::ZERO {
        if let Some(spec) = st.spot.markets.get(m) {
            let (at, cur) = frozen_currency(spec, kind, side);
            let cur = cur.to_owned();
            st.account(account).unfreeze(at, &cur, frozen);
        }
    }
    st.spot.archive(order_id);
}

/// Account type and currency an order freezes.
pub fn frozen_currency(spec: &MarketSpec, kind: Kind, side: Side) -> (AccountType, &str) {
    match (kind, side) {
        (Kind::Spot, Side::Buy) => (AccountType::Spot, &spec.quote),
        (Kind::Spot, Side::Sell) => (AccountType::Spot, &spec.base),
        (Kind::Margin, _) => (AccountType::Margin, &spec.quote),
    }
}

fn settle(
    st: &mut State,
    order_id: &str,
    price: Decimal,
    qty: Decimal,
    is_maker: bool,
    tid: u64,
    now: i64,
) {
    let maker_fee = st.spot.maker_fee;
    let taker_fee = st.spot.taker_fee;
    let State { spot, accounts, .. } = st;
    let Some(o) = spot.orders.get_mut(order_id) else {
        return;
    };
    let Some(spec) = spot.markets.get(o.market) else {
        return;
    };
    let rate = if is_maker || o.post_only {
        maker_fee
    } else {
        taker_fee
    };
    let value = qty * price;
    o.executed += qty;
    o.executed_value += value;
    o.fills.push(tid);
    let acct = accounts
        .entry(o.account)
        .or_insert_with(|| Account::new(o.account));
    let (fee, fee_currency) = match o.kind {
        Kind::Spot => match o.side {
            Side::Buy => {
                let spend = value.min(o.frozen);
                o.frozen -= spend;
                acct.spend_frozen(
                    AccountType::Spot,
                    &spec.quote,
                    spend,
                    finance_type::TRADE,
                    now,
                );
                acct.credit(AccountType::Spot, &spec.base, qty, finance_type::TRADE, now);
                let fee = qty * rate;
                acct.credit(AccountType::Spot, &spec.base, -fee, finance_type::FEE, now);
                (fee, spec.base.clone())
            }
            Side::Sell => {
                let spend = qty.min(o.frozen);
                o.frozen -= spend;
                acct.spend_frozen(
                    AccountType::Spot,
                    &spec.base,
                    spend,
                    finance_type::TRADE,
                    now,
                );
                acct.credit(
                    AccountType::Spot,
                    &spec.quote,
                    value,
                    finance_type::TRADE,
                    now,
                );
                let fee = value * rate;
                acct.credit(AccountType::Spot, &spec.quote, -fee, finance_type::FEE, now);
                (fee, spec.quote.clone())
            }
        },
        Kind::Margin => {
            let pos = spot.positions.entry((o.account, o.market)).or_default();
            let fee = margin_fill(acct, pos, o, spec, taker_fee, price, qty, rate, now);
            (fee, spec.quote.clone())
        }
    };
    let done = match o.otype {
        OrdType::Limit => o.executed >= o.amount,
        OrdType::Market => false,
    };
    o.status = if done {
        status::FILLED
    } else {
        status::PARTIAL
    };
    let trade = OwnTrade {
        id: tid,
        order_id: o.id.clone(),
        symbol: o.symbol.clone(),
        kind: o.kind,
        price,
        amount: qty,
        fee,
        fee_currency,
        time_ms: now,
        side: o.type_text(),
        is_maker,
    };
    let account = o.account;
    if done {
        o.finished_ms = now;
        let (at, cur) = frozen_currency(spec, o.kind, o.side);
        let left = o.frozen;
        o.frozen = Decimal::ZERO;
        if left > Decimal::ZERO {
            acct.unfreeze(at, cur, left);
        }
    }
    push_capped(
        spot.my_trades.entry(account).or_default(),
        trade,
        spot.retention.own_trades_per_account,
    );
    if done && is_maker {
        // A taker is filed at the end of its execution.
        spot.archive(order_id);
    }
}

#[allow(clippy::too_many_arguments)]
fn margin_fill(
    acct: &mut Account,
    pos: &mut Position,
    o: &mut Order,
    spec: &MarketSpec,
    taker: Decimal,
    price: Decimal,
    qty: Decimal,
    fee_rate: Decimal,
    now: i64,
) -> Decimal {
    let quote = spec.quote.as_str();
    let lev = if spec.leverage > Decimal::ZERO {
        spec.leverage
    } else {
        Decimal::ONE
    };
    let notional = qty * price;
    // Release this fill's share of the order's freeze.
    if !o.close {
        let unit = match (o.otype, o.side) {
            (OrdType::Limit, _) => o.price,
            (OrdType::Market, Side::Buy) => price,
            (OrdType::Market, Side::Sell) => o.ref_price,
        };
        let release = (qty * unit * margin_rate(spec, taker)).min(o.frozen);
        o.frozen -= release;
        acct.unfreeze(AccountType::Margin, quote, release);
    }
    let sign = match o.side {
        Side::Buy => Decimal::ONE,
        Side::Sell => Decimal::NEGATIVE_ONE,
    };
    let mut open_qty = qty;
    if !pos.amount.is_zero() && pos.amount.is_sign_negative() != sign.is_sign_negative() {
        let held = pos.amount.abs();
        let close_qty = qty.min(held);
        let dir = if pos.amount > Decimal::ZERO {
            Decimal::ONE
        } else {
            Decimal::NEGATIVE_ONE
        };
        let pnl = (price - pos.entry) * close_qty * dir;
        let released = pos.margin * close_qty / held;
        pos.margin -= released;
        acct.unfreeze(AccountType::Margin, quote, released);
        pos.amount += sign * close_qty;
        acct.credit(
            AccountType::Margin,
            quote,
            pnl,
            finance_type::MARGIN_PNL,
            now,
        );
        open_qty = qty - close_qty;
        if pos.amount.is_zero() {
            acct.unfreeze(AccountType::Margin, quote, pos.margin);
            *pos = Position::default();
        }
    }
    if open_qty > Decimal::ZERO {
        let need = open_qty * price / lev;
        let free = acct
            .balance(AccountType::Margin, quote)
            .free
            .max(Decimal::ZERO);
        let lock = need.min(free);
        let _ = acct.freeze(AccountType::Margin, quote, lock);
        let held = pos.amount.abs();
        pos.entry = (pos.entry * held + price * open_qty) / (held + open_qty);
        pos.amount += sign * open_qty;
        pos.margin += lock;
    }
    let fee = notional * fee_rate;
    acct.credit(AccountType::Margin, quote, -fee, finance_type::FEE, now);
    fee
}
