//! A backtest: a bot, written against the blocking client and its streams, run over an
//! exchange in virtual time (a recording replayed, or the synthetic order flow), and the
//! account of what it did ([`Report`]).
//!
//! The bot is a function of a [`Bot`]: its client (the demo account's keys, the exchange's
//! clock), its streams (`bot.client().stream(..)`, which end when time is over) and a sleep
//! in virtual time ([`Bot::wait`]). It runs on the caller's thread; nothing else moves the
//! exchange, so the same configuration, seed and bot give the same fills and the same report,
//! byte for byte.
//!
//! DESIGN (the report's money): everything is valued in USDT. Spot: every currency at the
//! mid of its `{currency}_usdt` book; a currency without one is left out of the equity and
//! named in [`Report::unvalued`]. P&L by average cost per market: the opening inventory is
//! valued at the first sample's mid; a buy adds its net amount (after a fee taken in the base
//! currency) at its price, a sell realizes its price less the average cost of what it sold;
//! fees are valued at the fill's price. Perpetuals (USDT-margined, as the venue's are): the
//! swap wallet's USDT (margin included) plus each position's unrealized profit at the mid of
//! its book, `size * contract_value * (mid - avg_cost)` for a long and the opposite for a
//! short, with the exchange's own average cost; realized is each closing fill's profit as the
//! exchange credits it, fees each fill's fee, funding each settlement the exchange made (each
//! instrument at its own interval, at the rate and mark price of the time).
//! `total = realized + unrealized - fees + rebates + funding` holds exactly, and `total` is
//! the equity's change.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use digifinex_core::Credentials;
use digifinex_sim::{AccountId, AccountType, Control, FillModel, SimConfig, WsFamily};
use rust_decimal::Decimal;
use serde_json::{json, Value};

use crate::latency::RestLatency;
use crate::InProcess;

/// How a backtest runs.
#[derive(Debug, Clone)]
pub struct BacktestConfig {
    /// The exchange: its markets, seed, recording (`market`) and fill model.
    pub sim: SimConfig,
    /// The REST round trip's latency model: request to the exchange, answer back.
    pub latency: RestLatency,
    /// Time between two samples of the equity curve (ms).
    pub sample_every_ms: i64,
    /// The end of time; by default the end of the recording (or one hour of synthetic flow).
    pub end_ms: Option<i64>,
    /// The end of time as a span from the start (ms), when `end_ms` is not set (the start is
    /// the recording's first instant, or the exchange's clock).
    pub duration_ms: Option<i64>,
    /// The spot pairs the bot trades and the report covers; by default every pair of the
    /// exchange, or of the recording file when one is replayed (not the configuration's
    /// synthetic markets beside it). Naming the pairs (or the perpetuals) and not the
    /// perpetuals (or the pairs) leaves the other family out.
    pub spot: Option<Vec<String>>,
    /// The perpetuals (`BTCUSDTPERP`) the bot trades and the report covers; by default every
    /// instrument of the exchange, or of the recording file when one is replayed.
    pub swap: Option<Vec<String>>,
}

/// The venue's perpetual swap fee schedule (standard tier): maker 0.03 %.
pub const SWAP_MAKER_FEE: Decimal = Decimal::from_parts(3, 0, 0, false, 4);
/// The venue's perpetual swap fee schedule (standard tier): taker 0.05 %.
pub const SWAP_TAKER_FEE: Decimal = Decimal::from_parts(5, 0, 0, false, 4);

