#![allow(dead_code)]
//! Test helpers: a tiny HTTP/1.1 client over `std::net::TcpStream` and independent spot signing.

use digifinex_sim::{AccountId, Control, KeyOptions, Sim, SimConfig, SimHandle};
use hmac::{Hmac, KeyInit, Mac};
use rust_decimal::Decimal;
use serde_json::Value;
use sha2::Sha256;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::str::FromStr;
use std::time::Duration;

/// A parsed HTTP response.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
    pub fn code(&self) -> i64 {
        self.json()["code"].as_i64().expect("code")
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends raw bytes and reads until the server closes.
pub fn raw(addr: SocketAddr, request: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.write_all(request)?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    Ok(out)
}

/// Parses a complete response; `Err` when the connection closed early (no response or a body
/// shorter than its content-length).
pub fn parse(bytes: &[u8]) -> std::io::Result<Resp> {
    let eof = || std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "incomplete response");
    let pos = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(eof)?;
    let head = std::str::from_utf8(&bytes[..pos]).map_err(|_| eof())?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(eof)?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let body = bytes[pos + 4..].to_vec();
    if let Some((_, len)) = headers.iter().find(|(k, _)| k == "content-length") {
        let len: usize = len.parse().map_err(|_| eof())?;
        if body.len() < len {
            return Err(eof());
        }
    }
    Ok(Resp {
        status,
        headers,
        body,
    })
}

/// One request with `Connection: close`.
pub fn send(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, String)],
    body: &str,
) -> std::io::Result<Resp> {
    let mut req = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    parse(&raw(addr, req.as_bytes())?)
}

