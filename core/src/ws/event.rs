//! What a connection reports: connection state, replies, book updates and typed pushes.
//!
//! Every event serializes as one JSON object with a `type` member (`{"type":"book",...}`),
//! decimals as strings in plain notation: the CLI prints these lines.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::types::{Family, TimestampMillis};
use crate::ws::book::ResyncReason;
use crate::ws::model::{
    Level, SpotAlgoOrder, SpotBalance, SpotOrder, SpotTicker, SpotTrade, SwapAccount, SwapCandle,
    SwapFundingRate, SwapIndexPrice, SwapMarkPrice, SwapOrder, SwapPosition, SwapPriceRange,
    SwapSettlePrice, SwapTicker, SwapTrade,
};
use crate::ws::subscription::Subscription;

/// JSON text kept as received (an unknown channel's payload, a reply's raw error).
#[derive(Debug, Clone)]
pub struct RawJson(pub Box<RawValue>);

impl RawJson {
    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Keeps `raw`.
    pub(crate) fn of(raw: &RawValue) -> Self {
        RawJson(raw.to_owned())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// A refusal by the server (a reply with `error` non-null on spot, `code` other than 1 on swap).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ReplyError {
    /// The code: swap `code` (2 invalid param, 3 auth fail, 4 need auth, 5 repeat subscribe,
    /// 6 subscribe fail, 7 unsubscribe fail, 8 api not active, 9 repeat auth); spot `error.code`
    /// when the error is an object with one.
    pub code: Option<i64>,
    /// The message (`msg` on swap; `error.message`, or the error string, on spot).
    pub message: Option<String>,
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.code, &self.message) {
            (Some(c), Some(m)) => write!(f, "code {c}: {m}"),
            (Some(c), None) => write!(f, "code {c}"),
            (None, Some(m)) => f.write_str(m),
            (None, None) => f.write_str("refused"),
        }
    }
}

/// Why a stream's `server.auth` was refused, as far as the stream can tell: after each refusal
/// it measures the server's clock again (`server.time`) and compares it with the timestamp it
/// signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuthCause {
    /// The signed timestamp was at least [`crate::ws::CLOCK_MISMATCH_MS`] away from the
    /// server's clock as measured right after the refusal, or the clock could not be measured.
    Clock,
    /// Refused with a timestamp that matched the server's clock: the key, the secret, the key's
    /// expiry or its IP whitelist.
    Key,
    /// The server named a permission (swap code 8, "api not active"): the key may not use the
    /// private channels.
    Permission,
}

impl std::fmt::Display for AuthCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AuthCause::Clock => "clock",
            AuthCause::Key => "key",
            AuthCause::Permission => "permission",
        })
    }
}

impl AuthCause {
    /// What to do about it, in a sentence.
    pub fn advice(&self) -> &'static str {
        match self {
            AuthCause::Clock => {
                "the server's clock and this machine's disagree: check the system clock (NTP)"
            }
            AuthCause::Key => {
                "the key pair was refused: check the key, the secret, the key's expiry and its IP \
                 whitelist"
            }
            AuthCause::Permission => {
                "the key lacks a permission the private channels need: enable it for the key"
            }
        }
    }
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CloseReason {
    /// No pong arrived in time for a ping.
    PongTimeout,
    /// The connection reached its planned lifetime and is replaced (the venue closes sockets
    /// at about 2 h).
    Recycle,
    /// The socket closed or failed (the transport's description).
    Lost(String),
    /// Opening the socket failed (the transport's description, e.g. `HTTP 502`).
    ConnectFailed(String),
    /// [`crate::ws::Connection::close`] was called.
    Requested,
}

impl std::fmt::Display for CloseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CloseReason::PongTimeout => f.write_str("no pong in time"),
            CloseReason::Recycle => f.write_str("lifetime reached, recycling"),
            CloseReason::Lost(d) => write!(f, "connection lost: {d}"),
            CloseReason::ConnectFailed(d) => write!(f, "connect failed: {d}"),
            CloseReason::Requested => f.write_str("closed on request"),
        }
    }
}

