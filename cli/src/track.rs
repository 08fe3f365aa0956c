//! `digifinex track [--sim | --base-url URL --swap-base-url URL --spot-ws-url URL --swap-ws-url
//! URL] [--spot PAIRS] [--swap IDS] [--duration-s S]`: the account's state as JSON lines
//! (issue 29).
//!
//! One tracked stream per family (`client.stream(family).tracked(..)`: the family's private
//! stream and its tracker, `digifinex_core::track`, whose reads go through the blocking client;
//! the key given once, the REST session's clock offset shared with the stream), each on a
//! thread of its own: each change is one line (`{"family":"spot","change":"placed",...}`, a fill
//! with its `trade_id` and fee); at the end (`--duration-s`, or Ctrl-C) one line
//! `{"state":{"open_orders":[...],"balances":{...},"positions":[...],"unsure":{...}}}`.
//! Credentials come from DIGIFINEX_API_KEY / DIGIFINEX_API_SECRET, or the simulator's demo key
//! with `--sim`.
//!
//! The server's clock is measured (`GET /v3/time`, `GET /swap/v2/public/time`) before the
//! trackers are created, so that their start and their read windows are the server's time; the
//! streams time `server.auth` with the same offset. `track` exits 1, after the state
//! line, naming the cause, once every private subscription was refused for good (the stream gave
//! up on `server.auth`) or a read was refused because of the key (a missing read permission, a
//! wrong key or secret, an IP outside the whitelist): nothing could ever be tracked.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use clap::Args;
use digifinex_core::track::{Change, Refusal, State, TrackConfig};
use digifinex_core::ws::Event;
use digifinex_core::{Credentials, Family};
use digifinex_sim::SimConfig;
use digifinex_ureq::track::TrackedStream;
use digifinex_ureq::Client;

use crate::live::{env_credentials, is_loopback_http, plain_http, start_sim};
use crate::stream::Refusals;
use crate::Failure;

#[derive(Args)]
pub(crate) struct TrackArgs {
    /// Start an embedded simulator and track its demo account.
    #[arg(long, conflicts_with_all = ["base_url", "swap_base_url", "spot_ws_url", "swap_ws_url"])]
    sim: bool,
    /// Spot REST base URL (default `https://openapi.digifinex.com/v3`).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Swap REST host URL (default `https://openapi.digifinex.com`).
    #[arg(long, value_name = "URL")]
    swap_base_url: Option<String>,
    /// Spot websocket URL (default `wss://openapi.digifinex.com/ws/v1/`; ws:// only to
    /// loopback hosts).
    #[arg(long, value_name = "URL")]
    spot_ws_url: Option<String>,
    /// Swap websocket URL (default `wss://openapi.digifinex.com/swap_ws/v2/`).
    #[arg(long, value_name = "URL")]
    swap_ws_url: Option<String>,
    /// Spot pairs to track, comma-separated (`btc_usdt,eth_usdt`).
    #[arg(long, value_name = "PAIRS", value_delimiter = ',')]
    spot: Vec<String>,
    /// Swap instruments to track, comma-separated (`BTCUSDTPERP`).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    swap: Vec<String>,
    /// Stop after S seconds (default: at Ctrl-C).
    #[arg(long, value_name = "S")]
    duration_s: Option<u64>,
    /// Seconds between periodic resyncs (default 60).
    #[arg(long, value_name = "S", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    resync_s: u64,
}

/// Whether a websocket URL may be used: `wss://`, or `ws://` to this machine (then `true`).
fn ws_plain(flag: &str, url: &str) -> Result<bool, Failure> {
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("wss://") {
        return Ok(false);
    }
    match lower.strip_prefix("ws://") {
        Some(rest) if is_loopback_http(&format!("http://{rest}")) => Ok(true),
        _ => Err(Failure::Usage(format!(
            "{flag} {url}: a websocket URL starts with wss:// (or ws:// to loopback)"
        ))),
    }
}

/// What a family's thread reports to the printing loop.
enum Report {
    /// A change of the family's account.
    Change(Family, Change),
    /// A subscription's acknowledgement or refusal (for [`Refusals`]).
    Event(Event),
    /// A read was refused because of the key: the failure's text.
    Refused(String),
    /// The thread ended: the family's state.
    State(Family, State),
}

