//! `digifinex record`: the venue's public market data into a `digifinex-market` recording
//! (`digifinex_sim::market::format`), which `digifinex sim --market FILE` replays: polled
//! through the REST client and its weight budget (`--source rest`, the default), or every
//! websocket frame as received (`--source ws`, see `record_ws`). `--spot all` / `--swap all`
//! record every listed market.
//!
//! DESIGN:
//! - Each round polls, per spot pair, the order book (`--depth` levels), the recent trades and
//!   the ticker; per swap instrument, the depth, the recent trades, the ticker (whose mark and
//!   index prices become a `mark` record) and the funding rate. Each answer is one record
//!   stamped with the local time it arrived.
//! - The file is appended to (a crashed session's unfinished tail is repaired first) and every
//!   record is flushed when written, so stopping at any moment loses nothing written. Ctrl-C
//!   ends the current round's writing and closes the file cleanly.
//! - Progress (rounds, records, bytes, weight used) goes to stderr, one line per round.
//! - The header describes the pairs and instruments (`/v3/spot/symbols`,
//!   `/swap/v2/public/instruments`), so a simulator that does not know them can still trade them.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use digifinex_core::{spot, swap, Decimal, Endpoint};
use digifinex_market::{
    Codec, Data, Header, Record, Side, SpotPairInfo, SwapInstrumentInfo, Ticker, Trade, Writer,
};
use digifinex_ureq::Client;

use crate::live::start_sim;
use crate::Failure;

/// Bytes of record lines between two flushes of the recording's compressor (at most; a
/// polling round, or a second of websocket records, flushes sooner).
pub(crate) const FLUSH_BYTES: usize = 64 << 10;

/// `digifinex record`.
#[derive(Args)]
pub(crate) struct RecordArgs {
    /// Spot pairs, comma-separated (`btc_usdt,eth_usdt`).
    #[arg(long, value_name = "PAIRS", value_delimiter = ',')]
    spot: Vec<String>,
    /// Swap instruments, comma-separated (`BTCUSDTPERP`).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    swap: Vec<String>,
    /// Time between the starts of two polling rounds, in ms (at least 100).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(100..))]
    interval_ms: u64,
    /// Stop after this many seconds (default: until Ctrl-C).
    #[arg(long, value_name = "S")]
    duration_s: Option<u64>,
    /// Order book levels to record (spot 1-150, swap 1-100).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100))]
    depth: u32,
    /// The recording to append to (created when missing; gzip JSON lines, zstd with
    /// `--compression zstd` or a name ending in `.zst`), or `s3://bucket/prefix/NAME` (built
    /// with the `s3` feature: uploaded as it is written, there once the recorder stops).
    #[arg(long, value_name = "FILE")]
    out: std::path::PathBuf,
    /// Compression of a new recording (default: zstd for a name ending in `.zst`, else
    /// gzip); appending keeps the file's own.
    #[arg(long, value_enum)]
    compression: Option<Compression>,
    /// Spot/margin base URL (default `https://openapi.digifinex.com/v3`).
    #[arg(long, value_name = "URL", conflicts_with = "sim")]
    base_url: Option<String>,
    /// Swap host URL (default `https://openapi.digifinex.com`).
    #[arg(long, value_name = "URL", conflicts_with = "sim")]
    swap_base_url: Option<String>,
    /// Allow a plain `http://` base URL to a machine other than this one.
    #[arg(long)]
    allow_http: bool,
    /// Record from an embedded simulator instead of the venue (to try the recorder).
    #[arg(long)]
    sim: bool,
    /// Where the data comes from: `rest` polls (one book per interval), `ws` records every
    /// websocket depth frame, trade, ticker, index, mark and funding push as received.
    #[arg(long, value_enum, default_value_t = Source::Rest)]
    source: Source,
    /// With `--source feed`: the NATS server of a `digifinex feed` (`nats://HOST:4222`).
    #[arg(long, value_name = "URL")]
    feed: Option<String>,
    /// With `--source feed`: the feed's JetStream stream.
    #[arg(long, value_name = "NAME", default_value = "DIGIFINEX")]
    feed_stream: String,
    /// With `--source feed`: a NATS credentials file.
    #[arg(long, value_name = "FILE")]
    nats_creds: Option<std::path::PathBuf>,
}

/// `record --compression`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Compression {
    /// gzip members (every tool opens them).
    Gzip,
    /// zstd frames (less CPU for the recorder; readers of this version take both).
    Zstd,
}

