//! Public market data: an order book (spot) and the server time (swap).
//!
//! `cargo run -p digifinex-ureq --example public_data` asks the exchange (needs the network).
//! Against a running simulator (`cargo run -p digifinex-sim -- --addr 127.0.0.1:8080`), set
//! `DIGIFINEX_SIM_URL=http://127.0.0.1:8080` (its address: `swap_base_url` in what it prints).
use digifinex_ureq::core::spot::OrderBookRequest;
use digifinex_ureq::core::swap;
use digifinex_ureq::Client;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = Client::builder();
    if let Ok(sim) = std::env::var("DIGIFINEX_SIM_URL") {
        // The simulator serves spot under `/v3` and swap at its root, over plain HTTP.
        builder = builder
            .spot_base_url(format!("{sim}/v3"))
            .swap_base_url(sim)
            .allow_http(true);
    }
    let client = builder.build()?;

    let book = client.send_full(&OrderBookRequest::new("btc_usdt").limit(5))?;
    println!(
        "btc_usdt: {} bids, {} asks (HTTP {}, {} ms, {} attempt(s))",
        book.value.bids.len(),
        book.value.asks.len(),
        book.status,
        book.latency.as_millis(),
        book.attempts
    );
    // Best levels by price, whatever order the venue lists them in (asks come highest first).
    let price = |l: Option<&digifinex_ureq::core::spot::Level>| {
        l.map_or_else(|| "-".to_owned(), |l| format!("{} x {}", l.price, l.amount))
    };
    println!(
        "  best bid {}  best ask {}",
        price(book.value.best_bid()),
        price(book.value.best_ask())
    );

    let time = client.send_full(&swap::ServerTimeRequest)?;
    println!(
        "swap server time {} ms, usage {:?}",
        time.value.0, time.usage
    );
    Ok(())
}
