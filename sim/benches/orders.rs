//! Signed order placements per second against the simulator on loopback.
//!
//! `cargo bench -p digifinex-sim --bench orders` (target: at least 5,000/s on 2 cores). Each
//! client thread keeps one HTTP/1.1 connection alive and sends signed form-encoded
//! `POST /v3/spot/order/new` requests (resting limit buys), checking every answer's code.

use digifinex_sim::{AccountType, KeyOptions, Sim, SimConfig};
use hmac::{Hmac, KeyInit, Mac};
use rust_decimal::Decimal;
use sha2::Sha256;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

fn sign(secret: &str, text: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("hmac key");
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

fn client(addr: SocketAddr, key: String, secret: String, n: usize, ts: i64) -> usize {
    let stream = TcpStream::connect(addr).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut w = stream.try_clone().expect("clone");
    let mut r = BufReader::new(stream);
    let mut ok = 0;
    for i in 0..n {
        let price = 20000 + (i % 100);
        let body = format!("symbol=btc_usdt&type=buy&price={price}&amount=0.0001");
        let req = format!(
            "POST /v3/spot/order/new HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nACCESS-KEY: {key}\r\nACCESS-SIGN: {}\r\nACCESS-TIMESTAMP: {ts}\r\n\r\n{body}",
            body.len(),
            sign(&secret, &body)
        );
        w.write_all(req.as_bytes()).expect("write");
        let mut len = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            r.read_line(&mut line).expect("read");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().expect("length");
                }
            }
        }
        let mut buf = vec![0; len];
        r.read_exact(&mut buf).expect("body");
        if buf.starts_with(b"{\"code\":0") {
            ok += 1;
        }
    }
    ok
}

fn main() {
    let config = SimConfig {
        start_time_ms: Some(1_800_000_000_000),
        ..SimConfig::default()
    }
    .without_limits();
    let sim = Sim::start(config).expect("sim");
    let ctl = sim.control();
    let threads = 2;
    let per_thread = 10_000;
    let mut accounts = Vec::new();
    for _ in 0..threads {
        let a = ctl.create_account();
        ctl.set_balance(a, AccountType::Spot, "USDT", Decimal::from(1_000_000_000))
            .expect("fund");
        let k = ctl.create_api_key(a, KeyOptions::all()).expect("key");
        accounts.push((a, k));
    }
    let ts = ctl.now_ms() / 1000;
    let addr = sim.addr();
    // Warm up.
    let (_, k) = &accounts[0];
    client(addr, k.key.clone(), k.secret.clone(), 500, ts);
    let start = Instant::now();
    let handles: Vec<_> = accounts
        .iter()
        .map(|(_, k)| {
            let (key, secret) = (k.key.clone(), k.secret.clone());
            std::thread::spawn(move || client(addr, key, secret, per_thread, ts))
        })
        .collect();
    let ok: usize = handles.into_iter().map(|h| h.join().expect("thread")).sum();
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(ok, threads * per_thread, "every placement succeeds");
    println!(
        "signed order placements: {ok} in {secs:.3} s = {:.0}/s ({threads} keep-alive connections)",
        ok as f64 / secs
    );
}
