//! Simulator configuration: address, seed, markets, currencies, fees and limit switches.
//!
//! DESIGN (market minimums): the spec names `/markets` fields `min_amount` ("minimum trading
//! amount") and `min_volume` ("minimum trading volume") and the symbol fields `minimum_amount` and
//! `minimum_value` (an int). As in the live service, "volume" is the base quantity and "amount" in
//! `/markets` is the order value in the quote currency, so `/markets` reports
//! `min_volume` = [`MarketSpec::min_amount`] (base) and `min_amount` = [`MarketSpec::min_value`]
//! (quote), while the symbol lists report `minimum_amount` = base minimum and `minimum_value` =
//! quote minimum. Orders below the base minimum fail with 20009, below the value minimum with 20010.

use crate::num::d;
use rust_decimal::Decimal;
use std::net::SocketAddr;

/// Whether a pair trades.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarketStatus {
    /// Normal trading (`status` "TRADING").
    Trading,
    /// Trading suspended: new orders fail with 20002 (`status` "SUSPEND").
    Suspended,
}

/// One spot pair.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketSpec {
    /// Base currency, upper case (`BTC`).
    pub base: String,
    /// Quote currency, upper case (`USDT`).
    pub quote: String,
    /// Decimal places allowed in prices (20007 beyond).
    pub price_precision: u32,
    /// Decimal places allowed in base amounts (20008 beyond).
    pub amount_precision: u32,
    /// Minimum base amount of an order (20009 below).
    pub min_amount: Decimal,
    /// Minimum order value in the quote currency (20010 below).
    pub min_value: Decimal,
    /// Mid price the synthetic market maker quotes around.
    pub mid_price: Decimal,
    /// Base size of a synthetic maker order (sizes vary from 0.2x to 2x of it).
    pub maker_size: Decimal,
    /// Trading status.
    pub status: MarketStatus,
    /// Whether API trading is allowed (`is_allow`; 20042 otherwise).
    pub api_tradable: bool,
    /// Whether margin trading is offered on the pair.
    pub margin: bool,
    /// Leverage of margin positions on the pair.
    pub leverage: Decimal,
    /// Liquidation rate reported by `/margin/symbols` and `/margin/positions`.
    pub liquidation_rate: Decimal,
    /// Zone (board) name.
    pub zone: String,
    /// The synthetic order flow that moves the market ([`FlowSpec`]); `None`: a still market
    /// (the synthetic maker's fixed quotes, topped up after trades).
    pub flow: Option<FlowSpec>,
}

impl MarketSpec {
    /// A trading, API-tradable, spot-only pair with the given precisions and minimums.
    pub fn new(
        base: &str,
        quote: &str,
        mid_price: Decimal,
        (price_precision, amount_precision): (u32, u32),
        (min_amount, min_value): (Decimal, Decimal),
    ) -> MarketSpec {
        MarketSpec {
            base: base.to_ascii_uppercase(),
            quote: quote.to_ascii_uppercase(),
            price_precision,
            amount_precision,
            min_amount,
            min_value,
            mid_price,
            maker_size: min_amount * Decimal::from(500),
            status: MarketStatus::Trading,
            api_tradable: true,
            margin: false,
            leverage: Decimal::from(3),
            liquidation_rate: d("0.1"),
            zone: "MAIN".to_owned(),
            flow: Some(FlowSpec::default()),
        }
    }

    /// The pair name, `base_quote` in lower case.
    pub fn symbol(&self) -> String {
        format!(
            "{}_{}",
            self.base.to_ascii_lowercase(),
            self.quote.to_ascii_lowercase()
        )
    }
}

/// One row of `/currencies`: a currency on one chain.
#[derive(Debug, Clone, PartialEq)]
pub struct CurrencySpec {
    /// Currency, upper case.
    pub currency: String,
    /// Chain name; empty for single-chain currencies.
    pub chain: String,
    /// Minimum deposit.
    pub min_deposit: Decimal,
    /// Minimum withdrawal amount (20035 below).
    pub min_withdraw: Decimal,
    /// Deposits enabled.
    pub deposit_enabled: bool,
    /// Withdrawals enabled (20034 otherwise).
    pub withdraw_enabled: bool,
    /// Minimum withdrawal fee.
    pub min_fee: Decimal,
    /// Withdrawal fee rate; the fee is `max(amount * rate, min_fee)`.
    pub fee_rate: Decimal,
    /// Whether addresses carry a memo/tag.
    pub memo: bool,
    /// Maximum total withdrawn per user per day on this currency (20041 beyond); `None`: no quota.
    pub daily_quota: Option<Decimal>,
}