/// Prints a change, one line, tagged with the family.
fn print_change(out: &mut impl Write, family: Family, change: &Change) -> Result<(), Failure> {
    let json = serde_json::to_string(change)
        .map_err(|e| Failure::Other(format!("cannot print a change: {e}")))?;
    let rest = json.get(1..).unwrap_or("}");
    writeln!(out, "{{\"family\":\"{family}\",{rest}")?;
    Ok(())
}

/// The final line: open orders (each with its family), balances and unsure reasons per
/// family, positions.
fn state_line(states: &[(Family, State)]) -> serde_json::Value {
    let mut open = Vec::new();
    let mut balances = serde_json::Map::new();
    let mut unsure = serde_json::Map::new();
    let mut positions = Vec::new();
    for (family, st) in states {
        for o in &st.open_orders {
            let mut v = serde_json::json!({ "family": family });
            if let (Some(m), Ok(serde_json::Value::Object(o))) =
                (v.as_object_mut(), serde_json::to_value(o))
            {
                m.extend(o);
            }
            open.push(v);
        }
        balances.insert(family.to_string(), serde_json::json!(st.balances));
        unsure.insert(family.to_string(), serde_json::json!(st.unsure));
        positions.extend(st.positions.iter().map(|p| serde_json::json!(p)));
    }
    serde_json::json!({ "state": {
        "open_orders": open,
        "balances": balances,
        "positions": positions,
        "unsure": unsure,
    }})
}

/// Why a read refused because of the key stops `track`.
fn refused_text(family: Family, r: &Refusal) -> String {
    let cause = if r.permission {
        "permission (the key may not read the account: enable its read permission)"
    } else {
        "key (the key pair was refused: check the key, the secret, its expiry and its IP \
         whitelist)"
    };
    format!(
        "the {family} account cannot be read: {} was refused ({}); cause: {cause}",
        r.endpoint, r.message
    )
}

/// Runs one family's stream and tracker until `quit` (or the stream's end): its changes,
/// subscription events and a refused read go to `tx`, then its state.
fn follow(
    family: Family,
    mut tracked: TrackedStream,
    quit: &AtomicBool,
    tx: &mpsc::Sender<Report>,
) {
    let mut refused_sent = false;
    while !quit.load(Ordering::SeqCst) && !tracked.is_closed() {
        let event = tracked.next_event_timeout(Duration::from_millis(200));
        while let Some(change) = tracked.poll_change() {
            if tx.send(Report::Change(family, change)).is_err() {
                return;
            }
        }
        if let Some(r) = tracked.tracker().refused() {
            if !refused_sent {
                refused_sent = true;
                let _ = tx.send(Report::Refused(refused_text(family, r)));
            }
        }
        if let Some(
            e @ (Event::Subscribed { .. } | Event::Refused { .. } | Event::AuthRefused { .. }),
        ) = event
        {
            let _ = tx.send(Report::Event(e));
        }
    }
    while let Some(change) = tracked.poll_change() {
        let _ = tx.send(Report::Change(family, change));
    }
    let _ = tx.send(Report::State(family, tracked.state()));
}

