//! `digifinex.Client`: every endpoint through the core's catalog, on the blocking client
//! (`digifinex-ureq`), with the GIL released while a request is on the wire.
//!
//! `Client.call(method, path, **params)` does what `digifinex call` does: it finds the endpoint
//! (`GET /v3/order_book`), reads the parameters with the endpoint's own rules (a typo names the
//! closest parameter), checks an order placement against its market's rules (rounded with
//! `round="passive"` or `"nearest"`, skipped with `unchecked=True`; the rules are read once and
//! cached by the session), reads the write's evidence set first (`snapshot=True`) so that an
//! unknown outcome can be decided exactly, sends it, and returns the typed answer as Python
//! values (decimals as `decimal.Decimal`). A write whose outcome is unknown is never sent again:
//! it raises `OutcomeUnknown`, and `Client.reconcile(err)` reads the account to decide it.

use std::time::Duration;

use digifinex_core::catalog::{self, ParamMap};
use digifinex_core::reconcile::{Snapshot, Write};
use digifinex_core::rules::{self, Checks, Markets, Rounding};
use digifinex_core::{Credentials, Error, Family};
use digifinex_ureq::{is_loopback_http, Client};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{to_pyerr, to_pyerr_with, Pending, ValidationError};
use crate::from_py::params_json;
use crate::to_py::to_py;

/// The exact DigiFinex client (spot and margin v3, perpetual swaps v2).
#[pyclass(frozen, subclass, module = "digifinex._native", name = "Client")]
pub(crate) struct PyClient {
    client: Client,
    /// The backtest's exchange when this client is a bot's (its streams are read inline).
    inprocess: Option<digifinex_backtest::InProcess>,
}

fn validation(field: &'static str, reason: impl Into<String>) -> PyErr {
    Python::attach(|py| to_pyerr(py, Error::validation(field, reason)))
}

