//! `--dataset`: a dataset built from two recordings (many small files: the target size is tiny
//! here), its manifest, files and values read back exactly; the same recording exported again
//! changes nothing; directories that are not ours, newer or locked are refused untouched.

use arrow_array::{Array, Decimal128Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use digifinex_export::dataset::{export_dir, Options, LOCK, MANIFEST};
use digifinex_market::decimal::parse_dec;
use digifinex_market::{Data, Family, Header, MarketId, Record, Side, Trade, Writer};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// 2024-02-01 23:00:00 UTC.
const T0: i64 = 1_706_828_400_000;
const HOUR: i64 = 3_600_000;

fn dir(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("dfx-dataset-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// `n` trades of each of two spot pairs, one a millisecond from `start`, ids from `first`,
/// quantities `0.001 × k` (k = 1, 2, ...), a book snapshot and funding, and a reconnect.
fn recording(path: &Path, start: i64, first: u64, n: u64) {
    let mut w = Writer::create(path, &Header::default()).unwrap();
    let spot = MarketId::Spot("btc_usdt".into());
    w.write_depth(
        start,
        &spot,
        true,
        &[(parse_dec("100.5").unwrap(), parse_dec("2").unwrap())],
        &[(parse_dec("100.75").unwrap(), parse_dec("1e-07").unwrap())],
        None,
    )
    .unwrap();
    for k in 0..n {
        for symbol in ["btc_usdt", "eth_usdt"] {
            let t = start + i64::try_from(k).unwrap() * (2 * HOUR / i64::try_from(n).unwrap());
            w.write(&Record {
                t,
                data: Data::SpotTrades {
                    symbol: symbol.into(),
                    trades: vec![Trade {
                        id: (first + k).to_string(),
                        time_ms: t / 1000 * 1000,
                        price: parse_dec("0.4995").unwrap(),
                        qty: rust_decimal::Decimal::new(i64::try_from(k + 1).unwrap(), 3),
                        side: Side::Buy,
                        direction: None,
                    }],
                },
            })
            .unwrap();
        }
    }
    w.write(&Record {
        t: start + 5,
        data: Data::Funding {
            instrument: "BTCUSDTPERP".into(),
            rate: parse_dec("0.0001").unwrap(),
            next_time: start + 8 * HOUR,
            next_rate: None,
            last_rate: None,
        },
    })
    .unwrap();
    w.write_reconnect(start + 6, Family::Swap, Some(1), Some(start), None, &[])
        .unwrap();
    w.finish().unwrap();
}

/// Every file under `root`: its bytes and modification time.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
            } else {
                let m = e.metadata().unwrap().modified().unwrap();
                out.insert(e.path(), (std::fs::read(e.path()).unwrap(), m));
            }
        }
    }
    out
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

fn manifest(root: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(root.join(MANIFEST)).unwrap()).unwrap()
}

const SMALL: Options = Options {
    file_bytes: 4096,
    memory_bytes: 1 << 20,
};

