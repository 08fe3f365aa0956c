//! `digifinex.backtest(strategy, ...)`: a strategy, a Python callable, run over the exchange in
//! the same process in virtual time (`digifinex-backtest`), and the report of what it did.
//!
//! The strategy is called once, on the caller's thread, with a `Bot`: its `client` is a
//! `digifinex.Client` wired to the exchange (the demo account's keys; REST calls take their
//! modelled latency of virtual time; `client.stream(...)` reads the exchange's pushes on the
//! same thread and ends when time is over), `bot.wait(seconds)` is its sleep in virtual time.
//! Nothing else moves the exchange, so the same options, seed and strategy give the same report,
//! byte for byte, and the same strategy written in Rust against `digifinex_ureq::Client` gives the
//! same report as written in Python against `digifinex.Client` (tested with the bundled
//! quote-touch strategy and its Python port).
//!
//! DESIGN: the options are those of `digifinex backtest` (`fill_model`, `latency`, `spot`,
//! `swap`, `seed`, `fees`, `swap_fees`), read by the same parsers; without `market` the exchange
//! runs its synthetic order flow for one hour (`end_ms` to change it). The GIL is released while
//! the exchange runs (REST calls, waits, streams) and held while the strategy's code runs.

use std::sync::Mutex;
use std::time::Duration;

use digifinex_backtest::strategy::{QuoteTouch, NAMES};
use digifinex_backtest::{
    fee_rates, fill_model, Backtest, BacktestConfig, BacktestError as RunError, Bot, Report,
    RestLatency,
};
use digifinex_sim::{MarketConfig, SimConfig};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::to_py::{decimal_class, to_py};

pyo3::create_exception!(
    digifinex,
    BacktestError,
    crate::errors::DigifinexError,
    "The strategy raised (its exception is the __cause__), or the backtest could not run; `.report` is the report of the run up to then (None when it did not start)."
);

/// What a strategy is given (see the module docs).
#[pyclass(frozen, module = "digifinex._native", name = "Bot")]
pub(crate) struct PyBot {
    pub(crate) bot: Bot,
}

#[pymethods]
impl PyBot {
    /// The spot pairs of the run (`"btc_usdt"`).
    #[getter]
    fn spot_pairs(&self) -> Vec<String> {
        self.bot.spot_pairs().to_vec()
    }

    /// The perpetuals of the run (`"BTCUSDTPERP"`).
    #[getter]
    fn swap_instruments(&self) -> Vec<String> {
        self.bot.swap_instruments().to_vec()
    }

    /// The exchange's time, ms since the Unix epoch.
    fn now_ms(&self) -> i64 {
        self.bot.now_ms()
    }

    /// Lets `seconds` of virtual time pass (at once: the exchange runs everything due
    /// meanwhile); `False` when time is over.
    fn wait(&self, py: Python<'_>, seconds: f64) -> PyResult<bool> {
        if !(seconds.is_finite() && (0.0..=86_400.0).contains(&seconds)) {
            return Err(PyValueError::new_err("seconds from 0 to 86400"));
        }
        let d = Duration::from_secs_f64(seconds);
        Ok(py.detach(|| self.bot.wait(d)))
    }

    /// Whether time is over.
    #[getter]
    fn over(&self) -> bool {
        self.bot.over()
    }

    fn __repr__(&self) -> String {
        format!(
            "Bot(spot_pairs={:?}, swap_instruments={:?}, now_ms={})",
            self.bot.spot_pairs(),
            self.bot.swap_instruments(),
            self.bot.now_ms()
        )
    }
}

/// The account of a run: the document `digifinex backtest` writes as `report.json`.
#[pyclass(frozen, module = "digifinex._native", name = "Report")]
pub(crate) struct PyReport {
    report: Report,
}

