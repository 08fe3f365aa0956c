//! The transport-independent half of a stream: its settings and builder, where its sockets go,
//! the jitter seed. Both transports' `StreamBuilder` is [`StreamBuilder`] with their
//! [`StreamTransport`]; each transport adds only what moves bytes.
//!
//! The names are the REST client's where the setting is the same: `allow_http(bool)`,
//! `trust_only_roots(ders)`, `connect_timeout`, `credentials`, `clock`.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, SystemClock};
use crate::credentials::Credentials;
use crate::endpoint::Family;
use crate::error::Error;
use crate::track::{TrackConfig, Tracker};
use crate::ws::connection::WsConfig;
use crate::ws::pace::Pacer;
use crate::ws::streams::Streams;
use crate::ws::subscription::Subscription;
use crate::ws::{SPOT_WS_URL, SWAP_WS_URL};

/// Channels per spot socket by default (the venue states no limit).
pub const SPOT_CHANNELS_PER_SOCKET: usize = 100;

/// What a transport provides to [`StreamBuilder`]: its stream type, its tracked stream type,
/// its TLS configuration type, its REST client (whose session's clock offset the stream keeps,
/// and through which a tracked stream's tracker reads) and its socket seam.
pub trait StreamTransport: Sized {
    /// The stream the builder makes.
    type Stream;
    /// A TLS configuration of the caller's own.
    type Tls;
    /// The REST client of the same account.
    type Rest;
    /// What opens the stream's sockets instead of the network ([`StreamBuilder::connector`]):
    /// the transport's socket seam, which moves whole messages and nothing else.
    type Connector;
    /// A stream and a [`Tracker`] of its account in one ([`StreamBuilder::tracked`]).
    type Tracked;
    /// Makes the stream.
    fn build(builder: StreamBuilder<Self>) -> Result<Self::Stream, Error>;
    /// Makes the stream of `builder` (its REST client given) with `tracker` fed by it; the
    /// tracker's subscriptions are already added.
    fn track(builder: StreamBuilder<Self>, tracker: Tracker) -> Result<Self::Tracked, Error>;
    /// The session of the transport's REST client.
    fn session(rest: &Self::Rest) -> &crate::session::Session;
}

/// Everything a stream is made of, checked by [`StreamSettings::streams`].
#[derive(Clone)]
pub struct StreamSettings {
    family: Family,
    url: String,
    subscriptions: Vec<Subscription>,
    credentials: Option<Credentials>,
    config: WsConfig,
    seed: Option<u64>,
    clock: Arc<dyn Clock>,
    connect_timeout: Duration,
    message_timeout: Duration,
    allow_http: bool,
    roots: Option<Vec<Vec<u8>>>,
    channels_per_socket: usize,
    open_interval: Duration,
    queue: usize,
    pacer: Option<Arc<dyn Pacer>>,
}

impl std::fmt::Debug for StreamSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamSettings")
            .field("family", &self.family)
            .field("url", &self.url)
            .field("subscriptions", &self.subscriptions)
            .field("credentials", &self.credentials)
            .field("config", &self.config)
            .field("connect_timeout", &self.connect_timeout)
            .field("message_timeout", &self.message_timeout)
            .field("allow_http", &self.allow_http)
            .field("trusted_roots", &self.roots.as_ref().map(Vec::len))
            .field("channels_per_socket", &self.channels_per_socket)
            .field("paced", &self.pacer.is_some())
            .finish_non_exhaustive()
    }
}

impl StreamSettings {
    /// `family`'s socket at the venue, no subscription, the default timers.
    pub fn new(family: Family) -> Self {
        StreamSettings {
            family,
            url: match family {
                Family::Spot => SPOT_WS_URL,
                _ => SWAP_WS_URL,
            }
            .to_owned(),
            subscriptions: Vec::new(),
            credentials: None,
            config: WsConfig::default(),
            seed: None,
            clock: Arc::new(SystemClock),
            connect_timeout: Duration::from_secs(10),
            message_timeout: Duration::from_secs(10),
            allow_http: false,
            roots: None,
            channels_per_socket: match family {
                Family::Spot => SPOT_CHANNELS_PER_SOCKET,
                _ => crate::ws::MAX_SWAP_CHANNELS,
            },
            open_interval: Duration::from_millis(500),
            queue: 1_024,
            pacer: None,
        }
    }

