//! Public market data from a feed instead of the venue's sockets (feature `feed`): what
//! `digifinex feed` publishes to NATS JetStream, read back as the stream's own [`Event`]s.
//!
//! A team runs one feed (or several, splitting the markets) and every bot takes its books,
//! trades and tickers from the broker: the venue sees one set of sockets, however many bots
//! run. Private channels stay on each bot's own authenticated socket.
//!
//! - [`FromFeed::from_feed`] in place of `build()`: the stream's public subscriptions come from
//!   the feed, its private ones from the venue's socket, all as one [`Stream`] of the same
//!   events (a book starts from the feed's snapshot; a gap in the feed's sequence is an
//!   [`Event::Resync`] of the book, which is rebuilt from a fresh snapshot, or an
//!   [`Event::Gap`] of a channel without snapshots; never a silent jump). A stream with no
//!   private subscription opens no socket to the venue.
//! - [`FeedReader`]: the same messages without a stream machine, as the feed's JSON lines
//!   (`digifinex stream --feed` prints them) or as events.
//!
//! ```no_run
//! use digifinex_ureq::core::ws::Event;
//! use digifinex_ureq::core::Family;
//! use digifinex_ureq::feed::{FeedSource, FromFeed};
//!
//! let client = digifinex_ureq::Client::new()?;
//! let feed = FeedSource::new("nats://10.0.0.5:4222");
//! let stream = client.stream(Family::Spot)
//!     .subscribe("spot:depth:btc_usdt".parse()?)
//!     .from_feed(&feed)?;
//! for event in stream.take(100) {
//!     if let Event::Book(update) = event {
//!         println!("{:?} / {:?}", update.best_bid, update.best_ask);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! DESIGN: the broker side runs on a current-thread tokio runtime on one thread per reader
//! (async-nats is the NATS client the field uses; the blocking API stays blocking). One
//! ordered push consumer per market stream (JetStream's flow control and redelivery of lost
//! pushes underneath; a server of version 2.9 takes one filter subject a consumer). A book
//! starts from its last stored snapshot (its consumer starts right after it in the stream),
//! else from a fresh one asked of the feeds on `{prefix}.request.snapshot`, asked again every
//! second while the book waits. What the reader hands on waits in a bounded queue
//! ([`QUEUE`]); a full queue stops the reader from taking more (JetStream holds the rest, and
//! a reader that falls behind the broker's window is cut off and resyncs). When the broker's
//! consumers end (the stream deleted, the server gone for good), the reader sets them up
//! again every second; the sequence numbers tell the consumer machine what was lost.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, consumer};
use digifinex_core::feed::{self, request_subject, Consumer, Output};
use digifinex_core::ws::{Channel, Event, StreamInput, Subscription};
use digifinex_core::{Error, TransportErrorKind};
use futures_util::StreamExt;

use crate::ws::{Stream, StreamBuilder};

/// Items a [`FeedReader`] holds for its caller at most (and events a stream's feed hands on
/// before the stream reads them).
pub const QUEUE: usize = 4_096;

/// How long [`FeedReader::open`] waits for the broker: the connection and the consumers.
const SETUP_TIMEOUT: Duration = Duration::from_secs(30);

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

/// What a [`FeedReader`] hands on.
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

/// The feed's messages of some subscriptions, read on a thread of its own: a blocking
/// iterator of [`FeedItem`]s. Dropping it stops the thread.
#[derive(Debug)]
pub struct FeedReader {
    rx: Receiver<FeedItem>,
    stop: Arc<AtomicBool>,
    ended: bool,
}

impl FeedReader {
    /// Connects to the feed and starts reading the market streams of `subs` (public channels
    /// only; the depth level does not matter: any level names the market's book). Fails when
    /// the NATS server cannot be reached, the feed's stream is not there, or a subscription is
    /// private.
    pub fn open(source: &FeedSource, subs: &[Subscription]) -> Result<FeedReader, Error> {
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let stop = spawn(source, subs, tx, Some)?;
        Ok(FeedReader {
            rx,
            stop,
            ended: false,
        })
    }

    /// The next item within `timeout`; `None` when none came in time or the reader ended
    /// ([`FeedReader::is_ended`]).
    pub fn next_timeout(&mut self, timeout: Duration) -> Option<FeedItem> {
        match self.rx.recv_timeout(timeout) {
            Ok(item) => Some(item),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.ended = true;
                None
            }
        }
    }

    /// The next event within `timeout` (the lines made events; what cannot be is skipped and
    /// logged at WARN, as are [`FeedItem::Skipped`] and [`FeedItem::Trouble`]).
    pub fn next_event_timeout(&mut self, timeout: Duration) -> Option<Event> {
        let until = Instant::now() + timeout;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let item = self.next_timeout(left)?;
            if let Some(e) = into_event(item) {
                return Some(e);
            }
            if left.is_zero() {
                return None;
            }
        }
    }

    /// Whether the reader's thread ended (it ends only when dropped or when its runtime could
    /// not run).
    pub fn is_ended(&self) -> bool {
        self.ended
    }
}

