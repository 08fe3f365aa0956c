//! Instructions per request (callgrind), which stay exact on a busy machine where the
//! round-trip benches' wall-clock ratios drift:
//!
//! ```sh
//! cargo bench -p digifinex-hyper --bench instructions --no-run   # prints the binary's path
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p BINARY OP N
//! ```
//!
//! runs `N` public GETs one after another through `OP`: `raw` (raw hyper-util, bytes only),
//! `raw_core` (raw hyper-util with the core's `build` and `parse` by hand), `raw_core_timed`
//! (the same inside one `tokio::time::timeout`: the floor of a client that bounds its waits),
//! `client` (the
//! client) or `client_untimed` (the client without its read and total limits), on a
//! current-thread runtime against the loopback server of the `roundtrip` bench. The per-request
//! cost is the difference between `N` and `0` requests, divided by `N` (the server's threads
//! are counted too, the same for every `OP`). Without arguments (as `cargo bench` runs it)
//! each runs once, as a check that it still works.
use std::hint::black_box;

mod sides;
mod support;

use sides::{raw_core_get, raw_core_timed_get, raw_get, Sides};

const OPS: [&str; 5] = [
    "raw",
    "raw_core",
    "raw_core_timed",
    "client",
    "client_untimed",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (ops, n): (Vec<&str>, u64) = match (args.first(), args.get(1)) {
        (Some(op), Some(n)) if !op.starts_with('-') => {
            (vec![op.as_str()], n.parse().expect("N is a count"))
        }
        _ => (OPS.to_vec(), 1),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let base = support::server();
    rt.block_on(async {
        let Sides {
            url,
            client,
            raw,
            untimed,
            config,
            req,
        } = sides::sides(&base);
        for op in ops {
            // One request first, outside the count: the connection is opened and pooled.
            let _ = raw_get(&raw, &url).await;
            for _ in 0..n {
                match op {
                    "raw" => drop(black_box(raw_get(&raw, &url).await)),
                    "raw_core" => drop(black_box(raw_core_get(&raw, &config, &req).await)),
                    "raw_core_timed" => {
                        drop(black_box(raw_core_timed_get(&raw, &config, &req).await))
                    }
                    "client" => drop(black_box(client.send(&req).await.unwrap())),
                    "client_untimed" => drop(black_box(untimed.send(&req).await.unwrap())),
                    other => panic!("unknown op {other}; ops: {OPS:?}"),
                }
            }
        }
    });
}