impl RecordArgs {
    /// The compression of a new recording.
    fn codec(&self) -> Codec {
        match self.compression {
            Some(Compression::Gzip) => Codec::Gzip,
            Some(Compression::Zstd) => Codec::Zstd,
            None => Codec::for_path(&self.out),
        }
    }
}

/// Where `record` takes its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Source {
    /// REST polling.
    Rest,
    /// The websockets.
    Ws,
    /// A `digifinex feed` through NATS JetStream (`--feed URL`).
    Feed,
}

/// `all` as the only market: every listed one (spot pairs trading, swap instruments).
fn expand(client: &Client, args: &mut RecordArgs, p: &mut Progress) -> Result<(), Failure> {
    let all =
        |v: &[String]| v.len() == 1 && v.first().is_some_and(|s| s.eq_ignore_ascii_case("all"));
    if all(&args.spot) {
        let list = poll(client, &spot::SpotSymbolsRequest::new(), p)
            .ok_or_else(|| Failure::Other("cannot list the spot pairs".into()))?;
        args.spot = list
            .symbol_list
            .iter()
            .map(|s| s.symbol.as_str().to_ascii_lowercase())
            .collect();
    }
    if all(&args.swap) {
        let list = poll(client, &swap::InstrumentsRequest::new(), p)
            .ok_or_else(|| Failure::Other("cannot list the swap instruments".into()))?;
        args.swap = list.iter().map(|i| i.instrument_id.clone()).collect();
    }
    Ok(())
}

/// What a round costs and how far the session got.
#[derive(Debug, Default)]
struct Progress {
    rounds: u64,
    weight: u64,
    failures: u64,
}

fn now_ms(client: &Client) -> i64 {
    client.session().local_now().0
}

/// Sends `request`, counting its declared weight; a failure is reported and skipped (one bad
/// answer must not end a long recording).
fn poll<E: Endpoint>(client: &Client, request: &E, p: &mut Progress) -> Option<E::Output> {
    p.weight = p
        .weight
        .saturating_add(u64::from(E::META.weight.unwrap_or(1)));
    match client.send(request) {
        Ok(v) => Some(v),
        Err(e) => {
            p.failures = p.failures.saturating_add(1);
            eprintln!("warning: {} failed: {e}", E::META.path);
            None
        }
    }
}

/// Book levels: `(price, quantity)`.
type Levels = Vec<(Decimal, Decimal)>;

fn levels(side: &[spot::Level]) -> Levels {
    side.iter().map(|l| (l.price, l.amount)).collect()
}

/// Best first: bids by price descending, asks ascending (the venue's order varies).
fn book(bids: &[spot::Level], asks: &[spot::Level]) -> (Levels, Levels) {
    let mut b = levels(bids);
    let mut a = levels(asks);
    b.sort_by_key(|l| std::cmp::Reverse(l.0));
    a.sort_by_key(|l| l.0);
    (b, a)
}

fn spot_round(client: &Client, pair: &str, depth: u32, p: &mut Progress) -> Vec<Record> {
    let mut out = Vec::new();
    let depth_spot = depth.min(150);
    if let Some(b) = poll(
        client,
        &spot::OrderBookRequest::new(pair).limit(depth_spot),
        p,
    ) {
        let (bids, asks) = book(&b.bids, &b.asks);
        out.push(Record {
            t: now_ms(client),
            data: Data::SpotBook {
                symbol: pair.to_ascii_lowercase(),
                depth: Some(depth_spot),
                bids,
                asks,
            },
        });
    }
    if let Some(t) = poll(client, &spot::TradesRequest::new(pair).limit(50), p) {
        let trades = t
            .data
            .iter()
            .filter_map(|x| {
                Some(Trade {
                    id: x.id.clone(),
                    time_ms: x.date?.as_secs().checked_mul(1000)?,
                    price: x.price?,
                    qty: x.amount?,
                    side: match x.side.as_ref()? {
                        spot::TradeSide::Buy => Side::Buy,
                        spot::TradeSide::Sell => Side::Sell,
                        _ => return None,
                    },
                    direction: None,
                })
            })
            .collect();
        out.push(Record {
            t: now_ms(client),
            data: Data::SpotTrades {
                symbol: pair.to_ascii_lowercase(),
                trades,
            },
        });
    }
    if let Some(t) = poll(client, &spot::TickerRequest::new().symbol(pair), p) {
        if let Some(x) = t.ticker.first() {
            out.push(Record {
                t: now_ms(client),
                data: Data::SpotTicker {
                    symbol: pair.to_ascii_lowercase(),
                    ticker: Ticker {
                        last: x.last,
                        bid: x.buy,
                        ask: x.sell,
                        high: x.high,
                        low: x.low,
                        open: None,
                        volume: x.vol,
                        quote_volume: x.base_vol,
                        change: x.change_percent,
                        ..Ticker::default()
                    },
                },
            });
        }
    }
    out
}

