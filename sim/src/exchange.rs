//! The exchange every door opens onto: configuration, clock, the one [`State`] behind one lock,
//! the fault rules, and the observer that hears of every change.
//!
//! Layering: this module sits above the domain (the state, the engines, the market that the
//! order flow and a recording drive) and below the dialects that speak to clients (the REST
//! families, the websockets, the control API) and the server on top; it names none of them.
//! A dialect that must hear of changes (the websockets' private pushes) registers an observer
//! ([`Exchange::observe`]): it runs with the state still locked whenever a lock is released
//! after something changed, so what it reads is exactly what a REST request would read at that
//! instant.
//!
//! DESIGN (bounded steps): the market drivers (order flow, a recording, delayed orders,
//! funding) run lazily, when the state is locked. [`Exchange::state`] brings them towards the
//! current time with one bounded step of work ([`crate::market`], "Bounded catch-up"), so a
//! request is answered in bounded time however fast the clock runs or far it jumped: the flow
//! and funding are compressed to fit; a recording or the latency queue that has more due
//! than a step does is left *behind*, and the rest is done in further steps, each under its own
//! lock, by the requests that follow and by the server's catch-up task
//! (`Exchange::catch_up`), which steps while anything is behind and lets other requests in
//! between. The Rust control handle ([`crate::Control`]) waits for the whole catch-up, in the
//! same slices, so what a test reads after moving the clock is the state of that instant.

use crate::changes::Changes;
use crate::clock::SimClock;
use crate::config::SimConfig;
use crate::faults::Faults;
use crate::state::State;
use std::net::SocketAddr;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Called with the state locked after a change, with the changes and the simulator time (see
/// the module docs).
pub type Observer = Box<dyn Fn(&State, Changes, i64) + Send + Sync>;

/// State shared by the server tasks, the websockets and the control handles.
pub struct Exchange {
    /// Configuration the simulator started with.
    pub config: SimConfig,
    /// The simulator clock.
    pub clock: SimClock,
    state: Mutex<State>,
    faults: Mutex<Faults>,
    /// Address the server listens on.
    pub addr: SocketAddr,
    /// Number of handler panics caught (always 0 unless the simulator has a bug).
    pub panics: AtomicU64,
    observer: OnceLock<Observer>,
    /// Whether the last step left work due (see the module docs).
    behind: AtomicBool,
    /// Wakes the catch-up task when a step falls behind.
    wake: tokio::sync::Notify,
}

impl std::fmt::Debug for Exchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchange")
            .field("addr", &self.addr)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Exchange {
    /// An exchange over `state`, served at `addr`.
    pub fn new(config: SimConfig, clock: SimClock, state: State, addr: SocketAddr) -> Exchange {
        Exchange {
            config,
            clock,
            state: Mutex::new(state),
            faults: Mutex::new(Faults::default()),
            addr,
            panics: AtomicU64::new(0),
            observer: OnceLock::new(),
            behind: AtomicBool::new(false),
            wake: tokio::sync::Notify::new(),
        }
    }

    /// Registers the observer (once; a second call is ignored and returns `false`).
    pub fn observe(&self, observer: Observer) -> bool {
        self.observer.set(observer).is_ok()
    }

    /// Locks the state (a poisoned lock is recovered: handlers never leave it half-updated on
    /// purpose, and a simulator should keep serving), brought towards the current simulator
    /// time first by one bounded step: the order flow, a replayed market's events and delayed
    /// orders due by now are applied in time order, as far as the step goes (see the module
    /// docs). The observer runs when the guard is released.
    pub fn state(&self) -> StateGuard<'_> {
        let mut guard = self.lock();
        let now = self.clock.now_ms();
        self.step(&mut guard, now);
        StateGuard {
            guard,
            exchange: self,
        }
    }

    /// Locks the state with everything due by the current simulator time applied: as many
    /// bounded steps as it takes, the lock released between them (so that the server keeps
    /// answering). Returns once the state has caught up with the time read at the call,
    /// brought towards the current time by one more step.
    pub(crate) fn settled_state(&self) -> StateGuard<'_> {
        let target = self.clock.now_ms();
        loop {
            let mut guard = self.lock();
            let behind = self.step(&mut guard, target);
            if !behind {
                let now = self.clock.now_ms();
                if now > target {
                    self.step(&mut guard, now);
                }
                return StateGuard {
                    guard,
                    exchange: self,
                };
            }
            // The observer runs, and a request waiting for the lock gets it.
            drop(StateGuard {
                guard,
                exchange: self,
            });
            std::thread::yield_now();
        }
    }

    /// Whether work due by the time of the last step still waits (see the module docs).
    pub(crate) fn behind(&self) -> bool {
        self.behind.load(Ordering::Relaxed)
    }

    /// Steps the state while it is behind, one lock per step, yielding to other tasks
    /// between steps; waits while it is not. The server runs it for as long as it serves.
    pub(crate) async fn catch_up(&self) {
        loop {
            self.wake.notified().await;
            while self.behind() {
                drop(self.state());
                tokio::task::yield_now().await;
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One bounded step of the market drivers up to `now`; returns whether it left work due.
    fn step(&self, st: &mut State, now: i64) -> bool {
        let behind = crate::market::step(st, now, crate::market::Budget::STEP).behind;
        if self.behind.swap(behind, Ordering::Relaxed) != behind && behind {
            self.wake.notify_one();
        }
        behind
    }

    /// Locks the fault rules.
    pub fn faults(&self) -> MutexGuard<'_, Faults> {
        self.faults.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The locked state; releasing it tells the observer what changed.
pub struct StateGuard<'a> {
    guard: MutexGuard<'a, State>,
    exchange: &'a Exchange,
}

impl Deref for StateGuard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.guard
    }
}

impl DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.guard
    }
}

impl Drop for StateGuard<'_> {
    fn drop(&mut self) {
        if crate::changes::pending(&self.guard) {
            let changes = crate::changes::take(&mut self.guard);
            if let Some(observer) = self.exchange.observer.get() {
                observer(&self.guard, changes, self.exchange.clock.now_ms());
            }
        }
    }
}
