//! `digifinex.FeedConsumer`: the consumer of a `digifinex feed` without I/O
//! (`digifinex_core::feed::Consumer`), for a Python program that reads the broker with a NATS
//! client of its own (nats-py): it hands each message's bytes over and gets the events, in
//! order, as the same dicts `Client.stream` yields (decimals as `decimal.Decimal`), with every
//! jump in a feed's sequence reported (`resync` for a book, `gap` elsewhere) and the books that
//! need a snapshot named.

use std::sync::Mutex;

use digifinex_core::feed::{self, Consumer, Output};
use digifinex_core::ws::Subscription;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::to_py::to_py;

/// The consumer of a feed's market streams (see the module docs).
#[pyclass(frozen, module = "digifinex._native", name = "FeedConsumer")]
pub(crate) struct PyFeedConsumer {
    inner: Mutex<Consumer>,
}

impl PyFeedConsumer {
    /// The outputs so far: events as dicts; each snapshot request as
    /// `{"type": "need_snapshot", "market": ..., "subject": ...}`.
    fn drain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        let mut c = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(o) = c.poll_output() {
            match o {
                Output::Event { line, .. } => {
                    let event = feed::parse_event(&line)
                        .map_err(|e| PyValueError::new_err(e.to_string()))?;
                    list.append(to_py(py, &event)?)?;
                }
                Output::NeedSnapshot { market, subject } => {
                    let d = PyDict::new(py);
                    d.set_item("type", "need_snapshot")?;
                    d.set_item("market", market)?;
                    d.set_item("subject", subject)?;
                    list.append(d)?;
                }
                _ => {}
            }
        }
        Ok(list)
    }
}

#[pymethods]
impl PyFeedConsumer {
    /// `FeedConsumer(*subs)`: the subscription strings of `Client.stream`
    /// (`"spot:depth:btc_usdt"`, `"swap:trades:BTCUSDTPERP"`; public channels only).
    #[new]
    #[pyo3(signature = (*subs))]
    fn new(subs: Vec<String>) -> PyResult<Self> {
        let parsed = subs
            .iter()
            .map(|s| {
                s.parse::<Subscription>()
                    .map_err(|e| PyValueError::new_err(format!("`{s}`: {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let inner = Consumer::new(feed::DEFAULT_PREFIX, &parsed)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyFeedConsumer {
            inner: Mutex::new(inner),
        })
    }

    /// The NATS subjects to subscribe to (`digifinex.spot.depth.btc_usdt`, ...).
    fn subjects(&self) -> Vec<String> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .subjects(feed::DEFAULT_PREFIX)
    }

    /// Takes one message of a market subject; returns what it makes ready, in order (events,
    /// and `need_snapshot` requests: read the last message on `subject`, or request a fresh
    /// one on `digifinex.request.snapshot` with the market as payload, and give it to
    /// `snapshot`). A message that is not a feed's raises `ValueError` and changes nothing.
    fn message<'py>(&self, py: Python<'py>, payload: &[u8]) -> PyResult<Bound<'py, PyList>> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .handle_message(payload)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        self.drain(py)
    }

    /// Takes a snapshot message (the last on a snapshot subject, or a feed's reply).
    fn snapshot<'py>(&self, py: Python<'py>, payload: &[u8]) -> PyResult<Bound<'py, PyList>> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .handle_snapshot(payload)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        self.drain(py)
    }

    /// What is ready without a new message (the first snapshot requests).
    fn poll<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.drain(py)
    }

    /// Whether the book of `market` (`"spot:depth:BTC_USDT"`) waits for a snapshot.
    fn is_waiting(&self, market: &str) -> bool {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_waiting(market)
    }
}
