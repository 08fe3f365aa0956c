//! The REST reads of a stream's private snapshot, handed out the way
//! [`crate::reconcile::Reconciler`] hands out its reads: the transport performs each through
//! its REST client ([`PrivateRead::call`]) and feeds the answer back; the result is the
//! [`PrivateSnapshot`] a [`crate::ws::Streams`] compares with what the pushes said.
//! [`PrivateReads::call`] performs them all as one [`Drive`], for a transport that has a
//! driving loop and nothing to do between the reads.

use std::collections::VecDeque;

use crate::endpoint::Family;
use crate::error::{BoxError, Error, TransportErrorKind};
use crate::session::{Action, Drive, Mapped, Response, Session};
use crate::ws::private::PrivateSnapshot;
use crate::{spot as sp, swap as sw};

/// Open swap orders read per snapshot (the venue's largest page).
const SWAP_OPEN_ORDERS: u32 = 100;

/// One read of a private snapshot.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PrivateRead {
    /// `GET /v3/spot/order/current`.
    SpotOpenOrders(sp::CurrentOrdersRequest),
    /// `GET /v3/spot/assets`.
    SpotAssets(sp::SpotAssetsRequest),
    /// `GET /swap/v2/trade/open_orders`.
    SwapOpenOrders(sw::OpenOrdersRequest),
    /// `GET /swap/v2/account/balance`.
    SwapBalances(sw::BalanceRequest),
    /// `GET /swap/v2/account/positions`.
    SwapPositions(sw::PositionsRequest),
}

/// The answer to a [`PrivateRead`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PrivateAnswer {
    /// Open spot orders.
    SpotOpenOrders(sp::Orders),
    /// Spot balances.
    SpotAssets(sp::SpotAssets),
    /// Open swap orders.
    SwapOpenOrders(Vec<sw::Order>),
    /// Swap balances.
    SwapBalances(Vec<sw::Balance>),
    /// Swap positions.
    SwapPositions(Vec<sw::Position>),
}

/// A read in flight, its answer mapped to a [`PrivateAnswer`].
type ReadCall<'a> = Box<dyn Drive<Output = PrivateAnswer> + Send + 'a>;

impl PrivateRead {
    /// The read as a call of `session` (its budget, retries and clock): what a transport
    /// drives to perform it.
    pub fn call<'a>(&'a self, session: &'a Session) -> ReadCall<'a> {
        match self {
            PrivateRead::SpotOpenOrders(r) => {
                Box::new(Mapped::call(session, r, PrivateAnswer::SpotOpenOrders))
            }
            PrivateRead::SpotAssets(r) => {
                Box::new(Mapped::call(session, r, PrivateAnswer::SpotAssets))
            }
            PrivateRead::SwapOpenOrders(r) => {
                Box::new(Mapped::call(session, r, PrivateAnswer::SwapOpenOrders))
            }
            PrivateRead::SwapBalances(r) => {
                Box::new(Mapped::call(session, r, PrivateAnswer::SwapBalances))
            }
            PrivateRead::SwapPositions(r) => {
                Box::new(Mapped::call(session, r, PrivateAnswer::SwapPositions))
            }
        }
    }

    /// The read as a call of `session` that owns the request.
    fn into_call(self, session: &Session) -> ReadCall<'_> {
        use PrivateAnswer as A;
        match self {
            PrivateRead::SpotOpenOrders(r) => {
                Box::new(Mapped::owned(session, r, A::SpotOpenOrders))
            }
            PrivateRead::SpotAssets(r) => Box::new(Mapped::owned(session, r, A::SpotAssets)),
            PrivateRead::SwapOpenOrders(r) => {
                Box::new(Mapped::owned(session, r, A::SwapOpenOrders))
            }
            PrivateRead::SwapBalances(r) => Box::new(Mapped::owned(session, r, A::SwapBalances)),
            PrivateRead::SwapPositions(r) => Box::new(Mapped::owned(session, r, A::SwapPositions)),
        }
    }
}

/// The reads of one private snapshot of `family`'s account, and their answers.
#[derive(Debug)]
pub struct PrivateReads {
    family: Family,
    queue: VecDeque<PrivateRead>,
    answers: Vec<PrivateAnswer>,
}

