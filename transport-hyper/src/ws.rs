//! Async websocket streams on [`tokio_tungstenite`] (issue 19).
//!
//! A [`Stream`] is one socket of one family, driven by the sans-IO
//! [`Connection`]: this module only opens sockets (TCP, rustls,
//! the upgrade), moves frames, and waits until the machine's next deadline. Keepalive pings,
//! the lifetime recycle, `server.auth`, resubscription after every reconnect, reconnect backoff
//! with jitter and the local order books live in the core and behave the same in the blocking
//! `digifinex-ureq` client. [`Stream::next_event`] is the plain async call;
//! [`Stream::into_stream`] gives a `futures` [`Stream`](futures_core::Stream) of events.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use digifinex_hyper::ws::StreamBuilder;
//! use digifinex_hyper::core::ws::Event;
//! use digifinex_hyper::core::Family;
//!
//! let mut stream = StreamBuilder::new(Family::Spot)
//!     .subscribe("spot:depth:btc_usdt".parse()?)
//!     .build()?;
//! while let Some(event) = stream.next_event().await {
//!     if let Event::Book(update) = event {
//!         println!("{:?} / {:?}", update.best_bid, update.best_ask);
//!     }
//! }
//! # Ok(()) }
//! ```

use std::sync::Arc;
use std::time::Duration;

use digifinex_core::ws::{
    Action, Connection, Event, Frame, PrivateSnapshot, SubscribeError, Subscription, WsConfig,
    SPOT_WS_URL, SWAP_WS_URL,
};
use digifinex_core::{Clock, Credentials, Error, Family, SystemClock, TimestampMillis};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::tungstenite::{self, protocol::Message};
use tokio_tungstenite::WebSocketStream;

/// The socket under the websocket: plain TCP or rustls over TCP.
trait Io: AsyncRead + AsyncWrite + Unpin + Send + Sync {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync> Io for T {}

/// Builds a [`Stream`].
pub struct StreamBuilder {
    family: Family,
    url: String,
    subs: Vec<Subscription>,
    credentials: Option<Credentials>,
    config: WsConfig,
    clock: Arc<dyn Clock>,
    connect_timeout: Duration,
    allow_plain: bool,
    roots: Option<Vec<Vec<u8>>>,
    tls: Option<Arc<rustls::ClientConfig>>,
    rest: Option<crate::Client>,
}

impl std::fmt::Debug for StreamBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamBuilder")
            .field("family", &self.family)
            .field("url", &self.url)
            .field("subs", &self.subs)
            .field("credentials", &self.credentials)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl StreamBuilder {
    /// A stream of `family`'s socket at its venue URL.
    pub fn new(family: Family) -> Self {
        StreamBuilder {
            family,
            url: match family {
                Family::Spot => SPOT_WS_URL,
                _ => SWAP_WS_URL,
            }
            .to_owned(),
            subs: Vec::new(),
            credentials: None,
            config: WsConfig {
                seed: random_seed(),
                ..WsConfig::default()
            },
            clock: Arc::new(SystemClock),
            connect_timeout: Duration::from_secs(10),
            allow_plain: false,
            roots: None,
            tls: None,
            rest: None,
        }
    }

    /// The socket's URL (`wss://...`; `ws://` needs [`StreamBuilder::allow_plain`]).
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.url = url.into();
        self
    }

    /// Adds a subscription (checked by [`StreamBuilder::build`]).
    pub fn subscribe(mut self, sub: Subscription) -> Self {
        self.subs.push(sub);
        self
    }

    /// Credentials, for the private channels (`server.auth`).
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Timers and limits (keepalive, lifetime, backoff). The jitter seed is random unless set.
    pub fn config(mut self, config: WsConfig) -> Self {
        self.config = config;
        self
    }

    /// The clock (the `server.auth` timestamp and every deadline).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Limit for TCP connect, TLS and the upgrade together: 10 s by default.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Allows `ws://` URLs (the simulator).
    pub fn allow_plain(mut self) -> Self {
        self.allow_plain = true;
        self
    }

    /// Trusts only these DER root certificates instead of the feature-chosen roots.
    pub fn trust_only_roots(mut self, ders: Vec<Vec<u8>>) -> Self {
        self.roots = Some(ders);
        self
    }

    /// A rustls configuration of your own.
    pub fn tls_config(mut self, config: Arc<rustls::ClientConfig>) -> Self {
        self.tls = Some(config);
        self
    }

    /// Reconciles the private state over REST with `client` (the same account) each time the
    /// private subscriptions are acknowledged on a new socket: open orders, balances and
    /// (swap) positions are read and the differences with what the pushes said are reported
    /// as [`Event::Reconciled`] (or [`Event::ReconcileFailed`]).
    pub fn reconcile_with(mut self, client: crate::Client) -> Self {
        self.rest = Some(client);
        self
    }