    /// What opens the sockets in a time of its own ([`StreamBuilder::pacer`]), if anything.
    pub fn pacer(&self) -> Option<&Arc<dyn Pacer>> {
        self.pacer.as_ref()
    }

    /// The subscriptions the stream starts with.
    pub fn subscriptions(&self) -> &[Subscription] {
        &self.subscriptions
    }

    /// The family.
    pub fn family(&self) -> Family {
        self.family
    }

    /// Where every socket goes.
    pub fn target(&self) -> Result<Target, Error> {
        let target = Target::parse(&self.url)?;
        if !target.tls && !self.allow_http {
            return Err(Error::validation(
                "url",
                "a ws:// URL needs allow_http(true) (the simulator)",
            ));
        }
        Ok(target)
    }

    /// The clock of every deadline and of `server.auth`'s timestamp (plus the offset).
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// Limit for TCP connect, TLS and the upgrade together (a total: a server that dribbles
    /// its handshake is cut at it).
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// Limit for one message once its first byte arrived (a total: a server that trickles a
    /// message, or sends empty fragments forever, is cut at it).
    pub fn message_timeout(&self) -> Duration {
        self.message_timeout
    }

    /// The caller's root certificates (DER), if any.
    pub fn roots(&self) -> Option<&[Vec<u8>]> {
        self.roots.as_deref()
    }

    /// Frames a transport holds between its sockets and the stream before the sockets wait
    /// (backpressure instead of memory): 1,024.
    pub fn queue(&self) -> usize {
        self.queue
    }

    /// The protocol machine of the stream: every subscription checked, the seed random unless
    /// set (or given by the pacer, [`Pacer::seed`]).
    pub fn streams(&self) -> Result<Streams, Error> {
        let mut config = self.config.clone();
        config.seed = self
            .seed
            .or_else(|| self.pacer.as_ref().and_then(|p| p.seed()))
            .unwrap_or_else(random_seed);
        let mut streams = Streams::new(
            self.family,
            config,
            self.credentials.clone(),
            self.channels_per_socket,
            self.open_interval,
        );
        for sub in &self.subscriptions {
            streams
                .subscribe(sub.clone())
                .map_err(|e| Error::validation("subscription", e.to_string()))?;
        }
        Ok(streams)
    }
}

/// Builds a stream of one family over as many sockets as its subscriptions need. The
/// transports name it `StreamBuilder` (`digifinex_ureq::ws::StreamBuilder`,
/// `digifinex_hyper::ws::StreamBuilder`); a client's `stream(family)` gives one that shares
/// the client's credentials, clock and measured offset, base URL and TLS settings. The stream
/// itself reads nothing over REST; [`StreamBuilder::tracked`] adds a tracker of the account.
pub struct StreamBuilder<T: StreamTransport> {
    settings: StreamSettings,
    tls: Option<T::Tls>,
    rest: Option<T::Rest>,
    connector: Option<T::Connector>,
}

impl<T: StreamTransport> std::fmt::Debug for StreamBuilder<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamBuilder")
            .field("settings", &self.settings)
            .field("tls", &self.tls.is_some())
            .field("rest", &self.rest.is_some())
            .field("connector", &self.connector.is_some())
            .finish()
    }
}

impl<T: StreamTransport> StreamBuilder<T> {
    /// A stream of `family`'s socket at its venue URL.
    pub fn new(family: Family) -> Self {
        StreamBuilder {
            settings: StreamSettings::new(family),
            tls: None,
            rest: None,
            connector: None,
        }
    }

