//! `digifinex backtest`: a bundled strategy over a recording, in virtual time
//! (`digifinex_backtest`), written as `DIR/report.json` and a self-contained `DIR/report.html`.
//!
//! DESIGN (`--latency`): `ENTRY_MS[:RESPONSE_MS]`, the REST round trip's two legs in virtual
//! time (one number: both legs; 20:20 by default); `uniform:LO-HI[:LO-HI]` draws each leg per
//! call from `--seed`; `file:PATH` reads round trips logged against the venue
//! (`digifinex_core::roundtrip`) and interpolates each leg over time.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use digifinex_backtest::strategy::{QuoteTouch, NAMES};
use digifinex_backtest::{
    fee_rates, fill_model, Backtest, BacktestConfig, BacktestError, RestLatency,
};
use digifinex_sim::{MarketConfig, SimConfig};

use crate::Failure;

/// `digifinex backtest`.
#[derive(Args)]
pub(crate) struct BacktestArgs {
    /// The recording (`digifinex record`): its markets, replayed to its end.
    #[arg(long, value_name = "FILE")]
    market: PathBuf,
    /// The bundled strategy: quote-touch (one post-only bid and ask at the touch of each pair
    /// and perpetual).
    #[arg(long, value_name = "NAME")]
    strategy: String,
    /// How resting orders fill against the recorded book: fifo (the conservative default),
    /// prob-log, `prob-power[:N]` (hftbacktest's queue models; N 1 by default).
    #[arg(long, value_name = "MODEL", default_value = "fifo")]
    fill_model: String,
    /// The REST round trip in virtual time: `ENTRY_MS[:RESPONSE_MS]` fixed, `uniform:LO-HI[:LO-HI]`
    /// drawn per call, or file:PATH (round trips logged against the venue, interpolated).
    #[arg(long, value_name = "L", default_value = "20:20")]
    latency: String,
    /// Spot pairs to trade (comma list; default: every market of the recording, unless
    /// `--swap` names perpetuals only).
    #[arg(long, value_name = "PAIRS", value_delimiter = ',')]
    spot: Option<Vec<String>>,
    /// Perpetuals to trade (comma list; default: every market of the recording, unless
    /// `--spot` names pairs only).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    swap: Option<Vec<String>>,
    /// The simulator's seed.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Spot fee rates MAKER:TAKER as fractions (0.001:0.002, the default, is 0.1 % and 0.2 %).
    #[arg(long, value_name = "MAKER:TAKER")]
    fees: Option<String>,
    /// Perpetual fee rates MAKER:TAKER as fractions (the venue's 0.0003:0.0005 by default).
    #[arg(long, value_name = "MAKER:TAKER")]
    swap_fees: Option<String>,
    /// Time between the strategy's checks, ms (quote-touch: 10000).
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    requote_ms: u64,
    /// Directory for report.json and report.html (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub(crate) fn run(args: BacktestArgs) -> Result<(), Failure> {
    if !NAMES.contains(&args.strategy.as_str()) {
        return Err(Failure::Usage(format!(
            "--strategy: unknown strategy {:?}; the bundled ones: {}",
            args.strategy,
            NAMES.join(", ")
        )));
    }
    let model = fill_model(&args.fill_model).map_err(|e| Failure::Usage(e.to_string()))?;
    let rest = RestLatency::parse(&args.latency, args.seed.unwrap_or(1))
        .map_err(|e| Failure::Usage(format!("--latency: {e}")))?;
    if args.requote_ms == 0 || args.requote_ms > 3_600_000 {
        return Err(Failure::Usage("--requote-ms: from 1 to 3600000".to_owned()));
    }
    // Only the recording's markets (no synthetic ones beside them).
    let mut sim = SimConfig {
        market: Some(MarketConfig::file(&args.market)),
        fill_model: model,
        markets: Vec::new(),
        swap_instruments: Vec::new(),
        ..SimConfig::default()
    };
    if let Some(seed) = args.seed {
        sim.seed = seed;
    }
    if let Some(text) = &args.fees {
        (sim.maker_fee_rate, sim.taker_fee_rate) =
            fee_rates(text).map_err(|e| Failure::Usage(format!("--fees: {e}")))?;
    }
    let mut config = BacktestConfig::new(sim);
    if let Some(text) = &args.swap_fees {
        (
            config.sim.swap_maker_fee_rate,
            config.sim.swap_taker_fee_rate,
        ) = fee_rates(text).map_err(|e| Failure::Usage(format!("--swap-fees: {e}")))?;
    }
    config.latency = rest;
    config.spot = args
        .spot
        .map(|v| v.into_iter().map(|p| p.to_ascii_lowercase()).collect());
    config.swap = args
        .swap
        .map(|v| v.into_iter().map(|i| i.to_ascii_uppercase()).collect());
    let backtest = Backtest::new(config).map_err(|e| match e {
        BacktestError::Recording(e) => Failure::Other(format!("{}: {e}", args.market.display())),
        other => Failure::Other(other.to_string()),
    })?;
    let strategy = QuoteTouch {
        requote: Duration::from_millis(args.requote_ms),
        ..QuoteTouch::default()
    };
    let (report, failed) = match backtest.run(|bot| strategy.run(bot)) {
        Ok(report) => (report, None),
        // The strategy stopped on an error: its partial report is written, then exit 1.
        Err(e @ BacktestError::Bot { .. }) => {
            let message = e.to_string();
            let BacktestError::Bot { report, .. } = e else {
                return Err(Failure::Other(message));
            };
            (*report, Some(message))
        }
        Err(BacktestError::Unsupported(m)) => return Err(Failure::Usage(m)),
        Err(other) => return Err(Failure::Other(other.to_string())),
    };
    let (json, html) = report.write(&args.out)?;
    let j = &report.json;
    println!("report_json: {}", json.display());
    println!("report_html: {}", html.display());
    println!("pnl_total: {}", j["pnl"]["total"].as_str().unwrap_or(""));
    println!("fills: {}", j["fills_count"]);
    match failed {
        Some(message) => Err(Failure::Other(format!(
            "{message} (the report of the run up to then is written)"
        ))),
        None => Ok(()),
    }
}
