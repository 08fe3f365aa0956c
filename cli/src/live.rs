//! `call` and `sim`: the commands that open connections.

use std::io::{self, Write};
use std::time::Duration;

use clap::{Args, ValueEnum};
use digifinex_core::reconcile::Write as WriteRequest;
use digifinex_core::{Credentials, Error};
use digifinex_sim::options::{Parsed, SimOptions, OPTIONS_HELP};
use digifinex_sim::{Sim, SimConfig, SimHandle};
use digifinex_ureq::Client;

use crate::{lookup, needs_key, print_json, table, wire_params, Failure};

/// Environment variable holding the API access key.
pub(crate) const KEY_VAR: &str = "DIGIFINEX_API_KEY";
/// Environment variable holding the API secret.
pub(crate) const SECRET_VAR: &str = "DIGIFINEX_API_SECRET";

/// How `call` prints its result.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// The typed result as pretty JSON (decimals as strings in plain notation).
    Json,
    /// Aligned columns, for order books, tickers, balances, orders and swap positions.
    Table,
}

// No `Debug`: this holds the secret.
#[derive(Args)]
#[command(after_help = crate::reconcile::EXIT_CODES_HELP)]
pub(crate) struct CallArgs {
    /// HTTP method (GET or POST).
    method: String,
    /// Path as sent after the host, e.g. /v3/order_book or /swap/v2/public/depth.
    path: String,
    /// Wire parameters as key=value (split at the first `=`).
    #[arg(value_name = "KEY=VALUE")]
    params: Vec<String>,
    /// A JSON body: an object whose members are parameters, or the array of a swap batch.
    #[arg(long, value_name = "BODY")]
    json: Option<String>,
    /// Start an embedded simulator with a funded demo account and send there (the demo key
    /// pair is used unless a key pair is given).
    #[arg(long, conflicts_with_all = ["base_url", "swap_base_url"])]
    sim: bool,
    /// API access key (requires --secret; wins over DIGIFINEX_API_KEY). Prefer the variables:
    /// arguments are visible to other users of this machine.
    #[arg(long, value_name = "K", requires = "secret")]
    key: Option<String>,
    /// API secret key (requires --key; wins over DIGIFINEX_API_SECRET); never printed.
    #[arg(long, value_name = "S", requires = "key")]
    secret: Option<String>,
    /// Spot/margin base URL (default `https://openapi.digifinex.com/v3`); plain http only for
    /// loopback hosts.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Swap host URL (default `https://openapi.digifinex.com`); plain http only for loopback
    /// hosts.
    #[arg(long, value_name = "URL")]
    swap_base_url: Option<String>,
    /// Value of the ACCESS-RECV-WINDOW header on signed spot requests.
    #[arg(long, value_name = "MS")]
    recv_window: Option<u64>,
    /// Allow a plain `http://` base URL to a machine other than this one (the API key and the
    /// signatures then travel in clear text). Loopback URLs need no flag.
    #[arg(long)]
    allow_http: bool,
    /// Append the exchange (request, answer, timing; key, secret and signature redacted) to
    /// FILE as a JSON line (see `digifinex replay` and `digifinex decode --from`).
    #[arg(long, value_name = "FILE")]
    record: Option<std::path::PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
    /// Limit for one attempt, connecting to the last body byte, in seconds (default 15).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: Option<u64>,
    /// An order off the price or amount grid is rounded instead of refused: `passive` moves a
    /// buy's price down and a sell's up to the tick, `nearest` to the nearest tick; amounts
    /// are truncated to the step. The order is then checked like any other.
    #[arg(long, value_enum, value_name = "MODE", conflicts_with = "unchecked")]
    round: Option<crate::checks::Round>,
    /// Send an order placement as given, without checking it against the market rules (which
    /// cost one public read, GET /v3/trades/symbols or GET /swap/v2/public/instruments).
    #[arg(long)]
    unchecked: bool,
    /// Do not read the write's evidence set before sending it (for an order: the pair's open
    /// orders and recent history, 2 reads of weight 1 each; for a swap order 2 reads of weight
    /// 2 and 5 per instrument, after a clock sync).
    /// Saves that weight; a write that took effect but whose answer was lost is then usually
    /// reconciled as ambiguous instead of applied.
    #[arg(long)]
    no_snapshot: bool,
}

