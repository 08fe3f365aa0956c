//! Rules of one swap instrument, from `/swap/v2/public/instruments`.

use rust_decimal::Decimal;

use super::{round_price, Checks, Grid, Rounding, Rule, RuleError, Side};
use crate::error::Error;
use crate::money::{Price, Size};
use crate::swap::PlaceOrderRequest;
use crate::swap::{Instrument, InstrumentStatus, OrderPricing, OrderSide, OrderSpec};

/// The trading rules of one swap instrument: tick size and price precision, minimum size,
/// contract value (and whether the contract is inverse), trading status and the open-value caps
/// of `open_max_limits`.
///
/// DESIGN:
/// - Sizes are whole contracts (the venue's books and the simulator count integer contracts;
///   a fraction is refused with 400002).
/// - A price must be a multiple of `tick_size` and have at most `price_precision` places
///   (401007); rounding uses the tick when stated, else the precision.
/// - `open_max_limits`: an entry caps the open value of positions whose leverage is *above*
///   its `leverage`; with several such entries the smallest cap applies (401002). The open
///   value of a linear contract is `size * contract_value * price`; of an inverse one
///   `size * contract_value` (in the quote currency).
/// - Not trading: `status` OFFLINE or DELIVERY, or `is_trading` false (401004).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapRules {
    /// The instrument (`BTCUSDTPERP`).
    pub instrument_id: String,
    /// The tick: prices are multiples of it.
    pub tick: Option<Grid>,
    /// The precision grid (`10^-price_precision`).
    pub precision: Option<Grid>,
    /// Minimum size in contracts.
    pub min_size: Option<Decimal>,
    /// Base quantity (linear) or quote value (inverse) of one contract.
    pub contract_value: Option<Decimal>,
    /// Whether the contract is inverse (valued in the quote currency).
    pub inverse: bool,
    /// Whether the instrument trades now (`None`: not stated).
    pub trading: Option<bool>,
    /// `(leverage, cap)`: above `leverage`, the open value may not exceed `cap`.
    pub open_max_limits: Vec<(Decimal, Decimal)>,
}

/// What the open-value cap needs to know about the account: the leverage of the position the
/// order opens into and that position's open value (with its open orders) now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Exposure {
    /// The position's leverage.
    pub leverage: Decimal,
    /// The open value already held and ordered on that side, in the quote currency.
    pub open_value: Decimal,
}

fn whole() -> Grid {
    Grid::places(0)
}

