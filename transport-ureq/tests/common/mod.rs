//! What the blocking client's test binaries share: the test credentials, a client builder
//! pointed at a scripted server, an order.
#![allow(dead_code)]

use std::time::Duration;

use digifinex_core::policy::RetryPolicy;
use digifinex_core::spot::{LimitOrder, Market, PlaceOrderRequest};
use digifinex_core::{Credentials, Decimal};
use digifinex_ureq::Client;

use crate::support::TestServer;

pub const KEY: &str = "test-key";
pub const SECRET: &str = "test-secret";

pub fn client(server: &TestServer) -> digifinex_ureq::ClientBuilder {
    Client::builder()
        .spot_base_url(server.spot_url())
        .swap_base_url(server.url())
        .allow_http(true)
        .credentials(Credentials::new(KEY, SECRET))
        .retry_policy(RetryPolicy {
            base_delay: Duration::from_millis(20),
            ..RetryPolicy::default()
        })
}

pub fn order() -> PlaceOrderRequest {
    PlaceOrderRequest::new(
        Market::Spot,
        "btc_usdt",
        LimitOrder::buy(
            digifinex_core::Amount::new(Decimal::new(1, 2)),
            digifinex_core::Price::new(Decimal::new(30000, 0)),
        ),
    )
}
