use super::*;
use crate::decimal::parse_dec;
use crate::read::{fast_record, parse_line, Line};
use flate2::write::GzEncoder;
use flate2::Compression;
use rust_decimal::Decimal;
use std::fs::OpenOptions;
use std::io::{self, Write};

/// A decimal from its text (tests only).
fn d(s: &str) -> Decimal {
    parse_dec(s).unwrap()
}

fn sample() -> Vec<Record> {
    vec![
        Record {
            t: 1000,
            data: Data::SpotBook {
                symbol: "icp_usdt".into(),
                depth: Some(5),
                bids: vec![(d("11.356"), d("120.5")), (d("11.355"), d("3"))],
                asks: vec![(d("11.358"), d("80"))],
            },
        },
        Record {
            t: 1010,
            data: Data::SpotTrades {
                symbol: "icp_usdt".into(),
                trades: vec![Trade {
                    id: "9001".into(),
                    time_ms: 1000,
                    price: d("11.357"),
                    qty: d("0.5"),
                    side: Side::Buy,
                    direction: None,
                }],
            },
        },
        Record {
            t: 1020,
            data: Data::SpotTicker {
                symbol: "icp_usdt".into(),
                ticker: Ticker {
                    last: Some(d("11.357")),
                    change: Some(d("-1.91")),
                    ..Ticker::default()
                },
            },
        },
        Record {
            t: 1030,
            data: Data::SwapBook {
                instrument: "ICPUSDTPERP".into(),
                depth: None,
                bids: vec![(d("11.35"), d("10"))],
                asks: vec![],
            },
        },
        Record {
            t: 1040,
            data: Data::SwapTrades {
                instrument: "ICPUSDTPERP".into(),
                trades: vec![Trade {
                    id: "123456789012345678".into(),
                    time_ms: 1039,
                    price: d("11.35"),
                    qty: d("2"),
                    side: Side::Sell,
                    direction: Some(2),
                }],
            },
        },
        Record {
            t: 1050,
            data: Data::SwapTicker {
                instrument: "ICPUSDTPERP".into(),
                ticker: Ticker {
                    volume: Some(d("1e-07")),
                    ..Ticker::default()
                },
            },
        },
        Record {
            t: 1060,
            data: Data::Funding {
                instrument: "ICPUSDTPERP".into(),
                rate: d("0.0001"),
                next_time: 28_800_000,
                next_rate: Some(d("-0.00005")),
                last_rate: None,
            },
        },
        Record {
            t: 1070,
            data: Data::Mark {
                instrument: "ICPUSDTPERP".into(),
                mark: d("11.36"),
                index: Some(d("11.357")),
            },
        },
    ]
}

fn header() -> Header {
    Header {
        created_ms: Some(999),
        source: Some("test".into()),
        spot: vec![SpotPairInfo {
            symbol: "icp_usdt".into(),
            price_precision: 3,
            amount_precision: 2,
            min_amount: d("0.01"),
            min_value: d("2"),
        }],
        ..Header::default()
    }
}

fn write_all(records: &[Record]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), &header()).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    assert_eq!(w.records(), records.len() as u64);
    w.finish().unwrap()
}

#[test]
fn every_kind_round_trips() {
    let bytes = write_all(&sample());
    let r = Reader::new(std::io::Cursor::new(bytes)).unwrap();
    assert_eq!(r.header(), &header());
    let got: Vec<Record> = r.map(|x| x.unwrap()).collect();
    assert_eq!(got, sample());
}

#[test]
fn lines_are_as_documented() {
    let r = &sample()[0];
    assert_eq!(
        r.to_line(),
        r#"{"t":1000,"kind":"spot_book","symbol":"icp_usdt","depth":5,"bids":[["11.356","120.5"],["11.355","3"]],"asks":[["11.358","80"]]}"#
    );
    assert_eq!(
        sample()[6].to_line(),
        r#"{"t":1060,"kind":"funding","instrument":"ICPUSDTPERP","rate":"0.0001","next_time":28800000,"next_rate":"-0.00005"}"#
    );
}

#[test]
fn concatenated_members_and_repeated_headers_read_as_one() {
    let all = sample();
    let mut bytes = write_all(&all[..3]);
    bytes.extend(write_all(&all[3..]));
    let got: Vec<Record> = Reader::new(std::io::Cursor::new(bytes))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    assert_eq!(got, all);
}

#[test]
fn a_cut_file_reads_up_to_the_cut() {
    let all = sample();
    let mut w = Writer::new(Vec::new(), &header()).unwrap();
    let mut before_last = 0;
    for r in &all {
        before_last = w.bytes();
        w.write(r).unwrap();
    }
    // No trailer (a crash after the last flush).
    let bytes = w.crash().unwrap();
    let full: Vec<Record> = Reader::new(std::io::Cursor::new(bytes.clone()))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    assert_eq!(full, all);
    // Cut inside the last record's bytes.
    let cut_at = usize::try_from(before_last).unwrap() + 5;
    let mut r = Reader::new(std::io::Cursor::new(bytes[..cut_at].to_vec())).unwrap();
    let cut: Vec<Record> = r.by_ref().map(|x| x.unwrap()).collect();
    assert_eq!(cut, all[..all.len() - 1].to_vec());
    assert!(r.truncated());
}

