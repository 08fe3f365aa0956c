//! Shared by `tests/stream_bot.rs` and `benches/backtest.rs` (each includes it with
//! `#[path]`): a recording of websocket-grade data generated from a seed, and a market maker
//! driven by its depth stream, blocking and async. Each returns the stream events it read (the
//! time and the event, as text) and the report.

#![allow(dead_code)]

use digifinex_backtest::{Backtest, BacktestConfig};
use digifinex_core::spot::{CancelOrdersRequest, LimitOrder, Market, PlaceOrderRequest};
use digifinex_core::ws::Event;
use digifinex_core::{Amount, Family, Price};
use digifinex_market::{Data, Header, Record, Side, SpotPairInfo, Trade, Writer};
use digifinex_sim::{MarketConfig, SimConfig};
use rust_decimal::Decimal;

/// The recording's start.
pub const T0: i64 = 1_800_000_000_000;

/// splitmix64, the bench's own generator of test data.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// `steps` of 10 ms of `btc_usdt` as the websocket recorder writes it: a 20-level snapshot, then a
/// delta of one or two levels every 10 ms (the touch moves now and then) and a trade every
/// 100 ms; gzip, flushed as `digifinex record` flushes (every 64 KiB of lines, and once a
/// second; `every_record`: after every record, as the recorder did before). The number of
/// records.
pub fn ws_recording(steps: i64, every_record: bool) -> (Vec<u8>, u64) {
    let header = Header {
        spot: vec![SpotPairInfo {
            symbol: "btc_usdt".into(),
            price_precision: 2,
            amount_precision: 5,
            min_amount: Decimal::new(1, 5),
            min_value: Decimal::ONE,
        }],
        ..Header::default()
    };
    let mut w = Writer::new(Vec::new(), &header)
        .expect("writer")
        .flush_every(if every_record { 0 } else { 64 << 10 });
    let mut rng = Rng(7);
    let tick = Decimal::new(1, 2);
    let mut bid = Decimal::from(30_000);
    let size = |rng: &mut Rng| Decimal::new(1 + rng.below(100_000) as i64, 5);
    let (bids, asks) = (0..20i64)
        .map(|k| {
            (
                (bid - tick * Decimal::from(k), size(&mut rng)),
                (bid + tick * Decimal::from(k + 1), size(&mut rng)),
            )
        })
        .unzip();
    let mut n = 0u64;
    let mut put = |w: &mut Writer<Vec<u8>>, r: Record| {
        w.write(&r).expect("write");
        n += 1;
    };
    put(
        &mut w,
        Record {
            t: T0,
            data: Data::SpotDepth {
                symbol: "btc_usdt".into(),
                snapshot: true,
                bids,
                asks,
                ts: Some(T0),
            },
        },
    );
    let mut id = 1u64;
    for step in 1..=steps {
        let t = T0 + step * 10;
        // One time in twenty the touch moves a tick (the old level emptied, a new one
        // filled); else a size changes at one of the first five levels.
        let (mut b, mut a) = (Vec::new(), Vec::new());
        match rng.below(20) {
            0 => {
                b.push((bid + tick, size(&mut rng)));
                a.push((bid + tick, Decimal::ZERO));
                bid += tick;
            }
            1 => {
                b.push((bid, Decimal::ZERO));
                a.push((bid, size(&mut rng)));
                bid -= tick;
            }
            k if k % 2 == 0 => b.push((bid - tick * Decimal::from(rng.below(5)), size(&mut rng))),
            _ => a.push((bid + tick * Decimal::from(1 + rng.below(5)), size(&mut rng))),
        }
        put(
            &mut w,
            Record {
                t,
                data: Data::SpotDepth {
                    symbol: "btc_usdt".into(),
                    snapshot: false,
                    bids: b,
                    asks: a,
                    ts: Some(t),
                },
            },
        );
        if step % 100 == 0 {
            w.flush().expect("flush");
        }
        if step % 10 == 0 {
            let buy = rng.below(2) == 0;
            put(
                &mut w,
                Record {
                    t,
                    data: Data::SpotTrades {
                        symbol: "btc_usdt".into(),
                        trades: vec![Trade {
                            id: id.to_string(),
                            time_ms: t,
                            price: if buy { bid + tick } else { bid },
                            qty: Decimal::new(1 + rng.below(1000) as i64, 5),
                            side: if buy { Side::Buy } else { Side::Sell },
                            direction: None,
                        }],
                    },
                },
            );
            id += 1;
        }
    }
    (w.finish().expect("finish"), n)
}

