//! The same exchange through both adapters: a seeded sequence of signed REST calls, sent by
//! the blocking client to the server (over loopback HTTP, its clock frozen) and to an
//! exchange in the same process at the same instant, gives the same requests and the same
//! answers, byte for byte; a stream of the same client, subscribed to the market's depth and
//! trades and to the account's orders before the calls, sends the same frames and receives the
//! same pushes (their JSON text, the server's inflated from its zlib frames), byte for byte.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use digifinex_backtest::InProcess;
use digifinex_core::record::Tap;
use digifinex_core::spot::{
    CancelOrdersRequest, CurrentOrdersRequest, LimitOrder, Market, MyTradesRequest,
    OrderBookRequest, OrderDetailRequest, PlaceOrderRequest, SpotAssetsRequest, TickerRequest,
};
use digifinex_core::ws::{Event, Link, PacedSocket, Pacer, Received, Subscription};
use digifinex_core::{Amount, Clock, Credentials, Decimal, Family, Price, TimestampMillis};
use digifinex_sim::{Control, Sim, SimConfig};
use digifinex_ureq::ws::{Connector, Incoming, Network, Socket, Tls};
use proptest::prelude::*;

const T0: i64 = 1_800_000_000_000;

fn config() -> SimConfig {
    let mut config = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default()
    };
    config.markets.retain(|m| m.symbol() == "btc_usdt");
    config.swap_instruments.clear();
    // Still markets: the in-process exchange lets one websocket tick pass at the end (the
    // server pushes its ticks on the wall clock, its own clock frozen), and nothing else may
    // happen meanwhile.
    config.without_flow()
}

/// Every exchange a client made: the request line and body, the status and body of the
/// answer (or the failure).
#[derive(Debug, Default)]
struct Log(Mutex<Vec<String>>);

impl Tap for Log {
    fn exchanged(
        &self,
        request: &http::Request<Vec<u8>>,
        answer: Result<&http::Response<Vec<u8>>, &str>,
        _at_ms: i64,
        _elapsed: Duration,
    ) {
        let uri = request.uri();
        let line = format!(
            "{} {}{} {} -> {}",
            request.method(),
            uri.path(),
            uri.query().map(|q| format!("?{q}")).unwrap_or_default(),
            String::from_utf8_lossy(request.body()),
            match answer {
                Ok(r) => format!("{} {}", r.status(), String::from_utf8_lossy(r.body())),
                Err(e) => format!("failed: {e}"),
            }
        );
        self.0.lock().unwrap().push(line);
    }
}

struct SimTime(Control);

impl Clock for SimTime {
    fn now(&self) -> TimestampMillis {
        TimestampMillis(self.0.now_ms())
    }
}

#[derive(Debug, Clone)]
enum Op {
    Buy { ticks: u8, lots: u8 },
    Sell { ticks: u8, lots: u8 },
    CancelLast,
    Detail,
    Open,
    Assets,
    Book,
    Ticker,
    Fills,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..40, 1u8..5).prop_map(|(ticks, lots)| Op::Buy { ticks, lots }),
        (0u8..40, 1u8..5).prop_map(|(ticks, lots)| Op::Sell { ticks, lots }),
        Just(Op::CancelLast),
        Just(Op::Detail),
        Just(Op::Open),
        Just(Op::Assets),
        Just(Op::Book),
        Just(Op::Ticker),
        Just(Op::Fills),
    ]
}

/// Runs `ops` with `client`; the answers' failures are part of the log.
fn run(client: &digifinex_ureq::Client, ops: &[Op]) {
    let mut ids: Vec<String> = Vec::new();
    let book = client.send(&OrderBookRequest::new("btc_usdt")).unwrap();
    let mid = (book.best_bid().unwrap().price + book.best_ask().unwrap().price) / Decimal::TWO;
    // A unit of 1 from 20 below to 19 above the middle: the still markets' quotes stand 15
    // either side of it, so some orders cross and fill, some rest.
    let tick: Decimal = Decimal::ONE;
    let lot: Decimal = "0.001".parse().unwrap();
    for op in ops {
        match op {
            Op::Buy { ticks, lots } | Op::Sell { ticks, lots } => {
                let buy = matches!(op, Op::Buy { .. });
                // Around the middle: some orders cross and fill, some rest.
                let offset = tick * Decimal::from(*ticks) - tick * Decimal::from(20);
                let price = Price::new((mid + offset).round_dp(1));
                let amount = Amount::new(lot * Decimal::from(*lots));
                let order = if buy {
                    LimitOrder::buy(amount, price)
                } else {
                    LimitOrder::sell(amount, price)
                };
                if let Ok(p) = client.send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
                {
                    ids.push(p.order_id);
                }
            }
            Op::CancelLast => {
                if let Some(id) = ids.pop() {
                    let _ = client.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]));
                }
            }
            Op::Detail => {
                if let Some(id) = ids.last() {
                    let _ = client.send(&OrderDetailRequest::new(Market::Spot, id));
                }
            }
            Op::Open => {
                let _ = client.send(&CurrentOrdersRequest::new(Market::Spot).symbol("btc_usdt"));
            }
            Op::Assets => {
                let _ = client.send(&SpotAssetsRequest::new());
            }
            Op::Book => {
                let _ = client.send(&OrderBookRequest::new("btc_usdt").limit(10));
            }
            Op::Ticker => {
                let _ = client.send(&TickerRequest::new().symbol("btc_usdt"));
            }
            Op::Fills => {
                let _ = client.send(&MyTradesRequest::new(Market::Spot).symbol("btc_usdt"));
            }
        }
    }
}