#[test]
fn a_writer_that_flushes_every_n_bytes_loses_only_what_followed_its_last_flush() {
    let all = sample();
    // Many records, flushed every 4 KiB: a crash keeps what the last flush covered.
    let many: Vec<Record> = (0..400).map(|i| all[i % all.len()].clone()).collect();
    let mut w = Writer::new(Vec::new(), &header())
        .unwrap()
        .flush_every(4096);
    for r in &many[..300] {
        w.write(r).unwrap();
    }
    w.flush().unwrap();
    for r in &many[300..] {
        w.write(r).unwrap();
    }
    let crashed = w.crash().unwrap();
    let mut r = Reader::new(std::io::Cursor::new(crashed)).unwrap();
    let kept: Vec<Record> = r.by_ref().map(|x| x.unwrap()).collect();
    assert!(kept.len() >= 300 && kept.len() < 400, "{}", kept.len());
    assert_eq!(kept[..], many[..kept.len()]);
    // Finished, everything reads, and the file is smaller than one flushed after every record.
    let mut w = Writer::new(Vec::new(), &header())
        .unwrap()
        .flush_every(64 << 10);
    let mut each = Writer::new(Vec::new(), &header()).unwrap();
    for r in &many {
        w.write(r).unwrap();
        each.write(r).unwrap();
    }
    let (batched, each) = (w.finish().unwrap(), each.finish().unwrap());
    let read: Vec<Record> = Reader::new(std::io::Cursor::new(batched.clone()))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    assert_eq!(read, many);
    assert!(
        batched.len() * 2 < each.len(),
        "{} vs {}",
        batched.len(),
        each.len()
    );
}

