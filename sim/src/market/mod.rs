//! A recorded market: the file format ([`mod@format`]), replaying a recording into the simulator,
//! and the order latency model ([`latency`]).
//!
//! With [`crate::SimConfig::market`] set, the books, public trades, tickers, mark and index
//! prices and funding of every pair and instrument the recording names come from the recording
//! instead of the synthetic market maker; the others keep the synthetic market (the default).
//!
//! # Time
//!
//! The simulator clock *is* the recording's clock: at start it reads the recording's first
//! receive time (unless [`crate::SimConfig::start_time_ms`] freezes it elsewhere) and runs at
//! [`MarketConfig::speed`] times the wall clock, or moves only as a test advances it. Whatever
//! happened in the recording up to the current simulator time has happened in the simulator,
//! applied lazily, in time order, whenever the state is read or changed (every request and
//! control call): so a replay is deterministic, however the requests are timed, as long as the
//! machine keeps up (see "Bounded catch-up" below for a replay that falls behind).
//!
//! Events are ordered by their time: a snapshot, ticker, funding or mark record at its receive
//! time, a recorded trade at its trade time (so the trades a snapshot already reflects are
//! applied before it, and no size is consumed twice). The replay reads [`LOOKAHEAD_MS`] of
//! receive time ahead of the next event to find those trades; a trade that arrives later than
//! that is applied when read. Records with the same time apply in file order. At the end of the
//! recording the market stays as it last was.
//!
//! # What each record does
//!
//! - **Book snapshot** : the recorded size of every
//!   listed level is set, levels no longer there lose their recorded size (see the book's
//!   DESIGN note on queue position); own orders stay. Own orders the new book crosses fill as
//!   makers at their price .
//! - **Trade** (each trade id once): appended to the public trades (with a simulator trade id);
//!   the trade consumes the level at its price from the front of the queue and trades through
//!   every better level : own orders reached fill as
//!   makers.
//! - **Ticker**: the 24-hour figures of `/ticker` (spot `high`, `low`, `vol`, `base_vol`,
//!   `change`; swap `high_24h`, `low_24h`, `open_24h`, `volume_24h`, `price_change_percent`)
//!   are the last recorded ones; prices at the top of the book and the last price come from the
//!   replayed book and trades.
//! - **Mark**: the mark price (and the index price; without one the index follows the mark).
//! - **Funding**: the rate that settles at the recorded next funding time, and that time (never
//!   one already settled); a recorded last rate enters the funding history one interval
//!   before. Settlement itself runs as always (at each instrument's interval, with the mark
//!   price of that moment), as do liquidations (checked at every swap event).
//!
//! Version 2 (websocket) records, tick by tick, each at its receive time:
//!
//! - **Depth snapshot** (`spot_depth`/`swap_depth` with `snapshot`): as a book snapshot above
//!   (levels sorted best first first); the market's book is *streamed* from then on and valid.
//! - **Depth delta**: each listed level gets its new recorded size (`Book::set_recorded`;
//!   size 0 deletes it); own orders a delta crosses fill as makers. A delta for a book that is
//!   not valid (before the market's first snapshot, depth or book, or after a resync or
//!   reconnect marker until its next snapshot) is not applied and is counted
//!   ([`ReplayStats::dropped_deltas`]).
//! - **Resync** marker: the market's book stays as it last was (clients keep seeing it) but is
//!   no longer valid: its deltas wait for the next snapshot, which replaces the book.
//!   **Reconnect** marker: the same for every market the socket carried (all streamed markets
//!   of its family when the marker lists none).
//! - **Trade** of a streamed market: on the tape as above and filling own orders it reaches,
//!   but the recorded sizes stay as the depth frames say
//!   : the frame after the trade reports its effect, so
//!   taking it from the book as well would count it twice. What the trade took ahead of an own
//!   order moves that order up its queue.
//! - **Index**: the index price; a later mark record without an index leaves it alone.
//!
//! Pairs and instruments the header describes and the configuration lacks are added (their
//! reference price from their first recorded book). A pair or instrument changes over to the
//! recording at its first event: the synthetic maker's quotes and trades (and swap funding
//! history) go, own orders stay, and the synthetic maker no longer tops it up.
//!
//! DESIGN (own orders): an order that takes liquidity walks the replayed book (the recorded
//! depth, with its slippage); what it takes is gone until the next snapshot says otherwise (the
//! recording did not see our trade). Fills from the recording are maker fills at the resting
//! order's price, charged the maker rate. The public trades are the recorded ones plus the
//! trades of orders that take liquidity; a maker fill caused by a recorded trade is part of that
//! trade and adds none. Trade ids in answers are the simulator's.
//!
//! # Bounded catch-up
//!
//! Whatever is due is applied lazily, but never more than a bounded amount of work per lock of
//! the state, so that a request is answered in bounded time at any clock speed and after any
//! jump. Each lock runs one *step* towards the current time with at most 25,000 order flow
//! events (by the markets' current rates; twice that at most) and 2,500 units of other work
//! (a line of the recording read, a recorded event applied, a delayed order executed):
//!
//! - the **order flow** is compressed: of a stretch longer than the step's share (about six
//!   minutes of the default markets) or than [`crate::SimConfig::flow_catch_up_ms`], only the
//!   last part before now runs; the markets stand still before it. The flow never lags.
//! - **funding** settles at most 100 periods of an instrument at once; a longer jump skips the
//!   rest unsettled.
//! - a **recording** and the **latency queue** are never skipped: when a step's work runs out
//!   the state stops before their next event (nothing after it, the flow included, has
//!   happened) and the simulator is *behind*; requests are answered from the state as far as
//!   it got, and the following steps (each request's, and a background task's that steps while
//!   behind, between requests) go on in time order. A recording that the machine cannot read as
//!   fast as the clock runs falls behind the clock for good (lower the speed).
//!
//! The Rust [`crate::Control`] handle waits for the whole catch-up (in the same steps, the
//! server answering between them), so a test that moves the clock reads the state of the new
//! instant; the HTTP control API starts it with one step. [`crate::Exchange::advance_to`] runs
//! it all at once, bounded only by `flow_catch_up_ms`.
//!
//! DESIGN (sans-IO shape): a step is a function of the state, a target time and a budget;
//! it applies the due events of every driver in time order and reports whether events due
//! by the target remain. Driving the exchange by `advance_to(t)` then means stepping until
//! nothing due by `t` remains; what a budget compresses (the flow, funding) depends only on the
//! state and the target, so a frozen clock moved the same way gives the same market.
//!
//! # Latency
//!
//! [`crate::SimConfig::latency`] ([`Latency`]) delays API order placements (spot and margin
//! `order/new` and `batch_new`; swap `order_place` and `batch_order`): the order is accepted and
//! frozen at the request time, answered at once, listed as open, and reaches the book only
//! after the drawn delay, against the book as it is then (recorded or synthetic); a cancel
//! before that finds it and cancels it. Position closes and copy-trading orders are not
//! delayed. The answer itself is not delayed (add a [`crate::FaultKind::Latency`] rule for
//! that).

