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
    url_beside, Event, Frame, PrivateReads, StreamAction, StreamSettings, StreamTransport, Streams,
    SubscribeError, Subscription, Target,
};
use digifinex_core::{Clock, Error, Family};
use tungstenite::protocol::Message;

/// The blocking transport of [`digifinex_core::ws::StreamBuilder`].
#[derive(Debug)]
pub struct Blocking;

/// Builds a [`Stream`] (see [`digifinex_core::ws::StreamBuilder`] for its settings).
pub type StreamBuilder = digifinex_core::ws::StreamBuilder<Blocking>;

impl StreamTransport for Blocking {
    type Stream = Stream;
    type Tls = Arc<rustls::ClientConfig>;
    type Rest = crate::Client;

    fn build(builder: StreamBuilder) -> Result<Stream, Error> {
        let (settings, tls, rest) = builder.into_parts();
        let target = settings.target()?;
        let tls = match (target.tls, tls) {
            (false, _) => None,
            (true, Some(c)) => Some(c),
            (true, None) => Some(Arc::new(crate::client::ws_tls_config(settings.roots())?)),
        };
        let streams = settings.streams()?;
        let (tx, inbox) = mpsc::sync_channel(settings.queue());
        Ok(Stream {
            streams,
            link: Arc::new(Link {
                target,
                tls,
                settings,
            }),
            rest,
            tx,
            inbox,
            sockets: HashMap::new(),
            generation: 0,
        })
    }
}

impl crate::Client {
    /// A stream of `family` sharing this client's credentials, clock and measured offset, base
    /// URL (the socket beside it), TLS settings, and REST reads for the private snapshots.
    pub fn stream(&self, family: Family) -> StreamBuilder {
        let session = self.session();
        let config = session.config();
        let base = match family {
            Family::Spot => &config.spot_base_url,
            _ => &config.swap_base_url,
        };
        let mut b = StreamBuilder::new(family)
            .clock(session.clock().clone())
            .time_offset_ms(session.offset_ms())
            .allow_http(self.allows_http())
            .resync_private_with(self.clone());
        if let Some(url) = url_beside(family, base) {
            b = b.url(url);
        }
        if let Some(c) = session.credentials() {
            b = b.credentials(c.clone());
        }
        if let Some(roots) = self.trusted_roots() {
            b = b.trust_only_roots(roots);
        }
        b
    }
}

/// What the socket threads and handles tell the stream.
enum Input {
    Opened(u32, u64),
    Failed(u32, u64, String),
    Frame(u32, u64, Vec<u8>, bool),
    Closed(u32, u64, String),
    Subscribe(Subscription),
    Unsubscribe(Subscription),
}

/// Where the sockets go and how they are opened (shared with the socket threads).
struct Link {
    target: Target,
    tls: Option<Arc<rustls::ClientConfig>>,
    settings: StreamSettings,
}

/// A stream of one family over as many sockets as its subscriptions need; an [`Iterator`] of
/// [`Event`]s that reconnects by itself and ends only after [`Stream::close`].
pub struct Stream {
    streams: Streams,
    link: Arc<Link>,
    rest: Option<crate::Client>,
    tx: SyncSender<Input>,
    inbox: Receiver<Input>,
    /// Socket number -> (thread generation, its command line: `Some(text)` sends, `None` closes).
    sockets: HashMap<u32, (u64, Sender<Option<String>>)>,
    generation: u64,
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
    tx: SyncSender<Input>,
    family: Family,
}

impl StreamHandle {
    /// Adds a subscription; it takes effect when the stream is next read. Refused at once: the
    /// other family's; `Closed` when the stream is gone.
    pub fn subscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        if sub.family != self.family {
            return Err(SubscribeError::WrongFamily {
                connection: self.family,
            });
        }
        self.tx
            .send(Input::Subscribe(sub))
            .map_err(|_| SubscribeError::Closed)
    }

    /// Removes a subscription when the stream is next read.
    pub fn unsubscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        self.tx
            .send(Input::Unsubscribe(sub))
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
                    if let Some((_, line)) = self.sockets.get(&id) {
                        let _ = line.send(Some(text));
                    }
                }
                StreamAction::Close(id, _) => {
                    if let Some((_, line)) = self.sockets.remove(&id) {
                        let _ = line.send(None);
                    }
                }
                StreamAction::Wait(deadline) => {
                    let ms =
                        deadline.map_or(60_000, |d| d.0.saturating_sub(now.0).clamp(0, 60_000));
                    let wait = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
                    match self.inbox.recv_timeout(wait) {
                        Ok(input) => self.apply(input, clock.as_ref()),
                        Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {}
                    }
                }
                StreamAction::Stopped => return None,
            }
        }
    }

    /// Starts socket `id`'s thread.
    fn open(&mut self, id: u32) {
        self.generation = self.generation.wrapping_add(1);
        let (line, commands) = mpsc::channel();
        let (link, tx, generation) = (self.link.clone(), self.tx.clone(), self.generation);
        let spawned = std::thread::Builder::new()
            .name(format!("digifinex-ws-{id}"))
            .spawn(move || run_socket(&link, id, generation, &tx, &commands));
        match spawned {
            Ok(_) => {
                self.sockets.insert(id, (generation, line));
            }
            Err(e) => {
                let now = self.link.settings.clock().now();
                self.streams
                    .on_connect_failed(id, now, format!("thread: {e}"));
            }
        }
    }

    fn apply(&mut self, input: Input, clock: &dyn Clock) {
        let current =
            |s: &HashMap<u32, (u64, _)>, id: u32, g: u64| s.get(&id).is_some_and(|x| x.0 == g);
        let now = clock.now();
        match input {
            Input::Opened(id, g) if current(&self.sockets, id, g) => {
                self.streams.on_connected(id, now)
            }
            Input::Failed(id, g, detail) if current(&self.sockets, id, g) => {
                self.sockets.remove(&id);
                self.streams.on_connect_failed(id, now, detail);
            }
            Input::Frame(id, g, bytes, text) if current(&self.sockets, id, g) => {
                let frame = match (text, std::str::from_utf8(&bytes)) {
                    (true, Ok(t)) => Frame::Text(t),
                    _ => Frame::Binary(&bytes),
                };
                self.streams.on_frame(id, now, frame);
            }
            Input::Closed(id, g, detail) if current(&self.sockets, id, g) => {
                self.sockets.remove(&id);
                self.streams.on_closed(id, now, detail);
            }
            Input::Subscribe(sub) => {
                let _ = self.streams.subscribe(sub);
            }
            Input::Unsubscribe(sub) => {
                self.streams.unsubscribe(&sub);
            }
            // A thread the stream has already let go of.
            _ => {}
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        for (_, (_, line)) in self.sockets.drain() {
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
    link: &Link,
    id: u32,
    g: u64,
    tx: &SyncSender<Input>,
    commands: &Receiver<Option<String>>,
) {
    let mut ws = match open(link) {
        Ok(ws) => ws,
        Err(detail) => {
            let _ = tx.send(Input::Failed(id, g, detail));
            return;
        }
    };
    if tx.send(Input::Opened(id, g)).is_err() {
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
            Ok(Message::Binary(b)) => Input::Frame(id, g, b.to_vec(), false),
            Ok(Message::Text(t)) => Input::Frame(id, g, t.as_bytes().to_vec(), true),
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
    let _ = tx.send(Input::Closed(id, g, end));
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
fn open(link: &Link) -> Result<tungstenite::WebSocket<Timed>, String> {
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