/// Reads fee rates as `digifinex backtest --fees` takes them: `MAKER:TAKER` as fractions,
/// each from -0.01 to 0.01 (`0.001:0.002` is 0.1 % and 0.2 %; a negative maker rate is a
/// rebate). The error says what was expected.
///
/// ```
/// use digifinex_backtest::fee_rates;
/// use rust_decimal::Decimal;
///
/// assert_eq!(fee_rates("0.001:0.002"), Ok((Decimal::new(1, 3), Decimal::new(2, 3))));
/// assert!(fee_rates("0.1:0.2").is_err());
/// ```
pub fn fee_rates(text: &str) -> Result<(Decimal, Decimal), String> {
    let bad = || {
        format!("expected MAKER:TAKER rates as fractions from -0.01 to 0.01 (0.001:0.002), got {text:?}")
    };
    let (m, t) = text.split_once(':').ok_or_else(bad)?;
    let limit = Decimal::new(1, 2);
    let rate = |s: &str| -> Result<Decimal, String> {
        let r: Decimal = s.trim().parse().map_err(|_| bad())?;
        if r.abs() > limit {
            return Err(bad());
        }
        Ok(r)
    };
    Ok((rate(m)?, rate(t)?))
}

impl BacktestConfig {
    /// A backtest over `sim`, with 20 ms each way of REST latency, a sample a minute, and the
    /// venue's swap fee schedule ([`SWAP_MAKER_FEE`], [`SWAP_TAKER_FEE`]); spot fees are
    /// `sim`'s (`maker_fee_rate`, `taker_fee_rate`: 0.1 % and 0.2 % by default).
    pub fn new(mut sim: SimConfig) -> BacktestConfig {
        sim.swap_maker_fee_rate = SWAP_MAKER_FEE;
        sim.swap_taker_fee_rate = SWAP_TAKER_FEE;
        BacktestConfig {
            sim,
            latency: RestLatency::Fixed {
                entry_ms: 20,
                response_ms: 20,
            },
            sample_every_ms: 60_000,
            end_ms: None,
            duration_ms: None,
            spot: None,
            swap: None,
        }
    }
}

