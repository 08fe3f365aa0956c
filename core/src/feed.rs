//! One market-data feed for many consumers, without I/O: what a feed process publishes to a
//! broker (NATS JetStream in `digifinex feed`) and how a consumer turns it back into the
//! stream's events, with every lost message seen.
//!
//! - **Subjects.** Each market stream has its subject, `{prefix}.{family}.{channel}.{target}`
//!   (`digifinex.spot.depth.btc_usdt`, `digifinex.swap.trades.BTCUSDTPERP`; spot pairs in lower
//!   case, swap instruments as the venue writes them; a candle's granularity is one more token,
//!   a channel without a target has none). A book's snapshots go to
//!   `{prefix}.snapshot.{family}.depth.{target}`, each feed's heartbeats to
//!   `{prefix}.heartbeat.{feed}`; a consumer asks a feed for a fresh snapshot on
//!   `{prefix}.request.snapshot` (not kept by the broker). [`stream_subjects`] are what the
//!   broker keeps.
//! - **Messages.** One JSON object per message ([`Message`]): the feed and its run (a feed
//!   restarted is a new run), the market stream, a sequence number per market stream assigned
//!   by the feed (1, 2, ... in each run), the feed's time and the venue's where the frame
//!   carries one, the kind (an event, a snapshot, or a gap the feed itself saw), and the event
//!   exactly as `digifinex stream` prints it. An event that starts the market's state anew (the
//!   venue's book snapshot) is marked `reset`.
//! - **Publisher.** [`Publisher`] takes the venue stream's events and gives the messages to
//!   publish; it keeps each book as the stream does, so that it can publish a snapshot every
//!   [`PublisherConfig::snapshot_every_ms`] and on request. Private channels are never
//!   published (they stay on each bot's own authenticated socket).
//! - **Consumer.** [`Consumer`] takes the messages of the market streams it wants and gives
//!   the events, in order: a book starts from a snapshot (the feed's stored one, or the venue's
//!   that the feed passed on); a message whose sequence number jumps is a gap, reported as
//!   [`Event::Resync`] for a book (which then waits for a fresh snapshot: [`Output::NeedSnapshot`])
//!   and as [`Event::Gap`] for other channels, never a silent jump; a message seen twice is
//!   dropped. What waits for a snapshot is bounded ([`MAX_WAITING`]).
//!
//! DESIGN: the events travel as their JSON text, the same text for every consumer, so a feed
//! serializes an event once and a consumer that prints lines (`digifinex stream --feed`) prints
//! the text it received. A snapshot message carries the sequence number of the last event it
//! includes: the book goes on at the next. A market stream's sequence is per run: a consumer that
//! sees a new run takes it from its first `reset` event or snapshot, and reports the jump for a
//! channel without snapshots.

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::ws::{Book, BookUpdate, Channel, Event, ResyncReason, Subscription};
use crate::{Error, Family};

/// The message format's version.
pub const VERSION: u32 = 1;

/// The subjects' first token unless configured.
pub const DEFAULT_PREFIX: &str = "digifinex";

/// The JetStream stream's name unless configured.
pub const DEFAULT_STREAM: &str = "DIGIFINEX";

/// The largest message a consumer reads (a 100-level book snapshot is about 8 KB).
pub const MAX_MESSAGE: usize = 1 << 20;

/// Messages a consumer holds for a book waiting for its snapshot; past it the oldest are
/// dropped (the snapshot, when it comes, shows whether they were needed).
pub const MAX_WAITING: usize = 10_000;

/// What a message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Kind {
    /// An event of the venue's stream.
    Event,
    /// The feed's book, as a book event with `snapshot` true (on the snapshot subject).
    Snapshot,
    /// The feed's own stream lost continuity for the market (the event is the venue stream's
    /// [`Event::Resync`]); the book restarts from the venue's next snapshot.
    Gap,
}

/// One message of a feed (see the module docs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Message {
    /// [`VERSION`].
    pub v: u32,
    /// The feed's name.
    pub feed: String,
    /// The feed process's run: a restarted feed is a new run, and every sequence restarts.
    pub run: String,
    /// The market stream: its subscription (`spot:depth:BTC_USDT`, no depth level).
    pub market: String,
    /// The message's number in its market stream and run (from 1); a snapshot carries the
    /// number of the last event it includes.
    pub seq: u64,
    /// What it carries.
    pub kind: Kind,
    /// The event starts the market's state anew (the venue's book snapshot).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reset: bool,
    /// The feed's time when it took the event, ms since the epoch.
    pub feed_ms: i64,
    /// The venue's time of the event where its frame carries one, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue_ms: Option<i64>,
    /// The event, as `digifinex stream` prints it.
    pub event: Box<RawValue>,
}

impl Message {
    /// Reads a message (at most [`MAX_MESSAGE`] bytes, of this [`VERSION`]).
    pub fn parse(payload: &[u8]) -> Result<Message, Error> {
        if payload.len() > MAX_MESSAGE {
            return Err(Error::validation(
                "message",
                format!("{} bytes, more than {MAX_MESSAGE}", payload.len()),
            ));
        }
        let m: Message = serde_json::from_slice(payload)
            .map_err(|e| Error::validation("message", format!("not a feed message: {e}")))?;
        if m.v != VERSION {
            return Err(Error::validation(
                "message",
                format!("format version {}, this reader reads {VERSION}", m.v),
            ));
        }
        Ok(m)
    }
}

/// A feed's heartbeat (on `{prefix}.heartbeat.{feed}`, every second or so).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heartbeat {
    /// [`VERSION`].
    pub v: u32,
    /// The feed's name.
    pub feed: String,
    /// Its run.
    pub run: String,
    /// The feed's time, ms since the epoch.
    pub feed_ms: i64,
    /// The market streams it publishes.
    pub markets: Vec<String>,
    /// Messages published in this run.
    pub published: u64,
}

