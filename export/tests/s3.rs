//! Object storage against a real S3-compatible server on loopback (moto's server from PyPI,
//! started by `.ci/run`; the `AWS_*` environment variables point at it: `AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP=true`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`).
//!
//! Objects appear only when complete, small and multipart alike; an upload dropped mid-file
//! leaves no object and no open multipart upload; a part whose connection is cut is retried
//! and the object is whole; the dataset written to a bucket is the local one, byte for byte,
//! and exporting it again changes nothing.

#![cfg(feature = "s3")]

use digifinex_export::dataset::{self, Options, MANIFEST};
use digifinex_export::s3::{PART_BYTES, S3};
use digifinex_export::store::{LocalDir, Storage};
use object_store::aws::AmazonS3Builder;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The server's address, from `AWS_ENDPOINT_URL` (`http://127.0.0.1:PORT`).
fn endpoint() -> SocketAddr {
    let url = std::env::var("AWS_ENDPOINT_URL").unwrap_or_else(|_| {
        panic!(
            "these tests need an S3-compatible server: set AWS_ENDPOINT_URL=http://127.0.0.1:PORT \
             (and AWS_ALLOW_HTTP=true, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION) as \
             .ci/run does for moto_server"
        )
    });
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    host.parse().expect("AWS_ENDPOINT_URL is http://IP:PORT")
}

/// One plain HTTP/1.0 request to the server (moto takes unsigned bucket requests); the
/// status and the body.
fn raw(method: &str, target: &str) -> (u16, String) {
    let mut s = TcpStream::connect(endpoint()).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.0\r\nHost: {}\r\nContent-Length: 0\r\n\r\n",
        endpoint()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out
        .get(9..12)
        .and_then(|c| c.parse().ok())
        .expect("an HTTP status line");
    let body = out.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (status, body.to_owned())
}

/// A new empty bucket for one test.
fn bucket(name: &str) -> String {
    let b = format!("dfx-{name}-{}", std::process::id());
    let (status, body) = raw("PUT", &format!("/{b}"));
    assert_eq!(status, 200, "creating bucket {b}: {body}");
    b
}

/// The multipart uploads still open in `bucket`.
fn open_uploads(bucket: &str) -> usize {
    let (status, body) = raw("GET", &format!("/{bucket}?uploads"));
    assert_eq!(status, 200, "{body}");
    body.matches("<UploadId>").count()
}

/// Bytes that differ at every position of a part (so a reordered or repeated part shows).
fn pattern(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| u8::try_from((i * 31 + i / 4093) % 251).unwrap())
        .collect()
}

#[test]
fn small_objects_the_lock_and_listing() {
    let b = bucket("small");
    let s = S3::from_env(&format!("s3://{b}/data/set")).unwrap();
    assert_eq!(s.location(), format!("s3://{b}/data/set"));
    assert_eq!(s.read("a.json").unwrap(), None);
    let mut up = s.create("table=book/date=2024-02-01/a.parquet").unwrap();
    up.write_all(b"hello ").unwrap();
    up.write_all(b"world").unwrap();
    // Nothing under the name before the commit.
    assert_eq!(s.list("").unwrap(), Vec::<String>::new());
    assert_eq!(up.commit().unwrap(), 11);
    assert_eq!(
        s.read("table=book/date=2024-02-01/a.parquet").unwrap(),
        Some(b"hello world".to_vec())
    );
    // Dropped before its commit: nothing.
    let mut up = s.create("table=book/b.parquet").unwrap();
    up.write_all(b"partial").unwrap();
    drop(up);
    assert!(s.create_new("_lock", b"1").unwrap());
    assert!(!s.create_new("_lock", b"2").unwrap(), "a second lock");
    assert_eq!(s.read("_lock").unwrap(), Some(b"1".to_vec()));
    assert_eq!(
        s.list("").unwrap(),
        ["_lock", "table=book/date=2024-02-01/a.parquet"]
    );
    assert_eq!(
        s.list("table=b").unwrap(),
        ["table=book/date=2024-02-01/a.parquet"]
    );
    assert_eq!(s.list("_l").unwrap(), ["_lock"]);
    s.remove("_lock").unwrap();
    s.remove("_lock").unwrap();
    assert!(s.create_new("_lock", b"3").unwrap());
    // Another prefix of the same bucket sees none of it.
    let other = S3::from_env(&format!("s3://{b}/data/other")).unwrap();
    assert_eq!(other.list("").unwrap(), Vec::<String>::new());
}

#[test]
fn a_multipart_object_appears_whole_or_not_at_all() {
    let b = bucket("multi");
    let s = S3::from_env(&format!("s3://{b}")).unwrap();
    let data = pattern(2 * PART_BYTES + 12_345);
    let mut up = s.create("big.bin").unwrap();
    for chunk in data.chunks(100_000) {
        up.write_all(chunk).unwrap();
    }
    assert_eq!(open_uploads(&b), 1, "the parts go up as a multipart upload");
    assert_eq!(s.list("").unwrap(), Vec::<String>::new());
    assert_eq!(up.commit().unwrap(), u64::try_from(data.len()).unwrap());
    assert_eq!(s.read("big.bin").unwrap().as_deref(), Some(&data[..]));
    assert_eq!(open_uploads(&b), 0);

    // Interrupted mid-file (two parts sent, then the writer gives up): no object, and the
    // multipart upload is aborted.
    let mut up = s.create("cut.bin").unwrap();
    up.write_all(&data[..2 * PART_BYTES + 10]).unwrap();
    assert_eq!(open_uploads(&b), 1);
    drop(up);
    assert_eq!(s.read("cut.bin").unwrap(), None);
    assert_eq!(s.list("").unwrap(), ["big.bin"]);
    assert_eq!(open_uploads(&b), 0, "the dropped upload was aborted");
}