#[test]
fn bad_lines_and_unknown_kinds() {
    let mut text = header().to_line();
    text.push('\n');
    text.push_str(&sample()[0].to_line());
    text.push_str("\n{\"t\":5,\"kind\":\"spot_book\",\"symbol\":\"x\",\"bids\":[[\"1\",\"+2\"]],\"asks\":[]}\n");
    text.push_str("{\"t\":6,\"kind\":\"liquidations\",\"instrument\":\"X\"}\n");
    text.push_str(&sample()[7].to_line());
    text.push('\n');
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let mut r = Reader::new(std::io::Cursor::new(enc.finish().unwrap())).unwrap();
    assert_eq!(r.next().unwrap().unwrap(), sample()[0]);
    match r.next().unwrap() {
        Err(ReadError::Line { line: 3, message }) => {
            assert_eq!(message, "bid \"+2\" is not a decimal")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(r.next().unwrap().unwrap(), sample()[7]);
    assert!(r.next().is_none());
    assert_eq!(r.skipped(), 1);
    assert!(!r.truncated());
}

#[test]
fn refuses_other_files() {
    let gz = |s: &str| {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(s.as_bytes()).unwrap();
        std::io::Cursor::new(enc.finish().unwrap())
    };
    assert!(matches!(
        Reader::new(gz("{\"format\":\"digifinex-market\",\"version\":3}\n")),
        Err(ReadError::Version { found: 3 })
    ));
    assert!(matches!(
        Reader::new(gz("{\"t\":1,\"kind\":\"mark\"}\n")),
        Err(ReadError::NotARecording(_))
    ));
    assert!(matches!(
        Reader::new(gz("")),
        Err(ReadError::NotARecording(_))
    ));
}

fn ws_sample() -> Vec<Record> {
    vec![
        Record {
            t: 2000,
            data: Data::SpotDepth {
                symbol: "btc_usdt".into(),
                snapshot: true,
                bids: vec![(d("100.5"), d("2")), (d("100.4"), d("1"))],
                asks: vec![(d("100.6"), d("3"))],
                ts: None,
            },
        },
        Record {
            t: 2001,
            data: Data::SpotDepth {
                symbol: "btc_usdt".into(),
                snapshot: false,
                bids: vec![(d("100.4"), d("0"))],
                asks: vec![],
                ts: None,
            },
        },
        Record {
            t: 2002,
            data: Data::SwapDepth {
                instrument: "BTCUSDTPERP".into(),
                snapshot: false,
                bids: vec![],
                asks: vec![(d("100.7"), d("12"))],
                ts: Some(2000),
            },
        },
        Record {
            t: 2003,
            data: Data::Index {
                instrument: "BTCUSDTPERP".into(),
                index: d("100.55"),
                ts: Some(2001),
            },
        },
        Record {
            t: 2004,
            data: Data::SwapTicker {
                instrument: "BTCUSDTPERP".into(),
                ticker: Ticker {
                    bid: Some(d("100.5")),
                    bid_size: Some(d("7")),
                    last_qty: Some(d("1")),
                    ts: Some(2003),
                    ..Ticker::default()
                },
            },
        },
        Record {
            t: 2005,
            data: Data::Resync {
                market: MarketId::Spot("btc_usdt".into()),
                reason: "crossed".into(),
            },
        },
        Record {
            t: 2006,
            data: Data::Reconnect {
                family: Family::Swap,
                socket: Some(1),
                lost: Some(1990),
                reason: Some("connection lost: reset".into()),
                markets: vec!["BTCUSDTPERP".into()],
            },
        },
        Record {
            t: 2007,
            data: Data::Reconnect {
                family: Family::Spot,
                socket: None,
                lost: None,
                reason: None,
                markets: vec![],
            },
        },
    ]
}

#[test]
fn websocket_kinds_round_trip_as_documented() {
    let all = ws_sample();
    let bytes = write_all(&all);
    let got: Vec<Record> = Reader::new(std::io::Cursor::new(bytes))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    assert_eq!(got, all);
    let lines: Vec<String> = all.iter().map(Record::to_line).collect();
    assert_eq!(
        lines,
        [
            r#"{"t":2000,"kind":"spot_depth","symbol":"btc_usdt","snapshot":true,"bids":[["100.5","2"],["100.4","1"]],"asks":[["100.6","3"]]}"#,
            r#"{"t":2001,"kind":"spot_depth","symbol":"btc_usdt","snapshot":false,"bids":[["100.4","0"]],"asks":[]}"#,
            r#"{"t":2002,"kind":"swap_depth","instrument":"BTCUSDTPERP","snapshot":false,"bids":[],"asks":[["100.7","12"]],"ts":2000}"#,
            r#"{"t":2003,"kind":"index","instrument":"BTCUSDTPERP","index":"100.55","ts":2001}"#,
            r#"{"t":2004,"kind":"swap_ticker","instrument":"BTCUSDTPERP","bid":"100.5","bid_size":"7","last_qty":"1","ts":2003}"#,
            r#"{"t":2005,"kind":"resync","symbol":"btc_usdt","reason":"crossed"}"#,
            r#"{"t":2006,"kind":"reconnect","family":"swap","socket":1,"lost":1990,"reason":"connection lost: reset","markets":["BTCUSDTPERP"]}"#,
            r#"{"t":2007,"kind":"reconnect","family":"spot"}"#,
        ]
    );
    assert!(header().to_line().contains(r#""version":2"#));
}

#[test]
fn writer_methods_write_the_websocket_kinds() {
    let all = ws_sample();
    let mut w = Writer::new(Vec::new(), &header()).unwrap();
    let spot = MarketId::Spot("btc_usdt".into());
    w.write_depth(
        2000,
        &spot,
        true,
        &[(d("100.5"), d("2")), (d("100.4"), d("1"))],
        &[(d("100.6"), d("3"))],
        None,
    )
    .unwrap();
    w.write_depth(2001, &spot, false, &[(d("100.4"), d("0"))], &[], None)
        .unwrap();
    let swap = MarketId::Swap("BTCUSDTPERP".into());
    w.write_depth(
        2002,
        &swap,
        false,
        &[],
        &[(d("100.7"), d("12"))],
        Some(2000),
    )
    .unwrap();
    w.write_index(2003, "BTCUSDTPERP", d("100.55"), Some(2001))
        .unwrap();
    w.write(&all[4]).unwrap();
    w.write_resync(2005, &spot, "crossed").unwrap();
    w.write_reconnect(
        2006,
        Family::Swap,
        Some(1),
        Some(1990),
        Some("connection lost: reset"),
        &["BTCUSDTPERP".to_owned()],
    )
    .unwrap();
    w.write_reconnect(2007, Family::Spot, None, None, None, &[])
        .unwrap();
    let bytes = w.finish().unwrap();
    let got: Vec<Record> = Reader::new(std::io::Cursor::new(bytes))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    assert_eq!(got, all);
}

#[test]
fn a_version_1_header_refuses_websocket_kinds_and_still_reads() {
    let v1 = Header {
        version: 1,
        ..header()
    };
    let mut w = Writer::new(Vec::new(), &v1).unwrap();
    let e = w.write(&ws_sample()[0]).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    assert_eq!(
        e.to_string(),
        "record kind spot_depth needs format version 2; the header says 1"
    );
    w.write(&sample()[0]).unwrap();
    let r = Reader::new(std::io::Cursor::new(w.finish().unwrap())).unwrap();
    assert_eq!(r.header().version, 1);
    assert_eq!(
        r.map(|x| x.unwrap()).collect::<Vec<_>>(),
        vec![sample()[0].clone()]
    );
}

#[test]
fn a_version_1_file_as_written_before_version_2_reads() {
    // The bytes of a version 1 recording as the version 1 writer wrote them.
    let text = concat!(
        r#"{"format":"digifinex-market","version":1,"created_ms":999,"source":"test"}"#,
        "\n",
        r#"{"t":1000,"kind":"spot_book","symbol":"icp_usdt","depth":5,"bids":[["11.356","120.5"],["11.355","3"]],"asks":[["11.358","80"]]}"#,
        "\n",
        r#"{"t":1060,"kind":"funding","instrument":"ICPUSDTPERP","rate":"0.0001","next_time":28800000,"next_rate":"-0.00005"}"#,
        "\n",
    );
    let r = Reader::new(std::io::Cursor::new(gz(text.as_bytes()))).unwrap();
    assert_eq!(r.header().version, 1);
    let got: Vec<Record> = r.map(|x| x.unwrap()).collect();
    assert_eq!(got, vec![sample()[0].clone(), sample()[6].clone()]);
}

#[test]
fn a_resync_must_name_one_market() {
    let mut text = header().to_line();
    text.push_str("\n{\"t\":1,\"kind\":\"resync\",\"reason\":\"x\"}\n");
    text.push_str("{\"t\":2,\"kind\":\"reconnect\",\"family\":\"margin\"}\n");
    let mut r = Reader::new(std::io::Cursor::new(gz(text.as_bytes()))).unwrap();
    match r.next() {
        Some(Err(ReadError::Line { line: 2, message })) => assert_eq!(
            message,
            "resync names neither or both of symbol and instrument"
        ),
        other => panic!("{other:?}"),
    }
    match r.next() {
        Some(Err(ReadError::Line { line: 3, message })) => {
            assert_eq!(message, "reconnect family \"margin\" is not spot or swap")
        }
        other => panic!("{other:?}"),
    }
    assert!(r.next().is_none());
}

#[test]
fn append_repairs_a_crashed_file() {
    let dir = std::env::temp_dir().join(format!("dfx-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("crash.jsonl.gz");
    let all = sample();
    let mut w = Writer::create(&path, &header()).unwrap();
    let mut before_last = 0;
    for r in &all[..4] {
        before_last = w.bytes();
        w.write(r).unwrap();
    }
    // A crash: no trailer, and the last record torn.
    std::mem::forget(w);
    let f = OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(before_last + 5).unwrap();
    drop(f);
    let mut w = Writer::append(&path, &header()).unwrap();
    for r in &all[4..] {
        w.write(r).unwrap();
    }
    w.finish().unwrap();
    let mut r = Reader::open(&path).unwrap();
    let got: Vec<Record> = r.by_ref().map(|x| x.unwrap()).collect();
    // The torn last record of the first session is lost, everything else kept.
    let mut want = all[..3].to_vec();
    want.extend_from_slice(&all[4..]);
    assert_eq!(got, want);
    assert!(!r.truncated());
    // Appending to a finished file only adds.
    let w = Writer::append(&path, &header()).unwrap();
    w.finish().unwrap();
    assert_eq!(Reader::open(&path).unwrap().count(), want.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A gzip member of `text`.
fn gz(text: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_line_over_the_cap_is_skipped_with_an_error() {
    let all = sample();
    let mut text = header().to_line().into_bytes();
    text.push(b'\n');
    // A 3 MiB line of garbage (6 KB compressed), then a valid record.
    text.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
    text.push(b'\n');
    text.extend(all[0].to_line().into_bytes());
    text.push(b'\n');
    let bytes = gz(&text);
    assert!(bytes.len() < 64 * 1024);
    let mut r = Reader::new(std::io::Cursor::new(bytes)).unwrap();
    match r.next() {
        Some(Err(ReadError::Line { line: 2, message })) => {
            assert!(message.contains("longer than"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(r.next().unwrap().unwrap(), all[0]);
    assert!(r.next().is_none());
    assert!(!r.truncated());
}

#[test]
fn repair_drops_an_overlong_line_of_a_crashed_member() {
    let dir = std::env::temp_dir().join(format!("dfx-rec-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long.jsonl.gz");
    let all = sample();
    // A finished first member, then an unfinished one holding a huge line between two
    // records and a cut tail.
    let first = write_all(&all[..2]);
    let mut text = all[2].to_line().into_bytes();
    text.push(b'\n');
    text.extend(std::iter::repeat_n(b'y', 2 * MAX_LINE));
    text.push(b'\n');
    text.extend(all[3].to_line().into_bytes());
    text.extend(b"\n{\"t\":12");
    let mut member = gz(&text);
    member.truncate(member.len() - 8); // no trailer: a crash
    let mut file = first.clone();
    file.extend(member);
    std::fs::write(&path, &file).unwrap();
    let w = Writer::append(&path, &header()).unwrap();
    w.finish().unwrap();
    let got: Vec<Record> = Reader::open(&path).unwrap().map(|x| x.unwrap()).collect();
    assert_eq!(got, all[..4].to_vec());
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- hostile and damaged files (issue 36): each bounded by a cap, each generated here ----

/// A gzip member (no trailer: it never ends, a reader stops at a cap first) of `head`
/// then `unit` repeated `times` times, built without compressing the repeats: `unit` is
/// compressed once with a full flush (no reference to earlier text) and its bytes
/// repeated. A few MB inflate to GBs, like a hand-made bomb.
fn bomb(head: &[u8], unit: &[u8], times: u64) -> Vec<u8> {
    fn deflate_full(c: &mut flate2::Compress, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len() + 1024);
        let before = c.total_in();
        c.compress_vec(data, &mut out, flate2::FlushCompress::Full)
            .unwrap();
        assert_eq!(
            c.total_in() - before,
            data.len() as u64,
            "all of it compressed"
        );
        out
    }
    let mut c = flate2::Compress::new(Compression::best(), false);
    let mut file = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    file.extend(deflate_full(&mut c, head));
    // Whole units in chunks of about 64 KiB, then the rest.
    let per = (64 * 1024 / unit.len()).max(1) as u64;
    let chunk = deflate_full(&mut c, &unit.repeat(per as usize));
    for _ in 0..times / per {
        file.extend_from_slice(&chunk);
    }
    file.extend(deflate_full(&mut c, &unit.repeat((times % per) as usize)));
    file
}

fn head_line() -> Vec<u8> {
    let mut h = header().to_line().into_bytes();
    h.push(b'\n');
    h
}

/// The issue's 1.6 G short lines (3.2 GB of text in a few MB): stopped at the cap on
/// skipped lines after a million, not read to the end.
#[test]
fn a_bomb_of_short_bad_lines_stops_at_the_skipped_lines_cap() {
    let file = bomb(&head_line(), b"x\n", 1_600_000_000);
    assert!(file.len() < 16 << 20, "{}", file.len());
    let mut r = Reader::new(std::io::Cursor::new(file)).unwrap();
    let mut bad = 0u64;
    let stop = loop {
        match r.next() {
            Some(Err(ReadError::Line { .. })) => bad += 1,
            Some(Err(e @ ReadError::Limit { .. })) => break e,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(bad, MAX_SKIPPED_LINES);
    assert!(matches!(
        stop,
        ReadError::Limit {
            line,
            limit: Limit::SkippedLines(MAX_SKIPPED_LINES)
        } if line == MAX_SKIPPED_LINES + 2
    ));
    assert_eq!(
        stop.to_string(),
        "line 1000002: reading stopped at the cap on skipped lines (1000000 lines that are \
         not records beyond the records read, Limits::skipped_lines): the file is damaged \
         or not a digifinex-market recording"
    );
    assert!(r.next().is_none());
    assert!(!r.truncated());
}

/// Blank lines and unknown kinds are skipped lines too.
#[test]
fn blank_lines_and_unknown_kinds_count_toward_the_skipped_lines_cap() {
    for unit in [
        &b"\n"[..],
        b"  \r\n",
        b"{\"t\":1,\"kind\":\"liquidation\"}\n",
    ] {
        let file = bomb(&head_line(), unit, 3_000_000);
        let mut r = Reader::new(std::io::Cursor::new(file)).unwrap();
        match r.next() {
            Some(Err(ReadError::Limit {
                line,
                limit: Limit::SkippedLines(MAX_SKIPPED_LINES),
            })) => assert_eq!(line, MAX_SKIPPED_LINES + 2),
            other => panic!("{other:?}"),
        }
        assert!(r.next().is_none());
    }
}

/// Records read raise the allowance: a file that skips as many lines as it reads (a newer
/// version's kinds between known ones) is read whole.
#[test]
fn the_skipped_lines_allowance_grows_with_the_records_read() {
    let limits = Limits {
        skipped_lines: 10,
        ..Limits::default()
    };
    let rec = sample()[0].to_line();
    let mut text = head_line();
    for _ in 0..100 {
        text.extend(rec.as_bytes());
        text.extend(b"\n{\"t\":1,\"kind\":\"liquidation\"}\n");
    }
    let r = Reader::new(std::io::Cursor::new(gz(&text)))
        .unwrap()
        .with_limits(limits);
    assert_eq!(r.map(|x| x.unwrap()).collect::<Vec<_>>().len(), 100);
    // Twelve unknown lines in a row after one record: the eleventh over the allowance.
    let mut text = head_line();
    text.extend(rec.as_bytes());
    text.push(b'\n');
    for _ in 0..12 {
        text.extend(b"{\"t\":1,\"kind\":\"liquidation\"}\n");
    }
    let mut r = Reader::new(std::io::Cursor::new(gz(&text)))
        .unwrap()
        .with_limits(limits);
    assert_eq!(r.next().unwrap().unwrap(), sample()[0]);
    assert!(matches!(
        r.next(),
        Some(Err(ReadError::Limit {
            line: 14,
            limit: Limit::SkippedLines(10)
        }))
    ));
    assert_eq!(r.skipped(), 12);
}

/// One endless line: read no further than the cap on skipped bytes.
#[test]
fn an_endless_line_stops_at_the_skipped_bytes_cap() {
    let file = bomb(&head_line(), &[b'y'; 4096], 1 << 20); // 4 GiB, no newline
    let mut r = Reader::new(std::io::Cursor::new(file)).unwrap();
    match r.next() {
        Some(Err(ReadError::Limit {
            line: 2,
            limit: Limit::SkippedBytes(MAX_SKIPPED_BYTES),
        })) => {}
        other => panic!("{other:?}"),
    }
    assert!(r.next().is_none());
    let head = head_line().len() as u64;
    assert_eq!(r.inflated(), head + MAX_SKIPPED_BYTES + MAX_LINE as u64 + 1);
}

/// The cap on inflated bytes, whatever the lines.
#[test]
fn the_inflated_bytes_cap_stops_reading_records() {
    let rec = sample()[0].to_line();
    let mut text = head_line();
    for _ in 0..1000 {
        text.extend(rec.as_bytes());
        text.push(b'\n');
    }
    let limits = Limits {
        inflated_bytes: 10_000,
        ..Limits::default()
    };
    let mut r = Reader::new(std::io::Cursor::new(gz(&text)))
        .unwrap()
        .with_limits(limits);
    let whole = (10_000 - head_line().len()) / (rec.len() + 1);
    for _ in 0..whole {
        assert_eq!(r.next().unwrap().unwrap(), sample()[0]);
    }
    match r.next() {
        Some(Err(ReadError::Limit {
            line,
            limit: Limit::InflatedBytes(10_000),
        })) => assert_eq!(line, whole as u64 + 2),
        other => panic!("{other:?}"),
    }
    assert!(r.next().is_none());
    assert_eq!(r.inflated(), 10_000);
}

/// The issue's 3.4 M records at one instant: the first 10,000 read, the rest skipped
/// without being parsed, until the allowance of skipped lines ends reading.
#[test]
fn records_past_the_per_instant_cap_are_skipped_unparsed() {
    let mut unit = sample()[0].to_line().into_bytes();
    unit.push(b'\n');
    let file = bomb(&head_line(), &unit, 3_400_000);
    let mut r = Reader::new(std::io::Cursor::new(file)).unwrap();
    for _ in 0..MAX_PER_INSTANT {
        assert_eq!(r.next().unwrap().unwrap(), sample()[0]);
    }
    match r.next() {
        Some(Err(ReadError::Limit {
            limit: Limit::SkippedLines(MAX_SKIPPED_LINES),
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(r.over_instant(), MAX_SKIPPED_LINES + MAX_PER_INSTANT + 1);
    // Unparsed: lines at the full instant that are not even JSON are not errors.
    let mut text = head_line();
    for _ in 0..3 {
        text.extend(sample()[0].to_line().into_bytes());
        text.push(b'\n');
    }
    text.extend(b"{\"t\":1000,\"kind\":\"spot_book\" this is not JSON\n");
    text.extend(b"{\"t\":1000}\n");
    text.extend(sample()[1].to_line().into_bytes());
    text.push(b'\n');
    let limits = Limits {
        per_instant: 3,
        ..Limits::default()
    };
    let r = Reader::new(std::io::Cursor::new(gz(&text)))
        .unwrap()
        .with_limits(limits);
    let mut r = r;
    let got: Vec<Record> = r.by_ref().map(|x| x.unwrap()).collect();
    assert_eq!(
        got,
        vec![sample()[0].clone(); 3]
            .into_iter()
            .chain([sample()[1].clone()])
            .collect::<Vec<_>>()
    );
    assert_eq!(r.over_instant(), 2);
}

fn not_a_recording(bytes: Vec<u8>) -> String {
    match Reader::new(std::io::Cursor::new(bytes)) {
        Err(e) => e.to_string(),
        Ok(r) => panic!("read as a recording: {r:?}"),
    }
}

/// The first line's error says what the file is.
#[test]
fn the_first_error_says_what_the_file_is() {
    let plain = head_line();
    assert_eq!(
        not_a_recording(plain.clone()),
        "not a digifinex-market recording: not gzip: the file is plain JSON lines, an \
         uncompressed recording (a recording is gzip-compressed: compress it with `gzip`)"
    );
    assert_eq!(
        not_a_recording(b"{\"code\":0}\n".to_vec()),
        "not a digifinex-market recording: not gzip: the file is plain JSON text (a \
         recording is gzip-compressed JSON lines)"
    );
    assert_eq!(
        not_a_recording(b"hello\n".to_vec()),
        "not a digifinex-market recording: not gzip: the file is plain text (a recording \
         is gzip-compressed JSON lines)"
    );
    assert_eq!(
        not_a_recording(vec![0x50, 0x4b, 3, 4, 0xff, 0]),
        "not a digifinex-market recording: not gzip: the file starts with the bytes 50 4b \
         03 04 (gzip starts with 1f 8b, zstd with 28 b5 2f fd)"
    );
    assert_eq!(
        not_a_recording(Vec::new()),
        "not a digifinex-market recording: the file is empty"
    );
    // Damaged: a byte of the deflate data changed (the header line is in the first block).
    let good = gz(&plain);
    let mut bad = good.clone();
    bad[12] ^= 0xff;
    match Reader::new(std::io::Cursor::new(bad)) {
        Err(ReadError::Damaged { at, message }) => {
            assert!(at > 10 && at <= good.len() as u64, "{at}");
            assert_eq!(message, "corrupt deflate stream");
        }
        other => panic!("{other:?}"),
    }
    let mut bad_header = good.clone();
    bad_header[2] = 7; // compression method 7
    assert!(
        not_a_recording(bad_header).starts_with("not a readable recording: damaged gzip at byte "),
    );
    // Cut short inside the header line.
    assert_eq!(
        not_a_recording(good[..good.len() / 2].to_vec()),
        format!(
            "not a digifinex-market recording: the gzip data ends at byte {}, before the \
             header line ended (a file cut short)",
            good.len() / 2
        )
    );
    assert_eq!(
        not_a_recording(vec![0x1f]),
        "not a digifinex-market recording: the gzip data ends at byte 1, before the \
         header line ended (a file cut short)"
    );
    // Gzip of other text.
    assert_eq!(
        not_a_recording(gz(b"hello\n")),
        "not a digifinex-market recording: the first line is not a header: expected \
         value at line 1 column 1"
    );
    assert_eq!(
        not_a_recording(gz(b"")),
        "not a digifinex-market recording: no header line: the gzip data holds no text"
    );
    let mut long = vec![b'{'; MAX_LINE + 10];
    long.push(b'\n');
    assert_eq!(
        not_a_recording(gz(&long)),
        format!(
            "not a digifinex-market recording: no header line: the first line is longer \
             than {MAX_LINE} bytes"
        )
    );
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dfx-rec-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Everything a reader gives from `bytes`: the records, or `None` when it refuses them.
fn read_back(bytes: &[u8]) -> Option<(Vec<Record>, bool)> {
    let mut r = Reader::new(std::io::Cursor::new(bytes.to_vec())).ok()?;
    let got = r.by_ref().map(|x| x.unwrap()).collect();
    Some((got, r.truncated()))
}

/// A finished recording of `records` compressed with `codec`.
fn write_codec(records: &[Record], codec: Codec) -> Vec<u8> {
    let mut w = Writer::with_codec(Vec::new(), &header(), codec).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.finish().unwrap()
}

/// A recording of three sessions (the last one crashed: no trailer) cut at every byte,
/// then appended to: what was readable up to the cut stays, the new records follow, and
/// the file reads to its end, in the file's own compression.
fn cut_anywhere_and_append(codec: Codec, name: &str) {
    let all = sample();
    let mut file = write_codec(&all[..3], codec);
    file.extend(write_codec(&all[3..5], codec));
    let mut w = Writer::with_codec(Vec::new(), &header(), codec).unwrap();
    for r in &all[5..7] {
        w.write(r).unwrap();
    }
    file.extend(w.crash().unwrap());
    // Uncut, with no trailer: every record reads.
    assert_eq!(read_back(&file).unwrap().0, all[..7].to_vec());
    let dir = temp_dir(name);
    let path = dir.join("cut.jsonl");
    let mut repaired = 0;
    for cut in 0..=file.len() {
        let before = read_back(&file[..cut]);
        std::fs::write(&path, &file[..cut]).unwrap();
        let mut w = Writer::append_with_codec(&path, &header(), codec).unwrap();
        assert_eq!(w.codec(), codec, "cut at {cut}");
        repaired += usize::from(w.repair().is_some());
        w.write(&all[7]).unwrap();
        w.finish().unwrap();
        let after = std::fs::read(&path).unwrap();
        let (got, truncated) = read_back(&after).unwrap_or_else(|| panic!("cut {cut}"));
        let mut want = before.map(|b| b.0).unwrap_or_default();
        want.push(all[7].clone());
        assert_eq!(got, want, "cut at {cut} of {}", file.len());
        assert!(!truncated, "cut at {cut}");
    }
    // Every cut but those at the ends of whole members needed mending.
    assert!(repaired >= file.len() - 3, "{repaired} of {}", file.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_recording_cut_at_any_byte_and_appended_to_reads_up_to_the_cut_and_after() {
    cut_anywhere_and_append(Codec::Gzip, "cuts");
}

#[test]
fn a_zstd_recording_cut_at_any_byte_and_appended_to_reads_up_to_the_cut_and_after() {
    cut_anywhere_and_append(Codec::Zstd, "cuts-zstd");
}

#[test]
fn zstd_recordings_read_as_gzip_ones_do() {
    let all = sample();
    let z = write_codec(&all, Codec::Zstd);
    assert_eq!(&z[..4], &[0x28, 0xb5, 0x2f, 0xfd]);
    let r = Reader::new(std::io::Cursor::new(z.clone())).unwrap();
    assert_eq!(r.header(), &header());
    assert_eq!(r.map(|x| x.unwrap()).collect::<Vec<_>>(), all);
    // Frames one after another (sessions, and a new frame every MEMBER_RECORDS records).
    let many: Vec<Record> = (0..2500).map(|i| all[i % all.len()].clone()).collect();
    let mut bytes = write_codec(&many, Codec::Zstd);
    bytes.extend(write_codec(&all, Codec::Zstd));
    let (got, truncated) = read_back(&bytes).unwrap();
    assert_eq!(got.len(), many.len() + all.len());
    assert_eq!(got[..many.len()], many[..]);
    assert!(!truncated);
    // A damaged byte inside a frame: what came before stands, the rest is not made up.
    let mut bad = write_codec(&many, Codec::Zstd);
    let mid = bad.len() / 2;
    bad[mid] ^= 0x55;
    let (got, truncated) = read_back(&bad).unwrap();
    assert!(truncated);
    assert!(got.len() < many.len());
    assert_eq!(got[..], many[..got.len()]);
    // A gzip recording appended to with zstd asked for keeps gzip.
    let dir = temp_dir("keep-codec");
    let path = dir.join("g.jsonl.gz");
    std::fs::write(&path, write_all(&all[..2])).unwrap();
    let mut w = Writer::append_with_codec(&path, &header(), Codec::Zstd).unwrap();
    assert_eq!(w.codec(), Codec::Gzip);
    w.write(&all[2]).unwrap();
    w.finish().unwrap();
    assert_eq!(
        read_back(&std::fs::read(&path).unwrap()).unwrap().0,
        all[..3].to_vec()
    );
    assert_eq!(Codec::for_path("m.jsonl.zst"), Codec::Zstd);
    assert_eq!(Codec::for_path("m.jsonl.gz"), Codec::Gzip);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the repair did is reported.
#[test]
fn append_reports_the_repair() {
    let dir = temp_dir("report");
    let path = dir.join("r.jsonl.gz");
    let all = sample();
    let first = write_all(&all[..2]);
    let mut w = Writer::new(Vec::new(), &header()).unwrap();
    w.write(&all[2]).unwrap();
    w.write(&all[3]).unwrap();
    let mut crashed = first.clone();
    crashed.extend(w.crash().unwrap());
    std::fs::write(&path, &crashed).unwrap();
    let w = Writer::append(&path, &header()).unwrap();
    assert_eq!(
        w.repair(),
        Some(Repair {
            at: first.len() as u64,
            len: crashed.len() as u64,
            lines_kept: 3,
            bytes_dropped: 0,
        })
    );
    w.finish().unwrap();
    // A cut last line: dropped, its bytes counted.
    let mut text = all[0].to_line().into_bytes();
    text.extend(b"\n{\"t\":12");
    let mut member = gz(&text);
    member.truncate(member.len() - 8);
    let mut cut = first.clone();
    cut.extend(&member);
    std::fs::write(&path, &cut).unwrap();
    let w = Writer::append(&path, &header()).unwrap();
    let rep = w.repair().unwrap();
    assert_eq!((rep.lines_kept, rep.bytes_dropped), (1, 7));
    drop(w);
    // A finished file: nothing to mend.
    let w = Writer::append(&path, &header()).unwrap();
    assert_eq!(w.repair(), None);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file that is not a recording is not cut (before, a repair emptied it).
#[test]
fn append_refuses_other_files_and_leaves_them_alone() {
    let dir = temp_dir("other");
    let path = dir.join("notes.jsonl");
    for (bytes, says) in [
        (
            head_line(),
            "not appending to it: it is not gzip: the file is plain JSON lines",
        ),
        (
            b"my notes\n".to_vec(),
            "not appending to it: it is not gzip: the file is plain text",
        ),
        (
            gz(b"{\"a\":1}\n"),
            "not appending to it: its first line is not a digifinex-market header",
        ),
    ] {
        std::fs::write(&path, &bytes).unwrap();
        let e = Writer::append(&path, &header()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().starts_with(says), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The issue's repair of a damaged member that inflates to gigabytes of short lines: the
/// one pass stops at the cap on skipped lines, the file untouched.
#[test]
fn append_to_a_damaged_bomb_stops_at_a_cap() {
    let dir = temp_dir("bomb");
    let path = dir.join("bomb.jsonl.gz");
    let mut file = write_all(&sample()[..2]);
    file.extend(bomb(b"", b"x\n", 1_600_000_000));
    std::fs::write(&path, &file).unwrap();
    let e = Writer::append(&path, &header()).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert!(
        e.to_string().starts_with(
            "not appending to it: line 1000006: reading stopped at the cap on skipped lines"
        ),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), file);
    // Records at one instant past the cap: skipped lines as well.
    let mut unit = sample()[0].to_line().into_bytes();
    unit.push(b'\n');
    let mut file = write_all(&sample()[..2]);
    file.extend(bomb(b"", &unit, 3_400_000));
    std::fs::write(&path, &file).unwrap();
    let e = Writer::append(&path, &header()).unwrap_err();
    assert!(e.to_string().contains("the cap on skipped lines"), "{e}");
    // A damaged member with more complete lines than a repair writes again.
    let mut unit = sample()[1].to_line().into_bytes();
    unit.push(b'\n');
    let mut file = write_all(&sample()[..2]);
    let damaged_at = file.len();
    let limits = Limits {
        per_instant: u64::MAX,
        ..Limits::default()
    };
    let times = (REPAIR_MAX / unit.len() + 10) as u64;
    file.extend(bomb(b"", &unit, times));
    std::fs::write(&path, &file).unwrap();
    let e = Writer::append_with_limits(&path, &header(), limits).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "not appending to it: its gzip member at byte {damaged_at} is unfinished or \
             damaged and holds more than {REPAIR_MAX} bytes"
        )),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), file);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn depth_and_trades_lines_decode_alike_on_the_fast_and_the_general_path() {
    // Written by the writer: the fast path; the same lines with an escaped character in a
    // name (the fast path borrows its strings and leaves them to the general path), or with
    // the fields in another order: the same records.
    let lines = [
        (
            r#"{"t":5,"kind":"spot_depth","symbol":"btc_usdt","snapshot":false,"bids":[["1.5","2"]],"asks":[],"ts":4}"#,
            r#"{"t":5,"kind":"spot_depth","symbol":"btc\u005fusdt","snapshot":false,"bids":[["1.5","2"]],"asks":[],"ts":4}"#,
        ),
        (
            r#"{"t":6,"kind":"swap_depth","instrument":"BTCUSDTPERP","snapshot":true,"bids":[],"asks":[["30000","1"]]}"#,
            r#"{"asks":[["30000","1"]],"bids":[],"snapshot":true,"instrument":"BTCUSDTPER\u0050","kind":"swap_depth","t":6}"#,
        ),
        (
            r#"{"t":7,"kind":"spot_trades","symbol":"btc_usdt","trades":[{"id":"9","time":7,"price":"1","qty":"2","side":"buy"}]}"#,
            r#"{"t":7,"kind":"spot_trades","symbol":"btc\u005fusdt","trades":[{"id":"9","time":7,"price":"1","qty":"2","side":"buy"}]}"#,
        ),
        (
            r#"{"t":8,"kind":"swap_trades","instrument":"BTCUSDTPERP","trades":[{"id":"1","time":8,"price":"3","qty":"4","side":"sell","direction":2}]}"#,
            r#"{"kind":"swap_trades","t":8,"instrument":"BTCUSDTPER\u0050","trades":[{"id":"1","time":8,"price":"3","qty":"4","side":"sell","direction":2}]}"#,
        ),
    ];
    for (fast, general) in lines {
        assert!(fast_record(fast).is_some(), "{fast}");
        assert!(fast_record(general).is_none(), "{general}");
        let (Ok(Line::Record(a)), Ok(Line::Record(b))) = (parse_line(fast), parse_line(general))
        else {
            panic!("{fast} / {general}")
        };
        assert_eq!(a, b);
    }
    // A bad decimal is the same error on both paths.
    let bad = r#"{"t":5,"kind":"spot_depth","symbol":"x","snapshot":false,"bids":[["1.5","+2"]],"asks":[]}"#;
    let escaped = r#"{"t":5,"kind":"spot_depth","symbol":"\u0078","snapshot":false,"bids":[["1.5","+2"]],"asks":[]}"#;
    let (Err(a), Err(b)) = (parse_line(bad), parse_line(escaped)) else {
        panic!("a bad decimal decoded")
    };
    assert_eq!(a, b);
}

#[test]
fn decimal_text_is_the_normalized_display() {
    use crate::json::{fmt_dec, push_dec};
    let expect = |d: Decimal| {
        let n = d.normalize();
        if n.is_zero() {
            "0".to_owned()
        } else {
            n.to_string()
        }
    };
    let mut cases = vec![
        Decimal::ZERO,
        Decimal::new(0, 8),
        Decimal::new(-0, 3),
        Decimal::new(15, 1),
        Decimal::new(150, 2),
        Decimal::new(-150, 2),
        Decimal::new(1, 28),
        Decimal::new(-1, 28),
        Decimal::new(5, 1),
        Decimal::new(123_456, 3),
        Decimal::new(100, 0),
        Decimal::new(1_000_000, 6),
        Decimal::MAX,
        Decimal::MIN,
        Decimal::from_i128_with_scale(u64::MAX as i128 + 1, 10),
        Decimal::from_i128_with_scale(79_228_162_514_264_337_593_543_950_335, 28),
        Decimal::from_i128_with_scale(-(u64::MAX as i128) * 10, 5),
    ];
    // Mantissas of every size and every scale (splitmix64).
    let mut state = 3u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in 0..20_000u32 {
        let bits = 1 + i % 96;
        let wide = (u128::from(next()) << 64 | u128::from(next())) >> (128 - bits);
        let zeros = 10u128.pow(next() as u32 % 6);
        let m = (wide.saturating_mul(zeros) & ((1u128 << 96) - 1)) as i128;
        let m = if next() % 2 == 0 { m } else { -m };
        cases.push(Decimal::from_i128_with_scale(m, (next() % 29) as u32));
    }
    for d in cases {
        let mut s = String::from("x");
        push_dec(&mut s, d);
        assert_eq!(&s[1..], expect(d), "{d:?}");
        assert_eq!(fmt_dec(d), expect(d));
    }
}
