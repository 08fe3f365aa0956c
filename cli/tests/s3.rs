//! `--dataset s3://...` and `record --out s3://...` against a real S3-compatible server on
//! loopback (moto's server, started by `.ci/run`; `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP=true`,
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_REGION` point at it): the dataset's
//! objects and manifest, a repeat that changes nothing; a recording that appears when the
//! recorder stops and reads back; an existing object refused; a recorder killed mid-file leaves
//! no object under its name.
#![cfg(feature = "s3")]

use digifinex_export::s3::S3;
use digifinex_export::store::Storage;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn host() -> String {
    std::env::var("AWS_ENDPOINT_URL")
        .expect("these tests need an S3-compatible server: AWS_ENDPOINT_URL (see .ci/run)")
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned()
}

/// One plain HTTP/1.0 request (moto takes unsigned bucket requests, not object reads): status
/// and body bytes.
fn raw(method: &str, target: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(host()).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.0\r\nHost: {}\r\nContent-Length: 0\r\n\r\n",
        host()
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let status = std::str::from_utf8(&out[9..12]).unwrap().parse().unwrap();
    let at = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    (status, out[at..].to_vec())
}

fn bucket(name: &str) -> String {
    let b = format!("dfx-cli-{name}-{}", std::process::id());
    assert_eq!(raw("PUT", &format!("/{b}")).0, 200);
    b
}

/// The keys in `bucket`, sorted.
fn keys(bucket: &str) -> Vec<String> {
    let (status, body) = raw("GET", &format!("/{bucket}?list-type=2"));
    assert_eq!(status, 200);
    let body = String::from_utf8(body).unwrap();
    let mut out: Vec<String> = body
        .split("<Key>")
        .skip(1)
        .filter_map(|k| k.split_once("</Key>").map(|(k, _)| k.to_owned()))
        .collect();
    out.sort();
    out
}

fn digifinex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run digifinex")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_recording_goes_up_when_the_recorder_stops_and_a_dataset_from_it() {
    let b = bucket("record");
    let url = format!("s3://{b}/raw/m.jsonl.gz");
    let o = digifinex(&[
        "record",
        "--sim",
        "--spot",
        "btc_usdt",
        "--swap",
        "BTCUSDTPERP",
        "--interval-ms",
        "200",
        "--duration-s",
        "1",
        "--out",
        &url,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!("to {url} (")),
        "{}",
        text(&o)
    );
    assert_eq!(keys(&b), ["raw/m.jsonl.gz"]);
    let object = |key: &str| {
        S3::from_env(&format!("s3://{b}"))
            .unwrap()
            .read(key)
            .unwrap()
    };
    let gz = object("raw/m.jsonl.gz").expect("the recording");
    let mut plain = String::new();
    flate2::read::MultiGzDecoder::new(&gz[..])
        .read_to_string(&mut plain)
        .unwrap();
    assert!(
        plain.starts_with("{\"format\":\"digifinex-market\""),
        "{plain:.200}"
    );
    assert!(plain.contains("\"btc_usdt\"") && plain.contains("BTCUSDTPERP"));

    // The object cannot be appended to: refused, left as it is.
    let again = digifinex(&["record", "--sim", "--spot", "btc_usdt", "--out", &url]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("exists"), "{}", text(&again));
    assert_eq!(object("raw/m.jsonl.gz"), Some(gz.clone()));

    // The recording, downloaded, into a dataset in the same bucket; again: nothing changes.
    let local = std::env::temp_dir().join(format!("dfx-cli-s3-{}.jsonl.gz", std::process::id()));
    std::fs::write(&local, &gz).unwrap();
    let ds = format!("s3://{b}/ds");
    let o = digifinex(&[
        "market",
        "export",
        local.to_str().unwrap(),
        "--dataset",
        &ds,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let after = keys(&b);
    assert!(after.contains(&"ds/_manifest.json".to_owned()), "{after:?}");
    assert!(
        after.iter().any(
            |k| k.starts_with("ds/table=book/family=spot/market=btc_usdt/date=")
                && k.ends_with(".parquet")
        ),
        "{after:?}"
    );
    assert!(!after
        .iter()
        .any(|k| k.ends_with("_lock") || k.contains(".tmp")));
    let manifest = object("ds/_manifest.json");
    let o = digifinex(&[
        "market",
        "export",
        local.to_str().unwrap(),
        "--dataset",
        &ds,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("already in s3://"), "{}", text(&o));
    assert_eq!(keys(&b), after);
    assert_eq!(object("ds/_manifest.json"), manifest);
    std::fs::remove_file(&local).unwrap();
}

#[test]
fn a_recorder_killed_mid_file_leaves_no_object() {
    let b = bucket("killed");
    let url = format!("s3://{b}/m.jsonl.gz");
    let mut child = Command::new(env!("CARGO_BIN_EXE_digifinex"))
        .args([
            "record",
            "--sim",
            "--spot",
            "btc_usdt",
            "--interval-ms",
            "100",
            "--out",
            &url,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for its first rounds (each prints a line), then kill it without a chance to finish.
    let mut err = child.stderr.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 512];
    while !String::from_utf8_lossy(&seen).contains("round 3:") {
        let n = err.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "the recorder ended: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(keys(&b), Vec::<String>::new(), "no object under any name");
}

#[test]
fn other_schemes_and_a_bucket_without_a_name_are_refused() {
    let o = digifinex(&[
        "record",
        "--sim",
        "--spot",
        "btc_usdt",
        "--out",
        "s3://only-bucket",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("name the object"), "{}", text(&o));
    let o = digifinex(&["market", "export", "x.jsonl.gz", "--dataset", "gs://b/p"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("a local path or s3://bucket/prefix"),
        "{}",
        text(&o)
    );
}
