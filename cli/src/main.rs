//! `digifinex`: the command-line face of the DigiFinex client, driven by the core's endpoint
//! catalog.
//!
//! # Commands
//!
//! Pure commands (no connection is opened):
//!
//! * `digifinex endpoints` prints one line per catalog endpoint, `METHOD PATH`, in catalog order
//!   (`GET /v3/order_book`, `GET /v3/{market}/order`). `endpoints --verbose` prints each
//!   endpoint's description (as `describe` does), separated by blank lines.
//! * `digifinex describe METHOD PATH` describes one endpoint: whether it is signed and retried,
//!   its request and response types, every parameter in wire order (its type, whether it is
//!   required, its allowed values or range and rules, its default, its meaning) and a sample
//!   `digifinex call` line. It is printed from the catalog, whose parameters come from each
//!   endpoint's `request!` declaration, the one that validates them: it cannot drift.
//! * `digifinex decode METHOD PATH [--status N] < BODY` decodes a response body read from stdin
//!   into the endpoint's typed model and prints it as pretty JSON (decimals as strings in plain
//!   notation). An optional value that is present but cannot be read (`"last": "abc"`) is
//!   printed as `null` and named on stderr, one line each: `warning: unreadable value at
//!   ticker[0].last: ... (taken as absent)`; the exit code stays 0.
//! * `digifinex request METHOD PATH [k=v ...] [--json BODY] [--key K --secret S] [--time-ms T]
//!   [--base-url URL] [--swap-base-url URL] [--recv-window MS]` builds the (signed) request and
//!   prints it as one line of JSON: `{"method","url","headers":{name:value},"body"}`, where
//!   `body` is the body text or `null` when empty. It takes the key pair as flags because it
//!   only signs offline (to compare signatures, or to hand the request to another tool); `call`
//!   never does.
//!
//! Live commands:
//!
//! * `digifinex call METHOD PATH [k=v ...] [--json BODY] [--sim | --base-url URL
//!   --swap-base-url URL] [--key K --secret S] [--allow-http] [--recv-window MS]
//!   [--format json|table] [--timeout SECS]` sends the
//!   request with the blocking client (`digifinex-ureq`) through the catalog entry's full call
//!   cycle (weight budget, signing, one time resync after a spot 10008, retries of reads only; a
//!   failed order, cancel or transfer is reported as an unknown outcome, never re-sent) and
//!   prints the typed result as pretty JSON, exactly as `decode` does. `--format table` prints
//!   order books, tickers, balances, orders and swap positions as aligned columns instead.
//!   Credentials come from `--key` and `--secret`, else from the environment,
//!   `DIGIFINEX_API_KEY` and `DIGIFINEX_API_SECRET` (preferred: arguments are visible to other
//!   users of the machine), and are never printed; a signed endpoint without them exits 2
//!   naming both ways. `--sim` starts an embedded simulator with a funded demo account and
//!   sends there (with the demo key pair, unless a key pair is given). A cancel that left some
//!   orders uncancelled (spot `order/cancel` answers them in `error`; a swap
//!   `batch_cancel_order` answer lacks them) prints the answer, then exits 1 naming them.
//! * `digifinex sim [--addr ADDR] [--public] [--seed N] [--no-limits]` runs the local
//!   simulator, prints its spot, swap and control URLs and a funded demo key pair (a local
//!   simulator key, printed on purpose), then serves until interrupted. A non-loopback `--addr`
//!   is refused (exit 2) unless `--public` is given: the control API is unauthenticated and
//!   hands out API secrets. Its options are `digifinex_sim::options`, the very ones of the
//!   `digifinex-sim` binary: the same simulator, for those who do not want this tool.
//! * `digifinex demo` starts an embedded simulator and walks through market data, spot, margin,
//!   swap and copy trading against it, one short line per step; it exits 1 naming the step
//!   that failed.
//!
//! PATH is the path as sent after the host (`/v3/margin/order/current`,
//! `/swap/v2/trade/order_place`); path variables such as `market=margin` are taken from it.
//! Parameters are given as they travel on the wire: `k=v` pairs (split at the first `=`), and
//! `--json` for a JSON body (an object whose members are parameters, or the array of a swap
//! batch).
//!
//! An order placement given to `call` is checked against the market rules before it is sent
//! (`checks`): an off-grid price or amount, a value under the minimums, a pair not listed or
//! not open to API trading exit 2 naming the field, the rule and the nearest valid values;
//! `--round passive|nearest` rounds instead, `--unchecked` sends it as given.
//!
//! Before a write, `call` reads the write's evidence set (for an order: the pair's open orders
//! and recent history; 2 reads, weight 2 on spot, 7 per swap instrument after a clock sync)
//! and keeps its ids as known; `--no-snapshot` skips it. An unknown outcome of `call` is
//! reconciled at once (`reconcile`): the verdict as JSON on stdout (`resolution`: applied,
//! not_applied, ambiguous, mixed), exit 1. With the snapshot the verdict is exact (never
//! ambiguous for orders, barring another program placing the same order at the same moment).
//!
//! Exit codes: 0 success; 1 API, transport or decode error; 2 usage or validation error. Errors
//! are one line on stderr: what went wrong (the exchange code and its meaning, the error kind)
//! and what to do next, in this tool's terms (its flags and environment variables, `digifinex
//! describe` for parameters; for an order whose outcome is unknown, the open orders to look at
//! before acting). The secret is never printed (except the simulator's own demo key by
//! `digifinex sim`).