#[pymethods]
impl PyReport {
    /// The report as a dict (decimals as their exact text, as in `report.json`).
    #[getter]
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.report.json)
    }

    /// A P&L figure by name (`total`, `realized`, `unrealized`, `fees`, `rebates`, `funding`)
    /// as a `Decimal`, or `None`.
    fn pnl<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.report
            .pnl(name)
            .map(|d| decimal_class(py)?.call1((d.to_string(),)))
            .transpose()
    }

    /// Currencies left out of the equity (no `{currency}_usdt` book).
    #[getter]
    fn unvalued(&self) -> Vec<String> {
        self.report.unvalued.clone()
    }

    /// The report as pretty JSON text (the bytes of `report.json` but the final newline).
    fn to_json(&self) -> String {
        self.report.to_json()
    }

    /// The self-contained HTML page (`report.html`).
    fn to_html(&self) -> String {
        self.report.to_html()
    }

    /// Writes `dir/report.json` and `dir/report.html` (creating `dir`); the two paths.
    fn write(&self, dir: std::path::PathBuf) -> PyResult<(String, String)> {
        let (json, html) = self
            .report
            .write(&dir)
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", dir.display())))?;
        Ok((json.display().to_string(), html.display().to_string()))
    }

    fn __repr__(&self) -> String {
        let pnl = self.report.pnl("total").unwrap_or_default();
        format!(
            "Report(pnl_total={pnl}, fills={})",
            self.report.json["fills_count"]
        )
    }
}

fn usage(field: &str, e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{field}: {e}"))
}