fn swap_round(client: &Client, id: &str, depth: u32, p: &mut Progress) -> Vec<Record> {
    let mut out = Vec::new();
    if let Some(b) = poll(client, &swap::DepthRequest::new(id).limit(depth), p) {
        let (bids, asks) = book(&b.bids, &b.asks);
        out.push(Record {
            t: now_ms(client),
            data: Data::SwapBook {
                instrument: id.to_owned(),
                depth: Some(depth),
                bids,
                asks,
            },
        });
    }
    if let Some(list) = poll(client, &swap::TradesRequest::new(id).limit(100), p) {
        let trades = list
            .iter()
            .filter_map(|x| {
                let (side, code) = match x.direction.as_ref()? {
                    swap::OrderSide::OpenLong => (Side::Buy, 1),
                    swap::OrderSide::OpenShort => (Side::Sell, 2),
                    swap::OrderSide::CloseLong => (Side::Sell, 3),
                    swap::OrderSide::CloseShort => (Side::Buy, 4),
                    _ => return None,
                };
                Some(Trade {
                    id: x.trade_id.clone(),
                    time_ms: x.trade_time?.0,
                    price: x.price?,
                    qty: x.volume?,
                    side,
                    direction: Some(code),
                })
            })
            .collect();
        out.push(Record {
            t: now_ms(client),
            data: Data::SwapTrades {
                instrument: id.to_owned(),
                trades,
            },
        });
    }
    if let Some(x) = poll(client, &swap::TickerRequest::new(id), p) {
        let t = now_ms(client);
        out.push(Record {
            t,
            data: Data::SwapTicker {
                instrument: id.to_owned(),
                ticker: Ticker {
                    last: x.last,
                    bid: x.best_bid,
                    ask: x.best_ask,
                    high: x.high_24h,
                    low: x.low_24h,
                    open: x.open_24h,
                    volume: x.volume_24h,
                    quote_volume: None,
                    change: x.price_change_percent,
                    ..Ticker::default()
                },
            },
        });
        if let Some(mark) = x.mark_price {
            out.push(Record {
                t,
                data: Data::Mark {
                    instrument: id.to_owned(),
                    mark,
                    index: x.index_price,
                },
            });
        }
    }
    if let Some(f) = poll(client, &swap::FundingRateRequest::new(id), p) {
        if let (Some(rate), Some(next)) = (f.funding_rate, f.funding_time.or(f.next_funding_time)) {
            out.push(Record {
                t: now_ms(client),
                data: Data::Funding {
                    instrument: id.to_owned(),
                    rate,
                    next_time: next.0,
                    next_rate: f.next_funding_rate,
                    last_rate: None,
                },
            });
        }
    }
    out
}

/// The header: the pairs and instruments as the venue lists them.
fn header(client: &Client, args: &RecordArgs, p: &mut Progress) -> Header {
    let mut h = Header {
        created_ms: Some(now_ms(client)),
        source: Some(format!(
            "digifinex record {}",
            client.session().config().spot_base_url
        )),
        ..Header::default()
    };
    if !args.spot.is_empty() {
        if let Some(list) = poll(client, &spot::SpotSymbolsRequest::new(), p) {
            for s in list.symbol_list {
                let wanted = args
                    .spot
                    .iter()
                    .any(|w| w.eq_ignore_ascii_case(s.symbol.as_str()));
                if let (true, Some(pp), Some(ap)) = (wanted, s.price_precision, s.amount_precision)
                {
                    h.spot.push(SpotPairInfo {
                        symbol: s.symbol.as_str().to_ascii_lowercase(),
                        price_precision: pp,
                        amount_precision: ap,
                        min_amount: s.minimum_amount.unwrap_or_default(),
                        min_value: s.minimum_value.unwrap_or_default(),
                    });
                }
            }
        }
    }
    for id in &args.swap {
        if let Some(i) = poll(client, &swap::InstrumentRequest::new(id.as_str()), p) {
            if let (Some(base), Some(quote), Some(cv), Some(pp), Some(tick)) = (
                i.base_currency,
                i.quote_currency,
                i.contract_value,
                i.price_precision,
                i.tick_size,
            ) {
                h.swap.push(SwapInstrumentInfo {
                    instrument_id: i.instrument_id,
                    base,
                    quote,
                    contract_value: cv,
                    price_precision: pp,
                    tick_size: tick,
                    min_order_amount: i.min_order_amount.unwrap_or(Decimal::ONE),
                    // The instrument does not say; most contracts fund every 8 hours
                    // (docs/protocol.md names the 4-hourly ones; the funding records carry
                    // each settlement time, which is what the replay uses).
                    funding_interval_hours: 8,
                });
            }
        }
    }
    h
}