/// Why a backtest did not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BacktestError {
    /// The recording could not be opened.
    #[error("the recording: {0}")]
    Recording(#[from] digifinex_sim::market::ReadError),
    /// The bot's client could not be built.
    #[error("the client: {0}")]
    Client(#[from] digifinex_core::Error),
    /// The bot returned an error or panicked: what it was, and the report of the run up to
    /// then (the account as the bot left it).
    #[error("the bot {}: {error}", if *.panicked { "panicked" } else { "failed" })]
    Bot {
        /// The bot's error, or the panic's message.
        error: Box<dyn std::error::Error + Send + Sync>,
        /// Whether it panicked.
        panicked: bool,
        /// The partial report.
        report: Box<Report>,
    },
    /// The configuration names something this runner does not do.
    #[error("{0}")]
    Unsupported(String),
}

/// What the bot is given: its client (the blocking one; [`AsyncBot`] for the async one), the
/// run's markets and its time.
#[derive(Debug, Clone)]
pub struct Bot<C = digifinex_ureq::Client> {
    client: C,
    exchange: InProcess,
    spot: Vec<String>,
    swap: Vec<String>,
}

impl<C> Bot<C> {
    /// The client: the demo account's keys, the exchange's clock, REST and streams in process.
    pub fn client(&self) -> &C {
        &self.client
    }

    /// The spot pairs of the run (`btc_usdt`).
    pub fn spot_pairs(&self) -> &[String] {
        &self.spot
    }

    /// The perpetuals of the run (`BTCUSDTPERP`).
    pub fn swap_instruments(&self) -> &[String] {
        &self.swap
    }

    /// The exchange's time (ms).
    pub fn now_ms(&self) -> i64 {
        self.exchange.now_ms()
    }

    /// The exchange the bot runs against (a reader of several streams on one thread waits
    /// on it, [`InProcess::wait_for_event`]).
    pub fn exchange(&self) -> &InProcess {
        &self.exchange
    }

    /// Sleeps `duration` of virtual time; `false` when time is over (it returns at once: the
    /// exchange runs everything due meanwhile on this thread).
    pub fn wait(&self, duration: Duration) -> bool {
        self.exchange.wait(duration)
    }

    /// Whether time is over.
    pub fn over(&self) -> bool {
        self.exchange.is_over()
    }
}

/// A backtest ready to run.
#[derive(Debug)]
pub struct Backtest {
    exchange: InProcess,
    config: BacktestConfig,
    /// The pairs and instruments of the recording file replayed (its header), if any.
    recorded: Option<(Vec<String>, Vec<String>)>,
}

/// One sample of the account.
#[derive(Debug, Clone, Default)]
struct Sample {
    time_ms: i64,
    /// Mids of the spot pairs and of the perpetuals (their names differ).
    mids: BTreeMap<String, Decimal>,
    /// Spot balances (total) by currency.
    balances: BTreeMap<String, Decimal>,
    /// The swap wallet (total) by currency.
    swap_wallet: BTreeMap<String, Decimal>,
    /// Swap positions: instrument, +1 long / -1 short, contracts, average cost.
    positions: Vec<(String, Decimal, Decimal, Decimal)>,
}

/// What the report covers: the markets and each perpetual's contract value.
#[derive(Debug, Clone)]
struct Scope {
    spot: Vec<String>,
    swap: Vec<String>,
    contract_value: BTreeMap<String, Decimal>,
}

impl Backtest {
    /// Opens the exchange of `config` (its recording, if any).
    pub fn new(config: BacktestConfig) -> Result<Backtest, BacktestError> {
        let end = config.end_ms;
        let recorded = config.sim.market.is_some();
        let exchange = InProcess::new(config.sim.clone())?
            .latency_model(config.latency.clone())
            .end_with_recording(recorded);
        let start = exchange.now_ms();
        let end = end
            .or(config.duration_ms.map(|d| start.saturating_add(d)))
            .or((!recorded).then_some(start + 3_600_000));
        let exchange = exchange.end_at(end);
        // The markets a run covers by default: the recording's, not the configuration's
        // synthetic ones beside them (a recording given as a reader is read once, by the
        // exchange: its runs cover every market).
        let recorded = match config.sim.market.as_ref().map(|m| &m.source) {
            Some(digifinex_sim::MarketSource::File(path)) => {
                let reader = digifinex_market::Reader::open(path)?;
                let h = reader.header();
                Some((
                    h.spot
                        .iter()
                        .map(|p| p.symbol.to_ascii_lowercase())
                        .collect(),
                    h.swap.iter().map(|i| i.instrument_id.clone()).collect(),
                ))
            }
            _ => None,
        };
        Ok(Backtest {
            exchange,
            config,
            recorded,
        })
    }

    /// The exchange (for setting up balances or faults before the run).
    pub fn exchange(&self) -> &InProcess {
        &self.exchange
    }

    /// Runs `bot` until it returns (or time is over and it returns), then reports.
    pub fn run<F, E>(self, bot: F) -> Result<Report, BacktestError>
    where
        F: FnOnce(&Bot) -> Result<(), E>,
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let run = self.start()?;
        let client = self
            .exchange
            .ureq_client()
            .credentials(run.credentials())
            .build()?;
        let b = Bot {
            client,
            exchange: self.exchange.clone(),
            spot: run.scope.spot.clone(),
            swap: run.scope.swap.clone(),
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| bot(&b)))
            .map(|r| r.map_err(Into::into));
        self.finish(run, outcome)
    }

    /// Runs `bot`, an async function of an [`AsyncBot`] (the async client), on a
    /// single-threaded tokio runtime of its own until it returns, then reports. The same
    /// configuration and bot give the same report, byte for byte, as with [`Backtest::run`]
    /// the same bot written for the blocking client.
    #[cfg(feature = "hyper")]
    pub fn run_async<F, Fut, E>(self, bot: F) -> Result<Report, BacktestError>
    where
        F: FnOnce(AsyncBot) -> Fut,
        Fut: std::future::Future<Output = Result<(), E>>,
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(|e| BacktestError::Unsupported(format!("a tokio runtime: {e}")))?;
        let run = self.start()?;
        let client = self
            .exchange
            .hyper_client()
            .credentials(run.credentials())
            .build()?;
        let b = Bot {
            client,
            exchange: self.exchange.clone(),
            spot: run.scope.spot.clone(),
            swap: run.scope.swap.clone(),
        };
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runtime.block_on(bot(b))))
                .map(|r| r.map_err(Into::into));
        self.finish(run, outcome)
    }

    /// The run's markets, and its sampling started.
    fn start(&self) -> Result<Started, BacktestError> {
        let control = self.exchange.control();
        let demo = control.demo_account();
        let (listed, instruments): (Vec<String>, Vec<(String, Decimal)>) =
            self.exchange.with(|ex| {
                let c = ex.config();
                (
                    c.markets.iter().map(|m| m.symbol()).collect(),
                    c.swap_instruments
                        .iter()
                        .map(|i| (i.instrument_id.clone(), i.contract_value))
                        .collect(),
                )
            });
        let contract_value: BTreeMap<String, Decimal> = instruments.into_iter().collect();
        // Naming the markets of one family leaves the other out unless named too.
        let (mut wanted_spot, mut wanted_swap) =
            (self.config.spot.clone(), self.config.swap.clone());
        if wanted_spot.is_some() || wanted_swap.is_some() {
            wanted_spot.get_or_insert_with(Vec::new);
            wanted_swap.get_or_insert_with(Vec::new);
        }
        // Every market the exchange has may be named; by default the recording's, or all.
        let listed_swap: Vec<String> = contract_value.keys().cloned().collect();
        let (default_spot, default_swap) = match &self.recorded {
            Some((rs, ri)) => (rs.clone(), ri.clone()),
            None => (listed.clone(), listed_swap.clone()),
        };
        let spot = chosen(wanted_spot, &listed, default_spot, "spot pair")?;
        let swap = chosen(wanted_swap, &listed_swap, default_swap, "perpetual")?;
        let scope = Scope {
            spot,
            swap,
            contract_value,
        };
        let samples = Arc::new(Mutex::new(Vec::new()));
        let first = sample(&control, demo.account, &scope, self.exchange.now_ms());
        samples
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(first);
        {
            let (samples, scope) = (samples.clone(), scope.clone());
            let account = demo.account;
            self.exchange
                .sample_every(self.config.sample_every_ms, move |c, t| {
                    let s = sample(c, account, &scope, t);
                    samples.lock().unwrap_or_else(|p| p.into_inner()).push(s);
                });
        }
        Ok(Started {
            control,
            demo,
            scope,
            samples,
        })
    }

    /// The report of the run, and the bot's error or panic with it.
    fn finish(
        &self,
        run: Started,
        outcome: std::thread::Result<Result<(), Box<dyn std::error::Error + Send + Sync>>>,
    ) -> Result<Report, BacktestError> {
        let Started {
            control,
            demo,
            scope,
            samples,
        } = run;
        let end = self.exchange.now_ms();
        let last = sample(&control, demo.account, &scope, end);
        let mut samples = std::mem::take(&mut *samples.lock().unwrap_or_else(|p| p.into_inner()));
        if samples.last().is_none_or(|s| s.time_ms < end) {
            samples.push(last);
        }
        let report = Report::build(&control, demo.account, &scope, &samples, &self.config);
        let (error, panicked): (Box<dyn std::error::Error + Send + Sync>, bool) = match outcome {
            Ok(Ok(())) => return Ok(report),
            Ok(Err(e)) => (e, false),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_owned());
                (message.into(), true)
            }
        };
        Err(BacktestError::Bot {
            error,
            panicked,
            report: Box::new(report),
        })
    }
}