// DESIGN: `Failure` carries the whole `Error` (with an unknown outcome's request) so the exit
// message can say what to do; it is built once, on the way out, so its size does not matter.
#![allow(clippy::result_large_err)]

use std::io::{self, Read, Write};
use std::process::ExitCode;

mod backtest;
mod checks;
mod demo;
mod describe;
mod feed;
#[cfg(feature = "feed")]
mod feed_nats;
mod live;
mod market;
mod reconcile;
mod record;
mod record_ws;
mod replay;
#[cfg(feature = "export")]
mod storage;
mod stream;
mod table;
mod track;

use clap::{Args, Parser, Subcommand};
use digifinex_core::catalog::{self, CatalogEntry, ParamMap};
use digifinex_core::{
    Clock, Config, Credentials, Error, ErrorKind, Family, FixedClock, SystemClock, TimestampMillis,
};

/// The DigiFinex REST API from the command line: list and describe endpoints, build signed
/// requests, decode responses, send requests, run the local simulator and a guided demo.
#[derive(Parser)]
#[command(name = "digifinex", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lists every endpoint as `METHOD PATH`, one per line (with --verbose: each described).
    Endpoints(EndpointsArgs),
    /// Describes an endpoint: its parameters (type, required, allowed values or range, default),
    /// its request and response types and a sample `digifinex call` line.
    Describe(DescribeArgs),
    /// Decodes a response body read from stdin and prints the typed result as JSON; with
    /// `--from FILE`, re-decodes every answer of a recording and reports which fail.
    Decode(DecodeArgs),
    /// Polls public market data (books, trades, tickers; swap funding and mark prices) into a
    /// recording that `digifinex sim --market FILE` replays; stops at --duration-s or Ctrl-C.
    Record(record::RecordArgs),
    /// Works with market recordings: `market export FILE --format parquet|csv --out DIR`
    /// writes one table per record kind for pandas, polars and DuckDB.
    Market(market::MarketArgs),
    /// Serves a recording (`call --record`, or a client's recorder) over HTTP on loopback: each
    /// request gets its recorded answer (404 with the difference when none matches).
    Replay(ReplayArgs),
    /// Builds the (signed) request and prints it as JSON; sends nothing (offline signing).
    Request(RequestArgs),
    /// Sends a request (credentials from --key/--secret or DIGIFINEX_API_KEY /
    /// DIGIFINEX_API_SECRET) and prints the typed result.
    Call(live::CallArgs),
    /// Runs the local simulator (the same as `digifinex-sim`) and prints its URLs and a demo
    /// key pair; serves until interrupted. See `digifinex sim --help`.
    #[command(disable_help_flag = true, after_help = live::sim_help())]
    Sim(live::SimArgs),
    /// Starts an embedded simulator and walks through market data, spot and swap trading.
    Demo,
    /// Streams websocket events as JSON lines: SUB is `FAMILY:CHANNEL[:ID]` (spot:depth:btc_usdt,
    /// swap:ticker:BTCUSDTPERP, spot:order); --limit N exits 0 after N events.
    Stream(stream::StreamArgs),
    /// Runs a bundled strategy over a recording in virtual time and writes DIR/report.json and
    /// a self-contained DIR/report.html (P&L, fills, equity, inventory, drawdown).
    Backtest(backtest::BacktestArgs),
    /// Tracks the account's state: one JSON line per change (placed, progress, filled with
    /// its trade id and fee, completed, cancelled, balance_changed, position_changed, ...), then
    /// on exit one line `{"state":{...}}` with open orders, balances and positions.
    Track(track::TrackArgs),
    /// Holds the venue's sockets for a list of markets and publishes their normalised events
    /// to NATS JetStream, for `digifinex stream --feed` and any NATS client (built with the
    /// `feed` feature).
    Feed(feed::FeedArgs),
}

