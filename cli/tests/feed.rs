//! `digifinex feed` and `digifinex stream --feed` against a real NATS server with JetStream
//! (`nats-server`, Debian's package, which `.ci/run` installs; each test starts its own on a
//! free loopback port with its own store, and stops it by its pid): the feed runs over its
//! embedded simulator; a consumer's books are rebuilt line by line and must agree with the
//! top of book each line carries (a lost or repeated delta would break it); a late consumer
//! starts from the stored snapshot; a restarted feed is taken from its first snapshot without a
//! jump; after a NATS server restart the feed goes on by itself.
#![cfg(feature = "feed")]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// A nats-server with JetStream on loopback, stopped (by pid) when dropped.
struct Nats {
    child: Child,
    port: u16,
    dir: PathBuf,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Nats {
    fn start(name: &str) -> Nats {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nats-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Nats::start_at(free_port(), dir)
    }

    fn start_at(port: u16, dir: PathBuf) -> Nats {
        let bin = std::env::var("NATS_SERVER").unwrap_or_else(|_| "nats-server".to_owned());
        let child = Command::new(&bin)
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("these tests need {bin} (Debian's nats-server; .ci/run installs it): {e}")
            });
        let until = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Nats { child, port, dir }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Stops the server and starts it again on the same port and store.
    fn restart(self) -> Nats {
        let (port, dir) = (self.port, self.dir.clone());
        drop(self);
        Nats::start_at(port, dir)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A child process whose stdout lines arrive on a channel; killed when dropped.
struct Proc {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Proc {
    fn spawn(args: &[&str]) -> Proc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_digifinex"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let out: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Proc { child, lines }
    }

    /// The next line within `wait`.
    fn line(&self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok()
    }

    /// Lines until one starts with `prefix` (within 30 s).
    fn until(&self, prefix: &str) -> String {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.line(left) {
                Some(l) if l.starts_with(prefix) => return l,
                Some(_) => {}
                None => panic!("no line starting with {prefix:?}"),
            }
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn feed(nats: &Nats, name: &str) -> Proc {
    let p = Proc::spawn(&[
        "feed",
        "--sim",
        "--nats",
        &nats.url(),
        "--name",
        name,
        "--spot",
        "btc_usdt",
        "--swap",
        "BTCUSDTPERP",
        "--snapshot-every-s",
        "1",
    ]);
    p.until("markets: ");
    p
}

fn consumer(nats: &Nats, subs: &[&str]) -> Proc {
    let url = nats.url();
    let mut args = vec!["stream", "--feed", url.as_str()];
    args.extend_from_slice(subs);
    Proc::spawn(&args)
}

/// A book rebuilt from the event lines: each line's `best_bid`/`best_ask` must be the rebuilt
/// book's top.
#[derive(Default)]
struct Rebuilt {
    bids: BTreeMap<String, String>,
    asks: BTreeMap<String, String>,
    live: bool,
    lines: usize,
    snapshots: usize,
}

fn dec(v: &Value) -> digifinex_core::Decimal {
    v.as_str().unwrap().parse().unwrap()
}

impl Rebuilt {
    fn apply(&mut self, line: &Value) {
        if line["type"] == "resync" {
            self.live = false;
            return;
        }
        assert_eq!(line["type"], "book", "{line}");
        let snapshot = line["snapshot"].as_bool().unwrap();
        if snapshot {
            self.bids.clear();
            self.asks.clear();
            self.live = true;
            self.snapshots += 1;
        }
        assert!(self.live, "a delta before any snapshot: {line}");
        for (side, book) in [("bids", &mut self.bids), ("asks", &mut self.asks)] {
            for l in line[side].as_array().unwrap() {
                let (p, s) = (l[0].as_str().unwrap(), l[1].as_str().unwrap());
                if dec(&l[1]).is_zero() {
                    book.remove(p);
                } else {
                    book.insert(p.to_owned(), s.to_owned());
                }
            }
        }
        let best = |book: &BTreeMap<String, String>, high: bool| {
            let mut v: Vec<(digifinex_core::Decimal, &String)> =
                book.iter().map(|(p, s)| (p.parse().unwrap(), s)).collect();
            v.sort();
            let top = if high { v.last() } else { v.first() };
            top.map(|(p, s)| (*p, s.parse::<digifinex_core::Decimal>().unwrap()))
        };
        let given = |v: &Value| (!v.is_null()).then(|| (dec(&v[0]), dec(&v[1])));
        assert_eq!(best(&self.bids, true), given(&line["best_bid"]), "{line}");
        assert_eq!(best(&self.asks, false), given(&line["best_ask"]), "{line}");
        self.lines += 1;
    }
}

/// Reads `n` book lines of `market` (other lines counted by type), rebuilding the book.
fn read_books(p: &Proc, n: usize, book: &mut Rebuilt) -> BTreeMap<String, usize> {
    let mut types = BTreeMap::new();
    let until = Instant::now() + Duration::from_secs(60);
    while book.lines < n {
        let left = until.saturating_duration_since(Instant::now());
        let line = p.line(left).expect("the consumer went quiet");
        // Every line reads back as the event it is (what a client reading a feed does).
        let event = digifinex_core::feed::parse_event(&line).unwrap();
        assert_eq!(serde_json::to_string(&event).unwrap(), line);
        let v: Value = serde_json::from_str(&line).unwrap();
        let t = v["type"].as_str().unwrap().to_owned();
        *types.entry(t.clone()).or_default() += 1;
        if (t == "book" || t == "resync") && v["subscription"]["family"] == "spot" {
            book.apply(&v);
        }
    }
    types
}

#[test]
fn consumers_of_a_feed_rebuild_every_book_exactly() {
    let nats = Nats::start("books");
    let feeder = feed(&nats, "a");
    let first = consumer(&nats, &["spot:depth:btc_usdt", "swap:trades:BTCUSDTPERP"]);
    let mut book = Rebuilt::default();
    let types = read_books(&first, 200, &mut book);
    assert!(
        types.get("swap_trades").copied().unwrap_or(0) > 0,
        "{types:?}"
    );
    assert!(
        !types.contains_key("gap") && !types.contains_key("resync"),
        "{types:?}"
    );

    // A late consumer starts from the stored snapshot.
    let late = consumer(&nats, &["spot:depth:btc_usdt"]);
    let mut late_book = Rebuilt::default();
    let line = late.line(Duration::from_secs(30)).unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["snapshot"], true, "{line}");
    late_book.apply(&v);
    read_books(&late, 100, &mut late_book);

    // The feed restarted (a new run): both consumers go on from its first snapshot, with no
    // jump reported.
    drop(feeder);
    let _feeder = feed(&nats, "a");
    let before = book.snapshots;
    let types = read_books(&first, book.lines + 200, &mut book);
    assert!(book.snapshots > before);
    assert!(!types.contains_key("resync"), "{types:?}");
}

#[test]
fn after_the_nats_server_restarts_the_feed_goes_on_and_books_rebuild() {
    let nats = Nats::start("restart");
    let _feeder = feed(&nats, "b");
    let mut book = Rebuilt::default();
    {
        let c = consumer(&nats, &["spot:depth:btc_usdt"]);
        read_books(&c, 100, &mut book);
    }
    let nats = nats.restart();
    // The feed reconnects by itself; a consumer started now rebuilds from a snapshot.
    let c = consumer(&nats, &["spot:depth:btc_usdt"]);
    let mut again = Rebuilt::default();
    read_books(&c, 100, &mut again);
    assert!(again.snapshots >= 1);
}

#[test]
fn a_recorder_reads_the_feed_into_a_recording_that_starts_each_book_at_a_snapshot() {
    let nats = Nats::start("record");
    let _feeder = feed(&nats, "c");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("from-feed.jsonl.gz");
    let _ = std::fs::remove_file(&out);
    let o = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(["record", "--sim", "--source", "feed", "--feed", &nats.url()])
        .args([
            "--spot",
            "btc_usdt",
            "--swap",
            "BTCUSDTPERP",
            "--duration-s",
            "8",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("from the feed"), "{stdout}");
    let reader = digifinex_market::Reader::open(&out).unwrap();
    // Spot depth frames, swap depth frames.
    let (mut depth, mut swap_depth, mut first) = (0, 0, None);
    let mut last_t = i64::MIN;
    for r in reader {
        let r = r.unwrap();
        match &r.data {
            digifinex_market::Data::SpotDepth {
                symbol, snapshot, ..
            } => {
                assert_eq!(symbol, "btc_usdt");
                first.get_or_insert(*snapshot);
                depth += 1;
            }
            digifinex_market::Data::SwapDepth { instrument, .. } => {
                assert_eq!(instrument, "BTCUSDTPERP");
                swap_depth += 1;
            }
            _ => {}
        }
        // Written in the order the feed took them, at the feed's times.
        assert!(
            r.t >= last_t.saturating_sub(1_000),
            "{} after {last_t}",
            r.t
        );
        last_t = last_t.max(r.t);
    }
    assert_eq!(first, Some(true), "the first depth record is a snapshot");
    assert!(
        depth > 20 && swap_depth > 20,
        "{depth} spot and {swap_depth} swap depth records"
    );
}

/// A feed of the group `a,b` over the simulator `sim` (its URL lines).
fn peer(nats: &Nats, name: &str, sim: &BTreeMap<String, String>) -> Proc {
    feed_of(
        nats,
        sim,
        &[
            "--name",
            name,
            "--peers",
            "a,b",
            "--spot",
            "btc_usdt,xrp_usdt",
        ],
    )
}

/// A feed over the simulator `sim` (its URL lines) with `args` (its name, markets, peers),
/// BTCUSDTPERP among its swaps and a snapshot every second.
fn feed_of(nats: &Nats, sim: &BTreeMap<String, String>, args: &[&str]) -> Proc {
    let url = nats.url();
    let mut all = vec!["feed", "--nats", url.as_str()];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
        "--swap",
        "BTCUSDTPERP",
        "--snapshot-every-s",
        "1",
        "--base-url",
        &sim["spot_base_url"],
        "--swap-base-url",
        &sim["swap_base_url"],
        "--spot-ws-url",
        &sim["spot_ws_url"],
        "--swap-ws-url",
        &sim["swap_ws_url"],
    ]);
    let p = Proc::spawn(&all);
    p.until("markets: ");
    p
}

#[test]
fn two_feeds_split_the_markets_and_one_takes_over_when_the_other_dies() {
    let nats = Nats::start("peers");
    let sim = Proc::spawn(&["sim"]);
    let mut urls = BTreeMap::new();
    while urls.len() < 4 {
        let line = sim
            .line(Duration::from_secs(30))
            .expect("the simulator's URLs");
        if let Some((k, v)) = line.split_once(": ") {
            if k.ends_with("_url") && k != "control_url" {
                urls.insert(k.to_owned(), v.to_owned());
            }
        }
    }
    // The assignment (feed::owner, pinned in its unit test): a has BTC_USDT; b has XRP_USDT
    // and BTCUSDTPERP.
    let _a = peer(&nats, "a", &urls);
    let b = peer(&nats, "b", &urls);
    let subs = [
        "spot:depth:btc_usdt",
        "spot:depth:xrp_usdt",
        "swap:depth:BTCUSDTPERP",
    ];
    let c = consumer(&nats, &subs);
    // Per market: its book rebuilt and the feeds whose lines it read.
    let mut books: BTreeMap<String, Rebuilt> = BTreeMap::new();
    let read = |books: &mut BTreeMap<String, Rebuilt>, n: usize| {
        let until = Instant::now() + Duration::from_secs(60);
        let mut lines = 0;
        while lines < n || books.len() < 3 {
            let left = until.saturating_duration_since(Instant::now());
            let line = c.line(left).expect("the consumer went quiet");
            let v: Value = serde_json::from_str(&line).unwrap();
            let target = v["subscription"]["target"].as_str().unwrap().to_owned();
            books.entry(target).or_default().apply(&v);
            lines += 1;
        }
    };
    read(&mut books, 150);
    let before: BTreeMap<String, usize> = books.iter().map(|(k, b)| (k.clone(), b.lines)).collect();
    // b dies: a takes its markets over (after about three seconds without b's heartbeats);
    // every book goes on, rebuilt from a's first snapshot.
    drop(b);
    let snapshots: BTreeMap<String, usize> = books
        .iter()
        .map(|(k, b)| (k.clone(), b.snapshots))
        .collect();
    read(&mut books, 400);
    for (market, book) in &books {
        assert!(
            book.lines > before[market] + 20,
            "{market}: {} lines",
            book.lines
        );
    }
    for market in ["XRP_USDT", "BTCUSDTPERP"] {
        assert!(
            books[market].snapshots > snapshots[market],
            "{market} was not taken over"
        );
    }
}

/// Publishes `payloads` on `subject` with NATS's own text protocol (no client library).
fn publish_raw(nats: &Nats, subject: &str, payloads: &[Vec<u8>]) {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", nats.port)).unwrap();
    s.write_all(b"CONNECT {\"verbose\":false}\r\n").unwrap();
    for p in payloads {
        write!(s, "PUB {subject} {}\r\n", p.len()).unwrap();
        s.write_all(p).unwrap();
        s.write_all(b"\r\n").unwrap();
    }
    s.write_all(b"PING\r\n").unwrap();
    // The server's PONG: everything before it was taken.
    let mut buf = [0u8; 4096];
    let mut got = Vec::new();
    while !String::from_utf8_lossy(&got).contains("PONG") {
        let n = std::io::Read::read(&mut s, &mut buf).unwrap();
        assert!(n > 0, "the server closed the connection");
        got.extend_from_slice(&buf[..n]);
    }
}

#[test]
fn a_flood_of_foreign_messages_on_a_subject_is_skipped_and_the_book_stays_exact() {
    let nats = Nats::start("flood");
    let _feeder = feed(&nats, "f");
    let c = consumer(&nats, &["spot:depth:btc_usdt"]);
    let mut book = Rebuilt::default();
    read_books(&c, 30, &mut book);
    let junk: Vec<Vec<u8>> = (0..5_000)
        .map(|i| match i % 3 {
            0 => b"not json".to_vec(),
            1 => br#"{"v":9,"feed":"x"}"#.to_vec(),
            _ => vec![b'{'; 100],
        })
        .collect();
    publish_raw(&nats, "digifinex.spot.depth.btc_usdt", &junk);
    // The consumer goes on, its book exact (read_books checks every line).
    let types = read_books(&c, book.lines + 60, &mut book);
    assert!(!types.contains_key("resync"), "{types:?}");
}

#[test]
fn a_consumer_that_falls_behind_the_window_is_told_and_resyncs() {
    let nats = Nats::start("slow");
    // A window of two seconds: a consumer stopped for longer loses what aged out.
    let feeder = Proc::spawn(&[
        "feed",
        "--sim",
        "--nats",
        &nats.url(),
        "--name",
        "s",
        "--spot",
        "btc_usdt",
        "--snapshot-every-s",
        "1",
        "--window-s",
        "2",
    ]);
    feeder.until("markets: ");
    let c = consumer(&nats, &["spot:depth:btc_usdt"]);
    let mut book = Rebuilt::default();
    read_books(&c, 30, &mut book);
    let pid = c.child.id().to_string();
    let stop = |sig: &str| {
        assert!(Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success());
    };
    stop("-STOP");
    // More than the server holds for a client that does not read (a slow consumer is cut off),
    // and older than the window once the consumer reads again.
    let filler = vec![vec![b' '; 4096]; 25_000];
    publish_raw(&nats, "digifinex.spot.depth.btc_usdt", &filler);
    std::thread::sleep(Duration::from_secs(5));
    stop("-CONT");
    let types = read_books(&c, book.lines + 100, &mut book);
    assert!(
        types.contains_key("resync"),
        "no resync after the gap: {types:?}"
    );
    assert!(book.live);
}

#[test]
fn private_channels_are_refused_and_a_missing_stream_is_named() {
    let nats = Nats::start("usage");
    let o = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(["stream", "--feed", &nats.url(), "spot:order"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("private channels are not in a feed"));
    let o = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(["stream", "--feed", &nats.url(), "spot:depth:btc_usdt"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no stream DIGIFINEX"), "{err}");
}

/// The simulator's lines: its URLs and its demo key pair.
fn sim_lines(sim: &Proc) -> BTreeMap<String, String> {
    let mut lines = BTreeMap::new();
    while !lines.contains_key("demo_secret") {
        let line = sim
            .line(Duration::from_secs(30))
            .expect("the simulator's lines");
        if let Some((k, v)) = line.split_once(": ") {
            lines.insert(k.to_owned(), v.to_owned());
        }
    }
    lines
}

/// The other side of the feed: the blocking client's stream takes its public subscriptions
/// from the feed (`from_feed`) and its private ones from its own socket, as one stream of the
/// same events; the books rebuilt from its events are exact, and a stream with only public
/// subscriptions never opens a socket to the venue.
#[test]
fn a_client_stream_takes_books_from_the_feed_and_orders_from_its_own_socket() {
    use digifinex_core::spot::{self, Market};
    use digifinex_core::ws::Event;
    use digifinex_core::{Amount, Credentials, Family, Price};
    use digifinex_ureq::feed::{FeedSource, FromFeed};

    let nats = Nats::start("client");
    let sim = Proc::spawn(&["sim"]);
    let info = sim_lines(&sim);
    let _feeder = feed_of(&nats, &info, &["--spot", "btc_usdt"]);
    let source = FeedSource::new(nats.url());
    let client = digifinex_ureq::Client::builder()
        .spot_base_url(&info["spot_base_url"])
        .swap_base_url(&info["swap_base_url"])
        .credentials(Credentials::new(
            info["demo_key"].clone(),
            info["demo_secret"].clone(),
        ))
        .allow_http(true)
        .build()
        .unwrap();

    // Public only, with a venue socket that cannot be reached: everything comes from the feed.
    let mut public = client
        .stream(Family::Spot)
        .url("ws://127.0.0.1:9/")
        .allow_http(true)
        .subscribe("spot:depth:btc_usdt".parse().unwrap())
        .from_feed(&source)
        .unwrap();
    let mut book = Rebuilt::default();
    let until = Instant::now() + Duration::from_secs(60);
    while book.lines < 100 {
        assert!(Instant::now() < until, "{} book events", book.lines);
        let Some(event) = public.next_event_timeout(Duration::from_secs(5)) else {
            continue;
        };
        assert!(
            !matches!(
                event,
                Event::Connecting { .. } | Event::Connected { .. } | Event::Disconnected { .. }
            ),
            "a venue socket was opened: {event:?}"
        );
        if matches!(event, Event::Book(_) | Event::Resync { .. }) {
            book.apply(&serde_json::to_value(&event).unwrap());
        }
    }
    assert!(book.snapshots >= 1);
    public.close();
    let end = Instant::now() + Duration::from_secs(5);
    while public
        .next_event_timeout(Duration::from_millis(200))
        .is_some()
        || !public.is_closed()
    {
        assert!(Instant::now() < end, "the stream did not end after close");
    }

    // Public from the feed, private from the simulator's socket: an order placed over REST is
    // pushed while the book goes on.
    let mut both = client
        .stream(Family::Spot)
        .url(&info["spot_ws_url"])
        .allow_http(true)
        .subscribe("spot:depth:btc_usdt".parse().unwrap())
        .subscribe("spot:order:btc_usdt".parse().unwrap())
        .from_feed(&source)
        .unwrap();
    let mut book = Rebuilt::default();
    let (mut placed, mut pushed) = (None::<String>, false);
    let until = Instant::now() + Duration::from_secs(60);
    while !(pushed && book.lines >= 50) {
        assert!(
            Instant::now() < until,
            "pushed {pushed}, {} book events",
            book.lines
        );
        let Some(event) = both.next_event_timeout(Duration::from_secs(5)) else {
            continue;
        };
        match &event {
            Event::Subscribed { subscriptions } => {
                assert!(
                    subscriptions.iter().all(|s| s.channel.is_private()),
                    "the venue's socket holds only the private channel: {subscriptions:?}"
                );
                std::thread::sleep(Duration::from_millis(250));
                let order = client
                    .send(&spot::PlaceOrderRequest::new(
                        Market::Spot,
                        "btc_usdt",
                        spot::LimitOrder::buy(
                            Amount::new("0.01".parse().unwrap()),
                            Price::new("1000".parse().unwrap()),
                        ),
                    ))
                    .unwrap();
                placed = Some(order.order_id.to_string());
            }
            Event::SpotOrders { orders } => {
                let id = placed.as_deref().expect("a push before the order");
                pushed |= orders.iter().any(|o| o.id == id);
            }
            Event::Book(_) | Event::Resync { .. } => {
                book.apply(&serde_json::to_value(&event).unwrap())
            }
            _ => {}
        }
    }
    assert!(placed.is_some());
}
