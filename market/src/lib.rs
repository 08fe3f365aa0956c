//! The recording format of `digifinex-market` files: public market data observed on the venue, one JSON record per line,
//! gzip-compressed. `digifinex record` writes it with [`Writer`]; the simulator (`digifinex-sim`)
//! replays it and `digifinex-export` exports it after reading it with [`Reader`].
//!
//! # Format `digifinex-market`, versions 1 and 2
//!
//! **File.** A gzip file of one or more concatenated gzip members (RFC 1952 allows it; `zcat`
//! reads it whole). The decompressed text is UTF-8, one JSON object per line, each line ended by
//! `\n`. A member never ends inside a line. Appending to a recording adds members, so a file
//! grows by appending and two recordings concatenated (`cat a.gz b.gz`) are one recording.
//!
//! **Header.** The first line of the file is a header, an object with a `format` field; a member
//! may start with a header again (the writer writes one per session), which a reader checks like
//! the first and otherwise ignores:
//!
//! ```json
//! {"format":"digifinex-market","version":2,"created_ms":1706763540000,"source":"...",
//!  "spot":[{"symbol":"icp_usdt","price_precision":3,"amount_precision":2,
//!           "min_amount":"0.01","min_value":"2"}],
//!  "swap":[{"instrument_id":"ICPUSDTPERP","base":"ICP","quote":"USDT","contract_value":"1",
//!           "price_precision":3,"tick_size":"0.001","min_order_amount":"1",
//!           "funding_interval_hours":8}]}
//! ```
//!
//! `format` is `digifinex-market`; `version` is [`VERSION`] (a reader refuses a higher version:
//! a new version is written only when an old reader would misread a file; new optional fields
//! do not need one, readers skip what they do not know). `created_ms`
//! (when the session started) and `source` (free text: where the data came from) are optional.
//! `spot` and `swap` optionally describe the recorded pairs and instruments (as the venue's
//! `/v3/spot/symbols` and `/swap/v2/public/instrument` give them), so that a simulator that
//! does not know a pair can still list and trade it.
//!
//! **Versions.** Version 1 is what the REST poller writes: book snapshots, polled trades,
//! tickers, funding, mark. Version 2 adds what a websocket recording needs: depth frames as
//! received (snapshots *and deltas*), index pushes, tick fields of tickers, and markers where
//! the recorder's book was rebuilt (`resync`) or a socket was replaced (`reconnect`).
//! DESIGN: a version 1 reader would skip the delta kinds as unknown and replay a book frozen
//! at its last snapshot, a silent misreading, so these kinds need the new version. This
//! module writes version 2 headers (a [`Writer`] given a version 1 header refuses the version 2
//! kinds) and reads both.
//!
//! **Records.** Every other line is one observation:
//!
//! | field | meaning |
//! |---|---|
//! | `t` | receive time: when the recorder got the answer or frame, ms since the Unix epoch on the recorder's clock (integer) |
//! | `kind` | one of the kinds below |
//!
//! plus the fields of its kind. Prices, quantities and rates are **decimal strings** in the
//! grammar of [`decimal::parse_dec`] (`"11.357"`, `"1e-07"`), never JSON numbers (which
//! readers would see through binary floating point). Book levels are `[price, quantity]` pairs;
//! in `spot_book` and `swap_book` **best first** on both sides. Trades carry the venue's trade
//! id (a string) and the trade time in ms (the spot venue reports seconds: the recorder writes
//! seconds × 1000); `side` is the taker's side, `buy` or `sell` (spot `type`; swap `direction`
//! 1 and 4 buy, 2 and 3 sell, the venue's code kept in the optional `direction`). Polled
//! recent-trade lists overlap, and a websocket sends the recent list again after each
//! subscription: a reader takes the lines as written and the replay drops a trade id it has
//! already seen. Several records may share a receive time: their order is the file's.
//!
//! | `kind` | since | fields |
//! |---|---|---|
//! | `spot_book` | 1 | `symbol` (`icp_usdt`), optional `depth` (levels asked for), `bids`, `asks` |
//! | `spot_trades` | 1 | `symbol`, `trades`: list of `{id, time, price, qty, side}` (qty in base) |
//! | `spot_ticker` | 1 | `symbol` and, each optional: `last`, `bid`, `ask`, `high`, `low`, `open`, `volume` (base, the venue's `vol`), `quote_volume` (the venue's `base_vol`), `change` (24 h, in percent as the venue writes it); since 2: `bid_size`, `ask_size`, `last_qty`, `ts` (the venue's time, ms) |
//! | `swap_book` | 1 | `instrument` (`BTCUSDTPERP`), optional `depth`, `bids`, `asks` (contracts) |
//! | `swap_trades` | 1 | `instrument`, `trades`: list of `{id, time, price, qty, side, direction?}` (qty in contracts) |
//! | `swap_ticker` | 1 | `instrument` and the optional ticker fields above (`volume` in contracts, `change` a fraction as the venue writes `price_change_percent`) |
//! | `funding` | 1 | `instrument`, `rate` (settled at `next_time`), `next_time` (ms), optional `next_rate` (forecast for the settlement after) and `last_rate` (last settled) |
//! | `mark` | 1 | `instrument`, `mark` (mark price), optional `index` (index price) |
//! | `spot_depth` | 2 | `symbol`, `snapshot` (`true`: the whole book, replacing it; `false`: a delta), `bids`, `asks` (levels as the frame sent them, in its order; in a delta a quantity `"0"` deletes the level, any other quantity is the level's new size), optional `ts` (the venue's time of the frame, ms) |
//! | `swap_depth` | 2 | `instrument` and the fields of `spot_depth` (quantities in contracts) |
//! | `index` | 2 | `instrument`, `index` (index price), optional `ts` |
//! | `resync` | 2 | `symbol` or `instrument` (exactly one), `reason` (`delta_before_snapshot`, `crossed`, `stale`, `reconnect`, `refused`, or other text): the recorder's book of that market was invalid here; its deltas up to its next `*_depth` snapshot must not be applied |
//! | `reconnect` | 2 | `family` (`spot` or `swap`), optional `socket` (the recorder's number of the socket when markets are sharded over several), `lost` (local ms when the loss was noticed), `reason` (text), `markets` (the symbols or instruments the socket carried; absent: every market of the family): data between `lost` and `t` may be missing, and every book on the socket waits for its next snapshot |
//!
//! A websocket recorder writes each depth frame, trade push, ticker, index, mark and funding
//! push as one record with the frame's receive time: ticker pushes as `*_ticker` (the 24-hour
//! fields mapped as above), mark pushes as `mark` without `index`, funding pushes as `funding`
//! (`funding_rate` → `rate`, `funding_time` → `next_time`, `next_funding_rate` →
//! `next_rate`), trade pushes as `*_trades` with the trades of the frame.
//!
//! Example lines:
//!
//! ```json
//! {"t":1706763541000,"kind":"spot_book","symbol":"icp_usdt","depth":5,"bids":[["11.356","120.5"]],"asks":[["11.358","80"]]}
//! {"t":1706763541020,"kind":"spot_trades","symbol":"icp_usdt","trades":[{"id":"9001","time":1706763540000,"price":"11.357","qty":"0.5","side":"buy"}]}
//! {"t":1706763541050,"kind":"funding","instrument":"ICPUSDTPERP","rate":"0.0001","next_time":1706774400000}
//! {"t":1706763542000,"kind":"spot_depth","symbol":"btc_usdt","snapshot":true,"bids":[["100.5","2"],["100.4","1"]],"asks":[["100.6","3"]]}
//! {"t":1706763542001,"kind":"spot_depth","symbol":"btc_usdt","snapshot":false,"bids":[["100.4","0"]],"asks":[]}
//! {"t":1706763542002,"kind":"swap_depth","instrument":"BTCUSDTPERP","snapshot":false,"bids":[],"asks":[["100.7","12"]],"ts":1706763542000}
//! {"t":1706763542003,"kind":"index","instrument":"BTCUSDTPERP","index":"100.55","ts":1706763542001}
//! {"t":1706763542004,"kind":"swap_ticker","instrument":"BTCUSDTPERP","bid":"100.5","bid_size":"7","last_qty":"1","ts":1706763542003}
//! {"t":1706763542005,"kind":"resync","symbol":"btc_usdt","reason":"crossed"}
//! {"t":1706763542006,"kind":"reconnect","family":"swap","socket":1,"lost":1706763541990,"reason":"connection lost: reset","markets":["BTCUSDTPERP"]}
//! ```
//!
//! [`Writer::write`] writes any record; [`Writer::write_depth`], [`Writer::write_index`],
//! [`Writer::write_resync`] and [`Writer::write_reconnect`] write the version 2 kinds.
//!
//! **Crashes.** The writer flushes the compressor after every record (a sync flush), so a
//! record is on disk once [`Writer::write`] returns. A crash can leave the last member
//! unfinished (no gzip trailer) and its last line cut: [`Reader`] reads every complete line
//! before that point and stops there without error ([`Reader::truncated`] says so);
//! [`Writer::append`] repairs such a file before appending (the complete lines of the unfinished
//! member are written again as a finished member, the rest cut off; [`Writer::repair`] says
//! what was done), in one pass that inflates each member once. So a recording cut at any
//! byte and appended to reads up to the cut and then the new records. A file that is not gzip,
//! or whose first line is not a header, is refused and left as it is.
//!
//! **Hostile or damaged files.** Reading is held to [`Limits`]: decompressed bytes (64 GiB),
//! lines that give no record (blank, bad, overlong, unknown kinds, repeated headers: a million
//! beyond the records read, and 256 MiB of them beyond the records' bytes) and records per
//! receive time (10,000; the lines after them with that time are skipped without being
//! parsed). Past a cap, reading stops with [`ReadError::Limit`] naming it; the repair of
//! [`Writer::append`] holds to the same caps. The first line's error says what a file that is
//! not a recording is: empty, not gzip (plain JSON lines, text, other bytes), gzip damaged at
//! byte N or cut before its header line ended, or gzip of something else.
//! DESIGN: the caps bound the work a small file can cause (a few MB of gzip inflate to GBs) to
//! about a second of reading in a debug build, and stop a file that is mostly not records,
//! while a real recording (records with at most a few per instant) never meets them before
//! 64 GiB.
//!
//! **Order.** Lines are in the order they were written, which is receive-time order for one
//! recorder; the replay orders events by time itself (the simulator's replay).
//!
//! # Example
//!
//! ```
//! use digifinex_market::{Data, Header, Reader, Record, Writer};
//! use rust_decimal::Decimal;
//!
//! let mut writer = Writer::new(Vec::new(), &Header::default())?;
//! writer.write(&Record {
//!     t: 1_706_763_600_000,
//!     data: Data::SpotBook {
//!         symbol: "btc_usdt".into(),
//!         depth: Some(1),
//!         bids: vec![(Decimal::new(4_299_950, 2), Decimal::new(15, 3))],
//!         asks: vec![(Decimal::new(4_300_010, 2), Decimal::new(2, 1))],
//!     },
//! })?;
//! let gzip = writer.finish()?;
//!
//! let mut reader = Reader::new(std::io::Cursor::new(gzip))?;
//! let record = reader.next().expect("one record")?;
//! let Data::SpotBook { bids, .. } = record.data else { unreachable!() };
//! // Decimals are written as exact text without superfluous zeros.
//! assert_eq!(bids[0].0.to_string(), "42999.5");
//! assert!(reader.next().is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod decimal;
pub mod json;
mod read;
mod record;
mod seen;
pub mod time;
mod write;

