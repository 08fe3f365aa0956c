//! `call` and `sim`: the commands that open connections.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, ValueEnum};
use digifinex_core::{Credentials, Error};
use digifinex_sim::{Sim, SimConfig, SimHandle};
use digifinex_ureq::Client;

use crate::{lookup, print_json, table, wire_params, Failure};

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

// No `Debug`: it never holds a secret, but keep it symmetric with `RequestArgs`.
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
    /// pair is used unless DIGIFINEX_API_KEY / DIGIFINEX_API_SECRET are set).
    #[arg(long, conflicts_with_all = ["base_url", "swap_base_url"])]
    sim: bool,
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
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
    /// Limit for one attempt, connecting to the last body byte, in seconds (default 15).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: Option<u64>,
}

#[derive(Args)]
pub(crate) struct SimArgs {
    /// Listen address (port 0: any free port). Only loopback addresses unless --public is
    /// given.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Allow a non-loopback --addr such as 0.0.0.0:8080. The control API (/__sim) is
    /// unauthenticated and hands out API secrets to anyone who can reach the port.
    #[arg(long)]
    public: bool,
    /// Seed of every generated value (books, ids, keys).
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
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

/// Whether a base URL is plain http to this machine (the simulator): the only place a key may
/// travel without TLS.
fn is_loopback_http(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return false;
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.split(':').next().unwrap_or(""),
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether `url` (given with `flag`) is plain http that may be used: loopback, or another host
/// with `--allow-http`; any other plain-http URL is a usage error naming the URL and the flag.
fn plain_http(flag: &str, url: Option<&str>, allowed: bool) -> Result<bool, Failure> {
    let Some(url) = url else {
        return Ok(false);
    };
    let is_http = url
        .get(..7)
        .is_some_and(|head| head.eq_ignore_ascii_case("http://"));
    if !is_http {
        return Ok(false);
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

    let mut credentials = env_credentials()?;
    if entry.meta.signed && credentials.is_none() && !args.sim {
        return Err(Failure::Usage(format!(
            "`{shown}` is a private endpoint: set {KEY_VAR} and {SECRET_VAR} (or use --sim)"
        )));
    }

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
        // Decided per URL: each plain-http URL must be loopback or explicitly allowed, so a
        // loopback spot URL never lets a remote swap URL go out in clear text.
        let spot_http = plain_http("--base-url", args.base_url.as_deref(), args.allow_http)?;
        let swap_http = plain_http(
            "--swap-base-url",
            args.swap_base_url.as_deref(),
            args.allow_http,
        )?;
        builder = builder.allow_http(spot_http || swap_http);
        if let Some(url) = args.base_url {
            builder = builder.spot_base_url(url);
        }
        if let Some(url) = args.swap_base_url {
            builder = builder.swap_base_url(url);
        }
        None
    };
    if let Some(c) = credentials {
        builder = builder.credentials(c);
    }
    if let Some(w) = args.recv_window {
        builder = builder.recv_window(w);
    }
    if let Some(secs) = args.timeout {
        builder = builder.timeout(Duration::from_secs(secs));
    }
    let client = builder.build()?;

    let started = (entry.call)(client.session(), params)?;
    let value = match client.drive(started) {
        Ok(answer) => answer.value,
        Err(e @ Error::OutcomeUnknown { .. }) => {
            return Err(crate::reconcile::after_unknown(&client, e))
        }
        Err(e) => return Err(e.into()),
    };
    drop(sim);

    match layout {
        None => print_json(&value),
        Some(layout) => {
            let text = table::render(layout, &value);
            let mut out = io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            Ok(())
        }
    }
}

pub(crate) fn sim(args: SimArgs) -> Result<(), Failure> {
    digifinex_sim::server::check_bind_addr(args.addr, args.public).map_err(Failure::Usage)?;
    let config = SimConfig {
        addr: args.addr,
        allow_public_bind: args.public,
        ..SimConfig::with_seed(args.seed)
    };
    let sim = start_sim(config)?;
    let demo = sim.control().demo_account();
    let spot = sim.spot_base_url();
    let swap = sim.swap_base_url();
    {
        let mut out = io::stdout().lock();
        writeln!(out, "spot_base_url: {spot}")?;
        writeln!(out, "swap_base_url: {swap}")?;
        writeln!(out, "control_url: {}", sim.control_url())?;
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

#[cfg(test)]
mod tests {
    use super::{is_loopback_http, plain_http};

    #[test]
    fn sim_refuses_a_public_address_without_public() {
        let args = super::SimArgs {
            addr: "0.0.0.0:0".parse().unwrap(),
            public: false,
            seed: 1,
        };
        match super::sim(args) {
            Err(crate::Failure::Usage(m)) => {
                assert!(m.contains("--public") && m.contains("0.0.0.0:0"), "{m}")
            }
            _ => panic!("a public address without --public must be a usage error"),
        }
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
