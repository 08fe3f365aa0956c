//! `Client.stream(...)`: websocket events as Python values, from the blocking client's streams
//! (`digifinex_ureq::ws`), with the account tracker when `track` names markets.
//!
//! Each family's subscriptions share one stream (as many sockets as they need, reconnected by
//! the stream itself); a thread per family moves its events into one bounded queue that the
//! Python iterator reads with the GIL released. The events are the Rust `Event`s as
//! `digifinex stream` prints them (`{"type": "depth", ...}`), decimals as `decimal.Decimal`.
//!
//! DESIGN: bounded like `digifinex stream`: when Python does not read, at most `queue` events
//! wait here, then the streams stop reading their sockets (each holds at most 1,024 frames) and
//! the venue may close them; they are reopened once Python reads again. No event is dropped
//! silently. The tracker's changes wait in a queue of at most [`MAX_CHANGES`]; past it the
//! oldest are dropped and counted (`lost_changes`), and `state()` stays exact, so a program that
//! never reads the changes loses nothing it cannot read back.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use digifinex_core::track::{Change, State, TrackConfig};
use digifinex_core::ws::{Event, Subscription};
use digifinex_core::Family;
use digifinex_ureq::track::TrackedStream;
use digifinex_ureq::ws::Stream;
use pyo3::exceptions::{PyStopIteration, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::to_py::to_py;

/// The tracker's changes kept for `changes()`.
pub(crate) const MAX_CHANGES: usize = 100_000;

/// How often a waiting thread looks at the stop flag, and the iterator at Ctrl-C.
const POLL: Duration = Duration::from_millis(100);

enum Source {
    Plain(Box<Stream>),
    Tracked(Box<TrackedStream>),
}

impl Source {
    fn next(&mut self) -> Option<Event> {
        match self {
            Source::Plain(s) => s.next_event_timeout(POLL),
            Source::Tracked(s) => s.next_event_timeout(POLL),
        }
    }
    fn is_closed(&self) -> bool {
        match self {
            Source::Plain(s) => s.is_closed(),
            Source::Tracked(s) => s.is_closed(),
        }
    }
    fn close(&mut self) {
        match self {
            Source::Plain(s) => s.close(),
            Source::Tracked(s) => s.close(),
        }
    }
}

/// What the threads and the iterator share.
#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    changes: Mutex<VecDeque<Change>>,
    lost_changes: AtomicU64,
    states: Mutex<HashMap<&'static str, State>>,
}

fn family_name(f: Family) -> &'static str {
    match f {
        Family::Spot => "spot",
        _ => "swap",
    }
}

/// Moves one family's events into the queue until stopped, the queue's reader is gone or the
/// stream ends.
fn pump(mut source: Source, family: Family, tx: SyncSender<Event>, shared: Arc<Shared>) {
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            source.close();
            return;
        }
        let Some(event) = source.next() else {
            if source.is_closed() {
                return;
            }
            continue;
        };
        if let Source::Tracked(t) = &mut source {
            let mut changed = false;
            let mut changes = shared.changes.lock().unwrap_or_else(|p| p.into_inner());
            while let Some(c) = t.poll_change() {
                if changes.len() >= MAX_CHANGES {
                    changes.pop_front();
                    shared.lost_changes.fetch_add(1, Ordering::Relaxed);
                }
                changes.push_back(c);
                changed = true;
            }
            drop(changes);
            if changed
                || !shared
                    .states
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .contains_key(family_name(family))
            {
                let state = t.state();
                shared
                    .states
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(family_name(family), state);
            }
        }
        if tx.send(event).is_err() {
            source.close();
            return;
        }
    }
}

/// Websocket events of a client's subscriptions (an iterator; `async for` through the Python
/// wrapper).
#[pyclass(frozen, module = "digifinex._native", name = "Stream")]
pub(crate) struct PyStream {
    rx: Mutex<Option<Receiver<Event>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    shared: Arc<Shared>,
    tracked: Vec<&'static str>,
}

impl PyStream {
    /// Starts the streams of `subs` (grouped by family) on `client`.
    pub(crate) fn start(
        client: &digifinex_ureq::Client,
        subs: Vec<Subscription>,
        track: Vec<String>,
        spot_ws_url: Option<String>,
        swap_ws_url: Option<String>,
        queue: usize,
    ) -> Result<PyStream, digifinex_core::Error> {
        let shared = Arc::new(Shared::default());
        let (tx, rx) = mpsc::sync_channel::<Event>(queue);
        let mut threads = Vec::new();
        let mut tracked = Vec::new();
        for family in [Family::Spot, Family::Swap] {
            let mine: Vec<Subscription> = subs
                .iter()
                .filter(|s| s.family == family)
                .cloned()
                .collect();
            let markets: Vec<&String> = track
                .iter()
                .filter(|m| (family == Family::Swap) == is_swap_market(m))
                .collect();
            if mine.is_empty() && markets.is_empty() {
                continue;
            }
            let mut b = client.stream(family);
            let url = match family {
                Family::Spot => &spot_ws_url,
                _ => &swap_ws_url,
            };
            if let Some(url) = url {
                if url.to_ascii_lowercase().starts_with("ws://") {
                    b = b.allow_http(true);
                }
                b = b.url(url.clone());
            }
            for s in mine {
                b = b.subscribe(s);
            }
            let source = if markets.is_empty() {
                Source::Plain(Box::new(b.build()?))
            } else {
                tracked.push(family_name(family));
                Source::Tracked(Box::new(b.tracked(markets, TrackConfig::default())?))
            };
            let (tx, mine) = (tx.clone(), shared.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("digifinex-py-stream-{}", family_name(family)))
                .spawn(move || pump(source, family, tx, mine));
            match spawned {
                Ok(h) => threads.push(h),
                Err(e) => {
                    shared.stop.store(true, Ordering::Relaxed);
                    return Err(digifinex_core::Error::validation(
                        "stream",
                        format!("cannot start a stream thread: {e}"),
                    ));
                }
            }
        }
        Ok(PyStream {
            rx: Mutex::new(Some(rx)),
            threads: Mutex::new(threads),
            shared,
            tracked,
        })
    }