/// Whether a token may stand in a subject (NATS: no `.`, `*`, `>` or whitespace; here the
/// venue's symbol characters only).
fn token_ok(t: &str) -> bool {
    !t.is_empty()
        && t.len() <= 64
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The market stream of a subscription: the subscription without its depth level (the key of
/// [`Message::market`]).
pub fn market_of(sub: &Subscription) -> Subscription {
    let mut s = sub.clone();
    s.level = None;
    s
}

/// The subject of a subscription's market stream (see the module docs).
pub fn subject(prefix: &str, sub: &Subscription) -> Result<String, Error> {
    if sub.channel.is_private() {
        return Err(Error::validation(
            "subscription",
            format!("{sub}: a private channel is never published to a feed"),
        ));
    }
    if !token_ok(prefix) {
        return Err(Error::validation(
            "prefix",
            format!("`{prefix}`: letters, digits, `_` and `-`"),
        ));
    }
    let mut s = format!("{prefix}.{}.{}", sub.family, sub.channel.wire());
    if let Some(t) = &sub.target {
        let t = match sub.family {
            Family::Spot => t.to_ascii_lowercase(),
            _ => t.clone(),
        };
        if !token_ok(&t) {
            return Err(Error::validation(
                "subscription",
                format!("{sub}: the target `{t}` cannot stand in a subject"),
            ));
        }
        s.push('.');
        s.push_str(&t);
    }
    if let Some(g) = &sub.granularity {
        if !token_ok(g) {
            return Err(Error::validation(
                "subscription",
                format!("{sub}: the granularity `{g}` cannot stand in a subject"),
            ));
        }
        s.push('.');
        s.push_str(g);
    }
    Ok(s)
}

/// The subject of a book's snapshots.
pub fn snapshot_subject(prefix: &str, sub: &Subscription) -> Result<String, Error> {
    let s = subject(prefix, sub)?;
    Ok(format!(
        "{prefix}.snapshot.{}",
        s.strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('.'))
            .unwrap_or(&s)
    ))
}

/// The subject of a feed's heartbeats.
pub fn heartbeat_subject(prefix: &str, feed: &str) -> String {
    format!("{prefix}.heartbeat.{feed}")
}

/// The subject on which consumers ask the feeds for a fresh snapshot (the request's payload is
/// the market, `spot:depth:BTC_USDT`; the reply is the snapshot [`Message`], also published).
pub fn request_subject(prefix: &str) -> String {
    format!("{prefix}.request.snapshot")
}

/// The subjects the broker keeps: the market streams, the snapshots and the heartbeats (not
/// the requests).
pub fn stream_subjects(prefix: &str) -> Vec<String> {
    ["spot", "swap", "snapshot", "heartbeat"]
        .iter()
        .map(|t| format!("{prefix}.{t}.>"))
        .collect()
}

/// Whether a feed name stands in a subject.
pub fn check_feed_name(name: &str) -> Result<(), Error> {
    if token_ok(name) {
        Ok(())
    } else {
        Err(Error::validation(
            "feed",
            format!("`{name}`: 1 to 64 letters, digits, `_` and `-`"),
        ))
    }
}

/// The feed that owns `market` (a pair or instrument, `spot:BTC_USDT`) among `feeds`: the one
/// with the highest 64-bit FNV-1a hash of `feed`, a newline and `market` (rendezvous hashing:
/// every feed computes the same owner from the same list, and when a feed leaves the list only
/// its own markets move). `None` for an empty list.
pub fn owner<'a>(market: &str, feeds: &[&'a str]) -> Option<&'a str> {
    fn fnv(parts: [&[u8]; 3]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for part in parts {
            for b in part {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        h
    }
    feeds
        .iter()
        .copied()
        .max_by_key(|f| (fnv([f.as_bytes(), b"\n", market.as_bytes()]), *f))
}

/// One message to publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// Its subject.
    pub subject: String,
    /// Its bytes (a [`Message`]'s JSON).
    pub payload: Vec<u8>,
}

/// How a feed publishes.
#[derive(Debug, Clone)]
pub struct PublisherConfig {
    /// The subjects' first token ([`DEFAULT_PREFIX`]).
    pub prefix: String,
    /// The feed's name (a subject token).
    pub feed: String,
    /// This run's name (the feed's start time and a random part, say).
    pub run: String,
    /// Time between two snapshots of a book, ms (30,000).
    pub snapshot_every_ms: i64,
    /// A book's snapshot is built for requests at most this often, ms (250); requests in
    /// between are answered with the last one ([`Publisher::answer`]).
    pub request_every_ms: i64,
    /// Snapshots built for requests a second at most, over all books (100); past it, a
    /// request gets the book's last snapshot if it has one, else no answer (the consumer asks
    /// again a second later).
    pub requests_per_s: u32,
}

impl PublisherConfig {
    /// A feed named `feed`, run `run`, with the default prefix and a snapshot every 30 s.
    pub fn new(feed: impl Into<String>, run: impl Into<String>) -> PublisherConfig {
        PublisherConfig {
            prefix: DEFAULT_PREFIX.to_owned(),
            feed: feed.into(),
            run: run.into(),
            snapshot_every_ms: 30_000,
            request_every_ms: 250,
            requests_per_s: 100,
        }
    }
}

/// A market stream as the feed publishes it.
#[derive(Debug)]
struct Out {
    sub: Subscription,
    key: String,
    subject: String,
    seq: u64,
    /// A book's local copy (depth only), live once a snapshot came.
    book: Option<Book>,
    /// When its last snapshot was published (ms).
    snapshot_ms: i64,
    /// The last snapshot built (on request or when due) and when.
    last: Option<(i64, Outgoing)>,
    /// The sequence number that snapshot carries.
    last_seq: Option<u64>,
}

/// What a snapshot request gets ([`Publisher::answer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The snapshot to reply with.
    pub snapshot: Outgoing,
    /// Whether it was built for this request (then it is published to the stream too); `false`:
    /// the book's last one, given again.
    pub fresh: bool,
}

/// The feed's side (see the module docs).
#[derive(Debug)]
pub struct Publisher {
    config: PublisherConfig,
    markets: HashMap<String, Out>,
    published: u64,
    /// Snapshots built for requests in the second `.0` (s since the epoch).
    requests: (i64, u32),
}

