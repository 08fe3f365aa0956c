//! Blocking websocket streams on [`tungstenite`].
//!
//! Everything but the sockets lives in the core ([`digifinex_core::ws::Streams`] and
//! [`digifinex_core::ws::StreamBuilder`]): sharding, keepalive, recycling, `server.auth`,
//! books, backoff. Here each socket is a thread that opens it
//! (connect, TLS and upgrade within `connect_timeout` in all), reads whole messages (each within
//! `message_timeout` of its first byte) into one bounded queue, and writes what the stream
//! hands it. A full queue stops the socket threads from reading (backpressure, no memory
//! growth).
//!
//! The sockets are opened by a [`Connector`]: the network ([`Network`]) unless the client
//! (`ClientBuilder::ws_connector`) or the stream ([`StreamBuilder::connector`](digifinex_core::ws::StreamBuilder::connector))
//! names another, such as an exchange in the same process (the `digifinex-backtest` crate).
//!
//! The stream reads nothing over REST. The account's state (open orders, fills, balances,
//! positions) is a tracker's ([`digifinex_core::track`]): `client.stream(family)
//! .tracked(markets, config)` makes a stream and its tracker in one call
//! ([`crate::track::TrackedStream`]).
//!
//! ```no_run
//! use digifinex_ureq::core::ws::Event;
//! use digifinex_ureq::core::Family;
//!
//! let client = digifinex_ureq::Client::new()?;
//! let mut stream = client.stream(Family::Swap)
//!     .subscribe("swap:depth:BTCUSDTPERP".parse()?)
//!     .build()?;
//! for event in stream.by_ref().take(100) {
//!     if let Event::Book(update) = event {
//!         println!("{:?} / {:?}", update.best_bid, update.best_ask);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod socket;
mod tls;

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::time::Instant;

pub use socket::{Connector, Incoming, Network, Socket};

use digifinex_core::ws::{
    check_family, Event, Line, Step, StreamCore, StreamInput, SubscribeError, Subscription,
};
use digifinex_core::{Error, Family};

use socket::run_socket;

/// The blocking transport of [`digifinex_core::ws::StreamBuilder`].
#[derive(Debug)]
pub struct Blocking;

/// The TLS configuration of the sockets (what a [`Connector`]'s `Link` carries).
pub type Tls = Arc<rustls::ClientConfig>;

/// Builds a [`Stream`] (see [`digifinex_core::ws::StreamBuilder`] for its settings).
pub type StreamBuilder = digifinex_core::ws::StreamBuilder<Blocking>;

/// A socket thread's command line.
#[derive(Debug)]
pub struct Commands(Sender<Option<String>>);

impl Line for Commands {
    fn command(&self, command: Option<String>) {
        let _ = self.0.send(command);
    }
}

impl crate::Client {
    /// A stream of `family` sharing this client's credentials, clock and measured offset, base
    /// URL (the socket beside it), TLS settings, and socket connector
    /// (`ClientBuilder::ws_connector`) or pacer (`ClientBuilder::ws_pacer`). The stream reads
    /// nothing over REST; `.tracked(markets, config)` instead of `.build()` adds a tracker of
    /// the account whose reads go through this client ([`crate::track::TrackedStream`]).
    pub fn stream(&self, family: Family) -> StreamBuilder {
        let (http, roots, connector, pacer) = self.stream_settings();
        let b = StreamBuilder::beside(family, self.session(), http, roots, self.clone());
        let b = match connector {
            Some(c) => b.connector(c.clone()),
            None => b,
        };
        match pacer {
            Some(p) => b.pacer(p.clone()),
            None => b,
        }
    }
}

/// A stream of one family over as many sockets as its subscriptions need; an [`Iterator`] of
/// [`Event`]s that reconnects by itself and ends only after `close`. The machine's calls
/// (`subscribe`, `unsubscribe`, `close`, `streams`, ..) are [`StreamCore`]'s, through `Deref`.
#[derive(Debug)]
pub struct Stream {
    core: StreamCore<Commands, Tls>,
    pub(crate) rest: Option<crate::Client>,
    tx: SyncSender<StreamInput>,
    inbox: Receiver<StreamInput>,
    connector: Arc<dyn Connector>,
    /// Whether [`Stream::next_event_timeout`] saw the end.
    stopped: bool,
    /// The public market data comes from a feed (`crate::feed`): its reader's stop flag, set
    /// when the stream goes.
    relay: Option<Arc<AtomicBool>>,
}

impl std::ops::Deref for Stream {
    type Target = StreamCore<Commands, Tls>;
    fn deref(&self) -> &Self::Target {
        &self.core
    }
}

impl std::ops::DerefMut for Stream {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.core
    }
}

/// Changes a [`Stream`]'s subscriptions from another thread (cloneable).
#[derive(Clone, Debug)]
pub struct StreamHandle {
    tx: SyncSender<StreamInput>,
    family: Family,
}

impl StreamHandle {
    /// Adds a subscription; it takes effect when the stream is next read. Refused at once: the
    /// other family's; `Closed` when the stream is gone.
    pub fn subscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        check_family(&sub, self.family)?;
        self.send(StreamInput::Subscribe(sub))
    }

    /// Removes a subscription when the stream is next read.
    pub fn unsubscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        self.send(StreamInput::Unsubscribe(sub))
    }

    fn send(&self, input: StreamInput) -> Result<(), SubscribeError> {
        self.tx.send(input).map_err(|_| SubscribeError::Closed)
    }
}