/// A book update: the levels one frame changed, and the book's top afterwards.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct BookUpdate {
    /// The depth subscription (its target is the symbol or instrument).
    pub subscription: Subscription,
    /// Whether the frame was a snapshot (spot `CLEAN=true`, swap `full_data`).
    pub snapshot: bool,
    /// The bid levels of the frame as sent (size 0 deletes).
    pub bids: Vec<Level>,
    /// The ask levels of the frame as sent.
    pub asks: Vec<Level>,
    /// Server time of the frame, ms (swap only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<TimestampMillis>,
    /// Best bid of the local book after the frame.
    pub best_bid: Option<Level>,
    /// Best ask of the local book after the frame.
    pub best_ask: Option<Level>,
    /// Levels per side of the local book after the frame.
    pub depth: (usize, usize),
}

impl BookUpdate {
    /// The whole of `book` as a snapshot of `subscription` (a live book reported again: a
    /// socket's handover, a feed's snapshot).
    pub(crate) fn snapshot_of(subscription: Subscription, book: &crate::ws::Book) -> BookUpdate {
        BookUpdate {
            subscription,
            snapshot: true,
            bids: book.bids().collect(),
            asks: book.asks().collect(),
            timestamp: book.timestamp(),
            best_bid: book.best_bid(),
            best_ask: book.best_ask(),
            depth: book.len(),
        }
    }
}

