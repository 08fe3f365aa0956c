//! Reading a recording: [`Reader`], its caps ([`Limits`]) and its errors ([`ReadError`]).

use crate::decimal::parse_dec;
use crate::{
    Data, Family, Header, Level, MarketId, Record, Side, SpotPairInfo, SwapInstrumentInfo, Ticker,
    Trade,
};
use crate::{
    FORMAT, MAX_INFLATED, MAX_LINE, MAX_PER_INSTANT, MAX_SKIPPED_BYTES, MAX_SKIPPED_LINES, VERSION,
};
use flate2::read::MultiGzDecoder;
use rust_decimal::Decimal;
use serde::Deserialize;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Caps on the work a recording can cause, for [`Reader`] ([`Reader::with_limits`]) and for
/// the repair of [`crate::Writer::append`]: past one, reading stops with [`ReadError::Limit`] (the
/// repair with an `InvalidData` error) naming it.
///
/// A line *skipped* is one that gives no record: blank, not valid, longer than [`MAX_LINE`],
/// of an unknown kind, a repeated header, or a record past the per-instant cap. Skipped lines
/// and their bytes are counted against an allowance *beyond* the records read: a recording
/// mostly of records may skip as much as it reads, a file that is mostly something else
/// stops after the allowance. DESIGN: a fixed cap alone would refuse a long recording of a
/// newer version (its new kinds are skipped, not errors); an allowance alone would let a file
/// of nothing but blank lines run for as long as it inflates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Decompressed bytes read at most ([`MAX_INFLATED`]).
    pub inflated_bytes: u64,
    /// Lines skipped at most beyond the records read ([`MAX_SKIPPED_LINES`]).
    pub skipped_lines: u64,
    /// Bytes of skipped lines at most beyond the bytes of the records read
    /// ([`MAX_SKIPPED_BYTES`]); an overlong line stops being read when it passes this.
    pub skipped_bytes: u64,
    /// Records with the same receive time read at most ([`MAX_PER_INSTANT`]): the lines that
    /// follow with that time are skipped unparsed ([`Reader::over_instant`]), counted as
    /// skipped lines.
    pub per_instant: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            inflated_bytes: MAX_INFLATED,
            skipped_lines: MAX_SKIPPED_LINES,
            skipped_bytes: MAX_SKIPPED_BYTES,
            per_instant: MAX_PER_INSTANT,
        }
    }
}

/// Which cap of [`Limits`] stopped reading, with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// [`Limits::inflated_bytes`].
    InflatedBytes(u64),
    /// [`Limits::skipped_lines`].
    SkippedLines(u64),
    /// [`Limits::skipped_bytes`].
    SkippedBytes(u64),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::InflatedBytes(n) => write!(
                f,
                "the cap on inflated bytes ({n} bytes of text, Limits::inflated_bytes)"
            ),
            Limit::SkippedLines(n) => write!(
                f,
                "the cap on skipped lines ({n} lines that are not records beyond the records \
                 read, Limits::skipped_lines)"
            ),
            Limit::SkippedBytes(n) => write!(
                f,
                "the cap on skipped bytes ({n} bytes of lines that are not records beyond the \
                 records' bytes, Limits::skipped_bytes)"
            ),
        }
    }
}

/// A recording that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Reading the file failed.
    #[error("reading the recording: {0}")]
    Io(#[from] io::Error),
    /// The file does not start with a `digifinex-market` header.
    #[error("not a digifinex-market recording: {0}")]
    NotARecording(String),
    /// The header's version is newer than this reader.
    #[error("recording version {found} is newer than this reader (version {VERSION})")]
    Version {
        /// Version found.
        found: u32,
    },
    /// A line is not a valid record (the reader goes on with the next line).
    #[error("line {line}: {message}")]
    Line {
        /// Line number (1 = the first line of the file).
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The file is gzip, but its data is damaged before the header line ends.
    #[error("not a readable recording: damaged gzip at byte {at}: {message}")]
    Damaged {
        /// Offset in the file (compressed bytes) where decompressing failed.
        at: u64,
        /// The decompressor's words.
        message: String,
    },
    /// A cap of [`Limits`] was reached: reading stopped there (no further records).
    #[error(
        "line {line}: reading stopped at {limit}: the file is damaged or not a \
         digifinex-market recording"
    )]
    Limit {
        /// The line being read when the cap was reached.
        line: u64,
        /// Which cap.
        limit: Limit,
    },
}

// ---- reading ----

#[derive(Deserialize)]
pub(crate) struct WireHeader {
    pub(crate) format: String,
    pub(crate) version: u32,
    #[serde(default)]
    pub(crate) created_ms: Option<i64>,
    #[serde(default)]
    pub(crate) source: Option<String>,
    #[serde(default)]
    spot: Vec<WireSpotPair>,
    #[serde(default)]
    swap: Vec<WireSwapInstrument>,
}

#[derive(Deserialize)]
struct WireSpotPair {
    symbol: String,
    price_precision: u32,
    amount_precision: u32,
    min_amount: String,
    min_value: String,
}

#[derive(Deserialize)]
struct WireSwapInstrument {
    instrument_id: String,
    base: String,
    quote: String,
    contract_value: String,
    price_precision: u32,
    tick_size: String,
    min_order_amount: String,
    #[serde(default = "eight")]
    funding_interval_hours: u32,
}

fn eight() -> u32 {
    8
}

#[derive(Deserialize)]
struct WireTrade {
    id: String,
    time: i64,
    price: String,
    qty: String,
    side: String,
    #[serde(default)]
    direction: Option<i64>,
}

