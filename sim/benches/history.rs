//! Whether a request costs the same whatever the account's history: one account places and
//! cancels `N` swap orders (and `N` spot orders) over one keep-alive connection, and the mean
//! cost of a place+cancel pair over the first 1,000 pairs is compared with the last 1,000.
//!
//! `cargo bench -p digifinex-sim --bench history` (`HISTORY_N` sets N, default 20,000 per
//! family). Prints `first 1000: .. us/pair, last 1000: .. us/pair, ratio ..` per family; the aim
//! is a ratio within 1.2. It also prints the process's resident memory (the simulator runs in
//! it; Linux `/proc/self/status`) at start and after each family, which stays bounded by
//! [`digifinex_sim::Retention`]: `HISTORY_KEEP` sets the finished orders and own trades kept per
//! account (default: the default retention, 100,000).

use digifinex_sim::{AccountType, KeyOptions, Retention, Sim, SimConfig};
use hmac::{Hmac, KeyInit, Mac};
use rust_decimal::Decimal;
use sha2::Sha256;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

fn sign(secret: &str, text: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("hmac key");
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// One keep-alive connection.
struct Conn {
    addr: SocketAddr,
    w: TcpStream,
    r: BufReader<TcpStream>,
}

impl Conn {
    fn new(addr: SocketAddr) -> Conn {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Conn {
            addr,
            w: stream.try_clone().expect("clone"),
            r: BufReader::new(stream),
        }
    }

    fn send(&mut self, target: &str, headers: &[(&str, String)], body: &str) -> String {
        let mut req = format!(
            "POST {target} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        self.w.write_all(req.as_bytes()).expect("write");
        let mut len = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            self.r.read_line(&mut line).expect("read");
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
        self.r.read_exact(&mut buf).expect("body");
        String::from_utf8(buf).expect("utf-8")
    }
}

/// The value of `"key":"..."` in a JSON answer.
fn field<'a>(json: &'a str, key: &str) -> &'a str {
    let at = json
        .find(&format!("\"{key}\":\""))
        .unwrap_or_else(|| panic!("{key} in {json}"));
    let rest = &json[at + key.len() + 4..];
    &rest[..rest.find('"').expect("closing quote")]
}

fn report(family: &str, times: &[Duration]) {
    let mean = |d: &[Duration]| d.iter().sum::<Duration>().as_secs_f64() * 1e6 / d.len() as f64;
    let first = mean(&times[..1000]);
    let last = mean(&times[times.len() - 1000..]);
    println!(
        "{family}: {} place+cancel pairs on one account; first 1000: {first:.1} us/pair, last 1000: {last:.1} us/pair, ratio {:.2}",
        times.len(),
        last / first
    );
}

/// `VmRSS` and `VmHWM` (peak) of this process in MiB, from `/proc/self/status`.
fn memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = |key: &str| -> Option<f64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    match (kib("VmRSS:"), kib("VmHWM:")) {
        (Some(rss), Some(peak)) => format!(
            "RSS {:.1} MiB (peak {:.1} MiB)",
            rss / 1024.0,
            peak / 1024.0
        ),
        _ => "RSS unknown (no /proc/self/status)".to_owned(),
    }
}

fn main() {
    let n: usize = std::env::var("HISTORY_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
        .max(2000);
    let mut retention = Retention::default();
    if let Some(keep) = std::env::var("HISTORY_KEEP")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        retention.finished_orders_per_account = keep;
        retention.own_trades_per_account = keep;
    }
    println!(
        "retention: {} finished orders and {} own trades per account",
        retention.finished_orders_per_account, retention.own_trades_per_account
    );
    let sim = Sim::start(
        SimConfig {
            start_time_ms: Some(1_800_000_000_000),
            retention,
            ..SimConfig::default()
        }
        .without_limits(),
    )
    .expect("sim");
    println!("start: {}", memory());
    let ctl = sim.control();
    let a = ctl.create_account();
    ctl.set_balance(a, AccountType::Spot, "USDT", Decimal::from(1_000_000_000))
        .expect("fund spot");
    ctl.set_balance(a, AccountType::Swap, "USDT", Decimal::from(1_000_000_000))
        .expect("fund swap");
    let k = ctl.create_api_key(a, KeyOptions::all()).expect("key");
    let mut conn = Conn::new(sim.addr());

    // Swap: a resting limit buy far under the market, then its cancel.
    let ts = ctl.now_ms().to_string();
    let swap_headers = |path: &str, body: &str| {
        vec![
            ("Content-Type", "application/json".to_owned()),
            ("ACCESS-KEY", k.key.clone()),
            (
                "ACCESS-SIGN",
                sign(&k.secret, &format!("{ts}POST{path}{body}")),
            ),
            ("ACCESS-TIMESTAMP", ts.clone()),
        ]
    };
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let place =
            r#"{"instrument_id":"BTCUSDTPERP","type":1,"order_type":0,"size":1,"price":"10000"}"#;
        let path = "/swap/v2/trade/order_place";
        let answer = conn.send(path, &swap_headers(path, place), place);
        let id = field(&answer, "data").to_owned();
        let cancel = format!(r#"{{"instrument_id":"BTCUSDTPERP","order_id":"{id}"}}"#);
        let path = "/swap/v2/trade/cancel_order";
        let answer = conn.send(path, &swap_headers(path, &cancel), &cancel);
        assert!(answer.starts_with("{\"code\":0"), "{answer}");
        times.push(start.elapsed());
    }
    report("swap", &times);
    println!("after swap: {}", memory());

    // Spot: the same with a resting limit buy and `order/cancel`.
    let ts = (ctl.now_ms() / 1000).to_string();
    let spot_headers = |body: &str| {
        vec![
            (
                "Content-Type",
                "application/x-www-form-urlencoded".to_owned(),
            ),
            ("ACCESS-KEY", k.key.clone()),
            ("ACCESS-SIGN", sign(&k.secret, body)),
            ("ACCESS-TIMESTAMP", ts.clone()),
        ]
    };
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let place = "symbol=btc_usdt&type=buy&price=10000&amount=0.001";
        let answer = conn.send("/v3/spot/order/new", &spot_headers(place), place);
        let id = field(&answer, "order_id").to_owned();
        let cancel = format!("order_id={id}");
        let answer = conn.send("/v3/spot/order/cancel", &spot_headers(&cancel), &cancel);
        assert!(answer.starts_with("{\"code\":0"), "{answer}");
        times.push(start.elapsed());
    }
    report("spot", &times);
    println!("after spot: {}", memory());
}