/// `backtest(strategy, *, market=None, fill_model="fifo", latency="20:20", spot=None,
/// swap=None, seed=None, fees=None, swap_fees=None, end_ms=None, duration_s=None,
/// sample_every_ms=60000, requote_ms=10000)`: `strategy` is a callable of a native `Bot` (the Python wrapper gives
/// the user's callable a `digifinex.Bot`) or the name of a bundled strategy (`"quote-touch"`,
/// with `requote_ms`).
#[pyfunction]
#[pyo3(signature = (strategy, *, market=None, fill_model="fifo", latency="20:20", spot=None, swap=None, seed=None, fees=None, swap_fees=None, end_ms=None, duration_s=None, sample_every_ms=60_000, requote_ms=10_000))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn backtest(
    py: Python<'_>,
    strategy: &Bound<'_, PyAny>,
    market: Option<std::path::PathBuf>,
    fill_model: &str,
    latency: &str,
    spot: Option<Vec<String>>,
    swap: Option<Vec<String>>,
    seed: Option<u64>,
    fees: Option<&str>,
    swap_fees: Option<&str>,
    end_ms: Option<i64>,
    duration_s: Option<f64>,
    sample_every_ms: i64,
    requote_ms: u64,
) -> PyResult<PyReport> {
    enum Strategy<'a, 'py> {
        Bundled(QuoteTouch),
        Callable(&'a Bound<'py, PyAny>),
    }
    let strategy = if let Ok(name) = strategy.extract::<String>() {
        if !NAMES.contains(&name.as_str()) {
            return Err(usage(
                "strategy",
                format!(
                    "unknown strategy {name:?}; the bundled ones: {}",
                    NAMES.join(", ")
                ),
            ));
        }
        if requote_ms == 0 || requote_ms > 3_600_000 {
            return Err(usage("requote_ms", "from 1 to 3600000"));
        }
        Strategy::Bundled(QuoteTouch {
            requote: Duration::from_millis(requote_ms),
            ..QuoteTouch::default()
        })
    } else if strategy.is_callable() {
        Strategy::Callable(strategy)
    } else {
        return Err(usage(
            "strategy",
            "a callable of a Bot, or a bundled strategy's name",
        ));
    };
    if !(1_000..=86_400_000).contains(&sample_every_ms) {
        return Err(usage("sample_every_ms", "from 1000 to 86400000"));
    }
    let model = fill_model_of(fill_model)?;
    let rest = RestLatency::parse(latency, seed.unwrap_or(1)).map_err(|e| usage("latency", e))?;
    let mut sim = match &market {
        // Only the recording's markets (no synthetic ones beside them), as the CLI.
        Some(path) => SimConfig {
            market: Some(MarketConfig::file(path)),
            markets: Vec::new(),
            swap_instruments: Vec::new(),
            ..SimConfig::default()
        },
        None => SimConfig::default(),
    };
    sim.fill_model = model;
    if let Some(seed) = seed {
        sim.seed = seed;
    }
    if let Some(text) = fees {
        (sim.maker_fee_rate, sim.taker_fee_rate) = fee_rates(text).map_err(|e| usage("fees", e))?;
    }
    let mut config = BacktestConfig::new(sim);
    if let Some(text) = swap_fees {
        (
            config.sim.swap_maker_fee_rate,
            config.sim.swap_taker_fee_rate,
        ) = fee_rates(text).map_err(|e| usage("swap_fees", e))?;
    }
    config.latency = rest;
    config.sample_every_ms = sample_every_ms;
    config.end_ms = end_ms;
    if let Some(d) = duration_s {
        if !(d.is_finite() && d > 0.0 && d <= 366.0 * 86_400.0) {
            return Err(usage("duration_s", "seconds above 0 and at most a year"));
        }
        // Whole milliseconds, as the exchange's clock (at most a year: no overflow).
        config.duration_ms =
            Some(i64::try_from(Duration::from_secs_f64(d).as_millis()).unwrap_or(i64::MAX));
    }
    config.spot = spot.map(|v| v.into_iter().map(|p| p.to_ascii_lowercase()).collect());
    config.swap = swap.map(|v| v.into_iter().map(|i| i.to_ascii_uppercase()).collect());
    let run = py
        .detach(|| Backtest::new(config))
        .map_err(|e| match (&e, &market) {
            (RunError::Recording(r), Some(path)) => {
                failed(py, format!("{}: {r}", path.display()), None)
            }
            _ => failed(py, e.to_string(), None),
        })?;
    // The strategy's exception, kept for the error's __cause__.
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    let outcome = match strategy {
        Strategy::Bundled(quote) => py.detach(|| run.run(|bot| quote.run(bot))),
        Strategy::Callable(f) => {
            let f = f.clone().unbind();
            py.detach(|| {
                run.run(|bot| {
                    Python::attach(|py| -> Result<(), String> {
                        let native =
                            Py::new(py, PyBot { bot: bot.clone() }).and_then(|b| f.call1(py, (b,)));
                        match native {
                            Ok(_) => Ok(()),
                            Err(e) => {
                                let message = e.to_string();
                                *raised.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                                Err(message)
                            }
                        }
                    })
                })
            })
        }
    };
    match outcome {
        Ok(report) => Ok(PyReport { report }),
        Err(RunError::Bot { error, report, .. }) => {
            let err = failed(
                py,
                format!("the strategy failed: {error}"),
                Some(PyReport { report: *report }),
            );
            if let Some(cause) = raised.lock().unwrap_or_else(|p| p.into_inner()).take() {
                err.set_cause(py, Some(cause));
            }
            Err(err)
        }
        Err(other) => Err(failed(py, other.to_string(), None)),
    }
}

fn fill_model_of(name: &str) -> PyResult<digifinex_sim::FillModel> {
    fill_model(name).map_err(|e| usage("fill_model", e))
}

/// A `BacktestError` with its `report` attribute.
fn failed(py: Python<'_>, message: String, report: Option<PyReport>) -> PyErr {
    let err = BacktestError::new_err(message);
    let report = match report.map(|r| Py::new(py, r)).transpose() {
        Ok(r) => r.map_or_else(|| py.None(), |r| r.into_any()),
        Err(e) => return e,
    };
    // The attributes of every `digifinex.Error`; kind `backtest`.
    let v = err.value(py);
    let set = v
        .setattr("report", report)
        .and_then(|_| v.setattr("kind", "backtest"))
        .and_then(|_| {
            for name in [
                "code",
                "status",
                "field",
                "retry_after",
                "snippet",
                "venue_message",
            ] {
                v.setattr(name, py.None())?;
            }
            Ok(())
        });
    match set {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// Registers the classes and the function in the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("BacktestError", m.py().get_type::<BacktestError>())?;
    m.add_class::<PyBot>()?;
    m.add_class::<PyReport>()?;
    m.add_function(wrap_pyfunction!(backtest, m)?)?;
    Ok(())
}