    /// The socket's URL (`wss://...`; `ws://` needs [`StreamBuilder::allow_http`]).
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.settings.url = url.into();
        self
    }

    /// Adds a subscription (checked by [`StreamBuilder::build`]). Any number: the stream
    /// opens as many sockets as they need.
    pub fn subscribe(mut self, sub: Subscription) -> Self {
        self.settings.subscriptions.push(sub);
        self
    }

    /// Credentials, for the private channels (`server.auth`).
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.settings.credentials = Some(credentials);
        self
    }

    /// Timers and limits (keepalive, lifetime, backoff, book limits). Its `seed` is not used:
    /// the jitter seed is random unless [`StreamBuilder::seed`] sets it.
    pub fn config(mut self, config: WsConfig) -> Self {
        self.settings.config = config;
        self
    }

    /// A fixed jitter seed (tests); by default each stream draws its own, so that processes
    /// started together do not reconnect and recycle in lockstep (a stream with a pacer takes
    /// the pacer's, [`Pacer::seed`]: a backtest's reconnects are the same every run).
    pub fn seed(mut self, seed: u64) -> Self {
        self.settings.seed = Some(seed);
        self
    }

    /// The clock (every deadline, and `server.auth`'s timestamp with the offset).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.settings.clock = clock;
        self
    }

    /// A measured server clock minus local clock, ms, added to `server.auth`'s timestamp (a
    /// client's stream keeps it equal to the REST session's measured offset). Without it each
    /// socket measures the server's clock (`server.time`) before its first `server.auth`.
    pub fn time_offset_ms(mut self, offset: i64) -> Self {
        self.settings.config.time_offset_ms = Some(offset);
        self
    }

    /// Limit for TCP connect, TLS and the upgrade together, a total: 10 s by default.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.settings.connect_timeout = timeout;
        self
    }

    /// Limit for one message once its first byte arrived, a total: 10 s by default.
    pub fn message_timeout(mut self, timeout: Duration) -> Self {
        self.settings.message_timeout = timeout;
        self
    }

    /// Allows `ws://` URLs (the simulator), as the REST client's `allow_http`.
    pub fn allow_http(mut self, allow: bool) -> Self {
        self.settings.allow_http = allow;
        self
    }

    /// Trusts only these root certificates (DER) instead of the default roots, as the REST
    /// client's `trust_only_roots`.
    pub fn trust_only_roots<I, D>(mut self, ders: I) -> Self
    where
        I: IntoIterator<Item = D>,
        D: AsRef<[u8]>,
    {
        self.settings.roots = Some(ders.into_iter().map(|d| d.as_ref().to_vec()).collect());
        self
    }

    /// A TLS configuration of your own (roots, provider, client certificates).
    pub fn tls_config(mut self, config: T::Tls) -> Self {
        self.tls = Some(config);
        self
    }

    /// Most channels per socket: swap at most 30 (the venue's limit, the default); spot 100
    /// by default.
    pub fn channels_per_socket(mut self, channels: usize) -> Self {
        self.settings.channels_per_socket = channels;
        self
    }

    /// Least time between two socket openings: 500 ms by default (no burst of handshakes).
    pub fn open_interval(mut self, interval: Duration) -> Self {
        self.settings.open_interval = interval;
        self
    }

    /// Frames held between the sockets and the stream before the sockets stop reading (the
    /// server then waits): 1,024 by default.
    pub fn queue(mut self, frames: usize) -> Self {
        self.settings.queue = frames.max(1);
        self
    }

    /// Keeps `server.auth`'s clock offset equal to `client`'s session's measured offset (from
    /// the moment it is measured), and lets [`StreamBuilder::tracked`] read the account through
    /// `client`. The stream itself reads nothing over REST. A client's `stream(family)` sets it.
    pub fn time_offset_from(mut self, client: T::Rest) -> Self {
        self.rest = Some(client);
        self
    }

    /// Opens the sockets through `connector` instead of the network (an exchange in the same
    /// process, a test double): it connects a socket of the stream's family and moves whole
    /// messages; everything else (keepalive, auth, subscriptions, books, zlib) is done as over
    /// the network. A client's `stream(family)` passes on the client's own connector.
    pub fn connector(mut self, connector: T::Connector) -> Self {
        self.connector = Some(connector);
        self
    }

    /// Opens the sockets through `pacer`, in its time (an exchange in the same process, in
    /// virtual time; see [`crate::ws::pace`]): the stream drives them itself on the thread
    /// or task that reads it, never waits on the wall clock, and lets the pacer's time pass
    /// when it has nothing to do. It takes the place of a connector and of the network. A
    /// client's `stream(family)` passes on the client's own pacer (`ws_pacer`).
    pub fn pacer(mut self, pacer: Arc<dyn Pacer>) -> Self {
        self.settings.pacer = Some(pacer);
        self
    }

    /// Takes the connector out (for the transport, before [`StreamBuilder::into_parts`]).
    pub fn take_connector(&mut self) -> Option<T::Connector> {
        self.connector.take()
    }

    /// The settings so far.
    pub fn settings(&self) -> &StreamSettings {
        &self.settings
    }

    /// Takes the builder apart (for the transport).
    pub fn into_parts(self) -> (StreamSettings, Option<T::Tls>, Option<T::Rest>) {
        (self.settings, self.tls, self.rest)
    }

    /// Checks the URL and the subscriptions and returns the stream; the first socket is
    /// opened when the stream is first read.
    pub fn build(self) -> Result<T::Stream, Error> {
        T::build(self)
    }

    /// The stream and a [`Tracker`] of its account over `markets` (spot pairs, swap
    /// instruments) in one call: the tracker is created at the REST session's time with
    /// `config`, its private subscriptions ([`Tracker::subscriptions`]) are added to the
    /// stream's, every event the stream yields is handed to it, and the reads it asks for (one
    /// resync at the start and after each reconnect, the periodic ones, fills) go through the
    /// REST client the stream was made beside (a client's `stream(family)`, or
    /// [`StreamBuilder::time_offset_from`]). Refused without that client (and, as any private
    /// subscription, without credentials).
    pub fn tracked<I, S>(self, markets: I, config: TrackConfig) -> Result<T::Tracked, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let Some(rest) = &self.rest else {
            return Err(Error::validation(
                "stream",
                "a tracked stream reads the account through a REST client: make it with a \
                 client's stream(family) or StreamBuilder::time_offset_from(client)",
            ));
        };
        let now = T::session(rest).now();
        let tracker = Tracker::new(self.settings.family, markets, config, now);
        let mut b = self;
        for sub in tracker.subscriptions() {
            if !b.settings.subscriptions.contains(&sub) {
                b.settings.subscriptions.push(sub);
            }
        }
        T::track(b, tracker)
    }

    /// A stream of `family` beside a REST session: its clock and measured offset, credentials,
    /// the socket beside its base URL, its `allow_http` and roots, and `rest`, the client of
    /// that session ([`StreamBuilder::time_offset_from`]; what the clients' `stream(family)`
    /// gives).
    pub fn beside(
        family: Family,
        session: &crate::session::Session,
        allow_http: bool,
        roots: Option<&[Vec<u8>]>,
        rest: T::Rest,
    ) -> Self {
        let config = session.config();
        let base = match family {
            Family::Spot => &config.spot_base_url,
            _ => &config.swap_base_url,
        };
        let mut b = StreamBuilder::new(family)
            .clock(session.clock().clone())
            .allow_http(allow_http)
            .time_offset_from(rest);
        if session.clock_measured() {
            b = b.time_offset_ms(session.offset_ms());
        }
        if let Some(url) = url_beside(family, base) {
            b = b.url(url);
        }
        b.settings.credentials = session.credentials().cloned();
        b.settings.roots = roots.map(<[Vec<u8>]>::to_vec);
        b
    }
}

