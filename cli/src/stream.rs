//! `digifinex stream [--sim | --base-url URL --swap-base-url URL] [--limit N] SUB...`: websocket
//! events as JSON lines (issue 19).
//!
//! SUB is `FAMILY:CHANNEL[:ID[:LEVEL|GRANULARITY]]` (`spot:depth:btc_usdt`,
//! `swap:ticker:BTCUSDTPERP`, `swap:depth:BTCUSDTPERP:100`, `spot:order`). Each family's
//! subscriptions share one stream of the blocking client (`digifinex_ureq::ws`: as many sockets
//! as they need); every event, connection state included, is one JSON line on stdout.
//! `--limit N` exits 0 after N data events (pushes of market or account data; connection
//! states and replies are printed but not counted); a stream that ends before any data event
//! exits 1, and so does a stream whose every subscription the venue refused for good (a
//! subscription refused, or the private channels after the stream gave up on `server.auth`:
//! [`Event::AuthRefused`] without a retry), naming each refusal and its cause on stderr, so
//! that `--limit` is never waited on forever. A private stream has no REST session here: each
//! socket measures the server's clock itself before signing `server.auth`.
//!
//! DESIGN: the output blocks. When stdout is not read, at most [`QUEUE`] events wait here,
//! then the streams stop reading their sockets (each holds at most 1,024 frames), and the
//! server may close them after its keepalive; they are reopened once stdout is read again. No
//! event is dropped silently and memory does not grow.
//! `--base-url` and `--swap-base-url` are the websocket URLs (`wss://.../ws/v1/`,
//! `wss://.../swap_ws/v2/`); plain `ws://` only to loopback hosts. `--sim` starts an embedded
//! simulator (REST and websockets) and uses its demo key pair for the private channels unless a
//! key pair is given.

use std::io::Write;
use std::sync::mpsc;

/// Events held between the streams and stdout.
const QUEUE: usize = 4_096;

use clap::Args;
use digifinex_core::ws::{Event, Subscription};
use digifinex_core::{Credentials, Family};
use digifinex_sim::SimConfig;
use digifinex_ureq::ws::StreamBuilder;

use crate::live::{env_credentials, is_loopback_http, start_sim};
use crate::Failure;

/// The subscriptions of a command and the refusal of each that the venue refused for good.
pub(crate) struct Refusals {
    subs: Vec<(Subscription, Option<String>)>,
}

impl Refusals {
    /// None refused yet.
    pub(crate) fn new(subs: impl IntoIterator<Item = Subscription>) -> Self {
        Refusals {
            subs: subs.into_iter().map(|s| (s, None)).collect(),
        }
    }

    /// Takes an event; once every subscription is refused, what refused each (one line: each
    /// reason after the subscriptions it refused).
    pub(crate) fn observe(&mut self, event: &Event) -> Option<String> {
        let (subs, reason) = match event {
            Event::Refused {
                request,
                subscriptions,
                error,
                ..
            } => (subscriptions, Some(format!("{request} refused ({error})"))),
            Event::AuthRefused {
                cause,
                refusals,
                retry_in_ms: None,
                subscriptions,
                error,
                ..
            } => (
                subscriptions,
                Some(format!(
                    "server.auth refused {refusals} times ({error}); cause: {cause} ({})",
                    cause.advice()
                )),
            ),
            Event::Subscribed { subscriptions } => (subscriptions, None),
            _ => return None,
        };
        for (sub, refused) in &mut self.subs {
            if subs.contains(sub) {
                *refused = reason.clone();
            }
        }
        if self.subs.is_empty() || self.subs.iter().any(|(_, r)| r.is_none()) {
            return None;
        }
        let mut lines: Vec<(String, Vec<String>)> = Vec::new();
        for (sub, reason) in &self.subs {
            let reason = reason.clone().unwrap_or_default();
            match lines.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, subs)) => subs.push(sub.to_string()),
                None => lines.push((reason, vec![sub.to_string()])),
            }
        }
        let text: Vec<String> = lines
            .into_iter()
            .map(|(reason, subs)| format!("{}: {reason}", subs.join(", ")))
            .collect();
        Some(format!(
            "every subscription was refused: {}",
            text.join("; ")
        ))
    }
}

