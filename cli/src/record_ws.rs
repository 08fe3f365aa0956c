//! `digifinex record --source ws`: the websockets' market data as received, tick by tick.
//!
//! DESIGN:
//! - One stream per family from the same client as the REST reads (`Client::stream`), sharded
//!   over as many sockets as the subscriptions need. Per spot pair: depth, trades, ticker; per
//!   swap instrument: depth (the smallest level of 10, 20 and 100 that holds `--depth`),
//!   trades, ticker, index price, mark price and funding rate.
//! - Every depth frame is written as received (`spot_depth`/`swap_depth`, snapshot or delta,
//!   format version 2), with the local receive time; trades, tickers, index, mark and funding
//!   as their own records. A book the stream rebuilds is marked (`resync`, with the reason), and
//!   a socket that came back after a loss is marked (`reconnect`, with its socket, the time it
//!   was lost, the reason and the family's markets), so a replay knows where the book restarts.
//! - The streams run on their own threads and hand their events over a bounded queue: when the
//!   disk is slower than the feed, the streams wait (backpressure), nothing is dropped.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use digifinex_core::spot::TradeSide;
use digifinex_core::swap::OrderSide;
use digifinex_core::ws::{Event, Level, Subscription};
use digifinex_core::{Decimal, Family};
use digifinex_market::{self as format, Data, MarketId, Record, Side, Ticker, Trade, Writer};
use digifinex_ureq::Client;

use crate::Failure;

/// Events held between the streams and the writer.
const QUEUE: usize = 16_384;

/// What a websocket session wrote.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    /// Records written.
    pub records: u64,
    /// Depth frames among them.
    pub frames: u64,
    /// Resync markers.
    pub resyncs: u64,
    /// Reconnect markers.
    pub reconnects: u64,
}

/// The swap depth level that holds `depth` levels.
fn swap_level(depth: u32) -> u16 {
    match depth {
        0..=10 => 10,
        11..=20 => 20,
        _ => 100,
    }
}

pub(crate) fn subscriptions(
    spot: &[String],
    swap: &[String],
    depth: u32,
) -> Result<Vec<Subscription>, Failure> {
    let mut subs = Vec::new();
    for pair in spot {
        let pair = pair.to_ascii_lowercase();
        for ch in ["depth", "trades", "ticker"] {
            subs.push(format!("spot:{ch}:{pair}"));
        }
    }
    for id in swap {
        subs.push(format!("swap:depth:{id}:{}", swap_level(depth)));
        for ch in ["trades", "ticker", "index_price", "mark_price", "fund_rate"] {
            subs.push(format!("swap:{ch}:{id}"));
        }
    }
    subs.iter()
        .map(|s| s.parse().map_err(|e| Failure::Usage(format!("{e}"))))
        .collect()
}

fn levels(side: &[Level]) -> Vec<format::Level> {
    side.iter().map(|l| (l.price, l.size)).collect()
}

fn market(sub: &Subscription) -> Option<MarketId> {
    let target = sub.target.clone()?;
    Some(match sub.family {
        Family::Spot => MarketId::Spot(target.to_ascii_lowercase()),
        _ => MarketId::Swap(target.to_ascii_uppercase()),
    })
}

/// A spot trade time (seconds, maybe with a fraction) in ms.
fn spot_ms(seconds: Decimal) -> i64 {
    (seconds * Decimal::from(1000))
        .trunc()
        .try_into()
        .unwrap_or(0)
}

