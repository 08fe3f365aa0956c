//! A socket's task: it opens the socket through the stream's [`Connector`] (by default the
//! network: connect, TLS and upgrade within `connect_timeout` in all, each message within
//! `message_timeout` of its first byte), reads whole messages into the stream's bounded queue,
//! and writes what the stream hands it.
//!
//! The seam ([`Connector`], [`Socket`]) moves whole messages and nothing else: the payloads
//! of binary frames reach the core as they came (zlib streams, inflated by the core as from
//! the network), text frames as text; keepalive, `server.auth`, subscriptions and books are
//! the core's whatever opened the socket. Without a connector the network socket is driven
//! directly (no boxed future per message).
//!
//! DESIGN: the message deadline is kept in the byte stream under tungstenite ([`Noted`]), which
//! follows the frame headers itself ([`Frames`]) and fails a read once the deadline is past
//! (its timer wakes the task): a data message's deadline runs from the first byte of its first
//! fragment to the end of its final one, and control frames (pings) that come between its
//! fragments do not restart it; a control frame outside a message has the same deadline of its
//! own. tungstenite does not say whether a fragmented message is in progress, so a deadline
//! restarted on each message it hands over let a server keep one message open forever by
//! pinging in between (and a deadline checked only when the task looked up again could be
//! late by a ping interval).
//!
//! DESIGN: text frames are masked and written by this module, not by tungstenite, whose TRACE
//! log prints every frame it writes (the `server.auth` frame carries the key and a signature):
//! tungstenite's own queue (pongs, close) is flushed first, so the frames never interleave.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use digifinex_core::ws::{Link, SocketReport, StreamInput};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self, protocol::Message};

use super::Tls;

/// A boxed future of the socket seam ([`Connector`], [`Socket`]).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Opens the sockets of a stream: the network by default ([`Network`]); another one (an
/// exchange in the same process, a test double) through `ClientBuilder::ws_connector` or
/// [`StreamBuilder::connector`](digifinex_core::ws::StreamBuilder::connector).
///
/// Called in the socket's own task, once per socket (every reconnect opens a new one).
pub trait Connector: Send + Sync + std::fmt::Debug {
    /// Opens one socket of `link.settings.family()` to `link.target`; the stream gives up
    /// after `link.settings.connect_timeout()`. An error is the reason the stream reports
    /// (`CloseReason::ConnectFailed`), e.g. `HTTP 502` for a refused upgrade.
    fn connect<'a>(&'a self, link: &'a Link<Tls>)
        -> BoxFuture<'a, Result<Box<dyn Socket>, String>>;
}

/// One open websocket, message by message (see [`Connector`]).
pub trait Socket: Send {
    /// Sends `text` as one text frame (a client sends nothing else); an error ends the socket
    /// with that reason. The stream gives up after `connect_timeout`.
    fn send(&mut self, text: String) -> BoxFuture<'_, Result<(), String>>;
    /// The next message. Must be cancel-safe: the task drops this future when a command
    /// comes first, and nothing may be lost then.
    fn recv(&mut self) -> BoxFuture<'_, Incoming>;
    /// Closes the socket on the stream's request (with a close frame where it has them);
    /// nothing is read after. A socket dropped without it (the stream is gone) ends too.
    fn close(&mut self) -> BoxFuture<'_, ()>;
}

/// What a [`Socket`] received.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Incoming {
    /// A binary frame's payload, as sent (the venue's are zlib streams).
    Binary(Vec<u8>),
    /// A text frame.
    Text(String),
    /// The socket ended (a close frame, a dropped connection, a read error): the reason; the
    /// socket is not read again.
    Closed(String),
}

/// The network: TCP (and rustls for `wss://`) and the upgrade to the link's URL, with the
/// message deadline of the module docs. (A stream without a connector uses the same socket
/// without boxing its futures.)
#[derive(Debug, Clone, Copy, Default)]
pub struct Network;

impl Connector for Network {
    fn connect<'a>(
        &'a self,
        link: &'a Link<Tls>,
    ) -> BoxFuture<'a, Result<Box<dyn Socket>, String>> {
        Box::pin(async move {
            let ws: Box<dyn Socket> = Box::new(NetSocket(open(link).await?));
            Ok(ws)
        })
    }
}