impl CurrencySpec {
    /// An enabled currency on `chain` with the given withdrawal minimum, minimum fee and rate.
    pub fn new(
        currency: &str,
        chain: &str,
        min_withdraw: Decimal,
        min_fee: Decimal,
        fee_rate: Decimal,
    ) -> CurrencySpec {
        CurrencySpec {
            currency: currency.to_ascii_uppercase(),
            chain: chain.to_owned(),
            min_deposit: min_withdraw,
            min_withdraw,
            deposit_enabled: true,
            withdraw_enabled: true,
            min_fee,
            fee_rate,
            memo: false,
            daily_quota: None,
        }
    }
}

/// The synthetic order flow that moves one market (the model is described in the repository's `docs/simulator.md`, "The market model").
///
/// Rates are per second of simulator time. The defaults follow the fitted shape of Cont,
/// Stoikov and Talreja (2010), scaled to a tenth of its event rates (about 7 events a second per
/// market) so that an hour of simulated time runs in a fraction of a second: limit orders at
/// distance `i` ticks from the opposite best price arrive at `0.192 / i^0.52`, market orders at
/// `0.094` per side, and each resting order of the flow is cancelled at `0.06`.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSpec {
    /// The flow's price step in basis points of the market's reference price, rounded to the
    /// market's price step (at least one step): 2.
    pub tick_bps: Decimal,
    /// Arrival rate of limit orders of each side at distance 1, 2, ... ticks from the opposite
    /// best price, per second; no limit order arrives farther out than the list is long (30
    /// entries by default).
    pub limit_rates: Vec<Decimal>,
    /// Arrival rate of market orders of each side, per second: 0.094.
    pub market_rate: Decimal,
    /// Cancellation rate of each resting order of the flow, per second: 0.06.
    pub cancel_rate: Decimal,
    /// Orders of the flow resting on one side at most (a safety bound; the stationary book
    /// holds about 50): 2,000.
    pub max_orders: usize,
}

/// `i^-0.52` for `i` = 1..=30: the shape of the limit order arrival rates fitted by Cont,
/// Stoikov and Talreja (2010).
const CST_SHAPE: [&str; 30] = [
    "1", "0.697372", "0.564803", "0.486327", "0.433048", "0.393878", "0.363537", "0.339151",
    "0.319002", "0.301995", "0.287393", "0.274679", "0.263481", "0.253521", "0.244587", "0.236514",
    "0.229175", "0.222463", "0.216296", "0.210603", "0.205327", "0.200420", "0.195840", "0.191554",
    "0.187530", "0.183744", "0.180173", "0.176798", "0.173601", "0.170568",
];

impl Default for FlowSpec {
    fn default() -> Self {
        FlowSpec {
            tick_bps: d("2"),
            limit_rates: CST_SHAPE.iter().map(|x| d(x) * d("0.192")).collect(),
            market_rate: d("0.094"),
            cancel_rate: d("0.06"),
            max_orders: 2_000,
        }
    }
}

impl FlowSpec {
    /// The same flow with every rate multiplied by `factor` (a busier or quieter market; the
    /// shape of the book stays, its changes come `factor` times as often).
    pub fn scaled(mut self, factor: Decimal) -> FlowSpec {
        for r in &mut self.limit_rates {
            *r *= factor;
        }
        self.market_rate *= factor;
        self.cancel_rate *= factor;
        self
    }
}

/// The websockets (`/ws/v1/`, `/swap_ws/v2/`): cadences, the venue's limits and the
/// simulator's bounds against a client (`docs/safety.md` in the repository).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsSettings {
    /// Interval of the public pushes (book deltas and new trades every tick; tickers every
    /// second tick, index and mark prices every fifth, `all_ticker` every twentieth): 100 ms.
    pub tick: std::time::Duration,
    /// Drop a socket this long after the client's last frame, as the venue does (60 s);
    /// `None`: never.
    pub idle_timeout: Option<std::time::Duration>,
    /// Drop a socket this long after it opened (2 h); `None`: never.
    pub lifetime: Option<std::time::Duration>,
    /// Channels one swap socket may hold; one more drops it, as the venue does: 30.
    pub max_swap_channels: usize,
    /// Levels per side of the spot depth channel: 30.
    pub spot_depth: usize,
    /// Open websockets at once (256); a further upgrade is answered HTTP 503.
    pub max_connections: usize,
    /// Frames queued for one socket (1,024); a client that does not read them is dropped, not
    /// buffered.
    pub send_queue: usize,
    /// Largest frame or message a client may send (64 KiB); a larger one ends the socket.
    pub max_message_bytes: usize,
    /// Failed `server.auth` attempts one socket may make (5): the last one is answered, then
    /// the socket is banned (its further frames go unanswered) and dropped, as the venue drops
    /// a peer that keeps failing. 0: never banned.
    pub auth_failures: u32,
}

