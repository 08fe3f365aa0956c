//! One account state through the async client (issue 29): a [`Tracker`] of the core, its
//! reads performed through [`Client::drive`] (weight budget, retries of reads, clock). The
//! tracker is the only part that follows the account: the stream reads nothing over REST.
//! Every rule is the core's ([`digifinex_core::track`]); this module only moves events, reads
//! and answers.
//!
//! One call makes a stream and its tracker ([`TrackedStream`]): the tracker's private
//! subscriptions are added, every event is handed to it, its reads (one resync at the start
//! and after each reconnect, the periodic ones, fills) are performed between the events.
//!
//! ```no_run
//! use digifinex_hyper::core::track::TrackConfig;
//! use digifinex_hyper::core::{Credentials, Family};
//! use digifinex_hyper::Client;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::builder().credentials(Credentials::new("key", "secret")).build()?;
//! let mut account = client.stream(Family::Spot).tracked(["btc_usdt"], TrackConfig::default())?;
//! while let Some(_event) = account.next_event().await {
//!     while let Some(change) = account.poll_change() {
//!         println!("{}", serde_json::to_string(&change)?);
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! [`Client::tracker`] drives a tracker alone; the bot then hands it the events of a stream of
//! its own ([`Tracking::on_event`]):
//!
//! ```no_run
//! use digifinex_hyper::core::track::{TrackConfig, Tracker};
//! use digifinex_hyper::core::Family;
//! use digifinex_hyper::Client;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::new()?;
//! let now = client.session().now();
//! let mut tracking = client.tracker(Tracker::new(Family::Spot, ["btc_usdt"], TrackConfig::default(), now));
//! tracking.sync().await; // the first resync: open orders, fills, balances
//! while let Some(change) = tracking.poll_change() {
//!     println!("{}", serde_json::to_string(&change)?);
//! }
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;
use std::time::Duration;

use digifinex_core::reconcile::{Unknown, Write};
use digifinex_core::session::Session;
use digifinex_core::track::{Answer, Change, State, Tracker};
use digifinex_core::ws::{Event, StreamTransport};
use digifinex_core::Error;
use hyper_util::client::legacy::connect::Connect;

use crate::ws::{Async, Connector, Stream, StreamBuilder, StreamHandle, Tls};
use crate::{Client, DefaultConnector};

impl<C> Client<C>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    /// Drives `tracker` through this client (see [`Tracking`]).
    pub fn tracker(&self, tracker: Tracker) -> Tracking<C> {
        Tracking {
            client: self.clone(),
            tracker,
        }
    }
}

/// A [`Tracker`] whose reads go through a [`Client`].
#[derive(Debug)]
pub struct Tracking<C = DefaultConnector> {
    client: Client<C>,
    tracker: Tracker,
}

impl<C> Tracking<C>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    /// Performs every read the tracker has due now (a reconciliation's, a resync's, fills
    /// due); returns how many. A failed read is handed to the tracker, which tries again later.
    pub async fn sync(&mut self) -> u32 {
        let mut reads = 0u32;
        while let Some(read) = self.tracker.next_read(self.client.session().now()) {
            reads = reads.saturating_add(1);
            let result = self.client.drive(read.call(self.client.session())).await;
            let now = self.client.session().now();
            match result {
                Ok(answer) => self.tracker.feed(answer.value, now),
                Err(e) => self.tracker.feed_error(e, now),
            }
        }
        reads
    }

    /// Hands a stream event to the tracker.
    pub fn on_event(&mut self, event: &Event) {
        self.tracker.on_event(event, self.client.session().now());
    }

    /// Hands a write's answer to the tracker (see [`Tracker::on_answer`]).
    pub fn on_answer(&mut self, write: &Write, answer: &Answer) -> bool {
        self.tracker
            .on_answer(write, answer, self.client.session().now())
    }

    /// Hands a write's error to the tracker: an [`Error::OutcomeUnknown`] is reconciled by the
    /// next [`Tracking::sync`] (`true`); any other error changed nothing (`false`).
    pub fn on_error(&mut self, error: &Error) -> bool {
        match Unknown::from_error(error) {
            Ok(unknown) => {
                self.tracker
                    .on_unknown(unknown, self.client.session().now());
                true
            }
            Err(_) => false,
        }
    }

    /// How long until the tracker next has reads due without new input (zero: now).
    pub fn next_sync_in(&self) -> Duration {
        let now = self.client.session().now();
        match self.tracker.next_deadline() {
            None => Duration::ZERO,
            Some(at) => {
                Duration::from_millis(u64::try_from(at.0.saturating_sub(now.0)).unwrap_or(0))
            }
        }
    }

    /// The next change, each once.
    pub fn poll_change(&mut self) -> Option<Change> {
        self.tracker.poll_change()
    }

    /// A consistent snapshot of the state.
    pub fn state(&self) -> State {
        self.tracker.state()
    }

    /// The tracker.
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// The tracker, to feed it directly.
    pub fn tracker_mut(&mut self) -> &mut Tracker {
        &mut self.tracker
    }

    /// The client.
    pub fn client(&self) -> &Client<C> {
        &self.client
    }
}

