//! `--format tardis`: the files written for two hand-written recordings (`tests/data/`, see
//! `SOURCES.md`), byte for byte after gunzip; the same bytes when the buffers are small enough
//! to make several gzip members per file; damaged input.

use digifinex_export::tardis::{export, Options};
use flate2::read::MultiGzDecoder;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn dir(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("dfx-tardis-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text).unwrap();
    enc.finish().unwrap()
}

/// The recording `name.jsonl` gzipped into `dir`.
fn recording(dir: &Path, name: &str) -> PathBuf {
    let text = std::fs::read(data().join(format!("{name}.jsonl"))).unwrap();
    let path = dir.join(format!("{name}.jsonl.gz"));
    std::fs::write(&path, gzip(&text)).unwrap();
    path
}

/// Every file of `dir`: name and its gunzipped text, and the number of gzip members.
fn files(dir: &Path) -> BTreeMap<String, (String, usize)> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if !name.ends_with(".csv.gz") {
            continue;
        }
        let bytes = std::fs::read(e.path()).unwrap();
        let mut text = String::new();
        MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        // A member starts with the gzip magic and deflate method; count them by decoding
        // members one at a time.
        let mut members = 0;
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            let mut d = flate2::bufread::GzDecoder::new(rest);
            std::io::copy(&mut d, &mut std::io::sink()).unwrap();
            rest = d.into_inner();
            members += 1;
        }
        out.insert(name, (text, members));
    }
    out
}

/// The expected files of `name` (`tests/data/NAME/*.csv`, uncompressed); with
/// `UPDATE_TARDIS_EXPECTED=1` they are written from `actual` instead (read the diff).
fn expected(name: &str, actual: &BTreeMap<String, (String, usize)>) -> BTreeMap<String, String> {
    let dir = data().join(name);
    if std::env::var_os("UPDATE_TARDIS_EXPECTED").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (file, (text, _)) in actual {
            std::fs::write(dir.join(file.trim_end_matches(".gz")), text).unwrap();
        }
    }
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            (
                format!("{name}.gz"),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect()
}

fn texts(files: &BTreeMap<String, (String, usize)>) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(n, (t, _))| (n.clone(), t.clone()))
        .collect()
}

#[test]
fn a_websocket_recording_in_tardis_files() {
    let dir = dir("v2");
    let input = recording(&dir, "tardis-v2");
    let out = dir.join("out");
    let summary = export(&input, &out, &Options::default()).unwrap();
    let got = files(&out);
    assert_eq!(texts(&got), expected("tardis-v2", &got));
    // Small: one gzip member per file.
    assert!(got.values().all(|(_, members)| *members == 1));
    assert_eq!(summary.records, 23);
    assert_eq!(summary.bad_names, 1);
    assert_eq!(
        summary.messages,
        ["record 17 (spot_depth): market name \"../etc\" cannot be a file name (skipped)"]
    );
    // Before the first snapshot; after the resync; after the reconnect.
    assert_eq!(summary.dropped_deltas, 3);
    assert_eq!(summary.repeated_trades, 1);
    assert!(summary.damaged());
    let names: Vec<&str> = summary.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, got.keys().map(String::as_str).collect::<Vec<_>>());
    let rows = |n: &str| summary.tables.iter().find(|t| t.name == n).unwrap().rows;
    assert_eq!(rows("digifinex_trades_2024-02-01_BTC_USDT.csv.gz"), 3);
    assert_eq!(
        got["digifinex_trades_2024-02-01_BTC_USDT.csv.gz"]
            .0
            .lines()
            .count(),
        4
    );
    // No temporary file stays.
    let all: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(all.len(), got.len(), "{all:?}");

    // Several gzip members per file when the buffers are tiny: the same text.
    let small = dir.join("small");
    export(
        &input,
        &small,
        &Options {
            buffer_bytes: 100,
            ..Options::default()
        },
    )
    .unwrap();
    let members = files(&small);
    assert_eq!(texts(&members), texts(&got));
    assert!(
        members["digifinex_incremental_book_L2_2024-02-01_BTC_USDT.csv.gz"].1 > 2,
        "{members:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_rest_recording_in_tardis_files() {
    let dir = dir("v1");
    let input = recording(&dir, "tardis-v1");
    let out = dir.join("out");
    let summary = export(&input, &out, &Options::default()).unwrap();
    let got = files(&out);
    assert_eq!(texts(&got), expected("tardis-v1", &got));
    assert_eq!(summary.records, 9);
    assert_eq!(summary.repeated_trades, 1);
    assert!(!summary.damaged());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_and_foreign_input() {
    let dir = dir("bad");
    // A crash cut the last line: everything before it is exported.
    let mut text = std::fs::read(data().join("tardis-v1.jsonl")).unwrap();
    text.extend_from_slice(b"{\"t\":1706745603000,\"kind\":\"spot_bo");
    let input = dir.join("cut.jsonl.gz");
    std::fs::write(&input, gzip(&text)).unwrap();
    let summary = export(&input, &dir.join("out"), &Options::default()).unwrap();
    assert!(summary.truncated && summary.damaged());
    assert_eq!(summary.records, 9);
    // Not a recording: an error, and nothing created.
    let junk = dir.join("junk.gz");
    std::fs::write(&junk, b"not gzip").unwrap();
    let e = export(&junk, &dir.join("none"), &Options::default()).unwrap_err();
    assert!(matches!(e, digifinex_export::Error::Read(_)), "{e}");
    assert!(!dir.join("none").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn chosen_data_types_give_the_same_files_and_no_others() {
    use digifinex_export::tardis::{DataType, DataTypes};
    let dir = dir("types");
    let input = recording(&dir, "tardis-v2");
    let all = dir.join("all");
    let full = export(&input, &all, &Options::default()).unwrap();
    let types: DataTypes = "trades, incremental_book_L2".parse().unwrap();
    assert_eq!(
        types,
        DataTypes::only(&[DataType::Trades, DataType::IncrementalBookL2])
    );
    let some = dir.join("some");
    let opts = Options {
        data_types: types,
        ..Options::default()
    };
    let part = export(&input, &some, &opts).unwrap();
    let full_files = texts(&files(&all));
    let want: BTreeMap<String, String> = full_files
        .into_iter()
        .filter(|(n, _)| n.contains("_trades_") || n.contains("_incremental_book_L2_"))
        .collect();
    assert!(want.keys().any(|n| n.contains("_trades_")), "{want:?}");
    assert!(want.keys().any(|n| n.contains("_incremental_book_L2_")));
    assert_eq!(texts(&files(&some)), want);
    assert_eq!(part.records, full.records);
    assert_eq!(part.tables.len(), want.len());

    // Names are Tardis's, exactly; an empty list or an unknown name is refused.
    for bad in ["", "trades,", "incremental_book_l2", "book_snapshot_10"] {
        let e = bad.parse::<DataTypes>().unwrap_err();
        assert!(e.contains("is not a data type"), "{bad:?}: {e}");
    }
    assert_eq!(
        DataType::ALL.map(DataType::name),
        [
            "trades",
            "incremental_book_L2",
            "book_snapshot_25",
            "book_snapshot_5",
            "quotes",
            "derivative_ticker"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