impl Default for WsSettings {
    fn default() -> Self {
        WsSettings {
            tick: std::time::Duration::from_millis(100),
            idle_timeout: Some(std::time::Duration::from_secs(60)),
            lifetime: Some(std::time::Duration::from_secs(2 * 3600)),
            max_swap_channels: 30,
            spot_depth: 30,
            max_connections: 256,
            send_queue: 1024,
            max_message_bytes: 64 << 10,
            auth_failures: 5,
        }
    }
}

/// Limit and risk-control switches.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitsConfig {
    /// Enforce the request-weight limits (spot: 10005 and bans; swap: HTTP 429/403, see
    /// the swap family's limits). Swap weights are counted for the usage headers either way.
    pub weight_enabled: bool,
    /// Spot request weight allowed per IP, key and user per minute (1200).
    pub spot_weight_per_minute: u32,
    /// Enforce the FR/FW/CR anti-manipulation bans (20018/20020).
    pub risk_control: bool,
    /// Enforce the withdrawal frequency limit (3 per minute, 100 per day).
    pub withdraw_frequency: bool,
    /// Swap request weight allowed per IP (public), account and API key (private) per minute
    /// (6000: the live venue's headers show 6,000 per minute per IP for public routes; the
    /// private totals are not shown, so the same figure is used per account and per key).
    pub swap_weight_per_minute: u32,
    /// Refused (429) swap requests of one subject within 10 minutes that turn into a ban (403).
    pub swap_violations_before_ban: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            weight_enabled: true,
            spot_weight_per_minute: 1200,
            risk_control: true,
            withdraw_frequency: true,
            swap_weight_per_minute: 6000,
            swap_violations_before_ban: 3,
        }
    }
}

/// Everything [`crate::Sim`] needs to start.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Listen address; `127.0.0.1:0` (any free port) by default.
    pub addr: SocketAddr,
    /// Seed of every synthetic and generated value (books, ids, keys, addresses).
    pub seed: u64,
    /// Spot/margin pairs.
    pub markets: Vec<MarketSpec>,
    /// Currencies and chains for deposits and withdrawals.
    pub currencies: Vec<CurrencySpec>,
    /// Maker fee rate (also charged to post-only orders).
    pub maker_fee_rate: Decimal,
    /// Taker fee rate.
    pub taker_fee_rate: Decimal,
    /// Synthetic maker levels per side of each book.
    pub book_levels: usize,
    /// Freeze the simulator clock at this instant (ms) instead of following the wall clock.
    pub start_time_ms: Option<i64>,
    /// Limits and bans.
    pub limits: LimitsConfig,
    /// Write `/order/detail`'s `detail` as one object (the spec's shape: the latest fill, `{}`
    /// without fills) instead of an array of every fill (the shape of live captures).
    pub detail_as_object: bool,
    /// Perpetual swap instruments.
    pub swap_instruments: Vec<SwapInstrumentSpec>,
    /// Swap maker fee rate.
    pub swap_maker_fee_rate: Decimal,
    /// Swap taker fee rate.
    pub swap_taker_fee_rate: Decimal,
    /// Time a connection may take to send a complete request head (10 s by default). Hyper
    /// starts this timer whenever it waits for a request, so it also closes a keep-alive
    /// connection that stays idle between requests for that long, and a connection that sends
    /// nothing at all. `None` disables it.
    pub header_read_timeout: Option<std::time::Duration>,
    /// Time a connection may go without sending or receiving a byte while no request is being
    /// handled (60 s by default): a stalled request body or a client that stops reading its
    /// answer. `None` disables it.
    pub idle_timeout: Option<std::time::Duration>,
    /// Connections served at once (1,024 by default); further connections wait in the listen
    /// backlog until one closes.
    pub max_connections: usize,
    /// Allow a bind address that is not loopback (`false` by default). The control API under
    /// `/__sim` is unauthenticated and hands out API secrets, so anyone who can reach the port
    /// owns the simulator; [`crate::Sim::bind`] refuses a non-loopback address unless this is set.
    pub allow_public_bind: bool,
    /// How much history the simulator keeps (memory bound; see [`Retention`]).
    pub retention: Retention,
    /// A recorded market to replay instead of the synthetic market maker, for the pairs and
    /// instruments it names (`None`, the default: synthetic only); see the `market` module.
    pub market: Option<crate::market::source::MarketConfig>,
    /// Time from an order request to the matching engine (`Latency::None`
    /// by default: at once).
    pub latency: crate::market::latency::Latency,
    /// How own orders move up their queues in a replayed book when a level shrinks with no
    /// trade to explain it ([`crate::market::FillModel`]; FIFO, the conservative model, by
    /// default).
    pub fill_model: crate::market::fill::FillModel,
    /// How long the order flow runs before the simulator opens (ms, default 60,000): the books
    /// and the tape start lived-in, with the flow's trades of that minute.
    pub flow_warmup_ms: i64,
    /// The longest stretch of order flow run at once (ms, default 3,600,000: one hour). When
    /// the clock jumps further (a control-API advance, an offset, a long pause between
    /// requests), the flow runs the last hour of the jump and the market stands still through
    /// the rest, so that a jump of days costs what an hour does. The simulator runs at most
    /// about 25,000 flow events per request or step (some six minutes of the default markets'
    /// flow), so the stretch is shorter when the markets are busier (see [`crate::market`],
    /// "Bounded catch-up").
    pub flow_catch_up_ms: i64,
    /// The websockets' cadences and bounds.
    pub ws: WsSettings,
    /// Simulator milliseconds per wall millisecond while the clock runs (1: real time; 60: the
    /// markets live a minute each second). A recorded market's [`MarketConfig`] speed wins.
    ///
    /// [`MarketConfig`]: crate::market::source::MarketConfig
    pub clock_speed: Decimal,
}