/// A run started: its markets and the samples taken so far.
struct Started {
    control: Control,
    demo: digifinex_sim::DemoAccount,
    scope: Scope,
    samples: Arc<Mutex<Vec<Sample>>>,
}

impl Started {
    fn credentials(&self) -> Credentials {
        Credentials::new(self.demo.keys.key.clone(), self.demo.keys.secret.clone())
    }
}

/// What an async bot is given ([`Backtest::run_async`]): the async client.
#[cfg(feature = "hyper")]
pub type AsyncBot = Bot<digifinex_hyper::Client>;

/// The markets of the run: `wanted`, each checked to be one of `listed`, or else `default`.
fn chosen(
    wanted: Option<Vec<String>>,
    listed: &[String],
    default: Vec<String>,
    what: &str,
) -> Result<Vec<String>, BacktestError> {
    let Some(wanted) = wanted else {
        return Ok(default);
    };
    for m in &wanted {
        if !listed.contains(m) {
            return Err(BacktestError::Unsupported(format!(
                "{what} {m} is not a market of the exchange (it has: {})",
                if listed.is_empty() {
                    "none".to_owned()
                } else {
                    listed.join(", ")
                }
            )));
        }
    }
    Ok(wanted)
}

fn mid(control: &Control, family: WsFamily, market: &str) -> Option<Decimal> {
    let b = control.book(family, market, 1)?;
    let (bid, ask) = (b.bids.first()?.0, b.asks.first()?.0);
    Some((bid + ask) / Decimal::TWO)
}