#[derive(Args)]
struct EndpointsArgs {
    /// Describe each endpoint (as `digifinex describe` does) instead of one line each.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Args)]
struct DescribeArgs {
    /// HTTP method (GET or POST).
    method: String,
    /// Path as sent after the host (/v3/order_book, /v3/spot/order/new), or as listed by
    /// `digifinex endpoints` (/v3/{market}/order/new).
    path: String,
}

#[derive(Args)]
struct DecodeArgs {
    /// HTTP method (GET or POST).
    #[arg(required_unless_present = "from")]
    method: Option<String>,
    /// Path as sent after the host, e.g. /v3/order_book.
    #[arg(required_unless_present = "from")]
    path: Option<String>,
    /// Re-decode every recorded answer of FILE with this release's models instead; exits 1 if
    /// any fails to decode.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["method", "path"])]
    from: Option<String>,
    /// HTTP status of the response.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u16).range(100..=999))]
    status: u16,
}

#[derive(Args)]
struct ReplayArgs {
    /// The recording (JSON lines).
    file: String,
    /// Address to serve on (loopback only).
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: std::net::SocketAddr,
    /// Answer in any order by method, path and parameters (default: in recorded order, each
    /// request must equal the next record).
    #[arg(long)]
    matching: bool,
}

// No `Debug`: this holds the secret.
#[derive(Args)]
struct RequestArgs {
    /// HTTP method (GET or POST).
    method: String,
    /// Path as sent after the host, e.g. /v3/order_book or /v3/margin/order/current.
    path: String,
    /// Wire parameters as key=value (split at the first `=`).
    #[arg(value_name = "KEY=VALUE")]
    params: Vec<String>,
    /// A JSON object whose members are added as parameters.
    #[arg(long, value_name = "BODY")]
    json: Option<String>,
    /// API access key (requires --secret). Flags are for offline signing only; `call` reads
    /// DIGIFINEX_API_KEY / DIGIFINEX_API_SECRET instead.
    #[arg(long, value_name = "K", requires = "secret")]
    key: Option<String>,
    /// API secret key (requires --key); never printed.
    #[arg(long, value_name = "S", requires = "key")]
    secret: Option<String>,
    /// Fixed time in Unix milliseconds for signing and validation (default: the system clock).
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    time_ms: Option<i64>,
    /// Spot/margin base URL (default `https://openapi.digifinex.com/v3`).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Swap host URL (default `https://openapi.digifinex.com`).
    #[arg(long, value_name = "URL")]
    swap_base_url: Option<String>,
    /// Value of the ACCESS-RECV-WINDOW header on signed requests.
    #[arg(long, value_name = "MS")]
    recv_window: Option<u64>,
}

/// Why a command failed; decides the exit code.
enum Failure {
    /// Bad command line: exit 2.
    Usage(String),
    /// An error from the core: exit 2 for validation, 1 otherwise.
    Core(Error),
    /// An error from the core while building or sending a request of `endpoint`: exit 2 for
    /// validation, 1 otherwise; the message says what to do next in this tool's terms.
    Call {
        /// The error.
        error: Error,
        /// `METHOD PATH` as given (`GET /v3/order_book`).
        endpoint: String,
        /// The endpoint's family (which balance or order list to look at).
        family: Family,
        /// Whether it was `call` (credentials from flags or the environment) or `request`
        /// (flags only).
        live: bool,
    },
    /// Reading stdin or writing stdout failed: exit 1.
    Io(io::Error),
    /// A step of `digifinex demo` failed: exit 1.
    Demo {
        /// The step's heading.
        step: &'static str,
        /// What went wrong, one line.
        message: String,
    },
    /// Anything else that is not the caller's fault (the simulator did not start): exit 1.
    Other(String),
    /// An unknown outcome, reconciled: the verdict's exit code (see `reconcile`).
    Reconciled { code: u8, message: String },
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Endpoints(args) => endpoints(args.verbose),
        Command::Describe(args) => describe_endpoint(args),
        Command::Decode(args) => decode(args),
        Command::Replay(args) => replay_cmd(args),
        Command::Record(args) => record::run(args),
        Command::Market(args) => market::run(args),
        Command::Request(args) => request(args),
        Command::Call(args) => live::call(args),
        Command::Sim(args) => live::sim(args),
        Command::Demo => demo::run(),
        Command::Stream(args) => stream::run(args),
        Command::Track(args) => track::run(args),
        Command::Backtest(args) => backtest::run(args),
        Command::Feed(args) => feed::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`digifinex endpoints | head -1`): nothing left to say.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(f) => {
            let (code, message) = match f {
                Failure::Usage(m) => (2, m),
                Failure::Core(e) => (if is_usage(&e) { 2 } else { 1 }, describe(&e)),
                Failure::Call {
                    error,
                    endpoint,
                    family,
                    live,
                } => (
                    if is_usage(&error) { 2 } else { 1 },
                    call_message(&error, &endpoint, family, live),
                ),
                Failure::Io(e) => (1, format!("i/o: {e}")),
                Failure::Demo { step, message } => {
                    (1, format!("demo step `{step}` failed: {message}"))
                }
                Failure::Other(m) => (1, m),
                Failure::Reconciled { code, message } => (code, message),
            };
            eprintln!("error: {}", one_line(&message));
            ExitCode::from(code)
        }
    }
}

