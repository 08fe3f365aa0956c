//! Local DigiFinex exchange simulator.
//!
//! Written independently of `digifinex-core` from the specification, so that it checks the client
//! instead of agreeing with it, and following the live venue where it differs from the documents
//! (`docs/protocol.md`, "The live venue"; each such place has a DESIGN note). It serves the spot/margin
//! v3 interface under `/v3`, the perpetual swap and copy-trading v2 interface under `/swap/v2`,
//! and the control API under `/__sim`, on loopback (a public address only with
//! `allow_public_bind`, `--public` on the command line: the control API hands out keys).
//!
//! ```
//! use digifinex_sim::{Sim, SimConfig};
//!
//! let sim = Sim::start(SimConfig::default())?;
//! let demo = sim.control().demo_account();
//! println!("{} key={} secret={}", sim.spot_base_url(), demo.keys.key, demo.keys.secret);
//! // the server stops when `sim` is dropped
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A client points at it with its base URLs and plain HTTP allowed; with the blocking client
//! (`digifinex-ureq`): `.spot_base_url(sim.spot_base_url())`,
//! `.swap_base_url(sim.swap_base_url())`, `.allow_http(true)` and
//! `.credentials(Credentials::new(demo.keys.key, demo.keys.secret))` (the repository's
//! `docs/guide.md`, "From the simulator to your bot", has the whole program).
//!
//! # Public API in brief
//!
//! - [`Sim::start`]`(SimConfig) -> Result<SimHandle, StartError>`: serve on a background thread
//!   with its own tokio runtime (works from blocking code and from inside tokio); the handle stops
//!   the server when dropped. [`SimHandle`]: `addr()`, `spot_base_url()` (`http://IP:PORT/v3`),
//!   `swap_base_url()` (`http://IP:PORT`), `control_url()` (`http://IP:PORT/__sim`),
//!   `control()`, `wait()`, `shutdown()`.
//! - [`Sim::bind`]`(SimConfig).await` then [`Sim::serve`]`(shutdown_future).await` for callers
//!   already on tokio; [`Sim::addr`] and [`Sim::control`] before serving.
//! - [`Control`] (cheap clone): accounts and keys (`create_account`, `create_api_key` with
//!   [`KeyOptions`], `revoke_api_key`, `demo_account`), balances (`set_balance`, `credit`,
//!   `balance`, `balances` per [`AccountType`]), `whitelist_address`, deposits
//!   (`credit_deposit`, `set_deposit_state`), withdrawals (`set_withdrawal_state`,
//!   `withdrawals`), clock (`now_ms`, `advance_clock`, `set_clock_offset`, `freeze_clock`,
//!   `unfreeze_clock`; `try_advance_clock`, `try_set_clock_offset`, `try_freeze_clock` refuse a
//!   time outside 1970..=9999 instead of clamping), faults (`add_fault` with
//!   [`FaultRule`]/[`FaultKind`], among them `LateAnswer`: applied, then answered late), `remove_fault`,
//!   `clear_faults`, `faults`), inspection (`orders`, `order_count`, `open_order_count`,
//!   `panics`) and `reset_limits`; swap: `set_mark_price`, `set_index_price`,
//!   `set_funding_rate`, `next_funding_time`, `advance_to_funding`, `set_swap_trading`,
//!   `swap_orders` ([`SwapOrderView`]), `swap_order_count`, `swap_open_order_count`,
//!   `swap_positions` ([`SwapPositionView`]). Swap balances are [`AccountType::Swap`] balances
//!   (`set_balance`, `credit`), shared with `/swap/v2/account/transfer`.
//! - The same control operations over HTTP under `/__sim/` (the route table is in the repository's `docs/simulator.md`).
//! - [`SimConfig`]: `addr` (default `127.0.0.1:0`), `seed`, markets ([`MarketSpec`]),
//!   currencies ([`CurrencySpec`]), fee rates, book depth, `start_time_ms` (frozen clock),
//!   [`LimitsConfig`] (and [`SimConfig::without_limits`] for benchmarks and demos), swap
//!   instruments ([`SwapInstrumentSpec`], defaults in [`config::default_swap_instruments`]),
//!   swap fee rates, and [`Retention`]: how much history is kept (finished orders, own trades
//!   and public trades; open orders are never dropped, a forgotten order answers as an unknown
//!   id), `market` ([`MarketConfig`]: a recorded market to replay, and its speed) and
//!   `latency` ([`Latency`]: time from an order request to the matching engine).
//! - [`Exchange`]: the same exchange as a value in the same process, with time as an argument
//!   (`handle` an HTTP request, websocket sessions, `advance_to`, `next_event_time`;
//!   [`Reply`], [`WsOut`]); the server is an adapter over it.
//! - [`market`]: the recording format ([`market::format`]: [`market::Writer`],
//!   [`market::Reader`]) and the replay's settings ([`MarketConfig`], [`Latency`],
//!   [`ReplayStats`]); [`options`]: the command-line options shared by `digifinex-sim` and
//!   `digifinex sim` (`--market FILE`, `--speed X`, `--latency L` among them).
//!
//! # Layers
//!
//! Only the facade above is public. Inside, each floor imports only the floors below it
//! (checked by the integration test `layers`):
//!
//! 1. the base: configuration, clock rules, numbers, JSON, the seeded generator, fault rules,
//!    loopback checks, and the recording format;
//! 2. the **engine** (books and matching, accounts, each family's orders, positions, margin
//!    and funding, the market state, the latency queue, the request-weight limiters, the
//!    outbox of changes);
//! 3. the **drivers** beside it: the synthetic order flow and the replay of a recording, and
//!    the bounded step that runs them, with the latency queue and funding, in time order;
//! 4. the **dialects**: spot v3 and swap v2 REST, both websockets, the control API;
//! 5. the **exchange** value that joins them, with time as an argument;
//! 6. the **server** on top (hyper, sockets, the wall clock) and the Rust control handle.
//!
//! Design notes where the spec is silent or contradicts itself are in the module docs of the
//! module that makes the choice (search for "DESIGN").
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod clock;
mod config;
mod dialect;
mod drive;
mod engine;
mod exchange;
mod faults;
mod host;
mod json;
pub mod market;
pub mod num;
pub mod options;
mod rng;
mod server;