#[derive(Deserialize, Default)]
struct WireTicker {
    #[serde(default)]
    last: Option<String>,
    #[serde(default)]
    bid: Option<String>,
    #[serde(default)]
    ask: Option<String>,
    #[serde(default)]
    high: Option<String>,
    #[serde(default)]
    low: Option<String>,
    #[serde(default)]
    open: Option<String>,
    #[serde(default)]
    volume: Option<String>,
    #[serde(default)]
    quote_volume: Option<String>,
    #[serde(default)]
    change: Option<String>,
    #[serde(default)]
    bid_size: Option<String>,
    #[serde(default)]
    ask_size: Option<String>,
    #[serde(default)]
    last_qty: Option<String>,
    #[serde(default)]
    ts: Option<i64>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum WireData {
    SpotBook {
        symbol: String,
        #[serde(default)]
        depth: Option<u32>,
        bids: Vec<[String; 2]>,
        asks: Vec<[String; 2]>,
    },
    SpotTrades {
        symbol: String,
        trades: Vec<WireTrade>,
    },
    SpotTicker {
        symbol: String,
        #[serde(flatten)]
        ticker: WireTicker,
    },
    SwapBook {
        instrument: String,
        #[serde(default)]
        depth: Option<u32>,
        bids: Vec<[String; 2]>,
        asks: Vec<[String; 2]>,
    },
    SwapTrades {
        instrument: String,
        trades: Vec<WireTrade>,
    },
    SwapTicker {
        instrument: String,
        #[serde(flatten)]
        ticker: WireTicker,
    },
    Funding {
        instrument: String,
        rate: String,
        next_time: i64,
        #[serde(default)]
        next_rate: Option<String>,
        #[serde(default)]
        last_rate: Option<String>,
    },
    Mark {
        instrument: String,
        mark: String,
        #[serde(default)]
        index: Option<String>,
    },
    SpotDepth {
        symbol: String,
        snapshot: bool,
        bids: Vec<[String; 2]>,
        asks: Vec<[String; 2]>,
        #[serde(default)]
        ts: Option<i64>,
    },
    SwapDepth {
        instrument: String,
        snapshot: bool,
        bids: Vec<[String; 2]>,
        asks: Vec<[String; 2]>,
        #[serde(default)]
        ts: Option<i64>,
    },
    Index {
        instrument: String,
        index: String,
        #[serde(default)]
        ts: Option<i64>,
    },
    Resync {
        #[serde(default)]
        symbol: Option<String>,
        #[serde(default)]
        instrument: Option<String>,
        #[serde(default)]
        reason: String,
    },
    Reconnect {
        family: String,
        #[serde(default)]
        socket: Option<u32>,
        #[serde(default)]
        lost: Option<i64>,
        #[serde(default)]
        reason: Option<String>,
        #[serde(default)]
        markets: Vec<String>,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Deserialize)]
struct WireRecord {
    t: i64,
    #[serde(flatten)]
    data: WireData,
}

fn num(field: &str, s: &str) -> Result<Decimal, String> {
    parse_dec(s).ok_or_else(|| format!("{field} {s:?} is not a decimal"))
}

fn opt_num(field: &str, s: Option<&String>) -> Result<Option<Decimal>, String> {
    s.map(|s| num(field, s)).transpose()
}

fn levels<S: AsRef<str>>(field: &str, list: &[[S; 2]]) -> Result<Vec<Level>, String> {
    list.iter()
        .map(|[p, q]| Ok((num(field, p.as_ref())?, num(field, q.as_ref())?)))
        .collect()
}

/// A depth line's fields as serde decodes them: the reference [`scan_depth`] is tested
/// against.
#[cfg(test)]
#[derive(Deserialize)]
struct DepthLine<'a> {
    t: i64,
    kind: &'a str,
    #[serde(default)]
    symbol: Option<&'a str>,
    #[serde(default)]
    instrument: Option<&'a str>,
    snapshot: bool,
    bids: Vec<[&'a str; 2]>,
    asks: Vec<[&'a str; 2]>,
    #[serde(default)]
    ts: Option<i64>,
}

/// A depth line's fields, scanned straight from the text, levels decoded.
struct ScannedDepth<'a> {
    t: i64,
    kind: &'a str,
    symbol: Option<&'a str>,
    instrument: Option<&'a str>,
    snapshot: bool,
    bids: Result<Vec<Level>, String>,
    asks: Result<Vec<Level>, String>,
    ts: Option<i64>,
}

/// Scans a depth line by hand: the fields of [`DepthLine`] in any order, with JSON's
/// whitespace. DESIGN (a scanner beside serde): the hottest line of every export and replay is
/// a depth delta, and serde's generic path (borrowed pairs in a vector, then the levels) took
/// half of reading one. The scanner accepts a subset of what serde accepts and gives up
/// (`None`: the serde paths decide, with their errors) on anything else: an escape or a
/// control character in a string, an unknown or repeated field, a number that is not a plain
/// integer, a missing field, text after the object. A bad decimal is reported only once the
/// whole line is known to be well formed, bids before asks, as on the serde path.
fn scan_depth(text: &str) -> Option<ScannedDepth<'_>> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
        text,
    };
    s.expect(b'{')?;
    let (mut t, mut kind, mut snapshot, mut ts) = (None, None, None, None);
    let (mut symbol, mut instrument) = (None, None);
    let (mut bids, mut asks) = (None, None);
    if s.peek()? == b'}' {
        return None;
    }
    loop {
        let key = s.string()?;
        s.expect(b':')?;
        match key {
            "t" if t.is_none() => t = Some(s.int()?),
            "kind" if kind.is_none() => kind = Some(s.string()?),
            "symbol" if symbol.is_none() => symbol = Some(s.opt_string()?),
            "instrument" if instrument.is_none() => instrument = Some(s.opt_string()?),
            "snapshot" if snapshot.is_none() => snapshot = Some(s.boolean()?),
            "bids" if bids.is_none() => bids = Some(s.levels("bid")?),
            "asks" if asks.is_none() => asks = Some(s.levels("ask")?),
            "ts" if ts.is_none() => ts = Some(s.opt_int()?),
            _ => return None,
        }
        match s.next()? {
            b',' => continue,
            b'}' => break,
            _ => return None,
        }
    }
    if !s.rest_is_blank() {
        return None;
    }
    Some(ScannedDepth {
        t: t?,
        kind: kind?,
        symbol: symbol.flatten(),
        instrument: instrument.flatten(),
        snapshot: snapshot?,
        bids: bids?,
        asks: asks?,
        ts: ts.flatten(),
    })
}

/// A cursor over a line's bytes for [`scan_depth`].
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    text: &'a str,
}

