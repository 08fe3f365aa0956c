//! Issue 25: `digifinex call` checks an order placement against the market rules before it
//! sends it: exit 2 naming the field, the rule and the nearest valid values; `--round
//! passive|nearest` rounds instead; `--unchecked` sends it as given; a well-formed pair that is
//! not listed is "not listed" with a did-you-mean. `describe`'s sample lines pass on the
//! simulator. The simulator runs in-process; the binary talks to it over loopback.

use std::process::{Command, Output, Stdio};

use digifinex_sim::{Sim, SimConfig, SimHandle};
use serde_json::Value;

struct World {
    sim: SimHandle,
    account: digifinex_sim::AccountId,
    key: String,
    secret: String,
}

fn world() -> World {
    let sim = Sim::start(SimConfig::default()).expect("simulator");
    let demo = sim.control().demo_account();
    World {
        account: demo.account,
        key: demo.keys.key,
        secret: demo.keys.secret,
        sim,
    }
}

impl World {
    fn call(&self, args: &[&str]) -> Output {
        let spot = self.sim.spot_base_url();
        let swap = self.sim.swap_base_url();
        let mut all = vec!["call"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--base-url", &spot, "--swap-base-url", &swap]);
        Command::new(env!("CARGO_BIN_EXE_digifinex"))
            .args(&all)
            .env("DIGIFINEX_API_KEY", &self.key)
            .env("DIGIFINEX_API_SECRET", &self.secret)
            .stdin(Stdio::null())
            .output()
            .expect("run digifinex")
    }

    fn spot_orders(&self) -> Vec<digifinex_sim::OrderView> {
        self.sim.control().orders(self.account)
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn spot_buy<'a>(price: &'a str, amount: &'a str) -> Vec<&'a str> {
    vec![
        "POST",
        "/v3/spot/order/new",
        "symbol=btc_usdt",
        "type=buy",
        price,
        amount,
    ]
}

/// Exit 2, nothing sent, and the one line of stderr says it all.
fn refused(w: &World, o: &Output, parts: &[&str]) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert!(stdout(o).is_empty(), "{}", stdout(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{err}");
    for p in parts {
        assert!(err.contains(p), "{p:?} missing from {err}");
    }
    assert!(w.spot_orders().is_empty(), "nothing may be sent");
}

#[test]
fn an_order_off_the_grid_or_under_a_minimum_is_refused_before_sending() {
    let w = world();
    // btc_usdt on the simulator: prices to 2 places, amounts to 5, at least 0.0001 BTC and
    // 2 USDT.
    let o = w.call(&spot_buy("price=100.005", "amount=0.1"));
    refused(
        &w,
        &o,
        &[
            "error: refused before sending: `price` must be a multiple of 0.01 on btc_usdt \
             (got 100.005); nearest valid: 100 or 100.01 [venue code 20007]",
            "--round passive or --round nearest",
            "--unchecked",
        ],
    );
    let o = w.call(&spot_buy("price=100", "amount=0.123456"));
    refused(
        &w,
        &o,
        &[
            "`amount` must be a multiple of 0.00001",
            "0.12345 or 0.12346",
            "20008",
        ],
    );
    let o = w.call(&spot_buy("price=100", "amount=0.00005"));
    refused(&w, &o, &["minimum base amount 0.0001", "20009"]);
    let o = w.call(&spot_buy("price=100", "amount=0.01"));
    refused(
        &w,
        &o,
        &[
            "order value 1.00 is below btc_usdt's minimum quote value 2",
            "smallest valid: 0.02",
            "20010",
        ],
    );
}

#[test]
fn round_passive_and_nearest_send_the_rounded_order() {
    let w = world();
    let o = w.call(
        &[
            spot_buy("price=100.005", "amount=0.1234567").as_slice(),
            &["--round", "passive"],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let orders = w.spot_orders();
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].price.normalize().to_string(), "100");
    assert_eq!(orders[0].amount.normalize().to_string(), "0.12345");
    let o = w.call(
        &[
            spot_buy("price=100.006", "amount=0.1").as_slice(),
            &["--round", "nearest"],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut prices: Vec<String> = w
        .spot_orders()
        .iter()
        .map(|o| o.price.normalize().to_string())
        .collect();
    prices.sort();
    assert_eq!(prices, ["100", "100.01"]);
    // --round and --unchecked exclude each other.
    let o = w.call(
        &[
            spot_buy("price=100", "amount=0.1").as_slice(),
            &["--round", "passive", "--unchecked"],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn unchecked_sends_as_given_and_the_venue_decides() {
    let w = world();
    let o = w.call(
        &[
            spot_buy("price=100.005", "amount=0.1").as_slice(),
            &["--unchecked"],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("20007"), "{}", stderr(&o));
}

#[test]
fn a_pair_not_listed_gets_a_did_you_mean_and_no_venue_code() {
    let w = world();
    let o = w.call(&[
        "POST",
        "/v3/spot/order/new",
        "symbol=btc_usdd",
        "type=buy",
        "price=100",
        "amount=0.1",
    ]);
    refused(
        &w,
        &o,
        &[
            "not listed",
            "\"btc_usdd\" is not listed by GET /v3/trades/symbols (did you mean btc_usdt?)",
        ],
    );
    assert!(!stderr(&o).contains("20019"), "{}", stderr(&o));
    let o = w.call(&[
        "POST",
        "/swap/v2/trade/order_place",
        "instrument_id=BTCUSDPERP",
        "type=1",
        "order_type=0",
        "size=1",
        "price=100",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("(did you mean BTCUSDTPERP?)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_pair_closed_to_api_trading_is_refused() {
    let w = world();
    assert!(w.sim.control().set_api_tradable("btc_usdt", false));
    let o = w.call(&spot_buy("price=100", "amount=0.1"));
    refused(&w, &o, &["btc_usdt does not allow API trading", "20042"]);
}

#[test]
fn a_batch_names_the_element_refused() {
    let w = world();
    let o = w.call(&[
        "POST",
        "/v3/spot/order/batch_new",
        "symbol=btc_usdt",
        r#"list=[{"type":"buy","price":"100","amount":"0.1"},{"type":"buy","price":"100.001","amount":"0.1"}]"#,
    ]);
    refused(
        &w,
        &o,
        &[
            "order [1] of the batch: `price` must be a multiple of 0.01",
            "20007",
        ],
    );
    let o = w.call(&[
        "POST",
        "/swap/v2/trade/batch_order",
        "--json",
        r#"[{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"100"},{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":"1.5","price":"100"}]"#,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("order [1] of the batch"),
        "{}",
        stderr(&o)
    );
    assert_eq!(w.sim.control().swap_order_count(w.account), 0);
}

/// The sample line `describe` prints for each order placement passes on the simulator.
#[test]
fn describe_samples_of_placements_pass_on_the_simulator() {
    let w = world();
    for (method, path) in [
        ("POST", "/v3/spot/order/new"),
        ("POST", "/v3/spot/order/batch_new"),
        ("POST", "/swap/v2/trade/order_place"),
        ("POST", "/swap/v2/trade/batch_order"),
    ] {
        let d = Command::new(env!("CARGO_BIN_EXE_digifinex"))
            .args(["describe", method, path])
            .output()
            .expect("describe");
        let text = stdout(&d);
        let line = text
            .lines()
            .last()
            .expect("a sample line")
            .trim()
            .strip_prefix("digifinex call ")
            .expect("a call line")
            .to_owned();
        let args = shell_words(&line);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = w.call(&args);
        assert_eq!(o.status.code(), Some(0), "{line}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert!(!v.is_null(), "{line}");
    }
}

/// Splits a line as a shell would for the sample lines: words, and single-quoted words.
fn shell_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}
