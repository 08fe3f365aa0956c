//! Blocking websocket streams on [`tungstenite`] (issue 19).
//!
//! A [`Stream`] is one socket of one family, driven by the sans-IO
//! [`Connection`]: this module only opens sockets (TCP, rustls,
//! the upgrade), moves frames, and reads until the machine's next deadline. Keepalive pings,
//! the lifetime recycle, `server.auth`, resubscription after every reconnect, reconnect backoff
//! with jitter and the local order books all live in the core and behave the same in the async
//! `digifinex-hyper` client.
//!
//! ```no_run
//! use digifinex_ureq::ws::StreamBuilder;
//! use digifinex_ureq::core::ws::Event;
//! use digifinex_ureq::core::Family;
//!
//! let mut stream = StreamBuilder::new(Family::Swap)
//!     .subscribe("swap:depth:BTCUSDTPERP".parse()?)
//!     .build()?;
//! for event in stream.by_ref().take(100) {
//!     if let Event::Book(update) = event {
//!         println!("{:?} / {:?}", update.best_bid, update.best_ask);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use digifinex_core::ws::{
    Action, Connection, Event, Frame, PrivateSnapshot, SubscribeError, Subscription, WsConfig,
    SPOT_WS_URL, SWAP_WS_URL,
};
use digifinex_core::{Clock, Credentials, Error, Family, SystemClock, TimestampMillis};
use tungstenite::protocol::Message;
use tungstenite::WebSocket;

/// The socket under the websocket: plain TCP or rustls over TCP.
trait Io: Read + Write + Send {}
impl<T: Read + Write + Send> Io for T {}

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

    /// Trusts only these DER root certificates instead of the webpki roots. (The websocket
    /// uses the webpki roots even with the `native-roots` feature, which concerns the REST
    /// agent; give [`StreamBuilder::tls_config`] for the platform's.)
    pub fn trust_only_roots(mut self, ders: Vec<Vec<u8>>) -> Self {
        self.roots = Some(ders);
        self
    }

    /// A rustls configuration of your own (roots, provider, client certificates).
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
            (true, None) => Some(Arc::new(tls_config(self.roots.as_deref())?)),
        };
        let mut conn = Connection::new(self.family, self.config, self.credentials);
        for sub in self.subs {
            conn.subscribe(sub).map_err(subscribe_error)?;
        }
        Ok(Stream {
            conn,
            socket: None,
            tcp: None,
            target,
            tls,
            clock: self.clock,
            connect_timeout: self.connect_timeout,
            rest: self.rest,
        })
    }
}

/// A subscription refused locally, as a validation error.
fn subscribe_error(e: SubscribeError) -> Error {
    Error::validation("subscription", e.to_string())
}

/// One websocket of one family; an [`Iterator`] of [`Event`]s that reconnects by itself and
/// ends only after [`Stream::close`].
pub struct Stream {
    conn: Connection,
    socket: Option<WebSocket<Box<dyn Io>>>,
    /// A handle on the TCP socket under the websocket, to set read timeouts.
    tcp: Option<TcpStream>,
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

    /// Closes the socket; the iterator ends after reporting it.
    pub fn close(&mut self) {
        let now = self.clock.now();
        self.conn.close(now);
    }

    /// The next event, blocking; `None` once the stream was closed.
    pub fn next_event(&mut self) -> Option<Event> {
        loop {
            if self.conn.reconcile_due() {
                if let Some(client) = &self.rest {
                    match read_private(client, self.conn.family()) {
                        Ok(snapshot) => self.conn.on_private_snapshot(snapshot),
                        Err(e) => self.conn.on_reconcile_failed(e.to_string()),
                    }
                }
            }
            let now = self.clock.now();
            match self.conn.poll(now) {
                Action::Event(e) => return Some(e),
                Action::Connect => match self.connect() {
                    Ok(()) => self.conn.on_connected(self.clock.now()),
                    Err(detail) => self.conn.on_connect_failed(self.clock.now(), detail),
                },
                Action::Send(text) => {
                    if let Some(ws) = &mut self.socket {
                        if let Err(e) = ws.send(Message::text(text)) {
                            self.drop_socket();
                            self.conn.on_closed(self.clock.now(), e.to_string());
                        }
                    }
                }
                Action::Close(_) => {
                    if let Some(ws) = &mut self.socket {
                        let _ = ws.close(None);
                        let _ = ws.flush();
                    }
                    self.drop_socket();
                }
                Action::Wait(deadline) => self.read_until(now, deadline),
                Action::Stopped => return None,
            }
        }
    }