/// A websocket over the network.
struct NetSocket(tokio_tungstenite::WebSocketStream<Noted>);

impl NetSocket {
    /// The next data message or the end (pings are answered by tungstenite). Cancel-safe:
    /// each `next` is.
    async fn next_incoming(&mut self) -> Incoming {
        loop {
            return match self.0.next().await {
                Some(Ok(Message::Binary(b))) => Incoming::Binary(b.to_vec()),
                Some(Ok(Message::Text(t))) => Incoming::Text(t.as_str().to_owned()),
                Some(Ok(Message::Close(f))) => Incoming::Closed(f.map_or_else(
                    || "close frame".to_owned(),
                    |f| format!("close frame {} {}", u16::from(f.code), f.reason),
                )),
                // A ping (answered by tungstenite) or pong: the deadline of a message in
                // progress goes on (see the module's docs).
                Some(Ok(_)) => continue,
                Some(Err(e)) => Incoming::Closed(e.to_string()),
                None => Incoming::Closed("connection closed".to_owned()),
            };
        }
    }
}

impl Socket for NetSocket {
    fn send(&mut self, text: String) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(send_text(&mut self.0, text))
    }
    fn recv(&mut self) -> BoxFuture<'_, Incoming> {
        Box::pin(self.next_incoming())
    }
    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _ = self.0.close(None).await;
        })
    }
}

/// The socket a task drives: the network's directly, or a connector's.
enum Open {
    Net(Box<NetSocket>),
    Custom(Box<dyn Socket>),
}

impl Open {
    async fn send(&mut self, text: String) -> Result<(), String> {
        match self {
            Open::Net(ws) => send_text(&mut ws.0, text).await,
            Open::Custom(ws) => ws.send(text).await,
        }
    }
    /// Cancel-safe (see [`Socket::recv`]).
    async fn recv(&mut self) -> Incoming {
        match self {
            Open::Net(ws) => ws.next_incoming().await,
            Open::Custom(ws) => ws.recv().await,
        }
    }
    async fn close(&mut self) {
        match self {
            Open::Net(ws) => drop(ws.0.close(None).await),
            Open::Custom(ws) => ws.close().await,
        }
    }
}

/// Opens the socket: through `connector`, else over the network.
async fn connect(link: &Link<Tls>, connector: Option<&dyn Connector>) -> Result<Open, String> {
    match connector {
        None => Ok(Open::Net(Box::new(NetSocket(open(link).await?)))),
        Some(c) => Ok(Open::Custom(c.connect(link).await?)),
    }
}

/// A socket's task: open, then move frames both ways until closed.
pub(super) async fn run_socket(
    link: Arc<Link<Tls>>,
    connector: Option<Arc<dyn Connector>>,
    id: u32,
    g: u64,
    tx: mpsc::Sender<StreamInput>,
    mut commands: mpsc::UnboundedReceiver<Option<String>>,
) {
    let opened = tokio::time::timeout(
        link.settings.connect_timeout(),
        connect(&link, connector.as_deref()),
    );
    let mut ws = match opened.await {
        Ok(Ok(ws)) => ws,
        Ok(Err(detail)) => {
            return drop(
                tx.send(StreamInput::Socket(id, g, SocketReport::Failed(detail)))
                    .await,
            )
        }
        Err(_) => {
            return drop(
                tx.send(StreamInput::Socket(
                    id,
                    g,
                    SocketReport::Failed("connect timed out".into()),
                ))
                .await,
            )
        }
    };
    if tx
        .send(StreamInput::Socket(id, g, SocketReport::Opened))
        .await
        .is_err()
    {
        return;
    }
    let end = loop {
        let frame = tokio::select! {
            command = commands.recv() => match command {
                // A write is bounded like the blocking client's (`connect_timeout`).
                Some(Some(text)) => match tokio::time::timeout(link.settings.connect_timeout(), ws.send(text)).await {
                    Ok(Ok(())) => continue,
                    Ok(Err(e)) => break e,
                    Err(_) => break "write timed out".to_owned(),
                },
                Some(None) | None => return ws.close().await,
            },
            incoming = ws.recv() => match incoming {
                Incoming::Binary(b) => StreamInput::Socket(id, g, SocketReport::Frame(b, false)),
                Incoming::Text(t) => StreamInput::Socket(id, g, SocketReport::Frame(t.into_bytes(), true)),
                Incoming::Closed(reason) => break reason,
            },
        };
        if tx.send(frame).await.is_err() {
            return;
        }
    };
    let _ = tx
        .send(StreamInput::Socket(id, g, SocketReport::Closed(end)))
        .await;
}