/// How much history the simulator keeps, so that memory stays bounded however long it runs.
///
/// DESIGN (what falls out; applied by the history module in both engines):
/// - **Orders.** Each account keeps, per family (spot and margin together; swap), every open
///   order, however old (open orders are never dropped), and its last
///   `finished_orders_per_account` finished (filled or cancelled) orders. When one more
///   finishes, the one that finished **earliest** is forgotten: counting finishes rather than
///   creations keeps an order a client has just cancelled or filled readable right after. A
///   forgotten order is answered as the venue answers an unknown id: spot `/order` and
///   `/order/detail` 20013, swap `trade/order_info` 400002 "order not found", a cancel lists it
///   under `error` (spot) or answers "order not found" (swap). Order listings (spot
///   `/order/history` and `/order/current`, swap `history_orders` and `open_orders`) list the
///   kept orders only, in creation order with their time windows and limits as before.
/// - **Own trades** (spot `/mytrades` and the fills of `/order/detail`, swap `history_trades`):
///   the newest `own_trades_per_account` per account and family.
/// - **Public trades** (spot `/trades`, swap `public/trades`, and what the tickers' 24-hour
///   figures and the candles are computed from): the newest `public_trades_per_market` per spot
///   market and per swap instrument, the synthetic day of trades made at start included.
/// - **Copy trading.** A sponsored order is kept while its copy position is open and counts as
///   finished from the moment the position closes; when it falls out, its closed copy position
///   goes with it. Validated and cancelled TP/SL plans count like finished orders.
/// - Spot risk control (FR/FW/CR) counts the kept orders of the cycles it evaluates.
///
/// Zero: `finished_orders_per_account` 0 acts as 1 (the order a request finished last is kept,
/// so a request can always report on the order it placed or cancelled); own and public trades
/// 0 keep none (the last price then falls back to the configured mid price).
///
/// Not bounded by this: the finance log, deposits, withdrawals, transfers and funding-fee
/// records (they grow with balance changes and time, not with orders). Request-weight limiter
/// entries are dropped once they leave their window, whatever this says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Finished (filled or cancelled) orders kept per account and family (default 100,000; 0
    /// acts as 1).
    pub finished_orders_per_account: usize,
    /// Own trades (fills) kept per account and family (default 100,000; 0 keeps none).
    pub own_trades_per_account: usize,
    /// Public trades kept per spot market and per swap instrument (default 10,000; 0 keeps
    /// none).
    pub public_trades_per_market: usize,
    /// One-minute candles kept per market (default 2,880: two days). The tickers' 24-hour
    /// figures need 1,440.
    pub candle_minutes: usize,
    /// One-hour candles kept per market (default 2,160: 90 days).
    pub candle_hours: usize,
    /// One-day candles kept per market (default 3,660: ten years).
    pub candle_days: usize,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            finished_orders_per_account: 100_000,
            own_trades_per_account: 100_000,
            public_trades_per_market: 10_000,
            candle_minutes: 2_880,
            candle_hours: 2_160,
            candle_days: 3_660,
        }
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            seed: 1,
            markets: default_markets(),
            currencies: default_currencies(),
            maker_fee_rate: d("0.001"),
            taker_fee_rate: d("0.002"),
            book_levels: 20,
            start_time_ms: None,
            limits: LimitsConfig::default(),
            detail_as_object: false,
            swap_instruments: default_swap_instruments(),
            swap_maker_fee_rate: d("0.0002"),
            swap_taker_fee_rate: d("0.0005"),
            header_read_timeout: Some(std::time::Duration::from_secs(10)),
            idle_timeout: Some(std::time::Duration::from_secs(60)),
            max_connections: 1024,
            allow_public_bind: false,
            retention: Retention::default(),
            market: None,
            latency: crate::market::latency::Latency::None,
            fill_model: crate::market::fill::FillModel::Fifo,
            flow_warmup_ms: 60_000,
            flow_catch_up_ms: 3_600_000,
            ws: WsSettings::default(),
            clock_speed: Decimal::ONE,
        }
    }
}

