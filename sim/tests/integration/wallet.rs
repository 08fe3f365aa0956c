use crate::common::*;
use digifinex_sim::{AccountType, WhitelistEntry};
use rust_decimal::Decimal;

fn whitelist(env: &Env, cur: &str, chain: &str, address: &str) {
    env.ctl
        .whitelist_address(
            env.account,
            WhitelistEntry {
                currency: cur.to_owned(),
                chain: chain.to_owned(),
                address: address.to_owned(),
                memo: String::new(),
            },
        )
        .unwrap();
}

fn withdraw(env: &Env, form: &[(&str, &str)]) -> serde_json::Value {
    env.spost("/withdraw/new", form).json()
}

#[test]
fn deposit_addresses_and_history() {
    let env = Env::new();
    let a = env.sget("/deposit/address", &[("currency", "USDT")]).json();
    assert_eq!(a["code"], 200);
    let list = a["data"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert!(list
        .iter()
        .all(|x| x["address"].as_str().unwrap().len() > 20));
    assert_eq!(
        env.sget("/deposit/address", &[("currency", "NOPE")]).code(),
        20021
    );

    let id1 = env
        .ctl
        .credit_deposit(env.account, "USDT", "ERC20", dec("250"), 3)
        .unwrap();
    let id2 = env
        .ctl
        .credit_deposit(env.account, "BTC", "", dec("0.5"), 1)
        .unwrap();
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("250"));
    assert_eq!(env.free(AccountType::Spot, "BTC"), Decimal::ZERO);
    env.ctl.set_deposit_state(id2, 2).unwrap();
    env.ctl.set_deposit_state(id2, 3).unwrap();
    assert_eq!(env.free(AccountType::Spot, "BTC"), dec("0.5"));
    assert!(env.ctl.set_deposit_state(id2, 1).is_err());

    let h = env.sget("/deposit/history", &[]).json();
    assert_eq!(h["code"], 200);
    let d = h["data"].as_array().unwrap();
    assert_eq!(d.len(), 2);
    assert_eq!(d[0]["id"], id1);
    assert_eq!(d[0]["state"], 3);
    assert_eq!(d[0]["amount"], "250");
    assert!(d[0]["hashId"].as_str().unwrap().starts_with("0x"));
    assert_eq!(d[0]["created_date"].as_str().unwrap().len(), 19);
    let next = env
        .sget("/deposit/history", &[("direct", "next"), ("size", "1")])
        .json();
    assert_eq!(next["data"][0]["id"], id2);
    let only_btc = env.sget("/deposit/history", &[("currency", "BTC")]).json();
    assert_eq!(only_btc["data"].as_array().unwrap().len(), 1);
    let f = env
        .sget("/spot/financelog", &[("currency_mark", "BTC")])
        .json();
    assert_eq!(f["data"]["finance"][0]["type"], 1);
}

