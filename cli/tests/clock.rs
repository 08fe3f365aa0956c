//! Issue 36: the server's clock 30 s behind and 30 s ahead of this machine's (a simulator whose
//! clock is offset), and keys the server refuses: `digifinex call` places an order (its
//! snapshot's window at the server's time), `digifinex stream` authenticates its private
//! channel (the socket measures the clock itself), `digifinex track` follows the account, and
//! both exit 1 naming the cause when nothing can ever be streamed or read. Every wait is
//! bounded; everything is on loopback.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use digifinex_core::{spot, Credentials, Decimal, Price};
use digifinex_sim::{KeyOptions, Permissions, Sim, SimConfig, SimHandle};
use serde_json::Value;

const KEY_VAR: &str = "DIGIFINEX_API_KEY";
const SECRET_VAR: &str = "DIGIFINEX_API_SECRET";

/// A key pair as given to the command and to the test's own client.
#[derive(Clone)]
struct Keys(String, String);

impl Keys {
    fn creds(&self) -> Credentials {
        Credentials::new(self.0.clone(), self.1.clone())
    }
}

fn sim_with_clock(offset_ms: i64) -> (SimHandle, Keys) {
    let sim = Sim::start(SimConfig::default()).expect("simulator");
    let demo = sim.control().demo_account();
    sim.control().set_clock_offset(offset_ms);
    (sim, Keys(demo.keys.key, demo.keys.secret))
}

fn command(args: &[&str], keys: Option<&Keys>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_digifinex"));
    c.args(args)
        .env_remove(KEY_VAR)
        .env_remove(SECRET_VAR)
        .stdin(Stdio::null());
    if let Some(k) = keys {
        c.env(KEY_VAR, &k.0).env(SECRET_VAR, &k.1);
    }
    c
}

/// A spawned command's stdout lines as JSON, and its exit, each waited for at most `limit`.
struct Running {
    child: Child,
    lines: mpsc::Receiver<Value>,
    stderr: std::thread::JoinHandle<String>,
}

impl Running {
    fn start(mut c: Command) -> Running {
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let out = child.stdout.take().expect("stdout");
        let mut err = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let v = serde_json::from_str(&line).unwrap_or(Value::String(line));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut s);
            s
        });
        Running {
            child,
            lines,
            stderr,
        }
    }

    /// The lines until one matches (panics after `limit`), the matching one last.
    fn until(&self, limit: Duration, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) => {
                    let hit = pred(&v);
                    seen.push(v);
                    if hit {
                        return seen;
                    }
                }
                Err(_) => panic!("no matching line within {limit:?}: {seen:?}"),
            }
        }
    }

    /// Waits at most `limit` for the exit (killed after it): the exit code, the remaining
    /// lines and stderr.
    fn finish(mut self, limit: Duration) -> (Option<i32>, Vec<Value>, String) {
        let deadline = Instant::now() + limit;
        let code = loop {
            match self.child.try_wait().expect("wait") {
                Some(status) => break status.code(),
                None if Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break None;
                }
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        let rest =
            std::iter::from_fn(|| self.lines.recv_timeout(Duration::from_secs(2)).ok()).collect();
        (code, rest, self.stderr.join().unwrap_or_default())
    }
}

