//! Signed order placements per second against the simulator on loopback, with the order flow
//! running and, as the baseline in the same run, on still markets.
//!
//! `cargo bench -p digifinex-sim --bench orders` (target: at least 30,000/s on 2 cores with the
//! flow running). Each client thread keeps one HTTP/1.1 connection alive and sends signed
//! form-encoded `POST /v3/spot/order/new` requests (resting limit buys far below the market),
//! checking every answer's code. The flow run's clock goes at 60 times real time, so every
//! market's flow (about 7 events a second each) runs a simulated minute per wall second while
//! the placements go on.

use digifinex_sim::{AccountType, Control, KeyOptions, Sim, SimConfig};
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

fn client(addr: SocketAddr, key: String, secret: String, n: usize, clock: Control) -> usize {
    let stream = TcpStream::connect(addr).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut w = stream.try_clone().expect("clone");
    let mut r = BufReader::new(stream);
    let mut ok = 0;
    for i in 0..n {
        let ts = clock.now_ms() / 1000;
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

/// Placements per second with `config`, the clock running at `speed`.
fn run(config: SimConfig, speed: Decimal, label: &str) -> f64 {
    let sim = Sim::start(config.without_limits()).expect("sim");
    let ctl = sim.control();
    ctl.set_clock_speed(speed).expect("speed");
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
    let addr = sim.addr();
    // Warm up.
    let (_, k) = &accounts[0];
    client(addr, k.key.clone(), k.secret.clone(), 500, ctl.clone());
    let events = ctl.flow_events();
    let start = Instant::now();
    let handles: Vec<_> = accounts
        .iter()
        .map(|(_, k)| {
            let (key, secret, c) = (k.key.clone(), k.secret.clone(), ctl.clone());
            std::thread::spawn(move || client(addr, key, secret, per_thread, c))
        })
        .collect();
    let ok: usize = handles.into_iter().map(|h| h.join().expect("thread")).sum();
    let secs = start.elapsed().as_secs_f64();
    let flow = ctl.flow_events() - events;
    assert_eq!(ok, threads * per_thread, "every placement succeeds");
    let rate = ok as f64 / secs;
    println!(
        "{label}: {ok} signed order placements in {secs:.3} s = {rate:.0}/s \
         ({threads} keep-alive connections; {flow} flow events meanwhile)"
    );
    rate
}

fn main() {
    let still = run(
        SimConfig::default().without_flow(),
        Decimal::ONE,
        "still markets",
    );
    let flow = run(
        SimConfig::default(),
        Decimal::from(60),
        "order flow, clock x60",
    );
    println!("ratio with the flow / still: {:.2}", flow / still);
}
