//! The same exchange through both adapters: a seeded sequence of signed REST calls, sent by
//! the blocking client to the server (over loopback HTTP, its clock frozen) and to an
//! exchange in the same process at the same instant, gives the same requests and the same
//! answers, byte for byte.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use digifinex_backtest::InProcess;
use digifinex_core::record::Tap;
use digifinex_core::spot::{
    CancelOrdersRequest, CurrentOrdersRequest, LimitOrder, Market, MyTradesRequest,
    OrderBookRequest, OrderDetailRequest, PlaceOrderRequest, SpotAssetsRequest, TickerRequest,
};
use digifinex_core::{Amount, Clock, Credentials, Decimal, Price, TimestampMillis};
use digifinex_sim::{Control, Sim, SimConfig};
use proptest::prelude::*;

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
    let tick: Decimal = "0.5".parse().unwrap();
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

fn through_the_server(ops: &[Op]) -> Vec<String> {
    let sim = Sim::start(config()).unwrap();
    let control = sim.control();
    control.freeze_clock(Some(T0));
    let demo = control.demo_account();
    let log = Arc::new(Log::default());
    let client = digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .clock(Arc::new(SimTime(control.clone())))
        .recorder(log.clone())
        .build()
        .unwrap();
    run(&client, ops);
    let lines = log.0.lock().unwrap().clone();
    lines
}

fn in_process(ops: &[Op]) -> Vec<String> {
    let ex = InProcess::new(config()).unwrap();
    let demo = ex.control().demo_account();
    let log = Arc::new(Log::default());
    let client = ex
        .ureq_client()
        .credentials(Credentials::new(demo.keys.key, demo.keys.secret))
        .recorder(log.clone())
        .build()
        .unwrap();
    run(&client, ops);
    let lines = log.0.lock().unwrap().clone();
    lines
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn the_server_and_the_in_process_exchange_answer_alike(ops in proptest::collection::vec(op(), 1..24)) {
        let server = through_the_server(&ops);
        let local = in_process(&ops);
        prop_assert_eq!(server.len(), local.len());
        for (s, l) in server.iter().zip(&local) {
            prop_assert_eq!(s, l);
        }
    }
}

#[test]
fn a_fixed_sequence_places_fills_and_cancels_alike() {
    let ops = [
        Op::Buy { ticks: 0, lots: 2 },
        Op::Sell { ticks: 39, lots: 1 },
        Op::Buy { ticks: 30, lots: 3 },
        Op::Fills,
        Op::Open,
        Op::CancelLast,
        Op::Detail,
        Op::Assets,
    ];
    let server = through_the_server(&ops);
    let local = in_process(&ops);
    assert_eq!(server, local);
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
