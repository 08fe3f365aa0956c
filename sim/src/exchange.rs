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

use crate::changes::Changes;
use crate::clock::SimClock;
use crate::config::SimConfig;
use crate::faults::Faults;
use crate::state::State;
use std::net::SocketAddr;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::AtomicU64;
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
        }
    }

    /// Registers the observer (once; a second call is ignored and returns `false`).
    pub fn observe(&self, observer: Observer) -> bool {
        self.observer.set(observer).is_ok()
    }

    /// Locks the state (a poisoned lock is recovered: handlers never leave it half-updated on
    /// purpose, and a simulator should keep serving), brought up to the current simulator time
    /// first: the order flow, a replayed market's events and delayed orders due by now are
    /// applied in time order ([`crate::market::sync`]). The observer runs when the guard is
    /// released.
    pub fn state(&self) -> StateGuard<'_> {
        let mut guard = self.state.lock().unwrap_or_else(|p| p.into_inner());
        crate::market::sync(&mut guard, self.clock.now_ms());
        StateGuard {
            guard,
            exchange: self,
        }
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
