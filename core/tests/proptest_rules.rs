//! Properties of rounding to the market rules: a rounded value is on the grid, never more
//! aggressive than the input in the chosen direction (a buy never higher, a sell never lower;
//! an amount never larger), rounding twice changes nothing, and what rounding produces passes
//! the precision checks.

use digifinex_core::rules::{Grid, Rounding, SpotRules, SwapRules};
use digifinex_core::spot::{LimitOrder, OrderSide, OrderSpec, SymbolInfo};
use digifinex_core::swap::{self, Instrument};
use digifinex_core::{Amount, Decimal, Price, Size};
use proptest::prelude::*;

/// A positive decimal with up to 8 places.
fn value() -> impl Strategy<Value = Decimal> {
    (1i64..10_000_000_000, 0u32..=8).prop_map(|(m, s)| Decimal::new(m, s))
}

/// A positive step: a power of ten or an odd multiple (0.5, 0.25, 0.3, 25).
fn step() -> impl Strategy<Value = Decimal> {
    (1i64..=40, 0u32..=6).prop_map(|(m, s)| Decimal::new(m, s))
}

fn spot_rules(price_places: u32, amount_places: u32) -> SpotRules {
    let text = format!(
        r#"{{"symbol":"BTC_USDT","price_precision":{price_places},"amount_precision":{amount_places}}}"#
    );
    let info: SymbolInfo = serde_json::from_str(&text).expect("row");
    SpotRules::from_symbol(&info)
}

proptest! {
    #[test]
    fn grid_rounding_is_on_grid_bounded_and_idempotent(v in value(), s in step()) {
        let g = Grid::new(s).expect("positive step");
        let down = g.down(v).expect("no overflow");
        let up = g.up(v).expect("no overflow");
        prop_assert!(g.contains(down) && g.contains(up));
        prop_assert!(down <= v && v <= up);
        prop_assert!(up - down == Decimal::ZERO || up - down == s.normalize());
        prop_assert_eq!(g.down(down), Some(down));
        prop_assert_eq!(g.up(up), Some(up));
        let near = g.nearest(v, false).expect("no overflow");
        prop_assert!(near == down || near == up);
        prop_assert_eq!(g.nearest(near, true), Some(near));
    }

    #[test]
    fn spot_limit_rounding_is_passive_and_valid(
        price in value(), amount in value(), pp in 0u32..=6, ap in 0u32..=6, buy in any::<bool>(),
    ) {
        let rules = spot_rules(pp, ap);
        let side = if buy { OrderSide::Buy } else { OrderSide::Sell };
        let order = LimitOrder::new(side, Amount::new(amount), Price::new(price));
        match rules.round_limit(order, Rounding::Passive) {
            Ok(r) => {
                let (p, a) = (r.price().get(), r.amount().get());
                if buy { prop_assert!(p <= price) } else { prop_assert!(p >= price) }
                prop_assert!(a <= amount);
                prop_assert!(rules.check(&OrderSpec::Limit(r), None).is_ok());
                prop_assert_eq!(rules.round_limit(r, Rounding::Passive), Ok(r));
                prop_assert_eq!(rules.round_limit(r, Rounding::Exact), Ok(r));
            }
            // Refused only when a value rounds to zero (below the smallest step).
            Err(e) => prop_assert!(
                Grid::places(pp).down(price) == Some(Decimal::ZERO)
                    || Grid::places(ap).down(amount) == Some(Decimal::ZERO),
                "{e}"
            ),
        }
    }

    #[test]
    fn swap_rounding_is_passive_and_valid(
        price in value(), size in value(), tick in step(), buy in any::<bool>(),
    ) {
        let text = format!(
            r#"{{"instrument_id":"BTCUSDTPERP","contract_value":"0.001","tick_size":"{tick}",
                "min_order_amount":"1"}}"#
        );
        let inst: Instrument = serde_json::from_str(&text).expect("instrument");
        let rules = SwapRules::from_instrument(&inst);
        let side = if buy { swap::OrderSide::OpenLong } else { swap::OrderSide::OpenShort };
        let order = swap::OrderSpec::limit("BTCUSDTPERP", side, Size::new(size), Price::new(price));
        if let Ok(r) = rules.round(&order, Rounding::Passive) {
            let p = r.price().expect("limit").get();
            if buy { prop_assert!(p <= price) } else { prop_assert!(p >= price) }
            prop_assert!(r.size().get() <= size);
            prop_assert!(rules.check(&r, None, None).is_ok());
            prop_assert_eq!(rules.round(&r, Rounding::Passive), Ok(r.clone()));
        }
    }
}