#[test]
fn withdrawal_rules_fee_and_lifecycle() {
    let env = Env::new();
    env.fund(AccountType::Spot, "USDT", "10000");
    whitelist(&env, "USDT", "ERC20", "0xabc");
    let w = |chain: &str, address: &str, amount: &str| -> i64 {
        let mut f = vec![
            ("currency", "USDT"),
            ("address", address),
            ("amount", amount),
        ];
        if !chain.is_empty() {
            f.push(("chain", chain));
        }
        withdraw(&env, &f)["code"].as_i64().unwrap()
    };
    assert_eq!(w("", "0xabc", "100"), 10004, "USDT needs a chain");
    assert_eq!(w("TRC20", "0xabc", "100"), 10004);
    assert_eq!(w("ERC20", "0xother", "100"), 20038);
    assert_eq!(w("OMNI", "0xabc", "100"), 20037);
    assert_eq!(w("ERC20", "0xabc", "5"), 20035, "below minimum");
    assert_eq!(w("ERC20", "0xabc", "20000"), 20011);
    assert_eq!(
        withdraw(
            &env,
            &[("currency", "LUNA"), ("address", "x"), ("amount", "5")]
        )["code"],
        20034
    );
    assert_eq!(
        withdraw(
            &env,
            &[("currency", "NOPE"), ("address", "x"), ("amount", "5")]
        )["code"],
        20021
    );

    // Fee rule: 100 * 0.002 = 0.2 < minimum 5 -> 5; 5000 * 0.002 = 10 > 5 -> 10.
    let r = withdraw(
        &env,
        &[
            ("currency", "USDT"),
            ("chain", "ERC20"),
            ("address", "0xabc"),
            ("amount", "100"),
        ],
    );
    assert_eq!(r["code"], 200, "{r}");
    let id_small = r["withdraw_id"].as_u64().unwrap();
    let r = withdraw(
        &env,
        &[
            ("currency", "USDT"),
            ("chain", "ERC20"),
            ("address", "0xabc"),
            ("amount", "5000"),
        ],
    );
    let id_big = r["withdraw_id"].as_u64().unwrap();
    let h = env.sget("/withdraw/history", &[("direct", "next")]).json();
    assert_eq!(h["code"], 200);
    assert_eq!(h["data"][0]["id"], id_big);
    assert_eq!(h["data"][0]["fee"], "10");
    assert_eq!(h["data"][1]["fee"], "5");
    assert_eq!(h["data"][1]["state"], 1);
    assert_eq!(env.frozen(AccountType::Spot, "USDT"), dec("5100"));

    // Cancel while in progress; not after it moved on.
    let r = env
        .spost(
            "/withdraw/cancel",
            &[("withdraw_id", &id_small.to_string())],
        )
        .json();
    assert_eq!(r["code"], 200, "{r}");
    assert_eq!(r["withdraw_id"], id_small);
    assert_eq!(env.frozen(AccountType::Spot, "USDT"), dec("5000"));
    env.ctl.set_withdrawal_state(id_big, 2).unwrap();
    let r = env
        .spost("/withdraw/cancel", &[("withdraw_id", &id_big.to_string())])
        .json();
    assert_eq!(r["code"], 20039);
    assert_eq!(
        env.spost("/withdraw/cancel", &[("withdraw_id", "999")])
            .code(),
        20033
    );
    assert_eq!(
        env.spost("/withdraw/cancel", &[("withdraw_id", "abc")])
            .code(),
        20033
    );
    env.ctl.set_withdrawal_state(id_big, 3).unwrap();
    assert_eq!(env.frozen(AccountType::Spot, "USDT"), Decimal::ZERO);
    assert_eq!(env.free(AccountType::Spot, "USDT"), dec("5000"));
    let views = env.ctl.withdrawals(env.account);
    assert_eq!(views.iter().map(|v| v.state).collect::<Vec<_>>(), [4, 3]);
    let f = env.sget("/spot/financelog", &[("limit", "1")]).json();
    assert_eq!(f["data"]["finance"][0]["type"], 2);
}

#[test]
fn withdrawal_frequency_limits() {
    let env = Env::new();
    env.ctl.freeze_clock(None);
    env.fund(AccountType::Spot, "BTC", "100");
    whitelist(&env, "BTC", "", "1addr");
    let w = || {
        withdraw(
            &env,
            &[
                ("currency", "BTC"),
                ("address", "1addr"),
                ("amount", "0.01"),
            ],
        )["code"]
            .as_i64()
            .unwrap()
    };
    for _ in 0..3 {
        assert_eq!(w(), 200);
    }
    assert_eq!(w(), 20040, "4th within a minute");
    env.ctl.advance_clock(61_000);
    assert_eq!(w(), 200);
    // Up to 100 per day: space them 21 s apart (never more than 3 per minute).
    let mut count = 4;
    while count < 100 {
        env.ctl.advance_clock(21_000);
        assert_eq!(w(), 200, "withdrawal {count}");
        count += 1;
    }
    env.ctl.advance_clock(61_000);
    assert_eq!(w(), 20040, "101st within a day");
    env.ctl.advance_clock(86_400_000);
    assert_eq!(w(), 200);
}

#[test]
fn daily_quota_20041() {
    let mut config = digifinex_sim::SimConfig::default().without_flow();
    for c in config.currencies.iter_mut().filter(|c| c.currency == "ETH") {
        c.daily_quota = Some(dec("1"));
    }
    let env = Env::with_config(config);
    env.fund(AccountType::Spot, "ETH", "10");
    whitelist(&env, "ETH", "", "0xeth");
    let w = |amount: &str| {
        withdraw(
            &env,
            &[
                ("currency", "ETH"),
                ("address", "0xeth"),
                ("amount", amount),
            ],
        )["code"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(w("0.6"), 200);
    assert_eq!(w("0.6"), 20041);
    assert_eq!(w("0.4"), 200);
}