impl Iterator for FeedReader {
    type Item = FeedItem;

    /// The next item, blocking; `None` once the reader ended.
    fn next(&mut self) -> Option<FeedItem> {
        match self.rx.recv() {
            Ok(item) => Some(item),
            Err(_) => {
                self.ended = true;
                None
            }
        }
    }
}

impl Drop for FeedReader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The event of an item (a line that is not an event, a note: logged at WARN, `None`).
fn into_event(item: FeedItem) -> Option<Event> {
    match item {
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

/// A stream's public subscriptions from a feed: `from_feed` in place of `build()`.
pub trait FromFeed {
    /// The stream with its public subscriptions read from the feed at `source` and its private
    /// ones from the venue's socket (opened only when there are private ones), as one stream
    /// of the same events ([`Stream::market_data_from`] after `build()`).
    #[allow(clippy::wrong_self_convention)]
    fn from_feed(self, source: &FeedSource) -> Result<Stream, Error>;
}

impl FromFeed for StreamBuilder {
    fn from_feed(self, source: &FeedSource) -> Result<Stream, Error> {
        let mut stream = Stream::from_builder(self)?;
        stream.market_data_from(source)?;
        Ok(stream)
    }
}

impl Stream {
    /// From now on the stream's public subscriptions come from the feed at `source` instead
    /// of the venue's socket (their venue subscriptions are dropped; before the stream was
    /// first read, no socket was opened for them). Private subscriptions stay on the venue's
    /// socket, which is not opened while there are none. Subscriptions added later
    /// (`subscribe`, a handle) go to the venue's socket. Fails as [`FeedReader::open`] does,
    /// and when the stream already reads a feed.
    pub fn market_data_from(&mut self, source: &FeedSource) -> Result<(), Error> {
        if self.reads_feed() {
            return Err(Error::validation("feed", "the stream already reads a feed"));
        }
        let public: Vec<Subscription> = self
            .streams()
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
        let stop = spawn(source, &public, self.inbox(), |item| {
            into_event(item).map(|e| StreamInput::Relayed(Box::new(e)))
        })?;
        for s in &public {
            self.unsubscribe(s);
        }
        self.relay_from(stop);
        Ok(())
    }
}

impl crate::track::TrackedStream {
    /// The stream's public subscriptions from the feed at `source` ([`Stream::market_data_from`]);
    /// the tracker's channels are private and stay on the venue's socket.
    pub fn market_data_from(&mut self, source: &FeedSource) -> Result<(), Error> {
        self.stream_mut().market_data_from(source)
    }
}

/// Sets up the reading of `subs` on a thread of its own and waits until it runs (or failed);
/// each item goes to `tx` through `map` (`None`: dropped). The flag stops the thread.
fn spawn<T: Send + 'static>(
    source: &FeedSource,
    subs: &[Subscription],
    tx: SyncSender<T>,
    map: impl Fn(FeedItem) -> Option<T> + Send + 'static,
) -> Result<Arc<AtomicBool>, Error> {
    if let Some(s) = subs.iter().find(|s| s.channel.is_private()) {
        return Err(Error::validation(
            "subscriptions",
            format!("{s}: private channels are not in a feed; stream them from the venue"),
        ));
    }
    let machine = Consumer::new(&source.prefix, subs)?;
    let stop = Arc::new(AtomicBool::new(false));
    let (ready_tx, ready) = mpsc::sync_channel(1);
    let (src, subs, flag) = (source.clone(), subs.to_vec(), stop.clone());
    std::thread::Builder::new()
        .name("digifinex-feed".to_owned())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(other(format!("cannot start the runtime: {e}"))));
                    return;
                }
            };
            let mut reader = Reading {
                source: src,
                subs,
                machine,
                stop: flag,
                tx,
                map,
            };
            rt.block_on(reader.run(ready_tx));
        })
        .map_err(|e| other(format!("cannot start the feed's thread: {e}")))?;
    match ready.recv_timeout(SETUP_TIMEOUT) {
        Ok(Ok(())) => Ok(stop),
        Ok(Err(e)) => Err(e),
        Err(_) => {
            stop.store(true, Ordering::SeqCst);
            Err(Error::Transport {
                kind: TransportErrorKind::Timeout,
                message: format!(
                    "the feed at {} was not ready within {} s",
                    source.url,
                    SETUP_TIMEOUT.as_secs()
                ),
                source: None,
            })
        }
    }
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

