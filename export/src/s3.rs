//! S3 and S3-compatible object storage (`s3://bucket/prefix`) behind [`Storage`], through the
//! `object_store` crate (feature `s3`).
//!
//! ```no_run
//! use digifinex_export::{dataset, s3::S3};
//!
//! // Credentials, region and endpoint from the standard AWS environment variables
//! // (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION or
//! // AWS_DEFAULT_REGION, AWS_ENDPOINT_URL; AWS_ALLOW_HTTP=true for a plain-http endpoint).
//! let store = S3::from_env("s3://research/digifinex")?;
//! dataset::export(&["m.jsonl.gz".into()], &store, &dataset::Options::default())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! DESIGN (uploads): an object is buffered until it reaches [`PART_BYTES`] (8 MiB); a smaller
//! one is written with one `PUT` when committed, a larger one as a multipart upload of
//! [`PART_BYTES`] parts with at most [`PARTS_IN_FLIGHT`] parts uploading at once (a writer that
//! outruns the network waits: memory stays at about three parts per open object). The object
//! appears under its name only when the upload completes ([`Upload::commit`]); an upload
//! dropped before (an error, a panic) is aborted, and a process killed mid-upload leaves an
//! incomplete multipart upload that S3 never shows as an object (a bucket lifecycle rule
//! `AbortIncompleteMultipartUpload` reclaims its parts). Each request, a part included, is
//! retried by `object_store` on connection errors, timeouts and 5xx answers ([`S3::retry`]:
//! by default up to 10 times with exponential backoff, within 3 minutes a request).
//!
//! DESIGN (the lock): [`Storage::create_new`] is a conditional `PUT` (`If-None-Match: *`),
//! which AWS S3 and current S3-compatible servers honour; a server that ignores the header
//! makes the dataset's lock advisory only (two exports into one prefix at once would then not
//! be refused).
//!
//! The requests run on a runtime of one worker thread that this value owns, so uploads go on
//! while the caller encodes the next part; every method blocks. Credentials never appear in
//! `Debug` or in errors.

use crate::store::{Storage, Upload};
use futures_util::StreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path;
use object_store::{
    ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig, WriteMultipart,
};
use std::future::Future;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

/// The size of each part of a multipart upload, and the size under which an object is written
/// with one `PUT` (S3 needs parts of at least 5 MiB but the last).
pub const PART_BYTES: usize = 8 << 20;

/// Parts of one object uploading at once at most.
pub const PARTS_IN_FLIGHT: usize = 2;

/// Why an `s3://` location cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{url}: {message}")]
pub struct UrlError {
    /// The location as given.
    pub url: String,
    /// What is wrong.
    pub message: String,
}

/// A bucket and a prefix in S3 or an S3-compatible store.
pub struct S3 {
    rt: Arc<tokio::runtime::Runtime>,
    store: Arc<AmazonS3>,
    bucket: String,
    prefix: String,
}

impl std::fmt::Debug for S3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3")
            .field("location", &self.location())
            .finish_non_exhaustive()
    }
}

/// Splits `s3://bucket/prefix/` into the bucket and the prefix (no slash at either end).
pub fn parse_url(url: &str) -> Result<(String, String), UrlError> {
    let err = |message: &str| UrlError {
        url: url.to_owned(),
        message: message.to_owned(),
    };
    let rest = url
        .strip_prefix("s3://")
        .ok_or_else(|| err("not an s3:// location (s3://bucket/prefix)"))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(err("no bucket (s3://bucket/prefix)"));
    }
    let prefix = prefix.trim_matches('/');
    if prefix
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == "..")
        && !prefix.is_empty()
    {
        return Err(err("the prefix has an empty, `.` or `..` segment"));
    }
    Ok((bucket.to_owned(), prefix.to_owned()))
}

impl S3 {
    /// The location `s3://bucket/prefix`, configured from the `AWS_*` environment variables
    /// (see the module docs).
    pub fn from_env(url: &str) -> Result<S3, UrlError> {
        S3::with_builder(url, AmazonS3Builder::from_env(), RetryConfig::default())
    }

