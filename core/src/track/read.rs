//! The reads a tracker hands out and their typed answers.

use crate::endpoint::Endpoint;
use crate::reconcile::{Evidence, Read};
use crate::session::{Drive, Session};
use crate::{spot as sp, swap as sw};

/// An idempotent read the tracker needs, as the typed request to send.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TrackRead {
    /// `GET /v3/{market}/order/current`: the open orders of one pair.
    SpotOpenOrders(sp::CurrentOrdersRequest),
    /// `GET /v3/{market}/order`: orders by id (those no longer listed as open).
    SpotOrders(sp::OrdersRequest),
    /// `GET /v3/{market}/mytrades`: own fills of one pair, with trade ids and fees.
    SpotTrades(sp::MyTradesRequest),
    /// `GET /v3/spot/assets`: the spot balances.
    SpotAssets(sp::SpotAssetsRequest),
    /// `GET /swap/v2/trade/open_orders`: the open orders of one instrument.
    SwapOpenOrders(sw::OpenOrdersRequest),
    /// `GET /swap/v2/trade/order_info`: one order by id (one no longer listed as open).
    SwapOrder(sw::OrderInfoRequest),
    /// `GET /swap/v2/trade/history_trades`: own fills of one instrument, with trade ids and fees.
    SwapTrades(sw::HistoryTradesRequest),
    /// `GET /swap/v2/account/balance`: the swap balances.
    SwapBalances(sw::BalanceRequest),
    /// `GET /swap/v2/account/positions`: the swap positions.
    SwapPositions(sw::PositionsRequest),
    /// A read of the reconciliation of an unknown outcome ([`crate::reconcile::Reconciler`]).
    Reconcile(Read),
}

/// The typed answer to a [`TrackRead`] (the arm of the same name).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TrackAnswer {
    /// Answer of [`TrackRead::SpotOpenOrders`].
    SpotOpenOrders(sp::Orders),
    /// Answer of [`TrackRead::SpotOrders`].
    SpotOrders(sp::Orders),
    /// Answer of [`TrackRead::SpotTrades`].
    SpotTrades(sp::MyTrades),
    /// Answer of [`TrackRead::SpotAssets`].
    SpotAssets(sp::SpotAssets),
    /// Answer of [`TrackRead::SwapOpenOrders`].
    SwapOpenOrders(Vec<sw::Order>),
    /// Answer of [`TrackRead::SwapOrder`] (boxed: an order is large).
    SwapOrder(Box<sw::Order>),
    /// Answer of [`TrackRead::SwapTrades`].
    SwapTrades(Vec<sw::Fill>),
    /// Answer of [`TrackRead::SwapBalances`].
    SwapBalances(Vec<sw::Balance>),
    /// Answer of [`TrackRead::SwapPositions`].
    SwapPositions(Vec<sw::Position>),
    /// Answer of [`TrackRead::Reconcile`].
    Reconcile(Evidence),
}

impl TrackRead {
    /// The endpoint's [`crate::Meta`] (its weight among others).
    pub fn meta(&self) -> crate::Meta {
        match self {
            TrackRead::SpotOpenOrders(_) => sp::CurrentOrdersRequest::META,
            TrackRead::SpotOrders(_) => sp::OrdersRequest::META,
            TrackRead::SpotTrades(_) => sp::MyTradesRequest::META,
            TrackRead::SpotAssets(_) => sp::SpotAssetsRequest::META,
            TrackRead::SwapOpenOrders(_) => sw::OpenOrdersRequest::META,
            TrackRead::SwapOrder(_) => sw::OrderInfoRequest::META,
            TrackRead::SwapTrades(_) => sw::HistoryTradesRequest::META,
            TrackRead::SwapBalances(_) => sw::BalanceRequest::META,
            TrackRead::SwapPositions(_) => sw::PositionsRequest::META,
            TrackRead::Reconcile(r) => r.meta(),
        }
    }

    /// The endpoint's stable name (`spot.order_current`).
    pub fn endpoint(&self) -> &'static str {
        self.meta().name
    }

    /// Decodes a success answer's body (HTTP 200) into the matching [`TrackAnswer`], for a
    /// transport of one's own that sends the read's request (and for tests).
    pub fn decode(&self, body: &[u8]) -> Result<TrackAnswer, crate::Error> {
        fn de<E: Endpoint>(_: &E, body: &[u8]) -> Result<E::Output, crate::Error> {
            crate::endpoint::parse_endpoint::<E>(200, &http::HeaderMap::new(), body)
        }
        Ok(match self {
            TrackRead::SpotOpenOrders(r) => TrackAnswer::SpotOpenOrders(de(r, body)?),
            TrackRead::SpotOrders(r) => TrackAnswer::SpotOrders(de(r, body)?),
            TrackRead::SpotTrades(r) => TrackAnswer::SpotTrades(de(r, body)?),
            TrackRead::SpotAssets(r) => TrackAnswer::SpotAssets(de(r, body)?),
            TrackRead::SwapOpenOrders(r) => TrackAnswer::SwapOpenOrders(de(r, body)?),
            TrackRead::SwapOrder(r) => TrackAnswer::SwapOrder(Box::new(de(r, body)?)),
            TrackRead::SwapTrades(r) => TrackAnswer::SwapTrades(de(r, body)?),
            TrackRead::SwapBalances(r) => TrackAnswer::SwapBalances(de(r, body)?),
            TrackRead::SwapPositions(r) => TrackAnswer::SwapPositions(de(r, body)?),
            TrackRead::Reconcile(r) => TrackAnswer::Reconcile(r.decode(body)?),
        })
    }

    /// The read as a call of `session` (its budget, retries and clock), whose output is the
    /// matching [`TrackAnswer`]: what a transport drives to perform it.
    pub fn call<'a>(
        &'a self,
        session: &'a Session,
    ) -> Box<dyn Drive<Output = TrackAnswer> + Send + 'a> {
        match self {
            TrackRead::SpotOpenOrders(r) => wrap(session.call(r), TrackAnswer::SpotOpenOrders),
            TrackRead::SpotOrders(r) => wrap(session.call(r), TrackAnswer::SpotOrders),
            TrackRead::SpotTrades(r) => wrap(session.call(r), TrackAnswer::SpotTrades),
            TrackRead::SpotAssets(r) => wrap(session.call(r), TrackAnswer::SpotAssets),
            TrackRead::SwapOpenOrders(r) => wrap(session.call(r), TrackAnswer::SwapOpenOrders),
            TrackRead::SwapOrder(r) => {
                wrap(session.call(r), |o| TrackAnswer::SwapOrder(Box::new(o)))
            }
            TrackRead::SwapTrades(r) => wrap(session.call(r), TrackAnswer::SwapTrades),
            TrackRead::SwapBalances(r) => wrap(session.call(r), TrackAnswer::SwapBalances),
            TrackRead::SwapPositions(r) => wrap(session.call(r), TrackAnswer::SwapPositions),
            TrackRead::Reconcile(r) => wrap(r.call(session), TrackAnswer::Reconcile),
        }
    }
}

fn wrap<'a, D: Drive + Send + 'a>(
    inner: D,
    wrap: fn(D::Output) -> TrackAnswer,
) -> Box<dyn Drive<Output = TrackAnswer> + Send + 'a> {
    Box::new(crate::session::Mapped::new(inner, wrap))
}
