//! The clients against an exchange in the same process: REST, streams (public and private),
//! virtual time, the end of time, determinism, and the same answers as the server's.

use std::time::Duration;

use digifinex_backtest::InProcess;
use digifinex_core::spot::{
    CurrentOrdersRequest, LimitOrder, Market, OrderBookRequest, PlaceOrderRequest,
    SpotAssetsRequest,
};
use digifinex_core::ws::{Event, Subscription};
use digifinex_core::{Amount, Credentials, Decimal, Family, Price};
use digifinex_sim::SimConfig;

const T0: i64 = 1_800_000_000_000;

fn config() -> SimConfig {
    let mut config = SimConfig {
        start_time_ms: Some(T0),
        ..SimConfig::default()
    };
    config.markets.retain(|m| m.symbol() == "btc_usdt");
    config.swap_instruments.clear();
    config
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn sub(s: &str) -> Subscription {
    s.parse().unwrap()
}

fn client(ex: &InProcess) -> digifinex_ureq::Client {
    let demo = ex.control().demo_account();
    ex.ureq_client()
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .build()
        .unwrap()
}

/// Nine tenths of the best bid: an order that rests.
fn far_bid(client: &digifinex_ureq::Client) -> Decimal {
    let book = client.send(&OrderBookRequest::new("btc_usdt")).unwrap();
    (book.best_bid().unwrap().price * d("0.9")).round_dp(2)
}

/// What a run saw, in order: the events' kinds and payloads, with the virtual time of each.
fn trace(ex: &InProcess, until_ms: i64) -> Vec<String> {
    let client = client(ex);
    let mut stream = client
        .stream(Family::Spot)
        .seed(7)
        .subscribe(sub("spot:trades:btc_usdt"))
        .subscribe(sub("spot:order:btc_usdt"))
        .build()
        .unwrap();
    let mut seen = Vec::new();
    let mut placed = None;
    while ex.now_ms() < until_ms {
        let Some(event) = stream.next() else { break };
        if placed.is_none()
            && matches!(
                event,
                Event::SpotTrades {
                    snapshot: false,
                    ..
                }
            )
        {
            // A resting bid far below the touch, placed while the stream runs.
            let order = LimitOrder::buy(Amount::new(d("0.002")), Price::new(far_bid(&client)));
            let answer = client
                .send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
                .unwrap();
            placed = Some(answer.order_id);
        }
        seen.push(format!("{} {event:?}", ex.now_ms()));
    }
    seen
}

#[test]
fn a_stream_and_rest_calls_run_in_virtual_time_with_no_socket() {
    let ex = InProcess::new(config()).unwrap();
    let seen = trace(&ex, T0 + 10 * 60_000);
    // Ten minutes of virtual time went by (far less of the wall clock: nothing slept).
    assert!(ex.now_ms() >= T0 + 10 * 60_000, "{}", ex.now_ms());
    let trades = seen
        .iter()
        .filter(|l| l.contains("SpotTrades { symbol: \"BTC_USDT\", snapshot: false"))
        .count();
    assert!(trades > 10, "new trades pushed: {trades}");
    // The order placed over REST came back as a private push on the stream.
    let pushes: Vec<_> = seen.iter().filter(|l| l.contains("SpotOrders")).collect();
    assert!(!pushes.is_empty(), "no order push in {seen:#?}");
    assert!(
        pushes[0].contains("status: Some(NotExecuted)"),
        "{}",
        pushes[0]
    );
    // The events' times never go back.
    let times: Vec<i64> = seen
        .iter()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    // The stream authenticated and subscribed as over the network.
    assert!(seen.iter().any(|l| l.contains("Authenticated")));
    assert!(seen.iter().any(|l| l.contains("Subscribed")));
}

#[test]
fn the_same_configuration_and_calls_give_the_same_events() {
    let a = trace(&InProcess::new(config()).unwrap(), T0 + 3 * 60_000);
    let b = trace(&InProcess::new(config()).unwrap(), T0 + 3 * 60_000);
    assert!(a.len() > 20);
    assert_eq!(a, b);
}

#[test]
fn compressed_frames_give_the_same_events_as_text_frames() {
    let a = trace(&InProcess::new(config()).unwrap(), T0 + 2 * 60_000);
    let b = trace(
        &InProcess::new(config()).unwrap().compressed(true),
        T0 + 2 * 60_000,
    );
    assert_eq!(a, b);
}

#[test]
fn a_stream_ends_when_time_is_over() {
    let end = T0 + 5 * 60_000;
    let ex = InProcess::new(config()).unwrap().end_at(Some(end));
    let client = client(&ex);
    let stream = client
        .stream(Family::Spot)
        .subscribe(sub("spot:trades:btc_usdt"))
        .build()
        .unwrap();
    let events: Vec<Event> = stream.collect();
    assert_eq!(ex.now_ms(), end);
    assert!(
        matches!(events.last(), Some(Event::Disconnected { .. })),
        "{:?}",
        events.last()
    );
    // REST still answers at the end, and time stays there.
    let book = client.send(&OrderBookRequest::new("btc_usdt")).unwrap();
    assert!(book.best_bid().is_some());
    assert_eq!(ex.now_ms(), end);
}

#[test]
fn a_rest_round_trip_takes_its_latency_of_virtual_time() {
    let ex = InProcess::new(config())
        .unwrap()
        .rest_latency(Duration::from_millis(40), Duration::from_millis(60));
    let client = client(&ex);
    let before = ex.now_ms();
    client.send(&SpotAssetsRequest::new()).unwrap();
    assert_eq!(ex.now_ms(), before + 100);
}

#[test]
fn the_async_client_and_its_stream_run_in_virtual_time() {
    let ex = InProcess::new(config()).unwrap();
    let demo = ex.control().demo_account();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = ex
            .hyper_client()
            .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
            .build()
            .unwrap();
        let mut stream = client
            .stream(Family::Spot)
            .subscribe(sub("spot:trades:btc_usdt"))
            .subscribe(sub("spot:order:btc_usdt"))
            .build()
            .unwrap();
        let mut trades = 0;
        while trades < 5 {
            if let Some(Event::SpotTrades {
                snapshot: false, ..
            }) = stream.next_event().await
            {
                trades += 1;
            }
        }
        let book = client
            .send(&OrderBookRequest::new("btc_usdt"))
            .await
            .unwrap();
        let bid = (book.best_bid().unwrap().price * d("0.9")).round_dp(2);
        let order = LimitOrder::buy(Amount::new(d("0.002")), Price::new(bid));
        let id = client
            .send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
            .await
            .unwrap()
            .order_id;
        loop {
            if let Some(Event::SpotOrders { orders }) = stream.next_event().await {
                assert_eq!(orders[0].id, id);
                break;
            }
        }
        let open = client
            .send(&CurrentOrdersRequest::new(Market::Spot))
            .await
            .unwrap();
        assert_eq!(open.data.len(), 1);
    });
    assert!(ex.now_ms() > T0);
}

