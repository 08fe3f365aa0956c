//! `digifinex market export` from the command line: the tables it writes and what it says on
//! stderr, a damaged recording (exit 0, what was skipped), one that gives nothing (exit 1) and a
//! file that is not a recording (exit 1); `--format tardis` (file names, Tardis.dev's headers,
//! every row, gzip) and `--dataset` (partition paths, the manifest, a repeat that changes
//! nothing, a second recording that only adds files, a newer version's dataset refused).
#![cfg(feature = "export")]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use digifinex_market::{Header, MarketId, Writer};
use digifinex_sim::num::parse_dec;

fn export(file: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .arg("market")
        .arg("export")
        .arg(file)
        .args(["--format", "csv", "--out"])
        .arg(out)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("run digifinex market export")
}

fn dir(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("dfx-cli-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// A recording of two depth frames, and the length of its header.
fn recording() -> (Vec<u8>, usize) {
    let d = |s: &str| parse_dec(s).unwrap();
    let spot = MarketId::Spot("btc_usdt".into());
    let mut w = Writer::new(Vec::new(), &Header::default()).unwrap();
    let start = usize::try_from(w.bytes()).unwrap();
    w.write_depth(
        1_000,
        &spot,
        true,
        &[(d("1.5"), d("2"))],
        &[(d("1.6"), d("3"))],
        None,
    )
    .unwrap();
    let first = usize::try_from(w.bytes()).unwrap();
    w.write_depth(1_001, &spot, false, &[(d("1.5"), d("0"))], &[], None)
        .unwrap();
    assert!(start < first);
    (w.finish().unwrap(), start)
}

#[test]
fn exports_tables_and_reports_a_damaged_recording() {
    let dir = dir("ok");
    let (bytes, _) = recording();
    let file = dir.join("m.jsonl.gz");
    std::fs::write(&file, &bytes).unwrap();
    let out = dir.join("out");
    let o = export(&file, &out, &["--top", "1"]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(o.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(out.join("book_top.csv")).unwrap(),
        "time,seq,family,market,update,bid_price_1,bid_qty_1,ask_price_1,ask_qty_1\n\
         1970-01-01T00:00:01.000000Z,0,spot,btc_usdt,snapshot,1.5,2,1.6,3\n\
         1970-01-01T00:00:01.001000Z,1,spot,btc_usdt,delta,,,1.6,3\n"
    );
    assert!(
        err.ends_with(&format!("exported 2 record(s) from {}\n", file.display())),
        "{err}"
    );

    // A bad line, then a crash: the intact record is exported, the rest reported.
    let mut text = bytes.clone();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(b"{\"t\":5,\"kind\":\"index\",\"instrument\":\"X\"}\n{\"t\":6,\"ki")
        .unwrap();
    enc.flush().unwrap();
    text.extend(enc.get_ref());
    std::fs::write(&file, &text).unwrap();
    let o = export(&file, &out, &[]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "exported 2 record(s) from {}; skipped 1 bad line(s), the rest of the file from a \
             cut line or an unfinished or damaged gzip member\n  line 4: missing field `index`",
            file.display()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn nothing_exported_from_a_damaged_recording_or_a_non_recording_is_exit_1() {
    let dir = dir("bad");
    let (bytes, header) = recording();
    // Cut inside the first record: only the header is intact.
    let file = dir.join("cut.jsonl.gz");
    std::fs::write(&file, &bytes[..header + 4]).unwrap();
    let o = export(&file, &dir.join("out"), &[]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error: nothing could be exported"), "{err}");

    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "hello\n").unwrap();
    let o = export(&junk, &dir.join("out"), &[]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: "), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- --format tardis ----

/// A version 2 recording as the recorder writes it (JSON lines, gzipped): a spot book and
/// trades across UTC midnight (2024-02-01 23:59:59 to 2024-02-02 00:00:00), a repeated trade
/// id, a swap book with the venue's time, a swap trade and funding.
const TARDIS_RECORDING: &str = r#"{"format":"digifinex-market","version":2,"created_ms":1706831990000,"source":"cli test"}
{"t":1706831999100,"kind":"spot_depth","symbol":"btc_usdt","snapshot":true,"bids":[["100.5","2"],["100.25","0.125"]],"asks":[["100.75","1.50"]]}
{"t":1706831999200,"kind":"spot_depth","symbol":"btc_usdt","snapshot":false,"bids":[["100.5","0"]],"asks":[["100.8","3"]]}
{"t":1706831999300,"kind":"spot_trades","symbol":"btc_usdt","trades":[{"id":"7","time":1706831999000,"price":"100.75","qty":"0.5","side":"buy"}]}
{"t":1706831999400,"kind":"swap_depth","instrument":"BTCUSDTPERP","snapshot":true,"bids":[["50000","10"]],"asks":[["50000.5","4"]],"ts":1706831999390}
{"t":1706831999500,"kind":"swap_trades","instrument":"BTCUSDTPERP","trades":[{"id":"70","time":1706831999450,"price":"50000.5","qty":"4","side":"buy","direction":1}]}
{"t":1706831999600,"kind":"funding","instrument":"BTCUSDTPERP","rate":"0.0001","next_time":1706860800000,"next_rate":"-3e-05"}
{"t":1706832000100,"kind":"spot_trades","symbol":"btc_usdt","trades":[{"id":"8","time":1706832000000,"price":"100.5","qty":"1.25","side":"sell"},{"id":"7","time":1706831999000,"price":"100.75","qty":"0.5","side":"buy"}]}
{"t":1706832000200,"kind":"spot_depth","symbol":"btc_usdt","snapshot":false,"bids":[["100.4","1"]],"asks":[]}
"#;

fn gzip(text: &str) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap()
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(["market", "export"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run digifinex market export")
}

/// Tardis's header of `book_snapshot_N`: the four common columns, then per level
/// `asks[i].price,asks[i].amount,bids[i].price,bids[i].amount`.
fn snapshot_header(n: usize) -> String {
    let mut h = String::from("exchange,symbol,timestamp,local_timestamp");
    for i in 0..n {
        h.push_str(&format!(
            ",asks[{i}].price,asks[{i}].amount,bids[{i}].price,bids[{i}].amount"
        ));
    }
    h
}

/// A `book_snapshot_N` row: `row` padded with empty cells to its 4 + 4 N columns.
fn snapshot_row(row: &str, n: usize) -> String {
    let cells = row.split(',').count();
    format!("{row}{}", ",".repeat(4 + 4 * n - cells))
}

#[test]
fn tardis_files_names_headers_and_rows() {
    let dir = dir("tardis");
    let file = dir.join("m.jsonl.gz");
    std::fs::write(&file, gzip(TARDIS_RECORDING)).unwrap();
    let out = dir.join("t");
    let o = run(&[
        file.as_os_str(),
        "--format".as_ref(),
        "tardis".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(o.stdout.is_empty());
    assert!(
        err.ends_with(&format!(
            "exported 8 record(s) from {}\n1 repeated trade(s) (same id) written once\n",
            file.display()
        )),
        "{err}"
    );

    // Every file: gzip (one member here), its text.
    let mut files = std::collections::BTreeMap::new();
    for e in std::fs::read_dir(&out).unwrap() {
        let e = e.unwrap();
        let bytes = std::fs::read(e.path()).unwrap();
        assert_eq!(bytes[..3], [0x1f, 0x8b, 8], "{:?} is not gzip", e.path());
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        files.insert(e.file_name().into_string().unwrap(), text);
    }
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "digifinex-swap_book_snapshot_25_2024-02-01_BTCUSDTPERP.csv.gz",
            "digifinex-swap_book_snapshot_5_2024-02-01_BTCUSDTPERP.csv.gz",
            "digifinex-swap_derivative_ticker_2024-02-01_BTCUSDTPERP.csv.gz",
            "digifinex-swap_incremental_book_L2_2024-02-01_BTCUSDTPERP.csv.gz",
            "digifinex-swap_quotes_2024-02-01_BTCUSDTPERP.csv.gz",
            "digifinex-swap_trades_2024-02-01_BTCUSDTPERP.csv.gz",
            "digifinex_book_snapshot_25_2024-02-01_BTC_USDT.csv.gz",
            "digifinex_book_snapshot_25_2024-02-02_BTC_USDT.csv.gz",
            "digifinex_book_snapshot_5_2024-02-01_BTC_USDT.csv.gz",
            "digifinex_book_snapshot_5_2024-02-02_BTC_USDT.csv.gz",
            "digifinex_incremental_book_L2_2024-02-01_BTC_USDT.csv.gz",
            "digifinex_incremental_book_L2_2024-02-02_BTC_USDT.csv.gz",
            "digifinex_quotes_2024-02-01_BTC_USDT.csv.gz",
            "digifinex_quotes_2024-02-02_BTC_USDT.csv.gz",
            "digifinex_trades_2024-02-01_BTC_USDT.csv.gz",
            "digifinex_trades_2024-02-02_BTC_USDT.csv.gz",
        ]
    );

    // Tardis.dev's columns, in its order.
    const TRADES: &str = "exchange,symbol,timestamp,local_timestamp,id,side,price,amount\n";
    const BOOK: &str = "exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount\n";
    const QUOTES: &str =
        "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n";
    const DERIVATIVE: &str = "exchange,symbol,timestamp,local_timestamp,funding_timestamp,\
        funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price\n";
    assert_eq!(
        snapshot_header(5),
        "exchange,symbol,timestamp,local_timestamp,\
         asks[0].price,asks[0].amount,bids[0].price,bids[0].amount,\
         asks[1].price,asks[1].amount,bids[1].price,bids[1].amount,\
         asks[2].price,asks[2].amount,bids[2].price,bids[2].amount,\
         asks[3].price,asks[3].amount,bids[3].price,bids[3].amount,\
         asks[4].price,asks[4].amount,bids[4].price,bids[4].amount"
    );
    let f = |name: &str| files[name].as_str();

    // Spot: the venue's depth frames carry no time, so `timestamp` is the receive time; a
    // trade's `timestamp` is its venue time. The trade repeated after midnight is written once.
    assert_eq!(
        f("digifinex_trades_2024-02-01_BTC_USDT.csv.gz"),
        format!("{TRADES}digifinex,BTC_USDT,1706831999000000,1706831999300000,7,buy,100.75,0.5\n")
    );
    assert_eq!(
        f("digifinex_trades_2024-02-02_BTC_USDT.csv.gz"),
        format!("{TRADES}digifinex,BTC_USDT,1706832000000000,1706832000100000,8,sell,100.5,1.25\n")
    );
    assert_eq!(
        f("digifinex_incremental_book_L2_2024-02-01_BTC_USDT.csv.gz"),
        format!(
            "{BOOK}\
             digifinex,BTC_USDT,1706831999100000,1706831999100000,true,bid,100.5,2\n\
             digifinex,BTC_USDT,1706831999100000,1706831999100000,true,bid,100.25,0.125\n\
             digifinex,BTC_USDT,1706831999100000,1706831999100000,true,ask,100.75,1.5\n\
             digifinex,BTC_USDT,1706831999200000,1706831999200000,false,bid,100.5,0\n\
             digifinex,BTC_USDT,1706831999200000,1706831999200000,false,ask,100.8,3\n"
        )
    );
    // A new day's file starts with the whole book as a snapshot (after its first frame).
    assert_eq!(
        f("digifinex_incremental_book_L2_2024-02-02_BTC_USDT.csv.gz"),
        format!(
            "{BOOK}\
             digifinex,BTC_USDT,1706832000200000,1706832000200000,true,bid,100.4,1\n\
             digifinex,BTC_USDT,1706832000200000,1706832000200000,true,bid,100.25,0.125\n\
             digifinex,BTC_USDT,1706832000200000,1706832000200000,true,ask,100.75,1.5\n\
             digifinex,BTC_USDT,1706832000200000,1706832000200000,true,ask,100.8,3\n"
        )
    );
    assert_eq!(
        f("digifinex_quotes_2024-02-01_BTC_USDT.csv.gz"),
        format!(
            "{QUOTES}\
             digifinex,BTC_USDT,1706831999100000,1706831999100000,1.5,100.75,100.5,2\n\
             digifinex,BTC_USDT,1706831999200000,1706831999200000,1.5,100.75,100.25,0.125\n"
        )
    );
    assert_eq!(
        f("digifinex_quotes_2024-02-02_BTC_USDT.csv.gz"),
        format!(
            "{QUOTES}digifinex,BTC_USDT,1706832000200000,1706832000200000,1.5,100.75,100.4,1\n"
        )
    );
    for n in [5, 25] {
        assert_eq!(
            f(&format!(
                "digifinex_book_snapshot_{n}_2024-02-01_BTC_USDT.csv.gz"
            )),
            format!(
                "{}\n{}\n{}\n",
                snapshot_header(n),
                snapshot_row(
                    "digifinex,BTC_USDT,1706831999100000,1706831999100000,\
                     100.75,1.5,100.5,2,,,100.25,0.125",
                    n
                ),
                snapshot_row(
                    "digifinex,BTC_USDT,1706831999200000,1706831999200000,\
                     100.75,1.5,100.25,0.125,100.8,3",
                    n
                ),
            )
        );
        assert_eq!(
            f(&format!(
                "digifinex_book_snapshot_{n}_2024-02-02_BTC_USDT.csv.gz"
            )),
            format!(
                "{}\n{}\n",
                snapshot_header(n),
                snapshot_row(
                    "digifinex,BTC_USDT,1706832000200000,1706832000200000,\
                     100.75,1.5,100.4,1,100.8,3,100.25,0.125",
                    n
                ),
            )
        );
        assert_eq!(
            f(&format!(
                "digifinex-swap_book_snapshot_{n}_2024-02-01_BTCUSDTPERP.csv.gz"
            )),
            format!(
                "{}\n{}\n",
                snapshot_header(n),
                snapshot_row(
                    "digifinex-swap,BTCUSDTPERP,1706831999390000,1706831999400000,\
                     50000.5,4,50000,10",
                    n
                ),
            )
        );
    }

    // Swap: depth frames carry the venue's time (`ts`).
    assert_eq!(
        f("digifinex-swap_incremental_book_L2_2024-02-01_BTCUSDTPERP.csv.gz"),
        format!(
            "{BOOK}\
             digifinex-swap,BTCUSDTPERP,1706831999390000,1706831999400000,true,bid,50000,10\n\
             digifinex-swap,BTCUSDTPERP,1706831999390000,1706831999400000,true,ask,50000.5,4\n"
        )
    );
    assert_eq!(
        f("digifinex-swap_quotes_2024-02-01_BTCUSDTPERP.csv.gz"),
        format!(
            "{QUOTES}digifinex-swap,BTCUSDTPERP,1706831999390000,1706831999400000,4,50000.5,50000,10\n"
        )
    );
    assert_eq!(
        f("digifinex-swap_trades_2024-02-01_BTCUSDTPERP.csv.gz"),
        format!(
            "{TRADES}digifinex-swap,BTCUSDTPERP,1706831999450000,1706831999500000,70,buy,50000.5,4\n"
        )
    );
    // Funding: the next settlement's time and rate, the venue's forecast (`-3e-05` as plain
    // text); open interest, last, index and mark not (yet) recorded: empty.
    assert_eq!(
        f("digifinex-swap_derivative_ticker_2024-02-01_BTCUSDTPERP.csv.gz"),
        format!(
            "{DERIVATIVE}digifinex-swap,BTCUSDTPERP,1706831999600000,1706831999600000,\
             1706860800000000,0.0001,-0.00003,,,,\n"
        )
    );

    // --top and --float do not apply.
    let o = run(&[
        file.as_os_str(),
        "--format".as_ref(),
        "tardis".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        "--top".as_ref(),
        "5".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "error: --float and --top do not apply to --format tardis\n"
    );

    // --data-types: only the files of those types, with the same text.
    let some = dir.join("some");
    let o = run(&[
        file.as_os_str(),
        "--format".as_ref(),
        "tardis".as_ref(),
        "--out".as_ref(),
        some.as_os_str(),
        "--data-types".as_ref(),
        "trades,derivative_ticker".as_ref(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&some)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "digifinex-swap_derivative_ticker_2024-02-01_BTCUSDTPERP.csv.gz",
            "digifinex-swap_trades_2024-02-01_BTCUSDTPERP.csv.gz",
            "digifinex_trades_2024-02-01_BTC_USDT.csv.gz",
            "digifinex_trades_2024-02-02_BTC_USDT.csv.gz",
        ]
    );
    for n in &names {
        assert_eq!(
            std::fs::read(some.join(n)).unwrap(),
            std::fs::read(out.join(n)).unwrap(),
            "{n}"
        );
    }
    // An unknown name, and --data-types without --format tardis: usage errors.
    let o = run(&[
        file.as_os_str(),
        "--format".as_ref(),
        "tardis".as_ref(),
        "--out".as_ref(),
        some.as_os_str(),
        "--data-types".as_ref(),
        "trades,book_snapshot_10".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "error: --data-types: \"book_snapshot_10\" is not a data type (trades, \
         incremental_book_L2, book_snapshot_25, book_snapshot_5, quotes, derivative_ticker)\n"
    );
    let o = run(&[
        file.as_os_str(),
        "--format".as_ref(),
        "csv".as_ref(),
        "--out".as_ref(),
        some.as_os_str(),
        "--data-types".as_ref(),
        "trades".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "error: --data-types applies only to --format tardis\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- --dataset ----

/// A second recording, an hour later: a new pair's book and one more btc_usdt trade.
const LATER_RECORDING: &str = r#"{"format":"digifinex-market","version":2,"created_ms":1706835590000,"source":"cli test"}
{"t":1706835600000,"kind":"spot_depth","symbol":"eth_usdt","snapshot":true,"bids":[["2300.5","1.5"]],"asks":[["2301","0.25"]]}
{"t":1706835600100,"kind":"spot_trades","symbol":"btc_usdt","trades":[{"id":"9","time":1706835600000,"price":"100.6","qty":"0.001","side":"buy"}]}
"#;

/// SHA-256 of a file, hex.
fn sha256_hex(path: &Path) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(std::fs::read(path).unwrap()))
}

/// Every file under `dir`: its path relative to `dir`, its bytes and its modification time.
fn tree(dir: &Path) -> std::collections::BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
    fn walk(
        root: &Path,
        dir: &Path,
        out: &mut std::collections::BTreeMap<String, (Vec<u8>, std::time::SystemTime)>,
    ) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            if e.file_type().unwrap().is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_owned();
                let modified = e.metadata().unwrap().modified().unwrap();
                out.insert(rel, (std::fs::read(&path).unwrap(), modified));
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn manifest(ds: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(ds.join("_manifest.json")).unwrap()).unwrap()
}

/// A manifest's file entry without `bytes` (checked against the file itself).
fn entry(
    hash: &str,
    sha: &str,
    (table, family, market, date): (&str, &str, &str, &str),
    rows: u64,
    min: &str,
    max: &str,
) -> serde_json::Value {
    serde_json::json!({
        "path": format!(
            "table={table}/family={family}/market={market}/date={date}/part-{hash}-0000.parquet"
        ),
        "input": sha,
        "table": table,
        "family": family,
        "market": market,
        "date": date,
        "rows": rows,
        "min_time": min,
        "max_time": max,
    })
}

/// The manifest's `files` with `bytes` removed, after checking each against its file's size.
fn files_checked(ds: &Path, m: &serde_json::Value) -> Vec<serde_json::Value> {
    m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let mut f = f.clone();
            let bytes = f.as_object_mut().unwrap().remove("bytes").unwrap();
            let path = ds.join(f["path"].as_str().unwrap());
            assert_eq!(
                bytes.as_u64(),
                Some(std::fs::metadata(&path).unwrap().len()),
                "{path:?}"
            );
            f
        })
        .collect()
}

#[test]
fn dataset_partitions_manifest_repeats_additions_and_newer_versions() {
    let dir = dir("dataset");
    let a = dir.join("a.jsonl.gz");
    std::fs::write(&a, gzip(TARDIS_RECORDING)).unwrap();
    let b = dir.join("b.jsonl.gz");
    std::fs::write(&b, gzip(LATER_RECORDING)).unwrap();
    let ds = dir.join("ds");
    let add = |file: &Path| {
        run(&[
            file.as_os_str(),
            "--dataset".as_ref(),
            ds.as_os_str(),
            "--file-size".as_ref(),
            "1K".as_ref(),
        ])
    };
    let (sha_a, sha_b) = (sha256_hex(&a), sha256_hex(&b));
    let (ha, hb) = (&sha_a[..16], &sha_b[..16]);

    let o = add(&a);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        err,
        format!(
            "{a}: 7 file(s), 12 row(s) added to {ds}\nexported 8 record(s) from {a}\n\
             1 repeated trade(s) (same id) written once\n",
            a = a.display(),
            ds = ds.display()
        )
    );
    let first = tree(&ds);
    let part = |t: &str, f: &str, m: &str, d: &str, h: &str| {
        format!("table={t}/family={f}/market={m}/date={d}/part-{h}-0000.parquet")
    };
    let mut expected_paths = vec![
        "_manifest.json".to_owned(),
        part("book", "spot", "btc_usdt", "2024-02-01", ha),
        part("book", "spot", "btc_usdt", "2024-02-02", ha),
        part("book", "swap", "BTCUSDTPERP", "2024-02-01", ha),
        part("funding", "swap", "BTCUSDTPERP", "2024-02-01", ha),
        part("trades", "spot", "btc_usdt", "2024-02-01", ha),
        part("trades", "spot", "btc_usdt", "2024-02-02", ha),
        part("trades", "swap", "BTCUSDTPERP", "2024-02-01", ha),
    ];
    assert_eq!(first.keys().cloned().collect::<Vec<_>>(), expected_paths);
    for (path, (bytes, _)) in &first {
        if path.ends_with(".parquet") {
            assert_eq!(&bytes[..4], b"PAR1", "{path}");
            assert_eq!(&bytes[bytes.len() - 4..], b"PAR1", "{path}");
        }
    }

    let m = manifest(&ds);
    assert_eq!(m["format"], "digifinex-dataset");
    assert_eq!(m["version"], 1);
    assert_eq!(
        m["writer"],
        format!("digifinex-export {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(m["time"], "TIMESTAMP(MICROS, UTC)");
    assert_eq!(m["decimal"], "DECIMAL(38, 18)");
    assert_eq!(
        m["partitions"],
        serde_json::json!(["table", "family", "market", "date"])
    );
    assert_eq!(
        m["tables"]["trades"],
        serde_json::json!([
            ["time", "TIMESTAMP(MICROS, UTC)"],
            ["seq", "INT64"],
            ["id", "STRING"],
            ["trade_time", "TIMESTAMP(MICROS, UTC)"],
            ["price", "DECIMAL(38, 18)"],
            ["qty", "DECIMAL(38, 18)"],
            ["side", "STRING"],
            ["direction", "INT64"]
        ])
    );
    assert_eq!(
        m["tables"]["book"],
        serde_json::json!([
            ["time", "TIMESTAMP(MICROS, UTC)"],
            ["seq", "INT64"],
            ["update", "STRING"],
            ["side", "STRING"],
            ["level", "INT64"],
            ["price", "DECIMAL(38, 18)"],
            ["qty", "DECIMAL(38, 18)"]
        ])
    );
    let input_a = serde_json::json!({
        "name": "a.jsonl.gz",
        "sha256": sha_a,
        "bytes": std::fs::metadata(&a).unwrap().len(),
        "records": 8,
        "files": 7,
        "rows": 12,
    });
    assert_eq!(m["inputs"], serde_json::json!([input_a]));
    let files_a = vec![
        entry(
            ha,
            &sha_a,
            ("book", "spot", "btc_usdt", "2024-02-01"),
            5,
            "2024-02-01T23:59:59.100000Z",
            "2024-02-01T23:59:59.200000Z",
        ),
        entry(
            ha,
            &sha_a,
            ("book", "spot", "btc_usdt", "2024-02-02"),
            1,
            "2024-02-02T00:00:00.200000Z",
            "2024-02-02T00:00:00.200000Z",
        ),
        entry(
            ha,
            &sha_a,
            ("book", "swap", "BTCUSDTPERP", "2024-02-01"),
            2,
            "2024-02-01T23:59:59.400000Z",
            "2024-02-01T23:59:59.400000Z",
        ),
        entry(
            ha,
            &sha_a,
            ("trades", "spot", "btc_usdt", "2024-02-01"),
            1,
            "2024-02-01T23:59:59.300000Z",
            "2024-02-01T23:59:59.300000Z",
        ),
        entry(
            ha,
            &sha_a,
            ("trades", "spot", "btc_usdt", "2024-02-02"),
            1,
            "2024-02-02T00:00:00.100000Z",
            "2024-02-02T00:00:00.100000Z",
        ),
        entry(
            ha,
            &sha_a,
            ("trades", "swap", "BTCUSDTPERP", "2024-02-01"),
            1,
            "2024-02-01T23:59:59.500000Z",
            "2024-02-01T23:59:59.500000Z",
        ),
        entry(
            ha,
            &sha_a,
            ("funding", "swap", "BTCUSDTPERP", "2024-02-01"),
            1,
            "2024-02-01T23:59:59.600000Z",
            "2024-02-01T23:59:59.600000Z",
        ),
    ];
    assert_eq!(files_checked(&ds, &m), files_a);

    // The same recording again: nothing changes, not even a file's time.
    let o = add(&a);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        err,
        format!(
            "{}: already in {} (sha256 {sha_a}): nothing written\n",
            a.display(),
            ds.display()
        )
    );
    assert!(tree(&ds) == first, "a repeat changed the dataset");

    // The next recording adds its files; the old ones stay byte for byte, untouched.
    let o = add(&b);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.starts_with(&format!(
            "{}: 2 file(s), 3 row(s) added to {}\n",
            b.display(),
            ds.display()
        )),
        "{err}"
    );
    let second = tree(&ds);
    for (path, old) in &first {
        if path != "_manifest.json" {
            assert!(second.get(path) == Some(old), "{path} was rewritten");
        }
    }
    expected_paths.push(part("book", "spot", "eth_usdt", "2024-02-02", hb));
    expected_paths.push(part("trades", "spot", "btc_usdt", "2024-02-02", hb));
    expected_paths.sort();
    assert_eq!(second.keys().cloned().collect::<Vec<_>>(), expected_paths);
    let m = manifest(&ds);
    assert_eq!(
        m["inputs"],
        serde_json::json!([
            input_a,
            {
                "name": "b.jsonl.gz",
                "sha256": sha_b,
                "bytes": std::fs::metadata(&b).unwrap().len(),
                "records": 2,
                "files": 2,
                "rows": 3,
            }
        ])
    );
    let mut files_b = files_a.clone();
    files_b.push(entry(
        hb,
        &sha_b,
        ("book", "spot", "eth_usdt", "2024-02-02"),
        2,
        "2024-02-02T01:00:00.000000Z",
        "2024-02-02T01:00:00.000000Z",
    ));
    files_b.push(entry(
        hb,
        &sha_b,
        ("trades", "spot", "btc_usdt", "2024-02-02"),
        1,
        "2024-02-02T01:00:00.100000Z",
        "2024-02-02T01:00:00.100000Z",
    ));
    assert_eq!(files_checked(&ds, &m), files_b);

    // A dataset that a newer version wrote is refused, and left as it is.
    let mut newer = m.clone();
    newer["version"] = serde_json::json!(2);
    std::fs::write(
        ds.join("_manifest.json"),
        serde_json::to_string_pretty(&newer).unwrap(),
    )
    .unwrap();
    let before = tree(&ds);
    let c = dir.join("c.jsonl.gz");
    std::fs::write(&c, gzip(&LATER_RECORDING.replace("100.6", "100.7"))).unwrap();
    let o = add(&c);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!(
            "error: dataset {}: written by a newer version (dataset format version 2; this \
             version writes version 1): refusing to change it\n",
            ds.display()
        )
    );
    assert!(tree(&ds) == before, "a refused export changed the dataset");
    std::fs::remove_dir_all(&dir).unwrap();
}
