//! The NATS JetStream side of a market-data feed's consumers: what `digifinex feed` publishes
//! ([`digifinex_core::feed`] says what and how), read back as the streams' events on
//! async-nats.
//!
//! The clients use it through their `feed` feature (`digifinex-ureq`: a blocking reader and
//! `client.stream(..).from_feed(&source)`; `digifinex-hyper`: the same, awaited). [`Reader`]
//! is the async reader itself, for a program of its own on tokio:
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use digifinex_nats::{FeedItem, FeedSource, Reader};
//!
//! let source = FeedSource::new("nats://10.0.0.5:4222");
//! let subs = ["spot:depth:btc_usdt".parse()?];
//! let mut reader = Reader::open(&source, &subs).await?;
//! loop {
//!     if let FeedItem::Line { line, .. } = reader.next().await {
//!         let event = digifinex_core::feed::parse_event(&line)?;
//!         println!("{event:?}");
//!     }
//! }
//! # }
//! ```
//!
//! DESIGN: one ordered push consumer per market stream (JetStream's flow control and
//! redelivery of lost pushes underneath; a server of version 2.9 takes one filter subject a
//! consumer). A book starts from its last stored snapshot (its consumer starts right after it
//! in the stream), else from a fresh one asked of the feeds on `{prefix}.request.snapshot`,
//! asked again every second while the book waits. The reader is pulled ([`Reader::next`]),
//! so what waits for the caller is JetStream's, never an unbounded queue here; a reader that
//! falls behind the broker's window is cut off by the server and resyncs. When the broker's
//! consumers end (the stream deleted, the server gone for good), the reader sets them up
//! again every second; the sequence numbers tell the consumer machine what was lost, and the
//! books resync.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use async_nats::jetstream::{self, consumer};
use digifinex_core::feed::{self, request_subject, Consumer, Output};
use digifinex_core::ws::{Channel, Event, Streams, Subscription};
use digifinex_core::{Error, TransportErrorKind};
use futures_util::StreamExt;
use tokio::time::Instant;

/// Where a feed is: the NATS server, its credentials, and the JetStream stream and subject
/// prefix `digifinex feed` publishes to (`DIGIFINEX` and `digifinex` unless the feed was
/// started with others).
#[derive(Clone, Debug)]
pub struct FeedSource {
    url: String,
    creds: Option<PathBuf>,
    stream: String,
    prefix: String,
    connect_timeout: Duration,
}

impl FeedSource {
    /// The feed on the NATS server at `url` (`nats://HOST:4222`; `tls://` for TLS, as NATS
    /// clients take it; several servers separated by commas).
    pub fn new(url: impl Into<String>) -> FeedSource {
        FeedSource {
            url: url.into(),
            creds: None,
            stream: feed::DEFAULT_STREAM.to_owned(),
            prefix: feed::DEFAULT_PREFIX.to_owned(),
            connect_timeout: Duration::from_secs(5),
        }
    }

    /// Connects with the NATS credentials file at `path` (a `.creds` file: JWT and seed).
    pub fn creds(mut self, path: impl Into<PathBuf>) -> FeedSource {
        self.creds = Some(path.into());
        self
    }

    /// The JetStream stream the feed publishes to (`digifinex feed --stream`; default
    /// `DIGIFINEX`).
    pub fn stream(mut self, name: impl Into<String>) -> FeedSource {
        self.stream = name.into();
        self
    }

    /// The subjects' prefix (default `digifinex`).
    pub fn prefix(mut self, prefix: impl Into<String>) -> FeedSource {
        self.prefix = prefix.into();
        self
    }

    /// How long connecting to the NATS server may take (default 5 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> FeedSource {
        self.connect_timeout = timeout;
        self
    }

    /// The NATS server's URL.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// What a [`Reader`] hands on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FeedItem {
    /// An event of the subscriptions, in order: its JSON line as `digifinex stream` prints it
    /// ([`digifinex_core::feed::parse_event`] makes it an [`Event`]) and the time the feed took
    /// it (ms since the epoch), when it says.
    Line {
        /// The event's JSON text.
        line: String,
        /// When the feed took it from the venue.
        feed_ms: Option<i64>,
    },
    /// Messages that were not the feed's were skipped (a foreign publisher on a feed subject):
    /// how many so far and why the last one was. Told once a second at most.
    Skipped {
        /// Messages skipped since the reader started.
        total: u64,
        /// Why the last one was.
        last: String,
    },
    /// The broker side had trouble (a consumer's error, the consumers set up again); the
    /// reader goes on by itself.
    Trouble(String),
}