pub(crate) fn run(mut args: RecordArgs) -> Result<(), Failure> {
    if args.spot.is_empty() && args.swap.is_empty() {
        return Err(Failure::Usage(
            "nothing to record: give --spot PAIRS and/or --swap IDS (comma-separated)".to_owned(),
        ));
    }
    let mut builder = Client::builder();
    let sim = if args.sim {
        let sim = start_sim(digifinex_sim::SimConfig::default().without_limits())?;
        builder = builder
            .spot_base_url(sim.spot_base_url())
            .swap_base_url(sim.swap_base_url())
            .allow_http(true);
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
    let mut p = Progress::default();
    expand(&client, &mut args, &mut p)?;
    let head = header(&client, &args, &mut p);
    // DESIGN: the compressor is flushed at most once a second (after each polling round, or
    // a second after the last flush from the websockets) and every 64 KiB of lines, not after
    // every record: a crash loses at most that much, and the file is smaller and faster to
    // read and to write.
    let target = args.out.to_string_lossy().into_owned();
    let stop = crate::live::interrupt_flag();
    if target.contains("://") {
        return record_to_object(&client, &args, &mut p, &head, &stop, &target, sim);
    }
    let mut writer = Writer::<std::fs::File>::append_with_codec(&args.out, &head, args.codec())
        .map(|w| w.flush_every(FLUSH_BYTES))
        .map_err(|e| {
            Failure::Usage(format!(
                "cannot write the recording {}: {e} (check the --out path)",
                args.out.display()
            ))
        })?;
    if let Some(r) = writer.repair() {
        eprintln!(
            "the recording {} ended in an unfinished or damaged {} (a crash): cut it at \
             byte {} of {}, kept its {} whole line(s) and dropped {} byte(s) of cut lines before \
             appending",
            args.out.display(),
            match writer.codec() {
                Codec::Gzip => "gzip member",
                Codec::Zstd => "zstd frame",
            },
            r.at,
            r.len,
            r.lines_kept,
            r.bytes_dropped
        );
    }
    if args.compression.is_some() && writer.codec() != args.codec() {
        eprintln!(
            "{} is a {:?} recording: appending in {:?}, its own compression (a file is one or \
             the other throughout)",
            args.out.display(),
            writer.codec(),
            writer.codec()
        );
    }
    let done = record_into(&client, &args, &mut p, &mut writer, &stop)?;
    writer.finish()?;
    drop(sim);
    println!("{done} to {}", args.out.display());
    Ok(())
}

/// `--out s3://bucket/prefix/NAME`: the recording is uploaded as it is written and appears
/// under its name when the recorder stops (`--duration-s`, Ctrl-C); an object cannot be
/// appended to, so an existing one is refused.
#[cfg(feature = "export")]
fn record_to_object(
    client: &Client,
    args: &RecordArgs,
    p: &mut Progress,
    head: &Header,
    stop: &AtomicBool,
    target: &str,
    sim: Option<digifinex_sim::SimHandle>,
) -> Result<(), Failure> {
    let (store, name) = crate::storage::open_object(target, "--out")?;
    let cannot =
        |e: std::io::Error| Failure::Other(format!("cannot write the recording {target}: {e}"));
    if store.list(&name).map_err(cannot)?.contains(&name) {
        return Err(Failure::Usage(format!(
            "--out {target} exists: an object cannot be appended to; name a new one"
        )));
    }
    let upload = store.create(&name).map_err(cannot)?;
    let mut writer = Writer::with_codec(upload, head, args.codec())
        .map(|w| w.flush_every(FLUSH_BYTES))
        .map_err(cannot)?;
    let done = record_into(client, args, p, &mut writer, stop)?;
    let bytes = writer.finish().and_then(|u| u.commit()).map_err(cannot)?;
    drop(sim);
    println!("{done} to {target} ({bytes} bytes)");
    Ok(())
}

#[cfg(not(feature = "export"))]
fn record_to_object(
    _: &Client,
    _: &RecordArgs,
    _: &mut Progress,
    _: &Header,
    _: &AtomicBool,
    target: &str,
    _: Option<digifinex_sim::SimHandle>,
) -> Result<(), Failure> {
    Err(Failure::Usage(format!(
        "--out {target}: this digifinex was built without the `s3` feature (cargo build -p \
         digifinex-cli --features s3)"
    )))
}

#[cfg(feature = "feed")]
fn from_feed<W: Write>(
    args: &RecordArgs,
    writer: &mut Writer<W>,
    stop: &AtomicBool,
    end: Option<Duration>,
) -> Result<crate::record_ws::Counts, Failure> {
    let url = args.feed.clone().ok_or_else(|| {
        Failure::Usage("--source feed needs --feed URL (the NATS server of a feed)".to_owned())
    })?;
    let source = crate::feed::FeedSource {
        url,
        creds: args.nats_creds.clone(),
        stream: args.feed_stream.clone(),
    };
    crate::feed_nats::record(&source, &args.spot, &args.swap, writer, stop, end)
}

#[cfg(not(feature = "feed"))]
fn from_feed<W: Write>(
    _: &RecordArgs,
    _: &mut Writer<W>,
    _: &AtomicBool,
    _: Option<Duration>,
) -> Result<crate::record_ws::Counts, Failure> {
    Err(crate::feed::missing("record --source feed"))
}

/// Records until `--duration-s` or Ctrl-C into `writer` (flushed, not finished); what was
/// recorded, for the last line (`recorded N records ...`).
fn record_into<W: Write>(
    client: &Client,
    args: &RecordArgs,
    p: &mut Progress,
    writer: &mut Writer<W>,
    stop: &AtomicBool,
) -> Result<String, Failure> {
    if args.source == Source::Feed {
        let end = args.duration_s.map(Duration::from_secs);
        let counts = from_feed(args, writer, stop, end)?;
        return Ok(format!(
            "recorded {} records ({} depth frames, {} resyncs) from the feed",
            counts.records, counts.frames, counts.resyncs,
        ));
    }
    if args.source == Source::Ws {
        let end = args.duration_s.map(Duration::from_secs);
        let counts = crate::record_ws::record(
            client, &args.spot, &args.swap, args.depth, writer, stop, end,
        )?;
        return Ok(format!(
            "recorded {} records ({} depth frames, {} resyncs, {} reconnects) from the websockets",
            counts.records, counts.frames, counts.resyncs, counts.reconnects,
        ));
    }
    let started = Instant::now();
    let interval = Duration::from_millis(args.interval_ms);
    let end = args.duration_s.map(Duration::from_secs);
    let mut stderr = std::io::stderr();
    'rounds: loop {
        let round_start = Instant::now();
        let mut records = Vec::new();
        for pair in &args.spot {
            records.extend(spot_round(client, pair, args.depth, p));
            if stop.load(Ordering::SeqCst) {
                break;
            }
        }
        for id in &args.swap {
            records.extend(swap_round(client, id, args.depth, p));
            if stop.load(Ordering::SeqCst) {
                break;
            }
        }
        for r in &records {
            writer.write(r)?;
        }
        writer.flush()?;
        p.rounds = p.rounds.saturating_add(1);
        let _ = writeln!(
            stderr,
            "round {}: {} records, {} bytes, weight used {}, {} failed requests",
            p.rounds,
            writer.records(),
            writer.bytes(),
            p.weight,
            p.failures
        );
        if stop.load(Ordering::SeqCst) || end.is_some_and(|e| started.elapsed() >= e) {
            break 'rounds;
        }
        let next = round_start + interval;
        while Instant::now() < next {
            if stop.load(Ordering::SeqCst) {
                break 'rounds;
            }
            std::thread::sleep(
                next.saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(50)),
            );
        }
    }
    Ok(format!(
        "recorded {} records in {} rounds (weight used {})",
        writer.records(),
        p.rounds,
        p.weight
    ))
}
