//! The spot (`ws/v1`) and swap (`swap_ws/v2`) websockets, without I/O.
//!
//! A [`Connection`] is the protocol machine of one socket: the transport hands it the frames it
//! receives and the time, and sends the frames it hands out, opens and closes sockets when told,
//! and waits until its deadlines ([`Action`]). Everything else is here: the zlib layer and the
//! tolerant frame decoder ([`frame`]), request ids and replies, the keepalive, the connection
//! lifetime, `server.auth`, the subscriptions replayed on every socket, the local order books
//! ([`Book`]) with their resnapshots, and the typed events ([`Event`]) with exact decimals.
//!
//! The protocol is described in `docs/protocol.md` ("Websockets"); where this module had to
//! decide an unknown, a DESIGN note says so (that section lists them too).
//!
//! ```
//! use digifinex_core::ws::{Action, Connection, Frame, WsConfig, Event};
//! use digifinex_core::{Family, TimestampMillis};
//!
//! let mut conn = Connection::new(Family::Swap, WsConfig::default(), None);
//! conn.subscribe("swap:depth:BTCUSDTPERP".parse()?)?;
//! let t = TimestampMillis(1_700_000_000_000);
//! assert!(matches!(conn.poll(t), Action::Event(Event::Connecting { attempt: 1, .. })));
//! assert!(matches!(conn.poll(t), Action::Connect));
//! conn.on_connected(t);
//! match conn.poll(t) {
//!     Action::Send(text) => assert_eq!(
//!         text,
//!         r#"{"event":"depth.subscribe","id":1,"instrument_id":"BTCUSDTPERP","level":20}"#
//!     ),
//!     _ => unreachable!(),
//! }
//! // The server's frames are zlib streams; a plain JSON text frame is read too.
//! conn.on_frame(t, Frame::Text(r#"{"event":"depth.subscribe","id":1,"code":1,"msg":"success"}"#));
//! assert!(matches!(conn.poll(t), Action::Event(Event::Connected { .. })));
//! assert!(matches!(conn.poll(t), Action::Event(Event::Subscribed { .. })));
//! // Nothing to do until the first ping, 20 s later (or the snapshot timeout, 10 s).
//! assert!(matches!(conn.poll(t), Action::Wait(Some(TimestampMillis(1_700_000_010_000)))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod book;
mod connection;
mod dialects;
mod driver;
pub mod event;
pub mod frame;
pub mod model;
pub mod pace;
mod protocol;
pub(crate) mod record;
mod settings;
mod spot;
mod streams;
pub mod subscription;
mod swap;

pub use book::{Book, ResyncReason};
pub use connection::{Action, Connection, SubscriptionState, WsConfig, CLOCK_MISMATCH_MS};
pub use driver::{Line, Step, StreamCore};
pub use event::{AuthCause, BookUpdate, CloseReason, Event, RawJson, ReplyError};
pub use frame::{Frame, FrameError};
pub use model::Level;
pub use pace::{PacedSocket, Pacer, Received};
pub use record::Extra;
pub use settings::{
    check_family, random_seed, url_beside, Link, StreamBuilder, StreamSettings, StreamTransport,
    Target, SPOT_CHANNELS_PER_SOCKET,
};
pub use streams::{SocketReport, StreamAction, StreamInput, Streams};
pub use subscription::{Channel, SubscribeError, Subscription};

/// The spot socket's URL.
pub const SPOT_WS_URL: &str = "wss://openapi.digifinex.com/ws/v1/";

/// The swap socket's URL.
pub const SWAP_WS_URL: &str = "wss://openapi.digifinex.com/swap_ws/v2/";

/// The most channels one swap socket holds (`docs/protocol.md`, "Subscribing"): the venue closes
/// the socket, with every stream on it, on the 31st. Each subscription counts as one (an instrument
/// of a channel, with its level or granularity); `all_ticker` and the private channels count too,
/// as their weight is unknown.
pub const MAX_SWAP_CHANNELS: usize = 30;

/// Inflates and decodes one frame into the connection's input (no book, no event handed
/// out): the decode cost alone, for the benchmark. Not a stable API (feature `hooks`).
#[cfg(feature = "hooks")]
#[doc(hidden)]
pub fn __decode_only(family: crate::Family, frame: Frame<'_>) -> bool {
    let Ok(text) = frame::decode(frame) else {
        return false;
    };
    let incoming = dialects::dialect(family).decode(&text);
    !matches!(
        incoming,
        protocol::Incoming::Event(Event::Undecodable { .. })
    )
}

