//! Order placement, cancellation and queries.
//!
//! Validation order for a new order (single or batch): pair (20019; `margin` on a pair without
//! margin also 20019), suspended (20002), API trading not allowed (20042), API trading ban
//! (20020/20018), type (20012), amount and price parsing (10004), price precision (20007), amount
//! precision (20008; a market buy's quote amount is held to the price precision), base minimum
//! (20009), value minimum (20010; a market sell is valued at the best bid), balance (20011).
//!
//! DESIGN:
//! - Post-only: the spec says such an order "is cancelled" when it cannot rest, so it is created
//!   and immediately finished with status 3 (the response carries its `order_id` and code 0). A
//!   post-only market order can never rest and is cancelled the same way.
//! - Batch: at most 10 orders (20031 beyond, 10004 for an empty or malformed list); all orders are
//!   validated and their combined freeze checked against the balance before any is placed, so an
//!   invalid order places none. Each element's `type`, `amount`, `price`, `post_only` may be JSON
//!   numbers or strings.
//! - `/order` returns the caller's orders of that `{market}` among the ids (at most 20, 10004
//!   beyond) and 20013 when none is found. `/order/detail` answers 20013 for an unknown id.
//! - `/order/history` lists orders of every status created in the window, newest first;
//!   `/order/current` lists open orders, newest first. Time parameters that are not integers
//!   answer 20014; an end before the start 20022; a start more than 30 days back 20015.
//! - `/order/detail`'s `detail`: the spec shows one object while live captures show an array;
//!   an object cannot carry several fills, so it is an array of `{tid, date, executed_amount,
//!   executed_price}` (empty without fills) unless [`crate::SimConfig::detail_as_object`] asks
//!   for the spec's single-object form (the latest fill, `{}` without fills).
//! - Pairs are written in upper case (`BTC_USDT`) in order, order-detail and own-trade records,
//!   as the live venue does; requests accept either case.
//! - `/order/cancel` puts ids that are unknown, of another account or `{market}`, or already
//!   finished in `error`.

use super::market::lookup;
use super::{err, err_msg, ok0, Ctx, Kind, SpotErr, R};
use crate::config::{MarketSpec, MarketStatus};
use crate::engine::accounts::AccountType;
use crate::engine::spot::engine::{
    self, frozen_currency, margin_rate, status, OrdType, Order, OwnTrade, Side,
};
use crate::engine::state::State;
use crate::json::J;
use crate::num::{parse_dec, places, round_dp};
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// A parsed, not yet validated order.
#[derive(Debug, Clone)]
pub struct NewOrder {
    side: Side,
    otype: OrdType,
    price: Decimal,
    amount: Decimal,
    post_only: bool,
}

/// What a validated order freezes.
#[derive(Debug, Clone)]
struct Freeze {
    at: AccountType,
    currency: String,
    amount: Decimal,
    ref_price: Decimal,
}

/// Largest accepted price or amount (keeps every product far from `Decimal`'s range).
fn max_number() -> Decimal {
    Decimal::from(1_000_000_000_000i64)
}

fn parse_new(
    ty: Option<&str>,
    amount: Option<&str>,
    price: Option<&str>,
    post_only: Option<&str>,
) -> Result<NewOrder, SpotErr> {
    let (side, otype) = match ty.map(str::trim) {
        Some("buy") => (Side::Buy, OrdType::Limit),
        Some("sell") => (Side::Sell, OrdType::Limit),
        Some("buy_market") => (Side::Buy, OrdType::Market),
        Some("sell_market") => (Side::Sell, OrdType::Market),
        None | Some("") => return Err(err_msg(10004, "missing parameter type")),
        Some(_) => return Err(err(20012)),
    };
    let amount = match amount.filter(|a| !a.is_empty()) {
        None => return Err(err_msg(10004, "missing parameter amount")),
        Some(a) => parse_dec(a)
            .ok_or_else(|| err_msg(10004, "amount must be a decimal number (0.5, 1e-7)"))?,
    };
    if amount <= Decimal::ZERO || amount > max_number() {
        return Err(err_msg(10004, "amount must be positive and at most 1e12"));
    }
    let price = match (otype, price.filter(|p| !p.is_empty())) {
        (OrdType::Limit, None) => return Err(err_msg(10004, "missing parameter price")),
        (OrdType::Limit, Some(p)) => {
            let p = parse_dec(p)
                .ok_or_else(|| err_msg(10004, "price must be a decimal number (0.5, 1e-7)"))?;
            if p <= Decimal::ZERO || p > max_number() {
                return Err(err_msg(10004, "price must be positive and at most 1e12"));
            }
            p
        }
        (OrdType::Market, _) => Decimal::ZERO,
    };
    let post_only = match post_only.map(str::trim) {
        None | Some("") | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(_) => return Err(err_msg(10004, "post_only must be 0 or 1")),
    };
    Ok(NewOrder {
        side,
        otype,
        price,
        amount,
        post_only,
    })
}

