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
//! - The same control operations over HTTP under `/__sim/` (route table in [`control::http`]).
//! - [`SimConfig`]: `addr` (default `127.0.0.1:0`), `seed`, markets ([`MarketSpec`]),
//!   currencies ([`CurrencySpec`]), fee rates, book depth, `start_time_ms` (frozen clock),
//!   [`LimitsConfig`] (and [`SimConfig::without_limits`] for benchmarks and demos), swap
//!   instruments ([`SwapInstrumentSpec`], defaults in [`config::default_swap_instruments`]),
//!   swap fee rates, and [`Retention`]: how much history is kept (finished orders, own trades
//!   and public trades; open orders are never dropped, a forgotten order answers as an unknown
//!   id), `market` ([`MarketConfig`]: a recorded market to replay, and its speed) and
//!   `latency` ([`Latency`]: time from an order request to the matching engine).
//! - [`market`]: the recording format ([`market::format`]: [`market::Writer`],
//!   [`market::Reader`]) and the replay (books with queue position, recorded trades and
//!   trade-through, tickers, mark and index prices, funding); [`options`]: the command-line
//!   options shared by `digifinex-sim` and `digifinex sim` (`--market FILE`, `--speed X`,
//!   `--latency L` among them).
//!
//! Module map: [`server`] (hyper server, faults, dispatch to the families), [`route`] (the
//! route tables' type: one row per endpoint), [`control`] (Rust and HTTP control
//! API), [`spot`] (the spot/margin family: [`spot::auth`], [`spot::market`], [`spot::orders`],
//! [`spot::engine`], [`spot::account`], [`spot::wallet`], [`spot::risk`]), [`swap`] (the swap
//! and copy-trading family: [`swap::auth`], [`swap::limits`], [`swap::market`],
//! [`swap::engine`], [`swap::account`], [`swap::trade`], [`swap::copy`]), and shared pieces:
//! [`accounts`], [`book`] (the order book and matching both families use), [`clock`],
//! [`faults`], [`history`], [`limiter`], [`market`], [`options`],
//! [`json`], [`num`], [`rng`], [`wire`], [`config`].
//!
//! Design notes where the spec is silent or contradicts itself are in the module docs of the
//! module that makes the choice (search for "DESIGN").
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod accounts;
pub mod book;
pub mod changes;
pub mod clock;
pub mod config;
pub mod control;
pub mod exchange;
pub mod faults;
mod handle;
pub mod history;
pub mod json;
pub mod limiter;
pub mod market;
pub mod num;
pub mod options;
pub mod rng;
pub mod route;
pub mod server;
pub mod spot;
pub mod state;
pub mod swap;
pub mod tape;
pub mod ticker;
pub mod wire;
pub mod ws;

pub use accounts::{AccountId, AccountType, Balance, Permissions, WhitelistEntry};
pub use config::{
    CurrencySpec, FlowSpec, LimitsConfig, MarketSpec, MarketStatus, Retention, SimConfig,
    SwapInstrumentSpec, SwapStatus, WsSettings,
};
pub use control::{
    ApiKeyPair, BalanceView, BookView, ControlError, DemoAccount, KeyOptions, OrderView,
    SwapOrderView, SwapPositionView, TradeView, WithdrawalView,
};
pub use exchange::{Delayed, Exchange, Reply, WsId, WsOut};
pub use faults::{FaultKind, FaultRule};
pub use handle::Control;
pub use market::{Latency, MarketConfig, MarketSource};
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
pub use ws::{WsFamily, WsFault};