fn output(mut c: Command, limit: Duration) -> Output {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let deadline = Instant::now() + limit;
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn rest(sim: &SimHandle, keys: &Keys) -> digifinex_ureq::Client {
    digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(keys.creds())
        .build()
        .expect("client")
}

fn buy(price: i64) -> spot::PlaceOrderRequest {
    spot::PlaceOrderRequest::new(
        spot::Market::Spot,
        "btc_usdt",
        spot::LimitOrder::buy("0.001".parse().unwrap(), Price::new(Decimal::new(price, 0))),
    )
}

/// Before: with the server 30 s behind (this machine's clock 30 s ahead), the snapshot before
/// the write failed with spot 20022 and nothing was sent.
#[test]
fn call_places_a_spot_order_with_the_server_clock_30s_behind_and_ahead() {
    for offset in [-30_000, 30_000] {
        let (sim, creds) = sim_with_clock(offset);
        let spot = sim.spot_base_url();
        let swap = sim.swap_base_url();
        let o = output(
            command(
                &[
                    "call",
                    "POST",
                    "/v3/spot/order/new",
                    "symbol=btc_usdt",
                    "type=buy",
                    "price=10000",
                    "amount=0.001",
                    "--base-url",
                    &spot,
                    "--swap-base-url",
                    &swap,
                ],
                Some(&creds),
            ),
            Duration::from_secs(30),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "offset {offset}: {err}");
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert!(v["order_id"].is_string(), "offset {offset}: {v}");
        assert_eq!(sim.control().order_count(sim_account(&sim, &creds)), 1);
    }
}

fn sim_account(sim: &SimHandle, keys: &Keys) -> digifinex_sim::AccountId {
    sim.control().key_account(&keys.0).expect("a key").0
}

/// Before: the private stream's `server.auth` was signed with this machine's clock and refused
/// (30 s off), and nothing followed; `--limit 1` never returned.
#[test]
fn stream_authenticates_with_the_server_clock_30s_behind_and_ahead() {
    for offset in [-30_000i64, 30_000] {
        let (sim, creds) = sim_with_clock(offset);
        let url = sim.spot_ws_url();
        let run = Running::start(command(
            &[
                "stream",
                "--spot-ws-url",
                &url,
                "--limit",
                "1",
                "spot:order:btc_usdt",
            ],
            Some(&creds),
        ));
        let lines = run.until(Duration::from_secs(20), |v| v["type"] == "subscribed");
        let measured = lines
            .iter()
            .find(|v| v["type"] == "clock_measured")
            .unwrap_or_else(|| panic!("offset {offset}: {lines:?}"));
        let ms = measured["offset_ms"].as_i64().unwrap();
        assert!((ms - offset).abs() < 2_000, "offset {offset}: {measured}");
        assert!(
            lines.iter().any(|v| v["type"] == "authenticated"),
            "{lines:?}"
        );
        // An order pushes the one data event the limit waits for.
        rest(&sim, &creds).send(&buy(10_000)).expect("order placed");
        let (code, rest, err) = run.finish(Duration::from_secs(20));
        assert_eq!(code, Some(0), "offset {offset}: {err} {rest:?}");
        assert_eq!(
            rest.last().map(|v| v["type"].clone()),
            Some("spot_orders".into()),
            "{rest:?}"
        );
    }
}

/// Before: a refused auth (or a refused subscription) left the stream waiting forever.
#[test]
fn stream_exits_1_once_every_subscription_is_refused() {
    let (sim, _) = sim_with_clock(0);
    let url = sim.spot_ws_url();
    // A key pair the venue does not know: four refusals with the clock measured right, then
    // the stream gives up, naming the key.
    let stranger = Keys(
        "0123456789abcdef0123456789abcdef".into(),
        "00112233445566778899".into(),
    );
    let run = Running::start(command(
        &[
            "stream",
            "--spot-ws-url",
            &url,
            "--limit",
            "5",
            "spot:order:btc_usdt",
            "spot:balance",
        ],
        Some(&stranger),
    ));
    let (code, lines, err) = run.finish(Duration::from_secs(30));
    assert_eq!(code, Some(1), "{err} {lines:?}");
    let refused: Vec<&Value> = lines
        .iter()
        .filter(|v| v["type"] == "auth_refused")
        .collect();
    assert_eq!(refused.len(), 4, "{lines:?}");
    assert_eq!(refused[3]["retry_in_ms"], Value::Null, "{lines:?}");
    assert_eq!(refused[3]["cause"], "key", "{lines:?}");
    assert!(err.contains("every subscription was refused"), "{err}");
    assert!(err.contains("cause: key"), "{err}");
    assert!(
        err.contains("spot:order:BTC_USDT, spot:balance: server.auth refused 4 times"),
        "{err}"
    );

    // A public subscription the venue refuses.
    let o = output(
        command(
            &[
                "stream",
                "--spot-ws-url",
                &url,
                "--limit",
                "5",
                "spot:ticker:nope_usdt",
            ],
            None,
        ),
        Duration::from_secs(20),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("ticker.subscribe refused"), "{err}");
}

fn track_args(sim: &SimHandle) -> Vec<String> {
    [
        "track",
        "--base-url",
        &sim.spot_base_url(),
        "--swap-base-url",
        &sim.swap_base_url(),
        "--spot-ws-url",
        &sim.spot_ws_url(),
        "--swap-ws-url",
        &sim.swap_ws_url(),
        "--spot",
        "btc_usdt",
        "--swap",
        "BTCUSDTPERP",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Before: with the server 30 s behind, every resync failed on `spot.mytrades` (20022); either
/// way the stream's auth was refused, so an order placed while tracking was never seen.
#[test]
fn track_follows_the_account_with_the_server_clock_30s_behind_and_ahead() {
    for offset in [-30_000i64, 30_000] {
        let (sim, creds) = sim_with_clock(offset);
        let mut args = track_args(&sim);
        args.extend(["--duration-s".to_owned(), "6".to_owned()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = Running::start(command(&args, Some(&creds)));
        let mut lines = run.until(Duration::from_secs(20), |v| {
            v["change"] == "resynced" && v["family"] == "spot"
        });
        // The private channels are acknowledged (the resync they ask for follows).
        std::thread::sleep(Duration::from_millis(800));
        let placed = rest(&sim, &creds)
            .send(&buy(10_000))
            .expect("order placed")
            .order_id;
        lines.extend(run.until(Duration::from_secs(20), |v| {
            v["change"] == "placed" && v["order"]["order_id"] == placed.as_str()
        }));
        let (code, rest, err) = run.finish(Duration::from_secs(20));
        lines.extend(rest);
        assert_eq!(code, Some(0), "offset {offset}: {err}");
        let failed: Vec<&Value> = lines
            .iter()
            .filter(|v| v["change"] == "read_failed")
            .collect();
        assert!(failed.is_empty(), "offset {offset}: {failed:?}");
        assert!(
            lines
                .iter()
                .any(|v| v["family"] == "swap" && v["change"] == "resynced"),
            "offset {offset}: {lines:?}"
        );
        assert!(lines.last().is_some_and(|v| v.get("state").is_some()));
    }
}

/// Before: a key without the read permission made every resync fail, again and again, until
/// `--duration-s`, and `track` exited 0.
#[test]
fn track_exits_1_naming_a_key_without_permission() {
    let (sim, _) = sim_with_clock(0);
    let account = sim.control().create_account();
    let keys = sim
        .control()
        .create_api_key(
            account,
            KeyOptions {
                permissions: Permissions {
                    read: false,
                    trade: false,
                    withdraw: false,
                },
                ..KeyOptions::default()
            },
        )
        .expect("a key");
    let creds = Keys(keys.key, keys.secret);
    let mut args = track_args(&sim);
    args.extend(["--duration-s".to_owned(), "20".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = Instant::now();
    let run = Running::start(command(&args, Some(&creds)));
    let (code, lines, err) = run.finish(Duration::from_secs(40));
    assert_eq!(code, Some(1), "{err} {lines:?}");
    assert!(started.elapsed() < Duration::from_secs(15), "{err}");
    assert!(err.contains("cannot be read"), "{err}");
    assert!(err.contains("cause: permission"), "{err}");
    assert!(
        lines.last().is_some_and(|v| v.get("state").is_some()),
        "{lines:?}"
    );
}
