//! Sockets in a time of their own: an exchange in the same process that keeps virtual time (the
//! `digifinex-backtest` crate), driven by the stream itself on the thread or task that reads it.
//!
//! Over the network each socket has a thread or task that waits for frames in wall-clock time.
//! In virtual time nothing may wait on the wall clock: time moves only when every party has
//! done what it can at the current instant. A stream given a [`Pacer`]
//! ([`StreamBuilder::pacer`](crate::ws::StreamBuilder::pacer), or a client's `ws_pacer`)
//! therefore opens its sockets through the pacer, hands them its frames at once, reads what
//! they hold without waiting, and, when nothing came and it has nothing to do until its next
//! timer, asks the pacer to let time pass ([`Pacer::idle`]): the exchange jumps to its next
//! event (or to the stream's timer), and the stream looks again.
//!
//! DESIGN: the stream's timers (keepalive, lifetime, backoff) read the stream's clock, which
//! an in-process exchange gives as its own virtual time; the stream then never waits on the
//! wall clock, and the same inputs give the same events, in the same order, at the same
//! virtual instants: one thread drives everything, and sockets are read in the order of their
//! numbers.

use std::time::Duration;

use crate::endpoint::Family;

/// What opens a stream's sockets in a time of its own and lets that time pass (see the module
/// docs). Implemented by an exchange in the same process.
pub trait Pacer: Send + Sync + std::fmt::Debug {
    /// Opens one socket of `family`; an error is the reason the stream reports
    /// (`CloseReason::ConnectFailed`), and it retries after its backoff as over the network.
    fn connect(&self, family: Family) -> Result<Box<dyn PacedSocket>, String>;

    /// Nothing came from the stream's sockets and the stream has nothing to do for `wait`:
    /// let time pass, up to the next thing due within `wait` (or all of `wait`). `false`
    /// when time is over (the end of a backtest): the stream then closes its sockets and
    /// ends.
    fn idle(&self, wait: Duration) -> bool;

    /// The jitter seed of the streams it paces when they set none
    /// ([`StreamBuilder::seed`](crate::ws::StreamBuilder::seed)): an exchange in virtual time
    /// gives one, so that the same run reconnects and recycles at the same instants (`None`,
    /// the default: each stream draws its own).
    fn seed(&self) -> Option<u64> {
        None
    }
}

/// One socket opened by a [`Pacer`]; never waits.
pub trait PacedSocket: Send {
    /// Hands `text` to the other side as one text frame, at the current instant; an error
    /// ends the socket with that reason.
    fn send(&mut self, text: &str) -> Result<(), String>;

    /// The next message waiting, if any (never waits).
    fn poll(&mut self) -> Option<Received>;

    /// Closes the socket on the stream's request; nothing is read after.
    fn close(&mut self);
}

/// What a [`PacedSocket`] received.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Received {
    /// A binary frame's payload, as the venue sends it (a zlib stream).
    Binary(Vec<u8>),
    /// A text frame (the JSON text itself).
    Text(String),
    /// The socket ended (the reason); nothing follows.
    Closed(String),
}
