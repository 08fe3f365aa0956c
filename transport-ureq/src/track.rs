//! One account state through the blocking client (issue 29): [`Client::tracker`] drives a
//! [`Tracker`] of the core, performing its reads through [`Client::drive`] (weight budget,
//! retries of reads, clock). The bot hands it its stream's events, its writes' answers and
//! unknown outcomes, and reads the changes. Every rule is the core's
//! ([`digifinex_core::track`]); this module only moves reads and answers.
//!
//! ```no_run
//! use digifinex_ureq::core::track::{TrackConfig, Tracker};
//! use digifinex_ureq::core::{Family, TimestampMillis};
//! use digifinex_ureq::Client;
//!
//! let client = Client::new()?;
//! let now = client.session().now();
//! let mut tracking = client.tracker(Tracker::new(Family::Spot, ["btc_usdt"], TrackConfig::default(), now));
//! tracking.sync(); // the first resync: open orders, fills, balances
//! while let Some(change) = tracking.poll_change() {
//!     println!("{}", serde_json::to_string(&change)?);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::Duration;

use digifinex_core::reconcile::{Unknown, Write};
use digifinex_core::track::{Answer, Change, State, Tracker};
use digifinex_core::ws::Event;
use digifinex_core::Error;

use crate::Client;

impl Client {
    /// Drives `tracker` through this client (see [`Tracking`]).
    pub fn tracker(&self, tracker: Tracker) -> Tracking {
        Tracking {
            client: self.clone(),
            tracker,
        }
    }
}

/// A [`Tracker`] whose reads go through a [`Client`].
#[derive(Debug)]
pub struct Tracking {
    client: Client,
    tracker: Tracker,
}

impl Tracking {
    /// Performs every read the tracker has due now (a reconciliation's, a resync's, fills
    /// due); returns how many. A failed read is handed to the tracker, which tries again later.
    pub fn sync(&mut self) -> u32 {
        let mut reads = 0u32;
        while let Some(read) = self.tracker.next_read(self.client.session().now()) {
            reads = reads.saturating_add(1);
            let result = self.client.drive(read.call(self.client.session()));
            let now = self.client.session().now();
            match result {
                Ok(answer) => self.tracker.feed(answer.value, now),
                Err(e) => self.tracker.feed_error(e, now),
            }
        }
        reads
    }

    /// Hands a stream event to the tracker.
    pub fn on_event(&mut self, event: &Event) {
        self.tracker.on_event(event, self.client.session().now());
    }

    /// Hands a write's answer to the tracker (see [`Tracker::on_answer`]).
    pub fn on_answer(&mut self, write: &Write, answer: &Answer) -> bool {
        self.tracker
            .on_answer(write, answer, self.client.session().now())
    }

    /// Hands a write's error to the tracker: an [`Error::OutcomeUnknown`] is reconciled by the
    /// next [`Tracking::sync`] (`true`); any other error changed nothing (`false`).
    pub fn on_error(&mut self, error: &Error) -> bool {
        match Unknown::from_error(error) {
            Ok(unknown) => {
                self.tracker
                    .on_unknown(unknown, self.client.session().now());
                true
            }
            Err(_) => false,
        }
    }

    /// How long until the tracker next has reads due without new input (zero: now).
    pub fn next_sync_in(&self) -> Duration {
        let now = self.client.session().now();
        match self.tracker.next_deadline() {
            None => Duration::ZERO,
            Some(at) => {
                Duration::from_millis(u64::try_from(at.0.saturating_sub(now.0)).unwrap_or(0))
            }
        }
    }

    /// The next change, each once.
    pub fn poll_change(&mut self) -> Option<Change> {
        self.tracker.poll_change()
    }

    /// A consistent snapshot of the state.
    pub fn state(&self) -> State {
        self.tracker.state()
    }

    /// The tracker.
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// The tracker, to feed it directly.
    pub fn tracker_mut(&mut self) -> &mut Tracker {
        &mut self.tracker
    }

    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }
}
