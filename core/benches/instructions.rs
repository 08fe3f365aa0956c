//! The hot paths and their baselines as a plain program, for instruction counts (callgrind),
//! which stay exact on a busy machine where wall-clock ratios drift:
//!
//! ```sh
//! cargo bench -p digifinex-core --bench instructions --no-run   # prints the binary's path
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p BINARY OP N
//! ```
//!
//! runs `OP` `N` times (the per-call cost is the difference between `N` and `0` calls, divided
//! by `N`); `BINARY list` names the operations; `BINARY time N ROUNDS OP...` times operations
//! taking turns in one process (the fastest round of each, in ns per call). Without arguments
//! (as `cargo bench` runs it) every operation runs once, as a check that each still works.
//! CONTRIBUTING.md ("Performance") has the per-stage table and the commands that make it.
//!
//! Note: valgrind hides the SHA extensions of the CPU, so under callgrind SHA-256 runs its
//! portable code: the HMAC baselines cost more instructions there than they take time natively.

use std::hint::black_box;

use digifinex_core::spot::{KlineRequest, OrderBookRequest, SpotSymbolsRequest};
use digifinex_core::swap::{CandlesRequest, DepthRequest};
use digifinex_core::ws::Frame;
use digifinex_core::{build, parse, Config, Credentials, Family};

mod data;
use data::*;

type Op = Box<dyn FnMut()>;