/// Validation errors and orders the market rules refuse are the caller's mistake (exit 2);
/// everything else is exit 1.
fn is_usage(e: &Error) -> bool {
    matches!(e, Error::Validation { .. } | Error::Rule(_))
}

/// One line for an error: the core's message (exchange code and meaning, HTTP status), the
/// error kind, and for an unknown outcome what to do about it.
pub(crate) fn describe(e: &Error) -> String {
    let mut s = e.to_string();
    if !matches!(e, Error::Validation { .. }) {
        s.push_str(&format!(" (kind: {:?})", e.kind()));
    }
    if let Error::OutcomeUnknown { .. } = e {
        s.push_str(
            "; the request may or may not have been applied: check the open orders \
             (GET /v3/{market}/order/current, GET /swap/v2/trade/open_orders) or the account \
             before retrying",
        );
    }
    one_line(&s)
}

fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// The message of an error while building or sending `endpoint`: what went wrong and what to
/// do next, with this tool's flags and variables (never a library method).
pub(crate) fn call_message(e: &Error, endpoint: &str, family: Family, live: bool) -> String {
    match e {
        Error::Validation { field, .. } if field == "credentials" => needs_key(endpoint, live),
        Error::Validation { .. } => {
            format!("{e}; see `digifinex describe {endpoint}`")
        }
        Error::Rule(r) => checks::rule_message(r.as_ref()),
        Error::OutcomeUnknown { .. } => describe(e),
        _ => {
            let mut s = format!("{e} (kind: {:?})", e.kind());
            if let Some(next) = next_step(e, endpoint, family) {
                s.push_str("; ");
                s.push_str(&next);
            }
            one_line(&s)
        }
    }
}