/// The side of a trade or an order, as recordings write it ([`market::format`]).
pub mod book {
    pub use crate::engine::book::Side;
}

pub use clock::{OutOfRange, MAX_MS, MIN_MS};
pub use config::{
    default_currencies, default_markets, default_swap_instruments, CurrencySpec, FlowSpec,
    LimitsConfig, MarketSpec, MarketStatus, Retention, SimConfig, SwapInstrumentSpec, SwapStatus,
    WsSettings,
};
pub use dialect::control::{
    ApiKeyPair, BalanceView, BookView, ControlError, DemoAccount, FillView, FundingView,
    KeyOptions, OrderView, SwapOrderView, SwapPositionView, TradeView, WithdrawalView,
    MAX_CONTROL_AMOUNT, MAX_SWAP_PRICE,
};
pub use dialect::ws::{WsFamily, WsFault};
pub use engine::accounts::{AccountId, AccountType, Balance, Permissions, WhitelistEntry};
pub use exchange::{Delayed, Exchange, Reply, WsId, WsOut, MAX_BODY};
pub use faults::{FaultKind, FaultRule};
pub use host::is_loopback_host;
pub use market::{FillModel, Latency, MarketConfig, MarketSource, ReplayStats};
pub use server::handle::Control;
pub use server::{SimHandle, StartError};

/// # Examples
///
/// Started on a background thread ([`Sim::start`]), set up through [`Control`], and spoken to
/// over plain HTTP like the exchange (here with bare `std::net`; a client crate takes
/// [`SimHandle::spot_base_url`] and [`SimHandle::swap_base_url`]):
///
/// ```
/// use std::io::{Read, Write};
/// use std::net::TcpStream;
/// use digifinex_sim::{AccountType, FaultKind, FaultRule, Sim, SimConfig};
///
/// let sim = Sim::start(SimConfig::default())?; // 127.0.0.1, a free port
/// let control = sim.control();
/// let demo = control.demo_account(); // funded; its key may read, trade and withdraw
/// control.set_balance(demo.account, AccountType::Spot, "USDT", "250".parse()?)?;
/// let usdt = control.balance(demo.account, AccountType::Spot, "USDT")?;
/// assert_eq!(usdt.free.to_string(), "250");
///
/// // The next order placement answers 503: a client must report its outcome as unknown.
/// let fault = FaultKind::ServerError { status: 503 };
/// control.add_fault(FaultRule::route("POST", "/v3/spot/order/new", fault).times(1));
///
/// let mut tcp = TcpStream::connect(sim.addr())?;
/// tcp.write_all(b"GET /v3/ping HTTP/1.1\r\nhost: sim\r\nconnection: close\r\n\r\n")?;
/// let mut answer = String::new();
/// tcp.read_to_string(&mut answer)?;
/// assert!(answer.starts_with("HTTP/1.1 200"));
/// assert!(answer.contains(r#""code":0"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[doc(inline)]
pub use server::Sim;