/// The options of `digifinex sim`, for `digifinex help sim`: the simulator's own (shared with
/// the `digifinex-sim` binary).
pub(crate) fn sim_help() -> String {
    format!(
        "Options (the same as `digifinex-sim`, the simulator's own binary, for those who do not \
         want this tool):\n{OPTIONS_HELP}"
    )
}

/// `digifinex sim`'s arguments, read by the simulator's own option parser
/// ([`digifinex_sim::options`]), so that every option of `digifinex-sim` works here too.
#[derive(Args)]
pub(crate) struct SimArgs {
    /// The simulator's options (see below).
    #[arg(
        value_name = "OPTIONS",
        num_args = 0..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    args: Vec<String>,
}

/// The key pair from the environment: both variables or neither.
pub(crate) fn env_credentials() -> Result<Option<Credentials>, Failure> {
    let read = |name: &str| match std::env::var(name) {
        Ok(v) if !v.is_empty() => Ok(Some(v)),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(Failure::Usage(format!("{name} is not valid UTF-8")))
        }
    };
    match (read(KEY_VAR)?, read(SECRET_VAR)?) {
        (Some(k), Some(s)) => Ok(Some(Credentials::new(k, s))),
        (None, None) => Ok(None),
        _ => Err(Failure::Usage(format!(
            "set both {KEY_VAR} and {SECRET_VAR}, or neither"
        ))),
    }
}

/// Starts the embedded simulator of `--sim` and `demo`.
pub(crate) fn start_sim(config: SimConfig) -> Result<SimHandle, Failure> {
    Sim::start(config).map_err(|e| Failure::Other(format!("the simulator did not start: {e}")))
}

/// Stops at Ctrl-C: a flag the command's loop checks.
pub(crate) fn interrupt_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let flag = std::sync::Arc::new(AtomicBool::new(false));
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

/// `builder` with `--base-url` and `--swap-base-url`, plain http decided per URL: each
/// plain-http URL must be loopback or explicitly allowed (`--allow-http`), so a loopback spot
/// URL never lets a remote swap URL go out in clear text.
pub(crate) fn with_base_urls(
    mut builder: digifinex_ureq::ClientBuilder,
    base_url: Option<&str>,
    swap_base_url: Option<&str>,
    allow_http: bool,
) -> Result<digifinex_ureq::ClientBuilder, Failure> {
    let spot_http = plain_http("--base-url", base_url, allow_http)?;
    let swap_http = plain_http("--swap-base-url", swap_base_url, allow_http)?;
    builder = builder.allow_http(spot_http || swap_http);
    if let Some(url) = base_url {
        builder = builder.spot_base_url(url.to_owned());
    }
    if let Some(url) = swap_base_url {
        builder = builder.swap_base_url(url.to_owned());
    }
    Ok(builder)
}

/// Whether a base URL is plain http to this machine (the simulator): the only place a key may
/// travel without TLS.
pub(crate) use digifinex_ureq::is_loopback_http;

