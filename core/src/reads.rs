//! One declaration of a family of typed reads: the enum of requests to send, the enum of their
//! typed answers (the arm of the same name), each read's [`crate::Meta`], how its answer is
//! decoded and how it is performed as a call. The reconciler's reads
//! ([`crate::reconcile::Read`]) and the tracker's ([`crate::track::TrackRead`]) are declared
//! with it.
//!
//! # Time windows
//!
//! Some of these reads carry a time window the machine computed from the session's time (a
//! tracker's fills since its cursor, a reconciliation's order history since the write was
//! built, a snapshot's history before a write). Each is performed as a [`Windowed`] call:
//!
//! - **measured first**: while the session has not measured the server's clock
//!   ([`crate::session::Session::clock_measured`]), the call syncs it first and starts the window
//!   no later than the measured server time (a window computed from a clock running ahead would
//!   start in the server's future);
//! - **a refused window is re-synced once**: a spot 20022 ("end time must be at least the
//!   start time": the window starts after the server's now) syncs the clock and resends the read
//!   once with the window starting no later than the measured server time.
//!
//! DESIGN: the window is only ever moved earlier (never narrowed), so a read never misses a
//! record it would have listed; the machines judge the records by their own windows anyway.
//! Only these idempotent reads are treated so, never a write and never a window the caller
//! gave to [`crate::session::Session::call`] itself. With
//! [`crate::session::SessionBuilder::auto_time_sync`] off, nothing is synced.

