//! `digifinex market export` from the command line: the tables it writes and what it says on
//! stderr, a damaged recording (exit 0, what was skipped), one that gives nothing (exit 1) and a
//! file that is not a recording (exit 1).
#![cfg(feature = "export")]

use std::io::Write;
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
