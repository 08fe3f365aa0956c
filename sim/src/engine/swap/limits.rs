//! Swap request weights: per-minute counters, HTTP 429 and escalating bans (HTTP 403), counted
//! by the shared [`Limiter`](crate::engine::limiter::Limiter) under
//! [`Policy::swap`](crate::engine::limiter::Policy::swap).
//!
//! DESIGN (the spec leaves the totals and the schedule open):
//! - Weight is counted in fixed minutes of the simulator clock (`floor(now_ms / 60000)`), per IP
//!   for public routes and per account and per API key for private routes, against
//!   [`crate::LimitsConfig::swap_weight_per_minute`] (6,000 by default: the live venue's headers
//!   show 6,000 per minute per IP for public routes, `ip-weight-minute-use` 5 and `-remain` 5995
//!   after one call of weight 5; docs/protocol.md, "Route weights"). The notes do not show the private totals; the
//!   same figure applies per account and per API key. Each route's weight is the one
//!   `/swap/v2/public/api_weight` lists. The unknown-path 404 is not charged.
//! - A request that would cross the limit is refused with HTTP 429, code 403001 and a
//!   `retry-after` header (seconds until the minute ends); it adds no weight and counts as a
//!   violation of every subject it crossed.
//! - [`crate::LimitsConfig::swap_violations_before_ban`] (3) violations of one subject within 10
//!   minutes ban it: HTTP 403, code 403002, `retry-after` = seconds until the ban ends. The ban
//!   length grows with the subject's bans in the last 24 hours: 2 minutes, 10 minutes,
//!   30 minutes, 2 hours, then 1 day. Every request of a banned subject is refused (no weight).

pub use crate::engine::limiter::Refusal;
