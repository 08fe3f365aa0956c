//! A tiny loopback HTTP/1.1 server for transport tests: a std `TcpListener` thread that reads
//! each request, records it, and answers what a handler says (a response, a truncated body, a
//! dropped connection, a delay). Keep-alive is honoured so that connection reuse is exercised.
//! [`TestServer::start_tls`] serves the same over TLS (rustls, ring) with the test certificate
//! in `tests/data/` (see `gen.py` there).
//!
//! Both transport crates keep an identical copy of this file and of `tests/data/`, so that each
//! published package builds its own tests; `tests/tests/copies.rs` in the workspace fails when
//! the copies differ.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query.
    pub target: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
    pub fn query(&self) -> &str {
        self.target.split_once('?').map_or("", |(_, q)| q)
    }
}

/// What to do with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete response.
    Http {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Headers promising the whole body, half of it, then the connection closes.
    Truncated { status: u16, body: Vec<u8> },
    /// Headers promising the whole body, half of it, then nothing for `stall` (the
    /// connection stays open), then the connection closes.
    Stall {
        status: u16,
        body: Vec<u8>,
        stall: Duration,
    },
    /// Close the connection without answering.
    Drop,
    /// Wait, then do the inner reply.
    Delay(Duration, Box<Reply>),
}

impl Reply {
    pub fn json(status: u16, body: &str) -> Reply {
        Reply::Http {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.as_bytes().to_vec(),
        }
    }
    pub fn ok(body: &str) -> Reply {
        Reply::json(200, body)
    }
    pub fn html(status: u16, body: &str) -> Reply {
        Reply::Http {
            status,
            headers: vec![("content-type".into(), "text/html".into())],
            body: body.as_bytes().to_vec(),
        }
    }
    pub fn with_header(self, name: &str, value: &str) -> Reply {
        match self {
            Reply::Http {
                status,
                mut headers,
                body,
            } => {
                headers.push((name.into(), value.into()));
                Reply::Http {
                    status,
                    headers,
                    body,
                }
            }
            other => other,
        }
    }
}

type Handler = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

/// A running server; stops when dropped.
pub struct TestServer {
    pub addr: SocketAddr,
    tls: bool,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
}

impl TestServer {
    /// Answers request number `i` (from 0) with `handler(i, request)`.
    pub fn start(handler: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> TestServer {
        TestServer::launch(None, handler)
    }

    /// As [`TestServer::start`], over TLS with the certificate of `127.0.0.1` signed by
    /// [`test_ca_der`].
    pub fn start_tls(
        handler: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static,
    ) -> TestServer {
        TestServer::launch(Some(tls_server_config()), handler)
    }

    fn launch(
        tls: Option<Arc<rustls::ServerConfig>>,
        handler: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static,
    ) -> TestServer {
        let is_tls = tls.is_some();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let counter = Arc::new(AtomicUsize::new(0));
        {
            let seen = seen.clone();
            let stop = stop.clone();
            thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (seen, handler, counter) = (seen.clone(), handler.clone(), counter.clone());
                    let tls = tls.clone();
                    thread::spawn(move || {
                        let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
                        match tls {
                            None => serve(conn, &seen, &*handler, &counter),
                            Some(config) => {
                                let Ok(session) = rustls::ServerConnection::new(config) else {
                                    return;
                                };
                                let stream = rustls::StreamOwned::new(session, conn);
                                serve(stream, &seen, &*handler, &counter)
                            }
                        }
                    });
                }
            });
        }
        TestServer {
            addr,
            tls: is_tls,
            seen,
            stop,
        }
    }

    /// Answers the requests in order from `script`; past its end, with 500.
    pub fn scripted(script: Vec<Reply>) -> TestServer {
        TestServer::start(move |i, _| {
            script
                .get(i)
                .cloned()
                .unwrap_or_else(|| Reply::json(500, "script exhausted"))
        })
    }

    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }
    pub fn spot_url(&self) -> String {
        format!("{}/v3", self.url())
    }
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.addr);
    }
}

/// A connection the server can close (plain TCP, or TLS over TCP).
trait Conn: Read + Write {
    fn close(&mut self);
}

impl Conn for TcpStream {
    fn close(&mut self) {
        let _ = self.shutdown(std::net::Shutdown::Both);
    }
}

impl Conn for rustls::StreamOwned<rustls::ServerConnection, TcpStream> {
    fn close(&mut self) {
        let _ = self.flush();
        let _ = self.sock.shutdown(std::net::Shutdown::Both);
    }
}

fn serve<C: Conn>(conn: C, seen: &Mutex<Vec<Seen>>, handler: &Handler, counter: &AtomicUsize) {
    // Requests are answered one at a time, so one buffered stream serves both directions.
    let mut reader = BufReader::new(conn);
    loop {
        let Some(req) = read_request(&mut reader) else {
            return;
        };
        seen.lock().unwrap().push(req.clone());
        let i = counter.fetch_add(1, Ordering::SeqCst);
        if !answer(reader.get_mut(), handler(i, &req)) {
            return;
        }
    }
}

/// Writes a reply; false when the connection must close.
fn answer<C: Conn>(out: &mut C, reply: Reply) -> bool {
    match reply {
        Reply::Http {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len());
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            out.write_all(head.as_bytes()).is_ok()
                && out.write_all(&body).is_ok()
                && out.flush().is_ok()
        }
        Reply::Truncated { status, body } => {
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            let _ = out.write_all(head.as_bytes());
            let _ = out.write_all(&body[..body.len() / 2]);
            let _ = out.flush();
            out.close();
            false
        }
        Reply::Stall {
            status,
            body,
            stall,
        } => {
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            let _ = out.write_all(head.as_bytes());
            let _ = out.write_all(&body[..body.len() / 2]);
            let _ = out.flush();
            thread::sleep(stall);
            out.close();
            false
        }
        Reply::Drop => {
            out.close();
            false
        }
        Reply::Delay(d, inner) => {
            thread::sleep(d);
            answer(out, *inner)
        }
    }
}

fn read_request<R: Read>(r: &mut BufReader<R>) -> Option<Seen> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Seen {
        method,
        target,
        headers,
        body,
    })
}

/// Independent HMAC-SHA256 hex (not the core's signer).
pub fn hmac_hex(secret: &str, text: &[u8]) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(text);
    hex::encode(mac.finalize().into_bytes())
}

pub const BOOK: &str =
    r#"{"bids":[[30000.5,"0.25"]],"asks":[[30001,1e-07]],"date":1700000000,"code":0}"#;

/// The test CA's certificate (DER): the root that signs the TLS server's certificate.
pub fn test_ca_der() -> Vec<u8> {
    use rustls::pki_types::{pem::PemObject, CertificateDer};
    CertificateDer::from_pem_slice(include_bytes!("../data/ca.pem"))
        .unwrap()
        .to_vec()
}

fn tls_server_config() -> Arc<rustls::ServerConfig> {
    use rustls::pki_types::{pem::PemObject, CertificateDer, PrivateKeyDer};
    let chain =
        vec![CertificateDer::from_pem_slice(include_bytes!("../data/localhost.pem")).unwrap()];
    let key = PrivateKeyDer::from_pem_slice(include_bytes!("../data/localhost.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .unwrap();
    Arc::new(config)
}

/// A shared buffer collecting what a log subscriber writes.
#[derive(Clone, Default)]
pub struct LogBuf(Arc<Mutex<Vec<u8>>>);

impl LogBuf {
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl Write for LogBuf {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
