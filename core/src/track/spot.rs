//! Spot: what the reads, the answers and the pushes say, as observations; the reads to make.

use super::model::{Balance, Fee, Fill, OrderStatus};
use super::{OrderObs, TradeObs};
use crate::spot as sp;
use crate::types::{TimestampMillis, TimestampSecs};
use crate::ws::model::{SpotBalance, SpotOrder};

/// Most ids one `GET /v3/{market}/order` takes.
pub(crate) const BY_ID: usize = 20;

/// Records one `mytrades` read asks for (the endpoint's largest page).
pub(crate) const TRADES_PAGE: u32 = 500;

/// A pair as the tracker keys it: lower case.
pub(crate) fn market(text: &str) -> String {
    text.trim().to_ascii_lowercase()
}

fn status(s: &sp::OrderStatus) -> Option<OrderStatus> {
    match s {
        sp::OrderStatus::NotExecuted | sp::OrderStatus::PartiallyExecuted => {
            Some(OrderStatus::Open)
        }
        sp::OrderStatus::FullyExecuted => Some(OrderStatus::Filled),
        sp::OrderStatus::Cancelled | sp::OrderStatus::CancelledPartially => {
            Some(OrderStatus::Cancelled)
        }
        _ => None,
    }
}

/// An order of a REST list.
pub(crate) fn rest_order(o: &sp::Order) -> OrderObs {
    OrderObs {
        id: o.order_id.clone(),
        market: o.symbol.as_ref().map(|p| market(p.as_str())),
        side: o.order_type.as_ref().map(|t| t.as_str().to_owned()),
        price: o.price.filter(|p| !p.is_zero()),
        amount: match (o.amount, o.cash_amount) {
            (Some(a), _) if !a.is_zero() => Some(a),
            (_, Some(c)) if !c.is_zero() => Some(c),
            (a, _) => a,
        },
        filled: o.executed_amount,
        status: o.status.as_ref().and_then(status),
    }
}

/// An `order.update` push.
pub(crate) fn push_order(o: &SpotOrder) -> OrderObs {
    let market_order = o
        .order_type
        .as_deref()
        .is_some_and(|t| t.eq_ignore_ascii_case("market"));
    OrderObs {
        id: o.id.clone(),
        market: o.symbol.as_deref().map(market),
        side: o.side.as_ref().map(|s| {
            if market_order {
                format!("{}_market", s.as_str())
            } else {
                s.as_str().to_owned()
            }
        }),
        price: o.price.filter(|p| !p.is_zero()),
        amount: o.amount.filter(|a| !a.is_zero()),
        filled: o.filled,
        status: o.status.as_ref().and_then(status),
    }
}

/// The order a placement created (from the request).
pub(crate) fn placed(symbol: &str, order: &sp::OrderSpec, id: &str) -> OrderObs {
    OrderObs {
        id: id.to_owned(),
        market: Some(market(symbol)),
        side: Some(order.wire_type().to_owned()),
        price: order.price().map(|p| p.get()),
        amount: Some(order.amount().get()),
        filled: None,
        status: Some(OrderStatus::Open),
    }
}

/// A `mytrades` record.
pub(crate) fn rest_trade(t: &sp::OwnTrade, fallback_market: &str) -> TradeObs {
    let market = t
        .symbol
        .as_ref()
        .map(|p| market(p.as_str()))
        .unwrap_or_else(|| fallback_market.to_owned());
    TradeObs {
        fill: Fill {
            trade_id: t.id.clone(),
            order_id: t.order_id.clone(),
            market,
            side: t.side.as_ref().map(|s| s.as_str().to_owned()),
            price: t.price,
            amount: t.amount,
            time: t.timestamp.map(|s| TimestampMillis(s.as_millis())),
            maker: t.is_maker,
        },
        fee: t.fee.map(|amount| Fee {
            amount,
            currency: t.fee_currency.as_ref().map(|c| c.to_ascii_uppercase()),
        }),
    }
}

/// A balance of `/spot/assets`.
pub(crate) fn rest_balance(a: &sp::Asset) -> Balance {
    Balance::new(&a.currency, a.free, a.total)
}

/// A `balance.update` push: `total`, or `free + used` when the push has no total.
pub(crate) fn push_balance(b: &SpotBalance) -> Balance {
    let total = b.total.or_else(|| match (b.free, b.used) {
        (Some(f), Some(u)) => f.checked_add(u),
        _ => None,
    });
    Balance::new(&b.currency, b.free, total)
}

/// The open orders of `pair`.
pub(crate) fn open_read(pair: &str) -> sp::CurrentOrdersRequest {
    sp::CurrentOrdersRequest::new(sp::Market::Spot).symbol(pair)
}

/// Fills of `pair` from `start` (ms) to `end` (ms, when paging back).
pub(crate) fn trades_read(pair: &str, start: i64, end: Option<i64>) -> sp::MyTradesRequest {
    let start = TimestampSecs(start.div_euclid(1000));
    let mut r = sp::MyTradesRequest::new(sp::Market::Spot)
        .symbol(pair)
        .limit(TRADES_PAGE)
        .start_time(start);
    if let Some(end) = end {
        r = r.end_time(TimestampSecs(end.div_euclid(1000).max(start.0)));
    }
    r
}