// No `Debug`: this holds the secret.
#[derive(Args)]
pub(crate) struct StreamArgs {
    /// Subscriptions: `FAMILY:CHANNEL[:ID[:LEVEL|GRANULARITY]]`, e.g. spot:depth:btc_usdt,
    /// swap:ticker:BTCUSDTPERP, swap:depth:BTCUSDTPERP:100, spot:order.
    #[arg(value_name = "SUB", required = true)]
    subs: Vec<String>,
    /// Start an embedded simulator and stream from it (its demo key pair serves the private
    /// channels unless a key pair is given).
    #[arg(long, conflicts_with_all = ["spot_ws_url", "swap_ws_url"])]
    sim: bool,
    /// Spot websocket URL (default `wss://openapi.digifinex.com/ws/v1/`; ws:// only to
    /// loopback hosts, such as a running `digifinex sim`'s `spot_ws_url`). `--base-url` is
    /// accepted as its old name for one release.
    #[arg(long = "spot-ws-url", alias = "base-url", value_name = "URL")]
    spot_ws_url: Option<String>,
    /// Swap websocket URL (default `wss://openapi.digifinex.com/swap_ws/v2/`; a running
    /// simulator's `swap_ws_url`). `--swap-base-url` is accepted as its old name for one
    /// release.
    #[arg(long = "swap-ws-url", alias = "swap-base-url", value_name = "URL")]
    swap_ws_url: Option<String>,
    /// Exit 0 after N data events (market or account pushes; connection states are printed
    /// but not counted). Exit 1 if the stream ends before any data event, or once every
    /// subscription was refused.
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// API access key for the private channels (requires --secret; wins over
    /// DIGIFINEX_API_KEY). Prefer the variables: arguments are visible to other users of this
    /// machine.
    #[arg(long, value_name = "K", requires = "secret")]
    key: Option<String>,
    /// API secret key (requires --key; wins over DIGIFINEX_API_SECRET); never printed.
    #[arg(long, value_name = "S", requires = "key")]
    secret: Option<String>,
    /// Read the public subscriptions from a feed (`digifinex feed`) on this NATS server
    /// (`nats://HOST:4222`) instead of the venue: the same event lines, gaps reported.
    #[arg(long, value_name = "URL", conflicts_with_all = ["sim", "spot_ws_url", "swap_ws_url", "key"])]
    feed: Option<String>,
    /// The feed's JetStream stream.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "DIGIFINEX",
        requires = "feed"
    )]
    feed_stream: String,
    /// A NATS credentials file for `--feed`.
    #[arg(long, value_name = "FILE", requires = "feed")]
    nats_creds: Option<std::path::PathBuf>,
}

/// Whether a websocket URL may be used: `wss://`, or `ws://` to this machine.
fn check_url(flag: &str, url: &str) -> Result<bool, Failure> {
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("wss://") {
        return Ok(false);
    }
    match lower.strip_prefix("ws://") {
        Some(rest) if is_loopback_http(&format!("http://{rest}")) => Ok(true),
        Some(_) => Err(Failure::Usage(format!(
            "{flag} {url}: plain ws:// only to loopback hosts (use wss://)"
        ))),
        None => Err(Failure::Usage(format!(
            "{flag} {url}: a websocket URL starts with wss:// (or ws:// to loopback)"
        ))),
    }
}

