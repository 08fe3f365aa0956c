//! `digifinex feed` (with the `feed` feature): one process holds the venue's sockets for a list of markets and publishes
//! their normalised events to NATS JetStream (`digifinex_core::feed` says what is published);
//! `digifinex stream --feed URL SUB...` reads them back as the same event lines.
//!
//! DESIGN:
//! - The venue side is the recorder's (`record --source ws`): one stream per family from the
//!   blocking client, sharded over as many sockets as the subscriptions need and recycled
//!   without gaps by the stream itself; per spot pair depth, trades and ticker; per swap
//!   instrument depth (the level that holds `--depth`), trades, ticker, index, mark and funding.
//!   The streams run on their own threads and hand their events over a bounded queue.
//! - The broker side runs on a current-thread tokio runtime: the JetStream stream (created, or
//!   updated to this window, when the feed starts; file storage, old messages discarded first,
//!   direct reads allowed) keeps [`stream_subjects`] for `--window-s`. Publishes are pipelined,
//!   at most [`IN_FLIGHT`] unacknowledged; a refused or unanswered publish is counted and shown
//!   on stderr (the consumers see the gap in the sequence), never retried out of order. A
//!   heartbeat every second, a snapshot of each live book every `--snapshot-every-s`, and one
//!   on request (a consumer's request on `{prefix}.request.snapshot`: the reply is the snapshot,
//!   also published; bounded by `feed::Publisher::answer`: a book's snapshot is built at most
//!   every 250 ms and 100 a second in all, other requests get the last one again).
//! - `stream --feed` and `record --source feed` read through the blocking client's feed
//!   reader (`digifinex_ureq::feed::FeedReader`, whose docs say how): the same reader a Rust
//!   program's `client.stream(..).from_feed(..)` uses.

use std::collections::{HashMap, VecDeque};
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::feed::{FeedArgs, FeedSource};
use async_nats::jetstream::{self, stream};
use digifinex_core::feed::{self, request_subject, stream_subjects, Publisher, PublisherConfig};
use digifinex_core::ws::{Event, Subscription};
use digifinex_core::Family;
use digifinex_ureq::feed::{FeedItem, FeedReader};
use digifinex_ureq::Client;
use futures_util::StreamExt;

use crate::live::start_sim;
use crate::Failure;

/// Events held between the venue's streams and the publisher.
const QUEUE: usize = 16_384;

/// Publishes waiting for JetStream's acknowledgement at most.
const IN_FLIGHT: usize = 512;

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the runtime: {e}")))
}

async fn connect(
    url: &str,
    creds: Option<&std::path::Path>,
    name: &str,
) -> Result<async_nats::Client, Failure> {
    let mut options = async_nats::ConnectOptions::new()
        .name(name)
        .connection_timeout(Duration::from_secs(5))
        .request_timeout(Some(Duration::from_secs(5)));
    if let Some(path) = creds {
        options = options
            .credentials_file(path)
            .await
            .map_err(|e| Failure::Usage(format!("--nats-creds {}: {e}", path.display())))?;
    }
    options
        .connect(url)
        .await
        .map_err(|e| Failure::Other(format!("cannot reach the NATS server {url}: {e}")))
}

/// `all` as the only market: every listed one.
fn expand(client: &Client, list: &mut Vec<String>, family: Family) -> Result<(), Failure> {
    if !(list.len() == 1 && list.first().is_some_and(|s| s.eq_ignore_ascii_case("all"))) {
        return Ok(());
    }
    *list = match family {
        Family::Spot => client
            .send(&digifinex_core::spot::SpotSymbolsRequest::new())?
            .symbol_list
            .iter()
            .map(|s| s.symbol.as_str().to_ascii_lowercase())
            .collect(),
        _ => client
            .send(&digifinex_core::swap::InstrumentsRequest::new())?
            .iter()
            .map(|i| i.instrument_id.clone())
            .collect(),
    };
    Ok(())
}