impl Publisher {
    /// A publisher of `config`; the feed name and prefix are checked.
    pub fn new(config: PublisherConfig) -> Result<Publisher, Error> {
        check_feed_name(&config.feed)?;
        if !token_ok(&config.prefix) {
            return Err(Error::validation(
                "prefix",
                format!("`{}`: letters, digits, `_` and `-`", config.prefix),
            ));
        }
        if config.snapshot_every_ms < 1_000 {
            return Err(Error::validation(
                "snapshot_every_ms",
                "at least 1000 ms between two snapshots",
            ));
        }
        if config.request_every_ms < 0 {
            return Err(Error::validation("request_every_ms", "not negative"));
        }
        Ok(Publisher {
            config,
            markets: HashMap::new(),
            published: 0,
            requests: (i64::MIN, 0),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PublisherConfig {
        &self.config
    }

    fn out<'a>(
        markets: &'a mut HashMap<String, Out>,
        prefix: &str,
        sub: &Subscription,
    ) -> Option<&'a mut Out> {
        let sub = market_of(sub);
        let key = sub.to_string();
        if !markets.contains_key(&key) {
            let subject = subject(prefix, &sub).ok()?;
            let book = (sub.channel == Channel::Depth).then(|| Book::new(None));
            markets.insert(
                key.clone(),
                Out {
                    sub,
                    key: key.clone(),
                    subject,
                    seq: 0,
                    book,
                    snapshot_ms: i64::MIN,
                    last: None,
                    last_seq: None,
                },
            );
        }
        markets.get_mut(&key)
    }

    fn message(
        config: &PublisherConfig,
        out: &mut Out,
        kind: Kind,
        reset: bool,
        now_ms: i64,
        venue_ms: Option<i64>,
        event: &Event,
    ) -> Option<Outgoing> {
        let event = RawValue::from_string(serde_json::to_string(event).ok()?).ok()?;
        if kind != Kind::Snapshot {
            out.seq = out.seq.saturating_add(1);
        }
        let m = Message {
            v: VERSION,
            feed: config.feed.clone(),
            run: config.run.clone(),
            market: out.key.clone(),
            seq: out.seq,
            kind,
            reset,
            feed_ms: now_ms,
            venue_ms,
            event,
        };
        let subject = if kind == Kind::Snapshot {
            snapshot_subject(&config.prefix, &out.sub).ok()?
        } else {
            out.subject.clone()
        };
        Some(Outgoing {
            subject,
            payload: serde_json::to_vec(&m).ok()?,
        })
    }

    /// The messages of one event of the venue's stream at `now_ms` (none for connection
    /// states and private data; tickers and swap trades of several markets are split by
    /// market).
    pub fn handle_event(&mut self, event: &Event, now_ms: i64) -> Vec<Outgoing> {
        let mut parts: Vec<(Subscription, Event, Option<i64>)> = Vec::new();
        let sub = |family: Family, channel: Channel, target: &str| -> Option<Subscription> {
            Subscription::new(family, channel, Some(target)).ok()
        };
        match event {
            Event::Book(b) => {
                let venue = b.timestamp.map(|t| t.0);
                let prefix = &self.config.prefix;
                let Some(out) = Self::out(&mut self.markets, prefix, &b.subscription) else {
                    return Vec::new();
                };
                if let Some(book) = out.book.as_mut() {
                    let applied = if b.snapshot {
                        book.apply_snapshot(&b.bids, &b.asks, b.timestamp)
                    } else {
                        book.apply_delta(&b.bids, &b.asks, b.timestamp)
                    };
                    if applied.is_err() {
                        book.reset();
                    }
                }
                if b.snapshot {
                    // The venue's snapshot is the market's latest snapshot too.
                    out.snapshot_ms = now_ms;
                }
                let m = Self::message(
                    &self.config,
                    out,
                    Kind::Event,
                    b.snapshot,
                    now_ms,
                    venue,
                    event,
                );
                self.published = self.published.saturating_add(u64::from(m.is_some()));
                return m.into_iter().collect();
            }
            Event::Resync { subscription, .. } => {
                let prefix = &self.config.prefix;
                let Some(out) = Self::out(&mut self.markets, prefix, subscription) else {
                    return Vec::new();
                };
                if let Some(book) = out.book.as_mut() {
                    book.reset();
                }
                let m = Self::message(&self.config, out, Kind::Gap, false, now_ms, None, event);
                self.published = self.published.saturating_add(u64::from(m.is_some()));
                return m.into_iter().collect();
            }
            Event::SpotTrades {
                symbol,
                snapshot,
                trades,
            } => {
                let venue = trades
                    .iter()
                    .filter_map(|t| {
                        t.time
                            .checked_mul(rust_decimal::Decimal::from(1000))?
                            .trunc()
                            .try_into()
                            .ok()
                    })
                    .max();
                if let Some(s) = sub(Family::Spot, Channel::Trades, symbol) {
                    parts.push((
                        s,
                        Event::SpotTrades {
                            symbol: symbol.clone(),
                            snapshot: *snapshot,
                            trades: trades.clone(),
                        },
                        venue,
                    ));
                }
            }
            Event::SpotTickers { all: true, .. } => {
                if let Ok(s) = Subscription::new(Family::Spot, Channel::AllTicker, None) {
                    parts.push((s, event.clone(), None));
                }
            }
            Event::SpotTickers {
                all: false,
                tickers,
            } => {
                for t in tickers {
                    if let Some(s) = sub(Family::Spot, Channel::Ticker, &t.symbol) {
                        let one = Event::SpotTickers {
                            all: false,
                            tickers: vec![t.clone()],
                        };
                        parts.push((s, one, None));
                    }
                }
            }
            Event::SwapTicker(t) => {
                if let Some(s) = sub(Family::Swap, Channel::Ticker, &t.instrument_id) {
                    parts.push((s, event.clone(), t.timestamp.map(|x| x.0)));
                }
            }
            Event::SwapAllTickers { .. } => {
                if let Ok(s) = Subscription::new(Family::Swap, Channel::AllTicker, None) {
                    parts.push((s, event.clone(), None));
                }
            }
            Event::SwapTrades { snapshot, trades } => {
                let mut by: Vec<(String, Vec<crate::ws::model::SwapTrade>)> = Vec::new();
                for t in trades {
                    let Some(id) = t.instrument_id.clone() else {
                        continue;
                    };
                    match by.iter_mut().find(|(i, _)| *i == id) {
                        Some((_, v)) => v.push(t.clone()),
                        None => by.push((id, vec![t.clone()])),
                    }
                }
                for (id, trades) in by {
                    let venue = trades
                        .iter()
                        .filter_map(|t| t.trade_time.map(|x| x.0))
                        .max();
                    if let Some(s) = sub(Family::Swap, Channel::Trades, &id) {
                        let one = Event::SwapTrades {
                            snapshot: *snapshot,
                            trades,
                        };
                        parts.push((s, one, venue));
                    }
                }
            }
            Event::SwapCandle(c) | Event::SwapMarkCandle(c) => {
                let channel = if matches!(event, Event::SwapCandle(_)) {
                    Channel::Candle
                } else {
                    Channel::MarkCandle
                };
                let s = Subscription::new(Family::Swap, channel, Some(&c.instrument_id)).and_then(
                    |s| match c.granularity.as_deref() {
                        Some(g) => s.with_granularity(g),
                        None => Ok(s),
                    },
                );
                if let Ok(s) = s {
                    parts.push((s, event.clone(), None));
                }
            }
            Event::SwapIndexPrice(p) => {
                if let Some(s) = sub(Family::Swap, Channel::IndexPrice, &p.instrument_id) {
                    parts.push((s, event.clone(), p.timestamp.map(|x| x.0)));
                }
            }
            Event::SwapMarkPrice(p) => {
                if let Some(s) = sub(Family::Swap, Channel::MarkPrice, &p.instrument_id) {
                    parts.push((s, event.clone(), p.timestamp.map(|x| x.0)));
                }
            }
            Event::SwapPriceRange(p) => {
                if let Some(s) = sub(Family::Swap, Channel::PriceRange, &p.instrument_id) {
                    parts.push((s, event.clone(), p.timestamp.map(|x| x.0)));
                }
            }
            Event::SwapFundingRate(p) => {
                if let Some(s) = sub(Family::Swap, Channel::FundRate, &p.instrument_id) {
                    parts.push((s, event.clone(), None));
                }
            }
            Event::SwapSettlePrice(p) => {
                let s = sub(
                    Family::Swap,
                    Channel::EstimatedSettlePrice,
                    &p.instrument_id,
                );
                if let Some(s) = s {
                    parts.push((s, event.clone(), p.timestamp.map(|x| x.0)));
                }
            }
            _ => {}
        }
        let mut v = Vec::with_capacity(parts.len());
        for (s, e, venue) in parts {
            if let Some(out) = Self::out(&mut self.markets, &self.config.prefix, &s) {
                if let Some(m) =
                    Self::message(&self.config, out, Kind::Event, false, now_ms, venue, &e)
                {
                    v.push(m);
                }
            }
        }
        self.published = self
            .published
            .saturating_add(u64::try_from(v.len()).unwrap_or(u64::MAX));
        v
    }

    /// The next instant a snapshot is due (ms), if a book is live.
    pub fn poll_timeout(&self) -> Option<i64> {
        self.markets
            .values()
            .filter(|o| o.book.as_ref().is_some_and(Book::is_live))
            .map(|o| o.snapshot_ms.saturating_add(self.config.snapshot_every_ms))
            .min()
    }

    /// The snapshots due at `now_ms` (each live book whose last is older than
    /// [`PublisherConfig::snapshot_every_ms`]), in the markets' order.
    pub fn handle_timeout(&mut self, now_ms: i64) -> Vec<Outgoing> {
        let mut due: Vec<String> = self
            .markets
            .values()
            .filter(|o| {
                o.book.as_ref().is_some_and(Book::is_live)
                    && o.snapshot_ms.saturating_add(self.config.snapshot_every_ms) <= now_ms
            })
            .map(|o| o.key.clone())
            .collect();
        due.sort();
        due.iter()
            .filter_map(|k| self.snapshot(k, now_ms))
            .collect()
    }

    /// A snapshot of the book of `market` (`spot:depth:BTC_USDT`) now, if it is live (on
    /// request, or when due).
    pub fn snapshot(&mut self, market: &str, now_ms: i64) -> Option<Outgoing> {
        let config = &self.config;
        let out = self.markets.get_mut(market)?;
        let book = out.book.as_ref().filter(|b| b.is_live())?;
        let update = BookUpdate::snapshot_of(out.sub.clone(), book);
        let venue = book.timestamp().map(|t| t.0);
        let event = Event::Book(update);
        let m = Self::message(config, out, Kind::Snapshot, true, now_ms, venue, &event)?;
        out.snapshot_ms = now_ms;
        out.last = Some((now_ms, m.clone()));
        out.last_seq = Some(out.seq);
        Some(m)
    }

    /// The answer to a consumer's request for the snapshot of `market` at `now_ms`, bounded
    /// against a flood of requests: a fresh snapshot when the book's last one is older than
    /// [`PublisherConfig::request_every_ms`] and fewer than
    /// [`PublisherConfig::requests_per_s`] were built for requests this second; else the
    /// book's last snapshot again (still a valid start: the consumer drops what it holds up to
    /// its sequence number); `None` when the book is not live or has none to give.
    pub fn answer(&mut self, market: &str, now_ms: i64) -> Option<Answer> {
        let second = now_ms.div_euclid(1_000);
        if self.requests.0 != second {
            self.requests = (second, 0);
        }
        let out = self.markets.get(market)?;
        out.book.as_ref().filter(|b| b.is_live())?;
        let last = out.last.as_ref().filter(|(_, m)| !m.payload.is_empty());
        // The last one is exact while nothing was published since (its number is the book's).
        if let Some((_, m)) =
            last.filter(|(_, m)| out.last_seq == Some(out.seq) && !m.payload.is_empty())
        {
            return Some(Answer {
                snapshot: m.clone(),
                fresh: false,
            });
        }
        let recent =
            last.is_some_and(|(t, _)| now_ms.saturating_sub(*t) < self.config.request_every_ms);
        if !recent && self.requests.1 < self.config.requests_per_s {
            let snapshot = self.snapshot(market, now_ms)?;
            self.requests.1 = self.requests.1.saturating_add(1);
            return Some(Answer {
                snapshot,
                fresh: true,
            });
        }
        last.map(|(_, m)| Answer {
            snapshot: m.clone(),
            fresh: false,
        })
    }

    /// The heartbeat now.
    pub fn heartbeat(&self, now_ms: i64) -> Outgoing {
        let mut markets: Vec<String> = self.markets.keys().cloned().collect();
        markets.sort();
        let h = Heartbeat {
            v: VERSION,
            feed: self.config.feed.clone(),
            run: self.config.run.clone(),
            feed_ms: now_ms,
            markets,
            published: self.published,
        };
        Outgoing {
            subject: heartbeat_subject(&self.config.prefix, &self.config.feed),
            payload: serde_json::to_vec(&h).unwrap_or_default(),
        }
    }

    /// Messages published in this run (snapshots included).
    pub fn published(&self) -> u64 {
        self.published
    }
}

/// The fields of a JSON object in arrival order, each as its text.
struct Fields(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an event object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Fields, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = a.next_entry::<String, Box<RawValue>>()? {
                    v.push((k, x));
                }
                Ok(Fields(v))
            }
        }
        d.deserialize_map(V)
    }
}

