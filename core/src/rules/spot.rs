//! Rules of one spot pair, from the symbol lists.

use rust_decimal::Decimal;

use super::{round_price, Checks, Grid, Rounding, Rule, RuleError, Side};
use crate::error::Error;
use crate::money::{Amount, Price};
use crate::spot::PlaceOrderRequest;
use crate::spot::{
    LimitOrder, MarketOrder, OrderSide, OrderSpec, SymbolInfo, SymbolOrderType, SymbolStatus,
};
use crate::types::Pair;

/// The trading rules of one spot pair: price and amount precision, minimum base amount and
/// minimum quote value,
/// whether it trades and allows API trading, and the order types it offers.
///
/// Built from a [`SymbolInfo`] row of `/trades/symbols` (the list with `is_allow`) or
/// `/spot/symbols`; a rule whose field the row lacks is not checked.
///
/// DESIGN:
/// - A market buy's `amount` is in the quote currency; it is held to the price precision (quote
///   amounts are written like prices) and checked against the value minimum only (its base
///   amount is unknown before it fills). A market sell is checked against the value minimum
///   only when a reference price (the best bid) is given.
/// - Status: `BREAK` (trading paused) and the words `SUSPEND`/`SUSPENDED` refuse orders; `HALT`
///   does not, because live answers have shown `HALT` for pairs that trade (ccxt's note on
///   `fetchMarketsV2`); the venue still decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotRules {
    /// The pair.
    pub pair: Pair,
    /// Prices must lie on this grid (`10^-price_precision`).
    pub price: Option<Grid>,
    /// Base amounts must lie on this grid (`10^-amount_precision`).
    pub amount: Option<Grid>,
    /// Minimum amount in the base currency (BTC of `btc_usdt`) of a limit order or market
    /// sell: the symbol list's `minimum_amount` (venue code 20009).
    pub min_base_amount: Option<Decimal>,
    /// Minimum order value in the quote currency (USDT of `btc_usdt`): price times amount, or a
    /// market buy's amount; the symbol list's `minimum_value` (venue code 20010). Not to be
    /// confused with [`crate::spot::MarketInfo::min_amount`], the venue's name for the same
    /// minimum value in `GET /v3/markets`.
    pub min_quote_value: Option<Decimal>,
    /// Whether the pair trades now (`None`: not stated).
    pub trading: Option<bool>,
    /// Whether API trading is allowed (`None`: not stated).
    pub api_tradable: Option<bool>,
    /// The order types offered (empty: not stated).
    pub order_types: Vec<SymbolOrderType>,
}

impl SpotRules {
    /// The rules stated by one symbol-list row.
    pub fn from_symbol(info: &SymbolInfo) -> SpotRules {
        let trading = info.status.as_ref().map(|s| match s {
            SymbolStatus::Break => false,
            SymbolStatus::Other(word) => {
                !word.eq_ignore_ascii_case("SUSPEND") && !word.eq_ignore_ascii_case("SUSPENDED")
            }
            _ => true,
        });
        SpotRules {
            pair: info.symbol.clone(),
            price: info.price_precision.map(Grid::places),
            amount: info.amount_precision.map(Grid::places),
            min_base_amount: info.minimum_amount,
            min_quote_value: info.minimum_value,
            trading,
            api_tradable: info.is_allow,
            order_types: info.order_types.clone(),
        }
    }

    fn market(&self) -> &str {
        self.pair.as_str()
    }

    fn err(&self, field: &'static str, rule: Rule, code: i64) -> RuleError {
        RuleError::new(field, self.market(), rule, code)
    }

    /// `price` on the price grid for an order on `side`, rounded per `mode`.
    pub fn round_price(
        &self,
        price: Price,
        side: OrderSide,
        mode: Rounding,
    ) -> Result<Price, RuleError> {
        let Some(grid) = self.price else {
            return Ok(price);
        };
        let side = match side {
            OrderSide::Buy => Side::Buy,
            OrderSide::Sell => Side::Sell,
        };
        round_price(
            &grid,
            price.get(),
            side,
            mode,
            "price",
            self.market(),
            20007,
        )
        .map(Price::new)
    }

    /// `amount` truncated to the amount grid (base currency); an amount that truncates to zero
    /// is refused as below the minimum.
    pub fn round_amount(&self, amount: Amount) -> Result<Amount, RuleError> {
        self.truncate(amount, self.amount, "amount")
    }