pub fn hmac_hex(secret: &str, text: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Form/query encoding of pairs (the test's own encoder).
pub fn encode(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", esc(k), esc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn esc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A simulator plus a funded account and key.
pub struct Env {
    pub sim: SimHandle,
    pub ctl: Control,
    pub account: AccountId,
    pub key: String,
    pub secret: String,
}

impl Env {
    /// A simulator with still markets (exact prices; the order flow has tests of its own).
    pub fn new() -> Env {
        Env::with_config(SimConfig::default().without_flow())
    }

    pub fn with_config(config: SimConfig) -> Env {
        let sim = Sim::start(config).expect("sim starts");
        let ctl = sim.control();
        let account = ctl.create_account();
        let keys = ctl.create_api_key(account, KeyOptions::all()).unwrap();
        Env {
            sim,
            ctl,
            account,
            key: keys.key,
            secret: keys.secret,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.sim.addr()
    }

    pub fn fund(&self, at: digifinex_sim::AccountType, cur: &str, amount: &str) {
        self.ctl
            .set_balance(self.account, at, cur, dec(amount))
            .unwrap();
    }

    pub fn free(&self, at: digifinex_sim::AccountType, cur: &str) -> Decimal {
        self.ctl.balance(self.account, at, cur).unwrap().free
    }

    pub fn frozen(&self, at: digifinex_sim::AccountType, cur: &str) -> Decimal {
        self.ctl.balance(self.account, at, cur).unwrap().frozen
    }

    /// Public GET under /v3.
    pub fn get(&self, path: &str, query: &[(&str, &str)]) -> Resp {
        let q = encode(query);
        let target = if q.is_empty() {
            format!("/v3{path}")
        } else {
            format!("/v3{path}?{q}")
        };
        send(self.addr(), "GET", &target, &[], "").unwrap()
    }

    /// Signed request with full control over the pieces.
    #[allow(clippy::too_many_arguments)]
    pub fn signed_with(
        &self,
        method: &str,
        path: &str,
        query: &str,
        body: &str,
        key: &str,
        secret: &str,
        ts: i64,
        extra: &[(&str, String)],
    ) -> Resp {
        let text = match (query.is_empty(), body.is_empty()) {
            (false, false) => format!("{query}&{body}"),
            (false, true) => query.to_owned(),
            (true, false) => body.to_owned(),
            (true, true) => String::new(),
        };
        let mut headers = vec![
            ("ACCESS-KEY", key.to_owned()),
            ("ACCESS-SIGN", hmac_hex(secret, &text)),
            ("ACCESS-TIMESTAMP", ts.to_string()),
        ];
        if method == "POST" {
            headers.push((
                "Content-Type",
                "application/x-www-form-urlencoded".to_owned(),
            ));
        }
        headers.extend(extra.iter().cloned());
        let target = if query.is_empty() {
            format!("/v3{path}")
        } else {
            format!("/v3{path}?{query}")
        };
        send(self.addr(), method, &target, &headers, body).unwrap()
    }

    pub fn now_s(&self) -> i64 {
        self.ctl.now_ms().div_euclid(1000)
    }

    pub fn sget(&self, path: &str, query: &[(&str, &str)]) -> Resp {
        self.signed_with(
            "GET",
            path,
            &encode(query),
            "",
            &self.key,
            &self.secret,
            self.now_s(),
            &[],
        )
    }

    pub fn spost(&self, path: &str, form: &[(&str, &str)]) -> Resp {
        self.signed_with(
            "POST",
            path,
            "",
            &encode(form),
            &self.key,
            &self.secret,
            self.now_s(),
            &[],
        )
    }

    /// Control API over HTTP.
    pub fn control(&self, method: &str, path: &str, body: &str) -> Resp {
        send(
            self.addr(),
            method,
            path,
            &[("Content-Type", "application/json".to_owned())],
            body,
        )
        .unwrap()
    }

    /// Best ask and bid (price, size) from /order_book, found by price (the venue lists asks
    /// highest first, so the best ask is the last).
    pub fn top(&self, symbol: &str) -> ((Decimal, Decimal), (Decimal, Decimal)) {
        let b = self
            .get("/order_book", &[("symbol", symbol), ("limit", "5")])
            .json();
        let lvls = |v: &Value| -> Vec<(Decimal, Decimal)> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|l| (num(&l[0]), num(&l[1])))
                .collect()
        };
        let ask = lvls(&b["asks"]).into_iter().min_by_key(|l| l.0).unwrap();
        let bid = lvls(&b["bids"]).into_iter().max_by_key(|l| l.0).unwrap();
        (ask, bid)
    }
}

pub fn dec(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

/// A JSON number or string as a Decimal.
pub fn num(v: &Value) -> Decimal {
    match v {
        Value::String(s) => Decimal::from_str(s).unwrap(),
        Value::Number(n) => {
            let t = n.to_string();
            Decimal::from_str(&t)
                .or_else(|_| Decimal::from_scientific(&t))
                .unwrap()
        }
        other => panic!("not a number: {other}"),
    }
}

// ---- swap helpers (own signing: ts + METHOD + path?query + body) ----

impl Env {
    pub fn swap_sign(
        &self,
        secret: &str,
        ts: &str,
        method: &str,
        target: &str,
        body: &str,
    ) -> String {
        hmac_hex(secret, &format!("{ts}{method}{target}{body}"))
    }

    /// Signed swap request with full control; `target` is `/swap/v2/...[?query]`.
    #[allow(clippy::too_many_arguments)]
    pub fn swap_signed_with(
        &self,
        method: &str,
        target: &str,
        body: &str,
        key: &str,
        secret: &str,
        ts_ms: i64,
        content_type: Option<&str>,
    ) -> Resp {
        let ts = ts_ms.to_string();
        let mut headers = vec![
            ("ACCESS-KEY", key.to_owned()),
            (
                "ACCESS-SIGN",
                self.swap_sign(secret, &ts, method, target, body),
            ),
            ("ACCESS-TIMESTAMP", ts),
        ];
        if let Some(ct) = content_type {
            headers.push(("Content-Type", ct.to_owned()));
        }
        send(self.addr(), method, target, &headers, body).unwrap()
    }

    /// Public swap GET.
    pub fn swget(&self, path: &str, query: &[(&str, &str)]) -> Resp {
        let q = encode(query);
        let target = if q.is_empty() {
            format!("/swap/v2{path}")
        } else {
            format!("/swap/v2{path}?{q}")
        };
        send(self.addr(), "GET", &target, &[], "").unwrap()
    }

    /// Signed swap GET.
    pub fn swsget(&self, path: &str, query: &[(&str, &str)]) -> Resp {
        let q = encode(query);
        let target = if q.is_empty() {
            format!("/swap/v2{path}")
        } else {
            format!("/swap/v2{path}?{q}")
        };
        self.swap_signed_with(
            "GET",
            &target,
            "",
            &self.key,
            &self.secret,
            self.ctl.now_ms(),
            None,
        )
    }

    /// Signed swap POST with a JSON body.
    pub fn swpost(&self, path: &str, body: &Value) -> Resp {
        self.swap_signed_with(
            "POST",
            &format!("/swap/v2{path}"),
            &body.to_string(),
            &self.key,
            &self.secret,
            self.ctl.now_ms(),
            Some("application/json"),
        )
    }

    /// `data` of a successful swap answer (panics with the body otherwise).
    pub fn ok_data(r: &Resp) -> Value {
        let j = r.json();
        assert_eq!(j["code"], 0, "{}", r.text());
        j["data"].clone()
    }
}

/// Standard base64 (the test's own).
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= c.len() {
                out.push(char::from(A[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The websocket signature (the test's own): base64 of HMAC-SHA256(secret, timestamp).
pub fn ws_signature(secret: &str, ts: &str) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(ts.as_bytes());
    base64(&mac.finalize().into_bytes())
}

/// A seeded generator for test data (splitmix64, the test's own).
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
}