impl<'a> Scan<'a> {
    /// The next byte that is not JSON whitespace, not consumed.
    fn peek(&mut self) -> Option<u8> {
        while let Some(&c) = self.b.get(self.i) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(c);
            }
            self.i += 1;
        }
        None
    }

    /// The next byte that is not whitespace, consumed.
    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    fn rest_is_blank(&mut self) -> bool {
        self.peek().is_none()
    }

    /// A string without escapes or control characters.
    fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.i;
        let len = self
            .b
            .get(start..)?
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        let end = start + len;
        if self.b.get(end) != Some(&b'"') {
            return None;
        }
        self.i = end + 1;
        // The quote is ASCII, so both ends are character boundaries.
        self.text.get(start..end)
    }

    /// `null`, consumed; `None` when the next value is not `null`.
    fn null(&mut self) -> Option<()> {
        self.peek()?;
        if self.b.get(self.i..self.i + 4) == Some(b"null") {
            self.i += 4;
            Some(())
        } else {
            None
        }
    }

    fn opt_string(&mut self) -> Option<Option<&'a str>> {
        if self.peek()? == b'n' {
            self.null().map(|()| None)
        } else {
            self.string().map(Some)
        }
    }

    fn boolean(&mut self) -> Option<bool> {
        self.peek()?;
        let rest = self.b.get(self.i..)?;
        if rest.starts_with(b"true") {
            self.i += 4;
            Some(true)
        } else if rest.starts_with(b"false") {
            self.i += 5;
            Some(false)
        } else {
            None
        }
    }

    /// A plain JSON integer (`0` or `-?[1-9][0-9]*`, no fraction or exponent) that fits `i64`.
    fn int(&mut self) -> Option<i64> {
        self.peek()?;
        let start = self.i;
        let rest = self.b.get(start..)?;
        let sign = usize::from(rest.first() == Some(&b'-'));
        let digits = rest
            .get(sign..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        // serde_json reads `-0` as a float: left to it.
        let zero = rest.get(sign) == Some(&b'0');
        if digits == 0 || zero && (digits > 1 || sign == 1) {
            return None;
        }
        let end = start + sign + digits;
        if matches!(self.b.get(end), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let n = self.text.get(start..end)?.parse().ok()?;
        self.i = end;
        Some(n)
    }

    fn opt_int(&mut self) -> Option<Option<i64>> {
        if self.peek()? == b'n' {
            self.null().map(|()| None)
        } else {
            self.int().map(Some)
        }
    }

    /// `[["price","amount"],...]`, each pair decoded; the first bad decimal is the `Err`.
    fn levels(&mut self, field: &str) -> Option<Result<Vec<Level>, String>> {
        self.expect(b'[')?;
        let mut out = Ok(Vec::new());
        if self.peek()? == b']' {
            self.i += 1;
            return Some(out);
        }
        loop {
            self.expect(b'[')?;
            let p = self.string()?;
            self.expect(b',')?;
            let q = self.string()?;
            self.expect(b']')?;
            if let Ok(list) = &mut out {
                match (parse_dec(p), parse_dec(q)) {
                    (Some(p), Some(q)) => list.push((p, q)),
                    (None, _) => out = Err(format!("{field} {p:?} is not a decimal")),
                    (_, None) => out = Err(format!("{field} {q:?} is not a decimal")),
                }
            }
            match self.next()? {
                b',' => continue,
                b']' => return Some(out),
                _ => return None,
            }
        }
    }
}

/// A trades line's fields, decoded straight from the text.
#[derive(Deserialize)]
struct TradesLine<'a> {
    t: i64,
    kind: &'a str,
    #[serde(default)]
    symbol: Option<&'a str>,
    #[serde(default)]
    instrument: Option<&'a str>,
    trades: Vec<WireTrade>,
}

/// The kind a record line names, found without decoding it (`None`: no `"kind":"..."`).
fn sniff_kind(text: &str) -> Option<&str> {
    let start = text.find("\"kind\":\"")? + 8;
    let rest = text.get(start..)?;
    rest.get(..rest.find('"')?)
}

