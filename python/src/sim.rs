//! `digifinex.Sim`: the local exchange (`digifinex-sim`) served on loopback from a background
//! thread of this process, with its control operations as methods.
//!
//! The options are those of `digifinex sim` (`seed`, `limits`, `flow`, `market`, `speed`,
//! `latency`, `synthetic`), read by the simulator's own option parser; the URLs and the demo key
//! pair have the names `digifinex sim` prints. The server stops at `close()`, at the end of a
//! `with` block, or when the object is collected.

use std::sync::Mutex;

use digifinex_core::Decimal;
use digifinex_sim::options::{Parsed, SimOptions};
use digifinex_sim::{
    AccountId, AccountType, Control, FaultRule, KeyOptions, Permissions, Sim, SimHandle,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::from_py::{decimal_arg, value_json};
use crate::to_py::{decimal_class, to_py};

/// The simulator, in this process.
#[pyclass(frozen, subclass, module = "digifinex._native", name = "Sim")]
pub(crate) struct PySim {
    handle: Mutex<Option<SimHandle>>,
    control: Control,
    spot_base_url: String,
    swap_base_url: String,
    spot_ws_url: String,
    swap_ws_url: String,
    control_url: String,
    demo_account: AccountId,
    demo_key: String,
    demo_secret: String,
}

fn control_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn account_type(name: &str) -> PyResult<AccountType> {
    AccountType::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "account_type `{name}` is not spot, margin, otc or swap"
        ))
    })
}

fn py_decimal<'py>(py: Python<'py>, d: Decimal) -> PyResult<Bound<'py, PyAny>> {
    decimal_class(py)?.call1((d.to_string(),))
}