/// A stream and the tracker of its account in one (`client.stream(family).tracked(markets,
/// config)`, see [`digifinex_core::ws::StreamBuilder::tracked`]): the stream's [`Event`]s, each
/// handed to the tracker before it is returned; the reads the tracker asks for are performed
/// through the client between the events, so that after a reconnect the account is read once
/// (the tracker's resync). The changes wait for [`TrackedStream::poll_change`].
///
/// [`TrackedStream::next_event`] is cancel-safe: a read cut short is handed out again by the
/// tracker (reads are idempotent), and the stream loses nothing.
#[derive(Debug)]
pub struct TrackedStream {
    stream: Stream,
    tracking: Tracking,
    closed: bool,
}

impl TrackedStream {
    pub(crate) fn new(stream: Stream, tracking: Tracking) -> Self {
        TrackedStream {
            stream,
            tracking,
            closed: false,
        }
    }

    /// The next event (the tracker's reads are performed meanwhile when due); `None` once the
    /// stream was closed. Cancel-safe.
    pub async fn next_event(&mut self) -> Option<Event> {
        if self.closed {
            return None;
        }
        loop {
            self.tracking.sync().await;
            let wait = self.tracking.next_sync_in();
            match tokio::time::timeout(wait, self.stream.next_event()).await {
                Ok(Some(e)) => {
                    self.tracking.on_event(&e);
                    return Some(e);
                }
                Ok(None) => {
                    self.closed = true;
                    return None;
                }
                Err(_) => {}
            }
        }
    }

    /// Whether the stream was closed (nothing more comes).
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Performs every read the tracker has due now; returns how many (see
    /// [`Tracking::sync`]). [`TrackedStream::next_event`] does it by itself.
    pub async fn sync(&mut self) -> u32 {
        self.tracking.sync().await
    }

    /// The next change, each once.
    pub fn poll_change(&mut self) -> Option<Change> {
        self.tracking.poll_change()
    }

    /// A consistent snapshot of the account's state.
    pub fn state(&self) -> State {
        self.tracking.state()
    }

    /// Hands a write's answer to the tracker (see [`Tracker::on_answer`]).
    pub fn on_answer(&mut self, write: &Write, answer: &Answer) -> bool {
        self.tracking.on_answer(write, answer)
    }

    /// Hands a write's error to the tracker (see [`Tracking::on_error`]).
    pub fn on_error(&mut self, error: &Error) -> bool {
        self.tracking.on_error(error)
    }

    /// The tracker.
    pub fn tracker(&self) -> &Tracker {
        self.tracking.tracker()
    }

    /// The tracker, to feed it directly.
    pub fn tracker_mut(&mut self) -> &mut Tracker {
        self.tracking.tracker_mut()
    }

    /// The tracker and the client of its reads.
    pub fn tracking(&self) -> &Tracking {
        &self.tracking
    }

    /// The stream (its subscriptions, books and sockets).
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The stream, to subscribe to more (a public channel's events are returned too).
    pub fn stream_mut(&mut self) -> &mut Stream {
        &mut self.stream
    }

    /// A handle to change the stream's subscriptions from another task.
    pub fn handle(&self) -> StreamHandle {
        self.stream.handle()
    }

    /// Closes every socket; the events end after reporting it.
    pub fn close(&mut self) {
        self.stream.close();
    }
}

impl StreamTransport for Async {
    type Stream = Stream;
    type Tls = Tls;
    type Rest = crate::Client;
    type Connector = Arc<dyn Connector>;
    type Tracked = TrackedStream;

    fn build(builder: StreamBuilder) -> Result<Stream, Error> {
        Stream::from_builder(builder)
    }

    fn track(builder: StreamBuilder, tracker: Tracker) -> Result<Self::Tracked, Error> {
        let stream = Self::build(builder)?;
        let Some(client) = stream.rest.clone() else {
            return Err(Error::validation(
                "stream",
                "a tracked stream reads the account through a REST client",
            ));
        };
        Ok(TrackedStream::new(stream, client.tracker(tracker)))
    }

    fn session(rest: &crate::Client) -> &Session {
        rest.session()
    }
}
