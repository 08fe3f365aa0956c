//! Swap writes: the reads they need and how the answers are matched (see the table in the
//! module documentation of [`super`]).

use rust_decimal::Decimal;

use super::spot::one;
use super::{
    assign, assign_elements, fits, fits_text, same, Candidate, Ctx, Elements, Read, Verdict, Write,
    PAGE,
};
use crate::swap::{
    self as sw, MarginAdjustment, MarginMode, OrderSide, OrderSpec, OrderState, OrderType,
    PositionSide, TransferRecordType, TransferType,
};
use crate::types::TimestampMillis;

/// The reads a swap write needs.
pub(super) fn reads(write: &Write, start: Option<TimestampMillis>) -> Vec<Read> {
    let orders = |instrument: &str| {
        let mut open = sw::OpenOrdersRequest::new()
            .instrument_id(instrument)
            .limit(PAGE);
        let mut history = sw::HistoryOrdersRequest::new()
            .instrument_id(instrument)
            .limit(PAGE);
        if let Some(s) = start {
            open = open.start_timestamp(s);
            history = history.start_timestamp(s);
        }
        vec![Read::SwapOpenOrders(open), Read::SwapHistoryOrders(history)]
    };
    let settings = |instrument: &str| {
        vec![
            Read::SwapPositions(sw::PositionsRequest::new().instrument_id(instrument)),
            Read::SwapOpenOrders(
                sw::OpenOrdersRequest::new()
                    .instrument_id(instrument)
                    .limit(PAGE),
            ),
        ]
    };
    match write {
        Write::SwapOrder(r) => orders(r.order.instrument_id()),
        Write::SwapBatch(r) => {
            let mut instruments: Vec<&str> = Vec::new();
            for o in r.orders.items() {
                if !instruments
                    .iter()
                    .any(|i| i.eq_ignore_ascii_case(o.instrument_id()))
                {
                    instruments.push(o.instrument_id());
                }
            }
            instruments.into_iter().flat_map(orders).collect()
        }
        Write::SwapCancel(r) => vec![Read::SwapOrderInfo(
            sw::OrderInfoRequest::new(&r.order_id).instrument_id(&r.instrument_id),
        )],
        Write::SwapBatchCancel(r) => r
            .orders
            .items()
            .iter()
            .map(|o| {
                Read::SwapOrderInfo(
                    sw::OrderInfoRequest::new(o.order_id()).instrument_id(o.instrument_id()),
                )
            })
            .collect(),
        Write::SwapTransfer(r) => {
            let mut q = sw::TransferRecordRequest::new()
                .currency(&r.currency)
                .limit(PAGE);
            if let Some(s) = start {
                q = q.start_timestamp(s);
            }
            vec![Read::SwapTransferRecords(q)]
        }
        Write::Leverage(r) => settings(&r.instrument_id),
        Write::PositionMode(r) => settings(&r.instrument_id),
        Write::PositionMargin(r) => vec![Read::SwapPositions(
            sw::PositionsRequest::new().instrument_id(&r.instrument_id),
        )],
        _ => Vec::new(),
    }
}

/// The verdicts on a swap write.
pub(super) fn judge(write: &Write, c: &Ctx<'_>) -> Vec<Verdict> {
    match write {
        Write::SwapOrder(r) => assign(
            c,
            1,
            order_candidates(c, &r.order),
            NO_ORDER,
            Elements::Together,
        ),
        Write::SwapBatch(r) => {
            let orders = r.orders.items();
            let keys: Vec<_> = orders.iter().map(order_key).collect();
            assign_elements(
                c,
                &keys,
                |i| {
                    orders
                        .get(i)
                        .map(|o| order_candidates(c, o))
                        .unwrap_or_default()
                },
                NO_ORDER,
                Elements::OneByOne,
            )
        }
        Write::SwapCancel(r) => vec![cancel(c, &r.order_id)],
        Write::SwapBatchCancel(r) => r
            .orders
            .items()
            .iter()
            .map(|o| cancel(c, o.order_id()))
            .collect(),
        Write::SwapTransfer(r) => vec![transfer(c, r)],
        Write::Leverage(r) => vec![leverage(c, r)],
        Write::PositionMode(r) => vec![position_mode(c, r)],
        Write::PositionMargin(r) => vec![position_margin(c, r)],
        _ => Vec::new(),
    }
}

