//! The perpetual swap v2 and copy-trading family (`/swap/v2/...`).
//!
//! Not implemented yet: every swap path answers HTTP 404 with a swap-style body. The next step
//! adds the routes here, reusing the shared pieces: [`crate::accounts`] (accounts, keys,
//! [`crate::AccountType::Swap`] balances, finance log), [`crate::clock`], [`crate::faults`]
//! (applied by the server before routing), [`crate::limiter::WeightLimiter`] (with its own
//! per-route weights and usage headers), [`crate::json::J`] (decimals as strings via
//! [`crate::json::J::dec_str`]) and [`crate::wire`].

use crate::json::J;
use crate::server::Shared;
use crate::wire::{SimRequest, SimResponse};
use std::sync::Arc;

/// Handles a request under `/swap/`.
pub fn handle(_shared: &Arc<Shared>, _req: &SimRequest) -> SimResponse {
    // swap routes are added here
    SimResponse::json(
        404,
        &J::obj()
            .with("code", 400002)
            .with("msg", "swap endpoints are not simulated yet"),
    )
}