impl SimConfig {
    /// Default configuration with another seed.
    pub fn with_seed(seed: u64) -> SimConfig {
        SimConfig {
            seed,
            ..SimConfig::default()
        }
    }

    /// Still markets: no order flow on any pair or instrument (the synthetic maker's fixed
    /// quotes around each configured mid price, topped up after trades). For tests that need
    /// exact prices.
    pub fn without_flow(mut self) -> SimConfig {
        for m in &mut self.markets {
            m.flow = None;
        }
        for i in &mut self.swap_instruments {
            i.flow = None;
        }
        self
    }

    /// Turns off request-weight limits, risk-control bans and withdrawal frequency limits
    /// (benchmarks and long demo sessions).
    pub fn without_limits(mut self) -> SimConfig {
        self.limits.weight_enabled = false;
        self.limits.risk_control = false;
        self.limits.withdraw_frequency = false;
        self
    }

    /// Adds `spot` synthetic spot pairs and `swap` synthetic swap
    /// instruments after the configured ones, each with the
    /// default order flow, their prices drawn from this configuration's seed (the simulator's
    /// `--synthetic SPOT,SWAP`: markets at the venue's scale for load measurements).
    pub fn with_synthetic(mut self, spot: usize, swap: usize) -> SimConfig {
        self.markets.extend(synthetic_markets(spot, self.seed));
        self.swap_instruments
            .extend(synthetic_swap_instruments(swap, self.seed));
        self
    }
}

/// The default pairs.
///
/// | pair | notes |
/// |---|---|
/// | `btc_usdt` | margin (3x), price 2 dp, amount 5 dp, min 0.0001 BTC, min value 2 USDT |
/// | `eth_usdt` | margin (3x), price 2 dp, amount 4 dp, min 0.001 ETH, min value 2 USDT |
/// | `xrp_usdt` | spot only, price 4 dp, amount 1 dp, min 1 XRP, min value 2 USDT |
/// | `eth_btc` | spot only, price 6 dp, amount 3 dp |
/// | `dft_usdt` | API trading not allowed (`is_allow` 0, error 20042) |
/// | `luna_usdt` | trading suspended (error 20002) |
pub fn default_markets() -> Vec<MarketSpec> {
    let mut btc = MarketSpec::new("BTC", "USDT", d("30000"), (2, 5), (d("0.0001"), d("2")));
    btc.margin = true;
    btc.maker_size = d("0.5");
    let mut eth = MarketSpec::new("ETH", "USDT", d("2000"), (2, 4), (d("0.001"), d("2")));
    eth.margin = true;
    eth.maker_size = d("5");
    let mut xrp = MarketSpec::new("XRP", "USDT", d("0.5"), (4, 1), (d("1"), d("2")));
    xrp.maker_size = d("2000");
    let mut ethbtc = MarketSpec::new("ETH", "BTC", d("0.066"), (6, 3), (d("0.001"), d("0.0001")));
    ethbtc.maker_size = d("5");
    ethbtc.zone = "BTC".to_owned();
    let mut dft = MarketSpec::new("DFT", "USDT", d("0.05"), (5, 0), (d("10"), d("2")));
    dft.api_tradable = false;
    dft.maker_size = d("10000");
    let mut luna = MarketSpec::new("LUNA", "USDT", d("1.2"), (4, 2), (d("1"), d("2")));
    luna.status = MarketStatus::Suspended;
    luna.flow = None;
    luna.maker_size = d("100");
    vec![btc, eth, xrp, ethbtc, dft, luna]
}

