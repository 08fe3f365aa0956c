//! Issue 36, through both clients (blocking `digifinex-ureq`, async `digifinex-hyper`) against
//! a simulator whose clock is 30 s behind or ahead of this machine's:
//!
//! - a private stream measures the server's clock on its socket when no measured offset is at
//!   hand (no REST client, or one that has not synced) and authenticates;
//! - beside a REST session whose offset went stale (the server's clock jumped), the refused
//!   auth is put down to the clock, measured again and retried;
//! - a key the server does not know is refused a bounded number of times, then the stream gives
//!   up naming the key;
//! - a tracker created from a session that has not measured the clock reads its fills (no spot
//!   20022) and emits the fill of an order placed right after its creation.
//!
//! Loopback only; every wait is bounded.

use std::time::{Duration, Instant};

use digifinex_core::track::{Change, TrackConfig, Tracker};
use digifinex_core::ws::{AuthCause, Event, Subscription, WsConfig};
use digifinex_core::{spot, Credentials, Decimal, Family, Price};
use digifinex_sim::{Sim, SimConfig, SimHandle};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Blocking,
    Async,
}

/// A stream of either client.
trait Next {
    fn next(&mut self) -> Option<Event>;
}

impl Next for digifinex_ureq::ws::Stream {
    fn next(&mut self) -> Option<Event> {
        self.next_event()
    }
}

struct Async(digifinex_hyper::ws::Stream, tokio::runtime::Runtime);

impl Next for Async {
    fn next(&mut self) -> Option<Event> {
        let Async(s, rt) = self;
        rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(1), s.next_event())
                .await
                .unwrap_or(Some(Event::Unknown {
                    family: Family::Spot,
                    channel: "(no event within 1 s)".into(),
                    data: digifinex_core::ws::RawJson(
                        serde_json::value::RawValue::from_string("null".into()).unwrap(),
                    ),
                }))
        })
    }
}

fn sim_with_clock(offset_ms: i64) -> (SimHandle, Credentials) {
    let sim = Sim::start(SimConfig::default()).expect("simulator");
    let demo = sim.control().demo_account();
    sim.control().set_clock_offset(offset_ms);
    (sim, Credentials::new(demo.keys.key, demo.keys.secret))
}

fn fast() -> WsConfig {
    WsConfig {
        auth_retry_initial: Duration::from_millis(100),
        reconnect_initial: Duration::from_millis(50),
        reconnect_max: Duration::from_millis(400),
        ..WsConfig::default()
    }
}

fn url(sim: &SimHandle, family: Family) -> String {
    match family {
        Family::Spot => sim.spot_ws_url(),
        _ => sim.swap_ws_url(),
    }
}

fn private(family: Family) -> Subscription {
    match family {
        Family::Spot => "spot:order:btc_usdt",
        _ => "swap:order",
    }
    .parse()
    .unwrap()
}

/// How the stream gets its clock.
#[derive(Clone, Copy, Debug)]
enum Rest {
    /// No REST client.
    None,
    /// Beside a client that has not synced.
    Unsynced,
    /// Beside a client that synced before the server's clock jumped 60 s.
    Stale,
}

fn stream(
    kind: Kind,
    family: Family,
    sim: &SimHandle,
    creds: &Credentials,
    rest: Rest,
) -> Box<dyn Next> {
    let sub = private(family);
    match kind {
        Kind::Blocking => {
            let client = digifinex_ureq::Client::builder()
                .spot_base_url(sim.spot_base_url())
                .swap_base_url(sim.swap_base_url())
                .allow_http(true)
                .credentials(creds.clone())
                .build()
                .unwrap();
            let b = match rest {
                Rest::None => digifinex_ureq::ws::StreamBuilder::new(family)
                    .url(url(sim, family))
                    .allow_http(true)
                    .credentials(creds.clone()),
                Rest::Unsynced => client.stream(family),
                Rest::Stale => {
                    client.sync_time(family).unwrap();
                    sim.control()
                        .set_clock_offset(sim.control().clock_offset() + 60_000);
                    client.stream(family)
                }
            };
            Box::new(b.config(fast()).subscribe(sub).build().unwrap())
        }
        Kind::Async => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let client = rt.block_on(async {
                digifinex_hyper::Client::builder()
                    .spot_base_url(sim.spot_base_url())
                    .swap_base_url(sim.swap_base_url())
                    .allow_http(true)
                    .credentials(creds.clone())
                    .build()
                    .unwrap()
            });
            let b = match rest {
                Rest::None => digifinex_hyper::ws::StreamBuilder::new(family)
                    .url(url(sim, family))
                    .allow_http(true)
                    .credentials(creds.clone()),
                Rest::Unsynced => client.stream(family),
                Rest::Stale => {
                    rt.block_on(client.sync_time(family)).unwrap();
                    sim.control()
                        .set_clock_offset(sim.control().clock_offset() + 60_000);
                    client.stream(family)
                }
            };
            let s = b.config(fast()).subscribe(sub).build().unwrap();
            Box::new(Async(s, rt))
        }
    }
}