impl Fields {
    fn get<T: serde::de::DeserializeOwned>(&self, name: &'static str) -> Result<T, Error> {
        let text = self
            .0
            .iter()
            .find(|(k, _)| k == name)
            .map_or("null", |(_, v)| v.get());
        serde_json::from_str(text).map_err(|e| Error::validation("event", format!("`{name}`: {e}")))
    }

    /// The object without its `type` (a newtype variant's model), as JSON text.
    fn model<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        let mut text = String::from("{");
        for (k, v) in self.0.iter().filter(|(k, _)| k != "type") {
            if text.len() > 1 {
                text.push(',');
            }
            text.push_str(&serde_json::to_string(k).unwrap_or_default());
            text.push(':');
            text.push_str(v.get());
        }
        text.push('}');
        serde_json::from_str(&text).map_err(|e| Error::validation("event", e.to_string()))
    }

    fn subscription(&self) -> Result<Subscription, Error> {
        #[derive(Deserialize)]
        struct Sub {
            family: String,
            channel: String,
            target: Option<String>,
            level: Option<u16>,
            granularity: Option<String>,
        }
        let s: Sub = self.get("subscription")?;
        let family = match s.family.as_str() {
            "spot" => Family::Spot,
            "swap" => Family::Swap,
            other => {
                return Err(Error::validation(
                    "event",
                    format!("family `{other}` is not spot or swap"),
                ))
            }
        };
        let bad = |e: crate::ws::SubscribeError| Error::validation("event", e.to_string());
        let channel = Channel::from_wire(&s.channel).ok_or_else(|| {
            Error::validation("event", format!("`{}` is not a channel", s.channel))
        })?;
        let mut sub = Subscription::new(family, channel, s.target.as_deref()).map_err(bad)?;
        // As written: a level or granularity only where the text has one.
        let (level, granularity) = (sub.level.take(), sub.granularity.take());
        if let Some(l) = s.level {
            sub.level = level;
            sub = sub.with_level(l).map_err(bad)?;
        }
        if let Some(g) = &s.granularity {
            sub.granularity = granularity;
            sub = sub.with_granularity(g).map_err(bad)?;
        }
        Ok(sub)
    }
}

/// Reads back an event of a feed from its JSON text (an [`Output::Event`] line, a
/// [`Message::event`]): the market-data events a feed publishes and the consumer's markers
/// ([`Event::Resync`], [`Event::Gap`]). Written again, it is the same text.
pub fn parse_event(text: &str) -> Result<Event, Error> {
    let f: Fields = serde_json::from_str(text)
        .map_err(|e| Error::validation("event", format!("not an event object: {e}")))?;
    let kind: String = f.get("type")?;
    Ok(match kind.as_str() {
        "book" => Event::Book(BookUpdate {
            subscription: f.subscription()?,
            snapshot: f.get("snapshot")?,
            bids: f.get("bids")?,
            asks: f.get("asks")?,
            timestamp: f.get("timestamp")?,
            best_bid: f.get("best_bid")?,
            best_ask: f.get("best_ask")?,
            depth: f.get("depth")?,
        }),
        "spot_trades" => Event::SpotTrades {
            symbol: f.get("symbol")?,
            snapshot: f.get("snapshot")?,
            trades: f.get("trades")?,
        },
        "spot_tickers" => Event::SpotTickers {
            all: f.get("all")?,
            tickers: f.get("tickers")?,
        },
        "swap_ticker" => Event::SwapTicker(f.model()?),
        "swap_all_tickers" => Event::SwapAllTickers {
            tickers: f.get("tickers")?,
        },
        "swap_trades" => Event::SwapTrades {
            snapshot: f.get("snapshot")?,
            trades: f.get("trades")?,
        },
        "swap_candle" => Event::SwapCandle(f.model()?),
        "swap_mark_candle" => Event::SwapMarkCandle(f.model()?),
        "swap_index_price" => Event::SwapIndexPrice(f.model()?),
        "swap_mark_price" => Event::SwapMarkPrice(f.model()?),
        "swap_price_range" => Event::SwapPriceRange(f.model()?),
        "swap_funding_rate" => Event::SwapFundingRate(f.model()?),
        "swap_settle_price" => Event::SwapSettlePrice(f.model()?),
        "resync" => Event::Resync {
            subscription: f.subscription()?,
            reason: f.get("reason")?,
            retry_in_ms: f.get("retry_in_ms")?,
        },
        "gap" => Event::Gap {
            subscription: f.subscription()?,
            missed: f.get("missed")?,
        },
        other => {
            return Err(Error::validation(
                "event",
                format!("`{other}` is not an event a feed carries"),
            ))
        }
    })
}

