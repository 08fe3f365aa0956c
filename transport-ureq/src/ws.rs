//! Blocking websocket streams on [`tungstenite`].
//!
//! Everything but the sockets lives in the core ([`digifinex_core::ws::Streams`] and
//! [`digifinex_core::ws::StreamBuilder`]): sharding, keepalive, recycling, `server.auth`,
//! books, backoff, the private REST snapshot. Here each socket is a thread that opens it
//! (connect, TLS and upgrade within `connect_timeout` in all), reads whole messages (each within
//! `message_timeout` of its first byte) into one bounded queue, and writes what the stream
//! hands it. A full queue stops the socket threads from reading (backpressure, no memory
//! growth).
//!
//! ```no_run
//! use digifinex_ureq::core::ws::Event;
//! use digifinex_ureq::core::Family;
//!
//! let client = digifinex_ureq::Client::new()?;
//! let mut stream = client.stream(Family::Swap)
//!     .subscribe("swap:depth:BTCUSDTPERP".parse()?)
//!     .build()?;
//! for event in stream.by_ref().take(100) {
//!     if let Event::Book(update) = event {
//!         println!("{:?} / {:?}", update.best_bid, update.best_ask);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use digifinex_core::ws::{
    check_family, Event, Link, PrivateReads, SocketReport, StreamAction, StreamInput,
    StreamTransport, Streams, SubscribeError, Subscription,
};
use digifinex_core::{Error, Family};
use tungstenite::protocol::Message;

/// The blocking transport of [`digifinex_core::ws::StreamBuilder`].
#[derive(Debug)]
pub struct Blocking;

/// The TLS configuration of the sockets.
type Tls = Arc<rustls::ClientConfig>;

/// Builds a [`Stream`] (see [`digifinex_core::ws::StreamBuilder`] for its settings).
pub type StreamBuilder = digifinex_core::ws::StreamBuilder<Blocking>;

impl StreamTransport for Blocking {
    type Stream = Stream;
    type Tls = Tls;
    type Rest = crate::Client;

    fn build(builder: StreamBuilder) -> Result<Stream, Error> {
        let (settings, tls, rest) = builder.into_parts();
        let streams = settings.streams()?;
        let (tx, inbox) = mpsc::sync_channel(settings.queue());
        let link = Link::new(settings, tls, |roots| {
            Ok(Arc::new(crate::client::ws_tls_config(roots)?))
        })?;
        let (link, sockets) = (Arc::new(link), HashMap::new());
        Ok(Stream {
            streams,
            link,
            rest,
            tx,
            inbox,
            sockets,
        })
    }
}

impl crate::Client {
    /// A stream of `family` sharing this client's credentials, clock and measured offset, base
    /// URL (the socket beside it), TLS settings, and REST reads for the private snapshots.
    pub fn stream(&self, family: Family) -> StreamBuilder {
        let (http, roots) = self.stream_settings();
        StreamBuilder::beside(family, self.session(), http, roots, self.clone())
    }
}

/// A stream of one family over as many sockets as its subscriptions need; an [`Iterator`] of
/// [`Event`]s that reconnects by itself and ends only after [`Stream::close`].
pub struct Stream {
    streams: Streams,
    link: Arc<Link<Tls>>,
    rest: Option<crate::Client>,
    tx: SyncSender<StreamInput>,
    inbox: Receiver<StreamInput>,
    /// Socket number -> its command line (`Some(text)` sends, `None` closes).
    sockets: HashMap<u32, Sender<Option<String>>>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("streams", &self.streams)
            .field("url", &self.link.target.url)
            .finish_non_exhaustive()
    }
}

/// Changes a [`Stream`]'s subscriptions from another thread (cloneable).
#[derive(Clone)]
pub struct StreamHandle {
    tx: SyncSender<StreamInput>,
    family: Family,
}

impl StreamHandle {
    /// Adds a subscription; it takes effect when the stream is next read. Refused at once: the
    /// other family's; `Closed` when the stream is gone.
    pub fn subscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        check_family(&sub, self.family)?;
        self.tx
            .send(StreamInput::Subscribe(sub))
            .map_err(|_| SubscribeError::Closed)
    }

    /// Removes a subscription when the stream is next read.
    pub fn unsubscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        self.tx
            .send(StreamInput::Unsubscribe(sub))
            .map_err(|_| SubscribeError::Closed)
    }
}

impl Stream {
    /// The protocol machine: sockets, subscriptions and their states, the local books.
    pub fn streams(&self) -> &Streams {
        &self.streams
    }

    /// A handle to change the subscriptions from another thread.
    pub fn handle(&self) -> StreamHandle {
        let family = self.streams.family();
        StreamHandle {
            tx: self.tx.clone(),
            family,
        }
    }

    /// Adds a subscription now (sent at once when its socket is open).
    pub fn subscribe(&mut self, sub: Subscription) -> Result<(), SubscribeError> {
        self.streams.subscribe(sub)
    }

    /// Removes a subscription.
    pub fn unsubscribe(&mut self, sub: &Subscription) -> bool {
        self.streams.unsubscribe(sub)
    }

    /// Asks every socket for the server time ([`Event::ServerTime`]: a marker in tests).
    pub fn request_time(&mut self) {
        self.streams.request_time();
    }

    /// Closes every socket; the iterator ends after reporting it.
    pub fn close(&mut self) {
        let now = self.link.settings.clock().now();
        self.streams.close(now);
    }