/// The default currencies: BTC, ETH, USDT on ERC20 and OMNI, XRP (with memo), DFT, LUNA.
pub fn default_currencies() -> Vec<CurrencySpec> {
    let mut xrp = CurrencySpec::new("XRP", "", d("20"), d("0.25"), d("0"));
    xrp.memo = true;
    let mut luna = CurrencySpec::new("LUNA", "", d("1"), d("0.1"), d("0.001"));
    luna.withdraw_enabled = false;
    vec![
        CurrencySpec::new("BTC", "", d("0.001"), d("0.0005"), d("0.001")),
        CurrencySpec::new("ETH", "", d("0.01"), d("0.005"), d("0.001")),
        CurrencySpec::new("USDT", "ERC20", d("10"), d("5"), d("0.002")),
        CurrencySpec::new("USDT", "OMNI", d("10"), d("8"), d("0.001")),
        xrp,
        CurrencySpec::new("DFT", "", d("100"), d("10"), d("0.001")),
        luna,
    ]
}

/// Listing status of a swap instrument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapStatus {
    /// `ONLINE`.
    Online,
    /// `OFFLINE` (orders fail with 401005).
    Offline,
    /// `DELIVERY` (orders fail with 401005).
    Delivery,
}

impl SwapStatus {
    /// Wire text.
    pub fn text(self) -> &'static str {
        match self {
            SwapStatus::Online => "ONLINE",
            SwapStatus::Offline => "OFFLINE",
            SwapStatus::Delivery => "DELIVERY",
        }
    }
}

/// One perpetual swap instrument (linear, settled in its quote currency).
#[derive(Debug, Clone, PartialEq)]
pub struct SwapInstrumentSpec {
    /// Id, e.g. `BTCUSDTPERP`.
    pub instrument_id: String,
    /// Base currency (`BTC`).
    pub base: String,
    /// Quote and settlement currency (`USDT`).
    pub quote: String,
    /// Base amount of one contract.
    pub contract_value: Decimal,
    /// Decimal places of prices (401007 beyond).
    pub price_precision: u32,
    /// Price step (prices must be multiples of it, 401007).
    pub tick_size: Decimal,
    /// Minimum order size in contracts (401006 below).
    pub min_order_amount: Decimal,
    /// Mid price the synthetic market maker quotes around.
    pub mid_price: Decimal,
    /// Typical synthetic maker order size in contracts.
    pub maker_size: Decimal,
    /// Listing status.
    pub status: SwapStatus,
    /// Trading switch (`is_trading`; 401004 when false).
    pub is_trading: bool,
    /// Whether market-style order types are accepted (401008 otherwise).
    pub market_orders: bool,
    /// Highest leverage.
    pub max_leverage: u32,
    /// `(leverage, max_limit)`: above that leverage, position value may not exceed max_limit.
    pub open_max_limits: Vec<(Decimal, Decimal)>,
    /// Maintenance margin ratio.
    pub maint_margin_ratio: Decimal,
    /// Base funding rate (each period's rate varies around it, from the seed).
    pub funding_rate: Decimal,
    /// Offered for copy trading (404003 otherwise).
    pub copy_trading: bool,
    /// Hours between funding settlements (8 for most contracts, 4 for some; settlements fall on
    /// multiples of the interval since the Unix epoch, UTC).
    pub funding_interval_hours: u32,
    /// A simulated-trading (SIMULATE) contract: listed by `instruments`/`tickers` with `type=1`
    /// only, reported with `type` `SIMULATE` (the live `BTCUSDT2PERP`, settled in `USDT2`).
    pub simulated: bool,
    /// The synthetic order flow that moves the instrument ([`FlowSpec`]); `None`: a still
    /// market.
    pub flow: Option<FlowSpec>,
}