/// The message for a private endpoint without a key pair.
pub(crate) fn needs_key(endpoint: &str, live: bool) -> String {
    if live {
        format!(
            "`{endpoint}` is a private endpoint and needs an API key: pass --key and --secret, \
             or set {} and {} (or try it with --sim)",
            live::KEY_VAR,
            live::SECRET_VAR
        )
    } else {
        format!("`{endpoint}` is a private endpoint and needs an API key: pass --key and --secret")
    }
}

/// What to do about an error from the exchange or the network, in this tool's terms.
fn next_step(e: &Error, endpoint: &str, family: Family) -> Option<String> {
    let (balances, open_orders) = match family {
        Family::Spot => ("GET /v3/spot/assets", "GET /v3/spot/order/current"),
        _ => (
            "GET /swap/v2/account/balance",
            "GET /swap/v2/trade/open_orders",
        ),
    };
    Some(match e.kind() {
        ErrorKind::Auth => format!(
            "check the key pair (--key and --secret, or {} and {}), its permissions and its IP \
             whitelist",
            live::KEY_VAR,
            live::SECRET_VAR
        ),
        ErrorKind::Clock => {
            "check this machine's clock: the request's time was outside the exchange's window"
                .to_owned()
        }
        ErrorKind::RateLimit => match e.retry_after() {
            Some(d) => format!("wait {} ms, then try again", d.as_millis()),
            None => "wait a minute, then try again".to_owned(),
        },
        ErrorKind::Ban => "wait until the ban ends before sending again".to_owned(),
        ErrorKind::InvalidRequest => {
            format!("see `digifinex describe {endpoint}` for the parameters")
        }
        ErrorKind::InsufficientFunds => {
            format!("check the balance: `digifinex call {balances}`")
        }
        ErrorKind::NotFound => {
            format!("check the id; `digifinex call {open_orders}` lists the open orders")
        }
        ErrorKind::Suspended => "it is suspended at the exchange; try again later".to_owned(),
        ErrorKind::Server => "the exchange failed; try again later".to_owned(),
        ErrorKind::Redirect => {
            "check --base-url and --swap-base-url (a redirect is never followed)".to_owned()
        }
        ErrorKind::Network => {
            "check the network and --base-url/--swap-base-url; --timeout SECS waits longer"
                .to_owned()
        }
        _ => return None,
    })
}

fn endpoints(verbose: bool) -> Result<(), Failure> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for (i, e) in catalog::all().enumerate() {
        if verbose {
            if i > 0 {
                writeln!(out)?;
            }
            write!(out, "{}", describe::render(e, &[]))?;
        } else {
            writeln!(out, "{} {}", e.meta.method.as_str(), e.meta.display_path())?;
        }
    }
    out.flush()?;
    Ok(())
}

fn describe_endpoint(args: DescribeArgs) -> Result<(), Failure> {
    // The template as `endpoints` lists it (`/v3/{market}/order/new`) names the endpoint too.
    let (entry, vars) = match catalog::all().find(|e| {
        e.meta.method.as_str().eq_ignore_ascii_case(&args.method)
            && e.meta.display_path() == args.path
    }) {
        Some(e) => (e, Vec::new()),
        None => lookup(&args.method, &args.path)?,
    };
    let mut out = io::stdout().lock();
    write!(out, "{}", describe::render(entry, &vars))?;
    out.flush()?;
    Ok(())
}