/// What a connection reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// A socket is being opened (attempt 1 is the first after a loss or a recycle).
    Connecting {
        /// The socket's family.
        family: Family,
        /// The socket's number in its stream (0 for the first; a stream of many
        /// subscriptions, or a recycle, opens more).
        socket: u32,
        /// Attempt number since the last good connection.
        attempt: u32,
    },
    /// The socket is open; subscriptions are being replayed.
    Connected {
        /// The socket's family.
        family: Family,
        /// The socket's number in its stream.
        socket: u32,
    },
    /// The socket ended; another is opened after `retry_in_ms` unless the connection was
    /// closed on request.
    Disconnected {
        /// The socket's family.
        family: Family,
        /// The socket's number in its stream.
        socket: u32,
        /// Why.
        reason: CloseReason,
        /// Delay before the next attempt, ms (`None` when closed on request).
        retry_in_ms: Option<u64>,
    },
    /// `server.auth` succeeded.
    Authenticated {
        /// The socket.
        family: Family,
    },
    /// The socket measured the server's clock (`server.time`, by the midpoint rule) before
    /// signing `server.auth`: no measured offset was at hand (no REST session, or one that had
    /// not synced), or the server refused the last auth.
    ClockMeasured {
        /// The socket's family.
        family: Family,
        /// The socket's number in its stream.
        socket: u32,
        /// Server clock minus local clock, ms.
        offset_ms: i64,
    },
    /// `server.auth` was refused. The private subscriptions wait; the auth is signed again
    /// (with the clock measured again) after `retry_in_ms`; `None`: the stream gave up after
    /// [`crate::ws::WsConfig::max_auth_refusals`] refusals in a row, and the private
    /// subscriptions stay refused (the public ones go on).
    AuthRefused {
        /// The socket's family.
        family: Family,
        /// The socket's number in its stream.
        socket: u32,
        /// What the refusal is put down to.
        cause: AuthCause,
        /// Refusals in a row so far.
        refusals: u32,
        /// Delay before the next attempt, ms; `None`: given up.
        retry_in_ms: Option<u64>,
        /// The private subscriptions waiting (refused for good when given up).
        subscriptions: Vec<Subscription>,
        /// The server's answer.
        error: ReplyError,
    },
    /// The server acknowledged subscriptions.
    Subscribed {
        /// The subscriptions acknowledged.
        subscriptions: Vec<Subscription>,
    },
    /// The server acknowledged an unsubscription.
    Unsubscribed {
        /// The subscriptions ended.
        subscriptions: Vec<Subscription>,
    },
    /// The server refused a request (a subscription; `server.auth` is [`Event::AuthRefused`]).
    Refused {
        /// The socket.
        family: Family,
        /// The request's method or event (`depth.subscribe`, `server.auth`).
        request: String,
        /// The subscriptions concerned (empty for auth).
        subscriptions: Vec<Subscription>,
        /// The server's answer.
        error: ReplyError,
    },
    /// The answer to [`crate::ws::Connection::request_time`].
    ServerTime {
        /// The socket.
        family: Family,
        /// Server time (spot answers seconds; converted).
        time: TimestampMillis,
    },
    /// A book was found invalid and is being rebuilt from a fresh snapshot (resubscribe).
    Resync {
        /// The depth subscription.
        subscription: Subscription,
        /// Why.
        reason: ResyncReason,
        /// Delay before the resubscription, ms: 0 the first time, growing when the same
        /// book needs a resync again within a minute of its last snapshot.
        retry_in_ms: u64,
    },
    /// A socket that reached its lifetime was replaced: the new one was opened and
    /// subscribed, its books got their snapshots, and the stream switched to it before the old
    /// one was closed (make before break). Every live book is reported once more as a
    /// snapshot from the new socket right after this event; trades are never reported twice.
    Switched {
        /// The sockets' family.
        family: Family,
        /// The socket closed.
        from: u32,
        /// The socket that took over.
        to: u32,
    },
    /// Events of a subscription were lost between a feed (`digifinex_core::feed`) and this
    /// consumer: the feed's sequence for it jumped by `missed` (a book reports
    /// [`Event::Resync`] instead and restarts from the feed's snapshot).
    Gap {
        /// The subscription whose events were lost.
        subscription: Subscription,
        /// How many of its events were lost.
        missed: u64,
    },
    /// A depth frame applied to the local book.
    Book(BookUpdate),
    /// Spot trades (`trades.update`); `snapshot` is the recent list sent after subscribing.
    SpotTrades {
        /// Pair (`BTC_USDT`).
        symbol: String,
        /// `CLEAN=true`: the recent-trades list; `false`: new trades.
        snapshot: bool,
        /// Newest first, as sent.
        trades: Vec<SpotTrade>,
    },
    /// Spot tickers (`ticker.update`; `all_ticker.update` with `all`).
    SpotTickers {
        /// From `all_ticker` (a partial slice of all markets).
        all: bool,
        /// The tickers.
        tickers: Vec<SpotTicker>,
    },
    /// Own spot orders (`order.update`).
    SpotOrders {
        /// The updates.
        orders: Vec<SpotOrder>,
    },
    /// Own spot algo orders (`order_algo.update`).
    SpotAlgoOrders {
        /// The updates.
        orders: Vec<SpotAlgoOrder>,
    },
    /// Own spot balances (`balance.update`).
    SpotBalances {
        /// The balances.
        balances: Vec<SpotBalance>,
    },
    /// A swap ticker (`ticker.update`).
    SwapTicker(SwapTicker),
    /// All swap tickers (`all_ticker`, enveloped or a bare array).
    SwapAllTickers {
        /// The rows (including simulated and delisted contracts the venue lists).
        tickers: Vec<SwapTicker>,
    },
    /// Swap trades (`trades.update`).
    SwapTrades {
        /// `full_data`: the recent-trades list sent after subscribing.
        snapshot: bool,
        /// The trades.
        trades: Vec<SwapTrade>,
    },
    /// A swap candle (`cur_candle.update`).
    SwapCandle(SwapCandle),
    /// A swap mark-price candle (`mark_candle.update`).
    SwapMarkCandle(SwapCandle),
    /// A swap index price.
    SwapIndexPrice(SwapIndexPrice),
    /// A swap mark price.
    SwapMarkPrice(SwapMarkPrice),
    /// A swap price band.
    SwapPriceRange(SwapPriceRange),
    /// A swap funding rate.
    SwapFundingRate(SwapFundingRate),
    /// A swap estimated settlement price.
    SwapSettlePrice(SwapSettlePrice),
    /// Own swap account balances (`account.update`; unverified shape).
    SwapAccounts {
        /// The balances.
        accounts: Vec<SwapAccount>,
    },
    /// Own swap positions (`position.update`; unverified shape).
    SwapPositions {
        /// The positions.
        positions: Vec<SwapPosition>,
    },
    /// Own swap orders (`order.update`; unverified shape).
    SwapOrders {
        /// The updates.
        orders: Vec<SwapOrder>,
    },
    /// A push of a channel this version does not model, kept as received.
    Unknown {
        /// The socket.
        family: Family,
        /// The method or event (`foo.update`).
        channel: String,
        /// The payload (`params` on spot, `data` on swap).
        data: RawJson,
    },
    /// A frame that could not be read (not zlib nor JSON, or a known channel whose payload
    /// does not decode). The connection goes on.
    Undecodable {
        /// The socket.
        family: Family,
        /// What went wrong.
        problem: String,
        /// The start of the frame's text (at most 200 characters).
        snippet: String,
    },
}

