//! What the family decoders hand to the connection: replies, depth frames and finished events.

use crate::types::TimestampMillis;
use crate::ws::event::{Event, ReplyError};
use crate::ws::model::Level;

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
