//! Copy-trading writes: the reads they need and how the answers are matched (see the table in
//! the module documentation of [`super`]).

use rust_decimal::Decimal;

use super::spot::one;
use super::{assign, fits, fits_text, Candidate, Ctx, Elements, Read, Verdict, Write, PAGE};
use crate::swap::{
    self as sw, CopyCloseReason, CopyCurrentView, OrderState, PlanComType, TriggerPriceType,
};
use crate::types::TimestampMillis;
use crate::Price;

/// The reads a copy-trading write needs.
pub(super) fn reads(write: &Write) -> Vec<Read> {
    let current = |instrument: Option<&str>| {
        let mut q = sw::CopyCurrentRequest::new(CopyCurrentView::Detailed).size(PAGE);
        if let Some(i) = instrument {
            q = q.instrument_id(i);
        }
        Read::CopyCurrent(q)
    };
    let open = |instrument: Option<&str>| {
        let mut q = sw::ExpertOpenOrdersRequest::new().size(PAGE);
        if let Some(i) = instrument {
            q = q.instrument_id(i);
        }
        Read::ExpertOpenOrders(q)
    };
    let history = |instrument: Option<&str>| {
        let mut q = sw::CopyHistoryRequest::new().size(PAGE);
        if let Some(i) = instrument {
            q = q.instrument_id(i);
        }
        Read::CopyHistory(q)
    };
    match write {
        Write::Sponsor(r) => {
            let i = Some(r.instrument_id.as_str());
            vec![open(i), current(i), history(i)]
        }
        Write::CopyClose(_) => vec![current(None), history(None), open(None)],
        Write::CopyCancel(r) => vec![
            open(None),
            Read::SwapOrderInfo(sw::OrderInfoRequest::new(r.order_id.as_str())),
        ],
        Write::AddAlgo(_) => vec![
            current(None),
            open(None),
            Read::PlanTasks(sw::PlanTaskRequest::new(1, PAGE)),
        ],
        Write::CancelAlgo(_) => vec![current(None), open(None)],
        _ => Vec::new(),
    }
}

/// The verdicts on a copy-trading write.
pub(super) fn judge(write: &Write, c: &Ctx<'_>) -> Vec<Verdict> {
    vec![match write {
        Write::Sponsor(r) => sponsor(c, r),
        Write::CopyClose(r) => close(c, &r.open_order_id),
        Write::CopyCancel(r) => cancel(c, r.order_id.as_str()),
        Write::AddAlgo(r) => add_algo(c, r),
        Write::CancelAlgo(r) => cancel_algo(c, r),
        _ => Verdict::ambiguous(Vec::new(), "not a copy-trading write"),
    }]
}

fn lev_fits(record: Option<Decimal>, want: Decimal) -> bool {
    record.is_none_or(|l| l.normalize() == want.normalize())
}

/// `Some(creation time)` when a record may be in the window (`Some(None)`: no time to tell).
fn timed(c: &Ctx<'_>, at: Option<TimestampMillis>) -> Option<Option<TimestampMillis>> {
    match at {
        Some(t) if !c.window.contains_ms(t) => None,
        other => Some(other),
    }
}

fn sponsor(c: &Ctx<'_>, r: &sw::SponsorOrderRequest) -> Verdict {
    let direction = r.side.order_side();
    let price_type = r.pricing.price_type();
    let price = r.pricing.price().map(Price::get);
    let size = r.order_num.get();
    let mut cands: Vec<Candidate> = Vec::new();
    let push = |cands: &mut Vec<Candidate>, id: &str, record: String, at| {
        if !c.known.contains(id) && !cands.iter().any(|x| x.id == id) {
            cands.push(Candidate::ms(id, record, at));
        }
    };
    for o in &c.facts.expert_open {
        let ok = fits_text(o.instrument_name.as_deref(), &r.instrument_id)
            && fits(o.direction.as_ref(), &direction)
            && lev_fits(o.leverage, r.leverage)
            && fits(o.margin_mode.as_ref(), &r.margin_mode)
            && fits(o.order_price_type.as_ref(), &price_type)
            && price.is_none_or(|p| o.order_price.is_none_or(|x| x.normalize() == p.normalize()))
            && o.commission_amount
                .is_none_or(|x| x.normalize() == size.normalize());
        if let (true, Some(at)) = (ok, timed(c, o.order_time)) {
            let record = format!(
                "open sponsored order {} on {}, status {}",
                o.order_id,
                r.instrument_id,
                o.status
                    .as_ref()
                    .map_or_else(|| "unknown".to_owned(), |s| s.to_string())
            );
            push(&mut cands, &o.order_id, record, at);
        }
    }
    for p in &c.facts.copy_current {
        let ok = fits_text(p.instrument_name.as_deref(), &r.instrument_id)
            && fits(p.direction.as_ref(), &direction)
            && lev_fits(p.leverage, r.leverage)
            && fits(p.margin_mode.as_ref(), &r.margin_mode)
            && p.volume_total_original
                .is_none_or(|v| v > Decimal::ZERO && v <= size);
        if let (true, Some(at)) = (ok, timed(c, p.open_time)) {
            let record = format!(
                "copy position {} on {}: {} filled",
                p.order_id,
                r.instrument_id,
                p.volume_total_original
                    .map(|v| v.to_string())
                    .unwrap_or_default()
            );
            push(&mut cands, &p.order_id, record, at);
        }
    }
    for h in &c.facts.copy_history {
        let ok = fits_text(h.instrument_name.as_deref(), &r.instrument_id)
            && fits(h.direction.as_ref(), &direction)
            && lev_fits(h.leverage, r.leverage)
            && fits(h.margin_mode.as_ref(), &r.margin_mode);
        if let (true, Some(at)) = (ok, timed(c, h.open_time)) {
            let record = format!(
                "copy position {} on {}, already closed",
                h.order_id, r.instrument_id
            );
            push(&mut cands, &h.order_id, record, at);
        }
    }
    one(assign(
        c,
        1,
        cands,
        "no sponsored order or copy position of this instrument, direction, leverage and margin \
         mode was created in the window (an order that ended without any fill leaves none)",
        Elements::Together,
    ))
}