/// Writes `text` as one masked text frame, after what tungstenite has queued (see the
/// module's docs); an error is the reason given to the machine.
async fn send_text(
    ws: &mut tokio_tungstenite::WebSocketStream<Noted>,
    text: String,
) -> Result<(), String> {
    ws.flush().await.map_err(|e| e.to_string())?;
    let bytes = masked_text(text).map_err(|e| e.to_string())?;
    let io = ws.get_mut();
    io.write_all(&bytes).await.map_err(|e| e.to_string())?;
    io.flush().await.map_err(|e| e.to_string())
}

/// `text` as a final, masked client text frame (RFC 6455 5.3: a fresh mask per frame).
fn masked_text(text: String) -> tungstenite::Result<Vec<u8>> {
    use tungstenite::protocol::frame::coding::{Data, OpCode};
    let mut frame =
        tungstenite::protocol::frame::Frame::message(text, OpCode::Data(Data::Text), true);
    frame.header_mut().mask = Some(mask());
    let mut out = Vec::with_capacity(frame.len());
    frame.format(&mut out)?;
    Ok(out)
}

/// Four unpredictable bytes: SipHash under the standard library's randomly seeded keys (a
/// fresh key pair per call).
fn mask() -> [u8; 4] {
    use std::hash::{BuildHasher, Hasher};
    let h = std::collections::hash_map::RandomState::new().build_hasher();
    let [a, b, c, d, ..] = h.finish().to_le_bytes();
    [a, b, c, d]
}

/// The socket under the websocket: plain TCP or rustls over TCP.
trait Io: AsyncRead + AsyncWrite + Unpin + Send + Sync {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync> Io for T {}

/// A byte stream whose reads fail once a message (or a control frame outside one) took
/// longer than `limit` since its first byte; its timer wakes the reading task then.
struct Noted {
    inner: Box<dyn Io>,
    /// The message deadline (`message_timeout`).
    limit: Duration,
    /// Where the bytes read are in the frame stream, and since when a unit is open.
    frames: Frames,
    /// Fires at the open unit's deadline (armed while `frames.since` is set).
    timer: Pin<Box<tokio::time::Sleep>>,
}

impl AsyncRead for Noted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        // Polled before the read: the timer then holds this task's waker while it waits.
        if self.frames.since.is_some() && self.timer.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(std::io::Error::other(format!(
                "no whole message within {:?}",
                self.limit
            ))));
        }
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        let now = Instant::now();
        let was = self.frames.since;
        self.frames
            .feed(buf.filled().get(before..).unwrap_or_default(), now);
        if let Some(since) = self.frames.since.filter(|s| Some(*s) != was) {
            let at = since + self.limit;
            self.timer.as_mut().reset(at);
            // Registers the waker for the new deadline (a read that waits next polls it too).
            if self.timer.as_mut().poll(cx).is_ready() {
                cx.waker().wake_by_ref();
            }
        }
        result
    }
}

impl AsyncWrite for Noted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// (The same as the blocking client's.) Follows the bytes a websocket client reads: the HTTP answer to the upgrade (up to its
/// blank line), then the frames' headers and payload lengths, to know when a message (or a
/// control frame outside one) began and whether it is still open. It checks nothing:
/// tungstenite refuses malformed frames.
#[derive(Debug, Default)]
struct Frames {
    /// Bytes of the HTTP answer's `\r\n\r\n` matched so far; 4 once the frames began.
    http: u8,
    /// The current frame header's bytes so far (a header is at most 14 bytes).
    head: [u8; 14],
    /// How many of `head` are in.
    have: usize,
    /// Payload bytes of the current frame still to come (0: in a header, or between frames).
    left: u64,
    /// The current frame (header complete) is a control frame.
    control: bool,
    /// The current frame (header complete) ends its message.
    fin: bool,
    /// A data message began and its final fragment has not ended.
    in_message: bool,
    /// When the open unit (a data message, or a control frame outside one) began; `None`
    /// between units.
    since: Option<Instant>,
}