/// The records of one event (`None`: nothing to record).
fn records(t: i64, event: Event) -> Vec<Data> {
    let mut out = Vec::new();
    match event {
        Event::SpotTrades { symbol, trades, .. } => {
            let trades: Vec<Trade> = trades
                .into_iter()
                .filter_map(|tr| {
                    Some(Trade {
                        id: tr.id,
                        time_ms: spot_ms(tr.time),
                        price: tr.price?,
                        qty: tr.amount?,
                        side: match tr.side? {
                            TradeSide::Buy => Side::Buy,
                            _ => Side::Sell,
                        },
                        direction: None,
                    })
                })
                .collect();
            if !trades.is_empty() {
                out.push(Data::SpotTrades {
                    symbol: symbol.to_ascii_lowercase(),
                    trades,
                });
            }
        }
        Event::SwapTrades { trades, .. } => {
            let mut by: HashMap<String, Vec<Trade>> = HashMap::new();
            for tr in trades {
                let (Some(id), Some(price), Some(qty), Some(direction)) =
                    (tr.instrument_id, tr.price, tr.volume, tr.direction)
                else {
                    continue;
                };
                // The venue's codes: 1 open long and 4 close short buy, 2 and 3 sell.
                let (side, code) = match direction {
                    OrderSide::OpenLong => (Side::Buy, 1),
                    OrderSide::OpenShort => (Side::Sell, 2),
                    OrderSide::CloseLong => (Side::Sell, 3),
                    _ => (Side::Buy, 4),
                };
                by.entry(id).or_default().push(Trade {
                    id: tr.trade_id,
                    time_ms: tr.trade_time.map_or(t, |x| x.0),
                    price,
                    qty,
                    side,
                    direction: Some(code),
                });
            }
            for (instrument, trades) in by {
                out.push(Data::SwapTrades { instrument, trades });
            }
        }
        Event::SpotTickers { tickers, .. } => {
            for k in tickers {
                let ticker = Ticker {
                    last: k.last,
                    bid: k.best_bid,
                    ask: k.best_ask,
                    high: k.high_24h,
                    low: k.low_24h,
                    open: k.open_24h,
                    volume: k.base_volume_24h,
                    quote_volume: k.quote_volume_24h,
                    bid_size: k.best_bid_size,
                    ask_size: k.best_ask_size,
                    last_qty: k.last_qty,
                    ..Ticker::default()
                };
                let symbol = k.symbol.to_ascii_lowercase();
                out.push(Data::SpotTicker { symbol, ticker });
            }
        }
        Event::SwapTicker(k) => {
            let ticker = Ticker {
                last: k.last,
                bid: k.best_bid,
                ask: k.best_ask,
                high: k.high_24h,
                low: k.low_24h,
                open: k.open_24h,
                volume: k.volume_24h,
                bid_size: k.best_bid_size,
                ask_size: k.best_ask_size,
                last_qty: k.last_qty,
                ..Ticker::default()
            };
            out.push(Data::SwapTicker {
                instrument: k.instrument_id,
                ticker,
            });
        }
        Event::SwapIndexPrice(p) => {
            if let Some(index) = p.index_price {
                out.push(Data::Index {
                    instrument: p.instrument_id,
                    index,
                    ts: p.timestamp.map(|x| x.0),
                });
            }
        }
        Event::SwapMarkPrice(p) => {
            if let Some(mark) = p.mark_price {
                out.push(Data::Mark {
                    instrument: p.instrument_id,
                    mark,
                    index: None,
                });
            }
        }
        Event::SwapFundingRate(f) => {
            if let (Some(rate), Some(next)) = (f.funding_rate, f.funding_time) {
                out.push(Data::Funding {
                    instrument: f.instrument_id,
                    rate,
                    next_time: next.0,
                    next_rate: f.next_funding_rate,
                    last_rate: None,
                });
            }
        }
        _ => {}
    }
    out
}