impl Stream {
    /// The stream `builder` describes (its sockets open as it is read).
    pub(crate) fn from_builder(mut builder: StreamBuilder) -> Result<Stream, Error> {
        let connector = builder
            .take_connector()
            .unwrap_or_else(|| Arc::new(Network));
        let (settings, tls, rest) = builder.into_parts();
        let (tx, inbox) = mpsc::sync_channel(settings.queue());
        let core = StreamCore::new(settings, tls, |roots| {
            Ok(Arc::new(tls::ws_tls_config(roots)?))
        })?;
        Ok(Stream {
            core,
            rest,
            tx,
            inbox,
            connector,
            stopped: false,
            relay: None,
        })
    }

    /// A sender into the stream's queue (a feed's reader hands its events on through it).
    #[cfg(feature = "feed")]
    pub(crate) fn inbox(&self) -> SyncSender<StreamInput> {
        self.tx.clone()
    }

    /// The public market data comes from a feed whose reader stops when `stop` is set.
    #[cfg(feature = "feed")]
    pub(crate) fn relay_from(&mut self, stop: Arc<AtomicBool>) {
        self.relay = Some(stop);
    }

    /// Whether the stream's public market data comes from a feed.
    pub fn reads_feed(&self) -> bool {
        self.relay.is_some()
    }

    /// Whether the venue's side has nothing to do: the data comes from a feed and no
    /// subscription is left for the venue (no socket is opened until one is added).
    fn venue_idle(&self) -> bool {
        let streams = self.core.streams();
        self.relay.is_some() && !streams.is_closed() && streams.subscriptions().next().is_none()
    }

    /// A handle to change the subscriptions from another thread.
    pub fn handle(&self) -> StreamHandle {
        let family = self.core.streams().family();
        let tx = self.tx.clone();
        StreamHandle { tx, family }
    }

    /// The next event, blocking; `None` once the stream was closed.
    pub fn next_event(&mut self) -> Option<Event> {
        match self.next_until(None) {
            Next::Event(e) => Some(e),
            _ => {
                self.stopped = true;
                None
            }
        }
    }

    /// The next event within `timeout`; `None` when none came in time or the stream was
    /// closed ([`Stream::is_closed`]). For a program that does other work between events (a
    /// Python iterator checking for Ctrl-C, a thread watching a stop flag).
    pub fn next_event_timeout(&mut self, timeout: std::time::Duration) -> Option<Event> {
        match self.next_until(Some(Instant::now() + timeout)) {
            Next::Event(e) => Some(e),
            Next::Idle => None,
            Next::Stopped => {
                self.stopped = true;
                None
            }
        }
    }

    /// Whether the stream was closed and has reported it (nothing more comes).
    pub fn is_closed(&self) -> bool {
        self.stopped
    }

    /// The next event, waiting at most until `until` (`None`: as long as it takes).
    pub(crate) fn next_until(&mut self, until: Option<Instant>) -> Next {
        loop {
            let step = if self.venue_idle() {
                Step::Wait(IDLE_WAIT)
            } else {
                self.core.step(self.rest.as_ref().map(|c| c.session()))
            };
            match step {
                Step::Event(e) => return Next::Event(e),
                Step::Open { socket, generation } => self.open(socket, generation),
                Step::Wait(wait) => {
                    // The last look when the wait reaches `until`: an input that comes is
                    // applied (its events wait in the machine for the next call).
                    let (wait, last) = match until {
                        Some(u) => {
                            let left = u.saturating_duration_since(Instant::now());
                            (left.min(wait), left <= wait)
                        }
                        None => (wait, false),
                    };
                    if let Ok(input) = self.inbox.recv_timeout(wait) {
                        if let StreamInput::Relayed(e) = input {
                            if !self.core.streams().is_closed() {
                                return Next::Event(*e);
                            }
                            continue;
                        }
                        self.core.apply(input);
                        if last && wait.is_zero() {
                            return Next::Idle;
                        }
                    } else if last {
                        return Next::Idle;
                    }
                }
                _ => return Next::Stopped,
            }
        }
    }

    /// Starts socket `id`'s thread.
    fn open(&mut self, id: u32, g: u64) {
        let (line, commands) = mpsc::channel();
        let (link, tx) = (self.core.link().clone(), self.tx.clone());
        let connector = self.connector.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("digifinex-ws-{id}"))
            .spawn(move || run_socket(&link, &*connector, id, g, &tx, &commands));
        match spawned {
            Ok(_) => self.core.opened(id, Commands(line)),
            Err(e) => self.core.open_failed(id, g, format!("thread: {e}")),
        }
    }
}

impl Drop for Stream {
    /// Stops the feed's reader, if the stream has one.
    fn drop(&mut self) {
        if let Some(stop) = &self.relay {
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// How long a stream whose venue side is idle waits for its queue at a time.
const IDLE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// What [`Stream::next_until`] came back with (consumed at once, as `Step` is).
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Next {
    /// An event.
    Event(Event),
    /// Nothing by the time given.
    Idle,
    /// The stream was closed.
    Stopped,
}

impl Iterator for Stream {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.next_event()
    }
}