const NO_ORDER: &str =
    "no order of this instrument, side, type, price and size was created in the window";

/// What an order is matched on (post-only is not in the records).
fn order_key(o: &OrderSpec) -> (String, OrderSide, OrderType, Option<Decimal>, Decimal) {
    (
        o.instrument_id().to_ascii_uppercase(),
        o.side().clone(),
        o.pricing().order_type(),
        o.price().map(|p| p.get().normalize()),
        o.size().get().normalize(),
    )
}

fn state_text(s: Option<&OrderState>) -> String {
    match s {
        Some(OrderState::Open) => "open".to_owned(),
        Some(OrderState::PartFilled) => "partly filled, open".to_owned(),
        Some(OrderState::Filled) => "filled".to_owned(),
        Some(OrderState::Canceled) => "canceled".to_owned(),
        Some(other) => format!("state {other}"),
        None => "state unknown".to_owned(),
    }
}

pub(super) fn describe_order(o: &sw::Order) -> String {
    let mut text = format!(
        "type {} size {} {} {}",
        o.side
            .as_ref()
            .map_or_else(|| "?".to_owned(), |s| s.to_string()),
        o.size.map(|s| s.to_string()).unwrap_or_default(),
        o.instrument_id.as_deref().unwrap_or("?"),
        state_text(o.state.as_ref())
    );
    if let Some(f) = o.filled_qty.filter(|f| !f.is_zero()) {
        text.push_str(&format!(", filled {f}"));
    }
    if let Some(t) = o.insert_time {
        text.push_str(&format!(", created {}", t.0));
    }
    text
}

fn order_candidates(c: &Ctx<'_>, spec: &OrderSpec) -> Vec<Candidate> {
    let order_type = spec.pricing().order_type();
    c.facts
        .swap_orders
        .iter()
        .filter(|o| !c.known.contains(&o.order_id))
        .filter(|o| fits_text(o.instrument_id.as_deref(), spec.instrument_id()))
        .filter(|o| o.side.as_ref() == Some(spec.side()))
        .filter(|o| fits(o.order_type.as_ref(), &order_type))
        .filter(|o| match spec.price() {
            Some(p) => same(o.price, p.get()),
            None => true,
        })
        .filter(|o| same(o.size, spec.size().get()))
        .filter(|o| o.insert_time.is_none_or(|t| c.window.contains_ms(t)))
        .map(|o| Candidate::ms(&o.order_id, describe_order(o), o.insert_time))
        .collect()
}

/// The verdict on cancelling `id`, from the order read by id.
pub(super) fn cancel(c: &Ctx<'_>, id: &str) -> Verdict {
    let Some(o) = c.facts.swap_orders.iter().find(|o| o.order_id == id) else {
        return Verdict::not_applied(format!(
            "the venue does not know order {id}: nothing to cancel"
        ));
    };
    match &o.state {
        Some(OrderState::Canceled) => Verdict::applied(id, describe_order(o)),
        Some(OrderState::Open | OrderState::PartFilled) => {
            Verdict::not_applied(format!("order {id} is still open ({})", describe_order(o)))
        }
        Some(OrderState::Filled) => {
            Verdict::not_applied(format!("already filled: nothing to cancel ({id})"))
        }
        _ => Verdict::ambiguous(
            vec![id.to_owned()],
            format!("order {id} has no readable state"),
        ),
    }
}

