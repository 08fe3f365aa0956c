//! `digifinex track [--sim | --base-url URL --swap-base-url URL --spot-ws-url URL --swap-ws-url
//! URL] [--spot PAIRS] [--swap IDS] [--duration-s S]`: the account's state as JSON lines
//! (issue 29).
//!
//! One tracker per family (`digifinex_core::track`) driven by the blocking client
//! (`digifinex_ureq::track`) and fed by that family's private stream (`digifinex_ureq::ws`, one
//! thread per socket): each change is one line (`{"family":"spot","change":"placed",...}`, a fill
//! with its `trade_id` and fee); at the end (`--duration-s`, or Ctrl-C) one line
//! `{"state":{"open_orders":[...],"balances":{...},"positions":[...],"unsure":{...}}}`.
//! Credentials come from DIGIFINEX_API_KEY / DIGIFINEX_API_SECRET, or the simulator's demo key
//! with `--sim`.
//!
//! The server's clock is measured (`GET /v3/time`, `GET /swap/v2/public/time`) before the
//! trackers are created, so that their start and their read windows are the server's time; the
//! streams measure it on their sockets before `server.auth`. `track` exits 1, after the state
//! line, naming the cause, once every private subscription was refused for good (the stream gave
//! up on `server.auth`) or a read was refused because of the key (a missing read permission, a
//! wrong key or secret, an IP outside the whitelist): nothing could ever be tracked.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use clap::Args;
use digifinex_core::track::{TrackConfig, Tracker};
use digifinex_core::ws::{Event, Subscription};
use digifinex_core::{Credentials, Family};
use digifinex_sim::SimConfig;
use digifinex_ureq::track::Tracking;
use digifinex_ureq::ws::StreamBuilder;
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

/// Stops at Ctrl-C: a flag the loop checks.
fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        if rt.block_on(tokio::signal::ctrl_c()).is_ok() {
            set.store(true, Ordering::SeqCst);
        }
    });
    flag
}

/// The private subscriptions that feed a tracker of `family` over `markets`.
fn subscriptions(family: Family, markets: &[String]) -> Result<Vec<Subscription>, Failure> {
    let texts: Vec<String> = match family {
        Family::Spot => markets
            .iter()
            .map(|m| format!("spot:order:{m}"))
            .chain(["spot:balance".to_owned()])
            .collect(),
        _ => vec![
            "swap:order".to_owned(),
            "swap:account".to_owned(),
            "swap:position".to_owned(),
        ],
    };
    texts
        .iter()
        .map(|t| t.parse().map_err(|e| Failure::Usage(format!("{t}: {e}"))))
        .collect()
}

/// Prints the changes waiting, one line each, tagged with the family.
fn print_changes(
    out: &mut impl Write,
    family: Family,
    tracking: &mut Tracking,
) -> Result<(), Failure> {
    while let Some(change) = tracking.poll_change() {
        let json = serde_json::to_string(&change)
            .map_err(|e| Failure::Other(format!("cannot print a change: {e}")))?;
        let rest = json.get(1..).unwrap_or("}");
        writeln!(out, "{{\"family\":\"{family}\",{rest}")?;
    }
    out.flush()?;
    Ok(())
}

/// The final line: open orders (each with its family), balances and unsure reasons per
/// family, positions.
fn state_line(trackings: &[(Family, Tracking)]) -> serde_json::Value {
    let mut open = Vec::new();
    let mut balances = serde_json::Map::new();
    let mut unsure = serde_json::Map::new();
    let mut positions = Vec::new();
    for (family, t) in trackings {
        let st = t.state();
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
    let client = builder.credentials(creds.clone()).build()?;
    let config = TrackConfig::default().resync_interval(Duration::from_secs(args.resync_s));
    let (tx, rx) = mpsc::channel::<(Family, Event)>();
    let mut trackings: Vec<(Family, Tracking)> = Vec::new();
    let mut all_subs = Vec::new();
    for (family, markets) in [(Family::Spot, &args.spot), (Family::Swap, &args.swap)] {
        if markets.is_empty() {
            continue;
        }
        let (flag, url) = match family {
            Family::Spot => ("--spot-ws-url", spot_ws.clone()),
            _ => ("--swap-ws-url", swap_ws.clone()),
        };
        let mut b = StreamBuilder::new(family).credentials(creds.clone());
        if let Some(url) = url {
            if ws_plain(flag, &url)? {
                b = b.allow_http(true);
            }
            b = b.url(url);
        }
        for s in subscriptions(family, markets)? {
            all_subs.push(s.clone());
            b = b.subscribe(s);
        }
        let stream = b.build().map_err(|e| Failure::Usage(e.to_string()))?;
        // The tracker's start is the server's time: measured first (a failure here is left to
        // the reads, which measure it again before their windows).
        if !client.session().clock_measured() {
            let _ = client.sync_time(family);
        }
        let tracker = Tracker::new(family, markets, config.clone(), client.session().now());
        trackings.push((family, client.tracker(tracker)));
        let tx = tx.clone();
        std::thread::Builder::new()
            .name(format!("track-{family}"))
            .spawn(move || {
                for event in stream {
                    if tx.send((family, event)).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| Failure::Other(format!("cannot start a stream thread: {e}")))?;
    }
    drop(tx);
    let stop = interrupt_flag();
    let end = args
        .duration_s
        .map(|s| Instant::now() + Duration::from_secs(s));
    let mut out = std::io::stdout().lock();
    let mut refusals = Refusals::new(all_subs);
    let mut failure = None;
    loop {
        for (family, t) in &mut trackings {
            t.sync();
            print_changes(&mut out, *family, t)?;
            if let Some(r) = t.tracker().refused() {
                let cause = if r.permission {
                    "permission (the key may not read the account: enable its read permission)"
                } else {
                    "key (the key pair was refused: check the key, the secret, its expiry and \
                     its IP whitelist)"
                };
                failure.get_or_insert(format!(
                    "the {family} account cannot be read: {} was refused ({}); cause: {cause}",
                    r.endpoint, r.message
                ));
            }
        }
        if failure.is_some() {
            break;
        }
        let now = Instant::now();
        if stop.load(Ordering::SeqCst) || end.is_some_and(|e| now >= e) {
            break;
        }
        // Wake for the next event, the next read due, the end, or a Ctrl-C check.
        let mut wait = trackings
            .iter()
            .map(|(_, t)| t.next_sync_in())
            .min()
            .unwrap_or(Duration::from_secs(1))
            .min(Duration::from_millis(500));
        if let Some(e) = end {
            wait = wait.min(e.saturating_duration_since(now));
        }
        match rx.recv_timeout(wait) {
            Ok((family, event)) => {
                if let Some((_, t)) = trackings.iter_mut().find(|(f, _)| *f == family) {
                    t.on_event(&event);
                }
                if let Some(refused) = refusals.observe(&event) {
                    failure = Some(refused);
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                std::thread::sleep(wait);
            }
        }
    }
    writeln!(out, "{}", state_line(&trackings))?;
    out.flush()?;
    match failure {
        Some(f) => Err(Failure::Other(f)),
        None => Ok(()),
    }
}
