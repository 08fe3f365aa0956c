//! Integration tests: the simulator driven over real loopback HTTP with hand-built signed
//! requests (no project crate involved).

mod auth;
mod common;
mod control;
mod faults;
mod fill_models;
mod hardening;
mod invariants;
mod layers;
mod limits;
mod market;
mod market_replay;
mod market_ws_replay;
mod options;
mod parity;
mod retention;
mod routing;
mod spot_venue;
mod swap_account;
mod swap_auth;
mod swap_copy;
mod swap_limits;
mod swap_public;
mod swap_trading;
mod swap_venue;
mod trading;
mod virtual_time;
mod wallet;
mod ws;