    fn truncate(
        &self,
        amount: Amount,
        grid: Option<Grid>,
        field: &'static str,
    ) -> Result<Amount, RuleError> {
        let Some(grid) = grid else {
            return Ok(amount);
        };
        match grid.truncate(amount.get()) {
            Some(v) if v > Decimal::ZERO => Ok(Amount::new(v)),
            _ => Err(self
                .err(
                    field,
                    Rule::MinBaseAmount {
                        min: self.min_base_amount.unwrap_or(grid.step()).max(grid.step()),
                    },
                    20009,
                )
                .value(amount.get())
                .nearest(
                    None,
                    self.min_base_amount.unwrap_or(grid.step()).max(grid.step()),
                )),
        }
    }

    /// A limit order with its price rounded per `mode` and its amount truncated to the step.
    pub fn round_limit(&self, order: LimitOrder, mode: Rounding) -> Result<LimitOrder, RuleError> {
        let price = self.round_price(order.price(), order.side(), mode)?;
        let amount = self.round_amount(order.amount())?;
        let rounded = LimitOrder::new(order.side(), amount, price);
        Ok(if order.is_post_only() {
            rounded.post_only()
        } else {
            rounded
        })
    }

    /// A market order with its amount truncated to the step (the price step for a market
    /// buy's quote amount).
    pub fn round_market(&self, order: MarketOrder) -> Result<MarketOrder, RuleError> {
        Ok(match order.side() {
            OrderSide::Buy => {
                MarketOrder::buy(self.truncate(order.amount(), self.price, "amount")?)
            }
            OrderSide::Sell => MarketOrder::sell(self.round_amount(order.amount())?),
        })
    }

    /// The order rounded (limit price per `mode`, amounts truncated to the step).
    pub fn round(&self, order: &OrderSpec, mode: Rounding) -> Result<OrderSpec, RuleError> {
        Ok(match order {
            OrderSpec::Limit(o) => OrderSpec::Limit(self.round_limit(*o, mode)?),
            OrderSpec::Market(o) => OrderSpec::Market(self.round_market(*o)?),
        })
    }

    /// Refuses `order` as the venue would, naming the first broken rule (see the module's
    /// order of checks). `reference` is the price a market sell is valued at (the best bid);
    /// without it a market sell's value is not checked.
    pub fn check(&self, order: &OrderSpec, reference: Option<Price>) -> Result<(), RuleError> {
        if self.api_tradable == Some(false) {
            return Err(self.err("symbol", Rule::NotApiTradable, 20042));
        }
        if self.trading == Some(false) {
            return Err(self.err("symbol", Rule::NotTrading, 20002));
        }
        let wanted = match order {
            OrderSpec::Limit(_) => SymbolOrderType::Limit,
            OrderSpec::Market(_) => SymbolOrderType::Market,
        };
        if !self.order_types.is_empty() && !self.order_types.contains(&wanted) {
            let offered = self
                .order_types
                .iter()
                .map(|t| t.as_str().to_owned())
                .collect();
            return Err(self.err("type", Rule::OrderType { offered }, 20012));
        }
        match order {
            OrderSpec::Limit(o) => {
                let price = o.price().get();
                let amount = o.amount().get();
                self.on_grid(self.price, price, "price", 20007, true)?;
                self.on_grid(self.amount, amount, "amount", 20008, false)?;
                self.at_least_min_base_amount(amount)?;
                self.at_least_min_quote_value(price.checked_mul(amount), Some(price))
            }
            OrderSpec::Market(o) => {
                let amount = o.amount().get();
                match o.side() {
                    OrderSide::Buy => {
                        self.on_grid(self.price, amount, "amount", 20008, false)?;
                        self.at_least_min_quote_value(Some(amount), None)
                    }
                    OrderSide::Sell => {
                        self.on_grid(self.amount, amount, "amount", 20008, false)?;
                        self.at_least_min_base_amount(amount)?;
                        let price = reference.map(Price::get);
                        match price {
                            Some(p) => {
                                self.at_least_min_quote_value(p.checked_mul(amount), Some(p))
                            }
                            None => Ok(()),
                        }
                    }
                }
            }
        }
    }

    fn on_grid(
        &self,
        grid: Option<Grid>,
        value: Decimal,
        field: &'static str,
        code: i64,
        is_price: bool,
    ) -> Result<(), RuleError> {
        let Some(grid) = grid else {
            return Ok(());
        };
        if grid.contains(value) {
            return Ok(());
        }
        let rule = if is_price {
            Rule::Price { step: grid.step() }
        } else {
            Rule::Amount { step: grid.step() }
        };
        let mut e = self.err(field, rule, code).value(value);
        if let Some((below, above)) = grid.around(value) {
            e = e.nearest((below > Decimal::ZERO).then_some(below), above);
        }
        Err(e)
    }