    /// The location `s3://bucket/prefix` through `builder` (its bucket is set from the URL),
    /// each request retried as `retry` says.
    pub fn with_builder(
        url: &str,
        builder: AmazonS3Builder,
        retry: RetryConfig,
    ) -> Result<S3, UrlError> {
        let (bucket, prefix) = parse_url(url)?;
        let err = |message: String| UrlError {
            url: url.to_owned(),
            message,
        };
        let store = builder
            .with_bucket_name(&bucket)
            .with_retry(retry)
            .build()
            .map_err(|e| err(format!("cannot configure the store: {e}")))?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("digifinex-s3")
            .enable_all()
            .build()
            .map_err(|e| err(format!("cannot start the upload thread: {e}")))?;
        Ok(S3 {
            rt: Arc::new(rt),
            store: Arc::new(store),
            bucket,
            prefix,
        })
    }

    /// The retries of [`S3::from_env`]: `object_store`'s defaults (10 retries with
    /// exponential backoff from 100 ms, at most 3 minutes a request).
    pub fn retry() -> RetryConfig {
        RetryConfig::default()
    }

    /// A retry policy for tests and impatient callers: `retries` retries, waiting from
    /// `backoff` up, within `timeout` a request.
    pub fn retry_with(retries: usize, backoff: Duration, timeout: Duration) -> RetryConfig {
        let mut r = RetryConfig {
            max_retries: retries,
            retry_timeout: timeout,
            ..RetryConfig::default()
        };
        r.backoff.init_backoff = backoff;
        r
    }

    fn key(&self, path: &str) -> io::Result<Path> {
        let full = if self.prefix.is_empty() {
            path.to_owned()
        } else {
            format!("{}/{path}", self.prefix)
        };
        Path::parse(&full).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))
    }

    fn relative(&self, key: &Path) -> String {
        let key = key.as_ref();
        if self.prefix.is_empty() {
            key.to_owned()
        } else {
            key.strip_prefix(&self.prefix)
                .and_then(|k| k.strip_prefix('/'))
                .unwrap_or(key)
                .to_owned()
        }
    }

    /// Starts an upload of the object at `path` (relative to the prefix); [`Storage::create`]
    /// as its own type.
    pub fn upload(&self, path: &str) -> io::Result<S3Upload> {
        Ok(S3Upload {
            rt: Arc::clone(&self.rt),
            store: Arc::clone(&self.store),
            path: self.key(path)?,
            buf: Vec::new(),
            multipart: None,
            bytes: 0,
        })
    }
}

/// Runs `f` to completion on `rt`, from a thread inside another tokio runtime too (on a thread
/// of its own then: a runtime cannot block one of its threads on another runtime).
fn block_on<F>(rt: &tokio::runtime::Runtime, f: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| match s.spawn(|| rt.block_on(f)).join() {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        })
    } else {
        rt.block_on(f)
    }
}

fn io_err(e: object_store::Error) -> io::Error {
    let kind = match &e {
        object_store::Error::NotFound { .. } => io::ErrorKind::NotFound,
        object_store::Error::AlreadyExists { .. } => io::ErrorKind::AlreadyExists,
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e.to_string())
}

/// An object being uploaded to S3 (see the module docs): invisible until
/// [`Upload::commit`], aborted when dropped before.
pub struct S3Upload {
    rt: Arc<tokio::runtime::Runtime>,
    store: Arc<AmazonS3>,
    path: Path,
    buf: Vec<u8>,
    multipart: Option<WriteMultipart>,
    bytes: u64,
}

impl std::fmt::Debug for S3Upload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Upload")
            .field("path", &self.path.as_ref())
            .field("bytes", &self.bytes)
            .field("multipart", &self.multipart.is_some())
            .finish_non_exhaustive()
    }
}

