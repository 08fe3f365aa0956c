//! Integration tests: the simulator driven over real loopback HTTP with hand-built signed
//! requests (no project crate involved).

mod auth;
mod common;
mod control;
mod faults;
mod limits;
mod market;
mod swap_auth;
mod swap_public;
mod trading;
mod wallet;