/// The frames of a stream's sockets: `> ` what the client sent, `< ` what it received (the
/// JSON text: a binary frame inflated).
#[derive(Debug, Default)]
struct Frames(Mutex<Vec<String>>);

impl Frames {
    fn sent(&self, text: &str) {
        self.0.lock().unwrap().push(format!("> {text}"));
    }

    fn received(&self, payload: &[u8], binary: bool) {
        let text = if binary {
            digifinex_core::ws::frame::inflate(payload).expect("a zlib frame")
        } else {
            payload.to_vec()
        };
        self.0
            .lock()
            .unwrap()
            .push(format!("< {}", String::from_utf8(text).unwrap()));
    }

    /// What was sent, then what was received, each in its order (over the network the two
    /// interleave as the frames cross; in process a reply is there the moment it is asked for).
    fn lines(&self) -> Vec<String> {
        let all = self.0.lock().unwrap().clone();
        let (mut sent, received): (Vec<String>, Vec<String>) =
            all.into_iter().partition(|l| l.starts_with("> "));
        sent.extend(received);
        sent
    }
}

/// The network, its frames written down.
#[derive(Debug)]
struct TapNetwork(Arc<Frames>);

impl Connector for TapNetwork {
    fn connect(&self, link: &Link<Tls>) -> Result<Box<dyn Socket>, String> {
        Ok(Box::new(TapSocket(Network.connect(link)?, self.0.clone())))
    }
}

struct TapSocket(Box<dyn Socket>, Arc<Frames>);

impl Socket for TapSocket {
    fn send(&mut self, text: String) -> Result<(), String> {
        self.1.sent(&text);
        self.0.send(text)
    }

    fn recv(&mut self, wait: Duration) -> Option<Incoming> {
        let got = self.0.recv(wait);
        match &got {
            Some(Incoming::Binary(b)) => self.1.received(b, true),
            Some(Incoming::Text(t)) => self.1.received(t.as_bytes(), false),
            _ => {}
        }
        got
    }

    fn close(&mut self) {
        self.0.close();
    }
}

/// The in-process pacer, its frames written down. Until `draining`, time may not pass: the
/// stream must find everything it waits for at the current instant (a wait fails the test).
/// Once draining, the first wait lets time pass to the next websocket tick (the public pushes
/// of the calls' trades and book changes go out at a tick; the server's come on its wall
/// clock) and the next ends the stream.
#[derive(Debug)]
struct TapPacer {
    inner: Arc<dyn Pacer>,
    frames: Arc<Frames>,
    draining: Arc<AtomicBool>,
    ticked: AtomicBool,
}

impl Pacer for TapPacer {
    fn connect(&self, family: Family) -> Result<Box<dyn PacedSocket>, String> {
        Ok(Box::new(TapPaced(
            self.inner.connect(family)?,
            self.frames.clone(),
        )))
    }

    fn idle(&self, wait: Duration) -> bool {
        assert!(
            self.draining.load(Ordering::SeqCst),
            "the stream waited for time to pass while subscribing"
        );
        !self.ticked.swap(true, Ordering::SeqCst) && self.inner.idle(wait)
    }
}

struct TapPaced(Box<dyn PacedSocket>, Arc<Frames>);

impl PacedSocket for TapPaced {
    fn send(&mut self, text: &str) -> Result<(), String> {
        self.1.sent(text);
        self.0.send(text)
    }

    fn poll(&mut self) -> Option<Received> {
        let got = self.0.poll();
        match &got {
            Some(Received::Binary(b)) => self.1.received(b, true),
            Some(Received::Text(t)) => self.1.received(t.as_bytes(), false),
            _ => {}
        }
        got
    }

    fn close(&mut self) {
        self.0.close();
    }
}