/// One reader's state on its thread.
struct Reading<T, M> {
    source: FeedSource,
    subs: Vec<Subscription>,
    machine: Consumer,
    stop: Arc<AtomicBool>,
    tx: SyncSender<T>,
    map: M,
}

/// Why [`Reading::serve`] came back.
enum Served {
    /// Stopped, or the receiver is gone.
    Done,
    /// The consumers ended: set them up again.
    Again(String),
}

type Messages = futures_util::stream::SelectAll<consumer::push::Ordered>;

impl<T, M: Fn(FeedItem) -> Option<T>> Reading<T, M> {
    async fn run(&mut self, ready: SyncSender<Result<(), Error>>) {
        let mut ready = Some(ready);
        let nats = match self.connect().await {
            Ok(n) => n,
            Err(e) => {
                if let Some(r) = ready.take() {
                    let _ = r.send(Err(e));
                }
                return;
            }
        };
        loop {
            let messages = match self.consumers(&nats).await {
                Ok(m) => m,
                Err(e) => {
                    if let Some(r) = ready.take() {
                        let _ = r.send(Err(e));
                        return;
                    }
                    if !self.hand(FeedItem::Trouble(e.to_string())).await {
                        return;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            if let Some(r) = ready.take() {
                let _ = r.send(Ok(()));
            }
            match self.serve(&nats, messages).await {
                Served::Done => return,
                Served::Again(why) => {
                    if !self.hand(FeedItem::Trouble(why)).await {
                        return;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }

    async fn connect(&self) -> Result<async_nats::Client, Error> {
        let s = &self.source;
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

    /// The stored snapshots of the books, then one ordered consumer per market stream.
    async fn consumers(&mut self, nats: &async_nats::Client) -> Result<Messages, Error> {
        let (prefix, name) = (self.source.prefix.clone(), self.source.stream.clone());
        let js = jetstream::new(nats.clone());
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
                    deliver_subject: nats.new_inbox(),
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

    /// Hands the machine's output on and feeds it the broker's messages until stopped.
    async fn serve(&mut self, nats: &async_nats::Client, mut merged: Messages) -> Served {
        let prefix = self.source.prefix.clone();
        // Books waiting for a fresh snapshot.
        let mut wanted: Vec<String> = Vec::new();
        let mut retry = tokio::time::interval(Duration::from_secs(1));
        let (mut skipped, mut told) = (0u64, None::<Instant>);
        loop {
            while let Some(o) = self.machine.poll_output() {
                match o {
                    Output::Event { line, feed_ms } => {
                        let handed = self.hand(FeedItem::Line { line, feed_ms }).await;
                        if !handed {
                            return Served::Done;
                        }
                    }
                    Output::NeedSnapshot { market, .. }
                        if self.machine.is_waiting(&market) && !wanted.contains(&market) =>
                    {
                        wanted.push(market);
                    }
                    _ => {}
                }
            }
            if self.stop.load(Ordering::SeqCst) {
                return Served::Done;
            }
            tokio::select! {
                next = merged.next() => match next {
                    Some(Ok(m)) => {
                        if let Err(e) = self.machine.handle_message(&m.payload) {
                            skipped = skipped.saturating_add(1);
                            if told.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                                told = Some(Instant::now());
                                let item = FeedItem::Skipped { total: skipped, last: e.to_string() };
                                if !self.hand(item).await {
                                    return Served::Done;
                                }
                            }
                        }
                    }
                    Some(Err(e)) => {
                        if !self.hand(FeedItem::Trouble(format!("the feed's consumer: {e}"))).await {
                            return Served::Done;
                        }
                    }
                    None => return Served::Again("the feed's consumers ended; setting them up again".to_owned()),
                },
                _ = retry.tick() => {
                    // A fresh snapshot of each book that waits, asked of the feeds.
                    wanted.retain(|m| self.machine.is_waiting(m));
                    for market in wanted.clone() {
                        if let Ok(reply) = nats.request(request_subject(&prefix), market.clone().into()).await {
                            let _ = self.machine.handle_snapshot(&reply.payload);
                        }
                    }
                    wanted.retain(|m| self.machine.is_waiting(m));
                }
            }
        }
    }

    /// Hands `item` on, waiting while the queue is full; `false` when stopped or the receiver
    /// is gone.
    async fn hand(&self, item: FeedItem) -> bool {
        let Some(mut value) = (self.map)(item) else {
            return true;
        };
        loop {
            match self.tx.try_send(value) {
                Ok(()) => return true,
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(back)) => {
                    if self.stop.load(Ordering::SeqCst) {
                        return false;
                    }
                    value = back;
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            }
        }
    }
}
