//! Public market data from a feed instead of the venue's sockets (feature `feed`): what
//! `digifinex feed` publishes to NATS JetStream, read back as the stream's own [`Event`]s.
//!
//! A team runs one feed (or several, splitting the markets) and every bot takes its books,
//! trades and tickers from the broker: the venue sees one set of sockets, however many bots
//! run. Private channels stay on each bot's own authenticated socket.
//!
//! [`FromFeed::from_feed`] in place of `build()`: the stream's public subscriptions come from
//! the feed, its private ones from the venue's socket, all as one [`Stream`] of the same
//! events (a book starts from the feed's snapshot; a gap in the feed's sequence is an
//! [`Event::Resync`] of the book, which is rebuilt from a fresh snapshot, or an
//! [`Event::Gap`] of a channel without snapshots; never a silent jump). A stream with no
//! private subscription opens no socket to the venue. [`digifinex_nats::Reader`] reads a
//! feed without a stream.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use digifinex_hyper::core::ws::Event;
//! use digifinex_hyper::core::Family;
//! use digifinex_hyper::feed::{FeedSource, FromFeed};
//!
//! let client = digifinex_hyper::Client::new()?;
//! let feed = FeedSource::new("nats://10.0.0.5:4222");
//! let mut stream = client.stream(Family::Spot)
//!     .subscribe("spot:depth:btc_usdt".parse()?)
//!     .from_feed(&feed)
//!     .await?;
//! while let Some(event) = stream.next_event().await {
//!     if let Event::Book(update) = event {
//!         println!("{:?} / {:?}", update.best_bid, update.best_ask);
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! DESIGN: the feed is read by a task of the stream's runtime ([`digifinex_nats::Reader`],
//! whose docs say how books start and gaps are found), which hands each event to the stream's
//! bounded queue (waiting while it is full: JetStream holds the rest) and ends when the
//! stream is dropped.

use digifinex_core::ws::StreamInput;
use digifinex_core::Error;
use digifinex_nats::Reader;

pub use digifinex_nats::{FeedItem, FeedSource};

use crate::ws::{Stream, StreamBuilder};

/// A stream's public subscriptions from a feed: `from_feed` in place of `build()`.
pub trait FromFeed {
    /// The stream with its public subscriptions read from the feed at `source` and its private
    /// ones from the venue's socket (opened only when there are private ones), as one stream
    /// of the same events ([`Stream::market_data_from`] after `build()`).
    #[allow(clippy::wrong_self_convention)]
    fn from_feed(
        self,
        source: &FeedSource,
    ) -> impl std::future::Future<Output = Result<Stream, Error>> + Send;
}

impl FromFeed for StreamBuilder {
    async fn from_feed(self, source: &FeedSource) -> Result<Stream, Error> {
        let mut stream = Stream::from_builder(self)?;
        stream.market_data_from(source).await?;
        Ok(stream)
    }
}

impl Stream {
    /// From now on the stream's public subscriptions come from the feed at `source` instead
    /// of the venue's socket (their venue subscriptions are dropped; before the stream was
    /// first read, no socket was opened for them). Private subscriptions stay on the venue's
    /// socket, which is not opened while there are none. Subscriptions added later
    /// (`subscribe`, a handle) go to the venue's socket. Fails when the NATS server cannot be
    /// reached, the feed's stream is not there, the stream has no public subscription, or it
    /// already reads a feed.
    pub async fn market_data_from(&mut self, source: &FeedSource) -> Result<(), Error> {
        let public = digifinex_nats::to_read(self.reads_feed(), self.streams())?;
        let mut reader = Reader::open(source, &public).await?;
        for s in &public {
            self.unsubscribe(s);
        }
        let tx = self.relay();
        tokio::spawn(async move {
            loop {
                let item = tokio::select! {
                    item = reader.next() => item,
                    _ = tx.closed() => return,
                };
                if let Some(e) = item.into_event() {
                    if tx.send(StreamInput::Relayed(Box::new(e))).await.is_err() {
                        return;
                    }
                }
            }
        });
        Ok(())
    }
}

impl crate::track::TrackedStream {
    /// The stream's public subscriptions from the feed at `source` ([`Stream::market_data_from`]);
    /// the tracker's channels are private and stay on the venue's socket.
    pub async fn market_data_from(&mut self, source: &FeedSource) -> Result<(), Error> {
        self.stream_mut().market_data_from(source).await
    }
}