fn sample(control: &Control, account: AccountId, scope: &Scope, time_ms: i64) -> Sample {
    let mut mids: BTreeMap<String, Decimal> = scope
        .spot
        .iter()
        .filter_map(|m| Some((m.clone(), mid(control, WsFamily::Spot, m)?)))
        .collect();
    for i in &scope.swap {
        if let Some(p) = mid(control, WsFamily::Swap, i) {
            mids.insert(i.clone(), p);
        }
    }
    let all = control.balances(account).unwrap_or_default();
    let of = |t: AccountType| -> BTreeMap<String, Decimal> {
        all.iter()
            .filter(|b| b.account_type == t)
            .map(|b| (b.currency.to_ascii_uppercase(), b.balance.total()))
            .collect()
    };
    let positions = if scope.swap.is_empty() {
        Vec::new()
    } else {
        control
            .swap_positions(account)
            .into_iter()
            .filter(|p| scope.swap.contains(&p.instrument_id))
            .map(|p| {
                let sign = if p.side == "short" {
                    -Decimal::ONE
                } else {
                    Decimal::ONE
                };
                (p.instrument_id, sign, p.size, p.avg_cost)
            })
            .collect()
    };
    Sample {
        time_ms,
        mids,
        // The wallets of the run's markets: a swap-only run leaves the spot wallet out.
        balances: if scope.spot.is_empty() {
            BTreeMap::new()
        } else {
            of(AccountType::Spot)
        },
        // To 12 places: margin moves between free and frozen in quotients, which can leave
        // the total off by less than 1e-20.
        swap_wallet: if scope.swap.is_empty() {
            BTreeMap::new()
        } else {
            of(AccountType::Swap)
                .into_iter()
                .map(|(c, v)| (c, v.round_dp(12)))
                .collect()
        },
        positions,
    }
}

/// The account of a run (see the module docs for the money). [`Report::to_json`] writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The JSON document.
    pub json: Value,
    /// Currencies left out of the equity (no `{currency}_usdt` book).
    pub unvalued: Vec<String>,
}

/// Per-market average-cost books.
#[derive(Default)]
struct Position {
    q: Decimal,
    basis: Decimal,
}

