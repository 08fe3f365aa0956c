//! Async websocket streams on [`tokio_tungstenite`].
//!
//! Everything but the sockets lives in the core ([`digifinex_core::ws::Streams`] and
//! [`digifinex_core::ws::StreamBuilder`]): sharding, keepalive, recycling, `server.auth`,
//! books, backoff, the private REST snapshot. Here each socket is a task that opens it
//! (connect, TLS and upgrade within `connect_timeout` in all), reads whole messages (each
//! within `message_timeout` of its first byte) into one bounded queue, and writes what the
//! stream hands it. A full queue stops the socket tasks from reading (backpressure).
//!
//! [`Stream::next_event`] is cancel-safe: dropping its future loses nothing (the queue and
//! the machine keep their state; a private snapshot cut short is read again). A
//! [`StreamHandle`] changes the subscriptions from another task while one awaits events.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use digifinex_hyper::core::ws::Event;
//! use digifinex_hyper::core::Family;
//!
//! let client = digifinex_hyper::Client::new()?;
//! let mut stream = client.stream(Family::Spot)
//!     .subscribe("spot:depth:btc_usdt".parse()?)
//!     .build()?;
//! let handle = stream.handle();
//! tokio::spawn(async move { handle.subscribe("spot:trades:eth_usdt".parse()?).await });
//! while let Some(event) = stream.next_event().await {
//!     if let Event::Book(update) = event {
//!         println!("{:?} / {:?}", update.best_bid, update.best_ask);
//!     }
//! }
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use digifinex_core::ws::{
    check_family, Event, Link, PrivateReads, PrivateSnapshot, SocketReport, StreamAction,
    StreamInput, StreamTransport, Streams, SubscribeError, Subscription,
};
use digifinex_core::{Error, Family};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self, protocol::Message};

/// The async transport of [`digifinex_core::ws::StreamBuilder`].
#[derive(Debug)]
pub struct Async;

/// The TLS configuration of the sockets.
type Tls = Arc<rustls::ClientConfig>;

/// Builds a [`Stream`] (see [`digifinex_core::ws::StreamBuilder`] for its settings).
pub type StreamBuilder = digifinex_core::ws::StreamBuilder<Async>;

impl StreamTransport for Async {
    type Stream = Stream;
    type Tls = Tls;
    type Rest = crate::Client;

