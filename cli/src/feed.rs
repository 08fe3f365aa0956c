//! `digifinex feed --nats URL --spot PAIRS --swap IDS`: the arguments; the feed itself (NATS
//! JetStream through async-nats) is built with the `feed` feature (`feed_nats`).

use clap::Args;

/// `digifinex feed`.
#[derive(Args)]
pub(crate) struct FeedArgs {
    /// The NATS server (`nats://HOST:4222`; `tls://` for TLS; `nats://USER:PASS@HOST` for a
    /// user and password).
    #[arg(long, value_name = "URL")]
    pub(crate) nats: String,
    /// A NATS credentials file (`.creds`: JWT and nkey seed), as NATS clients take it.
    #[arg(long, value_name = "FILE")]
    pub(crate) nats_creds: Option<std::path::PathBuf>,
    /// Spot pairs (comma list, or `all`: every listed pair).
    #[arg(long, value_name = "PAIRS", value_delimiter = ',')]
    pub(crate) spot: Vec<String>,
    /// Swap instruments (comma list, `BTCUSDTPERP`, or `all`).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub(crate) swap: Vec<String>,
    /// Book levels wanted (swap: the subscribed level that holds them, 10, 20 or 100).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub(crate) depth: u32,
    /// This feed's name in subjects and heartbeats (letters, digits, `_`, `-`).
    #[arg(long, value_name = "NAME", default_value = "feed")]
    pub(crate) name: String,
    /// The feeds sharing these markets, this one included (comma list of names, each run with
    /// the same `--spot` and `--swap`): each publishes its share of the markets (a stable
    /// assignment), and takes over the markets of a feed whose heartbeats stopped.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub(crate) peers: Vec<String>,
    /// The JetStream stream.
    #[arg(long, value_name = "NAME", default_value = digifinex_core::feed::DEFAULT_STREAM)]
    pub(crate) stream: String,
    /// How long the stream keeps messages, seconds (one hour by default).
    #[arg(long, value_name = "S", default_value_t = 3_600)]
    pub(crate) window_s: u64,
    /// Time between two snapshots of each book, seconds.
    #[arg(long, value_name = "S", default_value_t = 30)]
    pub(crate) snapshot_every_s: u64,
    /// Stop after this many seconds (default: until interrupted).
    #[arg(long, value_name = "S")]
    pub(crate) duration_s: Option<u64>,
    /// Spot/margin REST base URL (for `all`; default `https://openapi.digifinex.com/v3`).
    #[arg(long, value_name = "URL", conflicts_with = "sim")]
    pub(crate) base_url: Option<String>,
    /// Swap REST host URL (default `https://openapi.digifinex.com`).
    #[arg(long, value_name = "URL", conflicts_with = "sim")]
    pub(crate) swap_base_url: Option<String>,
    /// Spot websocket URL (default `wss://openapi.digifinex.com/ws/v1/`; ws:// to loopback).
    #[arg(long, value_name = "URL", conflicts_with = "sim")]
    pub(crate) spot_ws_url: Option<String>,
    /// Swap websocket URL (default `wss://openapi.digifinex.com/swap_ws/v2/`).
    #[arg(long, value_name = "URL", conflicts_with = "sim")]
    pub(crate) swap_ws_url: Option<String>,
    /// Allow a plain `http://` base URL to a machine other than this one.
    #[arg(long)]
    pub(crate) allow_http: bool,
    /// Feed from an embedded simulator instead of the venue (to try the feed).
    #[arg(long)]
    pub(crate) sim: bool,
}

/// How a consumer reaches a feed: `stream --feed URL`.
#[cfg(feature = "feed")]
pub(crate) struct FeedSource {
    pub(crate) url: String,
    pub(crate) creds: Option<std::path::PathBuf>,
    pub(crate) stream: String,
}

#[cfg(feature = "feed")]
pub(crate) fn run(args: FeedArgs) -> Result<(), crate::Failure> {
    crate::feed_nats::run(args)
}

#[cfg(not(feature = "feed"))]
pub(crate) fn run(_args: FeedArgs) -> Result<(), crate::Failure> {
    Err(missing("feed"))
}

/// The error of a feed command in a build without the `feed` feature.
#[cfg(not(feature = "feed"))]
pub(crate) fn missing(command: &str) -> crate::Failure {
    crate::Failure::Usage(format!(
        "`digifinex {command}`: this digifinex was built without the `feed` feature (cargo build \
         -p digifinex-cli --features feed)"
    ))
}
