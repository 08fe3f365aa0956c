//! Async websocket streams on [`tokio_tungstenite`].
//!
//! Everything but the sockets lives in the core ([`digifinex_core::ws::Streams`] and
//! [`digifinex_core::ws::StreamBuilder`]): sharding, keepalive, recycling, `server.auth`,
//! books, backoff. Here each socket is a task that opens it
//! (connect, TLS and upgrade within `connect_timeout` in all), reads whole messages (each
//! within `message_timeout` of its first byte) into one bounded queue, and writes what the
//! stream hands it. A full queue stops the socket tasks from reading (backpressure).
//!
//! The sockets are opened by a [`Connector`]: the network unless the client
//! (`ClientBuilder::ws_connector`) or the stream
//! ([`StreamBuilder::connector`](digifinex_core::ws::StreamBuilder::connector)) names another,
//! such as an exchange in the same process (the `digifinex-backtest` crate).
//!
//! The stream reads nothing over REST. The account's state (open orders, fills, balances,
//! positions) is a tracker's ([`digifinex_core::track`]): `client.stream(family)
//! .tracked(markets, config)` makes a stream and its tracker in one call
//! ([`crate::track::TrackedStream`]).
//!
//! [`Stream::next_event`] is cancel-safe: dropping its future loses nothing (the queue and
//! the machine keep their state). A
//! [`StreamHandle`] changes the subscriptions from another task while one awaits events.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use digifinex_hyper::core::ws::Event;
//! use digifinex_hyper::core::Family;
//!
//! let client = digifinex_hyper::Client::new()?;
//! let mut stream = client.stream(Family::Spot)
//!     .subscribe("spot:depth:btc_usdt".parse()?)
//!     .build()?;
//! let handle = stream.handle();
//! tokio::spawn(async move { handle.subscribe("spot:trades:eth_usdt".parse()?).await });
//! while let Some(event) = stream.next_event().await {
//!     if let Event::Book(update) = event {
//!         println!("{:?} / {:?}", update.best_bid, update.best_ask);
//!     }
//! }
//! # Ok(()) }
//! ```

mod socket;

use std::sync::Arc;

pub use socket::{BoxFuture, Connector, Incoming, Network, Socket};

use digifinex_core::ws::{
    check_family, Event, Line, Step, StreamCore, StreamInput, SubscribeError, Subscription,
};
use digifinex_core::{Error, Family};
use tokio::sync::mpsc;

use socket::run_socket;

/// The async transport of [`digifinex_core::ws::StreamBuilder`].
#[derive(Debug)]
pub struct Async;

/// The TLS configuration of the sockets (what a [`Connector`]'s `Link` carries).
pub type Tls = Arc<rustls::ClientConfig>;

/// Builds a [`Stream`] (see [`digifinex_core::ws::StreamBuilder`] for its settings).
pub type StreamBuilder = digifinex_core::ws::StreamBuilder<Async>;

/// A socket task's command line.
#[derive(Debug)]
pub struct Commands(mpsc::UnboundedSender<Option<String>>);

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

/// A stream of one family over as many sockets as its subscriptions need; reconnects by
/// itself and ends only after `close`. The machine's calls (`subscribe`, `unsubscribe`,
/// `close`, `streams`, ..) are [`StreamCore`]'s, through `Deref`.
#[derive(Debug)]
pub struct Stream {
    core: StreamCore<Commands, Tls>,
    pub(crate) rest: Option<crate::Client>,
    tx: mpsc::Sender<StreamInput>,
    inbox: mpsc::Receiver<StreamInput>,
    /// What opens the sockets (the network when `None`).
    connector: Option<Arc<dyn Connector>>,
    /// The public market data comes from a feed (`crate::feed`).
    relayed: bool,
}

impl std::ops::Deref for Stream {
    type Target = StreamCore<Commands, Tls>;
    fn deref(&self) -> &StreamCore<Commands, Tls> {
        &self.core
    }
}

impl std::ops::DerefMut for Stream {
    fn deref_mut(&mut self) -> &mut StreamCore<Commands, Tls> {
        &mut self.core
    }
}

/// Changes a [`Stream`]'s subscriptions from another task (cloneable).
#[derive(Clone, Debug)]
pub struct StreamHandle {
    tx: mpsc::Sender<StreamInput>,
    family: Family,
}