#[test]
fn logged_round_trips_become_a_latency_model() {
    use digifinex_backtest::RestLatency;
    use digifinex_core::roundtrip::{read_rows, RoundTripLog};
    use std::sync::Arc;

    // A bot's orders, logged as a live run would log them (here in virtual time, 40 + 60 ms).
    let ex = InProcess::new(config())
        .unwrap()
        .rest_latency(Duration::from_millis(40), Duration::from_millis(60));
    let path = std::env::temp_dir().join(format!("roundtrips-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let log = Arc::new(RoundTripLog::append_to(&path).unwrap());
    let demo = ex.control().demo_account();
    let client = ex
        .ureq_client()
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .recorder(log.clone())
        .build()
        .unwrap();
    let t0 = ex.now_ms();
    for _ in 0..3 {
        let order = LimitOrder::buy(Amount::new(d("0.002")), Price::new(far_bid(&client)));
        client
            .send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
            .unwrap();
    }
    let rows = read_rows(std::io::BufReader::new(std::fs::File::open(&path).unwrap())).unwrap();
    // Only the placements (not the book reads), each 100 ms of virtual time.
    assert_eq!(rows.len(), 3);
    assert!(rows
        .iter()
        .all(|r| r.path == "/v3/spot/order/new" && r.status == Some(200)));
    assert!(rows.iter().all(|r| r.received_ms - r.sent_ms == 100));
    assert!(rows[0].sent_ms >= t0);
    // Read back as a model: no venue time in spot answers, so each round trip is halved.
    let model = RestLatency::from_rows(&rows);
    assert_eq!(model.legs(rows[1].sent_ms, t0, 0), (50, 50));
    let replay = InProcess::new(config()).unwrap().latency_model(model);
    let client = client_of(&replay);
    let before = replay.now_ms();
    client.send(&SpotAssetsRequest::new()).unwrap();
    assert_eq!(replay.now_ms(), before + 100);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn uniform_latency_draws_each_call_within_its_ranges() {
    use digifinex_backtest::RestLatency;
    let ex = InProcess::new(config())
        .unwrap()
        .latency_model(RestLatency::Uniform {
            entry_ms: (5, 15),
            response_ms: (20, 30),
            seed: 3,
        });
    let client = client_of(&ex);
    let mut spent = Vec::new();
    for _ in 0..20 {
        let before = ex.now_ms();
        client.send(&SpotAssetsRequest::new()).unwrap();
        spent.push(ex.now_ms() - before);
    }
    assert!(spent.iter().all(|t| (25..=45).contains(t)), "{spent:?}");
    assert!(spent.iter().any(|t| *t != spent[0]), "{spent:?}");
}

fn client_of(ex: &InProcess) -> digifinex_ureq::Client {
    client(ex)
}

#[test]
fn waiting_past_the_last_instant_returns() {
    let ex = InProcess::new(SimConfig {
        start_time_ms: Some(digifinex_sim::MAX_MS - 1_000),
        ..config()
    })
    .unwrap();
    // Time is over at the last instant: the wait says so instead of spinning there.
    assert!(!ex.wait(Duration::from_secs(3600)));
    assert_eq!(ex.now_ms(), digifinex_sim::MAX_MS);
    // There, time is over: a stream ends instead of waiting forever.
    assert!(ex.is_over());
    let stream = client(&ex)
        .stream(Family::Spot)
        .subscribe(sub("spot:trades:btc_usdt"))
        .build()
        .unwrap();
    assert!(stream.count() < 100);
}