    fn drop_socket(&mut self) {
        self.socket = None;
        if let Some(tcp) = self.tcp.take() {
            let _ = tcp.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Reads one message, or returns at the deadline.
    fn read_until(&mut self, now: TimestampMillis, deadline: Option<TimestampMillis>) {
        let wait_ms = deadline.map_or(60_000, |d| d.0.saturating_sub(now.0).clamp(1, 60_000));
        let Some(ws) = &mut self.socket else {
            // No socket (backoff): sleep until the deadline.
            std::thread::sleep(Duration::from_millis(u64::try_from(wait_ms).unwrap_or(1)));
            return;
        };
        if let Some(tcp) = &self.tcp {
            let _ = tcp.set_read_timeout(Some(Duration::from_millis(
                u64::try_from(wait_ms).unwrap_or(1),
            )));
        }
        match ws.read() {
            Ok(Message::Binary(b)) => self.conn.on_frame(self.clock.now(), Frame::Binary(&b)),
            Ok(Message::Text(t)) => self.conn.on_frame(self.clock.now(), Frame::Text(&t)),
            // tungstenite queues the pong; it goes out with the next write or flush.
            Ok(Message::Ping(_)) => {
                let _ = ws.flush();
            }
            Ok(Message::Pong(_) | Message::Frame(_)) => {}
            Ok(Message::Close(frame)) => {
                let detail = frame.map_or_else(
                    || "close frame".to_owned(),
                    |f| format!("close frame {} {}", u16::from(f.code), f.reason),
                );
                self.drop_socket();
                self.conn.on_closed(self.clock.now(), detail);
            }
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => {
                self.drop_socket();
                self.conn.on_closed(self.clock.now(), e.to_string());
            }
        }
    }

    /// TCP, TLS and the upgrade; an error is the reason given to the machine.
    fn connect(&mut self) -> Result<(), String> {
        self.drop_socket();
        let t = &self.target;
        let addrs: Vec<_> = (t.host.as_str(), t.port)
            .to_socket_addrs()
            .map_err(|e| format!("resolve {}: {e}", t.host))?
            .collect();
        let mut last = format!("no address for {}", t.host);
        let mut tcp = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, self.connect_timeout) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last = format!("connect {addr}: {e}"),
            }
        }
        let tcp = tcp.ok_or(last)?;
        let _ = tcp.set_nodelay(true);
        tcp.set_read_timeout(Some(self.connect_timeout))
            .and_then(|()| tcp.set_write_timeout(Some(self.connect_timeout)))
            .map_err(|e| e.to_string())?;
        let handle = tcp.try_clone().map_err(|e| e.to_string())?;
        let io: Box<dyn Io> = match &self.tls {
            None => Box::new(tcp),
            Some(config) => {
                let name = rustls::pki_types::ServerName::try_from(t.host.clone())
                    .map_err(|e| format!("server name {}: {e}", t.host))?;
                let session = rustls::ClientConnection::new(config.clone(), name)
                    .map_err(|e| format!("tls: {e}"))?;
                Box::new(rustls::StreamOwned::new(session, tcp))
            }
        };
        let (ws, _response) = tungstenite::client(t.url.as_str(), io).map_err(|e| match e {
            tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp)) => {
                format!("HTTP {}", resp.status().as_u16())
            }
            tungstenite::HandshakeError::Failure(e) => e.to_string(),
            tungstenite::HandshakeError::Interrupted(_) => "handshake timed out".to_owned(),
        })?;
        let _ = handle.set_write_timeout(Some(Duration::from_secs(10)));
        self.socket = Some(ws);
        self.tcp = Some(handle);
        Ok(())
    }
}

/// The private state over REST: open orders, balances and (swap) positions.
fn read_private(client: &crate::Client, family: Family) -> Result<PrivateSnapshot, Error> {
    use digifinex_core::{spot, swap};
    match family {
        Family::Spot => {
            let open = client.send(&spot::CurrentOrdersRequest::new(spot::Market::Spot))?;
            let assets = client.send(&spot::SpotAssetsRequest::new())?;
            Ok(PrivateSnapshot::spot(&open.data, &assets.list))
        }
        _ => {
            let open = client.send(&swap::OpenOrdersRequest::new().limit(100))?;
            let balances = client.send(&swap::BalanceRequest::new())?;
            let positions = client.send(&swap::PositionsRequest::new())?;
            Ok(PrivateSnapshot::swap(&open, &balances, &positions))
        }
    }
}

impl Iterator for Stream {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.next_event()
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

/// rustls with the feature-chosen provider and the caller's roots, or the webpki roots.
fn tls_config(roots: Option<&[Vec<u8>]>) -> Result<rustls::ClientConfig, Error> {
    #[cfg(feature = "ring")]
    let provider = rustls::crypto::ring::default_provider();
    #[cfg(all(feature = "aws-lc-rs", not(feature = "ring")))]
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    #[cfg(not(any(feature = "ring", feature = "aws-lc-rs")))]
    return Err(Error::validation(
        "tls",
        "no TLS provider: enable the `ring` or `aws-lc-rs` feature, or give a tls_config",
    ));
    #[cfg(any(feature = "ring", feature = "aws-lc-rs"))]
    {
        let builder = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::validation("tls", e.to_string()))?;
        let mut store = rustls::RootCertStore::empty();
        match roots {
            Some(ders) => {
                for (i, der) in ders.iter().enumerate() {
                    store
                        .add(rustls::pki_types::CertificateDer::from(der.as_slice()).into_owned())
                        .map_err(|e| {
                            Error::validation(
                                "trust_only_roots",
                                format!("certificate {i} is not a usable root: {e}"),
                            )
                        })?;
                }
            }
            None => store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        }
        Ok(builder.with_root_certificates(store).with_no_client_auth())
    }
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
        let e = StreamBuilder::new(Family::Spot)
            .subscribe("swap:ticker:BTCUSDTPERP".parse().unwrap())
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("not for the spot socket"), "{e}");
        let t = Target::parse("wss://openapi.digifinex.com/swap_ws/v2/").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.tls),
            ("openapi.digifinex.com", 443, true)
        );
        assert!(Target::parse("https://x/").is_err());
        assert!(StreamBuilder::new(Family::Swap).build().is_ok());
    }
}