/// Pair-level checks: margin availability, suspension, API trading, ban.
fn check_pair(c: &mut Ctx<'_>, m: usize) -> Result<MarketSpec, SpotErr> {
    let spec =
        c.st.spot
            .markets
            .get(m)
            .cloned()
            .ok_or_else(|| err(20019))?;
    if c.kind == Kind::Margin && !spec.margin {
        return Err(err_msg(20019, "pair does not support margin trading"));
    }
    if spec.status == MarketStatus::Suspended {
        return Err(err(20002));
    }
    if !spec.api_tradable {
        return Err(err(20042));
    }
    if c.config.limits.risk_control {
        crate::engine::spot::risk::check(&mut c.st.spot, c.user, c.now_ms)?;
    }
    Ok(spec)
}

fn validate(c: &Ctx<'_>, m: usize, spec: &MarketSpec, n: &NewOrder) -> Result<Freeze, SpotErr> {
    if n.otype == OrdType::Limit && places(n.price) > spec.price_precision {
        return Err(err(20007));
    }
    let cash_buy = n.otype == OrdType::Market && n.side == Side::Buy;
    let amount_dp = if cash_buy {
        spec.price_precision
    } else {
        spec.amount_precision
    };
    if places(n.amount) > amount_dp {
        return Err(err(20008));
    }
    let book = c.st.spot.books.get(m);
    let ref_price = match (n.otype, n.side) {
        (OrdType::Limit, _) => n.price,
        (OrdType::Market, Side::Buy) => book
            .and_then(|b| b.best_ask())
            .unwrap_or_else(|| c.st.spot.mid(m)),
        (OrdType::Market, Side::Sell) => book
            .and_then(|b| b.best_bid())
            .unwrap_or_else(|| c.st.spot.mid(m)),
    };
    if !cash_buy && n.amount < spec.min_amount {
        return Err(err(20009));
    }
    let value = if cash_buy {
        n.amount
    } else {
        n.amount * ref_price
    };
    if value < spec.min_value {
        return Err(err(20010));
    }
    let (at, currency) = frozen_currency(spec, c.kind, n.side);
    let amount = match c.kind {
        Kind::Spot => match (n.side, n.otype) {
            (Side::Buy, OrdType::Limit) => n.amount * n.price,
            (Side::Buy, OrdType::Market) => n.amount,
            (Side::Sell, _) => n.amount,
        },
        Kind::Margin => value * margin_rate(spec, c.st.spot.taker_fee),
    };
    Ok(Freeze {
        at,
        currency: currency.to_owned(),
        amount,
        ref_price,
    })
}

fn free_of(st: &State, user: u64, at: AccountType, currency: &str) -> Decimal {
    st.accounts
        .get(&user)
        .map_or(Decimal::ZERO, |a| a.balance(at, currency).free)
}