impl Write for S3Upload {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.bytes = self
            .bytes
            .saturating_add(u64::try_from(data.len()).unwrap_or(u64::MAX));
        // WriteMultipart spawns each full part's upload onto the current runtime: ours.
        let _in_rt = self.rt.enter();
        match &mut self.multipart {
            Some(w) => w.write(data),
            None => {
                self.buf.extend_from_slice(data);
                if self.buf.len() < PART_BYTES {
                    return Ok(data.len());
                }
                let store = Arc::clone(&self.store);
                let path = self.path.clone();
                let up = block_on(&self.rt, async move { store.put_multipart(&path).await })
                    .map_err(io_err)?;
                let mut w = WriteMultipart::new_with_chunk_size(up, PART_BYTES);
                w.write(&std::mem::take(&mut self.buf));
                self.multipart = Some(w);
            }
        }
        if let Some(w) = &mut self.multipart {
            block_on(&self.rt, w.wait_for_capacity(PARTS_IN_FLIGHT)).map_err(io_err)?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Upload for S3Upload {
    fn commit(mut self: Box<Self>) -> io::Result<u64> {
        let bytes = self.bytes;
        match self.multipart.take() {
            Some(w) => {
                block_on(&self.rt, w.finish()).map_err(io_err)?;
            }
            None => {
                let payload = PutPayload::from(std::mem::take(&mut self.buf));
                let (store, path) = (Arc::clone(&self.store), self.path.clone());
                block_on(&self.rt, async move { store.put(&path, payload).await })
                    .map_err(io_err)?;
            }
        }
        Ok(bytes)
    }
}

impl Drop for S3Upload {
    fn drop(&mut self) {
        if let Some(w) = self.multipart.take() {
            let _ = block_on(&self.rt, w.abort());
        }
    }
}

impl Storage for S3 {
    fn location(&self) -> String {
        if self.prefix.is_empty() {
            format!("s3://{}", self.bucket)
        } else {
            format!("s3://{}/{}", self.bucket, self.prefix)
        }
    }

    fn read(&self, path: &str) -> io::Result<Option<Vec<u8>>> {
        let key = self.key(path)?;
        let store = Arc::clone(&self.store);
        let got = block_on(&self.rt, async move {
            match store.get(&key).await {
                Ok(r) => r.bytes().await.map(Some),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        });
        got.map(|b| b.map(|b| b.to_vec())).map_err(io_err)
    }

    fn create(&self, path: &str) -> io::Result<Box<dyn Upload>> {
        Ok(Box::new(self.upload(path)?))
    }

    fn create_new(&self, path: &str, bytes: &[u8]) -> io::Result<bool> {
        let key = self.key(path)?;
        let store = Arc::clone(&self.store);
        let payload = PutPayload::from(bytes.to_vec());
        let opts = PutOptions::from(PutMode::Create);
        match block_on(&self.rt, async move {
            store.put_opts(&key, payload, opts).await
        }) {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(e) => Err(io_err(e)),
        }
    }

    fn remove(&self, path: &str) -> io::Result<()> {
        let key = self.key(path)?;
        let store = Arc::clone(&self.store);
        match block_on(&self.rt, async move { store.delete(&key).await }) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(io_err(e)),
        }
    }

    fn list(&self, prefix: &str) -> io::Result<Vec<String>> {
        // object_store lists by whole path segments: list the prefix's directory, then keep
        // the names that start with the prefix.
        let dir = match prefix.rfind('/') {
            Some(i) => prefix.get(..i).unwrap_or(""),
            None => "",
        };
        let under = if dir.is_empty() {
            if self.prefix.is_empty() {
                None
            } else {
                Some(Path::parse(&self.prefix).map_err(|e| io::Error::other(e.to_string()))?)
            }
        } else {
            Some(self.key(dir)?)
        };
        let store = Arc::clone(&self.store);
        let keys = block_on(&self.rt, async move {
            let mut s = store.list(under.as_ref());
            let mut keys = Vec::new();
            while let Some(m) = s.next().await {
                keys.push(m?.location);
            }
            Ok::<_, object_store::Error>(keys)
        })
        .map_err(io_err)?;
        let mut out: Vec<String> = keys
            .iter()
            .map(|k| self.relative(k))
            .filter(|k| k.starts_with(prefix))
            .collect();
        out.sort();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_bucket_and_prefix() {
        assert_eq!(parse_url("s3://b").unwrap(), ("b".into(), "".into()));
        assert_eq!(parse_url("s3://b/").unwrap(), ("b".into(), "".into()));
        assert_eq!(
            parse_url("s3://b/x/y/").unwrap(),
            ("b".into(), "x/y".into())
        );
        for bad in ["s3:///x", "http://b/x", "s3://b/x//y", "s3://b/../y", "b/x"] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn debug_shows_the_location_only() {
        let b = AmazonS3Builder::new()
            .with_region("us-east-1")
            .with_access_key_id("AKIDSECRETLOOKING")
            .with_secret_access_key("very-secret-key");
        let s = S3::with_builder("s3://bkt/p", b, S3::retry()).unwrap();
        let d = format!("{s:?}");
        assert_eq!(d, "S3 { location: \"s3://bkt/p\", .. }");
        assert_eq!(s.key("a=1/b.parquet").unwrap().as_ref(), "p/a=1/b.parquet");
        assert_eq!(s.relative(&s.key("a=1/b").unwrap()), "a=1/b");
    }
}