/// What a consumer gives.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Output {
    /// An event, as its JSON text (the line `digifinex stream` prints; [`parse_event`] reads
    /// it back), and when the feed took it (`None` for a marker this consumer made: a jump).
    Event {
        /// The event's JSON text.
        line: String,
        /// [`Message::feed_ms`].
        feed_ms: Option<i64>,
    },
    /// A book needs a snapshot: read the last one stored on `subject` (or ask a feed for a
    /// fresh one on [`request_subject`]) and give it to [`Consumer::handle_snapshot`].
    NeedSnapshot {
        /// The market stream (`spot:depth:BTC_USDT`).
        market: String,
        /// Its snapshot subject.
        subject: String,
    },
}

#[derive(Debug)]
enum State {
    /// A book waiting for a snapshot, with what came meanwhile.
    Waiting(VecDeque<Message>),
    /// In order: the run and the next sequence number.
    Live { run: String, next: u64 },
    /// Nothing seen yet (a channel without snapshots).
    New,
}

#[derive(Debug)]
struct In {
    sub: Subscription,
    depth: bool,
    state: State,
    snapshot_subject: Option<String>,
}

/// A consumer's side (see the module docs).
#[derive(Debug)]
pub struct Consumer {
    markets: HashMap<String, In>,
    out: VecDeque<Output>,
    /// Messages of markets not wanted, or unreadable, so far.
    ignored: u64,
    /// Snapshots not taken because they were older than what their book held.
    stale: u64,
}

impl Consumer {
    /// A consumer of the market streams of `subs` (public channels with a target, or
    /// `all_ticker`); each book starts by asking for its snapshot ([`Output::NeedSnapshot`]).
    pub fn new(prefix: &str, subs: &[Subscription]) -> Result<Consumer, Error> {
        let mut markets = HashMap::new();
        let mut out = VecDeque::new();
        for s in subs {
            let sub = market_of(s);
            subject(prefix, &sub)?;
            let depth = sub.channel == Channel::Depth;
            let snapshot_subject = if depth {
                Some(snapshot_subject(prefix, &sub)?)
            } else {
                None
            };
            let key = sub.to_string();
            if markets.contains_key(&key) {
                continue;
            }
            if let Some(subject) = &snapshot_subject {
                out.push_back(Output::NeedSnapshot {
                    market: key.clone(),
                    subject: subject.clone(),
                });
            }
            markets.insert(
                key,
                In {
                    sub,
                    depth,
                    state: if depth {
                        State::Waiting(VecDeque::new())
                    } else {
                        State::New
                    },
                    snapshot_subject,
                },
            );
        }
        Ok(Consumer {
            markets,
            out,
            ignored: 0,
            stale: 0,
        })
    }

    /// The subjects of the market streams wanted.
    pub fn subjects(&self, prefix: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .markets
            .values()
            .filter_map(|m| subject(prefix, &m.sub).ok())
            .collect();
        v.sort();
        v
    }

    /// Takes a message of a market stream (from its subject).
    pub fn handle_message(&mut self, payload: &[u8]) -> Result<(), Error> {
        let m = match Message::parse(payload) {
            Ok(m) => m,
            Err(e) => {
                self.ignored = self.ignored.saturating_add(1);
                return Err(e);
            }
        };
        if m.kind == Kind::Snapshot {
            return self.take_snapshot(m);
        }
        self.take(m);
        Ok(())
    }

    /// Takes a snapshot message (from the snapshot subject, or a feed's reply).
    pub fn handle_snapshot(&mut self, payload: &[u8]) -> Result<(), Error> {
        let m = Message::parse(payload)?;
        if m.kind != Kind::Snapshot {
            return Err(Error::validation("message", "not a snapshot"));
        }
        self.take_snapshot(m)
    }

    /// The next output, in order.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// Whether the book of `market` (`spot:depth:BTC_USDT`) waits for a snapshot.
    pub fn is_waiting(&self, market: &str) -> bool {
        self.markets
            .get(market)
            .is_some_and(|m| matches!(m.state, State::Waiting(_)))
    }

    /// Messages ignored so far (unreadable, or of a market not wanted).
    pub fn ignored(&self) -> u64 {
        self.ignored
    }

    /// Snapshots not taken so far because they were older than the events their waiting book
    /// already held (the events between were lost: the book goes on waiting, and
    /// [`Consumer::is_waiting`] says so, for a newer snapshot).
    pub fn stale_snapshots(&self) -> u64 {
        self.stale
    }

    fn take_snapshot(&mut self, m: Message) -> Result<(), Error> {
        let Some(market) = self.markets.get_mut(&m.market) else {
            self.ignored = self.ignored.saturating_add(1);
            return Ok(());
        };
        // A book in order needs no snapshot (one asked for twice, say).
        let waiting = match &mut market.state {
            State::Waiting(w) => {
                // Older than what the book holds of the same run (a feed's last snapshot given
                // again): the events between are gone, so the book waits for a newer one.
                let low = w.iter().filter(|x| x.run == m.run).map(|x| x.seq).min();
                if low.is_some_and(|low| m.seq.saturating_add(1) < low) {
                    self.stale = self.stale.saturating_add(1);
                    return Ok(());
                }
                std::mem::take(w)
            }
            _ => return Ok(()),
        };
        self.start_from(m, waiting);
        Ok(())
    }

    /// A book starts from `m` (a snapshot, or the venue's `reset` event): its event is given,
    /// the book goes on at the next number, then what came meanwhile: `m`'s run after it goes
    /// on; the rest (older numbers, other runs) is dropped.
    fn start_from(&mut self, m: Message, waiting: VecDeque<Message>) {
        let (run, seq) = (m.run.clone(), m.seq);
        if let Some(market) = self.markets.get_mut(&m.market) {
            market.state = State::Live {
                run: run.clone(),
                next: seq.saturating_add(1),
            };
        }
        self.out.push_back(Output::Event {
            line: m.event.get().to_owned(),
            feed_ms: Some(m.feed_ms),
        });
        for w in waiting {
            if w.run != run || w.seq <= seq {
                continue;
            }
            self.take(w);
        }
    }