    fn at_least_min_base_amount(&self, amount: Decimal) -> Result<(), RuleError> {
        match self.min_base_amount {
            Some(min) if amount < min => {
                let smallest = self.amount.and_then(|g| g.up(min)).unwrap_or(min);
                Err(self
                    .err("amount", Rule::MinBaseAmount { min }, 20009)
                    .value(amount)
                    .nearest(None, smallest))
            }
            _ => Ok(()),
        }
    }

    /// `value` is the order value (`None` on overflow, which is never below a minimum);
    /// `price` turns the minimum value into the smallest valid base amount for the hint.
    fn at_least_min_quote_value(
        &self,
        value: Option<Decimal>,
        price: Option<Decimal>,
    ) -> Result<(), RuleError> {
        let (Some(min), Some(value)) = (self.min_quote_value, value) else {
            return Ok(());
        };
        if value >= min {
            return Ok(());
        }
        let mut e = self.err("amount", Rule::MinQuoteValue { min, value }, 20010);
        let smallest = match price {
            Some(p) if p > Decimal::ZERO => min
                .checked_div(p)
                .and_then(|a| self.amount.map_or(Some(a), |g| g.up(a))),
            Some(_) => None,
            None => self.price.map_or(Some(min), |g| g.up(min)),
        };
        if let Some(s) = smallest {
            e = e.nearest(None, s);
        }
        Err(e)
    }
}