/// The depth and trades lines decoded straight into their record (`None`: another kind, or a
/// line the general path must look at). The kind is checked against the decoded field.
pub(crate) fn fast_record(text: &str) -> Option<Result<Record, String>> {
    match sniff_kind(text)? {
        kind @ ("spot_depth" | "swap_depth") => {
            let d = scan_depth(text)?;
            if d.kind != kind {
                return None;
            }
            let (bids, asks) = match (d.bids, d.asks) {
                (Ok(b), Ok(a)) => (b, a),
                (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
            };
            let data = if kind == "spot_depth" {
                Data::SpotDepth {
                    symbol: d.symbol?.to_owned(),
                    snapshot: d.snapshot,
                    bids,
                    asks,
                    ts: d.ts,
                }
            } else {
                Data::SwapDepth {
                    instrument: d.instrument?.to_owned(),
                    snapshot: d.snapshot,
                    bids,
                    asks,
                    ts: d.ts,
                }
            };
            Some(Ok(Record { t: d.t, data }))
        }
        kind @ ("spot_trades" | "swap_trades") => {
            let l: TradesLine = serde_json::from_str(text).ok()?;
            if l.kind != kind {
                return None;
            }
            let list = match trades(&l.trades) {
                Ok(list) => list,
                Err(e) => return Some(Err(e)),
            };
            let data = if kind == "spot_trades" {
                Data::SpotTrades {
                    symbol: l.symbol?.to_owned(),
                    trades: list,
                }
            } else {
                Data::SwapTrades {
                    instrument: l.instrument?.to_owned(),
                    trades: list,
                }
            };
            Some(Ok(Record { t: l.t, data }))
        }
        _ => None,
    }
}

fn trades(list: &[WireTrade]) -> Result<Vec<Trade>, String> {
    list.iter()
        .map(|t| {
            let side = match t.side.as_str() {
                "buy" => Side::Buy,
                "sell" => Side::Sell,
                other => return Err(format!("trade side {other:?} is not buy or sell")),
            };
            Ok(Trade {
                id: t.id.clone(),
                time_ms: t.time,
                price: num("trade price", &t.price)?,
                qty: num("trade qty", &t.qty)?,
                side,
                direction: t.direction,
            })
        })
        .collect()
}

fn ticker(t: &WireTicker) -> Result<Ticker, String> {
    Ok(Ticker {
        last: opt_num("last", t.last.as_ref())?,
        bid: opt_num("bid", t.bid.as_ref())?,
        ask: opt_num("ask", t.ask.as_ref())?,
        high: opt_num("high", t.high.as_ref())?,
        low: opt_num("low", t.low.as_ref())?,
        open: opt_num("open", t.open.as_ref())?,
        volume: opt_num("volume", t.volume.as_ref())?,
        quote_volume: opt_num("quote_volume", t.quote_volume.as_ref())?,
        change: opt_num("change", t.change.as_ref())?,
        bid_size: opt_num("bid_size", t.bid_size.as_ref())?,
        ask_size: opt_num("ask_size", t.ask_size.as_ref())?,
        last_qty: opt_num("last_qty", t.last_qty.as_ref())?,
        ts: t.ts,
    })
}

fn data(w: WireData) -> Result<Option<Data>, String> {
    Ok(Some(match w {
        WireData::SpotBook {
            symbol,
            depth,
            bids,
            asks,
        } => Data::SpotBook {
            symbol,
            depth,
            bids: levels("bid", &bids)?,
            asks: levels("ask", &asks)?,
        },
        WireData::SpotTrades { symbol, trades: t } => Data::SpotTrades {
            symbol,
            trades: trades(&t)?,
        },
        WireData::SpotTicker { symbol, ticker: t } => Data::SpotTicker {
            symbol,
            ticker: ticker(&t)?,
        },
        WireData::SwapBook {
            instrument,
            depth,
            bids,
            asks,
        } => Data::SwapBook {
            instrument,
            depth,
            bids: levels("bid", &bids)?,
            asks: levels("ask", &asks)?,
        },
        WireData::SwapTrades {
            instrument,
            trades: t,
        } => Data::SwapTrades {
            instrument,
            trades: trades(&t)?,
        },
        WireData::SwapTicker {
            instrument,
            ticker: t,
        } => Data::SwapTicker {
            instrument,
            ticker: ticker(&t)?,
        },
        WireData::Funding {
            instrument,
            rate,
            next_time,
            next_rate,
            last_rate,
        } => Data::Funding {
            instrument,
            rate: num("rate", &rate)?,
            next_time,
            next_rate: opt_num("next_rate", next_rate.as_ref())?,
            last_rate: opt_num("last_rate", last_rate.as_ref())?,
        },
        WireData::Mark {
            instrument,
            mark,
            index,
        } => Data::Mark {
            instrument,
            mark: num("mark", &mark)?,
            index: opt_num("index", index.as_ref())?,
        },
        WireData::SpotDepth {
            symbol,
            snapshot,
            bids,
            asks,
            ts,
        } => Data::SpotDepth {
            symbol: symbol.to_ascii_lowercase(),
            snapshot,
            bids: levels("bid", &bids)?,
            asks: levels("ask", &asks)?,
            ts,
        },
        WireData::SwapDepth {
            instrument,
            snapshot,
            bids,
            asks,
            ts,
        } => Data::SwapDepth {
            instrument,
            snapshot,
            bids: levels("bid", &bids)?,
            asks: levels("ask", &asks)?,
            ts,
        },
        WireData::Index {
            instrument,
            index,
            ts,
        } => Data::Index {
            instrument,
            index: num("index", &index)?,
            ts,
        },
        WireData::Resync {
            symbol,
            instrument,
            reason,
        } => Data::Resync {
            market: match (symbol, instrument) {
                (Some(s), None) => MarketId::Spot(s.to_ascii_lowercase()),
                (None, Some(i)) => MarketId::Swap(i),
                _ => return Err("resync names neither or both of symbol and instrument".into()),
            },
            reason,
        },
        WireData::Reconnect {
            family,
            socket,
            lost,
            reason,
            markets,
        } => Data::Reconnect {
            family: match family.as_str() {
                "spot" => Family::Spot,
                "swap" => Family::Swap,
                other => return Err(format!("reconnect family {other:?} is not spot or swap")),
            },
            socket,
            lost,
            reason,
            markets,
        },
        WireData::Unknown => return Ok(None),
    }))
}

fn header(w: WireHeader) -> Result<Header, ReadError> {
    if w.format != FORMAT {
        return Err(ReadError::NotARecording(format!(
            "format {:?} is not {FORMAT:?}",
            w.format
        )));
    }
    if w.version > VERSION {
        return Err(ReadError::Version { found: w.version });
    }
    let bad = |m: String| ReadError::NotARecording(format!("header: {m}"));
    let spot = w
        .spot
        .iter()
        .map(|p| {
            Ok(SpotPairInfo {
                symbol: p.symbol.to_ascii_lowercase(),
                price_precision: p.price_precision,
                amount_precision: p.amount_precision,
                min_amount: num("min_amount", &p.min_amount).map_err(bad)?,
                min_value: num("min_value", &p.min_value).map_err(bad)?,
            })
        })
        .collect::<Result<Vec<_>, ReadError>>()?;
    let swap = w
        .swap
        .iter()
        .map(|s| {
            Ok(SwapInstrumentInfo {
                instrument_id: s.instrument_id.clone(),
                base: s.base.to_ascii_uppercase(),
                quote: s.quote.to_ascii_uppercase(),
                contract_value: num("contract_value", &s.contract_value).map_err(bad)?,
                price_precision: s.price_precision,
                tick_size: num("tick_size", &s.tick_size).map_err(bad)?,
                min_order_amount: num("min_order_amount", &s.min_order_amount).map_err(bad)?,
                funding_interval_hours: s.funding_interval_hours,
            })
        })
        .collect::<Result<Vec<_>, ReadError>>()?;
    Ok(Header {
        version: w.version,
        created_ms: w.created_ms,
        source: w.source,
        spot,
        swap,
    })
}

/// One parsed line.
pub(crate) enum Line {
    Header(WireHeader),
    Record(Record),
    Unknown,
}

pub(crate) fn parse_line(text: &str) -> Result<Line, String> {
    // The commonest kinds straight into their fields, then any record straight from the text
    // (a header has no `t` and fails there). Anything that fails is decoded again below,
    // which says why.
    if let Some(r) = fast_record(text) {
        return r.map(Line::Record);
    }
    if let Ok(w) = serde_json::from_str::<WireRecord>(text) {
        return Ok(match data(w.data)? {
            Some(data) => Line::Record(Record { t: w.t, data }),
            None => Line::Unknown,
        });
    }
    // A header is the only line with a `format` field; look before decoding as a record.
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if value.get("format").is_some() {
        return WireHeader::deserialize(&value)
            .map(Line::Header)
            .map_err(|e| format!("header: {e}"));
    }
    let w = WireRecord::deserialize(&value).map_err(|e| e.to_string())?;
    Ok(match data(w.data)? {
        Some(data) => Line::Record(Record { t: w.t, data }),
        None => Line::Unknown,
    })
}

/// Reads a recording line by line (streaming: memory does not grow with the file).
///
/// An iterator of records: a line that is not a valid record yields an
/// [`ReadError::Line`] and reading goes on with the next line; records of kinds this reader
/// does not know are skipped ([`Reader::skipped`]), and so are records past the per-instant
/// cap, unparsed ([`Reader::over_instant`]). Reading stops without error at an unfinished
/// gzip member or a cut last line ([`Reader::truncated`]), and with [`ReadError::Limit`] at a
/// cap of [`Limits`].
pub struct Reader {
    input: Inflated,
    header: Header,
    line_no: u64,
    buf: Vec<u8>,
    truncated: bool,
    done: bool,
    skipped: u64,
    tally: Tally,
}

/// The compressed input: what the decompressor consumed is counted (error positions).
type Raw = Consumed<BufReader<io::Chain<io::Cursor<Vec<u8>>, Box<dyn Read + Send>>>>;

/// The decompressed text.
type Inflated = BufReader<Decompress<Raw>>;

/// The first bytes of a zstd frame.
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Whether a file starting with `start` is zstd (else gzip is expected).
pub(crate) fn is_zstd(start: &[u8]) -> bool {
    start.len() >= 4 && start.get(..4) == Some(&ZSTD_MAGIC[..])
        || (!start.is_empty() && start.len() < 4 && ZSTD_MAGIC.starts_with(start))
}

/// A recording's decompressor: gzip members or zstd frames, one after another.
pub(crate) enum Decompress<R: BufRead> {
    /// gzip members.
    Gzip(MultiGzDecoder<R>),
    /// One gzip member.
    GzipMember(flate2::bufread::GzDecoder<R>),
    /// zstd frames.
    Zstd(zstd::stream::read::Decoder<'static, R>),
}

impl<R: BufRead> Decompress<R> {
    /// All the frames or members of `raw` (zstd when it starts with [`ZSTD_MAGIC`]).
    pub(crate) fn new(raw: R, zstd: bool) -> io::Result<Decompress<R>> {
        Ok(if zstd {
            Decompress::Zstd(zstd::stream::read::Decoder::with_buffer(raw)?)
        } else {
            Decompress::Gzip(MultiGzDecoder::new(raw))
        })
    }

    /// One frame or member of `raw`, leaving `raw` just after it.
    pub(crate) fn one(raw: R, zstd: bool) -> io::Result<Decompress<R>> {
        Ok(if zstd {
            Decompress::Zstd(zstd::stream::read::Decoder::with_buffer(raw)?.single_frame())
        } else {
            Decompress::GzipMember(flate2::bufread::GzDecoder::new(raw))
        })
    }

    pub(crate) fn get_ref(&self) -> &R {
        match self {
            Decompress::Gzip(d) => d.get_ref(),
            Decompress::GzipMember(d) => d.get_ref(),
            Decompress::Zstd(d) => d.get_ref(),
        }
    }
}

impl<R: BufRead> Read for Decompress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Decompress::Gzip(d) => d.read(buf),
            Decompress::GzipMember(d) => d.read(buf),
            // zstd reports damaged data as `Other`: as damaged data (`InvalidData`), like
            // gzip, so that what came before stands.
            Decompress::Zstd(d) => d.read(buf).map_err(|e| match e.kind() {
                io::ErrorKind::Other => io::Error::new(io::ErrorKind::InvalidData, e.to_string()),
                _ => e,
            }),
        }
    }
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("header", &self.header)
            .field("line_no", &self.line_no)
            .field("truncated", &self.truncated)
            .field("done", &self.done)
            .field("limits", &self.tally.limits)
            .finish_non_exhaustive()
    }
}

