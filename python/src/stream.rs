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

use digifinex_backtest::InProcess;
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
        self.next_within(POLL)
    }
    fn next_within(&mut self, wait: Duration) -> Option<Event> {
        match self {
            Source::Plain(s) => s.next_event_timeout(wait),
            Source::Tracked(s) => s.next_event_timeout(wait),
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
        note_changes(&mut source, family, &shared);
        if tx.send(event).is_err() {
            source.close();
            return;
        }
    }
}

/// Moves a tracked source's changes and state to `shared` (after each event it gives).
fn note_changes(source: &mut Source, family: Family, shared: &Shared) {
    let Source::Tracked(t) = source else {
        return;
    };
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

/// The streams of a backtest, read on the caller's thread in the exchange's virtual time
/// (see [`PyStream::start_inline`]).
struct Inline {
    sources: Vec<(Family, Source)>,
    exchange: InProcess,
    /// The source read first in the next round (each round starts one further on, so that no
    /// family waits behind a busy one).
    next: usize,
    /// Time is over: what the sources still hold is handed out, then the stream ends.
    over: bool,
}

/// The longest step of virtual time between two looks at the sources when the exchange has
/// nothing due sooner (their own timers, pings, come at most this late).
const INLINE_STEP: Duration = Duration::from_secs(1);

impl Inline {
    /// The next event within `wait` of virtual time (`None`: until time is over), and
    /// whether the stream has ended.
    fn next(&mut self, shared: &Shared, wait: Option<Duration>) -> (Option<Event>, bool) {
        let deadline = wait.map(|w| {
            self.exchange
                .now_ms()
                .saturating_add(i64::try_from(w.as_millis()).unwrap_or(i64::MAX))
        });
        loop {
            let n = self.sources.len();
            for k in 0..n {
                let i = (self.next + k) % n.max(1);
                let Some((family, source)) = self.sources.get_mut(i) else {
                    continue;
                };
                if let Some(event) = source.next_within(Duration::ZERO) {
                    note_changes(source, *family, shared);
                    self.next = (i + 1) % n.max(1);
                    return (Some(event), false);
                }
            }
            if self.over || self.sources.iter().all(|(_, s)| s.is_closed()) {
                return (None, true);
            }
            let now = self.exchange.now_ms();
            let step = match deadline {
                Some(d) if now >= d => return (None, false),
                Some(d) => {
                    Duration::from_millis(u64::try_from(d - now).unwrap_or(0)).min(INLINE_STEP)
                }
                None => INLINE_STEP,
            };
            if !self.exchange.wait_for_event(step) {
                self.over = true;
            }
        }
    }

    fn close(&mut self) {
        for (_, s) in &mut self.sources {
            s.close();
        }
    }
}

/// How the events reach the iterator.
enum Mode {
    /// A thread per family, a bounded queue.
    Threads {
        rx: Mutex<Option<Receiver<Event>>>,
        threads: Mutex<Vec<JoinHandle<()>>>,
    },
    /// A backtest: read on the caller's thread.
    Inline(Mutex<Inline>),
}

/// Websocket events of a client's subscriptions (an iterator; `async for` through the Python
/// wrapper).
#[pyclass(frozen, module = "digifinex._native", name = "Stream")]
pub(crate) struct PyStream {
    mode: Mode,
    shared: Arc<Shared>,
    tracked: Vec<&'static str>,
}

/// A stream's sources by family, and the families tracked.
type Sources = (Vec<(Family, Source)>, Vec<&'static str>);

/// The sources of `subs` (grouped by family) and `track` on `client`, and the families
/// tracked.
fn sources(
    client: &digifinex_ureq::Client,
    subs: Vec<Subscription>,
    track: Vec<String>,
    (spot_ws_url, swap_ws_url): (Option<String>, Option<String>),
    feed: Option<&digifinex_ureq::feed::FeedSource>,
) -> Result<Sources, digifinex_core::Error> {
    let mut sources = Vec::new();
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
        // With a feed, the family's public subscriptions are read from it.
        let from_feed = feed.filter(|_| mine.iter().any(|s| !s.channel.is_private()));
        for s in mine {
            b = b.subscribe(s);
        }
        let source = if markets.is_empty() {
            let mut s = b.build()?;
            if let Some(f) = from_feed {
                s.market_data_from(f)?;
            }
            Source::Plain(Box::new(s))
        } else {
            tracked.push(family_name(family));
            let mut s = b.tracked(markets, TrackConfig::default())?;
            if let Some(f) = from_feed {
                s.market_data_from(f)?;
            }
            Source::Tracked(Box::new(s))
        };
        sources.push((family, source));
    }
    Ok((sources, tracked))
}

impl PyStream {
    /// Starts the streams of `subs` (grouped by family) on `client`, a thread per family.
    pub(crate) fn start(
        client: &digifinex_ureq::Client,
        subs: Vec<Subscription>,
        track: Vec<String>,
        urls: (Option<String>, Option<String>),
        feed: Option<&digifinex_ureq::feed::FeedSource>,
        queue: usize,
    ) -> Result<PyStream, digifinex_core::Error> {
        let shared = Arc::new(Shared::default());
        let (tx, rx) = mpsc::sync_channel::<Event>(queue);
        let mut threads = Vec::new();
        let (sources, tracked) = sources(client, subs, track, urls, feed)?;
        for (family, source) in sources {
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
            mode: Mode::Threads {
                rx: Mutex::new(Some(rx)),
                threads: Mutex::new(threads),
            },
            shared,
            tracked,
        })
    }

    /// The streams of `subs` on `client`, a client of the backtest's `exchange`: read on the
    /// thread that iterates (nothing else moves the exchange, so a run gives the same events
    /// every time), letting virtual time pass to the exchange's next event when no socket has
    /// anything; the iterator ends when time is over.
    pub(crate) fn start_inline(
        client: &digifinex_ureq::Client,
        subs: Vec<Subscription>,
        track: Vec<String>,
        exchange: InProcess,
    ) -> Result<PyStream, digifinex_core::Error> {
        let (sources, tracked) = sources(client, subs, track, (None, None), None)?;
        Ok(PyStream {
            mode: Mode::Inline(Mutex::new(Inline {
                sources,
                exchange,
                next: 0,
                over: false,
            })),
            shared: Arc::new(Shared::default()),
            tracked,
        })
    }

    fn stop(&self) -> Vec<JoinHandle<()>> {
        self.shared.stop.store(true, Ordering::Relaxed);
        match &self.mode {
            Mode::Threads { rx, threads } => {
                drop(rx.lock().unwrap_or_else(|p| p.into_inner()).take());
                std::mem::take(&mut *threads.lock().unwrap_or_else(|p| p.into_inner()))
            }
            Mode::Inline(inline) => {
                inline.lock().unwrap_or_else(|p| p.into_inner()).close();
                Vec::new()
            }
        }
    }

    /// The next event within `wait` (`None`: until there is one or the stream ends), and
    /// whether the stream has ended.
    fn take(&self, py: Python<'_>, wait: Option<Duration>) -> PyResult<(Option<Event>, bool)> {
        match &self.mode {
            Mode::Threads { rx, .. } => {
                // Waited in steps of one poll at most, Ctrl-C looked at between them.
                let mut left = wait;
                loop {
                    let step = left.map_or(POLL, |w| w.min(POLL));
                    let got = py.detach(|| {
                        let guard = rx.lock().unwrap_or_else(|p| p.into_inner());
                        guard.as_ref().map(|rx| rx.recv_timeout(step))
                    });
                    match got {
                        Some(Ok(event)) => return Ok((Some(event), false)),
                        Some(Err(RecvTimeoutError::Timeout)) => {
                            if let Some(w) = left {
                                if w <= step {
                                    return Ok((None, false));
                                }
                                left = Some(w - step);
                            }
                            py.check_signals()?;
                        }
                        Some(Err(RecvTimeoutError::Disconnected)) | None => {
                            return Ok((None, true))
                        }
                    }
                }
            }
            Mode::Inline(inline) => {
                let shared = &self.shared;
                Ok(py.detach(|| {
                    inline
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .next(shared, wait)
                }))
            }
        }
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
        match self.take(py, None)? {
            (Some(event), _) => to_py(py, &event),
            (None, _) => Err(PyStopIteration::new_err(())),
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

    /// `(event or None, ended)`: the next event within `timeout` seconds (of virtual time in
    /// a backtest), and whether the stream has ended (closed, every event handed out). For
    /// the asyncio iterator.
    fn poll<'py>(
        &self,
        py: Python<'py>,
        timeout: f64,
    ) -> PyResult<(Option<Bound<'py, PyAny>>, bool)> {
        if !(timeout.is_finite() && timeout >= 0.0) {
            return Err(PyValueError::new_err("timeout is seconds, 0 or more"));
        }
        let wait = Duration::from_secs_f64(timeout.min(86_400.0));
        let (event, ended) = self.take(py, Some(wait))?;
        Ok((event.map(|e| to_py(py, &e)).transpose()?, ended))
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
