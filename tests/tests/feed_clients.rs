//! Both clients' streams `from_feed` against a real NATS server with JetStream (Debian's
//! `nats-server`; `.ci/run` installs it and runs these with `--ignored`, naming it in
//! `NATS_SERVER`), the feed's side played here by `digifinex_core::feed::Publisher` over
//! async-nats (the feed's own program, `digifinex feed`, is tested from the CLI): a book starts
//! from the snapshot the stream asks the feed for, its deltas follow in order with exact
//! decimals, a message lost between the feed and the stream is a `resync` followed by a fresh
//! snapshot, and a stream with only public subscriptions opens no socket to the venue (its
//! socket URL is a closed port).

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use digifinex_core::feed::{self, Publisher, PublisherConfig};
use digifinex_core::ws::{BookUpdate, Event, Level, ResyncReason, Subscription};
use digifinex_core::Family;
use futures_util::StreamExt;
use rust_decimal::Decimal;

/// A nats-server with JetStream on loopback, stopped (by pid) when dropped.
struct Nats {
    child: Child,
    port: u16,
}

impl Nats {
    fn start(name: &str) -> Nats {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nats-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let bin = std::env::var("NATS_SERVER").unwrap_or_else(|_| "nats-server".to_owned());
        let child = Command::new(&bin)
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("these tests need {bin} (.ci/run installs it): {e}"));
        let until = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Nats { child, port }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn sub(s: &str) -> Subscription {
    s.parse().unwrap()
}

fn lv(p: &str, q: &str) -> Level {
    Level::new(p.parse().unwrap(), q.parse().unwrap())
}

/// A spot book event as `digifinex stream` prints it (levels as `[price, size]` text).
fn book(snapshot: bool, bids: Vec<Level>, asks: Vec<Level>) -> Event {
    let side = |v: &[Level]| {
        v.iter()
            .map(|l| format!(r#"["{}","{}"]"#, l.price, l.size))
            .collect::<Vec<_>>()
            .join(",")
    };
    let best = |l: Option<&Level>| {
        l.map_or("null".to_owned(), |l| {
            format!(r#"["{}","{}"]"#, l.price, l.size)
        })
    };
    let line = format!(
        r#"{{"type":"book","subscription":{{"family":"spot","channel":"depth","target":"BTC_USDT"}},"snapshot":{snapshot},"bids":[{}],"asks":[{}],"best_bid":{},"best_ask":{},"depth":[{},{}]}}"#,
        side(&bids),
        side(&asks),
        best(bids.first()),
        best(asks.first()),
        bids.len(),
        asks.len()
    );
    feed::parse_event(&line).unwrap()
}

/// The feed's side: the JetStream stream, a publisher of one book, and its answers to
/// snapshot requests. `publish` sends a book event (`false`: counted, not sent: lost).
struct FeedSide {
    rt: tokio::runtime::Runtime,
    js: async_nats::jetstream::Context,
    publisher: std::sync::Arc<std::sync::Mutex<Publisher>>,
    t: i64,
}

impl FeedSide {
    fn start(url: &str) -> FeedSide {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let publisher = std::sync::Arc::new(std::sync::Mutex::new(
            Publisher::new(PublisherConfig::new("t", "run1")).unwrap(),
        ));
        let js = rt.block_on(async {
            let nats = async_nats::connect(url).await.unwrap();
            let js = async_nats::jetstream::new(nats.clone());
            js.create_stream(async_nats::jetstream::stream::Config {
                name: feed::DEFAULT_STREAM.to_owned(),
                subjects: feed::stream_subjects(feed::DEFAULT_PREFIX),
                ..Default::default()
            })
            .await
            .unwrap();
            let mut requests = nats
                .subscribe(feed::request_subject(feed::DEFAULT_PREFIX))
                .await
                .unwrap();
            let (p, n) = (publisher.clone(), nats.clone());
            tokio::spawn(async move {
                while let Some(r) = requests.next().await {
                    let market = String::from_utf8_lossy(&r.payload).into_owned();
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
                    let answer = p.lock().unwrap().answer(&market, now);
                    if let (Some(a), Some(reply)) = (answer, r.reply) {
                        let _ = n.publish(reply, a.snapshot.payload.into()).await;
                    }
                }
            });
            js
        });
        FeedSide {
            rt,
            js,
            publisher,
            t: 1_000,
        }
    }

    fn publish(&mut self, event: &Event, send: bool) {
        self.t += 1;
        let out = self.publisher.lock().unwrap().handle_event(event, self.t);
        if !send {
            return;
        }
        self.rt.block_on(async {
            for o in out {
                self.js
                    .publish(o.subject, o.payload.into())
                    .await
                    .unwrap()
                    .await
                    .unwrap();
            }
        });
    }
}

trait Next {
    fn next_within(&mut self, wait: Duration) -> Option<Event>;
}

/// The next `n` book or resync events; no venue socket may be opened.
fn books(stream: &mut dyn Next, n: usize) -> Vec<Event> {
    let mut got = Vec::new();
    let until = Instant::now() + Duration::from_secs(30);
    while got.len() < n {
        assert!(Instant::now() < until, "only {got:?}");
        let Some(e) = stream.next_within(Duration::from_millis(500)) else {
            continue;
        };
        assert!(
            !matches!(
                e,
                Event::Connecting { .. } | Event::Connected { .. } | Event::Disconnected { .. }
            ),
            "a venue socket: {e:?}"
        );
        if matches!(e, Event::Book(_) | Event::Resync { .. }) {
            got.push(e);
        }
    }
    got
}

fn update(e: &Event) -> &BookUpdate {
    match e {
        Event::Book(u) => u,
        other => panic!("not a book: {other:?}"),
    }
}

/// The scenario, over either client's stream (`open` makes it once the feed has the book).
fn scenario(name: &str, open: impl FnOnce(&str) -> Box<dyn Next>) {
    let nats = Nats::start(name);
    let mut side = FeedSide::start(&nats.url());
    // The venue's snapshot reaches the feed before the stream starts (the stream asks for one).
    side.publish(
        &book(
            true,
            vec![lv("100", "1"), lv("99.5", "3")],
            vec![lv("101", "2")],
        ),
        true,
    );
    let mut stream = open(&nats.url());
    let first = books(&mut *stream, 1);
    let s = update(&first[0]);
    assert!(s.snapshot);
    assert_eq!(s.bids, [lv("100", "1"), lv("99.5", "3")]);
    side.publish(&book(false, vec![lv("99.50", "0.0001")], vec![]), true);
    let d = books(&mut *stream, 1);
    let d = update(&d[0]);
    assert!(!d.snapshot);
    assert_eq!(d.bids[0].size, Decimal::new(1, 4));
    assert_eq!(
        d.bids[0].price.to_string(),
        "99.50",
        "the text's scale is kept"
    );
    // One delta lost between the feed and the stream, then another: a resync, then the
    // fresh snapshot asked of the feed, which holds both deltas (the feed's last one, given
    // again within 250 ms of the first request, is older than the book and refused: the
    // stream asks again).
    side.publish(&book(false, vec![], vec![lv("101", "0")]), false);
    side.publish(&book(false, vec![], vec![lv("102", "5")]), true);
    let got = books(&mut *stream, 2);
    assert!(
        matches!(
            &got[0],
            Event::Resync {
                reason: ResyncReason::FeedGap,
                ..
            }
        ),
        "{:?}",
        got[0]
    );
    let fresh = update(&got[1]);
    assert!(fresh.snapshot);
    assert_eq!(fresh.asks, [lv("102", "5")]);
    assert_eq!(fresh.best_bid, Some(lv("100", "1")));
}

struct Blocking(digifinex_ureq::ws::Stream);

impl Next for Blocking {
    fn next_within(&mut self, wait: Duration) -> Option<Event> {
        self.0.next_event_timeout(wait)
    }
}

struct Async(tokio::runtime::Runtime, digifinex_hyper::ws::Stream);

impl Next for Async {
    fn next_within(&mut self, wait: Duration) -> Option<Event> {
        let Async(rt, stream) = self;
        rt.block_on(async { tokio::time::timeout(wait, stream.next_event()).await.ok() })
            .flatten()
    }
}

#[test]
#[ignore = "needs nats-server: .ci/run's feed step runs it with --ignored"]
fn the_blocking_clients_stream_reads_books_from_a_feed_and_resyncs_at_a_gap() {
    scenario("blocking", |url| {
        use digifinex_ureq::feed::{FeedSource, FromFeed};
        let client = digifinex_ureq::Client::new().unwrap();
        let stream = client
            .stream(Family::Spot)
            .url("ws://127.0.0.1:9/")
            .allow_http(true)
            .subscribe(sub("spot:depth:btc_usdt"))
            .from_feed(&FeedSource::new(url))
            .unwrap();
        Box::new(Blocking(stream))
    });
}

#[test]
#[ignore = "needs nats-server: .ci/run's feed step runs it with --ignored"]
fn the_async_clients_stream_reads_books_from_a_feed_and_resyncs_at_a_gap() {
    scenario("async", |url| {
        use digifinex_hyper::feed::{FeedSource, FromFeed};
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let stream = rt.block_on(async {
            let client = digifinex_hyper::Client::new().unwrap();
            client
                .stream(Family::Spot)
                .url("ws://127.0.0.1:9/")
                .allow_http(true)
                .subscribe(sub("spot:depth:btc_usdt"))
                .from_feed(&FeedSource::new(url))
                .await
                .unwrap()
        });
        Box::new(Async(rt, stream))
    });
}
