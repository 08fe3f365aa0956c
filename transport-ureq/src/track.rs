//! One account state through the blocking client (issue 29): a [`Tracker`] of the core, its
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
//! use digifinex_ureq::core::track::TrackConfig;
//! use digifinex_ureq::core::{Credentials, Family};
//! use digifinex_ureq::Client;
//!
//! let client = Client::builder().credentials(Credentials::new("key", "secret")).build()?;
//! let mut account = client.stream(Family::Spot).tracked(["btc_usdt"], TrackConfig::default())?;
//! while let Some(_event) = account.next_event() {
//!     while let Some(change) = account.poll_change() {
//!         println!("{}", serde_json::to_string(&change)?);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Client::tracker`] drives a tracker alone; the bot then hands it the events of a stream of
//! its own ([`Tracking::on_event`]):
//!
//! ```no_run
//! use digifinex_ureq::core::track::{TrackConfig, Tracker};
//! use digifinex_ureq::core::{Family, TimestampMillis};
//! use digifinex_ureq::Client;
//!
//! let client = Client::new()?;
//! let now = client.session().now();
//! let mut tracking = client.tracker(Tracker::new(Family::Spot, ["btc_usdt"], TrackConfig::default(), now));
//! tracking.sync(); // the first resync: open orders, fills, balances
//! while let Some(change) = tracking.poll_change() {
//!     println!("{}", serde_json::to_string(&change)?);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use digifinex_core::reconcile::{Unknown, Write};
use digifinex_core::session::Session;
use digifinex_core::track::{Answer, Change, State, Tracker};
use digifinex_core::ws::{Event, StreamTransport};
use digifinex_core::Error;

use crate::ws::{Blocking, Connector, Next, Stream, StreamBuilder, StreamHandle, Tls};
use crate::Client;

impl Client {
    /// Drives `tracker` through this client (see [`Tracking`]).
    pub fn tracker(&self, tracker: Tracker) -> Tracking {
        Tracking {
            client: self.clone(),
            tracker,
        }
    }
}

/// A [`Tracker`] whose reads go through a [`Client`].
#[derive(Debug)]
pub struct Tracking {
    client: Client,
    tracker: Tracker,
}

impl Tracking {
    /// Performs every read the tracker has due now (a reconciliation's, a resync's, fills
    /// due); returns how many. A failed read is handed to the tracker, which tries again later.
    pub fn sync(&mut self) -> u32 {
        let mut reads = 0u32;
        while let Some(read) = self.tracker.next_read(self.client.session().now()) {
            reads = reads.saturating_add(1);
            let result = self.client.drive(read.call(self.client.session()));
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
    pub fn client(&self) -> &Client {
        &self.client
    }
}

/// A stream and the tracker of its account in one (`client.stream(family).tracked(markets,
/// config)`, see [`digifinex_core::ws::StreamBuilder::tracked`]): an [`Iterator`] of the
/// stream's [`Event`]s, each handed to the tracker before it is yielded; the reads the tracker
/// asks for are performed through the client between the events, so that after a reconnect
/// the account is read once (the tracker's resync). The changes wait for
/// [`TrackedStream::poll_change`].
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

    /// The next event, blocking (the tracker's reads are performed meanwhile when due);
    /// `None` once the stream was closed.
    pub fn next_event(&mut self) -> Option<Event> {
        match self.next_until(None) {
            Next::Event(e) => Some(e),
            _ => None,
        }
    }

    /// The next event within `timeout` (the tracker's reads are performed meanwhile when due);
    /// `None` when none came in time or the stream was closed ([`TrackedStream::is_closed`]).
    pub fn next_event_timeout(&mut self, timeout: Duration) -> Option<Event> {
        match self.next_until(Some(Instant::now() + timeout)) {
            Next::Event(e) => Some(e),
            _ => None,
        }
    }

    fn next_until(&mut self, end: Option<Instant>) -> Next {
        if self.closed {
            return Next::Stopped;
        }
        loop {
            self.tracking.sync();
            let reads_at = Instant::now() + self.tracking.next_sync_in();
            let until = end.map_or(reads_at, |e| e.min(reads_at));
            match self.stream.next_until(Some(until)) {
                Next::Event(e) => {
                    self.tracking.on_event(&e);
                    return Next::Event(e);
                }
                Next::Stopped => {
                    self.closed = true;
                    return Next::Stopped;
                }
                Next::Idle => {
                    if end.is_some_and(|e| Instant::now() >= e) {
                        self.tracking.sync();
                        return Next::Idle;
                    }
                }
            }
        }
    }

    /// Whether the stream was closed (nothing more comes).
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Performs every read the tracker has due now; returns how many (see
    /// [`Tracking::sync`]). The event calls do it by themselves.
    pub fn sync(&mut self) -> u32 {
        self.tracking.sync()
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

    /// The stream, to subscribe to more (a public channel's events are yielded too).
    pub fn stream_mut(&mut self) -> &mut Stream {
        &mut self.stream
    }

    /// A handle to change the stream's subscriptions from another thread.
    pub fn handle(&self) -> StreamHandle {
        self.stream.handle()
    }

    /// Closes every socket; the events end after reporting it.
    pub fn close(&mut self) {
        self.stream.close();
    }
}

impl Iterator for TrackedStream {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.next_event()
    }
}

impl StreamTransport for Blocking {
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