#[pymethods]
impl PyClient {
    /// `Client(key=None, secret=None, *, spot_base_url=None, swap_base_url=None,
    /// allow_http=False, timeout=None, recv_window=None)`.
    #[new]
    ///
    /// `_bot` (a backtest's native `Bot`, given by `digifinex.Bot.client`) makes the client
    /// of that bot: wired to the backtest's exchange, the other arguments ignored.
    #[pyo3(signature = (key=None, secret=None, *, spot_base_url=None, swap_base_url=None, allow_http=false, timeout=None, recv_window=None, _bot=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        key: Option<String>,
        secret: Option<String>,
        spot_base_url: Option<String>,
        swap_base_url: Option<String>,
        allow_http: bool,
        timeout: Option<f64>,
        recv_window: Option<u64>,
        _bot: Option<PyRef<'_, crate::backtest::PyBot>>,
    ) -> PyResult<Self> {
        if let Some(bot) = _bot {
            return Ok(PyClient {
                client: bot.bot.client().clone(),
                inprocess: Some(bot.bot.exchange().clone()),
            });
        }
        let mut builder = Client::builder();
        let mut plain = false;
        for (name, url) in [
            ("spot_base_url", &spot_base_url),
            ("swap_base_url", &swap_base_url),
        ] {
            if let Some(url) = url {
                let lower = url.to_ascii_lowercase();
                if lower.starts_with("http://") {
                    if !allow_http && !is_loopback_http(url) {
                        return Err(validation(
                            name,
                            format!(
                                "{url} is plain http to a host that is not loopback: pass \
                                 allow_http=True to send keys and orders in clear text there"
                            ),
                        ));
                    }
                    plain = true;
                } else if !lower.starts_with("https://") {
                    return Err(validation(name, format!("{url} is not an http(s) URL")));
                }
            }
        }
        if let Some(url) = spot_base_url {
            builder = builder.spot_base_url(url);
        }
        if let Some(url) = swap_base_url {
            builder = builder.swap_base_url(url);
        }
        builder = builder.allow_http(plain);
        match (key, secret) {
            (Some(k), Some(s)) => builder = builder.credentials(Credentials::new(k, s)),
            (None, None) => {}
            _ => {
                return Err(validation(
                    "secret",
                    "pass both key and secret, or neither (public endpoints only)",
                ))
            }
        }
        if let Some(t) = timeout {
            if !(t.is_finite() && t > 0.0 && t <= 3600.0) {
                return Err(validation("timeout", "seconds above 0 and at most 3600"));
            }
            builder = builder.timeout(Duration::from_secs_f64(t));
        }
        if let Some(w) = recv_window {
            builder = builder.recv_window(w);
        }
        let client = builder.build().map_err(|e| to_pyerr(py, e))?;
        Ok(PyClient {
            client,
            inprocess: None,
        })
    }

    /// `call(method, path, params=None, *, round=None, unchecked=False, snapshot=True,
    /// **kwargs)`: one endpoint by its HTTP line, its parameters as keyword arguments (or
    /// `params`, for a name that is not a Python identifier); returns the typed answer.
    #[pyo3(signature = (method, path, params=None, *, round=None, unchecked=false, snapshot=true, **kwargs))]
    #[allow(clippy::too_many_arguments)]
    fn call<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        path: &str,
        params: Option<&Bound<'py, PyDict>>,
        round: Option<&str>,
        unchecked: bool,
        snapshot: bool,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (entry, wire) = wire_params(py, method, path, params, kwargs)?;
        let checks = match round {
            None => Checks::strict(),
            Some("passive") => Checks::rounding(Rounding::Passive),
            Some("nearest") => Checks::rounding(Rounding::Nearest),
            Some(other) => {
                return Err(validation(
                    "round",
                    format!("`{other}` is not passive or nearest"),
                ))
            }
        };

        let write = if entry.meta.idempotent {
            None
        } else {
            Write::from_params(entry.meta.name, &mut wire.clone())
        };
        let started =
            (entry.call_erased)(self.client.session(), wire).map_err(|e| to_pyerr(py, e))?;
        let write = match write {
            Some(w) => Some(w.map_err(|e| to_pyerr(py, e))?),
            None => None,
        };
        let client = &self.client;
        let write = match write {
            Some(w) if !unchecked => Some(py.detach(|| checked(client, w, &checks)).map_err(
                |f| match f {
                    Refusal::Error(e) => to_pyerr(py, *e),
                    Refusal::Rule(message, e) => to_pyerr_with(py, *e, message),
                },
            )?),
            other => other,
        };
        let prior = match &write {
            Some(w) if snapshot => py
                .detach(|| take_snapshot(client, w))
                .map_err(|e| to_pyerr(py, e))?,
            _ => None,
        };
        let result = match &write {
            Some(w) => {
                let call = w.erased_call(client.session());
                py.detach(|| client.drive(call))
            }
            None => py.detach(|| client.drive(started)),
        };
        match result {
            Ok(answer) => to_py(py, &*answer.value),
            Err(e @ Error::OutcomeUnknown { .. }) => {
                let e = match prior {
                    Some(p) => e.with_prior(p),
                    None => e,
                };
                Err(to_pyerr(py, e))
            }
            Err(e) => Err(to_pyerr(py, e)),
        }
    }

    /// `build_request(method, path, params=None, **kwargs)`: the signed request `call` would
    /// send first, without sending it: `{"method", "url", "headers", "body"}` (`body` as
    /// bytes; the signature headers included). For a program with its own HTTP stack: send it,
    /// then hand the answer to `digifinex.decode`. No checks against the market rules and no
    /// snapshot are made here.
    #[pyo3(signature = (method, path, params=None, **kwargs))]
    fn build_request<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        path: &str,
        params: Option<&Bound<'py, PyDict>>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (entry, wire) = wire_params(py, method, path, params, kwargs)?;
        let session = self.client.session();
        let request = (entry.build)(wire, session.config(), session.credentials(), session.now())
            .map_err(|e| to_pyerr(py, e))?;
        let out = PyDict::new(py);
        out.set_item("method", request.method().as_str())?;
        out.set_item("url", request.uri().to_string())?;
        let headers = PyDict::new(py);
        for (name, value) in request.headers() {
            headers.set_item(name.as_str(), String::from_utf8_lossy(value.as_bytes()))?;
        }
        out.set_item("headers", headers)?;
        out.set_item("body", pyo3::types::PyBytes::new(py, request.body()))?;
        Ok(out)
    }

    /// `reconcile(err)`: reads the account (reads only) to decide an `OutcomeUnknown`; returns
    /// `{"outcome_unknown", "endpoint", "resolution", "verdicts", "what_to_do", "snapshot"}`
    /// (`resolution`: `applied`, `not_applied`, `ambiguous` or `mixed`).
    fn reconcile<'py>(
        &self,
        py: Python<'py>,
        err: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pending = err
            .getattr("_pending")
            .ok()
            .and_then(|p| p.cast_into::<Pending>().ok())
            .ok_or_else(|| {
                PyTypeError::new_err("reconcile takes the OutcomeUnknown that a call raised")
            })?;
        let error = &pending.get().error;
        let client = &self.client;
        let outcome = py
            .detach(|| client.reconcile(error))
            .map_err(|e| to_pyerr(py, e))?;
        to_py(py, &outcome.report(error))
    }

    /// `stream(*subs, track=None, spot_ws_url=None, swap_ws_url=None, queue=4096, feed=None,
    /// feed_stream="DIGIFINEX", feed_creds=None)`: the events of `subs`
    /// (`"spot:depth:btc_usdt"`, `"swap:trades:BTCUSDTPERP"`, `"spot:order"`: the subscription
    /// strings of `digifinex stream`), with the account tracker of the markets in `track`
    /// (`["btc_usdt", "BTCUSDTPERP"]`); with `feed` (a NATS URL), the public subscriptions
    /// come from that feed (`digifinex feed`) and only the private ones from the venue.
    #[pyo3(signature = (*subs, track=None, spot_ws_url=None, swap_ws_url=None, queue=4096, feed=None, feed_stream=None, feed_creds=None))]
    #[allow(clippy::too_many_arguments)]
    fn stream(
        &self,
        py: Python<'_>,
        subs: Vec<String>,
        track: Option<Vec<String>>,
        spot_ws_url: Option<String>,
        swap_ws_url: Option<String>,
        queue: usize,
        feed: Option<String>,
        feed_stream: Option<String>,
        feed_creds: Option<std::path::PathBuf>,
    ) -> PyResult<crate::stream::PyStream> {
        let track = track.unwrap_or_default();
        if subs.is_empty() && track.is_empty() {
            return Err(validation(
                "subs",
                "name at least one subscription or tracked market",
            ));
        }
        if !(1..=1_000_000).contains(&queue) {
            return Err(validation("queue", "events waiting, 1..=1000000"));
        }
        let parsed = subs
            .iter()
            .map(|s| {
                s.parse::<digifinex_core::ws::Subscription>()
                    .map_err(|e| validation_owned("subs".to_owned(), &format!("`{s}`: {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        for (name, url) in [("spot_ws_url", &spot_ws_url), ("swap_ws_url", &swap_ws_url)] {
            if let Some(url) = url {
                let lower = url.to_ascii_lowercase();
                let ok = lower.starts_with("wss://")
                    || lower
                        .strip_prefix("ws://")
                        .is_some_and(|rest| is_loopback_http(&format!("http://{rest}")));
                if !ok {
                    return Err(validation(
                        name,
                        format!("{url}: a websocket URL is wss://, or ws:// to a loopback host"),
                    ));
                }
            }
        }
        let feed = match feed {
            Some(url) => {
                let mut source = digifinex_ureq::feed::FeedSource::new(url);
                if let Some(name) = feed_stream {
                    source = source.stream(name);
                }
                if let Some(path) = feed_creds {
                    source = source.creds(path);
                }
                Some(source)
            }
            None if feed_stream.is_some() || feed_creds.is_some() => {
                return Err(validation(
                    "feed",
                    "feed_stream and feed_creds go with feed",
                ));
            }
            None => None,
        };
        let client = &self.client;
        if let Some(exchange) = &self.inprocess {
            if feed.is_some() {
                return Err(validation(
                    "feed",
                    "a backtest's streams are the exchange's own: no feed",
                ));
            }
            if spot_ws_url.is_some() || swap_ws_url.is_some() {
                return Err(validation(
                    "spot_ws_url",
                    "a backtest's streams are the exchange's own: no websocket URL",
                ));
            }
            let exchange = exchange.clone();
            return py
                .detach(|| crate::stream::PyStream::start_inline(client, parsed, track, exchange))
                .map_err(|e| to_pyerr(py, e));
        }
        py.detach(|| {
            let urls = (spot_ws_url, swap_ws_url);
            crate::stream::PyStream::start(client, parsed, track, urls, feed.as_ref(), queue)
        })
        .map_err(|e| to_pyerr(py, e))
    }

    /// `sync_time(family="spot")`: measures the server clock's offset now (ms; the session
    /// signs with it from then on).
    #[pyo3(signature = (family="spot"))]
    fn sync_time(&self, py: Python<'_>, family: &str) -> PyResult<i64> {
        let family = match family {
            "spot" => Family::Spot,
            "swap" => Family::Swap,
            other => {
                return Err(validation(
                    "family",
                    format!("`{other}` is not spot or swap"),
                ))
            }
        };
        let client = &self.client;
        py.detach(|| client.sync_time(family))
            .map_err(|e| to_pyerr(py, e))
    }

    /// The endpoints this client can call: `[(method, path, name, signed), ...]` in
    /// documentation order.
    #[staticmethod]
    fn endpoints() -> Vec<(String, String, String, bool)> {
        catalog::all()
            .map(|e| {
                (
                    e.meta.method.as_str().to_owned(),
                    e.meta.display_path(),
                    e.meta.name.to_owned(),
                    e.meta.signed,
                )
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        let config = self.client.session().config();
        format!(
            "Client(spot_base_url={:?}, swap_base_url={:?}, key={})",
            config.spot_base_url,
            config.swap_base_url,
            if self.client.session().credentials().is_some() {
                "set"
            } else {
                "None"
            }
        )
    }
}

/// The endpoint of `METHOD PATH` and its wire parameters: the path's variables, then `params`
/// and the keyword arguments (a name given twice is refused).
fn wire_params<'py>(
    py: Python<'py>,
    method: &str,
    path: &str,
    params: Option<&Bound<'py, PyDict>>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<(&'static catalog::CatalogEntry, ParamMap)> {
    let Some((entry, vars)) = catalog::find(method, path) else {
        return Err(ValidationError::new_err(format!(
            "no endpoint `{} {path}`: the paths are those of the API documents \
             (`GET /v3/order_book`, `POST /swap/v2/trade/order_place`); \
             `Client.endpoints()` lists them all",
            method.to_ascii_uppercase()
        )));
    };
    let mut named: Vec<(String, Bound<'py, PyAny>)> = Vec::new();
    for dict in [params, kwargs].into_iter().flatten() {
        for (k, v) in dict.iter() {
            let k: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("parameter names must be str"))?;
            if named.iter().any(|(n, _)| *n == k) || vars.iter().any(|(n, _)| *n == k) {
                return Err(validation_owned(k, "given twice"));
            }
            named.push((k, v));
        }
    }
    let json = params_json(&named)?;
    let mut wire = ParamMap::new();
    for (k, v) in vars {
        wire.insert_path_var(k, v);
    }
    wire.insert_json(&json).map_err(|e| to_pyerr(py, e))?;
    Ok((entry, wire))
}

/// `decode(method, path, body, status=200)`: the typed answer of endpoint `METHOD PATH` read
/// from a response body, as `Client.call` returns it (the venue's error envelope raises the
/// error's class). No I/O.
#[pyfunction]
#[pyo3(signature = (method, path, body, status=200))]
pub(crate) fn decode<'py>(
    py: Python<'py>,
    method: &str,
    path: &str,
    body: &[u8],
    status: u16,
) -> PyResult<Bound<'py, PyAny>> {
    let Some((entry, _)) = catalog::find(method, path) else {
        return Err(ValidationError::new_err(format!(
            "no endpoint `{} {path}`",
            method.to_ascii_uppercase()
        )));
    };
    let headers = http::HeaderMap::new();
    let answer = (entry.decode_erased)(status, &headers, body).map_err(|e| to_pyerr(py, e))?;
    to_py(py, &*answer)
}

fn validation_owned(field: String, reason: &str) -> PyErr {
    Python::attach(|py| to_pyerr(py, Error::validation(field, reason)))
}

/// Why a placement was not sent.
enum Refusal {
    /// The rules could not be read, or the market is not listed.
    Error(Box<Error>),
    /// A rule refused it: the message (naming a batch's element) and the error.
    Rule(String, Box<Error>),
}

/// `write` checked against its market's rules (read through the session's cache).
fn checked(client: &Client, write: Write, checks: &Checks) -> Result<Write, Refusal> {
    let (spot, swap) = match rules::placement_markets(&write) {
        Markets::Spot(pair) => (
            Some(
                client
                    .spot_rules(&pair)
                    .map_err(|e| Refusal::Error(Box::new(e)))?,
            ),
            Vec::new(),
        ),
        Markets::Swap(ids) => (
            None,
            ids.iter()
                .map(|id| client.swap_rules(id))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| Refusal::Error(Box::new(e)))?,
        ),
        _ => return Ok(write),
    };
    rules::check_placement(write, spot.as_ref(), &swap, checks).map_err(|r| {
        let message = r.to_string();
        Refusal::Rule(message, Box::new(Error::Rule(Box::new(r.error))))
    })
}

/// The write's evidence set, read before sending it (`None` when its verdict needs none).
///
/// DESIGN: as `digifinex call`: the swap venue's timestamp tolerance is not documented, so a
/// swap write measures the clock first; a spot write does when the clock was never measured
/// (its history window is computed from the session's time).
fn take_snapshot(
    client: &Client,
    write: &Write,
) -> Result<Option<digifinex_core::reconcile::Prior>, Error> {
    let planned = Snapshot::new(
        write,
        client.session().now(),
        &digifinex_core::reconcile::Options::new(),
    )
    .planned();
    if planned == 0 {
        return Ok(None);
    }
    if write.meta().family == Family::Swap || !client.session().clock_measured() {
        client.sync_time(write.meta().family)?;
    }
    client.snapshot(write).map(Some)
}