/// The events until `pred` (the matching one last); panics after `limit`.
fn until(s: &mut dyn Next, limit: Duration, pred: impl Fn(&Event) -> bool) -> Vec<Event> {
    let end = Instant::now() + limit;
    let mut seen = Vec::new();
    while Instant::now() < end {
        let Some(e) = s.next() else { break };
        let hit = pred(&e);
        seen.push(e);
        if hit {
            return seen;
        }
    }
    panic!("no matching event within {limit:?}: {seen:?}")
}

fn subscribed_private(e: &Event) -> bool {
    matches!(e, Event::Subscribed { subscriptions } if subscriptions.iter().any(|s| s.channel.is_private()))
}

fn measured(events: &[Event]) -> Vec<i64> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ClockMeasured { offset_ms, .. } => Some(*offset_ms),
            _ => None,
        })
        .collect()
}

/// Before: the auth was signed with this machine's clock (or the unsynced session's offset 0),
/// refused, and nothing followed.
fn measures_the_clock_and_authenticates(kind: Kind) {
    for (family, offset, rest) in [
        (Family::Spot, -30_000, Rest::None),
        (Family::Spot, 30_000, Rest::Unsynced),
        (Family::Swap, -30_000, Rest::Unsynced),
        (Family::Swap, 30_000, Rest::None),
    ] {
        let (sim, creds) = sim_with_clock(offset);
        let mut s = stream(kind, family, &sim, &creds, rest);
        let events = until(&mut *s, Duration::from_secs(20), subscribed_private);
        let what = format!("{kind:?} {family} {offset} {rest:?}: {events:?}");
        let m = measured(&events);
        assert_eq!(m.len(), 1, "{what}");
        assert!((m[0] - offset).abs() < 2_000, "{what}");
        assert!(events.contains(&Event::Authenticated { family }), "{what}");
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Event::AuthRefused { .. })),
            "{what}"
        );
    }
}

#[test]
fn blocking_stream_measures_the_clock_and_authenticates() {
    measures_the_clock_and_authenticates(Kind::Blocking);
}

#[test]
fn async_stream_measures_the_clock_and_authenticates() {
    measures_the_clock_and_authenticates(Kind::Async);
}

/// Before: beside a session synced before the server's clock jumped, the refused auth was the
/// end of it.
fn a_stale_offset_is_measured_again_after_the_refusal(kind: Kind) {
    for family in [Family::Spot, Family::Swap] {
        let (sim, creds) = sim_with_clock(0);
        let mut s = stream(kind, family, &sim, &creds, Rest::Stale);
        let events = until(&mut *s, Duration::from_secs(20), subscribed_private);
        let what = format!("{kind:?} {family}: {events:?}");
        let refused: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::AuthRefused {
                    cause,
                    refusals,
                    retry_in_ms,
                    ..
                } => Some((*cause, *refusals, retry_in_ms.is_some())),
                _ => None,
            })
            .collect();
        assert_eq!(refused, vec![(AuthCause::Clock, 1, true)], "{what}");
        let m = measured(&events);
        assert_eq!(m.len(), 1, "{what}");
        assert!((m[0] - 60_000).abs() < 2_000, "{what}");
        assert!(events.contains(&Event::Authenticated { family }), "{what}");
    }
}

#[test]
fn blocking_stale_offset_is_measured_again() {
    a_stale_offset_is_measured_again_after_the_refusal(Kind::Blocking);
}

#[test]
fn async_stale_offset_is_measured_again() {
    a_stale_offset_is_measured_again_after_the_refusal(Kind::Async);
}

