//! A socket's thread: it opens the socket through the stream's [`Connector`] (by default
//! [`Network`]: connect, TLS and upgrade within `connect_timeout` in all, each message within
//! `message_timeout` of its first byte), reads whole messages into the stream's bounded queue,
//! and writes what the stream hands it.
//!
//! The seam ([`Connector`], [`Socket`]) moves whole messages and nothing else: the payloads
//! of binary frames reach the core as they came (zlib streams, inflated by the core as from
//! the network), text frames as text; keepalive, `server.auth`, subscriptions and books are
//! the core's whatever opened the socket.
//!
//! DESIGN: the message deadline is kept in the byte stream under tungstenite ([`Timed`]), which
//! follows the frame headers itself ([`Frames`]): a data message's deadline runs from the first
//! byte of its first fragment to the end of its final one, and control frames (pings) that
//! come between its fragments do not restart it; a control frame outside a message has the
//! same deadline of its own. tungstenite does not say whether a fragmented message is in
//! progress, so a deadline restarted on each message it hands over let a server keep one
//! message open forever by pinging in between.
//!
//! DESIGN: text frames are masked and written by this module, not by tungstenite, whose TRACE
//! log prints every frame it writes (the `server.auth` frame carries the key and a signature):
//! tungstenite's own queue (pongs, close) is flushed first, so the frames never interleave.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::time::{Duration, Instant};

use digifinex_core::ws::{Link, SocketReport, StreamInput};
use tungstenite::protocol::Message;

use super::Tls;

/// How often a socket thread looks at its commands while no frame comes.
const TICK: Duration = Duration::from_millis(20);

/// Opens the sockets of a stream: [`Network`] by default; another one (an exchange in the same
/// process, a test double) through `ClientBuilder::ws_connector` or
/// [`StreamBuilder::connector`](digifinex_core::ws::StreamBuilder::connector).
///
/// Called on the socket's own thread, once per socket (every reconnect opens a new one).
pub trait Connector: Send + Sync + std::fmt::Debug {
    /// Opens one socket of `link.settings.family()` to `link.target` within
    /// `link.settings.connect_timeout()`. An error is the reason the stream reports
    /// (`CloseReason::ConnectFailed`), e.g. `HTTP 502` for a refused upgrade.
    fn connect(&self, link: &Link<Tls>) -> Result<Box<dyn Socket>, String>;
}

/// One open websocket, message by message (see [`Connector`]).
pub trait Socket: Send {
    /// Sends `text` as one text frame (a client sends nothing else); an error ends the socket
    /// with that reason.
    fn send(&mut self, text: String) -> Result<(), String>;
    /// The next message, waiting at most about `wait` for one; `None` when none came (the
    /// thread then looks at its commands and asks again).
    fn recv(&mut self, wait: Duration) -> Option<Incoming>;
    /// Closes the socket on the stream's request (with a close frame where it has them);
    /// nothing is read after. A socket dropped without it (the stream is gone) ends too.
    fn close(&mut self);
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
/// message deadline of the module docs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Network;

impl Connector for Network {
    fn connect(&self, link: &Link<Tls>) -> Result<Box<dyn Socket>, String> {
        Ok(Box::new(NetSocket(open(link)?)))
    }
}

/// A websocket over the network.
struct NetSocket(tungstenite::WebSocket<Timed>);

impl Socket for NetSocket {
    fn send(&mut self, text: String) -> Result<(), String> {
        send_text(&mut self.0, text)
    }

    /// One read (the TCP read timeout is [`TICK`], whatever `wait` says).
    fn recv(&mut self, _wait: Duration) -> Option<Incoming> {
        let ws = &mut self.0;
        match ws.read() {
            Ok(Message::Binary(b)) => Some(Incoming::Binary(b.to_vec())),
            Ok(Message::Text(t)) => Some(Incoming::Text(t.as_str().to_owned())),
            Ok(Message::Close(f)) => Some(Incoming::Closed(f.map_or_else(
                || "close frame".to_owned(),
                |f| format!("close frame {} {}", u16::from(f.code), f.reason),
            ))),
            // tungstenite queues the pong; it goes out with the next write or flush. The
            // deadline of a message in progress goes on (see the module's docs).
            Ok(_) => {
                let _ = ws.flush();
                None
            }
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                None
            }
            Err(e) => Some(Incoming::Closed(e.to_string())),
        }
    }

    fn close(&mut self) {
        let _ = self.0.close(None);
        let _ = self.0.flush();
    }
}