impl Frames {
    /// Follows `bytes`, read at `now`.
    fn feed(&mut self, mut bytes: &[u8], now: Instant) {
        while let Some((&b, rest)) = bytes.split_first() {
            if self.http < 4 {
                self.http = match (self.http, b) {
                    (0 | 2, b'\r') | (1 | 3, b'\n') => self.http + 1,
                    (_, b'\r') => 1,
                    _ => 0,
                };
                bytes = rest;
                continue;
            }
            if self.left > 0 {
                // Payload: skipped in one step.
                let take = usize::try_from(self.left)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                self.left = self
                    .left
                    .saturating_sub(u64::try_from(take).unwrap_or(u64::MAX));
                bytes = bytes.get(take..).unwrap_or_default();
                if self.left == 0 {
                    self.end_frame();
                }
                continue;
            }
            if self.have == 0 && self.since.is_none() {
                self.since = Some(now);
            }
            if let Some(slot) = self.head.get_mut(self.have) {
                *slot = b;
            }
            self.have += 1;
            bytes = rest;
            let [b0, b1, ..] = self.head;
            if self.have < 2 {
                continue;
            }
            let extended = match b1 & 0x7f {
                126 => 2,
                127 => 8,
                _ => 0,
            };
            let need = 2 + extended + if b1 & 0x80 != 0 { 4 } else { 0 };
            if self.have < need {
                continue;
            }
            let len = match extended {
                2 => u64::from(u16::from_be_bytes([self.head[2], self.head[3]])),
                8 => {
                    let mut n = [0u8; 8];
                    n.copy_from_slice(self.head.get(2..10).unwrap_or(&[0; 8]));
                    u64::from_be_bytes(n)
                }
                _ => u64::from(b1 & 0x7f),
            };
            self.have = 0;
            self.control = b0 & 0x08 != 0;
            self.fin = b0 & 0x80 != 0;
            self.left = len;
            if len == 0 {
                self.end_frame();
            }
        }
    }

    /// The current frame is over: a final data fragment ends its message; a control frame
    /// outside a message is a unit of its own; a control frame inside one changes nothing.
    fn end_frame(&mut self) {
        if self.control {
            if !self.in_message {
                self.since = None;
            }
        } else if self.fin {
            self.in_message = false;
            self.since = None;
        } else {
            self.in_message = true;
        }
    }
}