/// The stream's subscriptions: the market's depth and trades, the account's orders.
fn subscriptions() -> Vec<Subscription> {
    [
        "spot:depth:btc_usdt",
        "spot:trades:btc_usdt",
        "spot:order:btc_usdt",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect()
}

/// Reads `stream` until every subscription is acknowledged.
fn until_subscribed(stream: &mut digifinex_ureq::ws::Stream) {
    let mut acknowledged = 0;
    while acknowledged < subscriptions().len() {
        match stream.next_event() {
            Some(Event::Subscribed { subscriptions }) => acknowledged += subscriptions.len(),
            Some(Event::Refused { error, .. }) => panic!("refused: {error:?}"),
            Some(_) => {}
            None => panic!("the stream ended while subscribing"),
        }
    }
}

/// What one run gave: the REST log and the stream's frames.
type Logs = (Vec<String>, Vec<String>);

/// The server's run; `expected`: the frames the in-process run gave (waited for, then a while
/// longer for any extra).
fn through_the_server(ops: &[Op], expected: usize) -> Logs {
    let sim = Sim::start(config()).unwrap();
    let control = sim.control();
    control.freeze_clock(Some(T0));
    let demo = control.demo_account();
    let log = Arc::new(Log::default());
    let frames = Arc::new(Frames::default());
    let client = digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .clock(Arc::new(SimTime(control.clone())))
        .recorder(log.clone())
        .ws_connector(Arc::new(TapNetwork(frames.clone())))
        .build()
        .unwrap();
    let mut stream = client.stream(Family::Spot);
    for sub in subscriptions() {
        stream = stream.subscribe(sub);
    }
    let mut stream = stream.build().unwrap();
    until_subscribed(&mut stream);
    // The stream is read on as the calls go (its socket thread writes the frames down); it
    // ends when the server is gone.
    let reader = std::thread::spawn(move || while stream.next_event().is_some() {});
    run(&client, ops);
    // The pushes come over the network at the server's ticks: wait for as many frames as in
    // process (a busy machine delays them), then a few ticks more for any extra.
    let deadline = Instant::now() + Duration::from_secs(20);
    while frames.lines().len() < expected && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(400));
    let lines = log.0.lock().unwrap().clone();
    let pushed = frames.lines();
    drop(client);
    drop(sim);
    drop(reader);
    (lines, pushed)
}

fn in_process(ops: &[Op]) -> Logs {
    let ex = InProcess::new(config()).unwrap();
    let demo = ex.control().demo_account();
    let log = Arc::new(Log::default());
    let frames = Arc::new(Frames::default());
    let draining = Arc::new(AtomicBool::new(false));
    let client = ex
        .ureq_client()
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .recorder(log.clone())
        .ws_pacer(Arc::new(TapPacer {
            inner: ex.pacer(),
            frames: frames.clone(),
            draining: draining.clone(),
            ticked: AtomicBool::new(false),
        }))
        .build()
        .unwrap();
    let mut stream = client.stream(Family::Spot);
    for sub in subscriptions() {
        stream = stream.subscribe(sub);
    }
    let mut stream = stream.build().unwrap();
    until_subscribed(&mut stream);
    run(&client, ops);
    // The stream reads what the calls pushed, lets one tick pass, reads its pushes and ends.
    draining.store(true, Ordering::SeqCst);
    while stream.next_event().is_some() {}
    let lines = log.0.lock().unwrap().clone();
    (lines, frames.lines())
}

/// Compares two runs line by line (the first difference is the message).
fn same(server: &[String], local: &[String], what: &str) -> Result<(), String> {
    for (i, (s, l)) in server.iter().zip(local).enumerate() {
        if s != l {
            return Err(format!(
                "{what} {i} differs:\nserver:     {s}\nin process: {l}"
            ));
        }
    }
    if server.len() != local.len() {
        let n = server.len().min(local.len());
        return Err(format!(
            "{what}: {} through the server, {} in process; then\nserver:     {:?}\nin process: {:?}",
            server.len(),
            local.len(),
            &server[n..],
            &local[n..]
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn the_server_and_the_in_process_exchange_answer_alike(ops in proptest::collection::vec(op(), 1..24)) {
        let (local, local_frames) = in_process(&ops);
        let (server, server_frames) = through_the_server(&ops, local_frames.len());
        let checked = same(&server, &local, "exchange")
            .and_then(|()| same(&server_frames, &local_frames, "frame"));
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }
}

#[test]
fn a_fixed_sequence_places_fills_and_cancels_alike() {
    let ops = [
        Op::Buy { ticks: 0, lots: 2 },
        Op::Sell { ticks: 5, lots: 1 },
        Op::Buy { ticks: 39, lots: 3 },
        Op::Fills,
        Op::Open,
        Op::CancelLast,
        Op::Detail,
        Op::Assets,
    ];
    let (local, local_frames) = in_process(&ops);
    let (server, server_frames) = through_the_server(&ops, local_frames.len());
    same(&server, &local, "exchange").unwrap();
    same(&server_frames, &local_frames, "frame").unwrap();
    // The stream saw the account's orders and the market's trades (the fills above).
    assert!(
        local_frames
            .iter()
            .any(|l| l.starts_with("< ") && l.contains("order.update")),
        "{local_frames:#?}"
    );
    assert!(
        local_frames
            .iter()
            .any(|l| l.starts_with("< ") && l.contains("trades.update")),
        "{local_frames:#?}"
    );
    // Something was placed and something answered with an error or a fill: the log is not
    // trivially equal.
    assert!(local.iter().any(|l| l.contains("/spot/order/new")));
    assert!(local.len() >= 9, "{local:#?}");
    assert!(
        local
            .iter()
            .any(|l| l.contains("/spot/order/new") && l.contains(r#""code":0"#)),
        "{local:#?}"
    );
    assert!(
        local
            .iter()
            .any(|l| l.contains("/spot/mytrades") && l.contains(r#""price""#)),
        "{local:#?}"
    );
}
