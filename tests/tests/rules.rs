//! Market rules against the simulator: the rules the clients load match the simulator's
//! markets, the checked placement path refuses (nothing sent) or rounds, and the validator
//! agrees with the simulator on every generated order: what it accepts the simulator accepts,
//! what it refuses the simulator refuses with the same code.

use digifinex_core::rules::{Checks, Grid, Rounding, Rule};
use digifinex_core::spot::{LimitOrder, Market, OrderSide, PlaceOrderRequest};
use digifinex_core::{swap, Amount, Credentials, Decimal, Error, Price, Size};
use digifinex_sim::{Sim, SimConfig, SimHandle};
use proptest::prelude::*;
use std::sync::OnceLock;

fn d(s: &str) -> Decimal {
    s.parse().expect("decimal")
}

struct World {
    sim: SimHandle,
    account: digifinex_sim::AccountId,
    client: digifinex_ureq::Client,
}

fn world() -> World {
    let mut cfg = SimConfig::default();
    cfg.limits.weight_enabled = false;
    cfg.limits.risk_control = false;
    let sim = Sim::start(cfg).expect("sim");
    let demo = sim.control().demo_account();
    let client = digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(Credentials::new(
            demo.keys.key.clone(),
            demo.keys.secret.clone(),
        ))
        .without_weight_budget()
        .build()
        .expect("client");
    World {
        sim,
        account: demo.account,
        client,
    }
}

fn rule_code(e: &Error) -> Option<i64> {
    match e {
        Error::Rule(r) => r.code(),
        _ => None,
    }
}

#[test]
fn spot_rules_load_and_the_checked_path_refuses_or_rounds() {
    let w = world();
    let rules = w.client.spot_rules("BTC_USDT").expect("rules");
    assert_eq!(rules.price, Some(Grid::places(2)));
    assert_eq!(rules.amount, Some(Grid::places(5)));
    assert_eq!(
        (rules.min_base_amount, rules.min_quote_value),
        (Some(d("0.0001")), Some(d("2")))
    );
    assert_eq!(
        (rules.trading, rules.api_tradable),
        (Some(true), Some(true))
    );

    let req = PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(Amount::new(d("0.001234567")), Price::new(d("20000.129"))),
    );
    let err = w
        .client
        .place_spot_checked(&req, &Checks::strict())
        .expect_err("too precise");
    assert_eq!(rule_code(&err), Some(20007));
    assert_eq!(
        w.sim.control().order_count(w.account),
        0,
        "nothing was sent"
    );

    let sent = w
        .client
        .place_spot_checked(&req, &Checks::rounding(Rounding::Passive))
        .expect("rounded and placed");
    assert_eq!(
        sent.request.order().price(),
        Some(Price::new(d("20000.12")))
    );
    assert_eq!(sent.request.order().amount(), Amount::new(d("0.00123")));
    let orders = w.sim.control().orders(w.account);
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].order_id, sent.output.order_id);
    assert_eq!(
        (orders[0].price, orders[0].amount),
        (d("20000.12"), d("0.00123"))
    );

    // Permissions come from the list: refused before sending, with the venue's code.
    let dft = PlaceOrderRequest::new(
        Market::Spot,
        "dft_usdt",
        LimitOrder::buy(Amount::new(d("100")), Price::new(d("0.05"))),
    );
    assert_eq!(
        rule_code(
            &w.client
                .place_spot_checked(&dft, &Checks::strict())
                .expect_err("dft")
        ),
        Some(20042)
    );
    let luna = PlaceOrderRequest::new(
        Market::Spot,
        "luna_usdt",
        LimitOrder::buy(Amount::new(d("100")), Price::new(d("1"))),
    );
    let err = w
        .client
        .place_spot_checked(&luna, &Checks::strict())
        .expect_err("luna");
    assert_eq!(rule_code(&err), Some(20002));
    // A pair the list does not have names the field and what to check.
    let typo = PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdx",
        LimitOrder::buy(Amount::new(d("1")), Price::new(d("1"))),
    );
    let err = w
        .client
        .place_spot_checked(&typo, &Checks::strict())
        .expect_err("typo");
    assert!(
        matches!(&err, Error::Validation { field, .. } if field == "symbol"),
        "{err}"
    );
    assert_eq!(w.sim.control().order_count(w.account), 1);
}

#[test]
fn swap_rules_load_and_the_checked_path_refuses_or_rounds() {
    let w = world();
    let rules = w.client.swap_rules("btcusdtperp").expect("rules");
    assert_eq!(rules.tick, Grid::new(d("0.1")));
    assert_eq!(rules.contract_value, Some(d("0.001")));
    assert!(!rules.open_max_limits.is_empty());

    let req = swap::PlaceOrderRequest::new(swap::OrderSpec::limit(
        "BTCUSDTPERP",
        swap::OrderSide::OpenLong,
        Size::new(d("2.5")),
        Price::new(d("29000.07")),
    ));
    let err = w
        .client
        .place_swap_checked(&req, &Checks::strict())
        .expect_err("fractional size");
    assert_eq!(rule_code(&err), Some(400002));
    assert_eq!(w.sim.control().swap_order_count(w.account), 0);
    let sent = w
        .client
        .place_swap_checked(&req, &Checks::rounding(Rounding::Passive))
        .expect("rounded and placed");
    assert_eq!(sent.request.order().size(), Size::new(d("2")));
    assert_eq!(sent.request.order().price(), Some(Price::new(d("29000"))));
    assert_eq!(w.sim.control().swap_order_count(w.account), 1);

    // The open cap at a high leverage (the simulator's caps: above 75x, 50,000 USDT).
    let (lev, cap) = rules
        .open_max_limits
        .iter()
        .copied()
        .max_by_key(|(l, _)| *l)
        .expect("a cap");
    let exposure = digifinex_core::rules::Exposure {
        leverage: lev + Decimal::ONE,
        open_value: cap,
    };
    let err = w
        .client
        .place_swap_checked(
            &req,
            &Checks::rounding(Rounding::Passive).exposure(exposure),
        )
        .expect_err("cap");
    assert_eq!(rule_code(&err), Some(401002));
    assert!(matches!(&err, Error::Rule(r) if matches!(r.rule, Rule::OpenValue { .. })));
}