    fn stop(&self) -> Vec<JoinHandle<()>> {
        self.shared.stop.store(true, Ordering::Relaxed);
        drop(self.rx.lock().unwrap_or_else(|p| p.into_inner()).take());
        std::mem::take(&mut *self.threads.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// Whether a tracked market is a swap instrument (`BTCUSDTPERP`) rather than a spot pair
/// (`btc_usdt`).
pub(crate) fn is_swap_market(m: &str) -> bool {
    !m.contains('_') && m.to_ascii_uppercase().ends_with("PERP")
}

#[pymethods]
impl PyStream {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The next event, blocking (Ctrl-C interrupts it); `StopIteration` once closed.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loop {
            let rx = &self.rx;
            let got = py.detach(|| {
                let guard = rx.lock().unwrap_or_else(|p| p.into_inner());
                guard.as_ref().map(|rx| rx.recv_timeout(POLL))
            });
            let Some(got) = got else {
                return Err(PyStopIteration::new_err(()));
            };
            match got {
                Ok(event) => return to_py(py, &event),
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => return Err(PyStopIteration::new_err(())),
            }
        }
    }

    /// The next event within `timeout` seconds, or `None` (none came in time, or the stream
    /// is closed: see `closed`).
    fn next_event<'py>(
        &self,
        py: Python<'py>,
        timeout: f64,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self.poll(py, timeout)?.0)
    }

    /// `(event or None, ended)`: the next event within `timeout` seconds, and whether the
    /// stream has ended (closed, every event handed out). For the asyncio iterator.
    fn poll<'py>(
        &self,
        py: Python<'py>,
        timeout: f64,
    ) -> PyResult<(Option<Bound<'py, PyAny>>, bool)> {
        if !(timeout.is_finite() && timeout >= 0.0) {
            return Err(PyValueError::new_err("timeout is seconds, 0 or more"));
        }
        let wait = Duration::from_secs_f64(timeout.min(86_400.0));
        let rx = &self.rx;
        let got = py.detach(|| {
            let guard = rx.lock().unwrap_or_else(|p| p.into_inner());
            guard.as_ref().map(|rx| rx.recv_timeout(wait))
        });
        match got {
            Some(Ok(event)) => Ok((Some(to_py(py, &event)?), false)),
            Some(Err(RecvTimeoutError::Timeout)) => Ok((None, false)),
            Some(Err(RecvTimeoutError::Disconnected)) | None => Ok((None, true)),
        }
    }

    /// The tracker's changes since the last call, oldest first (empty without `track`).
    fn changes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let drained: Vec<Change> = self
            .shared
            .changes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        let list = PyList::empty(py);
        for c in &drained {
            list.append(to_py(py, c)?)?;
        }
        Ok(list)
    }

    /// Changes dropped because more than 100,000 waited unread.
    #[getter]
    fn lost_changes(&self) -> u64 {
        self.shared.lost_changes.load(Ordering::Relaxed)
    }

    /// The tracker's account state (`"spot"` or `"swap"`; the tracked family when only one
    /// is), as of the last event handed out; `None` before the first.
    #[pyo3(signature = (family=None))]
    fn state<'py>(
        &self,
        py: Python<'py>,
        family: Option<&str>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let family = match family {
            Some(f @ ("spot" | "swap")) => f,
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "family `{other}` is not spot or swap"
                )))
            }
            None => match self.tracked.as_slice() {
                [one] => *one,
                [] => {
                    return Err(PyValueError::new_err(
                        "this stream tracks no markets (track=[...])",
                    ))
                }
                _ => return Err(PyValueError::new_err(
                    "this stream tracks spot and swap markets: pass family=\"spot\" or \"swap\"",
                )),
            },
        };
        let states = self.shared.states.lock().unwrap_or_else(|p| p.into_inner());
        states.get(family).map(|s| to_py(py, s)).transpose()
    }

    /// Closes every socket; the iterator ends.
    fn close(&self, py: Python<'_>) {
        let threads = self.stop();
        py.detach(move || {
            for t in threads {
                let _ = t.join();
            }
        });
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }
}

impl Drop for PyStream {
    fn drop(&mut self) {
        // The threads end by themselves within one poll once stopped.
        drop(self.stop());
    }
}
