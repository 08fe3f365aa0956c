//! Coarse request deadlines: one ticking task per client instead of one tokio timer per request.
//!
//! DESIGN: a tokio `Sleep` per request (registered in the runtime's timer wheel on its first
//! poll, removed when dropped) cost about 5% of throughput with 32 requests in flight on
//! loopback (`cargo bench -p digifinex-hyper --bench roundtrip`, `paired_32_in_flight`). Here a
//! request only puts a [`Slot`] (its deadline, a waker) in the client's list; one task wakes
//! every [`Deadlines::tick`] while the list is not empty, fires the slots whose deadline has
//! passed and forgets the ones whose request ended (their `Arc` is no longer shared). It stops
//! when the list is empty and is started again by the next request. A deadline therefore fires
//! up to one tick late; the tick is an eighth of the shorter limit, at most 250 ms and at least
//! 1 ms. Times are `tokio::time::Instant`s, so a paused tokio clock works as with `Sleep`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::task::AtomicWaker;
use tokio::time::Instant;

/// The deadlines of one client's requests (shared by its clones).
#[derive(Debug)]
pub(crate) struct Deadlines {
    epoch: Instant,
    tick: Duration,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    slots: Vec<Arc<Slot>>,
    ticking: bool,
}

/// One request's deadline.
#[derive(Debug)]
pub(crate) struct Slot {
    /// Nanoseconds after the epoch.
    deadline: AtomicU64,
    expired: AtomicBool,
    waker: AtomicWaker,
}

impl Deadlines {
    /// Deadlines checked every eighth of `shortest` (clamped to 1..=250 ms).
    pub(crate) fn new(shortest: Duration) -> Deadlines {
        Deadlines {
            epoch: Instant::now(),
            tick: (shortest / 8).clamp(Duration::from_millis(1), Duration::from_millis(250)),
            inner: Mutex::new(Inner::default()),
        }
    }

    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX)
    }

    /// A slot expiring at `at`; starts the ticking task when it is not running.
    pub(crate) fn register(self: &Arc<Self>, at: Instant) -> Arc<Slot> {
        let slot = Arc::new(Slot {
            deadline: AtomicU64::new(self.nanos(at)),
            expired: AtomicBool::new(false),
            waker: AtomicWaker::new(),
        });
        let start = {
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            inner.slots.push(slot.clone());
            !std::mem::replace(&mut inner.ticking, true)
        };
        if start {
            tokio::spawn(Arc::clone(self).run());
        }
        slot
    }

    /// Moves `slot`'s deadline to `at`, putting it back in the list if it had already fired
    /// (its request went on, having got what it was waiting for just in time).
    pub(crate) fn reset(self: &Arc<Self>, slot: &Arc<Slot>, at: Instant) {
        let start = {
            // Under the lock, as the sweep is: a sweep sees either the old deadline and
            // `expired` unset, or the new deadline.
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            slot.deadline.store(self.nanos(at), Ordering::Release);
            if slot.expired.swap(false, Ordering::AcqRel) {
                inner.slots.push(slot.clone());
                !std::mem::replace(&mut inner.ticking, true)
            } else {
                false
            }
        };
        if start {
            tokio::spawn(Arc::clone(self).run());
        }
    }

    /// The ticking task: fires due slots, drops finished ones, ends when none is left.
    async fn run(self: Arc<Self>) {
        /// Dropped with the task: if the task did not end by itself (its runtime shut down
        /// under it), the next `register` must start a new one, in its own runtime.
        struct Stop(Arc<Deadlines>, bool);
        impl Drop for Stop {
            fn drop(&mut self) {
                if !self.1 {
                    let mut inner = self.0.inner.lock().unwrap_or_else(PoisonError::into_inner);
                    inner.ticking = false;
                }
            }
        }
        let mut stop = Stop(self, false);
        loop {
            tokio::time::sleep(stop.0.tick).await;
            if !stop.0.sweep(stop.0.nanos(Instant::now())) {
                stop.1 = true;
                return;
            }
        }
    }

    /// One tick at `now` (ns after the epoch); false when the task is to stop (no slot left,
    /// `ticking` already cleared under the lock, so the next `register` starts a new task).
    fn sweep(&self, now: u64) -> bool {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.slots.retain(|slot| {
            if Arc::strong_count(slot) == 1 {
                return false; // its request ended
            }
            if slot.deadline.load(Ordering::Acquire) <= now {
                slot.expired.store(true, Ordering::Release);
                slot.waker.wake();
                return false;
            }
            true
        });
        if inner.slots.is_empty() {
            inner.ticking = false;
            false
        } else {
            true
        }
    }
}