/// One simulator for the property test (cases share it; every case is independent).
fn shared() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(world)
}

/// The simulator's answer code for an order sent unchecked (0 for success).
fn sim_code<T>(r: Result<T, Error>) -> i64 {
    match r {
        Ok(_) => 0,
        Err(Error::Api(a)) => a.code.code(),
        Err(e) => panic!("unexpected failure: {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn spot_validator_agrees_with_the_simulator(
        price_units in 100_000_000i64..=290_000_000, price_places in 1u32..=4,
        amount_units in 1i64..=2_000_000, amount_places in 3u32..=8,
        sell in any::<bool>(),
    ) {
        let w = shared();
        // Prices 10,000-29,000 with 1-4 places; amounts up to 0.02 with 3-8 places (64 cases stay within the demo balances).
        let price = Decimal::new(price_units, 4).round_dp(price_places);
        let amount = Decimal::new(amount_units, 8).round_dp(amount_places);
        prop_assume!(amount > Decimal::ZERO);
        // A buy far below the market rests; a sell far above it too.
        let (side, price) = if sell {
            (OrderSide::Sell, price + Decimal::from(40_000))
        } else {
            (OrderSide::Buy, price)
        };
        let req = PlaceOrderRequest::new(
            Market::Spot,
            "btc_usdt",
            LimitOrder::new(side, Amount::new(amount), Price::new(price)),
        );
        let rules = w.client.spot_rules("btc_usdt").expect("rules");
        let verdict = req.checked(&rules, &Checks::strict()).map_err(|e| rule_code(&e));
        let answer = sim_code(w.client.send(&req));
        match verdict {
            Ok(_) => prop_assert_eq!(answer, 0, "accepted {} @ {}", amount, price),
            Err(code) => prop_assert_eq!(Some(answer), code, "refused {} @ {}", amount, price),
        }
    }

    #[test]
    fn swap_validator_agrees_with_the_simulator(
        price_units in 29_000_000i64..=30_000_000, price_places in 0u32..=3,
        size_halves in 1i64..=8,
    ) {
        let w = shared();
        // Prices 29,000-30,000 with 0-3 places (tick 0.1); sizes 0.5-4 in halves.
        let price = Decimal::new(price_units, 3).round_dp(price_places);
        let size = Decimal::new(size_halves * 5, 1);
        let req = swap::PlaceOrderRequest::new(swap::OrderSpec::limit(
            "BTCUSDTPERP",
            swap::OrderSide::OpenLong,
            Size::new(size),
            Price::new(price),
        ));
        let rules = w.client.swap_rules("BTCUSDTPERP").expect("rules");
        let verdict = req.checked(&rules, &Checks::strict()).map_err(|e| rule_code(&e));
        let answer = sim_code(w.client.send(&req));
        match verdict {
            Ok(_) => prop_assert_eq!(answer, 0, "accepted {} @ {}", size, price),
            Err(code) => prop_assert_eq!(Some(answer), code, "refused {} @ {}", size, price),
        }
    }
}

#[test]
fn the_async_client_loads_rules_and_checks_the_same_way() {
    let w = world();
    let demo = w.sim.control().demo_account();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = digifinex_hyper::Client::builder()
            .spot_base_url(w.sim.spot_base_url())
            .swap_base_url(w.sim.swap_base_url())
            .allow_http(true)
            .credentials(Credentials::new(
                demo.keys.key.clone(),
                demo.keys.secret.clone(),
            ))
            .build()
            .expect("client");
        let rules = client.spot_rules("eth_usdt").await.expect("rules");
        assert_eq!(rules.amount, Some(Grid::places(4)));
        let req = PlaceOrderRequest::new(
            Market::Spot,
            "eth_usdt",
            LimitOrder::sell(Amount::new(d("0.01239")), Price::new(d("2500.001"))),
        );
        let err = client
            .place_spot_checked(&req, &Checks::strict())
            .await
            .expect_err("precision");
        assert_eq!(rule_code(&err), Some(20007));
        let sent = client
            .place_spot_checked(&req, &Checks::rounding(Rounding::Passive))
            .await
            .expect("placed");
        // A sell rounds up (passive), the amount truncates.
        assert_eq!(sent.request.order().price(), Some(Price::new(d("2500.01"))));
        assert_eq!(sent.request.order().amount(), Amount::new(d("0.0123")));
        let swap_req = swap::PlaceOrderRequest::new(swap::OrderSpec::limit(
            "BTCUSDTPERP",
            swap::OrderSide::OpenShort,
            Size::ONE,
            Price::new(d("30000.05")),
        ));
        let err = client
            .place_swap_checked(&swap_req, &Checks::strict())
            .await
            .expect_err("tick");
        assert_eq!(rule_code(&err), Some(401007));
        let err = client
            .swap_rules("BTC-USDT-PERP")
            .await
            .expect_err("unlisted");
        assert!(
            matches!(&err, Error::Validation { field, .. } if field == "instrument_id"),
            "{err}"
        );
    });
    assert_eq!(w.sim.control().orders(demo.account).len(), 1);
    assert_eq!(w.sim.control().swap_order_count(demo.account), 0);
}