fn transfer(c: &Ctx<'_>, r: &sw::TransferRequest) -> Verdict {
    let direction = match r.transfer_type {
        TransferType::SpotToSwap => TransferRecordType::TransferIn,
        _ => TransferRecordType::TransferOut,
    };
    let cands: Vec<Candidate> = c
        .facts
        .transfers
        .iter()
        .filter(|t| !c.known.contains(&t.transfer_id))
        .filter(|t| fits(t.transfer_type.as_ref(), &direction))
        .filter(|t| fits_text(t.currency.as_deref(), &r.currency))
        .filter(|t| same(t.amount, r.amount.get()))
        .filter(|t| t.timestamp.is_none_or(|x| c.window.contains_ms(x)))
        .map(|t| {
            Candidate::ms(
                &t.transfer_id,
                format!(
                    "transfer {}: {} {} {}{}",
                    t.transfer_id,
                    match direction {
                        TransferRecordType::TransferIn => "in",
                        _ => "out",
                    },
                    r.amount,
                    r.currency,
                    t.timestamp
                        .map(|x| format!(" at {}", x.0))
                        .unwrap_or_default()
                ),
                t.timestamp,
            )
        })
        .collect();
    one(assign(
        c,
        1,
        cands,
        &format!(
            "no transfer of {} {} in this direction was recorded in the window",
            r.amount, r.currency
        ),
        Elements::Together,
    ))
}

/// The position side an order belongs to.
fn order_position_side(side: Option<&OrderSide>) -> Option<PositionSide> {
    match side? {
        OrderSide::OpenLong | OrderSide::CloseLong => Some(PositionSide::Long),
        OrderSide::OpenShort | OrderSide::CloseShort => Some(PositionSide::Short),
        _ => None,
    }
}

/// A setting as the positions and open orders of an instrument show it: `(where, value)`.
fn shown<T: Clone>(
    c: &Ctx<'_>,
    instrument: &str,
    side: Option<&PositionSide>,
    position_value: impl Fn(&sw::Position) -> Option<T>,
    order_value: impl Fn(&sw::Order) -> Option<T>,
) -> Vec<(String, T)> {
    let mut out = Vec::new();
    for p in c.facts.swap_positions.iter().flatten() {
        if !p.instrument_id.eq_ignore_ascii_case(instrument) {
            continue;
        }
        if side.is_some_and(|s| p.side.as_ref().is_some_and(|x| x != s)) {
            continue;
        }
        if let Some(v) = position_value(p) {
            let side = p.side.as_ref().map_or("", |s| s.as_str());
            out.push((format!("the {side} position"), v));
        }
    }
    for o in &c.facts.swap_open {
        if !fits_text(o.instrument_id.as_deref(), instrument) {
            continue;
        }
        if side.is_some_and(|s| order_position_side(o.side.as_ref()).is_some_and(|x| &x != s)) {
            continue;
        }
        if let Some(v) = order_value(o) {
            out.push((format!("open order {}", o.order_id), v));
        }
    }
    out
}

/// Applied when every place that shows the setting shows `want`; not applied when one shows
/// another value or none shows it.
fn setting_verdict<T: PartialEq + std::fmt::Display>(
    what: &str,
    instrument: &str,
    want: &T,
    shown: Vec<(String, T)>,
) -> Verdict {
    if let Some((place, v)) = shown.iter().find(|(_, v)| v != want) {
        return Verdict::not_applied(format!(
            "{place} on {instrument} shows {what} {v}, not {want}"
        ));
    }
    if shown.is_empty() {
        return Verdict::not_applied(format!(
            "no position or open order on {instrument} shows the {what}, so it cannot be read; \
             setting it again is harmless (it only sets the value)"
        ));
    }
    let places: Vec<&str> = shown.iter().map(|(p, _)| p.as_str()).collect();
    Verdict::Applied {
        id: None,
        record: format!(
            "{} on {instrument} show(s) {what} {want}",
            places.join(", ")
        ),
    }
}

