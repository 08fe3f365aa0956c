//! Public market data: an order book (spot) and the server time (swap), fetched concurrently.
//!
//! `cargo run -p digifinex-hyper --example async_public_data` asks the exchange (needs the
//! network). Against a running simulator (`cargo run -p digifinex-sim -- --addr 127.0.0.1:8080`),
//! set `DIGIFINEX_SIM_URL=http://127.0.0.1:8080` (its address: `swap_base_url` in what it prints).
use digifinex_hyper::core::spot::OrderBookRequest;
use digifinex_hyper::core::swap;
use digifinex_hyper::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = Client::builder();
    if let Ok(sim) = std::env::var("DIGIFINEX_SIM_URL") {
        // The simulator serves spot under `/v3` and swap at its root, over plain HTTP.
        builder = builder
            .spot_base_url(format!("{sim}/v3"))
            .swap_base_url(sim)
            .allow_http(true);
    }
    let client = builder.build()?;

    let book_req = OrderBookRequest::new("btc_usdt").limit(5);
    let (book, time) = tokio::join!(
        client.send_full(&book_req),
        client.send_full(&swap::ServerTimeRequest)
    );
    let book = book?;
    println!(
        "btc_usdt: {} bids, {} asks (HTTP {}, {} ms)",
        book.value.bids.len(),
        book.value.asks.len(),
        book.status,
        book.latency.as_millis()
    );
    // Best levels by price, whatever order the venue lists them in (asks come highest first).
    let price = |l: Option<&digifinex_hyper::core::spot::Level>| {
        l.map_or_else(|| "-".to_owned(), |l| format!("{} x {}", l.price, l.amount))
    };
    println!(
        "  best bid {}  best ask {}",
        price(book.value.best_bid()),
        price(book.value.best_ask())
    );
    let time = time?;
    println!(
        "swap server time {} ms, usage {:?}",
        time.value.0, time.usage
    );
    Ok(())
}
