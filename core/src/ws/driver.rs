//! The loop both transports run around [`Streams`], written once: the sockets' command lines,
//! the clock, the REST session's offset. A transport turns each [`Step`] into I/O (open a
//! socket, wait for its queue) and feeds back what happened; it never calls [`Streams`]
//! itself. The stream reads nothing over REST: the account's state is followed by a
//! [`crate::track::Tracker`] fed with the stream's events (the clients' tracked streams).
//!
//! ```text
//! loop {
//!     match core.step(rest.map(|c| c.session())) {
//!         Step::Event(e) => return Some(e),
//!         Step::Open { socket, generation } => spawn a reader; core.opened(socket, line)
//!                                              (or core.open_failed(..)),
//!         Step::Wait(d) => if an input comes within d { core.apply(input) },
//!         Step::Stopped => return None,
//!     }
//! }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;
use crate::session::Session;
use crate::types::TimestampMillis;
use crate::ws::event::Event;
use crate::ws::pace::{PacedSocket, Pacer, Received};
use crate::ws::settings::{Link, StreamSettings};
use crate::ws::streams::{SocketReport, StreamAction, StreamInput, Streams};
use crate::ws::subscription::{SubscribeError, Subscription};

/// The longest a transport waits for its queue before stepping again.
const MAX_WAIT_MS: i64 = 60_000;

/// Most messages taken from one paced socket per look (the rest wait for the next look, so
/// one busy socket cannot fill the stream's queue of events at once).
const PACED_BATCH: usize = 256;

/// A socket's command line, from the stream to the socket's thread or task: `Some(text)`
/// sends a text frame, `None` closes the socket. A line whose reader is gone drops commands.
pub trait Line {
    /// Hands `command` to the socket.
    fn command(&self, command: Option<String>);
}

/// What a transport does next (see [`StreamCore::step`]).
// Consumed at once by the caller, as `StreamAction` is.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
#[non_exhaustive]
pub enum Step {
    /// Hand this event to the user.
    Event(Event),
    /// Open socket `socket` in a thread or task of its own that reports as
    /// `StreamInput::Socket(socket, generation, ..)`; then [`StreamCore::opened`] with its
    /// command line, or [`StreamCore::open_failed`].
    Open {
        /// The socket's number.
        socket: u32,
        /// The generation its reports carry.
        generation: u64,
    },
    /// Wait at most this long for an input of the queue ([`StreamCore::apply`]), then step.
    Wait(Duration),
    /// Every socket was closed on request; nothing more to report.
    Stopped,
}

/// A stream without its I/O: the [`Streams`] machine, what its sockets are opened with
/// ([`Link`]) and their command lines `L`.
pub struct StreamCore<L: Line, Tls> {
    streams: Streams,
    link: Arc<Link<Tls>>,
    lines: HashMap<u32, L>,
    /// The pacer's sockets by number, with their generations ([`crate::ws::pace`]).
    paced: BTreeMap<u32, (u64, Box<dyn PacedSocket>)>,
    /// The pacer said time is over; the stream was closed.
    ended: bool,
}

impl<L: Line, Tls> std::fmt::Debug for StreamCore<L, Tls> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamCore")
            .field("streams", &self.streams)
            .field("url", &self.link.target.url)
            .field(
                "sockets",
                &self.lines.len().saturating_add(self.paced.len()),
            )
            .finish_non_exhaustive()
    }
}

impl<L: Line, Tls> StreamCore<L, Tls> {
    /// The stream of `settings`, with `tls` for a `wss://` target (`make` builds one from the
    /// caller's roots when none is given).
    pub fn new(
        settings: StreamSettings,
        tls: Option<Tls>,
        make: impl FnOnce(Option<&[Vec<u8>]>) -> Result<Tls, Error>,
    ) -> Result<Self, Error> {
        let streams = settings.streams()?;
        let link = Arc::new(Link::new(settings, tls, make)?);
        Ok(StreamCore {
            streams,
            link,
            lines: HashMap::new(),
            paced: BTreeMap::new(),
            ended: false,
        })
    }

    /// What every socket is opened with (handed to each socket's thread or task).
    pub fn link(&self) -> &Arc<Link<Tls>> {
        &self.link
    }

    /// The protocol machine: sockets, subscriptions and their states, the local books.
    pub fn streams(&self) -> &Streams {
        &self.streams
    }

    /// Adds a subscription now (sent at once when its socket is open).
    pub fn subscribe(&mut self, sub: Subscription) -> Result<(), SubscribeError> {
        self.streams.subscribe(sub)
    }

    /// Removes a subscription.
    pub fn unsubscribe(&mut self, sub: &Subscription) -> bool {
        self.streams.unsubscribe(sub)
    }

    /// Asks every socket for the server time ([`Event::ServerTime`]: a marker in tests).
    pub fn request_time(&mut self) {
        self.streams.request_time();
    }

    /// Closes every socket; the stream ends after reporting it.
    pub fn close(&mut self) {
        let now = self.now();
        self.streams.close(now);
    }