/// Stores, freezes and matches a validated order; returns its id.
#[allow(clippy::too_many_arguments)]
fn place(
    st: &mut State,
    user: u64,
    kind: Kind,
    m: usize,
    symbol: &str,
    n: &NewOrder,
    f: &Freeze,
    close: bool,
    now_ms: i64,
) -> String {
    let State { spot, rng, .. } = &mut *st;
    let id = spot.new_order_id(rng);
    let seq = spot.order_seq;
    let frozen = if st.account(user).freeze(f.at, &f.currency, f.amount).is_ok() {
        f.amount
    } else {
        Decimal::ZERO
    };
    let cash_buy = n.otype == OrdType::Market && n.side == Side::Buy && !close;
    let order = Order {
        id: id.clone(),
        seq,
        account: user,
        kind,
        market: m,
        symbol: symbol.to_owned(),
        side: n.side,
        otype: n.otype,
        price: n.price,
        amount: if cash_buy { Decimal::ZERO } else { n.amount },
        cash_amount: if cash_buy { n.amount } else { Decimal::ZERO },
        executed: Decimal::ZERO,
        executed_value: Decimal::ZERO,
        status: status::NEW,
        created_ms: now_ms,
        finished_ms: 0,
        post_only: n.post_only,
        fills: Vec::new(),
        frozen,
        ref_price: f.ref_price,
        user_cancelled: false,
        close,
    };
    st.spot.add_order(order);
    if close {
        engine::execute(st, &id, now_ms);
    } else {
        // API placements reach the engine after the configured latency.
        crate::engine::spot::engine::submit(st, &id, now_ms);
    }
    id
}

/// `POST /{market}/order/new`.
pub fn new_order(c: &mut Ctx<'_>) -> R {
    let m = lookup(c, c.p.req("symbol")?)?;
    let spec = check_pair(c, m)?;
    let n = parse_new(
        c.p.get("type"),
        c.p.get("amount"),
        c.p.get("price"),
        c.p.get("post_only"),
    )?;
    let f = validate(c, m, &spec, &n)?;
    if free_of(c.st, c.user, f.at, &f.currency) < f.amount {
        return Err(err(20011));
    }
    let id = place(
        c.st,
        c.user,
        c.kind,
        m,
        &spec.symbol(),
        &n,
        &f,
        false,
        c.now_ms,
    );
    Ok(ok0().with("order_id", id))
}

fn raw_text(v: &serde_json::value::RawValue) -> Option<String> {
    let t = v.get().trim();
    if t.starts_with('"') {
        serde_json::from_str::<String>(t).ok()
    } else if t == "null" {
        None
    } else {
        Some(t.to_owned())
    }
}

/// `POST /{market}/order/batch_new`.
pub fn batch_new(c: &mut Ctx<'_>) -> R {
    let m = lookup(c, c.p.req("symbol")?)?;
    let list_text = c.p.req("list")?.to_owned();
    let list: Vec<BTreeMap<String, Box<serde_json::value::RawValue>>> =
        serde_json::from_str(&list_text)
            .map_err(|_| err_msg(10004, "list must be a JSON array of order objects"))?;
    if list.is_empty() {
        return Err(err_msg(10004, "list is empty"));
    }
    if list.len() > 10 {
        return Err(err(20031));
    }
    let spec = check_pair(c, m)?;
    let mut parsed = Vec::new();
    let mut need: BTreeMap<(AccountType, String), Decimal> = BTreeMap::new();
    for item in &list {
        let get = |k: &str| item.get(k).and_then(|v| raw_text(v));
        let n = parse_new(
            get("type").as_deref(),
            get("amount").as_deref(),
            get("price").as_deref(),
            get("post_only").as_deref(),
        )?;
        let f = validate(c, m, &spec, &n)?;
        *need.entry((f.at, f.currency.clone())).or_default() += f.amount;
        parsed.push((n, f));
    }
    for ((at, cur), amount) in &need {
        if free_of(c.st, c.user, *at, cur) < *amount {
            return Err(err(20011));
        }
    }
    let symbol = spec.symbol();
    let ids: Vec<J> = parsed
        .iter()
        .map(|(n, f)| {
            J::Str(place(
                c.st, c.user, c.kind, m, &symbol, n, f, false, c.now_ms,
            ))
        })
        .collect();
    Ok(ok0().with("order_ids", ids))
}