/// Whether `url` (given with `flag`) is plain http that may be used: loopback, or another host
/// with `--allow-http`; any other plain-http URL is a usage error naming the URL and the flag,
/// and so is a URL that is neither `https://` nor `http://`.
pub(crate) fn plain_http(flag: &str, url: Option<&str>, allowed: bool) -> Result<bool, Failure> {
    let Some(url) = url else {
        return Ok(false);
    };
    let scheme = |s: &str| {
        url.get(..s.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(s))
    };
    if scheme("https://") {
        return Ok(false);
    }
    if !scheme("http://") {
        return Err(Failure::Usage(format!(
            "{flag} {url} is not an http(s) URL: give one like https://openapi.digifinex.com"
        )));
    }
    if allowed || is_loopback_http(url) {
        return Ok(true);
    }
    Err(Failure::Usage(format!(
        "{flag} {url} is plain http to another machine: the API key and signatures would \
         travel in clear text; use https, or pass --allow-http to send it anyway"
    )))
}

pub(crate) fn call(args: CallArgs) -> Result<(), Failure> {
    if args.path.contains('?') {
        return Err(Failure::Usage(
            "give parameters as KEY=VALUE arguments, not in PATH".to_owned(),
        ));
    }
    let (entry, vars) = lookup(&args.method, &args.path)?;
    let params = wire_params(vars, &args.params, args.json.as_deref())?;
    let shown = format!("{} {}", args.method.to_ascii_uppercase(), args.path);
    let layout = match args.format {
        Format::Json => None,
        Format::Table => Some(table::layout(entry).ok_or_else(|| {
            Failure::Usage(format!("no table layout for `{shown}`: use --format json"))
        })?),
    };

    let mut credentials = match (args.key, args.secret) {
        (Some(k), Some(s)) => Some(Credentials::new(k, s)),
        _ => env_credentials()?,
    };
    if entry.meta.signed && credentials.is_none() && !args.sim {
        return Err(Failure::Usage(needs_key(&shown, true)));
    }
    let failed = |error: Error| Failure::Call {
        error,
        endpoint: shown.clone(),
        family: entry.meta.family,
        live: true,
    };

    let mut builder = Client::builder();
    let sim = if args.sim {
        let sim = start_sim(SimConfig::default())?;
        if credentials.is_none() {
            let demo = sim.control().demo_account();
            credentials = Some(Credentials::new(demo.keys.key, demo.keys.secret));
        }
        builder = builder
            .spot_base_url(sim.spot_base_url())
            .swap_base_url(sim.swap_base_url())
            .allow_http(true);
        Some(sim)
    } else {
        builder = with_base_urls(
            builder,
            args.base_url.as_deref(),
            args.swap_base_url.as_deref(),
            args.allow_http,
        )?;
        None
    };
    if let Some(path) = &args.record {
        let (mut recorder, appending) = digifinex_core::record::Recorder::open_append(path)
            .map_err(|e| {
                Failure::Usage(format!(
                    "cannot open the recording {}: {e} (check the --record path)",
                    path.display()
                ))
            })?;
        if appending.cut_bytes > 0 {
            eprintln!(
                "the recording {} ended in a line cut by a crash: cut {} byte(s) back to the last \
                 whole line before appending",
                path.display(),
                appending.cut_bytes
            );
        } else if appending.newline_added {
            eprintln!(
                "the recording {} ended without its last newline: added it before appending",
                path.display()
            );
        }
        if let Some(c) = &credentials {
            recorder = recorder.redacting(c);
        }
        builder = builder.recorder(std::sync::Arc::new(recorder));
    }
    if let Some(c) = credentials {
        builder = builder.credentials(c);
    }
    if let Some(w) = args.recv_window {
        builder = builder.recv_window(w);
    }
    if let Some(secs) = args.timeout {
        builder = builder.timeout(Duration::from_secs(secs));
    }
    // The URLs were checked above, in this tool's terms (`--allow-http`).
    let client = builder.build()?;

    // A write, typed: checked (placements), snapshotted, reconciled if its outcome is unknown.
    let write = if entry.meta.idempotent {
        None
    } else {
        WriteRequest::from_params(entry.meta.name, &mut params.clone())
    };
    let started = (entry.call)(client.session(), params).map_err(failed)?;
    let write = match write {
        Some(w) => Some(w.map_err(failed)?),
        None => None,
    };
    let write = match write {
        Some(w) if !args.unchecked => Some(crate::checks::check(&client, w, args.round)?),
        other => other,
    };
    let prior = match &write {
        Some(w) if !args.no_snapshot => crate::checks::snapshot(&client, w)?,
        _ => None,
    };
    let call = match &write {
        Some(w) => w.json_call(client.session()),
        None => started,
    };
    let value = match client.drive(call) {
        Ok(answer) => answer.value,
        Err(e @ Error::OutcomeUnknown { .. }) => {
            let e = match prior {
                Some(p) => e.with_prior(p),
                None => e,
            };
            return Err(crate::reconcile::after_unknown(&client, e));
        }
        Err(e) => return Err(failed(e)),
    };
    drop(sim);

    match layout {
        None => print_json(&value)?,
        Some(layout) => {
            let text = table::render(layout, &value);
            let mut out = io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    not_cancelled(
        entry.meta.name,
        &vars_of(&args.path),
        args.json.as_deref(),
        &value,
    )
}

/// The `{market}` of a spot path as given (`/v3/margin/order/cancel`: `margin`).
fn vars_of(path: &str) -> String {
    path.strip_prefix("/v3/")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or("spot")
        .to_owned()
}

/// A cancel that left orders uncancelled is a failure (exit 1) naming them: the spot
/// `order/cancel` answer lists them in `error`; a swap `batch_cancel_order` answer lists the
/// ids it cancelled, so the others of the request (`--json`) were not.
fn not_cancelled(
    name: &str,
    market: &str,
    json: Option<&str>,
    value: &serde_json::Value,
) -> Result<(), Failure> {
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|id| match id {
                        serde_json::Value::String(s) => Some(s.clone()),
                        serde_json::Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (failed, asked, check) = match name {
        "spot.order_cancel" => {
            let failed = ids(&value["error"]);
            let asked = failed.len().saturating_add(ids(&value["success"]).len());
            let check = format!(
                "`digifinex call GET /v3/{market}/order order_id={}` shows them",
                failed.join(",")
            );
            (failed, asked, check)
        }
        "swap.batch_cancel_order" => {
            let request: Vec<serde_json::Value> = json
                .and_then(|j| serde_json::from_str(j).ok())
                .unwrap_or_default();
            let requested: Vec<String> = request
                .iter()
                .flat_map(|o| ids(&serde_json::Value::Array(vec![o["order_id"].clone()])))
                .collect();
            let cancelled = ids(value);
            let failed: Vec<String> = requested
                .iter()
                .filter(|id| !cancelled.contains(id))
                .cloned()
                .collect();
            let check = match failed.first() {
                Some(id) => format!(
                    "`digifinex call GET /swap/v2/trade/order_info order_id={id}` shows one"
                ),
                None => String::new(),
            };
            (failed, requested.len(), check)
        }
        _ => return Ok(()),
    };
    if failed.is_empty() {
        return Ok(());
    }
    Err(Failure::Other(format!(
        "not cancelled: {} ({} of {asked} orders); they may be finished already or not exist; \
         {check}",
        failed.join(", "),
        failed.len()
    )))
}

pub(crate) fn sim(args: SimArgs) -> Result<(), Failure> {
    let options = match SimOptions::parse(args.args).map_err(sim_usage)? {
        Parsed::Run(options) => options,
        Parsed::Help => {
            let mut out = io::stdout().lock();
            writeln!(
                out,
                "Runs the local simulator (the same as `digifinex-sim`) and prints its URLs and \
                 a demo key pair; serves until interrupted.\n\nusage: digifinex sim \
                 [OPTIONS]\n\n{OPTIONS_HELP}\n\n`digifinex-sim` (crate digifinex-sim) is the \
                 same simulator with the same options, for those who do not want this tool."
            )?;
            out.flush()?;
            return Ok(());
        }
    };
    let config = options.config().map_err(sim_usage)?;
    let sim = start_sim(config)?;
    let demo = sim.control().demo_account();
    let spot = sim.spot_base_url();
    let swap = sim.swap_base_url();
    {
        let mut out = io::stdout().lock();
        writeln!(out, "spot_base_url: {spot}")?;
        writeln!(out, "swap_base_url: {swap}")?;
        writeln!(out, "control_url: {}", sim.control_url())?;
        writeln!(out, "spot_ws_url: {}", sim.spot_ws_url())?;
        writeln!(out, "swap_ws_url: {}", sim.swap_ws_url())?;
        writeln!(out, "demo_account: {}", demo.account)?;
        writeln!(out, "demo_key: {}", demo.keys.key)?;
        writeln!(out, "demo_secret: {}", demo.keys.secret)?;
        writeln!(
            out,
            "note: demo_key/demo_secret belong to this local simulator only and are printed on \
             purpose; real keys are never printed"
        )?;
        out.flush()?;
    }
    eprintln!(
        "try: {KEY_VAR}={} {SECRET_VAR}=... digifinex call GET /v3/spot/assets --base-url {spot} \
         --swap-base-url {swap}",
        demo.keys.key
    );
    eprintln!("serving until interrupted (Ctrl-C)");
    sim.wait();
    Ok(())
}

/// A usage error of `digifinex sim`, pointing at its help.
fn sim_usage(message: String) -> Failure {
    Failure::Usage(format!("{message} (see `digifinex sim --help`)"))
}

#[cfg(test)]
mod tests {
    use super::{is_loopback_http, plain_http};

    #[test]
    fn sim_refuses_a_public_address_without_public() {
        let args = super::SimArgs {
            args: vec!["--addr".into(), "0.0.0.0:0".into()],
        };
        match super::sim(args) {
            Err(crate::Failure::Usage(m)) => assert_eq!(
                m,
                "refusing to listen on 0.0.0.0:0: it is not a loopback address, and the \
                 simulator's control API (/__sim) is unauthenticated and hands out API secrets \
                 to anyone who can reach it; pass --public to listen there anyway (see \
                 `digifinex sim --help`)"
            ),
            _ => panic!("a public address without --public must be a usage error"),
        }
    }

    /// The help lists the options the shared parser reads, indented.
    #[test]
    fn sim_help_is_the_simulators() {
        assert!(super::sim_help().ends_with(super::OPTIONS_HELP));
        assert!(super::OPTIONS_HELP.starts_with("  --addr ADDR"));
    }

    #[test]
    fn plain_http_is_decided_per_url() {
        let ok = |flag, url, allowed| matches!(plain_http(flag, url, allowed), Ok(true));
        let https = |flag, url, allowed| matches!(plain_http(flag, url, allowed), Ok(false));
        assert!(https("--base-url", None, false));
        assert!(https("--base-url", Some("https://example.com/v3"), false));
        assert!(ok("--base-url", Some("http://127.0.0.1:1/v3"), false));
        assert!(ok("--base-url", Some("HTTP://example.com/v3"), true));
        match plain_http("--swap-base-url", Some("http://example.com"), false) {
            Err(crate::Failure::Usage(m)) => {
                assert!(m.contains("--swap-base-url http://example.com"), "{m}");
                assert!(m.contains("--allow-http"), "{m}");
            }
            _ => panic!("a remote plain-http URL must be refused"),
        }
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback_http("http://127.0.0.1:8080/v3"));
        assert!(is_loopback_http("HTTP://localhost/v3"));
        assert!(is_loopback_http("http://[::1]:99"));
        assert!(!is_loopback_http("http://example.com/v3"));
        assert!(!is_loopback_http("http://127.0.0.1.example.com/"));
        assert!(!is_loopback_http("https://127.0.0.1/"));
        assert!(!is_loopback_http("http://127.0.0.1:80@example.com/"));
    }
}