/// A `BufRead` that counts the bytes consumed from it.
#[derive(Debug)]
pub(crate) struct Consumed<R> {
    pub(crate) inner: R,
    pub(crate) consumed: u64,
}

impl<R: Read> Read for Consumed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed = self
            .consumed
            .saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Consumed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.consumed = self
            .consumed
            .saturating_add(u64::try_from(amt).unwrap_or(u64::MAX));
        self.inner.consume(amt);
    }
}

/// What a walk through the lines has counted against its [`Limits`] (the reader's and the
/// repair's).
#[derive(Debug, Clone)]
pub(crate) struct Tally {
    pub(crate) limits: Limits,
    pub(crate) inflated: u64,
    pub(crate) skipped_lines: u64,
    pub(crate) skipped_bytes: u64,
    pub(crate) record_lines: u64,
    pub(crate) record_bytes: u64,
    /// The receive time of the last record and how many records had it.
    pub(crate) instant: Option<(i64, u64)>,
    pub(crate) over_instant: u64,
}

impl Tally {
    pub(crate) fn new(limits: Limits) -> Tally {
        Tally {
            limits,
            inflated: 0,
            skipped_lines: 0,
            skipped_bytes: 0,
            record_lines: 0,
            record_bytes: 0,
            instant: None,
            over_instant: 0,
        }
    }

    /// Bytes the next line may take: what is left of the inflated cap, and of a line longer
    /// than [`MAX_LINE`] (which will be skipped) no more than the skipped bytes allowed.
    pub(crate) fn budget(&self) -> u64 {
        let inflated = self.limits.inflated_bytes.saturating_sub(self.inflated);
        let skippable = self
            .limits
            .skipped_bytes
            .saturating_add(self.record_bytes)
            .saturating_sub(self.skipped_bytes);
        let line = u64::try_from(MAX_LINE)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        inflated.min(line.saturating_add(skippable))
    }