/// A catalog entry and the path variables its template captured.
type Found = (&'static CatalogEntry, Vec<(String, String)>);

fn lookup(method: &str, path: &str) -> Result<Found, Failure> {
    catalog::find(method, path).ok_or_else(|| {
        Failure::Usage(format!(
            "unknown endpoint `{method} {path}` (see `digifinex endpoints`)"
        ))
    })
}

fn decode(args: DecodeArgs) -> Result<(), Failure> {
    let (method, path) = match (args.from, args.method, args.path) {
        (Some(file), _, _) => return decode_recording(&file),
        (None, Some(m), Some(p)) => (m, p),
        _ => {
            return Err(Failure::Usage(
                "give METHOD PATH (body on stdin) or --from FILE".to_owned(),
            ))
        }
    };
    let (entry, _) = lookup(&method, &path)?;
    let mut body = Vec::new();
    io::stdin().lock().read_to_end(&mut body)?;
    let (value, unreadable) = (entry.decode_report)(args.status, &http::HeaderMap::new(), &body)?;
    // Optional values the answer carried but that could not be read decode as absent; say so,
    // one line each, without failing the answer.
    for u in &unreadable {
        eprintln!(
            "warning: unreadable value at {}: {} (taken as absent)",
            one_line(&u.path),
            one_line(&u.problem)
        );
    }
    print_json(&value)
}

/// `decode --from FILE`: one line per record, then a summary; exit 1 when any answer fails.
fn decode_recording(file: &str) -> Result<(), Failure> {
    let (records, cut) = replay::read_records(file).map_err(Failure::Usage)?;
    if let Some(line) = cut {
        eprintln!("{}", replay::cut_note(file, line));
    }
    let mut out = io::stdout().lock();
    let report = replay::decode(&records, &mut out)?;
    writeln!(
        out,
        "{} decoded, {} failed, {} skipped",
        report.ok, report.failed, report.skipped
    )?;
    out.flush()?;
    if report.failed > 0 {
        return Err(Failure::Other(format!(
            "{} recorded answer(s) do not decode with this release: send the failing lines \
             (they hold no secret) with the version you run",
            report.failed
        )));
    }
    Ok(())
}

/// `replay FILE`: serves the recording until interrupted.
fn replay_cmd(args: ReplayArgs) -> Result<(), Failure> {
    if !args.addr.ip().is_loopback() {
        return Err(Failure::Usage(format!(
            "--addr {} is not a loopback address: a replay serves recorded account data, so \
             it listens on 127.0.0.1 or ::1 only",
            args.addr
        )));
    }
    let mode = if args.matching {
        digifinex_core::record::ReplayMode::Matching
    } else {
        digifinex_core::record::ReplayMode::Strict
    };
    let replayer = digifinex_core::record::Replayer::open(&args.file, mode)
        .map_err(|e| Failure::Usage(format!("cannot read the recording {}: {e}", args.file)))?;
    let count = replayer.records().count();
    let file = args.file.clone();
    if let Some(line) = replayer.cut() {
        eprintln!("{}", replay::cut_note(&file, line));
    }
    replay::serve(replayer, args.addr, move |bound| {
        // The same `key: value` lines as `digifinex sim`, so a script reads either.
        println!("spot_base_url: http://{bound}/v3");
        println!("swap_base_url: http://{bound}");
        println!("records: {count}");
        let _ = io::stdout().flush();
        eprintln!("replaying {file} until interrupted (Ctrl-C)");
    })
    .map_err(Failure::Other)
}

/// Prints a typed result as pretty JSON, as `decode` and `call` do.
fn print_json(value: &serde_json::Value) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Failure::Io(io::Error::other(e)))?;
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

