//! `digifinex`: the command-line face of the DigiFinex client, driven by the core's endpoint
//! catalog.
//!
//! # Commands
//!
//! Pure commands (no connection is opened):
//!
//! * `digifinex endpoints` prints one line per catalog endpoint, `METHOD PATH`, in catalog order
//!   (`GET /v3/order_book`, `GET /v3/{market}/order`).
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
//!   --swap-base-url URL] [--recv-window MS] [--format json|table] [--timeout SECS]` sends the
//!   request with the blocking client (`digifinex-ureq`) through the catalog entry's full call
//!   cycle (weight budget, signing, one time resync after a spot 10008, retries of reads only; a
//!   failed order, cancel or transfer is reported as an unknown outcome, never re-sent) and
//!   prints the typed result as pretty JSON, exactly as `decode` does. `--format table` prints
//!   order books, tickers, balances, orders and swap positions as aligned columns instead.
//!   Credentials come from the environment only, `DIGIFINEX_API_KEY` and
//!   `DIGIFINEX_API_SECRET`, and are never printed; a signed endpoint without them exits 2
//!   naming the variables. `--sim` starts an embedded simulator with a funded demo account and
//!   sends there (with the demo key pair, unless the variables are set).
//! * `digifinex sim [--addr ADDR] [--public] [--seed N]` runs the local simulator, prints its
//!   spot, swap and control URLs and a funded demo key pair (a local simulator key, printed on
//!   purpose), then serves until interrupted. A non-loopback `--addr` is refused (exit 2) unless
//!   `--public` is given: the control API is unauthenticated and hands out API secrets.
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
//! An unknown outcome of `call` is reconciled at once (`reconcile`): exit 3 applied, 4 not
//! applied, 5 ambiguous, with the verdict as JSON on stdout.
//!
//! Exit codes: 0 success; 1 API, transport or decode error; 2 usage or validation error. Errors
//! are one line on stderr: the exchange code and its meaning, the error kind, and for an order
//! whose outcome is unknown a hint to look at the open orders before acting. The secret is
//! never printed (except the simulator's own demo key by `digifinex sim`).

use std::io::{self, Read, Write};
use std::process::ExitCode;

mod demo;
mod live;
mod reconcile;
mod table;

use clap::{Args, Parser, Subcommand};
use digifinex_core::catalog::{self, CatalogEntry, ParamMap};
use digifinex_core::{Clock, Config, Credentials, Error, FixedClock, SystemClock, TimestampMillis};

/// The DigiFinex REST API from the command line: list endpoints, build signed requests, decode
/// responses, send requests, run the local simulator and a guided demo.
#[derive(Parser)]
#[command(name = "digifinex", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lists every endpoint as `METHOD PATH`, one per line.
    Endpoints,
    /// Decodes a response body read from stdin and prints the typed result as JSON.
    Decode(DecodeArgs),
    /// Builds the (signed) request and prints it as JSON; sends nothing (offline signing).
    Request(RequestArgs),
    /// Sends a request (credentials from DIGIFINEX_API_KEY / DIGIFINEX_API_SECRET) and prints
    /// the typed result.
    Call(live::CallArgs),
    /// Runs the local simulator and prints its URLs and a demo key pair; serves until
    /// interrupted.
    Sim(live::SimArgs),
    /// Starts an embedded simulator and walks through market data, spot and swap trading.
    Demo,
}

#[derive(Args)]
struct DecodeArgs {
    /// HTTP method (GET or POST).
    method: String,
    /// Path as sent after the host, e.g. /v3/order_book.
    path: String,
    /// HTTP status of the response.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u16).range(100..=999))]
    status: u16,
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
        Command::Endpoints => endpoints(),
        Command::Decode(args) => decode(args),
        Command::Request(args) => request(args),
        Command::Call(args) => live::call(args),
        Command::Sim(args) => live::sim(args),
        Command::Demo => demo::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`digifinex endpoints | head -1`): nothing left to say.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(f) => {
            let (code, message) = match f {
                Failure::Usage(m) => (2, m),
                Failure::Core(e) => (if is_usage(&e) { 2 } else { 1 }, describe(&e)),
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

/// Validation errors are the caller's mistake (exit 2); everything else is exit 1.
fn is_usage(e: &Error) -> bool {
    matches!(e, Error::Validation { .. })
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

fn endpoints() -> Result<(), Failure> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for e in catalog::all() {
        writeln!(out, "{} {}", e.meta.method.as_str(), e.meta.display_path())?;
    }
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
    let (entry, _) = lookup(&args.method, &args.path)?;
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

    let req = (entry.build)(params, &config, credentials.as_ref(), now)?;
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