/// Before: a refused key was reported once and then nothing happened, forever.
fn an_unknown_key_is_refused_four_times_then_given_up(kind: Kind) {
    for family in [Family::Spot, Family::Swap] {
        let (sim, _) = sim_with_clock(0);
        let stranger = Credentials::new("0123456789abcdef0123456789abcdef", "00112233445566");
        let mut s = stream(kind, family, &sim, &stranger, Rest::None);
        let events = until(&mut *s, Duration::from_secs(20), |e| {
            matches!(
                e,
                Event::AuthRefused {
                    retry_in_ms: None,
                    ..
                }
            )
        });
        let what = format!("{kind:?} {family}: {events:?}");
        let refused: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::AuthRefused {
                    cause,
                    refusals,
                    retry_in_ms,
                    subscriptions,
                    ..
                } => Some((*cause, *refusals, *retry_in_ms, subscriptions.clone())),
                _ => None,
            })
            .collect();
        let sub = vec![private(family)];
        assert_eq!(
            refused,
            vec![
                (AuthCause::Key, 1, Some(100), sub.clone()),
                (AuthCause::Key, 2, Some(200), sub.clone()),
                (AuthCause::Key, 3, Some(400), sub.clone()),
                (AuthCause::Key, 4, None, sub),
            ],
            "{what}"
        );
    }
}

#[test]
fn blocking_unknown_key_is_given_up() {
    an_unknown_key_is_refused_four_times_then_given_up(Kind::Blocking);
}

#[test]
fn async_unknown_key_is_given_up() {
    an_unknown_key_is_refused_four_times_then_given_up(Kind::Async);
}

/// A buy at the best ask: filled at once (at least partly) by the simulator's book.
fn crossing_buy(client: &digifinex_ureq::Client) -> spot::PlaceOrderRequest {
    let book = client
        .send(&spot::OrderBookRequest::new("btc_usdt"))
        .expect("book");
    let ask = book.best_ask().expect("an ask").price;
    spot::PlaceOrderRequest::new(
        spot::Market::Spot,
        "btc_usdt",
        spot::LimitOrder::buy(
            "0.001".parse().unwrap(),
            Price::new((ask * Decimal::new(101, 2)).round_dp(2)),
        ),
    )
}

/// Before: with this machine's clock ahead, every resync failed on `spot.mytrades` (20022) and
/// the fill was never read; and a tracker dated ahead of the server held the fill back.
fn tracker_reads_fills_from_an_unmeasured_session(kind: Kind) {
    for offset in [-30_000i64, 30_000] {
        let (sim, creds) = sim_with_clock(offset);
        let trader = digifinex_ureq::Client::builder()
            .spot_base_url(sim.spot_base_url())
            .allow_http(true)
            .credentials(creds.clone())
            .build()
            .unwrap();
        let order = crossing_buy(&trader);
        let config = TrackConfig::default().resync_interval(Duration::from_secs(3600));
        let changes: Vec<Change> = match kind {
            Kind::Blocking => {
                let client = digifinex_ureq::Client::builder()
                    .spot_base_url(sim.spot_base_url())
                    .allow_http(true)
                    .credentials(creds.clone())
                    .build()
                    .unwrap();
                let now = client.session().now();
                let mut t = client.tracker(Tracker::new(Family::Spot, ["btc_usdt"], config, now));
                trader.send(&order).expect("placed");
                t.sync();
                std::iter::from_fn(|| t.poll_change()).collect()
            }
            Kind::Async => {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    let client = digifinex_hyper::Client::builder()
                        .spot_base_url(sim.spot_base_url())
                        .allow_http(true)
                        .credentials(creds.clone())
                        .build()
                        .unwrap();
                    let now = client.session().now();
                    let mut t =
                        client.tracker(Tracker::new(Family::Spot, ["btc_usdt"], config, now));
                    let placed = tokio::task::spawn_blocking({
                        let trader = trader.clone();
                        let order = order.clone();
                        move || trader.send(&order).map(|p| p.order_id)
                    });
                    placed.await.unwrap().expect("placed");
                    t.sync().await;
                    std::iter::from_fn(|| t.poll_change()).collect()
                })
            }
        };
        let what = format!("{kind:?} {offset}: {changes:?}");
        assert!(
            !changes
                .iter()
                .any(|c| matches!(c, Change::ReadFailed { .. })),
            "{what}"
        );
        assert!(
            changes.iter().any(|c| matches!(c, Change::Filled { .. })),
            "{what}"
        );
        assert!(
            matches!(changes.last(), Some(Change::Resynced { .. })),
            "{what}"
        );
    }
}

#[test]
fn blocking_tracker_reads_fills_from_an_unmeasured_session() {
    tracker_reads_fills_from_an_unmeasured_session(Kind::Blocking);
}

#[test]
fn async_tracker_reads_fills_from_an_unmeasured_session() {
    tracker_reads_fills_from_an_unmeasured_session(Kind::Async);
}
