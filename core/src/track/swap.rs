//! Swap: what the reads, the answers and the pushes say, as observations; the reads to make.

use super::model::{Balance, Fee, Fill, OrderStatus, Position};
use super::{OrderObs, TradeObs};
use crate::swap as sw;
use crate::types::TimestampMillis;
use crate::ws::model::{SwapAccount, SwapOrder, SwapPosition};

/// Records one `open_orders` or `history_trades` read asks for (their largest page).
pub(crate) const PAGE: u32 = 100;

/// An instrument as the tracker keys it: upper case.
pub(crate) fn market(text: &str) -> String {
    text.trim().to_ascii_uppercase()
}

/// The kind's name (`open_long`), or its code when unknown.
pub(crate) fn side(s: &sw::OrderSide) -> String {
    match s {
        sw::OrderSide::OpenLong => "open_long".to_owned(),
        sw::OrderSide::OpenShort => "open_short".to_owned(),
        sw::OrderSide::CloseLong => "close_long".to_owned(),
        sw::OrderSide::CloseShort => "close_short".to_owned(),
        other => other.to_string(),
    }
}

fn status(s: &sw::OrderState) -> Option<OrderStatus> {
    match s {
        sw::OrderState::Open | sw::OrderState::PartFilled => Some(OrderStatus::Open),
        sw::OrderState::Filled => Some(OrderStatus::Filled),
        sw::OrderState::Canceled => Some(OrderStatus::Cancelled),
        _ => None,
    }
}

/// An order of a REST read.
pub(crate) fn rest_order(o: &sw::Order) -> OrderObs {
    OrderObs {
        id: o.order_id.clone(),
        market: o.instrument_id.as_deref().map(market),
        side: o.side.as_ref().map(side),
        price: o.price.filter(|p| !p.is_zero()),
        amount: o.size,
        filled: o.filled_qty,
        status: o.state.as_ref().and_then(status),
    }
}

/// An `order.update` push.
pub(crate) fn push_order(o: &SwapOrder) -> OrderObs {
    OrderObs {
        id: o.order_id.clone(),
        market: o.instrument_id.as_deref().map(market),
        side: o.side.as_ref().map(side),
        price: o.price.filter(|p| !p.is_zero()),
        amount: o.size,
        filled: o.filled_qty,
        status: o.state.as_ref().and_then(status),
    }
}

/// The order a placement created (from the request).
pub(crate) fn placed(order: &sw::OrderSpec, id: &str) -> OrderObs {
    OrderObs {
        id: id.to_owned(),
        market: Some(market(order.instrument_id())),
        side: Some(side(order.side())),
        price: order.price().map(|p| p.get()),
        amount: Some(order.size().get()),
        filled: None,
        status: Some(OrderStatus::Open),
    }
}

/// A `history_trades` record.
pub(crate) fn rest_trade(f: &sw::Fill, fallback_market: &str) -> TradeObs {
    TradeObs {
        fill: Fill {
            trade_id: f.trade_id.clone(),
            order_id: f.order_id.clone(),
            market: f
                .instrument_id
                .as_deref()
                .map(market)
                .unwrap_or_else(|| fallback_market.to_owned()),
            side: f.side.as_ref().map(side),
            price: f.price,
            amount: f.size,
            time: f.trade_time,
            maker: f.match_role.as_ref().and_then(|r| r.code()).map(|c| c == 2),
        },
        fee: f.fee.map(|amount| Fee {
            amount,
            currency: None,
        }),
    }
}

/// A balance of `/swap/v2/account/balance`.
pub(crate) fn rest_balance(b: &sw::Balance) -> Balance {
    Balance::new(&b.currency, b.avail_balance, b.equity)
}

/// An `account.update` push.
pub(crate) fn push_balance(a: &SwapAccount) -> Balance {
    Balance::new(&a.currency, a.avail_balance, a.equity)
}

fn position_side(s: Option<&sw::PositionSide>) -> String {
    s.map(|s| s.as_str().to_ascii_lowercase())
        .unwrap_or_default()
}

/// A position of `/swap/v2/account/positions`.
pub(crate) fn rest_position(p: &sw::Position) -> Option<Position> {
    Some(Position {
        instrument_id: market(&p.instrument_id),
        side: position_side(p.side.as_ref()),
        size: p.position?,
        avg_cost: p.avg_cost,
        margin_mode: p.margin_mode.as_ref().map(|m| m.as_str().to_owned()),
    })
}

/// A `position.update` push.
pub(crate) fn push_position(p: &SwapPosition) -> Option<Position> {
    Some(Position {
        instrument_id: market(&p.instrument_id),
        side: position_side(p.side.as_ref()),
        size: p.position?,
        avg_cost: p.avg_cost,
        margin_mode: p.margin_mode.as_ref().map(|m| m.as_str().to_owned()),
    })
}

/// The open orders of `instrument`.
pub(crate) fn open_read(instrument: &str) -> sw::OpenOrdersRequest {
    sw::OpenOrdersRequest::new()
        .instrument_id(instrument)
        .limit(PAGE)
}

/// Fills of `instrument` from `start` (ms) to `end` (ms, when paging back).
pub(crate) fn trades_read(
    instrument: &str,
    start: i64,
    end: Option<i64>,
) -> sw::HistoryTradesRequest {
    let mut r = sw::HistoryTradesRequest::new()
        .instrument_id(instrument)
        .limit(PAGE)
        .start_timestamp(TimestampMillis(start));
    if let Some(end) = end {
        r = r.end_timestamp(TimestampMillis(end.max(start.saturating_add(1))));
    }
    r
}