impl Slot {
    /// Resolves once the slot's deadline has passed (as seen by the ticking task).
    pub(crate) fn expired(&self) -> Expired<'_> {
        Expired(self)
    }
}

/// See [`Slot::expired`].
pub(crate) struct Expired<'a>(&'a Slot);

impl Future for Expired<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let slot = self.0;
        if slot.expired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        slot.waker.register(cx.waker());
        // Fired between the check and the registration: the wake may have been missed.
        if slot.expired.load(Ordering::Acquire) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tick_is_an_eighth_of_the_shorter_limit_within_bounds() {
        assert_eq!(
            Deadlines::new(Duration::from_millis(800)).tick,
            Duration::from_millis(100)
        );
        assert_eq!(
            Deadlines::new(Duration::from_secs(10)).tick,
            Duration::from_millis(250)
        );
        assert_eq!(
            Deadlines::new(Duration::ZERO).tick,
            Duration::from_millis(1)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_slot_fires_at_its_deadline_within_one_tick_and_the_task_stops() {
        let d = Arc::new(Deadlines::new(Duration::from_millis(800)));
        let start = Instant::now();
        let slot = d.register(start + Duration::from_millis(250));
        slot.expired().await;
        let late = Instant::now() - start;
        assert!(late >= Duration::from_millis(250), "{late:?}");
        assert!(late <= Duration::from_millis(350), "{late:?}");
        // The fired slot left the list; the task stopped with it.
        let inner = d.inner.lock().unwrap();
        assert!(inner.slots.is_empty());
        assert!(!inner.ticking);
    }

    #[tokio::test(start_paused = true)]
    async fn a_reset_moves_the_deadline() {
        let d = Arc::new(Deadlines::new(Duration::from_millis(800)));
        let start = Instant::now();
        let slot = d.register(start + Duration::from_millis(100));
        d.reset(&slot, start + Duration::from_millis(1000));
        slot.expired().await;
        assert!(Instant::now() - start >= Duration::from_millis(1000));
    }

    #[tokio::test(start_paused = true)]
    async fn a_reset_after_firing_rearms_the_slot() {
        let d = Arc::new(Deadlines::new(Duration::from_millis(800)));
        let start = Instant::now();
        let slot = d.register(start + Duration::from_millis(100));
        slot.expired().await;
        d.reset(&slot, start + Duration::from_millis(2000));
        assert!(!slot.expired.load(Ordering::Acquire));
        slot.expired().await;
        assert!(Instant::now() - start >= Duration::from_millis(2000));
    }

    #[tokio::test(start_paused = true)]
    async fn an_ended_request_is_forgotten_and_a_new_one_restarts_the_task() {
        let d = Arc::new(Deadlines::new(Duration::from_millis(800)));
        let slot = d.register(Instant::now() + Duration::from_secs(60));
        drop(slot);
        tokio::time::sleep(Duration::from_millis(150)).await;
        {
            let inner = d.inner.lock().unwrap();
            assert!(inner.slots.is_empty());
            assert!(!inner.ticking);
        }
        let start = Instant::now();
        let slot = d.register(start + Duration::from_millis(300));
        assert!(d.inner.lock().unwrap().ticking);
        slot.expired().await;
        assert!(Instant::now() - start >= Duration::from_millis(300));
    }

    #[test]
    fn a_client_outliving_its_runtime_still_gets_its_deadlines_in_the_next_one() {
        let d = Arc::new(Deadlines::new(Duration::from_millis(80)));
        let first = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let kept = first.block_on(async {
            let slot = d.register(Instant::now() + Duration::from_secs(60));
            tokio::task::yield_now().await; // the ticking task starts
            slot
        });
        assert!(d.inner.lock().unwrap().ticking);
        drop(first); // drops the ticking task mid-sleep
        assert!(!d.inner.lock().unwrap().ticking);
        let second = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        second.block_on(async {
            let start = Instant::now();
            let slot = d.register(start + Duration::from_millis(50));
            tokio::time::timeout(Duration::from_secs(5), slot.expired())
                .await
                .expect("the deadline fires in the new runtime");
        });
        drop(kept);
    }

    #[tokio::test(start_paused = true)]
    async fn slots_fire_independently() {
        let d = Arc::new(Deadlines::new(Duration::from_millis(800)));
        let start = Instant::now();
        let late = d.register(start + Duration::from_secs(5));
        let soon = d.register(start + Duration::from_millis(200));
        soon.expired().await;
        assert!(!late.expired.load(Ordering::Acquire));
        assert_eq!(d.inner.lock().unwrap().slots.len(), 1);
        late.expired().await;
        assert!(Instant::now() - start >= Duration::from_secs(5));
    }
}