/// Refuses, before it travels to a stream, a subscription of the other family.
pub fn check_family(sub: &Subscription, family: Family) -> Result<(), crate::ws::SubscribeError> {
    if sub.family == family {
        Ok(())
    } else {
        Err(crate::ws::SubscribeError::WrongFamily { connection: family })
    }
}

/// What every socket of a stream is opened with (shared by a transport with its sockets'
/// threads or tasks): where they go, the TLS configuration, the settings.
#[derive(Debug)]
pub struct Link<Tls> {
    /// Where the sockets go.
    pub target: Target,
    /// The TLS configuration (`None` for `ws://`).
    pub tls: Option<Tls>,
    /// The settings (timeouts, clock).
    pub settings: StreamSettings,
}

impl<Tls> Link<Tls> {
    /// The link of `settings`, with `tls` for a `wss://` target (`make` builds one when none
    /// is given; nothing is built for `ws://`).
    pub fn new(
        settings: StreamSettings,
        tls: Option<Tls>,
        make: impl FnOnce(Option<&[Vec<u8>]>) -> Result<Tls, Error>,
    ) -> Result<Self, Error> {
        let target = settings.target()?;
        let tls = match (target.tls, tls) {
            (false, _) => None,
            (true, Some(c)) => Some(c),
            (true, None) => Some(make(settings.roots())?),
        };
        Ok(Link {
            target,
            tls,
            settings,
        })
    }
}

/// Where a socket goes: the URL, its host, port and whether it is TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Target {
    /// The URL as given.
    pub url: String,
    /// The host (an IPv6 address without brackets).
    pub host: String,
    /// The port (443 or 80 when the URL names none).
    pub port: u16,
    /// `wss://`.
    pub tls: bool,
}