impl SwapRules {
    /// The rules stated by one instrument.
    pub fn from_instrument(i: &Instrument) -> SwapRules {
        let status_trades = i
            .status
            .as_ref()
            .map(|s| !matches!(s, InstrumentStatus::Offline | InstrumentStatus::Delivery));
        let trading = match (status_trades, i.is_trading) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (None, None) => None,
            _ => Some(true),
        };
        SwapRules {
            instrument_id: i.instrument_id.clone(),
            tick: i.tick_size.and_then(Grid::new),
            precision: i.price_precision.map(Grid::places),
            min_size: i.min_order_amount,
            contract_value: i.contract_value.filter(|v| *v > Decimal::ZERO),
            inverse: i.is_inverse.unwrap_or(false),
            trading,
            open_max_limits: i
                .open_max_limits
                .iter()
                .filter_map(|l| l.max_limit.map(|m| (l.leverage, m)))
                .collect(),
        }
    }

    fn err(&self, field: &'static str, rule: Rule, code: i64) -> RuleError {
        RuleError::new(field, &self.instrument_id, rule, code)
    }

    /// The cap on the open value at `leverage`, if any entry applies.
    pub fn open_cap(&self, leverage: Decimal) -> Option<Decimal> {
        self.open_max_limits
            .iter()
            .filter(|(l, _)| leverage > *l)
            .map(|(_, cap)| *cap)
            .min()
    }

    /// The open value of `size` contracts at `price`, in the quote currency (`None` without a
    /// contract value or on overflow).
    pub fn value(&self, size: Size, price: Price) -> Option<Decimal> {
        let cv = self.contract_value?;
        let base = size.get().checked_mul(cv)?;
        if self.inverse {
            Some(base)
        } else {
            base.checked_mul(price.get())
        }
    }

    /// The base quantity of `size` contracts at `price` (`price` matters only for inverse
    /// contracts; `None` without a contract value).
    pub fn base_quantity(&self, size: Size, price: Price) -> Option<Decimal> {
        let cv = self.contract_value?;
        let v = size.get().checked_mul(cv)?;
        if self.inverse {
            if price.get() <= Decimal::ZERO {
                return None;
            }
            v.checked_div(price.get())
        } else {
            Some(v)
        }
    }

    /// The whole number of contracts for `base` units of the base currency at `price`,
    /// truncated (never more than asked); refused when it is below the minimum size.
    pub fn contracts(&self, base: Decimal, price: Price) -> Result<Size, RuleError> {
        let min = self.min_size.unwrap_or(Decimal::ONE).max(Decimal::ONE);
        let too_small = || {
            self.err("size", Rule::MinSize { min }, 401006)
                .value(Decimal::ZERO)
                .nearest(None, min)
        };
        let Some(cv) = self.contract_value else {
            return Err(too_small());
        };
        let raw = if self.inverse {
            base.checked_mul(price.get())
                .and_then(|v| v.checked_div(cv))
        } else {
            base.checked_div(cv)
        };
        let n = raw
            .and_then(|v| whole().truncate(v))
            .unwrap_or(Decimal::ZERO);
        if n < min {
            return Err(too_small().value(n));
        }
        Ok(Size::new(n))
    }

    /// `price` on the tick for an order on `side`, rounded per `mode`.
    pub fn round_price(
        &self,
        price: Price,
        side: &OrderSide,
        mode: Rounding,
    ) -> Result<Price, RuleError> {
        let Some(grid) = self.tick.or(self.precision) else {
            return Ok(price);
        };
        round_price(
            &grid,
            price.get(),
            side_of(side),
            mode,
            "price",
            &self.instrument_id,
            401007,
        )
        .map(Price::new)
    }

    /// The order with its price (if it has one) rounded per `mode` and its size truncated to
    /// whole contracts.
    pub fn round(&self, order: &OrderSpec, mode: Rounding) -> Result<OrderSpec, RuleError> {
        let size = match whole().truncate(order.size().get()) {
            Some(s) if s > Decimal::ZERO => Size::new(s),
            _ => {
                let min = self.min_size.unwrap_or(Decimal::ONE).max(Decimal::ONE);
                return Err(self
                    .err("size", Rule::MinSize { min }, 401006)
                    .value(order.size().get())
                    .nearest(None, min));
            }
        };
        let side = order.side();
        let price = |p: Price| self.round_price(p, side, mode);
        let pricing = match *order.pricing() {
            OrderPricing::Limit {
                price: p,
                post_only,
            } => OrderPricing::Limit {
                price: price(p)?,
                post_only,
            },
            OrderPricing::IocCustomPrice(p) => OrderPricing::IocCustomPrice(price(p)?),
            OrderPricing::FokCustomPrice(p) => OrderPricing::FokCustomPrice(price(p)?),
            OrderPricing::Market(style) => OrderPricing::Market(style),
        };
        Ok(OrderSpec::new(
            order.instrument_id(),
            side.clone(),
            size,
            pricing,
        ))
    }

    /// Refuses `order` as the venue would, naming the first broken rule (see the module's
    /// order of checks). The open-value cap is checked for opening orders when `exposure` is
    /// given, at the order's price or, for a market-style order, at `reference` (the mark or
    /// best price).
    pub fn check(
        &self,
        order: &OrderSpec,
        exposure: Option<&Exposure>,
        reference: Option<Price>,
    ) -> Result<(), RuleError> {
        if self.trading == Some(false) {
            return Err(self.err("instrument_id", Rule::NotTrading, 401004));
        }
        let size = order.size().get();
        if !whole().contains(size) {
            let (below, above) = whole().around(size).unwrap_or((size, size));
            return Err(self
                .err("size", Rule::Amount { step: Decimal::ONE }, 400002)
                .value(size)
                .nearest((below > Decimal::ZERO).then_some(below), above));
        }
        if let Some(min) = self.min_size {
            if size < min {
                return Err(self
                    .err("size", Rule::MinSize { min }, 401006)
                    .value(size)
                    .nearest(None, whole().up(min).unwrap_or(min)));
            }
        }
        if let Some(p) = order.price() {
            for grid in [self.tick, self.precision].into_iter().flatten() {
                if !grid.contains(p.get()) {
                    let step = self.tick.unwrap_or(grid).step();
                    let g = self.tick.unwrap_or(grid);
                    let mut e = self
                        .err("price", Rule::Price { step }, 401007)
                        .value(p.get());
                    if let Some((below, above)) = g.around(p.get()) {
                        e = e.nearest((below > Decimal::ZERO).then_some(below), above);
                    }
                    return Err(e);
                }
            }
        }
        let opening = matches!(order.side(), OrderSide::OpenLong | OrderSide::OpenShort);
        if let (true, Some(x)) = (opening, exposure) {
            let price = order.price().or(reference);
            let cap = self.open_cap(x.leverage);
            let value = price.and_then(|p| self.value(order.size(), p));
            if let (Some(cap), Some(value)) = (cap, value) {
                let total = x.open_value.checked_add(value).unwrap_or(Decimal::MAX);
                if total > cap {
                    return Err(self
                        .err(
                            "size",
                            Rule::OpenValue {
                                leverage: x.leverage,
                                max: cap,
                                value: total,
                            },
                            401002,
                        )
                        .value(size));
                }
            }
        }
        Ok(())
    }
}