pub(crate) fn run(args: TrackArgs) -> Result<(), Failure> {
    if args.spot.is_empty() && args.swap.is_empty() {
        return Err(Failure::Usage(
            "nothing to track: give --spot PAIRS and/or --swap IDS (comma-separated)".to_owned(),
        ));
    }
    let mut creds = env_credentials()?;
    let mut builder = Client::builder();
    // Kept alive while tracking.
    let mut _sim = None;
    let (spot_ws, swap_ws) = if args.sim {
        let sim = start_sim(SimConfig::default())?;
        if creds.is_none() {
            let demo = sim.control().demo_account();
            creds = Some(Credentials::new(demo.keys.key, demo.keys.secret));
        }
        builder = builder
            .spot_base_url(sim.spot_base_url())
            .swap_base_url(sim.swap_base_url())
            .allow_http(true);
        let urls = (Some(sim.spot_ws_url()), Some(sim.swap_ws_url()));
        _sim = Some(sim);
        urls
    } else {
        let plain = plain_http("--base-url", args.base_url.as_deref(), false)?
            | plain_http("--swap-base-url", args.swap_base_url.as_deref(), false)?;
        if let Some(u) = &args.base_url {
            builder = builder.spot_base_url(u.clone());
        }
        if let Some(u) = &args.swap_base_url {
            builder = builder.swap_base_url(u.clone());
        }
        builder = builder.allow_http(plain);
        (args.spot_ws_url.clone(), args.swap_ws_url.clone())
    };
    let Some(creds) = creds else {
        return Err(Failure::Usage(
            "tracking an account needs its key pair: DIGIFINEX_API_KEY and DIGIFINEX_API_SECRET \
             (or --sim)"
                .into(),
        ));
    };
    let client = builder.credentials(creds).build()?;
    let config = TrackConfig::default().resync_interval(Duration::from_secs(args.resync_s));
    let (tx, rx) = mpsc::channel::<Report>();
    let quit = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    let mut all_subs = Vec::new();
    for (family, markets) in [(Family::Spot, &args.spot), (Family::Swap, &args.swap)] {
        if markets.is_empty() {
            continue;
        }
        let (flag, url) = match family {
            Family::Spot => ("--spot-ws-url", spot_ws.clone()),
            _ => ("--swap-ws-url", swap_ws.clone()),
        };
        // The tracker's start is the server's time: measured first (a failure here is left to
        // the reads, which measure it again before their windows). The stream keeps the
        // session's key, clock and offset.
        if !client.session().clock_measured() {
            let _ = client.sync_time(family);
        }
        let mut b = client.stream(family);
        if let Some(url) = url {
            if ws_plain(flag, &url)? {
                b = b.allow_http(true);
            }
            b = b.url(url);
        }
        let tracked = b
            .tracked(markets, config.clone())
            .map_err(|e| Failure::Usage(e.to_string()))?;
        all_subs.extend(tracked.tracker().subscriptions());
        let (tx, quit) = (tx.clone(), quit.clone());
        let thread = std::thread::Builder::new()
            .name(format!("track-{family}"))
            .spawn(move || follow(family, tracked, &quit, &tx))
            .map_err(|e| Failure::Other(format!("cannot start a stream thread: {e}")))?;
        threads.push(thread);
    }
    drop(tx);
    let stop = crate::live::interrupt_flag();
    let end = args
        .duration_s
        .map(|s| Instant::now() + Duration::from_secs(s));
    let mut out = std::io::stdout().lock();
    let mut refusals = Refusals::new(all_subs);
    let mut failure = None;
    let mut states: Vec<(Family, State)> = Vec::new();
    loop {
        let now = Instant::now();
        if stop.load(Ordering::SeqCst) || end.is_some_and(|e| now >= e) {
            break;
        }
        // Wake for the next report, the end, or a Ctrl-C check.
        let mut wait = Duration::from_millis(500);
        if let Some(e) = end {
            wait = wait.min(e.saturating_duration_since(now));
        }
        match rx.recv_timeout(wait) {
            Ok(Report::Change(family, change)) => {
                print_change(&mut out, family, &change)?;
                out.flush()?;
            }
            Ok(Report::Event(event)) => {
                if let Some(refused) = refusals.observe(&event) {
                    failure = Some(refused);
                    break;
                }
            }
            Ok(Report::Refused(text)) => {
                failure = Some(text);
                break;
            }
            Ok(Report::State(family, state)) => states.push((family, state)),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
        }
    }
    quit.store(true, Ordering::SeqCst);
    // The changes each thread still reports, then its state.
    for report in rx {
        match report {
            Report::Change(family, change) => print_change(&mut out, family, &change)?,
            Report::State(family, state) => states.push((family, state)),
            Report::Event(_) | Report::Refused(_) => {}
        }
    }
    for thread in threads {
        let _ = thread.join();
    }
    states.sort_by_key(|(family, _)| *family != Family::Spot);
    writeln!(out, "{}", state_line(&states))?;
    out.flush()?;
    match failure {
        Some(f) => Err(Failure::Other(f)),
        None => Ok(()),
    }
}
