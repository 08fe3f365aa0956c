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
//! DESIGN: the broker's side is [`digifinex_nats::Reader`] (async-nats, whose docs say how
//! books start and gaps are found), run on a current-thread tokio runtime on one thread per
//! reader; the blocking API stays blocking. What the reader hands on waits in a bounded queue
//! ([`QUEUE`], or the stream's own queue); a full queue stops the reader from taking more
//! (JetStream holds the rest, and a reader that falls behind the broker's window is cut off
//! and resyncs).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use digifinex_core::ws::{Event, StreamInput, Subscription};
use digifinex_core::{Error, TransportErrorKind};
use digifinex_nats::Reader;

use crate::ws::{Stream, StreamBuilder};

/// Items a [`FeedReader`] holds for its caller at most (and events a stream's feed hands on
/// before the stream reads them).
pub const QUEUE: usize = 4_096;

/// How long [`FeedReader::open`] waits for the broker: the connection and the consumers.
const SETUP_TIMEOUT: Duration = Duration::from_secs(30);

pub use digifinex_nats::{FeedItem, FeedSource};

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
            if let Some(e) = item.into_event() {
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
        let public = digifinex_nats::to_read(self.reads_feed(), self.streams())?;
        let stop = spawn(source, &public, self.inbox(), |item| {
            item.into_event().map(|e| StreamInput::Relayed(Box::new(e)))
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
    digifinex_nats::check_public(subs)?;
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
            rt.block_on(async move {
                let mut reader = match Reader::open(&src, &subs).await {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                loop {
                    // The stop flag is looked at twice a second at least.
                    let item = tokio::select! {
                        item = reader.next() => Some(item),
                        _ = tokio::time::sleep(Duration::from_millis(500)) => None,
                    };
                    if flag.load(Ordering::SeqCst) {
                        return;
                    }
                    let Some(value) = item.and_then(&map) else {
                        continue;
                    };
                    if !hand(&tx, value, &flag).await {
                        return;
                    }
                }
            });
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
                    source.url(),
                    SETUP_TIMEOUT.as_secs()
                ),
                source: None,
            })
        }
    }
}

/// Hands `value` on, waiting while the queue is full; `false` when stopped or the receiver is
/// gone.
async fn hand<T>(tx: &SyncSender<T>, mut value: T, stop: &AtomicBool) -> bool {
    loop {
        match tx.try_send(value) {
            Ok(()) => return true,
            Err(TrySendError::Disconnected(_)) => return false,
            Err(TrySendError::Full(back)) => {
                if stop.load(Ordering::SeqCst) {
                    return false;
                }
                value = back;
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
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