impl StreamHandle {
    /// Adds a subscription; it takes effect when the stream is next awaited. Refused at once:
    /// the other family's; `Closed` when the stream is gone.
    pub async fn subscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        check_family(&sub, self.family)?;
        let sent = self.tx.send(StreamInput::Subscribe(sub)).await;
        sent.map_err(|_| SubscribeError::Closed)
    }

    /// Removes a subscription when the stream is next awaited.
    pub async fn unsubscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        let sent = self.tx.send(StreamInput::Unsubscribe(sub)).await;
        sent.map_err(|_| SubscribeError::Closed)
    }
}

impl Stream {
    /// The stream `builder` describes (its sockets open as it is read).
    pub(crate) fn from_builder(mut builder: StreamBuilder) -> Result<Stream, Error> {
        let connector = builder.take_connector();
        let (settings, tls, rest) = builder.into_parts();
        let (tx, inbox) = mpsc::channel(settings.queue());
        let core = StreamCore::new(settings, tls, |roots| {
            crate::tls::tls_config(roots).map(Arc::new)
        })?;
        Ok(Stream {
            core,
            rest,
            tx,
            inbox,
            connector,
            relayed: false,
        })
    }

    /// A sender into the stream's queue and the mark that the public market data comes from
    /// a feed (whose task hands its events on through the sender).
    #[cfg(feature = "feed")]
    pub(crate) fn relay(&mut self) -> mpsc::Sender<StreamInput> {
        self.relayed = true;
        self.tx.clone()
    }

    /// Whether the stream's public market data comes from a feed.
    pub fn reads_feed(&self) -> bool {
        self.relayed
    }

    /// Whether the venue's side has nothing to do: the data comes from a feed and no
    /// subscription is left for the venue (no socket is opened until one is added).
    fn venue_idle(&self) -> bool {
        let streams = self.core.streams();
        self.relayed && !streams.is_closed() && streams.subscriptions().next().is_none()
    }

    /// An input of the queue: a relayed event is handed on (dropped once the stream was
    /// closed), the rest goes to the machine.
    fn take(&mut self, input: StreamInput) -> Option<Event> {
        match input {
            StreamInput::Relayed(e) => (!self.core.streams().is_closed()).then_some(*e),
            other => {
                self.core.apply(other);
                None
            }
        }
    }

    /// A handle to change the subscriptions from another task.
    pub fn handle(&self) -> StreamHandle {
        StreamHandle {
            tx: self.tx.clone(),
            family: self.core.streams().family(),
        }
    }

    /// The events as a `futures` stream.
    pub fn into_stream(self) -> impl futures_core::Stream<Item = Event> + Send {
        futures_util::stream::unfold(
            self,
            |mut s| async move { s.next_event().await.map(|e| (e, s)) },
        )
    }

    /// The next event; `None` once the stream was closed. Cancel-safe.
    pub async fn next_event(&mut self) -> Option<Event> {
        loop {
            let step = if self.venue_idle() {
                Step::Wait(IDLE_WAIT)
            } else {
                self.core.step(self.rest.as_ref().map(|c| c.session()))
            };
            match step {
                Step::Event(e) => return Some(e),
                Step::Open { socket, generation } => {
                    let (line, commands) = mpsc::unbounded_channel();
                    let (link, tx) = (self.core.link().clone(), self.tx.clone());
                    let connector = self.connector.clone();
                    tokio::spawn(run_socket(
                        link, connector, socket, generation, tx, commands,
                    ));
                    self.core.opened(socket, Commands(line));
                }
                // Nothing to wait for (a paced stream whose time just moved, or a deadline
                // already passed): look at the queue without a timer (a zero-length tokio
                // timer still waits for the next millisecond tick of the wall clock) and let
                // the runtime's other tasks run.
                Step::Wait(wait) if wait.is_zero() => {
                    if let Ok(input) = self.inbox.try_recv() {
                        if let Some(e) = self.take(input) {
                            return Some(e);
                        }
                    }
                    tokio::task::yield_now().await;
                }
                Step::Wait(wait) => {
                    if let Ok(Some(input)) = tokio::time::timeout(wait, self.inbox.recv()).await {
                        if let Some(e) = self.take(input) {
                            return Some(e);
                        }
                    }
                }
                _ => return None,
            }
        }
    }
}

/// How long a stream whose venue side is idle waits for its queue at a time.
const IDLE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);