#[test]
fn two_recordings_one_dataset_and_a_repeat_changes_nothing() {
    let dir = dir("two");
    let a = dir.join("a.jsonl.gz");
    let b = dir.join("b.jsonl.gz");
    recording(&a, T0, 1, 3000);
    recording(&b, T0 + 2 * HOUR, 10_000, 1000);
    let ds = dir.join("ds");

    let first = export_dir(std::slice::from_ref(&a), &ds, &SMALL).unwrap();
    assert_eq!(first.len(), 1);
    assert!(!first[0].already);
    assert_eq!(first[0].summary.records, 6003);
    let after_a = snapshot(&ds);
    let m = manifest(&ds);
    assert_eq!(m["format"], "digifinex-dataset");
    assert_eq!(m["version"], 1);
    assert_eq!(m["decimal"], "DECIMAL(38, 18)");
    assert_eq!(m["time"], "TIMESTAMP(MICROS, UTC)");
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
    let input = &m["inputs"][0];
    assert_eq!(input["name"], "a.jsonl.gz");
    assert_eq!(input["sha256"], first[0].sha256.as_str());
    assert_eq!(input["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(input["bytes"], std::fs::metadata(&a).unwrap().len());
    assert_eq!(input["records"], 6003);
    // 6000 trades, 2 book levels, funding, the reconnect marker.
    assert_eq!(input["rows"], 6004);

    let files = m["files"].as_array().unwrap();
    assert_eq!(input["files"], files.len());
    // The target size is tiny: the two trade partitions of each day have several files.
    let trade_files: Vec<&serde_json::Value> =
        files.iter().filter(|f| f["table"] == "trades").collect();
    assert!(trade_files.len() > 8, "{}", trade_files.len());
    let on_disk: Vec<String> = after_a
        .keys()
        .map(|p| p.strip_prefix(&ds).unwrap().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".parquet"))
        .collect();
    let mut listed: Vec<String> = files
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    listed.sort();
    assert_eq!(on_disk, listed, "the files are exactly the manifest's");
    assert!(after_a.keys().all(|p| !p.ends_with(LOCK)));
    let hash16 = &first[0].sha256[..16];
    let f0 = files
        .iter()
        .find(|f| f["table"] == "funding")
        .expect("a funding file");
    assert_eq!(
        f0["path"],
        format!("table=funding/family=swap/market=BTCUSDTPERP/date=2024-02-01/part-{hash16}-0000.parquet")
    );
    assert_eq!(f0["rows"], 1);
    assert_eq!(f0["min_time"], "2024-02-01T23:00:00.005000Z");
    assert_eq!(f0["max_time"], "2024-02-01T23:00:00.005000Z");
    let marker = files.iter().find(|f| f["table"] == "markers").unwrap();
    assert_eq!(marker["market"], "_all");
    assert_eq!(marker["family"], "swap");
    // Recording A spans 23:00 to 01:00: trades on both days.
    let days: std::collections::BTreeSet<&str> = trade_files
        .iter()
        .map(|f| f["date"].as_str().unwrap())
        .collect();
    assert_eq!(
        days.into_iter().collect::<Vec<_>>(),
        ["2024-02-01", "2024-02-02"]
    );

    // The next recording adds files and leaves every file of the first as it was.
    let second = export_dir(std::slice::from_ref(&b), &ds, &SMALL).unwrap();
    assert!(!second[0].already);
    let after_b = snapshot(&ds);
    for (path, content) in &after_a {
        if !path.ends_with(MANIFEST) {
            assert_eq!(after_b.get(path), Some(content), "{}", path.display());
        }
    }
    let m = manifest(&ds);
    assert_eq!(m["inputs"].as_array().unwrap().len(), 2);
    let files = m["files"].as_array().unwrap();
    assert_eq!(
        after_b
            .keys()
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .count(),
        files.len()
    );

    // Every trade file of both recordings: one schema, exact values, the exact sum.
    let mut schema = None;
    let mut sum: i128 = 0;
    let mut rows = 0u64;
    let mut prices = std::collections::BTreeSet::new();
    for f in files.iter().filter(|f| f["table"] == "trades") {
        let path = ds.join(f["path"].as_str().unwrap());
        let mut n = 0u64;
        for b in batches(&path) {
            if let Some(s) = &schema {
                assert_eq!(s, b.schema().as_ref(), "{}", path.display());
            } else {
                schema = Some(b.schema().as_ref().clone());
            }
            let qty = b
                .column_by_name("qty")
                .unwrap()
                .as_any()
                .downcast_ref::<Decimal128Array>()
                .unwrap();
            assert_eq!(qty.data_type(), &DataType::Decimal128(38, 18));
            let price = b
                .column_by_name("price")
                .unwrap()
                .as_any()
                .downcast_ref::<Decimal128Array>()
                .unwrap();
            for i in 0..b.num_rows() {
                sum += qty.value(i);
                prices.insert(price.value_as_string(i));
            }
            assert!(b.column_by_name("market").is_none());
            let ids = b
                .column_by_name("id")
                .unwrap()
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap();
            assert!(ids.len() == b.num_rows());
            n += u64::try_from(b.num_rows()).unwrap();
        }
        assert_eq!(f["rows"], n);
        rows += n;
    }
    assert_eq!(rows, 2 * 3000 + 2 * 1000);
    // Sum of 0.001 × k for k = 1..=3000 and 1..=1000, for each of two pairs, at scale 18.
    let exact = 2 * (3000 * 3001 / 2 + 1000 * 1001 / 2) * 1_000_000_000_000_000i128;
    assert_eq!(sum, exact);
    assert_eq!(
        prices.into_iter().collect::<Vec<_>>(),
        ["0.499500000000000000"]
    );

    // The first recording again (alone, or beside the second): nothing changes at all.
    for inputs in [vec![a.clone()], vec![b.clone(), a.clone()]] {
        let again = export_dir(&inputs, &ds, &SMALL).unwrap();
        assert!(again.iter().all(|e| e.already));
        assert_eq!(snapshot(&ds), after_b);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn foreign_newer_and_locked_directories_are_refused_untouched() {
    let dir = dir("refuse");
    let a = dir.join("a.jsonl.gz");
    recording(&a, T0, 1, 10);
    let inputs = [a.clone()];

    // Not empty, no manifest.
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let before = snapshot(&foreign);
    let e = export_dir(&inputs, &foreign, &SMALL).unwrap_err();
    assert!(
        e.to_string().contains("not a dataset: it holds notes.txt"),
        "{e}"
    );
    assert_eq!(snapshot(&foreign), before);

    // A manifest of a newer version.
    let ds = dir.join("ds");
    export_dir(&inputs, &ds, &SMALL).unwrap();
    let mut m = manifest(&ds);
    m["version"] = 2.into();
    m["inputs"] = serde_json::json!([]);
    std::fs::write(ds.join(MANIFEST), serde_json::to_vec(&m).unwrap()).unwrap();
    let before = snapshot(&ds);
    let e = export_dir(&inputs, &ds, &SMALL).unwrap_err();
    assert!(
        matches!(e, digifinex_export::Error::Dataset { .. }),
        "{e:?}"
    );
    assert!(
        e.to_string().ends_with(
            "written by a newer version (dataset format version 2; this version writes \
             version 1): refusing to change it"
        ),
        "{e}"
    );
    assert_eq!(snapshot(&ds), before);

    // Locked by another export.
    let ds2 = dir.join("ds2");
    std::fs::create_dir_all(&ds2).unwrap();
    std::fs::write(ds2.join(LOCK), "other").unwrap();
    let before = snapshot(&ds2);
    let e = export_dir(&inputs, &ds2, &SMALL).unwrap_err();
    assert!(e.to_string().contains("_lock exists"), "{e}");
    assert_eq!(snapshot(&ds2), before);
    std::fs::remove_dir_all(&dir).unwrap();
}