pub(crate) fn run(args: StreamArgs) -> Result<(), Failure> {
    let subs: Vec<Subscription> = args
        .subs
        .iter()
        .map(|s| s.parse().map_err(|e| Failure::Usage(format!("{e}"))))
        .collect::<Result<_, _>>()?;
    if let Some(url) = args.feed {
        return from_feed(url, args.feed_stream, args.nats_creds, &subs, args.limit);
    }
    let mut creds = match (args.key, args.secret) {
        (Some(k), Some(s)) => Some(Credentials::new(k, s)),
        _ => env_credentials()?,
    };
    let private = subs.iter().any(|s| s.channel.is_private());
    // Kept alive while streaming.
    let mut _sims = None;
    let (spot_url, swap_url) = if args.sim {
        let sim = start_sim(SimConfig::default())?;
        if creds.is_none() && private {
            let demo = sim.control().demo_account();
            creds = Some(Credentials::new(demo.keys.key, demo.keys.secret));
        }
        let urls = (Some(sim.spot_ws_url()), Some(sim.swap_ws_url()));
        _sims = Some(sim);
        urls
    } else {
        (args.spot_ws_url, args.swap_ws_url)
    };
    if private && creds.is_none() {
        return Err(Failure::Usage(
            "a private channel needs a key pair: --key/--secret, or DIGIFINEX_API_KEY and \
             DIGIFINEX_API_SECRET"
                .into(),
        ));
    }
    let (tx, rx) = mpsc::sync_channel::<Event>(QUEUE);
    for family in [Family::Spot, Family::Swap] {
        let mine: Vec<Subscription> = subs
            .iter()
            .filter(|s| s.family == family)
            .cloned()
            .collect();
        if mine.is_empty() {
            continue;
        }
        let (flag, url) = match family {
            Family::Spot => ("--spot-ws-url", spot_url.clone()),
            _ => ("--swap-ws-url", swap_url.clone()),
        };
        let mut b = StreamBuilder::new(family);
        if let Some(url) = url {
            if check_url(flag, &url)? {
                b = b.allow_http(true);
            }
            b = b.url(url);
        }
        if mine.iter().any(|s| s.channel.is_private()) {
            if let Some(c) = &creds {
                b = b.credentials(c.clone());
            }
        }
        for s in mine {
            b = b.subscribe(s);
        }
        let stream = b.build().map_err(|e| Failure::Usage(e.to_string()))?;
        let tx = tx.clone();
        std::thread::Builder::new()
            .name(format!("stream-{family}"))
            .spawn(move || {
                for event in stream {
                    if tx.send(event).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| Failure::Other(format!("cannot start a stream thread: {e}")))?;
    }
    drop(tx);
    let mut out = std::io::stdout().lock();
    let mut data = 0u64;
    if args.limit == Some(0) {
        return Ok(());
    }
    let mut refusals = Refusals::new(subs);
    for event in rx {
        let line = serde_json::to_string(&event)
            .map_err(|e| Failure::Other(format!("cannot print an event: {e}")))?;
        writeln!(out, "{line}")?;
        out.flush()?;
        if let Some(refused) = refusals.observe(&event) {
            // The stream threads end with the process.
            return Err(Failure::Other(refused));
        }
        if event.is_data() {
            data = data.saturating_add(1);
        }
        if args.limit.is_some_and(|n| data >= n) {
            // The stream threads end with the process.
            return Ok(());
        }
    }
    if data == 0 {
        return Err(Failure::Other(
            "the stream ended before any data event".into(),
        ));
    }
    Ok(())
}

#[cfg(feature = "feed")]
fn from_feed(
    url: String,
    stream: String,
    creds: Option<std::path::PathBuf>,
    subs: &[Subscription],
    limit: Option<u64>,
) -> Result<(), Failure> {
    let source = crate::feed::FeedSource { url, creds, stream };
    crate::feed_nats::consume(source, subs, limit)
}

#[cfg(not(feature = "feed"))]
fn from_feed(
    _url: String,
    _stream: String,
    _creds: Option<std::path::PathBuf>,
    _subs: &[Subscription],
    _limit: Option<u64>,
) -> Result<(), Failure> {
    Err(crate::feed::missing("stream --feed"))
}

#[cfg(test)]
mod tests {
    use super::check_url;

    #[test]
    fn urls() {
        assert!(matches!(
            check_url("--base-url", "wss://openapi.digifinex.com/ws/v1/"),
            Ok(false)
        ));
        assert!(matches!(
            check_url("--base-url", "ws://127.0.0.1:9/ws/v1/"),
            Ok(true)
        ));
        assert!(check_url("--base-url", "ws://example.com/ws/v1/").is_err());
        assert!(check_url("--base-url", "https://example.com/").is_err());
    }
}
