//! The API layer's defaults for the protocol layer: the time endpoints the session syncs its
//! clock with. The protocol layer (`session`, `endpoint`, `policy`, ...) names no concrete
//! endpoint; what it needs of one is given to it from here.

use crate::session::{ServerClock, SessionBuilder, TimeProbe};
use crate::types::{Family, TimestampMillis};
use crate::{spot, swap};

impl ServerClock for spot::ServerTimeRequest {
    fn server_time(output: &spot::ServerTime) -> TimestampMillis {
        output.server_time.to_millis()
    }
}

impl ServerClock for swap::ServerTimeRequest {
    fn server_time(output: &TimestampMillis) -> TimestampMillis {
        *output
    }
}

/// The defaults of [`crate::session::Session::builder`]: production URLs, no credentials, the
/// system clock, default retries, automatic time sync through `GET /v3/time` and
/// `GET /swap/v2/public/time`, weight budgets of 1200 (spot) and 6,000 (swap) per minute.
impl Default for SessionBuilder {
    fn default() -> Self {
        SessionBuilder::without_time_probes()
            .time_probe(Family::Spot, TimeProbe::of::<spot::ServerTimeRequest>())
            .time_probe(Family::Swap, TimeProbe::of::<swap::ServerTimeRequest>())
    }
}