impl SwapInstrumentSpec {
    /// An online, trading, copy-tradable instrument `{base}{quote}PERP`.
    pub fn new(
        base: &str,
        quote: &str,
        contract_value: Decimal,
        price_precision: u32,
        mid_price: Decimal,
    ) -> SwapInstrumentSpec {
        let base = base.to_ascii_uppercase();
        let quote = quote.to_ascii_uppercase();
        SwapInstrumentSpec {
            instrument_id: format!("{base}{quote}PERP"),
            base,
            quote,
            contract_value,
            price_precision,
            tick_size: crate::num::step(price_precision),
            min_order_amount: Decimal::ONE,
            mid_price,
            maker_size: Decimal::from(200),
            status: SwapStatus::Online,
            is_trading: true,
            market_orders: true,
            max_leverage: 100,
            open_max_limits: vec![
                (d("20"), d("1000000")),
                (d("50"), d("200000")),
                (d("75"), d("50000")),
            ],
            maint_margin_ratio: d("0.005"),
            funding_rate: d("0.0001"),
            copy_trading: true,
            funding_interval_hours: 8,
            simulated: false,
            flow: Some(FlowSpec::default()),
        }
    }

    /// Milliseconds between funding settlements (at least one hour).
    pub fn funding_period_ms(&self) -> i64 {
        i64::from(self.funding_interval_hours.max(1)) * 3_600_000
    }
}

/// The default swap instruments.
///
/// | instrument | notes |
/// |---|---|
/// | `BTCUSDTPERP` | 0.001 BTC per contract, price 1 dp (tick 0.1), around 30000 |
/// | `ETHUSDTPERP` | 0.01 ETH per contract, price 2 dp, around 2000 |
/// | `XRPUSDTPERP` | 10 XRP per contract, price 4 dp, not offered for copy trading (404003), funds every **4 hours** |
/// | `LUNAUSDTPERP` | `is_trading` false (401004), `OFFLINE` |
/// | `BTCUSDT2PERP` | simulated trading (`type=1` listings only, `type` `SIMULATE`), settled in `USDT2`, not offered for copy trading |
///
/// Leverage up to 100; `open_max_limits` 20x: 1,000,000, 50x: 200,000, 75x: 50,000 USDT.
/// Every contract but `XRPUSDTPERP` funds every 8 hours.
///
/// DESIGN: the live venue funds most contracts every 8 hours and some every 4 (docs/protocol.md, "The live venue")
/// without saying which; the simulator picks `XRPUSDTPERP` (an altcoin, where short intervals
/// are usual) so that the BTC and ETH contracts keep the documented 8-hour rhythm.
pub fn default_swap_instruments() -> Vec<SwapInstrumentSpec> {
    let btc = SwapInstrumentSpec::new("BTC", "USDT", d("0.001"), 1, d("30000"));
    let mut eth = SwapInstrumentSpec::new("ETH", "USDT", d("0.01"), 2, d("2000"));
    eth.maker_size = Decimal::from(300);
    let mut xrp = SwapInstrumentSpec::new("XRP", "USDT", d("10"), 4, d("0.5"));
    xrp.copy_trading = false;
    xrp.maker_size = Decimal::from(1000);
    let mut luna = SwapInstrumentSpec::new("LUNA", "USDT", d("1"), 4, d("1.2"));
    luna.is_trading = false;
    luna.status = SwapStatus::Offline;
    luna.flow = None;
    luna.copy_trading = false;
    xrp.funding_interval_hours = 4;
    let mut sim_btc = SwapInstrumentSpec::new("BTC", "USDT2", d("0.001"), 1, d("30000"));
    sim_btc.simulated = true;
    sim_btc.copy_trading = false;
    vec![btc, eth, xrp, luna, sim_btc]
}

/// The mid price of synthetic coin `i` and its decimal exponent `e` (the price is three
/// significant digits times `10^e`, `e` from -3 to 4: from 0.001 to 99,900), drawn from `seed`.
fn synthetic_price(seed: u64, i: usize) -> (Decimal, i32) {
    let mut rng = crate::rng::Rng::new(crate::rng::mix(
        crate::rng::mix(seed ^ 0x7379_6e74_6865_7469).wrapping_add(i as u64),
    ));
    let mantissa = 100 + rng.below(900);
    let exponent = i32::try_from(rng.below(8)).unwrap_or(0) - 3;
    (Decimal::from(mantissa) * pow10(exponent - 2), exponent)
}

/// `10^k` (`k` between -28 and 19).
fn pow10(k: i32) -> Decimal {
    let n = k.unsigned_abs().min(19);
    if k >= 0 {
        Decimal::from(10u64.pow(n))
    } else {
        Decimal::new(1, n)
    }
}