impl FeedItem {
    /// The event an item carries for a stream: a line made an [`Event`]; what is not one (a
    /// line that does not read as an event, [`FeedItem::Skipped`], [`FeedItem::Trouble`]) is
    /// logged at WARN (`tracing`) and gives `None`.
    pub fn into_event(self) -> Option<Event> {
        match self {
            FeedItem::Line { line, .. } => match feed::parse_event(&line) {
                Ok(e) => Some(e),
                Err(e) => {
                    tracing::warn!(error = %e, "a feed event was skipped");
                    None
                }
            },
            FeedItem::Skipped { total, last } => {
                tracing::warn!(total, last = %last, "messages on the feed's subjects were skipped");
                None
            }
            FeedItem::Trouble(detail) => {
                tracing::warn!(detail = %detail, "the feed");
                None
            }
        }
    }
}

/// The public subscriptions of `subs`, refused when one is private (a feed has none).
pub fn check_public(subs: &[Subscription]) -> Result<(), Error> {
    match subs.iter().find(|s| s.channel.is_private()) {
        Some(s) => Err(Error::validation(
            "subscriptions",
            format!("{s}: private channels are not in a feed; stream them from the venue"),
        )),
        None => Ok(()),
    }
}

/// The subscriptions a stream of `streams` reads from a feed: its public ones. Refused when
/// it already reads a feed (`reads_feed`) or has no public subscription.
pub fn to_read(reads_feed: bool, streams: &Streams) -> Result<Vec<Subscription>, Error> {
    if reads_feed {
        return Err(Error::validation("feed", "the stream already reads a feed"));
    }
    let public: Vec<Subscription> = streams
        .subscriptions()
        .map(|(s, _)| s.clone())
        .filter(|s| !s.channel.is_private())
        .collect();
    if public.is_empty() {
        return Err(Error::validation(
            "feed",
            "the stream has no public subscription to read from a feed",
        ));
    }
    Ok(public)
}

fn other(message: String) -> Error {
    Error::Transport {
        kind: TransportErrorKind::Other,
        message,
        source: None,
    }
}

fn connect_error(message: String) -> Error {
    Error::Transport {
        kind: TransportErrorKind::Connect,
        message,
        source: None,
    }
}

type Messages = futures_util::stream::SelectAll<consumer::push::Ordered>;

/// The feed's messages of some market streams, in order, as [`FeedItem`]s: pulled with
/// [`Reader::next`] on a tokio runtime.
pub struct Reader {
    source: FeedSource,
    subs: Vec<Subscription>,
    machine: Consumer,
    nats: async_nats::Client,
    /// The consumers' messages; `None` while they are to be set up again (at `again_at`).
    merged: Option<Messages>,
    again_at: Instant,
    /// Books waiting for a fresh snapshot.
    wanted: Vec<String>,
    retry: tokio::time::Interval,
    skipped: u64,
    told: Option<Instant>,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("url", &self.source.url)
            .field("subscriptions", &self.subs.len())
            .finish_non_exhaustive()
    }
}

/// What one look at the broker gave (consumed at once: its size does not matter).
#[allow(clippy::large_enum_variant)]
enum Look {
    Message(async_nats::jetstream::Message),
    Failed(String),
    Ended,
    Retry,
}

impl Reader {
    /// Connects to the feed and sets up the reading of the market streams of `subs` (public
    /// channels only; the depth level does not matter: any level names the market's book).
    /// Fails when the NATS server cannot be reached, the feed's stream is not there, or a
    /// subscription is private.
    pub async fn open(source: &FeedSource, subs: &[Subscription]) -> Result<Reader, Error> {
        check_public(subs)?;
        let machine = Consumer::new(&source.prefix, subs)?;
        let nats = connect(source).await?;
        let mut retry = tokio::time::interval(Duration::from_secs(1));
        retry.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut reader = Reader {
            source: source.clone(),
            subs: subs.to_vec(),
            machine,
            nats,
            merged: None,
            again_at: Instant::now(),
            wanted: Vec::new(),
            retry,
            skipped: 0,
            told: None,
        };
        reader.merged = Some(reader.consumers().await?);
        Ok(reader)
    }