/// A proxy in front of the server that cuts, once, the connection carrying the upload of part
/// `part` (after forwarding the start of it); everything else passes through.
fn cutting_proxy(part: u32, cuts: Arc<AtomicUsize>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let marker = format!("partNumber={part}&");
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { return };
            let Ok(mut server) = TcpStream::connect(endpoint()) else {
                return;
            };
            let (mut c2, mut s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut s2, &mut c2);
            });
            let cuts = Arc::clone(&cuts);
            let marker = marker.clone();
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 64 << 10];
                // The end of the last read and the start of this one (a request line split
                // between two reads is still seen).
                let mut window: Vec<u8> = Vec::new();
                loop {
                    let n = match client.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    window.extend_from_slice(&buf[..n.min(4096)]);
                    let seen = window.windows(marker.len()).any(|w| w == marker.as_bytes());
                    window = buf[n.saturating_sub(256)..n].to_vec();
                    if seen
                        && cuts
                            .compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst)
                            .is_ok()
                    {
                        let _ = server.write_all(&buf[..n]);
                        let _ = server.shutdown(std::net::Shutdown::Both);
                        let _ = client.shutdown(std::net::Shutdown::Both);
                        break;
                    }
                    if server.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = server.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    addr
}

#[test]
fn a_part_cut_mid_upload_is_retried_and_the_object_is_whole() {
    let b = bucket("retry");
    let cuts = Arc::new(AtomicUsize::new(0));
    let proxy = cutting_proxy(2, Arc::clone(&cuts));
    let builder = AmazonS3Builder::from_env().with_endpoint(format!("http://{proxy}"));
    let s = S3::with_builder(
        &format!("s3://{b}/p"),
        builder,
        S3::retry_with(5, Duration::from_millis(20), Duration::from_secs(60)),
    )
    .unwrap();
    let data = pattern(3 * PART_BYTES + 7);
    let mut up = s.create("x.bin").unwrap();
    up.write_all(&data).unwrap();
    up.commit().unwrap();
    assert_eq!(
        cuts.load(Ordering::SeqCst),
        1,
        "part 2's connection was cut"
    );
    let direct = S3::from_env(&format!("s3://{b}/p")).unwrap();
    assert_eq!(direct.read("x.bin").unwrap().as_deref(), Some(&data[..]));
    assert_eq!(open_uploads(&b), 0);
}

/// The fixture recording `name` (plain JSON lines in tests/data) gzipped into `dir`, with
/// `extra` lines appended (another recording: another hash).
fn recording(name: &str, dir: &std::path::Path, extra: &str) -> PathBuf {
    let plain = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap();
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("{name}{}.gz", extra.len()));
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(&plain).unwrap();
    gz.write_all(extra.as_bytes()).unwrap();
    gz.finish().unwrap();
    path
}

#[test]
fn a_dataset_in_a_bucket_is_the_local_dataset() {
    let b = bucket("dataset");
    let s = S3::from_env(&format!("s3://{b}/digifinex")).unwrap();
    let local_root = std::env::temp_dir().join(format!("dfx-s3-local-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&local_root);
    let local = LocalDir::new(&local_root);
    let inputs_dir = local_root.with_extension("in");
    let inputs = [
        recording("tardis-v1.jsonl", &inputs_dir, ""),
        recording("tardis-v2.jsonl", &inputs_dir, ""),
    ];
    let opts = Options {
        file_bytes: 2_000,
        ..Options::default()
    };
    let up = dataset::export(&inputs, &s, &opts).unwrap();
    let here = dataset::export(&inputs, &local, &opts).unwrap();
    assert_eq!(up.len(), 2);
    assert!(up.iter().all(|e| !e.already));
    let files = s.list("").unwrap();
    assert_eq!(files, local.list("").unwrap(), "the same objects as files");
    assert!(files.len() > 4, "{files:?}");
    assert!(files.contains(&MANIFEST.to_owned()));
    assert!(!files.iter().any(|f| f.ends_with(".tmp") || f == "_lock"));
    for f in &files {
        if f != MANIFEST {
            assert_eq!(s.read(f).unwrap(), local.read(f).unwrap(), "{f}");
        }
    }
    for (u, h) in up.iter().zip(&here) {
        assert_eq!(u.summary.records, h.summary.records);
        assert_eq!(u.sha256, h.sha256);
    }
    // Again: nothing written, not even the manifest.
    let manifest = s.read(MANIFEST).unwrap();
    let again = dataset::export(&inputs, &s, &opts).unwrap();
    assert!(again.iter().all(|e| e.already));
    assert_eq!(s.read(MANIFEST).unwrap(), manifest);
    assert_eq!(s.list("").unwrap(), files);
    // A lock left in the bucket refuses the next recording, and changes nothing.
    assert!(s.create_new(dataset::LOCK, b"another").unwrap());
    let third = recording("tardis-v1.jsonl", &inputs_dir, "\n");
    let err = dataset::export(std::slice::from_ref(&third), &s, &opts).unwrap_err();
    std::fs::remove_dir_all(&inputs_dir).unwrap();
    assert!(err.to_string().contains("_lock exists"), "{err}");
    assert_eq!(s.read(MANIFEST).unwrap(), manifest);
    std::fs::remove_dir_all(&local_root).unwrap();
}
