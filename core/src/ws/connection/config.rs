//! The timers and limits of a connection ([`WsConfig`]).

use std::time::Duration;

/// Timers and limits of a connection. The defaults follow the spec's recommendations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsConfig {
    /// Interval of client pings: 20 s (the venue drops a socket after 60 s without a client
    /// frame).
    pub ping_interval: Duration,
    /// A socket whose pong is this late is ended and replaced: 10 s.
    pub pong_timeout: Duration,
    /// Planned lifetime of a socket: 110 min (the venue closes at about 2 h).
    pub lifetime: Duration,
    /// Up to this much is taken off each socket's lifetime at random, so that sockets opened
    /// together are not recycled together: 10 min.
    pub lifetime_jitter: Duration,
    /// A depth subscription whose snapshot has not come this long after its acknowledgement is
    /// resubscribed: 10 s.
    pub snapshot_timeout: Duration,
    /// A book older than this since its snapshot is resnapshotted (bounds the harm of a lost
    /// delta, which no sequence number reveals): off by default.
    pub book_max_age: Option<Duration>,
    /// First reconnect delay: 500 ms, doubling per failed attempt.
    pub reconnect_initial: Duration,
    /// Largest reconnect delay: 30 s.
    pub reconnect_max: Duration,
    /// A socket that lived at least this long resets the backoff: 10 s.
    pub healthy_after: Duration,
    /// Most levels a side of a local book holds (a book without a subscribed level): a
    /// delta past it resyncs the book (a server adding levels forever cannot grow it without
    /// bound): 5,000.
    pub max_book_levels: usize,
    /// First delay before resubscribing a book that needed a resync again soon after its
    /// last one (a book crossed after every snapshot): 1 s, doubling per resync, up to
    /// `resync_max`. The first resync after a healthy minute is at once.
    pub resync_initial: Duration,
    /// Largest delay between two resyncs of one book: 60 s.
    pub resync_max: Duration,
    /// Seed of the jitter (the transports seed it at random).
    pub seed: u64,
    /// Server clock minus local clock, ms, added to the `server.auth` timestamp: a measured
    /// offset (a REST session's). `None` (the default): the socket measures the server's clock
    /// itself (`server.time`) before its first `server.auth`.
    pub time_offset_ms: Option<i64>,
    /// Refusals of `server.auth` in a row after which the stream gives up on its private
    /// channels ([`Event::AuthRefused`](crate::ws::Event::AuthRefused) with no retry): 4.
    pub max_auth_refusals: u32,
    /// First delay before signing `server.auth` again after a refusal: 500 ms, doubling per
    /// refusal, at most `reconnect_max`.
    pub auth_retry_initial: Duration,
}

impl Default for WsConfig {
    fn default() -> Self {
        WsConfig {
            ping_interval: Duration::from_secs(20),
            pong_timeout: Duration::from_secs(10),
            lifetime: Duration::from_secs(110 * 60),
            lifetime_jitter: Duration::from_secs(10 * 60),
            snapshot_timeout: Duration::from_secs(10),
            book_max_age: None,
            reconnect_initial: Duration::from_millis(500),
            reconnect_max: Duration::from_secs(30),
            healthy_after: Duration::from_secs(10),
            max_book_levels: 5_000,
            resync_initial: Duration::from_secs(1),
            resync_max: Duration::from_secs(60),
            seed: 0x5eed_d161_f1e7,
            time_offset_ms: None,
            max_auth_refusals: 4,
            auth_retry_initial: Duration::from_millis(500),
        }
    }
}