/// The best bid, the best ask and the depth per side that [`Book::apply_snapshot`] of these
/// levels leaves (a crossed result leaves an empty book). A side whose prices are strictly
/// ordered (as the venue sends them) is summed up in one pass; any other goes through a
/// [`Book`].
fn snapshot_summary(
    bids: &[Level],
    asks: &[Level],
) -> (Option<Level>, Option<Level>, (usize, usize)) {
    /// The best level and the count of a side with distinct prices: its non-zero levels.
    fn side(levels: &[Level], highest: bool) -> Option<(Option<Level>, usize)> {
        let pairs = || levels.iter().zip(levels.iter().skip(1));
        if !pairs().all(|(a, b)| a.price < b.price) && !pairs().all(|(a, b)| a.price > b.price) {
            return None;
        }
        let live = levels.iter().filter(|l| !l.size.is_zero());
        let best = if highest {
            live.clone().max_by_key(|l| l.price)
        } else {
            live.clone().min_by_key(|l| l.price)
        };
        Some((best.copied(), live.count()))
    }
    match (side(bids, true), side(asks, false)) {
        (Some((bid, bid_count)), Some((ask, ask_count))) => match (bid, ask) {
            (Some(b), Some(a)) if b.price >= a.price => (None, None, (0, 0)),
            _ => (bid, ask, (bid_count, ask_count)),
        },
        _ => {
            let mut book = Book::new(None);
            let _ = book.apply_snapshot(bids, asks, None);
            (book.best_bid(), book.best_ask(), book.len())
        }
    }
}

/// Decodes one server frame of `family` into the events it carries, without a connection
/// (no books, no replies): for tools and the fuzzers. Never panics.
pub fn decode_frame(family: crate::Family, frame: Frame<'_>) -> Result<Vec<Event>, FrameError> {
    let text = frame::decode(frame)?;
    let incoming = dialects::dialect(family).decode(&text);
    Ok(match incoming {
        protocol::Incoming::Event(e) => vec![e],
        protocol::Incoming::Reply { .. } => Vec::new(),
        protocol::Incoming::Depth(d) => {
            let (best_bid, best_ask, depth) = snapshot_summary(&d.bids, &d.asks);
            let sub =
                Subscription::new(family, Channel::Depth, Some(&d.target)).map(|s| match d.level {
                    Some(level) => s.clone().with_level(level).unwrap_or(s),
                    None => s,
                });
            match sub {
                Ok(subscription) => vec![Event::Book(BookUpdate {
                    subscription,
                    snapshot: d.snapshot,
                    best_bid,
                    best_ask,
                    depth,
                    bids: d.bids,
                    asks: d.asks,
                    timestamp: d.timestamp,
                })],
                Err(e) => vec![Event::undecodable(family, e, d.target.as_bytes())],
            }
        }
    })
}

#[cfg(test)]
mod summary_tests {
    use super::*;
    use rust_decimal::Decimal;

    fn levels(pairs: &[(i64, i64)]) -> Vec<Level> {
        pairs
            .iter()
            .map(|&(p, s)| Level::new(Decimal::new(p, 1), Decimal::new(s, 0)))
            .collect()
    }

    /// The one-pass summary agrees with a `Book` on ordered, unordered, duplicated, zero-sized
    /// and crossed sides.
    #[test]
    fn summary_is_the_books() {
        let sides: [&[(i64, i64)]; 9] = [
            &[],
            &[(100, 1)],
            &[(100, 1), (99, 2), (98, 0), (97, 4)],
            &[(97, 4), (98, 0), (99, 2), (100, 1)],
            &[(100, 0), (99, 0)],
            &[(99, 1), (100, 2), (98, 3)],
            &[(99, 1), (99, 0), (98, 3)],
            &[(99, 0), (99, 5)],
            &[(101, 1), (102, 2)],
        ];
        for bids in sides {
            for asks in sides {
                let (bids, asks) = (levels(bids), levels(asks));
                let mut book = Book::new(None);
                let _ = book.apply_snapshot(&bids, &asks, None);
                assert_eq!(
                    snapshot_summary(&bids, &asks),
                    (book.best_bid(), book.best_ask(), book.len()),
                    "{bids:?} / {asks:?}"
                );
            }
        }
    }
}