    /// Checks the URL and the subscriptions and returns the stream; the first socket is
    /// opened by the first call to [`Stream::next_event`].
    pub fn build(self) -> Result<Stream, Error> {
        let target = Target::parse(&self.url)?;
        if !target.tls && !self.allow_plain {
            return Err(Error::validation(
                "url",
                "a ws:// URL needs allow_plain (the simulator)",
            ));
        }
        let tls = match (target.tls, self.tls) {
            (false, _) => None,
            (true, Some(c)) => Some(c),
            (true, None) => Some(Arc::new(crate::client::tls_config(self.roots.as_deref())?)),
        };
        let mut conn = Connection::new(self.family, self.config, self.credentials);
        for sub in self.subs {
            conn.subscribe(sub)
                .map_err(|e| Error::validation("subscription", e.to_string()))?;
        }
        Ok(Stream {
            conn,
            socket: None,
            target,
            tls,
            clock: self.clock,
            connect_timeout: self.connect_timeout,
            rest: self.rest,
        })
    }
}

/// One websocket of one family: reconnects by itself and ends only after [`Stream::close`].
pub struct Stream {
    conn: Connection,
    socket: Option<WebSocketStream<Box<dyn Io>>>,
    target: Target,
    tls: Option<Arc<rustls::ClientConfig>>,
    clock: Arc<dyn Clock>,
    connect_timeout: Duration,
    rest: Option<crate::Client>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("conn", &self.conn)
            .field("url", &self.target.url)
            .field("open", &self.socket.is_some())
            .finish_non_exhaustive()
    }
}

impl Stream {
    /// The protocol machine: subscriptions, their states, and the local books.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Adds a subscription now (sent at once when a socket is open).
    pub fn subscribe(&mut self, sub: Subscription) -> Result<(), SubscribeError> {
        self.conn.subscribe(sub)
    }

    /// Removes a subscription.
    pub fn unsubscribe(&mut self, sub: &Subscription) -> bool {
        self.conn.unsubscribe(sub)
    }

    /// Asks the server for its time: [`Event::ServerTime`] follows every frame the server
    /// sent before answering (a marker in tests).
    pub fn request_time(&mut self) {
        self.conn.request_time();
    }

    /// Closes the socket; the stream ends after reporting it.
    pub fn close(&mut self) {
        let now = self.clock.now();
        self.conn.close(now);
    }

    /// The events as a `futures` stream.
    pub fn into_stream(self) -> impl futures_core::Stream<Item = Event> + Send {
        futures_util::stream::unfold(
            self,
            |mut s| async move { s.next_event().await.map(|e| (e, s)) },
        )
    }

    /// The next event; `None` once the stream was closed. Cancel-safe except while a frame is
    /// being written (a dropped call may lose that frame; the keepalive recovers).
    pub async fn next_event(&mut self) -> Option<Event> {
        loop {
            if self.conn.reconcile_due() {
                if let Some(client) = &self.rest {
                    match read_private(client, self.conn.family()).await {
                        Ok(snapshot) => self.conn.on_private_snapshot(snapshot),
                        Err(e) => self.conn.on_reconcile_failed(e.to_string()),
                    }
                }
            }
            let now = self.clock.now();
            match self.conn.poll(now) {
                Action::Event(e) => return Some(e),
                Action::Connect => match self.connect().await {
                    Ok(()) => self.conn.on_connected(self.clock.now()),
                    Err(detail) => self.conn.on_connect_failed(self.clock.now(), detail),
                },
                Action::Send(text) => {
                    if let Some(ws) = &mut self.socket {
                        if let Err(e) = ws.send(Message::text(text)).await {
                            self.socket = None;
                            self.conn.on_closed(self.clock.now(), e.to_string());
                        }
                    }
                }
                Action::Close(_) => {
                    if let Some(mut ws) = self.socket.take() {
                        let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
                    }
                }
                Action::Wait(deadline) => self.read_until(now, deadline).await,
                Action::Stopped => return None,
            }
        }
    }