    /// The next item; it waits as long as it takes (a reader never ends: when the broker's
    /// side fails, it says so with [`FeedItem::Trouble`] and goes on). Cancel-safe: nothing
    /// is lost when the future is dropped before it is ready.
    pub async fn next(&mut self) -> FeedItem {
        loop {
            while let Some(o) = self.machine.poll_output() {
                match o {
                    Output::Event { line, feed_ms } => return FeedItem::Line { line, feed_ms },
                    Output::NeedSnapshot { market, .. }
                        if self.machine.is_waiting(&market) && !self.wanted.contains(&market) =>
                    {
                        self.wanted.push(market);
                    }
                    _ => {}
                }
            }
            let Some(merged) = self.merged.as_mut() else {
                tokio::time::sleep_until(self.again_at).await;
                match self.consumers().await {
                    Ok(m) => self.merged = Some(m),
                    Err(e) => {
                        self.again_at = Instant::now() + Duration::from_secs(1);
                        return FeedItem::Trouble(e.to_string());
                    }
                }
                continue;
            };
            let look = tokio::select! {
                next = merged.next() => match next {
                    Some(Ok(m)) => Look::Message(m),
                    Some(Err(e)) => Look::Failed(e.to_string()),
                    None => Look::Ended,
                },
                _ = self.retry.tick() => Look::Retry,
            };
            match look {
                Look::Message(m) => {
                    if let Err(e) = self.machine.handle_message(&m.payload) {
                        self.skipped = self.skipped.saturating_add(1);
                        if self
                            .told
                            .is_none_or(|t| t.elapsed() >= Duration::from_secs(1))
                        {
                            self.told = Some(Instant::now());
                            return FeedItem::Skipped {
                                total: self.skipped,
                                last: e.to_string(),
                            };
                        }
                    }
                }
                Look::Failed(e) => return FeedItem::Trouble(format!("the feed's consumer: {e}")),
                Look::Ended => {
                    self.merged = None;
                    self.again_at = Instant::now() + Duration::from_secs(1);
                    return FeedItem::Trouble(
                        "the feed's consumers ended; setting them up again".to_owned(),
                    );
                }
                Look::Retry => self.ask_snapshots().await,
            }
        }
    }

    /// A fresh snapshot of each book that waits, asked of the feeds.
    async fn ask_snapshots(&mut self) {
        let machine = &self.machine;
        self.wanted.retain(|m| machine.is_waiting(m));
        for market in self.wanted.clone() {
            let subject = request_subject(&self.source.prefix);
            if let Ok(reply) = self.nats.request(subject, market.into()).await {
                let _ = self.machine.handle_snapshot(&reply.payload);
            }
        }
        let machine = &self.machine;
        self.wanted.retain(|m| machine.is_waiting(m));
    }

    /// The stored snapshots of the books, then one ordered consumer per market stream.
    async fn consumers(&mut self) -> Result<Messages, Error> {
        let (prefix, name) = (self.source.prefix.clone(), self.source.stream.clone());
        let js = jetstream::new(self.nats.clone());
        let stored = js.get_stream(&name).await.map_err(|e| {
            connect_error(format!(
                "no stream {name} on {}: {e} (is `digifinex feed` running?)",
                self.source.url
            ))
        })?;
        // Each book's last stored snapshot first: its consumer starts right after it.
        let mut starts: HashMap<String, u64> = HashMap::new();
        for s in &self.subs {
            let sub = feed::market_of(s);
            if sub.channel != Channel::Depth {
                continue;
            }
            let snap = feed::snapshot_subject(&prefix, &sub)?;
            if let Ok(m) = stored.get_last_raw_message_by_subject(&snap).await {
                if self.machine.handle_snapshot(&m.payload).is_ok() {
                    starts.insert(sub.to_string(), m.sequence.saturating_add(1));
                }
            }
        }
        let mut streams = Vec::new();
        for s in &self.subs {
            let sub = feed::market_of(s);
            let subject = feed::subject(&prefix, &sub)?;
            let deliver_policy = match starts.get(&sub.to_string()) {
                Some(&start_sequence) => {
                    consumer::DeliverPolicy::ByStartSequence { start_sequence }
                }
                None => consumer::DeliverPolicy::New,
            };
            let c = stored
                .create_consumer(consumer::push::OrderedConfig {
                    deliver_subject: self.nats.new_inbox(),
                    filter_subject: subject.clone(),
                    deliver_policy,
                    ..Default::default()
                })
                .await
                .map_err(|e| other(format!("a consumer of {subject}: {e}")))?;
            let messages = c
                .messages()
                .await
                .map_err(|e| other(format!("the messages of {subject}: {e}")))?;
            streams.push(messages);
        }
        Ok(futures_util::stream::select_all(streams))
    }
}

async fn connect(s: &FeedSource) -> Result<async_nats::Client, Error> {
    let mut options = async_nats::ConnectOptions::new()
        .name("digifinex-stream")
        .connection_timeout(s.connect_timeout)
        .request_timeout(Some(Duration::from_secs(5)));
    if let Some(path) = &s.creds {
        options = options
            .credentials_file(path)
            .await
            .map_err(|e| Error::validation("creds", format!("{}: {e}", path.display())))?;
    }
    options
        .connect(s.url.as_str())
        .await
        .map_err(|e| connect_error(format!("cannot reach the NATS server {}: {e}", s.url)))
}