    /// Which cap a line that ran out of [`Tally::budget`] reached.
    pub(crate) fn over_budget(&self) -> Limit {
        if self.inflated >= self.limits.inflated_bytes {
            Limit::InflatedBytes(self.limits.inflated_bytes)
        } else {
            Limit::SkippedBytes(self.limits.skipped_bytes)
        }
    }

    pub(crate) fn read(&mut self, bytes: u64) {
        self.inflated = self.inflated.saturating_add(bytes);
    }

    /// Counts a skipped line of `bytes` bytes (its newline included).
    pub(crate) fn skip(&mut self, bytes: u64) -> Result<(), Limit> {
        self.skipped_lines = self.skipped_lines.saturating_add(1);
        self.skipped_bytes = self.skipped_bytes.saturating_add(bytes);
        if self.skipped_lines > self.limits.skipped_lines.saturating_add(self.record_lines) {
            return Err(Limit::SkippedLines(self.limits.skipped_lines));
        }
        if self.skipped_bytes > self.limits.skipped_bytes.saturating_add(self.record_bytes) {
            return Err(Limit::SkippedBytes(self.limits.skipped_bytes));
        }
        Ok(())
    }

    /// Whether a line with receive time `t` is past the per-instant cap.
    pub(crate) fn instant_full(&self, t: i64) -> bool {
        matches!(self.instant, Some((at, n)) if at == t && n >= self.limits.per_instant)
    }

    /// Counts a record of `bytes` bytes received at `t`.
    pub(crate) fn record(&mut self, t: i64, bytes: u64) {
        self.record_lines = self.record_lines.saturating_add(1);
        self.record_bytes = self.record_bytes.saturating_add(bytes);
        self.instant = match self.instant {
            Some((at, n)) if at == t => Some((t, n.saturating_add(1))),
            _ => Some((t, 1)),
        };
    }
}

/// The receive time of a line written the way [`crate::Writer`] writes it (`{"t":123,...`), without
/// parsing the rest; `None` for any other line.
pub(crate) fn quick_time(line: &[u8]) -> Option<i64> {
    let rest = line.strip_prefix(b"{\"t\":")?;
    let (negative, digits) = match rest.strip_prefix(b"-") {
        Some(d) => (true, d),
        None => (false, rest),
    };
    let mut value: i64 = 0;
    let mut n = 0usize;
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                value = value.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
                n += 1;
            }
            b',' | b'}' if n > 0 => return Some(if negative { -value } else { value }),
            _ => return None,
        }
    }
    None
}

/// Reads the first bytes of `input` into `prefix` (up to its length); the count read.
pub(crate) fn read_prefix(input: &mut dyn Read, prefix: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < prefix.len() {
        match input.read(prefix.get_mut(n..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// What a file that does not start like gzip is, from its first bytes.
pub(crate) fn not_gzip(start: &[u8]) -> String {
    let text = start
        .iter()
        .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace());
    let first = start.iter().find(|b| !b.is_ascii_whitespace());
    if text && first == Some(&b'{') {
        if start.windows(FORMAT.len()).any(|w| w == FORMAT.as_bytes()) {
            "not gzip: the file is plain JSON lines, an uncompressed recording (a recording is \
             gzip-compressed: compress it with `gzip`)"
                .to_owned()
        } else {
            "not gzip: the file is plain JSON text (a recording is gzip-compressed JSON lines)"
                .to_owned()
        }
    } else if text {
        "not gzip: the file is plain text (a recording is gzip-compressed JSON lines)".to_owned()
    } else {
        let hex: Vec<String> = start.iter().take(4).map(|b| format!("{b:02x}")).collect();
        format!(
            "not gzip: the file starts with the bytes {} (gzip starts with 1f 8b, zstd with 28 b5 2f fd)",
            hex.join(" ")
        )
    }
}

impl Reader {
    /// Opens the recording at `path` and reads its header.
    pub fn open(path: impl AsRef<Path>) -> Result<Reader, ReadError> {
        Reader::new(File::open(path)?)
    }

    /// Reads a recording (gzip bytes) from `input` and reads its header, with the default
    /// [`Limits`].
    ///
    /// A file that is not a recording is refused with what it is: empty, not gzip (plain
    /// JSON lines, other text, other bytes), gzip damaged or cut before the header line
    /// ended ([`ReadError::Damaged`]), or gzip whose first line is not a header.
    pub fn new(input: impl Read + Send + 'static) -> Result<Reader, ReadError> {
        let mut input: Box<dyn Read + Send> = Box::new(input);
        let mut start = [0u8; 64];
        let n = read_prefix(&mut *input, &mut start)?;
        let start = start.get(..n).unwrap_or_default().to_vec();
        match start.as_slice() {
            [] => return Err(ReadError::NotARecording("the file is empty".to_owned())),
            [0x1f] | [0x1f, 0x8b, ..] => {}
            other if is_zstd(other) => {}
            other => return Err(ReadError::NotARecording(not_gzip(other))),
        }
        let zstd = is_zstd(&start);
        let raw = Consumed {
            inner: BufReader::with_capacity(64 * 1024, io::Cursor::new(start).chain(input)),
            consumed: 0,
        };
        let mut r = Reader {
            input: BufReader::with_capacity(64 * 1024, Decompress::new(raw, zstd)?),
            header: Header::default(),
            line_no: 0,
            buf: Vec::with_capacity(4096),
            truncated: false,
            done: false,
            skipped: 0,
            tally: Tally::new(Limits::default()),
        };
        let line_cap = u64::try_from(MAX_LINE).unwrap_or(u64::MAX);
        let not = |m: String| Err(ReadError::NotARecording(m));
        let first = loop {
            r.buf.clear();
            let read = read_line_capped(&mut r.input, &mut r.buf, MAX_LINE, line_cap + 1);
            let at = r.input.get_ref().get_ref().consumed;
            match read {
                Ok((Capped::Line, n)) => {
                    r.tally.read(n);
                    r.line_no += 1;
                    if r.buf.last() == Some(&b'\r') {
                        r.buf.pop();
                    }
                    if !r.buf.iter().all(u8::is_ascii_whitespace) {
                        break std::mem::take(&mut r.buf);
                    }
                }
                Ok((Capped::End, _)) => {
                    return not("no header line: the gzip data holds no text".to_owned())
                }
                Ok((Capped::Cut, _)) => {
                    return not("no header line: the text ends inside its first line".to_owned())
                }
                Ok((Capped::TooLong | Capped::OverBudget, _)) => {
                    return not(format!(
                        "no header line: the first line is longer than {MAX_LINE} bytes"
                    ))
                }
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    return not(format!(
                        "the gzip data ends at byte {at}, before the header line ended (a file \
                         cut short)"
                    ))
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
                    ) =>
                {
                    return Err(ReadError::Damaged {
                        at,
                        message: e.to_string(),
                    })
                }
                Err(e) => return Err(ReadError::Io(e)),
            }
        };
        let Ok(first) = std::str::from_utf8(&first) else {
            return not("the first line is not UTF-8 text".to_owned());
        };
        match parse_line(first) {
            Ok(Line::Header(h)) => r.header = header(h)?,
            Ok(_) => return not("the first line is not a header".to_owned()),
            Err(m) => return not(format!("the first line is not a header: {m}")),
        }
        Ok(r)
    }

    /// The same reader held to `limits` instead of the defaults.
    pub fn with_limits(mut self, limits: Limits) -> Reader {
        self.tally.limits = limits;
        self
    }

    /// The caps this reader holds to.
    pub fn limits(&self) -> Limits {
        self.tally.limits
    }

    /// The header (the first line of the file).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Whether reading stopped at an unfinished member or a cut line (a crash while writing).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Records of unknown kinds skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Lines skipped unparsed so far because their receive time already had
    /// [`Limits::per_instant`] records.
    pub fn over_instant(&self) -> u64 {
        self.tally.over_instant
    }

    /// Decompressed bytes read so far.
    pub fn inflated(&self) -> u64 {
        self.tally.inflated
    }

    /// Stops reading with a cap's error.
    fn limit(&mut self, limit: Limit) -> Option<Result<Record, ReadError>> {
        self.done = true;
        Some(Err(ReadError::Limit {
            line: self.line_no,
            limit,
        }))
    }
}

/// How [`read_line_capped`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Capped {
    /// A whole line (its newline dropped) is in the buffer.
    Line,
    /// A line longer than the cap was read past (the buffer holds nothing of it).
    TooLong,
    /// The input ended inside a line.
    Cut,
    /// The input ended at a line boundary.
    End,
    /// The budget of bytes ran out inside a line (the buffer holds nothing of it).
    OverBudget,
}

/// Reads one line into `buf` (without its `\n`), keeping at most `cap` bytes of it and
/// consuming at most `budget` bytes: a longer line is consumed to its end (or the budget's)
/// and dropped, so memory stays bounded whatever the input. Also answers the bytes consumed.
pub(crate) fn read_line_capped(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
    budget: u64,
) -> io::Result<(Capped, u64)> {
    let mut over = false;
    let mut used = 0u64;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            let end = if used > 0 { Capped::Cut } else { Capped::End };
            return Ok((end, used));
        }
        let room = usize::try_from(budget.saturating_sub(used)).unwrap_or(usize::MAX);
        if room == 0 {
            buf.clear();
            return Ok((Capped::OverBudget, used));
        }
        let mut part = chunk.get(..room).unwrap_or(chunk);
        // `read_until` on a slice: the newline is found by the standard library's optimised
        // search (a byte loop here would be compiled without optimisation in debug builds).
        let taken = io::BufRead::read_until(&mut part, b'\n', buf)?;
        let done = taken > 0 && buf.last() == Some(&b'\n');
        if done {
            buf.pop();
        }
        if over || buf.len() > cap {
            over = true;
            buf.clear();
        }
        input.consume(taken);
        used = used.saturating_add(u64::try_from(taken).unwrap_or(u64::MAX));
        if done {
            return Ok((if over { Capped::TooLong } else { Capped::Line }, used));
        }
    }
}

