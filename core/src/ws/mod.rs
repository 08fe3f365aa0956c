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
pub mod event;
pub mod frame;
pub mod model;
pub mod private;
mod protocol;
pub(crate) mod record;
mod spot;
pub mod subscription;
mod swap;

pub use book::{Book, ResyncReason};
pub use connection::{Action, Connection, SubscriptionState, WsConfig};
pub use event::{BookUpdate, CloseReason, Event, RawJson, ReplyError};
pub use frame::{Frame, FrameError};
pub use model::Level;
pub use private::{BalanceState, Change, OrderState, PositionState, PrivateSnapshot};
pub use record::Extra;
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
/// out): the decode cost alone, for the benchmark. Not a stable API.
#[doc(hidden)]
pub fn __decode_only(family: crate::Family, frame: Frame<'_>) -> bool {
    let Ok(text) = frame::decode(frame) else {
        return false;
    };
    let incoming = match family {
        crate::Family::Spot => spot::decode(&text),
        crate::Family::Swap => swap::decode(&text),
    };
    !matches!(
        incoming,
        protocol::Incoming::Event(Event::Undecodable { .. })
    )
}

/// Decodes one server frame of `family` into the events it carries, without a connection
/// (no books, no replies): for tools and the fuzzers. Never panics.
pub fn decode_frame(family: crate::Family, frame: Frame<'_>) -> Result<Vec<Event>, FrameError> {
    let text = frame::decode(frame)?;
    let incoming = match family {
        crate::Family::Spot => spot::decode(&text),
        crate::Family::Swap => swap::decode(&text),
    };
    Ok(match incoming {
        protocol::Incoming::Event(e) => vec![e],
        protocol::Incoming::Reply { .. } => Vec::new(),
        protocol::Incoming::Depth(d) => {
            let mut book = Book::new(None);
            let _ = book.apply_snapshot(&d.bids, &d.asks, d.timestamp);
            let sub =
                Subscription::new(family, Channel::Depth, Some(&d.target)).map(|s| match d.level {
                    Some(level) => s.clone().with_level(level).unwrap_or(s),
                    None => s,
                });
            match sub {
                Ok(subscription) => vec![Event::Book(BookUpdate {
                    subscription,
                    snapshot: d.snapshot,
                    best_bid: book.best_bid(),
                    best_ask: book.best_ask(),
                    depth: book.len(),
                    bids: d.bids,
                    asks: d.asks,
                    timestamp: d.timestamp,
                })],
                Err(e) => vec![Event::undecodable(family, e, d.target.as_bytes())],
            }
        }
    })
}