/// Declares `$read` and `$answer` with their `meta`, `decode` and `call`, from one list of
/// `Variant(Request) => Answer, |o| wrap;` arms (`wrap` turns the decoded output `o` into the
/// answer's payload), and optionally one `@nested Variant(Inner) => InnerAnswer;` arm whose
/// read is itself such an enum.
macro_rules! typed_reads {
    (
        $(#[$rdoc:meta])* $read:ident;
        $(#[$adoc:meta])* $answer:ident;
        $($(#[$doc:meta])* $variant:ident($req:ty) => $ev:ty, |$o:ident| $wrap:expr;)*
        $(@nested $(#[$ndoc:meta])* $nvariant:ident($nread:ty) => $nans:ty;)?
    ) => {
        $(#[$rdoc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $read {
            $($(#[$doc])* $variant($req),)*
            $($(#[$ndoc])* $nvariant($nread),)?
        }

        $(#[$adoc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $answer {
            $(#[doc = concat!("Answer of [`", stringify!($read), "::", stringify!($variant), "`].")]
            $variant($ev),)*
            $(#[doc = concat!("Answer of [`", stringify!($read), "::", stringify!($nvariant), "`].")]
            $nvariant($nans),)?
        }

        impl $read {
            /// The endpoint's [`crate::Meta`] (its weight among others).
            pub fn meta(&self) -> crate::Meta {
                use crate::endpoint::Endpoint as _;
                match self {
                    $($read::$variant(_) => <$req>::META,)*
                    $($read::$nvariant(r) => r.meta(),)?
                }
            }

            /// The endpoint's stable name (`spot.order_current`).
            pub fn endpoint(&self) -> &'static str {
                self.meta().name
            }

            /// Decodes a success answer's body (HTTP 200) into the matching answer, for a
            /// transport of one's own that sends the read's request (and for tests).
            pub fn decode(&self, body: &[u8]) -> Result<$answer, crate::Error> {
                fn de<E: crate::endpoint::Endpoint>(
                    _: &E,
                    body: &[u8],
                ) -> Result<E::Output, crate::Error> {
                    crate::endpoint::parse_endpoint::<E>(200, &http::HeaderMap::new(), body)
                }
                Ok(match self {
                    $($read::$variant(r) => {
                        let $o = de(r, body)?;
                        $answer::$variant($wrap)
                    })*
                    $($read::$nvariant(r) => $answer::$nvariant(r.decode(body)?),)?
                })
            }

            /// The read as a call of `session` (its budget, retries and clock), whose output
            /// is the matching answer: what a transport drives to perform it. A read with a
            /// time window measures the clock first while the session has not, and is resent
            /// once after a re-sync when the venue refuses its window (spot 20022; see
            /// `core/src/reads.rs`, "Time windows").
            pub fn call<'a>(
                &'a self,
                session: &'a crate::session::Session,
            ) -> Box<dyn crate::session::Drive<Output = $answer> + Send + 'a> {
                fn mapped<'a, D: crate::session::Drive + Send + 'a>(
                    inner: D,
                    wrap: fn(D::Output) -> $answer,
                ) -> Box<dyn crate::session::Drive<Output = $answer> + Send + 'a> {
                    Box::new(crate::session::Mapped::new(inner, wrap))
                }
                match self {
                    $($read::$variant(r) => {
                        mapped(
                            crate::reads::Windowed::new(session, r),
                            |$o| $answer::$variant($wrap),
                        )
                    })*
                    $($read::$nvariant(r) => mapped(r.call(session), $answer::$nvariant),)?
                }
            }
        }
    };
}

pub(crate) use typed_reads;

use crate::endpoint::{Endpoint, Family};
use crate::error::{ApiCode, BoxError, Error, SpotCode, TransportErrorKind};
use crate::session::{Action, Call, Drive, Session, SyncCall};
use crate::types::{TimestampMillis, TimestampSecs};

/// A read request with (or without) a time window the client computed: where it starts and how
/// to start it earlier.
pub(crate) trait TimeWindow: Endpoint {
    /// The window's start, ms; `None`: no window.
    fn window_start(&self) -> Option<i64> {
        None
    }
    /// The request with its window starting at `start` ms (spot: that instant's second).
    fn starting_at(&self, start: i64) -> Self {
        let _ = start;
        self.clone()
    }
}

/// Declares the reads without a window, and those whose window starts at a spot
/// `start_time` (seconds) or a swap `start_timestamp` (ms).
macro_rules! windows {
    (none: $($plain:ty),*; secs: $($secs:ty),*; millis: $($millis:ty),*;) => {
        $(impl TimeWindow for $plain {})*
        $(impl TimeWindow for $secs {
            fn window_start(&self) -> Option<i64> {
                self.start_time.map(|t| t.0.saturating_mul(1000))
            }
            fn starting_at(&self, start: i64) -> Self {
                let mut r = self.clone();
                r.start_time = Some(TimestampSecs(start.div_euclid(1000)));
                r
            }
        })*
        $(impl TimeWindow for $millis {
            fn window_start(&self) -> Option<i64> {
                self.start_timestamp.map(|t| t.0)
            }
            fn starting_at(&self, start: i64) -> Self {
                let mut r = self.clone();
                r.start_timestamp = Some(TimestampMillis(start));
                r
            }
        })*
    };
}

use crate::{spot as sp, swap as sw};
windows! {
    none: sp::CurrentOrdersRequest, sp::OrdersRequest, sp::SpotAssetsRequest,
        sp::MarginPositionsRequest, sp::WithdrawHistoryRequest, sw::OrderInfoRequest,
        sw::BalanceRequest, sw::PositionsRequest, sw::CopyCurrentRequest, sw::CopyHistoryRequest,
        sw::ExpertOpenOrdersRequest, sw::PlanTaskRequest;
    secs: sp::OrderHistoryRequest, sp::MyTradesRequest, sp::FinanceLogRequest;
    millis: sw::OpenOrdersRequest, sw::HistoryOrdersRequest, sw::HistoryTradesRequest,
        sw::TransferRecordRequest;
}

/// The call of a read whose window uses the measured server time (see the module docs).
pub(crate) struct Windowed<'a, E: TimeWindow> {
    session: &'a Session,
    request: &'a E,
    stage: Stage<'a, E>,
    /// The 20022 being re-synced (returned if the resend cannot help).
    refused: Option<Error>,
    resent: bool,
}

// The stage is the machine itself, inside the boxed call (`call`): boxing the read's `Call` too
// would cost a second allocation per read for nothing.
#[allow(clippy::large_enum_variant)]
enum Stage<'a, E: Endpoint> {
    /// The first sync of an unmeasured session.
    Measure(SyncCall<'a>),
    /// The read.
    Read(Call<'a, E>),
    /// The sync after a refused window.
    Resync(SyncCall<'a>),
}

impl<'a, E: TimeWindow> Windowed<'a, E> {
    /// The call of `request` through `session`.
    pub(crate) fn new(session: &'a Session, request: &'a E) -> Self {
        let stage =
            if request.window_start().is_some() && session.auto_sync() && !session.clock_measured()
            {
                Stage::Measure(session.sync_call(E::META.family))
            } else {
                Stage::Read(session.call(request))
            };
        Windowed {
            session,
            request,
            stage,
            refused: None,
            resent: false,
        }
    }

    /// The read, its window starting no later than the session's (measured) time; `None` when
    /// that moves nothing.
    fn moved(&self) -> Option<Call<'a, E>> {
        let start = self.request.window_start()?;
        let now = self.session.now().0;
        let now = match E::META.family {
            Family::Spot => now.div_euclid(1000).saturating_mul(1000),
            _ => now,
        };
        (now < start).then(|| self.session.call_owned(self.request.starting_at(now)))
    }
}

/// Whether `e` refuses the read's window: spot 20022, its start after the server's now.
fn refuses_window(e: &Error) -> bool {
    matches!(e, Error::Api(a) if a.code == ApiCode::Spot(SpotCode::EndBeforeStart))
}

impl<E: TimeWindow> Drive for Windowed<'_, E> {
    type Output = E::Output;

    fn next(&mut self) -> Action<E::Output> {
        // Bounded: each stage is left at most once (measure, read, resync, read).
        for _ in 0..4 {
            match &mut self.stage {
                Stage::Measure(sync) => match sync.next() {
                    Action::Send(r) => return Action::Send(r),
                    Action::Wait(d) => return Action::Wait(d),
                    // A failed sync leaves the window as computed: the read reports its own.
                    Action::Done(_) => {
                        let read = self
                            .moved()
                            .unwrap_or_else(|| self.session.call(self.request));
                        self.stage = Stage::Read(read);
                    }
                },
                Stage::Read(call) => match call.next() {
                    Action::Done(Err(e))
                        if refuses_window(&e)
                            && !self.resent
                            && self.session.auto_sync()
                            && self.request.window_start().is_some() =>
                    {
                        self.resent = true;
                        self.refused = Some(e);
                        self.stage = Stage::Resync(self.session.sync_call(E::META.family));
                    }
                    other => return other,
                },
                Stage::Resync(sync) => match sync.next() {
                    Action::Send(r) => return Action::Send(r),
                    Action::Wait(d) => return Action::Wait(d),
                    Action::Done(synced) => match (synced, self.moved()) {
                        (Ok(_), Some(read)) => self.stage = Stage::Read(read),
                        _ => {
                            return Action::Done(Err(self.refused.take().unwrap_or_else(|| {
                                Error::validation("call", "the call already finished")
                            })))
                        }
                    },
                },
            }
        }
        Action::Done(Err(Error::validation("call", "the call already finished")))
    }

    fn on_response(&mut self, response: &http::Response<&[u8]>) {
        match &mut self.stage {
            Stage::Measure(s) | Stage::Resync(s) => s.on_response(response),
            Stage::Read(c) => c.on_response(response),
        }
    }

    fn on_owned_response(&mut self, response: http::Response<&[u8]>) {
        match &mut self.stage {
            Stage::Measure(s) | Stage::Resync(s) => s.on_owned_response(response),
            Stage::Read(c) => c.on_owned_response(response),
        }
    }

    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError) {
        match &mut self.stage {
            Stage::Measure(s) | Stage::Resync(s) => s.on_transport_error(kind, error),
            Stage::Read(c) => c.on_transport_error(kind, error),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::clock::FixedClock;
    use crate::credentials::Credentials;
    use crate::track::TrackRead;

    const T0: i64 = 1_700_000_000_000;

    /// A session whose clock reads `local` (ms).
    fn session(local: i64, auto_sync: bool) -> Session {
        Session::builder()
            .credentials(Credentials::new("k", "s"))
            .clock(Arc::new(FixedClock(TimestampMillis(local))))
            .without_weight_budget()
            .auto_time_sync(auto_sync)
            .build()
    }

    /// Drives `call` against `answer` (path and query -> body); returns the requests sent and
    /// the result.
    fn run<D: Drive>(
        mut call: D,
        answer: impl Fn(&str) -> String,
    ) -> (Vec<String>, Result<D::Output, Error>) {
        let mut sent = Vec::new();
        for _ in 0..10 {
            match call.next() {
                Action::Send(r) => {
                    let uri = r.uri().to_string();
                    let body = answer(&uri);
                    sent.push(uri);
                    let response = http::Response::builder()
                        .status(200)
                        .body(body.as_bytes())
                        .unwrap();
                    call.on_response(&response);
                }
                Action::Wait(_) => {}
                Action::Done(result) => return (sent, result.map(|r| r.value)),
            }
        }
        panic!("no end: {sent:?}")
    }

    fn trades_from(start_ms: i64) -> TrackRead {
        TrackRead::SpotTrades(
            sp::MyTradesRequest::new(sp::Market::Spot)
                .symbol("btc_usdt")
                .start_time(TimestampSecs(start_ms.div_euclid(1000))),
        )
    }

    /// The path and the `start_time` of a request sent.
    fn start_of(uri: &str) -> (String, Option<String>) {
        let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
        let path = path.rsplit("/v3").next().unwrap_or("").to_owned();
        let start = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("start_time="))
            .map(str::to_owned);
        (path, start)
    }

    const EMPTY: &str = r#"{"code":0,"list":[]}"#;

    /// The local clock 30 s ahead and not measured: the read measures the clock first and
    /// starts its window at the server's now instead of 25 s in the server's future.
    #[test]
    fn an_unmeasured_clock_is_measured_before_a_window() {
        let s = session(T0 + 30_000, true);
        let read = trades_from(T0 + 25_000);
        let (sent, result) = run(read.call(&s), |uri| {
            if uri.contains("/time") {
                format!(r#"{{"code":0,"server_time":{}}}"#, T0 / 1000)
            } else {
                EMPTY.to_owned()
            }
        });
        assert!(result.is_ok(), "{result:?}");
        let sent: Vec<_> = sent.iter().map(|u| start_of(u)).collect();
        assert_eq!(
            sent,
            vec![
                ("/time".to_owned(), None),
                ("/spot/mytrades".to_owned(), Some("1700000000".to_owned())),
            ]
        );
        assert_eq!((s.clock_measured(), s.offset_ms()), (true, -30_000));
        // Measured now: the next windowed read goes at once.
        let (sent, _) = run(trades_from(T0 - 5_000 + 30_000).call(&s), |_| {
            EMPTY.to_owned()
        });
        assert_eq!(
            sent.iter().map(|u| start_of(u)).collect::<Vec<_>>(),
            vec![("/spot/mytrades".to_owned(), Some("1700000025".to_owned()))]
        );
    }

    /// A read without a window is not delayed by a measurement; with the automatic sync off,
    /// nothing is measured.
    #[test]
    fn no_window_or_no_auto_sync_measures_nothing() {
        let s = session(T0, true);
        let read = TrackRead::SpotOpenOrders(sp::CurrentOrdersRequest::new(sp::Market::Spot));
        let (sent, _) = run(read.call(&s), |_| r#"{"code":0,"data":[]}"#.to_owned());
        assert_eq!(sent.len(), 1);
        assert!(sent[0].contains("/spot/order/current"), "{sent:?}");
        let s = session(T0, false);
        let (sent, result) = run(trades_from(T0).call(&s), |_| EMPTY.to_owned());
        assert!(result.is_ok());
        assert_eq!(sent.len(), 1);
        assert!(!s.clock_measured());
    }

    /// A measured clock that is wrong (the server's jumped 30 s back): the 20022 re-syncs and
    /// resends once with the window at the server's now; a second 20022 is returned.
    #[test]
    fn a_refused_window_resyncs_and_is_resent_once() {
        let s = session(T0, true);
        s.set_offset_ms(0);
        let server = T0 - 30_000;
        let refuse_later_than = move |uri: &str| {
            let (path, start) = start_of(uri);
            if path == "/time" {
                return format!(r#"{{"code":0,"server_time":{}}}"#, server / 1000);
            }
            let start: i64 = start.unwrap().parse().unwrap();
            if start > server / 1000 {
                r#"{"code":20022}"#.to_owned()
            } else {
                EMPTY.to_owned()
            }
        };
        let (sent, result) = run(trades_from(T0 - 5_000).call(&s), refuse_later_than);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            sent.iter().map(|u| start_of(u)).collect::<Vec<_>>(),
            vec![
                ("/spot/mytrades".to_owned(), Some("1699999995".to_owned())),
                ("/time".to_owned(), None),
                ("/spot/mytrades".to_owned(), Some("1699999970".to_owned())),
            ]
        );
        assert_eq!(s.offset_ms(), -30_000);
        // Refused again after the resync: the original error, after one resend only.
        let (sent, result) = run(trades_from(T0 - 40_000).call(&s), |uri| {
            if uri.contains("/time") {
                format!(r#"{{"code":0,"server_time":{}}}"#, (T0 - 60_000) / 1000)
            } else {
                r#"{"code":20022}"#.to_owned()
            }
        });
        let e = result.unwrap_err();
        assert_eq!(e.api_code(), Some(20022), "{e}");
        assert_eq!(sent.len(), 3, "{sent:?}");
        // The window already starts before the server's now: nothing to move, no resend.
        let (sent, result) = run(trades_from(T0 - 90_000).call(&s), |uri| {
            if uri.contains("/time") {
                format!(r#"{{"code":0,"server_time":{}}}"#, (T0 - 60_000) / 1000)
            } else {
                r#"{"code":20022}"#.to_owned()
            }
        });
        assert_eq!(result.unwrap_err().api_code(), Some(20022));
        assert_eq!(sent.len(), 2, "{sent:?}");
    }
}