impl PrivateReads {
    /// The reads of a snapshot: spot open orders and balances (2 reads, weight 1 each on
    /// the spot budget); swap open orders (the first 100), balances and positions (3 reads).
    pub fn new(family: Family) -> Self {
        let queue = match family {
            Family::Spot => VecDeque::from([
                PrivateRead::SpotOpenOrders(sp::CurrentOrdersRequest::new(sp::Market::Spot)),
                PrivateRead::SpotAssets(sp::SpotAssetsRequest::new()),
            ]),
            _ => VecDeque::from([
                PrivateRead::SwapOpenOrders(sw::OpenOrdersRequest::new().limit(SWAP_OPEN_ORDERS)),
                PrivateRead::SwapBalances(sw::BalanceRequest::new()),
                PrivateRead::SwapPositions(sw::PositionsRequest::new()),
            ]),
        };
        PrivateReads {
            family,
            queue,
            answers: Vec::new(),
        }
    }

    /// The next read to perform, or `None` when every read was handed out.
    pub fn next_read(&mut self) -> Option<PrivateRead> {
        self.queue.pop_front()
    }

    /// The answer to a read.
    pub fn feed(&mut self, answer: PrivateAnswer) {
        self.answers.push(answer);
    }

    /// Every read, one after the other, as one call of `session`: it ends with the snapshot
    /// (the status, headers and usage of the last read's answer), or with the first read's
    /// error.
    pub fn call(self, session: &Session) -> SnapshotCall<'_> {
        SnapshotCall {
            session,
            reads: Some(self),
            current: None,
            last: None,
        }
    }

    /// The snapshot, once every read was answered.
    pub fn finish(self) -> Option<PrivateSnapshot> {
        let mut spot_orders = None;
        let mut spot_assets = None;
        let mut swap_orders = None;
        let mut swap_balances = None;
        let mut swap_positions = None;
        for a in self.answers {
            match a {
                PrivateAnswer::SpotOpenOrders(o) => spot_orders = Some(o),
                PrivateAnswer::SpotAssets(a) => spot_assets = Some(a),
                PrivateAnswer::SwapOpenOrders(o) => swap_orders = Some(o),
                PrivateAnswer::SwapBalances(b) => swap_balances = Some(b),
                PrivateAnswer::SwapPositions(p) => swap_positions = Some(p),
            }
        }
        match self.family {
            Family::Spot => Some(PrivateSnapshot::spot(
                &spot_orders?.data,
                &spot_assets?.list,
            )),
            _ => Some(PrivateSnapshot::swap(
                &swap_orders?,
                &swap_balances?,
                &swap_positions?,
            )),
        }
    }
}

/// The reads of a snapshot as one [`Drive`] (see [`PrivateReads::call`]).
pub struct SnapshotCall<'a> {
    session: &'a Session,
    /// `None` once the result was handed out.
    reads: Option<PrivateReads>,
    current: Option<ReadCall<'a>>,
    /// The last answer's status, headers, usage, latency and attempts.
    last: Option<Response<()>>,
}

impl std::fmt::Debug for SnapshotCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotCall")
            .field("reads", &self.reads)
            .field("in_flight", &self.current.is_some())
            .finish_non_exhaustive()
    }
}

impl Drive for SnapshotCall<'_> {
    type Output = PrivateSnapshot;

    fn next(&mut self) -> Action<PrivateSnapshot> {
        let unanswered = || Error::validation("snapshot", "a private read was not answered");
        loop {
            let Some(reads) = self.reads.as_mut() else {
                return Action::Done(Err(unanswered()));
            };
            let call = match &mut self.current {
                Some(call) => call,
                None => match reads.next_read() {
                    Some(read) => self.current.insert(read.into_call(self.session)),
                    None => {
                        let snapshot = self.reads.take().and_then(PrivateReads::finish);
                        return Action::Done(match (snapshot, self.last.take()) {
                            (Some(value), Some(last)) => Ok(last.with(value)),
                            _ => Err(unanswered()),
                        });
                    }
                },
            };
            match call.next() {
                Action::Send(request) => return Action::Send(request),
                Action::Wait(delay) => return Action::Wait(delay),
                Action::Done(Ok(answer)) => {
                    let (value, last) = answer.split();
                    reads.feed(value);
                    self.last = Some(last);
                    self.current = None;
                }
                Action::Done(Err(e)) => {
                    self.reads = None;
                    self.current = None;
                    return Action::Done(Err(e));
                }
            }
        }
    }

    fn on_response(&mut self, response: &http::Response<&[u8]>) {
        if let Some(call) = &mut self.current {
            call.on_response(response);
        }
    }

    fn on_owned_response(&mut self, response: http::Response<&[u8]>) {
        if let Some(call) = &mut self.current {
            call.on_owned_response(response);
        }
    }

    fn on_transport_error(&mut self, kind: TransportErrorKind, error: BoxError) {
        if let Some(call) = &mut self.current {
            call.on_transport_error(kind, error);
        }
    }
}