/// A backtest over `recording` and nothing else (no synthetic markets).
pub fn over(recording: &[u8]) -> BacktestConfig {
    let sim = SimConfig {
        market: Some(MarketConfig::reader(std::io::Cursor::new(
            recording.to_vec(),
        ))),
        markets: Vec::new(),
        swap_instruments: Vec::new(),
        ..SimConfig::default()
    };
    BacktestConfig::new(sim)
}

/// A market maker on the depth stream: at every change of the best bid or ask it cancels its
/// quote on that side and places a post-only one at the new touch (blocking client). The
/// stream events it read, and the report.
pub fn maker_blocking(recording: &[u8]) -> (Vec<String>, String) {
    let mut events = Vec::new();
    let report = Backtest::new(over(recording))
        .expect("backtest")
        .run(|bot| -> Result<(), digifinex_core::Error> {
            let c = bot.client();
            let mut stream = c
                .stream(Family::Spot)
                .subscribe("spot:depth:btc_usdt".parse().expect("sub"))
                .build()?;
            let mut touch = [None, None];
            let mut ids: [Option<String>; 2] = [None, None];
            for event in stream.by_ref() {
                events.push(format!("{} {event:?}", bot.now_ms()));
                let Event::Book(update) = event else { continue };
                let now = [update.best_bid, update.best_ask];
                for side in 0..2 {
                    let Some(level) = now[side] else { continue };
                    if touch[side] == Some(level.price) {
                        continue;
                    }
                    touch[side] = Some(level.price);
                    if let Some(id) = ids[side].take() {
                        let _ = c.send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]));
                    }
                    let amount = Amount::new(Decimal::new(1, 3));
                    let price = Price::new(level.price);
                    let order = if side == 0 {
                        LimitOrder::buy(amount, price).post_only()
                    } else {
                        LimitOrder::sell(amount, price).post_only()
                    };
                    if let Ok(p) = c.send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
                    {
                        ids[side] = Some(p.order_id);
                    }
                }
            }
            Ok(())
        })
        .expect("run");
    (events, report.to_json())
}

/// [`maker_blocking`] with the async client.
pub fn maker_async(recording: &[u8]) -> (Vec<String>, String) {
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let counted = events.clone();
    let report = Backtest::new(over(recording))
        .expect("backtest")
        .run_async(|bot| async move {
            let c = bot.client();
            let mut stream = c
                .stream(Family::Spot)
                .subscribe("spot:depth:btc_usdt".parse().expect("sub"))
                .build()?;
            let mut touch = [None, None];
            let mut ids: [Option<String>; 2] = [None, None];
            while let Some(event) = stream.next_event().await {
                counted
                    .lock()
                    .unwrap()
                    .push(format!("{} {event:?}", bot.now_ms()));
                let Event::Book(update) = event else { continue };
                let now = [update.best_bid, update.best_ask];
                for side in 0..2 {
                    let Some(level) = now[side] else { continue };
                    if touch[side] == Some(level.price) {
                        continue;
                    }
                    touch[side] = Some(level.price);
                    if let Some(id) = ids[side].take() {
                        let _ = c
                            .send(&CancelOrdersRequest::new(Market::Spot, [id.as_str()]))
                            .await;
                    }
                    let amount = Amount::new(Decimal::new(1, 3));
                    let price = Price::new(level.price);
                    let order = if side == 0 {
                        LimitOrder::buy(amount, price).post_only()
                    } else {
                        LimitOrder::sell(amount, price).post_only()
                    };
                    if let Ok(p) = c
                        .send(&PlaceOrderRequest::new(Market::Spot, "btc_usdt", order))
                        .await
                    {
                        ids[side] = Some(p.order_id);
                    }
                }
            }
            Ok::<(), digifinex_core::Error>(())
        })
        .expect("run");
    let events = events.lock().unwrap().clone();
    (events, report.to_json())
}
