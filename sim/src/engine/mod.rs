//! The engine, the bottom floor of the exchange: accounts and keys, the books and their
//! matching, the public tapes and candles, each family's orders, positions, margin and
//! funding, the request-weight limiters, the queue of orders on their way to the matching
//! engine, and the outbox of changes. It knows nothing of HTTP, sockets or time sources: the
//! drivers ([`crate::drive`]: the order flow, a recording) and the dialects
//! ([`crate::dialect`]: REST, websockets, control) above it call it with the time as an
//! argument.

pub(crate) mod accounts;
pub(crate) mod book;
pub(crate) mod changes;
pub(crate) mod history;
pub(crate) mod latency;
pub(crate) mod limiter;
pub(crate) mod spot;
pub(crate) mod state;
pub(crate) mod swap;
pub(crate) mod tape;
pub(crate) mod target;
pub(crate) mod ticker;