pub(crate) fn run(mut args: FeedArgs) -> Result<(), Failure> {
    if args.spot.is_empty() && args.swap.is_empty() {
        return Err(Failure::Usage(
            "nothing to feed: give --spot PAIRS and/or --swap IDS (comma-separated)".to_owned(),
        ));
    }
    feed::check_feed_name(&args.name).map_err(|e| Failure::Usage(format!("--name: {e}")))?;
    if !(1..=30 * 86_400).contains(&args.window_s) {
        return Err(Failure::Usage("--window-s: from 1 to 2592000".to_owned()));
    }
    if !(1..=3_600).contains(&args.snapshot_every_s) {
        return Err(Failure::Usage(
            "--snapshot-every-s: from 1 to 3600".to_owned(),
        ));
    }
    let mut builder = Client::builder();
    let mut ws_urls = (args.spot_ws_url.clone(), args.swap_ws_url.clone());
    let _sim = if args.sim {
        let sim = start_sim(digifinex_sim::SimConfig::default().without_limits())?;
        builder = builder
            .spot_base_url(sim.spot_base_url())
            .swap_base_url(sim.swap_base_url())
            .allow_http(true);
        ws_urls = (Some(sim.spot_ws_url()), Some(sim.swap_ws_url()));
        Some(sim)
    } else {
        builder = crate::live::with_base_urls(
            builder,
            args.base_url.as_deref(),
            args.swap_base_url.as_deref(),
            args.allow_http,
        )?;
        None
    };
    let client = builder.build()?;
    expand(&client, &mut args.spot, Family::Spot)?;
    expand(&client, &mut args.swap, Family::Swap)?;
    let subs = crate::record_ws::subscriptions(&args.spot, &args.swap, args.depth)?;
    let clock = client.session().clock().clone();
    let run_name = format!("{}-{}", clock.now().0, std::process::id());
    let mut config = PublisherConfig::new(args.name.clone(), run_name.clone());
    config.snapshot_every_ms = i64::try_from(args.snapshot_every_s * 1000).unwrap_or(30_000);
    let mut publisher = Publisher::new(config).map_err(|e| Failure::Usage(e.to_string()))?;
    let prefix = feed::DEFAULT_PREFIX;

    let rt = runtime()?;
    // async-nats spawns its tasks on the runtime it is called from.
    let _entered = rt.enter();
    let nats = rt.block_on(connect(
        &args.nats,
        args.nats_creds.as_deref(),
        &format!("digifinex-feed-{}", args.name),
    ))?;
    let js = jetstream::new(nats.clone());
    let stream_config = stream::Config {
        name: args.stream.clone(),
        subjects: stream_subjects(prefix),
        max_age: Duration::from_secs(args.window_s),
        storage: stream::StorageType::File,
        discard: stream::DiscardPolicy::Old,
        allow_direct: true,
        ..Default::default()
    };
    rt.block_on(js.create_or_update_stream(stream_config))
        .map_err(|e| Failure::Other(format!("the JetStream stream {}: {e}", args.stream)))?;

    // The feeds sharing the markets; this one's share, all peers taken to be live at first.
    let mut peers = args.peers.clone();
    if peers.is_empty() {
        peers.push(args.name.clone());
    }
    for p in &peers {
        feed::check_feed_name(p).map_err(|e| Failure::Usage(format!("--peers: {e}")))?;
    }
    if !peers.contains(&args.name) {
        return Err(Failure::Usage(format!(
            "--peers {}: the list names every feed of the group, this one ({}) included",
            peers.join(","),
            args.name
        )));
    }
    let mut group = Group::new(&args.name, peers, &subs);
    let live: Vec<String> = group.peers.clone();
    let share = group.share(&live);
    group.owned = share.clone();

    // The venue's streams, on their own threads.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<(i64, Event)>(QUEUE);
    let mut handles: HashMap<Family, digifinex_ureq::ws::StreamHandle> = HashMap::new();
    for family in [Family::Spot, Family::Swap] {
        if !subs.iter().any(|s| s.family == family) {
            continue;
        }
        let mine: Vec<Subscription> = subs
            .iter()
            .filter(|s| s.family == family && share.contains(&Group::market(s)))
            .cloned()
            .collect();
        let mut b = client.stream(family);
        let url = match family {
            Family::Spot => &ws_urls.0,
            _ => &ws_urls.1,
        };
        if let Some(url) = url {
            if url.to_ascii_lowercase().starts_with("ws://") {
                b = b.allow_http(crate::live::is_loopback_http(
                    &url.replacen("ws", "http", 1),
                ));
            }
            b = b.url(url.clone());
        }
        for s in mine {
            b = b.subscribe(s);
        }
        let stream = b.build().map_err(|e| Failure::Usage(e.to_string()))?;
        handles.insert(family, stream.handle());
        let (tx, clock) = (tx.clone(), clock.clone());
        std::thread::Builder::new()
            .name(format!("feed-{family}"))
            .spawn(move || {
                for event in stream {
                    if tx.blocking_send((clock.now().0, event)).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| Failure::Other(format!("cannot start a stream thread: {e}")))?;
    }
    drop(tx);
    println!("feed: {}", args.name);
    println!("run: {run_name}");
    println!("stream: {}", args.stream);
    println!("markets: {}", group.owned.len());
    let _ = std::io::stdout().flush();

    let stop = crate::live::interrupt_flag();
    let end = args.duration_s.map(Duration::from_secs);
    let started = Instant::now();
    rt.block_on(async {
        let mut requests = nats
            .subscribe(request_subject(prefix))
            .await
            .map_err(|e| Failure::Other(format!("cannot take snapshot requests: {e}")))?;
        let mut heartbeats = nats
            .subscribe(format!("{prefix}.heartbeat.*"))
            .await
            .map_err(|e| Failure::Other(format!("cannot read the heartbeats: {e}")))?;
        let mut in_flight: VecDeque<jetstream::context::PublishAckFuture> = VecDeque::new();
        let mut failed = 0u64;
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let mut report = Instant::now();
        let mut stderr = std::io::stderr();
        loop {
            if stop.load(Ordering::SeqCst) || end.is_some_and(|e| started.elapsed() >= e) {
                break;
            }
            let mut out = Vec::new();
            tokio::select! {
                got = rx.recv() => match got {
                    Some((t, event)) => out = publisher.handle_event(&event, t),
                    None => break,
                },
                Some(beat) = heartbeats.next() => {
                    if let Ok(h) = serde_json::from_slice::<feed::Heartbeat>(&beat.payload) {
                        group.seen(&h.feed);
                    }
                }
                _ = tick.tick() => {
                    let now = clock.now().0;
                    out = publisher.handle_timeout(now);
                    out.push(publisher.heartbeat(now));
                    // A peer that stopped (or came back) moves its markets.
                    if let Some((gained, lost)) = group.rebalance(started.elapsed()) {
                        let _ = writeln!(
                            stderr,
                            "feed {}: live feeds {}; takes {} market(s), gives back {}",
                            args.name,
                            group.live.join(","),
                            gained.len(),
                            lost.len()
                        );
                        for s in subs.iter() {
                            let m = Group::market(s);
                            let Some(h) = handles.get(&s.family) else { continue };
                            if gained.contains(&m) {
                                let _ = h.subscribe(s.clone());
                            } else if lost.contains(&m) {
                                let _ = h.unsubscribe(s.clone());
                            }
                        }
                    }
                    if report.elapsed() >= Duration::from_secs(10) {
                        report = Instant::now();
                        let _ = writeln!(
                            stderr,
                            "feed {}: {} published, {} failed",
                            args.name,
                            publisher.published(),
                            failed
                        );
                    }
                }
                Some(request) = requests.next() => {
                    let market = String::from_utf8_lossy(&request.payload).into_owned();
                    // Bounded: a book's snapshot is built at most every 250 ms and 100 a
                    // second in all; other requests get the last one again, unpublished.
                    if let Some(answer) = publisher.answer(market.trim(), clock.now().0) {
                        if let Some(reply) = request.reply {
                            let _ = nats.publish(reply, answer.snapshot.payload.clone().into()).await;
                        }
                        if answer.fresh {
                            out.push(answer.snapshot);
                        }
                    }
                }
            }
            for o in out {
                match js.publish(o.subject, o.payload.into()).await {
                    Ok(ack) => in_flight.push_back(ack),
                    Err(e) => {
                        failed += 1;
                        let _ = writeln!(stderr, "feed {}: a publish failed: {e}", args.name);
                    }
                }
                while in_flight.len() >= IN_FLIGHT {
                    if let Some(ack) = in_flight.pop_front() {
                        if let Err(e) = ack.await {
                            failed += 1;
                            let _ = writeln!(
                                stderr,
                                "feed {}: a publish was not acknowledged: {e}",
                                args.name
                            );
                        }
                    }
                }
            }
        }
        for ack in in_flight {
            if ack.await.is_err() {
                failed += 1;
            }
        }
        let _ = nats.flush().await;
        let _ = writeln!(
            stderr,
            "feed {}: {} published, {} failed",
            args.name,
            publisher.published(),
            failed
        );
        Ok::<(), Failure>(())
    })?;
    Ok(())
}

/// A heartbeat older than this marks its feed dead.
const DEAD: Duration = Duration::from_secs(3);

/// The feeds sharing the markets and this one's share of them.
struct Group {
    name: String,
    peers: Vec<String>,
    /// The markets of the subscriptions (`spot:BTC_USDT`), sorted.
    markets: Vec<String>,
    /// When each peer's last heartbeat came.
    last: HashMap<String, Instant>,
    /// The feeds taken to be live, sorted.
    live: Vec<String>,
    /// The markets this feed publishes.
    owned: std::collections::BTreeSet<String>,
}

impl Group {
    fn new(name: &str, mut peers: Vec<String>, subs: &[Subscription]) -> Group {
        peers.sort();
        peers.dedup();
        let mut markets: Vec<String> = subs.iter().map(Group::market).collect();
        markets.sort();
        markets.dedup();
        Group {
            name: name.to_owned(),
            live: peers.clone(),
            peers,
            markets,
            last: HashMap::new(),
            owned: Default::default(),
        }
    }

    /// The market of a subscription: its family and target.
    fn market(s: &Subscription) -> String {
        format!("{}:{}", s.family, s.target.as_deref().unwrap_or(""))
    }

    /// This feed's markets when `live` are the live feeds.
    fn share(&self, live: &[String]) -> std::collections::BTreeSet<String> {
        let live: Vec<&str> = live.iter().map(String::as_str).collect();
        self.markets
            .iter()
            .filter(|m| feed::owner(m, &live) == Some(self.name.as_str()))
            .cloned()
            .collect()
    }

    fn seen(&mut self, peer: &str) {
        if peer != self.name && self.peers.iter().any(|p| p == peer) {
            self.last.insert(peer.to_owned(), Instant::now());
        }
    }

    /// The markets gained and given back when the live feeds changed (a peer never heard from
    /// is taken to be live for [`DEAD`] after the start).
    fn rebalance(&mut self, since_start: Duration) -> Option<(Vec<String>, Vec<String>)> {
        let live: Vec<String> = self
            .peers
            .iter()
            .filter(|p| {
                **p == self.name
                    || self
                        .last
                        .get(*p)
                        .map_or(since_start < DEAD, |t| t.elapsed() < DEAD)
            })
            .cloned()
            .collect();
        if live == self.live {
            return None;
        }
        let share = self.share(&live);
        let gained = share.difference(&self.owned).cloned().collect();
        let lost = self.owned.difference(&share).cloned().collect();
        self.live = live;
        self.owned = share;
        Some((gained, lost))
    }
}

/// `stream --feed`: the subscriptions' events from the feeds, one JSON line each; exits after
/// `limit` data events.
pub(crate) fn consume(
    source: FeedSource,
    subs: &[Subscription],
    limit: Option<u64>,
) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    let mut data = 0u64;
    let stop = crate::live::interrupt_flag();
    read_feed(&source, subs, &stop, None, |line, _| {
        writeln!(out, "{line}")?;
        out.flush()?;
        let marker =
            line.starts_with(r#"{"type":"resync""#) || line.starts_with(r#"{"type":"gap""#);
        if !marker {
            data += 1;
        }
        Ok(limit.is_some_and(|n| data >= n))
    })
}

/// `record --source feed`: the markets' events from the feeds, written as `record --source
/// ws` writes the venue's (each at the time the feed took it, and what it took before the
/// recording started at the start); a book the feed lost is marked as a resync (`feed_gap`).
pub(crate) fn record<W: std::io::Write>(
    source: &FeedSource,
    spot: &[String],
    swap: &[String],
    writer: &mut digifinex_market::Writer<W>,
    stop: &AtomicBool,
    end: Option<Duration>,
) -> Result<crate::record_ws::Counts, Failure> {
    // The depth level is the feed's: any level names the same market stream.
    let subs = crate::record_ws::subscriptions(spot, swap, 20)?;
    let now_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    };
    let started_ms = now_ms();
    let markets = crate::record_ws::markets_by_family(spot, swap);
    let mut counts = crate::record_ws::Counts::default();
    let mut lost = crate::record_ws::Lost::new();
    let mut flushed = Instant::now();
    let mut report = Instant::now();
    let mut gaps = 0u64;
    read_feed(source, &subs, stop, end, |line, feed_ms| {
        let event = match feed::parse_event(&line) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("a feed event was skipped: {e}");
                return Ok(false);
            }
        };
        if let Event::Gap {
            subscription,
            missed,
        } = &event
        {
            gaps = gaps.saturating_add(*missed);
            eprintln!("{missed} events of {subscription} were lost between the feed and here");
        }
        let family = match &event {
            Event::Book(u) => u.subscription.family,
            Event::Resync { subscription, .. } => subscription.family,
            Event::SpotTrades { .. } | Event::SpotTickers { .. } => Family::Spot,
            _ => Family::Swap,
        };
        // What the feed took before the recording started (a book's stored snapshot and the
        // events after it, read to catch up) is written at the start: the recording begins
        // with the books as they were then, in the order they are read.
        let t = feed_ms.unwrap_or_else(now_ms).max(started_ms);
        crate::record_ws::write_event(writer, t, family, event, &mut counts, &mut lost, &markets)?;
        if flushed.elapsed() >= Duration::from_secs(1) {
            writer.flush()?;
            flushed = Instant::now();
        }
        if report.elapsed() >= Duration::from_secs(10) {
            report = Instant::now();
            eprintln!(
                "{} records ({} depth frames, {} resyncs), {} events lost upstream, {} bytes",
                counts.records,
                counts.frames,
                counts.resyncs,
                gaps,
                writer.bytes()
            );
        }
        Ok(false)
    })?;
    writer.flush()?;
    Ok(counts)
}

