//! Record against the simulator, replay without it: a session that places, queries and
//! cancels orders gives identical typed results from the recording, with both clients; no
//! generated key or secret reaches a recorded byte; the replayer's mismatch errors.

use digifinex_core::record::{Recorder, ReplayMode, Replayer};
use digifinex_core::spot::{
    CancelOrdersRequest, LimitOrder, Market, OrderDetailRequest, PlaceOrderRequest,
    SpotAssetsRequest,
};
use digifinex_core::swap;
use digifinex_core::{Amount, Credentials, Decimal, Error, ErrorKind, Price, Size};
use digifinex_sim::{Sim, SimHandle};
use proptest::prelude::*;
use std::sync::{Arc, Mutex};

fn d(s: &str) -> Decimal {
    s.parse().expect("decimal")
}

/// An in-memory file the recorder appends to and the test reads back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn bytes(&self) -> Vec<u8> {
        self.0.lock().expect("lock").clone()
    }
}

fn buy() -> PlaceOrderRequest {
    PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(Amount::new(d("0.001")), Price::new(d("20000"))),
    )
}

/// Place, query, cancel (spot), place and cancel (swap), balances: every result as text.
fn session(c: &digifinex_ureq::Client) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    let placed = c.send(&buy())?;
    out.push(format!("{placed:?}"));
    let detail = c.send(&OrderDetailRequest::new(
        Market::Spot,
        placed.order_id.clone(),
    ))?;
    out.push(format!("{detail:?}"));
    let cancelled = c.send(&CancelOrdersRequest::new(Market::Spot, [placed.order_id]))?;
    out.push(format!("{cancelled:?}"));
    let long = c.send(&swap::PlaceOrderRequest::new(swap::OrderSpec::limit(
        "BTCUSDTPERP",
        swap::OrderSide::OpenLong,
        Size::ONE,
        Price::new(d("29000")),
    )))?;
    out.push(format!("{long:?}"));
    let gone = c.send(&swap::CancelOrderRequest::new("BTCUSDTPERP", long.order_id))?;
    out.push(format!("{gone:?}"));
    out.push(format!("{:?}", c.send(&SpotAssetsRequest::new())?));
    Ok(out)
}

fn ureq(sim: Option<&SimHandle>, creds: &Credentials) -> digifinex_ureq::ClientBuilder {
    let b = digifinex_ureq::Client::builder()
        .allow_http(true)
        .credentials(creds.clone())
        .auto_time_sync(false);
    match sim {
        Some(s) => b
            .spot_base_url(s.spot_base_url())
            .swap_base_url(s.swap_base_url()),
        // Replaying: any base URL; nothing is sent.
        None => b
            .spot_base_url("http://127.0.0.1:9/v3")
            .swap_base_url("http://127.0.0.1:9"),
    }
}