fn side_of(side: &OrderSide) -> Side {
    match side {
        OrderSide::OpenLong | OrderSide::CloseShort => Side::Buy,
        _ => Side::Sell,
    }
}

/// The order checked against its market's rules: written here, beside the rules, so that the
/// swap requests name no rule.
impl PlaceOrderRequest {
    /// This request checked against the instrument's `rules` (after rounding, when
    /// `checks.round` is set; the open-value cap when `checks.exposure` is given): the request
    /// to send, or the broken rule ([`Error::Rule`]) with the venue's code.
    ///
    /// # Examples
    ///
    /// ```
    /// use digifinex_core::rules::{Checks, Rounding, SwapRules};
    /// use digifinex_core::swap::{Instrument, OrderSide, OrderSpec, PlaceOrderRequest};
    /// use digifinex_core::Size;
    /// let inst: Instrument = serde_json::from_str(
    ///     r#"{"instrument_id":"BTCUSDTPERP","tick_size":"0.1","price_precision":1,"min_order_amount":"1"}"#,
    /// )?;
    /// let rules = SwapRules::from_instrument(&inst);
    /// let req = PlaceOrderRequest::new(OrderSpec::limit("BTCUSDTPERP", OrderSide::OpenShort, Size::ONE, "30000.04".parse()?));
    /// let err = req.checked(&rules, &Checks::strict()).unwrap_err();
    /// assert!(err.to_string().contains("401007"));
    /// let sent = req.checked(&rules, &Checks::rounding(Rounding::Passive))?;
    /// assert_eq!(sent.order().price().map(|p| p.to_string()), Some("30000.1".to_owned()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn checked(&self, rules: &SwapRules, checks: &Checks) -> Result<PlaceOrderRequest, Error> {
        let order = match checks.round {
            Some(mode) => rules.round(self.order(), mode)?,
            None => self.order().clone(),
        };
        rules.check(&order, checks.exposure.as_ref(), checks.reference)?;
        Ok(PlaceOrderRequest::new(order))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swap::MarketStyle;

    fn d(s: &str) -> Decimal {
        s.parse().expect("decimal")
    }