/// TCP, TLS and the upgrade (the caller bounds the whole).
async fn open(link: &Link<Tls>) -> Result<tokio_tungstenite::WebSocketStream<Noted>, String> {
    let t = &link.target;
    let tcp = tokio::net::TcpStream::connect((t.host.as_str(), t.port))
        .await
        .map_err(|e| format!("connect {}:{}: {e}", t.host, t.port))?;
    let _ = tcp.set_nodelay(true);
    let inner: Box<dyn Io> = match &link.tls {
        None => Box::new(tcp),
        Some(config) => {
            let name = rustls::pki_types::ServerName::try_from(t.host.clone())
                .map_err(|e| format!("server name {}: {e}", t.host))?;
            let tls = tokio_rustls::TlsConnector::from(config.clone())
                .connect(name, tcp)
                .await;
            Box::new(tls.map_err(|e| format!("tls: {e}"))?)
        }
    };
    let io = Noted {
        inner,
        limit: link.settings.message_timeout(),
        frames: Frames::default(),
        timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
    };
    let (ws, _) = tokio_tungstenite::client_async(t.url.as_str(), io)
        .await
        .map_err(|e| match e {
            tungstenite::Error::Http(resp) => format!("HTTP {}", resp.status().as_u16()),
            e => format!("handshake: {e}"),
        })?;
    Ok(ws)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `bytes` one at a time, each `step` after the last, from `t0`; `since` after each.
    fn trickle(f: &mut Frames, bytes: &[u8], t0: Instant, step: Duration) -> Vec<Option<Instant>> {
        let mut at = t0;
        bytes
            .iter()
            .map(|b| {
                at += step;
                f.feed(std::slice::from_ref(b), at);
                f.since
            })
            .collect()
    }

    fn after_upgrade() -> Frames {
        let mut f = Frames::default();
        f.feed(
            b"HTTP/1.1 101 Switching\r\nUpgrade: websocket\r\n\r\n",
            Instant::now(),
        );
        assert_eq!(f.since, None);
        f
    }

    #[test]
    fn pings_inside_a_fragmented_message_keep_its_start() {
        let mut f = after_upgrade();
        let t0 = Instant::now();
        let ms = Duration::from_millis(1);
        // A text fragment without FIN ("a"), a ping ("p"), a continuation ("b"), a ping, and
        // the final continuation ("c").
        let bytes = [
            0x01, 0x01, b'a', 0x89, 0x01, b'p', 0x00, 0x01, b'b', 0x89, 0x00, 0x80, 0x01, b'c',
        ];
        let seen = trickle(&mut f, &bytes, t0, ms);
        let first = Some(t0 + ms);
        assert!(
            seen[..bytes.len() - 1].iter().all(|s| *s == first),
            "{seen:?}"
        );
        assert_eq!(seen.last(), Some(&None));
    }

    #[test]
    fn a_ping_between_messages_is_a_unit_of_its_own() {
        let mut f = after_upgrade();
        let t0 = Instant::now();
        let ms = Duration::from_millis(1);
        // A ping with 2 bytes of payload, then a whole text message with a 126-length header
        // (masked, as a peer may send it: the mask key is skipped too).
        let mut bytes = vec![0x89, 0x02, 1, 2, 0x81, 0xfe, 0x00, 0x80, 9, 9, 9, 9];
        bytes.extend([b'x'; 128]);
        let seen = trickle(&mut f, &bytes, t0, ms);
        assert_eq!(seen[0], Some(t0 + ms));
        assert_eq!(seen[3], None, "the ping is over");
        assert_eq!(
            seen[4],
            Some(t0 + 5 * ms),
            "the message begins at its first byte"
        );
        assert!(seen[4..bytes.len() - 1]
            .iter()
            .all(|s| *s == Some(t0 + 5 * ms)));
        assert_eq!(seen.last(), Some(&None));
    }

    #[test]
    fn frames_read_with_the_upgrade_answer_count_from_then() {
        let mut f = Frames::default();
        let now = Instant::now();
        // The answer's blank line, then the start of a frame in the same read.
        f.feed(b"HTTP/1.1 101 OK\r\n\r\n\x01\x05ab", now);
        assert_eq!(f.since, Some(now));
        f.feed(b"cde", now + Duration::from_secs(1));
        assert_eq!(f.since, Some(now), "not final: the message goes on");
        f.feed(&[0x80, 0x7f, 0, 0, 0, 0, 0, 0, 0, 1, b'z'], now);
        assert_eq!(f.since, None, "a 64-bit length, final");
    }

    #[test]
    fn chunks_and_single_bytes_agree() {
        let bytes: Vec<u8> = [
            &b"HTTP/1.1 101 \r\r\n\r\n"[..],
            &[0x01, 0x00, 0x8a, 0x00, 0x00, 0x01, b'q'],
        ]
        .concat();
        let now = Instant::now();
        let mut whole = Frames::default();
        whole.feed(&bytes, now);
        let mut single = Frames::default();
        for b in &bytes {
            single.feed(std::slice::from_ref(b), now);
        }
        assert_eq!(whole.since, Some(now));
        assert_eq!(single.since, whole.since);
        assert!(whole.in_message && single.in_message);
    }

    #[test]
    fn client_frames_are_masked_text() {
        let bytes = masked_text("hello".to_owned()).unwrap();
        assert_eq!(bytes[0], 0x81, "final text frame");
        assert_eq!(bytes[1], 0x80 | 5, "masked, 5 bytes");
        let key = &bytes[2..6];
        let plain: Vec<u8> = bytes[6..]
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ key[i % 4])
            .collect();
        assert_eq!(plain, b"hello");
        let other = masked_text("hello".to_owned()).unwrap();
        assert_ne!(&other[2..6], key, "a fresh mask per frame");
    }
}