impl Report {
    fn build(
        control: &Control,
        account: AccountId,
        scope: &Scope,
        samples: &[Sample],
        config: &BacktestConfig,
    ) -> Report {
        let empty = Sample::default();
        let first = samples.first().unwrap_or(&empty);
        let last = samples.last().unwrap_or(&empty);
        let spot = &scope.spot;
        let quote = "USDT";
        let base_of =
            |m: &str| -> Option<String> { m.strip_suffix("_usdt").map(str::to_ascii_uppercase) };
        // The valued currencies: USDT and each base with a USDT book in the run.
        let mut unvalued = Vec::new();
        for c in first.balances.keys().chain(last.balances.keys()) {
            let valued = c == quote || spot.iter().any(|m| base_of(m).as_deref() == Some(c));
            if !valued && !unvalued.contains(c) {
                unvalued.push(c.clone());
            }
        }
        for c in first.swap_wallet.keys().chain(last.swap_wallet.keys()) {
            let name = format!("{c} (swap)");
            if c != quote && !unvalued.contains(&name) {
                unvalued.push(name);
            }
        }
        // The unrealized profit of a sample's positions at its mids.
        let open_pnl = |s: &Sample| -> Decimal {
            let mut u = Decimal::ZERO;
            for (inst, sign, size, avg) in &s.positions {
                let (Some(mid), Some(cv)) = (s.mids.get(inst), scope.contract_value.get(inst))
                else {
                    continue;
                };
                u += (*mid - *avg) * *size * *cv * *sign;
            }
            // To 12 places, as the exchange's profits (the average cost is a quotient): the
            // equity and the split then add up exactly.
            u.round_dp(12)
        };
        let equity = |s: &Sample| -> Decimal {
            let mut e = s.balances.get(quote).copied().unwrap_or_default();
            for m in spot {
                if let (Some(b), Some(mid)) = (base_of(m), s.mids.get(m)) {
                    e += s.balances.get(&b).copied().unwrap_or_default() * mid;
                }
            }
            e + s.swap_wallet.get(quote).copied().unwrap_or_default() + open_pnl(s)
        };
        // Orders: placed time, amount, executed (spot and swap).
        let mut orders: BTreeMap<String, (i64, Decimal, Decimal)> = control
            .orders(account)
            .into_iter()
            .map(|o| (o.order_id, (o.created_ms, o.amount, o.executed_amount)))
            .collect();
        if !scope.swap.is_empty() {
            for o in control.swap_orders(account) {
                if scope.swap.contains(&o.instrument_id) {
                    orders.insert(o.order_id, (o.created_ms, o.size, o.filled));
                }
            }
        }
        let fills: Vec<_> = control
            .fills(account)
            .into_iter()
            .filter(|f| {
                (f.kind == "spot" && spot.contains(&f.market))
                    || (f.kind == "swap" && scope.swap.contains(&f.market))
            })
            .collect();
        let mut pos: BTreeMap<String, Position> = BTreeMap::new();
        for m in spot {
            if let (Some(b), Some(mid)) = (base_of(m), first.mids.get(m)) {
                let q = first.balances.get(&b).copied().unwrap_or_default();
                pos.insert(m.clone(), Position { q, basis: q * mid });
            }
        }
        let (mut realized, mut fees, mut rebates, mut turnover) =
            (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
        let mut rows = Vec::new();
        for f in &fills {
            let swap = f.kind == "swap";
            let base = if swap { None } else { base_of(&f.market) };
            let fee_quote = if Some(&f.fee_currency.to_ascii_uppercase()) == base.as_ref() {
                f.fee * f.price
            } else {
                f.fee
            };
            if fee_quote >= Decimal::ZERO {
                fees += fee_quote;
            } else {
                rebates -= fee_quote;
            }
            if swap {
                let cv = scope
                    .contract_value
                    .get(&f.market)
                    .copied()
                    .unwrap_or_default();
                turnover += f.price * f.amount * cv;
                realized += f.realized;
            } else {
                turnover += f.price * f.amount;
                let p = pos.entry(f.market.clone()).or_default();
                if f.buy {
                    let fee_base = if base.is_some() && fee_quote == f.fee * f.price {
                        f.fee
                    } else {
                        Decimal::ZERO
                    };
                    p.q += f.amount - fee_base;
                    p.basis += f.price * (f.amount - fee_base);
                } else {
                    // Rounded to 12 places so that every sum below stays exact (the split then
                    // adds up to the equity's change to the last digit).
                    let part = if p.q > Decimal::ZERO {
                        (p.basis * f.amount / p.q).round_dp(12)
                    } else {
                        Decimal::ZERO
                    };
                    realized += f.price * f.amount - part;
                    p.basis -= part;
                    p.q -= f.amount;
                }
            }
            let wait = orders.get(&f.order_id).map(|o| f.time_ms - o.0);
            let mut row = json!({
                "time_ms": f.time_ms,
                "market": f.market,
                "side": if f.buy { "buy" } else { "sell" },
                "price": f.price.to_string(),
                "amount": f.amount.to_string(),
                "fee": f.fee.to_string(),
                "fee_currency": f.fee_currency,
                "maker": f.maker,
                "queue_wait_ms": wait,
            });
            if swap {
                row["kind"] = json!(if f.open { "open" } else { "close" });
                row["realized"] = json!(f.realized.to_string());
            }
            rows.push(row);
        }
        // Funding settled on the run's perpetuals.
        let mut funding = Decimal::ZERO;
        let mut payments = Vec::new();
        if !scope.swap.is_empty() {
            for f in control.funding_fees(account) {
                if scope.swap.contains(&f.instrument_id) && f.time_ms <= last.time_ms {
                    funding += f.amount;
                    payments.push(json!({
                        "time_ms": f.time_ms,
                        "market": f.instrument_id,
                        "amount": f.amount.to_string(),
                    }));
                }
            }
        }
        let mut unrealized = open_pnl(last) - open_pnl(first);
        for (m, p) in &pos {
            if let Some(mid) = last.mids.get(m) {
                unrealized += p.q * mid - p.basis;
            }
        }
        let e0 = equity(first);
        let total = equity(last) - e0;
        // The equity curve and its drawdown.
        let (mut peak, mut dd, mut dd_frac) = (Decimal::MIN, Decimal::ZERO, Decimal::ZERO);
        let curve: Vec<Value> = samples
            .iter()
            .map(|s| {
                let e = equity(s);
                if e > peak {
                    peak = e;
                }
                if peak - e > dd {
                    dd = peak - e;
                    if peak > Decimal::ZERO {
                        dd_frac = (dd / peak).round_dp(8);
                    }
                }
                json!({"time_ms": s.time_ms, "equity": e.to_string()})
            })
            .collect();
        let inventory: Vec<Value> = samples
            .iter()
            .map(|s| {
                let held: serde_json::Map<String, Value> = spot
                    .iter()
                    .filter_map(|m| {
                        let b = base_of(m)?;
                        let q = s.balances.get(&b).copied().unwrap_or_default();
                        Some((m.clone(), Value::String(q.to_string())))
                    })
                    .collect();
                let mut row = json!({"time_ms": s.time_ms, "base": held});
                if !scope.swap.is_empty() {
                    let net: serde_json::Map<String, Value> = scope
                        .swap
                        .iter()
                        .map(|i| {
                            let n: Decimal = s
                                .positions
                                .iter()
                                .filter(|p| &p.0 == i)
                                .map(|p| p.1 * p.2)
                                .sum();
                            (i.clone(), Value::String(n.to_string()))
                        })
                        .collect();
                    row["contracts"] = Value::Object(net);
                }
                row
            })
            .collect();
        let prices: Vec<Value> = samples
            .iter()
            .map(|s| {
                let mids: serde_json::Map<String, Value> = s
                    .mids
                    .iter()
                    .map(|(m, p)| (m.clone(), Value::String(p.to_string())))
                    .collect();
                json!({"time_ms": s.time_ms, "mid": mids})
            })
            .collect();
        let (placed, executed) = orders
            .values()
            .fold((Decimal::ZERO, Decimal::ZERO), |(a, x), o| {
                (a + o.1, x + o.2)
            });
        let fill_ratio = if placed > Decimal::ZERO {
            Value::String((executed / placed).round_dp(8).to_string())
        } else {
            Value::Null
        };
        let json = json!({
            "start_ms": first.time_ms,
            "end_ms": last.time_ms,
            "fill_model": config.sim.fill_model.to_string(),
            "rest_latency_ms": latency_json(&config.latency),
            "seed": config.sim.seed,
            "fees": {
                "spot_maker": config.sim.maker_fee_rate.to_string(),
                "spot_taker": config.sim.taker_fee_rate.to_string(),
                "swap_maker": config.sim.swap_maker_fee_rate.to_string(),
                "swap_taker": config.sim.swap_taker_fee_rate.to_string(),
            },
            "markets": spot,
            "swap_markets": scope.swap,
            "valued_in": quote,
            "unvalued": unvalued,
            "pnl": {
                "total": total.to_string(),
                "realized": realized.to_string(),
                "unrealized": unrealized.to_string(),
                "fees": fees.to_string(),
                "rebates": rebates.to_string(),
                "funding": funding.to_string(),
            },
            "equity_start": e0.to_string(),
            "equity_end": equity(last).to_string(),
            "max_drawdown": dd.to_string(),
            "max_drawdown_fraction": dd_frac.to_string(),
            "turnover": turnover.to_string(),
            "orders": orders.len(),
            "fills_count": rows.len(),
            "fill_ratio": fill_ratio,
            "equity": curve,
            "inventory": inventory,
            "prices": prices,
            "fills": rows,
            "funding": payments,
        });
        Report { json, unvalued }
    }

    /// The report as pretty JSON text (decimals as their exact text).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.json).unwrap_or_default()
    }

