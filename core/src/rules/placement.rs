//! Checking an order placement held as a [`Write`] (what the `digifinex` CLI and other generic
//! callers hold): a spot order or batch against its pair's rules, a swap order or batch against
//! each instrument's.

use super::{Checks, RuleError, SpotRules, SwapRules};
use crate::reconcile::Write;
use crate::{spot, swap};

/// The markets an order placement trades on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Markets {
    /// A spot pair (`btc_usdt`; a margin order trades on the spot pair's rules).
    Spot(String),
    /// Swap instruments, in the order of the batch, without repeats.
    Swap(Vec<String>),
    /// Not an order placement: nothing to check.
    None,
}

/// The markets `write` places orders on (see [`check_placement`]).
pub fn placement_markets(write: &Write) -> Markets {
    match write {
        Write::SpotOrder(r) => Markets::Spot(r.symbol.clone()),
        Write::SpotBatch(r) => Markets::Spot(r.symbol.clone()),
        Write::SwapOrder(r) => Markets::Swap(vec![r.order.instrument_id().to_owned()]),
        Write::SwapBatch(r) => {
            let mut ids: Vec<String> = Vec::new();
            for o in r.orders.items() {
                if !ids
                    .iter()
                    .any(|i| i.eq_ignore_ascii_case(o.instrument_id()))
                {
                    ids.push(o.instrument_id().to_owned());
                }
            }
            Markets::Swap(ids)
        }
        _ => Markets::None,
    }
}

/// An order of a placement that the rules refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refused {
    /// Its index in a batch (`None` for a single order).
    pub element: Option<usize>,
    /// The rule it breaks.
    pub error: RuleError,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.element {
            Some(i) => write!(f, "order [{i}] of the batch: {}", self.error),
            None => self.error.fmt(f),
        }
    }
}

impl std::error::Error for Refused {}

/// `write` checked against the rules, rounded first per `checks.round` (see
/// [`SpotRules::check`], [`SwapRules::check`]): the placement to send, or the first order the
/// rules refuse. `spot` holds the pair's rules for a spot placement, `swap` the instruments'
/// rules for a swap one (a market missing from them is not checked); other writes pass
/// unchanged.
///
/// ```
/// use digifinex_core::reconcile::Write;
/// use digifinex_core::rules::{check_placement, Checks, Rounding, SpotRules};
/// use digifinex_core::spot::{self, SymbolInfo};
/// let info: SymbolInfo = serde_json::from_str(
///     r#"{"symbol":"btc_usdt","price_precision":2,"amount_precision":4,"minimum_value":2}"#,
/// )?;
/// let rules = SpotRules::from_symbol(&info);
/// let batch = Write::SpotBatch(spot::BatchPlaceOrdersRequest::new(
///     spot::Market::Spot,
///     "btc_usdt",
///     [
///         spot::LimitOrder::buy("1".parse()?, "10".parse()?),
///         spot::LimitOrder::buy("1".parse()?, "10.005".parse()?),
///     ],
/// ));
/// let refused = check_placement(batch.clone(), Some(&rules), &[], &Checks::strict()).unwrap_err();
/// assert_eq!((refused.element, refused.error.code()), (Some(1), Some(20007)));
/// let rounded = check_placement(batch, Some(&rules), &[], &Checks::rounding(Rounding::Passive))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_placement(
    write: Write,
    spot: Option<&SpotRules>,
    swap: &[SwapRules],
    checks: &Checks,
) -> Result<Write, Refused> {
    let single = |error| Refused {
        element: None,
        error,
    };
    let at = |i: usize| {
        move |error| Refused {
            element: Some(i),
            error,
        }
    };
    let swap_rules = |id: &str| {
        swap.iter()
            .find(|r| r.instrument_id.eq_ignore_ascii_case(id))
    };
    Ok(match write {
        Write::SpotOrder(r) => match spot {
            None => Write::SpotOrder(r),
            Some(rules) => {
                let order = match checks.round {
                    Some(mode) => rules.round(&r.order, mode).map_err(single)?,
                    None => r.order,
                };
                rules.check(&order, checks.reference).map_err(single)?;
                Write::SpotOrder(spot::PlaceOrderRequest { order, ..r })
            }
        },
        Write::SpotBatch(r) => match spot {
            None => Write::SpotBatch(r),
            Some(rules) => {
                let mut orders = Vec::with_capacity(r.orders().len());
                for (i, o) in r.orders().iter().enumerate() {
                    let o = match checks.round {
                        Some(mode) => rules.round(o, mode).map_err(at(i))?,
                        None => *o,
                    };
                    rules.check(&o, None).map_err(at(i))?;
                    orders.push(o);
                }
                Write::SpotBatch(spot::BatchPlaceOrdersRequest::new(
                    r.market, &r.symbol, orders,
                ))
            }
        },
        Write::SwapOrder(r) => match swap_rules(r.order.instrument_id()) {
            None => Write::SwapOrder(r),
            Some(rules) => {
                let order = match checks.round {
                    Some(mode) => rules.round(&r.order, mode).map_err(single)?,
                    None => r.order,
                };
                rules
                    .check(&order, checks.exposure.as_ref(), checks.reference)
                    .map_err(single)?;
                Write::SwapOrder(swap::PlaceOrderRequest { order })
            }
        },
        Write::SwapBatch(r) => {
            let mut orders = Vec::with_capacity(r.orders.items().len());
            for (i, o) in r.orders.items().iter().enumerate() {
                let o = match swap_rules(o.instrument_id()) {
                    None => o.clone(),
                    Some(rules) => {
                        let o = match checks.round {
                            Some(mode) => rules.round(o, mode).map_err(at(i))?,
                            None => o.clone(),
                        };
                        rules.check(&o, None, None).map_err(at(i))?;
                        o
                    }
                };
                orders.push(o);
            }
            Write::SwapBatch(swap::BatchPlaceOrdersRequest::new(orders))
        }
        other => other,
    })
}