#[pymethods]
impl PySim {
    /// `Sim(*, seed=None, limits=True, flow=True, market=None, speed=None, latency=None,
    /// synthetic=None)`: `limits=False` is `--no-limits`, `flow=False` is `--still`, `market` a
    /// recording to replay, `speed` the clock's speed, `latency` a model (`"fixed:50"`),
    /// `synthetic` a pair of counts (`(716, 300)`).
    #[new]
    #[pyo3(signature = (*, seed=None, limits=true, flow=true, market=None, speed=None, latency=None, synthetic=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        seed: Option<u64>,
        limits: bool,
        flow: bool,
        market: Option<std::path::PathBuf>,
        speed: Option<&Bound<'_, PyAny>>,
        latency: Option<String>,
        synthetic: Option<(usize, usize)>,
    ) -> PyResult<Self> {
        let mut args: Vec<String> = Vec::new();
        if let Some(s) = seed {
            args.extend(["--seed".to_owned(), s.to_string()]);
        }
        if !limits {
            args.push("--no-limits".to_owned());
        }
        if !flow {
            args.push("--still".to_owned());
        }
        if let Some(m) = market {
            args.extend(["--market".to_owned(), m.to_string_lossy().into_owned()]);
        }
        if let Some(s) = speed {
            args.extend(["--speed".to_owned(), decimal_arg(s, "speed")?.to_string()]);
        }
        if let Some(l) = latency {
            args.extend(["--latency".to_owned(), l]);
        }
        if let Some((spot, swap)) = synthetic {
            args.extend(["--synthetic".to_owned(), format!("{spot},{swap}")]);
        }
        let options = match SimOptions::parse(args).map_err(PyValueError::new_err)? {
            Parsed::Run(o) => o,
            Parsed::Help => return Err(PyValueError::new_err("no help here")),
        };
        let config = options.config().map_err(PyValueError::new_err)?;
        let handle = py
            .detach(|| Sim::start(config))
            .map_err(|e| PyRuntimeError::new_err(format!("the simulator did not start: {e}")))?;
        let control = handle.control();
        let demo = control.demo_account();
        Ok(PySim {
            spot_base_url: handle.spot_base_url(),
            swap_base_url: handle.swap_base_url(),
            spot_ws_url: handle.spot_ws_url(),
            swap_ws_url: handle.swap_ws_url(),
            control_url: handle.control_url(),
            demo_account: demo.account,
            demo_key: demo.keys.key,
            demo_secret: demo.keys.secret,
            control,
            handle: Mutex::new(Some(handle)),
        })
    }

    /// Spot REST base URL (`http://127.0.0.1:PORT/v3`).
    #[getter]
    fn spot_base_url(&self) -> &str {
        &self.spot_base_url
    }
    /// Swap REST base URL (`http://127.0.0.1:PORT`).
    #[getter]
    fn swap_base_url(&self) -> &str {
        &self.swap_base_url
    }
    /// Spot websocket URL.
    #[getter]
    fn spot_ws_url(&self) -> &str {
        &self.spot_ws_url
    }
    /// Swap websocket URL.
    #[getter]
    fn swap_ws_url(&self) -> &str {
        &self.swap_ws_url
    }
    /// The control API's URL (`/__sim`).
    #[getter]
    fn control_url(&self) -> &str {
        &self.control_url
    }
    /// The demo account's id.
    #[getter]
    fn demo_account(&self) -> AccountId {
        self.demo_account
    }
    /// The demo account's API key.
    #[getter]
    fn demo_key(&self) -> &str {
        &self.demo_key
    }
    /// The demo account's API secret.
    #[getter]
    fn demo_secret(&self) -> &str {
        &self.demo_secret
    }

    /// Stops the server (idempotent).
    fn close(&self, py: Python<'_>) {
        let handle = self.handle.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(h) = handle {
            py.detach(move || h.shutdown());
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self) -> String {
        format!(
            "Sim(spot_base_url={:?}, swap_base_url={:?})",
            self.spot_base_url, self.swap_base_url
        )
    }

    // ---- clock ----

    /// The simulator's time (ms since the epoch).
    fn now_ms(&self) -> i64 {
        self.control.now_ms()
    }
    /// Moves the clock forward by `ms` (the order flow and funding in between run); returns
    /// the new time.
    fn advance_clock(&self, py: Python<'_>, ms: i64) -> PyResult<i64> {
        let c = &self.control;
        py.detach(|| c.try_advance_clock(ms)).map_err(control_err)
    }
    /// Sets the clock's offset from the wall clock (ms); returns the new time.
    fn set_clock_offset(&self, ms: i64) -> PyResult<i64> {
        self.control.try_set_clock_offset(ms).map_err(control_err)
    }
    /// Freezes the clock (at `at_ms`, or now); returns the frozen time.
    #[pyo3(signature = (at_ms=None))]
    fn freeze_clock(&self, at_ms: Option<i64>) -> PyResult<i64> {
        self.control.try_freeze_clock(at_ms).map_err(control_err)
    }
    /// Lets the clock run again.
    fn unfreeze_clock(&self) {
        self.control.unfreeze_clock()
    }
    /// Pauses or resumes the order flow.
    fn pause_flow(&self, paused: bool) {
        self.control.pause_flow(paused)
    }

    // ---- faults ----

    /// Adds a fault rule (the control API's JSON form as a dict: `{"path": "/v3/spot/order/new",
    /// "fault": {"kind": "drop_after_apply"}, "count": 1}`); returns its id.
    fn add_fault(&self, rule: &Bound<'_, PyAny>) -> PyResult<u64> {
        let json = value_json(rule, "rule")?;
        let rule: FaultRule = serde_json::from_str(&json)
            .map_err(|e| PyValueError::new_err(format!("invalid fault rule: {e}")))?;
        Ok(self.control.add_fault(rule))
    }
    /// Removes a fault rule; whether it existed.
    fn remove_fault(&self, id: u64) -> bool {
        self.control.remove_fault(id)
    }
    /// Removes every fault rule.
    fn clear_faults(&self) {
        self.control.clear_faults()
    }
    /// The active fault rules: `[{"id": N, "rule": {...}}, ...]`.
    fn faults<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (id, rule) in self.control.faults() {
            let d = PyDict::new(py);
            d.set_item("id", id)?;
            d.set_item("rule", to_py(py, &rule)?)?;
            list.append(d)?;
        }
        Ok(list)
    }

    // ---- accounts and balances ----

    /// Creates an empty account; returns its id.
    fn create_account(&self) -> AccountId {
        self.control.create_account()
    }
    /// Creates an API key for `account`; returns `(key, secret)`.
    #[pyo3(signature = (account, *, read=true, trade=true, withdraw=false))]
    fn create_api_key(
        &self,
        account: AccountId,
        read: bool,
        trade: bool,
        withdraw: bool,
    ) -> PyResult<(String, String)> {
        let mut opts = KeyOptions::all();
        opts.permissions = Permissions {
            read,
            trade,
            withdraw,
        };
        let pair = self
            .control
            .create_api_key(account, opts)
            .map_err(control_err)?;
        Ok((pair.key, pair.secret))
    }
    /// Sets the free balance of `currency` (frozen amounts stay); the demo account unless
    /// `account` is given.
    #[pyo3(signature = (currency, free, *, account=None, account_type="spot"))]
    fn set_balance(
        &self,
        currency: &str,
        free: &Bound<'_, PyAny>,
        account: Option<AccountId>,
        account_type: &str,
    ) -> PyResult<()> {
        let free = decimal_arg(free, "free")?;
        self.control
            .set_balance(
                account.unwrap_or(self.demo_account),
                self::account_type(account_type)?,
                currency,
                free,
            )
            .map_err(control_err)
    }
    /// Adds `amount` (negative to remove) to the free balance of `currency`.
    #[pyo3(signature = (currency, amount, *, account=None, account_type="spot"))]
    fn credit(
        &self,
        currency: &str,
        amount: &Bound<'_, PyAny>,
        account: Option<AccountId>,
        account_type: &str,
    ) -> PyResult<()> {
        let amount = decimal_arg(amount, "amount")?;
        self.control
            .credit(
                account.unwrap_or(self.demo_account),
                self::account_type(account_type)?,
                currency,
                amount,
            )
            .map_err(control_err)
    }
    /// Every balance of an account (the demo account by default): `[{"account_type",
    /// "currency", "free", "frozen"}, ...]`, amounts as `decimal.Decimal`.
    #[pyo3(signature = (account=None))]
    fn balances<'py>(
        &self,
        py: Python<'py>,
        account: Option<AccountId>,
    ) -> PyResult<Bound<'py, PyList>> {
        let rows = self
            .control
            .balances(account.unwrap_or(self.demo_account))
            .map_err(control_err)?;
        let list = PyList::empty(py);
        for r in rows {
            let d = PyDict::new(py);
            d.set_item("account_type", r.account_type.name())?;
            d.set_item("currency", r.currency)?;
            d.set_item("free", py_decimal(py, r.balance.free)?)?;
            d.set_item("frozen", py_decimal(py, r.balance.frozen)?)?;
            list.append(d)?;
        }
        Ok(list)
    }

    // ---- swap ----

    /// Sets the mark price of a swap instrument (`None`: follow the book mid again).
    #[pyo3(signature = (instrument, price))]
    fn set_mark_price(&self, instrument: &str, price: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let price = price.map(|p| decimal_arg(p, "price")).transpose()?;
        self.control
            .set_mark_price(instrument, price)
            .map_err(control_err)
    }
    /// Sets the funding rate applied at the instrument's next funding time.
    fn set_funding_rate(&self, instrument: &str, rate: &Bound<'_, PyAny>) -> PyResult<()> {
        let rate = decimal_arg(rate, "rate")?;
        self.control
            .set_funding_rate(instrument, rate)
            .map_err(control_err)
    }
    /// Moves the clock to the next funding time and settles funding there; returns that time.
    fn advance_to_funding(&self, py: Python<'_>) -> i64 {
        let c = &self.control;
        py.detach(|| c.advance_to_funding())
    }

    /// Allows or forbids API trading of a spot pair (the venue's 20042 while forbidden);
    /// `False` for an unknown pair.
    fn set_api_tradable(&self, symbol: &str, allowed: bool) -> bool {
        self.control.set_api_tradable(symbol, allowed)
    }
    /// Opens or suspends trading of a swap instrument (401004 while suspended); `False` for an
    /// unknown instrument.
    fn set_swap_trading(&self, instrument: &str, trading: bool) -> bool {
        self.control.set_swap_trading(instrument, trading)
    }

    // ---- inspection ----

    /// Number of open spot and margin orders of an account (the demo account by default).
    #[pyo3(signature = (account=None))]
    fn open_order_count(&self, account: Option<AccountId>) -> usize {
        self.control
            .open_order_count(account.unwrap_or(self.demo_account))
    }
}

impl Drop for PySim {
    fn drop(&mut self) {
        let handle = self
            .handle
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        drop(handle);
    }
}