    async fn read_until(&mut self, now: TimestampMillis, deadline: Option<TimestampMillis>) {
        let wait_ms = deadline.map_or(60_000, |d| d.0.saturating_sub(now.0).clamp(1, 60_000));
        let wait = Duration::from_millis(u64::try_from(wait_ms).unwrap_or(1));
        let Some(ws) = &mut self.socket else {
            tokio::time::sleep(wait).await;
            return;
        };
        let msg = match tokio::time::timeout(wait, ws.next()).await {
            Err(_elapsed) => return,
            Ok(msg) => msg,
        };
        match msg {
            Some(Ok(Message::Binary(b))) => self.conn.on_frame(self.clock.now(), Frame::Binary(&b)),
            Some(Ok(Message::Text(t))) => self.conn.on_frame(self.clock.now(), Frame::Text(&t)),
            // tokio-tungstenite answers pings itself on the next write or flush.
            Some(Ok(Message::Ping(_))) => {
                let _ = ws.flush().await;
            }
            Some(Ok(Message::Pong(_) | Message::Frame(_))) => {}
            Some(Ok(Message::Close(frame))) => {
                let detail = frame.map_or_else(
                    || "close frame".to_owned(),
                    |f| format!("close frame {} {}", u16::from(f.code), f.reason),
                );
                self.socket = None;
                self.conn.on_closed(self.clock.now(), detail);
            }
            Some(Err(e)) => {
                self.socket = None;
                self.conn.on_closed(self.clock.now(), e.to_string());
            }
            None => {
                self.socket = None;
                self.conn.on_closed(self.clock.now(), "connection closed");
            }
        }
    }

    async fn connect(&mut self) -> Result<(), String> {
        self.socket = None;
        match tokio::time::timeout(self.connect_timeout, self.open()).await {
            Ok(Ok(ws)) => {
                self.socket = Some(ws);
                Ok(())
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err("connect timed out".to_owned()),
        }
    }

    async fn open(&self) -> Result<WebSocketStream<Box<dyn Io>>, String> {
        let t = &self.target;
        let tcp = tokio::net::TcpStream::connect((t.host.as_str(), t.port))
            .await
            .map_err(|e| format!("connect {}:{}: {e}", t.host, t.port))?;
        let _ = tcp.set_nodelay(true);
        let io: Box<dyn Io> = match &self.tls {
            None => Box::new(tcp),
            Some(config) => {
                let name = rustls::pki_types::ServerName::try_from(t.host.clone())
                    .map_err(|e| format!("server name {}: {e}", t.host))?;
                let tls = tokio_rustls::TlsConnector::from(config.clone())
                    .connect(name, tcp)
                    .await
                    .map_err(|e| format!("tls: {e}"))?;
                Box::new(tls)
            }
        };
        let (ws, _response) = tokio_tungstenite::client_async(t.url.as_str(), io)
            .await
            .map_err(|e| match e {
                tungstenite::Error::Http(resp) => format!("HTTP {}", resp.status().as_u16()),
                e => e.to_string(),
            })?;
        Ok(ws)
    }
}

/// The private state over REST: open orders, balances and (swap) positions.
async fn read_private(client: &crate::Client, family: Family) -> Result<PrivateSnapshot, Error> {
    use digifinex_core::{spot, swap};
    match family {
        Family::Spot => {
            let open = client
                .send(&spot::CurrentOrdersRequest::new(spot::Market::Spot))
                .await?;
            let assets = client.send(&spot::SpotAssetsRequest::new()).await?;
            Ok(PrivateSnapshot::spot(&open.data, &assets.list))
        }
        _ => {
            let open = client
                .send(&swap::OpenOrdersRequest::new().limit(100))
                .await?;
            let balances = client.send(&swap::BalanceRequest::new()).await?;
            let positions = client.send(&swap::PositionsRequest::new()).await?;
            Ok(PrivateSnapshot::swap(&open, &balances, &positions))
        }
    }
}

/// Where a socket goes.
#[derive(Debug, Clone)]
struct Target {
    url: String,
    host: String,
    port: u16,
    tls: bool,
}

impl Target {
    fn parse(url: &str) -> Result<Self, Error> {
        let uri: http::Uri = url
            .parse()
            .map_err(|e| Error::validation("url", format!("not a URL: {e}")))?;
        let tls = match uri.scheme_str() {
            Some("wss") => true,
            Some("ws") => false,
            _ => return Err(Error::validation("url", "the scheme is ws or wss")),
        };
        let host = uri
            .host()
            .ok_or_else(|| Error::validation("url", "no host"))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
        Ok(Target {
            url: url.to_owned(),
            host,
            port,
            tls,
        })
    }
}

/// A seed for the reconnect and lifetime jitter.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(u64::from(std::process::id()));
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_checks() {
        let e = StreamBuilder::new(Family::Spot)
            .url("ws://127.0.0.1:1/ws/v1/")
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("allow_plain"), "{e}");
        let e = StreamBuilder::new(Family::Swap)
            .subscribe("spot:ticker:btc_usdt".parse().unwrap())
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("not for the swap socket"), "{e}");
        assert!(StreamBuilder::new(Family::Swap).build().is_ok());
    }
}