    /// The next event, blocking; `None` once the stream was closed.
    pub fn next_event(&mut self) -> Option<Event> {
        let clock = self.link.settings.clock().clone();
        loop {
            if let Some(client) = &self.rest {
                self.streams.set_time_offset(client.session().offset_ms());
                if self.streams.reconcile_due() {
                    match read_private(client, self.streams.family()) {
                        Ok(snapshot) => self.streams.on_private_snapshot(snapshot),
                        Err(e) => self.streams.on_reconcile_failed(e.to_string()),
                    }
                }
            }
            let now = clock.now();
            match self.streams.poll(now) {
                StreamAction::Event(e) => return Some(e),
                StreamAction::Connect(id) => self.open(id),
                StreamAction::Send(id, text) => {
                    if let Some(line) = self.sockets.get(&id) {
                        let _ = line.send(Some(text));
                    }
                }
                StreamAction::Close(id, _) => {
                    if let Some(line) = self.sockets.remove(&id) {
                        let _ = line.send(None);
                    }
                    self.streams.released(id);
                }
                StreamAction::Wait(deadline) => {
                    let ms =
                        deadline.map_or(60_000, |d| d.0.saturating_sub(now.0).clamp(0, 60_000));
                    let wait = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
                    match self.inbox.recv_timeout(wait) {
                        Ok(input) => self.streams.apply(input, clock.now()),
                        Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {}
                    }
                }
                StreamAction::Stopped => return None,
            }
        }
    }

    /// Starts socket `id`'s thread.
    fn open(&mut self, id: u32) {
        let g = self.streams.started(id);
        let (line, commands) = mpsc::channel();
        let (link, tx) = (self.link.clone(), self.tx.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("digifinex-ws-{id}"))
            .spawn(move || run_socket(&link, id, g, &tx, &commands));
        let report = match spawned {
            Ok(_) => {
                self.sockets.insert(id, line);
                return;
            }
            Err(e) => SocketReport::Failed(format!("thread: {e}")),
        };
        let now = self.link.settings.clock().now();
        self.streams.report(id, g, report, now);
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        for (_, line) in self.sockets.drain() {
            let _ = line.send(None);
        }
    }
}

impl Iterator for Stream {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.next_event()
    }
}

/// The private state over REST, through the stream's client.
fn read_private(
    client: &crate::Client,
    family: Family,
) -> Result<digifinex_core::ws::PrivateSnapshot, Error> {
    let mut reads = PrivateReads::new(family);
    while let Some(read) = reads.next_read() {
        let answer = client.drive(read.call(client.session()))?;
        reads.feed(answer.value);
    }
    reads
        .finish()
        .ok_or_else(|| Error::validation("snapshot", "a private read was not answered"))
}

/// How often a socket thread looks at its commands while no frame comes.
const TICK: Duration = Duration::from_millis(20);

/// A socket's thread: open, then move frames both ways until closed.
fn run_socket(
    link: &Link<Tls>,
    id: u32,
    g: u64,
    tx: &SyncSender<StreamInput>,
    commands: &Receiver<Option<String>>,
) {
    let mut ws = match open(link) {
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
            Ok(Some(text)) => match ws.send(Message::text(text)) {
                Ok(()) => continue,
                Err(e) => break e.to_string(),
            },
            Ok(None) | Err(mpsc::TryRecvError::Disconnected) => {
                let _ = ws.close(None);
                let _ = ws.flush();
                return;
            }
            Err(mpsc::TryRecvError::Empty) => {}
        }
        let frame = match ws.read() {
            Ok(Message::Binary(b)) => {
                StreamInput::Socket(id, g, SocketReport::Frame(b.to_vec(), false))
            }
            Ok(Message::Text(t)) => {
                StreamInput::Socket(id, g, SocketReport::Frame(t.as_bytes().to_vec(), true))
            }
            Ok(Message::Close(f)) => {
                break f.map_or_else(
                    || "close frame".to_owned(),
                    |f| format!("close frame {} {}", u16::from(f.code), f.reason),
                )
            }
            // tungstenite queues the pong; it goes out with the next write or flush.
            Ok(_) => {
                ws.get_mut().since = None;
                let _ = ws.flush();
                continue;
            }
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(e) => break e.to_string(),
        };
        ws.get_mut().since = None;
        if tx.send(frame).is_err() {
            return;
        }
    };
    let _ = tx.send(StreamInput::Socket(id, g, SocketReport::Closed(end)));
}

/// The socket under the websocket: plain TCP or rustls over TCP, read under a deadline.
trait Io: Read + Write + Send {}
impl<T: Read + Write + Send> Io for T {}

/// A byte stream whose reads fail once a message (or the handshake) took longer than its
/// limit since its first byte (or since the handshake began).
struct Timed {
    inner: Box<dyn Io>,
    limit: Duration,
    since: Option<Instant>,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.since.is_some_and(|t| t.elapsed() > self.limit) {
            return Err(io::Error::other(format!(
                "no whole message within {:?}",
                self.limit
            )));
        }
        let n = self.inner.read(buf)?;
        if n > 0 && self.since.is_none() {
            self.since = Some(Instant::now());
        }
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
        limit,
        since: Some(start),
    };
    let mut attempt = tungstenite::client(t.url.as_str(), io);
    loop {
        match attempt {
            Ok((mut ws, _)) => {
                ws.get_mut().since = None;
                ws.get_mut().limit = link.settings.message_timeout();
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