fn close(c: &Ctx<'_>, id: &str) -> Verdict {
    if let Some(h) = c.facts.copy_history.iter().find(|h| h.order_id == id) {
        let reason = h.status.clone();
        let closed_in_window = h.close_time.is_none_or(|t| c.window.contains_ms(t));
        let at = h
            .close_time
            .map(|t| format!(" at {}", t.0))
            .unwrap_or_default();
        return match reason {
            Some(CopyCloseReason::Manual) if closed_in_window => {
                Verdict::applied(id, format!("copy position {id} closed manually{at}"))
            }
            Some(CopyCloseReason::Manual) => Verdict::not_applied(format!(
                "copy position {id} was closed before this request{at}: nothing to close"
            )),
            Some(other) => Verdict::not_applied(format!(
                "copy position {id} was already closed{at} (reason {other}): nothing to close"
            )),
            None => Verdict::ambiguous(
                vec![id.to_owned()],
                format!("copy position {id} is closed{at} without a readable reason"),
            ),
        };
    }
    if let Some(p) = c.facts.copy_current.iter().find(|p| p.order_id == id) {
        return if p.is_closing == Some(true) {
            Verdict::applied(id, format!("copy position {id} is closing"))
        } else {
            Verdict::not_applied(format!("copy position {id} is still open"))
        };
    }
    if c.facts.expert_open.iter().any(|o| o.order_id == id) {
        return Verdict::not_applied(format!(
            "sponsored order {id} is still open with nothing filled"
        ));
    }
    Verdict::not_applied(format!(
        "no open copy position or order {id}: nothing is left to close (a resend would be \
         refused with 404012 or 404013)"
    ))
}

fn cancel(c: &Ctx<'_>, id: &str) -> Verdict {
    if let Some(o) = c.facts.swap_orders.iter().find(|o| o.order_id == id) {
        return match &o.state {
            Some(OrderState::Canceled) => Verdict::applied(
                id,
                format!("sponsored order {}", super::swap::describe_order(o)),
            ),
            _ => super::swap::cancel(c, id),
        };
    }
    if c.facts.expert_open.iter().any(|o| o.order_id == id) {
        return Verdict::not_applied(format!("sponsored order {id} is still open"));
    }
    Verdict::ambiguous(
        vec![id.to_owned()],
        format!("sponsored order {id} is neither open nor readable by id"),
    )
}

/// The trigger prices and types a copy position or open order shows.
struct Plans {
    take_profit: Option<(Decimal, Option<TriggerPriceType>)>,
    stop_loss: Option<(Decimal, Option<TriggerPriceType>)>,
}

fn holder(c: &Ctx<'_>, id: &str) -> Option<Plans> {
    if let Some(p) = c.facts.copy_current.iter().find(|p| p.order_id == id) {
        return Some(Plans {
            take_profit: p
                .stop_earn_trigger_price
                .map(|x| (x, p.stop_earn_trigger_price_type.clone())),
            stop_loss: p
                .stop_loss_trigger_price
                .map(|x| (x, p.stop_loss_trigger_price_type.clone())),
        });
    }
    c.facts
        .expert_open
        .iter()
        .find(|o| o.order_id == id)
        .map(|o| Plans {
            take_profit: o
                .stop_earn_trigger_price
                .map(|x| (x, o.stop_earn_trigger_price_type.clone())),
            stop_loss: o
                .stop_loss_trigger_price
                .map(|x| (x, o.stop_loss_trigger_price_type.clone())),
        })
}