/// The recording format: the `digifinex-market` crate ([`digifinex_market`]).
pub use digifinex_market as format;
pub mod fill;
pub mod latency;
pub mod source;

pub use fill::FillModel;
pub use format::{Data, Header, ReadError, Reader, Record, Ticker, Trade, Writer, MAX_LINE};
pub use latency::Latency;
pub use source::{MarketConfig, MarketSource};

/// Receive time read ahead of the next event (ms): trades polled up to this long after a
/// snapshot are still applied before it when their trade time is earlier.
pub const LOOKAHEAD_MS: i64 = 60_000;

/// Trade ids remembered per pair or instrument to drop repeated trades of overlapping polls.
pub const SEEN_TRADES: usize = digifinex_market::SeenIds::DEFAULT_CAPACITY;

/// Records with the same receive time replayed at most (10,000); further ones are skipped and
/// counted ([`ReplayStats::over_batch`]). A recorder writes a few records per market per
/// round; a file with more at one instant is damaged or hostile.
pub const MAX_BATCH: u64 = 10_000;

/// Events held in the replay's queue at most (200,000): reading ahead stops there, so memory
/// stays bounded whatever the file holds.
pub const MAX_QUEUED: usize = 200_000;

/// Counters of a replay.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayStats {
    /// Records read.
    pub records: u64,
    /// Events applied.
    pub applied: u64,
    /// Lines that could not be read (skipped).
    pub bad_lines: u64,
    /// Records naming a pair or instrument the simulator does not have (skipped).
    pub unknown: u64,
    /// Repeated trades dropped.
    pub repeated_trades: u64,
    /// Records skipped because their receive time already had [`MAX_BATCH`] records.
    pub over_batch: u64,
    /// Depth deltas not applied: the market's book was not valid (before its first depth
    /// snapshot, or after a resync or reconnect marker until its next snapshot).
    pub dropped_deltas: u64,
    /// Whether the whole recording has been read.
    pub ended: bool,
}
