//! How long a REST request takes while the simulator's clock runs fast or has just jumped: the
//! catch-up work a request does is bounded (the market drivers advance in bounded steps), so
//! the answer comes in bounded time at any speed.
//!
//! `cargo bench -p digifinex-sim --bench latency`. Each case answers `GET
//! /v3/order_book?symbol=btc_usdt&limit=20` over one kept-alive loopback connection:
//!
//! - `baseline_still`: still markets (no order flow) at speed 1, the request's own cost;
//! - `flow_speed_1`, `flow_speed_1000`, `flow_speed_10000`: the default markets with their order
//!   flow, the clock at 1, 1,000 and 10,000 times real time (requests back to back);
//! - `after_30_day_jump`: a frozen clock moved 30 days by `POST /__sim/clock` (which starts the
//!   catch-up with one step) and the first request after it, together.
//!
//! It also prints, once, the median and the slowest of 20 requests spaced 100 ms apart (a bot
//! polling 10 times a second: each request then covers 100 ms of wall time, 1,000 s of simulated
//! time at 10,000) for each speed, and the first request after a 30-day jump. Run in a debug
//! build (`cargo test -p digifinex-sim --bench latency`) it prints the same figures for the
//! unoptimised code.

use criterion::{criterion_group, criterion_main, Criterion};
use digifinex_sim::{Sim, SimConfig, SimHandle};
use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

const BOOK: &str = "/v3/order_book?symbol=btc_usdt&limit=20";
const START: i64 = 1_800_000_000_000;
const MONTH: i64 = 30 * 86_400_000;

/// One kept-alive HTTP/1.1 connection.
struct Conn {
    addr: SocketAddr,
    w: TcpStream,
    r: BufReader<TcpStream>,
}

impl Conn {
    fn new(addr: SocketAddr) -> Conn {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        let w = stream.try_clone().expect("clone");
        Conn {
            addr,
            w,
            r: BufReader::new(stream),
        }
    }

    /// One request; its body (status 200 checked).
    fn call(&mut self, method: &str, target: &str, body: &str) -> Vec<u8> {
        let req = format!(
            "{method} {target} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        self.w.write_all(req.as_bytes()).expect("write");
        let mut line = String::new();
        self.r.read_line(&mut line).expect("status");
        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
        let mut len = 0usize;
        loop {
            line.clear();
            self.r.read_line(&mut line).expect("header");
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
        buf
    }

    fn book(&mut self) -> Vec<u8> {
        let b = self.call("GET", BOOK, "");
        assert!(
            b.ends_with(b"\"code\":0}"),
            "{}",
            String::from_utf8_lossy(&b)
        );
        b
    }
}

fn running(speed: i64, flow: bool) -> SimHandle {
    let config = SimConfig {
        clock_speed: speed.into(),
        ..SimConfig::default().without_limits()
    };
    Sim::start(if flow { config } else { config.without_flow() }).expect("sim")
}

fn frozen() -> SimHandle {
    Sim::start(SimConfig {
        start_time_ms: Some(START),
        ..SimConfig::default().without_limits()
    })
    .expect("sim")
}

/// A 30-day jump through the HTTP control API, then the first request.
fn jump_and_ask(c: &mut Conn) -> Vec<u8> {
    c.call(
        "POST",
        "/__sim/clock",
        &format!(r#"{{"advance_ms": {MONTH}}}"#),
    );
    c.book()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Prints the figures the docs quote.
fn figures() {
    for (name, speed, flow) in [
        ("still, speed 1", 1, false),
        ("flow, speed 1", 1, true),
        ("flow, speed 1,000", 1_000, true),
        ("flow, speed 10,000", 10_000, true),
    ] {
        let sim = running(speed, flow);
        let mut c = Conn::new(sim.addr());
        c.book();
        let mut took: Vec<Duration> = (0..20)
            .map(|_| {
                std::thread::sleep(Duration::from_millis(100));
                let t = Instant::now();
                black_box(c.book());
                t.elapsed()
            })
            .collect();
        took.sort();
        println!(
            "{name}: a request every 100 ms answers in {:.2} ms (median), {:.2} ms (slowest of 20)",
            ms(took[10]),
            ms(took[19])
        );
    }
    let sim = frozen();
    let mut c = Conn::new(sim.addr());
    c.book();
    let mut took: Vec<(Duration, Duration)> = (0..5)
        .map(|_| {
            let t = Instant::now();
            c.call(
                "POST",
                "/__sim/clock",
                &format!(r#"{{"advance_ms": {MONTH}}}"#),
            );
            let jumped = t.elapsed();
            let t = Instant::now();
            black_box(c.book());
            (jumped, t.elapsed())
        })
        .collect();
    took.sort();
    println!(
        "30-day jump: the control call {:.2} ms, the first request after it {:.2} ms (median of 5)",
        ms(took[2].0),
        ms(took[2].1)
    );
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("request_latency");
    g.sample_size(20);
    for (name, speed, flow) in [
        ("baseline_still", 1, false),
        ("flow_speed_1", 1, true),
        ("flow_speed_1000", 1_000, true),
        ("flow_speed_10000", 10_000, true),
    ] {
        let sim = running(speed, flow);
        let mut conn = Conn::new(sim.addr());
        g.bench_function(name, |b| b.iter(|| black_box(conn.book())));
    }
    let sim = frozen();
    let mut conn = Conn::new(sim.addr());
    g.bench_function("after_30_day_jump", |b| {
        b.iter(|| black_box(jump_and_ask(&mut conn)))
    });
    g.finish();
}

fn all(c: &mut Criterion) {
    figures();
    bench(c);
}

criterion_group!(benches, all);
criterion_main!(benches);