#[test]
fn a_recorded_session_replays_identically_with_both_clients() {
    let sim = Sim::start(Default::default()).expect("sim");
    let demo = sim.control().demo_account();
    let creds = Credentials::new(demo.keys.key.clone(), demo.keys.secret.clone());
    let file = Shared::default();
    let recorder = Arc::new(Recorder::new(file.clone()).redacting(&creds));
    let live = ureq(Some(&sim), &creds)
        .recorder(recorder.clone())
        .build()
        .expect("client");
    let recorded = session(&live).expect("live session");
    assert!(recorder.take_error().is_none());
    let bytes = file.bytes();
    let text = String::from_utf8(bytes.clone()).expect("utf-8");
    assert_eq!(text.lines().count(), 6);
    assert!(!text.contains(&demo.keys.key) && !text.contains(&demo.keys.secret));
    drop(sim);

    // A crash cut the last line while it was written: the records before it read, the cut is
    // reported; a damaged line before the last still fails, naming it.
    let whole = Replayer::from_reader(bytes.as_slice(), ReplayMode::Strict).expect("read");
    assert_eq!(whole.cut(), None);
    let last_start = text.trim_end().rfind('\n').expect("several lines") + 1;
    let cut = &bytes[..last_start + 40];
    let r = Replayer::from_reader(cut, ReplayMode::Strict).expect("read up to the cut");
    assert_eq!((r.records().count(), r.cut()), (5, Some(6)));
    let mut damaged = bytes.clone();
    damaged.splice(0..0, b"{not json\n".iter().copied());
    let e = Replayer::from_reader(damaged.as_slice(), ReplayMode::Strict).unwrap_err();
    assert!(e.to_string().starts_with("recording line 1:"), "{e}");

    // Blocking client, strict replay: the same typed results, nothing left over.
    let replayer =
        Arc::new(Replayer::from_reader(bytes.as_slice(), ReplayMode::Strict).expect("read"));
    let offline = ureq(None, &creds)
        .replayer(replayer.clone())
        .build()
        .expect("client");
    assert_eq!(session(&offline).expect("replayed session"), recorded);
    assert_eq!(replayer.finish(), Ok(()));

    // Async client, matching replay of the spot part in another order.
    let replayer =
        Arc::new(Replayer::from_reader(bytes.as_slice(), ReplayMode::Matching).expect("read"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let c = digifinex_hyper::Client::builder()
            .spot_base_url("http://127.0.0.1:9/v3")
            .swap_base_url("http://127.0.0.1:9")
            .allow_http(true)
            .credentials(creds.clone())
            .auto_time_sync(false)
            .replayer(replayer.clone())
            .build()
            .expect("client");
        let assets = c.send(&SpotAssetsRequest::new()).await.expect("assets");
        assert_eq!(format!("{assets:?}"), recorded[5]);
        let placed = c.send(&buy()).await.expect("placed");
        assert_eq!(format!("{placed:?}"), recorded[0]);
        // A request the recording does not hold: a transport error naming the difference,
        // not sent, not retried, not an unknown outcome.
        let other = PlaceOrderRequest::new(
            Market::Spot,
            "btc_usdt",
            LimitOrder::buy(Amount::new(d("0.002")), Price::new(d("20000"))),
        );
        let err = c.send(&other).await.expect_err("not recorded");
        assert_eq!(err.kind(), ErrorKind::Network);
        assert!(
            err.to_string().contains("no unused record matches"),
            "{err}"
        );
        assert!(err.to_string().contains(r#"("amount", "0.002")"#), "{err}");
    });

    // Strict replay names the first difference: here a different price.
    let replayer =
        Arc::new(Replayer::from_reader(bytes.as_slice(), ReplayMode::Strict).expect("read"));
    let offline = ureq(None, &creds)
        .replayer(replayer)
        .build()
        .expect("client");
    let wrong = PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(Amount::new(d("0.001")), Price::new(d("20001"))),
    );
    let err = offline.send(&wrong).expect_err("mismatch");
    assert!(
        err.to_string()
            .contains(r#"replay mismatch at record #0: POST /v3/spot/order/new: body differs"#),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Whatever the key and secret (printable ASCII, 8-40 characters), no recorded byte holds
    /// either, even when the venue echoes them back.
    #[test]
    fn no_key_or_secret_reaches_the_recording(
        key in "[!-~]{8,40}", secret in "[!-~]{8,40}",
    ) {
        let creds = Credentials::new(key.clone(), secret.clone());
        let file = Shared::default();
        let recorder = Arc::new(Recorder::new(file.clone()).redacting(&creds));
        let echo_key = key.clone();
        let echo_secret = secret.clone();
        let venue = move |req: http::Request<Vec<u8>>| {
            let body = serde_json::json!({
                "code": 0,
                "order_id": "1",
                "echo": [echo_key.clone(), echo_secret.clone()],
                "headers": format!("{:?}", req.headers()),
            });
            http::Response::builder().status(200).body(body.to_string().into_bytes())
        };
        let session = digifinex_core::session::Session::builder()
            .credentials(creds)
            .auto_time_sync(false)
            .build();
        let _ = digifinex_core::exchange::send_with(&session, &buy(), recorder.wrap(venue));
        let bytes = file.bytes();
        let text = String::from_utf8_lossy(&bytes);
        prop_assert!(!bytes.is_empty());
        prop_assert!(!text.contains(&key), "key in {}", text);
        prop_assert!(!text.contains(&secret), "secret in {}", text);
    }
}