/// Records until `stop` is set or `end` passes, into `writer`; progress on stderr every 10 s.
pub(crate) fn record<W: std::io::Write>(
    client: &Client,
    spot: &[String],
    swap: &[String],
    depth: u32,
    writer: &mut Writer<W>,
    stop: &AtomicBool,
    end: Option<Duration>,
) -> Result<Counts, Failure> {
    let subs = subscriptions(spot, swap, depth)?;
    let (tx, rx) = mpsc::sync_channel::<(Family, i64, Event)>(QUEUE);
    let markets = markets_by_family(spot, swap);
    for family in [Family::Spot, Family::Swap] {
        let mine: Vec<Subscription> = subs
            .iter()
            .filter(|s| s.family == family)
            .cloned()
            .collect();
        if mine.is_empty() {
            continue;
        }
        let mut b = client.stream(family);
        for s in mine {
            b = b.subscribe(s);
        }
        let stream = b.build().map_err(|e| Failure::Usage(e.to_string()))?;
        let (tx, clock) = (tx.clone(), client.session().clock().clone());
        std::thread::Builder::new()
            .name(format!("record-{family}"))
            .spawn(move || {
                for event in stream {
                    if tx.send((family, clock.now().0, event)).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| Failure::Other(format!("cannot start a stream thread: {e}")))?;
    }
    drop(tx);
    let started = Instant::now();
    let mut report = Instant::now();
    // The compressor is flushed a second after the last flush at the latest (and every
    // `FLUSH_BYTES` of lines, by the writer).
    let mut flushed = Instant::now();
    let mut counts = Counts::default();
    // Sockets lost and not yet back: (family, socket) -> (time, reason).
    let mut lost = Lost::new();
    let mut stderr = std::io::stderr();
    loop {
        if stop.load(Ordering::SeqCst) || end.is_some_and(|e| started.elapsed() >= e) {
            break;
        }
        if flushed.elapsed() >= Duration::from_secs(1) {
            writer.flush()?;
            flushed = Instant::now();
        }
        let (family, t, event) = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(x) => x,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        write_event(writer, t, family, event, &mut counts, &mut lost, &markets)?;
        if report.elapsed() >= Duration::from_secs(10) {
            report = Instant::now();
            let _ = writeln!(
                stderr,
                "{} records ({} depth frames, {} resyncs, {} reconnects), {} bytes",
                counts.records,
                counts.frames,
                counts.resyncs,
                counts.reconnects,
                writer.bytes()
            );
        }
    }
    Ok(counts)
}

/// Each family's markets (spot pairs in lower case), for the reconnect markers.
pub(crate) fn markets_by_family(spot: &[String], swap: &[String]) -> HashMap<Family, Vec<String>> {
    [
        (
            Family::Spot,
            spot.iter().map(|s| s.to_ascii_lowercase()).collect(),
        ),
        (Family::Swap, swap.to_vec()),
    ]
    .into_iter()
    .collect()
}

/// Sockets lost and not yet back: (family, socket) -> (time, reason).
pub(crate) type Lost = HashMap<(Family, u32), (i64, String)>;

/// Writes the records of one event received at `t` (ms) from `family`'s stream: a depth frame
/// as received, a resync marker, a reconnect marker once a lost socket is back, trades,
/// tickers, index, mark and funding as their own records.
pub(crate) fn write_event<W: std::io::Write>(
    writer: &mut Writer<W>,
    t: i64,
    family: Family,
    event: Event,
    counts: &mut Counts,
    lost: &mut Lost,
    markets: &HashMap<Family, Vec<String>>,
) -> Result<(), Failure> {
    match &event {
        Event::Book(u) => {
            if let Some(m) = market(&u.subscription) {
                let ts = u.timestamp.map(|x| x.0);
                writer.write_depth(t, &m, u.snapshot, &levels(&u.bids), &levels(&u.asks), ts)?;
                counts.frames = counts.frames.saturating_add(1);
                counts.records = counts.records.saturating_add(1);
            }
        }
        Event::Resync {
            subscription,
            reason,
            ..
        } => {
            if let Some(m) = market(subscription) {
                let reason = serde_json::to_value(reason)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| format!("{reason:?}"));
                writer.write_resync(t, &m, &reason)?;
                counts.resyncs = counts.resyncs.saturating_add(1);
                counts.records = counts.records.saturating_add(1);
            }
        }
        Event::Disconnected { socket, reason, .. } => {
            lost.insert((family, *socket), (t, reason.to_string()));
        }
        Event::Connected { socket, .. } => {
            if let Some((at, reason)) = lost.remove(&(family, *socket)) {
                let fam = match family {
                    Family::Spot => format::Family::Spot,
                    _ => format::Family::Swap,
                };
                let all = markets.get(&family).cloned().unwrap_or_default();
                writer.write_reconnect(t, fam, Some(*socket), Some(at), Some(&reason), &all)?;
                counts.reconnects = counts.reconnects.saturating_add(1);
                counts.records = counts.records.saturating_add(1);
            }
        }
        _ => {}
    }
    for data in records(t, event) {
        writer.write(&Record { t, data })?;
        counts.records = counts.records.saturating_add(1);
    }
    Ok(())
}
