//! The reads a tracker hands out and their typed answers.

use crate::reconcile::{Evidence, Read};
use crate::{spot as sp, swap as sw};

crate::reads::typed_reads! {
    /// An idempotent read the tracker needs, as the typed request to send.
    TrackRead;
    /// The typed answer to a [`TrackRead`] (the arm of the same name).
    TrackAnswer;
    /// `GET /v3/{market}/order/current`: the open orders of one pair.
    SpotOpenOrders(sp::CurrentOrdersRequest) => sp::Orders, |o| o;
    /// `GET /v3/{market}/order`: orders by id (those no longer listed as open).
    SpotOrders(sp::OrdersRequest) => sp::Orders, |o| o;
    /// `GET /v3/{market}/mytrades`: own fills of one pair, with trade ids and fees.
    SpotTrades(sp::MyTradesRequest) => sp::MyTrades, |o| o;
    /// `GET /v3/spot/assets`: the spot balances.
    SpotAssets(sp::SpotAssetsRequest) => sp::SpotAssets, |o| o;
    /// `GET /swap/v2/trade/open_orders`: the open orders of one instrument.
    SwapOpenOrders(sw::OpenOrdersRequest) => Vec<sw::Order>, |o| o;
    /// `GET /swap/v2/trade/order_info`: one order by id (one no longer listed as open; the
    /// answer is boxed: an order is large).
    SwapOrder(sw::OrderInfoRequest) => Box<sw::Order>, |o| Box::new(o);
    /// `GET /swap/v2/trade/history_trades`: own fills of one instrument, with trade ids and fees.
    SwapTrades(sw::HistoryTradesRequest) => Vec<sw::Fill>, |o| o;
    /// `GET /swap/v2/account/balance`: the swap balances.
    SwapBalances(sw::BalanceRequest) => Vec<sw::Balance>, |o| o;
    /// `GET /swap/v2/account/positions`: the swap positions.
    SwapPositions(sw::PositionsRequest) => Vec<sw::Position>, |o| o;
    @nested
    /// A read of the reconciliation of an unknown outcome ([`crate::reconcile::Reconciler`]).
    Reconcile(Read) => Evidence;
}