/// The order checked against its market's rules: written here, beside the rules, so that the
/// spot requests name no rule.
impl PlaceOrderRequest {
    /// This request checked against the pair's `rules` (after rounding, when `checks.round` is
    /// set): the request to send, or the broken rule ([`Error::Rule`]) with the venue's code.
    ///
    /// # Examples
    ///
    /// ```
    /// use digifinex_core::rules::{Checks, Rounding, SpotRules};
    /// use digifinex_core::spot::{LimitOrder, Market, PlaceOrderRequest, SymbolInfo};
    /// let info: SymbolInfo = serde_json::from_str(
    ///     r#"{"symbol":"BTC_USDT","price_precision":2,"amount_precision":4,"minimum_value":5}"#,
    /// )?;
    /// let rules = SpotRules::from_symbol(&info);
    /// let req = PlaceOrderRequest::new(
    ///     Market::Spot,
    ///     "btc_usdt",
    ///     LimitOrder::buy("0.00123456".parse()?, "30000.129".parse()?),
    /// );
    /// // Off the price grid: refused before sending, with the code the venue would answer.
    /// assert_eq!(req.checked(&rules, &Checks::strict()).unwrap_err().api_code(), Some(20007));
    /// let sent = req.checked(&rules, &Checks::rounding(Rounding::Passive))?;
    /// assert_eq!(sent.order().price().map(|p| p.to_string()), Some("30000.12".to_owned()));
    /// assert_eq!(sent.order().amount().to_string(), "0.0012");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn checked(&self, rules: &SpotRules, checks: &Checks) -> Result<PlaceOrderRequest, Error> {
        let order = match checks.round {
            Some(mode) => rules.round(self.order(), mode)?,
            None => *self.order(),
        };
        rules.check(&order, checks.reference)?;
        Ok(PlaceOrderRequest::new(self.market(), self.symbol(), order))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().expect("decimal")
    }

    fn rules() -> SpotRules {
        let info: SymbolInfo = serde_json::from_str(
            r#"{"symbol":"BTC_USDT","price_precision":2,"amount_precision":4,
                "minimum_amount":0.001,"minimum_value":5,"status":"TRADING",
                "order_types":["LIMIT","MARKET"],"is_allow":1}"#,
        )
        .expect("row");
        SpotRules::from_symbol(&info)
    }

    fn limit(side: OrderSide, amount: &str, price: &str) -> OrderSpec {
        OrderSpec::Limit(LimitOrder::new(
            side,
            Amount::new(d(amount)),
            Price::new(d(price)),
        ))
    }

    #[test]
    fn each_rule_with_its_code_field_and_nearest_values() {
        let r = rules();
        let e = r
            .check(&limit(OrderSide::Buy, "0.01", "30000.125"), None)
            .expect_err("price");
        assert_eq!((e.code(), e.field), (Some(20007), "price"));
        assert_eq!(e.nearest, Some((Some(d("30000.12")), d("30000.13"))));
        assert_eq!(
            e.to_string(),
            "`price` must be a multiple of 0.01 on btc_usdt (got 30000.125); nearest valid: \
             30000.12 or 30000.13 [venue code 20007]"
        );
        let e = r
            .check(&limit(OrderSide::Buy, "0.01234", "30000"), None)
            .expect_err("amount");
        assert_eq!((e.code(), e.field), (Some(20008), "amount"));
        assert_eq!(e.nearest, Some((Some(d("0.0123")), d("0.0124"))));
        let e = r
            .check(&limit(OrderSide::Buy, "0.0009", "30000"), None)
            .expect_err("min amount");
        assert_eq!(e.code(), Some(20009));
        assert_eq!(e.nearest, Some((None, d("0.001"))));
        let e = r
            .check(&limit(OrderSide::Buy, "0.001", "1000"), None)
            .expect_err("min value");
        assert_eq!(e.code(), Some(20010));
        assert_eq!(
            e.rule,
            Rule::MinQuoteValue {
                min: d("5"),
                value: d("1.000")
            }
        );
        assert_eq!(e.nearest, Some((None, d("0.005"))));
        r.check(&limit(OrderSide::Sell, "0.005", "1000"), None)
            .expect("valid");
    }

    #[test]
    fn market_orders() {
        let r = rules();
        let buy = OrderSpec::Market(MarketOrder::buy(Amount::new(d("4.99"))));
        assert_eq!(r.check(&buy, None).map_err(|e| e.code()), Err(Some(20010)));
        let buy = OrderSpec::Market(MarketOrder::buy(Amount::new(d("5.001"))));
        assert_eq!(r.check(&buy, None).map_err(|e| e.code()), Err(Some(20008)));
        let sell = OrderSpec::Market(MarketOrder::sell(Amount::new(d("0.001"))));
        r.check(&sell, None).expect("no reference: value unchecked");
        let err = r
            .check(&sell, Some(Price::new(d("1000"))))
            .expect_err("value");
        assert_eq!(err.code(), Some(20010));
        assert_eq!(
            r.round_market(MarketOrder::buy(Amount::new(d("5.019"))))
                .map(|o| o.amount()),
            Ok(Amount::new(d("5.01")))
        );
    }

    #[test]
    fn permissions_and_types() {
        let mut r = rules();
        r.api_tradable = Some(false);
        let o = limit(OrderSide::Buy, "1", "30000");
        assert_eq!(r.check(&o, None).map_err(|e| e.code()), Err(Some(20042)));
        r.api_tradable = None;
        r.trading = Some(false);
        assert_eq!(r.check(&o, None).map_err(|e| e.code()), Err(Some(20002)));
        r.trading = Some(true);
        r.order_types = vec![SymbolOrderType::Market];
        let e = r.check(&o, None).expect_err("type");
        assert_eq!((e.code(), e.field), (Some(20012), "type"));
    }

    #[test]
    fn rounding_modes() {
        let r = rules();
        let p = Price::new(d("30000.125"));
        assert_eq!(
            r.round_price(p, OrderSide::Buy, Rounding::Passive),
            Ok(Price::new(d("30000.12")))
        );
        assert_eq!(
            r.round_price(p, OrderSide::Sell, Rounding::Passive),
            Ok(Price::new(d("30000.13")))
        );
        assert_eq!(
            r.round_price(p, OrderSide::Buy, Rounding::Nearest),
            Ok(Price::new(d("30000.12")))
        );
        assert_eq!(
            r.round_price(p, OrderSide::Sell, Rounding::Nearest),
            Ok(Price::new(d("30000.13")))
        );
        assert_eq!(
            r.round_price(p, OrderSide::Buy, Rounding::Exact)
                .map_err(|e| e.code()),
            Err(Some(20007))
        );
        assert_eq!(
            r.round_price(Price::new(d("0.001")), OrderSide::Buy, Rounding::Passive)
                .map_err(|e| e.nearest),
            Err(Some((None, d("0.01"))))
        );
        assert_eq!(
            r.round_amount(Amount::new(d("0.00009")))
                .map_err(|e| e.code()),
            Err(Some(20009))
        );
        let o = r
            .round_limit(
                LimitOrder::sell(Amount::new(d("1.23456")), Price::new(d("1.001"))).post_only(),
                Rounding::Passive,
            )
            .expect("rounded");
        assert_eq!(
            (o.amount(), o.price(), o.is_post_only()),
            (Amount::new(d("1.2345")), Price::new(d("1.01")), true)
        );
    }

    #[test]
    fn missing_fields_are_not_checked() {
        let info: SymbolInfo = serde_json::from_str(r#"{"symbol":"x_y"}"#).expect("row");
        let r = SpotRules::from_symbol(&info);
        r.check(&limit(OrderSide::Buy, "0.000001", "0.0000001"), None)
            .expect("nothing to check");
        let halt: SymbolInfo =
            serde_json::from_str(r#"{"symbol":"x_y","status":"HALT"}"#).expect("row");
        assert_eq!(SpotRules::from_symbol(&halt).trading, Some(true));
        let pause: SymbolInfo =
            serde_json::from_str(r#"{"symbol":"x_y","status":"SUSPEND"}"#).expect("row");
        assert_eq!(SpotRules::from_symbol(&pause).trading, Some(false));
    }
}
