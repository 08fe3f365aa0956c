//! What the server's tasks share: the exchange behind one lock, the wall clock it follows,
//! and the wake-ups of the catch-up task and the websocket writers.

use crate::exchange::{Exchange, WsId};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::Notify;

/// The wall clock (ms since the Unix epoch): the server's reference clock, the only place
/// the simulator reads one.
pub(crate) fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// What the server's tasks share: the exchange behind one lock, the catch-up task's wake-up
/// and the websocket writers' wake-ups.
#[derive(Debug)]
pub(crate) struct Shared {
    ex: Mutex<Exchange>,
    pub(crate) addr: SocketAddr,
    /// Wakes the catch-up task when a step falls behind.
    wake: Notify,
    /// Wakes a session's writer when it has output.
    writers: Mutex<HashMap<WsId, Arc<Notify>>>,
}

/// The locked exchange; releasing it wakes the writers of sessions given output and the
/// catch-up task when a step fell behind.
pub(crate) struct Locked<'a> {
    guard: MutexGuard<'a, Exchange>,
    shared: &'a Shared,
}

impl std::ops::Deref for Locked<'_> {
    type Target = Exchange;
    fn deref(&self) -> &Exchange {
        &self.guard
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Exchange {
        &mut self.guard
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let ready = self.guard.ws_ready();
        if !ready.is_empty() {
            let writers = self
                .shared
                .writers
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            for id in ready {
                if let Some(n) = writers.get(&id) {
                    n.notify_one();
                }
            }
        }
        if self.guard.behind() {
            self.shared.wake.notify_one();
        }
    }
}

impl Shared {
    /// The server's shared part over `ex`, listening on `addr`.
    pub(crate) fn new(ex: Exchange, addr: SocketAddr) -> Shared {
        Shared {
            ex: Mutex::new(ex),
            addr,
            wake: Notify::new(),
            writers: Mutex::new(HashMap::new()),
        }
    }

    /// Locks the exchange (a poisoned lock is recovered: handlers never leave it half-updated
    /// on purpose, and a simulator should keep serving) without moving its time.
    pub(crate) fn lock_raw(&self) -> Locked<'_> {
        Locked {
            guard: self.ex.lock().unwrap_or_else(|p| p.into_inner()),
            shared: self,
        }
    }

    /// Locks the exchange with its time following the wall clock, brought towards it by one
    /// bounded step.
    pub(crate) fn lock(&self) -> Locked<'_> {
        let mut l = self.lock_raw();
        l.follow(wall_ms());
        l
    }

    /// Locks the exchange with everything due by the current time applied: as many bounded
    /// steps as it takes, the lock released between them (so that the server keeps
    /// answering). Returns once the state has caught up with the time read at the call,
    /// brought towards the current time by one more step.
    pub(crate) fn settled(&self) -> Locked<'_> {
        let mut l = self.lock();
        let target = l.now_ms();
        while l.behind() {
            drop(l);
            std::thread::yield_now();
            l = self.lock_raw();
            if !l.step_towards(target) {
                l.follow(wall_ms());
                break;
            }
        }
        l
    }

    pub(crate) fn register(&self, id: WsId) -> Arc<Notify> {
        let n = Arc::new(Notify::new());
        self.writers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, n.clone());
        n
    }

    pub(crate) fn unregister(&self, id: WsId) {
        self.writers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }

    /// Steps while behind, one lock per step, yielding to other tasks between steps; waits
    /// while not. The server runs it for as long as it serves.
    pub(crate) async fn catch_up(&self) {
        loop {
            self.wake.notified().await;
            while self.lock_raw().behind() {
                drop(self.lock());
                tokio::task::yield_now().await;
            }
        }
    }

    /// The public pushes, every [`crate::WsSettings::tick`] of wall time, while the server
    /// runs.
    pub(crate) async fn tick_loop(&self, period: Duration) {
        let mut interval = tokio::time::interval(period.max(Duration::from_millis(1)));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            if self.lock_raw().ws_connections() == 0 {
                continue;
            }
            self.lock().ws_tick();
        }
    }
}