/// A socket's thread: open through `connector`, then move frames both ways until closed.
pub(super) fn run_socket(
    link: &Link<Tls>,
    connector: &dyn Connector,
    id: u32,
    g: u64,
    tx: &SyncSender<StreamInput>,
    commands: &Receiver<Option<String>>,
) {
    let mut ws = match connector.connect(link) {
        Ok(ws) => ws,
        Err(detail) => {
            let _ = tx.send(StreamInput::Socket(id, g, SocketReport::Failed(detail)));
            return;
        }
    };
    if tx
        .send(StreamInput::Socket(id, g, SocketReport::Opened))
        .is_err()
    {
        return;
    }
    let end = loop {
        match commands.try_recv() {
            Ok(Some(text)) => match ws.send(text) {
                Ok(()) => continue,
                Err(e) => break e,
            },
            Ok(None) | Err(mpsc::TryRecvError::Disconnected) => {
                ws.close();
                return;
            }
            Err(mpsc::TryRecvError::Empty) => {}
        }
        let frame = match ws.recv(TICK) {
            Some(Incoming::Binary(b)) => StreamInput::Socket(id, g, SocketReport::Frame(b, false)),
            Some(Incoming::Text(t)) => {
                StreamInput::Socket(id, g, SocketReport::Frame(t.into_bytes(), true))
            }
            Some(Incoming::Closed(reason)) => break reason,
            None => continue,
        };
        if tx.send(frame).is_err() {
            return;
        }
    };
    let _ = tx.send(StreamInput::Socket(id, g, SocketReport::Closed(end)));
}

/// Writes `text` as one masked text frame, after what tungstenite has queued (see the
/// module's docs); an error is the reason given to the machine.
fn send_text(ws: &mut tungstenite::WebSocket<Timed>, text: String) -> Result<(), String> {
    if !ws.can_write() {
        return Err("the socket is closing".to_owned());
    }
    ws.flush().map_err(|e| e.to_string())?;
    let bytes = masked_text(text).map_err(|e| e.to_string())?;
    let io = ws.get_mut();
    io.write_all(&bytes)
        .and_then(|()| io.flush())
        .map_err(|e| e.to_string())
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

/// The socket under the websocket: plain TCP or rustls over TCP, read under a deadline.
trait Io: Read + Write + Send {}
impl<T: Read + Write + Send> Io for T {}

/// A byte stream whose reads fail once the handshake took longer than its limit, or a
/// message (or a control frame outside one) took longer than its limit since its first byte.
struct Timed {
    inner: Box<dyn Io>,
    /// The handshake's start and limit (`connect_timeout`), until it is done.
    handshake: Option<(Instant, Duration)>,
    /// The message deadline (`message_timeout`).
    limit: Duration,
    /// Where the bytes read are in the frame stream, and since when a unit is open.
    frames: Frames,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some((start, limit)) = self.handshake {
            if start.elapsed() > limit {
                return Err(io::Error::other(format!("no upgrade within {limit:?}")));
            }
        }
        if self.frames.since.is_some_and(|t| t.elapsed() > self.limit) {
            return Err(io::Error::other(format!(
                "no whole message within {:?}",
                self.limit
            )));
        }
        let n = self.inner.read(buf)?;
        self.frames
            .feed(buf.get(..n).unwrap_or_default(), Instant::now());
        Ok(n)
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Follows the bytes a websocket client reads: the HTTP answer to the upgrade (up to its
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

/// TCP, TLS and the upgrade, all within `connect_timeout`; an error is the reason given to
/// the machine.
fn open(link: &Link<Tls>) -> Result<tungstenite::WebSocket<Timed>, String> {
    let (t, limit) = (&link.target, link.settings.connect_timeout());
    let start = Instant::now();
    let addrs = (t.host.as_str(), t.port)
        .to_socket_addrs()
        .map_err(|e| format!("resolve {}: {e}", t.host))?;
    let mut last = format!("no address for {}", t.host);
    let mut tcp = None;
    for addr in addrs {
        let left = limit
            .saturating_sub(start.elapsed())
            .max(Duration::from_millis(1));
        match TcpStream::connect_timeout(&addr, left) {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = format!("connect {addr}: {e}"),
        }
    }
    let tcp = tcp.ok_or(last)?;
    let _ = tcp.set_nodelay(true);
    tcp.set_read_timeout(Some(TICK))
        .and_then(|()| tcp.set_write_timeout(Some(limit)))
        .map_err(|e| e.to_string())?;
    let inner: Box<dyn Io> = match &link.tls {
        None => Box::new(tcp),
        Some(config) => {
            let name = rustls::pki_types::ServerName::try_from(t.host.clone())
                .map_err(|e| format!("server name {}: {e}", t.host))?;
            let session = rustls::ClientConnection::new(config.clone(), name)
                .map_err(|e| format!("tls: {e}"))?;
            Box::new(rustls::StreamOwned::new(session, tcp))
        }
    };
    // The handshake's deadline runs from the start of the connect.
    let io = Timed {
        inner,
        handshake: Some((start, limit)),
        limit: link.settings.message_timeout(),
        frames: Frames::default(),
    };
    let mut attempt = tungstenite::client(t.url.as_str(), io);
    loop {
        match attempt {
            Ok((mut ws, _)) => {
                ws.get_mut().handshake = None;
                return Ok(ws);
            }
            Err(tungstenite::HandshakeError::Interrupted(mid)) => attempt = mid.handshake(),
            Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp))) => {
                return Err(format!("HTTP {}", resp.status().as_u16()))
            }
            Err(tungstenite::HandshakeError::Failure(e)) => return Err(format!("handshake: {e}")),
        }
    }
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