fn leverage(c: &Ctx<'_>, r: &sw::LeverageRequest) -> Verdict {
    let lev = r.leverage.normalize();
    let mut values = shown(
        c,
        &r.instrument_id,
        r.side.as_ref(),
        |p| p.leverage.map(|l| l.normalize()),
        |o| o.leverage.map(|l| l.normalize()),
    );
    if let Some(mode) = &r.margin_mode {
        // A position in another margin mode is not what this leverage applies to: the venue
        // refuses a leverage for another mode than the current one.
        let other_mode = c
            .facts
            .swap_positions
            .iter()
            .flatten()
            .filter(|p| p.instrument_id.eq_ignore_ascii_case(&r.instrument_id))
            .find(|p| p.margin_mode.as_ref().is_some_and(|m| m != mode));
        if let Some(p) = other_mode {
            return Verdict::not_applied(format!(
                "the position on {} is in margin mode {}, not {}",
                r.instrument_id,
                p.margin_mode.as_ref().map_or("?", |m| m.as_str()),
                mode.as_str()
            ));
        }
    }
    values.dedup_by(|a, b| a.0 == b.0);
    setting_verdict("leverage", &r.instrument_id, &lev, values)
}

fn position_mode(c: &Ctx<'_>, r: &sw::PositionModeRequest) -> Verdict {
    let values = shown(
        c,
        &r.instrument_id,
        None,
        |p| p.margin_mode.clone().map(ModeText),
        |o| o.margin_mode.clone().map(ModeText),
    );
    setting_verdict(
        "margin mode",
        &r.instrument_id,
        &ModeText(r.margin_mode.clone()),
        values,
    )
}

/// A margin mode shown by its word.
#[derive(Clone, PartialEq)]
struct ModeText(MarginMode);

impl std::fmt::Display for ModeText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_str())
    }
}

fn position_margin(c: &Ctx<'_>, r: &sw::PositionMarginRequest) -> Verdict {
    let position = c
        .facts
        .swap_positions
        .iter()
        .flatten()
        .filter(|p| p.instrument_id.eq_ignore_ascii_case(&r.instrument_id))
        .find(|p| p.side.as_ref() == Some(&r.side));
    let Some(p) = position else {
        return Verdict::not_applied(format!(
            "no {} position on {}: nothing to adjust (a resend would be refused with 401017)",
            r.side.as_str(),
            r.instrument_id
        ));
    };
    let now = p.posi_balance.or(p.margin);
    let Some(before) = c.options.position_margin_before else {
        return Verdict::ambiguous(
            Vec::new(),
            format!(
                "the venue keeps no record of margin adjustments; the {} position's margin is \
                 now {}: give the margin known before the write \
                 (Options::position_margin_before) to decide",
                r.side.as_str(),
                now.map(|m| m.to_string())
                    .unwrap_or_else(|| "unknown".to_owned())
            ),
        );
    };
    let amount = r.amount.get();
    let expected = match r.adjustment.0 {
        MarginAdjustment::Add => before.checked_add(amount),
        _ => before.checked_sub(amount),
    };
    match (now, expected) {
        (Some(n), Some(e)) if n.normalize() == e.normalize() => Verdict::Applied {
            id: None,
            record: format!(
                "the {} position's margin moved from {before} to {n}",
                r.side.as_str()
            ),
        },
        (Some(n), _) if n.normalize() == before.normalize() => Verdict::not_applied(format!(
            "the {} position's margin is still {before}",
            r.side.as_str()
        )),
        (n, _) => Verdict::ambiguous(
            Vec::new(),
            format!(
                "the {} position's margin is {} while {before} (unchanged) or {} (adjusted) was \
                 expected: something else changed it",
                r.side.as_str(),
                n.map(|m| m.to_string())
                    .unwrap_or_else(|| "unknown".to_owned()),
                expected.map(|m| m.to_string()).unwrap_or_default()
            ),
        ),
    }
}
