//! Public market data: an order book (spot) and the server time (swap), fetched concurrently.
//!
//! `cargo run -p digifinex-hyper --example async_public_data` (needs the network), or against the
//! simulator: `DIGIFINEX_SPOT_URL=http://127.0.0.1:PORT/v3 DIGIFINEX_SWAP_URL=http://127.0.0.1:PORT`.
use digifinex_hyper::core::spot::OrderBookRequest;
use digifinex_hyper::core::swap;
use digifinex_hyper::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = Client::builder();
    if let Ok(url) = std::env::var("DIGIFINEX_SPOT_URL") {
        builder = builder.spot_base_url(url).allow_http(true);
    }
    if let Ok(url) = std::env::var("DIGIFINEX_SWAP_URL") {
        builder = builder.swap_base_url(url).allow_http(true);
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