impl Event {
    /// The event of a frame that could not be read.
    pub(crate) fn undecodable(family: Family, problem: impl ToString, text: &[u8]) -> Event {
        Event::Undecodable {
            family,
            problem: problem.to_string(),
            snippet: String::from_utf8_lossy(text).chars().take(200).collect(),
        }
    }

    /// Whether this is a market-data or private-data push (as opposed to connection state,
    /// replies and resyncs).
    pub fn is_data(&self) -> bool {
        !matches!(
            self,
            Event::Connecting { .. }
                | Event::Connected { .. }
                | Event::Disconnected { .. }
                | Event::Authenticated { .. }
                | Event::ClockMeasured { .. }
                | Event::AuthRefused { .. }
                | Event::Subscribed { .. }
                | Event::Unsubscribed { .. }
                | Event::Refused { .. }
                | Event::ServerTime { .. }
                | Event::Resync { .. }
                | Event::Gap { .. }
                | Event::Switched { .. }
                | Event::Undecodable { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ws::frame::{tests::zlib, Frame};

    #[test]
    fn events_serialize_as_json_lines() {
        let ev = crate::ws::decode_frame(
            Family::Swap,
            Frame::Binary(&zlib(r#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":7,"asks":[["100.50",3]],"bids":[["100",1]]},"full_data":true}"#)),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&ev[0]).unwrap(),
            r#"{"type":"book","subscription":{"family":"swap","channel":"depth","target":"BTCUSDTPERP","level":20},"snapshot":true,"bids":[["100","1"]],"asks":[["100.50","3"]],"timestamp":7,"best_bid":["100","1"],"best_ask":["100.50","3"],"depth":[1,1]}"#
        );
        let ev = crate::ws::decode_frame(
            Family::Spot,
            Frame::Text(
                r#"{"method":"kline.update","params":[1,{"a":1.0000000000000000001}],"id":null}"#,
            ),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&ev[0]).unwrap(),
            r#"{"type":"unknown","family":"spot","channel":"kline.update","data":[1,{"a":1.0000000000000000001}]}"#
        );
        let ev = Event::Disconnected {
            family: Family::Spot,
            socket: 1,
            reason: CloseReason::Lost("reset".into()),
            retry_in_ms: Some(250),
        };
        assert_eq!(
            serde_json::to_string(&ev).unwrap(),
            r#"{"type":"disconnected","family":"spot","socket":1,"reason":{"kind":"lost","detail":"reset"},"retry_in_ms":250}"#
        );
    }
}
