//! `digifinex call` after an unknown outcome: reconciled at once, the verdict as JSON on
//! stdout (its `resolution` says applied, not applied or ambiguous), what to do on stderr, exit
//! 1 (the CLI contract's code for a transport error); exact with the snapshot `call` reads
//! before each write. The simulator runs in-process; the binary talks to it over loopback.

use std::process::{Command, Output, Stdio};

use digifinex_sim::{FaultKind, FaultRule, Sim, SimConfig, SimHandle};
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

    fn fault(&self, path: &str, fault: FaultKind) {
        self.sim
            .control()
            .add_fault(FaultRule::route("POST", path, fault).times(1));
    }
}

const ORDER: [&str; 6] = [
    "POST",
    "/v3/spot/order/new",
    "symbol=btc_usdt",
    "type=buy",
    "price=10000",
    "amount=0.01",
];

fn verdict(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}; stderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn dropped_before_apply_is_not_applied() {
    let w = world();
    w.fault("/v3/spot/order/new", FaultKind::DropBeforeApply);
    let o = w.call(&ORDER);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = verdict(&o);
    assert_eq!(v["endpoint"], "spot.order_new", "{v}");
    assert_eq!(v["resolution"], "not_applied", "{v}");
    assert_eq!(v["verdicts"][0]["verdict"], "not_applied", "{v}");
    assert!(
        v["what_to_do"]
            .as_str()
            .unwrap()
            .starts_with("It did not take effect: sending it again is safe."),
        "{v}"
    );
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("sending it again is safe"), "{err}");
}

#[test]
fn dropped_after_apply_is_applied_with_the_order_id() {
    let w = world();
    w.fault("/v3/spot/order/new", FaultKind::DropAfterApply);
    let o = w.call(&ORDER);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = verdict(&o);
    let id = w.sim.control().orders(w.account)[0].order_id.clone();
    assert_eq!(v["resolution"], "applied", "{v}");
    assert_eq!(v["verdicts"][0]["id"], id.as_str(), "{v}");
    assert!(stderr(&o).contains(&id), "{}", stderr(&o));
}

/// The ids of the account's spot orders, as the simulator knows them.
fn order_ids(w: &World) -> Vec<String> {
    w.sim
        .control()
        .orders(w.account)
        .into_iter()
        .map(|o| o.order_id)
        .collect()
}

/// Issue 25: the same order placed again and again while faults drop it before or after it
/// is applied, or answer too late. The snapshot `call` reads before each write makes every
/// verdict exact: never ambiguous, never wrong.
#[test]
fn identical_orders_under_every_fault_get_exact_verdicts() {
    let w = world();
    let first = w.call(&ORDER);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let cases = [
        (FaultKind::DropBeforeApply, false),
        (FaultKind::DropAfterApply, true),
        (FaultKind::LateAnswer { delay_ms: 2_500 }, true),
        (FaultKind::DropBeforeApply, false),
        (FaultKind::DropAfterApply, true),
    ];
    for (fault, applied) in cases {
        let before = order_ids(&w);
        w.fault("/v3/spot/order/new", fault.clone());
        let mut args = ORDER.to_vec();
        args.extend(["--timeout", "1"]);
        let o = w.call(&args);
        assert_eq!(o.status.code(), Some(1), "{fault:?}: {}", stderr(&o));
        let v = verdict(&o);
        let new: Vec<String> = order_ids(&w)
            .into_iter()
            .filter(|id| !before.contains(id))
            .collect();
        assert_eq!(new.len(), usize::from(applied), "{fault:?}: {new:?}");
        if applied {
            assert_eq!(v["resolution"], "applied", "{fault:?}: {v}");
            assert_eq!(v["verdicts"][0]["id"], new[0].as_str(), "{fault:?}: {v}");
        } else {
            assert_eq!(v["resolution"], "not_applied", "{fault:?}: {v}");
        }
        assert_eq!(v["snapshot"]["reads"], 2, "{v}");
        assert_eq!(v["snapshot"]["complete"], true, "{v}");
    }
}

/// Without the snapshot, the identical order placed a moment before can never be named
/// applied: the verdict is ambiguous, with the reason.
#[test]
fn without_the_snapshot_identical_orders_are_ambiguous_never_wrong() {
    let w = world();
    let first = w.call(&ORDER);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    for fault in [FaultKind::DropBeforeApply, FaultKind::DropAfterApply] {
        w.fault("/v3/spot/order/new", fault.clone());
        let mut args = ORDER.to_vec();
        args.push("--no-snapshot");
        let o = w.call(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v = verdict(&o);
        assert_eq!(v["resolution"], "ambiguous", "{fault:?}: {v}");
        assert_eq!(v["snapshot"], Value::Null, "{v}");
        assert!(
            v["verdicts"][0]["why"]
                .as_str()
                .unwrap()
                .contains("created before the request can have been built"),
            "{v}"
        );
    }
}

#[test]
fn help_documents_the_exit_code_and_the_resolutions() {
    let o = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(["call", "--help"])
        .output()
        .expect("run digifinex");
    let text = String::from_utf8_lossy(&o.stdout);
    for line in [
        "and exits 1",
        "applied      the write took effect",
        "not_applied  it did not take effect",
        "ambiguous    the account cannot tell",
        "--no-snapshot skips those reads",
        "--round passive|nearest rounds it instead",
        "mixed        the elements of a batch differ",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
}
