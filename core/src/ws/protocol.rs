//! The seam between the socket machine and the two wire dialects: the [`Dialect`] a connection
//! speaks, and what its decoder hands back (replies, depth frames and finished events).

use std::fmt::Debug;
use std::panic::RefUnwindSafe;

use crate::types::{Family, TimestampMillis};
use crate::ws::event::{AuthCause, Event, ReplyError};
use crate::ws::model::Level;
use crate::ws::subscription::Subscription;

/// Everything a socket of one family does differently: the frames it sends, how it reads what
/// arrives, and the few replies and limits that mean something on one family only. A
/// [`crate::ws::Connection`] takes its dialect once, when it is created ([`dialect`]), and goes
/// through it for all of these; the machine itself never asks which family it serves.
///
/// A dialect holds no state (`Sync` and `RefUnwindSafe`, so that a connection holding one stays
/// `Send`, `Sync` and unwind-safe).
pub(crate) trait Dialect: Debug + Send + Sync + RefUnwindSafe {
    /// The family whose socket this is.
    fn family(&self) -> Family;

    /// The keepalive request `id`.
    fn ping(&self, id: u64) -> String;

    /// The `server.time` request `id`.
    fn time(&self, id: u64) -> String;

    /// The `server.auth` request `id`: `key`, the signed timestamp (ms) and its `signature`.
    fn auth(&self, id: u64, key: &str, timestamp_ms: i64, signature: &str) -> String;

    /// The (un)subscribe request `id` of subscriptions sharing channel, level and granularity.
    fn subscribe(&self, id: u64, subs: &[&Subscription], unsubscribe: bool) -> String;

    /// Reads one server message (decompressed text).
    fn decode(&self, text: &[u8]) -> Incoming;

    /// The most subscriptions one socket holds (`None`: no limit of the venue's).
    fn max_channels(&self) -> Option<usize>;

    /// Whether a refused (re)subscribe means the stream is already running and goes on.
    fn already_subscribed(&self, error: &ReplyError) -> bool;

    /// The cause a refused `server.auth` names by itself (`None`: judged by the clock).
    fn auth_refusal_cause(&self, error: &ReplyError) -> Option<AuthCause>;
}

/// One decoded server message (consumed at once, so not boxed).
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A reply to request `id` (`None`: no usable id, e.g. the swap answer to non-JSON text).
    Reply {
        id: Option<u64>,
        outcome: Result<ReplyValue, ReplyError>,
    },
    /// A depth frame, for the local book.
    Depth(DepthPush),
    /// Anything else, ready to hand out.
    Event(Event),
}

/// The payload of a successful reply.
#[derive(Debug, PartialEq)]
pub(crate) enum ReplyValue {
    /// `"pong"`.
    Pong,
    /// A server time (spot seconds already converted).
    Time(TimestampMillis),
    /// Anything else (`{"status":"success"}`, no data).
    Ok,
}

/// A depth frame.
#[derive(Debug)]
pub(crate) struct DepthPush {
    /// Symbol or instrument as sent.
    pub(crate) target: String,
    /// Swap level.
    pub(crate) level: Option<u16>,
    /// Spot `CLEAN=true`, swap `full_data`.
    pub(crate) snapshot: bool,
    pub(crate) bids: Vec<Level>,
    pub(crate) asks: Vec<Level>,
    /// Swap frame time.
    pub(crate) timestamp: Option<TimestampMillis>,
}
