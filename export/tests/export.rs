//! A sample recording (written here with the format's `Writer`) exported to Parquet and CSV and
//! read back: Parquet through the arrow reader, CSV through the csv crate, exact values; and a
//! damaged recording exports what is intact and counts what was skipped.

use arrow_array::{
    Array, Decimal128Array, Float64Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, TimeUnit};
use digifinex_export::{export, Format, Options, Summary};
use digifinex_market::decimal::parse_dec;
use digifinex_market::{Data, Family, Header, MarketId, Record, Side, Ticker, Trade, Writer};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rust_decimal::Decimal;
use std::io::Write;
use std::path::{Path, PathBuf};

/// 2024-02-01 05:00:00 UTC.
const T0: i64 = 1_706_763_600_000;

fn d(s: &str) -> Decimal {
    parse_dec(s).unwrap()
}

fn lv(levels: &[(&str, &str)]) -> Vec<(Decimal, Decimal)> {
    levels.iter().map(|(p, q)| (d(p), d(q))).collect()
}

fn dir(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("dfx-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// The sample: every record kind, a repeated trade, a resync and a reconnect.
fn sample(w: &mut Writer<impl Write>) {
    let spot = MarketId::Spot("btc_usdt".into());
    let swap = MarketId::Swap("BTCUSDTPERP".into());
    // REST snapshot (version 1 kind).
    w.write(&Record {
        t: T0,
        data: Data::SpotBook {
            symbol: "btc_usdt".into(),
            depth: Some(5),
            bids: lv(&[("100.5", "2"), ("100.25", "0.125")]),
            asks: lv(&[("100.75", "3")]),
        },
    })
    .unwrap();
    w.write_depth(
        T0 + 1,
        &spot,
        false,
        &lv(&[("100.5", "0")]),
        &lv(&[("101", "1e-07")]),
        None,
    )
    .unwrap();
    w.write_depth(
        T0 + 2,
        &swap,
        true,
        &lv(&[("50000", "10")]),
        &lv(&[("50001.5", "4")]),
        Some(T0),
    )
    .unwrap();
    let trade = |id: &str, price: &str, qty: &str, side, direction| Trade {
        id: id.into(),
        time_ms: T0 + 2,
        price: d(price),
        qty: d(qty),
        side,
        direction,
    };
    w.write(&Record {
        t: T0 + 3,
        data: Data::SpotTrades {
            symbol: "btc_usdt".into(),
            trades: vec![trade("9001", "100.75", "0.5", Side::Buy, None)],
        },
    })
    .unwrap();
    // The same trade again (an overlapping list): written once.
    w.write(&Record {
        t: T0 + 4,
        data: Data::SpotTrades {
            symbol: "btc_usdt".into(),
            trades: vec![
                trade("9001", "100.75", "0.5", Side::Buy, None),
                trade("9002", "100.5", "1.25", Side::Sell, None),
            ],
        },
    })
    .unwrap();
    w.write(&Record {
        t: T0 + 5,
        data: Data::SwapTrades {
            instrument: "BTCUSDTPERP".into(),
            trades: vec![trade(
                "123456789012345678",
                "50000",
                "3",
                Side::Sell,
                Some(2),
            )],
        },
    })
    .unwrap();
    w.write(&Record {
        t: T0 + 6,
        data: Data::SwapTicker {
            instrument: "BTCUSDTPERP".into(),
            ticker: Ticker {
                last: Some(d("50000")),
                bid: Some(d("50000")),
                bid_size: Some(d("10")),
                change: Some(d("-0.0123")),
                ts: Some(T0 + 5),
                ..Ticker::default()
            },
        },
    })
    .unwrap();
    w.write(&Record {
        t: T0 + 7,
        data: Data::Funding {
            instrument: "BTCUSDTPERP".into(),
            rate: d("0.0001"),
            next_time: T0 + 28_800_000,
            next_rate: Some(d("-3e-05")),
            last_rate: None,
        },
    })
    .unwrap();
    w.write(&Record {
        t: T0 + 8,
        data: Data::Mark {
            instrument: "BTCUSDTPERP".into(),
            mark: d("50000.6"),
            index: None,
        },
    })
    .unwrap();
    w.write_index(T0 + 9, "BTCUSDTPERP", d("50000.45"), Some(T0 + 8))
        .unwrap();
    w.write_resync(T0 + 10, &spot, "crossed").unwrap();
    // Not in book_top: the spot book waits for a snapshot.
    w.write_depth(T0 + 11, &spot, false, &lv(&[("99", "1")]), &[], None)
        .unwrap();
    w.write_reconnect(
        T0 + 12,
        Family::Swap,
        Some(2),
        Some(T0 + 11),
        Some("lost"),
        &[],
    )
    .unwrap();
    w.write_depth(
        T0 + 13,
        &spot,
        true,
        &lv(&[("99", "1")]),
        &lv(&[("99.5", "2")]),
        None,
    )
    .unwrap();
}

fn recording(path: &Path) {
    let mut w = Writer::create(path, &Header::default()).unwrap();
    sample(&mut w);
    w.finish().unwrap();
}

fn batches(path: &Path) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap();
    ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

fn one(path: &Path) -> RecordBatch {
    let mut b = batches(path);
    assert_eq!(b.len(), 1);
    b.remove(0)
}

fn col<'a, T: 'static>(b: &'a RecordBatch, name: &str) -> &'a T {
    b.column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .as_any()
        .downcast_ref::<T>()
        .unwrap_or_else(|| {
            panic!(
                "column {name} is {:?}",
                b.column_by_name(name).unwrap().data_type()
            )
        })
}

fn texts(b: &RecordBatch, name: &str) -> Vec<Option<String>> {
    let c = col::<StringArray>(b, name);
    (0..c.len())
        .map(|i| c.is_valid(i).then(|| c.value(i).to_owned()))
        .collect()
}

/// A decimal column as exact text without trailing zeros (`100.5`), after checking that it
/// is `DECIMAL(38, 18)`.
fn decs(b: &RecordBatch, name: &str) -> Vec<Option<String>> {
    let c = col::<Decimal128Array>(b, name);
    assert_eq!(c.data_type(), &DataType::Decimal128(38, 18), "{name}");
    (0..c.len())
        .map(|i| {
            c.is_valid(i).then(|| {
                let t = c.value_as_string(i);
                t.trim_end_matches('0').trim_end_matches('.').to_owned()
            })
        })
        .collect()
}

fn times(b: &RecordBatch, name: &str) -> Vec<Option<i64>> {
    let c = col::<TimestampMicrosecondArray>(b, name);
    (0..c.len())
        .map(|i| c.is_valid(i).then(|| c.value(i)))
        .collect()
}

fn ints(b: &RecordBatch, name: &str) -> Vec<Option<i64>> {
    let c = col::<Int64Array>(b, name);
    (0..c.len())
        .map(|i| c.is_valid(i).then(|| c.value(i)))
        .collect()
}

fn s(v: &[&str]) -> Vec<Option<String>> {
    v.iter().map(|x| Some((*x).to_owned())).collect()
}

fn table_rows(summary: &Summary) -> Vec<(String, u64)> {
    summary
        .tables
        .iter()
        .map(|t| (t.name.clone(), t.rows))
        .collect()
}

#[test]
fn parquet_reads_back_with_exact_values() {
    let dir = dir("parquet");
    let input = dir.join("m.jsonl.gz");
    recording(&input);
    let out = dir.join("out");
    let opts = Options {
        format: Format::Parquet,
        float: false,
        top: None,
    };
    let summary = export(&input, &out, &opts).unwrap();
    assert_eq!(summary.records, 14);
    assert_eq!(summary.repeated_trades, 1);
    assert!(!summary.damaged());
    assert_eq!(
        table_rows(&summary),
        [
            ("book".to_owned(), 10),
            ("trades".to_owned(), 3),
            ("tickers".to_owned(), 1),
            ("funding".to_owned(), 1),
            ("mark_index".to_owned(), 2),
            ("markers".to_owned(), 2),
        ]
    );

    let book = one(&out.join("book.parquet"));
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    assert_eq!(
        book.schema().field_with_name("time").unwrap().data_type(),
        &utc
    );
    // One decimal type for every column of every file, whatever the values.
    assert_eq!(
        book.schema().field_with_name("qty").unwrap().data_type(),
        &DataType::Decimal128(38, 18)
    );
    assert_eq!(
        book.schema().field_with_name("price").unwrap().data_type(),
        &DataType::Decimal128(38, 18)
    );
    assert_eq!(
        times(&book, "time")[..4],
        [
            Some(T0 * 1000),
            Some(T0 * 1000),
            Some(T0 * 1000),
            Some((T0 + 1) * 1000)
        ]
    );
    assert_eq!(
        ints(&book, "seq")[..5],
        [Some(0), Some(0), Some(0), Some(1), Some(1)]
    );
    assert_eq!(
        texts(&book, "update")[..5],
        s(&["snapshot", "snapshot", "snapshot", "delta", "delta"])
    );
    assert_eq!(
        texts(&book, "side")[..5],
        s(&["bid", "bid", "ask", "bid", "ask"])
    );
    assert_eq!(ints(&book, "level")[..3], [Some(1), Some(2), Some(1)]);
    assert_eq!(
        decs(&book, "price")[..5],
        s(&["100.5", "100.25", "100.75", "100.5", "101"])
    );
    assert_eq!(
        decs(&book, "qty")[..5],
        s(&["2", "0.125", "3", "0", "0.0000001"])
    );
    assert_eq!(
        texts(&book, "market")[5..7],
        s(&["BTCUSDTPERP", "BTCUSDTPERP"])
    );

    let trades = one(&out.join("trades.parquet"));
    assert_eq!(
        texts(&trades, "id"),
        s(&["9001", "9002", "123456789012345678"])
    );
    assert_eq!(texts(&trades, "family"), s(&["spot", "spot", "swap"]));
    assert_eq!(decs(&trades, "price"), s(&["100.75", "100.5", "50000"]));
    assert_eq!(decs(&trades, "qty"), s(&["0.5", "1.25", "3"]));
    assert_eq!(texts(&trades, "side"), s(&["buy", "sell", "sell"]));
    assert_eq!(ints(&trades, "direction"), [None, None, Some(2)]);
    assert_eq!(times(&trades, "trade_time"), [Some((T0 + 2) * 1000); 3]);
    assert_eq!(ints(&trades, "seq"), [Some(3), Some(4), Some(5)]);

    let tickers = one(&out.join("tickers.parquet"));
    assert_eq!(decs(&tickers, "last"), s(&["50000"]));
    assert_eq!(decs(&tickers, "bid_size"), s(&["10"]));
    assert_eq!(decs(&tickers, "change"), s(&["-0.0123"]));
    assert_eq!(decs(&tickers, "ask"), [None]);
    assert_eq!(times(&tickers, "ts"), [Some((T0 + 5) * 1000)]);

    let funding = one(&out.join("funding.parquet"));
    assert_eq!(decs(&funding, "rate"), s(&["0.0001"]));
    assert_eq!(decs(&funding, "next_rate"), s(&["-0.00003"]));
    assert_eq!(decs(&funding, "last_rate"), [None]);
    assert_eq!(
        times(&funding, "next_time"),
        [Some((T0 + 28_800_000) * 1000)]
    );

    let prices = one(&out.join("mark_index.parquet"));
    assert_eq!(decs(&prices, "mark"), [Some("50000.6".to_owned()), None]);
    assert_eq!(decs(&prices, "index"), [None, Some("50000.45".to_owned())]);
    assert_eq!(times(&prices, "ts"), [None, Some((T0 + 8) * 1000)]);

    let markers = one(&out.join("markers.parquet"));
    assert_eq!(texts(&markers, "kind"), s(&["resync", "reconnect"]));
    assert_eq!(
        texts(&markers, "market"),
        [Some("btc_usdt".to_owned()), None]
    );
    assert_eq!(ints(&markers, "socket"), [None, Some(2)]);
    assert_eq!(times(&markers, "lost"), [None, Some((T0 + 11) * 1000)]);
    assert_eq!(texts(&markers, "reason"), s(&["crossed", "lost"]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn top_n_rebuilds_the_books_and_float_is_asked_for() {
    let dir = dir("top");
    let input = dir.join("m.jsonl.gz");
    recording(&input);
    let out = dir.join("out");
    let opts = Options {
        format: Format::Parquet,
        float: true,
        top: Some(2),
    };
    let summary = export(&input, &out, &opts).unwrap();
    // The delta after the resync has no valid book.
    assert_eq!(summary.dropped_deltas, 1);
    assert!(!out.join("book.parquet").exists());
    let top = one(&out.join("book_top.parquet"));
    assert_eq!(top.num_rows(), 4);
    assert_eq!(
        top.schema()
            .field_with_name("bid_price_1")
            .unwrap()
            .data_type(),
        &DataType::Float64
    );
    let f = |name: &str| {
        let c = col::<Float64Array>(&top, name);
        (0..c.len())
            .map(|i| c.is_valid(i).then(|| c.value(i)))
            .collect::<Vec<_>>()
    };
    // Snapshot; delta (best bid deleted, an ask added); swap snapshot; the snapshot after the
    // resync.
    assert_eq!(
        f("bid_price_1"),
        [Some(100.5), Some(100.25), Some(50000.0), Some(99.0)]
    );
    assert_eq!(f("bid_qty_2"), [Some(0.125), None, None, None]);
    assert_eq!(f("ask_price_2"), [None, Some(101.0), None, None]);
    assert_eq!(f("ask_qty_2"), [None, Some(1e-7), None, None]);
    assert_eq!(
        texts(&top, "update"),
        s(&["snapshot", "delta", "snapshot", "snapshot"])
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn csv_parses_with_exact_values() {
    let dir = dir("csv");
    let input = dir.join("m.jsonl.gz");
    recording(&input);
    let out = dir.join("out");
    let opts = Options {
        format: Format::Csv,
        float: false,
        top: None,
    };
    export(&input, &out, &opts).unwrap();
    let read = |name: &str| -> (Vec<String>, Vec<Vec<String>>) {
        let mut r = csv::Reader::from_path(out.join(name)).unwrap();
        let head = r.headers().unwrap().iter().map(str::to_owned).collect();
        let rows = r
            .records()
            .map(|x| x.unwrap().iter().map(str::to_owned).collect())
            .collect();
        (head, rows)
    };
    let (head, rows) = read("book.csv");
    assert_eq!(
        head,
        ["time", "seq", "family", "market", "update", "side", "level", "price", "qty"]
    );
    assert_eq!(
        rows[4],
        [
            "2024-02-01T05:00:00.001000Z",
            "1",
            "spot",
            "btc_usdt",
            "delta",
            "ask",
            "1",
            "101",
            "0.0000001"
        ]
    );
    let (head, rows) = read("trades.csv");
    assert_eq!(
        head,
        [
            "time",
            "seq",
            "family",
            "market",
            "id",
            "trade_time",
            "price",
            "qty",
            "side",
            "direction"
        ]
    );
    assert_eq!(
        rows[2],
        [
            "2024-02-01T05:00:00.005000Z",
            "5",
            "swap",
            "BTCUSDTPERP",
            "123456789012345678",
            "2024-02-01T05:00:00.002000Z",
            "50000",
            "3",
            "sell",
            "2"
        ]
    );
    let (_, rows) = read("funding.csv");
    assert_eq!(
        rows,
        [[
            "2024-02-01T05:00:00.007000Z",
            "7",
            "BTCUSDTPERP",
            "0.0001",
            "2024-02-01T13:00:00.000000Z",
            "-0.00003",
            ""
        ]]
    );
    let (_, rows) = read("markers.csv");
    assert_eq!(
        rows[1][2..],
        [
            "reconnect",
            "swap",
            "",
            "2",
            "2024-02-01T05:00:00.011000Z",
            "lost",
            ""
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_recording_exports_what_is_intact() {
    let dir = dir("damaged");
    // A bad line in the middle and a crash: the last member without its trailer, its last line
    // cut.
    let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
    sample(&mut w);
    let mut bytes = w.finish().unwrap();
    let mut text = String::from("{\"t\":1706763600100,\"kind\":\"spot_depth\",\"symbol\":\"btc_usdt\",\"snapshot\":true,\"bids\":[[\"x\",\"1\"]],\"asks\":[]}\n");
    text.push_str("{\"t\":1706763600200,\"kind\":\"index\",\"instrument\":\"BTCUSDTPERP\",\"index\":\"50001\"}\n");
    text.push_str("{\"t\":1706763600300,\"kind\":\"liquidations\"}\n");
    text.push_str("{\"t\":1706763600400,\"kind\":\"index\",\"instrum");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    enc.flush().unwrap();
    // A sync-flushed member without its trailer.
    bytes.extend(enc.get_ref());
    let input = dir.join("crashed.jsonl.gz");
    std::fs::write(&input, &bytes).unwrap();
    let out = dir.join("out");
    let opts = Options {
        format: Format::Parquet,
        float: false,
        top: None,
    };
    let summary = export(&input, &out, &opts).unwrap();
    assert_eq!(summary.records, 15);
    assert_eq!(summary.bad_lines, 1);
    assert_eq!(
        summary.messages,
        ["line 16: bid \"x\" is not a decimal".to_owned()]
    );
    assert_eq!(summary.unknown_kinds, 1);
    assert!(summary.truncated);
    assert!(summary.damaged());
    let prices = one(&out.join("mark_index.parquet"));
    assert_eq!(
        decs(&prices, "index"),
        [None, Some("50000.45".to_owned()), Some("50001".to_owned())]
    );

    // A recording cut inside its first gzip member's data: the header survives, nothing else.
    let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
    let header_only = w.bytes();
    sample(&mut w);
    let bytes = w.finish().unwrap();
    let cut = dir.join("cut.jsonl.gz");
    std::fs::write(&cut, &bytes[..usize::try_from(header_only).unwrap() + 3]).unwrap();
    let summary = export(&cut, &dir.join("out2"), &opts).unwrap();
    assert_eq!(summary.records, 0);
    assert!(summary.truncated && summary.tables.is_empty());

    // Not a recording at all.
    let junk = dir.join("junk.gz");
    std::fs::write(&junk, b"not gzip").unwrap();
    let e = export(&junk, &dir.join("out3"), &opts).unwrap_err();
    assert!(matches!(e, digifinex_export::Error::Read(_)), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn many_rows_span_several_batches() {
    let dir = dir("many");
    let input = dir.join("m.jsonl.gz");
    let mut w = Writer::create(&input, &Header::default()).unwrap();
    let mut id = 0u64;
    for r in 0..3i64 {
        let trades = (0..7000)
            .map(|k| {
                id += 1;
                Trade {
                    id: id.to_string(),
                    time_ms: T0 + r,
                    price: Decimal::new(100_000 + k, 3),
                    qty: Decimal::new(k + 1, 8),
                    side: Side::Buy,
                    direction: None,
                }
            })
            .collect();
        w.write(&Record {
            t: T0 + r,
            data: Data::SpotTrades {
                symbol: "btc_usdt".into(),
                trades,
            },
        })
        .unwrap();
    }
    w.finish().unwrap();
    let out = dir.join("out");
    let opts = Options {
        format: Format::Parquet,
        float: false,
        top: None,
    };
    let summary = export(&input, &out, &opts).unwrap();
    assert_eq!(table_rows(&summary), [("trades".to_owned(), 21_000)]);
    let all = batches(&out.join("trades.parquet"));
    assert!(all.len() > 1, "{} batches", all.len());
    let ids: Vec<Option<String>> = all.iter().flat_map(|b| texts(b, "id")).collect();
    let qtys: Vec<Option<String>> = all.iter().flat_map(|b| decs(b, "qty")).collect();
    let prices: Vec<Option<String>> = all.iter().flat_map(|b| decs(b, "price")).collect();
    assert_eq!(ids.len(), 21_000);
    assert_eq!(ids[20_999].as_deref(), Some("21000"));
    assert_eq!(qtys[0].as_deref(), Some("0.00000001"));
    assert_eq!(qtys[20_999].as_deref(), Some("0.00007"));
    assert_eq!(prices[8192].as_deref(), Some("101.192"));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn trades_recording(path: &Path, trades: &[(&str, &str, &str)]) {
    let mut w = Writer::create(path, &Header::default()).unwrap();
    for (i, (id, price, qty)) in trades.iter().enumerate() {
        w.write(&Record {
            t: T0 + i64::try_from(i).unwrap(),
            data: Data::SpotTrades {
                symbol: "xrp_usdt".into(),
                trades: vec![Trade {
                    id: (*id).into(),
                    time_ms: T0,
                    price: d(price),
                    qty: d(qty),
                    side: Side::Buy,
                    direction: None,
                }],
            },
        })
        .unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn two_exports_have_one_schema_and_unfit_values_are_skipped() {
    let dir = dir("schema");
    let a = dir.join("a.jsonl.gz");
    let b = dir.join("b.jsonl.gz");
    // DuckDB once read B's prices through A's scale: 0.4995 as 0.5.
    trades_recording(&a, &[("1", "0.5", "19.3"), ("2", "0.5", "0.4104")]);
    trades_recording(
        &b,
        &[
            ("3", "0.4995", "0.0012345"),
            ("4", "0.4995", "1e-19"),
            ("5", "123456789012345678901", "1"),
            ("6", "0.000000000000000001", "12345678901234567890"),
        ],
    );
    let opts = Options {
        format: Format::Parquet,
        float: false,
        top: None,
    };
    let sa = export(&a, &dir.join("a"), &opts).unwrap();
    let sb = export(&b, &dir.join("b"), &opts).unwrap();
    assert!(!sa.damaged());
    // Two records do not fit DECIMAL(38, 18): skipped, not rounded.
    assert_eq!((sb.records, sb.unfit_records), (2, 2));
    assert!(sb.damaged());
    assert_eq!(
        sb.messages,
        [
            "record 1 (spot_trades at 2024-02-01T05:00:00.001000Z): qty 0.0000000000000000001 \
             does not fit DECIMAL(38, 18) (skipped)",
            "record 2 (spot_trades at 2024-02-01T05:00:00.002000Z): price \
             123456789012345678901 does not fit DECIMAL(38, 18) (skipped)"
        ]
    );
    let ta = one(&dir.join("a/trades.parquet"));
    let tb = one(&dir.join("b/trades.parquet"));
    assert_eq!(ta.schema(), tb.schema());
    assert_eq!(decs(&ta, "price"), s(&["0.5", "0.5"]));
    assert_eq!(decs(&tb, "price"), s(&["0.4995", "0.000000000000000001"]));
    assert_eq!(decs(&tb, "qty"), s(&["0.0012345", "12345678901234567890"]));
    assert_eq!(texts(&tb, "id"), s(&["3", "6"]));
    std::fs::remove_dir_all(&dir).unwrap();
}