/// Places a market order closing the caller's margin position on pair `m`; `false` when there
/// is no position.
pub fn close_position(st: &mut State, user: u64, m: usize, now_ms: i64) -> bool {
    let Some(pos) = st.spot.positions.get(&(user, m)) else {
        return false;
    };
    if pos.amount.is_zero() {
        return false;
    }
    let Some(spec) = st.spot.markets.get(m).cloned() else {
        return false;
    };
    let n = NewOrder {
        side: if pos.amount > Decimal::ZERO {
            Side::Sell
        } else {
            Side::Buy
        },
        otype: OrdType::Market,
        price: Decimal::ZERO,
        amount: pos.amount.abs(),
        post_only: false,
    };
    let f = Freeze {
        at: AccountType::Margin,
        currency: spec.quote.clone(),
        amount: Decimal::ZERO,
        ref_price: Decimal::ZERO,
    };
    place(
        st,
        user,
        Kind::Margin,
        m,
        &spec.symbol(),
        &n,
        &f,
        true,
        now_ms,
    );
    true
}

fn ids_param(c: &Ctx<'_>) -> Result<Vec<String>, SpotErr> {
    let ids: Vec<String> =
        c.p.req("order_id")?
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
    if ids.is_empty() {
        return Err(err_msg(10004, "missing parameter order_id"));
    }
    Ok(ids)
}

/// `POST /{market}/order/cancel`.
pub fn cancel(c: &mut Ctx<'_>) -> R {
    let ids = ids_param(c)?;
    let mut success = Vec::new();
    let mut error = Vec::new();
    for id in ids {
        let ok = match c.st.spot.orders.get_mut(&id) {
            Some(o) if o.account == c.user && o.kind == c.kind && o.is_active() => {
                o.user_cancelled = true;
                let code = if o.executed > Decimal::ZERO {
                    status::PARTIAL_CANCELLED
                } else {
                    status::CANCELLED
                };
                engine::finish(c.st, &id, c.now_ms, code);
                true
            }
            _ => false,
        };
        if ok {
            success.push(J::Str(id));
        } else {
            error.push(J::Str(id));
        }
    }
    Ok(ok0().with("success", success).with("error", error))
}

fn secs(ms: i64) -> i64 {
    ms.div_euclid(1000)
}

/// JSON of an order (pair in upper case).
pub fn order_json(o: &Order) -> J {
    J::obj()
        .with("symbol", super::pair_upper(&o.symbol))
        .with("order_id", o.id.as_str())
        .with("created_date", secs(o.created_ms))
        .with("finished_date", secs(o.finished_ms))
        .with("price", o.price)
        .with("amount", o.amount)
        .with("cash_amount", o.cash_amount)
        .with("executed_amount", o.executed)
        .with("avg_price", round_dp(o.avg_price(), 12))
        .with("status", i64::from(o.status))
        .with("type", o.type_text())
        .with("kind", o.kind.name())
}

fn own_order<'a>(c: &'a Ctx<'_>, id: &str) -> Option<&'a Order> {
    c.st.spot
        .orders
        .get(id)
        .filter(|o| o.account == c.user && o.kind == c.kind)
}

/// `GET /{market}/order`.
pub fn query(c: &mut Ctx<'_>) -> R {
    let ids = ids_param(c)?;
    if ids.len() > 20 {
        return Err(err_msg(10004, "at most 20 order ids"));
    }
    let data: Vec<J> = ids
        .iter()
        .filter_map(|id| own_order(c, id))
        .map(order_json)
        .collect();
    if data.is_empty() {
        return Err(err(20013));
    }
    Ok(ok0().with("data", data))
}