/// Whether a shown plan is the wanted one (price; type when given and shown).
fn shows(
    shown: &Option<(Decimal, Option<TriggerPriceType>)>,
    price: Decimal,
    kind: Option<&TriggerPriceType>,
) -> bool {
    shown.as_ref().is_some_and(|(p, t)| {
        p.normalize() == price.normalize()
            && match (kind, t) {
                (Some(k), Some(t)) => k == t,
                _ => true,
            }
    })
}

fn add_algo(c: &Ctx<'_>, r: &sw::AddAlgoRequest) -> Verdict {
    let Some(id) = r.order_id.as_deref() else {
        return Verdict::ambiguous(Vec::new(), "the request names no order_id");
    };
    let wanted: Vec<(PlanComType, Decimal, Option<&TriggerPriceType>)> = [
        r.profit_trigger_price.map(|p| {
            (
                PlanComType::StopProfit,
                p.get(),
                r.profit_trigger_type.as_ref(),
            )
        }),
        r.stop_trigger_price
            .map(|p| (PlanComType::StopLoss, p.get(), r.stop_trigger_type.as_ref())),
    ]
    .into_iter()
    .flatten()
    .collect();
    if wanted.is_empty() {
        return Verdict::not_applied("the request sets no trigger price: nothing to add");
    }
    // Plans created in the window for each wanted kind and price.
    let plans: Vec<Vec<&sw::PlanCommission>> = wanted
        .iter()
        .map(|(kind, price, _)| {
            c.facts
                .plans
                .iter()
                .filter(|p| !c.known.contains(&p.order_id))
                .filter(|p| p.com_type.as_ref() == Some(kind))
                .filter(|p| {
                    p.trigger_price
                        .is_some_and(|x| x.normalize() == price.normalize())
                })
                .filter(|p| p.order_time.is_none_or(|t| c.window.contains_ms(t)))
                .collect()
        })
        .collect();
    let plan_ids = || -> Option<String> {
        let ids: Option<Vec<&str>> = plans
            .iter()
            .map(|found| match found.as_slice() {
                [one] => Some(one.order_id.as_str()),
                _ => None,
            })
            .collect();
        ids.map(|ids| ids.join(","))
    };
    let describe = || {
        wanted
            .iter()
            .map(|(kind, price, _)| match kind {
                PlanComType::StopProfit => format!("take-profit at {price}"),
                _ => format!("stop-loss at {price}"),
            })
            .collect::<Vec<_>>()
            .join(" and ")
    };
    match holder(c, id) {
        Some(shown) => {
            let each: Vec<bool> = wanted
                .iter()
                .map(|(kind, price, t)| match kind {
                    PlanComType::StopProfit => shows(&shown.take_profit, *price, *t),
                    _ => shows(&shown.stop_loss, *price, *t),
                })
                .collect();
            if each.iter().all(|x| *x) {
                Verdict::Applied {
                    id: plan_ids(),
                    record: format!("order {id} shows the {}", describe()),
                }
            } else if each.iter().any(|x| *x) {
                Verdict::ambiguous(
                    Vec::new(),
                    format!("order {id} shows only part of the {}", describe()),
                )
            } else {
                Verdict::not_applied(format!("order {id} does not show the {}", describe()))
            }
        }
        None if plans.iter().all(|found| !found.is_empty()) => Verdict::Applied {
            id: plan_ids(),
            record: format!(
                "plans for the {} were created in the window; order {id} has no open position \
                 any more",
                describe()
            ),
        },
        None => Verdict::not_applied(format!(
            "order {id} has no open copy position or order and no such plan was created: \
             nothing to attach to"
        )),
    }
}

fn cancel_algo(c: &Ctx<'_>, r: &sw::CancelAlgoRequest) -> Verdict {
    let Some(id) = r.order_id.as_deref() else {
        return Verdict::ambiguous(Vec::new(), "the request names no order_id");
    };
    let tp = r.cancel_take_profit.is_some_and(|f| f.0);
    let sl = r.cancel_stop_loss.is_some_and(|f| f.0);
    if !tp && !sl {
        return Verdict::not_applied("the request cancels no plan: nothing to do");
    }
    match holder(c, id) {
        Some(shown) => {
            let mut left = Vec::new();
            if tp {
                if let Some((p, _)) = shown.take_profit {
                    left.push(format!("take-profit at {p}"));
                }
            }
            if sl {
                if let Some((p, _)) = shown.stop_loss {
                    left.push(format!("stop-loss at {p}"));
                }
            }
            if left.is_empty() {
                Verdict::Applied {
                    id: None,
                    record: format!(
                        "order {id} shows no {}",
                        match (tp, sl) {
                            (true, true) => "take-profit or stop-loss",
                            (true, false) => "take-profit",
                            _ => "stop-loss",
                        }
                    ),
                }
            } else {
                Verdict::not_applied(format!("order {id} still shows the {}", left.join(" and ")))
            }
        }
        None => Verdict::not_applied(format!(
            "order {id} has no open copy position or order: its plans ended with it, nothing \
             to cancel"
        )),
    }
}