    fn rules(inverse: bool) -> SwapRules {
        let text = format!(
            r#"{{"instrument_id":"BTCUSDTPERP","type":"REAL","contract_value":"0.001",
                "is_inverse":{inverse},"is_trading":1,"status":"ONLINE","price_precision":1,
                "tick_size":"0.5","min_order_amount":"2",
                "open_max_limits":[{{"leverage":"20","max_limit":"1000000"}},
                                   {{"leverage":"50","max_limit":"200000"}}]}}"#
        );
        let i: Instrument = serde_json::from_str(&text).expect("instrument");
        SwapRules::from_instrument(&i)
    }

    fn limit(side: OrderSide, size: &str, price: &str) -> OrderSpec {
        OrderSpec::limit(
            "BTCUSDTPERP",
            side,
            Size::new(d(size)),
            Price::new(d(price)),
        )
    }

    #[test]
    fn each_rule_with_its_code() {
        let r = rules(false);
        let code = |o: &OrderSpec, x: Option<&Exposure>| r.check(o, x, None).map_err(|e| e.code());
        assert_eq!(
            code(&limit(OrderSide::OpenLong, "1.5", "100"), None),
            Err(Some(400002))
        );
        assert_eq!(
            code(&limit(OrderSide::OpenLong, "1", "100"), None),
            Err(Some(401006))
        );
        let e = r
            .check(&limit(OrderSide::OpenLong, "2", "100.2"), None, None)
            .expect_err("tick");
        assert_eq!((e.code(), e.field), (Some(401007), "price"));
        assert_eq!(e.nearest, Some((Some(d("100")), d("100.5"))));
        assert_eq!(
            code(&limit(OrderSide::OpenLong, "2", "100.5"), None),
            Ok(())
        );
        // 60x: above 20 and 50, the smaller cap (200,000) applies.
        let x = Exposure {
            leverage: d("60"),
            open_value: d("199990"),
        };
        // 2 contracts * 0.001 * 30000 = 60 -> 200,050 > 200,000.
        let e = r
            .check(&limit(OrderSide::OpenLong, "2", "30000"), Some(&x), None)
            .expect_err("cap");
        assert_eq!(e.code(), Some(401002));
        assert_eq!(
            e.rule,
            Rule::OpenValue {
                leverage: d("60"),
                max: d("200000"),
                value: d("200050.000")
            }
        );
        // Closing never hits the cap; 20x exactly is not above 20.
        assert_eq!(
            code(&limit(OrderSide::CloseShort, "2", "30000"), Some(&x)),
            Ok(())
        );
        let at20 = Exposure {
            leverage: d("20"),
            open_value: d("10000000"),
        };
        assert_eq!(
            code(&limit(OrderSide::OpenLong, "2", "30000"), Some(&at20)),
            Ok(())
        );
        // Market-style orders use the reference price.
        let m = OrderSpec::market(
            "BTCUSDTPERP",
            OrderSide::OpenShort,
            Size::new(d("2")),
            MarketStyle::IocOpponent,
        );
        assert_eq!(r.check(&m, Some(&x), None), Ok(()));
        assert_eq!(
            r.check(&m, Some(&x), Some(Price::new(d("30000"))))
                .map_err(|e| e.code()),
            Err(Some(401002))
        );
        let mut off = r.clone();
        off.trading = Some(false);
        assert_eq!(
            off.check(&limit(OrderSide::OpenLong, "2", "100"), None, None)
                .map_err(|e| e.code()),
            Err(Some(401004))
        );
    }

    #[test]
    fn rounding_and_contracts() {
        let r = rules(false);
        let o = r
            .round(
                &limit(OrderSide::OpenLong, "2.7", "100.7"),
                Rounding::Passive,
            )
            .expect("rounded");
        assert_eq!(
            (o.size(), o.price()),
            (Size::new(d("2")), Some(Price::new(d("100.5"))))
        );
        let o = r
            .round(
                &limit(OrderSide::OpenShort, "3", "100.2"),
                Rounding::Passive,
            )
            .expect("rounded");
        assert_eq!(o.price(), Some(Price::new(d("100.5"))));
        let o = r
            .round(
                &limit(OrderSide::CloseShort, "3", "100.2"),
                Rounding::Passive,
            )
            .expect("rounded");
        assert_eq!(o.price(), Some(Price::new(d("100"))));
        // 0.0057 BTC at 0.001 per contract: 5 contracts (truncated).
        assert_eq!(
            r.contracts(d("0.0057"), Price::new(d("30000"))),
            Ok(Size::new(d("5")))
        );
        assert_eq!(
            r.contracts(d("0.0015"), Price::new(d("30000")))
                .map_err(|e| e.code()),
            Err(Some(401006))
        );
        assert_eq!(
            r.base_quantity(Size::new(d("5")), Price::new(d("1"))),
            Some(d("0.005"))
        );
        assert_eq!(
            r.value(Size::new(d("5")), Price::new(d("30000"))),
            Some(d("150.000"))
        );
    }

    #[test]
    fn inverse_contracts() {
        let mut r = rules(true);
        r.contract_value = Some(d("100")); // 100 USD per contract
                                           // 0.01 BTC at 30,000 = 300 USD = 3 contracts.
        assert_eq!(
            r.contracts(d("0.01"), Price::new(d("30000"))),
            Ok(Size::new(d("3")))
        );
        assert_eq!(
            r.base_quantity(Size::new(d("3")), Price::new(d("30000"))),
            Some(d("0.01"))
        );
        assert_eq!(
            r.value(Size::new(d("3")), Price::new(d("30000"))),
            Some(d("300"))
        );
    }
}