impl Iterator for Reader {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            self.buf.clear();
            let budget = self.tally.budget();
            let (ended, bytes) =
                match read_line_capped(&mut self.input, &mut self.buf, MAX_LINE, budget) {
                    Ok(x) => x,
                    Err(e) => {
                        self.done = true;
                        // An unfinished member (a crash) or damaged bytes: what came before
                        // stands.
                        if matches!(
                            e.kind(),
                            io::ErrorKind::UnexpectedEof
                                | io::ErrorKind::InvalidData
                                | io::ErrorKind::InvalidInput
                        ) {
                            self.truncated = true;
                            return None;
                        }
                        return Some(Err(ReadError::Io(e)));
                    }
                };
            self.tally.read(bytes);
            match ended {
                Capped::End => {
                    self.done = true;
                    return None;
                }
                Capped::Cut => {
                    // A last line without its newline: cut by a crash.
                    self.truncated = true;
                    self.done = true;
                    return None;
                }
                Capped::OverBudget => {
                    self.line_no += 1;
                    let l = self.tally.over_budget();
                    return self.limit(l);
                }
                Capped::TooLong => {
                    self.line_no += 1;
                    if let Err(l) = self.tally.skip(bytes) {
                        return self.limit(l);
                    }
                    return Some(Err(ReadError::Line {
                        line: self.line_no,
                        message: format!(
                            "line {} is longer than {MAX_LINE} bytes (skipped)",
                            self.line_no
                        ),
                    }));
                }
                Capped::Line => {}
            }
            self.line_no += 1;
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                if let Err(l) = self.tally.skip(bytes) {
                    return self.limit(l);
                }
                continue;
            }
            if quick_time(&self.buf).is_some_and(|t| self.tally.instant_full(t)) {
                // Past the per-instant cap: skipped without parsing the rest of the line.
                self.tally.over_instant = self.tally.over_instant.saturating_add(1);
                if let Err(l) = self.tally.skip(bytes) {
                    return self.limit(l);
                }
                continue;
            }
            let parsed = match std::str::from_utf8(&self.buf) {
                Ok(text) => parse_line(text),
                Err(_) => Err(format!("line {} is not UTF-8", self.line_no)),
            };
            match parsed {
                Ok(Line::Record(r)) => {
                    if self.tally.instant_full(r.t) {
                        self.tally.over_instant = self.tally.over_instant.saturating_add(1);
                        if let Err(l) = self.tally.skip(bytes) {
                            return self.limit(l);
                        }
                        continue;
                    }
                    self.tally.record(r.t, bytes);
                    return Some(Ok(r));
                }
                Ok(Line::Unknown) => {
                    self.skipped += 1;
                    if let Err(l) = self.tally.skip(bytes) {
                        return self.limit(l);
                    }
                }
                Ok(Line::Header(h)) => {
                    if let Err(e) = header(h) {
                        self.done = true;
                        return Some(Err(e));
                    }
                    if let Err(l) = self.tally.skip(bytes) {
                        return self.limit(l);
                    }
                }
                Err(message) => {
                    if let Err(l) = self.tally.skip(bytes) {
                        return self.limit(l);
                    }
                    return Some(Err(ReadError::Line {
                        line: self.line_no,
                        message,
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod scan_tests {
    use super::*;
    use crate::Record;

    /// What serde's [`DepthLine`] makes of a line, in [`ScannedDepth`]'s terms.
    type Fields<'a> = (
        i64,
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
        bool,
        Result<Vec<Level>, String>,
        Result<Vec<Level>, String>,
        Option<i64>,
    );

    fn by_serde(text: &str) -> Option<Fields<'_>> {
        let d: DepthLine = serde_json::from_str(text).ok()?;
        Some((
            d.t,
            d.kind,
            d.symbol,
            d.instrument,
            d.snapshot,
            levels("bid", &d.bids),
            levels("ask", &d.asks),
            d.ts,
        ))
    }

    fn by_scan(text: &str) -> Option<Fields<'_>> {
        let d = scan_depth(text)?;
        Some((
            d.t,
            d.kind,
            d.symbol,
            d.instrument,
            d.snapshot,
            d.bids,
            d.asks,
            d.ts,
        ))
    }

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            usize::try_from(self.0 % u64::try_from(n).unwrap()).unwrap()
        }
    }

    /// Lines the writer writes all take the scanner; any line it takes, serde decodes to the
    /// same fields (mutations of written lines: a byte removed, inserted or replaced).
    #[test]
    fn the_scanner_agrees_with_serde() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let dec = |rng: &mut Rng| {
            let d = Decimal::new(
                i64::try_from(rng.below(10_000_000)).unwrap(),
                u32::try_from(rng.below(9)).unwrap(),
            );
            if rng.below(10) == 0 {
                -d
            } else {
                d
            }
        };
        let mut lines = Vec::new();
        for n in 0..400 {
            let side = |rng: &mut Rng| {
                (0..rng.below(4))
                    .map(|_| (dec(rng), dec(rng)))
                    .collect::<Vec<Level>>()
            };
            let (bids, asks) = (side(&mut rng), side(&mut rng));
            let ts = (n % 3 == 0).then_some(1_700_000_000_123 + i64::from(n));
            let data = if n % 2 == 0 {
                Data::SpotDepth {
                    symbol: "btc_usdt".into(),
                    snapshot: n % 5 == 0,
                    bids,
                    asks,
                    ts,
                }
            } else {
                Data::SwapDepth {
                    instrument: "BTCUSDTPERP".into(),
                    snapshot: n % 5 == 0,
                    bids,
                    asks,
                    ts,
                }
            };
            let r = Record {
                t: 1_700_000_000_000 + i64::from(n),
                data,
            };
            // The writer's text of the record.
            let line = r.to_line();
            assert_eq!(by_scan(&line), by_serde(&line), "{line}");
            assert!(by_scan(&line).is_some(), "{line}");
            lines.push(line);
        }
        // Hand-made variants: whitespace, other orders, nulls, bad numbers and decimals.
        let extra = [
            r#" { "kind" : "spot_depth" , "t" : 5 , "snapshot" : true , "asks" : [ [ "1" , "2" ] ] , "bids" : [ ] , "symbol" : null , "ts" : null } "#,
            r#"{"t":-5,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[["1.5","+2"]],"asks":[["x","1"]]}"#,
            r#"{"t":-0,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[]}"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[["x","1"]]}"#,
            r#"{"t":05,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[]}"#,
            r#"{"t":5.0,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[]}"#,
            r#"{"t":5e3,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[]}"#,
            r#"{"t":99999999999999999999,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[]}"#,
            r#"{"t":5,"t":6,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[]}"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[],"extra":1}"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[["1","2","3"]],"asks":[]}"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[]}x"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[],"asks":[],}"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"x","snapshot":nul,"bids":[],"asks":[]}"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"x","bids":[],"asks":[]}"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"é","snapshot":true,"bids":[],"asks":[]}"#,
            "{\"t\":5,\"kind\":\"spot_depth\",\"symbol\":\"a\tb\",\"snapshot\":true,\"bids\":[],\"asks\":[]}",
            r#"{}"#,
            r#"{"#,
        ];
        for line in extra {
            if let Some(scanned) = by_scan(line) {
                assert_eq!(Some(scanned), by_serde(line), "{line}");
            }
        }
        assert!(by_scan(extra[0]).is_some() && by_scan(extra[1]).is_some());
        assert_eq!(
            by_scan(extra[1]).map(|f| (f.5, f.6)),
            Some((
                Err("bid \"+2\" is not a decimal".into()),
                Err("ask \"x\" is not a decimal".into())
            ))
        );
        lines.extend(extra.iter().map(|l| (*l).to_owned()));
        let alphabet = b" \t\n\"\\,:[]{}0123456789-.eEtruefalsn\x01";
        let (mut scanned, mut tried) = (0, 0);
        for line in &lines {
            for _ in 0..60 {
                let mut b = line.clone().into_bytes();
                let at = rng.below(b.len() + 1);
                match rng.below(3) {
                    0 if at < b.len() => {
                        b.remove(at);
                    }
                    1 if at < b.len() => b[at] = alphabet[rng.below(alphabet.len())],
                    _ => b.insert(at, alphabet[rng.below(alphabet.len())]),
                }
                let Ok(text) = String::from_utf8(b) else {
                    continue;
                };
                tried += 1;
                if let Some(got) = by_scan(&text) {
                    scanned += 1;
                    assert_eq!(Some(got), by_serde(&text), "{text}");
                }
            }
        }
        assert!(scanned > tried / 10, "{scanned} of {tried}");
    }
}