pub use read::{Limit, Limits, ReadError, Reader};
pub use record::{
    Data, Family, Header, Level, MarketId, Record, Side, SpotPairInfo, SwapInstrumentInfo, Ticker,
    Trade,
};
pub use seen::SeenIds;
pub use write::{Codec, Repair, Writer, REPAIR_MAX, ZSTD_LEVEL};

/// The `format` name of the header line.
pub const FORMAT: &str = "digifinex-market";

/// The format version this module writes and the highest it reads (it reads every version
/// from 1 up).
pub const VERSION: u32 = 2;

/// The version that introduced the websocket kinds (`spot_depth`, `swap_depth`, `index`,
/// `resync`, `reconnect`): a writer whose header names an older version refuses them.
pub const WS_VERSION: u32 = 2;

/// Longest line a reader takes (1 MiB): a longer one is skipped, whole, with a
/// [`ReadError::Line`] naming it, without being held in memory. The longest lines the
/// recorder writes (a 150-level book, 500 trades) are about 50 KB.
pub const MAX_LINE: usize = 1 << 20;

/// Records per gzip member before the writer starts a new member (so a crash can only cost
/// the repair of one member's worth of lines; see the module docs).
pub const MEMBER_RECORDS: usize = 1000;

/// Default [`Limits::inflated_bytes`]: 64 GiB of decompressed text.
pub const MAX_INFLATED: u64 = 64 << 30;

/// Default [`Limits::skipped_lines`]: 1,000,000 lines.
pub const MAX_SKIPPED_LINES: u64 = 1_000_000;

/// Default [`Limits::skipped_bytes`]: 256 MiB.
pub const MAX_SKIPPED_BYTES: u64 = 256 << 20;

/// Default [`Limits::per_instant`]: 10,000 records (the replay's batch cap,
/// the simulator's replay batch cap).
pub const MAX_PER_INSTANT: u64 = 10_000;

#[cfg(test)]
mod tests;
