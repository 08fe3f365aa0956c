//! The one list of endpoints: every endpoint's request type in documentation order (spot
//! market, account, order, wallet; swap public, account, trade, copy trading), each marked
//! `read` or `write`; a write also names its arm of [`crate::reconcile::Write`] and the ids its
//! answer names as created.
//!
//! The catalog ([`crate::catalog::all`]) and the reconciliation's tables (the enum `Write`, the
//! writes rebuilt from wire parameters, their matches and `WriteRequest` impls) are generated
//! from it: `endpoints!(then)` calls the macro `then` with the list, and each consumer takes
//! what it needs. A new endpoint is one line here (see CONTRIBUTING).

/// Calls the macro named `$then` with the endpoint list: one
/// `/// doc` + `read Type;` or `write Type => Variant |o| created_ids;` per endpoint.
macro_rules! endpoints {
    ($then:ident) => {
        $then! {
            // spot::market
            /// `GET /v3/ping`.
            read crate::spot::market::PingRequest;
            /// `GET /v3/time`.
            read crate::spot::market::ServerTimeRequest;
            /// `GET /v3/markets`.
            read crate::spot::market::MarketsRequest;
            /// `GET /v3/ticker`.
            read crate::spot::market::TickerRequest;
            /// `GET /v3/order_book`.
            read crate::spot::market::OrderBookRequest;
            /// `GET /v3/trades`.
            read crate::spot::market::TradesRequest;
            /// `GET /v3/kline`.
            read crate::spot::market::KlineRequest;
            /// `GET /v3/spot/symbols`.
            read crate::spot::market::SpotSymbolsRequest;
            /// `GET /v3/margin/currencies`.
            read crate::spot::market::MarginCurrenciesRequest;
            /// `GET /v3/margin/symbols`.
            read crate::spot::market::MarginSymbolsRequest;
            /// `GET /v3/trades/symbols`.
            read crate::spot::market::TradesSymbolsRequest;
            /// `GET /v3/currencies`.
            read crate::spot::market::CurrenciesRequest;
            // spot::account
            /// `GET /v3/spot/assets`.
            read crate::spot::account::SpotAssetsRequest;
            /// `GET /v3/margin/assets`.
            read crate::spot::account::MarginAssetsRequest;
            /// `GET /v3/{market}/financelog`.
            read crate::spot::account::FinanceLogRequest;
            /// `GET /v3/margin/positions`.
            read crate::spot::account::MarginPositionsRequest;
            /// `POST /v3/transfer`.
            write crate::spot::account::TransferRequest => SpotTransfer |o| Vec::new();
            /// `POST /v3/margin/position/close`.
            write crate::spot::account::ClosePositionRequest => MarginClose |o| Vec::new();
            // spot::order
            /// `GET /v3/{market}/order`.
            read crate::spot::order::OrdersRequest;
            /// `GET /v3/{market}/order/detail`.
            read crate::spot::order::OrderDetailRequest;
            /// `GET /v3/{market}/order/current`.
            read crate::spot::order::CurrentOrdersRequest;
            /// `GET /v3/{market}/order/history`.
            read crate::spot::order::OrderHistoryRequest;
            /// `GET /v3/{market}/mytrades`.
            read crate::spot::order::MyTradesRequest;
            /// `POST /v3/{market}/order/new`.
            write crate::spot::order::PlaceOrderRequest => SpotOrder |o| vec![o.order_id.clone()];
            /// `POST /v3/{market}/order/batch_new`.
            write crate::spot::order::BatchPlaceOrdersRequest => SpotBatch |o| o.order_ids.clone();
            /// `POST /v3/{market}/order/cancel`.
            write crate::spot::order::CancelOrdersRequest => SpotCancel |o| Vec::new();
            // spot::wallet
            /// `GET /v3/deposit/address`.
            read crate::spot::wallet::DepositAddressRequest;
            /// `GET /v3/deposit/history`.
            read crate::spot::wallet::DepositHistoryRequest;
            /// `GET /v3/withdraw/history`.
            read crate::spot::wallet::WithdrawHistoryRequest;
            /// `POST /v3/withdraw/new`.
            write crate::spot::wallet::WithdrawRequest => Withdraw |o| vec![o.withdraw_id.clone()];
            /// `POST /v3/withdraw/cancel`.
            write crate::spot::wallet::CancelWithdrawRequest => WithdrawCancel |o| Vec::new();
            // swap::public
            /// `GET /swap/v2/public/time`.
            read crate::swap::public::ServerTimeRequest;
            /// `GET /swap/v2/public/api_weight`.
            read crate::swap::public::ApiWeightRequest;
            /// `GET /swap/v2/public/instruments`.
            read crate::swap::public::InstrumentsRequest;
            /// `GET /swap/v2/public/instrument`.
            read crate::swap::public::InstrumentRequest;
            /// `GET /swap/v2/public/depth`.
            read crate::swap::public::DepthRequest;
            /// `GET /swap/v2/public/trades`.
            read crate::swap::public::TradesRequest;
            /// `GET /swap/v2/public/ticker`.
            read crate::swap::public::TickerRequest;
            /// `GET /swap/v2/public/tickers`.
            read crate::swap::public::TickersRequest;
            /// `GET /swap/v2/public/candles`.
            read crate::swap::public::CandlesRequest;
            /// `GET /swap/v2/public/funding_rate`.
            read crate::swap::public::FundingRateRequest;
            /// `GET /swap/v2/public/candles_history`.
            read crate::swap::public::CandlesHistoryRequest;
            /// `GET /swap/v2/public/funding_rate_history`.
            read crate::swap::public::FundingRateHistoryRequest;
            // swap::account
            /// `GET /swap/v2/account/balance`.
            read crate::swap::account::BalanceRequest;
            /// `POST /swap/v2/account/transfer`.
            write crate::swap::account::TransferRequest => SwapTransfer |o| Vec::new();
            /// `GET /swap/v2/account/positions`.
            read crate::swap::account::PositionsRequest;
            /// `POST /swap/v2/account/position_mode` (margin mode).
            write crate::swap::account::PositionModeRequest => PositionMode |o| Vec::new();
            /// `POST /swap/v2/account/position_margin`.
            write crate::swap::account::PositionMarginRequest => PositionMargin |o| Vec::new();
            /// `POST /swap/v2/account/leverage`.
            write crate::swap::account::LeverageRequest => Leverage |o| Vec::new();
            /// `GET /swap/v2/account/trading_fee_rate`.
            read crate::swap::account::TradingFeeRateRequest;
            /// `GET /swap/v2/account/finance_record`.
            read crate::swap::account::FinanceRecordRequest;
            /// `GET /swap/v2/account/funding_fee`.
            read crate::swap::account::FundingFeeRequest;
            /// `GET /swap/v2/account/transfer_record`.
            read crate::swap::account::TransferRecordRequest;
            // swap::trade
            /// `POST /swap/v2/trade/order_place`.
            write crate::swap::trade::PlaceOrderRequest => SwapOrder |o| vec![o.order_id.clone()];
            /// `POST /swap/v2/trade/cancel_order`.
            write crate::swap::trade::CancelOrderRequest => SwapCancel |o| Vec::new();
            /// `POST /swap/v2/trade/batch_order`.
            write crate::swap::trade::BatchPlaceOrdersRequest => SwapBatch |o| o.ids().map(str::to_owned).collect();
            /// `POST /swap/v2/trade/batch_cancel_order`.
            write crate::swap::trade::BatchCancelOrdersRequest => SwapBatchCancel |o| Vec::new();
            /// `GET /swap/v2/trade/open_orders`.
            read crate::swap::trade::OpenOrdersRequest;
            /// `GET /swap/v2/trade/order_info`.
            read crate::swap::trade::OrderInfoRequest;
            /// `GET /swap/v2/trade/history_orders`.
            read crate::swap::trade::HistoryOrdersRequest;
            /// `GET /swap/v2/trade/history_trades`.
            read crate::swap::trade::HistoryTradesRequest;
            // swap::copy
            /// `POST /swap/v2/follow/sponsor_order`.
            write crate::swap::copy::SponsorOrderRequest => Sponsor |o| Vec::new();
            /// `POST /swap/v2/follow/close_order`.
            write crate::swap::copy::CloseCopyOrderRequest => CopyClose |o| Vec::new();
            /// `POST /swap/v2/follow/cancel_order`.
            write crate::swap::copy::CancelCopyOrderRequest => CopyCancel |o| Vec::new();
            /// `POST /swap/v2/follow/user_center_current`.
            read crate::swap::copy::CopyCurrentRequest;
            /// `POST /swap/v2/follow/user_center_history`.
            read crate::swap::copy::CopyHistoryRequest;
            /// `POST /swap/v2/follow/expert_current_open_order`.
            read crate::swap::copy::ExpertOpenOrdersRequest;
            /// `POST /swap/v2/follow/add_algo`.
            write crate::swap::copy::AddAlgoRequest => AddAlgo |o| o.algos.clone();
            /// `POST /swap/v2/follow/cancel_algo`.
            write crate::swap::copy::CancelAlgoRequest => CancelAlgo |o| Vec::new();
            /// `POST /swap/v2/follow/account_available`.
            read crate::swap::copy::CopyAvailableRequest;
            /// `POST /swap/v2/follow/plan_task`.
            read crate::swap::copy::PlanTaskRequest;
            /// `POST /swap/v2/follow/instrument_list`.
            read crate::swap::copy::CopyInstrumentsRequest;
        }
    };
}

pub(crate) use endpoints;