/// Prices with five significant digits at exponent `e` (see [`synthetic_price`]).
fn synthetic_price_precision(exponent: i32) -> u32 {
    u32::try_from(4 - exponent).unwrap_or(0)
}

/// `count` synthetic spot pairs `s0_usdt`, `s1_usdt`, ...: trading, API-tradable, spot only,
/// zone `MAIN`, with the default order flow ([`FlowSpec::default`]). Pair `i` quotes around a
/// price drawn from `seed` and `i`, from 0.001 to 99,900 USDT (three significant digits), with
/// five significant digits of price, an amount step worth 0.1 to 1 USDT (whole units below
/// 0.1 USDT), a minimum of ten amount steps and 2 USDT, and maker orders of about 3,000 USDT.
pub fn synthetic_markets(count: usize, seed: u64) -> Vec<MarketSpec> {
    (0..count)
        .map(|i| {
            let (mid, e) = synthetic_price(seed, i);
            let amount_precision = u32::try_from((e + 1).clamp(0, 8)).unwrap_or(0);
            let min_amount = Decimal::TEN * crate::num::step(amount_precision);
            let mut m = MarketSpec::new(
                &format!("S{i}"),
                "USDT",
                mid,
                (synthetic_price_precision(e), amount_precision),
                (min_amount, Decimal::TWO),
            );
            let size = crate::num::round_dp(Decimal::from(3000) / mid, amount_precision);
            m.maker_size = size.max(min_amount);
            m
        })
        .collect()
}

/// `count` synthetic swap instruments `S0USDTPERP`, `S1USDTPERP`, ...: online, trading,
/// linear in USDT, with the default order flow ([`FlowSpec::default`]). Instrument `i` quotes
/// around the price of the synthetic spot pair `s{i}_usdt` ([`synthetic_markets`] with the same
/// `seed`), with five significant digits of price and contracts worth 10 to 100 USDT.
pub fn synthetic_swap_instruments(count: usize, seed: u64) -> Vec<SwapInstrumentSpec> {
    (0..count)
        .map(|i| {
            let (mid, e) = synthetic_price(seed, i);
            SwapInstrumentSpec::new(
                &format!("S{i}"),
                "USDT",
                pow10(1 - e),
                synthetic_price_precision(e),
                mid,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::places;

    #[test]
    fn synthetic_markets_are_valid_and_varied() {
        let spot = synthetic_markets(200, 1);
        let swap = synthetic_swap_instruments(200, 1);
        let mut prices: Vec<Decimal> = spot.iter().map(|m| m.mid_price).collect();
        prices.sort();
        prices.dedup();
        assert!(prices.len() > 150, "{} distinct prices", prices.len());
        assert!(prices[0] >= d("0.001") && prices[prices.len() - 1] <= d("99900"));
        assert!(prices[0] < d("0.01") && prices[prices.len() - 1] >= d("10000"));
        for (i, (m, s)) in spot.iter().zip(&swap).enumerate() {
            assert_eq!(m.symbol(), format!("s{i}_usdt"));
            assert_eq!(s.instrument_id, format!("S{i}USDTPERP"));
            assert_eq!(m.mid_price, s.mid_price);
            // Five significant digits of price, the mid on the grid.
            assert!(places(m.mid_price) <= m.price_precision, "{m:?}");
            assert!(m.mid_price * Decimal::from(10_000) >= crate::num::step(m.price_precision));
            assert!(places(m.min_amount) <= m.amount_precision);
            assert!(places(m.maker_size) <= m.amount_precision);
            assert!(m.maker_size >= m.min_amount);
            let maker_value = m.maker_size * m.mid_price;
            assert!(maker_value > d("2000") && maker_value < d("4000"), "{m:?}");
            assert!(m.flow.is_some() && m.status == MarketStatus::Trading && m.api_tradable);
            let contract = s.contract_value * s.mid_price;
            assert!(contract >= d("10") && contract < d("100"), "{s:?}");
            assert!(places(s.mid_price) <= s.price_precision);
            assert!(s.flow.is_some() && s.is_trading && !s.simulated);
        }
        assert_eq!(synthetic_markets(3, 1), spot[..3].to_vec());
        assert_ne!(synthetic_markets(3, 2), spot[..3].to_vec());
        let with = SimConfig::default().with_synthetic(2, 1);
        assert_eq!(with.markets.len(), default_markets().len() + 2);
        assert_eq!(
            with.swap_instruments.len(),
            default_swap_instruments().len() + 1
        );
    }
}