    fn take(&mut self, m: Message) {
        let Some(market) = self.markets.get_mut(&m.market) else {
            self.ignored = self.ignored.saturating_add(1);
            return;
        };
        match &mut market.state {
            State::Waiting(w) => {
                if m.reset && m.kind == Kind::Event {
                    let waiting = std::mem::take(w);
                    self.start_from(m, waiting);
                } else {
                    if w.len() >= MAX_WAITING {
                        w.pop_front();
                    }
                    w.push_back(m);
                }
            }
            State::New => {
                market.state = State::Live {
                    run: m.run.clone(),
                    next: m.seq.saturating_add(1),
                };
                self.out.push_back(Output::Event {
                    line: m.event.get().to_owned(),
                    feed_ms: Some(m.feed_ms),
                });
            }
            State::Live { run, next } => {
                let same_run = *run == m.run;
                if same_run && m.seq < *next {
                    // Seen already (a redelivery).
                    return;
                }
                if same_run && m.seq == *next {
                    *next = next.saturating_add(1);
                    self.out.push_back(Output::Event {
                        line: m.event.get().to_owned(),
                        feed_ms: Some(m.feed_ms),
                    });
                    if m.kind == Kind::Gap && market.depth {
                        // The feed's book restarts from the venue's next snapshot.
                        market.state = State::Waiting(VecDeque::new());
                    }
                    return;
                }
                // A jump: within the run, or a new run of the feed.
                let missed = if same_run {
                    m.seq.saturating_sub(*next)
                } else {
                    0
                };
                if market.depth {
                    if m.reset && m.kind == Kind::Event {
                        *run = m.run.clone();
                        *next = m.seq.saturating_add(1);
                        self.out.push_back(Output::Event {
                            line: m.event.get().to_owned(),
                            feed_ms: Some(m.feed_ms),
                        });
                        return;
                    }
                    let resync = Event::Resync {
                        subscription: market.sub.clone(),
                        reason: ResyncReason::FeedGap,
                        retry_in_ms: 0,
                    };
                    if let Ok(text) = serde_json::to_string(&resync) {
                        self.out.push_back(Output::Event {
                            line: text,
                            feed_ms: None,
                        });
                    }
                    let mut w = VecDeque::new();
                    w.push_back(m);
                    market.state = State::Waiting(w);
                    if let Some(subject) = &market.snapshot_subject {
                        self.out.push_back(Output::NeedSnapshot {
                            market: market.sub.to_string(),
                            subject: subject.clone(),
                        });
                    }
                } else {
                    if missed > 0 || !same_run {
                        let gap = Event::Gap {
                            subscription: market.sub.clone(),
                            missed,
                        };
                        if let Ok(text) = serde_json::to_string(&gap) {
                            self.out.push_back(Output::Event {
                                line: text,
                                feed_ms: None,
                            });
                        }
                    }
                    *run = m.run.clone();
                    *next = m.seq.saturating_add(1);
                    self.out.push_back(Output::Event {
                        line: m.event.get().to_owned(),
                        feed_ms: Some(m.feed_ms),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ws::Level;
    use rust_decimal::Decimal;

    fn sub(s: &str) -> Subscription {
        s.parse().unwrap()
    }

    fn lv(p: i64, s: i64) -> Level {
        Level::new(Decimal::from(p), Decimal::from(s))
    }

    fn book(snapshot: bool, bids: Vec<Level>, asks: Vec<Level>) -> Event {
        let best_bid = bids.first().copied();
        let best_ask = asks.first().copied();
        let depth = (bids.len(), asks.len());
        Event::Book(BookUpdate {
            subscription: sub("spot:depth:btc_usdt"),
            snapshot,
            bids,
            asks,
            timestamp: None,
            best_bid,
            best_ask,
            depth,
        })
    }

    fn publisher() -> Publisher {
        Publisher::new(PublisherConfig::new("a", "run1")).unwrap()
    }

    fn lines(c: &mut Consumer) -> Vec<String> {
        let mut v = Vec::new();
        while let Some(o) = c.poll_output() {
            match o {
                Output::Event { line, .. } => v.push(line),
                Output::NeedSnapshot { market, subject } => {
                    v.push(format!("need {market} {subject}"))
                }
            }
        }
        v
    }

    #[test]
    fn subjects_name_family_channel_and_market() {
        let p = DEFAULT_PREFIX;
        assert_eq!(
            subject(p, &sub("spot:depth:BTC_USDT")).unwrap(),
            "digifinex.spot.depth.btc_usdt"
        );
        assert_eq!(
            subject(p, &sub("swap:trades:BTCUSDTPERP")).unwrap(),
            "digifinex.swap.trades.BTCUSDTPERP"
        );
        assert_eq!(
            subject(p, &sub("swap:cur_candle:BTCUSDTPERP:5m")).unwrap(),
            "digifinex.swap.cur_candle.BTCUSDTPERP.5m"
        );
        assert_eq!(
            snapshot_subject(p, &sub("swap:depth:BTCUSDTPERP:100")).unwrap(),
            "digifinex.snapshot.swap.depth.BTCUSDTPERP"
        );
        assert_eq!(
            stream_subjects(p),
            [
                "digifinex.spot.>",
                "digifinex.swap.>",
                "digifinex.snapshot.>",
                "digifinex.heartbeat.>"
            ]
        );
        // Never captured by the stream (a request there would be answered by JetStream).
        assert!(!request_subject(p).starts_with("digifinex.spot."));
        let e = subject(p, &sub("spot:order")).unwrap_err();
        assert!(e.to_string().contains("private"), "{e}");
        assert!(Publisher::new(PublisherConfig::new("a.b", "r")).is_err());
    }

    #[test]
    fn a_consumer_gets_the_events_in_order_from_the_venue_snapshot() {
        let mut p = publisher();
        let a = p.handle_event(&book(true, vec![lv(100, 1)], vec![lv(101, 1)]), 1);
        let b = p.handle_event(&book(false, vec![lv(100, 2)], vec![]), 2);
        assert_eq!(a[0].subject, "digifinex.spot.depth.btc_usdt");
        let m = Message::parse(&b[0].payload).unwrap();
        assert_eq!(
            (m.seq, m.kind, m.reset, m.feed_ms),
            (2, Kind::Event, false, 2)
        );
        let mut c = Consumer::new(DEFAULT_PREFIX, &[sub("spot:depth:btc_usdt")]).unwrap();
        assert_eq!(
            lines(&mut c),
            ["need spot:depth:BTC_USDT digifinex.snapshot.spot.depth.btc_usdt"]
        );
        for o in a.iter().chain(&b) {
            c.handle_message(&o.payload).unwrap();
        }
        let got = lines(&mut c);
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[1],
            serde_json::to_string(&book(false, vec![lv(100, 2)], vec![])).unwrap()
        );
    }

    #[test]
    fn a_flood_of_snapshot_requests_builds_few_snapshots() {
        let mut config = PublisherConfig::new("a", "run1");
        config.requests_per_s = 2;
        let mut p = Publisher::new(config).unwrap();
        let key = "spot:depth:BTC_USDT";
        let seq = |a: &Answer| Message::parse(&a.snapshot.payload).unwrap().seq;
        assert_eq!(p.answer(key, 1_000), None, "no book yet");
        p.handle_event(&book(true, vec![lv(100, 1)], vec![lv(101, 1)]), 1_000);
        let first = p.answer(key, 1_000).unwrap();
        assert!(first.fresh);
        // Nothing published since: the same snapshot, exact, however many ask.
        for t in 1_001..1_100 {
            assert_eq!(
                p.answer(key, t).unwrap(),
                Answer {
                    fresh: false,
                    ..first.clone()
                }
            );
        }
        // A delta since: within 250 ms of the last one built, that one again (older than the
        // book: a consumer that holds newer events waits for the next).
        p.handle_event(&book(false, vec![lv(99, 4)], vec![]), 1_100);
        let stale = p.answer(key, 1_200).unwrap();
        assert!(!stale.fresh);
        assert_eq!(seq(&stale), 1);
        // Past 250 ms a fresh one, the second and last of this second's budget.
        let fresh = p.answer(key, 1_250).unwrap();
        assert!(fresh.fresh);
        assert_eq!(seq(&fresh), 2);
        p.handle_event(&book(false, vec![lv(98, 1)], vec![]), 1_300);
        let spent = p.answer(key, 1_600).unwrap();
        assert!(!spent.fresh);
        assert_eq!(seq(&spent), 2);
        // A new second, a new budget.
        let next = p.answer(key, 2_000).unwrap();
        assert!(next.fresh);
        assert_eq!(seq(&next), 3);
        assert_eq!(p.answer("spot:depth:ETH_USDT", 2_000), None);
    }

    #[test]
    fn a_snapshot_older_than_what_a_waiting_book_holds_is_not_taken() {
        let mut p = publisher();
        let a = p.handle_event(&book(true, vec![lv(100, 1)], vec![lv(101, 1)]), 1);
        let old = p.snapshot("spot:depth:BTC_USDT", 1).unwrap();
        let _lost2 = p.handle_event(&book(false, vec![lv(99, 5)], vec![]), 2);
        let _lost3 = p.handle_event(&book(false, vec![lv(98, 5)], vec![]), 3);
        let d4 = p.handle_event(&book(false, vec![lv(97, 5)], vec![]), 4);
        let mut c = Consumer::new(DEFAULT_PREFIX, &[sub("spot:depth:btc_usdt")]).unwrap();
        lines(&mut c);
        c.handle_message(&a[0].payload).unwrap();
        c.handle_message(&d4[0].payload).unwrap();
        let got = lines(&mut c);
        assert!(got[1].starts_with(r#"{"type":"resync""#), "{got:?}");
        // The snapshot of seq 1 misses 2 and 3: refused, still waiting.
        c.handle_snapshot(&old.payload).unwrap();
        assert!(lines(&mut c).is_empty());
        assert!(c.is_waiting("spot:depth:BTC_USDT"));
        assert_eq!(c.stale_snapshots(), 1);
        // One that holds 3 is taken, and 4 follows.
        let new = p.snapshot("spot:depth:BTC_USDT", 5).unwrap();
        assert_eq!(Message::parse(&new.payload).unwrap().seq, 4);
        c.handle_snapshot(&new.payload).unwrap();
        let got = lines(&mut c);
        assert_eq!(got.len(), 1, "the held 4 is in the snapshot: {got:?}");
        assert!(!c.is_waiting("spot:depth:BTC_USDT"));
    }

    #[test]
    fn a_late_consumer_starts_from_the_feeds_snapshot_and_drops_what_it_holds() {
        let mut p = publisher();
        p.handle_event(&book(true, vec![lv(100, 1)], vec![lv(101, 1)]), 1);
        let d2 = p.handle_event(&book(false, vec![lv(99, 5)], vec![]), 2);
        let snap = p.snapshot("spot:depth:BTC_USDT", 3).unwrap();
        assert_eq!(snap.subject, "digifinex.snapshot.spot.depth.btc_usdt");
        let d3 = p.handle_event(&book(false, vec![], vec![lv(101, 0), lv(102, 3)]), 4);
        let mut c = Consumer::new(DEFAULT_PREFIX, &[sub("spot:depth:btc_usdt")]).unwrap();
        lines(&mut c);
        // The deltas arrive before the snapshot: held, then the older one dropped.
        c.handle_message(&d2[0].payload).unwrap();
        c.handle_message(&d3[0].payload).unwrap();
        assert!(lines(&mut c).is_empty());
        c.handle_snapshot(&snap.payload).unwrap();
        let got = lines(&mut c);
        assert_eq!(got.len(), 2, "{got:?}");
        let s: serde_json::Value = serde_json::from_str(&got[0]).unwrap();
        assert_eq!(s["snapshot"], true);
        assert_eq!(s["bids"], serde_json::json!([["100", "1"], ["99", "5"]]));
        assert_eq!(s["depth"], serde_json::json!([2, 1]));
        let d: serde_json::Value = serde_json::from_str(&got[1]).unwrap();
        assert_eq!(d["asks"], serde_json::json!([["101", "0"], ["102", "3"]]));
    }

    #[test]
    fn a_jump_is_a_resync_for_a_book_and_a_gap_elsewhere_never_silent() {
        let mut p = publisher();
        let s1 = p.handle_event(&book(true, vec![lv(100, 1)], vec![lv(101, 1)]), 1);
        let _lost = p.handle_event(&book(false, vec![lv(100, 2)], vec![]), 2);
        let d3 = p.handle_event(&book(false, vec![lv(100, 3)], vec![]), 3);
        let mut c = Consumer::new(DEFAULT_PREFIX, &[sub("spot:depth:btc_usdt")]).unwrap();
        lines(&mut c);
        c.handle_message(&s1[0].payload).unwrap();
        c.handle_message(&d3[0].payload).unwrap();
        let got = lines(&mut c);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(
            got[1],
            r#"{"type":"resync","subscription":{"family":"spot","channel":"depth","target":"BTC_USDT"},"reason":"feed_gap","retry_in_ms":0}"#
        );
        assert!(got[2].starts_with("need spot:depth:BTC_USDT"));
        // The fresh snapshot puts it back in order, and a repeat is dropped.
        let snap = p.snapshot("spot:depth:BTC_USDT", 4).unwrap();
        c.handle_snapshot(&snap.payload).unwrap();
        c.handle_message(&d3[0].payload).unwrap();
        let got = lines(&mut c);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].contains(r#""bids":[["100","3"]]"#), "{got:?}");

        // Trades: the jump is reported with what was missed, then the events go on.
        let trade = |id: &str| {
            Event::SwapTrades {
            snapshot: false,
            trades: vec![serde_json::from_str(&format!(
                r#"{{"trade_id":"{id}","instrument_id":"BTCUSDTPERP","price":"1","volume":"2","direction":"1","trade_time":5}}"#
            ))
            .unwrap()],
        }
        };
        let t1 = p.handle_event(&trade("1"), 5);
        p.handle_event(&trade("2"), 6);
        p.handle_event(&trade("3"), 7);
        let t4 = p.handle_event(&trade("4"), 8);
        assert_eq!(t1[0].subject, "digifinex.swap.trades.BTCUSDTPERP");
        let m = Message::parse(&t4[0].payload).unwrap();
        assert_eq!(m.venue_ms, Some(5));
        let mut c = Consumer::new(DEFAULT_PREFIX, &[sub("swap:trades:BTCUSDTPERP")]).unwrap();
        c.handle_message(&t1[0].payload).unwrap();
        c.handle_message(&t4[0].payload).unwrap();
        let got = lines(&mut c);
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[1],
            r#"{"type":"gap","subscription":{"family":"swap","channel":"trades","target":"BTCUSDTPERP"},"missed":2}"#
        );
    }

    #[test]
    fn a_new_run_drops_what_an_old_run_left_waiting() {
        let mut p = publisher();
        let a1 = p.handle_event(&book(true, vec![lv(100, 1)], vec![lv(101, 1)]), 1);
        p.handle_event(&book(false, vec![lv(100, 2)], vec![]), 2);
        let a3 = p.handle_event(&book(false, vec![lv(100, 3)], vec![]), 3);
        let mut q = Publisher::new(PublisherConfig::new("b", "run2")).unwrap();
        let b1 = q.handle_event(&book(true, vec![lv(90, 1)], vec![lv(91, 1)]), 9);
        let mut c = Consumer::new(DEFAULT_PREFIX, &[sub("spot:depth:btc_usdt")]).unwrap();
        lines(&mut c);
        c.handle_message(&a1[0].payload).unwrap();
        // A jump leaves a3 waiting; the other run's snapshot then starts the book alone.
        c.handle_message(&a3[0].payload).unwrap();
        assert!(c.is_waiting("spot:depth:BTC_USDT"));
        lines(&mut c);
        c.handle_message(&b1[0].payload).unwrap();
        let got = lines(&mut c);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].contains(r#""bids":[["90","1"]]"#), "{got:?}");
        assert!(!c.is_waiting("spot:depth:BTC_USDT"));
    }

    #[test]
    fn a_restarted_feed_is_taken_from_its_first_snapshot() {
        let mut p = publisher();
        let a = p.handle_event(&book(true, vec![lv(100, 1)], vec![lv(101, 1)]), 1);
        let mut q = Publisher::new(PublisherConfig::new("a", "run2")).unwrap();
        let b = q.handle_event(&book(true, vec![lv(90, 1)], vec![lv(91, 1)]), 9);
        let b2 = q.handle_event(&book(false, vec![lv(90, 2)], vec![]), 10);
        let mut c = Consumer::new(DEFAULT_PREFIX, &[sub("spot:depth:btc_usdt")]).unwrap();
        lines(&mut c);
        for o in [&a[0], &b[0], &b2[0]] {
            c.handle_message(&o.payload).unwrap();
        }
        let got = lines(&mut c);
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.iter().all(|l| !l.contains("resync")));
    }

    #[test]
    fn private_data_and_connection_states_are_not_published() {
        let mut p = publisher();
        let e = Event::Connected {
            family: Family::Spot,
            socket: 0,
        };
        assert!(p.handle_event(&e, 1).is_empty());
        let e = Event::SpotOrders { orders: vec![] };
        assert!(p.handle_event(&e, 1).is_empty());
        assert_eq!(p.published(), 0);
        let h: Heartbeat = serde_json::from_slice(&p.heartbeat(5).payload).unwrap();
        assert_eq!((h.feed.as_str(), h.feed_ms, h.published), ("a", 5, 0));
    }

    #[test]
    fn snapshots_come_when_due() {
        let mut p = publisher();
        assert_eq!(p.poll_timeout(), None);
        p.handle_event(&book(true, vec![lv(100, 1)], vec![lv(101, 1)]), 1_000);
        assert_eq!(p.poll_timeout(), Some(31_000));
        assert!(p.handle_timeout(30_999).is_empty());
        let due = p.handle_timeout(31_000);
        assert_eq!(due.len(), 1);
        assert_eq!(p.poll_timeout(), Some(61_000));
    }

    #[test]
    fn every_event_a_feed_carries_reads_back_as_the_same_text() {
        use crate::ws::{decode_frame, Frame};
        let frames: [(Family, &str); 9] = [
            (
                Family::Swap,
                r#"{"event":"fund_rate.update","data":{"instrument_id":"BTCUSDTPERP","funding_rate":"0.0001","funding_time":1758614400000,"next_funding_rate":"-3e-05","next_funding_time":1758643200000}}"#,
            ),
            (
                Family::Swap,
                r#"{"event":"ticker.update","data":{"instrument_id":"BTCUSDTPERP","best_bid":"86658.0","best_bid_size":"124.000000","last_qty":"47.000000","volume_24h":"127958869","volume_token_24h":"127958.869","open_interest":"-","timestamp":1758598000000,"new_field":[1,{"a":"b"}],"z":"last"}}"#,
            ),
            (
                Family::Swap,
                r#"{"event":"trades.update","data":[{"instrument_id":"BTCUSDTPERP","trade_id":"1234567890123456789","direction":"4","volume":"3","price":"86658.1","trade_time":1758598000000}],"full_data":true}"#,
            ),
            (
                Family::Swap,
                r#"{"event":"mark_price.update","data":{"instrument_id":"BTCUSDTPERP","mark_price":"86737.4","timestamp":1}}"#,
            ),
            (
                Family::Swap,
                r#"{"event":"index_price.update","data":{"instrument_id":"BTCUSDTPERP","index_price":"86737.40","timestamp":2}}"#,
            ),
            (
                Family::Swap,
                r#"{"event":"depth.update","data":{"instrument_id":"BTCUSDTPERP","level":20,"timestamp":7,"asks":[["100.50",3]],"bids":[["100",1]]},"full_data":true}"#,
            ),
            (
                Family::Spot,
                r#"{"method":"trades.update","params":[true,[{"id":7172173,"time":1523339279.761838,"price":"398.59","amount":"0.027","type":"buy"},{"id":7172172,"time":1597419159,"price":"398.58","amount":"1","type":"sell"}],"ETH_USDT"],"id":null}"#,
            ),
            (
                Family::Spot,
                r#"{"method":"ticker.update","params":[{"symbol":"BTC_USDT","last":"6795.07","timestamp":1523338956129}],"id":null}"#,
            ),
            (
                Family::Spot,
                r#"{"method":"depth.update","params":[true,{"asks":[["101","2"]],"bids":[["100","1.50"]]},"BTC_USDT"],"id":null}"#,
            ),
        ];
        let mut seen = 0;
        for (family, frame) in frames {
            let events = decode_frame(family, Frame::Text(frame)).unwrap();
            assert!(!events.is_empty(), "{frame}");
            for e in events {
                let text = serde_json::to_string(&e).unwrap();
                let back = parse_event(&text).unwrap_or_else(|err| panic!("{text}: {err}"));
                assert_eq!(serde_json::to_string(&back).unwrap(), text);
                seen += 1;
            }
        }
        assert!(seen >= 9);
        // The consumer's markers too.
        for text in [
            r#"{"type":"resync","subscription":{"family":"swap","channel":"depth","target":"BTCUSDTPERP","level":100},"reason":"feed_gap","retry_in_ms":0}"#,
            r#"{"type":"gap","subscription":{"family":"swap","channel":"candle","target":"BTCUSDTPERP","granularity":"5m"},"missed":3}"#,
        ] {
            let back = parse_event(text).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), text);
        }
        for bad in [
            "",
            "[]",
            r#"{"type":"connected","family":"spot","socket":0}"#,
            r#"{"type":"book"}"#,
            r#"{"type":"gap","subscription":{"family":"moon","channel":"depth"},"missed":1}"#,
        ] {
            assert!(parse_event(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn markets_are_split_stably_and_only_a_leavers_move() {
        let markets: Vec<String> = (0..200).map(|i| format!("spot:M{i}_USDT")).collect();
        let three = ["a", "b", "c"];
        let two = ["a", "c"];
        let mut count = std::collections::HashMap::new();
        for m in &markets {
            let before = owner(m, &three).unwrap();
            *count.entry(before).or_insert(0) += 1;
            let after = owner(m, &two).unwrap();
            // Only b's markets move, and the order of the list does not matter.
            if before != "b" {
                assert_eq!(after, before);
            }
            assert_eq!(owner(m, &["c", "b", "a"]), Some(before));
        }
        // Each feed gets a share (200 markets, three feeds).
        assert!(count.values().all(|n| *n > 40), "{count:?}");
        assert_eq!(owner("spot:BTC_USDT", &[]), None);
        // Fixed values, computed independently (FNV-1a in Python): the assignment is the same
        // in every version and on every machine, so feeds of different builds agree.
        let fixed: Vec<&str> = ["spot:BTC_USDT", "spot:ETH_USDT", "swap:BTCUSDTPERP"]
            .iter()
            .filter_map(|m| owner(m, &three))
            .collect();
        assert_eq!(fixed, ["a", "a", "b"]);
    }

    #[test]
    fn bad_messages_are_errors_not_panics() {
        let mut c = Consumer::new(DEFAULT_PREFIX, &[sub("spot:trades:btc_usdt")]).unwrap();
        for bad in [&b""[..], b"{", b"[1]", br#"{"v":2}"#, &[0xff; 10]] {
            assert!(c.handle_message(bad).is_err());
        }
        assert!(c.handle_message(&vec![b' '; MAX_MESSAGE + 1]).is_err());
        assert_eq!(c.ignored(), 6);
    }
}
