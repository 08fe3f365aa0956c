//! Replays a recorded market (by default the sample in `tests/data/`, three minutes of
//! `icp_usdt` and `ICPUSDTPERP`) at 60 times real time and prints the market as a client sees
//! it through the public endpoints, twice per simulated half minute.
//!
//! `cargo run -p digifinex-sim --example replay [-- FILE [SPEED]]`

use digifinex_sim::market::{MarketConfig, Reader};
use digifinex_sim::{Sim, SimConfig};
use rust_decimal::Decimal;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::str::FromStr;
use std::time::Duration;

/// A plain HTTP GET; the JSON body.
fn get(addr: SocketAddr, target: &str) -> serde_json::Value {
    let mut s = TcpStream::connect(addr).expect("connect");
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    let body = out.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    serde_json::from_str(body).expect("JSON body")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/sample-icp.jsonl.gz"
        )
        .to_owned()
    });
    let speed = args
        .next()
        .map(|s| Decimal::from_str(&s).expect("SPEED is a number"))
        .unwrap_or(Decimal::from(60));
    let header = Reader::open(&file).expect("a recording").header().clone();
    println!("recording: {file}");
    if let Some(source) = &header.source {
        println!("source: {source}");
    }
    let config = SimConfig {
        market: Some(MarketConfig::file(&file).with_speed(speed)),
        ..SimConfig::default().without_limits()
    };
    let sim = Sim::start(config).expect("simulator starts");
    let ctl = sim.control();
    let addr = sim.addr();
    let pair = header
        .spot
        .first()
        .map_or("btc_usdt".to_owned(), |p| p.symbol.clone());
    let perp = header
        .swap
        .first()
        .map_or("BTCUSDTPERP".to_owned(), |s| s.instrument_id.clone());
    let start = ctl.now_ms();
    println!("replaying at {speed}x from {start} ms; {pair} and {perp}");
    println!("sim s  | spot bid   ask      last     trades | perp mark  index   funding");
    loop {
        let book = get(addr, &format!("/v3/order_book?symbol={pair}&limit=1"));
        let trades = get(addr, &format!("/v3/trades?symbol={pair}&limit=500"));
        let ticker = get(
            addr,
            &format!("/swap/v2/public/ticker?instrument_id={perp}"),
        );
        let funding = get(
            addr,
            &format!("/swap/v2/public/funding_rate?instrument_id={perp}"),
        );
        let list = trades["data"].as_array().map_or(0, Vec::len);
        println!(
            "{:>6} | {:<9} {:<8} {:<8} {:>6} | {:<9} {:<7} {}",
            (ctl.now_ms() - start) / 1000,
            book["bids"][0][0].to_string(),
            book["asks"][0][0].to_string(),
            trades["data"][0]["price"].to_string(),
            list,
            ticker["data"]["mark_price"].as_str().unwrap_or("-"),
            ticker["data"]["index_price"].as_str().unwrap_or("-"),
            funding["data"]["next_funding_rate"].as_str().unwrap_or("-"),
        );
        if ctl.now_ms() - start > 185_000 {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let kline = get(
        addr,
        &format!("/v3/kline?symbol={pair}&period=1&start_time=1706763600&end_time=1706763780"),
    );
    println!(
        "1-minute candles [time, volume, close, high, low, open]: {}",
        kline["data"]
    );
}