impl Target {
    /// Parses a `ws://` or `wss://` URL.
    pub fn parse(url: &str) -> Result<Self, Error> {
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

/// The socket URL beside a REST base URL: the venue's own for the venue's bases; otherwise the
/// same host and port with `ws`/`wss` for `http`/`https` and the socket's path (`/ws/v1/`,
/// `/swap_ws/v2/`), as the simulator serves them. `None` for a base that is not a URL.
pub fn url_beside(family: Family, rest_base: &str) -> Option<String> {
    let uri: http::Uri = rest_base.parse().ok()?;
    let scheme = match uri.scheme_str()? {
        "https" => "wss",
        "http" => "ws",
        _ => return None,
    };
    let authority = uri.authority()?;
    if authority
        .host()
        .eq_ignore_ascii_case("openapi.digifinex.com")
        && scheme == "wss"
    {
        return Some(
            match family {
                Family::Spot => SPOT_WS_URL,
                _ => SWAP_WS_URL,
            }
            .to_owned(),
        );
    }
    let path = match family {
        Family::Spot => "/ws/v1/",
        _ => "/swap_ws/v2/",
    };
    Some(format!("{scheme}://{authority}{path}"))
}

/// A seed for the reconnect and lifetime jitter, different in every process and call.
pub fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(u64::from(std::process::id()));
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_urls() {
        let t = Target::parse("wss://openapi.digifinex.com/swap_ws/v2/").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.tls),
            ("openapi.digifinex.com", 443, true)
        );
        assert_eq!(Target::parse("ws://[::1]:9/ws/v1/").unwrap().host, "::1");
        assert!(Target::parse("https://x/").is_err());
        assert_eq!(
            url_beside(Family::Spot, "https://openapi.digifinex.com/v3").as_deref(),
            Some(SPOT_WS_URL)
        );
        assert_eq!(
            url_beside(Family::Swap, "https://openapi.digifinex.com/swap/v2").as_deref(),
            Some(SWAP_WS_URL)
        );
        assert_eq!(
            url_beside(Family::Swap, "http://127.0.0.1:8080").as_deref(),
            Some("ws://127.0.0.1:8080/swap_ws/v2/")
        );
        assert_eq!(
            url_beside(Family::Spot, "http://127.0.0.1:8080/v3").as_deref(),
            Some("ws://127.0.0.1:8080/ws/v1/")
        );
        assert_eq!(url_beside(Family::Spot, "ftp://x"), None);
    }

    #[test]
    fn seeds_differ_unless_set() {
        let s = StreamSettings::new(Family::Spot);
        let a = s.streams().unwrap();
        let b = s.streams().unwrap();
        assert_ne!(
            a.connections().next().map(|c| c.config().seed),
            b.connections().next().map(|c| c.config().seed)
        );
        let mut fixed = StreamSettings::new(Family::Spot);
        fixed.seed = Some(7);
        assert_eq!(
            fixed
                .streams()
                .unwrap()
                .connections()
                .next()
                .map(|c| c.config().seed),
            Some(7)
        );
    }

    #[test]
    fn a_relayed_event_is_handed_on_in_its_turn_and_dropped_once_closed() {
        use crate::types::TimestampMillis;
        use crate::ws::{Event, StreamAction, StreamInput};
        let mut streams = StreamSettings::new(Family::Spot).streams().unwrap();
        let now = TimestampMillis(1_000);
        let event = Event::ServerTime {
            family: Family::Spot,
            time: TimestampMillis(5),
        };
        streams.apply(StreamInput::Relayed(Box::new(event.clone())), now);
        // Queued before anything the sockets do.
        match streams.poll(now) {
            StreamAction::Event(e) => assert_eq!(e, event),
            other => panic!("{other:?}"),
        }
        assert!(!streams.is_closed());
        streams.close(now);
        assert!(streams.is_closed());
        streams.apply(StreamInput::Relayed(Box::new(event)), now);
        loop {
            match streams.poll(now) {
                StreamAction::Event(e) => assert!(
                    !matches!(e, Event::ServerTime { .. }),
                    "relayed after close: {e:?}"
                ),
                StreamAction::Stopped => break,
                _ => {}
            }
        }
    }
}