/// `GET /{market}/order/detail`.
pub fn detail(c: &mut Ctx<'_>) -> R {
    let id = c.p.req("order_id")?.trim().to_owned();
    let o = own_order(c, &id).ok_or_else(|| err(20013))?;
    let fill = |t: &OwnTrade| {
        J::obj()
            .with("tid", t.id)
            .with("date", secs(t.time_ms))
            .with("executed_amount", t.amount)
            .with("executed_price", t.price)
    };
    let fills = c.st.spot.fills_of(o);
    let detail = if c.config.detail_as_object {
        fills.last().map_or_else(J::obj, |t| fill(t))
    } else {
        J::Arr(fills.iter().map(|t| fill(t)).collect())
    };
    Ok(ok0().with("data", order_json(o).with("detail", detail)))
}

/// `GET /{market}/order/current`.
pub fn current(c: &mut Ctx<'_>) -> R {
    let sym = match c.p.get("symbol") {
        Some(s) => Some(lookup(c, s)?),
        None => None,
    };
    let data: Vec<J> =
        c.st.spot
            .order_ids(c.user)
            .rev()
            .filter_map(|id| c.st.spot.orders.get(id))
            .filter(|o| o.kind == c.kind && o.is_active() && sym.is_none_or(|m| o.market == m))
            .map(order_json)
            .collect();
    Ok(ok0().with("data", data))
}

/// The `[start, end]` window (seconds) of history and trade queries.
pub fn window(c: &Ctx<'_>) -> Result<(i64, i64), SpotErr> {
    let int = |k: &str| -> Result<Option<i64>, SpotErr> {
        match c.p.get(k) {
            None => Ok(None),
            Some(v) => match crate::num::parse_int(v) {
                Some(t) if (0..=super::market::MAX_SECONDS).contains(&t) => Ok(Some(t)),
                Some(_) => Err(err(20015)),
                None => Err(err(20014)),
            },
        }
    };
    let end = int("end_time")?.unwrap_or(c.now_s());
    let start = int("start_time")?.unwrap_or(end - 3 * 86_400);
    if end < start {
        return Err(err(20022));
    }
    if start < c.now_s() - 30 * 86_400 {
        return Err(err(20015));
    }
    Ok((start, end))
}

/// `GET /{market}/order/history`.
pub fn history(c: &mut Ctx<'_>) -> R {
    let sym = match c.p.get("symbol") {
        Some(s) => Some(lookup(c, s)?),
        None => None,
    };
    let limit = c.p.limit("limit", 10, 100)?;
    let (start, end) = window(c)?;
    let data: Vec<J> =
        c.st.spot
            .order_ids(c.user)
            .rev()
            .filter_map(|id| c.st.spot.orders.get(id))
            .filter(|o| {
                let t = secs(o.created_ms);
                o.kind == c.kind && t >= start && t <= end && sym.is_none_or(|m| o.market == m)
            })
            .take(limit)
            .map(order_json)
            .collect();
    Ok(ok0().with("data", data))
}

/// `GET /{market}/mytrades`.
pub fn my_trades(c: &mut Ctx<'_>) -> R {
    let sym = match c.p.get("symbol") {
        Some(s) => Some(lookup(c, s)?),
        None => None,
    };
    let sym_name = sym
        .and_then(|m| c.st.spot.markets.get(m))
        .map(MarketSpec::symbol);
    let limit = c.p.limit("limit", 50, 500)?;
    let (start, end) = window(c)?;
    let list: Vec<J> =
        c.st.spot
            .my_trades
            .get(&c.user)
            .into_iter()
            .flat_map(|list| list.iter().rev())
            .filter(|t| {
                let s = secs(t.time_ms);
                t.kind == c.kind
                    && s >= start
                    && s <= end
                    && sym_name.as_ref().is_none_or(|n| &t.symbol == n)
            })
            .take(limit)
            .map(|t| {
                J::obj()
                    .with("symbol", super::pair_upper(&t.symbol))
                    .with("order_id", t.order_id.as_str())
                    .with("id", t.id)
                    .with("price", t.price)
                    .with("amount", t.amount)
                    .with("fee", t.fee)
                    .with("fee_currency", t.fee_currency.as_str())
                    .with("timestamp", secs(t.time_ms))
                    .with("side", t.side)
                    .with("is_maker", t.is_maker)
            })
            .collect();
    Ok(ok0().with("list", list))
}