    fn build(builder: StreamBuilder) -> Result<Stream, Error> {
        let (settings, tls, rest) = builder.into_parts();
        let streams = settings.streams()?;
        let (tx, inbox) = mpsc::channel(settings.queue());
        let link = Link::new(settings, tls, |roots| {
            Ok(Arc::new(crate::client::tls_config(roots)?))
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

/// A stream of one family over as many sockets as its subscriptions need; reconnects by
/// itself and ends only after [`Stream::close`].
pub struct Stream {
    streams: Streams,
    link: Arc<Link<Tls>>,
    rest: Option<crate::Client>,
    tx: mpsc::Sender<StreamInput>,
    inbox: mpsc::Receiver<StreamInput>,
    /// Socket number -> its command line (`Some(text)` sends, `None` closes).
    sockets: HashMap<u32, mpsc::UnboundedSender<Option<String>>>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = &self.link.target.url;
        f.debug_struct("Stream")
            .field("streams", &self.streams)
            .field("url", url)
            .finish_non_exhaustive()
    }
}

/// Changes a [`Stream`]'s subscriptions from another task (cloneable).
#[derive(Clone, Debug)]
pub struct StreamHandle {
    tx: mpsc::Sender<StreamInput>,
    family: Family,
}

impl StreamHandle {
    /// Adds a subscription; it takes effect when the stream is next awaited. Refused at once:
    /// the other family's; `Closed` when the stream is gone.
    pub async fn subscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        check_family(&sub, self.family)?;
        self.tx
            .send(StreamInput::Subscribe(sub))
            .await
            .map_err(|_| SubscribeError::Closed)
    }

    /// Removes a subscription when the stream is next awaited.
    pub async fn unsubscribe(&self, sub: Subscription) -> Result<(), SubscribeError> {
        self.tx
            .send(StreamInput::Unsubscribe(sub))
            .await
            .map_err(|_| SubscribeError::Closed)
    }
}

impl Stream {
    /// The protocol machine: sockets, subscriptions and their states, the local books.
    pub fn streams(&self) -> &Streams {
        &self.streams
    }

    /// A handle to change the subscriptions from another task.
    pub fn handle(&self) -> StreamHandle {
        StreamHandle {
            tx: self.tx.clone(),
            family: self.streams.family(),
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

    /// Closes every socket; the stream ends after reporting it.
    pub fn close(&mut self) {
        self.streams.close(self.link.settings.clock().now());
    }

    /// The events as a `futures` stream.
    pub fn into_stream(self) -> impl futures_core::Stream<Item = Event> + Send {
        futures_util::stream::unfold(
            self,
            |mut s| async move { s.next_event().await.map(|e| (e, s)) },
        )
    }

    /// The next event; `None` once the stream was closed. Cancel-safe.
    pub async fn next_event(&mut self) -> Option<Event> {
        let clock = self.link.settings.clock().clone();
        loop {
            if let Some(client) = &self.rest {
                self.streams.set_time_offset(client.session().offset_ms());
                if self.streams.reconcile_due() {
                    match read_private(client, self.streams.family()).await {
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
                    if let Ok(Some(input)) = tokio::time::timeout(wait, self.inbox.recv()).await {
                        self.streams.apply(input, clock.now());
                    }
                }
                StreamAction::Stopped => return None,
            }
        }
    }

    /// Starts socket `id`'s task.
    fn open(&mut self, id: u32) {
        let g = self.streams.started(id);
        let (line, commands) = mpsc::unbounded_channel();
        let (link, tx) = (self.link.clone(), self.tx.clone());
        tokio::spawn(async move { run_socket(link, id, g, tx, commands).await });
        self.sockets.insert(id, line);
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        for (_, line) in self.sockets.drain() {
            let _ = line.send(None);
        }
    }
}

/// The private state over REST, through the stream's client.
async fn read_private(client: &crate::Client, family: Family) -> Result<PrivateSnapshot, Error> {
    let mut reads = PrivateReads::new(family);
    while let Some(read) = reads.next_read() {
        let answer = client.drive(read.call(client.session())).await?;
        reads.feed(answer.value);
    }
    reads
        .finish()
        .ok_or_else(|| Error::validation("snapshot", "a private read was not answered"))
}

/// A socket's task: open, then move frames both ways until closed.
async fn run_socket(
    link: Arc<Link<Tls>>,
    id: u32,
    g: u64,
    tx: mpsc::Sender<StreamInput>,
    mut commands: mpsc::UnboundedReceiver<Option<String>>,
) {
    let (started, base) = (Arc::new(AtomicU64::new(0)), Instant::now());
    let opened = tokio::time::timeout(
        link.settings.connect_timeout(),
        open(&link, started.clone(), base),
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
    let limit = link.settings.message_timeout();
    let end = loop {
        // The message in progress must be whole by its first byte + the limit.
        let first = started.load(Ordering::Relaxed);
        let by = (first > 0).then(|| base + Duration::from_millis(first) + limit);
        let cut = async {
            match by {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let frame = tokio::select! {
            command = commands.recv() => match command {
                Some(Some(text)) => match ws.send(Message::text(text)).await {
                    Ok(()) => continue,
                    Err(e) => break e.to_string(),
                },
                Some(None) | None => return drop(ws.close(None).await),
            },
            () = cut => break format!("no whole message within {limit:?}"),
            message = ws.next() => match message {
                Some(Ok(Message::Binary(b))) => StreamInput::Socket(id, g, SocketReport::Frame(b.to_vec(), false)),
                Some(Ok(Message::Text(t))) => StreamInput::Socket(id, g, SocketReport::Frame(t.as_bytes().to_vec(), true)),
                Some(Ok(Message::Close(f))) => break f.map_or_else(
                    || "close frame".to_owned(),
                    |f| format!("close frame {} {}", u16::from(f.code), f.reason),
                ),
                Some(Ok(_)) => {
                    started.store(0, Ordering::Relaxed);
                    continue;
                }
                Some(Err(e)) => break e.to_string(),
                None => break "connection closed".to_owned(),
            },
        };
        started.store(0, Ordering::Relaxed);
        if tx.send(frame).await.is_err() {
            return;
        }
    };
    let _ = tx
        .send(StreamInput::Socket(id, g, SocketReport::Closed(end)))
        .await;
}

/// The socket under the websocket: plain TCP or rustls over TCP.
trait Io: AsyncRead + AsyncWrite + Unpin + Send + Sync {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync> Io for T {}

/// A byte stream that notes when the first byte of a message arrived (ms after `base`, in
/// `started`; 0 when none is in progress), for the message deadline.
struct Noted {
    inner: Box<dyn Io>,
    started: Arc<AtomicU64>,
    base: Instant,
}

impl AsyncRead for Noted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before && self.started.load(Ordering::Relaxed) == 0 {
            let ms = u64::try_from(self.base.elapsed().as_millis())
                .unwrap_or(u64::MAX)
                .max(1);
            self.started.store(ms, Ordering::Relaxed);
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

/// TCP, TLS and the upgrade (the caller bounds the whole).
async fn open(
    link: &Link<Tls>,
    started: Arc<AtomicU64>,
    base: Instant,
) -> Result<tokio_tungstenite::WebSocketStream<Noted>, String> {
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
        started: started.clone(),
        base,
    };
    let (ws, _) = tokio_tungstenite::client_async(t.url.as_str(), io)
        .await
        .map_err(|e| match e {
            tungstenite::Error::Http(resp) => format!("HTTP {}", resp.status().as_u16()),
            e => format!("handshake: {e}"),
        })?;
    started.store(0, Ordering::Relaxed);
    Ok(ws)
}