    /// When the stream next has something to do without new input (see
    /// [`Streams::next_deadline`]); peeking runs no timer.
    pub fn next_deadline(&self) -> Option<TimestampMillis> {
        self.streams.next_deadline()
    }

    /// The next step. `rest` is the session of the stream's REST client, when it has one:
    /// once that session has measured the server's clock ([`Session::clock_measured`]) its
    /// offset times `server.auth` (until then, and without a REST client, each socket measures
    /// the clock itself). Nothing is read over REST.
    pub fn step(&mut self, rest: Option<&Session>) -> Step {
        loop {
            if let Some(session) = rest {
                if session.clock_measured() {
                    self.streams.set_time_offset(session.offset_ms());
                }
            }
            let now = self.now();
            match self.streams.poll(now) {
                StreamAction::Event(e) => return Step::Event(e),
                StreamAction::Connect(socket) => {
                    let generation = self.streams.started(socket);
                    let Some(pacer) = self.pacer() else {
                        return Step::Open { socket, generation };
                    };
                    let report = match pacer.connect(self.streams.family()) {
                        Ok(s) => {
                            self.paced.insert(socket, (generation, s));
                            SocketReport::Opened
                        }
                        Err(detail) => SocketReport::Failed(detail),
                    };
                    self.streams.report(socket, generation, report, now);
                }
                StreamAction::Send(socket, text) => {
                    if let Some((generation, s)) = self.paced.get_mut(&socket) {
                        if let Err(e) = s.send(&text) {
                            let generation = *generation;
                            self.paced.remove(&socket);
                            self.streams
                                .report(socket, generation, SocketReport::Closed(e), now);
                        }
                    } else if let Some(line) = self.lines.get(&socket) {
                        line.command(Some(text));
                    }
                }
                StreamAction::Close(socket, _) => {
                    if let Some((_, mut s)) = self.paced.remove(&socket) {
                        s.close();
                    }
                    if let Some(line) = self.lines.remove(&socket) {
                        line.command(None);
                    }
                    self.streams.released(socket);
                }
                StreamAction::Wait(deadline) => {
                    let ms = deadline.map_or(MAX_WAIT_MS, |d| {
                        d.0.saturating_sub(now.0).clamp(0, MAX_WAIT_MS)
                    });
                    let wait = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
                    let Some(pacer) = self.pacer() else {
                        return Step::Wait(wait);
                    };
                    if self.read_paced(now) {
                        continue;
                    }
                    if !self.ended && !pacer.idle(wait) {
                        self.ended = true;
                        self.streams.close(self.now());
                        continue;
                    }
                    // Time moved (or is over): the transport looks at its queue (a handle's
                    // subscriptions) without waiting, then steps again.
                    return Step::Wait(Duration::ZERO);
                }
                StreamAction::Stopped => return Step::Stopped,
            }
        }
    }

    /// The pacer of the stream's sockets, if it has one.
    fn pacer(&self) -> Option<Arc<dyn Pacer>> {
        self.link.settings.pacer().cloned()
    }

    /// Reads what the paced sockets hold, in the order of their numbers; whether anything
    /// came.
    fn read_paced(&mut self, now: TimestampMillis) -> bool {
        let mut any = false;
        let ids: Vec<u32> = self.paced.keys().copied().collect();
        for id in ids {
            for _ in 0..PACED_BATCH {
                let Some((generation, s)) = self.paced.get_mut(&id) else {
                    break;
                };
                let generation = *generation;
                let report = match s.poll() {
                    None => break,
                    Some(Received::Binary(b)) => SocketReport::Frame(b, false),
                    Some(Received::Text(t)) => SocketReport::Frame(t.into_bytes(), true),
                    Some(Received::Closed(reason)) => {
                        self.paced.remove(&id);
                        SocketReport::Closed(reason)
                    }
                };
                any = true;
                self.streams.report(id, generation, report, now);
            }
        }
        any
    }

    /// Socket `socket`'s thread or task runs; `line` carries its commands.
    pub fn opened(&mut self, socket: u32, line: L) {
        self.lines.insert(socket, line);
    }

    /// Socket `socket`'s thread or task could not be started (the reason).
    pub fn open_failed(&mut self, socket: u32, generation: u64, detail: String) {
        let now = self.now();
        self.streams
            .report(socket, generation, SocketReport::Failed(detail), now);
    }

    /// An input from the queue (a socket's report, a handle's subscription change).
    pub fn apply(&mut self, input: StreamInput) {
        let now = self.now();
        self.streams.apply(input, now);
    }

    fn now(&self) -> TimestampMillis {
        self.link.settings.clock().now()
    }
}

impl<L: Line, Tls> Drop for StreamCore<L, Tls> {
    /// Closes every socket still open.
    fn drop(&mut self) {
        for (_, line) in self.lines.drain() {
            line.command(None);
        }
        for (_, (_, mut s)) in std::mem::take(&mut self.paced) {
            s.close();
        }
    }
}