/// Reads the subscriptions' events from the feeds and hands each line (and the time the feed
/// took it) to `on`, until `on` says stop, `stop` is set or `end` passes (the blocking client's
/// [`digifinex_ureq::feed::FeedReader`]).
fn read_feed(
    source: &FeedSource,
    subs: &[Subscription],
    stop: &AtomicBool,
    end: Option<Duration>,
    mut on: impl FnMut(String, Option<i64>) -> Result<bool, Failure>,
) -> Result<(), Failure> {
    let started = Instant::now();
    let mut from = feed_source(&source.url, source.creds.as_deref()).stream(&source.stream);
    from = from.connect_timeout(Duration::from_secs(5));
    let mut reader = FeedReader::open(&from, subs).map_err(|e| match e {
        digifinex_core::Error::Validation { .. } => Failure::Usage(e.to_string()),
        e => Failure::Other(e.to_string()),
    })?;
    loop {
        if stop.load(Ordering::SeqCst) || end.is_some_and(|e| started.elapsed() >= e) {
            return Ok(());
        }
        match reader.next_timeout(Duration::from_millis(200)) {
            Some(FeedItem::Line { line, feed_ms }) => {
                let done = on(line, feed_ms)?;
                if done {
                    return Ok(());
                }
            }
            // Told once a second at most by the reader (a flood of foreign messages does not
            // flood stderr).
            Some(FeedItem::Skipped { total, last }) => {
                eprintln!("{total} feed message(s) skipped so far; the last: {last}")
            }
            Some(FeedItem::Trouble(detail)) => eprintln!("{detail}"),
            Some(_) => {}
            None if reader.is_ended() => {
                return Err(Failure::Other("the feed's reader ended".to_owned()))
            }
            None => {}
        }
    }
}

/// The blocking client's description of the feed at `url`.
fn feed_source(url: &str, creds: Option<&std::path::Path>) -> digifinex_ureq::feed::FeedSource {
    let from = digifinex_ureq::feed::FeedSource::new(url);
    match creds {
        Some(path) => from.creds(path),
        None => from,
    }
}