fn ops() -> Vec<(&'static str, Op)> {
    let creds = Credentials::new(KEY, SECRET);
    let cfg = Config::default();
    let spot = spot_order();
    let swap = swap_order();
    let spot_text = spot_text();
    let swap_text = swap_text();
    let keyed = keyed();
    let book = order_book_body(150);
    let klines = kline_body(500);
    let symbols = symbols_body();
    let depth = depth_body(100);
    let candles = candles_body(100);
    let ws_depth = zlib(&depth_delta());
    let ws_ticker = zlib(TICKER);
    let mut buf = Vec::new();

    let mut out: Vec<(&'static str, Op)> = Vec::new();
    macro_rules! op {
        ($name:literal, [$($v:ident),*], $body:expr) => {{
            $(let $v = $v.clone();)*
            out.push(($name, Box::new(move || {
                black_box($body);
            })));
        }};
    }
    op!(
        "spot_hmac_hex",
        [],
        hmac_hex(black_box(SECRET.as_bytes()), black_box(spot_text))
    );
    op!(
        "spot_hmac_hex_keyed",
        [keyed],
        hmac_hex_keyed(&keyed, black_box(spot_text))
    );
    op!(
        "spot_build_sign",
        [spot, cfg, creds],
        build(black_box(&spot), &cfg, Some(&creds), SPOT_NOW).unwrap()
    );
    // The floor of the output type (see `data::Floor`).
    {
        let floor = Floor::spot();
        out.push((
            "spot_request_floor",
            Box::new(move || {
                black_box(floor.request());
            }),
        ));
    }
    {
        let floor = Floor::swap();
        out.push((
            "swap_request_floor",
            Box::new(move || {
                black_box(floor.request());
            }),
        ));
    }
    op!(
        "swap_hmac_hex",
        [swap_text],
        hmac_hex(black_box(SECRET.as_bytes()), black_box(&swap_text))
    );
    op!(
        "swap_hmac_hex_keyed",
        [keyed, swap_text],
        hmac_hex_keyed(&keyed, black_box(&swap_text))
    );
    op!(
        "swap_build_sign",
        [swap, cfg, creds],
        build(black_box(&swap), &cfg, Some(&creds), SWAP_NOW).unwrap()
    );
    op!(
        "book_f64",
        [book],
        serde_json::from_slice::<F64Book>(black_box(&book)).unwrap()
    );
    op!(
        "book_exact",
        [book],
        parse::<OrderBookRequest>(&response(black_box(&book))).unwrap()
    );
    op!(
        "klines_f64",
        [klines],
        serde_json::from_slice::<F64Klines>(black_box(&klines)).unwrap()
    );
    op!(
        "klines_exact",
        [klines],
        parse::<KlineRequest>(&response(black_box(&klines))).unwrap()
    );
    op!(
        "symbols_f64",
        [symbols],
        serde_json::from_slice::<F64Symbols>(black_box(&symbols)).unwrap()
    );
    op!(
        "symbols_exact",
        [symbols],
        parse::<SpotSymbolsRequest>(&response(black_box(&symbols))).unwrap()
    );
    op!(
        "depth_f64",
        [depth],
        serde_json::from_slice::<F64Envelope<F64Depth>>(black_box(&depth)).unwrap()
    );
    op!(
        "depth_exact",
        [depth],
        parse::<DepthRequest>(&response(black_box(&depth))).unwrap()
    );
    op!(
        "candles_f64",
        [candles],
        serde_json::from_slice::<F64Envelope<F64Candles>>(black_box(&candles)).unwrap()
    );
    op!(
        "candles_exact",
        [candles],
        parse::<CandlesRequest>(&response(black_box(&candles))).unwrap()
    );
    {
        let z = ws_depth.clone();
        let mut buf = buf.clone();
        out.push((
            "ws_depth_f64",
            Box::new(move || {
                black_box(ws_depth_f64(black_box(&z), &mut buf));
            }),
        ));
    }
    op!(
        "ws_depth_exact",
        [ws_depth],
        digifinex_core::ws::decode_frame(Family::Swap, Frame::Binary(black_box(&ws_depth)))
            .unwrap()
    );
    {
        let z = ws_ticker.clone();
        out.push((
            "ws_ticker_f64",
            Box::new(move || {
                black_box(ws_ticker_f64(black_box(&z), &mut buf));
            }),
        ));
    }
    op!(
        "ws_ticker_exact",
        [ws_ticker],
        digifinex_core::ws::decode_frame(Family::Swap, Frame::Binary(black_box(&ws_ticker)))
            .unwrap()
    );
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut ops = ops();
    match args.first().map(String::as_str) {
        Some("list") => {
            for (name, _) in &ops {
                println!("{name}");
            }
        }
        // `BINARY time N ROUNDS OP...`: each operation `N` times per round, the operations
        // taking turns, and the fastest round of each (ns per call); turns in one process keep
        // the ratios steady where a machine's speed drifts between runs.
        Some("time") => {
            let count = |i: usize, default: u32| {
                args.get(i).and_then(|n| n.parse().ok()).unwrap_or(default)
            };
            let (n, rounds) = (count(1, 20_000), count(2, 15));
            let names = args.get(3..).unwrap_or_default();
            let mut best = vec![f64::INFINITY; names.len()];
            for _ in 0..rounds {
                for (name, best) in names.iter().zip(&mut best) {
                    let Some((_, op)) = ops.iter_mut().find(|(n, _)| n == name) else {
                        eprintln!("unknown operation {name:?} (`list` names them)");
                        std::process::exit(2);
                    };
                    // A benchmark reads the wall clock; the core's no-clock lint is for the library.
                    #[allow(clippy::disallowed_methods)]
                    let start = std::time::Instant::now();
                    for _ in 0..n {
                        op();
                    }
                    *best = best.min(start.elapsed().as_secs_f64() * 1e9 / f64::from(n));
                }
            }
            for (name, best) in names.iter().zip(&best) {
                println!("{name} {best:.0} ns");
            }
        }
        Some(name) if !name.starts_with('-') => {
            let n: u64 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
            let Some((_, op)) = ops.iter_mut().find(|(n, _)| *n == name) else {
                eprintln!("unknown operation {name:?} (`list` names them)");
                std::process::exit(2);
            };
            for _ in 0..n {
                op();
            }
        }
        // `cargo bench` (`--bench`) or no argument: each operation once.
        _ => {
            for (_, op) in &mut ops {
                op();
            }
        }
    }
}