    /// A P&L figure by name (`total`, `realized`, `unrealized`, `fees`, `rebates`,
    /// `funding`).
    pub fn pnl(&self, name: &str) -> Option<Decimal> {
        self.json.get("pnl")?.get(name)?.as_str()?.parse().ok()
    }

    /// Writes `dir/report.json` ([`Report::to_json`]) and the self-contained
    /// `dir/report.html` ([`Report::to_html`]), creating `dir` when missing; the two paths.
    pub fn write(
        &self,
        dir: &std::path::Path,
    ) -> std::io::Result<(std::path::PathBuf, std::path::PathBuf)> {
        std::fs::create_dir_all(dir)?;
        let json = dir.join("report.json");
        let html = dir.join("report.html");
        std::fs::write(&json, self.to_json() + "\n")?;
        std::fs::write(&html, self.to_html())?;
        Ok((json, html))
    }
}

fn latency_json(l: &RestLatency) -> Value {
    match l {
        RestLatency::Fixed {
            entry_ms,
            response_ms,
        } => json!({"model": "fixed", "entry": entry_ms, "response": response_ms}),
        RestLatency::Uniform {
            entry_ms,
            response_ms,
            seed,
        } => json!({
            "model": "uniform",
            "entry": [entry_ms.0, entry_ms.1],
            "response": [response_ms.0, response_ms.1],
            "seed": seed,
        }),
        RestLatency::Recorded(rows) => json!({"model": "recorded", "rows": rows.len()}),
        #[allow(unreachable_patterns)]
        _ => json!({"model": "other"}),
    }
}

/// The fill model of a run, by its name (`fifo`, `prob-log`, `prob-power[:N]`).
pub fn fill_model(name: &str) -> Result<FillModel, BacktestError> {
    name.parse::<FillModel>()
        .map_err(|e| BacktestError::Unsupported(format!("--fill-model: {e}")))
}
