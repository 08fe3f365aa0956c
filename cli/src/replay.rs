//! `digifinex decode --from FILE` and `digifinex replay FILE`: recorded exchanges (see
//! `digifinex_core::record`) re-decoded with the current models, or served over HTTP on
//! loopback for bots written in other languages.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;

use digifinex_core::catalog;
use digifinex_core::record::{Record, ReplayMode, Replayer};
use digifinex_core::Error;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

/// What `decode --from` found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DecodeReport {
    /// Records decoded (including venue error answers, which decode as errors correctly).
    pub ok: usize,
    /// Records whose answer the current models cannot decode.
    pub failed: usize,
    /// Records skipped: transport failures (no answer) and paths the catalog does not know.
    pub skipped: usize,
}

/// The path of a recorded URL, without scheme, host and query.
fn path_of(url: &str) -> &str {
    let without_query = url.split('?').next().unwrap_or(url);
    match without_query.split_once("://") {
        Some((_, rest)) => rest.find('/').and_then(|i| rest.get(i..)).unwrap_or("/"),
        None => without_query,
    }
}

/// Re-decodes every answer of the recording with the current models, one line per record on
/// `out`: `#N METHOD PATH: ok`, `... ok, venue error CODE`, `... DECODE FAILED: ...` or
/// `... skipped: ...`.
pub fn decode(records: &[Record], out: &mut impl Write) -> std::io::Result<DecodeReport> {
    let mut report = DecodeReport::default();
    for (i, r) in records.iter().enumerate() {
        let path = path_of(&r.url);
        let head = format!("#{i} {} {path}", r.method);
        let Some(status) = r.status else {
            writeln!(out, "{head}: skipped: no answer (transport failure)")?;
            report.skipped += 1;
            continue;
        };
        let Some((entry, _)) = catalog::find(&r.method, path) else {
            writeln!(out, "{head}: skipped: not an endpoint of this library")?;
            report.skipped += 1;
            continue;
        };
        let mut headers = http::HeaderMap::new();
        for (k, v) in &r.headers {
            if let (Ok(k), Ok(v)) = (
                http::HeaderName::from_bytes(k.as_bytes()),
                http::HeaderValue::from_str(v),
            ) {
                headers.insert(k, v);
            }
        }
        match (entry.decode_report)(status, &headers, r.body.as_bytes()) {
            Ok((_, unreadable)) if unreadable.is_empty() => {
                writeln!(out, "{head}: ok")?;
                report.ok += 1;
            }
            Ok((_, unreadable)) => {
                writeln!(
                    out,
                    "{head}: ok, {} unreadable optional value(s) kept as absent: {}",
                    unreadable.len(),
                    unreadable
                        .iter()
                        .map(|u| u.path.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )?;
                report.ok += 1;
            }
            Err(e @ Error::Decode { .. }) => {
                writeln!(out, "{head}: DECODE FAILED: {e}")?;
                report.failed += 1;
            }
            Err(e) => {
                writeln!(out, "{head}: ok, the venue answered an error: {e}")?;
                report.ok += 1;
            }
        }
    }
    Ok(report)
}

/// Serves `replayer` over HTTP at `addr` until the process ends: each request gets its
/// recorded answer; a request the recording does not hold gets HTTP 404 with the mismatch as
/// plain text and an `x-replay-mismatch: 1` header; a recorded transport failure closes the
/// connection without an answer. `ready` is called with the bound address.
pub fn serve(
    replayer: Replayer,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        ready(bound);
        let replayer = Arc::new(replayer);
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(s) => s,
                Err(_) => continue,
            };
            let replayer = replayer.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| answer(replayer.clone(), bound, req));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    })
}

/// One answer of `serve`.
async fn answer(
    replayer: Arc<Replayer>,
    bound: SocketAddr,
    req: http::Request<Incoming>,
) -> Result<http::Response<Full<Bytes>>, std::io::Error> {
    let host = req
        .headers()
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok());
    if !loopback_host(host, bound) {
        let mut r = http::Response::new(Full::new(Bytes::from_static(
            b"a replay answers only requests whose Host is localhost or an IP address\n",
        )));
        *r.status_mut() = http::StatusCode::FORBIDDEN;
        return Ok(r);
    }
    let (parts, body) = req.into_parts();
    let body = match body.collect().await {
        Ok(b) => b.to_bytes().to_vec(),
        Err(e) => return Err(std::io::Error::other(e)),
    };
    let request = http::Request::from_parts(parts, body);
    match replayer.answer(&request) {
        Ok(r) => Ok(r.map(|b| Full::new(Bytes::from(b)))),
        Err(e)
            if e.downcast_ref::<digifinex_core::record::ReplayMismatch>()
                .is_some() =>
        {
            let mut r = http::Response::new(Full::new(Bytes::from(format!("{e}\n"))));
            *r.status_mut() = http::StatusCode::NOT_FOUND;
            r.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("text/plain"),
            );
            r.headers_mut()
                .insert("x-replay-mismatch", http::HeaderValue::from_static("1"));
            Ok(r)
        }
        // A recorded transport failure: no answer (the connection is closed).
        Err(e) => Err(std::io::Error::other(e.to_string())),
    }
}

/// Reads a recording for `decode` (every record, in order).
/// Reads a recording for `decode` (every record, in order), and the number of its last line
/// when a crash cut it ([`Replayer::cut`]).
pub fn read_records(path: &str) -> Result<(Vec<Record>, Option<usize>), String> {
    let replayer = Replayer::open(path, ReplayMode::Matching)
        .map_err(|e| format!("cannot read the recording {path}: {e}"))?;
    Ok((replayer.records().cloned().collect(), replayer.cut()))
}

/// The note printed when a recording's last line was cut by a crash.
pub fn cut_note(path: &str, line: usize) -> String {
    format!(
        "note: {path}: line {line}, the last, was cut by a crash while it was written and is \
         left out; the {} line(s) before it are read",
        line.saturating_sub(1)
    )
}

/// Whether a request's `Host` names the loopback (`localhost`, a loopback address) or the
/// address the replay listens on: a web page that reaches the replay through DNS rebinding
/// sends its own host name and is refused (a replay serves recorded account data). The
/// simulator's check ([`digifinex_sim::is_loopback_host`]), so the two agree.
pub fn loopback_host(host: Option<&str>, bound: SocketAddr) -> bool {
    host.is_some_and(|h| digifinex_sim::is_loopback_host(h, Some(bound.ip())))
}

#[cfg(test)]
mod tests {
    use super::loopback_host;

    /// The replay takes the simulator's check: the forms the two copies once disagreed on
    /// (`LOCALHOST.`, an IPv4-mapped loopback address) answer alike.
    #[test]
    fn the_replay_checks_hosts_like_the_simulator() {
        let bound: std::net::SocketAddr = "127.0.0.1:4000".parse().unwrap();
        for (host, want) in [
            (Some("LOCALHOST."), true),
            (Some("[::ffff:127.0.0.1]:4000"), true),
            (Some("127.0.0.1:4000"), true),
            (Some("rebind.example:80"), false),
            (Some("localhost.rebind.example"), false),
            (None, false),
        ] {
            assert_eq!(loopback_host(host, bound), want, "{host:?}");
            let sim = host.is_some_and(|h| digifinex_sim::is_loopback_host(h, Some(bound.ip())));
            assert_eq!(sim, want, "{host:?}");
        }
    }
}
