//! The REST reads of a stream's private snapshot, handed out the way
//! [`crate::reconcile::Reconciler`] hands out its reads: the transport performs each through
//! its REST client ([`PrivateRead::call`]) and feeds the answer back; the result is the
//! [`PrivateSnapshot`] a [`crate::ws::Streams`] compares with what the pushes said.

use std::collections::VecDeque;

use crate::endpoint::Family;
use crate::session::{Drive, Mapped, Session};
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

impl PrivateRead {
    /// The read as a call of `session` (its budget, retries and clock): what a transport
    /// drives to perform it.
    pub fn call<'a>(
        &'a self,
        session: &'a Session,
    ) -> Box<dyn Drive<Output = PrivateAnswer> + Send + 'a> {
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