fn request(args: RequestArgs) -> Result<(), Failure> {
    if args.path.contains('?') {
        return Err(Failure::Usage(
            "give parameters as KEY=VALUE arguments, not in PATH".to_owned(),
        ));
    }
    let (entry, vars) = lookup(&args.method, &args.path)?;
    let params = wire_params(vars, &args.params, args.json.as_deref())?;

    let mut config = Config::default();
    if let Some(url) = args.base_url {
        config = config.with_spot_base_url(url);
    }
    if let Some(url) = args.swap_base_url {
        config = config.with_swap_base_url(url);
    }
    if let Some(w) = args.recv_window {
        config = config.with_recv_window(w);
    }
    let credentials = match (args.key, args.secret) {
        (Some(k), Some(s)) => Some(Credentials::new(k, s)),
        (None, None) => None,
        _ => {
            return Err(Failure::Usage(
                "--key and --secret must be given together".to_owned(),
            ))
        }
    };
    let now = match args.time_ms {
        Some(t) => FixedClock(TimestampMillis(t)).now(),
        None => SystemClock.now(),
    };

    let shown = format!("{} {}", args.method.to_ascii_uppercase(), args.path);
    let req = (entry.build)(params, &config, credentials.as_ref(), now).map_err(|error| {
        Failure::Call {
            error,
            endpoint: shown,
            family: entry.meta.family,
            live: false,
        }
    })?;
    let text = render_request(&req);
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// The parameter map of a call: the path variables, then `KEY=VALUE` pairs, then the JSON
/// body; a name given twice is a usage error (a `market` parameter beside the `{market}` path
/// segment is allowed when it names the same market; the core refuses a conflict).
pub(crate) fn wire_params(
    vars: Vec<(String, String)>,
    pairs: &[String],
    json: Option<&str>,
) -> Result<ParamMap, Failure> {
    let mut params = ParamMap::new();
    for (k, v) in vars {
        params.insert_path_var(k, v);
    }
    for pair in pairs {
        let (k, v) = pair
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| Failure::Usage(format!("expected KEY=VALUE, got `{pair}`")))?;
        if params.contains(k) {
            return Err(Failure::Usage(format!("parameter `{k}` given twice")));
        }
        params.insert_text(k, v);
    }
    if let Some(json) = json {
        // Member names only, to refuse a parameter given twice; the core keeps the values' text.
        if let Ok(members) =
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json)
        {
            if let Some(k) = members.keys().find(|k| params.contains(k)) {
                return Err(Failure::Usage(format!("parameter `{k}` given twice")));
            }
        }
        params.insert_json(json)?;
    }
    Ok(params)
}

/// `{"method":..,"url":..,"headers":{..},"body":..}` with headers in the request's order; a name
/// sent more than once has its values joined with `, `.
fn render_request(req: &http::Request<Vec<u8>>) -> String {
    let mut headers: Vec<(&str, String)> = Vec::new();
    for (name, value) in req.headers() {
        let value = String::from_utf8_lossy(value.as_bytes());
        match headers.iter_mut().find(|(n, _)| *n == name.as_str()) {
            Some((_, v)) => {
                v.push_str(", ");
                v.push_str(&value);
            }
            None => headers.push((name.as_str(), value.into_owned())),
        }
    }
    let mut s = String::with_capacity(256);
    s.push_str("{\"method\":");
    s.push_str(&json_string(req.method().as_str()));
    s.push_str(",\"url\":");
    s.push_str(&json_string(&req.uri().to_string()));
    s.push_str(",\"headers\":{");
    for (i, (name, value)) in headers.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&json_string(name));
        s.push(':');
        s.push_str(&json_string(value));
    }
    s.push_str("},\"body\":");
    if req.body().is_empty() {
        s.push_str("null");
    } else {
        s.push_str(&json_string(&String::from_utf8_lossy(req.body())));
    }
    s.push('}');
    s
}

fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}
